"""Exact linearisation of constrained systems about steady motions (jetgeo.mechanics.linearise).

Independent truths:
* Routh's stability condition of the upright rolling disc ([Routh 1884, §244];
  e.g. the uniform coin rolls upright stably iff Ω² > g/(3r)): the linearised lean/heading
  dynamics has characteristic polynomial λ²(A(A + mr²)λ² + C(C + mr²)Ω² − Amgr);
* the Chaplygin sleigh's classical equations in body velocities (v along the blade, ω):
  m v̇ = m a ω², (I + m a²) ω̇ = −m a v ω [Neimark–Fufaev 1972], linearised about v = v₀, ω = 0: the
  transverse eigenvalue is −m a v₀/(I + m a²);
* a second method: central finite differences of the full symbolic accelerations
  ``cs.accelerations()`` at a generic (non-steady) point of Q.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
import sympy as sp

from benchmarks import systems as S  # the shared definitions of the PyDy comparison (repository root on sys.path)
from jetgeo import ConstraintSubmanifold, FibredManifold, LagrangianSystem
from jetgeo.errors import InputError, OffManifoldError
from jetgeo.mechanics import linearise


@functools.cache
def _heavy_disc():
    model = S.build("heavy_disc")
    Y, L, fs = S.jetgeo_inputs(model)
    xd, yd = Y.qdot[3], Y.qdot[4]
    cs = LagrangianSystem(Y, L).constrain(ConstraintSubmanifold(Y, fs, dependent=[xd, yd]))
    return model, Y, cs


def test_upright_rolling_disc_routh_condition():
    model, Y, cs = _heavy_disc()
    ps, th, ph, x, y = Y.q
    psd, thd, phd, _, _ = Y.qdot
    W = sp.Symbol("Omega")
    lin = linearise(cs, {ps: 0, th: 0, ph: 0, x: 0, y: 0, psd: 0, thd: 0, phd: W})
    # the rest of the motion: x grows at speed rΩ, φ at Ω — cyclic; the kept states are at rest
    r = lin.restrict([th, psd, thd, phd])
    m, A, C, rr, g = (sp.Symbol(n, positive=True) for n in ("m", "A", "C", "r", "g"))
    lam = sp.Symbol("lam")
    expected = lam**2 * (A * (A + m * rr**2) * lam**2 + C * (C + m * rr**2) * W**2 - A * m * g * rr)
    got = r.A.charpoly(lam).as_expr()
    assert sp.cancel(got * A * (A + m * rr**2) - expected) == 0
    # uniform disc A = mr²/4, C = mr²/2: critical Ω² = g/(3r) [Routh 1884]
    vals = {m: 1, rr: sp.Rational(1, 2), g: sp.Rational(981, 100), A: sp.Rational(1, 16), C: sp.Rational(1, 8)}
    crit = sp.sqrt(vals[g] / (3 * vals[rr]))
    for factor, stable in ((sp.Rational(11, 10), True), (sp.Rational(9, 10), False)):
        ev = r.eigenvalues({**vals, W: factor * crit})
        assert (max(ev.real) < 1e-9) == stable


def test_off_steady_restriction_is_refused_and_off_Q_point_rejected():
    model, Y, cs = _heavy_disc()
    ps, th, ph, x, y = Y.q
    psd, thd, phd, xd, _ = Y.qdot
    lin = linearise(cs, {ps: 0, th: sp.Rational(1, 5), ph: 0, x: 0, y: 0, psd: 0, thd: 0, phd: 3})
    with pytest.raises(InputError, match="not a steady motion"):
        lin.restrict([th, psd, thd, phd])  # a leaning disc with no yaw rate falls: θ̈ ≠ 0
    with pytest.raises(OffManifoldError):
        linearise(cs, {ps: 0, th: 0, ph: 0, x: 0, y: 0, psd: 0, thd: 0, phd: 3, xd: 7})
    with pytest.raises(InputError, match="lacks values"):
        linearise(cs, {ps: 0, th: 0})


def test_chaplygin_sleigh_transverse_eigenvalue():
    Y = FibredManifold(["x", "y", "th"], time="t")
    x, y, th = Y.q
    xd, yd, thd = Y.qdot
    m, Ii, a, v0 = sp.symbols("m I a v0", positive=True)
    # centre of mass at a along the blade: v_G = (ẋ − aθ̇ sinθ, ẏ + aθ̇ cosθ)
    L = m / 2 * ((xd - a * thd * sp.sin(th)) ** 2 + (yd + a * thd * sp.cos(th)) ** 2) + Ii / 2 * thd**2
    cs = LagrangianSystem(Y, L).constrain(ConstraintSubmanifold(Y, [-xd * sp.sin(th) + yd * sp.cos(th)],
                                                                 dependent=[yd]))
    lin = linearise(cs, {x: 0, y: 0, th: 0, xd: v0, thd: 0})
    r = lin.restrict([th, xd, thd])
    lam = sp.Symbol("lam")
    expected = lam**2 * (lam + m * a * v0 / (Ii + m * a**2))
    assert sp.cancel(r.A.charpoly(lam).as_expr() - expected) == 0
    with pytest.raises(InputError, match="depends on the dropped"):
        lin.restrict([y, xd, thd])  # ẏ = ẋ tan θ: the lateral drift depends on the heading θ


def test_jacobian_matches_finite_differences_of_accelerations():
    model, Y, cs = _heavy_disc()
    acc = cs.accelerations()
    state = [*Y.q, *cs.independent]
    params = dict(model.params)
    rng = np.random.default_rng(5)
    pt = {s: float(rng.uniform(-0.9, 0.9)) for s in state}
    lin = linearise(cs, pt, params, exact=False)  # floats throughout: the fast numeric path
    gbar = [cs.g.get(v, v) for v in Y.qdot]
    F = [*gbar, *[acc[Y.qddot[Y.qdot.index(v)]] for v in cs.independent]]
    f = sp.lambdify(state, [e.xreplace(params) for e in F], "math")
    x0 = np.array([float(pt[s]) for s in state])
    h = 1e-6
    num = np.empty((len(F), len(state)))
    for j in range(len(state)):
        e = np.zeros(len(state))
        e[j] = h
        num[:, j] = (np.array(f(*(x0 + e))) - np.array(f(*(x0 - e)))) / (2 * h)
    np.testing.assert_allclose(lin.numeric(), num, rtol=1e-6, atol=1e-6)


def test_multiplier_and_reduced_routes_agree_at_a_generic_point():
    """Two exact routes: derivatives of the bordered system (multipliers, default; falls back to
    symbolic differentiation since the disc accelerates there) and of Krupková's A′, B′."""
    model, Y, cs = _heavy_disc()
    ps, th, ph, x, y = Y.q
    psd, thd, phd, _, _ = Y.qdot
    vals = {s: sp.Rational(v) for s, v in zip(sorted(model.params, key=str), ("0.2", "0.35", "9.81", "1.3", "0.5"))}
    pt = {ps: sp.Rational(1, 3), th: sp.Rational(1, 5), ph: 1, x: 2, y: 3, psd: sp.Rational(1, 2),
          thd: sp.Rational(-1, 3), phd: 2}
    a = linearise(cs, pt, params=vals)
    b = linearise(cs, pt, params=vals, route="reduced")
    assert a.method == "multipliers" and b.method == "reduced"
    np.testing.assert_allclose(a.numeric(), b.numeric(), atol=1e-12, rtol=1e-12)
    np.testing.assert_allclose(np.array(a.M.evalf(20), dtype=float), np.array(b.M.evalf(20), dtype=float),
                               atol=1e-12)
    # the pair (system, Q) needs no normal form and gives the same
    c = linearise((cs.system, cs.Q), pt, params=vals, independent=cs.independent)
    np.testing.assert_allclose(a.numeric(), c.numeric(), atol=1e-40)


def test_multiplier_route_reports_bad_input():
    model, Y, cs = _heavy_disc()
    ps, th, ph, x, y = Y.q
    psd, thd, phd, xd, yd = Y.qdot
    with pytest.raises(InputError, match="route must be"):
        linearise(cs, {}, route="nonsense")
    with pytest.raises(InputError, match="independent velocities"):
        linearise(cs, {ps: 0, th: 0, ph: 0, x: 0, y: 0, psd: 0, thd: 0})
    # nonlinear constraints: every velocity is needed (and checked against f = 0)
    Y2 = FibredManifold(["x", "y"])
    (x2, y2), (xd2, yd2) = Y2.q, Y2.qdot
    S2 = LagrangianSystem(Y2, (xd2**2 + yd2**2) / 2)
    Q2 = ConstraintSubmanifold(Y2, [xd2**2 + yd2**2 - 1])
    with pytest.raises(InputError, match="nonlinear"):
        linearise((S2, Q2), {x2: 0, y2: 0, xd2: 1})
    with pytest.raises(OffManifoldError):
        linearise((S2, Q2), {x2: 0, y2: 0, xd2: 1, yd2: 1})
    lin = linearise((S2, Q2), {x2: 0, y2: 0, xd2: 1, yd2: 0})  # uniform motion on the unit speed circle
    assert lin.f0.T.tolist() == [[1, 0, 0]] and lin.A[2, :] == sp.zeros(1, 3)


def test_params_are_substituted_into_the_point_values():
    """``params`` reach the point too: the upright disc's steady motion has ẋ = −aΩ; with a = 1 given in
    ``params`` the point is on Q (main: OffManifoldError "−Ωa + Ω ≠ 0"), and the result equals the
    linearisation of the system built with those values (both routes)."""
    from jetgeo.mechanics import steady_motions
    from jetgeo.systems.catalogue import load

    vals = {"A": sp.Rational(1, 4), "C": sp.Rational(1, 2), "m": 1, "a": 1, "g": 10}
    W = sp.Symbol("Omega")
    lins = []
    for e, params in ((load("rolling_disc"), vals), (load("rolling_disc", **vals), None)):
        cs = e.constrained()
        x, y, th, ps, ph = e.Y.q
        xd, yd, thd, psd, phd = e.Y.qdot
        [sm] = steady_motions(cs, {th: sp.pi / 2, psd: 0, phd: W})
        assert params is None or sm.point[xd].has(sp.Symbol("a", positive=True))
        lins += [linearise(cs, sm, params=params, route=meth) for meth in ("multipliers", "reduced")]
    assert all(lin.A == lins[-1].A for lin in lins)
    with pytest.raises(InputError, match="unknown name 'b'"):
        linearise(load("rolling_disc").constrained(), sm.point, params={"b": 1})


def test_eigenvalues_take_parameters_by_name():
    """main: TypeError "Cannot convert expression to float" — the name "m" became a plain Symbol, not the
    system's positive m.  Routh: λ² = −(C(C + ma²)Ω² − Amga)/(A(A + ma²)) = −13.6 at Ω = 3."""
    from jetgeo.mechanics import steady_motions
    from jetgeo.systems.catalogue import load

    e = load("rolling_disc")
    cs = e.constrained()
    x, y, th, ps, ph = e.Y.q
    xd, yd, thd, psd, phd = e.Y.qdot
    [sm] = steady_motions(cs, {th: sp.pi / 2, psd: 0, phd: 3})
    lin = linearise(cs, sm)
    ev = lin.eigenvalues({"m": 1, "a": 1, "A": 0.25, "C": 0.5, "g": 10})
    assert np.allclose(sorted(ev.imag), [-np.sqrt(13.6), 0, 0, np.sqrt(13.6)]) and np.allclose(ev.real, 0)
    with pytest.raises(InputError, match=r"no value given for \['g'\]"):
        lin.numeric({"m": 1, "a": 1, "A": 0.25, "C": 0.5})
