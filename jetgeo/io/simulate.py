r"""Numerical integration of a spec, for ``jetgeo simulate``, through :func:`jetgeo.numerics.simulate`.

The full state (q, q̇) obeys q̈ = F(t, q, q̇) with F the accelerations of Krupková's
reduced equations extended to every coordinate (004 (8) with q̈^D = dg/dt), started on
Q (the spec's initial data, dependent velocities completed from the normal form); the
drift max |f^i| along the computed trajectory measures how well the integration stays
on the constraint manifold (the exact flow is tangent to Q).
"""

from __future__ import annotations

import importlib

from ..errors import SpecError
from .spec import Spec

__all__ = ["simulate_spec"]


def simulate_spec(spec: Spec, t_end: float, points: int = 201, rtol: float = 1e-9, atol: float = 1e-11) -> dict:
    """Integrate from the spec's initial data to ``t_end``.

    Returns {"t": [...], "y": [[q..., q̇...], ...], "names": [...], "engine": str, "drift": float|None}.
    """
    try:
        numerics = importlib.import_module("jetgeo.numerics")
    except ImportError:
        numerics = None
    if numerics is None or not hasattr(numerics, "simulate"):
        raise SpecError("simulation is not available (jetgeo.numerics is not part of this installation)")
    return _with_numerics(numerics, spec, t_end, points, rtol, atol)


def _with_numerics(numerics, spec: Spec, t_end: float, points: int, rtol: float, atol: float) -> dict:
    """Through :func:`jetgeo.numerics.simulate` (constraint monitoring, singular-state events)."""
    import numpy as np

    if points < 2:
        raise SpecError(f"need at least 2 output points, got {points}")
    Y = spec.Y
    pvals = spec.numeric_params() if spec.parameters else {}
    y0 = spec.initial_state()
    t0 = y0.pop(Y.t)
    if not t_end > t0:
        raise SpecError(f"{spec.source}: --t-end {t_end} must be after the initial time {t0}")
    model = spec.constrained() if spec.Q is not None else spec.system
    res = numerics.simulate(model, (t0, t_end), initial=y0, params=pvals, t_eval=np.linspace(t0, t_end, points),
                            rtol=rtol, atol=atol, progress=None)
    rows = np.hstack([np.asarray(res.q), np.asarray(res.qdot)]).tolist()
    names = [str(s) for s in (*Y.q, *Y.qdot)]
    drift = None
    if spec.Q is not None and hasattr(res, "max_residual"):
        mr = res.max_residual
        drift = float(mr() if callable(mr) else mr)
    out = {"t": np.asarray(res.t).tolist(), "y": rows, "names": names, "engine": "jetgeo.numerics.simulate",
           "drift": drift}
    if getattr(res, "event", None) is not None:
        out["message"] = str(res.event)
    elif not getattr(res, "success", True):
        out["message"] = str(getattr(res, "message", ""))
    return out
