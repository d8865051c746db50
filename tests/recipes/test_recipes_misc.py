"""Gibbs' function, the recipes' hypotheses and their error messages."""

from __future__ import annotations

import pytest
import sympy as sp

from jetgeo import ConstraintSubmanifold, FibredManifold, LagrangianSystem, recipes
from jetgeo.errors import InputError, NotApplicableError, UndecidedError
from jetgeo.geometry.zero import is_zero

from .systems import krupkova_example2, parallel_points, recipe_results, skate


def test_energy_of_accelerations_of_a_particle_in_polar_coordinates():
    """Textbook identity: S = ½m[(r̈ − rφ̇²)² + (rφ̈ + 2ṙφ̇)²] up to terms free of accelerations."""
    Y = FibredManifold(["r", "phi"])
    r, ph = Y.q
    rd, phd = Y.qdot
    rdd, phdd = Y.qddot
    m = sp.Symbol("m", positive=True)
    S = recipes.energy_of_accelerations(LagrangianSystem.mechanical(Y, m / 2 * (rd**2 + r**2 * phd**2)))
    textbook = m / 2 * ((rdd - r * phd**2) ** 2 + (r * phdd + 2 * rd * phd) ** 2)
    diff = sp.expand(S - textbook)
    assert sp.diff(diff, rdd) == 0 and sp.diff(diff, phdd) == 0


def test_gibbs_appell_uses_T_and_the_potential_as_a_force():
    """With L = T − V the potential enters Π = A − ∂V/∂q, not S: [Stolařová 2009, Example 2] gives z̈ = −G/(a² + 1)."""
    S, Q, _, _ = krupkova_example2()
    M = recipes.gibbs_appell(S, Q)
    assert "G" not in str(M.extras["S"])
    G, a = sp.symbols("G a", positive=True)
    assert is_zero(M.accelerations()[S.Y.qddot[2]] + G / (a**2 + 1))
    assert recipes.equivalent(M, recipes.krupkova(S, Q))


def test_chaplygin_refuses_non_chaplygin_systems_and_says_why():
    S, Q, _, _ = parallel_points()
    with pytest.raises(NotApplicableError, match="not affine in the velocities"):
        recipes.chaplygin(S, Q)
    Y = FibredManifold(["x", "y", "theta"])
    x, y, th = Y.q
    xd, yd, thd = Y.qdot
    Sx = LagrangianSystem(Y, (xd**2 + yd**2 + thd**2) / 2 - x**2)  # V depends on x: not cyclic
    Qx = ConstraintSubmanifold(Y, [xd - yd * sp.cos(th)], dependent=[xd])
    with pytest.raises(NotApplicableError, match="Lagrangian depends on the dependent coordinate x"):
        recipes.chaplygin(Sx, Qx)
    assert not recipes.is_chaplygin(Sx, Qx)


def test_hamel_with_user_quasi_velocities_and_errors():
    S, Q, _, _ = skate()
    th = S.Y.q[2]
    xd, yd, thd = S.Y.qdot
    M = recipes.hamel(S, Q, quasi=[xd * sp.cos(th) + yd * sp.sin(th), thd], symbols=["v", "w"])
    assert recipes.equivalent(M, recipes.krupkova(S, Q))
    assert M.to_jet[sp.Symbol("v")] == xd * sp.cos(th) + yd * sp.sin(th)
    with pytest.raises(InputError, match="need m − k = 2 quasi-velocities"):
        recipes.hamel(S, Q, quasi=[thd])
    with pytest.raises(InputError, match="clash"):
        recipes.hamel(S, Q, quasi=[xd, thd], symbols=["xdot", "w"])
    with pytest.raises(NotApplicableError, match="not affine"):
        recipes.hamel(S, Q, quasi=[xd**2, thd])


def test_gibbs_appell_needs_Q_or_psi():
    S, Q, psi, z = skate()
    with pytest.raises(InputError, match="either a constraint submanifold Q or a parametrisation"):
        recipes.gibbs_appell(S)
    with pytest.raises(InputError, match="expected a LagrangianSystem"):
        recipes.benenti_second_kind(Q, S)


def test_equivalent_refuses_two_opaque_parametric_results():
    # benenti_first_kind(S, ψ, z) and gibbs_appell(S, psi=ψ, z=z) of parallel_points(), as all_recipes derives them
    res = recipe_results("parallel velocities [Benenti 2007, §9.4]")
    a, b = res["benenti1"], res["gibbs-appell(z)"]
    assert not isinstance(a, Exception) and not isinstance(b, Exception), (a, b)
    if a.to_jet or b.to_jet:  # z(q̇) found: then they are comparable in jet coordinates
        assert recipes.equivalent(a, b)
    else:
        with pytest.raises(UndecidedError, match="to_jet"):
            recipes.equivalent(a, b)


def test_motion_display():
    S, Q, _, _ = skate()
    M = recipes.lagrange_multipliers(S, Q)
    text = str(M)
    assert text.startswith("Motion by lagrange_multipliers") and "multipliers" in text
    assert M._repr_latex_().startswith("$\\begin{gathered}")


@pytest.mark.parametrize("name", ["rolling_disc", "appell_machine", "n_trailer", "stolarova_example2"])
def test_energy_of_accelerations_from_the_ring_is_the_total_derivative_formula(name):
    """S from L's polynomial ring (W = Hessian, b = Π − e) equals ½Wq̈q̈ + bq̈ with
    W q̈ + b = d/dt ∂T/∂q̇ − ∂T/∂q taken by sympy's total derivative [Benenti 2007, eq. (5.1)]."""
    from jetgeo import systems

    system = systems.load(name).system
    Y = system.Y
    assert system._momenta_poly is not None  # the ring path is the one under test
    T = system.kinetic_energy
    lagr = [Y.total_derivative(sp.diff(T, v)) - sp.diff(T, q) for q, v in zip(Y.q, Y.qdot)]
    W = sp.Matrix(Y.m, Y.m, lambda i, j: sp.diff(T, Y.qdot[i], Y.qdot[j]))
    b = [e.xreplace({a: 0 for a in Y.qddot}) for e in lagr]
    qdd = Y.qddot
    want = sp.Rational(1, 2) * sum(W[i, j] * qdd[i] * qdd[j] for i in range(Y.m) for j in range(Y.m))
    want += sum(bi * a for bi, a in zip(b, qdd))
    assert is_zero(recipes.energy_of_accelerations(system) - want)
