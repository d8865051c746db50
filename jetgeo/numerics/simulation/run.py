r"""The driver: :func:`simulate` (one run, possibly across several charts of Q).

**The atlas** (``atlas=True``, a ConstrainedSystem in the full or reduced formulation).  A
normal form is a chart of Q: it fails where det ∂f/∂q̇^D = 0 although Q is smooth there (the
sleigh's ẏ = ẋ tan θ at θ = π/2).  With J = ∂f/∂q̇ and N the number of k-subsets D of the
m velocities, Cauchy–Binet gives det(J Jᵀ) = Σ_D det(J_D)², so the chart quality
ρ_D = det(J_D)²/det(J Jᵀ) ∈ [0, 1] sums to 1 over the choices and some choice has ρ ≥ 1/N
wherever the rank condition holds.  The run is watched for ρ of the choice in force falling
below 1/(4N); there the state (t, q, q̇) is handed to the choice of largest ρ at that point
(its normal form and accelerations derived once and cached, :meth:`ConstrainedSystem.
with_dependent`; a nonlinear constraint's branch is identified from the state) and the
integration continues (in the full formulation from the velocities projected onto Q along the
kinetic metric, as ``project=True`` does after every step: the drift f ≠ 0 that the full
formulation accumulates is not carried into the new chart, where the old dependent velocities
become independent ones).  ``result.charts`` lists each switch (time, old and new dependent
velocities, why).  ``atlas=False`` keeps one chart and stops at its boundary.

A ConstrainedSystem whose accelerations are unsimplified DAGs is integrated in the multipliers
formulation when ``"full"`` is asked: the DAG's quotients can be 0/0 at special states (the upright
Whipple bicycle); ``prepare(cs, "full")`` keeps the DAG accelerations.

The rarely changed choices of a run are a :class:`~.options.SimulationOptions` (``options=``), or its
fields as keywords.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence

import numpy as np
import sympy as sp

from ...errors import InputError, JetgeoError
from ...geometry.coerce import check_assumptions
from ...geometry.exact import is_small
from ...mechanics import ConstrainedSystem, Motion, QuasiVelocitySystem
from ...progress import progress_bar
from .atlas import bordered_monitor, chart_for, chart_monitor
from .discrete import DISCRETE_METHODS, simulate_discrete
from .events import singular_state_events
from .initial import check_on_manifold, initial_data, lookup
from .integrate import DOMAIN_ERRORS, IMPLICIT, integrate, not_real_at_start, project_velocities
from .model import pair_of
from .options import SimulationOptions
from .prepare import PreparedSystem, prepare
from .results import SimulationResult, finish, merge

__all__ = ["simulate", "SimulationStoppedWarning", "check_arguments"]

class SimulationStoppedWarning(UserWarning):
    """A simulation ended before the end of its time span (a singular state, or a failed step);
    ``result.event`` / ``result.message`` say why."""


def simulate(
    system,
    t_span: Sequence,
    initial: Mapping,
    params: Mapping | None = None,
    method: str = "DOP853",
    t_eval=None,
    dense_output: bool = True,
    events: bool = True,
    *,
    formulation: str = "full",
    project: bool = False,
    complete: bool = False,
    options: SimulationOptions | None = None,
    **keywords,
) -> SimulationResult:
    r"""Integrate the equations of motion of a (constrained) system from data on Q.

    The state is integrated in one of three formulations (``"full"``: (q, q̇) on J¹Y with the
    accelerations of Krupková's reduced equations [Stolařová 2009, eq. (8)];
    ``"reduced"``: (q, q̇^I) on Q with the normal form q̇^D = g [Stolařová 2009,
    eq. (4)]; ``"multipliers"``: (q, q̇) with the bordered system W q̈ − Jᵀλ = …, J q̈ = −d̄f
    solved at every step, no normal form; also where the full one's accelerations are unsimplified DAGs,
    ``result.formulation`` says so).  The run stops early only at a *singular state of the problem*,
    with a :class:`SimulationStoppedWarning` and ``result.event`` saying why: the rank of ∂f/∂q̇ drops
    [Stolařová 2009, eq. (3)], the constrained system stops being regular [Stolařová 2009, eq. (12)],
    the multiplier equations become singular [Ibort et al. 1996, eq. (4.17)], a branch of a nonlinear
    constraint leaves its domain, or a condition of a result (``Motion.conditions``) vanishes.

    **The atlas** (``atlas=True``, full or reduced formulation; the module docstring).  A normal form is a
    chart of Q: it fails where det ∂f/∂q̇^D = 0 although Q is smooth (the sleigh's ẏ = ẋ tan θ at θ = π/2).
    Cauchy–Binet gives det(J Jᵀ) = Σ_D det(J_D)² (J = ∂f/∂q̇, D the N k-subsets of the m velocities), so
    the chart quality ρ_D = det(J_D)²/det(J Jᵀ) sums to 1 and some choice has ρ ≥ 1/N wherever the rank
    condition holds.  Where ρ of the choice in force falls below 1/(4N) the state goes to the choice of
    largest ρ (:meth:`ConstrainedSystem.with_dependent`; in the full formulation with the velocities
    projected onto Q along the kinetic metric) and the run continues; ``result.charts`` lists the switches.

    Parameters
    ----------
    system : ConstrainedSystem, Motion, LagrangianSystem, the result of :func:`prepare`, or a pair
        (LagrangianSystem, ConstraintSubmanifold) (a catalogue entry or an imported model too):
        integrated in the multipliers formulation, no normal form — the way to simulate long chains of
        bodies.  A :class:`~jetgeo.mechanics.quasi.QuasiVelocitySystem` is integrated as its Hamel
        equations, ``motion()`` (``initial`` in the jets: its ``jet_state``).
    t_span : (t0, t1)
    initial : {symbol or name: value}
        Values of every q^σ and q̇^σ at t0.  With ``complete=True`` k of the velocities may be
        omitted (k the number of constraints): they are computed from f(t0, q, q̇) = 0, whichever
        k velocities the constraints can be solved for at the point.  Data off Q raise
        :class:`~jetgeo.errors.OffManifoldError` naming the violated constraint and its value.
    params : {symbol or name: value}
        Values of the parameters (masses, radii, …).
    method, t_eval, dense_output : as in :func:`scipy.integrate.solve_ivp` (``method`` one of
        RK45, RK23, DOP853, Radau, BDF, LSODA), or a discrete Lagrange–d'Alembert integrator
        ``"dla-midpoint"``, ``"dla-trapezoid"``, ``"dla-4"`` with ``step=h`` (fixed steps, every node
        on Q: :func:`~jetgeo.numerics.simulation.discrete.simulate_discrete`).
    events : bool
        Stop at singular states with an explanation (and switch charts, with ``atlas``).
    formulation : "full", "reduced" or "multipliers" (see above).
    project : bool
        Project the velocities back onto Q after every step (full formulation, explicit
        Runge–Kutta methods RK45/RK23/DOP853).
    complete : bool
        Compute the omitted velocities of ``initial`` (see there).
    options : SimulationOptions, optional
        The rarely changed choices (:class:`~jetgeo.numerics.simulation.options.SimulationOptions`):
        rtol (default 1e-10), atol (1e-12), max_step (inf), first_step, step (of a dla method),
        singular_tol, manifold_tol, atlas, backend ("python", "c" or "auto"; with "c" a division by zero
        in the right-hand side gives inf/nan instead of raising), progress, first_integrals (extra
        quantities along the solution, ``result.integrals``), and any other option of the scipy solver.
    **keywords
        Any of these by name, as ``solve_ivp`` takes its ``**options``: ``simulate(sys, t_span, y0,
        rtol=1e-8, singular_tol=1e-9)``; a keyword overrides the field of ``options``.

    Returns
    -------
    SimulationResult
        The trajectory ``t``, ``y`` (the full state (q, q̇)), the monitors along it (constraint residuals,
        energy, multipliers and reactions where the formulation gives them), the status and, when the run
        stopped at a singular state, the :class:`~jetgeo.numerics.simulation.events.SingularEvent`.

    More: the docstrings of :mod:`jetgeo.numerics.simulation` and of this module, ``theory/numerics.md``.
    """
    opts = SimulationOptions.merged(options, keywords)
    if isinstance(method, str) and method in DISCRETE_METHODS:  # discrete Lagrange–d'Alembert: its own stepper
        return _discrete(system, t_span, initial, params, method, t_eval, formulation, project, complete, opts)
    solver = opts.integrator_options()
    check_arguments(t_span, solver, t_eval, opts.singular_tol, opts.manifold_tol)
    prep = _prepared(system, formulation, opts)
    t0, t1 = float(t_span[0]), float(t_span[1])
    p = _parameter_values(prep, params := dict(params or {}))
    atlas_on = bool(opts.atlas and events and prep.model.cs is not None and prep.model.f
                    and prep.formulation in ("full", "reduced"))
    prep, y_full, stop = _initial_state(prep, initial, complete, t0, p, atlas_on, switches := [], opts)
    run = dict(method=method, t_eval=t_eval, project=project, events=events, singular_tol=opts.singular_tol,
               dense_output=dense_output, options=solver)
    res, stop = _across_charts(prep, (t0, t1), y_full, p, params, atlas_on, stop, switches, opts, run)
    return _ended(res, stop, switches, t1)


def _discrete(system, t_span, initial, params, method: str, t_eval, formulation: str, project: bool,
              complete: bool, opts: SimulationOptions) -> SimulationResult:
    """:func:`simulate` with a discrete Lagrange–d'Alembert method: its own stepper, every node on Q."""
    if formulation != "full" or project:  # every node is on Q by construction: nothing to choose or project
        raise InputError(f"simulate: the {method} method steps the discrete system on Q itself; "
                         f"formulation={formulation!r} and project={project!r} do not apply to it")
    return simulate_discrete(system, t_span, initial, params, method, complete=complete,
                             manifold_tol=opts.manifold_tol, backend=opts.backend,
                             first_integrals=opts.first_integrals, t_eval=t_eval, **opts.given())


def _initial_state(prep: PreparedSystem, initial, complete: bool, t0: float, p, atlas_on: bool, switches: list,
                   opts: SimulationOptions) -> tuple:
    """(prep, full state, stop) at t0: the initial data completed and checked on Q, in the chart of the atlas
    that serves them (``stop`` the failure where none does)."""
    stop = None
    try:  # the compiled constraints, normal form and monitors at the initial state
        y_full = initial_data(prep, initial, complete, t0, p)
        if atlas_on:
            prep, stop = chart_for(prep, t0, y_full, p, switches, opts.first_integrals, initial_check=True)
        check_on_manifold(prep, t0, y_full, p, opts.manifold_tol)
    except DOMAIN_ERRORS as exc:
        if isinstance(exc, JetgeoError):
            raise
        raise not_real_at_start(t0, exc) from None
    return prep, y_full, stop


def _prepared(system, formulation: str, opts: SimulationOptions) -> PreparedSystem:
    """The :class:`PreparedSystem` :func:`simulate` integrates: ``system`` prepared in ``formulation``, or in the
    multipliers formulation where the full one has no (usable) symbolic accelerations."""
    if isinstance(system, QuasiVelocitySystem) and formulation != "multipliers":
        system = system.motion()  # Hamel's equations; "multipliers" takes S itself: its bordered system only
    prepared = isinstance(system, PreparedSystem)
    if formulation == "full" and not prepared and pair_of(system) is not None:
        formulation = "multipliers"  # a (system, Q) pair has no symbolic accelerations to integrate
    if formulation == "full" and isinstance(system, ConstrainedSystem) and system.is_large:
        # the accelerations are an unsimplified DAG: 0/0 at special states (the Whipple bicycle
        # upright); the bordered system, solved numerically at each step, has the same motions on Q
        formulation = "multipliers"
    if (formulation == "full" and isinstance(system, Motion) and system.bordered is not None
            and not all(is_small(e) for e in system.accelerations().values())):
        # the same for a route that carries its own bordered system (Hamel's equations of a rolling body)
        formulation = "multipliers"
    backend = opts.backend
    if prepared and opts.first_integrals:
        raise InputError("give first_integrals to prepare(), not to simulate(), when passing a prepared system")
    if prepared and backend is not None and backend != system.backend:
        raise InputError(f"simulate: the prepared system was compiled with backend={system.backend!r}, not "
                        f"{backend!r}; give backend to prepare()")
    return system if prepared else prepare(system, formulation, opts.first_integrals, backend or "python")


def _parameter_values(prep: PreparedSystem, params: dict) -> np.ndarray:
    """The values of ``prep.params`` from ``params`` (by symbol or name), checked against their assumptions."""
    pvals = []
    missing_p = []
    for s in prep.params:
        v = lookup(params, s)
        if v is None:
            missing_p.append(s)
        else:
            pvals.append(float(v))
    if missing_p:
        raise InputError(f"simulate: no value given for the parameter(s) {sorted(map(str, missing_p))}")
    check_assumptions(dict(zip(prep.params, pvals)), "simulate")  # a mass m = −1 turns cos into cosh
    return np.array(pvals, dtype=float)


def _across_charts(prep: PreparedSystem, span: tuple, y_full, p, params: dict, atlas_on: bool, stop, switches: list,
                   opts: SimulationOptions, run: dict) -> tuple:
    """(result, stop): the run from ``y_full`` at t0 chart after chart of Q (one chart without the atlas), the
    segments merged; ``stop`` the :class:`~.atlas.ChartSwitch` failure where no chart continues (else None)."""
    t0, t1 = span
    bar = progress_bar(1000, "simulate", opts.progress, unit="‰")  # per mille of [t0, t1]
    segments = []
    try:
        t_start, y_start = t0, y_full
        while True:
            seg, hit = _segment(prep, t_start, t1, y_start, p, params, atlas_on, bar=bar, **run)
            segments.append(seg)
            if hit is None:
                break
            t_start, y_start = hit
            if prep.formulation == "full":  # start the new chart on Q: the velocities projected along W
                y_start = project_velocities(prep, t_start, y_start, p)
            prep, stop = chart_for(prep, t_start, y_start, p, switches, opts.first_integrals)
            if stop is not None:
                break
    finally:
        if bar is not None:
            bar.close()
    return (segments[0] if len(segments) == 1 else merge(segments, run["t_eval"] is not None)), stop


def _ended(res: SimulationResult, stop, switches: list, t1: float) -> SimulationResult:
    """``res`` with its chart switches, and its status where no chart of Q continued; a
    :class:`SimulationStoppedWarning` when it ended before t1."""
    res.charts = list(switches)
    if stop is not None:  # no chart of Q continues at the switch point
        res.event, res.t_stop = stop, stop.t
        if stop.proven:  # a singular state after all
            res.status, res.success = "singular", True
            res.message = f"integration stopped at t = {stop.t:.6g}: {stop.explanation}"
        else:
            res.status, res.success = "failed", False
            res.message = f"integration failed at t = {stop.t:.6g}: {stop.explanation}"
    if res.status != "finished":
        warnings.warn(f"simulate: the run ended at t = {res.t_stop:.6g} before t = {t1:g}: {res.message}",
                      SimulationStoppedWarning, stacklevel=3)
    return res


def _segment(prep: PreparedSystem, t0, t1, y_full, p, params, atlas_on: bool, *, method, t_eval, project,
             events, singular_tol, bar, dense_output, options):
    """Integrate in one chart from the full state ``y_full`` at t0.  Returns (result, hit) where
    hit = (t, full state) when the chart monitor of the atlas fired (None otherwise)."""
    M = prep.model
    m = len(M.q)
    if prep.formulation != "reduced":
        y0 = y_full.copy()
    else:
        y0 = np.concatenate([y_full[:m], [y_full[m + M.qdot.index(v)] for v in prep.independent]])
    ev_list = singular_state_events(prep, t0, y0, p, singular_tol, skip_chart=atlas_on) if events else []
    if atlas_on:
        ev_list.append(chart_monitor(prep, t0, y0, p))
        if M.atlas_chart and prep.bordered is not None:
            ev_list.append(bordered_monitor(prep, t0, y0, p))
    span = (t1 - t0) or 1.0

    if method in IMPLICIT:
        prep = prep.with_jacobian()
    fun_c = prep.rhs._func
    jac_c = prep.rhs.jacobian._func if prep.rhs.jacobian is not None else None
    if bar is not None:
        state = {"n": bar.n}

        def fun(t, y):
            k = int(1000 * (t - t0) / span)
            if k > state["n"]:
                bar.update(k - state["n"])
                state["n"] = k
            return fun_c(t, y, p)
    else:
        def fun(t, y):
            return fun_c(t, y, p)

    def jac(t, y):
        return jac_c(t, y, p)

    projecting = bool(project and prep.formulation != "reduced" and M.f)
    out = integrate(prep, fun, jac if jac_c is not None else None, (t0, t1), y0, p, method, t_eval, ev_list, bar,
                    projecting, options)
    if not dense_output:
        out.sol = None
    hit = None
    if out.status == 1:
        k = next(i for i, te in enumerate(out.t_events) if len(te))
        if ev_list[k][0].chart is not None:
            te = float(out.t_events[k][0])
            hit = (te, prep.to_full(np.array([te]), np.asarray(out.y_events[k][0])[:, None], p)[:, 0])
            out.status, out.message = 0, f"chart boundary at t = {te:.6g}"
    return finish(prep, out, p, params, ev_list, projecting, t0), hit





def _finite(value, what: str, positive: bool = False, allow_inf: bool = False, caller: str = "simulate") -> float:
    """``value`` as a float, InputError unless finite (or +inf with ``allow_inf``) and > 0 / ≥ 0."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating, sp.Number)):
        raise InputError(f"{caller}: {what} must be a number, got {type(value).__name__} {value!r:.40}")
    try:
        v = float(value)
    except (TypeError, ValueError):  # a sympy number that is not real (I, zoo)
        raise InputError(f"{caller}: {what} must be a real number, got {value!r:.40}") from None
    if math.isnan(v) or (math.isinf(v) and not (allow_inf and v > 0)):
        raise InputError(f"{caller}: {what} must be finite, got {value!r}")
    if (positive and not v > 0) or v < 0:
        raise InputError(f"{caller}: {what} must be {'> 0' if positive else '>= 0'}, got {value!r}")
    return v



def check_arguments(t_span, options: dict, t_eval, singular_tol, manifold_tol, caller: str = "simulate") -> tuple:
    """The one validation of an integration's time span, tolerances and options, for :func:`simulate` and
    :func:`~jetgeo.numerics.ensemble` alike.

    InputError for arguments the integrator would misread: t_span = (0, nan) and rtol = nan ran for
    ever, manifold_tol = nan switched the off-Q check off, t_eval outside the span returned one sample
    with success=True, t_span = (0, 0) raised ZeroDivisionError; rtol = atol = 0, max_step ≤ 0 and
    singular_tol = nan never returned from the batched integrator, rtol < 0 or atol < 0 returned wrong
    results, manifold_tol < 0 marked every member off Q.

    Parameters
    ----------
    t_span : the pair (t0, t1), finite, t1 ≠ t0.
    options : {"rtol": > 0 and < 1, "atol": ≥ 0 (or one per state component), "max_step": > 0 or inf,
        "first_step": > 0 (optional)}.
    t_eval : None or output times inside t_span, strictly monotonic in its direction.
    singular_tol, manifold_tol : finite numbers ≥ 0.
    caller : the name the messages start with.

    Returns
    -------
    (t0, t1) as floats.

    Examples
    --------
    >>> check_arguments((0, 1), {"rtol": 1e-9, "atol": 0.0, "max_step": float("inf")}, None, 1e-6, 1e-9)
    (0.0, 1.0)
    """
    try:
        t0, t1 = t_span
    except (TypeError, ValueError):
        raise InputError(f"{caller}: t_span must be a pair (t0, t1), got {t_span!r:.60}") from None
    if isinstance(t0, bool) or isinstance(t1, bool):
        raise InputError(f"{caller}: t_span must hold numbers, got {t_span!r:.60}")
    t0 = _finite(t0, "t_span[0]", caller=caller)
    t1 = _finite(t1, "t_span[1]", caller=caller)
    if t0 == t1:
        raise InputError(f"{caller}: t_span = ({t0:g}, {t1:g}) is empty; give t1 != t0")
    if not _finite(options["rtol"], "rtol", positive=True, caller=caller) < 1:
        raise InputError(f"{caller}: rtol must be < 1 (a relative error of 100 % or more controls nothing), "
                         f"got {options['rtol']!r}")
    if np.ndim(options["atol"]):  # scipy takes one atol per state component too
        for a in np.ravel(options["atol"]):
            _finite(a, "atol", caller=caller)
    else:
        _finite(options["atol"], "atol", caller=caller)
    _finite(options["max_step"], "max_step", positive=True, allow_inf=True, caller=caller)
    if "first_step" in options and options["first_step"] is not None:
        _finite(options["first_step"], "first_step", positive=True, caller=caller)
    _finite(singular_tol, "singular_tol", caller=caller)
    _finite(manifold_tol, "manifold_tol", caller=caller)
    if t_eval is not None:
        try:
            te = np.asarray(t_eval, dtype=float).ravel()
        except (TypeError, ValueError):
            raise InputError(f"{caller}: t_eval must be a sequence of numbers, got {t_eval!r:.60}") from None
        if te.size == 0:
            raise InputError(f"{caller}: t_eval is empty")
        if not np.all(np.isfinite(te)):
            raise InputError(f"{caller}: t_eval holds a non-finite value")
        lo, hi = min(t0, t1), max(t0, t1)
        tol = 1e-12 * max(1.0, abs(lo), abs(hi))
        out = te[(te < lo - tol) | (te > hi + tol)]
        if out.size:
            raise InputError(f"{caller}: t_eval value {out[0]:g} lies outside t_span = ({t0:g}, {t1:g})")
        d = np.diff(te)
        if te.size > 1 and not (np.all(d > 0) if t1 > t0 else np.all(d < 0)):
            raise InputError(f"{caller}: t_eval must be strictly monotonic in the direction of t_span")
    return t0, t1
