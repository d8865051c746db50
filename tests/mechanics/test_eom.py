"""The EquationsOfMotion protocol: every route's result implements it, and its members agree
with the objects they summarise (normal form, chart, accelerations)."""

from __future__ import annotations

from jetgeo import recipes, systems
from jetgeo.implicit import NonholonomicProblem
from jetgeo.mechanics import EquationsOfMotion, ParametricConstrainedSystem
from jetgeo.mechanics.eom import dependent_velocities, is_parametrised
from jetgeo.testing.checks import check_agree, check_reactions_do_no_virtual_work, check_tangent


def test_every_route_implements_the_protocol_and_agrees_with_the_canonical_one():
    e = systems.load("skate")
    cs = e.constrained()
    mo = recipes.lagrange_multipliers(e.system, e.Q)
    nh = NonholonomicProblem(e.system, e.Q).solve()
    par = ParametricConstrainedSystem(e.system, e.psi, e.z)
    for obj in (cs, mo, nh, par):
        assert isinstance(obj, EquationsOfMotion), type(obj).__name__
    assert not isinstance(e.system, EquationsOfMotion)     # the free system is not a route's result
    # the canonical route: its normal form, chart and branch
    assert cs.substitution == cs.g and cs.coordinates == tuple(cs.chart.coords) and cs.to_jet == {}
    assert dependent_velocities(cs) == cs.dependent and cs.branch == cs.nf.branch.index
    assert dependent_velocities(mo) == cs.dependent and not is_parametrised(mo)
    # the parametrisation: every velocity substituted, z among the coordinates, no map to the jets
    assert is_parametrised(par) and dependent_velocities(par) == ()
    assert set(par.coordinates) - {e.system.Y.t, *e.system.Y.q} == set(par.z)
    assert par.Q is None and par.multipliers() is None
    # the same accelerations on Q from three routes (an independent derivation each)
    assert check_agree(cs, mo).passed and check_agree(cs, nh).passed
    assert check_agree(cs, par, Q=e.Q).passed
    # reactions through the protocol: Chetaev's condition for every route that gives them
    for obj in (cs, mo):
        assert len(obj.reactions()) == e.system.Y.m
        assert check_reactions_do_no_virtual_work(obj).passed
    assert check_reactions_do_no_virtual_work(par).passed   # in its own chart, δq = ∂ψ/∂z
    assert check_tangent(par, e.Q).passed


def test_validity_conditions_are_the_determinants_of_the_route():
    """The skate's normal form ẏ = ẋ tan θ (or ẋ = ẏ cot θ) holds where det ∂f/∂q̇^D ≠ 0: that determinant is a
    validity condition of the canonical route and of the multipliers recipe; constants are left out."""
    e = systems.load("skate")
    cs = e.constrained()
    assert cs.nf.condition.free_symbols                      # ±cos θ or ±sin θ
    conds = cs.validity_conditions()
    assert cs.nf.condition in conds and all(c.free_symbols for c in conds)
    reg = cs.regularity_condition()
    assert (reg in conds) == bool(reg.free_symbols)
    mo = recipes.lagrange_multipliers(e.system, e.Q)
    assert mo.validity_conditions() == mo.conditions and cs.nf.condition in mo.conditions


def test_a_catalogue_entry_declares_the_sampled_system_protocol():
    """A catalogue entry is a SampledSystem by declaration (CatalogueEntry subclasses the protocol), so
    numerics, which may not import jetgeo.systems, recognises it by ``isinstance``; its members are those
    the protocol names, and the two protocols do not mix up an entry and a route's result."""
    import sympy as sp

    from jetgeo.mechanics.eom import SampledSystem
    from jetgeo.systems import CatalogueEntry

    assert SampledSystem in CatalogueEntry.__mro__
    e = systems.load("skate")
    assert isinstance(e, SampledSystem) and not isinstance(e, EquationsOfMotion)
    cs = e.constrained()
    assert isinstance(cs, EquationsOfMotion) and not isinstance(cs, SampledSystem)
    assert cs.system is e.system and cs.Q is e.Q
    # numeric(): params and initial together, as floats; the initial state lies on Q
    num = e.numeric()
    assert set(num) == set(e.params) | set(e.initial) and all(isinstance(v, float) for v in num.values())
    residual = [sp.N(f.xreplace({**e.params, **e.initial})) for f in e.Q.f]
    assert all(abs(r) < 1e-12 for r in residual)
