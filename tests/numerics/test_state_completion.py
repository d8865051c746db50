"""The numerical completion of a state on Q from the normal form q̇^D = g has one home,
:func:`jetgeo.numerics.simulation.initial.complete_from_normal_form`, used by ``simulate`` (one state) and by the
batched ensembles (one column per member)."""

from __future__ import annotations

import numpy as np
import sympy as sp

from jetgeo import ConstraintSubmanifold, FibredManifold, LagrangianSystem, systems
from jetgeo.geometry.exact import solve_exact, tree_size
from jetgeo.geometry.zero import is_zero
from jetgeo.numerics import batch, prepare, simulate
from jetgeo.numerics.simulation import initial


def _g(t, y, p):
    # q̇^D = q (row 3) · q̇^I (row 2) + p: reads only rows 0..2 and the parameter
    return np.array([y[0] * y[2] + p[0]])


def test_fills_the_missing_dependent_velocities_of_one_state_and_keeps_given_ones():
    y = np.array([2.0, 1.0, 3.0, np.nan])
    out = initial.complete_from_normal_form(_g, 0.0, y, np.array([0.5]), [3])
    assert out is y and y.tolist() == [2.0, 1.0, 3.0, 6.5]
    given = np.array([2.0, 1.0, 3.0, -1.0])
    assert initial.complete_from_normal_form(_g, 0.0, given, np.array([0.5]), [3]).tolist() == [2.0, 1.0, 3.0, -1.0]


def test_fills_member_by_member_in_a_batch():
    Y = np.array([[2.0, 1.0], [0.0, 0.0], [3.0, 4.0], [np.nan, 7.0]])
    initial.complete_from_normal_form(_g, np.zeros(2), Y, np.array([[0.5, 0.5]]), [3])
    assert Y[3].tolist() == [6.5, 7.0]


def _cubic():
    """ẏ = ẋ³: affine in ẏ but not in the velocities, so a missing ẏ comes from the normal form."""
    Y = FibredManifold(["x", "y"])
    xd, yd = Y.qdot
    S = LagrangianSystem.mechanical(Y, (xd**2 + yd**2) / 2)
    return S.constrain(ConstraintSubmanifold(Y, [yd - xd**3], dependent=[yd]))


def test_simulate_and_the_batch_complete_through_it(monkeypatch):
    cs = _cubic()
    x, y = cs.Y.q
    xd, yd = cs.Y.qdot
    calls = []
    real = initial.complete_from_normal_form

    def spy(*args):
        calls.append(np.ndim(args[2]))
        return real(*args)

    monkeypatch.setattr(initial, "complete_from_normal_form", spy)
    monkeypatch.setattr(batch, "complete_from_normal_form", spy)
    r = simulate(cs, (0, 0.1), {x: 0, y: 0, xd: 0.5}, complete=True)
    assert calls == [1] and np.isclose(r.column("ydot")[0], 0.125)
    model = batch.batch_model(prepare(cs, "reduced"))
    full = np.array([[0.0, 0.0], [0.0, 1.0], [0.5, 2.0], [np.nan, np.nan]])  # rows x, y, ẋ, ẏ: ẏ missing
    done, msgs = batch.check_initial(model, 0.0, full, np.zeros((0, 2)), True, 1e-9)
    assert calls == [1, 2] and msgs == [None, None] and done[3].tolist() == [0.125, 8.0]


def test_a_long_chains_sample_state_is_the_unexpanded_lu_solution():
    """``complete_on_Q`` writes a long chain's dependent velocities as the core's unexpanded LU solution (as sympy's
    LUsolve nested them), not as cancelled fractions, which are about twice as large and made every route evaluated
    at the state slower (n_trailer n = 6: θ̇6 1 026 against 2 357 tree nodes; linearise 11 % slower,
    benchmarks/results/routes_refactor.txt).  Independent truth: the values equal the exact solve's, and the
    constraints vanish at the state (exact zero test)."""
    e = systems.load("n_trailer", n=6)
    dep = list(e.Q.dependent)
    memo: dict = {}
    assert sum(tree_size(e.initial[d], memo) for d in dep) <= 2_500  # cancelled fractions: about 4 000
    rest = {k: v for k, v in {**e.params, **e.initial}.items() if k not in dep}
    A, b = sp.linear_eq_to_matrix([f.xreplace(rest) for f in e.Q.f], dep)
    exact = solve_exact(A, b)
    assert all(is_zero(e.initial[d] - x) for d, x in zip(dep, exact))
    assert all(is_zero(f.xreplace({**e.params, **e.initial})) for f in e.Q.f)
