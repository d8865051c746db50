r"""Stepping a scipy integrator by hand, with the singular-state monitors checked on every step and,
optionally, the velocities projected back onto Q along the kinetic metric after every step.

**Projection** (``project=True``, full formulation, explicit Runge–Kutta).  Newton iteration for
min ½ Δq̇ᵀWΔq̇ subject to f(t, q, q̇ + Δq̇) = 0: Δq̇ = −W⁻¹Jᵀ(JW⁻¹Jᵀ)⁻¹ f with J = ∂f/∂q̇
(:func:`project_velocities`); the residuals stay at round-off.

**The real domain.**  The compiled code evaluates √, acos, log … of real numbers: where the state
leaves their domain it raises ("math domain error", a division by zero, an overflow).  A stage of an
explicit Runge–Kutta step that does so is retried with a smaller step (the stage state is an
extrapolation); when even a step of 1e-12 |t| leaves the domain, the motion has reached its edge and
the run ends as ``failed`` with "the state left the real domain of the equations at t = …" (the
command line's exit 1), the data up to there kept.  Initial data outside the domain are an
:class:`~jetgeo.errors.InputError` (:func:`not_real_at_start`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.integrate import BDF, DOP853, LSODA, RK23, RK45, OdeSolution, Radau
from scipy.optimize import brentq

from ...errors import InputError, JetgeoError
from .events import touch_down
from .prepare import PreparedSystem

__all__ = ["integrate", "project_velocities", "not_real_at_start", "SOLVERS", "EXPLICIT_RK", "IMPLICIT",
           "DOMAIN_ERRORS"]

#: the explicit Runge–Kutta methods (the ones projection works with)
EXPLICIT_RK = {"RK45": RK45, "RK23": RK23, "DOP853": DOP853}
#: the methods :func:`integrate` steps
SOLVERS = {**EXPLICIT_RK, "Radau": Radau, "BDF": BDF, "LSODA": LSODA}
#: the implicit methods (they use the Jacobian ∂F/∂y of the right-hand side)
IMPLICIT = ("Radau", "BDF", "LSODA")


@dataclass
class Out:
    """What :func:`integrate` returns: output times and states (integration state), scipy's status
    (0 finished, 1 an event stopped the run, −1 a failed step) and message, the number of right-hand
    side calls, the dense output, and per event the times and states where it fired."""

    t: np.ndarray
    y: np.ndarray
    status: int
    message: str
    nfev: int
    sol: object
    t_events: list | None
    y_events: list | None
    #: the time the integration ended at: t1, the time of a stopping event, or where a step failed
    t_stop: float | None = None


class _LeftDomain(Exception):  # noqa: N818 - a signal inside this module, not an error of jetgeo
    """The compiled right-hand side failed at (t, y): the state left its real domain."""

    def __init__(self, t: float, exc: BaseException) -> None:
        super().__init__(t, exc)
        self.t = float(t)
        self.exc = exc


#: what the compiled (straight-line ``math``) code raises where the state leaves the real domain of the
#: equations: √ or acos or log of a value outside their domain ("math domain error"), a division by zero,
#: an overflow ("math range error")
DOMAIN_ERRORS = (ValueError, ZeroDivisionError, OverflowError)


def not_real_at_start(t0: float, exc: BaseException) -> InputError:
    """The :class:`~jetgeo.errors.InputError` for initial data outside the real domain of the equations
    (``exc``: the domain error the compiled code raised there).

    Parameters
    ----------
    t0 : float
        The initial time.
    exc : BaseException
        The error of the compiled code (one of ``DOMAIN_ERRORS``).

    Returns
    -------
    InputError
        To be raised by the caller.

    Examples
    --------
    >>> str(not_real_at_start(0.0, ValueError("math domain error")))
    'simulate: the equations are not defined (real) at the initial state, t = 0 (math domain error)'
    """
    return InputError(f"simulate: the equations are not defined (real) at the initial state, t = {t0:g} ({exc})")


def _guarded(fn):
    """``fn(t, y)`` with a domain error of the compiled code turned into :class:`_LeftDomain` (a jetgeo
    error raised inside, e.g. by a user's callable, passes unchanged)."""
    if fn is None:
        return None

    def g(t, y):
        try:
            return fn(t, y)
        except DOMAIN_ERRORS as exc:
            if isinstance(exc, JetgeoError):
                raise
            raise _LeftDomain(t, exc) from exc

    return g


def _step(solver, method: str):
    """``solver.step()``; an explicit Runge–Kutta step whose stages leave the real domain is retried with a
    step ten times smaller (a stage state is an extrapolation: the motion itself may stay inside), down to
    a step of 1e-12 |t|: only then has the motion itself reached the domain's boundary."""
    while True:
        try:
            return solver.step()
        except _LeftDomain:
            if method not in EXPLICIT_RK or solver.h_abs <= 1e-12 * max(1.0, abs(solver.t)):
                raise
            solver.h_abs *= 0.1


def _domain_message(err: _LeftDomain) -> str:
    return f"the state left the real domain of the equations at t = {err.t:.6g} ({err.exc})"



def integrate(prep: PreparedSystem, fun, jac, t_span, y0, p, method: str, t_eval, ev_list, bar, project: bool,
              options: dict) -> Out:
    """Step a scipy integrator by hand, with the singular-state monitors checked on every step.

    A monitor stops the integration where it changes sign (located on the step's dense output by
    Brent's method) or, for the non-negative quantities (det JJᵀ, |c|), where it touches zero between
    two step ends — a minimum inside a step, which ``solve_ivp``'s sign-change events cannot see.
    With ``project`` (explicit Runge–Kutta only) the velocities are projected onto Q after every step.

    Parameters
    ----------
    prep : PreparedSystem
        The compiled system (its constraints and metric, for the projection).
    fun, jac : callable
        The right-hand side ``fun(t, y)`` and its Jacobian ``jac(t, y)`` (or None; used by the implicit
        methods).
    t_span, y0, p : (t0, t1), ndarray, ndarray
        The time span, the initial state (of the formulation) and the parameter values.
    method : str
        A key of :data:`SOLVERS`.
    t_eval : sequence of float or None
        The output times (None: every step).
    ev_list : list
        The monitors, as :func:`~jetgeo.numerics.simulation.events.singular_state_events` makes them: tuples
        whose first item is ``ev(t, y)`` (with ``ev.touch``: a non-negative quantity).
    bar : progress bar or None
        Updated per mille of the span.
    project : bool
        Project the velocities onto Q after every step.
    options : dict
        Options of the scipy solver (rtol, atol, max_step, first_step, …), as ``solve_ivp`` passes them.

    Returns
    -------
    Out
        The output times and states, the status and message, the dense output and the events that fired.
    """
    if method not in SOLVERS:
        raise InputError(f"unknown integration method {method!r}; one of {list(SOLVERS)}")
    if project and method not in EXPLICIT_RK:
        raise InputError(f"project=True works with the explicit Runge–Kutta methods {list(EXPLICIT_RK)}; "
                         f"got {method!r}")
    t0, t1 = t_span
    if project:
        y0 = project_velocities(prep, t0, y0, p)
    kw = {"jac": _guarded(jac)} if method in IMPLICIT and jac is not None else {}
    try:
        solver = SOLVERS[method](_guarded(fun), t0, y0, t1, **options, **kw)
    except _LeftDomain as err:
        raise not_real_at_start(t0, err.exc) from None
    ts, ys, interps = [t0], [y0], []
    status, message = 0, "The solver successfully reached the end of the integration interval."
    t_events = [[] for _ in ev_list]
    y_events = [[] for _ in ev_list]
    ev_old = [e[0](t0, y0) for e in ev_list]
    t_stop = t1
    while solver.status == "running":
        try:
            msg = _step(solver, method)
        except _LeftDomain as err:
            status, message, t_stop = -1, _domain_message(err), err.t
            break
        if solver.status == "failed":
            status, message, t_stop = -1, msg or "step failed", solver.t
            break
        interp = solver.dense_output()
        yp = solver.y
        if project:
            yp = project_velocities(prep, solver.t, solver.y, p)
            solver.y = yp
            try:
                solver.f = solver.fun(solver.t, yp)
            except _LeftDomain as err:
                status, message, t_stop = -1, _domain_message(err), err.t
                break

        def state(s, it=interp):
            return project_velocities(prep, s, it(s), p) if project else it(s)

        hit = _first_event(ev_list, ev_old, solver, yp, state)
        interps.append(interp)
        if hit is not None:
            tk, k = hit
            yk = state(tk)
            t_events[k].append(tk)
            y_events[k].append(yk)
            ts.append(tk)
            ys.append(yk)
            status, message, t_stop = 1, "A termination event occurred.", tk
            break
        ts.append(solver.t)
        ys.append(yp)
        if bar is not None:
            bar.n = int(1000 * (solver.t - t0) / ((t1 - t0) or 1.0))
            bar.refresh()
    T, Y, sol = _output(prep, ts, ys, interps, y0, p, t0, t_eval, status, project)
    return Out(T, Y, status, message, solver.nfev, sol, [np.array(x) for x in t_events],
               [np.array(x) for x in y_events], float(t_stop))


def _first_event(ev_list: list, ev_old: list, solver, yp, state):
    """(time, index) of the first monitor of ``ev_list`` that fired in the solver's last step (None if none):
    a sign change located by Brent's method on the step's dense output ``state``, or a touch-down of a
    non-negative quantity between the step's ends.  ``ev_old`` is updated to the values at the step's end."""
    hit = None
    for k, (ev, *_rest) in enumerate(ev_list):
        new = ev(solver.t, yp)
        tk = None
        if ev_old[k] > 0 >= new:
            tk = brentq(lambda s, ev=ev: ev(s, state(s)), solver.t_old, solver.t,
                        xtol=1e-14 * max(1.0, abs(solver.t)))
        elif ev.touch and ev_old[k] > 0 and new > 0:
            tk = touch_down(ev, state, solver.t_old, solver.t, ev_old[k], new)
        if tk is not None and (hit is None or tk < hit[0]):
            hit = (tk, k)
        ev_old[k] = new
    return hit


def _output(prep: PreparedSystem, ts: list, ys: list, interps: list, y0, p, t0: float, t_eval, status: int,
            project: bool) -> tuple:
    """(output times, states, dense output ``sol(t)``) of a run that stepped through ``ts``/``ys``: every step,
    or ``t_eval`` up to where the run ended (and the state where an event stopped it)."""
    ts_a = np.array(ts)
    dense = OdeSolution(ts_a, interps) if len(interps) else None

    def sol(t):
        t = np.atleast_1d(np.asarray(t, dtype=float))
        y = np.atleast_2d(dense(t).T).T if dense is not None else np.tile(y0[:, None], (1, len(t)))
        if not project:
            return y
        return np.stack([project_velocities(prep, ti, y[:, i], p) for i, ti in enumerate(t)], axis=1)

    if t_eval is None:
        return ts_a, np.array(ys).T, sol
    te = np.asarray(t_eval, dtype=float)
    te = te[(te >= t0) & (te <= ts_a[-1])]
    Y = sol(te) if len(te) else np.zeros((len(y0), 0))
    T = te
    if status == 1 and (len(T) == 0 or ts_a[-1] > T[-1]):  # keep the state where the run was stopped
        T = np.append(T, ts_a[-1])
        Y = np.concatenate([Y.reshape(len(y0), -1), ys[-1][:, None]], axis=1)
    return T, Y, sol


def project_velocities(prep: PreparedSystem, t, y, p, maxit: int = 8) -> np.ndarray:
    """Newton projection of the velocities onto Q along the metric W (see module docstring).

    Parameters
    ----------
    prep : PreparedSystem
        The prepared system: its compiled constraints f, their scales, J = ∂f/∂q̇ and the metric W.
    t : float
        The time.
    y : numpy.ndarray
        The full state (q, q̇); not modified.
    p : numpy.ndarray
        The parameter values.
    maxit : int, default 8
        The most Newton updates.

    Returns
    -------
    numpy.ndarray
        A copy of ``y`` with q unchanged and q̇ moved to the nearest point of Q in the metric W,
        q̇ ← q̇ − W⁻¹Jᵀ(JW⁻¹Jᵀ)⁻¹ f, until |f^j| ≤ 4·10⁻¹⁶ (1 + Σ|terms of f^j|).
    """
    y = np.array(y, dtype=float)
    m = len(prep.model.q)
    for _ in range(maxit):
        f = prep.constraint_residuals(t, y, p)
        scale = 1.0 + np.abs(prep.constraint_scales(t, y, p))
        if np.all(np.abs(f) <= 4e-16 * scale):
            break
        J = prep.jacobian_of_constraints(t, y, p)
        W = prep.metric(t, y, p)
        WiJt = np.linalg.solve(W, J.T)
        mu = np.linalg.solve(J @ WiJt, f)
        y[m:] -= WiJt @ mu
    return y
