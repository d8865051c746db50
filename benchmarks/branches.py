r"""Branches of non-linear constraints (issue 28): ``Q.branches()`` and the routes that use a branch, before/after.

    PYTHONPATH=. python -m benchmarks.branches --baseline /work/main --out benchmarks/results/branches.txt

For each catalogue system with a non-linear constraint (Ghori's rolling disc, two wheels with an axle and
rolling ball in their non-linear forms [Ghori 1960, §3.2–3.4]; Stolařová's cone [Stolařová 2009, Example 2])
a **fresh child process** (``python benchmarks/branches.py --child``, jetgeo imported from the checkout under
test) loads the entry, empties sympy's cache and jetgeo's memo tables (:func:`benchmarks.run.clear_caches`) and
times ``ConstraintSubmanifold(Y, f, dependent).branches()`` (wall and CPU seconds).  Then, for every route
that uses the entry's branch — ``cs.reduced_equations()``, ``cs.multipliers()``,
``accelerations_on_TQ``, ``NonholonomicProblem(...).compatibility()`` and ``.solve()``, every recipe
of ``jetgeo.recipes.RECIPES`` but Hamel's (which refuses non-linear constraints) — the entry is loaded again
(its branches computed, untimed), the caches emptied and the route timed in **CPU seconds**
(``time.process_time``: on a shared machine the wall time of a sub-second route measures the load more than
the route); the column is their sum, over the routes that apply (one raising
:class:`~jetgeo.errors.NotApplicableError` — Chaplygin's equations on the cone — is not counted; the last
column says how many ran).

With ``--baseline DIR`` the same children run with jetgeo imported from ``DIR`` (e.g. the main checkout
before the change), alternating with the checkout under test, so that a change of load hits both alike.
Each cell is the median of ``--repeats`` (3) runs.  The header records the commit, the machine and the
1-minute load average at the start; the load at the end is the last line.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: (catalogue name, load options) of the systems with non-linear constraints
SYSTEMS = [
    ("rolling_disc", {"form": "nonlinear"}),
    ("two_wheels_axle", {"form": "nonlinear"}),
    ("rolling_ball", {"form": "nonlinear"}),
    ("stolarova_example2", {}),
]


def child(name: str) -> dict:
    """The measurements of one system in this process (jetgeo from ``sys.path``)."""
    from benchmarks.run import clear_caches
    from jetgeo import ConstraintSubmanifold, recipes, systems
    from jetgeo.errors import NotApplicableError
    from jetgeo.implicit import NonholonomicProblem
    from jetgeo.mechanics import accelerations_on_TQ

    opts = dict(SYSTEMS)[name]
    e = systems.load(name, **opts)
    clear_caches()
    Q = ConstraintSubmanifold(e.Y, list(e.Q.f), dependent=e.Q.dependent)
    w0, c0 = time.perf_counter(), time.process_time()
    n = len(Q.branches())
    out = {"branches": n, "wall": time.perf_counter() - w0, "cpu": time.process_time() - c0}
    routes = {
        "reduced": lambda e, cs: cs.reduced_equations(),
        "mult": lambda e, cs: cs.multipliers(),
        "TQ": lambda e, cs: accelerations_on_TQ(e.system, e.Q),
        "compat": lambda e, cs: NonholonomicProblem(e.system, e.Q).compatibility(),
        "solve": lambda e, cs: NonholonomicProblem(e.system, e.Q).solve(),
    }
    routes.update({r: None for r in recipes.RECIPES if r != "hamel"})
    total, ran = 0.0, 0
    for r, fn in routes.items():
        e = systems.load(name, **opts)
        clear_caches()
        c0 = time.process_time()
        try:
            if fn is None:
                recipes.RECIPES[r](e.system, e.Q)
            else:
                fn(e, e.system.constrain(e.Q, branch=e.branch))
        except NotApplicableError:  # e.g. Chaplygin's equations on the cone: not counted
            continue
        total += time.process_time() - c0
        ran += 1
    out["routes_cpu"] = total
    out["routes"] = ran
    return out


def run_child(checkout: Path, name: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", name], env=env,
                          capture_output=True, text=True, cwd=checkout, timeout=1800)
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else f"exit {proc.returncode}"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", type=Path, default=None, help="checkout to compare with (jetgeo imported from it)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child)))
        return 0
    from benchmarks.provenance import provenance_lines

    checkouts = [("this", ROOT)] + ([("baseline", args.baseline.resolve())] if args.baseline else [])
    header = provenance_lines()
    if args.baseline:
        base_commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=args.baseline, capture_output=True,
                                     text=True).stdout.strip()
        header.append(f"baseline: {args.baseline} at {base_commit}")
    results: dict = {}
    for rep in range(args.repeats):
        order = checkouts if rep % 2 == 0 else checkouts[::-1]
        for name, _ in SYSTEMS:
            for label, path in order:
                got = run_child(path, name)
                results.setdefault((label, name), []).append(got)
                print(f"{rep + 1}/{args.repeats} {label:8s} {name:20s} {got}", file=sys.stderr, flush=True)
    lines = [*header, f"each cell: median of {args.repeats} fresh child processes (alternating checkouts); "
             "branches: wall (CPU) seconds of Q.branches(); routes: sum of CPU seconds of the routes that use "
             "the branch, those that raise NotApplicableError not counted (see the module docstring)", ""]
    lines.append(f"{'system':20s} {'checkout':9s} {'branches':>8s} {'branches wall':>14s} {'branches CPU':>13s} "
                 f"{'routes CPU':>11s} {'routes run':>10s}")
    for name, _ in SYSTEMS:
        for label, _ in checkouts:
            runs = results[(label, name)]
            if any("error" in r for r in runs):
                lines.append(f"{name:20s} {label:9s} error: {next(r['error'] for r in runs if 'error' in r)}")
                continue
            med = {k: statistics.median(r[k] for r in runs) for k in ("wall", "cpu", "routes_cpu")}
            lines.append(f"{name:20s} {label:9s} {runs[0]['branches']:8d} {med['wall']:14.3f} {med['cpu']:13.3f} "
                         f"{med['routes_cpu']:11.2f} {runs[0]['routes']:10d}")
    lines.append("")
    lines.append("load average at end: " + " ".join(f"{x:.2f}" for x in os.getloadavg()))
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
