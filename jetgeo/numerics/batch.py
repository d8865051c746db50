r"""Many trajectories at once: a vectorised Dormand–Prince 8(5,3) integrator over members.

An ensemble integrates the same equations y' = F(t, y; p) for N members that differ in their
parameters p and initial data y₀.  Instead of N integrator objects (a Python loop, one
right-hand-side call per stage and member), :func:`integrate_batch` keeps the members as the
columns of arrays Y ∈ ℝ^{n×N}, P ∈ ℝ^{n_p×N} and evaluates the right-hand side compiled once
with ``compile_rhs(..., vectorized=True)`` on all active columns per stage.

Every member keeps its **own** time, step size and accept/reject history: the step-size control
is scipy's ``DOP853`` applied column by column — the Dormand–Prince 8(5,3) pair [Hairer et al. 1993,
§II.10], error norm

.. math:: \mathrm{err} = |h|\,\frac{\|e_5\|^2}{\sqrt{n\,(\|e_5\|^2 + 0.01\|e_3\|^2)}},
          \qquad e_j = \frac{\sum_s E_{j,s} k_s}{\mathrm{atol} + \mathrm{rtol}\max(|y|, |y_{new}|)},

step factor min(10, 0.9 err^{-1/8}) after an accepted step (at most 1 after a rejection),
max(0.2, 0.9 err^{-1/8}) after a rejected one, the same initial step choice [Hairer et al.
1993, §II.4] — so each member follows the steps :func:`~jetgeo.numerics.simulate` would take
with ``method="DOP853"``, up to rounding.  Output times are served by the method's 7th-order
dense output (three extra stages, evaluated only for members whose step contains an output time
or a stop).

**Singular states** are monitored as in :func:`~jetgeo.numerics.simulate`: the regularity
determinant, the normal form's det ∂f/∂q̇^D, branch conditions, the rank of ∂f/∂q̇ (det JJᵀ) and,
in the multipliers formulation, det [[W, −Jᵀ], [J, 0]].  A member stops where a monitored
quantity changes sign or falls below ``singular_tol`` times its initial size between two step
ends, located by bisection on the dense output.  (``simulate`` also searches minima inside a
step for quantities that only *touch* zero; the batch does not.)

A member whose data are bad — off the constraint manifold, non-finite, a singular initial
state — or whose integration fails (non-finite right-hand side, step size underflow) is marked
in its status and message; the other members are not affected.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, replace

import numpy as np
import sympy as sp
from scipy.integrate import DOP853

from ..errors import InputError
from ..geometry.coerce import SIGN_ASSUMPTIONS
from .compile import compile_rhs
from .simulation.atlas import _switch_threshold
from .simulation.initial import complete_from_normal_form

__all__ = ["BatchModel", "batch_model", "integrate_batch", "STATUS"]

#: status codes of a member
STATUS = {0: "ok", 1: "singular", 2: "failed", 3: "invalid"}
_RUNNING = -1

_SAFETY, _MIN_FACTOR, _MAX_FACTOR = 0.9, 0.2, 10.0
_A = np.asarray(DOP853.A)
_B = np.asarray(DOP853.B)
_C = np.asarray(DOP853.C)
_E3 = np.asarray(DOP853.E3)
_E5 = np.asarray(DOP853.E5)
_D = np.asarray(DOP853.D)
_A_EXTRA = np.asarray(DOP853.A_EXTRA)
_C_EXTRA = np.asarray(DOP853.C_EXTRA)
_N_STAGES = int(DOP853.n_stages)
_N_EXT = _N_STAGES + 1 + len(_C_EXTRA)
_ERR_EXP = -1.0 / (int(DOP853.error_estimator_order) + 1)
_TOO_SMALL = "Required step size is less than spacing between numbers."


# ----------------------------------------------------------------------------------------------
# the compiled model: generated source kept, functions rebuilt once per process
# ----------------------------------------------------------------------------------------------
_EXEC_CACHE: dict = {}


class _Code:
    """A vectorised compiled function, picklable by its generated source (``compile_rhs`` code
    is straight-line Python over ``numpy``); executed once per process and source text."""

    def __init__(self, name: str, source: str) -> None:
        self.name, self.source = name, source
        self._func = None

    def __getstate__(self) -> dict:
        return {"name": self.name, "source": self.source}

    def __setstate__(self, state: dict) -> None:
        self.name, self.source, self._func = state["name"], state["source"], None

    def __call__(self, t, y, p):
        if self._func is None:
            key = hashlib.sha256(self.source.encode()).hexdigest()
            fn = _EXEC_CACHE.get(key)
            if fn is None:
                namespace = {"math": math, "numpy": np, "_np": np}
                exec(compile(self.source, f"<jetgeo.numerics.batch {self.name}>", "exec"), namespace)  # noqa: S102
                fn = _EXEC_CACHE[key] = namespace[self.name]
            self._func = fn
        return self._func(t, y, p)


def _code(exprs, state, params, t, name: str) -> _Code:
    cf = compile_rhs(exprs, state, params, t, vectorized=True, name=name, optimizations=None)
    return _Code(name, cf.source)


@dataclass
class _Monitor:
    """A singular-state monitor: ``value(t, y_int, p) -> (N,)`` and how it is read.

    kind "threshold": |c| must stay above ``singular_tol``·|c₀| and c must not change sign;
    "sign": c must stay ≥ 0; "rank": det(J Jᵀ) of the k × m matrix ``value`` must stay above
    ``singular_tol``·its initial value; "bordered": det K must not change sign; "rho": the chart
    quality ρ_D = det(J_D)²/det(J Jᵀ) of the dependent velocities D (columns ``cols`` of the k × m
    matrix ``value``) must stay above ``threshold`` — the atlas's own monitor
    (:func:`~jetgeo.numerics.simulation.atlas.chart_monitor`), read where ``simulate`` would switch charts."""

    kind: str
    explanation: str
    code: _Code
    shape: tuple = ()
    #: the quantity only bounds the chart of Q in use (a normal form's det ∂f/∂q̇^D): the atlas of
    #: :func:`~jetgeo.numerics.simulate` continues there in another chart
    chart: bool = False
    cols: tuple = ()
    threshold: float = 0.0


@dataclass
class BatchModel:
    """The vectorised compiled pieces of a prepared system (see :func:`batch_model`).

    Picklable (the generated sources travel, each process executes them once), so one model
    is sent to every worker of a process pool or a Dask cluster.  ``state`` is the integration
    state, ``full_state`` (q, q̇), ``params`` the parameter symbols' names (in the order of P).

    Every ``_Code`` is called ``fn(t, y, p)`` with one column per member (y of shape (n, N)).

    Attributes
    ----------
    formulation : str
        ``"full"``, ``"reduced"`` or ``"multipliers"``.
    state : tuple of str
        The integration state's symbol names: (q, q̇), or (q, q̇^I) in the reduced formulation.
    full_state : tuple of str
        (q, q̇).
    params : tuple of str
        The parameter names, in the order of the rows of P.
    m : int
        The number of coordinates.
    n_constraints : int
        k, the number of constraints f^j.
    constraints : tuple of str
        The constraints, printed (for messages and the dataset's attributes).
    rhs : _Code
        y' = F(t, y, p); in the multipliers formulation the flattened blocks [W, ℓ, J, b] of the
        bordered system, solved member by member.
    bordered_k : int
        k for the bordered blocks (0 in the other formulations).
    f : _Code or None
        The constraints f^j at the full state.
    fscale : _Code or None
        Σ|terms of f^j| (the size of what cancels in f^j).
    g : _Code or None
        The normal form g(t, q, q̇^I) of the dependent velocities.
    g_index : tuple of int
        The indices in q̇ of the dependent velocities (the rows of ``g``).
    independent_index : tuple of int
        The indices in q̇ of the independent velocities.
    energy : _Code or None
        E_L = q̇·∂L/∂q̇ − L at the full state.
    monitors : tuple
        The singular-state monitors (``_Monitor``: a compiled quantity and how it is read).
    fingerprint : str
        A hash of the sources, naming the model in caches and resumable stores.
    assumptions : tuple, default ()
        Per parameter, the sign assumptions it carries (checked on the values of every member).
    """

    formulation: str
    state: tuple
    full_state: tuple
    params: tuple
    m: int
    n_constraints: int
    constraints: tuple
    rhs: _Code
    bordered_k: int
    f: _Code | None
    fscale: _Code | None
    g: _Code | None
    g_index: tuple
    independent_index: tuple
    energy: _Code | None
    monitors: tuple
    fingerprint: str
    #: per parameter, the assumptions of :data:`~jetgeo.geometry.coerce.SIGN_ASSUMPTIONS` it carries
    assumptions: tuple = ()

    # --- state maps -----------------------------------------------------------------------
    def to_full(self, t, y, p) -> np.ndarray:
        """(q, q̇) from the integration state, columns = points (the reduced formulation adds
        q̇^D = g(t, q, q̇^I))."""
        if self.formulation != "reduced":
            return y
        m = self.m
        out = np.zeros((2 * m, y.shape[1]))
        out[:m] = y[:m]
        for i, j in enumerate(self.independent_index):
            out[m + j] = y[m + i]
        if self.g is not None:
            gv = self.g(t, out, p)
            for k, j in enumerate(self.g_index):
                out[m + j] = gv[k]
        return out

    def to_state(self, full) -> np.ndarray:
        if self.formulation != "reduced":
            return full
        m = self.m
        return np.concatenate([full[:m], full[[m + j for j in self.independent_index]]], axis=0)

    # --- right-hand side --------------------------------------------------------------------
    def F(self, t, y, p) -> np.ndarray:
        """y' for the columns of y (non-finite where a member's equations are singular)."""
        if self.bordered_k:
            acc, _ = self._bordered_solve(t, y, p)
            return np.concatenate([y[self.m:], acc], axis=0)
        return np.asarray(self.rhs(t, y, p), dtype=float)

    def _bordered_matrices(self, t, y, p):
        m, k = self.m, self.bordered_k
        v = np.asarray(self.rhs(t, y, p), dtype=float)
        N = v.shape[1]
        W = v[: m * m].T.reshape(N, m, m)
        L = v[m * m: m * m + m].T
        J = v[m * m + m: m * m + m + k * m].T.reshape(N, k, m)
        b = v[m * m + m + k * m:].T
        K = np.zeros((N, m + k, m + k))
        K[:, :m, :m] = W
        K[:, :m, m:] = -np.transpose(J, (0, 2, 1))
        K[:, m:, :m] = J
        return K, np.concatenate([L, -b], axis=1)

    def _bordered_solve(self, t, y, p):
        """(q̈, λ) from [[W, −Jᵀ], [J, 0]] (q̈, λ) = (L, −d̄f) for every column [Stolařová 2009]:
        a member whose matrix is singular gets NaN (the others are solved)."""
        K, r = self._bordered_matrices(t, y, p)
        N = K.shape[0]
        ok = np.flatnonzero(np.all(np.isfinite(K), axis=(1, 2)) & np.all(np.isfinite(r), axis=1))
        sol = np.full((N, K.shape[1]), np.nan)
        if len(ok):
            try:
                sol[ok] = np.linalg.solve(K[ok], r[ok][:, :, None])[:, :, 0]
            except np.linalg.LinAlgError:  # some member's matrix is exactly singular: solve one by one
                for i in ok:
                    try:
                        sol[i] = np.linalg.solve(K[i], r[i])
                    except np.linalg.LinAlgError:
                        sol[i] = np.nan
        return sol[:, : self.m].T, sol[:, self.m:].T

    def monitor_values(self, t, y, p, init=None) -> np.ndarray:
        """(n_monitors, N): the monitored quantities c (det JJᵀ for "rank", det K for "bordered")."""
        out = np.empty((len(self.monitors), y.shape[1]))
        for i, mon in enumerate(self.monitors):
            if mon.kind == "bordered":
                K, _ = self._bordered_matrices(t, y, p)
                out[i] = np.linalg.det(K)
            elif mon.kind in ("rank", "rho"):
                J = np.asarray(mon.code(t, y, p), dtype=float).reshape(*mon.shape, -1)
                J = np.moveaxis(J, -1, 0)
                G = np.linalg.det(J @ np.transpose(J, (0, 2, 1)))
                if mon.kind == "rank":
                    out[i] = G
                else:  # as atlas.chart_quality: 1 where J Jᵀ is singular (the rank monitor's business)
                    dD = np.linalg.det(J[:, :, list(mon.cols)])
                    good = (G > 0) & np.isfinite(G)
                    out[i] = np.where(good, dD * dD / np.where(good, G, 1.0), 1.0)
            else:
                out[i] = np.asarray(mon.code(t, y, p), dtype=float).reshape(-1)
        return out


def _fingerprint(*parts) -> str:
    h = hashlib.sha256()
    for s in parts:
        h.update(str(s).encode())
        h.update(b"\0")
    return h.hexdigest()


def batch_model(prep) -> BatchModel:
    """The vectorised compiled pieces of a :class:`~jetgeo.numerics.simulation.prepare.PreparedSystem`:
    its right-hand side (or bordered system), constraints and their scales, the normal form,
    the energy E_L = q̇·∂L/∂q̇ − L and the singular-state monitors, each compiled once.

    Parameters
    ----------
    prep : PreparedSystem
        The prepared system (:func:`~jetgeo.numerics.simulation.prepare.prepare`), in any formulation.

    Returns
    -------
    BatchModel
        The picklable vectorised pieces, each compiled once with plain common-subexpression
        elimination.
    """
    M = prep.model
    t = M.t
    P = prep.params
    full = prep.full_state
    m = len(M.q)
    if prep.formulation == "multipliers":
        rhs = _code(prep.bordered_expressions, full, P, t, "bordered_batch")
        k = len(M.f)
    else:
        rhs = _code(prep.rhs_expressions, prep.state, P, t, "rhs_batch")
        k = 0
    f = _code(list(M.f), full, P, t, "constraints_batch") if M.f else None
    fscale = None
    if M.f:
        fscale = _code([sp.Add(*[sp.Abs(a) for a in sp.Add.make_args(e)]) for e in M.f], full, P, t,
                       "constraint_scale_batch")
    dep = prep.dependent
    g = _code([M.g[d] for d in dep], full, P, t, "normal_form_batch") if dep else None
    energy = (_code([prep.energy_expression], full, P, t, "energy_batch") if prep.energy_expression is not None
              else None)
    monitors = []
    sub = M.g if prep.formulation == "reduced" else {}
    if M.f:
        J = sp.Matrix(len(M.f), m, lambda i, j: sp.diff(M.f[i], M.qdot[j]))
        jcode = _code(J.xreplace(sub), prep.state, P, t, "rank_batch")
        monitors.append(_Monitor(
            "rank", "singular state of the constraints: rank ∂f/∂q̇ drops below the number of constraints "
            "(det(J Jᵀ), J = ∂f/∂q̇, vanishes)", jcode, (len(M.f), m)))
        if M.cs is not None and prep.formulation in ("full", "reduced") and any(c.kind == "chart"
                                                                               for c in M.conditions):
            names = ", ".join(map(str, prep.dependent))
            monitors.append(_Monitor(
                "rho", f"the chart of [{names}] ends (the atlas continues in another)", jcode, (len(M.f), m),
                chart=True, cols=tuple(M.qdot.index(d) for d in prep.dependent),
                threshold=_switch_threshold(len(M.f), m)))
    if prep.formulation == "multipliers":
        monitors.append(_Monitor("bordered", "the multiplier equations become singular: det [[W, -J^T], [J, 0]] "
                                 "vanishes", rhs))
    else:
        for c in M.conditions:
            monitors.append(_Monitor("sign" if c.kind == "sign" else "threshold", c.explanation,
                                     _code([c.expr.xreplace(sub)], prep.state, P, t, "condition_batch"),
                                     chart=c.kind == "chart"))
    codes = [rhs, f, fscale, g, energy] + [mon.code for mon in monitors]
    assumptions = tuple(tuple(a for a in SIGN_ASSUMPTIONS if s.assumptions0.get(a) is True) for s in P)
    fp = _fingerprint(prep.formulation, [str(s) for s in prep.state], [str(s) for s in P],
                      *[c.source for c in codes if c is not None], *([assumptions] if any(assumptions) else []))
    return BatchModel(
        formulation=prep.formulation, state=tuple(str(s) for s in prep.state),
        full_state=tuple(str(s) for s in full), params=tuple(str(s) for s in P), m=m, n_constraints=len(M.f),
        constraints=tuple(str(e) for e in M.f), rhs=rhs, bordered_k=k, f=f, fscale=fscale, g=g,
        g_index=tuple(M.qdot.index(d) for d in dep),
        independent_index=tuple(M.qdot.index(v) for v in prep.independent), energy=energy,
        monitors=tuple(monitors), fingerprint=fp, assumptions=assumptions,
    )


# ----------------------------------------------------------------------------------------------
# initial data
# ----------------------------------------------------------------------------------------------
def check_initial(model: BatchModel, t0: float, full, P, complete: bool, manifold_tol: float):
    """Complete the dependent velocities (``complete``: where NaN, from q̇^D = g) and check the data.

    Returns (full state (2m, N), messages: a list with None for good members and the reason
    for bad ones — non-finite values, a parameter value that contradicts the parameter's
    assumptions (a negative mass), a constraint f^j(t₀, q, q̇) ≠ 0 beyond
    ``manifold_tol``·(1 + Σ|terms of f^j|))."""
    full = np.array(full, dtype=float)
    N = full.shape[1]
    msgs: list = [None] * N
    m = model.m
    if complete and model.g is not None:
        with np.errstate(all="ignore"):
            complete_from_normal_form(model.g, np.full(N, t0), full, P, [m + j for j in model.g_index])
    bad_p = ~np.all(np.isfinite(P), axis=0) if P.size else np.zeros(N, bool)
    bad_y = ~np.all(np.isfinite(full), axis=0)
    for i in np.flatnonzero(bad_p | bad_y):
        if bad_p[i]:
            names = [model.params[r] for r in range(P.shape[0]) if not np.isfinite(P[r, i])]
            msgs[i] = f"invalid data: the parameter(s) {names} are not finite numbers"
        else:
            names = [model.full_state[r] for r in range(full.shape[0]) if not np.isfinite(full[r, i])]
            msgs[i] = f"invalid data: the initial value(s) of {names} are missing or not finite"
    for r, names in enumerate(model.assumptions):
        for a in names:
            with np.errstate(invalid="ignore"):
                bad = np.flatnonzero(~SIGN_ASSUMPTIONS[a](P[r]) & np.isfinite(P[r]))
            for i in bad:
                if msgs[i] is None:
                    msgs[i] = (f"invalid data: the parameter {model.params[r]} = {P[r, i]:g} contradicts its "
                               f"assumption {a!r}")
    if model.f is not None:
        good = np.array([s is None for s in msgs])
        if good.any():
            idx = np.flatnonzero(good)
            tt = np.full(len(idx), t0)
            with np.errstate(all="ignore"):
                vals = np.asarray(model.f(tt, full[:, idx], P[:, idx]), dtype=float)
                scales = np.asarray(model.fscale(tt, full[:, idx], P[:, idx]), dtype=float)
            tol = manifold_tol * (1.0 + np.abs(scales))
            off = ~(np.abs(vals) <= tol)
            for c, i in enumerate(idx):
                if off[:, c].any():
                    j = int(np.flatnonzero(off[:, c])[0])
                    msgs[i] = (f"initial state off the constraint manifold Q: f^{j + 1} = {model.constraints[j]} is "
                               f"{vals[j, c]:.6g} at t = {t0:g} (tolerance {tol[j, c]:.3g}); give consistent "
                               "velocities or complete=True")
    return full, msgs


# ----------------------------------------------------------------------------------------------
# the integrator
# ----------------------------------------------------------------------------------------------
def _rms2(x):
    """Σ_i x_i² per column (rows added one by one: the same rounding whatever the other columns)."""
    return np.sum(x * x, axis=0)


def _lincomb(coeffs, K):
    """Σ_s c_s K[s], accumulated stage by stage, zeros skipped.  Elementwise, so a member's numbers
    do not depend on which other members share its batch (a BLAS ``tensordot`` would block the
    columns differently for different batch sizes and change the last bits)."""
    out = None
    for c, k in zip(coeffs, K):
        if c != 0.0:
            out = c * k if out is None else out + c * k
    return np.zeros_like(K[0]) if out is None else out


def _initial_step(model, t0, y0, f0, p, t1, max_step, rtol, atol):
    """The starting step of [Hairer et al. 1993, §II.4] (scipy's ``select_initial_step``), column by column."""
    n = y0.shape[0]
    scale = atol + np.abs(y0) * rtol
    d0 = np.sqrt(_rms2(y0 / scale) / n)
    d1 = np.sqrt(_rms2(f0 / scale) / n)
    h0 = np.where((d0 < 1e-5) | (d1 < 1e-5), 1e-6, 0.01 * d0 / np.where(d1 == 0, 1.0, d1))
    interval = t1 - t0
    h0 = np.minimum(h0, interval)
    f1 = model.F(t0 + h0, y0 + h0 * f0, p)
    d2 = np.sqrt(_rms2((f1 - f0) / scale) / n) / h0
    dmax = np.maximum(d1, d2)
    with np.errstate(divide="ignore"):
        h1 = np.where((d1 <= 1e-15) & (d2 <= 1e-15), np.maximum(1e-6, h0 * 1e-3),
                      (0.01 / dmax) ** (1.0 / (int(DOP853.error_estimator_order) + 1)))
    return np.minimum(np.minimum(100 * h0, h1), np.minimum(interval, max_step))


def _dense(model, K, t_old, y_old, y_new, f_new, h, p):
    """Coefficients (7, n, N) of the DOP853 dense output on the step [t_old, t_old + h]."""
    for s, (a, c) in enumerate(zip(_A_EXTRA, _C_EXTRA), start=_N_STAGES + 1):
        dy = _lincomb(a[:s], K[:s]) * h
        K[s] = model.F(t_old + c * h, y_old + dy, p)
    f_old = K[0]
    delta = y_new - y_old
    Fc = np.empty((7,) + y_old.shape)
    Fc[0] = delta
    Fc[1] = h * f_old - delta
    Fc[2] = 2 * delta - h * (f_new + f_old)
    for r in range(len(_D)):
        Fc[3 + r] = h * _lincomb(_D[r], K)
    return Fc


def _interp(Fc, y_old, x):
    """The dense output at the relative positions x ∈ [0, 1] (one per column)."""
    y = np.zeros_like(y_old)
    for i, f in enumerate(Fc[::-1]):
        y += f
        y *= x if i % 2 == 0 else (1 - x)
    return y + y_old


@dataclass
class BatchResult:
    """Per member: the full state at the output times ``y[member, time, state]`` (NaN after a stop),
    ``status`` codes (:data:`STATUS`), ``message``, ``t_stop`` and the full state there, ``nfev``
    (right-hand-side evaluations), ``nsteps`` (accepted steps) and ``chart`` (the member stopped
    where only the chart of Q in use ends: a normal form's det ∂f/∂q̇^D vanishes)."""

    y: np.ndarray
    status: np.ndarray
    message: list
    t_stop: np.ndarray
    y_stop: np.ndarray
    nfev: np.ndarray
    nsteps: np.ndarray
    chart: np.ndarray | None = None


def integrate_batch(model: BatchModel, t_span, y0_full, P, t_eval, rtol: float = 1e-10, atol: float = 1e-12,
                    max_step: float = np.inf, events: bool = True, singular_tol: float = 1e-6,
                    invalid: list | None = None, atlas: bool = False) -> BatchResult:
    """Integrate every column of ``y0_full`` (the full state (q, q̇), shape (2m, N)) with its
    parameters (columns of ``P``) from t_span[0] to t_span[1]; outputs at ``t_eval``.

    ``invalid``: per member None or a reason (those members are not integrated; status "invalid").
    ``atlas``: watch the chart quality ρ of the normal form in force instead of its determinant,
    and stop a member (``chart`` True) where ``simulate`` would switch charts.

    Parameters
    ----------
    model : BatchModel
        The compiled model (:func:`batch_model`).
    t_span : (float, float)
        Initial and final time.
    y0_full : array of shape (2m, N)
        The full initial states, one column per member.
    P : array of shape (number of parameters, N)
        The parameter values, one column per member.
    t_eval : array
        The output times.
    rtol, atol, max_step : float
        The DOP853 tolerances and the largest step.
    events : bool
        Watch the model's monitors (singular states, the chart's quality) and stop a member there.
    singular_tol : float
        The monitors' relative tolerance.
    invalid : list, optional
        Per member None or the reason it is not integrated.
    atlas : bool
        Watch ρ instead of the chart's determinant.

    Returns
    -------
    BatchResult
        The states at ``t_eval``, the status, message, stop time and state of every member.
    """
    if atlas:  # the chart's determinant is replaced by the atlas's ρ, as simulate(skip_chart=True) does
        model = replace(model, monitors=tuple(mon for mon in model.monitors if mon.kind == "rho" or not mon.chart))
    else:
        model = replace(model, monitors=tuple(mon for mon in model.monitors if mon.kind != "rho"))
    t0, t1 = float(t_span[0]), float(t_span[1])
    if not t1 > t0:
        raise InputError(f"t_span: the final time {t1} must be after the initial time {t0}")
    y0_full = np.asarray(y0_full, dtype=float)
    N = y0_full.shape[1]
    B = _Batch(model, t0, t1, np.asarray(t_eval, dtype=float), y0_full,
               np.asarray(P, dtype=float).reshape(-1, N), len(model.monitors) if events else 0, singular_tol)
    for i, why in enumerate(invalid or []):
        if why is not None:
            B.status[i], B.message[i] = 3, why
    with np.errstate(all="ignore"):
        run = B.start(max_step, rtol, atol)
        while len(run):
            run = B.step(run, max_step, rtol, atol)
    return BatchResult(B.out, B.status, B.message, B.t_stop, B.y_stop, B.nfev, B.nsteps, B.chart)


class _Batch:
    """The members of one batch as they are integrated: their states, step sizes, monitors and
    outputs (arrays over the members), and the DOP853 step of the members still running."""

    def __init__(self, model: BatchModel, t0: float, t1: float, t_eval, y0_full, P, nM: int,
                 singular_tol: float) -> None:
        self.model, self.t0, self.t1, self.t_eval, self.y0_full, self.P = model, t0, t1, t_eval, y0_full, P
        self.nM, self.singular_tol = nM, singular_tol
        nF, N = y0_full.shape
        self.nT = len(t_eval)
        self.y = model.to_state(y0_full).copy()
        self.n = self.y.shape[0]
        self.out = np.full((N, self.nT, nF), np.nan)
        self.status = np.full(N, _RUNNING)
        self.message: list = [""] * N
        self.t_stop = np.full(N, np.nan)
        self.y_stop = np.full((N, nF), np.nan)
        self.nfev = np.zeros(N, dtype=np.int64)
        self.nsteps = np.zeros(N, dtype=np.int64)
        self.chart = np.zeros(N, bool)
        self.t = np.full(N, t0)
        self.f = np.zeros_like(self.y)
        self.h_abs = np.zeros(N)
        self.rejected = np.zeros(N, bool)
        self.nxt = np.zeros(N, dtype=np.int64)
        self.c0 = np.zeros((nM, N))  # the monitors' initial values
        self.ev_old = np.zeros((2 * nM, N))  # the event functions at the last accepted step
        self.K = np.empty((_N_EXT, self.n, N))
        # why a member's last step was rejected: its trial state or right-hand side was not finite
        self.overflow = np.zeros(N, bool)

    def running(self) -> np.ndarray:
        return np.flatnonzero(self.status == _RUNNING)

    def start(self, max_step: float, rtol: float, atol: float) -> np.ndarray:
        """Check the monitors and the right-hand side at t0, write the outputs at t0 and choose the
        first step sizes; returns the members still running."""
        model, t0, P, y0_full = self.model, self.t0, self.P, self.y0_full
        run = self.running()
        if self.nM and len(run):
            self.c0[:, run] = model.monitor_values(self.t[run], self.y[:, run], P[:, run])
            for j, mon in enumerate(model.monitors):
                c = self.c0[j, run]
                if mon.kind == "sign":
                    bad = ~(c >= 0)
                    why = f"singular initial state: {mon.explanation} (value {{:.3g}} < 0)"
                elif mon.kind == "rank":
                    bad = ~(c > 0)
                    why = f"singular initial state: {mon.explanation} (value {{:.3g}})"
                elif mon.kind == "rho":
                    bad = ~(c >= mon.threshold)
                    why = f"at the initial state {mon.explanation} (ρ = {{:.3g}})"
                else:
                    bad = ~((c != 0) & np.isfinite(c))
                    why = f"singular initial state: {mon.explanation} (value {{:.3g}})"
                for i, ci in zip(run[bad], c[bad]):
                    if self.status[i] == _RUNNING:
                        self.status[i], self.message[i], self.t_stop[i], self.y_stop[i] = \
                            1, why.format(ci), t0, y0_full[:, i]
                        self.chart[i] = mon.chart
            run = self.running()
            self.ev_old[:, run] = _event_values(model, self.c0[:, run], self.c0[:, run], self.singular_tol)
        if len(run):
            self.f[:, run] = model.F(self.t[run], self.y[:, run], P[:, run])
            self.nfev[run] += 1
            bad = ~np.all(np.isfinite(self.f[:, run]), axis=0)
            for i in run[bad]:
                self.status[i], self.message[i], self.t_stop[i], self.y_stop[i] = 2, (
                    "the right-hand side is not finite at the initial state (a singular mass matrix or a "
                    "division by zero in the equations for these parameters)"), t0, y0_full[:, i]
            run = self.running()
        for i in run:  # outputs at t0
            while self.nxt[i] < self.nT and self.t_eval[self.nxt[i]] <= t0:
                self.out[i, self.nxt[i]] = y0_full[:, i]
                self.nxt[i] += 1
        if len(run):
            self.h_abs[run] = _initial_step(model, t0, self.y[:, run], self.f[:, run], P[:, run], self.t1, max_step,
                                            rtol, atol)
            self.nfev[run] += 1
        return run

    def step(self, run: np.ndarray, max_step: float, rtol: float, atol: float) -> np.ndarray:
        """One DOP853 step of every running member (accepted or rejected by its own error estimate);
        returns the members still running."""
        model, t, P, h_abs = self.model, self.t, self.P, self.h_abs
        tr, yr, fr, pr = t[run], self.y[:, run], self.f[:, run], P[:, run]
        min_step = 10 * np.abs(np.nextafter(tr, np.inf) - tr)
        ha = h_abs[run]
        rej = self.rejected[run]
        fresh = ~rej
        ha = np.where(fresh & (ha > max_step), max_step, ha)
        ha = np.where(fresh & (ha < min_step), min_step, ha)
        # a NaN step size compares false with everything: it must end the member here, or the
        # loop would reject NaN steps for ever (the first step of an overflowing member is NaN)
        tiny = ~np.isfinite(ha) | (rej & (ha < min_step))
        if tiny.any():
            for i in run[tiny]:
                self.status[i], self.message[i], self.t_stop[i] = 2, _failure(t[i], h_abs[i], self.overflow[i]), t[i]
                self.y_stop[i] = model.to_full(t[i:i + 1], self.y[:, i:i + 1], P[:, i:i + 1])[:, 0]
            keep = ~tiny
            run, tr, yr, fr, pr, ha, rej = run[keep], tr[keep], yr[:, keep], fr[:, keep], pr[:, keep], \
                ha[keep], rej[keep]
            if not len(run):
                return run
        t_new = np.minimum(tr + ha, self.t1)
        h = t_new - tr
        ha = np.abs(h)
        Kr = self.K[:, :, : len(run)]
        Kr[0] = fr
        for s in range(1, _N_STAGES):
            dy = _lincomb(_A[s, :s], Kr[:s]) * h
            Kr[s] = model.F(tr + _C[s] * h, yr + dy, pr)
        y_new = yr + h * _lincomb(_B, Kr[:_N_STAGES])
        f_new = model.F(t_new, y_new, pr)
        Kr[_N_STAGES] = f_new
        self.nfev[run] += _N_STAGES
        scale = atol + np.maximum(np.abs(yr), np.abs(y_new)) * rtol
        e5 = _rms2(_lincomb(_E5, Kr[: _N_STAGES + 1]) / scale)
        e3 = _rms2(_lincomb(_E3, Kr[: _N_STAGES + 1]) / scale)
        both0 = (e5 == 0) & (e3 == 0)
        err = np.where(both0, 0.0, ha * e5 / np.sqrt(np.where(both0, 1.0, (e5 + 0.01 * e3) * self.n)))
        acc = err < 1
        self.overflow[run] = ~np.isfinite(err)
        with np.errstate(divide="ignore", invalid="ignore"):
            grow = np.where(err == 0, _MAX_FACTOR, np.minimum(_MAX_FACTOR, _SAFETY * err ** _ERR_EXP))
            grow = np.where(rej, np.minimum(1.0, grow), grow)
            shrink = np.fmax(_MIN_FACTOR, _SAFETY * err ** _ERR_EXP)
        h_abs[run] = np.where(acc, ha * grow, ha * shrink)
        self.rejected[run] = ~acc
        if acc.any():
            self._accept(run, np.flatnonzero(acc), tr, yr, t_new, y_new, f_new, pr, h)
        return self.running()

    def _accept(self, run, a_idx, tr, yr, t_new, y_new, f_new, pr, h) -> None:
        """Take the accepted steps ``a_idx`` (indices into ``run``): new states, monitors and their events,
        the outputs up to a stop, the members that stopped at a singular state or reached t1."""
        model, t_eval, nT, nxt = self.model, self.t_eval, self.nT, self.nxt
        ids = run[a_idx]
        t_old, y_old = tr[a_idx], yr[:, a_idx]
        t_acc, y_acc, f_acc, p_acc, h_acc = t_new[a_idx], y_new[:, a_idx], f_new[:, a_idx], pr[:, a_idx], h[a_idx]
        self.t[ids], self.y[:, ids], self.f[:, ids] = t_acc, y_acc, f_acc
        self.nsteps[ids] += 1
        stop_at = np.full(len(ids), np.inf)
        stop_why: dict = {}
        stop_mon: dict = {}
        # which members need the dense output: an output time in (t_old, t_new], or a monitor hit
        need = (nxt[ids] < nT) & (t_eval[np.minimum(nxt[ids], nT - 1)] <= t_acc)
        hit = np.zeros((2 * self.nM, len(ids)), bool)
        if self.nM:
            cn = model.monitor_values(t_acc, y_acc, p_acc)
            ev_new = _event_values(model, cn, self.c0[:, ids], self.singular_tol)
            hit = (self.ev_old[:, ids] > 0) & ~(ev_new > 0)
            self.ev_old[:, ids] = ev_new
            need |= hit.any(axis=0)
        if need.any():
            d = np.flatnonzero(need)
            Kd = self.K[:, :, : len(run)][:, :, a_idx[d]].copy()
            Fc_d = _dense(model, Kd, t_old[d], y_old[:, d], y_acc[:, d], f_acc[:, d], h_acc[d], p_acc[:, d])
            self.nfev[ids[d]] += len(_C_EXTRA)
            if hit.any():
                _locate(model, (d, Fc_d), hit, d, t_old, h_acc, y_old, p_acc, self.c0[:, ids], self.singular_tol,
                        stop_at, stop_why, stop_mon)
            self._outputs(ids, d, Fc_d, t_old, y_old, t_acc, p_acc, h_acc, stop_at, stop_why, stop_mon)
        done = (t_acc >= self.t1) & (self.status[ids] == _RUNNING)
        for i in ids[done]:
            self.status[i], self.t_stop[i] = 0, self.t1
            self.y_stop[i] = model.to_full(np.array([self.t1]), self.y[:, i:i + 1], self.P[:, i:i + 1])[:, 0]
            self.message[i] = "The solver successfully reached the end of the integration interval."

    def _outputs(self, ids, d, Fc_d, t_old, y_old, t_acc, p_acc, h_acc, stop_at, stop_why, stop_mon) -> None:
        """The dense outputs of the members ``d`` (indices into ``ids``) up to their stop, and the state of
        those stopped at a singular state."""
        model, t_eval, nT, nxt = self.model, self.t_eval, self.nT, self.nxt
        pos = {j: r for r, j in enumerate(d)}
        while True:
            jd = ids[d]
            te = t_eval[np.minimum(nxt[jd], nT - 1)]
            ok = (nxt[jd] < nT) & (te <= np.minimum(t_acc[d], stop_at[d]))
            if not ok.any():
                break
            cols = np.flatnonzero(ok)
            jj = d[cols]
            x = (te[cols] - t_old[jj]) / h_acc[jj]
            ys = _interp(Fc_d[:, :, cols], y_old[:, jj], x)
            fulls = model.to_full(te[cols], ys, p_acc[:, jj])
            self.out[ids[jj], nxt[ids[jj]]] = fulls.T
            nxt[ids[jj]] += 1
        for j in d:  # members stopped at a singular state: the state where they stopped
            if np.isfinite(stop_at[j]):
                i = ids[j]
                x = np.array([(stop_at[j] - t_old[j]) / h_acc[j]])
                ys = _interp(Fc_d[:, :, pos[j]:pos[j] + 1], y_old[:, j:j + 1], x)
                self.status[i], self.t_stop[i] = 1, stop_at[j]
                self.y_stop[i] = model.to_full(np.array([stop_at[j]]), ys, p_acc[:, j:j + 1])[:, 0]
                self.message[i] = stop_why[j]
                self.chart[i] = model.monitors[stop_mon[j]].chart


def _failure(t: float, h: float, overflow: bool) -> str:
    """The message of a member whose step size collapsed: to NaN or below the spacing of numbers at t."""
    if not math.isfinite(h) or overflow:
        return (f"integration failed at t = {t:.6g}: the state or the right-hand side is not finite (an overflow: "
                "the motion grows beyond floating point for these data), and no smaller step helps")
    return _TOO_SMALL


def _event_values(model, c, c_init, tol):
    """Event functions (2 n_monitors, N), positive while the motion is regular: for a threshold
    quantity |c| − tol|c₀| and sign(c₀)·c; for "sign" c (twice); for "rank" det JJᵀ − tol·det JJᵀ₀;
    for "bordered" sign(det K₀)·det K."""
    ev = np.empty((2 * len(model.monitors), c.shape[1]))
    for j, mon in enumerate(model.monitors):
        if mon.kind == "threshold":
            ev[2 * j] = np.abs(c[j]) - tol * np.abs(c_init[j])
            ev[2 * j + 1] = np.sign(c_init[j]) * c[j]
        elif mon.kind == "sign":
            ev[2 * j] = ev[2 * j + 1] = c[j]
        elif mon.kind == "rank":
            ev[2 * j] = ev[2 * j + 1] = c[j] - tol * c_init[j]
        elif mon.kind == "rho":
            ev[2 * j] = ev[2 * j + 1] = c[j] - mon.threshold
        else:
            ev[2 * j] = ev[2 * j + 1] = np.sign(c_init[j]) * c[j]
    return ev


def _locate(model, Fc, hit, d, t_old, h, y_old, p, c_init, tol, stop_at, stop_why, stop_mon) -> None:
    """The first zero of each hit event function inside its step, by bisection (60 halvings:
    to the last bits of t) on the dense output; the earliest one per member wins."""
    d_idx, Fc_d = Fc
    pos = {j: r for r, j in enumerate(d_idx)}
    for e in range(hit.shape[0]):
        cols = np.flatnonzero(hit[e])
        if not len(cols):
            continue
        mon = model.monitors[e // 2]
        fc = Fc_d[:, :, [pos[j] for j in cols]]
        lo, hi = np.zeros(len(cols)), np.ones(len(cols))
        yo, pc, ci = y_old[:, cols], p[:, cols], c_init[:, cols]
        to, hh = t_old[cols], h[cols]
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            ys = _interp(fc, yo, mid)
            cv = model.monitor_values(to + mid * hh, ys, pc)
            ev = _event_values(model, cv, ci, tol)[e]
            pos_side = ev > 0
            lo = np.where(pos_side, mid, lo)
            hi = np.where(pos_side, hi, mid)
        ts = to + hi * hh
        ys = _interp(fc, yo, hi)
        cv = model.monitor_values(ts, ys, pc)[e // 2]
        for r, j in enumerate(cols):
            if ts[r] < stop_at[j]:
                stop_at[j] = ts[r]
                stop_mon[j] = e // 2
                stop_why[j] = (f"integration stopped at t = {ts[r]:.6g}: {mon.explanation} "
                               f"(value {cv[r]:.3g}, initially {ci[e // 2, r]:.3g})")
