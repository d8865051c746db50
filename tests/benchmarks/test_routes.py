"""The route × system timing table (benchmarks/routes.py, issue 14): a smoke run of the script, and
the non-linear rows checked against the linear catalogue systems."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from benchmarks import routes  # noqa: E402


def _table(text: str) -> dict:
    """{row: {column: cell}} from the plain-text table (columns separated by ≥ 2 spaces)."""
    lines = text.splitlines()
    i = next(k for k, ln in enumerate(lines) if ln.startswith("system "))
    cols = lines[i].split()
    out = {}
    for ln in lines[i + 2:]:
        if not ln.strip():
            break
        cells = [c.strip() for c in ln.split("  ") if c.strip()]
        out[cells[0]] = dict(zip(cols[1:], cells[1:]))
    return out


def test_script_smoke(tmp_path):
    """One small system, two routes, in fresh children: the table has both cells as times, the header
    records the commit and the versions, and the file written equals what is printed."""
    out = tmp_path / "routes.txt"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks.routes", "--systems", "skate", "--routes", "acc", "krupkova",
         "--timeout", "30", "--out", str(out), "--quiet"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    text = out.read_text()
    assert text == proc.stdout
    for key in ("commit:", "sympy:", "python:", "nproc", "maximum finished cell:"):
        assert key in text, key
    table = _table(text)
    assert list(table) == ["skate"]
    assert set(table["skate"]) == {"acc", "krupkova"}
    for route in ("acc", "krupkova"):
        assert 0 < float(table["skate"][route]) < 30, table


def test_cell_reports_exception_class_and_not_applicable():
    """A recipe whose hypotheses fail prints the class (NotApplicable); a peer without a model prints —."""
    res = routes.run_cell("parallel_velocities", "hamel", 60)
    assert routes.cell_text(res, 60) == "NotApplicable"
    assert routes.cell_text(routes.run_cell("appell_machine", "Kane", 60), 60) == "—"
    assert routes.cell_text(routes.run_cell("parallel_velocities", "Lagrange", 60), 60) == "n/a"


@pytest.mark.parametrize("linear, nonlinear, seed", [("rolling_disc", "rolling_disc_nl", 3),
                                                     ("two_wheels_axle", "two_wheels_axle_nl", 5)])
def test_nonlinear_rows_have_the_linear_accelerations(linear, nonlinear, seed):
    """[Ghori 1960, §3.2–3.3]: the non-linear form of the rolling constraints, on the chosen branch, is the
    same submanifold as the linear one and gives the same accelerations, at a random point of Q."""
    lin = routes.row_entry(linear)
    nl = routes.row_entry(nonlinear)
    assert nl.branch is not None and any(sp.Poly(f, *nl.Y.qdot).total_degree() > 1 for f in nl.Q.f)
    Y = lin.Y
    rng = np.random.default_rng(seed)
    pt = {Y.t: 0.0, **{p: float(v) for p, v in lin.params.items()}}
    pt.update({q: float(rng.uniform(0.3, 1.2)) for q in Y.q})  # sin ψ, sin θ ≠ 0 here
    dep = list(lin.Q.dependent)
    pt.update({v: float(rng.uniform(-1.5, 1.5)) for v in Y.qdot if v not in dep})
    A, b = sp.linear_eq_to_matrix([f.xreplace(pt) for f in lin.Q.f], dep)  # linear constraints: solve
    sol = np.linalg.solve(np.array(A, dtype=float), np.array(b, dtype=float).ravel())
    pt.update(dict(zip(dep, map(float, sol))))
    # the point lies on the non-linear constraints and on the chosen branch
    for f in nl.Q.f:
        assert abs(float(f.xreplace(pt))) < 1e-12
    for d, g in nl.Q.normal_form().g.items():
        assert float(g.xreplace(pt)) == pytest.approx(pt[d], abs=1e-12)
    acc_lin = lin.constrained().accelerations()
    acc_nl = nl.constrained().accelerations()
    for a in Y.qddot:
        assert float(sp.N(acc_nl[a].xreplace(pt))) == pytest.approx(float(sp.N(acc_lin[a].xreplace(pt))), abs=1e-10)
