"""The Whipple bicycle imported from sympy.physics.mechanics and linearised by jetgeo (issue 9).

The model is ``benchmarks/whipple_kane.py``: frames, points, the four rigid bodies, gravity
loads and constraints written for KanesMethod.  The same objects are handed to
``jetgeo.io.sympy_import.from_mechanics`` (nothing rewritten); the holonomic front-contact
condition h(q) = 0 enters as its time derivative ḣ = 0 among the velocity constraints (the
importer also takes h itself as a configuration constraint, see the last test), next to the
four no-slip constraints.  jetgeo's
``linearise(route="multipliers")`` then linearises about upright straight-ahead motion at a
symbolic speed v.

Independent truths [Meijaard et al. 2007]:
Table 2's eigenvalues at v = 0 and v = 5 m/s; the printed matrices M, C₁, K₀, K₂ (eq. (A1)–(A4)
evaluated with Table 1: the reduced mass matrix, damping and stiffness of the lean/steer
linearisation); at v = 10 m/s the eigenvalues of those printed matrices (Table 2's row for
v = 10 is not among the values quoted in our sources); the weave and capsize speeds (§4).
"""

from __future__ import annotations

import functools
import sys
import time
from pathlib import Path

import numpy as np
import sympy as sp
from sympy.physics.mechanics import dynamicsymbols, msubs

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks import whipple_kane as W  # noqa: E402
from jetgeo.io.sympy_import import from_mechanics  # noqa: E402
from jetgeo.mechanics import linearise  # noqa: E402

V = sp.Symbol("v")


@functools.cache
def _imported():
    m = W.model()
    t0 = time.perf_counter()
    imp = from_mechanics(m.q, m.bodies, m.N, loads=m.loads, velocity_constraints=m.velocity_constraints)
    return m, imp, time.perf_counter() - t0


@functools.cache
def _lean_steer():
    """jetgeo's linearisation at speed v (symbolic), restricted to (φ, δ, φ̇, δ̇)."""
    m, imp, _ = _imported()
    Y = imp.Y
    x, y, psi, phi, theta, delta, thR, thF = Y.q
    phid, deltad, thRd = Y.qdot[3], Y.qdot[5], Y.qdot[6]
    rR = m.values[m.params["rR"]]
    point = {**{s: 0 for s in Y.q}, phid: 0, deltad: 0, thRd: -V / rR}  # rolling forward at speed v
    lin = linearise((imp.system, imp.Q), point, params=m.values, route="multipliers",
                    independent=[phid, deltad, thRd])
    return lin.restrict([phi, delta, phid, deltad])  # checks: a steady motion, the dropped states cyclic


def _num(M, v):
    return np.array(M.xreplace({V: v}).evalf(30), dtype=float)


def test_import_translates_energy_and_constraints_of_the_sympy_objects():
    """The imported T and f equal sympy's own expressions at random states (translation check),
    and the linearisation point (all angles 0) lies on the holonomic constraint h = 0
    whatever the parameters."""
    m, imp, _ = _imported()
    Y = imp.Y
    t = dynamicsymbols._t
    T_sympy = sum(b.kinetic_energy(m.N) for b in m.bodies)
    rng = np.random.default_rng(9)
    vals = {k: sp.Float(float(v)) for k, v in m.values.items()}
    for _ in range(2):
        qv = [sp.Float(z) for z in rng.uniform(-0.6, 0.6, 8)]
        qdv = [sp.Float(z) for z in rng.uniform(-2, 2, 8)]
        dyn = {**{qi.diff(t): z for qi, z in zip(m.q, qdv)}, **dict(zip(m.q, qv))}
        jet = {**dict(zip(Y.q, qv)), **dict(zip(Y.qdot, qdv))}
        assert abs(float(msubs(T_sympy, dyn).xreplace(vals)) - float(imp.T.xreplace(jet).xreplace(vals))) < 1e-9
        for f_sym, f_jet in zip(m.velocity_constraints, imp.Q.f):
            assert abs(float(msubs(f_sym, dyn).xreplace(vals)) - float(f_jet.xreplace(jet).xreplace(vals))) < 1e-9
    # h at the reference configuration vanishes for every parameter value (a small expression: simplify is fine here)
    assert sp.simplify(msubs(m.holonomic, {qi: 0 for qi in m.q})) == 0
    assert len(imp.Q.f) == 5  # four no-slip constraints and ḣ


def test_meijaard_table2_eigenvalues_v0_v5_v10():
    """[Meijaard et al. 2007, Table 2] (v = 0: ±3.1316…, ±5.5309…; v = 5: −14.078…, −0.3229…,
    −0.7753… ± 4.4649…i) to 1e-10; v = 10 against the printed matrices' eigenvalues."""
    r = _lean_steer()
    for v in (0, 5):
        ev = W._sorted(np.linalg.eigvals(_num(r.A, v)))
        assert np.max(np.abs(ev - W._sorted(W.PUBLISHED_EIGENVALUES[v]))) < 1e-10, (v, ev)
    ev10 = W._sorted(np.linalg.eigvals(_num(r.A, 10)))
    assert np.max(np.abs(ev10 - W.eigenvalues_from_published(10))) < 1e-10, ev10


def test_meijaard_matrices_M_C1_K0_K2():
    """The reduced mass matrix, damping v C₁ and stiffness g K₀ + v² K₂ of the lean/steer
    linearisation equal the printed benchmark matrices (eq. (A1)–(A4) with Table 1)."""
    r = _lean_steer()
    g = 9.81
    P = {k: np.array(v) for k, v in W.PUBLISHED_MATRICES.items()}
    np.testing.assert_allclose(_num(r.mass, 0), P["M"], rtol=0, atol=1e-11)
    np.testing.assert_allclose(_num(r.damping, 1), P["C1"], rtol=0, atol=1e-11)
    K_at = {v: _num(r.stiffness, v) for v in (0, 1)}
    np.testing.assert_allclose(K_at[0] / g, P["K0"], rtol=0, atol=1e-11)
    np.testing.assert_allclose(K_at[1] - K_at[0], P["K2"], rtol=0, atol=1e-11)


def test_weave_and_capsize_speeds():
    """§4: the weave speed (a complex pair crosses the imaginary axis: Hurwitz determinant
    a₃a₂a₁ − a₄a₁² − a₃²a₀ = 0) and the capsize speed (a real eigenvalue crosses zero:
    det(g K₀ + v² K₂) = 0) of the imported model, against the printed values."""
    import mpmath

    r = _lean_steer()
    s = sp.Symbol("s")
    a4, a3, a2, a1, a0 = sp.Poly(r.A.charpoly(s).as_expr(), s).all_coeffs()
    hurwitz = sp.lambdify(V, a3 * a2 * a1 - a4 * a1**2 - a3**2 * a0, "mpmath")
    det_K = sp.lambdify(V, r.stiffness.det(), "mpmath")
    mpmath.mp.dps = 30
    weave = mpmath.findroot(hurwitz, (4.0, 4.6), solver="anderson")
    capsize = mpmath.findroot(det_K, (5.5, 6.5), solver="anderson")
    assert abs(float(weave) - W.WEAVE_SPEED) < 1e-10, weave
    assert abs(float(capsize) - W.CAPSIZE_SPEED) < 1e-10, capsize


def test_configuration_constraint_imported_as_such():
    """KanesMethod's configuration constraint h(q) = 0 handed over as such (not as ḣ by hand): the
    importer adds ḣ = ∂h/∂q q̇ to Q and keeps h; the linearisation is the same."""
    m, imp, _ = _imported()
    t = dynamicsymbols._t
    hdot = m.holonomic.diff(t)
    rolling = [f for f in m.velocity_constraints if sp.expand(f - hdot) != 0]
    assert len(rolling) == len(m.velocity_constraints) - 1
    imp2 = from_mechanics(m.q, m.bodies, m.N, loads=m.loads, velocity_constraints=rolling,
                          configuration_constraints=[m.holonomic])
    Y = imp2.Y
    assert len(imp2.holonomic) == 1 and not imp2.holonomic[0].has(*Y.qdot)
    assert sp.expand(imp2.Q.f[-1] - sum(sp.diff(imp2.holonomic[0], c) * v for c, v in zip(Y.q, Y.qdot))) == 0
    x, y, psi, phi, theta, delta, thR, thF = Y.q
    phid, deltad, thRd = Y.qdot[3], Y.qdot[5], Y.qdot[6]
    rR = m.values[m.params["rR"]]
    point = {**{s: 0 for s in Y.q}, phid: 0, deltad: 0, thRd: -5 / rR}
    assert abs(sp.N(imp2.holonomic[0].xreplace(point).xreplace(m.values), 30)) < 1e-25  # upright: on h = 0
    lin = linearise((imp2.system, imp2.Q), point, params=m.values, independent=[phid, deltad, thRd])
    ev = np.sort_complex(lin.restrict([phi, delta, phid, deltad]).eigenvalues())
    want = np.sort_complex(np.array([-14.07838969279822, -0.32286642900409,
                                     -0.77534188219585 + 4.46486771378823j, -0.77534188219585 - 4.46486771378823j]))
    np.testing.assert_allclose(ev, want, atol=1e-10)
