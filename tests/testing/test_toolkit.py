"""The public property-testing toolkit, used against sys.constrain(Q).

The strategies' guarantees are checked independently (numpy at numeric points);
the invariant checks are run on random systems and must pass, and are fed wrong
data and must fail with a clear message.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jetgeo import ConstraintSubmanifold, FibredManifold, LagrangianSystem, systems
from jetgeo.errors import InputError
from jetgeo.geometry import generic_rank
from jetgeo.mechanics import ConstrainedSystem, Motion, ParametricConstrainedSystem
from jetgeo.testing import (
    CheckReport,
    affine_constraints,
    check_agree,
    check_energy_conserved,
    check_reactions_do_no_virtual_work,
    check_tangent,
    forces,
    mechanical_systems,
    nonlinear_constraints,
    positive_definite_metrics,
    vanishes_on_points,
)

FAST = settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
RNG = np.random.default_rng(7)


def _numeric(expr_matrix, symbols, n_points=3):
    f = sp.lambdify(list(symbols), expr_matrix, "numpy")
    for _ in range(n_points):
        yield np.array(f(*RNG.uniform(-2, 2, len(symbols))), dtype=float)


# --- the strategies keep their promises ------------------------------------------------------------------


@given(positive_definite_metrics(3))
@settings(max_examples=25, deadline=None)
def test_metrics_are_symmetric_positive_definite(g):
    q = sp.symbols("q1:4")
    assert g.shape == (3, 3) and g == g.T
    for G in _numeric(g, q):
        assert np.all(np.linalg.eigvalsh(G) > 0.99)  # LᵀL + D with D ≥ 1: eigenvalues ≥ 1


@given(st.data())
@settings(max_examples=25, deadline=None)
def test_affine_constraints_full_rank_and_affine(data):
    Y = FibredManifold(["q1", "q2", "q3"])
    k = data.draw(st.integers(1, 2))
    fs = data.draw(affine_constraints(Y, k, time_dependent=True))
    J = sp.Matrix(k, 3, lambda i, s: sp.diff(fs[i], Y.qdot[s]))
    assert all(sp.diff(Jis, v) == 0 for Jis in J for v in Y.qdot)  # affine in q̇
    for Jn in _numeric(J, (Y.t, *Y.q)):
        assert np.linalg.matrix_rank(Jn) == k


@given(st.data())
@settings(max_examples=15, deadline=None)
def test_nonlinear_constraints_full_rank_and_nonlinear(data):
    Y = FibredManifold(["q1", "q2", "q3"])
    k = data.draw(st.integers(1, 2))
    fs = data.draw(nonlinear_constraints(Y, k))
    J = sp.Matrix(k, 3, lambda i, s: sp.diff(fs[i], Y.qdot[s]))
    for Jn in _numeric(J, (*Y.q, *Y.qdot)):
        assert np.linalg.matrix_rank(Jn) == k
    Q = ConstraintSubmanifold(Y, fs)
    assert len(Q.branches()) == 1 and Q.classify().kind == "nonlinear"


@given(st.data())
@settings(max_examples=15, deadline=None)
def test_forces_depend_on_state_only(data):
    Y = FibredManifold(["q1", "q2"])
    A = data.draw(forces(Y))
    assert len(A) == 2 and all(Y.jet_order(a) <= 1 and not a.has(Y.t) for a in A)


# --- the checks pass on the core's dynamics ---------------------------------------------------------------


@given(mechanical_systems(kind="affine", with_forces=True, time_dependent=True))
@FAST
def test_core_dynamics_tangent_affine(pair):
    S, Q = pair
    rep = check_tangent(S.constrain(Q))
    assert rep.passed and len(rep.details) == Q.k


@given(mechanical_systems(dims=(2, 3), kind="nonlinear"))
@FAST
def test_core_dynamics_tangent_nonlinear(pair):
    S, Q = pair
    assert check_tangent(S.constrain(Q)).passed


@given(mechanical_systems(kind="any", with_forces=True))
@FAST
def test_core_reactions_do_no_virtual_work(pair):
    S, Q = pair
    rep = check_reactions_do_no_virtual_work(S.constrain(Q))
    assert rep.passed and len(rep.details) == S.Y.m - Q.k


@given(mechanical_systems(kind="affine", homogeneous=True))
@FAST
def test_core_energy_conserved_homogeneous_affine(pair):
    S, Q = pair
    assert check_energy_conserved(S.constrain(Q)).passed


@given(mechanical_systems(dims=(3,), kind="affine", with_forces=True, trig=False))
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_core_dynamics_independent_of_the_dependent_velocities(pair):
    """[Stolařová 2009, §2]: the constrained system does not depend on how Q is solved for q̇^D (affine Q: solving for
    other velocities keeps one branch; for nonlinear Q another choice can split Q into branches)."""
    S, Q = pair
    cs = S.constrain(Q)
    J = Q.jacobian()
    others = [
        cols for cols in combinations(range(S.Y.m), Q.k)
        if [S.Y.qdot[c] for c in cols] != list(cs.dependent)
        and generic_rank(J.extract(list(range(Q.k)), list(cols))).rank == Q.k
    ]
    if not others:  # pragma: no cover - with M unimodular there is always the strategy's own choice
        return
    alt = ConstrainedSystem(S, Q, dependent=[S.Y.qdot[c] for c in others[0]])
    assert check_agree(cs, alt).passed


def test_agree_with_parametric_form_of_the_skate():
    """Benenti's parametric system [Benenti 2007, §7] and Krupková's agree on the skate, compared in (t, q, z)."""
    e = systems.load("skate")
    P = ParametricConstrainedSystem(e.system, e.psi, e.z)
    cs = e.constrained()
    rep = check_agree(cs, P)
    assert rep.passed
    assert check_agree(P, cs).passed
    assert check_tangent(P, e.Q).passed
    assert check_reactions_do_no_virtual_work(P).passed  # R·ψ_α = 0 in (t, q, z)
    assert check_reactions_do_no_virtual_work(cs, psi=e.psi, z=e.z).passed


# --- the checks fail on wrong data, clearly ---------------------------------------------------------------


def _skate():
    e = systems.load("skate")
    return e, e.constrained()


def test_free_motion_is_not_tangent_to_the_skate_constraint():
    e, _ = _skate()
    free = Motion("free", e.system, e.Q, e.system.accelerations(), tuple())  # q̈ = 0: no reaction
    with pytest.raises(AssertionError, match=r"check_tangent failed: d/dt f1"):
        check_tangent(free)


def test_check_agree_names_the_disagreeing_coordinate():
    e, cs = _skate()
    acc = cs.accelerations()
    thdd = e.Y.qddot[2]
    wrong = Motion("wrong", e.system, e.Q, {**acc, thdd: acc[thdd] + e.Y.qdot[2]}, tuple())
    with pytest.raises(AssertionError, match="thetaddot"):
        check_agree(cs, wrong)
    assert check_agree(cs, Motion("same", e.system, e.Q, acc, tuple())).passed


def test_reactions_that_work_are_caught():
    e, cs = _skate()
    R = cs.reaction_forces()
    bad = Motion("bad", e.system, e.Q, cs.accelerations(), tuple(), reactions=[R[0] + 1, R[1], R[2]])
    with pytest.raises(AssertionError, match="no_virtual_work failed"):
        check_reactions_do_no_virtual_work(bad)


def test_energy_check_refuses_inhomogeneous_constraints_and_catches_wrong_dynamics():
    Y = FibredManifold(["x", "y"])
    xd, yd = Y.qdot
    S = LagrangianSystem.mechanical(Y, (xd**2 + yd**2) / 2)
    with pytest.raises(InputError, match="not homogeneous"):
        check_energy_conserved(S.constrain(ConstraintSubmanifold(Y, [yd - xd - 1])))
    Q = ConstraintSubmanifold(Y, [yd - xd])
    wrong = Motion("wrong", S, Q, {Y.qddot[0]: 1, Y.qddot[1]: 1}, tuple())  # tangent, but accelerates
    assert check_tangent(wrong).passed
    with pytest.raises(AssertionError, match="dE/dt"):
        check_energy_conserved(wrong)


def test_report_and_low_level_test():
    e, cs = _skate()
    rep = check_tangent(cs)
    assert isinstance(rep, CheckReport) and bool(rep)
    assert "check_tangent: passed" in str(rep) and rep.method.startswith("random points")
    th = sp.Symbol("theta")
    assert vanishes_on_points(sp.sin(th) ** 2 + sp.cos(th) ** 2 - 1).zero
    v = vanishes_on_points(sp.sin(th) ** 2 - sp.cos(th))
    assert not v.zero and v.point is not None
    # the verdict is false when the expression does not vanish: ``assert vanishes_on_points(e)`` asserts
    assert not v and vanishes_on_points(sp.sin(th) ** 2 + sp.cos(th) ** 2 - 1)
    with pytest.raises(InputError, match="no constraint submanifold"):
        check_tangent(e.system)


def test_checks_accept_a_recipe_result_in_parameters_z():
    """A Motion written in (t, q, z) with q̇ = ψ attached (Benenti's first kind, [Benenti 2007, Theorem 7.1]) is
    checked in its
    own chart: tangency, R·ψ_α = 0 and agreement with the core, on the skate [Benenti 2007, §9.1]."""
    from jetgeo import recipes

    e = systems.load("skate", forces="generic")
    r = recipes.benenti_first_kind(e.system, e.psi, e.z)
    assert check_tangent(r, e.Q).passed
    assert check_agree(e.constrained(), r).passed
    rep = check_reactions_do_no_virtual_work(r, e.Q)
    assert rep.passed and len(rep.details) == len(e.z)


def test_zero_test_is_relative_to_the_size_of_the_terms_that_cancel():
    """Regression: an identically zero factor inside a product, evaluated numerically (θ occurs outside
    sin/cos, so 60-digit floats), left 1.9e-27 against terms of size 1e36 and was called non-zero — the
    relative scale was taken as 1 because the top-level expression is a product, not a sum."""
    from jetgeo.geometry.zero import PointSampler, evaluate, substitution

    th, y, z = sp.symbols("theta y z")
    A = sp.sin(th) * (th + y) ** 6
    e = z * y**3 * (A - sp.expand(A))                  # ≡ 0, but not structurally
    rep = substitution(PointSampler().point(e.free_symbols, {th}), e.atoms(sp.sin))
    val, exact, scale = evaluate(e, rep)
    assert not exact and val != 0 and abs(val) < sp.Float("1e-20")
    assert scale > sp.Float("1e30")                    # |z|·|y|³·(Σ|terms of A| + Σ|terms of expand A|)
    assert vanishes_on_points(e).zero
    # still sensitive: a relative perturbation of 1e-20 of the same size is seen
    v = vanishes_on_points(e + sp.Rational(1, 10**20) * z * y**3 * A)
    assert not v.zero and v.point is not None
    # and an absolute one that is large against the working precision
    assert not vanishes_on_points(e + th).zero


def test_dir_lists_the_lazy_strategies():
    import jetgeo.testing as jt

    names = dir(jt)
    for s in ("mechanical_systems", "affine_constraints", "fibred_manifolds", "check_tangent", "vanishes_on_points"):
        assert s in names
    assert set(jt.__all__) <= set(names)
