"""The recipes accept a QuasiVelocitySystem alone (its coordinate form, one conversion in
``recipes._common.coordinate_form``): Suslov's problem [Bloch 2003] stated in body-frame Ω."""

import pytest

from jetgeo import systems
from jetgeo.errors import InputError
from jetgeo.implicit import NonholonomicProblem
from jetgeo.recipes import equivalent, gibbs_appell, krupkova, lagrange_multipliers, maggi


@pytest.fixture(scope="module")
def suslov():
    return systems.load("suslov")


@pytest.mark.parametrize("recipe", [krupkova, lagrange_multipliers, maggi, gibbs_appell])
def test_a_recipe_of_the_quasi_system_is_hamels_equations(suslov, recipe):
    report = equivalent(recipe(suslov.quasi), suslov.quasi.motion())
    assert report.equivalent, report


def test_the_front_door_names_what_is_wrong(suslov):
    with pytest.raises(InputError, match="carries its constraints"):
        krupkova(suslov.quasi, suslov.Q)
    with pytest.raises(InputError, match="needs a constraint submanifold"):
        maggi(suslov.system)


def test_the_lcdf_problem_of_the_quasi_system(suslov):
    # Ibort et al.'s compatibility test and integrability algorithm on the quasi system's coordinate form
    P = NonholonomicProblem(suslov.quasi)
    Q = NonholonomicProblem(suslov.system, suslov.Q)
    assert P.compatibility().compatible == Q.compatibility().compatible
    assert P.integrability().steps == Q.integrability().steps
