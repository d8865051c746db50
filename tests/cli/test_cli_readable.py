"""``jetgeo derive --readable``: the readable form of the accelerations (jetgeo.geometry.readable).

Independent truth: the JSON output's exact accelerations (unchanged) against its readable
equations, compared by the zero test after parsing both back.
"""

from __future__ import annotations

import json

import sympy as sp

from jetgeo.cli import main
from jetgeo.geometry import zero_test


def test_derive_readable_text_latex_json(capsys):
    assert main(["derive", "skate", "--readable"]) == 0
    text = capsys.readouterr().out
    assert "(readable form)" in text and "xddot = -thetadot*xdot*tan(theta)" in text
    assert main(["derive", "skate", "--readable", "--format", "latex"]) == 0
    tex = capsys.readouterr().out
    assert tex.startswith(r"\begin{aligned}") and r"\tan{\left(\theta \right)}" in tex
    assert main(["derive", "vertical_rolling_disc", "--readable", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    exact, readable = out["accelerations"], out["readable"]
    assert set(exact) == set(readable["equations"])
    for key, value in exact.items():
        back = sp.sympify(readable["equations"][key])
        for name, definition in reversed(readable["definitions"]):  # later names use earlier ones
            back = back.xreplace({sp.Symbol(name): sp.sympify(definition)})
        assert zero_test(back - sp.sympify(value)).zero, key
