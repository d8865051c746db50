r"""The atlas: charts of Q (choices of dependent velocities) along a simulation.

A normal form q̇^D = g is a chart of Q; it fails where det ∂f/∂q̇^D = 0 although Q is smooth there.
With J = ∂f/∂q̇, Cauchy–Binet gives det(J Jᵀ) = Σ_D det(J_D)², so the chart quality
ρ_D = det(J_D)²/det(J Jᵀ) ∈ [0, 1] sums to 1 over the N choices and some choice has ρ ≥ 1/N
wherever the rank condition holds.  A run is watched for ρ of the choice in force falling below
1/(4N) (:func:`chart_monitor`); there the state is handed to the choice of largest ρ
(:func:`chart_for`).  theory/atlas.md.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np

from ...errors import BranchError, NotRegularError, OffManifoldError, RankDeficientError
from ...mechanics import accelerations_on_TQ
from .events import Monitor, SingularEvent
from .model import Condition, Model, branch_conditions, is_const, names
from .prepare import PreparedSystem, build

__all__ = ["ChartSwitch", "chart_quality", "chart_monitor", "chart_for", "bordered_monitor"]


@dataclass
class ChartSwitch:
    """A change of the dependent velocities at time ``t``: ``old`` → ``new``, because the chart
    quality ρ = det(J_D)²/det(J Jᵀ) of the old choice fell to ``rho_old`` (the new one has
    ``rho_new`` there).

    The dependent velocities D of the normal form q̇^D = g(t, q, q̇^I) are a chart of Q; ρ_D is
    1 where the other velocities are far from the constraint's null directions and falls to 0
    where ∂f/∂q̇^D becomes singular [Stolařová 2009, eq. (3)].

    Attributes
    ----------
    t : float
        The time of the switch.
    old : tuple of Symbol
        The dependent velocities before the switch.
    new : tuple of Symbol
        The dependent velocities after it.
    reason : str
        One sentence with both values of ρ and the threshold.
    rho_old : float
        ρ of the old choice at the switch (at or below the threshold).
    rho_new : float
        ρ of the new choice there (the largest over the admissible choices).
    """

    t: float
    old: tuple
    new: tuple
    reason: str
    rho_old: float
    rho_new: float

    def __str__(self) -> str:
        return f"t = {self.t:.6g}: dependent velocities {names(self.old)} → {names(self.new)} ({self.reason})"



#: switch charts where ρ_D < _CHART_SWITCH / N (N the number of k-subsets of the velocities; some
#: choice has ρ ≥ 1/N, so the chart switched to is never close to its own boundary)
_CHART_SWITCH = 0.25



def chart_quality(J: np.ndarray, cols) -> float:
    """ρ_D = det(J_D)²/det(J Jᵀ) ∈ [0, 1] (Cauchy–Binet: Σ_D ρ_D = 1); 1.0 where J Jᵀ is singular
    (that is the rank monitor's business).

    Parameters
    ----------
    J : numpy.ndarray, k × m
        ∂f/∂q̇ at a state.
    cols : sequence of int
        The columns D of the dependent velocities (k of them).

    Returns
    -------
    float
        ρ_D: how well the chart of D solves f = 0 for q̇^D there (0: not at all).
    """
    G = float(np.linalg.det(J @ J.T))
    if not G > 0 or not np.isfinite(G):
        return 1.0
    d = float(np.linalg.det(J[:, list(cols)]))
    return d * d / G



def _switch_threshold(k: int, m: int) -> float:
    from math import comb

    return _CHART_SWITCH / comb(m, k)



def _best_choice(J: np.ndarray) -> tuple:
    """Column indices D maximising ρ_D at a point (every k-subset when there are at most 5000 of
    them, else QR with column pivoting: a near-maximal volume)."""
    from itertools import combinations
    from math import comb

    k, m = J.shape
    if comb(m, k) <= 5000:
        best, cols = -1.0, None
        for c in combinations(range(m), k):
            r = chart_quality(J, c)
            if r > best + 1e-12:
                best, cols = r, c
        return tuple(cols)
    from scipy.linalg import qr

    _, _, piv = qr(J, pivoting=True)
    return tuple(sorted(int(i) for i in piv[:k]))



def chart_monitor(prep: PreparedSystem, t0, y0, p):
    """The atlas's event: ρ of the choice in force minus the switching threshold.

    Parameters
    ----------
    prep : PreparedSystem
        The system in the chart in force (its ``dependent`` velocities).
    t0, y0 : float, numpy.ndarray
        The initial time and state.
    p : numpy.ndarray
        The parameter values.

    Returns
    -------
    tuple
        (:class:`~jetgeo.numerics.simulation.events.Monitor` whose ``chart`` is the dependent velocities,
        explanation, ``"rho"``, ρ at the initial state).
    """
    M = prep.model
    cols = [M.qdot.index(d) for d in prep.dependent]
    thr = _switch_threshold(len(M.f), len(M.qdot))

    def ev(t, y):
        return chart_quality(np.asarray(prep.jacobian_of_constraints_in_state(t, y, p), dtype=float), cols) - thr

    mon = Monitor(ev, thr, chart=tuple(prep.dependent))
    return (mon, f"the chart of {names(prep.dependent)} ends", "rho", mon(t0, y0) + thr)



_ATLAS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()



def _atlas_prep(cs, dependent: tuple, branch, formulation: str, first_integrals, backend: str) -> PreparedSystem:
    """The compiled model of ``cs`` in the chart q̇^D = g_D(t, q, q̇^I), D = ``dependent``, as the atlas
    enters it: the normal form of that choice (for the reduced formulation and the chart's monitors) and
    the accelerations on TQ (:func:`~jetgeo.mechanics.accelerations_on_TQ`: functions of all velocities
    that solve J q̈ = −d̄f at every (t, q, q̇), so that f is a first integral of the full formulation's
    ODE — it is not amplified off Q whatever the chart; the on-Q accelerations q̈(t, q, q̇^I) of a chart
    are only tangent to Q, and some charts repel: ḟ = −(∂g/∂q^D) f).  Regularity is watched through
    the bordered matrix [[W, −Jᵀ], [J, 0]], non-singular exactly where the reduced mass matrix of any
    chart is [Ibort et al. 1996, eq. (4.17)].  Derived once per (system, chart), compiled once per
    formulation (without first integrals)."""
    key = (tuple(dependent), branch, formulation, backend)
    per = _ATLAS.setdefault(cs, {})
    if key in per and not first_integrals:
        return per[key]
    mkey = (tuple(dependent), branch)
    if mkey not in per:
        Qn = cs.Q.with_dependent(dependent, branch=branch)
        nf = Qn.normal_form(branch=branch)
        acc = accelerations_on_TQ(cs.system, Qn, dependent=list(dependent))
        conds = []
        if not is_const(nf.condition):
            conds.append(Condition(nf.condition, "chart", f"the normal form q̇^D = g for {names(dependent)} is "
                                    f"singular: det ∂f/∂q̇^D = {nf.condition} vanishes"))
        conds += branch_conditions(nf.branch)
        Y = cs.Y
        model = Model(Y, [acc[a] for a in Y.qddot], dict(nf.g), list(cs.Q.f), cs.system, None, None, conds,
                       f"constrained system, chart {names(dependent)} (accelerations on TQ)", cs=cs, Q=Qn,
                       atlas_chart=True)
        per[mkey] = model
    prep = build(per[mkey], formulation, first_integrals, backend)
    if not first_integrals:
        per[key] = prep
    return prep



def bordered_monitor(prep: PreparedSystem, t0, y0, p):
    """Regularity in any chart: the sign of det [[W, −Jᵀ], [J, 0]] (constant while the system is regular).

    Parameters
    ----------
    prep : PreparedSystem
        The system, compiled with its bordered system.
    t0, y0 : float, numpy.ndarray
        The initial time and state.
    p : numpy.ndarray
        The parameter values.

    Returns
    -------
    tuple
        (:class:`~jetgeo.numerics.simulation.events.Monitor`, explanation, monitored expression, initial value).

    Raises
    ------
    NotRegularError
        When the bordered matrix is singular at the initial state [Ibort et al. 1996, eq. (4.17)].
    """
    def det_k(t, y):
        full = prep.to_full(np.array([t]), np.asarray(y, dtype=float)[:, None], p)[:, 0]
        return float(np.linalg.det(prep.bordered.solve(t, full, p)[2]))

    d0 = det_k(t0, y0)
    if not d0 or not np.isfinite(d0):
        raise NotRegularError("the constrained system is not regular here: the bordered matrix "
                              "[[W, -J^T], [J, 0]] is singular [Ibort et al. 1996, eq. (4.17)]")
    s0 = float(np.sign(d0))

    def ev(t, y):
        return s0 * det_k(t, y)

    return (Monitor(ev), "the constrained system stops being regular: det [[W, -J^T], [J, 0]] vanishes "
            "(equivalently the reduced mass matrix of every chart is singular) [Ibort et al. 1996, eq. (4.17)]",
            "det K", d0)



def chart_for(prep: PreparedSystem, t, y_full, p, switches: list, first_integrals, initial_check: bool = False):
    """(prepared system, None) in a chart regular at the full state (t, y_full) — the one in force if
    its ρ is above the switching threshold, else the choice of largest ρ (recorded in ``switches``);
    or (prep, SingularEvent) when no chart continues there.

    Parameters
    ----------
    prep : PreparedSystem
        The prepared system in the chart in force (its model carries the ConstrainedSystem).
    t : float
        The time.
    y_full : numpy.ndarray
        The full state (q, q̇) at t.
    p : numpy.ndarray
        The parameter values.
    switches : list
        Receives the :class:`ChartSwitch` when the chart changes.
    first_integrals : mapping or None
        Passed on when the new chart's system is prepared.
    initial_check : bool, default False
        At the initial state: keep the chart in force whenever its ρ is above the threshold.

    Returns
    -------
    tuple
        ``(prep, None)`` with ``prep`` the prepared system of the chart to continue in, or
        ``(prep, event)`` with a :class:`~jetgeo.numerics.simulation.events.SingularEvent` when no
        choice is regular (proven) or the next chart cannot be entered (not proven).
    """
    M = prep.model
    cs = M.cs
    J = np.asarray(prep.jacobian_of_constraints(t, y_full, p), dtype=float)
    cols_now = tuple(M.qdot.index(d) for d in prep.dependent)
    rho_now = chart_quality(J, cols_now)
    thr = _switch_threshold(len(M.f), len(M.qdot))
    if initial_check and rho_now >= thr:
        return prep, None
    best = _best_choice(J)
    rho_new = chart_quality(J, best)
    new = tuple(M.qdot[c] for c in best)
    old = tuple(prep.dependent)
    if best == cols_now or rho_new < thr:
        return prep, SingularEvent(t, "no choice of dependent velocities is regular here (max ρ = "
                                   f"{rho_new:.3g})", "rho", rho_new, rho_now)
    try:
        branch = None
        Qn = cs.Q.with_dependent(new)
        if len(Qn.branches()) > 1:
            pt = {s: float(v) for s, v in zip(prep.full_state, y_full)}
            pt.update({s: float(v) for s, v in zip(prep.params, p)})
            pt[M.t] = t
            branch = Qn.branch_of(pt, tol=1e-6)
        prep_new = _atlas_prep(cs, new, branch, prep.formulation, first_integrals, prep.backend)
    except (BranchError, OffManifoldError, NotRegularError, RankDeficientError) as exc:
        # the chart in force ends here and the next one could not be entered: not a proof that the
        # problem is singular at this state, so the run ends as failed, saying why
        return prep, SingularEvent(t, f"the chart of {names(new)} cannot be entered: {exc}", "rho", rho_new,
                                   rho_now, proven=False)
    D = ", ".join(map(str, old))
    reason = (f"ρ = det(∂f/∂({D}))²/det(J Jᵀ) = {rho_now:.3g} ≤ the switching threshold {thr:.3g}; "
              f"{names(new)} has ρ = {rho_new:.3g}")
    switches.append(ChartSwitch(float(t), old, new, reason, rho_now, rho_new))
    return prep_new, None
