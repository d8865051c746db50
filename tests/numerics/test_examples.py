"""The example scripts under examples/ run (Agg backend) and save their figures."""

from __future__ import annotations

import os
import runpy
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SCRIPTS = sorted(p for p in EXAMPLES.glob("*.py") if not p.name.startswith("_"))


def test_examples_exist():
    assert len(SCRIPTS) >= 4


@pytest.mark.parametrize("script", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_example_runs(script, tmp_path, monkeypatch):
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setenv("JETGEO_FIGURES", str(tmp_path))
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    monkeypatch.syspath_prepend(str(EXAMPLES))
    sys.modules.pop("_figures", None)
    try:
        runpy.run_path(str(script), run_name="__main__")
    finally:
        plt.close("all")
    figures = list(tmp_path.glob("*.png"))
    assert figures, f"{script.name} saved no figure"
    assert all(os.path.getsize(f) > 1000 for f in figures)
