"""Outside checks of the integrability algorithm [Ibort et al. 1996, eqs. (3.9)–(3.10)] on implicit
differential equations that are not in the paper: each answer is compared with a hand
derivation written out in the test (an independent truth), never with the algorithm's own output."""

import sympy as sp

from jetgeo import FibredManifold, LagrangianSystem
from jetgeo.geometry.zero import is_zero
from jetgeo.implicit import ImplicitDifferentialEquation

x, y, u, v, lam, ud, vd = sp.symbols("x y u v lam udot vdot")
m, g, l = sp.symbols("m g l", positive=True)


def _proportional(a, b) -> bool:
    return sp.cancel(sp.sympify(a) / b).is_number


def test_cartesian_pendulum_index3_hidden_constraints_and_multiplier():
    # m ẍ = 2λx, m ÿ = 2λy − mg, x² + y² = l²: an index-3 DAE on P = TR² with x = (x, y, u, v)
    pend = ImplicitDifferentialEquation(
        x=[x, y, u, v], xdot=[u, v, ud, vd],
        equations=[m * ud - 2 * lam * x, m * vd - 2 * lam * y + m * g, x**2 + y**2 - l**2], unknowns=[lam])
    rep = pend.integrability()
    assert rep.consistent is True
    assert rep.steps == 2  # C_0: the rod; C_1 adds the hidden velocity constraint; E_2 = E_1 fixes λ
    assert len(rep.primary_constraints) == 1 and _proportional(rep.primary_constraints[0], x**2 + y**2 - l**2)
    assert len(rep.secondary_constraints) == 1
    assert _proportional(rep.secondary_constraints[0], x * u + y * v)  # d/dt (x² + y² − l²) / 2
    assert rep.free_parameters == 0 and rep.free_multipliers == 0 and rep.graph
    sol = rep.solution()
    # by hand: differentiate x ẋ + y ẏ = 0 once more: u² + v² + x ẍ + y ÿ = 0 with the dynamics gives
    # 2λ l²/m − g y + u² + v² = 0
    lam_hand = m * (g * y - u**2 - v**2) / (2 * l**2)
    assert is_zero(rep.on_C(sol[lam] - lam_hand))
    # the vector field is tangent to C_∞: D(x u + y v) = 0 with the solved accelerations
    tangency = u**2 + v**2 + x * sol[ud] + y * sol[vd]
    assert is_zero(rep.on_C(tangency))


def test_singular_lagrangian_secondary_constraint():
    # L = (ẋ + ẏ)²/2 − x²/2 − y²/2: rank W = 1; Euler–Lagrange: ẍ + ÿ = −x = −y
    Y = FibredManifold(["x", "y"])
    (X, Yc), (Xd, Yd), (Xdd, Ydd) = Y.q, Y.qdot, Y.qddot
    sysL = LagrangianSystem(Y, (Xd + Yd) ** 2 / 2 - X**2 / 2 - Yc**2 / 2)
    assert not sysL.is_regular()
    ide = ImplicitDifferentialEquation(x=[*Y.q, *Y.qdot], xdot=[*Y.qdot, *Y.qddot],
                                       equations=sysL.euler_lagrange(), time=Y.t)
    rep = ide.integrability()
    assert rep.consistent is True
    # by hand: the left null vector (1, −1) of W gives x − y = 0 (C_0), its derivative ẋ − ẏ = 0 (C_1, the
    # secondary constraint), and the next derivative ẍ = ÿ which with ẍ + ÿ = −x gives ẍ = ÿ = −x/2
    assert len(rep.primary_constraints) == 1 and _proportional(rep.primary_constraints[0], X - Yc)
    assert len(rep.secondary_constraints) == 1 and _proportional(rep.secondary_constraints[0], Xd - Yd)
    assert rep.steps == 2 and rep.free_parameters == 0
    sol = rep.solution()
    assert is_zero(rep.on_C(sol[Xdd] + X / 2)) and is_zero(rep.on_C(sol[Ydd] + X / 2))


def test_inconsistent_constrained_fall_without_reaction_is_empty():
    # a heavy particle required to stay at height 0 (ẏ = 0) but no reaction force: m ÿ = −m g, ẏ = 0
    Y = FibredManifold(["x", "y"])
    (_Xd, Yd), (Xdd, Ydd) = Y.qdot, Y.qddot
    eqs = [m * Xdd, m * Ydd + m * g, Yd]
    rep = ImplicitDifferentialEquation(x=[*Y.q, *Y.qdot], xdot=[*Y.qdot, *Y.qddot], equations=eqs,
                                       time=Y.t).integrability()
    # by hand: tangency to ẏ = 0 needs ÿ = 0, i.e. g = 0 — impossible for g > 0
    assert rep.consistent is False
    assert rep.free_parameters is None
    assert _proportional(rep.obstruction, g * m)  # m g = 0 would be needed: impossible (m, g > 0)
    # the simplest inconsistent equation: ẋ = 1 on C = {x = 0}
    a, ad = sp.symbols("a adot")
    rep2 = ImplicitDifferentialEquation(x=[a], xdot=[ad], equations=[ad - 1, a]).integrability()
    assert rep2.consistent is False and rep2.obstruction.is_number and rep2.obstruction != 0


def test_gauge_freedom_free_parameters():
    # L = (ẋ − ẏ)²/2: both Euler–Lagrange equations are ẍ − ÿ = 0, ÿ is arbitrary (a gauge freedom)
    Y = FibredManifold(["x", "y"])
    (Xd, Yd), (Xdd, Ydd) = Y.qdot, Y.qddot
    sysL = LagrangianSystem(Y, (Xd - Yd) ** 2 / 2)
    rep = ImplicitDifferentialEquation(x=[*Y.q, *Y.qdot], xdot=[*Y.qdot, *Y.qddot],
                                       equations=sysL.euler_lagrange(), time=Y.t).integrability()
    assert rep.consistent is True and rep.steps == 1 and rep.secondary_constraints == []
    assert rep.free_parameters == 1 and not rep.graph
    sol = rep.solution()
    free = [s for s in (Xdd, Ydd) if sol[s] == s]
    assert len(free) == 1
    other = Ydd if free[0] == Xdd else Xdd
    assert is_zero(sol[other] - free[0])  # ẍ = ÿ whatever ÿ is


def test_finite_fibres_decided_by_groebner_basis():
    # ẋ² = x: polynomial, zero-dimensional fibres with two points (ẋ = ±√x) over x > 0
    a, ad = sp.symbols("a adot")
    rep = ImplicitDifferentialEquation(x=[a], xdot=[ad], equations=[ad**2 - a]).integrability()
    assert rep.consistent is True and rep.finite_solutions == 2 and rep.free_parameters == 0
    assert "2 solution(s)" in str(rep)


def test_undecided_nonlinear_positive_dimensional_fibres():
    # unit-speed curves in the plane, ẋ² + ẏ² = 1: the fibre is a circle (one free parameter over ℝ),
    # which the algorithm does not count for nonlinear fibres: it must say so instead of guessing
    a, b, ad, bd = sp.symbols("a b adot bdot")
    rep = ImplicitDifferentialEquation(x=[a, b], xdot=[ad, bd], equations=[ad**2 + bd**2 - 1]).integrability()
    assert rep.consistent is None and rep.free_parameters is None
    assert rep.undecided and "positive-dimensional" in rep.undecided[0]
    assert "UNDECIDED" in str(rep)
    # non-polynomial fibres: e^ẋ = a ẋ
    rep2 = ImplicitDifferentialEquation(x=[a], xdot=[ad], equations=[sp.exp(ad) - a * ad]).integrability()
    assert rep2.consistent is None and "neither affine nor polynomial" in rep2.undecided[0]
