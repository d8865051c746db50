"""The benchmark systems compare like with like: jetgeo and sympy.physics.mechanics give the
same accelerations on the constraint manifold.

Each system of ``benchmarks/systems.py`` is defined once (sympy.physics.mechanics kinematics);
jetgeo gets L = T − V and the constraints in jet coordinates, KanesMethod the bodies and the
velocity constraints, LagrangesMethod L and ``nonhol_coneqs``.  At random points of Q the
accelerations from jetgeo's symbolic ``cs.accelerations()`` must equal those obtained by a
*numeric* solve of each peer's mass matrix and forcing (an independent method).  No timings.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import numpy as np
import pytest
import sympy as sp
from sympy.solvers.solveset import NonlinearError

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root holds benchmarks/

from benchmarks import systems as S  # noqa: E402

CASES = ["chaplygin_sleigh", "vertical_disc", "heavy_disc", "n_trailer_1", "n_trailer_2", "parallel_points"]


@functools.cache
def _derive(name):
    model = S.build(name)
    Y, L, fs = S.jetgeo_inputs(model)
    cs, acc = S.jetgeo_derive(Y, L, fs)
    return model, Y, cs, acc


@pytest.mark.parametrize("name", CASES)
def test_jetgeo_matches_lagranges_method_on_Q(name):
    model, Y, cs, acc = _derive(name)
    lm, _, _, _ = S.lagrange_derive(model, explicit=False)
    rng = np.random.default_rng(7)
    for _ in range(3):
        pt = S.random_state(model, Y, cs.nf, rng)
        mine = S.jetgeo_numeric(acc, Y, pt)
        peer = S.lagrange_numeric(lm, model, Y, pt)
        np.testing.assert_allclose(mine, peer, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("name", [c for c in CASES if c != "parallel_points"])
def test_jetgeo_matches_kanes_method_on_Q(name):
    model, Y, cs, acc = _derive(name)
    dep = [Y.qdot.index(d) for d in cs.dependent]
    km, _, _, _ = S.kane_derive(model, dep, explicit=False)
    rng = np.random.default_rng(11)
    for _ in range(3):
        pt = S.random_state(model, Y, cs.nf, rng)
        mine = S.jetgeo_numeric(acc, Y, pt)
        peer = S.kane_numeric(km, model, Y, pt)
        np.testing.assert_allclose(mine, peer, rtol=1e-9, atol=1e-9)


def test_random_states_lie_on_Q():
    """The sample points satisfy every constraint f^i = 0 (so the comparison is on Q)."""
    for name in ["heavy_disc", "n_trailer_2", "parallel_points"]:
        model, Y, cs, _ = _derive(name)
        _, rep = S.jet_symbols(model)
        pt = S.random_state(model, Y, cs.nf, np.random.default_rng(3))
        for f in model.constraints:
            assert abs(float(S.to_jet(f, rep).xreplace(pt))) < 1e-12


def test_kanes_method_rejects_parallel_velocities():
    """[Benenti 2007, Example 9.4]: ẋ₁ẏ₂ − ẋ₂ẏ₁ = 0 is not linear in the speeds; KanesMethod raises."""
    model, Y, cs, _ = _derive("parallel_points")
    dep = [Y.qdot.index(d) for d in cs.dependent]
    with pytest.raises(NonlinearError):
        S.kane_derive(model, dep, explicit=False)


def test_parallel_velocities_free_motion_and_jetgeo_reports_singular_states():
    """With Chetaev's rule the reaction vanishes on Q (λ(m₁ρ² + m₂σ²) = 0 ⇒ λ = 0, cf. Benenti's
    G matrix in [Benenti 2007, §9.4]): straight-line motion, q̈ = 0; LagrangesMethod agrees but reports nothing
    else, jetgeo states where the constraint is singular (the rank of ∂C/∂q̇ drops where both
    velocities vanish) and where its normal form fails."""
    model, Y, cs, acc = _derive("parallel_points")
    assert all(sp.expand(e) == 0 for e in acc.values())
    lm, qdd, lam, _ = S.lagrange_derive(model)
    assert all(sp.expand(e) == 0 for e in qdd)
    assert all(sp.expand(e) == 0 for e in lam)
    x1d, y1d, x2d, y2d = Y.qdot
    states = cs.Q.singular_states()
    zero_section = {x1d: 0, y1d: 0, x2d: 0, y2d: 0}
    assert states and all(sp.sympify(s).xreplace(zero_section) == 0 for s in states)
    assert cs.Q.classify().kind == "nonlinear"
    assert cs.nf.condition != 1


def test_runner_growth_exponent_and_ratio_table():
    """The runner's log–log fit recovers a known power law; the ratio table reads jetgeo/peer."""
    from benchmarks.run import growth_exponents, ratio_table

    def rec(t):
        return {"status": "ok", "derive": t, "ops": 10, "rhs_us": 2.0}

    cases = [{"name": f"n_trailer_{n}", "tools": {"jetgeo": rec(0.01 * n**2), "jetgeo_tq": rec(0.004 * n**2),
                                                   "kane": rec(0.02 * n**3),
                                                   "lagrange": {"status": "timeout", "timeout": 5.0, "runs": []}}}
             for n in (2, 3, 4, 6)]
    ge = growth_exponents(cases)
    assert abs(ge["jetgeo"]["exponent"] - 2) < 1e-12 and abs(ge["kane"]["exponent"] - 3) < 1e-12
    assert ge["lagrange"]["exponent"] is None
    row = ratio_table(cases).splitlines()[2]
    # jetgeo/Kane, jetgeo-TQ/Kane, jetgeo/Lagrange (timed out: an upper bound), ops ratios, rhs ratios
    assert row.startswith("| n_trailer_2 | 0.25 | 0.10 | <0.01 | 1.00 | 1.00 | timeout | 1.00 | timeout |")


def test_affine_sample_state_is_the_normal_form_state():
    """The runner's sample point without a normal form (numeric solve of f = 0 for q̇^D) is the
    point the normal form gives, from the same random draws."""
    model = S.build("n_trailer_3")
    Y, L, fs = S.jetgeo_inputs(model)
    dep = [Y.qdot[i] for i in model.extra["natural_dependent"]]
    from jetgeo import ConstraintSubmanifold

    nf = ConstraintSubmanifold(Y, fs, dependent=dep).normal_form()
    a = S.random_state_affine(model, Y, fs, dep, np.random.default_rng(5))
    b = S.random_state(model, Y, nf, np.random.default_rng(5))
    assert set(a) == set(b)
    assert max(abs(a[k] - b[k]) for k in a) < 1e-12


@pytest.mark.parametrize("n", [3, 5])
def test_tq_route_matches_kanes_method_on_Q(n):
    """jetgeo's TQ route (dependent velocities kept as symbols, the benchmark's jetgeo-TQ column)
    against a numeric solve of KanesMethod's mass matrix and forcing, same dependent speeds."""
    from jetgeo import ConstraintSubmanifold, LagrangianSystem
    from jetgeo.mechanics import accelerations_on_TQ

    model = S.build(f"n_trailer_{n}")
    Y, L, fs = S.jetgeo_inputs(model)
    hand = model.extra["natural_dependent"]
    dep = [Y.qdot[i] for i in hand]
    acc = accelerations_on_TQ(LagrangianSystem(Y, L), ConstraintSubmanifold(Y, fs), dependent=dep)
    km, _, _, _ = S.kane_derive(model, hand, explicit=False)
    params = sorted(model.params, key=sp.default_sort_key)
    f = sp.lambdify([*Y.q, *Y.qdot, *params], [acc[a] for a in Y.qddot], modules="math", cse=True)
    rng = np.random.default_rng(13)
    for _ in range(3):
        pt = S.random_state_affine(model, Y, fs, dep, rng)
        mine = np.array(f(*[pt[s] for s in [*Y.q, *Y.qdot, *params]]))
        np.testing.assert_allclose(mine, S.kane_numeric(km, model, Y, pt), rtol=1e-9, atol=1e-9)
