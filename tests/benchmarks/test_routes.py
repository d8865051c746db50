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


def test_same_bodies_cells_alternate_and_take_medians(monkeypatch):
    """A same-bodies row (issue 28): Kane, TQ and acc alternate run by run, each cell is the median of
    its runs, a cell that timed out is not run again, the other routes do not apply, and the footer
    gives the ratios of the medians."""
    calls = []
    fake = {"Kane": [3.0, 1.0, 2.0], "TQ": [0.5, 0.7, 0.6]}

    def run_cell(label, route, timeout):
        calls.append(route)
        if route == "acc":
            return {"status": "timeout", "setup": 0.0}
        return {"status": "ok", "seconds": fake[route][calls.count(route) - 1], "setup": 0.0}

    monkeypatch.setattr(routes, "run_cell", run_cell)
    res = routes.run_table(["n_trailer_bodies_6"], ["TQ", "acc", "Kane", "constrain"], 30)
    assert calls == ["Kane", "TQ", "acc", "Kane", "TQ", "Kane", "TQ"]
    cells = res["results"]["n_trailer_bodies_6"]
    assert cells["Kane"]["seconds"] == 2.0 and cells["TQ"]["seconds"] == 0.6
    assert routes.cell_text(cells["acc"], 30) == "> 30 s"
    assert routes.cell_text(cells["constrain"], 30) == "n/a"
    assert "n = 6: TQ/Kane 0.3, acc/Kane > 15" in res["text"]


def test_same_bodies_cell_times_bodies_and_conversion():
    """A same-bodies cell builds its input in the timed part (no set-up) and finishes."""
    res = routes.run_cell("n_trailer_bodies_4", "TQ", 120)
    assert res["status"] == "ok", res
    assert res["setup"] < 0.5 and res["seconds"] > 0  # nothing prepared before the clock starts


def test_same_bodies_give_kane_accelerations():
    """The same frames and bodies (benchmarks/same_bodies.py, 3-trailer) through from_mechanics and the
    TQ route (∂f/∂q̇ and d̄f of the constraints on their DAG) give KanesMethod's angular accelerations
    θ̈, φ̈ᵢ at a random point of Q."""
    import sympy.physics.mechanics as me

    from benchmarks import same_bodies as SB
    from jetgeo.mechanics import accelerations_on_TQ

    n = 3
    _, q, u, _, cons = SB.chain(n, kane=True)
    m, inertia, a, lengths = SB._params(n)
    rng = np.random.default_rng(7)
    par = {s: float(rng.uniform(0.5, 2.0)) for s in (*m, *inertia, *a, *lengths)}
    qv = {c: float(rng.uniform(-1.0, 1.0)) for c in q}
    uv = {u[0]: float(rng.uniform(0.5, 1.5)), u[2]: float(rng.uniform(-1.0, 1.0))}
    dep = [u[1], *u[3:]]
    eqs = [me.msubs(c, qv, uv, par) for c in cons]
    A, b = sp.linear_eq_to_matrix(eqs, dep)
    uv.update(zip(dep, (float(x) for x in A.LUsolve(b))))
    order = [u[0], u[2], *dep]  # KanesMethod's u_ind + u_dependent, the rows of its solution
    kane = dict(zip(order, (float(me.msubs(e, qv, uv, par)) for e in SB.kane(n))))

    model = SB.imported(n)
    Y = model.Y
    th = float(qv[q[2]])
    xd = uv[u[0]] * np.cos(th) - uv[u[1]] * np.sin(th)
    yd = uv[u[0]] * np.sin(th) + uv[u[1]] * np.cos(th)
    pt = {**{Y.q[i]: qv[c] for i, c in enumerate(q)}, Y.qdot[0]: xd, Y.qdot[1]: yd,
          **{Y.qdot[2 + k]: uv[u[2 + k]] for k in range(n)}, **par, Y.t: 0.0}
    for f in model.Q.f:  # the point lies on Q
        assert abs(float(f.xreplace(pt))) < 1e-12
    acc = accelerations_on_TQ(model.system, model.Q)
    for k in range(n):  # θ̈ = u̇₃, φ̈ᵢ = u̇ᵢ₊₂
        assert float(acc[Y.qddot[2 + k]].xreplace(pt)) == pytest.approx(kane[u[2 + k]], rel=1e-9, abs=1e-12)


def test_same_bodies_disc_gives_kane_accelerations():
    """The rolling disc's same-bodies row (benchmarks/same_bodies.py): the very frame and body given to
    KanesMethod (u = q̇, ẋ, ẏ dependent) and to from_mechanics + the TQ route give the same five
    accelerations at a random point of Q; the canonical route agrees too."""
    import sympy.physics.mechanics as me

    from benchmarks import same_bodies as SB
    from jetgeo.io.sympy_import import from_mechanics
    from jetgeo.mechanics import accelerations_on_TQ

    N, q, bodies, loads, cons = SB._disc_bodies()
    t = me.dynamicsymbols._t
    u = [me.dynamicsymbols(f"u_{c.func.__name__}") for c in q]
    rng = np.random.default_rng(3)
    par = {s: float(rng.uniform(0.5, 2.0)) for s in sp.symbols("m A C r g", positive=True)}
    qv = {c: float(rng.uniform(-1.0, 1.0)) for c in q}
    uv = {v: float(rng.uniform(-1.0, 1.0)) for v in u[:3]}
    eqs = [me.msubs(f.xreplace({c.diff(t): v for c, v in zip(q, u)}), qv, uv, par) for f in cons]
    A, b = sp.linear_eq_to_matrix(eqs, u[3:])
    uv.update(zip(u[3:], (float(x) for x in A.LUsolve(b))))
    kane = [float(me.msubs(e, qv, uv, par)) for e in SB.disc("Kane")]  # rows: u in q's order

    model = from_mechanics(q, bodies, N, loads=loads, velocity_constraints=cons)
    Y = model.Y
    pt = {**{Y.q[i]: qv[c] for i, c in enumerate(q)}, **{Y.qdot[i]: uv[v] for i, v in enumerate(u)}, **par}
    for f in model.Q.f:  # the point lies on Q
        assert abs(float(f.xreplace(pt))) < 1e-12
    tq = accelerations_on_TQ(model.system, model.Q)
    canonical = model.constrain().accelerations()
    for k, a in enumerate(Y.qddot):
        assert float(tq[a].xreplace(pt)) == pytest.approx(kane[k], rel=1e-9, abs=1e-12)
        assert float(canonical[a].xreplace(pt)) == pytest.approx(kane[k], rel=1e-9, abs=1e-12)


def test_same_bodies_rows_for_the_disc_and_the_user_paths_of_the_bicycle():
    """The rolling disc's and the Whipple bicycle's same-bodies rows time Kane, TQ and acc from nothing
    prepared (set-up: only the cell's callable), the bicycle's jetgeo cells from ``load`` on."""
    from benchmarks import same_bodies as SB

    for label in ("rolling_disc_bodies", "whipple_bicycle_user"):
        row = routes._BY_LABEL[label]
        assert row.same and routes.row_entry(label) is None
    with pytest.raises(ValueError, match="route"):
        SB.whipple("nope")
    res = routes.run_cell("rolling_disc_bodies", "TQ", 120)
    assert res["status"] == "ok", res
    assert res["setup"] < 0.5 and res["seconds"] > 0
