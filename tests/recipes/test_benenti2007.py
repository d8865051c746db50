"""Benenti's recipes [Benenti 2007, §7–9] against the paper's worked examples and identities."""

from __future__ import annotations

import sympy as sp

from jetgeo import recipes
from jetgeo.geometry.linalg import nullspace
from jetgeo.geometry.zero import is_zero

from .systems import (
    A,
    Ai,
    Bi,
    I,
    R,
    krupkova_example1,
    krupkova_example2,
    m,
    parallel_points,
    recipe_results,
    skate,
    vertical_disc,
)


def _zdot(M):
    return {k: v for k, v in M.extras["zdot"].items()}


def test_skate_9_1_vector_field_Z():
    """[Benenti 2007, §9.1]: G = diag(m, I), ż1 = (A1 cos θ + A2 sin θ)/m, ż2 = A3/I."""
    S, Q, psi, z = skate()
    M = recipes.benenti_first_kind(S, psi, z)
    th = S.Y.q[2]
    assert M.extras["G"] == sp.diag(m, I)
    zd = list(_zdot(M).values())
    assert is_zero(zd[0] - (A[0] * sp.cos(th) + A[1] * sp.sin(th)) / m)
    assert is_zero(zd[1] - A[2] / I)


def test_vertical_disc_9_5():
    """[Benenti 2007, eq. (9.5)]: ż1 = (A1 R cos ψ + A2 R sin ψ + A3)/(mR² + A), ż2 = A4/B; G = diag(mR² + A, B)."""
    S, Q, psi, z = vertical_disc()
    M = recipes.benenti_first_kind(S, psi, z)
    ps = S.Y.q[3]
    assert M.extras["G"] == sp.diag(m * R**2 + Ai, Bi)
    zd = list(_zdot(M).values())
    assert is_zero(zd[0] - (A[0] * R * sp.cos(ps) + A[1] * R * sp.sin(ps) + A[2]) / (m * R**2 + Ai))
    assert is_zero(zd[1] - A[3] / Bi)


def test_parallel_velocities_9_4_first_method():
    """[Benenti 2007, §9.4] (i): G = diag(m1, m2, m1ρ² + m2σ²) and the printed [Z^α]."""
    _, _, _, z = parallel_points()
    # benenti_first_kind(S, ψ, z) of parallel_points(), as all_recipes derives it (shared with test_agreement)
    M = recipe_results("parallel velocities [Benenti 2007, §9.4]")["benenti1"]
    assert not isinstance(M, Exception), M
    m1, m2 = sp.symbols("m1 m2", positive=True)
    rho, sig, th = z
    assert M.extras["G"] == sp.diag(m1, m2, m1 * rho**2 + m2 * sig**2)
    c, s = sp.cos(th), sp.sin(th)
    expected = [
        (A[0] * c + A[1] * s) / m1,
        (A[2] * c + A[3] * s) / m2,
        (rho * (A[1] * c - A[0] * s) + sig * (A[3] * c - A[2] * s)) / (m1 * rho**2 + m2 * sig**2),
    ]
    for got, want in zip(_zdot(M).values(), expected):
        assert is_zero(got - want)
    # singular points (7.8): ψ = 0 forces ρ = σ = 0 — the zero section (Remark 7.5)
    eqs = M.extras["singular_points"]
    assert all(is_zero(e.xreplace({rho: 0, sig: 0})) for e in eqs[:4])


def test_printed_formula_7_2_misses_a_term_when_psi_depends_on_q():
    """[Benenti 2007, eq. (7.2)]/Remark 7.2 misprint: G Z = ψ_α·(A − Γψψ) omits −ψ_α·W ∂_kψ ψ^k.

    On [Stolařová 2009, Example 1] with ψ = (w1, w2, x y w1), ∂ψ/∂q ≠ 0: the printed formula gives ẇ = 0
    (a free particle has A = 0 and Γ = 0), which contradicts Krupková's equations; the
    derived formula implemented in jetgeo agrees with them.
    """
    S, Q, psi, z = krupkova_example1()
    Y = S.Y
    P = recipes.benenti_first_kind(S, psi, z).extras["parametric_system"]
    J = P.psi_z
    W = S.hessian()
    # the printed recipe: Z_α = ψ^i_α Z̄_i with Z̄_i = L_i (the free-motion functions) at q̇ = ψ
    printed = P.gauss_matrix.LUsolve(J.T * sp.Matrix([e.xreplace(P.psi_map) for e in S.free_motion_functions()]))
    assert list(printed) == [0, 0]
    truth = recipes.krupkova(S, Q)
    derived = recipes.benenti_first_kind(S, psi, z)
    assert recipes.equivalent(truth, derived)
    wrong = derived.replace(accelerations={
        a: e.xreplace(dict(zip(P.zdot_symbols, printed))) for a, e in P.qddot_of_zdot().items()})
    assert not recipes.equivalent(truth, wrong)
    # the missing term is exactly ψ^i_α W_ij ∂_kψ^j ψ^k
    drift_q = [sum((sp.diff(p, q) * pk for q, pk in zip(Y.q, psi)), 0) for p in psi]
    missing = J.T * W * sp.Matrix(drift_q)
    assert any(not is_zero(e) for e in missing)


def test_second_kind_D_is_tangent_to_every_level_set():
    """[Benenti 2007, Theorem 8.1]: D(f) = C q̈ + ∂_t f + ∂_q f q̇ vanishes identically on TQ, not only on C."""
    for system in (krupkova_example2, parallel_points, vertical_disc):
        S, Q, _, _ = system()
        D = recipes.benenti_second_kind(S, Q).extras["D"]
        for f in Q.f:
            assert is_zero(D(f))


def test_reactions_do_no_virtual_work():
    """R_σ e^σ = 0 for every Chetaev virtual displacement e ∈ ker ∂f/∂q̇ [Benenti 2007, eq. (8.13)]."""
    for system in (parallel_points, skate, vertical_disc, krupkova_example2):
        S, Q, _, _ = system()
        M = recipes.benenti_second_kind(S, Q)
        basis, _cond = nullspace(Q.jacobian())
        for e in basis:
            assert is_zero(sum((r * ei for r, ei in zip(M.reactions(), e)), 0))


def test_energy_is_a_first_integral_of_Z_for_the_free_skate():
    """[Benenti 2007, eq. (7.7)]: Z(F) = 0 for F = ½(m z1² + I z2²) when no forces act; not for A ≠ 0."""
    S, Q, psi, z = skate()
    free = S.restricted_to({a: 0 for a in A})
    P = recipes.benenti_first_kind(free, psi, z).extras["parametric_system"]
    E = (m * z[0] ** 2 + I * z[1] ** 2) / 2
    assert P.is_first_integral(E)
    P_forced = recipes.benenti_first_kind(S, psi, z).extras["parametric_system"]
    assert not P_forced.is_first_integral(E)
