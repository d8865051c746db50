r"""Numerical integration of a spec, for ``jetgeo simulate``, through :func:`jetgeo.numerics.simulate`.

The full state (q, q̇) obeys q̈ = F(t, q, q̇) with F the accelerations of Krupková's
reduced equations extended to every coordinate ([Stolařová 2009, eq. (8)] with q̈^D = dg/dt), started on
Q (the spec's initial data, dependent velocities completed from the normal form); the
drift max |f^i| along the computed trajectory measures how well the integration stays
on the constraint manifold (the exact flow is tangent to Q).
"""

from __future__ import annotations

import warnings

import numpy as np

from ..errors import InputError
from ..numerics import SimulationStoppedWarning, simulate
from ..numerics.simulation.discrete import DISCRETE_METHODS
from .spec import Spec

__all__ = ["simulate_spec"]


def simulate_spec(spec: Spec, t_end: float, points: int = 201, rtol: float = 1e-9, atol: float = 1e-11,
                  formulation: str = "full", max_step: float | None = None, method: str = "DOP853",
                  step: float | None = None) -> dict:
    """Integrate from the spec's initial data to ``t_end``.

    Returns {"t": [...], "y": [[q..., q̇...], ...], "names": [...], "engine": str, "drift": float|None,
    "charts": [str, ...] (the chart switches of the atlas), "stopped": str|None (why the run ended before
    ``t_end``, one line; None when it reached it), "nfev": right-hand-side evaluations}.
    ``formulation`` is "full", "reduced" or "multipliers" (:func:`jetgeo.numerics.simulate`);
    ``max_step`` bounds the step size.  ``method`` is a solve_ivp method or a discrete
    Lagrange–d'Alembert integrator ("dla-midpoint", "dla-trapezoid", "dla-4") with its fixed ``step``:
    then the samples are the ``points`` nodes nearest to equally spaced times.

    Parameters
    ----------
    spec : Spec
        The spec (its initial data and parameter values).
    t_end : float
        The final time.
    points : int
        The number of samples.
    rtol, atol : float
        The tolerances of a solve_ivp method.
    formulation : {"full", "reduced", "multipliers"}
        As for :func:`jetgeo.numerics.simulate`.
    max_step : float, optional
        The largest step.
    method : str
        A solve_ivp method or a discrete Lagrange–d'Alembert integrator.
    step : float, optional
        The discrete integrator's fixed step.

    Returns
    -------
    dict
        See above.
    """
    discrete = method in DISCRETE_METHODS
    if discrete and step is None:
        raise InputError(f"--method {method} needs --step (the time step h)")
    if step is not None and not discrete:
        raise InputError(f"--step is the fixed step of the dla methods; --method {method} chooses its own steps")
    if discrete and spec.Q is None:
        raise InputError(f"{spec.source}: --method {method} needs constraints; the spec has none")
    if points < 2:
        raise InputError(f"need at least 2 output points, got {points}")
    if formulation not in ("full", "reduced", "multipliers"):
        raise InputError(f"--formulation must be full, reduced or multipliers, got {formulation!r}")
    for name, v in (("--rtol", rtol), ("--atol", atol)):
        if not (np.isfinite(v) and v > 0):
            raise InputError(f"{name} must be a positive number, got {v}")
    if max_step is not None and not max_step > 0:
        raise InputError(f"--max-step must be positive, got {max_step}")
    Y = spec.Y
    pvals = spec.numeric_params() if spec.parameters else {}
    y0 = spec.initial_state()
    t0 = y0.pop(Y.t)
    if not t_end > t0:
        raise InputError(f"{spec.source}: --t-end {t_end} must be after the initial time {t0}")
    if spec.Q is None and formulation != "full":
        raise InputError(f"{spec.source}: --formulation {formulation} needs constraints; the spec has none")
    if spec.quasi is not None:  # a [body] spec: Hamel's equations in its quasi-velocities (jetgeo/io/bodies.py)
        model = spec.quasi.motion()
    else:
        model = spec.constrained() if spec.Q is not None else spec.system
    with warnings.catch_warnings():  # the command reports an early end itself, in one line
        warnings.filterwarnings("ignore", category=SimulationStoppedWarning)
        if discrete:
            res = simulate((spec.system, spec.Q), (t0, t_end), y0, pvals, method=method, step=step)
            keep = np.unique(np.round(np.linspace(0, len(res.t) - 1, min(points, len(res.t)))).astype(int))
        else:
            res = simulate(model, (t0, t_end), y0, pvals, method=method, t_eval=np.linspace(t0, t_end, points),
                           progress=None, formulation=formulation, rtol=rtol, atol=atol,
                           max_step=np.inf if max_step is None else max_step)
            keep = np.arange(len(res.t))
    rows = np.hstack([np.asarray(res.q)[keep], np.asarray(res.qdot)[keep]]).tolist()
    names = [str(s) for s in (*Y.q, *Y.qdot)]
    drift = float(res.max_residual) if spec.Q is not None else None
    out = {"t": np.asarray(res.t)[keep].tolist(), "y": rows, "names": names, "engine": "jetgeo.numerics.simulate",
           "drift": drift, "charts": [str(c) for c in res.charts], "stopped": None, "nfev": int(res.nfev)}
    if res.event is not None:
        out["message"] = str(res.event)
    elif not res.success:
        out["message"] = str(res.message)
    if res.status != "finished":
        out["stopped"] = f"the run stopped at t = {res.t_stop:.6g} before --t-end {t_end:g}: " + (
            str(res.event.explanation) if res.event is not None else str(res.message))
    return out
