r"""Stepping a scipy integrator by hand, with the singular-state monitors checked on every step and,
optionally, the velocities projected back onto Q along the kinetic metric after every step.

**Projection** (``project=True``, full formulation, explicit Runge–Kutta).  Newton iteration for
min ½ Δq̇ᵀWΔq̇ subject to f(t, q, q̇ + Δq̇) = 0: Δq̇ = −W⁻¹Jᵀ(JW⁻¹Jᵀ)⁻¹ f with J = ∂f/∂q̇
(:func:`project_velocities`); the residuals stay at round-off.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.integrate import BDF, DOP853, LSODA, RK23, RK45, OdeSolution, Radau

from ...errors import InputError
from .events import touch_down
from .prepare import PreparedSystem

__all__ = ["integrate", "project_velocities", "SOLVERS", "EXPLICIT_RK", "IMPLICIT"]

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



def integrate(prep: PreparedSystem, fun, jac, t_span, y0, p, method: str, t_eval, ev_list, bar, project: bool,
              options: dict) -> Out:
    """Step a scipy integrator by hand, with the singular-state monitors checked on every step.

    A monitor stops the integration where it changes sign (located on the step's dense output by
    Brent's method) or, for the non-negative quantities (det JJᵀ, |c|), where it touches zero between
    two step ends — a minimum inside a step, which ``solve_ivp``'s sign-change events cannot see.
    With ``project`` (explicit Runge–Kutta only) the velocities are projected onto Q after every step.
    ``options`` go to the scipy solver (rtol, atol, max_step, first_step, …), as ``solve_ivp`` passes them.
    """
    from scipy.optimize import brentq

    if method not in SOLVERS:
        raise InputError(f"unknown integration method {method!r}; one of {list(SOLVERS)}")
    if project and method not in EXPLICIT_RK:
        raise InputError(f"project=True works with the explicit Runge–Kutta methods {list(EXPLICIT_RK)}; "
                         f"got {method!r}")
    t0, t1 = t_span
    if project:
        y0 = project_velocities(prep, t0, y0, p)
    kw = {"jac": jac} if method in IMPLICIT and jac is not None else {}
    solver = SOLVERS[method](fun, t0, y0, t1, **options, **kw)
    ts, ys, interps = [t0], [y0], []
    status, message = 0, "The solver successfully reached the end of the integration interval."
    t_events = [[] for _ in ev_list]
    y_events = [[] for _ in ev_list]
    ev_old = [e[0](t0, y0) for e in ev_list]
    while solver.status == "running":
        msg = solver.step()
        if solver.status == "failed":
            status, message = -1, msg or "step failed"
            break
        interp = solver.dense_output()
        yp = solver.y
        if project:
            yp = project_velocities(prep, solver.t, solver.y, p)
            solver.y = yp
            solver.f = solver.fun(solver.t, yp)

        def state(s, it=interp):
            return project_velocities(prep, s, it(s), p) if project else it(s)

        hit = None
        for k, (ev, *_rest) in enumerate(ev_list):
            new = ev(solver.t, yp)
            tk = None
            if ev_old[k] > 0 >= new:
                tk = brentq(lambda s, ev=ev: ev(s, state(s)), solver.t_old, solver.t,
                            xtol=1e-14 * max(1.0, abs(solver.t)))
            elif getattr(ev, "touch", False) and ev_old[k] > 0 and new > 0:
                tk = touch_down(ev, state, solver.t_old, solver.t, ev_old[k], new)
            if tk is not None and (hit is None or tk < hit[0]):
                hit = (tk, k)
            ev_old[k] = new
        interps.append(interp)
        if hit is not None:
            tk, k = hit
            yk = state(tk)
            t_events[k].append(tk)
            y_events[k].append(yk)
            ts.append(tk)
            ys.append(yk)
            status, message = 1, "A termination event occurred."
            break
        ts.append(solver.t)
        ys.append(yp)
        if bar is not None:
            bar.n = int(1000 * (solver.t - t0) / ((t1 - t0) or 1.0))
            bar.refresh()
    ts_a = np.array(ts)
    dense = OdeSolution(ts_a, interps) if len(interps) else None

    def sol(t):
        t = np.atleast_1d(np.asarray(t, dtype=float))
        y = np.atleast_2d(dense(t).T).T if dense is not None else np.tile(y0[:, None], (1, len(t)))
        if not project:
            return y
        return np.stack([project_velocities(prep, ti, y[:, i], p) for i, ti in enumerate(t)], axis=1)

    if t_eval is not None:
        te = np.asarray(t_eval, dtype=float)
        te = te[(te >= t0) & (te <= ts_a[-1])]
        Y = sol(te) if len(te) else np.zeros((len(y0), 0))
        T = te
        if status == 1 and (len(T) == 0 or ts_a[-1] > T[-1]):  # keep the state where the run was stopped
            T = np.append(T, ts_a[-1])
            Y = np.concatenate([Y.reshape(len(y0), -1), ys[-1][:, None]], axis=1)
    else:
        T, Y = ts_a, np.array(ys).T
    return Out(T, Y, status, message, solver.nfev, sol, [np.array(x) for x in t_events],
                [np.array(x) for x in y_events])



def project_velocities(prep: PreparedSystem, t, y, p, maxit: int = 8) -> np.ndarray:
    """Newton projection of the velocities onto Q along the metric W (see module docstring)."""
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
