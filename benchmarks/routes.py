r"""Route × system timing table: every public route of jetgeo on every catalogue system (issue 14).

    PYTHONPATH=. python -m benchmarks.routes                        # everything, 60 s per cell
    PYTHONPATH=. python -m benchmarks.routes --timeout 40 --out benchmarks/results/routes.txt
    PYTHONPATH=. python -m benchmarks.routes --systems skate n_trailer_4 --routes acc TQ Kane

Method
------
* Every cell runs in a **fresh forked child** of one parent that has imported sympy,
  ``sympy.physics.mechanics`` and jetgeo, done one tiny derivation per tool and emptied the
  caches (:func:`benchmarks.run.warm_up`), so no cell profits from an earlier one.
* In the child the row's objects are built first, **untimed** (``jetgeo.systems.load``; for a
  route on ``cs`` or ``P`` also ``cs = sys.constrain(Q)`` / ``P = NonholonomicProblem(sys, Q)``;
  for ``equiv`` the recipe result it compares with; for Kane/Lagrange the
  ``benchmarks.systems`` model).  Then the route alone is timed (``time.perf_counter``).  The
  wall-clock timeout (``--timeout``) starts when the set-up is done; the set-up has its own
  timeout of the same length.
* A cell is the route's time in seconds (3 significant digits), ``> T s`` when it did not finish
  in T seconds, the exception class when it raised (``NotApplicable`` for
  :class:`jetgeo.errors.NotApplicableError`, the ``Error`` suffix of jetgeo's exceptions dropped),
  ``setup …`` when the untimed preparation failed or timed out, ``n/a`` when the route does not
  apply (no ψ/z for Benenti's first kind; KanesMethod on non-linear constraints;
  LagrangesMethod with bare generalised forces), ``—`` when benchmarks/systems.py has no
  sympy.physics.mechanics model of the system, ``(> T s)`` when the route was not run because it
  timed out on a smaller member of the n-trailer family (``--no-skip`` runs it anyway).
* Routes (all public API):

  ============  =====================================================================
  constrain     ``sys.constrain(Q)``
  acc           ``cs.accelerations()``
  reduced       ``cs.reduced_equations()``
  mult          ``cs.multipliers()``
  TQ            ``jetgeo.mechanics.accelerations_on_TQ(sys, Q)``
  compat        ``NonholonomicProblem(sys, Q).compatibility()``
  integr        ``NonholonomicProblem(sys, Q).integrability()``
  solve         ``NonholonomicProblem(sys, Q).solve()``
  <recipe>      every ``jetgeo.recipes.RECIPES[name](sys, Q)``, the column named as the recipe;
                ``benenti_first_kind``: ``jetgeo.recipes.benenti_first_kind(sys, psi, z)`` (entries with ψ, z)
  equiv         ``jetgeo.recipes.equivalent(cs, lagrange_multipliers(sys, Q))`` (the
                recipe result is set-up; Gibbs–Appell where the multipliers recipe raises)
  linearise     ``jetgeo.numerics.linearise(cs, entry.initial, entry.params)`` about the
                entry's sample state (Whipple: upright straight ahead at 4 m/s, independent
                φ̇, δ̇, θ̇_R, as its tests call it)
  simulate      ``jetgeo.numerics.simulate(cs, (0, 0.01), entry.initial, entry.params)``
                (compile + one short integration)
  Kane          ``KanesMethod`` + ``kanes_equations`` + ``LUsolve`` of (mass matrix, forcing)
                (:func:`benchmarks.systems.kane_derive`; Whipple:
                :func:`benchmarks.whipple_kane.derive` + the same solve)
  Lagrange      ``LagrangesMethod`` with ``nonhol_coneqs`` + ``LUsolve`` of the augmented
                system (:func:`benchmarks.systems.lagrange_derive`)
  ============  =====================================================================

* **Rigid bodies stated in quasi-velocities** (catalogue entries with ``entry.quasi``: suslov,
  veselova, routh_sphere, ball_on_turntable): ``acc``, ``mult``, ``simulate`` use the native quasi form
  (``entry.quasi.accelerations()``, ``.multipliers()``, ``simulate(entry.quasi, …)``: Hamel's equations
  in the body-frame Ω), ``equiv`` compares that quasi route with ``lagrange_multipliers(sys, Q)``,
  ``linearise`` takes ``entry.quasi`` (its coordinate pair); every other route runs on the coordinate
  form ``entry.system``, ``entry.Q`` (L = ℓ(Φ q̇), f = φ(Φ q̇)).
* Rows: every catalogue system (``jetgeo.systems.names(heavy=True)``; ``n_trailer`` at its
  default n = 1), the n-trailer at n = 4, 6, 8, and the non-linear forms of the rolling
  constraints of Ghori's heavy disc [Ghori 1960, §3.3] and of his two wheels with an axle
  [Ghori 1960, §3.2] (catalogue option ``form="nonlinear"``, one branch chosen through
  ``ConstraintSubmanifold(..., branch=...)``; ``tests/benchmarks/test_routes.py`` checks that each
  has the accelerations of the linear form on that branch).
* **Same-bodies rows** ``n_trailer_bodies_n`` (n = 4, 6, 8, 10; issue 28): jetgeo gets exactly what
  KanesMethod gets — the n-trailer's ``sympy.physics.mechanics`` frames, points and rigid bodies
  (:mod:`benchmarks.same_bodies`).  Only ``TQ``, ``acc`` and ``Kane`` apply (``n/a`` elsewhere), and
  here **nothing is set-up**: each cell times what a user waits for — building the bodies,
  ``from_mechanics`` (kinetic energy, velocity check, translation to jet coordinates) and the route
  for jetgeo; building the bodies, ``KanesMethod``, ``kanes_equations`` and the ``LUsolve`` for Kane
  (the libraries — ``sympy.physics.mechanics``, jetgeo's modules — are imported before, for both).
  Two more rows of the kind (same columns, same rules): ``rolling_disc_bodies``, the heavy rolling
  disc's frame and rigid body (gravity a load, the no-slip components velocity constraints) to both
  tools, and ``whipple_bicycle_user``, the Whipple bicycle as each tool's user gets it — KanesMethod
  on the ``sympy.physics.mechanics`` bicycle of benchmarks/whipple_kane.py (model, equations,
  ``LUsolve``), jetgeo from ``load("whipple_bicycle")`` through ``constrain`` to
  ``cs.accelerations()`` (acc) or to ``accelerations_on_TQ`` (TQ), all in one timed cell.
  Each cell is the **median of 3** runs (each in its own fresh child), the three columns
  alternating (Kane, TQ, acc; Kane, TQ, acc; …) so that a change of load hits all alike; a cell
  that times out is not repeated.
* The Kane/Lagrange models are those of benchmarks/systems.py: skate ↔ ``chaplygin_sleigh``
  (its centre of mass is offset by a from the knife edge: a slightly larger problem),
  vertical_disc ↔ ``vertical_disc``, rolling_disc ↔ ``heavy_disc``, benenti_problem ↔
  ``parallel_points``, n_trailer n ↔ ``n_trailer_{n+1}`` (n + 1 bodies, the same coordinates and
  constraints; the hand choice ẏ, θ̇_2.. of dependent velocities, as the catalogue's), the Whipple
  bicycle ↔ benchmarks/whipple_kane.py.

The machine may be shared: the header (benchmarks/provenance.py) records nproc, CPU and the
load average; read the ratios of one run rather than absolute times.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import shlex
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import jetgeo
from benchmarks import run as R
from benchmarks import systems as S
from benchmarks.provenance import provenance_lines

__all__ = ["ROUTES", "ROWS", "row_entry", "run_table", "format_table", "main"]

ROOT = Path(__file__).resolve().parents[1]

# --- rows -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    """A row: the catalogue entry ``name`` loaded with ``options``; ``kane``/``lagrange`` the
    benchmarks/systems.py model (None: no model), or "n/a" where the peer cannot take it."""

    label: str
    name: str
    options: tuple = ()
    kane: str | None = None
    lagrange: str | None = None
    family: str | None = None  # n-trailer: a route that timed out for a smaller n is skipped
    size: int = 0
    bodies: int = 0  # n > 0: the same-bodies n-trailer of benchmarks/same_bodies.py (module docstring)
    same: str = ""  # a same-bodies row: the model of benchmarks.same_bodies.timed_cell


_PEERS = {  # catalogue name -> (Kane model, Lagrange model)
    "skate": ("chaplygin_sleigh", "chaplygin_sleigh"),
    "vertical_disc": ("vertical_disc", "vertical_disc"),
    "rolling_disc": ("heavy_disc", "heavy_disc"),
    "benenti_problem": ("parallel_points", "parallel_points"),
    "parallel_velocities": ("n/a", "n/a"),  # nonlinear (Kane); bare generalised forces A₁..A₄ (Lagrange)
    "n_trailer": ("n_trailer_2", "n_trailer_2"),
    "whipple_bicycle": ("whipple", None),
}


def _rows() -> list:
    from jetgeo import systems

    rows = []
    for name in systems.names(heavy=True):
        if name == "whipple_bicycle":
            continue
        k, la = _PEERS.get(name, (None, None))
        rows.append(Row(name, name, (), k, la, "n_trailer" if name == "n_trailer" else None,
                        1 if name == "n_trailer" else 0))
    rows.append(Row("rolling_disc_nl", "rolling_disc", (("form", "nonlinear"),), "n/a", None))
    rows.append(Row("two_wheels_axle_nl", "two_wheels_axle", (("form", "nonlinear"),), "n/a", None))
    for n in (4, 6, 8):
        rows.append(Row(f"n_trailer_{n}", "n_trailer", (("n", n),), f"n_trailer_{n + 1}", f"n_trailer_{n + 1}",
                        "n_trailer", n))
    k, la = _PEERS["whipple_bicycle"]
    rows.append(Row("whipple_bicycle", "whipple_bicycle", (), k, la))
    for n in BODIES_N:
        rows.append(Row(f"n_trailer_bodies_{n}", "n_trailer", (("n", n),), "bodies", None, "n_trailer_bodies", n, n,
                        f"n_trailer_{n}"))
    rows.append(Row("rolling_disc_bodies", "rolling_disc", (), "bodies", None, same="rolling_disc"))
    rows.append(Row("whipple_bicycle_user", "whipple_bicycle", (), "bodies", None, same="whipple_bicycle"))
    return rows


BODIES_N = (4, 6, 8, 10)  # the same-bodies rows
BODIES_ROUTES = ("Kane", "TQ", "acc")  # their columns, in the order they alternate
BODIES_REPEATS = 3


ROWS: list = _rows()
_BY_LABEL = {r.label: r for r in ROWS}


def row_entry(label: str):
    """The catalogue entry of the row ``label`` (``jetgeo.systems.load(name, **options)``); None for
    a same-bodies row (its cells build their own input)."""
    from jetgeo import systems

    r = _BY_LABEL[label]
    if r.same:
        return None
    return systems.load(r.name, **dict(r.options))


# --- routes ---------------------------------------------------------------------------------------
# Each route is set_up(row, entry) -> a zero-argument callable, the timed part.  set_up raises
# _NotApplicable (printed "n/a") or _NoModel (printed "—") when the route does not apply.


class _NotApplicable(Exception):
    pass


class _NoModel(Exception):
    pass


def _cs(entry):
    return entry.system.constrain(entry.Q)


def _problem(entry):
    return jetgeo.NonholonomicProblem(entry.system, entry.Q)


def _linearise_fn():
    """The public ``linearise`` (exported from jetgeo.numerics; the function, not its module)."""
    import types

    import jetgeo.numerics as N

    fn = getattr(N, "linearise", None)
    if isinstance(fn, types.ModuleType):  # the submodule jetgeo.numerics.linearise
        fn = fn.linearise
    return fn


def _setup_linearise(row, entry):
    lin = _linearise_fn()
    if entry.quasi is not None:  # linearise takes the quasi form (as its coordinate pair)
        return lambda: lin(entry.quasi, entry.initial, params=entry.params)
    if row.name == "whipple_bicycle":
        Y = entry.Y
        keep = (*Y.q, Y.qdot[3], Y.qdot[5], Y.qdot[6])  # independent φ̇, δ̇, θ̇_R (tests/systems/test_whipple.py)
        point = {k: v for k, v in entry.initial.items() if k in keep}
        return lambda: lin((entry.system, entry.Q), point, params=entry.params,
                           independent=[Y.qdot[3], Y.qdot[5], Y.qdot[6]])
    cs = _cs(entry)
    return lambda: lin(cs, entry.initial, params=entry.params)


def _setup_simulate(row, entry):
    from jetgeo.numerics import simulate

    if entry.quasi is not None:  # Hamel's equations, the native form
        return lambda: simulate(entry.quasi, (0, 0.01), entry.initial, entry.params)
    cs = _cs(entry)
    return lambda: simulate(cs, (0, 0.01), entry.initial, entry.params)


def _setup_equiv(row, entry):
    from jetgeo.errors import JetgeoError
    from jetgeo.recipes import equivalent, gibbs_appell, lagrange_multipliers

    cs = _cs(entry) if entry.quasi is None else entry.quasi  # the quasi route against the coordinate one
    try:
        other = lagrange_multipliers(entry.system, entry.Q)
    except JetgeoError:
        other = gibbs_appell(entry.system, entry.Q)
    return lambda: equivalent(cs, other)


def _setup_benenti1(row, entry):
    from jetgeo.recipes import benenti_first_kind

    if entry.psi is None:
        raise _NotApplicable("no parametrisation psi, z")
    return lambda: benenti_first_kind(entry.system, entry.psi, entry.z)


def _recipe(name):
    def set_up(row, entry):
        from jetgeo.recipes import RECIPES

        fn = RECIPES[name]
        return lambda: fn(entry.system, entry.Q)

    return set_up


def _peer_model(row, which):
    name = row.kane if which == "kane" else row.lagrange
    if name is None:
        raise _NoModel(f"no {which} model of {row.label} in benchmarks/systems.py")
    if name == "n/a":
        raise _NotApplicable(which)
    return name


def _setup_kane(row, entry):
    name = _peer_model(row, "kane")
    if name == "whipple":
        from benchmarks import whipple_kane as W

        m = W.model()

        def derive():
            km, _, _ = W.derive(m)
            return km.mass_matrix.LUsolve(km.forcing)

        return derive
    model = S.build(name)
    if model.extra.get("natural_dependent"):
        dep = list(model.extra["natural_dependent"])
    else:  # jetgeo's own choice of dependent velocities (as benchmarks/run.py does)
        Y, _, fs = S.jetgeo_inputs(model)
        dep = [Y.qdot.index(d) for d in jetgeo.ConstraintSubmanifold(Y, fs).dependent]
    return lambda: S.kane_derive(model, dep)


def _setup_lagrange(row, entry):
    model = S.build(_peer_model(row, "lagrange"))
    return lambda: S.lagrange_derive(model)


def _routes() -> dict:
    from jetgeo.recipes import RECIPES

    out: dict[str, Callable] = {
        "constrain": lambda row, e: (lambda: e.system.constrain(e.Q)),
        "acc": lambda row, e: _cs(e).accelerations if e.quasi is None else e.quasi.accelerations,
        "reduced": lambda row, e: _cs(e).reduced_equations,
        "mult": lambda row, e: _cs(e).multipliers if e.quasi is None else e.quasi.multipliers,
        "TQ": lambda row, e: (lambda: _tq()(e.system, e.Q)),
        "compat": lambda row, e: _problem(e).compatibility,
        "integr": lambda row, e: _problem(e).integrability,
        "solve": lambda row, e: _problem(e).solve,
    }
    for name in RECIPES:
        out[name] = _recipe(name)
    out.update({
        "benenti_first_kind": _setup_benenti1,
        "equiv": _setup_equiv,
        "linearise": _setup_linearise,
        "simulate": _setup_simulate,
        "Kane": _setup_kane,
        "Lagrange": _setup_lagrange,
    })
    return out


def _tq():
    from jetgeo.mechanics import accelerations_on_TQ

    return accelerations_on_TQ


ROUTES: dict = _routes()
NEEDS_ENTRY = {r for r in ROUTES if r not in ("Kane", "Lagrange")}


# --- one cell in a fresh child ---------------------------------------------------------------------


def _exc_name(exc: BaseException) -> str:
    name = type(exc).__name__
    if type(exc).__module__.startswith("jetgeo") and name.endswith("Error") and name != "Error":
        name = name[: -len("Error")]
    return name


def _setup_bodies(row, route: str):
    """The timed callable of a same-bodies cell: everything from the bodies on (module docstring)."""
    from benchmarks import same_bodies as SB

    if route in BODIES_ROUTES:
        return SB.timed_cell(row.same, route)
    raise _NotApplicable(f"same-bodies row: only {', '.join(BODIES_ROUTES)}")


def _child(conn, label: str, route: str) -> None:
    row = _BY_LABEL[label]
    try:
        t0 = time.perf_counter()
        if row.same:
            fn = _setup_bodies(row, route)
        else:
            entry = row_entry(label) if route in NEEDS_ENTRY or row.kane == "whipple" else None
            fn = ROUTES[route](row, entry)
        conn.send(("ready", time.perf_counter() - t0))
    except _NotApplicable as exc:
        conn.send(("n/a", str(exc)))
        return
    except _NoModel as exc:
        conn.send(("nomodel", str(exc)))
        return
    except BaseException as exc:  # noqa: BLE001 - reported to the parent as the cell's text
        conn.send(("setup-error", (_exc_name(exc), str(exc).splitlines()[0][:160] if str(exc) else "")))
        return
    try:
        t0 = time.perf_counter()
        fn()
        conn.send(("ok", time.perf_counter() - t0))
    except BaseException as exc:  # noqa: BLE001 - reported to the parent as the cell's text
        conn.send(("error", (_exc_name(exc), str(exc).splitlines()[0][:160] if str(exc) else "")))
    finally:
        conn.close()


def _kill(p) -> None:
    p.terminate()
    p.join(5)
    if p.is_alive():  # pragma: no cover
        p.kill()
        p.join()


def run_cell(label: str, route: str, timeout: float) -> dict:
    """Run one cell in a forked child: {"status": ok|timeout|error|setup-error|setup-timeout|n/a|nomodel, ...}."""
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    p = ctx.Process(target=_child, args=(child, label, route))
    p.start()
    child.close()
    try:
        if not parent.poll(timeout):
            _kill(p)
            return {"status": "setup-timeout"}
        status, payload = parent.recv()
        if status != "ready":
            p.join(10)
            return {"status": status, "info": payload}
        setup = payload
        if not parent.poll(timeout):
            _kill(p)
            return {"status": "timeout", "setup": setup}
        status, payload = parent.recv()
        p.join(10)
        if status == "ok":
            return {"status": "ok", "seconds": payload, "setup": setup}
        return {"status": status, "info": payload, "setup": setup}
    except EOFError:
        _kill(p)
        return {"status": "error", "info": ("ChildDied", f"exit code {p.exitcode}")}


# --- the table ------------------------------------------------------------------------------------


def cell_text(res: dict, timeout: float) -> str:
    st = res["status"]
    t = f"{timeout:g}"
    if st == "ok":
        return f"{res['seconds']:.3g}"
    if st == "timeout":
        return f"> {t} s"
    if st == "skipped":
        return f"(> {t} s)"
    if st == "setup-timeout":
        return f"setup > {t} s"
    if st == "error":
        return res["info"][0]
    if st == "setup-error":
        return "setup " + res["info"][0]
    if st == "n/a":
        return "n/a"
    return "—"


def header(timeout: float, provenance: list) -> list:
    return [
        "jetgeo route × system timings (seconds; benchmarks/routes.py)",
        *provenance,
        f"timeout per cell: {timeout:g} s",
        "each cell: a fresh forked child; set-up untimed (see the module docstring); "
        f"'> {timeout:g} s' timed out, 'Name' raised Name(Error), 'setup …' the untimed set-up failed, "
        f"'n/a' does not apply, '—' no sympy.physics.mechanics model, '(> {timeout:g} s)' not run: "
        "timed out for a smaller n",
    ]


def format_table(results: dict, rows: list, routes: list, timeout: float) -> list:
    cols = ["system", *routes]
    body = [[r, *[cell_text(results[r][c], timeout) if c in results.get(r, {}) else "" for c in routes]]
            for r in rows]
    widths = [max(len(x[i]) for x in [cols, *body]) for i in range(len(cols))]

    def line(cells):
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    return [line(cols), line(["-" * w for w in widths]), *[line(b) for b in body]]


def footer(results: dict, timeout: float, load_end, wall: float) -> list:
    out = [""]
    if any(f"n_trailer_{n}" in results for n in (4, 6, 8)):
        out.append("n-trailer: jetgeo / KanesMethod (same run; Kane on n_trailer_{n+1} of benchmarks/systems.py)")
    for n in (4, 6, 8):
        r = results.get(f"n_trailer_{n}", {})
        k = r.get("Kane")
        parts = []
        for route in ("acc", "TQ"):
            a = r.get(route)
            if a is None or k is None:
                parts.append(f"{route}/Kane —")
            elif a["status"] == "ok" and k["status"] == "ok":
                parts.append(f"{route}/Kane {a['seconds'] / k['seconds']:.3g}")
            elif a["status"] in ("timeout", "skipped") and k["status"] == "ok":
                parts.append(f"{route}/Kane > {timeout / k['seconds']:.3g}")
            elif a["status"] == "ok" and k["status"] in ("timeout", "skipped"):
                parts.append(f"{route}/Kane < {a['seconds'] / timeout:.3g}")
            elif a["status"] == "setup-timeout":
                parts.append(f"{route}/Kane not measured (its set-up, cs = sys.constrain(Q), took > {timeout:g} s)")
            else:
                parts.append(f"{route}/Kane —")
        if r:
            out.append(f"  n = {n}: " + ", ".join(parts))
    bodies = [(r, results[r.label]) for r in ROWS if r.same and r.label in results]
    if bodies:
        out += ["", f"same bodies: jetgeo / KanesMethod (medians of {BODIES_REPEATS} alternating runs in this run; "
                "bodies, from_mechanics and the route in jetgeo's time, bodies and kanes_equations + LUsolve in "
                "Kane's)"]
        for r, cells in bodies:
            k = cells.get("Kane")
            parts = []
            for route in ("TQ", "acc"):
                a = cells.get(route)
                if a is None or k is None:
                    continue
                if a["status"] == "ok" and k["status"] == "ok":
                    parts.append(f"{route}/Kane {a['seconds'] / k['seconds']:.3g}")
                elif a["status"] in ("timeout", "skipped") and k["status"] == "ok":
                    parts.append(f"{route}/Kane > {timeout / k['seconds']:.3g}")
                elif a["status"] == "ok" and k["status"] in ("timeout", "skipped"):
                    parts.append(f"{route}/Kane < {a['seconds'] / timeout:.3g}")
                else:
                    parts.append(f"{route}/Kane —")
            if parts:
                out.append(f"  {f'n = {r.bodies}' if r.bodies else r.label}: " + ", ".join(parts))
    best = None
    for row, cells in results.items():
        for route, res in cells.items():
            if res["status"] == "ok" and (best is None or res["seconds"] > best[0]):
                best = (res["seconds"], row, route)
    if best:
        out.append(f"maximum finished cell: {best[0]:.3g} s ({best[1]} / {best[2]})")
    slow = [(row, route) for row, cells in results.items() for route, res in cells.items()
            if res["status"] in ("timeout", "setup-timeout")]
    out.append(f"timed out (> {timeout:g} s): {len(slow)} cell(s)")
    errs = [(row, route, res) for row, cells in results.items() for route, res in cells.items()
            if res["status"] in ("error", "setup-error")]
    if errs:
        out.append("exceptions (cell: class: first line of the message):")
        for row, route, res in errs:
            where = " (in the untimed set-up)" if res["status"] == "setup-error" else ""
            out.append(f"  {row} / {route}: {res['info'][0]}{where}: {res['info'][1]}")
    out.append(f"load average at end: {' '.join(f'{x:.2f}' for x in load_end)}   wall time: {wall:.0f} s")
    return out


def run_table(labels: list, routes: list, timeout: float, out: Path | None = None, skip: bool = True,
              log=None, command: str | None = None) -> dict:
    """Time every (row, route) cell; rewrite ``out`` after each row (a partial table is kept)."""
    started = time.time()
    prov = provenance_lines(command)
    R.warm_up()
    results: dict = {}
    timed_out: dict = {}  # family -> {route: smallest size that timed out}

    def write(done: bool) -> str:
        lines = header(timeout, prov) + [""] + format_table(results, labels, routes, timeout)
        lines += footer(results, timeout, os.getloadavg(), time.time() - started)
        if not done:
            lines.append("(partial: the run is still going)")
        text = "\n".join(lines) + "\n"
        if out is not None:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(text)
        return text

    for label in labels:
        row = _BY_LABEL[label]
        results[label] = {}
        if row.same:
            results[label] = _bodies_cells(label, routes, timeout, timed_out if skip else {}, log)
            write(False)
            continue
        for route in routes:
            fam = timed_out.get(row.family, {}) if row.family else {}
            if skip and route in fam and fam[route] < row.size:
                res = {"status": "skipped"}
            else:
                res = run_cell(label, route, timeout)
                if row.family and res["status"] in ("timeout", "setup-timeout"):
                    timed_out.setdefault(row.family, {})[route] = min(row.size, fam.get(route, row.size))
            results[label][route] = res
            if log:
                log(f"{label:20s} {route:14s} {cell_text(res, timeout)}")
        write(False)
    return {"results": results, "text": write(True)}


def _bodies_cells(label: str, routes: list, timeout: float, timed_out: dict, log=None) -> dict:
    """The cells of a same-bodies row: medians of BODIES_REPEATS runs, Kane, TQ and acc alternating
    (each run a fresh child); a cell that times out (or did for a smaller n) is not run again."""
    row = _BY_LABEL[label]
    fam = timed_out.setdefault(row.family, {})
    cols = [r for r in BODIES_ROUTES if r in routes]
    runs: dict = {r: [] for r in cols}
    setups: dict = {r: [] for r in cols}
    final: dict = {r: {"status": "n/a", "info": "same-bodies row"} for r in routes if r not in cols}
    for r in cols:
        if r in fam and fam[r] < row.size:
            final[r] = {"status": "skipped"}
    for _ in range(BODIES_REPEATS):
        for r in cols:
            if r in final:
                continue
            res = run_cell(label, r, timeout)
            if res["status"] != "ok":
                final[r] = res
                if res["status"] in ("timeout", "setup-timeout"):
                    fam[r] = min(row.size, fam.get(r, row.size))
            else:
                runs[r].append(res["seconds"])
                setups[r].append(res["setup"])
            if log:
                log(f"{label:20s} {r:14s} {cell_text(res, timeout)}")
    for r in cols:
        if r not in final:
            final[r] = {"status": "ok", "seconds": statistics.median(runs[r]), "runs": runs[r],
                        "setup": max(setups[r])}
    return {r: final[r] for r in routes}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--timeout", type=float, default=60.0, help="wall-clock seconds per cell (default 60)")
    ap.add_argument("--systems", nargs="*", choices=list(_BY_LABEL), metavar="SYSTEM",
                    help="rows (default: all): " + ", ".join(_BY_LABEL))
    ap.add_argument("--routes", nargs="*", choices=list(ROUTES), metavar="ROUTE",
                    help="columns (default: all): " + ", ".join(ROUTES))
    ap.add_argument("--out", default=None, help="write the table here too (e.g. benchmarks/results/routes.txt)")
    ap.add_argument("--no-skip", action="store_true",
                    help="also run n-trailer cells whose route timed out for a smaller n")
    ap.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    opts = ap.parse_args(argv)
    labels = opts.systems or list(_BY_LABEL)
    routes = opts.routes or list(ROUTES)
    log = None if opts.quiet else (lambda s: print(s, file=sys.stderr, flush=True))
    command = "python -m benchmarks.routes " + shlex.join(sys.argv[1:] if argv is None else argv)
    res = run_table(labels, routes, opts.timeout, Path(opts.out) if opts.out else None, not opts.no_skip, log,
                    command)
    print(res["text"], end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
