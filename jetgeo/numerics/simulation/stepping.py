"""What every discrete Lagrange–d'Alembert run shares: the step options, the grid of nodes, the parameter
vector, and the run of a compiled stepper with the node multipliers Λ_k = (λ_k + μ_{k−1})/2 assembled
(:mod:`jetgeo.numerics.simulation.discrete` for the coordinate form, :mod:`~.discrete_lie` on SO(3))."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ...errors import InputError
from .initial import lookup

__all__ = ["NodeRun", "StepOptions", "node_grid", "parameter_vector", "run_nodes", "step_options", "step_too_large"]


@dataclass(frozen=True)
class StepOptions:
    """The options of a discrete run: the step h and Newton's stopping rule
    (:func:`~jetgeo.numerics.stepper.compile_stepper`).

    Attributes
    ----------
    step : float
        The step h > 0.
    tol : float
        Newton's update tolerance.
    ftol : float
        Newton's residual tolerance.
    max_iter : int
        Newton's iteration limit per step.

    Examples
    --------
    >>> StepOptions(0.01).tol
    1e-12
    """

    step: float
    tol: float = 1e-12
    ftol: float = 1e-9
    max_iter: int = 20


def step_options(method: str, t_eval, options: Mapping) -> StepOptions:
    """The :class:`StepOptions` of ``simulate(..., method=..., step=h, tol=, ftol=, max_iter=)``, checked.

    Parameters
    ----------
    method : str
        The discrete method (for the messages).
    t_eval : None
        Must be None (a discrete run returns every node).
    options : mapping
        ``step`` (required) and optionally ``tol``, ``ftol``, ``max_iter``; nothing else.

    Returns
    -------
    StepOptions

    Raises
    ------
    InputError
        A missing or bad step, an unknown option, a t_eval.

    Examples
    --------
    >>> step_options("dla-midpoint", None, {"step": 0.1}).max_iter
    20
    """
    options = dict(options)
    step = options.pop("step", None)
    newton = {k: options.pop(k) for k in ("tol", "ftol", "max_iter") if k in options}
    if options:
        raise InputError(f"simulate: the {method} method takes step= (and tol=, ftol=, max_iter=), not "
                         f"{', '.join(sorted(options))}")
    if t_eval is not None:
        raise InputError(f"simulate: the {method} method returns every node t0 + k·step; t_eval is not supported")
    if step is None:
        raise InputError(f"simulate: the {method} method needs step= (the time step h > 0)")
    if isinstance(step, bool) or not isinstance(step, (int, float, np.integer, np.floating)) \
            or not math.isfinite(float(step)) or float(step) <= 0:
        raise InputError(f"simulate: step must be a finite number > 0, got {step!r:.40}")
    out = StepOptions(float(step), **newton)
    for name, v, lo in (("tol", out.tol, 0.0), ("ftol", out.ftol, 0.0), ("max_iter", out.max_iter, 1)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not v > lo or not math.isfinite(v):
            raise InputError(f"simulate: {name} must be a number > {lo:g}, got {v!r:.40}")
    return out


def node_grid(t_span, step: float) -> tuple:
    """(t0, t1, h, n): the span cut into n whole steps h (signed: t1 < t0 steps backwards).

    Parameters
    ----------
    t_span : (t0, t1)
    step : float > 0

    Returns
    -------
    tuple

    Raises
    ------
    InputError
        The span is not a pair of different finite numbers, or not a whole number of steps (to 1e-9).

    Examples
    --------
    >>> node_grid((0, 1), 0.25)
    (0.0, 1.0, 0.25, 4)
    """
    try:
        t0, t1 = (float(x) for x in t_span)
    except (TypeError, ValueError):
        raise InputError(f"simulate: t_span must be a pair of numbers (t0, t1), got {t_span!r:.60}") from None
    if not (math.isfinite(t0) and math.isfinite(t1)) or t0 == t1:
        raise InputError(f"simulate: t_span must be two different finite numbers, got {t_span!r:.60}")
    n_float = abs(t1 - t0) / step
    n_steps = int(round(n_float))
    if n_steps < 1 or abs(n_steps - n_float) > 1e-9 * max(1.0, n_float):
        raise InputError(f"simulate: the span {t1 - t0:g} is not a whole number of steps {step:g} "
                         f"({n_float:.6g} steps); choose step = span / n")
    return t0, t1, math.copysign((t1 - t0) / n_steps, t1 - t0), n_steps


def parameter_vector(symbols, params: Mapping) -> np.ndarray:
    """The values of ``symbols`` (looked up by symbol or name) as floats.

    Parameters
    ----------
    symbols : sequence of Symbols
    params : mapping

    Returns
    -------
    numpy.ndarray

    Raises
    ------
    InputError
        A parameter without a value (all of them named).

    Examples
    --------
    >>> import sympy as sp
    >>> parameter_vector(sp.symbols("m r"), {"m": 1, "r": 2}).tolist()
    [1.0, 2.0]
    """
    vals, missing = [], []
    for s in symbols:
        v = lookup(params, s)
        (missing.append(s) if v is None else vals.append(float(v)))
    if missing:
        raise InputError(f"simulate: no value given for the parameter(s) {sorted(map(str, missing))}")
    return np.array(vals, dtype=float)


@dataclass
class NodeRun:
    """The nodes of a run and their multipliers (:func:`run_nodes`).

    Attributes
    ----------
    nodes : numpy.ndarray
        The nodes as the stepper carries them (periodic coordinates reduced to [−π, π)).
    unwrapped : numpy.ndarray
        The nodes with the periodic coordinates' turns added back.
    lam : numpy.ndarray
        The node multipliers Λ_k, shape (N, k).
    status : str
        "finished" or "failed".
    message : str
    nfev : int
        A bound on the Newton iterations.
    """

    nodes: np.ndarray
    unwrapped: np.ndarray
    lam: np.ndarray
    status: str
    message: str
    nfev: int


def run_nodes(stepper, w0, n_steps: int, stages: int, ps, carried: int, k: int, method: str, h: float) -> NodeRun:
    """Run ``stepper`` for ``n_steps`` steps of ``stages`` stages from ``w0`` and assemble the node multipliers.

    Parameters
    ----------
    stepper : ImplicitStepper
    w0 : numpy.ndarray
        The first node.
    n_steps, stages : int
    ps : numpy.ndarray
        The parameters, h last.
    carried : int
        The index in the known vector of the carried Λ (μ of the step arriving), followed by Λ′ (λ of the
        step leaving).
    k : int
        The number of constraints.
    method : str
    h : float

    Returns
    -------
    NodeRun
        Λ_k = (λ_k + μ_{k−1})/2 at every node: the mean of the half impulses arriving (Λ of the node) and
        leaving (Λ′ of the next node); one extra step past the end gives λ at the last node.  A failed
        step ends the run at the last whole step (``status="failed"``).

    Examples
    --------
    >>> import sympy as sp
    >>> from jetgeo.numerics.stepper import compile_stepper
    >>> q1, q0, h = sp.symbols("q1 q0 h")
    >>> st = compile_stepper([q1 - q0 - h * (q0 + q1) / 2], [q1], [q0], [h], advance=[q1])
    >>> run_nodes(st, [1.0], 4, 1, [0.1], 1, 0, "midpoint", 0.1).nodes.shape
    (5, 1)
    """
    run = stepper.run(w0, n_steps * stages, ps, every=stages)
    W, U = run.nodes, run.unwrapped()
    status, message = "finished", f"{n_steps} steps of {method} with h = {h:g}"
    if not run.ok:
        W, U = W[: 1 + run.steps_done // stages], U[: 1 + run.steps_done // stages]  # whole steps only
        status, message = "failed", f"the {method} step failed at t = {W[-1, 0]:.6g}: {run.message}"
        if run.status in ("no-convergence", "singular"):
            message += "; " + step_too_large(stepper, W[-1], stages, ps, h)
    nfev = stages * int(np.sum(run.iterations))  # a bound: the most iterations of a stage, per node
    mu, lam_out = W[:, carried: carried + k], W[:, carried + k: carried + 2 * k]
    lam = np.full((len(W), k), np.nan)
    lam[1:] = mu[1:]
    lam[:-1] = np.where(np.isnan(lam[:-1]), lam_out[1:], (lam[:-1] + lam_out[1:]) / 2)
    if run.ok and len(W) > 1:  # one more step gives λ at the last node
        extra = stepper.run(W[-1], stages, ps, every=stages)
        if extra.ok:
            lam[-1] = (mu[-1] + extra.nodes[-1, carried + k: carried + 2 * k]) / 2
    return NodeRun(W, U, lam, status, message, nfev)


def step_too_large(stepper, w, stages: int, ps, h: float, halvings: int = 4) -> str:
    """Why a step from the node ``w`` failed, and the step to take instead: the same interval is tried in
    2, 4, … 2^``halvings`` steps of h/2, h/4, …; the first that passes is named.

    A Newton iteration that does not converge from the explicit predictor, or meets a singular matrix,
    at a step where the smaller steps pass means that the discrete equations have no solution near the
    predictor at this h: the solution branch that tends to the motion as h → 0 turns back (a fold)
    before h, and Newton's method wanders or finds a far, spurious root (the rattleback's rocking at
    h = 0.01, theory/discrete_mechanics.md).  The cure is a smaller step.

    Parameters
    ----------
    stepper : ImplicitStepper
    w : numpy.ndarray
        The last node reached.
    stages : int
    ps : numpy.ndarray
        The parameters, h last.
    h : float
        The step that failed.
    halvings : int

    Returns
    -------
    str
        A sentence for the run's message.

    Examples
    --------
    >>> import sympy as sp
    >>> from jetgeo.numerics.stepper import compile_stepper
    >>> z, w, h = sp.symbols("z w h")
    >>> st = compile_stepper([z - w - h * z**2], [z], [w], [h], advance=[z], predictor=[w])  # blows up at h·w > 1/4
    >>> msg = step_too_large(st, [1.0], 1, [0.5], 0.5)
    >>> "2 steps of 0.25 do not pass either" in msg, msg.endswith("4 steps of 0.125 pass; choose step <= 0.125")
    (True, True)
    """
    tried = []
    for j in range(1, halvings + 1):
        sub = np.array(ps, dtype=float)
        sub[-1] = h / 2**j
        if stepper.run(w, 2**j * stages, sub, every=2**j * stages).ok:
            either = f": {', '.join(tried)} do not pass either," if tried else ":"
            return (f"no solution of the discrete equations near the predictor for h = {h:g} (the step is too large "
                    f"for the motion there){either} {2**j} steps of {h / 2**j:g} pass; choose step <= {h / 2**j:g}")
        tried.append(f"{2**j} steps of {h / 2**j:g}")
    return (f"no solution of the discrete equations near the predictor for h = {h:g}, nor for steps down to "
            f"h/{2**halvings:g}: the motion may be singular there")
