"""Tulczyjew's triple [Ibort et al. 1996, eq. (2.1), §6.1], Theorem 2's failure modes, and the adapted algorithm with
a field of
permitted directions [Ibort et al. 1996, Fig. 2, eqs. (4.13)–(4.14)]."""

import pytest
import sympy as sp

from jetgeo import ConstraintSubmanifold, FibredManifold, LagrangianSystem, NonholonomicProblem
from jetgeo.errors import IncompatibleError
from jetgeo.geometry.zero import is_zero
from jetgeo.implicit import (
    ImplicitDifferentialEquation,
    alpha_inverse_equations,
    beta_inverse_equations,
    hamiltonian,
    inverse_legendre,
    momenta_symbols,
)
from jetgeo.implicit.tulczyjew import alpha, beta


def _double_pendulum_like():
    Y = FibredManifold(["a", "b"])
    a, b = Y.q
    ad, bd = Y.qdot
    k = sp.Symbol("k", positive=True)
    # a non-diagonal, q-dependent positive-definite metric and a potential
    L = (2 * ad**2 + 2 * sp.cos(a - b) * ad * bd + bd**2) / 2 - k * (a**2 + b**2) / 2
    return Y, LagrangianSystem(Y, L), k


def test_alpha_beta_coordinates_002_6_1():
    q, p, qd, pd = sp.symbols("q p qd pd")
    assert alpha([q], [p], [qd], [pd]) == ((q,), (qd,), (pd,), (p,))  # s∘α = p, r∘α = ṗ, v∘α = q̇
    assert beta([q], [p], [qd], [pd]) == ((q,), (p,), (-pd,), (qd,))  # β(V) = i_V (dq ∧ dp)


def test_alpha_inverse_dL_and_beta_inverse_dH_define_the_same_dynamics():
    Y, S, k = _double_pendulum_like()
    p = momenta_symbols(Y)
    qd = sp.symbols("a_dot b_dot")
    pd = sp.symbols("pa_dot pb_dot")
    H = hamiltonian(S)
    # by hand: H = ½ p W⁻¹ p + V; check on the Legendre image that H∘F_L is the energy q̇ ∂L/∂q̇ − L
    inv = inverse_legendre(S)
    leg = {pi: sp.diff(S.L, v) for pi, v in zip(p, Y.qdot)}
    energy = sum(v * sp.diff(S.L, v) for v in Y.qdot) - S.L
    assert is_zero(H.xreplace(leg) - energy)
    # α⁻¹(dL) ⊂ T(T*Q) and β⁻¹(dH) ⊂ T(T*Q) are the same submanifold (regular L): solve both for (q̇, ṗ)
    ea = alpha_inverse_equations(S, qd, pd)
    eb = beta_inverse_equations(H, Y.q, p, qd, pd)
    ra = ImplicitDifferentialEquation(x=[*Y.q, *p], xdot=[*qd, *pd], equations=ea).integrability()
    rb = ImplicitDifferentialEquation(x=[*Y.q, *p], xdot=[*qd, *pd], equations=eb).integrability()
    assert ra.consistent and rb.consistent and ra.free_parameters == rb.free_parameters == 0
    sa, sb = ra.solution(), rb.solution()
    for s in (*qd, *pd):
        assert is_zero(sa[s] - sb[s]), s
    for v in Y.qdot:  # q̇ = ∂H/∂p is the inverse Legendre map
        assert is_zero(sb[qd[Y.qdot.index(v)]] - inv[v])


def test_theorem2_rank_condition_fails_and_solve_refuses():
    Y = FibredManifold(["x", "y", "theta"])
    x, y, th = Y.q
    xd, yd, thd = Y.qdot
    S = LagrangianSystem(Y, (xd**2 + yd**2 + thd**2) / 2)
    Q = ConstraintSubmanifold(Y, [xd * sp.sin(th) - yd * sp.cos(th)])
    # two force directions for one constraint: (4.15) rank F = corank D fails
    P = NonholonomicProblem(S, Q, forces=[[sp.sin(th), -sp.cos(th), 0], [0, 0, 1]])
    comp = P.compatibility()
    assert comp.rank_F == 2 and comp.corank_D == 1 and not comp.rank_condition and not comp.compatible
    with pytest.raises(IncompatibleError):
        P.solve()
    # the algorithm still decides: by hand, tangency to C fixes λ1, nothing fixes the torque λ2, and θ̈ = λ2 is
    # arbitrary: one free parameter remains
    rep = P.integrability()
    assert rep.consistent and rep.free_parameters == 1


def test_permitted_directions_adapted_algorithm_skate_with_locked_turning_rate():
    # skate with a torsion spring, L = ½(ẋ² + ẏ²) + ½ I θ̇² − ½ k θ², C: ẋ sin θ − ẏ cos θ = 0, and a field of
    # permitted directions D ⊂ TC with the extra annihilator β = dθ̇ (θ̈ = 0 demanded); F = Chetaev's S*(D°)
    # = span{sin θ dx − cos θ dy, dθ}.  By hand: the spring torque −kθ must be cancelled by the second
    # reaction, λ2 = k θ; the first multiplier is the skate's.
    Y = FibredManifold(["x", "y", "theta"])
    x, y, th = Y.q
    xd, yd, thd = Y.qdot
    I, k = sp.symbols("I k", positive=True)
    S = LagrangianSystem(Y, (xd**2 + yd**2) / 2 + I * thd**2 / 2 - k * th**2 / 2)
    Q = ConstraintSubmanifold(Y, [xd * sp.sin(th) - yd * sp.cos(th)])
    beta_ = [0, 0, 0, 0, 0, 0, 1]  # dt, dx, dy, dθ, dẋ, dẏ, dθ̇
    P = NonholonomicProblem(S, Q, permitted=[beta_])
    comp = P.compatibility()
    assert comp.rank_F == comp.corank_D == 2 and comp.compatible
    motion = P.solve()
    acc = motion.accelerations()
    g = Q.normal_form().g
    assert is_zero(sp.sympify(acc[Y.qddot[2]]).xreplace(g))  # θ̈ = 0
    lam1, lam2 = motion.multipliers()
    assert is_zero(sp.sympify(lam2 - k * th).xreplace(g))  # I θ̈ = −k θ + λ2 with θ̈ = 0
    # λ1 by hand: tangency to C, d/dt(ẋ sin θ − ẏ cos θ) = 0 with ẍ = λ1 sin θ, ÿ = −λ1 cos θ gives
    # λ1 = −θ̇ (ẋ cos θ + ẏ sin θ)
    assert is_zero(sp.sympify(lam1 + thd * (xd * sp.cos(th) + yd * sp.sin(th))).xreplace(g))
    rep = P.integrability()
    assert rep.consistent and rep.steps == 1 and rep.free_parameters == 0
    sol = rep.solution()
    assert is_zero(rep.on_C(sol[Y.qddot[2]]))
