r"""Invariant checks for equations of motion on a constraint submanifold Q.

Each check takes equations of motion (:class:`~jetgeo.mechanics.eom.EquationsOfMotion`, asked
through its members only) — a :class:`~jetgeo.mechanics.ConstrainedSystem` (``sys.constrain(Q)``),
a :class:`~jetgeo.mechanics.Motion` returned by a recipe, a
:class:`~jetgeo.mechanics.ParametricConstrainedSystem` — and returns a
:class:`CheckReport`, or raises ``AssertionError`` with a message that names the
failing component and the point where it fails.

Identities are decided at random points of Q (:mod:`jetgeo.geometry.zero`'s
sampler: rational values, angles on rational points of the unit circle, so
trigonometric identities hold exactly): the expression is first restricted to Q
by the normal form q̇^D = g(t, q, q̇^I) on Q's branch (or by q̇ = ψ(t, q, z) for a
parametric object), then evaluated — exactly in rational arithmetic when possible,
otherwise with 60 digits.  A non-zero value is a proof of failure; zero values at
``trials`` independent points make the identity true with failure probability at
most (2·deg/N)^trials (Schwartz–Zippel [Schwartz 1980], [Zippel 1979], N = 10⁶ the size of the sample set).

The checks:

* :func:`check_tangent` — the motion stays on Q: d/dt f^i = ∂_t f^i + q̇^σ ∂_σ f^i
  + q̈^σ ∂f^i/∂q̇^σ = 0 on Q with q̈ the accelerations ([Stolařová 2009, §2]: the dynamics is a
  vector field on Q; [Benenti 2007, eq. (3.3)]);
* :func:`check_reactions_do_no_virtual_work` — Chetaev's condition: R_σ δq^σ = 0 for
  every virtual displacement, δq = ψ_α = ∂ψ/∂z^α [Benenti 2007, eq. (3.6), Theorem 3.1] or
  δq ∈ ker(∂f/∂q̇) = span{∂_{q^l} + ∂g^i/∂q̇^l ∂_{q^{D_i}}} [Ghori 1960, eq. (1.3.1)];
* :func:`check_energy_conserved` — for autonomous L = T − V without further forces
  and constraints with q̇^σ ∂f^i/∂q̇^σ = 0 on Q (homogeneous: linear or nonlinear of
  any degree), dE/dt = q̇^σ R_σ = λ_i q̇^σ ∂f^i/∂q̇^σ = 0 (E = q̇ ∂L/∂q̇ − L);
* :func:`check_agree` — two results give the same accelerations on Q.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp

from ..errors import InputError
from ..geometry.coerce import as_expr
from ..geometry.exact.size import describe
from ..geometry.exact.trig import expand_multiple_angles
from ..geometry.zero import PointSampler, angles_of, evaluate, substitution
from ..mechanics import ConstraintSubmanifold
from ..mechanics.eom import EquationsOfMotion, is_parametrised

__all__ = [
    "CheckReport",
    "check_tangent",
    "check_reactions_do_no_virtual_work",
    "check_energy_conserved",
    "check_agree",
    "vanishes_on_points",
]

_TRIG = (sp.sin, sp.cos, sp.tan)


@dataclass
class CheckReport:
    """Outcome of a check: what was checked, how, and on how many expressions.

    ``method`` is ``"random points (exact)"`` when every evaluation was exact
    rational arithmetic, else ``"random points (numerical)"``; ``bound`` the
    Schwartz–Zippel failure bound per expression for exact evaluations (an
    estimate; ``None`` for numerical ones); ``details`` one line per expression.

    Attributes
    ----------
    check : str
        The name of the check (``"check_tangent"``, …).
    passed : bool
        The verdict (truthiness of the report).
    method : str
        ``"random points (exact)"`` or ``"random points (numerical)"``.
    trials : int
        The number of random points per expression.
    details : list of str
        One line per expression checked (its name and outcome; the point and value on failure).
    bound : float or None
        The Schwartz–Zippel bound [Schwartz 1980; Zippel 1979] on the probability that a non-zero
        expression vanished at all points; None for numerical evaluations.
    """

    check: str
    passed: bool
    method: str
    trials: int
    details: list = field(default_factory=list)
    bound: float | None = None

    def __bool__(self) -> bool:
        return self.passed

    def __str__(self) -> str:
        head = f"{self.check}: {'passed' if self.passed else 'FAILED'} ({self.method}, {self.trials} points each)"
        return "\n".join([head, *("  " + d for d in self.details)])


# --- evaluation at random points ----------------------------------------------------------------


@dataclass
class _Verdict:
    """The verdict of :func:`vanishes_on_points`; true exactly when the expression vanished (so that
    ``assert vanishes_on_points(e)`` asserts something: a dataclass instance is otherwise always true)."""

    zero: bool
    exact: bool
    point: dict | None = None
    value: object = None

    def __bool__(self) -> bool:
        return bool(self.zero)


def vanishes_on_points(expr, trials: int = 3, seed: int = 20071036) -> _Verdict:
    """Evaluate ``expr`` at ``trials`` random points (no expansion: cheap on large expressions).

    Returns a verdict with ``zero`` (all values vanish: exactly, or to 40 digits
    relative to the size of the terms), ``exact`` (all evaluations rational) and,
    on failure, the point and the value.

    Parameters
    ----------
    expr : sympy.Expr
        The expression (e.g. a difference of two results on Q).
    trials : int, default 3
        The number of points that must be evaluated (poles are skipped, up to 10 × ``trials``
        attempts).
    seed : int, default 20071036
        The seed of the :class:`~jetgeo.geometry.zero.PointSampler`: the points are deterministic.

    Returns
    -------
    _Verdict
        ``zero``, ``exact``, and on failure ``point`` and ``value`` (when every sampled point was
        a pole: ``zero`` False and ``value`` says so).

    Examples
    --------
    >>> th = sp.Symbol("theta")
    >>> vanishes_on_points(sp.sin(2 * th) - 2 * sp.sin(th) * sp.cos(th)).zero
    True
    """
    expr = expand_multiple_angles(as_expr(expr))
    if expr == 0:
        return _Verdict(True, True)
    atoms = expr.atoms(*_TRIG)
    angles = angles_of(expr)
    sampler = PointSampler(seed=seed)
    exact_all = True
    done = 0
    attempts = 0
    tol = sp.Float("1e-40", 60)
    while done < trials and attempts < 10 * trials:
        attempts += 1
        point = sampler.point(expr.free_symbols, angles)
        res = evaluate(expr, substitution(point, atoms))
        if res is None:
            continue
        val, exact, scale = res
        if exact:
            if val != 0:
                return _Verdict(False, True, point, val)
        else:
            exact_all = False
            if not val.is_number or abs(val) > tol * scale:
                return _Verdict(False, False, point, val)
        done += 1
    if done == 0:
        return _Verdict(False, exact_all, None, "every sampled point is a pole")
    return _Verdict(True, exact_all)


def _bound(trials: int) -> float:
    # degrees of the residuals met in practice are < 100: (2·100/10⁶)^trials
    return float((2 * 100 / 10**6) ** trials)


def _point_str(point) -> str:
    if not point:
        return ""
    items = []
    for s, (kind, u) in sorted(point.items(), key=lambda kv: sp.default_sort_key(kv[0])):
        items.append(f"{s}=2·atan({u})" if kind == "angle" else f"{s}={u}")
    return "{" + ", ".join(items) + "}"


def _decide(check: str, items: list, trials: int) -> CheckReport:
    """items: [(label, residual expression)] → report; AssertionError on the first failure."""
    details, exact_all = [], True
    for label, expr in items:
        v = vanishes_on_points(expr, trials)
        if not v.zero:
            raise AssertionError(
                f"{check} failed: {label} does not vanish on Q; residual {describe(expr, 300)} "
                f"= {describe(v.value, 80)} at {_point_str(v.point)}"
            )
        exact_all &= v.exact
        details.append(f"{label}: 0")
    method = "random points (exact)" if exact_all else "random points (numerical)"
    return CheckReport(check, True, method, trials, details, _bound(trials) if exact_all else None)


# --- getting accelerations into one chart ---------------------------------------------------------


def _eom(obj) -> EquationsOfMotion:
    """``obj`` as :class:`~jetgeo.mechanics.eom.EquationsOfMotion` (InputError naming it otherwise)."""
    if not isinstance(obj, EquationsOfMotion):
        raise InputError(f"{type(obj).__name__} is not a result of a route (jetgeo.mechanics.EquationsOfMotion: "
                        "a ConstrainedSystem, a Motion, a ParametricConstrainedSystem)")
    return obj


def _Q_of(obj, Q):
    if Q is not None:
        if not isinstance(Q, ConstraintSubmanifold):
            raise InputError(f"expected a ConstraintSubmanifold, got {type(Q).__name__}")
        return Q
    q = obj.Q if isinstance(obj, EquationsOfMotion) else None
    if isinstance(q, ConstraintSubmanifold):
        return q
    raise InputError(f"{type(obj).__name__} carries no constraint submanifold; pass Q=")


def _system_of(obj, system=None):
    if system is not None:
        return system
    s = _eom(obj).system
    if s is None:
        raise InputError(f"{type(obj).__name__} carries no Lagrangian system; pass system=")
    return s


def _branch_of(obj):
    return _eom(obj).branch


def _parametric_map(obj) -> dict | None:
    """{q̇: ψ(t, q, z)} if the object's accelerations are written in parameters z."""
    eom = _eom(obj)
    return dict(eom.substitution) if is_parametrised(eom) else None


class _Chart:
    """Restriction to Q in one chart: (t, q, q̇^I) via the normal form, or (t, q, z) via ψ."""

    def __init__(self, Q: ConstraintSubmanifold, branch=None, psi_map: dict | None = None) -> None:
        self.Q = Q
        self.Y = Q.Y
        self.psi_map = psi_map
        if psi_map is None:
            self.nf = Q.normal_form(branch=branch)
            self.g = dict(self.nf.g)
        else:
            self.nf = None
            self.g = None

    def restrict(self, expr) -> sp.Expr:
        expr = as_expr(expr)
        if self.psi_map is not None:
            return expr.xreplace(self.psi_map)
        return expr.xreplace(self.g)

    def accelerations(self, obj) -> dict:
        """The object's accelerations as functions on Q in this chart."""
        acc = dict(_eom(obj).accelerations())
        to_jet = obj.to_jet
        if to_jet:
            acc = {k: as_expr(v).xreplace(to_jet) for k, v in acc.items()}
        missing = [a for a in self.Y.qddot if a not in acc]
        if missing:
            raise InputError(f"{type(obj).__name__}.accelerations() lacks {missing}")
        own = _parametric_map(obj)
        if self.psi_map is None and own is not None and not to_jet:
            raise InputError(
                f"{type(obj).__name__} gives accelerations in parameters {sorted(map(str, _zs(own, self.Y)))}; "
                "give it a to_jet map or compare in its own chart"
            )
        return {a: self.restrict(acc[a]) for a in self.Y.qddot}

    def along(self, acc: dict, f) -> sp.Expr:
        """d/dt f along the motion, restricted to Q: ∂_t f + q̇ ∂_q f + q̈ ∂_q̇ f."""
        Y = self.Y
        out = sp.diff(f, Y.t)
        for q, v, a in zip(Y.q, Y.qdot, Y.qddot):
            out += v * sp.diff(f, q) + acc[a] * sp.diff(f, v)
        return self.restrict(out)


def _zs(psi_map, Y) -> set:
    out = set()
    for v in psi_map.values():
        out |= as_expr(v).free_symbols
    return out - set(Y.J1.coords) - {Y.t}


def _chart_for(obj, Q) -> _Chart:
    pm = _parametric_map(obj)
    if pm is not None:
        return _Chart(Q, psi_map=pm)
    own = _branch_of(obj) if obj.Q is Q else None
    return _Chart(Q, branch=own if own is not None else Q.branch_choice)


# --- the checks -------------------------------------------------------------------------------------------


def check_tangent(motion, Q: ConstraintSubmanifold | None = None, trials: int = 3) -> CheckReport:
    """The accelerations define a vector field tangent to Q: d/dt f^i = 0 on Q for every f^i.

    ``motion``: anything with ``.accelerations()`` (ConstrainedSystem, Motion,
    ParametricConstrainedSystem); ``Q`` defaults to ``motion.Q``.

    Parameters
    ----------
    motion : Motion or ConstrainedSystem or ParametricConstrainedSystem
        The result whose accelerations define the vector field.
    Q : ConstraintSubmanifold, optional
        The constraint submanifold; default ``motion.Q``.
    trials : int, default 3
        Random points per constraint.

    Returns
    -------
    CheckReport
        Passed when d f^i/dt = ∂f^i/∂t + ∂f^i/∂q^σ q̇^σ + ∂f^i/∂q̇^σ q̈^σ vanishes at the points of Q
        for every i.

    Examples
    --------
    The skate [Benenti 2007, Example 9.1]: its constrained accelerations keep ẋ sin θ − ẏ cos θ = 0.

    >>> from jetgeo import FibredManifold, LagrangianSystem, ConstraintSubmanifold
    >>> Y = FibredManifold(["x", "y", "theta"])
    >>> x, y, th = Y.q; xd, yd, thd = Y.qdot
    >>> S = LagrangianSystem(Y, (xd**2 + yd**2 + thd**2) / 2)
    >>> print(check_tangent(S.constrain(ConstraintSubmanifold(Y, [xd * sp.sin(th) - yd * sp.cos(th)]))))
    check_tangent: passed (random points (exact), 3 points each)
      d/dt f1 (f1 = xdot*sin(theta) - ydot*cos(theta)): 0
    """
    Q = _Q_of(motion, Q)
    chart = _chart_for(motion, Q)
    acc = chart.accelerations(motion)
    items = [(f"d/dt f{i + 1} (f{i + 1} = {describe(f, 80)})", chart.along(acc, f)) for i, f in enumerate(Q.f)]
    return _decide("check_tangent", items, trials)


def _reactions(obj) -> list:
    R = _eom(obj).reactions()
    if R is None:
        raise InputError(f"{type(obj).__name__} gives no reaction forces (its reactions() is None)")
    return list(R)


def check_reactions_do_no_virtual_work(obj, Q: ConstraintSubmanifold | None = None, psi=None, z=None,
                                       trials: int = 3) -> CheckReport:
    """Chetaev's condition: R_σ δq^σ = 0 for every virtual displacement δq ([Benenti 2007, eq. (3.6)]; [Ghori 1960,
    eq. (1.3.1)]).

    With a parametrisation (``psi``, ``z`` given, or the object's own) the virtual
    displacements are ψ_α = ∂ψ/∂z^α and the identity is R_σ ψ^σ_α = 0 in (t, q, z);
    otherwise they span ker(∂f/∂q̇) on Q, with the basis
    δq_l = e_l + (∂g^i/∂q̇^l) e_{D_i} from the normal form q̇^D = g.

    Parameters
    ----------
    obj : Motion or ConstrainedSystem
        A result that gives reaction forces R_σ (``.reactions()``).
    Q : ConstraintSubmanifold, optional
        The constraint submanifold; default the object's own.
    psi : sequence of sympy.Expr, optional
        A parametrisation q̇ = ψ(t, q, z) (with ``z``) whose ∂ψ/∂z are the virtual displacements.
    z : sequence of Symbol, optional
        The parameters of ``psi``.
    trials : int, default 3
        Random points per identity.

    Returns
    -------
    CheckReport
        Passed when R_σ δq^σ vanishes for every basis displacement δq at the points.

    Raises
    ------
    jetgeo.errors.InputError
        If the object gives no reaction forces, or is written in parameters z and no ``psi``/``z``
        is given.
    """
    R = [as_expr(r) for r in _reactions(obj)]
    if psi is None and _parametric_map(obj) is not None:
        # the object's own parametrisation q̇ = ψ(t, q, z): ψ and z from its chart
        Y = obj.system.Y
        psi = [obj.substitution[v] for v in Y.qdot]
        z = [c for c in obj.coordinates if c not in {Y.t, *Y.q}]
    if psi is not None:
        system = _system_of(obj)
        Y = system.Y
        psi = [as_expr(p) for p in psi]
        pm = dict(zip(Y.qdot, psi))
        if _parametric_map(obj) is None and not obj.to_jet:
            R = [r.xreplace(pm) for r in R]  # reactions in jets: express them in (t, q, z)
        items = []
        for al, za in enumerate(z):
            items.append((f"R·ψ_{al + 1} (ψ_{al + 1} = ∂ψ/∂{za})",
                          sp.Add(*[r * sp.diff(p, za) for r, p in zip(R, psi)])))
        return _decide("check_reactions_do_no_virtual_work", items, trials)
    Q = _Q_of(obj, Q)
    chart = _chart_for(obj, Q)
    if chart.psi_map is not None:  # a result in parameters z: its chart (t, q, z) names them
        Y = Q.Y
        z = [c for c in obj.coordinates if c not in {Y.t, *Y.q}]
        if not z:
            raise InputError("the object is written in parameters z of q̇ = ψ: pass psi= and z=")
        return check_reactions_do_no_virtual_work(
            obj, Q, psi=[chart.psi_map[v] for v in Y.qdot], z=z, trials=trials
        )
    Y = Q.Y
    R = [chart.restrict(r) for r in R]
    items = []
    for l_ in chart.nf.independent:
        idx = Y.qdot.index(l_)
        w = R[idx]
        for d, g in chart.g.items():
            w += R[Y.qdot.index(d)] * sp.diff(g, l_)
        items.append((f"R·δq_{Y.q[idx]}", w))
    return _decide("check_reactions_do_no_virtual_work", items, trials)


def check_energy_conserved(motion, system=None, Q: ConstraintSubmanifold | None = None,
                           trials: int = 3) -> CheckReport:
    """dE/dt = 0 on Q along the motion, E = q̇^σ ∂L/∂q̇^σ − L.

    Applies (else :class:`~jetgeo.errors.InputError` says why not) when L and the
    constraints do not depend on t, the system has no forces besides those of the
    potential inside L, and the constraints are homogeneous: q̇^σ ∂f^i/∂q̇^σ = 0 on Q
    (true for linear homogeneous and for homogeneous nonlinear constraints, e.g.
    ẋ₁ẏ₂ − ẋ₂ẏ₁ or ẋ² + ẏ² − a²ż²).  Then the power of Chetaev's reactions,
    λ_i q̇^σ ∂f^i/∂q̇^σ, vanishes and the energy is conserved.

    Parameters
    ----------
    motion : Motion or ConstrainedSystem or ParametricConstrainedSystem
        The result whose accelerations are used.
    system : LagrangianSystem, optional
        L; default the motion's own.
    Q : ConstraintSubmanifold, optional
        The constraint submanifold; default the motion's own.
    trials : int, default 3
        Random points.

    Returns
    -------
    CheckReport
        Passed when dE/dt = Σ_σ (∂E/∂q^σ q̇^σ + ∂E/∂q̇^σ q̈^σ) vanishes at the points of Q.

    Raises
    ------
    jetgeo.errors.InputError
        If the hypotheses fail: L or f depends on t, there are non-potential forces, or some
        constraint is not homogeneous on Q.

    Examples
    --------
    >>> from jetgeo import FibredManifold, LagrangianSystem, ConstraintSubmanifold
    >>> Y = FibredManifold(["x", "y", "theta"])
    >>> x, y, th = Y.q; xd, yd, thd = Y.qdot
    >>> S = LagrangianSystem(Y, (xd**2 + yd**2 + thd**2) / 2)
    >>> check_energy_conserved(S.constrain(ConstraintSubmanifold(Y, [xd * sp.sin(th) - yd * sp.cos(th)]))).passed
    True
    """
    system = _system_of(motion, system)
    Q = _Q_of(motion, Q)
    Y = system.Y
    if system.L.has(Y.t) or any(f.has(Y.t) for f in Q.f):
        raise InputError("check_energy_conserved: L or the constraints depend on t (rheonomic): E is not conserved")
    if any(as_expr(a) != 0 for a in system.forces):
        raise InputError(
            "check_energy_conserved: the system has non-potential forces A_σ; put conservative forces into "
            "the potential (LagrangianSystem.mechanical(Y, T, V))"
        )
    chart = _chart_for(motion, Q)
    for i, f in enumerate(Q.f):
        euler = sp.Add(*[v * sp.diff(f, v) for v in Y.qdot])
        v = vanishes_on_points(chart.restrict(euler), trials)
        if not v.zero:
            raise InputError(
                f"check_energy_conserved: constraint f{i + 1} = {describe(f, 80)} is not homogeneous "
                "(q̇·∂f/∂q̇ ≠ 0 on Q): the reactions do work and E is not conserved"
            )
    acc = chart.accelerations(motion)
    E = system.energy()
    return _decide("check_energy_conserved", [("dE/dt", chart.along(acc, E))], trials)


def check_agree(a, b, Q: ConstraintSubmanifold | None = None, trials: int = 3) -> CheckReport:
    """Two results give the same accelerations on Q: q̈^σ_a − q̈^σ_b = 0 for every σ.

    Both are restricted to Q by its normal form (on Q's branch, or the results'
    branch); a result written in parameters z of q̇ = ψ(t, q, z) (without a
    ``to_jet`` map) is compared in its own chart, the other one being pulled back
    by q̇ = ψ.

    Parameters
    ----------
    a, b : Motion or ConstrainedSystem or ParametricConstrainedSystem
        The two results (anything with ``.accelerations()``), e.g. two recipes' motions.
    Q : ConstraintSubmanifold, optional
        The constraint submanifold; default the results' own.
    trials : int, default 3
        Random points per acceleration.

    Returns
    -------
    CheckReport
        Passed when every q̈^σ_a − q̈^σ_b vanishes at the points of Q.

    Raises
    ------
    jetgeo.errors.InputError
        If the two results use different parametrisations without a ``to_jet`` map, or a result
        lacks some acceleration.
    """
    given = Q is not None
    Qa = Q if given else _eom(a).Q
    Q = _Q_of(b, Qa) if Qa is not None else _Q_of(b, None)
    pa, pb = _parametric_map(a), _parametric_map(b)
    ja, jb = _eom(a).to_jet, _eom(b).to_jet
    if pa is not None and not ja:
        chart = _Chart(Q, psi_map=pa)
        if pb is not None and not jb and pb != pa:
            raise InputError("check_agree: the two results use different parametrisations; give one a to_jet map")
    elif pb is not None and not jb:
        chart = _Chart(Q, psi_map=pb)
    else:
        br = None if given else (_branch_of(a) if _branch_of(a) is not None else _branch_of(b))
        chart = _Chart(Q, branch=br if br is not None else Q.branch_choice)
    acc_a = _accelerations_in(chart, a)
    acc_b = _accelerations_in(chart, b)
    items = [(f"{k}", acc_a[k] - acc_b[k]) for k in Q.Y.qddot]
    return _decide("check_agree", items, trials)


def _accelerations_in(chart: _Chart, obj) -> dict:
    acc = dict(_eom(obj).accelerations())
    to_jet = obj.to_jet
    if to_jet:
        acc = {k: as_expr(v).xreplace(to_jet) for k, v in acc.items()}
    missing = [x for x in chart.Y.qddot if x not in acc]
    if missing:
        raise InputError(f"{type(obj).__name__}.accelerations() lacks {missing}")
    return {x: chart.restrict(acc[x]) for x in chart.Y.qddot}
