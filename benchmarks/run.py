r"""Benchmark runner: jetgeo against sympy.physics.mechanics, side by side, as ratios.

    python -m benchmarks.run --quick          # discs, skate, parallel points, n-trailer n ≤ 6 (~8 min)
    python -m benchmarks.run --full           # every system, n-trailer n = 1..12
    python -m benchmarks.run --systems heavy_disc n_trailer_4 --reps 5

Method
------
* Every measurement runs in a **fresh forked child** of one parent process (the
  parent imports sympy, sympy.physics.mechanics and jetgeo but computes nothing), so
  no tool profits from sympy's cache or jetgeo's memo tables filled by an earlier run,
  and a child that exceeds ``--timeout`` is killed and recorded as ``"timeout"``.
* The tools **alternate** within each repetition (jetgeo, Kane, Lagrange; reversed on
  the next repetition), so a change of machine load hits all of them alike; ratios are
  formed from medians of the same run.  The machine is shared: absolute times drift,
  ratios are the figures to read.
* **derive**: from the model's inputs (jetgeo: L and f in jet coordinates; Kane:
  bodies, loads, velocity constraints with u = q̇ and the same dependent velocities
  as jetgeo's normal form; Lagrange: L and ``nonhol_coneqs``) to explicit
  accelerations q̈ = F(q, q̇) (peers: ``LUsolve`` of mass matrix and forcing).  The
  column ``eq`` is the peer's time to its implicit equations alone
  (``kanes_equations`` / ``form_lagranges_equations``).
* **ops**: ``count_ops`` summed over the explicit accelerations of all coordinates.
* **rhs**: one call of ``lambdify((q, q̇, params), accelerations, "math", cse=True)``
  at a point of Q, in µs (median of 5 timeit repeats); the same signature for all tools.
* **agree**: the accelerations of each peer at a fixed point of Q equal jetgeo's
  (max abs difference).
* **timeouts**: each child has ``--timeout`` seconds (60 quick by default is advisable; 900
  full).  A child that derived in time but whose ``ops``/``rhs`` extras did not finish keeps its
  derive time (``extras: "timeout"``); a tool that times out on an n-trailer is not run for
  larger n.  A timeout ratio is printed as an upper bound (``<r``).
* **nonlinear constraints** (parallel velocities): besides the table, what each tool reports —
  KanesMethod's rejection, LagrangesMethod's multipliers, jetgeo's classification, singular
  states, normal-form condition, Theorem 2 compatibility and Chetaev multipliers (JSON:
  ``nonlinear_reports``).
* n-trailer: the growth exponent p of derive time ∝ n^p, least squares in log–log
  over the n that finished (n ≥ 2), for each tool.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import os
import platform
import shlex
import statistics
import sys
import time
import timeit
import traceback
from pathlib import Path

import sympy as sp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import sympy.physics.mechanics  # noqa: E402,F401

import jetgeo  # noqa: E402,F401  (imported before forking: children start warm, with empty caches)
from benchmarks import systems as S  # noqa: E402
from benchmarks.provenance import provenance, provenance_lines  # noqa: E402

TOOLS = ("jetgeo", "jetgeo_tq", "kane", "lagrange")
RESULTS = Path(__file__).resolve().parent / "results"

QUICK = ["chaplygin_sleigh", "vertical_disc", "heavy_disc", "parallel_points",
         *[f"n_trailer_{n}" for n in range(1, 7)]]
FULL = ["chaplygin_sleigh", "vertical_disc", "heavy_disc", "parallel_points",
        *[f"n_trailer_{n}" for n in range(1, 13)]]


# --- work done in the children -----------------------------------------------------------------------------


def _prepare(name: str, dependent: str = "jetgeo") -> dict:
    """Untimed: the dependent velocities (jetgeo's own choice, or with ``dependent="natural"`` the
    model's hand choice where it has one) and a fixed point of Q (names → floats)."""
    import numpy as np

    model = S.build(name)
    Y, L, fs = S.jetgeo_inputs(model)
    hand = model.extra.get("natural_dependent") if dependent == "natural" else None
    Q = jetgeo.ConstraintSubmanifold(Y, fs, dependent=[Y.qdot[i] for i in hand] if hand else None)
    rng = np.random.default_rng(2026)
    if model.linear:  # affine constraints: q̇^D from a numeric linear solve, no normal form needed
        dep = [Y.qdot.index(d) for d in Q.dependent]   # (its nested canonical form is what grows)
        pt = S.random_state_affine(model, Y, fs, list(Q.dependent), rng)
    else:
        nf = Q.normal_form()
        dep = [Y.qdot.index(d) for d in nf.dependent]
        pt = S.random_state(model, Y, nf, rng)
    return {"dependent": dep, "given": bool(hand), "point": {str(k): v for k, v in pt.items()}}


def _rhs_timing(exprs: list, args: list, values: list) -> tuple:
    f = sp.lambdify(args, exprs, modules="math", cse=True)
    val = [float(v) for v in f(*values)]
    timer = timeit.Timer(lambda: f(*values))
    number = max(1, int(0.02 / max(timer.timeit(number=10) / 10, 1e-9)))
    times = [t / number for t in timer.repeat(repeat=5, number=number)]
    return val, min(times) * 1e6, statistics.median(times) * 1e6


def _measure(tool: str, name: str, prep: dict, extras: bool, report=None) -> dict:
    model = S.build(name)
    Y, L, fs = S.jetgeo_inputs(model)
    out: dict = {"tool": tool}
    t0 = time.perf_counter()
    if tool == "jetgeo":
        deps = [Y.qdot[i] for i in prep["dependent"]]
        cs, acc = S.jetgeo_derive(Y, L, fs, dependent=deps if prep.get("given") else None)
        out["derive"] = time.perf_counter() - t0
        out["dependent"] = [str(d) for d in cs.dependent]
        if list(cs.dependent) != deps:  # pragma: no cover - the choice is deterministic
            out["warning"] = "dependent velocities differ from the prepared choice"
        exprs = [acc[a] for a in Y.qddot]
    elif tool == "jetgeo_tq":
        from jetgeo import ConstraintSubmanifold, LagrangianSystem
        from jetgeo.mechanics import accelerations_on_TQ

        deps = [Y.qdot[i] for i in prep["dependent"]]
        acc = accelerations_on_TQ(LagrangianSystem(Y, L), ConstraintSubmanifold(Y, fs), dependent=deps)
        out["derive"] = time.perf_counter() - t0
        exprs = [acc[a] for a in Y.qddot]
    elif tool == "kane":
        km, u, sol, t_eq = S.kane_derive(model, prep["dependent"])
        out["derive"] = time.perf_counter() - t0
        out["eq"] = t_eq
        if report is not None:  # before the (untimed) translation of the nested result to jet symbols
            report(dict(out))
        order = [u.index(v) for v in S._speeds(model)]
        exprs = [S.kane_to_jet(sol[i], model, Y) for i in order] if extras else []
    else:
        lm, qdd, lam, t_eq = S.lagrange_derive(model)
        out["derive"] = time.perf_counter() - t0
        out["eq"] = t_eq
        if report is not None:
            report(dict(out))
        _, rep = S.jet_symbols(model)
        exprs = [S.to_jet(e, rep) for e in qdd]
    if report is not None:  # the derive time reaches the parent even if the extras time out
        report(dict(out))
    if extras:
        t1 = time.perf_counter()
        out["ops"] = int(sum(sp.count_ops(e) for e in exprs))
        out["ops_time"] = time.perf_counter() - t1
        params = sorted(model.params, key=sp.default_sort_key)
        args = [*Y.q, *Y.qdot, *params]
        pt = {str(k): v for k, v in prep["point"].items()}
        values = [pt[str(a)] for a in args]
        t1 = time.perf_counter()
        val, best, med = _rhs_timing(exprs, args, values)
        out["lambdify_time"] = time.perf_counter() - t1
        out["values"] = val
        out["rhs_us"] = med
        out["rhs_us_best"] = best
    return out


def _nonlinear_report(name: str) -> dict:
    """What each tool says about a nonlinear constraint besides the accelerations (not timed as derive).

    jetgeo: the classification of Q, the singular states (rank ∂f/∂q̇ drops), the division made
    by the normal form (its condition and branches), Theorem 2's compatibility ([Ibort et al. 1996]: det M,
    singular locus), the Chetaev multipliers and reaction forces.  LagrangesMethod: its multipliers;
    it has no notion of singular states or compatibility.  KanesMethod: the exception it raises.
    """
    model = S.build(name)
    Y, L, fs = S.jetgeo_inputs(model)
    t0 = time.perf_counter()
    system = jetgeo.LagrangianSystem(Y, L)
    Q = jetgeo.ConstraintSubmanifold(Y, fs)
    nf = Q.normal_form()
    comp = jetgeo.NonholonomicProblem(system, Q).compatibility()
    cs = system.constrain(Q)
    rep = {
        "classification": str(Q.classify()),
        "singular_states (rank ∂f/∂q̇ < k where all vanish)": [str(e) for e in Q.singular_states()],
        "normal_form": str(nf),
        "normal_form_condition (≠ 0 required)": str(nf.condition),
        "branches": len(Q.branches()),
        "compatible [Ibort et al. 1996, Theorem 2]": bool(comp.compatible),
        "det M [Ibort et al. 1996, eq. (4.17)]": str(comp.determinant),
        "compatibility singular locus": [str(e) for e in comp.singular_locus],
        "regularity singular locus [Stolařová 2009, eq. (12)]": [str(e) for e in cs.singular_locus()],
        "chetaev_multipliers": [str(e) for e in cs.multipliers()],
        "reaction_forces": [str(e) for e in cs.reaction_forces()],
    }
    out = {"jetgeo": rep, "jetgeo_seconds": time.perf_counter() - t0}
    lm, qdd, lam, _ = S.lagrange_derive(model)
    out["lagrange"] = {"multipliers": [str(e) for e in lam],
                       "singular_states / compatibility": "not computed (no such notion in LagrangesMethod)"}
    try:
        S.kane_derive(model, [Y.qdot.index(d) for d in nf.dependent], explicit=False)
        out["kane"] = "accepted"
    except Exception as exc:  # noqa: BLE001 - the rejection is the result
        out["kane"] = f"{type(exc).__name__}: {str(exc)[:200]}"
    return out


def _child(conn, fn, args, partial: bool = False) -> None:
    try:
        if partial:
            args = (*args, lambda d: conn.send(("partial", d)))
        conn.send(("ok", fn(*args)))
    except BaseException as exc:  # noqa: BLE001 - reported to the parent
        conn.send(("error", {"error": type(exc).__name__, "message": str(exc)[:300],
                             "trace": traceback.format_exc()[-800:]}))
    finally:
        conn.close()


def run_in_child(fn, args, timeout: float, partial: bool = False):
    """Run fn(*args) in a forked child; ("ok", result) | ("error", info) | ("timeout", info).

    With ``partial=True`` fn gets a last argument ``report(dict)``; on a timeout the last
    reported dict is returned as ``info["partial"]``.
    """
    ctx = mp.get_context("fork")
    parent_conn, child_conn = ctx.Pipe(duplex=False)
    p = ctx.Process(target=_child, args=(child_conn, fn, args, partial))
    t0 = time.perf_counter()
    p.start()
    child_conn.close()
    last = None
    while parent_conn.poll(max(0.0, timeout - (time.perf_counter() - t0))):
        try:
            status, payload = parent_conn.recv()
        except EOFError:
            status, payload = "error", {"error": "EOFError", "message": "child died"}
        if status == "partial":
            last = payload
            continue
        p.join(10)
        return status, payload
    p.terminate()
    p.join(5)
    if p.is_alive():  # pragma: no cover
        p.kill()
        p.join()
    return "timeout", {"seconds": time.perf_counter() - t0, "partial": last}


def warm_up() -> None:
    """Import everything the tools import lazily (networkx → scipy.optimize, lambdify's printers),
    by one tiny derivation per tool in the parent, then empty sympy's cache and jetgeo's memo tables
    so that the forked children start warm but with nothing computed."""
    m = S.build("vertical_disc")
    Y, L, fs = S.jetgeo_inputs(m)
    cs, acc = S.jetgeo_derive(Y, L, fs)
    dep = [Y.qdot.index(d) for d in cs.dependent]
    S.kane_derive(m, dep)
    S.lagrange_derive(m)
    sp.lambdify([*Y.q, *Y.qdot, *m.params], list(acc.values()), modules="math", cse=True)
    clear_caches()


def clear_caches() -> None:
    """Empty sympy's cache and every functools cache in jetgeo's modules."""
    from sympy.core.cache import clear_cache

    clear_cache()
    for mod_name, mod in list(sys.modules.items()):
        if not mod_name.startswith("jetgeo") or mod is None:
            continue
        for obj in list(vars(mod).values()):
            clear = getattr(obj, "cache_clear", None)
            if callable(clear):
                clear()


# --- the run ------------------------------------------------------------------------------------------------


def bench_case(name: str, reps: int, timeout: float, skip: set, slow: float, log, dependent: str = "jetgeo",
               extras: bool = True) -> dict:
    status, prep = run_in_child(_prepare, (name, dependent), timeout)
    if status != "ok":
        return {"name": name, "error": f"prepare: {status} {prep}"}
    case: dict = {"name": name, "dependent": prep["dependent"], "tools": {t: {"runs": []} for t in TOOLS}}
    for rep in range(reps):
        order = TOOLS if rep % 2 == 0 else tuple(reversed(TOOLS))
        for tool in order:
            rec = case["tools"][tool]
            if tool in skip or rec.get("status") in ("timeout", "error", "rejected"):
                if tool in skip and "status" not in rec:
                    rec["status"] = "skipped"
                continue
            if rep > 0 and rec["runs"] and rec["runs"][0]["derive"] > slow:
                continue  # slow case: one repetition is enough
            status, res = run_in_child(_measure, (tool, name, prep, extras and rep == 0), timeout, partial=True)
            if status == "ok":
                rec["runs"].append(res)
                rec["status"] = "ok"
            elif status == "timeout" and res.get("partial"):  # derived in time; ops/lambdify did not finish
                rec["runs"].append({**res["partial"], "extras": "timeout"})
                rec["status"] = "ok"
                rec["extras"] = "timeout"
                status, res = "ok", res["partial"]
            elif status == "timeout":
                rec["status"] = "timeout"
                rec["timeout"] = timeout
            else:
                rejected = res.get("error") in ("NonlinearError",)
                rec["status"] = "rejected" if rejected else "error"
                rec["error"] = res
            log(f"  {name:18s} rep {rep} {tool:8s} {rec['status']:8s} "
                + (f"{res['derive']:.3f} s" if status == "ok" else str(res.get('error', '')) if res else ""))
    for _tool, rec in case["tools"].items():
        runs = rec["runs"]
        if not runs:
            continue
        rec["derive"] = statistics.median(r["derive"] for r in runs)
        rec["derive_all"] = [r["derive"] for r in runs]
        if "eq" in runs[0]:
            rec["eq"] = statistics.median(r["eq"] for r in runs)
        for k in ("ops", "rhs_us", "rhs_us_best", "values", "lambdify_time", "dependent"):
            if k in runs[0]:
                rec[k] = runs[0][k]
    ref = case["tools"]["jetgeo"].get("values")
    for tool in ("jetgeo_tq", "kane", "lagrange"):
        other = case["tools"][tool].get("values")
        if ref is not None and other is not None:
            case["tools"][tool]["max_abs_diff"] = max(abs(a - b) for a, b in zip(ref, other))
    return case


def growth_exponents(cases: list) -> dict:
    """p in derive ∝ n^p for each tool on the n-trailer (least squares in log–log, n ≥ 2)."""
    out = {}
    for tool in TOOLS:
        pts = []
        for c in cases:
            if not c["name"].startswith("n_trailer_"):
                continue
            n = int(c["name"].rsplit("_", 1)[1])
            rec = c.get("tools", {}).get(tool, {})
            if n >= 2 and rec.get("status") == "ok" and rec.get("derive"):
                pts.append((math.log(n), math.log(rec["derive"])))
        if len(pts) >= 2:
            mx = sum(p[0] for p in pts) / len(pts)
            my = sum(p[1] for p in pts) / len(pts)
            sxx = sum((p[0] - mx) ** 2 for p in pts)
            sxy = sum((p[0] - mx) * (p[1] - my) for p in pts)
            slope = sxy / sxx
            last = (pts[-1][1] - pts[-2][1]) / (pts[-1][0] - pts[-2][0])
            out[tool] = {"exponent": slope, "last_pair_slope": last, "n": [round(math.exp(p[0])) for p in pts]}
        else:
            out[tool] = {"exponent": None, "n": [round(math.exp(p[0])) for p in pts]}
    return out


def _fmt_t(rec: dict) -> str:
    st = rec.get("status")
    if st == "ok":
        return f"{rec['derive']:.3g}"
    return {"timeout": "timeout", "rejected": "rejected", "skipped": "—", "error": "error"}.get(st, "—")


def _ratio(a: dict, b: dict, key: str) -> str:
    if a.get("status") == "ok" and b.get("status") == "ok" and a.get(key) and b.get(key):
        return f"{a[key] / b[key]:.2f}"
    if a.get("status") == "ok" and b.get("status") == "timeout" and key == "derive":
        return f"<{a['derive'] / b['timeout']:.2f}"
    if a.get("status") == "timeout" and b.get("status") == "ok" and key == "derive" and b.get("derive"):
        return f">{a['timeout'] / b['derive']:.2f}"
    return "—"


def ratio_table(cases: list) -> str:
    """Ratios jetgeo / peer (< 1: jetgeo is faster / smaller), from medians of the same run."""
    lines = ["| system | derive jg/Kane | derive jg-TQ/Kane | derive jg/Lagrange | ops jg/Kane | ops jg-TQ/Kane "
             "| ops jg/Lagrange | rhs jg/Kane | rhs jg/Lagrange |", "|" + "---|" * 9]
    for c in cases:
        if "tools" not in c:
            lines.append(f"| {c['name']} | {c.get('error')} |" + " |" * 7)
            continue
        j, jt, k, la = (c["tools"].get(t, {}) for t in TOOLS)

        def r(peer, key, j=j):
            if peer.get("status") in ("rejected", "timeout", "error", "skipped") and key != "derive":
                return peer["status"]
            if peer.get("status") == "rejected":
                return "rejected"
            return _ratio(j, peer, key)

        def rt(key, jt=jt, k=k):
            return _ratio(jt, k, key) if k.get("status") == "ok" else (k.get("status") or "—")

        lines.append(f"| {c['name']} | {r(k, 'derive')} | {rt('derive')} | {r(la, 'derive')} | {r(k, 'ops')} "
                     f"| {rt('ops')} | {r(la, 'ops')} | {r(k, 'rhs_us')} | {r(la, 'rhs_us')} |")
    return "\n".join(lines)


def table(cases: list) -> str:
    head = ("| system | jetgeo s | jetgeo-TQ s | Kane s (eq) | Lagrange s (eq) | jg/Kane | jg/Lag "
            "| ops jg / jg-TQ / Kane / Lag | rhs µs jg / Kane / Lag | rhs jg/Kane | agree (max |Δq̈|) TQ / Kane / Lag |")
    lines = [head, "|" + "---|" * 11]
    for c in cases:
        if "tools" not in c:
            lines.append(f"| {c['name']} | {c.get('error')} |" + " |" * 9)
            continue
        j, jt, k, la = (c["tools"].get(t, {}) for t in TOOLS)

        def eq(r):
            return f" ({r['eq']:.3g})" if r.get("status") == "ok" and "eq" in r else ""

        ops = " / ".join(str(r.get("ops", "—")) for r in (j, jt, k, la))
        rhs = " / ".join(f"{r['rhs_us']:.1f}" if "rhs_us" in r else "—" for r in (j, k, la))
        agree = " / ".join(f"{r['max_abs_diff']:.1e}" if "max_abs_diff" in r else "—" for r in (jt, k, la))
        lines.append(
            f"| {c['name']} | {_fmt_t(j)} | {_fmt_t(jt)} | {_fmt_t(k)}{eq(k)} | {_fmt_t(la)}{eq(la)} "
            f"| {_ratio(j, k, 'derive')} "
            f"| {_ratio(j, la, 'derive')} | {ops} | {rhs} | {_ratio(j, k, 'rhs_us')} | {agree} |"
        )
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="small set: n-trailer n ≤ 6 (default)")
    mode.add_argument("--full", action="store_true", help="all systems, n-trailer n = 1..12")
    ap.add_argument("--systems", nargs="*", help="explicit list of systems (names in systems.SYSTEMS)")
    ap.add_argument("--reps", type=int, default=3, help="repetitions (median); default 3")
    ap.add_argument("--timeout", type=float, default=None, help="seconds per child (default 60 quick, 900 full)")
    ap.add_argument("--slow", type=float, default=20.0, help="runs slower than this are not repeated")
    ap.add_argument("--skip", nargs="*", default=[], choices=TOOLS, help="tools to leave out")
    ap.add_argument("--no-extras", action="store_true",
                    help="derive times only (no count_ops / RHS timing: both walk expression trees, which for "
                         "the nested results of long chains takes longer than the derivation)")
    ap.add_argument("--dependent", choices=("jetgeo", "natural"), default="jetgeo",
                    help="dependent velocities: jetgeo's own choice (default) or the model's hand choice "
                         "(n-trailer: ẏ, θ̇_2..θ̇_n), given to every tool")
    ap.add_argument("--output", default=str(RESULTS / "latest.json"))
    opts = ap.parse_args(argv)
    prov = provenance("python -m benchmarks.run " + shlex.join(sys.argv[1:] if argv is None else argv))

    names = opts.systems or (FULL if opts.full else QUICK)
    timeout = opts.timeout or (900.0 if opts.full else 60.0)
    log = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731
    started = time.time()
    load_start = os.getloadavg()
    warm_up()
    cases = []
    skip = set(opts.skip)
    stopped: set = set()  # tools that timed out on a smaller n-trailer
    for name in names:
        case = bench_case(name, opts.reps, timeout, skip | (stopped if name.startswith("n_trailer_") else set()),
                          opts.slow, log, opts.dependent, extras=not opts.no_extras)
        cases.append(case)
        if name.startswith("n_trailer_"):
            for tool in TOOLS:
                if case.get("tools", {}).get(tool, {}).get("status") == "timeout":
                    stopped.add(tool)
    result = {
        "meta": {
            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
            "wall_seconds": time.time() - started,
            "python": platform.python_version(),
            "sympy": sp.__version__,
            "machine": platform.machine(),
            "cpus": os.cpu_count(),
            "loadavg_start_end": [load_start, os.getloadavg()],
            "reps": opts.reps,
            "dependent": opts.dependent,
            "timeout": timeout,
            "note": "shared machine: read the ratios, measured in the same run; absolute times drift",
            "provenance": prov,
        },
        "cases": cases,
        "growth_exponents": growth_exponents(cases),
    }
    reports = {}
    for name in names:
        if not S.build(name).linear:
            status, rep = run_in_child(_nonlinear_report, (name,), timeout)
            reports[name] = rep if status == "ok" else {"status": status, "info": rep}
    result["nonlinear_reports"] = reports
    for c in cases:  # the traces are long; keep the first line of errors only
        for rec in c.get("tools", {}).values():
            if isinstance(rec.get("error"), dict):
                rec["error"].pop("trace", None)
    out = Path(opts.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1, default=str))
    print("\n".join(provenance_lines(prefix="# ", fields=prov)) + "\n")
    print("Ratios jetgeo / peer (medians of the same run; < 1 means jetgeo is faster or smaller)\n")
    print(ratio_table(cases))
    print("\nAbsolute figures (seconds, count_ops, µs per RHS call)\n")
    print(table(cases))
    ge = result["growth_exponents"]
    print("\nn-trailer growth exponent p (derive ∝ n^p, n ≥ 2): "
          + ", ".join(f"{t}: {v['exponent']:.2f} (last pair {v['last_pair_slope']:.2f}, n={v['n']})"
                      if v.get("exponent") is not None else f"{t}: —" for t, v in ge.items()))
    for name, rep in reports.items():
        print(f"\n{name}: what each tool reports beyond the accelerations")
        print(f"  KanesMethod: {rep.get('kane')}")
        print(f"  LagrangesMethod: {rep.get('lagrange')}")
        for k, v in rep.get("jetgeo", {}).items():
            print(f"  jetgeo {k}: {v}")
    print(f"\nwritten {out}  ({result['meta']['wall_seconds']:.0f} s, load {os.getloadavg()})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
