"""``jetgeo sweep``: a parameter sweep of a spec from the command line (subprocess, as a user runs it; the
refusals of bad ranges in-process through ``jetgeo.cli.main``, two of them also as a process).

Truth: the vertical rolling disc [Benenti 2007, §9.2, eqs. (9.2)–(9.4)] rolls with
constant θ̇ and ψ̇, so θ(t) = θ₀ + θ̇t and its centre moves on a circle of radius Rθ̇/ψ̇ — each
member of the sweep follows its own; and the dataset equals jetgeo.numerics.ensemble's.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

from jetgeo.cli import main

ROOT = Path(__file__).resolve().parents[2]


def run(*args, timeout=300):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "jetgeo.cli", *args], capture_output=True, text=True, env=env,
                          timeout=timeout)


def test_sweep_writes_the_dataset_and_members_follow_the_closed_form(tmp_path):
    out = tmp_path / "sweep.nc"
    r = run("sweep", "vertical_rolling_disc", "--t-end", "3", "--param", "R=0.5:1.5:3", "--param",
            "thetadot=1:2:2", "--points", "31", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "6 members" in r.stdout and "ok 6" in r.stdout and f"wrote {out}" in r.stdout
    ds = xr.open_dataset(out)
    assert ds.sizes["member"] == 6 and set(ds.status.values) == {"ok"}
    t = ds.time.values
    for i in range(6):
        R, w = float(ds.R[i]), float(ds.thetadot[i])
        psid = 0.3                                            # the spec's initial ψ̇, constant
        traj = ds.trajectory.isel(member=i)
        np.testing.assert_allclose(traj.sel(state="theta"), w * t, atol=1e-9)
        np.testing.assert_allclose(traj.sel(state="x"), R * w / psid * np.sin(psid * t), atol=1e-8)
        np.testing.assert_allclose(traj.sel(state="y"), R * w / psid * (1 - np.cos(psid * t)), atol=1e-8)
    # the same command again reads the finished study
    again = run("sweep", "vertical_rolling_disc", "--t-end", "3", "--param", "R=0.5:1.5:3", "--param",
                "thetadot=1:2:2", "--points", "31", "--out", str(out))
    assert again.returncode == 0, again.stderr


BAD_RANGES = [
    (["--param", "R=0.5:1.5"], "expected NAME=START:STOP:N"),
    (["--param", "R=a:1:3"], "START and STOP must be numbers"),
    (["--param", "R=1:2:0"], "N must be at least 1"),
    (["--param", "R=1:2:2.5"], "N must be a whole number"),
    (["--param", "R=inf:2:3"], "must be finite"),
    (["--param", "radius=1:2:3"], "'radius' is neither a parameter nor a coordinate"),
    (["--param", "xdot=1:2:3"], "dependent velocity"),
    (["--param", "R=1:2:3", "--param", "R=2:3:2"], "given twice"),
    (["--param", "R=1:2:3", "--out", "sweep.csv"], ".zarr or .nc"),
    (["--param", "R=-1:1:3"], "the value -1 contradicts the assumption 'positive' of R"),
    (["--param", "R=1:2:100000000000000000000000"], "100000000000000000000000 members; at most 10000000"),
    (["--param", "R=1:2:3", "--points", "2000000"], "2000000 output times; at most 1000000"),
    (["--param", "R=1:2:3", "--formulation", "lagrange"], "invalid choice: 'lagrange'"),
    (["--param", "R=1:2:3", "--timeout", "nan"], "--timeout: expected a number of seconds"),
    (["--param", "R=1:2:3", "--memory-limit", "10"], "a memory limit below 64 MB"),
]


@pytest.mark.parametrize("argv, message", BAD_RANGES)
def test_bad_ranges_and_names_exit_2_with_one_line(argv, message, capsys):
    """In-process: ``main`` is what the command runs (``sys.exit(main())``), without a fresh interpreter per
    case; the real process's exit status and stderr are checked on two of the cases below."""
    assert main(["sweep", "vertical_rolling_disc", "--t-end", "1", *argv]) == 2
    out, err = capsys.readouterr()
    assert message in err and err.count("\n") == 1 and "Traceback" not in err, (out, err)


@pytest.mark.parametrize("argv, message", [BAD_RANGES[0], BAD_RANGES[12]])  # jetgeo's own check; argparse's
def test_bad_range_exits_2_with_one_line_from_the_process(argv, message):
    r = run("sweep", "vertical_rolling_disc", "--t-end", "1", *argv)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert message in r.stderr and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr


def test_sweep_on_a_dask_scheduler_address():
    import distributed  # the ensemble extra, part of the test extra

    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cl:
        r = run("sweep", "vertical_rolling_disc", "--t-end", "1", "--param", "psidot=0.1:0.5:3",
                "--scheduler", cl.scheduler_address)
    assert r.returncode == 0, r.stderr
    assert "3 members" in r.stdout and "ok 3" in r.stdout
    bad = run("sweep", "vertical_rolling_disc", "--t-end", "1", "--param", "psidot=0.1:0.5:3", "--scheduler",
              "tcp://127.0.0.1:9", "--connect-timeout", "1")
    assert bad.returncode == 2 and "cannot connect" in bad.stderr


def test_sweep_members_cross_chart_boundaries_as_simulate_does(tmp_path):
    """The skate's normal form ẏ = ẋ tan θ ends at θ = π/2 [Benenti 2007, §9.1]; Q does not.  Every
    member runs to --t-end on its circle x = (u/ω) sin ωt, y = (u/ω)(1 − cos ωt) (u = 1, θ₀ = 0), in the
    full and the reduced formulation, and exits 0; before, the members stopped at θ = π/2 as 'singular' and the command
    exited 0 all the same."""
    for formulation in ("full", "reduced"):   # multipliers: tests/corpus/test_reliability3_sweep.py
        out = tmp_path / f"{formulation}.nc"
        r = run("sweep", "skate", "--t-end", "4", "--points", "9", "--param", "thetadot=0.5:1.5:3",
                "--formulation", formulation, "--out", str(out))
        assert r.returncode == 0, r.stderr
        assert "ok 3" in r.stdout and r.stderr == ""
        assert "formulation='" not in r.stdout     # no advice to use an option the command lacks
        ds = xr.open_dataset(out)
        t = ds.time.values
        for i in range(3):
            w = float(ds.thetadot[i])
            traj = ds.trajectory.isel(member=i)
            np.testing.assert_allclose(traj.sel(state="x"), np.sin(w * t) / w, atol=1e-7)
            np.testing.assert_allclose(traj.sel(state="y"), (1 - np.cos(w * t)) / w, atol=1e-7)
            assert "simulate across charts of Q" in str(ds.message.values[i])
        assert ds.attrs["formulation"] == formulation


def test_sweep_timeout_and_memory_limit():
    """--timeout ends the sweep, its pool included: the chunks take minutes (the workers were waited
    for: the message came at the limit and the process ended 300 s later)."""
    start = time.perf_counter()
    r = run("sweep", "vertical_rolling_disc", "--t-end", "5000", "--points", "3", "--param", "thetadot=0.1:2:5000",
            "--timeout", "1", timeout=120)
    assert time.perf_counter() - start < 60       # about 3 s: the start-up and the limit
    assert r.returncode == 1, r.stderr
    assert r.stderr.startswith("jetgeo: ResourceLimitError: time limit of 1 s reached") and r.stderr.count("\n") == 1
    r = run("sweep", "vertical_rolling_disc", "--t-end", "1", "--points", "3", "--param", "R=1:2:2",
            "--memory-limit", "4000", "--timeout", "100")
    assert r.returncode == 0 and "ok 2" in r.stdout, r.stderr
