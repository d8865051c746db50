"""examples/specs/catalogue/*.toml: every catalogue system shipped as a spec file (issue 8).

The files are ``jetgeo.io.to_toml(spec_from_catalogue(name))`` (what ``jetgeo show NAME`` writes
for a name that is not also a hand-written shipped spec); this test keeps them current and
checks that each loads back into the same Lagrangian and constraints as the Python catalogue.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import sympy as sp

from jetgeo.geometry.zero import is_zero
from jetgeo.io import load_spec, to_toml
from jetgeo.io.spec import spec_from_catalogue
from jetgeo.systems import load, names

DIR = Path(__file__).resolve().parents[2] / "examples" / "specs" / "catalogue"


def test_every_catalogue_system_has_a_spec_file():
    assert {p.stem for p in DIR.glob("*.toml")} == set(names())


@pytest.mark.parametrize("name", names())
def test_spec_file_is_current_and_loads_to_the_catalogue_system(name):
    text = (DIR / f"{name}.toml").read_text(encoding="utf-8")
    assert text == "# generated from the Python catalogue jetgeo.systems\n" + to_toml(spec_from_catalogue(name))
    spec = load_spec(DIR / f"{name}.toml")
    sys_, Q = load(name)
    by_name = {str(s): s for s in (*sys_.Y.J1.coords, *load(name).parameters)}

    def ours(e):
        e = sp.sympify(e)
        return e.xreplace({s: by_name.get(str(s), s) for s in e.free_symbols})

    assert is_zero(ours(spec.system.L) - sys_.L)
    assert len(spec.Q.f) == len(Q.f)
    assert all(is_zero(ours(a) - b) for a, b in zip(spec.Q.f, Q.f))
