"""Every applicable recipe agrees with Krupková's reduced equations on every catalogue system of issue 6.

Systems (loaded by name from ``jetgeo.systems``): [Benenti 2007, §9.1] skate, §9.2 vertical rolling disc,
§9.3 two co-axial discs, §9.4 parallel velocities (generic constant forces; inclined plane with
unequal and equal masses), [Ghori 1960, §3.2] two wheels with axle, §3.3 heavy disc (Euler angles), §3.4
heavy ball, [Stolařová 2009, Examples 1–3].  Every recipe of ``recipes.all_recipes`` runs (with the entry's
parametrisation ψ for Benenti's first kind and the parametric Gibbs–Appell equations) and
``recipes.equivalent`` decides agreement of the accelerations with ``recipes.krupkova``
[Stolařová 2009, eqs. (7)–(12)] on Q — each recipe is an independent computation, so agreement is a
cross-validation, not a tautology.  The reaction forces are compared between the two recipes
that compute them independently (bordered multiplier system and Benenti's second kind); the
core's own multipliers are checked in tests/mechanics.

Recipes that do not apply must refuse with :class:`NotApplicableError`, and the message must
say why (``NOT_APPLICABLE`` below records the reasons).  Misprints of the papers in these
systems are documented (and asserted) in tests/systems/test_catalogue.py and the entries' notes.
"""

from __future__ import annotations

from functools import lru_cache

import pytest

from jetgeo import recipes, systems
from jetgeo.errors import NotApplicableError

SYSTEMS = [
    "skate",  # [Benenti 2007, §9.1]
    "vertical_disc",  # [Benenti 2007, §9.2]
    "coaxial_discs",  # [Benenti 2007, §9.3]
    "parallel_velocities",  # [Benenti 2007, §9.4], generic forces
    "parallel_velocities_inclined",  # [Benenti 2007, §9.4, eq. (9.18)], m1 ≠ m2
    "parallel_velocities_inclined_equal",  # [Benenti 2007, §9.4, eq. (9.19)], m1 = m2
    "two_wheels_axle",  # [Ghori 1960, §3.2]
    "rolling_disc",  # [Ghori 1960, §3.3]
    "rolling_ball",  # [Ghori 1960, §3.4]
    "stolarova_example1",  # [Stolařová 2009, Example 1]
    "stolarova_example2",  # [Stolařová 2009, Example 2]
    "stolarova_example3",  # [Stolařová 2009, Example 3]
]

RECIPES = [name for name in recipes.RECIPES if name != "krupkova"] + ["benenti_first_kind", "gibbs_appell(z)"]

#: (system, recipe) → words the NotApplicableError must contain, and why it does not apply
NOT_APPLICABLE = {
    # Chaplygin's equations [Stolařová 2009, eq. (5)] need affine constraints whose coefficients, the Lagrangian
    # and the forces do not involve the dependent coordinates
    ("coaxial_discs", "chaplygin"): "depends on the dependent coordinate",  # ψ̇ = R(θ̇₂ − θ̇₁)/a: a is dependent
    ("parallel_velocities", "chaplygin"): "not affine",  # ẋ₁ẏ₂ − ẋ₂ẏ₁ = 0 is quadratic
    ("parallel_velocities_inclined", "chaplygin"): "not affine",
    ("parallel_velocities_inclined_equal", "chaplygin"): "not affine",
    ("stolarova_example2", "chaplygin"): "not affine",  # ẋ² + ẏ² − a²ż² = 0
    ("stolarova_example3", "chaplygin"): "depends on the dependent coordinate",  # ẏ = ẋ(y − η)/(x − k₁t)
    # Hamel's quasi-velocities as implemented need affine constraints (Novoselov's nonlinear
    # coordinates, recipes.novoselov, cover the nonlinear case)
    ("parallel_velocities", "hamel"): "affine",
    ("parallel_velocities_inclined", "hamel"): "affine",
    ("parallel_velocities_inclined_equal", "hamel"): "affine",
    ("stolarova_example2", "hamel"): "affine",
}


#: (system, recipe) decided numerically at random states of Q in 30-digit arithmetic instead of by
#: ``equivalent`` (the last resort of issue 6).  Empty since the zero test bounds the degree on the
#: expression tree and leaves large differences unexpanded (benenti_second_kind vs krupkova: 220 s → 1.5 s on
#: the heavy disc); kept so that a future slow case is recorded here, with its reason.
NUMERIC: set = set()


def _numeric_agreement(name, ref, got, states=3, what="accelerations"):
    """Both results at random states of Q (dependent velocities from the normal form), evaluated
    by mpmath at 30 digits through ``lambdify`` with common subexpressions (exact rational
    substitution into the unexpanded result takes ~20 s per entry)."""
    import random

    import mpmath
    import sympy as sp

    e = entry(name)
    Y = e.Y
    nf = e.Q.normal_form(branch=e.branch)
    if what == "accelerations":
        u = [ref.accelerations()[a] for a in Y.qddot]
        v = [got.accelerations()[a] for a in Y.qddot]
    else:
        u, v = ref.reactions(), got.reactions()
    exprs = [sp.sympify(x) for x in (*u, *v)]
    syms = sorted(set().union(*[x.free_symbols for x in exprs]), key=str)
    f = sp.lambdify(syms, exprs, modules="mpmath", cse=True)
    rng = random.Random(6)
    mpmath.mp.dps = 30
    try:
        for _ in range(states):
            point = {**e.params, Y.t: sp.Rational(rng.randint(-9, 9), 7)}
            for c in (*Y.q, *Y.qdot):
                point[c] = sp.Rational(rng.randint(1, 40), 17)
            for d, g in nf.g.items():
                point[d] = g.xreplace(point)
            vals = f(*[mpmath.mpf(sp.Rational(point[s]).p) / sp.Rational(point[s]).q for s in syms])
            n = len(u)
            for k in range(n):
                x, y = vals[k], vals[n + k]
                assert abs(x - y) <= mpmath.mpf("1e-20") * (1 + abs(x)), (what, k, x, y)
    finally:
        mpmath.mp.dps = 15


@lru_cache(None)
def entry(name):
    return systems.load(name)


@lru_cache(None)
def reference(name):
    S, Q = entry(name)
    return recipes.krupkova(S, Q)


@lru_cache(None)
def run(name, recipe):
    e = entry(name)
    S, Q = e
    if recipe == "benenti_first_kind":
        fn = lambda: recipes.benenti_first_kind(S, e.psi, e.z)  # noqa: E731
    elif recipe == "gibbs_appell(z)":
        fn = lambda: recipes.gibbs_appell(S, psi=e.psi, z=e.z)  # noqa: E731
    else:
        fn = lambda: recipes.RECIPES[recipe](S, Q)  # noqa: E731
    try:
        return fn()
    except NotApplicableError as exc:
        return exc


def test_every_required_system_has_a_parametrisation():
    """Benenti's first kind needs ψ: every required entry provides one [Benenti 2007, eq. (2.1)]."""
    for name in SYSTEMS:
        e = entry(name)
        assert e.psi is not None and len(e.psi) == e.Y.m, name


@pytest.mark.parametrize("recipe", RECIPES)
@pytest.mark.parametrize("name", SYSTEMS)
def test_recipe_agrees_with_krupkova_on_catalogue_system(name, recipe):
    got = run(name, recipe)
    if (name, recipe) in NOT_APPLICABLE:
        assert isinstance(got, NotApplicableError), f"{recipe} should refuse {name}, gave {got!r}"
        assert NOT_APPLICABLE[(name, recipe)] in str(got), str(got)
        return
    assert not isinstance(got, Exception), f"{recipe} does not apply to {name}: {got}"
    ref = reference(name)
    if (name, recipe) in NUMERIC:
        _numeric_agreement(name, ref, got)
        return
    report = recipes.equivalent(ref, got, reactions=False)
    assert report, str(report)
    assert set(got.accelerations()) == set(ref.system.Y.qddot)


@pytest.mark.parametrize("name", SYSTEMS)
def test_reaction_forces_of_bordered_system_and_second_kind_agree(name):
    """R_σ = λ_i ∂f^i/∂q̇^σ from the bordered multiplier system [Ghori 1960, eq. (2.2.23)] and from Benenti's
    Schur complement [Benenti 2007, eqs. (8.6), (8.13)]: two computations of the reactions as functions of the state."""
    a, b = run(name, "lagrange_multipliers"), run(name, "benenti_second_kind")
    if (name, "benenti_second_kind") in NUMERIC:
        _numeric_agreement(name, a, b, what="reactions")
        return
    report = recipes.equivalent(a, b)
    assert report and report.reactions is True, str(report)
