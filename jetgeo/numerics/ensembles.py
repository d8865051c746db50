r"""Ensembles: one system, many members (parameters and initial states), integrated together.

A derivation is done once; a study integrates its equations for many members — a parameter
sweep, perturbed initial conditions (Monte Carlo), a grid over both.  :func:`ensemble` takes

* a **system**: any route's equations of motion (``sys.constrain(Q)``, a recipe's result, a
  ``(system, Q)`` pair — integrated in the multipliers formulation, no normal form —, a
  :func:`~jetgeo.numerics.prepare`-d system) or a catalogue entry
  (``jetgeo.systems.load(name)``: its sample parameters and state are the defaults);
* a **table of members**: a pandas DataFrame, a dict of columns, a list of dicts, or what
  :func:`grid` (Cartesian product) and :func:`sample` (random draws, seeded) return; each column
  is a parameter or a coordinate/velocity of the initial state, the rest comes from ``params``
  and ``initial``;

and returns an :class:`xarray.Dataset` with dimensions ``member``, ``time``, ``state``: per member
the trajectory (q, q̇)(t), the constraint residuals f^j(t, q, q̇) (which measure the integration
error: Q is invariant under the exact flow), the energy E_L = q̇·∂L/∂q̇ − L where there is a
Lagrangian, and a status — ``ok``; ``singular`` (stopped at a singular state, the message says
which quantity vanished and when); ``failed`` (the integrator's message); ``invalid`` (bad data:
initial state off Q, non-finite values, a singular initial state) — the parameters are
coordinates along ``member``.  A failing member never loses the others.

The right-hand side and the monitors are compiled **once** (vectorised over members,
:mod:`jetgeo.numerics.batch`) and every chunk of members is integrated as one batch by the
Dormand–Prince 8(5,3) method with per-member step-size control.

**Schedulers.**  By default the chunks run on the local machine, on all cores (a process pool;
a progress bar in a terminal), with no setup.  ``client=`` takes a ``distributed.Client``: the
same call then runs on a ``LocalCluster`` or any Dask cluster (the compiled model is sent to
each worker once).  ``store=`` writes every finished chunk to a Zarr store (``*.zarr``) or a
NetCDF file (``*.nc``, chunks kept beside it until the study is complete), so an interrupted
study resumes where it stopped (:mod:`jetgeo.numerics.ensemble_store`).
"""

from __future__ import annotations

import ctypes
import dataclasses
import math
import os
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import BranchError, InputError, NotRegularError, OffManifoldError, RankDeficientError
from ..geometry.coerce import check_assumptions
from ..mechanics.eom import SampledSystem
from ..mechanics.quasi import QuasiVelocitySystem
from ..progress import progress_bar
from ..version import __version__
from .batch import STATUS, BatchModel, batch_model, check_initial, integrate_batch
from .ensemble_store import open_store, process_alive, process_start_time, study_fingerprint
from .simulation.discrete import DISCRETE_METHODS, portable_stepper, simulate_discrete
from .simulation.discrete_lie import on_the_group
from .simulation.integrate import project_velocities
from .simulation.model import pair_of as _pair_of
from .simulation.options import EnsembleOptions, SimulationOptions
from .simulation.prepare import PreparedSystem as Prepared
from .simulation.prepare import prepare
from .simulation.run import SimulationStoppedWarning, check_arguments, simulate

__all__ = ["ensemble", "grid", "sample", "members_table", "MAX_MEMBERS", "MAX_POINTS", "MAX_SAMPLES"]

#: the most members of one study (theory/specfiles.md, "Limits of a sweep")
MAX_MEMBERS = 10_000_000
#: the most output times per member (as ``jetgeo simulate --points``)
MAX_POINTS = 1_000_000
#: the most samples (members × output times) of one study: each is a full state (q, q̇) of floats
MAX_SAMPLES = 1_000_000_000

_RESERVED = {"member", "time", "state", "constraint", "trajectory", "residual", "energy", "status", "message",
             "t_stop", "state_stop", "nfev", "nsteps", "chunk", "chunk_done"}


# ----------------------------------------------------------------------------------------------
# member tables
# ----------------------------------------------------------------------------------------------
def grid(**axes):
    """The Cartesian product of the given values, one member per combination (a pandas DataFrame).

    Parameters
    ----------
    **axes : sequence of float
        {name: values}: a parameter or initial coordinate/velocity name and the values it takes.

    Returns
    -------
    pandas.DataFrame
        One column per axis, one row per combination (the last axis varying fastest).

    Raises
    ------
    jetgeo.errors.InputError
        If no axis is given or an axis has no values.

    Examples
    --------
    >>> grid(a=[1, 2], phidot=[3.0, 4.0, 5.0]).shape
    (6, 2)
    """
    import pandas as pd

    if not axes:
        raise InputError("grid: give at least one NAME=values")
    names = list(axes)
    vals = [np.atleast_1d(np.asarray(v, dtype=float)) for v in axes.values()]
    for n, v in zip(names, vals):
        if v.ndim != 1 or not len(v):
            raise InputError(f"grid: the values of {n} must be a non-empty list of numbers")
    mesh = np.meshgrid(*vals, indexing="ij")
    return pd.DataFrame({n: m.reshape(-1) for n, m in zip(names, mesh)})


#: the most members :func:`sample` draws at once (8 bytes per member and column: 800 MB a column)
MAX_SAMPLE = 10**8


def sample(n: int, seed: int | None = 0, **distributions):
    """``n`` random members (a pandas DataFrame), reproducible through ``seed``.

    Each distribution is ``(low, high)`` (uniform), a frozen ``scipy.stats`` distribution (its
    ``rvs``), or a callable ``(rng, n) -> values`` with ``rng`` a ``numpy.random.Generator``.

    Parameters
    ----------
    n : int
        The number of members.
    seed : int or None, default 0
        The seed of the ``numpy.random.Generator``; None draws a fresh one.
    **distributions
        {name: distribution}, each as described above.

    Returns
    -------
    pandas.DataFrame
        ``n`` rows, one column per distribution.

    Raises
    ------
    jetgeo.errors.InputError
        For n not a positive integer or above ``MAX_SAMPLE``, no distribution, a (low, high) with
        infinite ends or low > high, another kind of distribution, or a callable giving the wrong
        number of values.

    Examples
    --------
    >>> sample(4, seed=1, thetadot=(-0.1, 0.1)).shape
    (4, 1)
    """
    import pandas as pd

    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise InputError(f"sample: n must be a positive integer, got {n!r}")
    if n > MAX_SAMPLE:
        raise InputError(f"sample: n = {n} members is more than {MAX_SAMPLE:.0e} ({8 * n / 1e9:.3g} GB per "
                         "column); split the study into smaller samples")
    if not distributions:
        raise InputError("sample: give at least one NAME=distribution")
    rng = np.random.default_rng(seed)
    cols = {}
    for name, d in distributions.items():
        if isinstance(d, tuple) and len(d) == 2:
            lo = _number(d[0], f"the low end of sample({name}=...)")
            hi = _number(d[1], f"the high end of sample({name}=...)")
            if not (np.isfinite(lo) and np.isfinite(hi)):
                raise InputError(f"sample: {name}=(low, high) needs finite ends, got {d}")
            if not hi >= lo:
                raise InputError(f"sample: {name}=(low, high) needs low ≤ high, got {d}")
            v = rng.uniform(lo, hi, n)
        elif hasattr(d, "rvs"):  # a frozen scipy.stats distribution (a foreign library: no protocol to ask)
            v = d.rvs(size=n, random_state=rng)
        elif callable(d):
            v = d(rng, n)
        else:
            raise InputError(f"sample: {name} must be (low, high), a scipy.stats distribution or a callable "
                             f"(rng, n) -> values; got {d!r}")
        v = np.asarray(v, dtype=float).reshape(-1)
        if len(v) != n:
            raise InputError(f"sample: {name} gave {len(v)} values, expected {n}")
        cols[name] = v
    return pd.DataFrame(cols)


def members_table(members) -> dict:
    """{column name: float array} of a member table (DataFrame, dict of columns, list of dicts).

    Parameters
    ----------
    members : pandas.DataFrame or dict or list of dict
        The members: a DataFrame, {name: values} columns, or one {name: value} dict per member
        (every dict with the same keys).

    Returns
    -------
    dict
        {column name: 1-d float array}, every column as long as the number of members.

    Raises
    ------
    jetgeo.errors.InputError
        For ``None``, another type, a list of dicts with different keys, no columns, columns of
        different lengths, an empty table or a column that does not hold numbers.
    """
    if members is None:
        raise InputError("ensemble: give the members (a DataFrame, a dict of columns, a list of dicts, "
                         "grid(...) or sample(...))")
    # a pandas DataFrame, asked by its methods: pandas is an optional dependency, not imported for the check
    if hasattr(members, "columns") and hasattr(members, "to_numpy"):
        cols = {str(c): members[c].to_numpy() for c in members.columns}
    elif isinstance(members, Mapping):
        cols = {str(k): np.atleast_1d(np.asarray(v)) for k, v in members.items()}
    elif isinstance(members, Sequence) and not isinstance(members, (str, bytes)):
        rows = list(members)
        if not rows or not all(isinstance(r, Mapping) for r in rows):
            raise InputError("ensemble: a list of members must be a non-empty list of {name: value} dicts")
        names = [str(k) for k in rows[0]]
        for i, r in enumerate(rows):
            if sorted(map(str, r)) != sorted(names):
                raise InputError(f"ensemble: member {i} has the keys {sorted(map(str, r))}, member 0 {sorted(names)}")
        cols = {n: np.array([_by_name(r, n) for r in rows]) for n in names}
    else:
        raise InputError(f"ensemble: members must be a DataFrame, a dict of columns or a list of dicts; "
                         f"got {type(members).__name__}")
    if not cols:
        raise InputError("ensemble: the member table has no columns")
    lengths = {n: len(v) for n, v in cols.items()}
    if len(set(lengths.values())) != 1:
        raise InputError(f"ensemble: the member columns have different lengths {lengths}")
    if not next(iter(lengths.values())):
        raise InputError("ensemble: the member table is empty")
    out = {}
    for n, v in cols.items():
        arr = np.asarray(v)
        if arr.dtype.kind not in "biuf":
            raise InputError(f"ensemble: the column {n} must hold numbers, got dtype {arr.dtype}")
        out[n] = arr.astype(float)
    return out


def _number(value, what: str) -> float:
    """A float from a number (never from text: jetgeo does not read numbers out of strings here)."""
    if isinstance(value, (str, bytes, bool)):
        raise InputError(f"ensemble: {what} must be a number, got {value!r}")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise InputError(f"ensemble: {what} must be a number, got {value!r}") from None


def _by_name(values: Mapping, name: str):
    for k, v in values.items():
        if str(k) == name:
            return v
    return None


# ----------------------------------------------------------------------------------------------
# the system
# ----------------------------------------------------------------------------------------------
def _resolve(system, formulation: str):
    """(Prepared, default params {name: float}, default initial {name: float}, description)."""
    defaults_p: dict = {}
    defaults_i: dict = {}
    desc = type(system).__name__
    if isinstance(system, SampledSystem):  # a catalogue entry: its sample values are the defaults
        num = system.numeric()
        defaults_p = {str(k): v for k, v in num.items() if k in system.params}
        defaults_i = {str(k): v for k, v in num.items() if k in system.initial}
        desc = f"catalogue entry {system.name}"
        if formulation == "multipliers":
            return prepare((system.system, system.Q), "multipliers"), defaults_p, defaults_i, desc
        return prepare(system.constrained(), formulation), defaults_p, defaults_i, desc
    if isinstance(system, Prepared):
        return system, defaults_p, defaults_i, "prepared system"
    if formulation == "full" and _pair_of(system) is not None:
        formulation = "multipliers"
    return prepare(system, formulation), defaults_p, defaults_i, desc


def _columns_to_arrays(model: BatchModel, prep: Prepared, cols: dict, params: Mapping, initial: Mapping,
                       complete: bool, N: int):
    pnames, snames = list(model.params), list(model.full_state)
    unknown = [c for c in cols if c not in pnames and c not in snames]
    if unknown:
        raise InputError(f"ensemble: the member column(s) {unknown} are neither parameters {pnames} nor "
                         f"coordinates/velocities {snames} of the system")
    P = np.empty((len(pnames), N))
    missing = []
    for r, n in enumerate(pnames):
        if n in cols:
            P[r] = cols[n]
        elif _by_name(params, n) is not None:
            P[r] = _number(_by_name(params, n), f"the parameter {n}")
        else:
            missing.append(n)
    if missing:
        raise InputError(f"ensemble: no value for the parameter(s) {missing} (give them in params= or as columns)")
    full = np.full((len(snames), N), np.nan)
    dep = {model.full_state[model.m + j] for j in model.g_index}
    missing = []
    for r, n in enumerate(snames):
        if n in cols:
            full[r] = cols[n]
        elif complete and n in dep:
            continue  # from the normal form, member by member
        elif _by_name(initial, n) is not None:
            full[r] = _number(_by_name(initial, n), f"the initial value of {n}")
        else:
            missing.append(n)
    if missing:
        hint = " (or complete=True for the dependent velocities)" if set(missing) <= dep else ""
        raise InputError(f"ensemble: no initial value for {missing}; give them in initial= or as columns{hint}")
    return full, P


def check_study_size(members: int, points: int, caller: str) -> None:
    """InputError unless a study of ``members`` members and ``points`` output times is within
    :data:`MAX_MEMBERS`, :data:`MAX_POINTS` and :data:`MAX_SAMPLES` (theory/specfiles.md): asked
    before anything is allocated, so ``--param thetadot=0:1:1e23`` is refused at once.

    Parameters
    ----------
    members, points : the numbers of members and of output times.
    caller : the name the message starts with.

    Examples
    --------
    >>> check_study_size(1000, 101, "sweep")
    """
    if members > MAX_MEMBERS:
        raise InputError(f"{caller}: {members} members; at most {MAX_MEMBERS} in one study (split it, "
                         "theory/specfiles.md)")
    if points > MAX_POINTS:
        raise InputError(f"{caller}: {points} output times; at most {MAX_POINTS}")
    if members * points > MAX_SAMPLES:
        raise InputError(f"{caller}: {members} members × {points} output times = {members * points} states; at "
                         f"most {MAX_SAMPLES} in one study (fewer points or members, theory/specfiles.md)")


def _check_assumptions(prep: Prepared, model: BatchModel, cols: dict, P) -> None:
    """InputError naming a parameter whose value, given once for all members (``params=`` or a
    catalogue default), contradicts its declared assumptions (a negative mass or length), as a
    spec's ``[values]`` is checked; a column of the member table is checked member by member
    (:func:`~jetgeo.numerics.batch.check_initial`: such a member is ``invalid``)."""
    for r, sym in enumerate(prep.params):
        if model.params[r] in cols or not len(P[r]) or not math.isfinite(P[r, 0]):
            continue
        check_assumptions({sym: float(P[r, 0])}, "ensemble")  # the one check of a value against its symbol


# ----------------------------------------------------------------------------------------------
# one chunk (runs in a worker)
# ----------------------------------------------------------------------------------------------
def run_chunk(model: BatchModel, settings: dict, full, P) -> dict:
    """Integrate one chunk of members (columns of ``full`` and ``P``): the arrays of the dataset."""
    t0, t1 = settings["t_span"]
    t_eval = settings["t_eval"]
    full, why = check_initial(model, t0, full, P, settings["complete"], settings["manifold_tol"])
    res = integrate_batch(model, (t0, t1), full, P, t_eval, rtol=settings["rtol"], atol=settings["atol"],
                         max_step=settings["max_step"], events=settings["events"],
                         singular_tol=settings["singular_tol"], invalid=why, atlas=_atlas_on(model, settings))
    N, nT, nF = res.y.shape
    flat = res.y.reshape(N * nT, nF).T
    tt = np.tile(t_eval, N)
    Pr = np.repeat(P, nT, axis=1)
    out = {"trajectory": res.y, "status": np.array([STATUS[int(s)] for s in res.status], dtype=object),
           "message": np.array(res.message, dtype=object), "t_stop": res.t_stop, "state_stop": res.y_stop,
           "nfev": res.nfev, "nsteps": res.nsteps, "chart_stop": res.chart}
    with np.errstate(all="ignore"):
        if model.f is not None:
            out["residual"] = np.asarray(model.f(tt, flat, Pr), dtype=float).reshape(-1, N, nT).transpose(1, 2, 0)
        if model.energy is not None:
            out["energy"] = np.asarray(model.energy(tt, flat, Pr), dtype=float).reshape(N, nT)
    return out


def run_discrete(system, model: BatchModel, settings: dict, full, P, client=None) -> dict:
    """Step every member (columns of ``full`` and ``P``) with a discrete Lagrange–d'Alembert method
    (``settings["method"]``, ``settings["step"]``): the arrays of the dataset, as :func:`run_chunk`.

    The stepper is compiled once per process (:func:`~jetgeo.numerics.simulation.discrete.portable_stepper`)
    and each member is one call of its step loop — the call ``simulate(..., method=..., step=...)`` makes,
    so a member equals its ``simulate`` run.  With ``client`` (a ``distributed.Client``) the members are
    split into one chunk per worker and stepped there (:func:`step_members`): the exact map is sent to
    every worker once and compiled there once; the result is the embedded run's, member by member.  A
    rigid body stepped on SO(3) runs in this process (one ``simulate`` call per member).  The output
    times must be nodes t0 + k·step."""
    if isinstance(system, QuasiVelocitySystem) and on_the_group(system) is None:
        if client is not None:
            raise InputError(f"ensemble: a rigid body stepped on SO(3) by {settings['method']!r} runs in this "
                             "process; client= is for the coordinate form and the DOP853 batches")
        return _members_by_simulate(system, model, settings, full, P)
    job = portable_stepper(system, settings["method"], settings["backend"])
    if client is None:
        return step_members(job, model, settings, full, P)
    from distributed import wait

    N = full.shape[1]
    size = max(1, math.ceil(N / max(1, len(client.scheduler_info().get("workers", {})))))
    remote_job, remote_model = client.scatter([job, model], broadcast=True)
    futures = [client.submit(step_members, remote_job, remote_model, settings, full[:, s:s + size],
                             P[:, s:s + size], pure=False) for s in range(0, N, size)]
    try:
        wait(futures)
        parts = client.gather(futures)
    finally:
        for fut in futures:
            fut.cancel()
    return {key: np.concatenate([part[key] for part in parts]) for key in parts[0]}


def _nodes_of(model: BatchModel, settings: dict, full, P) -> tuple:
    """(completed full, messages, node index of every output time, number of steps)."""
    t0, t1 = settings["t_span"]
    t_eval, h, method = settings["t_eval"], settings["step"], settings["method"]
    full, why = check_initial(model, t0, full, P, settings["complete"], settings["manifold_tol"])
    n_steps = int(round((t1 - t0) / h))
    k = np.rint((t_eval - t0) / h).astype(np.int64)
    if np.any(np.abs(k * ((t1 - t0) / max(n_steps, 1)) - (t_eval - t0)) > 1e-9 * max(1.0, abs(t1 - t0))):
        raise InputError(f"ensemble: with method={method!r} the output times must be nodes t0 + k·step "
                         f"(step = {h:g}); choose n_times − 1 dividing the {n_steps} steps")
    return full, why, k, n_steps


def _empty(model: BatchModel, N: int, nT: int) -> dict:
    nF, nC = 2 * model.m, model.n_constraints
    return {"trajectory": np.full((N, nT, nF), np.nan), "status": np.empty(N, dtype=object),
            "message": np.empty(N, dtype=object), "t_stop": np.full(N, np.nan), "state_stop": np.full((N, nF), np.nan),
            "nfev": np.zeros(N, np.int64), "nsteps": np.zeros(N, np.int64), "residual": np.full((N, nT, nC), np.nan),
            "energy": np.full((N, nT), np.nan)}


def _trimmed(model: BatchModel, out: dict) -> dict:
    if not model.n_constraints:
        del out["residual"]
    if model.energy is None:
        del out["energy"]
    return out


def step_members(job, model: BatchModel, settings: dict, full, P) -> dict:
    """Step the members (columns of ``full``, ``P``) with the
    :class:`~jetgeo.numerics.simulation.discrete.PortableStepper` ``job`` in this process (a worker's task,
    or the embedded run): the arrays of :func:`run_discrete`.

    Each member is the node run ``simulate`` makes (:func:`~jetgeo.numerics.simulation.stepping.run_nodes`:
    the same states, status and message); the constraints are evaluated at the nodes as the stepper carries
    them (angles reduced modulo 2π), the energy at the reported (unwrapped) states.

    Parameters
    ----------
    job : PortableStepper
    model : BatchModel
    settings : dict
        ``t_span``, ``t_eval``, ``step``, ``method``, ``complete``, ``manifold_tol``.
    full, P : numpy.ndarray
        The states (2m, N) and the parameters (n_p, N).

    Returns
    -------
    dict
        The arrays of the members, member first.
    """
    t0, t1 = settings["t_span"]
    full, why, k, n_steps = _nodes_of(model, settings, full, P)
    N, nT, m = full.shape[1], len(settings["t_eval"]), model.m
    out = _empty(model, N, nT)
    st = job.stepper()
    pidx = [list(model.params).index(str(s)) for s in st.parameters[:-1]]
    h = (t1 - t0) / n_steps
    for i in range(N):
        if why[i] is not None:
            out["status"][i], out["message"][i] = "invalid", why[i]
            continue
        run = job.run(t0, full[:, i], [*P[pidx, i], h], n_steps, settings["method"])
        traj, reduced = run.unwrapped[:, 1:1 + 2 * m], run.nodes[:, 1:1 + 2 * m]
        reached = k[k < len(traj)]
        out["trajectory"][i, : len(reached)] = traj[reached]
        tt, Pi = run.nodes[reached, 0], np.repeat(P[:, i:i + 1], len(reached), axis=1)
        if model.n_constraints:
            out["residual"][i, : len(reached)] = np.asarray(model.f(tt, reduced[reached].T, Pi), dtype=float).T
        if model.energy is not None:
            out["energy"][i, : len(reached)] = np.asarray(model.energy(tt, traj[reached].T, Pi),
                                                          dtype=float).reshape(-1)
        out["status"][i] = "ok" if run.status == "finished" else "failed"
        out["message"][i] = "" if run.status == "finished" else run.message
        out["t_stop"][i], out["state_stop"][i] = run.nodes[-1, 0], traj[-1]
        out["nfev"][i], out["nsteps"][i] = run.nfev, len(traj) - 1
    return _trimmed(model, out)


def _members_by_simulate(system, model: BatchModel, settings: dict, full, P) -> dict:
    """One ``simulate_discrete`` call per member (a rigid body stepped on SO(3))."""
    t0, t1 = settings["t_span"]
    full, why, k, _ = _nodes_of(model, settings, full, P)
    N, nT = full.shape[1], len(settings["t_eval"])
    out = _empty(model, N, nT)
    for i in range(N):
        if why[i] is not None:
            out["status"][i], out["message"][i] = "invalid", why[i]
            continue
        initial = {n: float(full[r, i]) for r, n in enumerate(model.full_state)}
        params = {n: float(P[r, i]) for r, n in enumerate(model.params)}
        try:
            r = simulate_discrete(system, (t0, t1), initial, params, settings["method"], step=settings["step"],
                                  backend=settings["backend"], manifold_tol=settings["manifold_tol"])
        except OffManifoldError as exc:
            out["status"][i], out["message"][i] = "invalid", f"invalid data: {exc}"
            continue
        reached = k[k < len(r.t)]
        traj = np.hstack([r.q, r.qdot])
        out["trajectory"][i, : len(reached)] = traj[reached]
        if r.residuals is not None and model.n_constraints:
            out["residual"][i, : len(reached)] = r.residuals[reached]
        if r.energy is not None and model.energy is not None:
            out["energy"][i, : len(reached)] = r.energy[reached]
        out["status"][i] = "ok" if r.success else "failed"
        out["message"][i] = "" if r.success else r.message
        out["t_stop"][i], out["state_stop"][i] = r.t[-1], traj[-1]
        out["nfev"][i], out["nsteps"][i] = r.nfev, len(r.t) - 1
    return _trimmed(model, out)


def _atlas_on(model: BatchModel, settings: dict) -> bool:
    """Whether members continue across chart boundaries of Q (as ``simulate(atlas=True)`` decides)."""
    return bool(settings["atlas"] and settings["events"] and any(mon.kind == "rho" for mon in model.monitors))


def _finish_on_atlas(prep: Prepared, model: BatchModel, settings: dict, result: dict, P) -> None:
    """Continue with :func:`~jetgeo.numerics.simulate` and its atlas of charts every member of a chunk's
    ``result`` that the batch stopped where ``simulate`` switches charts (ρ of the normal form in force
    below the atlas's threshold): from that state, on the output times after it; the member's arrays in
    ``result`` are completed with simulate's."""
    stopped = result.pop("chart_stop", None)
    if stopped is None or not stopped.any() or not _atlas_on(model, settings):
        return
    t1 = settings["t_span"][1]
    t_eval = settings["t_eval"]
    for i in np.flatnonzero(stopped):
        ts = float(result["t_stop"][i])
        if not ts < t1:  # the chart ended exactly at the end: nothing left to integrate
            result["status"][i] = "ok"
            result["message"][i] = f"reached t = {t1:g}, where {result['message'][i]}"
            continue
        state = result["state_stop"][i]
        if prep.formulation == "full":  # as simulate does at a switch: the new chart starts on Q
            state = project_velocities(prep, ts, state, P[:, i])
        initial = dict(zip(model.full_state, state))
        params = dict(zip(model.params, P[:, i]))
        later = np.flatnonzero(t_eval > ts)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", SimulationStoppedWarning)
                r = simulate(prep, (ts, t1), initial, params, t_eval=t_eval[later] if len(later) else None,
                             events=True, atlas=True, singular_tol=settings["singular_tol"],
                             manifold_tol=settings["manifold_tol"], rtol=settings["rtol"], atol=settings["atol"],
                             max_step=settings["max_step"])
        except (NotRegularError, RankDeficientError, BranchError, OffManifoldError) as exc:
            result["status"][i] = "failed"
            result["message"][i] = f"{result['message'][i]}, and the atlas cannot continue there: {exc}"
            continue
        if len(later):
            n = len(r.t)
            rows = later[:n]
            result["trajectory"][i, rows] = np.hstack([r.q, r.qdot])
            if "residual" in result:
                result["residual"][i, rows] = r.residuals
            if "energy" in result and r.energy is not None:
                result["energy"][i, rows] = r.energy
        status = {"finished": "ok", "singular": "singular"}.get(r.status, "failed")
        t_end = t1 if status == "ok" else (r.event.t if r.event is not None else float(r.t[-1]))
        switches = "; ".join(str(c) for c in r.charts[:3]) + (f"; … {len(r.charts)} in all" if len(r.charts) > 3
                                                              else "")
        result["status"][i] = status
        result["message"][i] = f"{r.message} (from t = {ts:.6g} by simulate across charts of Q: {switches})"
        result["t_stop"][i] = t_end
        if r.sol is not None:
            result["state_stop"][i] = np.concatenate(r(t_end))[:, 0]
        result["nfev"][i] += r.nfev


# ----------------------------------------------------------------------------------------------
# schedulers
# ----------------------------------------------------------------------------------------------
def _exit_with_parent(main: int, main_started: str | None) -> None:
    """Run in every pool worker: end it when the study's process ``main`` dies, so that a killed
    study leaves no orphaned workers.

    A worker forked or spawned by ``main`` asks the Linux kernel for SIGKILL when its parent exits
    (``prctl(PR_SET_PDEATHSIG)``), and on every platform a daemon thread exits it once its parent
    has changed (it was re-parented).  A fork server's worker cannot rely on its parent: the server
    lives as long as any worker holds its pipe, so the thread watches ``main`` itself
    (:func:`~jetgeo.numerics.ensemble_store.process_alive`, with its start time against pid reuse).
    """
    parent = os.getppid()
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGKILL, 0, 0, 0)          # PR_SET_PDEATHSIG = 1
        except (OSError, AttributeError):                  # no prctl: the thread below does it
            pass

    def gone() -> bool:
        return os.getppid() != parent or (parent != main and not process_alive(main, main_started))

    if gone():                                             # the study died before this ran
        os._exit(1)

    def watch() -> None:
        while not gone():
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, name="jetgeo-parent-watch", daemon=True).start()


def _pool(workers: int):
    """A process pool: forked from this process when it runs no other thread (the workers start at
    once, with jetgeo imported), else from a fork server (safe with threads), else spawned.  The
    workers end when their parent does (:func:`_exit_with_parent`)."""
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    methods = mp.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        ctx = mp.get_context("fork")
    elif "forkserver" in methods:
        ctx = mp.get_context("forkserver")
        ctx.set_forkserver_preload(["jetgeo.numerics.ensembles"])
    else:
        ctx = mp.get_context("spawn")
    return ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_exit_with_parent,
                               initargs=(os.getpid(), process_start_time(os.getpid())))


def _execute(model, settings, tasks: list, scheduler: str, client, workers: int, on_done: Callable) -> None:
    """Run ``run_chunk`` on every (chunk index, full, P) of ``tasks``; ``on_done(index, result)``
    in the calling process as chunks finish."""
    if not tasks:
        return
    if client is not None:
        from distributed import as_completed

        remote = client.scatter(model, broadcast=True)
        futures = {client.submit(run_chunk, remote, settings, full, P, pure=False): i for i, full, P in tasks}
        try:
            for fut in as_completed(list(futures)):
                on_done(futures[fut], fut.result())
        finally:
            for fut in futures:
                fut.cancel()
        return
    if scheduler == "serial" or workers <= 1 or len(tasks) == 1:
        for i, full, P in tasks:
            on_done(i, run_chunk(model, settings, full, P))
        return
    from concurrent.futures import as_completed

    pool = _pool(min(workers, len(tasks)))
    try:
        futures = {pool.submit(run_chunk, model, settings, full, P): i for i, full, P in tasks}
        for fut in as_completed(futures):
            on_done(futures[fut], fut.result())
    except BaseException:
        _stop_pool(pool)
        raise
    pool.shutdown(wait=True)


def _stop_pool(pool) -> None:
    """End an interrupted study's pool now (a time limit, Ctrl-C, a failing chunk): cancel the queued
    chunks and terminate the workers.  ``shutdown(wait=True)`` — what leaving a ``with`` block does —
    waited for the running chunks, and the process for the pool at exit: ``jetgeo sweep --timeout 3``
    printed its message at 3 s and ended after 300 s."""
    # CPython's ProcessPoolExecutor keeps its worker processes in ``_processes`` (no public handle)
    procs = list((pool._processes or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        if proc.is_alive():
            proc.terminate()
    for proc in procs:
        proc.join(5)


# ----------------------------------------------------------------------------------------------
# the dataset
# ----------------------------------------------------------------------------------------------
def _coord_name(name: str) -> str:
    return name + "_" if name in _RESERVED else name


def chunk_dataset(model: BatchModel, start: int, result: dict, t_eval, coords: dict, attrs: dict):
    """The xarray Dataset of one chunk (members ``start`` …); ``coords``: {name: array over all members}."""
    import xarray as xr

    N = result["trajectory"].shape[0]
    sl = slice(start, start + N)
    dv = {
        "trajectory": (("member", "time", "state"), result["trajectory"]),
        "status": (("member",), np.array([str(x) for x in result["status"]], dtype=object)),
        "message": (("member",), np.array([str(x) for x in result["message"]], dtype=object)),
        "t_stop": (("member",), result["t_stop"]),
        "state_stop": (("member", "state"), result["state_stop"]),
        "nfev": (("member",), result["nfev"].astype(np.int64)),
        "nsteps": (("member",), result["nsteps"].astype(np.int64)),
    }
    if "residual" in result:
        dv["residual"] = (("member", "time", "constraint"), result["residual"])
    if "energy" in result:
        dv["energy"] = (("member", "time"), result["energy"])
    c = {"member": np.arange(start, start + N, dtype=np.int64), "time": np.asarray(t_eval, dtype=float),
         "state": np.array(model.full_state, dtype=object)}
    if model.n_constraints:
        c["constraint"] = np.array([f"f{j + 1}" for j in range(model.n_constraints)], dtype=object)
    for name, v in coords.items():
        c[_coord_name(name)] = ("member", np.asarray(v, dtype=float)[sl])
    ds = xr.Dataset(dv, coords=c, attrs=attrs)
    ds["trajectory"].attrs["description"] = "the full state (q, q̇) at the output times (NaN after a stop)"
    if "residual" in ds:
        ds["residual"].attrs["description"] = "constraint values f^j(t, q, q̇) along the trajectory"
        ds["constraint"].attrs["expressions"] = list(model.constraints)
    if "energy" in ds:
        ds["energy"].attrs["description"] = "E_L = q̇·∂L/∂q̇ − L along the trajectory"
    return ds


def _default_workers() -> int:
    return max(1, os.cpu_count() or 1)


def ensemble(
    system,
    members,
    t_span: Sequence,
    *,
    t_eval=None,
    n_times: int = 101,
    params: Mapping | None = None,
    initial: Mapping | None = None,
    complete: bool = False,
    formulation: str = "full",
    method: str = "DOP853",
    store: str | os.PathLike | None = None,
    options: SimulationOptions | None = None,
    **keywords,
):
    r"""Integrate every member of a study and return an :class:`xarray.Dataset`.

    Parameters
    ----------
    system : see the module docstring (a catalogue entry gives the default params/initial).
    members : DataFrame, dict of columns, list of dicts (see :func:`grid`, :func:`sample`);
        column names are parameter or state names.
    t_span : (t0, t1); ``t_eval`` the common output times (default ``n_times`` equally spaced).
    params, initial : {symbol or name: value} for what the table does not give.
    complete : compute the dependent velocities q̇^D of every member from the normal form
        q̇^D = g(t, q, q̇^I) [Stolařová 2009, eq. (4)] (unless the table gives them) —
        needed when a swept parameter changes g.
    formulation : "full", "reduced" or "multipliers" (as in :func:`~jetgeo.numerics.simulate`).
    method : "DOP853" (default: the batched adaptive integrator) or a discrete Lagrange–d'Alembert
        method "dla-midpoint", "dla-trapezoid", "dla-4" (as in ``simulate``; needs a Lagrangian and
        a constraint submanifold, and ``step=``): its stepper is compiled once and steps every member in
        this process, or with ``client`` on the Dask workers, one chunk of members each, the stepper
        compiled once per worker (:func:`run_discrete`; ``store`` holds the study as one chunk); rtol,
        atol, max_step, events and atlas do not apply.
    store : a path ending in ``.zarr`` or ``.nc``: every chunk is written as it finishes; run the
        same call again after an interruption and only the missing chunks are computed.  The
        store is locked while the study runs (a second run on it raises ``InputError``), created
        atomically and validated on resume (:mod:`jetgeo.numerics.ensemble_store`).
    options : EnsembleOptions or SimulationOptions, optional
        The rarely changed choices (:class:`~jetgeo.numerics.simulation.options.EnsembleOptions`):
        rtol, atol, max_step, events, singular_tol, manifold_tol (as in ``simulate``, validated by the same
        function, :func:`~jetgeo.numerics.simulation.run.check_arguments`); atlas (a member that reaches the
        boundary of the normal form's chart of Q — the skate at θ = π/2 — is integrated again by
        :func:`~jetgeo.numerics.simulate`, which switches charts there; ``False`` stops it, status
        ``singular``); chunk_size, scheduler ("local" or "serial"), client (a ``distributed.Client``,
        taking precedence), workers, progress, callback (after each chunk, with {"chunk", "members",
        "done", "total"}); step (of a dla method: the output times must be nodes t0 + k·step) and backend
        ("auto", "c" or "python": where a dla method's loops run).
    **keywords
        Any field of the options by name, as a convenience (``ensemble(..., rtol=1e-8, scheduler="serial")``).

    Returns
    -------
    xarray.Dataset
        Dims member, time, state[, constraint]; coords: the parameters and the table's columns (described in
        the module docstring).
    """
    opts = EnsembleOptions.merged(_as_ensemble_options(options), keywords, caller="ensemble", strict=True)
    t0, t1, t_eval, rtol = _check_ensemble(t_span, t_eval, n_times, params, initial, formulation, method, opts)
    cols = members_table(members)
    N = len(next(iter(cols.values())))
    check_study_size(N, len(t_eval), "ensemble")
    prep, dp, di, desc = _resolve(system, formulation)
    model = batch_model(prep)
    pvals = {**dp, **{str(k): v for k, v in (params or {}).items()}}
    ivals = {**di, **{str(k): v for k, v in (initial or {}).items()}}
    full, P = _columns_to_arrays(model, prep, cols, pvals, ivals, complete, N)
    _check_assumptions(prep, model, cols, P)
    study = _Study(system, prep, model, cols, full, P, N, desc, (t0, t1), t_eval, store, opts)
    if method in DISCRETE_METHODS:
        return _discrete_study(study, method, complete)
    return _batched_study(study, rtol, complete)


def _as_ensemble_options(options: SimulationOptions | None) -> EnsembleOptions | None:
    """``options`` as an :class:`EnsembleOptions` (a :class:`SimulationOptions` with the study's defaults for the
    rest; its backend None meaning "auto")."""
    if options is None or isinstance(options, EnsembleOptions):
        return options
    if not isinstance(options, SimulationOptions):
        raise InputError(f"ensemble: options must be an EnsembleOptions, got {type(options).__name__}")
    values = {f.name: vars(options)[f.name] for f in dataclasses.fields(options)}
    return EnsembleOptions(**{**values, "backend": values["backend"] or "auto"})


def _check_ensemble(t_span, t_eval, n_times, params, initial, formulation: str, method: str,
                    opts: EnsembleOptions) -> tuple:
    """InputError for a bad argument of :func:`ensemble`; else (t0, t1, output times, rtol)."""
    if formulation not in ("full", "reduced", "multipliers"):
        raise InputError(f"ensemble: formulation must be 'full', 'reduced' or 'multipliers', got {formulation!r}")
    discrete = method in DISCRETE_METHODS
    if method != "DOP853" and not discrete:
        raise InputError(f"ensemble: method must be 'DOP853' or one of {sorted(DISCRETE_METHODS)}, got {method!r:.40}")
    step, backend = opts.step, opts.backend
    if discrete:
        if step is None:
            raise InputError(f"ensemble: method={method!r} needs step= (the time step h > 0)")
        if isinstance(step, bool) or not isinstance(step, (int, float, np.integer, np.floating)) \
                or not math.isfinite(float(step)) or float(step) <= 0:
            raise InputError(f"ensemble: step must be a finite number > 0, got {step!r:.40}")
        if backend not in ("auto", "c", "python"):
            raise InputError(f"ensemble: backend must be 'auto', 'c' or 'python', got {backend!r:.40}")
        n_float = (float(t_span[1]) - float(t_span[0])) / float(step)
        if not abs(n_float - round(n_float)) <= 1e-9 * max(1.0, abs(n_float)) or round(n_float) < 1:
            raise InputError(f"ensemble: the span is not a whole number of steps {float(step):g} ({n_float:.6g} steps)")
    elif step is not None:
        raise InputError("ensemble: step= is for the dla methods; DOP853 chooses its own steps (max_step=)")
    if opts.scheduler not in ("local", "serial"):
        raise InputError(f"ensemble: scheduler must be 'local' or 'serial' (or pass client=), got {opts.scheduler!r}")
    for what in ("first_step", "first_integrals"):
        if vars(opts)[what] is not None:
            raise InputError(f"ensemble: {what} does not apply to a study")
    if t_eval is None:
        if isinstance(n_times, bool) or not isinstance(n_times, (int, np.integer)) or not 2 <= n_times <= MAX_POINTS:
            raise InputError(f"ensemble: n_times must be an integer from 2 to {MAX_POINTS}, got {n_times!r:.40}")
    tol = opts.integrator_options()
    if np.ndim(tol["atol"]):
        raise InputError(f"ensemble: atol must be one number (the batch has one tolerance for all states), "
                         f"got {tol['atol']!r:.60}")
    # the same validation as simulate's, and scipy's floor on rtol, so that a member steps as simulate would
    t0, t1 = check_arguments(t_span, tol, t_eval, opts.singular_tol, opts.manifold_tol, caller="ensemble")
    if not t1 > t0:
        raise InputError(f"ensemble: t_span must be (t0, t1) with t1 > t0, got ({t0:g}, {t1:g})")
    rtol = max(float(tol["rtol"]), 100 * np.finfo(float).eps)
    if t_eval is None:
        t_eval = np.linspace(t0, t1, int(n_times))
    t_eval = np.clip(np.asarray(t_eval, dtype=float).ravel(), t0, t1)  # check_arguments allows 1e-12 beyond
    if len(t_eval) > MAX_POINTS:
        raise InputError(f"ensemble: {len(t_eval)} output times; at most {MAX_POINTS} (theory/specfiles.md)")
    for what, value in (("params", params), ("initial", initial)):
        if value is not None and not isinstance(value, Mapping):
            raise InputError(f"ensemble: {what} must be a mapping {{name: value}}, got {type(value).__name__}")
    workers, chunk_size = opts.workers, opts.chunk_size
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, (int, np.integer))
                                or workers < 1):
        raise InputError(f"ensemble: workers must be a positive integer, got {workers!r:.40}")
    if chunk_size is not None and (isinstance(chunk_size, bool) or not isinstance(chunk_size, (int, np.integer))
                                   or chunk_size < 1):
        raise InputError(f"ensemble: chunk_size must be a positive integer, got {chunk_size!r:.40}")
    return t0, t1, t_eval, rtol


@dataclass
class _Study:
    """What :func:`ensemble` has resolved before it integrates: the system, its compiled model, the member
    table (``cols``) as arrays (``full`` states, ``P`` parameters, ``N`` members), the time span, the output
    times, the store and the options."""

    system: object
    prep: Prepared
    model: BatchModel
    cols: dict
    full: np.ndarray
    P: np.ndarray
    N: int
    desc: str
    t_span: tuple
    t_eval: np.ndarray
    store: object
    opts: EnsembleOptions

    def coords(self) -> dict:
        """{name: values over the members}: the parameters, then the table's other columns."""
        coords = {n: self.P[r] for r, n in enumerate(self.model.params)}
        coords.update({n: v for n, v in self.cols.items() if n not in coords})
        return coords


def _discrete_study(study: _Study, method: str, complete: bool):
    """:func:`ensemble` with a discrete Lagrange–d'Alembert method: every member stepped in this process
    or, with the options' client, on the Dask workers."""
    system, model, full, P, N, cols, desc = study.system, study.model, study.full, study.P, study.N, study.cols, \
        study.desc
    (t0, t1), t_eval, store, step = study.t_span, study.t_eval, study.store, study.opts.step
    backend, manifold_tol, callback = study.opts.backend, study.opts.manifold_tol, study.opts.callback
    settings = {"t_span": (t0, t1), "t_eval": t_eval, "step": float(step), "method": method, "backend": backend,
                "manifold_tol": float(manifold_tol), "complete": bool(complete)}
    coords = study.coords()
    attrs = {"title": f"jetgeo ensemble of {desc}", "formulation": method,
             "method": f"{method}, step {float(step):g}, every member by one compiled stepper",
             "manifold_tol": float(manifold_tol), "complete": int(bool(complete)), "t0": t0, "t1": t1,
             "parameters": list(model.params), "swept": list(cols), "jetgeo_version": __version__}
    attrs["fingerprint"] = fp = study_fingerprint(model.fingerprint, settings, full, P, N)
    st = open_store(store, fp, 1, N, N, {_coord_name(n): np.asarray(v, dtype=float) for n, v in coords.items()}
                    ) if store is not None else None
    if st is not None and st.complete():
        return st.result()
    try:
        ds = chunk_dataset(model, 0, run_discrete(system, model, settings, full, P, study.opts.client), t_eval,
                           coords, attrs)
        if st is not None:
            st.write(0, ds)
    except BaseException:
        if st is not None:
            st.close()
        raise
    if callback is not None:
        callback({"chunk": 0, "members": (0, N), "done": N, "total": N})
    return st.result() if st is not None else ds


def _batched_study(study: _Study, rtol: float, complete: bool):
    """:func:`ensemble` with the batched DOP853: chunks of members on the scheduler, each written to the store
    (if any) as it finishes."""
    prep, model, full, P, N, cols, opts = study.prep, study.model, study.full, study.P, study.N, study.cols, \
        study.opts
    (t0, t1), t_eval, callback = study.t_span, study.t_eval, opts.callback
    tol = opts.integrator_options()
    workers = int(opts.workers) if opts.workers else _default_workers()
    if opts.client is not None:
        try:
            workers = max(1, len(opts.client.scheduler_info().get("workers", {})))
        except (AttributeError, OSError):
            workers = 1
    chunk_size = opts.chunk_size
    if chunk_size is None:
        # a batch step costs a fixed ~1 ms of Python plus ~1 µs per member (rolling disc): large
        # batches, one or two per worker
        chunk_size = min(N, max(256, min(2500, math.ceil(N / workers))))
    settings = {"t_span": (t0, t1), "t_eval": t_eval, "rtol": float(rtol), "atol": float(tol["atol"]),
                "max_step": float(tol["max_step"]), "events": bool(opts.events),
                "singular_tol": float(opts.singular_tol), "manifold_tol": float(opts.manifold_tol),
                "complete": bool(complete), "atlas": bool(opts.atlas)}
    coords = study.coords()
    attrs = {"title": f"jetgeo ensemble of {study.desc}", "formulation": model.formulation,
             "method": "DOP853, batched over members (jetgeo.numerics.batch)", "rtol": settings["rtol"],
             "atol": settings["atol"], "singular_tol": settings["singular_tol"],
             "manifold_tol": settings["manifold_tol"], "events": int(settings["events"]),
             "complete": int(bool(complete)), "t0": t0, "t1": t1, "parameters": list(model.params),
             "swept": list(cols), "chunk_size": int(chunk_size),
             "status_meanings": "ok: reached t1; singular: stopped at a singular state (message says which); "
                                "failed: integrator failure; invalid: bad data (off Q, non-finite, singular start)",
             "jetgeo_version": __version__}
    starts = list(range(0, N, chunk_size))
    fp = study_fingerprint(model.fingerprint, settings, full, P, chunk_size)
    attrs["fingerprint"] = fp
    member_coords = {_coord_name(n): np.asarray(v, dtype=float) for n, v in coords.items()}
    st = open_store(study.store, fp, len(starts), N, chunk_size, member_coords) if study.store is not None else None
    parts: dict = {}
    done_chunks = st.done() if st is not None else set()
    if st is not None and st.complete():
        return st.result()
    bar = progress_bar(N, "ensemble", opts.progress, unit="member")
    done_members = sum(min(chunk_size, N - starts[i]) for i in done_chunks)
    if bar is not None and done_members:
        bar.update(done_members)
    counter = {"done": done_members}

    def on_done(i: int, result: dict) -> None:
        chunk = slice(starts[i], starts[i] + chunk_size)
        _finish_on_atlas(prep, model, settings, result, P[:, chunk])
        ds = chunk_dataset(model, starts[i], result, t_eval, coords, attrs)
        if st is not None:
            st.write(i, ds)
        else:
            parts[i] = ds
        n_i = ds.sizes["member"]
        counter["done"] += n_i
        if bar is not None:
            bar.update(n_i)
        if callback is not None:
            callback({"chunk": i, "members": (starts[i], starts[i] + n_i), "done": counter["done"], "total": N})

    tasks = [(i, full[:, s:s + chunk_size], P[:, s:s + chunk_size]) for i, s in enumerate(starts)
             if i not in done_chunks]
    try:
        _execute(model, settings, tasks, opts.scheduler, opts.client, workers, on_done)
    except BaseException:
        if st is not None:
            st.close()  # release the store's lock (result() releases it otherwise)
        raise
    finally:
        if bar is not None:
            bar.close()
    if st is not None:
        return st.result()
    import xarray as xr

    return xr.concat([parts[i] for i in sorted(parts)], dim="member", data_vars="all", coords="different",
                     compat="equals", join="exact", combine_attrs="override")
