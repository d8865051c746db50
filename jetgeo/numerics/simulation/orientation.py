r"""The orientation atlas: a rigid body simulated across Euler-angle charts of SO(3).

Every Euler-angle chart of SO(3) has a pole, where the body-frame angular velocity Ω = Φ(a) ȧ stops
determining the angle rates: det Φ = ±sin θ for a proper Euler sequence (ZXZ: the body's third axis
along the vertical), ±cos θ for a Tait–Bryan one (XYZ), θ the middle angle
(:func:`~jetgeo.mechanics.rigid.chart_singularity`).  Near it the angle rates grow like 1/|det Φ|
although the motion is smooth.  :func:`simulate_orientation` integrates a system given for every
chart — a callable ``build(sequence)`` returning the
:class:`~jetgeo.mechanics.quasi.QuasiVelocitySystem` of the body in that chart — in one chart,
stops where |det Φ| falls to ``threshold`` (an event located on the step's dense output), converts
the orientation to the given chart best conditioned there (through the rotation matrix R: R is
chart-independent; the new angles from ``scipy.spatial.transform.Rotation``, checked against the
chart's own R), keeps Ω (the body frame is chart-independent) and the other coordinates and their
rates, and continues.  Each switch is recorded in ``result.charts`` (an :class:`OrientationSwitch`,
a :class:`~.atlas.ChartSwitch` whose ``old``/``new`` are the sequences), and
``result.orientation_charts`` names the chart of every output row, so that
:func:`orientation_along` gives R(t) and Ω(t) whatever the chart.  Where no other chart is given (or
none is better conditioned) a :class:`ChartConditioningWarning` says that the chart's conditioning
degrades and the run goes on in it.  Unit quaternions
(:func:`~jetgeo.mechanics.rigid.body_angular_velocity_quaternion`) have no pole at all and need no
atlas: :func:`~jetgeo.numerics.simulate` integrates them with the unit norm kept by the constraint
s = 0.  theory/quasi_velocities.md, "Orientation charts".
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import sympy as sp

from ...errors import InputError
from ...jets.fibred import FibredManifold
from ...mechanics.quasi import QuasiVelocitySystem
from ...mechanics.rigid import (
    EULER_SEQUENCES,
    QUATERNION,
    body_angular_velocity,
    body_angular_velocity_quaternion,
    chart_singularity,
    rotation_matrix,
)
from .atlas import ChartSwitch
from .events import Monitor, singular_state_events
from .initial import check_on_manifold, initial_data, lookup
from .integrate import IMPLICIT, integrate
from .options import SimulationOptions
from .prepare import PreparedSystem, prepare
from .results import SimulationResult, finish, merge
from .run import SimulationStoppedWarning, check_arguments

__all__ = ["simulate_orientation", "orientation_along", "OrientationSwitch", "ChartConditioningWarning"]


class ChartConditioningWarning(UserWarning):
    """An Euler-angle chart's conditioning |det Φ| fell below the threshold and no other chart (given, or
    better conditioned there) could take over: the angle rates grow like 1/|det Φ| near the pole."""


class OrientationSwitch(ChartSwitch):
    """A change of the orientation chart at time ``t``: ``old`` → ``new`` (1-tuples holding the
    Euler sequences), because |det Φ| of the old chart fell to ``rho_old`` (the new one has
    ``rho_new`` there).

    An Euler-angle chart (a) ↦ R(a) of SO(3) degenerates where |det Φ(a)| → 0 (Ω = Φ(a) ȧ: gimbal
    lock); the run continues in another sequence, with the same rotation R.

    Attributes
    ----------
    t : float
        The time of the switch.
    old : tuple of str
        ``(sequence,)``: the Euler sequence left (e.g. ``("ZXZ",)``).
    new : tuple of str
        ``(sequence,)``: the Euler sequence entered.
    reason : str
        One sentence with both conditionings and the threshold.
    rho_old : float
        |det Φ| of the old chart at the switch.
    rho_new : float
        |det Φ| of the new chart there.
    """

    def __str__(self) -> str:
        return f"t = {self.t:.6g}: orientation chart {self.old[0]} → {self.new[0]} ({self.reason})"


@dataclass
class _Kinematics:
    """The numerics of one chart of SO(3): R(a), Φ(a) with Ω = Φ(a) ȧ, and |det Φ(a)|."""

    sequence: str
    R: Callable
    Phi: Callable
    quality: Callable

    def rotation(self, a) -> np.ndarray:
        return np.asarray(self.R(*a), dtype=float).reshape(3, 3)

    def omega(self, a, adot) -> np.ndarray:
        return np.asarray(self.Phi(*a), dtype=float).reshape(-1, len(adot)) @ np.asarray(adot, dtype=float)

    def conditioning(self, a) -> float:
        return abs(float(self.quality(*a)))


_KINEMATICS: dict = {}


def _kinematics(sequence: str) -> _Kinematics:
    """The chart's numerics, derived once per sequence on coordinates of its own (cheap: three angles)."""
    if sequence not in _KINEMATICS:
        if sequence == QUATERNION:
            Y = FibredManifold(["a0", "a1", "a2", "a3"])
            F = body_angular_velocity_quaternion(Y, ["w1", "w2", "w3", "s"])
            quality = sp.Integer(1)
        else:
            Y = FibredManifold(["a1", "a2", "a3"])
            F = body_angular_velocity(Y, sequence, ["w1", "w2", "w3"])
            quality = chart_singularity(F)
        R = rotation_matrix(Y, sequence)
        a = list(Y.q)
        _KINEMATICS[sequence] = _Kinematics(sequence, sp.lambdify(a, R, "numpy"),
                                            sp.lambdify(a, F.Phi[:3, :], "numpy"),
                                            sp.lambdify(a, quality, "numpy"))
    return _KINEMATICS[sequence]


def _angles_of(R: np.ndarray, sequence: str) -> np.ndarray:
    """The angles of ``sequence`` (a body-fixed, i.e. intrinsic, sequence: scipy's upper case) of the
    rotation R, checked against the chart's own R(a) from ``sympy.physics.mechanics``."""
    from scipy.spatial.transform import Rotation

    with warnings.catch_warnings():  # scipy warns of gimbal lock at a chart's pole; the caller avoids poles
        warnings.simplefilter("ignore", UserWarning)
        a = Rotation.from_matrix(R).as_euler(sequence)
    back = _kinematics(sequence).rotation(a)
    if not np.max(np.abs(back - R)) < 1e-9:
        raise RuntimeError(f"the angles {a} of chart {sequence} do not reproduce the rotation (a convention "
                           f"mismatch with scipy): {back} against {R}")
    return a


def _sequence(s) -> str:
    if not isinstance(s, str) or s.upper() not in EULER_SEQUENCES:
        raise InputError(f"simulate_orientation: unknown rotation sequence {s!r}; one of {', '.join(EULER_SEQUENCES)}")
    return s.upper()


class _Chart:
    """One Euler-angle chart of the run: the system built in it, compiled, and where its angles sit."""

    def __init__(self, sequence: str, build: Callable, angles: tuple, formulation: str, backend: str, params: Mapping):
        self.sequence = sequence
        self.kin = _kinematics(sequence)
        S = build(sequence)
        if not isinstance(S, QuasiVelocitySystem):
            raise InputError(f"simulate_orientation: build({sequence!r}) must return a QuasiVelocitySystem, got "
                             f"{type(S).__name__}")
        self.system = S
        self.prep: PreparedSystem = prepare(S.motion(), formulation, None, backend)
        names = [str(s) for s in self.prep.full_state]
        missing = [a for a in angles if a not in names]
        if missing:
            raise InputError(f"simulate_orientation: the angles {missing} are not coordinates of the system built "
                             f"for {sequence} (its coordinates: {names[:len(names) // 2]})")
        m = len(self.prep.model.q)
        self.names = names
        self.ia = [names.index(a) for a in angles]
        self.ida = [m + i for i in self.ia]
        pvals, missing_p = [], []
        for s in self.prep.params:
            v = lookup(params, s)
            if v is None:
                missing_p.append(str(s))
            else:
                pvals.append(float(v))
        if missing_p:
            raise InputError(f"simulate_orientation: no value given for the parameter(s) {sorted(missing_p)}")
        self.p = np.array(pvals, dtype=float)

    def conditioning(self, y) -> float:
        return self.kin.conditioning(y[self.ia])

    def energy(self, t, y) -> float | None:
        fn = self.prep.energy_along
        return None if fn is None else float(np.asarray(fn(np.array([t]), y[:, None], self.p)).ravel()[0])


def simulate_orientation(
    build: Callable[[str], QuasiVelocitySystem],
    sequences: Sequence[str],
    angles: Sequence,
    t_span: Sequence,
    initial: Mapping,
    params: Mapping | None = None,
    method: str = "DOP853",
    t_eval=None,
    dense_output: bool = True,
    *,
    threshold: float = 0.1,
    formulation: str = "full",
    options: SimulationOptions | None = None,
    **keywords,
) -> SimulationResult:
    r"""Simulate a rigid-body system across Euler-angle charts of SO(3) (module docstring).

    Parameters
    ----------
    build : callable
        ``build(sequence)`` → the :class:`~jetgeo.mechanics.quasi.QuasiVelocitySystem` of the body in
        the Euler-angle chart ``sequence`` (its frame from
        :func:`~jetgeo.mechanics.rigid.body_angular_velocity` with that sequence and the angles
        ``angles``), on the same coordinates for every chart.  Called once per chart entered.
    sequences : sequence of str
        The charts (of :data:`~jetgeo.mechanics.rigid.EULER_SEQUENCES`); the run starts in the first.
        Give charts whose poles are apart: a proper Euler sequence and a Tait–Bryan one (``("ZXZ",
        "XYZ")``: where |sin θ_ZXZ| < 0.1 the body's third axis is near the vertical and
        |cos θ_XYZ| > 0.99).
    angles : sequence of str or Symbol
        The three angle coordinates, in the order of every sequence.
    t_span, initial, params, method, t_eval, dense_output, formulation
        As for :func:`~jetgeo.numerics.simulate` (``initial`` in the first chart, e.g. from
        :meth:`~jetgeo.mechanics.quasi.QuasiVelocitySystem.jet_state`; ``formulation`` "full" or
        "multipliers").
    threshold : float
        Leave a chart where |det Φ| (|sin θ| or |cos θ| of its middle angle) falls to this value.
    options : SimulationOptions, optional
        The tolerances, singular_tol, manifold_tol and backend, as for ``simulate`` (``step`` and
        ``first_integrals`` do not apply).
    **keywords
        Any of these by name (``rtol=1e-8``), overriding the field of ``options``.

    Returns
    -------
    SimulationResult
        One result across the charts: ``charts`` lists the :class:`OrientationSwitch` es,
        ``orientation_charts`` the chart of every output row (the angle columns of ``q`` and ``qdot``
        are in that chart); :func:`orientation_along` gives R(t) and Ω(t).

    Examples
    --------
    A free asymmetric body whose third axis passes the vertical, the pole of ZXZ:

    >>> import numpy as np, sympy as sp
    >>> from jetgeo import FibredManifold
    >>> from jetgeo.mechanics.quasi import QuasiVelocitySystem
    >>> from jetgeo.mechanics.rigid import body_angular_velocity
    >>> Y = FibredManifold(["a1", "a2", "a3"])
    >>> def build(seq):
    ...     F = body_angular_velocity(Y, seq, ["w1", "w2", "w3"])
    ...     w1, w2, w3 = F.v
    ...     return QuasiVelocitySystem(F, (1.0 * w1**2 + 2.0 * w2**2 + 3.0 * w3**2) / 2)
    >>> ini = build("ZXZ").jet_state({"a1": 0.2, "a2": 0.3, "a3": 0.1, "w1": -1.0, "w2": 0.1, "w3": 0.2})
    >>> res = simulate_orientation(build, ["ZXZ", "XYZ"], ["a1", "a2", "a3"], (0, 1), ini)
    >>> [(c.old[0], c.new[0]) for c in res.charts], res.status, res.relative_energy_drift < 1e-9
    ([('ZXZ', 'XYZ')], 'finished', True)
    >>> R, Om = orientation_along(res, ["a1", "a2", "a3"])    # chart-independent: R(t) and Ω(t)
    >>> bool(np.allclose(R[-1] @ R[-1].T, np.eye(3))), res.orientation_charts[-1]
    (True, 'XYZ')
    """
    opts = SimulationOptions.merged(options, keywords, caller="simulate_orientation")
    seqs, angles = _check_arguments(build, sequences, angles, t_span, t_eval, threshold, formulation, opts)
    params = dict(params or {})
    backend, manifold_tol = opts.backend or "python", opts.manifold_tol
    charts: dict = {}

    def chart(seq: str) -> _Chart:
        if seq not in charts:
            charts[seq] = _Chart(seq, build, angles, formulation, backend, params)
        return charts[seq]

    t0, t1 = float(t_span[0]), float(t_span[1])
    cur = chart(seqs[0])
    y = initial_data(cur.prep, initial, False, t0, cur.p)
    check_on_manifold(cur.prep, t0, y, cur.p, manifold_tol)
    run = dict(method=method, t_eval=t_eval, dense_output=dense_output, singular_tol=opts.singular_tol,
               options=opts.integrator_options(), params=params)
    res = _across_charts(cur, (t0, t1), y, seqs, chart, threshold, manifold_tol, run)
    if res.status != "finished":
        warnings.warn(f"simulate_orientation: the run ended at t = {res.t[-1]:.6g} before t = {t1:g}: "
                      f"{res.message}", SimulationStoppedWarning, stacklevel=2)
    return res


def _across_charts(cur: _Chart, span: tuple, y: np.ndarray, seqs: list, chart: Callable, threshold: float,
                   manifold_tol: float, run: dict) -> SimulationResult:
    """The run from the full state ``y`` at t0 in the chart ``cur``, switching to the best conditioned of
    ``seqs`` wherever |det Φ| reaches ``threshold``; the segments merged, ``charts`` the switches."""
    t, t1 = span
    switches: list = []
    segments: list = []
    watch = True  # False once the chart's degradation was warned of and no switch is possible
    at_boundary = cur.conditioning(y) <= threshold
    while True:
        if watch and at_boundary:  # (at a hit |det Φ| is the threshold up to the root finder's last digit)
            cur, y, watch = _switch(cur, t, y, seqs, chart, threshold, switches, manifold_tol)
        seg, hit = _segment(cur, t, t1, y, threshold if watch else None, **run)
        segments.append(seg)
        if hit is None:
            break
        t, y = hit
        at_boundary = True
    res = segments[0] if len(segments) == 1 else merge(segments, run["t_eval"] is not None)
    res.charts = list(switches)
    return res


def _check_arguments(build, sequences, angles, t_span, t_eval, threshold, formulation: str,
                     opts: SimulationOptions) -> tuple:
    """InputError for a bad argument of :func:`simulate_orientation`; else (the sequences, the angle names)."""
    check_arguments(t_span, opts.integrator_options(), t_eval, opts.singular_tol, opts.manifold_tol,
                    caller="simulate_orientation")
    for what in ("step", "first_integrals"):
        if vars(opts)[what] is not None:
            raise InputError(f"simulate_orientation: {what} does not apply to a run across Euler-angle charts")
    if formulation not in ("full", "multipliers"):
        raise InputError(f"simulate_orientation: formulation must be 'full' or 'multipliers', got {formulation!r}")
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0 < threshold < 1:
        raise InputError(f"simulate_orientation: threshold must be a number in (0, 1), got {threshold!r}")
    if isinstance(sequences, str):
        raise InputError(f"simulate_orientation: sequences must be a list of rotation sequences, got {sequences!r}")
    seqs = [_sequence(s) for s in sequences]
    if not seqs or len(set(seqs)) != len(seqs):
        raise InputError(f"simulate_orientation: give one or more distinct rotation sequences, got {list(sequences)}")
    angles = tuple(str(a) for a in angles)
    if len(angles) != 3 or len(set(angles)) != 3:
        raise InputError(f"simulate_orientation: give the three distinct angle coordinates, got {list(angles)}")
    if not callable(build):
        raise InputError(f"simulate_orientation: build must be a callable sequence → QuasiVelocitySystem, got "
                         f"{type(build).__name__}")
    return seqs, angles


def _switch(cur: _Chart, t: float, y: np.ndarray, seqs: list, chart: Callable, threshold: float, switches: list,
            manifold_tol: float):
    """(chart, full state, watch) after the chart ``cur`` reached its threshold at (t, y): the given chart
    best conditioned at the orientation, with the state converted (R and Ω kept), or ``cur`` itself
    with a :class:`ChartConditioningWarning` when no other is better conditioned there."""
    a, adot = y[cur.ia], y[cur.ida]
    R = cur.kin.rotation(a)
    om = cur.kin.omega(a, adot)
    rho_old = cur.kin.conditioning(a)
    best, rho_new, a_new = None, rho_old, None
    for s in seqs:
        if s == cur.sequence:
            continue
        k = _kinematics(s)
        an = _angles_of(R, s)
        r = k.conditioning(an)
        if r > rho_new and r > threshold:
            best, rho_new, a_new = s, r, an
    if best is None:
        others = [s for s in seqs if s != cur.sequence]
        why = (f"the other charts given, {others}, are no better conditioned there" if others
               else "no other chart was given (pass more sequences, or use unit quaternions)")
        warnings.warn(f"simulate_orientation: at t = {t:.6g} the orientation chart {cur.sequence} degrades: "
                      f"|det Φ| = {rho_old:.3g} ≤ {threshold:g} (its pole is near; angle rates grow like "
                      f"1/|det Φ|); {why}", ChartConditioningWarning, stacklevel=3)
        return cur, y, False
    new = chart(best)
    kin = new.kin
    adot_new = np.linalg.solve(np.asarray(kin.Phi(*a_new), dtype=float).reshape(3, 3), om)
    old_names = cur.names
    y_new = np.array([y[old_names.index(n)] for n in new.names], dtype=float)
    y_new[new.ia] = a_new
    y_new[new.ida] = adot_new
    e_old, e_new = cur.energy(t, y), new.energy(t, y_new)
    if e_old is not None and e_new is not None and not abs(e_new - e_old) <= 1e-8 * max(1.0, abs(e_old)):
        raise InputError(f"simulate_orientation: build gives different bodies in the charts {cur.sequence} and "
                         f"{best}: the energy at the same state is {e_old:.12g} in one and {e_new:.12g} in the other")
    check_on_manifold(new.prep, t, y_new, new.p, manifold_tol)
    reason = (f"|det Φ| of {cur.sequence} = {rho_old:.3g} ≤ {threshold:g}; {best} has |det Φ| = {rho_new:.3g}")
    switches.append(OrientationSwitch(float(t), (cur.sequence,), (best,), reason, rho_old, rho_new))
    return new, y_new, True


def _segment(ch: _Chart, t0: float, t1: float, y0: np.ndarray, threshold: float | None, *, method, t_eval,
             dense_output, singular_tol, options, params):
    """Integrate in the chart ``ch`` from the full state y0 at t0 until t1 or until |det Φ| falls to
    ``threshold`` (None: not watched).  Returns (result, hit), hit = (t, full state) at the threshold."""
    prep, p = ch.prep, ch.p
    ev_list = singular_state_events(prep, t0, y0, p, singular_tol)
    if threshold is not None:
        def ev(t, y):
            return ch.conditioning(y) - threshold

        ev_list.append((Monitor(ev, threshold), f"the orientation chart {ch.sequence} ends", "|det Φ|",
                        ch.conditioning(y0)))
    if method in IMPLICIT:
        prep = prep.with_jacobian()
    fun_c = prep.rhs._func
    jac_c = prep.rhs.jacobian._func if prep.rhs.jacobian is not None else None

    def fun(t, y):
        return fun_c(t, y, p)

    def jac(t, y):
        return jac_c(t, y, p)

    out = integrate(prep, fun, jac if jac_c is not None else None, (t0, t1), y0, p, method, t_eval, ev_list, None,
                    False, options)
    if not dense_output:
        out.sol = None
    hit = None
    if out.status == 1 and threshold is not None and len(out.t_events[-1]):
        te = float(out.t_events[-1][0])
        hit = (te, np.asarray(out.y_events[-1][0], dtype=float))
        out.status, out.message = 0, f"orientation chart boundary at t = {te:.6g}"
    res = finish(prep, out, p, params, ev_list, False, t0)
    res.orientation_charts = [ch.sequence] * len(res.t)
    return res, hit


def orientation_along(result: SimulationResult, angles: Sequence, sequence: str | None = None) -> tuple:
    r"""The rotation R(t_i) (x_space = R x_body) and the body-frame angular velocity Ω(t_i) along a run.

    Parameters
    ----------
    result : SimulationResult
        A run of :func:`simulate_orientation` (the chart of each row is known), or of
        :func:`~jetgeo.numerics.simulate` in one chart (give ``sequence``).
    angles : sequence of str or Symbol
        The orientation's coordinates: three angles, or the four quaternion coordinates (q₀ first).
    sequence : str, optional
        The chart of a single-chart run: an Euler sequence or
        :data:`~jetgeo.mechanics.rigid.QUATERNION` (default: ``result.orientation_charts``).

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        R of shape (N, 3, 3) and Ω of shape (N, 3).

    Examples
    --------
    >>> R, Om = orientation_along(res, ["a1", "a2", "a3"])          # doctest: +SKIP
    """
    names = [str(s) for s in result.q_symbols]
    cols = [str(a) for a in angles]
    missing = [a for a in cols if a not in names]
    if missing:
        raise InputError(f"orientation_along: {missing} are not coordinates of the result ({names})")
    idx = [names.index(a) for a in cols]
    if sequence is not None:
        seq = sequence.lower() if sequence.lower() == QUATERNION else _sequence(sequence)
        per_row = [seq] * len(result.t)
    elif result.orientation_charts is not None:
        per_row = result.orientation_charts
    else:
        raise InputError("orientation_along: the result does not know its orientation chart; give sequence=")
    want = 4 if per_row and per_row[0] == QUATERNION else 3
    if len(idx) != want:
        raise InputError(f"orientation_along: the chart {per_row[0] if per_row else '?'} has {want} coordinates, "
                         f"got {cols}")
    N = len(result.t)
    Rs, Om = np.empty((N, 3, 3)), np.empty((N, 3))
    for i in range(N):
        k = _kinematics(per_row[i])
        a, adot = result.q[i, idx], result.qdot[i, idx]
        Rs[i] = k.rotation(a)
        Om[i] = k.omega(a, adot)
    return Rs, Om
