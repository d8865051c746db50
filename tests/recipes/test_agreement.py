"""Every applicable recipe agrees with Krupková's reduced equations on Q (theory/architecture.md, 'Cross-validation').

The reference is ``recipes.krupkova`` [Stolařová 2009, eqs. (7)–(12)]; each other recipe is an independent
computation (bordered multiplier system, Schur complement on TQ, energy of accelerations,
Maggi's projection, Chaplygin's reduced Lagrangian, Hamel's quasi-velocities, Benenti's
vector field Z on C) and ``recipes.equivalent`` decides agreement on Q.
"""

from __future__ import annotations

import pytest
import sympy as sp

from jetgeo import recipes
from jetgeo.errors import NotApplicableError
from jetgeo.geometry.zero import is_zero

from .systems import ALL, recipe_results

#: recipes that must refuse a system, and the words their message must contain
NOT_APPLICABLE = {
    ("parallel velocities [Benenti 2007, §9.4]", "chaplygin"): "not affine",
    ("parallel velocities [Benenti 2007, §9.4]", "hamel"): "affine",
    ("[Stolařová 2009, Example 2]", "chaplygin"): "not affine",
    ("[Stolařová 2009, Example 2]", "hamel"): "affine",
    ("[Stolařová 2009, Example 3]", "chaplygin"): "depends on the dependent coordinate",
}

RECIPES = [*recipes.RECIPES, "benenti_first_kind", "gibbs_appell(z)"]


#: recipes.all_recipes on each system, derived once per process (shared with the other recipe tests)
results = recipe_results


@pytest.mark.parametrize("recipe", RECIPES)
@pytest.mark.parametrize("name", list(ALL))
def test_recipe_agrees_with_krupkova(name, recipe):
    res = results(name)
    got = res[recipe]
    if (name, recipe) in NOT_APPLICABLE:
        assert isinstance(got, NotApplicableError), f"{recipe} should refuse {name}"
        assert NOT_APPLICABLE[(name, recipe)] in str(got)
        return
    assert not isinstance(got, Exception), f"{recipe} failed on {name}: {got!r}"
    report = recipes.equivalent(res["krupkova"], got)
    assert report, str(report)
    assert set(got.accelerations()) == set(res["krupkova"].system.Y.qddot)


def test_equivalent_detects_a_wrong_result():
    """A perturbed acceleration is reported, with the difference, by a counterexample."""
    res = results("skate [Benenti 2007, §9.1]")
    good = res["benenti_second_kind"]
    Y = good.system.Y
    acc = good.accelerations()
    wrong = good.replace(accelerations={**acc, Y.qddot[2]: acc[Y.qddot[2]] + Y.q[0] / 10**6})
    rep = recipes.equivalent(res["krupkova"], wrong)
    assert not rep
    assert rep.method == "counterexample"
    assert Y.qddot[2] in rep.differences
    assert "DISAGREE" in str(rep)


def test_equivalent_compares_reaction_forces():
    """Reactions R_σ do not depend on how the constraints are written, so they are compared too."""
    res = results("vertical disc [Benenti 2007, §9.2]")
    rep = recipes.equivalent(res["lagrange_multipliers"], res["benenti_second_kind"])
    assert rep and rep.reactions is True


def test_multipliers_of_three_recipes_coincide_on_Q():
    """Chetaev multipliers: bordered system, Schur complement [Benenti 2007, eq. (8.6)] and the core's."""
    res = results("[Stolařová 2009, Example 2]")
    S, Q, _, _ = ALL["[Stolařová 2009, Example 2]"]()
    g = Q.normal_form(branch=0).g
    core = S.constrain(Q).multipliers()
    for name in ("lagrange_multipliers", "benenti_second_kind"):
        lam = res[name].multipliers()
        assert len(lam) == 1
        assert is_zero(sp.sympify(lam[0]).xreplace(g) - core[0])


def test_equivalent_asks_the_protocol():
    """equivalent compares equations of motion (EquationsOfMotion): reactions only when both give them
    (``reactions()`` is None for a route without them), and anything else is refused by name."""
    from jetgeo.errors import InputError

    res = results("vertical disc [Benenti 2007, §9.2]")
    ref, other = res["lagrange_multipliers"], res["benenti_second_kind"]
    assert ref.reactions() is not None and other.reactions() is not None
    silent = other.replace(reactions=None)
    assert silent.reactions() is None
    rep = recipes.equivalent(ref, silent)
    assert rep and rep.reactions is None                      # accelerations agree, reactions not compared
    assert recipes.equivalent(ref, other).reactions is True
    with pytest.raises(InputError, match="give equations of motion"):
        recipes.equivalent(ref, ref.accelerations())
    with pytest.raises(InputError, match="give equations of motion"):
        recipes.equivalent(ref.system, ref)
