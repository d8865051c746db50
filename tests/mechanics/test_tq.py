"""Accelerations with the dependent velocities kept as symbols (jetgeo.mechanics.tq) against
Krupková's constrained system on Q (a second route to the same dynamics): equal at points of Q
for catalogue systems (affine, Chaplygin, nonlinear constraints) and for the n-trailer, and
the regularity check reports a degenerate system."""

from __future__ import annotations

import random

import pytest
import sympy as sp

from jetgeo import ConstraintSubmanifold, FibredManifold, LagrangianSystem, systems
from jetgeo.errors import NotRegularError, RankDeficientError
from jetgeo.geometry.zero import is_zero
from jetgeo.mechanics import accelerations_on_TQ
from jetgeo.mechanics.tq import reduced_parts_on_TQ

CASES = ["skate", "vertical_disc", "rolling_disc", "stolarova_example1", "stolarova_example2",
         "stolarova_example3", "appell_machine", "two_wheels_axle", "parallel_velocities"]


def _points_on_Q(entry, cs, count=3, seed=7):
    """Random rational (q, q̇^I) with q̇^D from the normal form; parameters at their sample values."""
    rng = random.Random(seed)
    Y = entry.Y
    for _ in range(count):
        pt = {s: sp.Rational(rng.randint(-90, 90), 100) for s in (*Y.q, *cs.independent)}
        pt[Y.t] = sp.Rational(1, 3)
        base = {**entry.params, **pt}
        for d, g in cs.g.items():
            pt[d] = g.xreplace(base)
        # 40-digit floats: sympy's evalf of expressions full of sin(rational) atoms takes seconds
        yield {k: sp.Float(sp.N(v, 40), 40) for k, v in {**entry.params, **pt}.items()}


@pytest.mark.parametrize("name", CASES)
def test_agrees_with_the_constrained_system_on_Q(name):
    entry = systems.load(name)
    cs = entry.constrained()
    acc_Q = cs.accelerations()
    acc_TQ = accelerations_on_TQ(entry.system, entry.Q, dependent=cs.dependent)
    for pt in _points_on_Q(entry, cs):
        for a in entry.Y.qddot:
            want = complex(acc_Q[a].xreplace(pt))
            got = complex(acc_TQ[a].xreplace(pt))
            assert abs(got - want) < 1e-25 * (1 + abs(want)), (name, a)


def test_n_trailer_agrees_and_has_no_nested_normal_form():
    entry = systems.load("n_trailer", n=3)
    cs = entry.constrained()
    acc_TQ = accelerations_on_TQ(entry.system, entry.Q)
    acc_Q = cs.accelerations()
    for pt in _points_on_Q(entry, cs, count=2):
        for a in entry.Y.qddot:
            want = complex(acc_Q[a].xreplace(pt))
            assert abs(complex(acc_TQ[a].xreplace(pt)) - want) < 1e-25 * (1 + abs(want))
    # the dependent velocities stay symbols: the result depends on them
    dep = set(entry.Q.dependent)
    assert any(acc_TQ[a].free_symbols & dep for a in entry.Y.qddot)


def test_singular_reduced_mass_matrix_is_reported():
    Y = FibredManifold(["x", "y"])
    (x, y), (xd, _yd) = Y.q, Y.qdot
    S = LagrangianSystem(Y, xd**2 / 2 - x * y)          # no kinetic term in y
    Q = ConstraintSubmanifold(Y, [xd], dependent=[xd])   # and x cannot move: ΨᵀWΨ = 0
    with pytest.raises(NotRegularError, match="singular"):
        accelerations_on_TQ(S, Q)


def test_dependent_velocities_that_cannot_be_solved_for_are_reported():
    """f = ẋ − ẏ cannot be solved for ż (∂f/∂ż ≡ 0): named, not divided by zero."""
    Y = FibredManifold(["x", "y", "z"])
    xd, yd, zd = Y.qdot
    S = LagrangianSystem(Y, (xd**2 + yd**2 + zd**2) / 2)
    Q = ConstraintSubmanifold(Y, [xd - yd])
    with pytest.raises(RankDeficientError, match="zdot"):
        accelerations_on_TQ(S, Q, dependent=[zd])


@pytest.mark.parametrize("name", ["rolling_disc", "two_wheels_axle", "n_trailer"])
def test_reduced_right_hand_side_is_the_projection_of_the_residuals(name):
    """A = Ψᵀ(e − W d̄g/dt) is assembled as Ψᵀe − (WΨ)ᵀ_D d̄g/dt (W symmetric); the residuals r, built
    when read, must give the same A: Σ_σ Ψ_σc r_σ − A_c ≡ 0 (the zero test), and r_σ = e_σ − Σ W d̄g."""
    entry = systems.load(name, n=3) if name == "n_trailer" else systems.load(name)
    S, Q = entry.system, entry.Q
    parts = reduced_parts_on_TQ(S, Q)
    qd = list(S.Y.qdot)
    e, W = S.euler_lagrange_without_accelerations(), S._hessian
    assert len(parts.r) == len(qd)
    for s in range(len(qd)):
        want = e[s] - sum(W[s, qd.index(dv)] * parts.gbar[i] for i, dv in enumerate(parts.dependent))
        assert is_zero(parts.r[s] - want)
    for c, v in enumerate(parts.independent):
        psi = {qd.index(v): 1, **{qd.index(dv): parts.Psi_D[i, c] for i, dv in enumerate(parts.dependent)}}
        assert is_zero(sp.Add(*[p * parts.r[s] for s, p in psi.items()]) - parts.A[c])
