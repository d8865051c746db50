"""``jetgeo simulate --method dla-midpoint | dla-trapezoid | dla-4 --step h``: the discrete
Lagrange–d'Alembert integrators on the command line (exit codes of the README's table)."""

from __future__ import annotations

import csv

import numpy as np
import pytest
import xarray as xr

from jetgeo.cli import SIMULATE_METHODS, main
from jetgeo.io.resolve import open_spec
from jetgeo.numerics import ensemble, grid
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



def test_sweep_with_a_dla_method_equals_the_api(tmp_path, capsys):
    """``jetgeo sweep --method dla-midpoint --step h`` writes what ensemble(method=..., step=h) returns,
    and follows the vertical disc's θ = θ̇ t (θ̇ = 1 in the spec) [Benenti 2007, §9.2] to the scheme's
    second order (3.7e-6 at t = 1, h = 0.02)."""
    out = tmp_path / "dla.nc"
    assert main(["sweep", "vertical_rolling_disc", "--t-end", "1", "--param", "R=0.5:1.5:3", "--points", "11",
                 "--method", "dla-midpoint", "--step", "0.02", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "3 members" in text and "ok 3" in text
    ds = xr.open_dataset(out)
    spec = open_spec("vertical_rolling_disc")
    model = spec.constrained()
    dep = {str(d) for d in model.g}
    y0 = {str(k): float(v) for k, v in spec.initial_state().items() if str(k) not in dep and str(k) != "t"}
    api = ensemble(model, grid(R=np.linspace(0.5, 1.5, 3)), (0, 1), n_times=11, initial=y0, complete=True,
                   params={str(k): float(v) for k, v in spec.numeric_params().items()}, method="dla-midpoint",
                   step=0.02)
    assert ds.attrs["formulation"] == "dla-midpoint"
    np.testing.assert_array_equal(ds.trajectory.values, api.trajectory.values)
    assert float(np.abs(ds.residual.values).max()) < 1e-12
    np.testing.assert_allclose(ds.trajectory.sel(state="theta").values, np.tile(ds.time.values, (3, 1)), atol=1e-5)


def test_sweep_with_a_dla_method_on_a_dask_scheduler_equals_the_local_sweep(tmp_path, capsys):
    """``--scheduler ADDRESS`` with a dla method: the members are stepped on the workers of a real
    ``distributed.LocalCluster`` (each worker compiles the stepper once) and the dataset equals the
    sweep stepped in this process, member by member."""
    import distributed  # the ensemble extra, part of the test extra

    argv = ["sweep", "vertical_rolling_disc", "--t-end", "1", "--param", "R=0.5:1.5:3", "--points", "11",
            "--method", "dla-midpoint", "--step", "0.05"]
    local, remote = tmp_path / "local.nc", tmp_path / "remote.nc"
    assert main([*argv, "--out", str(local)]) == 0
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cl:
        assert main([*argv, "--scheduler", cl.scheduler_address, "--out", str(remote)]) == 0
    assert "ok 3" in capsys.readouterr().out
    a, b = xr.open_dataset(local), xr.open_dataset(remote)
    assert b.attrs["formulation"] == "dla-midpoint"
    np.testing.assert_array_equal(a.trajectory.values, b.trajectory.values)


@pytest.mark.parametrize("argv, message", [
    (["--method", "dla-midpoint"], "needs step="),
    (["--method", "dla-midpoint", "--step", "0.3"], "not a whole number of steps"),
    (["--method", "dla-midpoint", "--step", "nan"], "step must be a finite number > 0"),
    (["--method", "dla-4", "--step", "0.1", "--points", "4"], "output times must be nodes"),
    (["--method", "dla-4", "--step", "0.1", "--scheduler", "tcp://127.0.0.1:9", "--connect-timeout", "1"],
     "cannot connect"),
    (["--step", "0.1"], "step= is for the dla methods"),
])
def test_sweep_dla_bad_arguments_exit_2_with_one_line(capsys, argv, message):
    assert main(["sweep", "vertical_rolling_disc", "--t-end", "1", "--param", "R=0.5:1.5:2", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
