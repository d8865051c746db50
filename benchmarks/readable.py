r"""jetgeo's :func:`~jetgeo.geometry.readable` against sympy's ``simplify(trigsimp(cancel(e)))``.

For every catalogue system (``jetgeo.systems.names()``) and every entry of its canonical
accelerations (``load(name).constrained().accelerations()``): the tree nodes
(:func:`~jetgeo.geometry.exact.size.tree_size`) of the entry as derived, of jetgeo's readable
form of that entry alone (its equation plus its named subexpressions, one node per name) and of
sympy's form, and the wall times of both, each starting with sympy's cache cleared.  sympy's
``simplify`` runs in a forked child per entry, killed after ``--cap`` seconds (the issue asks for
10 minutes; on a shared machine a smaller cap is used and the header says which); such entries
read "did not finish in N s".
Each row also says whether jetgeo's form is at most sympy's in size, and in at most 1/10 of its
time.  A last line per system gives readable of the whole system at once (names shared by the
entries).

``python -m benchmarks.readable [--cap 600] [--out benchmarks/results/readable.txt]
[--reuse benchmarks/results/readable.json]`` — ``--reuse`` takes sympy's column from the JSON a
previous run wrote next to the table (the jetgeo column is always measured afresh).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import time
from pathlib import Path

import sympy as sp
from sympy.core.cache import clear_cache

from benchmarks.provenance import ROOT, provenance, provenance_lines
from jetgeo.geometry import readable
from jetgeo.geometry.exact.size import tree_size
from jetgeo.systems import load, names

OUT = ROOT / "benchmarks" / "results" / "readable.txt"


def _sympy_child(expr, conn) -> None:
    clear_cache()  # the forked child inherits the parent's sympy cache: start cold, as readable does
    t = time.perf_counter()
    out = sp.simplify(sp.trigsimp(sp.cancel(expr)))
    conn.send((tree_size(out), time.perf_counter() - t))
    conn.close()


def sympy_form(expr, cap: float) -> tuple:
    """(tree nodes, seconds) of ``simplify(trigsimp(cancel(expr)))`` in a forked child, or
    (None, cap) when it did not finish within ``cap`` seconds."""
    ctx = mp.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_sympy_child, args=(expr, send))
    proc.start()
    send.close()
    got = recv.recv() if recv.poll(cap) else None
    proc.join(1)
    if proc.is_alive():
        proc.kill()
        proc.join()
    return got if got is not None else (None, cap)


def readable_form(exprs: dict, velocities) -> tuple:
    """(tree nodes of the readable form, seconds) of ``exprs``, sympy's cache cleared first."""
    clear_cache()
    t = time.perf_counter()
    r = readable(exprs, velocities=velocities)
    return r.size(), time.perf_counter() - t


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cap", type=float, default=600.0, help="seconds per entry for sympy's simplify")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--reuse", type=Path, default=None, help="JSON of a previous run: take sympy's column from it")
    ap.add_argument("--systems", nargs="*", default=None)
    args = ap.parse_args(argv)
    prov = provenance()
    reused = json.loads(args.reuse.read_text()) if args.reuse else {}
    sympy_cap = reused.get("cap", args.cap) if reused else args.cap
    raw: dict = {"cap": sympy_cap, "entries": {}, "provenance": reused.get("provenance", prov)}
    header = [
        "jetgeo readable vs sympy simplify(trigsimp(cancel(e))) on the catalogue's accelerations "
        "(benchmarks/readable.py)",
        *provenance_lines(fields=prov),
        f"sympy cap per entry: {sympy_cap:g} s (forked child, killed after the cap)",
        *([f"sympy column reused from {args.reuse.name}, measured at commit {reused['provenance']['commit']}, "
           f"{reused['provenance']['date']}, load {reused['provenance']['load_1min']}"] if reused else []),
        "nodes: tree nodes (jetgeo.geometry.exact.size.tree_size); jetgeo: equation + named subexpressions",
        "size ok: jetgeo nodes <= sympy nodes; time ok: jetgeo time <= sympy time / 10",
        "",
        f"{'system':<36} {'entry':<12} {'as derived':>10} {'jetgeo':>7} {'sympy':>7} {'jetgeo s':>9} "
        f"{'sympy s':>9}  size ok  time ok",
        "-" * 120,
    ]
    lines = list(header)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    for name in args.systems or names():
        cs = load(name).constrained()
        acc = cs.accelerations()
        vel = cs.Y.qdot
        for key, expr in acc.items():
            label = f"{name}/{key}"
            j_nodes, j_time = readable_form({key: expr}, vel)
            if label in reused.get("entries", {}):
                s_nodes, s_time = reused["entries"][label]
            else:
                s_nodes, s_time = sympy_form(expr, args.cap)
            raw["entries"][label] = [s_nodes, s_time]
            if s_nodes is None:
                s_col, st_col = "-", f"did not finish in {sympy_cap:g} s"
                size_ok, time_ok = "n/a", "yes" if j_time <= sympy_cap / 10 else "no"
            else:
                s_col, st_col = str(s_nodes), f"{s_time:.2g}"
                size_ok = "yes" if j_nodes <= s_nodes else "no"
                time_ok = "yes" if j_time <= s_time / 10 else "no"
            lines.append(f"{name:<36} {str(key):<12} {tree_size(expr):>10} {j_nodes:>7} {s_col:>7} {j_time:>9.2g} "
                         f"{st_col:>9}  {size_ok:>7}  {time_ok:>7}")
            args.out.write_text("\n".join(lines) + "\n")
        w_nodes, w_time = readable_form(acc, vel)
        total = sum(tree_size(e) for e in acc.values())
        lines.append(f"{name:<36} {'(all)':<12} {total:>10} {w_nodes:>7} {'':>7} {w_time:>9.2f}")
        args.out.write_text("\n".join(lines) + "\n")
        args.out.with_suffix(".json").write_text(json.dumps(raw, indent=1) + "\n")
    rows = [ln for ln in lines[len(header):] if "(all)" not in ln]
    n_size = sum(ln.split()[-2] == "yes" for ln in rows)
    n_time = sum(ln.split()[-1] == "yes" for ln in rows)
    lines += ["", f"entries: {len(rows)}; size ok: {n_size}; time ok: {n_time}"]
    args.out.write_text("\n".join(lines) + "\n")
    args.out.with_suffix(".json").write_text(json.dumps(raw, indent=1) + "\n")


if __name__ == "__main__":
    main()
