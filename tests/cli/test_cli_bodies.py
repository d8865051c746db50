"""``jetgeo derive`` and ``jetgeo simulate`` on spec files with a [body] table, through the command itself (the
text derivation and the refusals as a process; the JSON derivation and the run in-process through
``jetgeo.cli.main``, what the command runs).

Independent truths: Suslov's equations derived by hand from I Ω̇ = I Ω × Ω + λ e₃ [Bloch 2003] (the printed
right-hand sides are read back and compared); the energy ½ ⟨Ω, I Ω⟩ and the constraint Ω₃ = 0 along the
simulated trajectory, recomputed from the CSV; bad input is exit 2 with one line of jetgeo's own.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import sympy as sp

from jetgeo.cli import main
from jetgeo.geometry import is_zero
from jetgeo.io import load_spec, parse_expression

ROOT = Path(__file__).resolve().parents[2]
SUSLOV = ROOT / "examples" / "suslov_body.toml"


def run(*args, cwd=None, timeout=300):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "jetgeo.cli", *args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=timeout)


def run_in_process(capsys, *args) -> subprocess.CompletedProcess:
    """``main(args)`` in this process, its output captured: for the checks of what is computed, not of the
    process boundary (each process pays ~1 s of CPU for the interpreter and the imports)."""
    code = main(list(args))
    out = capsys.readouterr()
    return subprocess.CompletedProcess(list(args), code, out.out, out.err)


def test_derive_prints_suslovs_equations_in_the_angular_velocity(capsys):
    r = run("derive", str(SUSLOV))
    assert r.returncode == 0, r.stderr
    spec = load_spec(SUSLOV)
    names = {str(s): s for s in (*spec.parameters, *spec.quasi.frame.v)}
    printed = dict(line.split(" = ", 1) for line in r.stdout.splitlines() if not line.startswith("#"))
    assert set(printed) == {"w1dot", "w2dot", "w3dot"}
    I1, I2, I13, I23 = (spec.symbol(n) for n in ("I1", "I2", "I13", "I23"))
    w1, w2 = spec.quasi.frame.v[:2]
    k = I13 * w1 + I23 * w2  # I Ω̇ = I Ω × Ω + λ e₃ with Ω₃ = 0, by hand
    hand = {"w1dot": -w2 * k / I1, "w2dot": w1 * k / I2, "w3dot": sp.Integer(0)}
    for key, text in printed.items():
        assert is_zero(parse_expression(text, names) - hand[key]), key
    assert "# on Q: w3 = 0" in r.stdout
    j = run_in_process(capsys, "derive", str(SUSLOV), "--format", "json")
    assert j.returncode == 0 and set(json.loads(j.stdout)["accelerations"]) == {"w1dot", "w2dot", "w3dot"}


def test_simulate_keeps_energy_and_the_constraint(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "run.csv"
    r = run_in_process(capsys, "simulate", str(SUSLOV), "--t-end", "3", "--points", "31", "--csv", str(out))
    assert r.returncode == 0, r.stderr
    spec = load_spec(SUSLOV)
    Y, F = spec.Y, spec.quasi.frame
    par = spec.numeric_params()
    Phi = sp.lambdify([*Y.q], F.Phi)
    v = {n: par[spec.symbol(n)] for n in ("I1", "I2", "I3", "I13", "I23")}
    Ib = np.array([[v["I1"], 0, v["I13"]], [0, v["I2"], v["I23"]], [v["I13"], v["I23"], v["I3"]]])
    with open(out, encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    energies = []
    for row in rows:
        q = [float(row[str(s)]) for s in Y.q]
        qd = np.array([float(row[str(s)]) for s in Y.qdot])
        om = np.array(Phi(*q), dtype=float) @ qd
        assert abs(om[2]) < 1e-8
        energies.append(om @ Ib @ om / 2)
    assert len(rows) == 31 and np.ptp(energies) < 1e-8 * energies[0]


def test_bad_body_spec_and_quasi_on_a_plain_spec_exit_2(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(SUSLOV.read_text(encoding="utf-8").replace('chart = "ZXZ"', 'chart = "ZZZ"'), encoding="utf-8")
    r = run("derive", str(bad))
    assert r.returncode == 2 and r.stderr.startswith("jetgeo: ") and len(r.stderr.strip().splitlines()) == 1
    assert "[body] chart" in r.stderr and "Traceback" not in r.stderr
    r = run("derive", "skate", "--recipe", "quasi_velocities")
    assert r.returncode == 2 and "needs a spec with a [body] table" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
