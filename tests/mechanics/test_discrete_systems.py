"""The exact discrete Lagrange–d'Alembert systems of jetgeo.mechanics.discrete: the derivatives of L_d
as stated, the discrete Chetaev matrix and its limit h → 0 — Krupková's canonical distribution
[Stolařová 2009, eq. (6)] — on every catalogue system [Cortés–Martínez 2001], [McLachlan–Perlmutter 2006]."""

from __future__ import annotations

import random

import pytest
import sympy as sp

from jetgeo import systems
from jetgeo.errors import InputError
from jetgeo.geometry import is_zero
from jetgeo.mechanics.discrete import TRIPLE_JUMP, DiscreteSystem, discrete_system


def _point(D: DiscreteSystem, seed: int) -> dict:
    """A random rational point of (t, q, q̇, q_next, h) and the parameters (positive)."""
    rng = random.Random(seed)
    syms = (set().union(*(e.free_symbols for e in D.one_step().residual)) | set(D.q_next) | set(D.Y.q)
            | set(D.Y.qdot) | {D.Y.t, D.h})
    return {s: sp.Rational(rng.randint(1, 40), rng.randint(41, 60)) for s in syms}


def _close(a, b, at: dict) -> bool:
    return abs(sp.N((a - b).xreplace(at), 40)) < sp.Float("1e-30")


@pytest.mark.parametrize("quadrature", ["midpoint", "trapezoid"])
@pytest.mark.parametrize("name", ["skate", "rolling_disc", "stolarova_example3", "parallel_velocities"])
def test_chain_rule_derivatives_of_the_discrete_lagrangian(name, quadrature):
    """D_1L_d, D_2L_d written from ∂_qL, ∂_q̇L at the quadrature points (the module docstring) are the
    derivatives of L_d itself, and h ∂f_d/∂q_{k+1} is the discrete Chetaev matrix."""
    D = discrete_system(systems.load(name), quadrature=quadrature)
    Ld = D.discrete_lagrangian()
    D1, D2 = D.discrete_lagrangian_derivatives()
    at = _point(D, 1)
    for s, (q, q1) in enumerate(zip(D.Y.q, D.q_next)):
        assert _close(D1[s], sp.diff(Ld, q), at) and _close(D2[s], sp.diff(Ld, q1), at)
    C = D.discrete_chetaev_matrix()
    fd = D.discrete_constraints()
    for i in range(D.Q.k):
        for s, q1 in enumerate(D.q_next):
            assert _close(C[i, s], D.h * sp.diff(fd[i], q1), at)


@pytest.mark.parametrize("name", systems.names())
def test_discrete_chetaev_bundle_tends_to_the_canonical_distribution(name):
    """On q_{k+1} = q_k + h q̇ the discrete Chetaev matrix h ∂f_d/∂q_{k+1} tends to ∂f/∂q̇ exactly as
    h → 0 (both discrete constraints), and on Q it annihilates the q-parts of the generators of
    Krupková's canonical distribution 𝒞 without dt-component, which span a space of dimension m − k:
    the discrete virtual displacements tend to 𝒞's."""
    e = systems.load(name)
    cs = e.constrained()
    J = e.Q.jacobian()
    Y = e.Y
    for constraint in ("midpoint", "nodes"):
        D = DiscreteSystem(e.system, e.Q, "midpoint", constraint)
        on_line = {q1: q + D.h * v for q1, q, v in zip(D.q_next, Y.q, Y.qdot)}
        limit = D.discrete_chetaev_matrix().xreplace(on_line).xreplace({D.h: 0})
        assert all(is_zero(a - b) for a, b in zip(limit, J)), constraint
    coords = cs.chart.coords
    rows = [[X.components[coords.index(q)] for q in Y.q] for X in cs.canonical_distribution.generators
            if X.components[coords.index(Y.t)] == 0]
    Xi = sp.Matrix(rows).T  # m × (generators)
    JQ = limit.applyfunc(cs.on_Q)
    assert all(is_zero(x) for x in JQ * Xi)
    at = {s: sp.Rational(k + 2, 7) for k, s in enumerate(sorted(Xi.free_symbols | set(e.params), key=str))}
    at.update({s: e.params[s] for s in e.params})
    assert Xi.xreplace(at).rank() == Y.m - e.Q.k


def test_triple_jump_coefficients_and_stage_counter():
    """γ₁ = 1/(2 − 2^{1/3}), 2γ₁ + γ₂ = 1 and γ₁³·2 + γ₂³ = 0 (the order-3 condition of the
    composition [Yoshida 1990]); the stage counter runs 0 → 1 → 2 → 0 with the substeps γ₁h, γ₂h, γ₁h."""
    g1, g2 = TRIPLE_JUMP
    assert sp.simplify(2 * g1 + g2 - 1) == 0 and sp.simplify(2 * g1**3 + g2**3) == 0
    D = discrete_system(systems.load("skate"))
    M = D.triple_jump()
    s = M.known[-1]
    t_next, s_next = M.advance[0], M.advance[-1]
    seen = []
    for stage in (0, 1, 2):
        seen.append((s_next.xreplace({s: stage}), sp.nsimplify(sp.expand((t_next - D.Y.t).xreplace({s: stage}) / D.h))))
    assert [x for x, _ in seen] == [1, 2, 0]
    assert [sp.simplify(y - g) for (_, y), g in zip(seen, (g1, g2, g1))] == [0, 0, 0]


def test_one_step_map_shapes_and_bad_input():
    D = discrete_system(systems.load("rolling_disc"), quadrature="trapezoid")
    M = D.one_step()
    m, k = 5, 2
    assert len(M.residual) == len(M.unknowns) == 2 * m + 2 * k
    assert len(M.advance) == len(M.known) == 1 + 2 * m + 2 * k and len(M.predictor) == len(M.unknowns)
    assert M.parameters[-1] == D.h and D.constraint == "nodes"
    S, Q = systems.load("skate")
    with pytest.raises(InputError, match="quadrature"):
        DiscreteSystem(S, Q, "simpson")
    with pytest.raises(InputError, match="constraint"):
        DiscreteSystem(S, Q, "midpoint", "ends")
    with pytest.raises(InputError, match="ConstraintSubmanifold"):
        DiscreteSystem(S, S)
    with pytest.raises(InputError, match="unpacks"):
        discrete_system(S)
