"""``jetgeo/io/spec.py`` split by job (issue 29, item 5): the Spec and the objects it builds
(``spec_model``), reading (``spec_read``), writing (``spec_write``) and the initial data (``spec_initial``),
with every public name still importable from ``jetgeo.io.spec``; ``Spec.from_objects`` within 12 parameters.

Independent truth: the harmonic oscillator L = ẋ²/2 − k x²/2, whose acceleration is ẍ = −k x.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import sympy as sp

import jetgeo.io.spec as facade
from jetgeo import FibredManifold, LagrangianSystem
from jetgeo.errors import InputError
from jetgeo.io import spec_initial, spec_model, spec_read, spec_write

IO = Path(spec_model.__file__).parent


def test_public_names_stay_where_users_import_them():
    homes = {"Spec": spec_model, "spec_from_catalogue": spec_model, "ASSUMPTIONS": spec_model,
             "MAX_SPEC_BYTES": spec_model, "MAX_COORDINATES": spec_model, "load_spec": spec_read,
             "loads_spec": spec_read, "to_toml": spec_write, "dump": spec_write}
    assert sorted(facade.__all__) == sorted(homes)
    for name, home in homes.items():
        assert vars(facade)[name] is vars(home)[name], name
    assert facade.expr_text is spec_write.expr_text and facade.read_regular_file is spec_read.read_regular_file


def test_each_job_is_one_module_and_the_facade_defines_nothing():
    tree = ast.parse((IO / "spec.py").read_text(encoding="utf-8"))
    assert not [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.Assign))
                and not (isinstance(n, ast.Assign) and n.targets[0].id == "__all__")]
    defined = {mod.__name__.rsplit(".", 1)[1]: {n.name for n in ast.parse(Path(mod.__file__).read_text(
        encoding="utf-8")).body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        for mod in (spec_model, spec_read, spec_write, spec_initial)}
    assert {"Spec", "spec_from_catalogue"} <= defined["spec_model"]
    assert {"load_spec", "loads_spec", "read_regular_file", "_Loader"} <= defined["spec_read"]
    assert {"to_toml", "dump", "expr_text"} <= defined["spec_write"]
    assert {"_initial_state", "_off_Q"} <= defined["spec_initial"]


def _oscillator():
    Y = FibredManifold(["x"])
    k = sp.Symbol("k", positive=True)
    return LagrangianSystem(Y, Y.qdot[0] ** 2 / 2 - k * Y.q[0] ** 2 / 2), Y, k


def test_from_objects_takes_the_text_by_keyword_and_round_trips():
    S, Y, k = _oscillator()
    spec = facade.Spec.from_objects(S, name="osc", title="an oscillator", reference="[Benenti 2007]",
                                    description="x'' = -k x", params={k: 2}, initial={Y.q[0]: 1, Y.qdot[0]: 0})
    assert (spec.title, spec.reference, spec.description) == ("an oscillator", "[Benenti 2007]", "x'' = -k x")
    back = facade.loads_spec(facade.to_toml(spec))
    assert back.title == "an oscillator" and back.params == {back.symbol("k"): 2}
    x = back.symbol("x")
    assert back.accelerations() == {back.Y.qddot[0]: -back.symbol("k") * x}
    assert back.initial_state() == {back.Y.t: 0.0, x: 1.0, back.Y.qdot[0]: 0.0}


def test_from_objects_names_the_text_keywords_when_one_is_unknown():
    S, _, _ = _oscillator()
    with pytest.raises(InputError, match=r"unknown keyword\(s\) \['titel'\]; the text of a spec is title, "
                                         "reference and description"):
        facade.Spec.from_objects(S, titel="typo")
