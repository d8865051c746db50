r"""jetgeo's :func:`~jetgeo.geometry.readable` against sympy's ``simplify(trigsimp(cancel(e)))``.

For every catalogue system (``jetgeo.systems.names(heavy=True)``: every registered entry, the
heavy Whipple bicycle and any system added later included) and every entry of its canonical
accelerations (``load(name).constrained().accelerations()``): the tree nodes
(:func:`~jetgeo.geometry.exact.size.tree_size`) of the entry as derived, of jetgeo's readable
form of that entry alone (its equation plus its named subexpressions, one node per name) and of
sympy's form, and the wall times of both.

What is timed, the same way for both: one call on that one entry — ``readable({key: entry})``,
what a user waits for to read that entry, and ``simplify(trigsimp(cancel(entry)))`` — with
sympy's cache cleared before each call; both sides are warmed up once before the table (imports
and first calls on a small trigonometric expression, in the parent process, so that the forked
children inherit them too).  The rule for repeating (:func:`best_of`), the same for both columns:
a call of less than 1 ms is repeated up to :data:`MANY` times (µs-scale calls: one reading of
``perf_counter`` is no measurement), one of less than 1 s :data:`REPEATS` times, a longer one is
timed once; each repetition has the cache cleared first, and the minimum is kept (the least
disturbed run on a shared machine).  The size of the result is computed after the clock stops.
sympy's ``simplify`` runs in a forked child per entry, killed
after ``--cap`` seconds (600 s, the issue's 10 minutes, unless the header says otherwise); such
entries read "did not finish in N s".  An entry of more than ``SYMPY_MAX_TREE`` tree nodes (the
Whipple bicycle's, ~10⁹) is not given to sympy at all — ``cancel`` walks the tree, which cannot
finish — and its row says so (``--sympy-max-tree`` raises that bound: such an entry is then given
to sympy like any other, with the same cap).
Each row also says whether jetgeo's form is at most sympy's in size, and in at most 1/10 of its
time.  A last line per system gives readable of the whole system at once (names shared by the
entries), the number the ≤ 10 s criterion for the largest system is read from.

``python -m benchmarks.readable [--cap 600] [--out benchmarks/results/readable.txt]
[--reuse benchmarks/results/readable_sympy_rigid.json] [--systems NAME ...] [--merge TABLE ...]`` —
``--merge`` puts the rows of separately run tables (a slow system run alongside) into ``--out``
(:func:`merge`; nothing measured); ``--reuse`` takes
sympy's cells from the JSON a previous run of this script wrote next to its table, for the
entries where that run's cell is one call under the rule above in both versions of it (sympy
took ≥ 1 s, or did not finish within the cap); the header names the run.  The jetgeo column is
always measured afresh.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import resource
import time
from pathlib import Path

import sympy as sp
from sympy.core.cache import clear_cache

from benchmarks.provenance import ROOT, provenance, provenance_lines
from jetgeo.errors import NotRationalError
from jetgeo.geometry import ReadableForm, readable
from jetgeo.geometry.exact.affine import free_symbols_dag, xreplace_dag
from jetgeo.geometry.exact.shadow import mod_value
from jetgeo.geometry.exact.size import atoms_dag, tree_size
from jetgeo.systems import load, names

OUT = ROOT / "benchmarks" / "results" / "readable.txt"

#: What is compared where sympy's simplify gives no form (did not finish in the cap, or not run):
#: the published form of the system and the tests that hold the derived equations to it.
PUBLISHED = {
    "veselova": [
        "published form: [Veselov–Veselova 1988] state the problem in body-frame Omega (entry.quasi), not in",
        "  Euler-angle rates: no size comparison is possible.  Compared instead: the integral",
        "  |I Omega|^2 - <I Omega, gamma>^2 of the paper is exact along entry.quasi",
        "  (tests/systems/test_rigid_bodies.py::test_veselova_integral_is_exact), entry.quasi is the",
        "  coordinate route (::test_quasi_route_equivalent_to_the_coordinate_route), and readable's expand()",
        "  equals these accelerations (the (all) line; tests/geometry/test_readable.py::",
        "  test_catalogue_readable_expands_to_the_accelerations)."],
    "routh_sphere": [
        "published form: [Borisov–Mamaev 2002] give Routh's sphere in body frame (Omega, gamma), not in",
        "  Euler-angle rates: no size comparison is possible.  Compared instead: Jellett's and Routh's",
        "  integrals of the paper are kept along entry.quasi (tests/systems/test_rigid_bodies.py::",
        "  test_routh_sphere_keeps_jellett_and_routh_integrals), entry.quasi is the coordinate route",
        "  (::test_quasi_route_equivalent_to_the_coordinate_route), and readable's expand() equals these",
        "  accelerations (the (all) line; tests/geometry/test_readable.py::",
        "  test_heavy_catalogue_readable_expands_to_the_accelerations)."],
    "whipple_bicycle": [
        "published form: none of the nonlinear accelerations; [Meijaard et al. 2007] publish the",
        "  linearisation about upright straight running (M, C1, K0, K2, eq. (5.3)-(5.6); Table 2), which",
        "  tests/systems/test_whipple.py checks against jetgeo's linearisation of this system;",
        "  readable's expand() equals these accelerations (the (all) line; tests/geometry/test_readable.py::",
        "  test_heavy_catalogue_readable_expands_to_the_accelerations)."],
}


#: Entries larger than this (tree nodes) are not given to sympy's simplify (see the docstring).
SYMPY_MAX_TREE = 10**6

#: A call faster than this (seconds) is repeated, :data:`REPEATS` times in all, the shortest kept.
REPEAT_BELOW = 1.0
REPEATS = 5
#: A call faster than this (seconds) is repeated :data:`MANY` times in all.
MANY_BELOW = 1e-3
MANY = 300


def best_of(fn):
    """(result, seconds) of ``fn()``, sympy's cache cleared before each call: the minimum over
    :data:`MANY` calls if the first took less than :data:`MANY_BELOW` s, over :data:`REPEATS`
    calls if less than :data:`REPEAT_BELOW` s, else the one call."""
    best = None
    out = None
    n = 1
    i = 0
    while i < n:
        clear_cache()
        t = time.perf_counter()
        out = fn()
        dt = time.perf_counter() - t
        if i == 0:
            n = MANY if dt < MANY_BELOW else REPEATS if dt < REPEAT_BELOW else 1
        best = dt if best is None else min(best, dt)
        i += 1
    return out, best


def simplify_sympy(expr):
    return sp.simplify(sp.trigsimp(sp.cancel(expr)))


def warm_up() -> None:
    """First calls of both sides on a small trigonometric expression (imports, lazily built
    tables), so that neither pays them inside the table."""
    th, a, w = sp.symbols("theta a omega")
    e = (a * w**2 * sp.sin(th) ** 2 + a * w**2 * sp.cos(th) ** 2) / (a * sp.cos(th) + a)
    simplify_sympy(e)
    readable({"e": e}, velocities=[w])


def _sympy_child(expr, conn) -> None:
    out, seconds = best_of(lambda: simplify_sympy(expr))
    conn.send((tree_size(out), seconds))
    conn.close()


def sympy_form(expr, cap: float) -> tuple:
    """(tree nodes, seconds, CPU seconds of the child) of ``simplify(trigsimp(cancel(expr)))`` in
    a forked child, or (None, cap, CPU seconds) when it did not finish within ``cap`` seconds of
    wall clock (the CPU seconds say how much of the cap the child actually ran: on a shared
    machine, under ``nice``, it may be much less)."""
    ctx = mp.get_context("fork")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_sympy_child, args=(expr, send))
    proc.start()
    send.close()
    got = recv.recv() if recv.poll(cap) else None
    proc.join(1)
    if proc.is_alive():
        proc.kill()
        proc.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return (*(got if got is not None else (None, cap)), cpu)


def readable_form(exprs: dict, velocities) -> tuple:
    """(tree nodes of the readable form, seconds of ``readable`` alone) of ``exprs``
    (:func:`best_of`; the size is counted after the clock stopped)."""
    r, seconds = best_of(lambda: readable(exprs, velocities=velocities))
    return r.size(), seconds


def equal_at_points(acc: dict, velocities) -> str:
    """Whether ``readable(acc).expand()`` equals ``acc`` at three random points in F_p,
    p = 2⁶¹ − 1 (values computed on the DAGs, :func:`~jetgeo.geometry.exact.shadow.mod_value`):
    "yes", or why not checked."""
    r = readable(acc, velocities=velocities)

    def untan(e):  # tan u = sin u / cos u, for mod_value (the equations and names are small)
        return e.replace(sp.tan, lambda u: sp.sin(u) / sp.cos(u)) if e.has(sp.tan) else e

    back = ReadableForm({k: untan(v) for k, v in r.equations.items()},
                        tuple((n, untan(v)) for n, v in r.definitions)).expand()
    checked = 0
    for trial in range(1, 10):
        rep: dict = {}
        angles: dict = {}
        try:
            same = all(mod_value(back[k], rep, angles, {}, trial) == mod_value(acc[k], rep, angles, {}, trial)
                       for k in acc)
        except ZeroDivisionError:  # a denominator vanishes at this point: take another one
            continue
        except NotRationalError:  # a radical whose sign F_p cannot decide: exact rational points
            return exact_points_equal(back, acc)
        if not same:
            return "NO"
        checked += 1
        if checked == 3:
            return "yes"
    return "not checked (denominators vanish)"


def exact_points_equal(back: dict, acc: dict) -> str:
    """Whether ``back`` equals ``acc`` at three exact rational points — every symbol rational,
    sin u = 2t/(1+t²), cos u = (1−t²)/(1+t²) for each angle u (t rational: sin² + cos² = 1
    exactly, so Routh's sphere's radicand sin²ψ sin²θ + sin²θ cos²ψ + cos²θ is 1) — values
    computed on the DAGs (:func:`~jetgeo.geometry.exact.affine.xreplace_dag`): "yes (exact
    points)", or why not."""
    both = list(back.values()) + list(acc.values())
    angles = {f.args[0] for f in atoms_dag(sp.Tuple(*both), sp.sin, sp.cos)}
    checked = 0
    for trial in range(1, 10):
        rep: dict = {}
        for i, s in enumerate(sorted(free_symbols_dag(both), key=str)):
            if s in angles:
                t = sp.Rational(i + 2 + trial, 2 * i + 7)
                rep[sp.sin(s)], rep[sp.cos(s)] = 2 * t / (1 + t**2), (1 - t**2) / (1 + t**2)
            else:
                rep[s] = sp.Rational(3 * i + trial, i + 5)
        memo: dict = {}
        try:
            pairs = [(xreplace_dag(back[k], rep, memo), xreplace_dag(acc[k], rep, memo)) for k in acc]
        except ZeroDivisionError:
            continue
        if not all(u.is_Rational and v.is_Rational for u, v in pairs):
            return "not checked (not rational at exact points)"
        if any(u != v for u, v in pairs):
            return "NO"
        checked += 1
        if checked == 3:
            return "yes (exact points)"
    return "not checked (denominators vanish)"


def _nodes(expr) -> str:
    n = tree_size(expr, cap=10**15)
    return str(n) if n < 10**7 else f"{n:.2e}"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cap", type=float, default=600.0, help="seconds per entry for sympy's simplify")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--reuse", type=Path, default=None, help="JSON of a previous run: take sympy's column from it")
    ap.add_argument("--systems", nargs="*", default=None)
    ap.add_argument("--sympy-max-tree", type=float, default=SYMPY_MAX_TREE,
                    help="entries above this many tree nodes are not given to sympy (default %(default).0e)")
    ap.add_argument("--merge", type=Path, nargs="+", default=None,
                    help="tables of separate runs (--systems): merge their rows into --out, measure nothing")
    args = ap.parse_args(argv)
    if args.merge:
        merge(args.out, args.merge, args.cap)
        return
    prov = provenance()
    reused = json.loads(args.reuse.read_text()) if args.reuse else {}
    reusable = {k: v for k, v in reused.get("entries", {}).items()
                if v[1] is not None and (v[0] is None or v[1] >= REPEAT_BELOW)}
    if reused and reused.get("cap", args.cap) != args.cap:
        raise SystemExit(f"--reuse: {args.reuse} was run with --cap {reused['cap']:g}, not {args.cap:g}")
    sympy_cap = args.cap
    raw: dict = {"cap": sympy_cap, "entries": {}, "provenance": prov,
                 **({"reused_from": reused["provenance"]} if reused else {})}
    header = [
        "jetgeo readable vs sympy simplify(trigsimp(cancel(e))) on the catalogue's accelerations "
        "(benchmarks/readable.py)",
        *provenance_lines(fields=prov),
        f"sympy cap per entry: {sympy_cap:g} s (forked child, killed after the cap)",
        "  (N s CPU): the CPU time that child had when it was killed (wall clock is the cap; the",
        "  machine is shared)",
        *([f"sympy cells of {', '.join(sorted({k.split('/')[0] for k in reusable}))} reused from "
           f"benchmarks/results/{args.reuse.name}:",
           f"  a run of this script at commit {reused['provenance']['commit']}, {reused['provenance']['date']}, "
           f"load {reused['provenance']['load_1min']} ({reused['provenance']['command']});",
           "  only cells where sympy took >= 1 s or did not finish (one call under the rule below and the",
           "  rule of that commit alike); every other cell, and the whole jetgeo column, measured in this run",
           *([f"  (that run took some of them from its own --reuse: a run at commit {reused['reused_from']['commit']}, "
              f"{reused['reused_from']['date']}, load {reused['reused_from']['load_1min']})"]
             if "reused_from" in reused else [])]
          if reused else []),
        "nodes: tree nodes (jetgeo.geometry.exact.size.tree_size); jetgeo: equation + named subexpressions",
        "timed (wall clock): one call on the entry alone, readable({key: entry}) and",
        "  simplify(trigsimp(cancel(entry))), sympy's cache cleared before each call; both warmed up once",
        f"  before the table; the same rule for both columns: a call under {MANY_BELOW * 1e3:g} ms repeated",
        f"  {MANY} times, under {REPEAT_BELOW:g} s {REPEATS} times, else once; the minimum kept; sizes counted",
        "  after the clock stops",
        "(all): readable of the whole system at once (names shared by its entries); its expand() compared",
        "  with the accelerations at 3 random points in F_p, p = 2^61 - 1 (values on the DAGs), or where a",
        "  radical's sign is not decidable in F_p at 3 exact rational points of the circle",
        f"entries above {args.sympy_max_tree:.0e} tree nodes are not given to sympy (its cancel walks the tree):"
        " 'not run'",
        "size ok: jetgeo nodes <= sympy nodes; time ok: jetgeo time <= sympy time / 10",
        "",
        f"{'system':<36} {'entry':<12} {'as derived':>10} {'jetgeo':>7} {'sympy':>7} {'jetgeo s':>9} "
        f"{'sympy s':>9}  size ok  time ok",
        "-" * 120,
    ]
    lines = list(header)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    warm_up()
    for name in args.systems or names(heavy=True):
        cs = load(name).constrained()
        acc = cs.accelerations()
        vel = cs.Y.qdot
        for key, expr in acc.items():
            label = f"{name}/{key}"
            derived = tree_size(expr, cap=10**15)
            j_nodes, j_time = readable_form({key: expr}, vel)
            cpu = None
            if label in reusable:
                s_nodes, s_time, *cpu_known = reusable[label]
                cpu = cpu_known[0] if cpu_known else None
            elif derived > args.sympy_max_tree:
                s_nodes, s_time = None, None
            else:
                s_nodes, s_time, cpu = sympy_form(expr, args.cap)
            raw["entries"][label] = [s_nodes, s_time, cpu]
            if s_time is None:
                s_col, st_col = "-", "not run"
                size_ok, time_ok = "n/a", "n/a"
            elif s_nodes is None:
                s_col, st_col = "-", f"did not finish in {sympy_cap:g} s" + (f" ({cpu:.0f} s CPU)" if cpu else "")
                size_ok, time_ok = "n/a", "yes" if j_time <= sympy_cap / 10 else "no"
            else:
                s_col, st_col = str(s_nodes), f"{s_time:.2g}"
                size_ok = "yes" if j_nodes <= s_nodes else "no"
                time_ok = "yes" if j_time <= s_time / 10 else "no"
            lines.append(f"{name:<36} {str(key):<12} {_nodes(expr):>10} {j_nodes:>7} {s_col:>7} {j_time:>9.2g} "
                         f"{st_col:>9}  {size_ok:>7}  {time_ok:>7}")
            args.out.write_text("\n".join(lines) + "\n")
            args.out.with_suffix(".json").write_text(json.dumps(raw, indent=1) + "\n")
        w_nodes, w_time = readable_form(acc, vel)
        total = sum(tree_size(e, cap=10**15) for e in acc.values())
        total_col = str(total) if total < 10**7 else f"{total:.2e}"
        lines.append(f"{name:<36} {'(all)':<12} {total_col:>10} {w_nodes:>7} {'':>7} {w_time:>9.2f}"
                     f"  equal at 3 F_p points: {equal_at_points(acc, vel)}")
        if any(raw["entries"][f"{name}/{key}"][0] is None for key in acc):
            lines += ["  " + ln for ln in PUBLISHED.get(name, ["published form: no comparison recorded"])]
        args.out.write_text("\n".join(lines) + "\n")
        args.out.with_suffix(".json").write_text(json.dumps(raw, indent=1) + "\n")
    lines += ["", summary(lines[len(header):], sympy_cap),
              f"load:    {os.getloadavg()[0]:.2f} (1-minute average at the end)"]
    args.out.write_text("\n".join(lines) + "\n")
    args.out.with_suffix(".json").write_text(json.dumps(raw, indent=1) + "\n")


def summary(body: list, cap: float) -> str:
    """The count line of a table's rows (``body``: rows, (all) lines and notes)."""
    rows = [ln for ln in body if ln and "(all)" not in ln and not ln.startswith(" ")]
    n_size = sum(ln.split()[-2] == "yes" for ln in rows)
    n_time = sum(ln.split()[-1] == "yes" for ln in rows)
    n_run = sum("not run" not in ln for ln in rows)
    n_cap = sum("did not finish" in ln for ln in rows)
    return (f"entries: {len(rows)} ({n_run} given to sympy, {n_cap} of them did not finish in {cap:g} s); "
            f"size ok: {n_size}; time ok: {n_time}")


def _parts(text: str) -> tuple:
    """(header lines, body lines, footer lines) of a table written by :func:`main`."""
    lines = text.rstrip("\n").split("\n")
    rule = next(i for i, ln in enumerate(lines) if ln.startswith("-----"))
    end = next(i for i in range(rule + 1, len(lines)) if not lines[i])
    return lines[:rule + 1], lines[rule + 1:end], lines[end + 1:]


def merge(out: Path, others: list, cap: float) -> None:
    """Merge the rows of ``others`` — tables of this script run separately, with ``--systems``
    (a slow system alongside the rest, so that both finish in time) — into the table ``out``:
    their rows after its own, replacing the rows (and notes) ``out`` had of the same systems,
    the count line recomputed, and a header line per merged table naming its run (command,
    commit, date, load), replacing an earlier such line for the same systems.  Nothing is
    re-measured."""
    header, body, footer = _parts(out.read_text())
    note = []
    new_body = []
    replaced: set = set()
    for other in others:
        o_head, o_body, o_foot = _parts(other.read_text())
        field = {ln.split(":", 1)[0]: ln.split(":", 1)[1].strip() for ln in o_head if ":" in ln}
        end = {ln.split(":", 1)[0]: ln.split(":", 1)[1].strip() for ln in o_foot if ":" in ln}
        systems = sorted({ln.split()[0] for ln in o_body if ln and not ln.startswith(" ")})
        replaced.update(systems)
        note += [f"rows of {', '.join(systems)} merged (benchmarks/readable.py --merge) from a separate run of this",
                 f"  script, alongside this one: {field.get('command', '?')}",
                 f"  commit {field.get('commit', '?')}, {field.get('date', '?')}; load {field.get('load', '?')},",
                 f"  {end.get('load', '?')}; its own count: {end.get('entries', '?')}"]
        note += ["  " + ln for ln in o_head if ln.startswith(("sympy cells of", "  a run of this script", "  (N s CPU)",
                                                              "  (that run took",
                                                              "  machine is shared"))]
        new_body += o_body
    kept, keep = [], True
    for ln in body:  # a row starts with its system's name; its notes are indented below it
        if ln and not ln.startswith(" "):
            keep = ln.split()[0] not in replaced
        if keep:
            kept.append(ln)
    body = kept + new_body
    rule = len(header) - 1
    title_end = next(i for i, ln in enumerate(header) if not ln)  # the blank line before the column titles
    old, skip = [], False
    for ln in header[:title_end]:  # an earlier merge note of a replaced system goes
        if ln.startswith("rows of "):
            skip = bool(set(ln[len("rows of "):].split(" merged")[0].split(", ")) & replaced)
        elif not ln.startswith("  "):
            skip = False
        if not skip:
            old.append(ln)
    header = old + note + header[title_end:rule + 1]
    footer = [summary(body, cap) if ln.startswith("entries:") else ln for ln in footer]
    out.write_text("\n".join(header + body + [""] + footer) + "\n")


if __name__ == "__main__":
    main()
