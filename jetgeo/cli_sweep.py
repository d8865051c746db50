"""``jetgeo sweep``: a parameter sweep of a spec, through :func:`jetgeo.numerics.ensemble`.

::

    jetgeo sweep SPEC --t-end T --param NAME=START:STOP:N [--param ...] [--points P]
                 [--formulation full|reduced|multipliers] [--scheduler local|ADDRESS]
                 [--method DOP853|dla-midpoint|dla-trapezoid|dla-4 [--step H]]
                 [--out FILE.nc|FILE.zarr] [--timeout SECONDS] [--memory-limit MB]

Each ``--param`` is a parameter of the spec or a coordinate/velocity of its initial state,
swept over N equally spaced values from START to STOP; several ``--param`` give their
Cartesian product.  Everything else comes from the spec (parameters, initial state); the
dependent velocities of every member are computed from the normal form.  Each member is a
simulation: it crosses the chart boundaries of Q with the atlas of ``jetgeo simulate`` (in the
full and reduced formulations).  ``--scheduler`` ``local`` (default: this machine's cores) or
the address of a Dask scheduler (``tcp://host:8786``).  ``--out`` writes the dataset
(resumable: run the same command again after an interruption).  ``--timeout`` and
``--memory-limit`` bound the run as for ``simulate``.  ``--method dla-…`` with ``--step H`` steps
every member with a discrete Lagrange–d'Alembert integrator (one compiled stepper per process; with a
``--scheduler`` address, compiled once on each worker), as ``jetgeo simulate --method dla-… --step H`` would.

Exit codes: 0 every member reached ``--t-end``; 1 some member did not (stopped at a singular
state, failed, or invalid data: the first ones are listed, the reason on stderr) or a limit was
reached; 2 bad input (bad ranges, unknown names, a value against a parameter's assumptions,
more members or points than theory/specfiles.md allows), one line on stderr.
"""

from __future__ import annotations

import argparse
import math
import sys
import time

from .errors import InputError, MethodUnavailableError
from .geometry.coerce import SIGN_ASSUMPTIONS, respects_assumptions
from .io.resolve import open_spec
from .limits import MAX_SECONDS

__all__ = ["add_parser", "parse_range"]


#: ``--method``: jetgeo.numerics.ensemble's methods (spelt out so that the parser loads no numerics)
SWEEP_METHODS = ("DOP853", "dla-midpoint", "dla-trapezoid", "dla-4")


def parse_range(text: str) -> tuple:
    """``NAME=START:STOP:N`` → (name, start, stop, n); numbers only (nothing is evaluated).

    Parameters
    ----------
    text : str
        ``NAME=START:STOP:N``, e.g. ``m=1:2:5``: N equally spaced values from START to STOP
        inclusive.

    Returns
    -------
    tuple
        ``(name, start, stop, n)`` with ``start``, ``stop`` floats and ``n`` an int.

    Raises
    ------
    jetgeo.errors.InputError
        For a malformed range: no ``=``, not three fields, non-numeric or non-finite bounds,
        N < 1, or START = STOP with N > 1.

    Examples
    --------
    >>> parse_range("m=1:2:5")
    ('m', 1.0, 2.0, 5)
    """
    name, eq, rng = text.partition("=")
    name = name.strip()
    if not eq or not name:
        raise InputError(f"--param {text!r}: expected NAME=START:STOP:N")
    parts = rng.split(":")
    if len(parts) != 3:
        raise InputError(f"--param {text!r}: expected NAME=START:STOP:N (three fields after '=')")
    try:
        start, stop = float(parts[0]), float(parts[1])
    except ValueError:
        raise InputError(f"--param {text!r}: START and STOP must be numbers") from None
    try:
        n = int(parts[2])
    except ValueError:
        raise InputError(f"--param {text!r}: N must be a whole number of values") from None
    if not (math.isfinite(start) and math.isfinite(stop)):
        raise InputError(f"--param {text!r}: START and STOP must be finite")
    if n < 1:
        raise InputError(f"--param {text!r}: N must be at least 1")
    if n > 1 and start == stop:
        raise InputError(f"--param {text!r}: START = STOP with N > 1 gives repeated members")
    return name, start, stop, n


def _run(args: argparse.Namespace) -> int:
    # numpy and numerics (scipy, xarray) only when a sweep runs: every other command starts without them
    import numpy as np

    from .numerics.ensembles import check_study_size, ensemble, grid  # cost: scipy, xarray only when a sweep runs

    ranges = [parse_range(p) for p in args.param]
    names = [r[0] for r in ranges]
    if len(set(names)) != len(names):
        raise InputError(f"--param: a name is given twice: {names}")
    if args.points < 2:
        raise InputError(f"--points must be at least 2, got {args.points}")
    check_study_size(math.prod(r[3] for r in ranges), args.points, "sweep")
    spec = open_spec(args.spec)
    Y = spec.Y
    valid = sorted([str(s) for s in spec.parameters] + [str(s) for s in (*Y.q, *Y.qdot)])
    unknown = [n for n in names if n not in valid]
    if unknown:
        raise InputError(f"{spec.source}: --param {unknown[0]!r} is neither a parameter nor a coordinate/velocity; "
                        f"valid names: {', '.join(valid)}")
    pvals = {str(k): float(v) for k, v in (spec.numeric_params() if spec.parameters else {}).items()}
    y0 = {str(k): float(v) for k, v in spec.initial_state().items()}
    t0 = y0.pop(str(Y.t))
    if not args.t_end > t0:
        raise InputError(f"{spec.source}: --t-end {args.t_end} must be after the initial time {t0}")
    axes = {n: np.linspace(a, b, k) for n, a, b, k in ranges}
    declared = {str(s): s for s in spec.parameters}
    for text, (n, *_rest) in zip(args.param, ranges):
        if n in declared:
            ok = respects_assumptions(declared[n], axes[n])
            if not np.all(ok):
                v = float(axes[n][np.flatnonzero(~np.asarray(ok))[0]])
                a = next(a for a, test in SIGN_ASSUMPTIONS.items()
                         if declared[n].assumptions0.get(a) is True and not test(v))
                raise InputError(f"{spec.source}: --param {text!r}: the value {v:g} contradicts the assumption "
                                 f"{a!r} of {n} (as [values] would)")
    members = grid(**axes)
    model = spec.constrained() if spec.Q is not None else spec.system
    dependent = set()
    if spec.Q is not None:
        dependent = {str(d) for d in model.g}
        clash = [n for n in names if n in dependent]
        if clash:
            raise InputError(f"{spec.source}: --param {clash[0]!r} is a dependent velocity (given by the constraints); "
                            "sweep an independent one")
    client = None
    if args.scheduler != "local":
        try:
            from distributed import Client
        except ImportError:
            raise MethodUnavailableError("--scheduler ADDRESS needs dask.distributed (pip install jetgeo[ensemble])"
                                    ) from None
        try:
            client = Client(args.scheduler, timeout=args.connect_timeout)
        except (OSError, TimeoutError, ValueError) as exc:
            raise InputError(f"--scheduler {args.scheduler!r}: cannot connect: {exc}") from None
    start = time.perf_counter()
    try:
        ds = ensemble(model, members, (t0, args.t_end), n_times=args.points, params=pvals,
                      initial={k: v for k, v in y0.items() if k not in dependent}, complete=bool(dependent),
                      formulation=args.formulation, client=client, store=args.out, progress=None,
                      method=args.method, step=args.step)
    finally:
        if client is not None:
            client.close()
    elapsed = time.perf_counter() - start
    counts = {s: int((ds.status.values == s).sum()) for s in ("ok", "singular", "failed", "invalid")}
    print(f"{spec.name}: {ds.sizes['member']} members to t = {args.t_end:g} in {elapsed:.3g} s "
          f"({ds.sizes['member'] / elapsed:.3g} members/s); " + ", ".join(f"{k} {v}" for k, v in counts.items() if v))
    if "residual" in ds:
        print(f"max constraint drift |f|: {float(np.nanmax(np.abs(ds.residual.values))):.3g}")
    for i in np.flatnonzero(ds.status.values != "ok")[:5]:
        coords = ", ".join(f"{n} = {float(ds[n].values[i]):.6g}" for n in names)
        print(f"  member {i} ({coords}): {ds.status.values[i]}: {ds.message.values[i]}")
    if args.out:
        print(f"wrote {args.out}")
    short = ds.sizes["member"] - counts["ok"]
    if short:
        why = ", ".join(f"{k} {v}" for k, v in counts.items() if v and k != "ok")
        print(f"jetgeo: {spec.source}: {short} of {ds.sizes['member']} members did not reach t = {args.t_end:g} "
              f"({why}; the first are listed above)", file=sys.stderr)
        return 1
    return 0


def positive_seconds(text: str) -> float:
    """A finite number of seconds > 0, at most MAX_SECONDS (a connection timeout: 0 or inf would mean
    never trying or waiting for ever); argparse reports anything else (exit 2)."""
    try:
        v = float(text)
    except ValueError:
        v = float("nan")
    if not 0 < v <= MAX_SECONDS:  # nan included
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0 and at most {MAX_SECONDS:g}, "
                                         f"got {text!r}")
    return v


def add_parser(sub, common, limits) -> None:
    """Register ``sweep`` on the CLI's subparsers (``limits``: the parent parser of ``--timeout`` and
    ``--memory-limit``, which ``jetgeo.cli.main`` applies).

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The CLI's subparsers (from ``ArgumentParser.add_subparsers``).
    common : argparse.ArgumentParser
        The parent parser of the options every command shares.
    limits : argparse.ArgumentParser
        The parent parser of ``--timeout`` and ``--memory-limit``.
    """
    d = sub.add_parser("sweep", parents=[common, limits], help="integrate a parameter sweep (an ensemble) of a spec",
                       epilog="Exit codes: 0 every member reached --t-end; 1 some member did not (singular, failed or "
                       "invalid; listed), or --timeout/--memory-limit was reached; 2 bad input; 3 internal error.")
    d.add_argument("spec")
    d.add_argument("--param", action="append", required=True, metavar="NAME=START:STOP:N",
                   help="a parameter or initial coordinate/velocity and its range (repeat for a grid)")
    d.add_argument("--t-end", type=float, required=True, help="final time")
    d.add_argument("--points", type=int, default=101, help="output samples per member (default 101)")
    d.add_argument("--formulation", default="full", choices=("full", "reduced", "multipliers"),
                   help="as for simulate: full (default) and reduced cross chart boundaries of Q with the atlas; "
                   "multipliers needs no normal form")
    d.add_argument("--method", default="DOP853", choices=SWEEP_METHODS,
                   help="DOP853 (default: batched, adaptive) or a discrete Lagrange–d'Alembert integrator with --step "
                   "(every member by one compiled stepper)")
    d.add_argument("--step", type=float, default=None,
                   help="the fixed time step of the dla methods; --t-end and the --points spacing must be whole "
                   "numbers of steps")
    d.add_argument("--scheduler", default="local", help="local (default) or the address of a Dask scheduler")
    d.add_argument("--connect-timeout", type=positive_seconds, default=10.0, help="seconds to reach a Dask scheduler")
    d.add_argument("--out", help="write the dataset to FILE.nc or FILE.zarr (resumable)")
    d.set_defaults(func=_run)
