r"""python-flint and symengine on the same-bodies rows (issue 28, item 3): is either worth an extra?

Two measurements, each alternating the two variants so that a change of load hits both alike:

* **python-flint as sympy's ground types**: the same-bodies cells (:mod:`benchmarks.same_bodies`:
  Kane, jetgeo's TQ and canonical routes, everything from the bodies on) in fresh interpreters
  with ``SYMPY_GROUND_TYPES=python`` and ``=flint`` (sympy's integers, rationals and polynomial
  rings on FLINT); one run per interpreter, ``--reps`` interpreters per variant.
* **symengine for the derivatives of a large L**: the momenta, the Hessian and the
  Euler–Lagrange expressions without accelerations e_σ = ∂L/∂q^σ − d̄/dt ∂L/∂q̇^σ of the
  n-trailer's L from its bodies, by symengine (conversion of L to symengine and of the results
  back to sympy included: every route continues in sympy) against jetgeo's own DAG derivatives
  (:class:`~jetgeo.mechanics.LagrangianSystem`); the results are checked equal at a random point.

The extra is adopted only for a gain of at least 1.5 × with identical results.  Packages that
are not installed are reported as such (``pip install python-flint symengine``; a target
directory on ``--path`` works too).

    PYTHONPATH=. python -m benchmarks.optional_deps --out benchmarks/results/optional_deps.txt
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.provenance import provenance_lines

ROOT = Path(__file__).resolve().parents[1]

_CHILD = """
import json, sys
from benchmarks.run import warm_up
from benchmarks.same_bodies import compare
from sympy.external.gmpy import GROUND_TYPES
warm_up()
print(json.dumps({"ground": GROUND_TYPES, **compare(sys.argv[1], 1)}))
"""


def ground_types(models: list, reps: int, path: str) -> list:
    """Lines: per model, the medians over ``reps`` interpreters of each cell, python vs flint."""
    out = []
    for model in models:
        runs: dict = {"python": [], "flint": []}
        for _ in range(reps):
            for ground in runs:
                env = {**os.environ, "SYMPY_GROUND_TYPES": ground,
                       "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), path) if p)}
                proc = subprocess.run([sys.executable, "-c", _CHILD, model], env=env, capture_output=True,
                                      text=True, timeout=1800)
                if proc.returncode != 0:
                    return out + [f"{model}: {ground} failed: {proc.stderr.strip().splitlines()[-1]}"]
                got = json.loads(proc.stdout.strip().splitlines()[-1])
                if got.pop("ground") != ground:
                    return out + [f"{model}: ground types {ground} not available (python-flint not installed)"]
                runs[ground].append(got)
        med = {g: {c: statistics.median(r[c] for r in rs) for c in ("Kane", "TQ", "acc")} for g, rs in runs.items()}
        cells = ", ".join(f"{c} {med['python'][c]:.3g} s -> {med['flint'][c]:.3g} s "
                          f"({med['python'][c] / med['flint'][c]:.2f} x)" for c in ("Kane", "TQ", "acc"))
        out.append(f"{model} (python -> flint, medians of {reps}, load {os.getloadavg()[0]:.2f}): {cells}")
        print(out[-1], file=sys.stderr, flush=True)
    return out


def _derivatives_symengine(system):
    import symengine as se
    import sympy as sp

    Y = system.Y
    L = se.sympify(system.L)
    qs, vs = [se.sympify(s) for s in Y.q], [se.sympify(s) for s in Y.qdot]
    p = [L.diff(v) for v in vs]
    W = [[p[i].diff(vs[j]) for j in range(len(vs))] for i in range(len(vs))]
    e = []
    for s, q in enumerate(qs):
        dbar = sum((p[s].diff(c) * v for c, v in zip(qs, vs)), se.Integer(0))
        e.append(L.diff(q) - dbar - p[s].diff(se.sympify(Y.t)))
    back = sp.Matrix([[sp.sympify(x) for x in row] for row in W])
    return [sp.sympify(x) for x in p], back, [sp.sympify(x) for x in e]


def _derivatives_dag(system):
    return list(system.momenta), system.hessian(), system.euler_lagrange_without_accelerations()


def symengine_derivatives(ns: list, reps: int) -> list:
    """Lines: per n, the medians of ``reps`` alternating runs, DAG vs symengine, and the check."""
    from benchmarks.run import clear_caches
    from benchmarks.same_bodies import imported
    from jetgeo.geometry.zero import zero_tests

    try:
        import symengine  # noqa: F401
    except ImportError:
        return ["symengine: not installed"]
    out = []
    for n in ns:
        times: dict = {"dag": [], "symengine": []}
        results: dict = {}
        for _ in range(reps):
            for name, fn in (("dag", _derivatives_dag), ("symengine", _derivatives_symengine)):
                clear_caches()
                system = imported(n).system
                t0 = time.perf_counter()
                results[name] = fn(system)
                times[name].append(time.perf_counter() - t0)
        (p1, W1, e1), (p2, W2, e2) = results["dag"], results["symengine"]
        # exact zero test of every difference (F_p values on the DAG; evalf would walk the trees)
        same = all(t.zero for t in zero_tests([a - b for a, b in zip([*p1, *W1, *e1], [*p2, *W2, *e2])]))
        d, s = statistics.median(times["dag"]), statistics.median(times["symengine"])
        out.append(f"{n}-trailer from its bodies: momenta, Hessian and e on the DAG {d:.3g} s, by symengine with "
                   f"the conversions {s:.3g} s ({d / s:.2f} x; medians of {reps}, load {os.getloadavg()[0]:.2f}); "
                   f"results {'identical (zero test of each difference)' if same else 'DIFFERENT'}")
        print(out[-1], file=sys.stderr, flush=True)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", nargs="*", default=["n_trailer_4", "n_trailer_6", "rolling_disc"],
                    help="same-bodies models for the ground types (benchmarks.same_bodies.timed_cell)")
    ap.add_argument("--trailers", nargs="*", type=int, default=[6, 8], help="n for the symengine derivatives")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--path", default="", help="extra import path for python-flint / symengine")
    ap.add_argument("--out", default=None)
    opts = ap.parse_args(argv)
    if opts.path:
        sys.path.append(opts.path)
    command = "python -m benchmarks.optional_deps " + shlex.join(sys.argv[1:] if argv is None else argv)
    lines = ["python-flint (sympy ground types) and symengine on the same-bodies rows (benchmarks/optional_deps.py)",
             *provenance_lines(command), "", "ground types (one fresh interpreter per run, alternating):"]
    lines += ["  " + s for s in ground_types(opts.models, opts.reps, opts.path)]
    lines += ["", "symengine derivatives of L (alternating in one process, caches emptied before each):"]
    lines += ["  " + s for s in symengine_derivatives(opts.trailers, opts.reps)]
    lines.append(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    text = "\n".join(lines) + "\n"
    if opts.out:
        Path(opts.out).write_text(text)
    print(text, end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
