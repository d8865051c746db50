"""Progress bars for long derivations (issue 7): off unless in a terminal or asked for."""

from __future__ import annotations

import io
import sys

from jetgeo import recipes
from jetgeo.progress import progress_bar

from .systems import vertical_disc


def test_no_bar_when_not_a_terminal_or_disabled(monkeypatch):
    monkeypatch.setattr(sys, "stderr", io.StringIO())  # not a tty
    assert progress_bar(3, "x") is None
    assert progress_bar(3, "x", progress=False) is None


def test_all_methods_shows_a_bar_over_the_recipes_when_asked(monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    S, Q = vertical_disc()[:2]
    out = recipes.all_recipes(S, Q, progress=True)
    assert set(out) == set(recipes.RECIPES)
    assert "deriving" in err.getvalue()  # tqdm wrote its bar to stderr
    quiet = io.StringIO()
    monkeypatch.setattr(sys, "stderr", quiet)
    recipes.all_recipes(S, Q)  # auto: stderr is not a terminal
    assert quiet.getvalue() == ""
