"""``jetgeo simulate --method dla-midpoint | dla-trapezoid | dla-4 --step h``: the discrete
Lagrange–d'Alembert integrators on the command line (exit codes of the README's table)."""

from __future__ import annotations

import csv

import pytest

from jetgeo.cli import SIMULATE_METHODS, main
from jetgeo.numerics.simulation.discrete import DISCRETE_METHODS
from jetgeo.numerics.simulation.integrate import IMPLICIT


def test_method_list_names_every_discrete_method():
    assert set(DISCRETE_METHODS) <= set(SIMULATE_METHODS)
    assert set(IMPLICIT) <= set(SIMULATE_METHODS)


@pytest.mark.parametrize("method", sorted(DISCRETE_METHODS))
def test_simulate_with_a_dla_method(tmp_path, capsys, method):
    out = tmp_path / "run.csv"
    assert main(["simulate", "skate", "--t-end", "1", "--method", method, "--step", "0.05", "--points", "6",
                 "--csv", str(out)]) == 0
    text = capsys.readouterr().out
    assert f"({method}, step 0.05," in text
    drift = float(text.split("max constraint drift |f|: ")[1].split()[0])
    assert drift < 1e-12
    rows = list(csv.reader(out.open()))
    assert len(rows) == 1 + 6 and float(rows[-1][0]) == pytest.approx(1.0)


@pytest.mark.parametrize("argv, message", [
    (["--method", "dla-4"], "needs --step"),
    (["--step", "0.1"], "--step is the fixed step"),
    (["--method", "dla-midpoint", "--step", "0.3"], "whole number of steps"),
])
def test_bad_step_options_exit_2_with_one_line(capsys, argv, message):
    assert main(["simulate", "skate", "--t-end", "1", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
