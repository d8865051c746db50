"""``jetgeo simulate``: the options --formulation, --rtol, --atol, --max-step and the exit code of a run
that ends before --t-end, through the command itself (a subprocess, as a user runs it: the exit codes, the
empty stderr of a clean run and the one-line reason of a run ending early); the runs whose subject is the
integration, and the refusals of bad values, in-process through ``jetgeo.cli.main`` (what the command runs).

Independent truth: the Chaplygin sleigh's closed form v = v∞ tanh(κt + c) (derived in theory/atlas.md).
"""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from jetgeo.cli import main

ROOT = Path(__file__).resolve().parents[2]


def run(*args, cwd=None, timeout=300):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "jetgeo.cli", *args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=timeout)


def run_in_process(capsys, *args) -> subprocess.CompletedProcess:
    """``main(args)`` in this process, its output captured: for the runs whose subject is the integration,
    not the process boundary (each process pays ~1.4 s of CPU for the interpreter, sympy, NumPy and SciPy)."""
    code = main(list(args))
    out = capsys.readouterr()
    return subprocess.CompletedProcess(list(args), code, out.out, out.err)


def sleigh_error(path: Path) -> float:
    """max |v − v_closed| over the CSV of a sleigh run (m = 2, I = 0.7, a = 0.4, v0 = 0.3, ω0 = 1.5)."""
    with open(path, encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    t = np.array([float(r["t"]) for r in rows])
    th = np.array([float(r["theta"]) for r in rows])
    xd, yd = (np.array([float(r[k]) for r in rows]) for k in ("xdot", "ydot"))
    v = xd * np.cos(th) + yd * np.sin(th)
    m, I, a, v0, w0 = 2.0, 0.7, 0.4, 0.3, 1.5
    vinf = np.sqrt(v0**2 + (I + m * a**2) * w0**2 / m)
    kappa = m * a * vinf / (I + m * a**2)
    assert t[-1] == 40.0
    return float(np.max(np.abs(v - vinf * np.tanh(kappa * t + np.arctanh(v0 / vinf)))))


def nfev(stdout: str) -> int:
    return int(stdout.split(" right-hand-side evaluations")[0].rsplit(" ", 1)[-1])


def test_sleigh_runs_40s_through_the_chart_boundary(tmp_path):
    out = tmp_path / "s.csv"
    r = run("simulate", "chaplygin_sleigh", "--t-end", "40", "--csv", str(out), "--rtol", "1e-12", "--atol", "1e-14",
            cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    assert "integrated to t = 40" in r.stdout and "(full formulation" in r.stdout
    assert "chart switch at t = 1.065" in r.stdout and "[ydot] → [xdot]" in r.stdout
    assert sleigh_error(out) < 1e-8


def test_formulation_option(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    finals = {}
    for form in ("reduced", "multipliers"):
        out = tmp_path / f"{form}.csv"
        r = run_in_process(capsys, "simulate", "chaplygin_sleigh", "--t-end", "40", "--formulation", form, "--csv",
                           str(out), "--rtol", "1e-12", "--atol", "1e-14")
        assert r.returncode == 0, r.stderr
        assert f"({form} formulation" in r.stdout
        assert sleigh_error(out) < 1e-8
        finals[form] = r.stdout
    assert "chart switch" in finals["reduced"] and "chart switch" not in finals["multipliers"]
    # reduced: q̇^D = g holds by construction; multipliers: drift at the integrator's tolerance
    assert float(finals["reduced"].split("drift |f|: ")[1].split()[0]) < 1e-14
    assert 0 < float(finals["multipliers"].split("drift |f|: ")[1].split()[0]) < 1e-9
    bad = run_in_process(capsys, "simulate", "chaplygin_sleigh", "--t-end", "1", "--formulation", "exact")
    assert bad.returncode == 2 and "invalid choice" in bad.stderr


def test_rtol_atol_options_change_the_accuracy(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    loose, tight = tmp_path / "loose.csv", tmp_path / "tight.csv"
    r1 = run_in_process(capsys, "simulate", "chaplygin_sleigh", "--t-end", "40", "--rtol", "1e-5", "--atol", "1e-7",
                        "--csv", str(loose))
    r2 = run_in_process(capsys, "simulate", "chaplygin_sleigh", "--t-end", "40", "--rtol", "1e-12", "--atol", "1e-14",
                        "--csv", str(tight))
    assert r1.returncode == r2.returncode == 0
    e1, e2 = sleigh_error(loose), sleigh_error(tight)
    assert e1 > 1e-8 > e2 and e1 > 100 * e2
    assert nfev(r1.stdout) < nfev(r2.stdout)
    # the refusals in-process (``main`` is what the command runs: sys.exit(main())), the first also as a process
    for bad in (("--rtol", "-1"), ("--atol", "0"), ("--max-step", "0")):
        assert main(["simulate", "chaplygin_sleigh", "--t-end", "1", *bad]) == 2
        err = capsys.readouterr().err
        assert bad[0] in err and "Traceback" not in err, err
    r = run("simulate", "chaplygin_sleigh", "--t-end", "1", "--rtol", "-1", cwd=tmp_path)
    assert r.returncode == 2 and "--rtol" in r.stderr and "Traceback" not in r.stderr


def test_max_step_option_bounds_the_steps(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    free = run_in_process(capsys, "simulate", "chaplygin_sleigh", "--t-end", "40")
    bounded = run_in_process(capsys, "simulate", "chaplygin_sleigh", "--t-end", "40", "--max-step", "0.01")
    assert free.returncode == bounded.returncode == 0
    # DOP853 takes ≥ 40 / 0.01 steps of 12 evaluations each
    assert nfev(bounded.stdout) >= 12 * 4000 > nfev(free.stdout)


def test_run_ending_early_exits_1_with_a_one_line_reason(tmp_path):
    """krupkova_example2 reaches its zero section (a true singular state) at t = √2/2."""
    out = tmp_path / "k.csv"
    r = run("simulate", "krupkova_example2", "--t-end", "3", "--csv", str(out), cwd=tmp_path)
    assert r.returncode == 1
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Warning" not in r.stderr
    assert "stopped at t = 0.706" in lines[0] and "before --t-end 3" in lines[0] and "rank ∂f/∂q̇" in lines[0]
    with open(out, encoding="utf-8") as fh:  # the part computed is written
        ts = [float(row["t"]) for row in csv.DictReader(fh)]
    assert ts[-1] < 0.71
    full = run("simulate", "krupkova_example2", "--t-end", "0.5", cwd=tmp_path)
    assert full.returncode == 0 and full.stderr == ""


def test_help_documents_the_exit_codes():
    r = run("simulate", "--help")
    assert r.returncode == 0
    text = " ".join(r.stdout.split())
    assert "1 it ended earlier, at a singular state" in text
    for opt in ("--formulation", "--rtol", "--atol", "--max-step"):
        assert opt in text
