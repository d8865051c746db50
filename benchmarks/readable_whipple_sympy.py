r"""sympy's ``simplify(trigsimp(cancel(e)))`` on the Whipple bicycle's accelerations, each entry
given a budget of **CPU** seconds (issue 27: "where sympy's simplify does not finish in 10 minutes,
the table says so").

:mod:`benchmarks.readable` caps sympy's call by wall clock in a forked child; on a shared machine
(or under ``nice``) such a child may have had a fraction of the cap.  Here every entry runs in a
forked child whose CPU time is limited by ``RLIMIT_CPU`` (the kernel stops it after ``--cap`` CPU
seconds) and whose address space is limited to ``--memory`` GiB (a ``MemoryError`` is recorded as
such); ``--jobs`` children run at once (one per idle core).  The entries are the canonical
accelerations on Q of ``load("whipple_bicycle")``, derived once in the parent, as in
:mod:`benchmarks.readable`; sympy's cache is cleared in each child before the call.

    PYTHONPATH=. python -m benchmarks.readable_whipple_sympy --cap 600 --jobs 2
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from pathlib import Path

from sympy.core.cache import clear_cache

from benchmarks.provenance import ROOT, provenance_lines
from benchmarks.readable import simplify_sympy
from jetgeo.geometry.exact.size import tree_size
from jetgeo.systems import load

OUT = ROOT / "benchmarks" / "results" / "readable_whipple_sympy.txt"


def _child(expr, cap: int, memory_gib: float, fd: int) -> None:
    """In the forked child: limit CPU and memory, run sympy's call, write (status, nodes, CPU s)."""
    resource.setrlimit(resource.RLIMIT_CPU, (cap, cap + 5))
    limit = int(memory_gib * 2**30)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    clear_cache()
    t0 = time.process_time()
    try:
        out = simplify_sympy(expr)
        msg = ["finished", tree_size(out), time.process_time() - t0]
    except MemoryError:
        msg = ["memory", None, time.process_time() - t0]
    os.write(fd, json.dumps(msg).encode())


def run(entries: dict, cap: int, memory_gib: float, jobs: int) -> dict:
    """{key: (status, sympy nodes or None, CPU seconds, wall seconds)}; status ``finished``,
    ``cpu cap`` (stopped by the kernel at ``cap`` CPU seconds), ``memory`` or ``died``."""
    todo = list(entries.items())
    running: dict = {}
    results: dict = {}
    while todo or running:
        while todo and len(running) < jobs:
            key, expr = todo.pop(0)
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:  # the child
                os.close(r)
                try:
                    _child(expr, cap, memory_gib, w)
                finally:
                    os._exit(0)
            os.close(w)
            running[pid] = (key, r, time.perf_counter())
        pid, status, usage = os.wait4(-1, 0)
        key, r, t0 = running.pop(pid)
        wall = time.perf_counter() - t0
        data = os.read(r, 4096)
        os.close(r)
        cpu = usage.ru_utime + usage.ru_stime
        if data:
            state, nodes, _ = json.loads(data)
        else:
            state, nodes = ("cpu cap" if os.WIFSIGNALED(status) and os.WTERMSIG(status) in (24, 9) else "died"), None
        results[key] = (state, nodes, cpu, wall)
        print(f"{key}: {state}, {cpu:.0f} s CPU, {wall:.0f} s wall", flush=True)
    return results


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cap", type=int, default=600, help="CPU seconds per entry")
    ap.add_argument("--memory", type=float, default=8.0, help="GiB of address space per child")
    ap.add_argument("--jobs", type=int, default=2, help="children at once")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    head = provenance_lines()
    acc = load("whipple_bicycle").constrained().accelerations()
    results = run(dict(acc), args.cap, args.memory, args.jobs)
    lines = [
        "sympy simplify(trigsimp(cancel(e))) on the Whipple bicycle's accelerations on Q, a CPU budget per entry "
        "(benchmarks/readable_whipple_sympy.py)",
        *head,
        f"each entry: a forked child, RLIMIT_CPU {args.cap} s (stopped by the kernel), address space "
        f"{args.memory:g} GiB, {args.jobs} children at once; sympy's cache cleared in the child",
        "",
        f"{'entry':<12} {'tree nodes':>10} {'status':>10} {'sympy nodes':>11} {'CPU s':>7} {'wall s':>7}",
        "-" * 62,
    ]
    for key, expr in acc.items():
        state, nodes, cpu, wall = results[key]
        lines.append(f"{str(key):<12} {tree_size(expr, cap=10**15):>10.3g} {state:>10} "
                     f"{'-' if nodes is None else nodes:>11} {cpu:>7.0f} {wall:>7.0f}")
    lines.append(f"load:    {os.getloadavg()[0]:.2f} (1-minute average at the end)")
    args.out.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
