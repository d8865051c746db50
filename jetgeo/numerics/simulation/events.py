r"""Singular-state events: the quantities whose vanishing stops a run, and how a step is searched.

A quantity c "vanishes" when it changes sign or |c| falls below ``singular_tol`` times its initial
size; a non-negative quantity that only *touches* zero inside a step (det J Jᵀ at a zero section,
where the multiplier formulation stays smooth) is caught by a minimum search on the step's dense
output (:func:`touch_down`).  Watched: the rank of ∂f/∂q̇ [Stolařová 2009, eq. (3)], the bordered
matrix of the multiplier formulation [Ibort et al. 1996, eq. (4.17)], and the model's conditions
(regularity [Stolařová 2009, eq. (12)], the normal form's determinant, a branch's domain, a result's
conditions).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import NotRegularError
from .prepare import PreparedSystem

__all__ = ["Monitor", "SingularEvent", "singular_state_events", "touch_down"]


class Monitor:
    """A terminal event of the integration: ``monitor(t, y)`` is the watched quantity minus ``thr``, the run
    stops where it falls through zero (``direction = -1``, as :func:`scipy.integrate.solve_ivp` reads it).

    Parameters
    ----------
    fn : callable
        (t, y) ↦ float, the quantity minus the threshold.
    thr : float
        The threshold subtracted (added back when the event is reported).
    touch : bool
        The quantity is ≥ 0 and may only touch zero between two steps: :func:`touch_down` looks for minima too.
    chart : tuple or None
        The dependent velocities whose chart ends at the event (the atlas's monitor), else None.
    """

    terminal = True
    direction = -1

    def __init__(self, fn, thr: float = 0.0, touch: bool = False, chart: tuple | None = None) -> None:
        self.fn, self.thr, self.touch, self.chart = fn, float(thr), touch, chart

    def __call__(self, t, y) -> float:
        return self.fn(t, y)


@dataclass
class SingularEvent:
    """Where and why the integration was stopped: time, explanation, the expression and its value.

    ``proven`` is False when the run stopped for a reason that is not a proof of a singular state
    (the atlas could not enter the next chart: a branch not identified at the state, …); the
    result's status is then "failed", not "singular".

    Attributes
    ----------
    t : float
        The time the run stopped.
    explanation : str
        What vanished and what that means (e.g. "det ∂f/∂q̇ → 0: the constraints are singular").
    expr : object
        The monitored quantity (a sympy expression or a label such as ``"rho"``).
    value : float
        Its value at ``t``.
    initial_value : float
        Its value at the start, against which the threshold is relative.
    proven : bool, default True
        Whether the stop proves a singular state.
    """

    t: float
    explanation: str
    expr: object
    value: float
    initial_value: float
    proven: bool = True

    def __str__(self) -> str:
        return (f"stopped at t = {self.t:.6g}: {self.explanation} "
                f"(value {self.value:.3g}, initially {self.initial_value:.3g})")


def singular_state_events(prep: PreparedSystem, t0, y0, p, tol, skip_chart: bool = False) -> list:
    """[(event function, explanation, expr, initial value)] in the integration state; with
    ``skip_chart`` the conditions that only bound the chart in use (the atlas watches those).

    Parameters
    ----------
    prep : PreparedSystem
        The compiled system.
    t0, y0 : float, numpy.ndarray
        The initial time and integration state.
    p : numpy.ndarray
        The parameter values.
    tol : float
        A monitored quantity c stops the run when |c| ≤ tol·|c(t0)|.
    skip_chart : bool
        Leave out the conditions that only bound the chart in use.

    Returns
    -------
    list of tuple
        (:class:`Monitor`, explanation, monitored expression, initial value) per event.

    Raises
    ------
    NotRegularError
        When the initial state is already singular (rank ∂f/∂q̇ < k [Stolařová 2009, eq. (3)], a singular
        bordered matrix [Ibort et al. 1996, eq. (4.17)], a condition vanishing or out of its branch).
    """
    out = []

    def make_threshold(fn, c0, kind_rank=False):
        thr = tol * abs(c0)

        if kind_rank:
            def ev(t, y):
                J = fn(t, y, p)
                return float(np.linalg.det(J @ J.T)) - thr
        else:
            def ev(t, y):
                return abs(float(fn(t, y, p)[0])) - thr
        # a quantity ≥ 0 that may touch 0 (det JJᵀ ∝ |q̇|² at a zero section): watch minima too
        return Monitor(ev, thr, touch=True)

    if prep.jacobian_of_constraints_in_state is not None:
        J0 = prep.jacobian_of_constraints_in_state(t0, y0, p)
        c0 = float(np.linalg.det(J0 @ J0.T))
        if c0 <= 0:
            raise NotRegularError("the initial state is a singular state of the constraints: rank ∂f/∂q̇ < k "
                                  "there ([Stolařová 2009, eq. (3)])")
        out.append((make_threshold(prep.jacobian_of_constraints_in_state, c0, True),
                    "singular state of the constraints: rank ∂f/∂q̇ drops below the number of constraints "
                    "([Stolařová 2009, eq. (3)]; for a homogeneous constraint this is the zero section, [Benenti 2007, "
                    "Remark 7.5]) — measured by det(J Jᵀ), J = ∂f/∂q̇", "det(J J^T)", c0))
    if prep.formulation == "multipliers":
        d0 = prep.rhs.det(t0, y0, p)
        if d0 == 0:
            raise NotRegularError("the initial state is singular: the bordered matrix [[W, -J^T], [J, 0]] of the "
                                  "multiplier equations is singular [Ibort et al. 1996, eq. (4.17)]")

        s_d0 = float(np.sign(d0))

        def bordered(t, y, s0=s_d0):
            return s0 * prep.rhs.det(t, y, p)

        out.append((Monitor(bordered), "the multiplier equations become singular: det [[W, -J^T], [J, 0]] vanishes "
                    "(the compatibility condition det M ≠ 0 [Ibort et al. 1996, eq. (4.17)] fails)", "det K", d0))
    for c, fn in prep.condition_monitors:
        if skip_chart and c.kind == "chart":
            continue
        c0 = float(fn(t0, y0, p)[0])
        if c.kind == "sign":
            if c0 < 0:
                raise NotRegularError(f"the initial state is outside the branch's domain: {c.expr} = {c0:.3g} < 0")

            def ev(t, y, fn=fn):
                return float(fn(t, y, p)[0])

            out.append((Monitor(ev), c.explanation, c.expr, c0))
        else:
            if c0 == 0 or not np.isfinite(c0):
                raise NotRegularError(f"the initial state is singular: {c.explanation} (value {c0})")
            out.append((make_threshold(fn, c0), c.explanation, c.expr, c0))

            # a sign change within one step is not seen by the threshold: watch c itself too
            s_c0 = float(np.sign(c0))

            def cross(t, y, fn=fn, s0=s_c0):
                return s0 * float(fn(t, y, p)[0])

            out.append((Monitor(cross), c.explanation, c.expr, c0))
    return out



def touch_down(ev, state, ta, tb, ca, cb):
    """A minimum of a monitored quantity c = ev + thr ≥ 0 inside (ta, tb) where c dips below the threshold
    although it is above it at both ends (a zero touched between two steps: no sign change to see).

    A cubic Hermite model of c on the step (from the end values and one-sided differences) decides
    whether to look: only if it dips below half the smaller end value is c minimised (bounded Brent)
    and, when the minimum reaches the threshold, the first crossing bracketed (Brent's root finder).

    Parameters
    ----------
    ev : Monitor
        The event, ev(t, y) = c − thr.
    state : callable
        t ↦ y, the dense output of the step.
    ta, tb : float
        The step's ends.
    ca, cb : float
        ev at ``ta`` and ``tb`` (both positive).

    Returns
    -------
    float or None
        The first time in (ta, tb) where ev = 0, or None when c stays above the threshold.
    """
    from scipy.optimize import brentq, minimize_scalar

    h = tb - ta
    dl = 1e-4 * h
    def g(s):
        return ev(s, state(s))

    da = (g(ta + dl) - ca) / dl
    db = (cb - g(tb - dl)) / dl
    if not (da < 0 < db):
        return None
    # cubic Hermite model of g on the step: look further only if it dips well below the ends
    u = np.linspace(0.0, 1.0, 33)
    h00, h10, h01, h11 = 2 * u**3 - 3 * u**2 + 1, u**3 - 2 * u**2 + u, -2 * u**3 + 3 * u**2, u**3 - u**2
    thr = ev.thr
    model = h00 * (ca + thr) + h10 * h * da + h01 * (cb + thr) + h11 * h * db
    if np.min(model) > 0.5 * min(ca + thr, cb + thr):
        return None
    res = minimize_scalar(g, bounds=(ta, tb), method="bounded", options={"xatol": 1e-13 * max(1.0, abs(tb))})
    if not res.fun <= 0:
        return None
    return brentq(g, ta, res.x, xtol=1e-14 * max(1.0, abs(tb)))

