r"""The result of a run: :class:`SimulationResult` (arrays, derived figures, display, plots), the
figures computed from the compiled system along the output (:func:`finish`) and the merge of the
segments of a run across charts (:func:`merge`).

**Energy balance.**  Along any motion d/dt(∂L/∂q̇^σ) − ∂L/∂q^σ = A_σ + R_σ (R_σ = λ_i ∂f^i/∂q̇^σ,
Chetaev's reaction [Benenti 2007, eq. (3.14)]) the energy E_L = q̇^σ ∂L/∂q̇^σ − L satisfies

.. math:: \frac{dE_L}{dt} = -\frac{\partial L}{\partial t} + A_\sigma\dot q^\sigma + R_\sigma\dot q^\sigma,
          \qquad R_\sigma\dot q^\sigma = \lambda_i\,\frac{\partial f^i}{\partial\dot q^\sigma}\dot q^\sigma .

If f^i is homogeneous of degree d_i in the velocities, Euler's identity gives R·q̇ = d_i λ_i f^i = 0
on Q: the reaction does no work.  The result returns all three powers along the solution
(``energy_balance``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import sympy as sp

from ...errors import InputError
from ...geometry.display import tidy_latex
from ..plots import plot_monitor, plot_reactions, plot_trajectory
from .events import SingularEvent
from .integrate import Out
from .prepare import PreparedSystem

__all__ = ["SimulationResult", "finish", "merge"]


def _latex_float(v: float) -> str:
    """A float in LaTeX: 1.2 \\cdot 10^{-11}."""
    m, _, e = f"{v:.3g}".partition("e")
    return m if not e else rf"{m} \cdot 10^{{{int(e)}}}"



@dataclass
class SimulationResult:
    """A simulated motion, with the constraint residuals, energy, multipliers and reactions along it.

    Arrays are indexed by time first: ``q[i, σ]`` is q^σ(t_i).  ``residuals[i, j]`` is the
    value of the j-th constraint f^j(t_i, q, q̇) (``constraints`` lists them; ``residual_scale``
    holds Σ|terms of f^j|, the size of what cancels, for relative figures), ``energy``
    E_L = q̇·∂L/∂q̇ − L (None without a Lagrangian), ``multipliers[i, j]`` λ_j and
    ``reactions[i, σ]`` R_σ = λ_j ∂f^j/∂q̇^σ (None when the method does not give them).
    ``reaction_power`` R·q̇, ``force_power`` A·q̇ and ``explicit_power`` −∂L/∂t make up
    dE_L/dt (theory/numerics.md, "The energy balance").  ``event`` tells why the integration stopped early.

    Attributes
    ----------
    t : numpy.ndarray
        The output times, shape (N,).
    q : numpy.ndarray
        The coordinates, shape (N, m).
    qdot : numpy.ndarray
        The velocities, shape (N, m).
    q_symbols : tuple of Symbol
        The coordinates' symbols (:meth:`column` looks a series up by symbol or name).
    qdot_symbols : tuple of Symbol
        The velocities' symbols.
    constraints : list of sympy.Expr
        The constraints f^j.
    residuals : numpy.ndarray
        f^j along the run, shape (N, k).
    residual_scale : numpy.ndarray
        Σ|terms of f^j| along the run, for relative figures (:attr:`max_relative_residual`).
    energy : numpy.ndarray or None
        E_L along the run.
    multipliers : numpy.ndarray or None
        λ_j, shape (N, k).
    reactions : numpy.ndarray or None
        R_σ = λ_j ∂f^j/∂q̇^σ, shape (N, m).
    reaction_power : numpy.ndarray or None
        R·q̇ (zero for Chetaev's reactions of homogeneous constraints).
    force_power : numpy.ndarray or None
        A·q̇, the power of the applied forces.
    explicit_power : numpy.ndarray or None
        −∂L/∂t; dE_L/dt is the sum of the three powers (:meth:`energy_balance`).
    integrals : dict
        {name: values} of the first integrals given to ``simulate``.
    success : bool
        False when a step failed (``status`` "failed").
    status : str
        ``"finished"`` (reached the end), ``"singular"`` (stopped at a proven singular state) or
        ``"failed"``.
    message : str
        The integrator's message, or why it stopped.
    event : SingularEvent or None
        Where and why the run stopped early.
    nfev : int
        Right-hand side evaluations.
    projected : bool
        Whether the state was projected back onto Q after each step.
    formulation : str
        ``"full"``, ``"reduced"`` or ``"multipliers"``.
    params : dict
        {parameter: value} used.
    sol : callable or None, optional
        The dense output of the integration state (calling the result gives (q, q̇) at any t).
    _to_full : callable or None, optional
        Internal: maps the integration state to (q, q̇).
    charts : list of ChartSwitch, optional
        The chart switches of the atlas, in time order.
    t_stop : float or None, optional
        The time the integration ended at (may lie after ``t[-1]``).
    orientation_charts : list or None, optional
        The Euler sequence of each output row for a run across charts of SO(3).
    orientation : numpy.ndarray or None, optional
        For a rigid body stepped on SO(3): the unit quaternion at every node, shape (N, 4).
    quasi_velocities : numpy.ndarray or None, optional
        The quasi-velocities v at every node when the run stepped them, shape (N, m).
    """

    t: np.ndarray
    q: np.ndarray
    qdot: np.ndarray
    q_symbols: tuple
    qdot_symbols: tuple
    constraints: list
    residuals: np.ndarray
    residual_scale: np.ndarray
    energy: np.ndarray | None
    multipliers: np.ndarray | None
    reactions: np.ndarray | None
    reaction_power: np.ndarray | None
    force_power: np.ndarray | None
    explicit_power: np.ndarray | None
    integrals: dict
    success: bool
    status: str
    message: str
    event: SingularEvent | None
    nfev: int
    projected: bool
    formulation: str
    params: dict
    sol: object = None
    _to_full: object = field(default=None, repr=False)
    #: the chart switches of the atlas (:class:`ChartSwitch`), in time order
    charts: list = field(default_factory=list)
    #: the time the integration ended at: the end of the span, a stopping event's time or where a step
    #: failed — not the last output sample (``t[-1]``), which may lie before it
    t_stop: float | None = None
    #: the orientation chart (an Euler sequence) of each output row, for a run across charts of SO(3)
    #: (:func:`~jetgeo.numerics.simulation.orientation.simulate_orientation`); None otherwise
    orientation_charts: list | None = None
    #: a rigid body stepped on SO(3) (:mod:`~jetgeo.numerics.simulation.discrete_lie`): the unit quaternion
    #: (q₀ first, x_space = q x_body q̄) at every node, shape (N, 4); None otherwise
    orientation: np.ndarray | None = None
    #: the quasi-velocities v (the frame's order) at every node when the run stepped them, shape (N, m); else None
    quasi_velocities: np.ndarray | None = None

    # --- derived figures ----------------------------------------------------------------------
    @property
    def max_residual(self) -> float:
        """max over time and constraints of |f^j| (0 without constraints)."""
        return float(np.max(np.abs(self.residuals))) if self.residuals.size else 0.0

    @property
    def max_relative_residual(self) -> float:
        """max of |f^j| / (1 + Σ|terms of f^j|): the residual against the size of the terms that cancel."""
        if not self.residuals.size:
            return 0.0
        return float(np.max(np.abs(self.residuals) / (1.0 + np.abs(self.residual_scale))))

    @property
    def energy_drift(self) -> np.ndarray | None:
        """E_L(t) − E_L(t_0)."""
        return None if self.energy is None else self.energy - self.energy[0]

    @property
    def max_energy_drift(self) -> float | None:
        """max |E_L(t) − E_L(t_0)|."""
        return None if self.energy is None else float(np.max(np.abs(self.energy - self.energy[0])))

    @property
    def relative_energy_drift(self) -> float | None:
        """max |E_L(t) − E_L(t_0)| / max(|E_L(t_0)|, tiny)."""
        if self.energy is None:
            return None
        return self.max_energy_drift / max(abs(float(self.energy[0])), 1e-300)

    def integral_drift(self, name: str) -> float:
        """max |I(t) − I(t_0)| of a first integral given to :func:`simulate`."""
        v = self.integrals[name]
        return float(np.max(np.abs(v - v[0])))

    def energy_balance(self) -> np.ndarray | None:
        r"""E_L(t) − E_L(t_0) − ∫_{t_0}^t (−∂_t L + A·q̇ + R·q̇) dt (trapezoidal rule on the output
        times): zero up to the quadrature and integration error when the energy identity holds."""
        if self.energy is None or self.reaction_power is None:
            return None
        from scipy.integrate import cumulative_trapezoid

        power = self.reaction_power + self.force_power + self.explicit_power
        work = cumulative_trapezoid(power, self.t, initial=0.0)
        return self.energy - self.energy[0] - work

    # --- access ---------------------------------------------------------------------------
    def column(self, coord) -> np.ndarray:
        """The time series of a coordinate or velocity (symbol or name), or ``"t"``."""
        name = str(coord)
        if name == "t" or (len(self.q_symbols) and name == "t"):
            return self.t
        for i, s in enumerate(self.q_symbols):
            if str(s) == name:
                return self.q[:, i]
        for i, s in enumerate(self.qdot_symbols):
            if str(s) == name:
                return self.qdot[:, i]
        raise InputError(f"{coord} is not a coordinate or velocity of this result: {list(self.q_symbols)}")

    def __call__(self, t):
        """(q, q̇) at time(s) t from the dense output."""
        if self.sol is None:
            raise InputError("no dense output was kept (simulate(..., dense_output=True))")
        y = self.sol(t)
        return self._to_full(np.atleast_1d(t), y if y.ndim == 2 else y[:, None])

    def summary(self) -> str:
        lines = [f"simulation ({self.formulation}{', projected' if self.projected else ''}): {self.message}",
                 f"  t in [{self.t[0]:.6g}, {self.t[-1]:.6g}], {len(self.t)} output points, {self.nfev} rhs calls"]
        if self.residuals.size:
            lines.append(f"  max |constraint residual| = {self.max_residual:.3g}")
        if self.energy is not None:
            lines.append(f"  energy drift max |E - E0| = {self.max_energy_drift:.3g} "
                         f"(relative {self.relative_energy_drift:.3g})")
        for c in self.charts:
            lines.append(f"  chart switch at {c}")
        if self.event is not None:
            lines.append(f"  {self.event}")
        return "\n".join(lines)

    __str__ = summary

    def __repr__(self) -> str:
        """The summary on one line, not the arrays (the dataclass's repr printed every array)."""
        return "SimulationResult(" + "; ".join(line.strip() for line in self.summary().splitlines()) + ")"

    def _repr_html_(self) -> str:
        import html

        rows = "".join(f"<tr><td>{html.escape(line.strip())}</td></tr>" for line in self.summary().splitlines())
        return f"<table>{rows}</table>"

    def _repr_latex_(self) -> str:
        """The monitored figures as a LaTeX array (constraints f^j, their max |f^j|, energy drift, event)."""
        rows = [rf"\text{{{self.formulation}{', projected' if self.projected else ''}}} & "
                rf"t \in [{self.t[0]:.6g},\ {self.t[-1]:.6g}],\ {len(self.t)}\ \text{{points}}"]
        for j, f in enumerate(self.constraints):
            val = float(np.max(np.abs(self.residuals[:, j]))) if self.residuals.size else 0.0
            rows.append(rf"\max_t |{sp.latex(f)}| & {_latex_float(val)}")
        if self.energy is not None:
            rows.append(rf"\max_t |E_L - E_L(t_0)| & {_latex_float(self.max_energy_drift)}")
        for c in self.charts:
            rows.append(rf"\text{{chart switch at }} t = {c.t:.6g} & "
                        rf"({', '.join(map(sp.latex, c.old))}) \to ({', '.join(map(sp.latex, c.new))})")
        if self.event is not None:
            rows.append(rf"\text{{stopped at }} t = {self.event.t:.6g} & "
                        rf"{tidy_latex(self.event.expr) if isinstance(self.event.expr, sp.Basic) else self.event.expr}"
                        r" \to 0")
        return "$\\begin{array}{ll}" + r" \\ ".join(rows) + r"\end{array}$"

    # --- plots (matplotlib, optional) -----------------------------------------------------
    def plot(self, coords=None, **kw):
        """Trajectory and its projections on the coordinate planes (see :mod:`jetgeo.numerics.plots`)."""
        return plot_trajectory(self, coords, **kw)

    def plot_monitor(self, **kw):
        """Constraint residuals and energy drift against time."""
        return plot_monitor(self, **kw)

    def plot_reactions(self, **kw):
        """Reaction forces (and multipliers) against time."""
        return plot_reactions(self, **kw)



def finish(prep: PreparedSystem, out: Out, p, params, ev_list, projected: bool, t0) -> SimulationResult:
    """The :class:`SimulationResult` of one integration in one chart: the integrator's output mapped
    to the full state (q, q̇), and the monitors evaluated along it — constraint residuals and their
    scales, energy, multipliers and reactions (from the route, or solved from the bordered system
    at every output point), the powers of the energy balance, the first integrals, and the
    singular event that stopped it.

    Parameters
    ----------
    prep : PreparedSystem
        The prepared system integrated.
    out : Out
        The integrator's raw output (times, states, status, events, dense output).
    p : numpy.ndarray
        The parameter values, in the order of ``prep.params``.
    params : dict
        {parameter: value}, kept in the result.
    ev_list : list
        The singular-state events given to the integrator: (event, explanation, expression,
        initial value), in the order of ``out.t_events``.
    projected : bool
        Whether states were projected onto Q.
    t0 : float
        The initial time.

    Returns
    -------
    SimulationResult
        Status ``"finished"``, ``"singular"`` or ``"failed"`` from the integrator's status.
    """
    M = prep.model
    t = np.asarray(out.t, dtype=float)
    Y = np.asarray(out.y, dtype=float)
    if Y.ndim == 1:
        Y = Y[:, None]
    full = prep.to_full(t, Y, p) if Y.shape[1] else np.zeros((2 * len(M.q), 0))
    m = len(M.q)

    def ev_v(fn, rows):
        if fn is None or full.shape[1] == 0:
            return None
        return np.asarray(fn(t, full, p)).T.reshape(full.shape[1], rows)

    residuals = ev_v(prep.constraint_residuals_along, len(M.f)) if M.f else np.zeros((len(t), 0))
    residual_scale = ev_v(prep.constraint_scales_along, len(M.f)) if M.f else np.zeros((len(t), 0))
    energy = ev_v(prep.energy_along, 1)
    energy = None if energy is None else energy[:, 0]
    if M.lam is None and prep.bordered is not None and full.shape[1]:
        lam = np.array([prep.bordered.solve(ti, full[:, i], p)[1] for i, ti in enumerate(t)]).reshape(len(t), len(M.f))
        Jv = [prep.jacobian_of_constraints(ti, full[:, i], p) for i, ti in enumerate(t)]
        R = np.array([Jv[i].T @ lam[i] for i in range(len(t))]).reshape(len(t), m)
    else:
        lam = ev_v(prep.multipliers_along, len(M.lam)) if M.lam else None
        R = ev_v(prep.reactions_along, m) if M.reactions else None
    qd = full[m:].T
    reaction_power = None if R is None else np.einsum("ij,ij->i", R, qd)
    A = ev_v(prep.forces_along, m) if prep.forces_along is not None else None
    force_power = None if A is None else np.einsum("ij,ij->i", A, qd)
    dLdt = ev_v(prep.explicit_power_along, 1)
    explicit_power = None if dLdt is None else dLdt[:, 0]
    integrals = {}
    if prep.integrals_along is not None:
        vals = ev_v(prep.integrals_along, len(prep.integrals))
        integrals = {k: vals[:, i] for i, k in enumerate(prep.integrals)}
    event = None
    status = {0: "finished", 1: "singular", -1: "failed"}.get(out.status, str(out.status))
    message = out.message
    if out.status == 1 and out.t_events is not None:
        for k, te in enumerate(out.t_events):
            if len(te):
                ev, expl, expr, c0 = ev_list[k]
                yk = out.y_events[k][0]
                val = ev(te[0], yk)
                # report the monitored quantity itself (undo the threshold shift)
                event = SingularEvent(float(te[0]), expl, expr, float(val + ev.thr), float(c0))
                message = f"integration stopped at t = {te[0]:.6g}: {expl}"
                break

    def to_full(tt, yy):
        f = prep.to_full(tt, yy, p)
        return f[:m], f[m:]

    return SimulationResult(
        t=t, q=full[:m].T.copy(), qdot=qd.copy(), q_symbols=M.q, qdot_symbols=M.qdot, constraints=list(M.f),
        residuals=residuals, residual_scale=residual_scale, energy=energy, multipliers=lam, reactions=R,
        reaction_power=reaction_power,
        force_power=force_power, explicit_power=explicit_power, integrals=integrals,
        success=out.status >= 0, status=status, message=message, event=event, nfev=int(out.nfev),
        projected=projected, formulation=prep.formulation, params=dict(params), sol=out.sol, _to_full=to_full,
        t_stop=out.t_stop,
    )



def merge(segments: list, have_t_eval: bool) -> SimulationResult:
    """One result from the segments of a run across charts (arrays concatenated, the duplicate state
    at each switch dropped; the dense output piecewise, in the full state).

    Parameters
    ----------
    segments : list of SimulationResult
        The results of the charts, in time order.
    have_t_eval : bool
        Whether the output times were given (then the switch points, added by the atlas, are dropped).

    Returns
    -------
    SimulationResult
        The whole run: status, message and event of the last segment, the chart switches of all.
    """
    keep = []
    last_t = -np.inf
    for i, seg in enumerate(segments):
        mask = seg.t > last_t
        if have_t_eval and i < len(segments) - 1 and len(seg.t):
            mask[-1] = False  # the switch point, appended to the chart's last output: not asked for
        keep.append(mask)
        if np.any(mask):
            last_t = seg.t[mask][-1]
        elif len(seg.t):
            last_t = max(last_t, seg.t[-1]) if not have_t_eval else last_t

    def cat(name):
        parts = [getattr(seg, name) for seg in segments]
        if any(x is None for x in parts):
            return None
        return np.concatenate([x[mk] for x, mk in zip(parts, keep)], axis=0)

    first, last = segments[0], segments[-1]
    integrals = {k: np.concatenate([seg.integrals[k][mk] for seg, mk in zip(segments, keep)])
                 for k in first.integrals}
    m = len(first.q_symbols)
    bounds = [seg.t[0] for seg in segments[1:]]

    if all(seg.sol is not None for seg in segments):
        def sol(t):
            t = np.atleast_1d(np.asarray(t, dtype=float))
            out = np.empty((2 * m, len(t)))
            which = np.searchsorted(bounds, t, side="right")
            for j, seg in enumerate(segments):
                sel = which == j
                if np.any(sel):
                    y = seg.sol(t[sel])
                    qq, vv = seg._to_full(t[sel], y if y.ndim == 2 else y[:, None])
                    out[:m, sel], out[m:, sel] = qq, vv
            return out
    else:
        sol = None

    def to_full(tt, yy):
        return yy[:m], yy[m:]

    orientation = None
    if all(seg.orientation_charts is not None for seg in segments):
        orientation = [c for seg, mk in zip(segments, keep) for c, k in zip(seg.orientation_charts, mk) if k]

    return SimulationResult(
        t=cat("t"), q=cat("q"), qdot=cat("qdot"), q_symbols=first.q_symbols, qdot_symbols=first.qdot_symbols,
        constraints=first.constraints, residuals=cat("residuals"), residual_scale=cat("residual_scale"),
        energy=cat("energy"), multipliers=cat("multipliers"), reactions=cat("reactions"),
        reaction_power=cat("reaction_power"), force_power=cat("force_power"), explicit_power=cat("explicit_power"),
        integrals=integrals, success=last.success, status=last.status, message=last.message, event=last.event,
        nfev=sum(seg.nfev for seg in segments), projected=first.projected, formulation=first.formulation,
        params=first.params, sol=sol, _to_full=to_full, t_stop=last.t_stop, orientation_charts=orientation,
    )
