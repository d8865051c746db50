r"""Import a ``sympy.physics.mechanics`` model as a jetgeo system.

An existing model — reference frames, points, rigid bodies and particles, loads, and
velocity constraints written with ``dynamicsymbols`` — is brought over without
rewriting its kinematics:

* the kinetic energy T = ½ Σ wᵀ M w of the mass centres' velocities and the bodies' angular
  velocities (König's theorem, what sympy's ``kinetic_energy`` sums), after a check
  that each mass centre's velocity is the derivative of its position from a fixed point (a
  rolling contact embedded in the kinematics — usual in models written for KanesMethod —
  would put a non-holonomic constraint into L: refused, see :func:`_check_velocities`);
* the Euler–Lagrange form E = e − g q̈ assembled from those velocities' partial velocities
  (:func:`jetgeo.mechanics.bodies_el.euler_lagrange_of_bodies`, [Kane–Levinson 1985]) and handed
  to the :class:`~jetgeo.mechanics.LagrangianSystem`, which then never differentiates L;
* the potential V, if given, enters L = T − V; loads are turned into generalised forces
  (Newton's sign, [Benenti 2007, eq. (3.14)]) by partial velocities with respect to the coordinate
  velocities: A_σ = Σ_P F_P · ∂v_P/∂q̇^σ + Σ_B τ_B · ∂ω_B/∂q̇^σ;
* the velocity constraints f^i(t, q, q̇) = 0 become a
  :class:`~jetgeo.mechanics.ConstraintSubmanifold` (linear or not: KanesMethod's
  restriction to constraints linear in the speeds does not apply here);
* configuration (holonomic) constraints h(t, q) = 0 enter Q as ḣ = ∂h/∂t + ∂h/∂q q̇ = 0 and
  are kept on the result (``holonomic``), so that a point can be checked to lie on h = 0.

Everything is translated to jet coordinates (plain Symbols ``x``, ``xdot``) with the map
of :func:`jetgeo.jets.interop.dynamic_map`.  Any time function left over after
the translation (an auxiliary speed u(t), a coordinate not listed) is reported as a
:class:`~jetgeo.errors.SpecError` naming it.

>>> from sympy.physics.mechanics import dynamicsymbols, ReferenceFrame, Point, Particle
>>> x = dynamicsymbols("x")
>>> N = ReferenceFrame("N"); O = Point("O"); O.set_vel(N, 0)
>>> P = O.locatenew("P", x * N.x); P.set_vel(N, x.diff() * N.x)
>>> model = from_mechanics([x], [Particle("p", P, 2)], N)
>>> model.system.L
xdot**2
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import sympy as sp

from ..errors import InputError, NoRootAtPointError, NotRationalError
from ..geometry.coerce import as_expr
from ..geometry.exact import (
    PRIME,
    atoms_dag,
    det_exact,
    diff_dag,
    mod_derivative,
    mod_value,
    rename_dag,
    solve_exact,
    xreplace_dag,
)
from ..geometry.zero import is_zero
from ..jets import FibredManifold
from ..mechanics import ConstraintSubmanifold, LagrangianSystem
from ..mechanics.bodies_el import VelocityPart, energy_and_euler_lagrange

__all__ = ["ImportedModel", "from_mechanics"]


@dataclass
class ImportedModel:
    """The result of :func:`from_mechanics`: ``system, Q = model`` unpacks it.

    ``Q`` is None when the model has no velocity constraints; ``T``, ``V`` and
    ``forces`` are the translated kinetic energy, potential and generalised forces;
    ``holonomic`` the configuration constraints h(t, q) (their derivatives ḣ are in ``Q``);
    ``speeds`` the auxiliary speeds of ``kinematic_equations`` as functions of (t, q, q̇).

    Attributes
    ----------
    Y : FibredManifold
        The configuration bundle, coordinates named after the dynamicsymbols.
    system : LagrangianSystem
        L = T − V with the generalised forces of the loads.
    Q : ConstraintSubmanifold or None
        The velocity constraints f = 0, then ḣ = 0 for every configuration constraint h.
    T : sympy.Expr
        The kinetic energy Σ ½ m v² + ½ ωᵀ I ω of the bodies, in jet symbols.
    V : sympy.Expr
        The potential energy.
    forces : list of sympy.Expr
        The generalised forces A_σ = Σ F·∂v_P/∂q̇^σ + Σ τ·∂ω/∂q̇^σ of the loads (Kane's partial
        velocities [Kane–Levinson 1985]).
    holonomic : list of sympy.Expr, default []
        The configuration constraints h(t, q).
    speeds : dict, default {}
        {u: u(t, q, q̇)}: the auxiliary speeds solved from the kinematic equations.
    """

    Y: FibredManifold
    system: LagrangianSystem
    Q: ConstraintSubmanifold | None
    T: sp.Expr
    V: sp.Expr
    forces: list
    holonomic: list = field(default_factory=list)
    speeds: dict = field(default_factory=dict)

    def __iter__(self):
        return iter((self.system, self.Q))

    def constrain(self, **kw):
        """The constrained system (requires velocity constraints)."""
        if self.Q is None:
            raise InputError("the imported model has no velocity constraints; use .system directly")
        return self.system.constrain(self.Q, **kw)


def _load_parts(load):
    """(kind, where, vector) of a load: a (Point|ReferenceFrame, Vector) pair or a sympy Force/Torque."""
    from sympy.physics.vector import Point, ReferenceFrame

    where = getattr(load, "location", None) or getattr(load, "frame", None)
    vec = getattr(load, "vector", None)
    if where is None or vec is None:
        try:
            where, vec = load
        except (TypeError, ValueError):
            raise InputError(f"a load must be (Point, Vector), (ReferenceFrame, Vector), Force or Torque; got {load!r}"
                            ) from None
    if isinstance(where, Point):
        return "force", where, vec
    if isinstance(where, ReferenceFrame):
        return "torque", where, vec
    raise InputError(f"a load must act at a Point or on a ReferenceFrame; got {where!r}")


def _component_terms(vec, frame, convert=None) -> list:
    """The three components of a ``sympy.physics.vector`` Vector along ``frame``'s axes as lists of
    factor pairs (c, m) whose products c·m sum to them (c = 1 for the measure numbers of ``frame``
    itself): Σ over the frames F the vector is written in of (direction cosines of ``frame`` relative
    to F) × (its measure numbers in F) — what ``vec.dot(frame.x)`` … compute, without building a
    Vector per product, and only over the non-zero entries (a matrix product multiplies the zeros
    too, and ``0 * e`` asks ``e.is_finite``: 9 of 65 ms of the 4-trailer's import).  ``convert``
    (e.g. to jet coordinates) is applied to the measure numbers and direction cosines: the pieces
    are small and shared between vectors (a memo converts each once), where converting the combined
    components rebuilds every sum and product (2 % of the 4-trailer's TQ cell)."""
    convert = convert or (lambda e: e)
    one = sp.S.One
    terms: list = [[], [], []]
    for measures, F in vec.args:
        if F is frame:
            for i in range(3):
                terms[i].append((one, convert(measures[i])))
            continue
        D = frame.dcm(F)
        nonzero = [(j, convert(measures[j])) for j in range(3) if measures[j] != 0]
        for i in range(3):
            terms[i] += [(convert(D[i, j]), mj) for j, mj in nonzero if D[i, j] != 0]
    return terms


def _sum_of_products(pairs: list) -> sp.Expr:
    """Σ c·m over the factor pairs of :func:`_component_terms`."""
    return sp.Add(*[m if c is sp.S.One else c * m for c, m in pairs])


def _components(vec, frame, convert=None) -> list:
    """The three components of a ``sympy.physics.vector`` Vector along ``frame``'s axes
    (:func:`_component_terms`, each sum of products built once; the 6-trailer's velocity parts and
    check: 0.22 s → 0.1 s against ``vec.dot(frame.x)``)."""
    return [_sum_of_products(t) for t in _component_terms(vec, frame, convert)]


class _ToJets:
    """The translation of ``sympy.physics.mechanics`` expressions to jet coordinates: the speeds
    u(t) replaced by their solutions, then q(t), its derivatives and t by the jet symbols, on the
    DAG with one memo per map (shared nodes converted once); a time function left over is an
    :class:`~jetgeo.errors.InputError` naming ``what`` it was found in."""

    def __init__(self, rep: dict, speeds: dict) -> None:
        self.rep, self.speeds = rep, speeds
        self.memo_speeds: dict = {}
        self.memo_rep: dict = {}

    def convert(self, expr) -> sp.Expr:
        out = as_expr(expr)
        if self.speeds:
            out = xreplace_dag(out, self.speeds, self.memo_speeds)
        # one pass: Derivative(q(t), t) and q(t) are matched before t inside them
        return rename_dag(out, self.rep, self.memo_rep)

    @staticmethod
    def _checked(out, what: str):
        left = atoms_dag(out, sp.core.function.AppliedUndef)  # each shared node once
        if left:
            raise InputError(f"{what} contains time functions that are not coordinates: {sorted(map(str, left))}; "
                            "give auxiliary speeds u(t) with their kinematic_equations (kd_eqs), or express them "
                            "through the coordinates' derivatives")
        return out

    def __call__(self, expr, what: str) -> sp.Expr:
        return self._checked(self.convert(expr), what)

    def components(self, vec, frame, what: str) -> list:
        """The components of ``vec`` along ``frame``'s axes (:func:`_components`) in jet coordinates."""
        return [self._checked(c, what) for c in _components(vec, frame, self.convert)]

    def component_terms(self, vec, frame, what: str) -> list:
        """The components' factor pairs (:func:`_component_terms`) in jet coordinates, their sums not
        built (the velocity check evaluates them in F_p)."""
        terms = _component_terms(vec, frame, self.convert)
        self._checked(sp.Add(*[x for pairs in terms for pair in pairs for x in pair]), what)
        return terms


def _fixed_point_from(P, frame) -> tuple | None:
    """(X, steps): a point X reachable from P through located positions whose velocity in ``frame`` is
    set to zero (breadth first: the fewest steps), and the position vectors along that path (each
    point's relative to the next), whose sum is P's position from X — what ``P.pos_from(X)`` adds up,
    without sympy's Vector additions and its second search for the path (1.4 of the 4.5 ms of the
    4-trailer's velocity check); or None."""
    parent = {P: None}
    todo = deque([P])
    while todo:
        X = todo.popleft()
        if X is not P and frame in X._vel_dict and X._vel_dict[frame] == 0:
            steps, Y = [], X
            while parent[Y] is not None:
                steps.append(parent[Y]._pos_dict[Y])
                Y = parent[Y]
            return X, steps
        for Y in X._pos_dict:
            if Y not in parent:
                parent[Y] = X
                todo.append(Y)
    return None


class _VectorTerms(NamedTuple):
    """A vector as the (measure numbers, frame) pairs a ``sympy.physics.vector`` Vector holds in its
    ``args`` (one pair per frame), for :func:`_component_terms`."""

    args: list


def _angular_velocity(F, frame) -> _VectorTerms:
    """F's angular velocity in ``frame``: the angular velocities set along the path of frames from F to
    ``frame`` (breadth first: the fewest steps), the measure numbers of each frame summed — what
    ``F.ang_vel_in(frame)`` adds up, without a sympy Vector built and merged at every step (the
    4-trailer's four bodies: 1.4 → 0.1 ms).  ValueError, as sympy's, when no path connects them."""
    parent = {F: None}
    todo = deque([F])
    while todo and frame not in parent:
        X = todo.popleft()
        for Y in X._ang_vel_dict:
            if Y not in parent:
                parent[Y] = X
                todo.append(Y)
    if frame not in parent:
        raise ValueError(f"No Connecting Path found between {F} and {frame}")
    merged: dict = {}  # frame → [the measure numbers of every step in it], in the order met
    Y = frame
    while parent[Y] is not None:
        for measures, X in parent[Y]._ang_vel_dict[Y].args:
            merged.setdefault(X, []).append(measures)
        Y = parent[Y]
    args = []
    for X, ms in merged.items():
        total = tuple(sp.Add(*[m[i] for m in ms]) for i in range(3))
        if any(c != 0 for c in total):
            args.append((total, X))
    return _VectorTerms(args)


def _check_velocities(Y: FibredManifold, translations: list, frame, jet) -> set:
    """Each mass centre's velocity must be the time derivative of its position from a fixed
    point: a Lagrangian needs the kinetic energy of the *free* motion.  sympy models written
    for KanesMethod often embed a rolling contact in the kinematics (the contact point's
    velocity set to zero, the centre's velocity by ``v2pt_theory`` from it); substituting a
    non-holonomic constraint into L before the variation gives wrong equations, so such a
    model is refused with the point named (give velocities as derivatives of positions and
    the rolling as ``velocity_constraints``).  Points with no fixed point among their located
    neighbours cannot be checked and are taken as given.

    ``translations``: (k, point, w) with w the point's velocity along ``frame``'s axes in jet
    coordinates (k its index among the velocity parts); returns the indices k of the velocities found
    to be the derivatives of their positions.  The position's components r along the same axes, in
    jet coordinates, are compared with w in F_p (:func:`_derivatives_match`: w and d̄r = ∂_t r + ∂_q r q̇
    evaluated at random points, d̄r by forward differentiation; r is never built — its direction
    cosines and measure numbers are evaluated, 2.3 of the 4.5 ms of the 4-trailer's check went into
    building r); only when that does not show w = d̄r are r and d̄r built on the DAG
    (:func:`~jetgeo.geometry.exact.diff_dag`) and w − d̄r given to the zero test — not sympy's
    frame-by-frame ``dt`` of the position vector, which took 0.36 of 0.46 s of the check on the
    6-trailer."""
    along = {Y.t: sp.S.One, **dict(zip(Y.q, Y.qdot))}  # d̄/dt: r depends on (t, q) only
    axes = (frame.x, frame.y, frame.z)
    items = []
    for k, P, w in translations:
        found = _fixed_point_from(P, frame)
        if found is None:
            continue
        O, steps = found
        pos: list = [[], [], []]
        for step in steps:
            for i, pairs in enumerate(jet.component_terms(step, frame, f"the position of {P}")):
                pos[i] += pairs
        items += [(k, P, O, e, wi, r) for e, r, wi in zip(axes, pos, w)]
    checked = {k for k, *_ in items}
    if _derivatives_match([(wi, r) for *_, wi, r in items], along):
        return checked
    memo: dict = {}
    for _, P, O, e, wi, r in items:
        d = wi - diff_dag(_sum_of_products(r), along, memo)
        if not is_zero(d):
            raise InputError(
                    f"the velocity of {P} in {frame} is not the time derivative of its position from {O} "
                    f"(whose velocity is set to zero): they differ by {as_expr(d)} along {e}.  A constraint "
                    "seems embedded in the kinematics (e.g. a rolling contact point given zero velocity); the "
                    "Lagrangian needs the free motion — give velocities as derivatives of positions and the "
                "constraint as velocity_constraints")
    return checked


#: points of F_p at which :func:`_derivatives_match` evaluates
_SHADOW_POINTS = 3


def _derivatives_match(pairs: list, along: dict) -> bool:
    """Whether w − d̄r has value 0 in F_p at :data:`_SHADOW_POINTS` random points for every pair (w, r),
    r given as factor pairs (c, m) with r = Σ c·m (:func:`_component_terms`) and d̄ the derivative along
    ``along`` (:func:`~jetgeo.geometry.exact.mod_value` of w; d̄r = Σ d̄c·m + c·d̄m by
    :func:`~jetgeo.geometry.exact.mod_derivative` of the factors — the value of d̄r without building r or
    d̄r: each shared node once, sin and cos on the unit circle, so the addition theorems hold exactly):
    zero with failure probability ≤ (D/p)³ per difference, D its degree, p = 2⁶¹ − 1 — the tier the zero
    test uses for large expressions.  False when a value is non-zero (then w ≠ d̄r) or the field
    arithmetic does not apply (a pole, a function F_p cannot evaluate): the caller decides with the
    zero test.  The 6-trailer's 18 velocity differences: 0.45 s by ``is_zero`` (expanding the
    direction cosines) → a few milliseconds."""
    for trial in range(1, _SHADOW_POINTS + 1):
        try:
            if _some_difference(pairs, along, trial):
                return False
        except (ZeroDivisionError, NotRationalError, NoRootAtPointError):
            return False
    return True


def _some_difference(pairs: list, along: dict, trial: int) -> bool:
    """Whether some w − Σ (d̄c·m + c·d̄m) of :func:`_derivatives_match` is non-zero at the F_p point ``trial``."""
    rep: dict = {}
    angles: dict = {}
    memo: dict = {}
    dmemo: dict = {}
    def value(e):
        return mod_value(e, rep, angles, memo, trial)

    def rate(e):
        return mod_derivative(e, along, rep, angles, memo, dmemo, trial)

    for w, r in pairs:
        total = value(w)
        for c, m in r:
            total -= rate(c) * value(m) + value(c) * rate(m)
        if total % PRIME:
            return True
    return False


def _inertia_matrix(inertia, body_frame) -> tuple:
    """(F, M): the frame to write a rigid body's angular velocity in and the central inertia's matrix
    in F — the one frame of the dyadic's unit vectors when there is one (its coefficients, read off
    the dyadic, then need no direction cosine), else the body's frame (``to_matrix``).  M is the
    symmetric part (the only one T sees)."""
    frames = {v.args[0][1] for _, a, b in inertia.args for v in (a, b)}
    if len(frames) != 1:
        M = inertia.to_matrix(body_frame)
        return body_frame, (M + M.T) / 2
    # entry by entry over the non-zero products (sympy's matrix sums and products of 3 × 3 matrices
    # ask every zero entry's product; 2 ms of the 4-trailer's import), the same entries
    terms: dict = {}
    for c, a, b in inertia.args:
        ua, ub = a.args[0][0], b.args[0][0]
        for i in range(3):
            for j in range(3):
                if ua[i] != 0 and ub[j] != 0:
                    terms.setdefault((i, j), []).append(c * ua[i] * ub[j])
    M = [[sp.Add(*terms.get((i, j), ())) for j in range(3)] for i in range(3)]
    return frames.pop(), sp.Matrix(3, 3, lambda i, j: M[i][j] if M[i][j] == M[j][i] else (M[i][j] + M[j][i]) / 2)


def _velocity_parts(bodies, frame, jet) -> tuple:
    """(parts, translations): the kinetic energy's terms ½ wᵀ M w
    (:class:`~jetgeo.mechanics.bodies_el.VelocityPart`) in jet coordinates — each mass centre's velocity
    along ``frame``'s axes with M = m·1, each rigid body's angular velocity and central inertia in one
    frame (:func:`_inertia_matrix`) — and the (index of the part, mass centre, its w) of the
    translations.  T = Σ ½ wᵀ M w is sympy's ``kinetic_energy`` (König's theorem) term by term."""
    from sympy.physics.mechanics import Particle, RigidBody

    parts, translations = [], []
    for b in bodies:
        if not isinstance(b, (Particle, RigidBody)):
            raise InputError(f"bodies must be sympy.physics.mechanics RigidBody or Particle objects; got {b!r}")
        try:
            P = b.masscenter
            w = tuple(jet.components(P.vel(frame), frame, f"the velocity of {P}"))
            translations.append((len(parts), P, w))
            parts.append(VelocityPart(w, jet(b.mass, f"the mass of {b}") * sp.eye(3)))
            if isinstance(b, RigidBody):
                F, M = _inertia_matrix(b.central_inertia, b.frame)
                om = jet.components(_angular_velocity(b.frame, frame), F, f"the angular velocity of {b.frame}")
                parts.append(VelocityPart(tuple(om),
                                          M.applyfunc(lambda c, b=b: jet(c, f"the inertia of {b}"))))
        except ValueError as exc:
            raise InputError(f"the kinetic energy needs every body's velocity in {frame}: {exc}") from exc
    return parts, translations


def _generalised_forces(Y: FibredManifold, loads: Sequence, frame, jet) -> list:
    """Q_σ = Σ F·∂v/∂q̇^σ over the loads (forces at points, torques on frames with their angular velocities),
    in jet coordinates (``jet`` converts and checks an expression), expanded."""
    qdot = list(Y.qdot)
    forces = [sp.Integer(0)] * Y.m
    for load in loads:
        kind, where, vec = _load_parts(load)
        try:
            vel = where.vel(frame) if kind == "force" else where.ang_vel_in(frame)
        except ValueError as exc:
            raise InputError(f"the load {load!r}: {exc}") from exc
        F = sp.Matrix(jet.components(vec, frame, f"the load on {where}"))
        v = sp.Matrix(jet.components(vel, frame, f"the velocity of {where}"))
        for s in range(Y.m):
            forces[s] += (F.T * v.diff(qdot[s]))[0, 0]
    return [sp.expand(f) for f in forces]


def from_mechanics(coordinates: Sequence, bodies: Sequence, frame, loads: Sequence = (), potential=0,
                   velocity_constraints: Sequence = (), time: str = "t",
                   configuration_constraints: Sequence = (), kinematic_equations: Sequence = ()) -> ImportedModel:
    """Build a jetgeo system from a ``sympy.physics.mechanics`` model.

    Parameters
    ----------
    coordinates : sequence of dynamicsymbols
        q^σ(t), the generalised coordinates, in the order of the new :class:`~jetgeo.jets.FibredManifold`.
    bodies : sequence of RigidBody or Particle
        The bodies whose kinetic energy makes T; their velocities in ``frame`` are defined through the
        coordinates (their partial velocities give E = g q̈ + e directly, [Kane–Levinson 1985]).
    frame : ReferenceFrame
        The inertial frame.
    loads : sequence, optional
        ``(Point, Vector)``, ``(ReferenceFrame, Vector)``, ``Force`` or ``Torque`` loads.
    potential : sympy.Expr, default 0
        V(t, q) in dynamicsymbols (or give conservative forces as loads — not both for one force).
    velocity_constraints : sequence of sympy.Expr, optional
        f(t, q, q̇) = 0 (non-holonomic constraints).
    time : str, default "t"
        The name of the time symbol of the new FibredManifold.
    configuration_constraints : sequence of sympy.Expr, optional
        h(t, q) = 0 (KanesMethod's ``configuration_constraints``), entered as ḣ = 0 after the velocity
        constraints.
    kinematic_equations : sequence of sympy.Expr, optional
        KanesMethod's ``kd_eqs`` k(t, q, q̇, u) = 0 for auxiliary speeds u(t) (every time function in them
        that is not a coordinate), linear in u and solvable for them: u = u(t, q, q̇) is substituted
        everywhere, and the velocity check makes sure no constraint hides in the kinematics.

    Returns
    -------
    ImportedModel
        ``system, Q = from_mechanics(...)`` unpacks it.

    Raises
    ------
    jetgeo.errors.InputError
        If a coordinate is not a dynamicsymbol of t, an expression holds time functions that are
        not coordinates (or speeds), a body's velocity is not defined in ``frame``, a load is
        malformed, a configuration constraint depends on velocities, or the kinematic equations
        are not linear in and solvable for the speeds.
    """
    from sympy.physics.mechanics import dynamicsymbols

    q = [as_expr(c, "coordinate") for c in coordinates]
    tt = dynamicsymbols._t
    if not q or any(not isinstance(c, sp.core.function.AppliedUndef) or c.args != (tt,) for c in q):
        raise InputError(f"coordinates must be dynamicsymbols q(t); got {coordinates!r}")
    Y = FibredManifold([c.func.__name__ for c in q], time=time)
    allowed = set(q)

    # one xreplace pass (top-down: Derivative(q(t), t) is matched before q(t) inside it);
    # the map of jets.interop.from_dynamicsymbols, built from the given functions themselves
    # (q(t)'s derivatives unevaluated: the expression ``q.diff(t)`` gives — q(t) is an undefined
    # function — without sympy's attempt to evaluate them, 1.4 % of the 4-trailer's TQ cell)
    rep = {}
    for c, s0, s1, s2 in zip(q, Y.q, Y.qdot, Y.qddot):
        rep.update({sp.Derivative(c, (tt, 2), evaluate=False): s2, sp.Derivative(c, tt, evaluate=False): s1, c: s0})
    rep[tt] = Y.t

    speeds = _solve_speeds(kinematic_equations, allowed, tt)
    jet = _ToJets(rep, speeds)

    parts, translations = _velocity_parts(bodies, frame, jet)
    checked = _check_velocities(Y, translations, frame, jet)
    parts = [part._replace(derivative=k in checked) for k, part in enumerate(parts)]
    V = jet(potential, "the potential")
    forces = _generalised_forces(Y, loads, frame, jet)
    # the parts checked once for both; el None: speeds not affine in q̇, L's derivatives then
    T, el = energy_and_euler_lagrange(Y, parts, V, forces)
    system = LagrangianSystem.mechanical(Y, T, V, forces=forces if any(f != 0 for f in forces) else None,
                                         euler_lagrange=el)
    fs = [jet(f, "a velocity constraint") for f in velocity_constraints]
    hs = [jet(h, "a configuration constraint") for h in configuration_constraints]
    for h in hs:
        if Y.jet_order(h) > 0:
            raise InputError(f"a configuration constraint must depend on (t, q) only; got {h}")
        fs.append(Y.cut_total_derivative(h))
    Q = ConstraintSubmanifold(Y, fs) if fs else None
    u_of_jets = {u: jet(v, "a kinematic equation") for u, v in speeds.items()
                 if not isinstance(u, sp.Derivative)}
    return ImportedModel(Y, system, Q, T, V, forces, hs, u_of_jets)


def _solve_speeds(kd_eqs: Sequence, coordinates: set, tt) -> dict:
    """{u(t): u(t, q, q̇), u̇(t): its time derivative} from kinematic equations linear in u."""
    kd = [as_expr(e) for e in kd_eqs]
    if not kd:
        return {}
    us = sorted({f for e in kd for f in e.atoms(sp.core.function.AppliedUndef)
                 if f not in coordinates and f.args == (tt,)}, key=str)
    if len(us) != len(kd):
        raise InputError(f"kinematic equations: {len(kd)} equations for the {len(us)} speeds "
                        f"{[str(u) for u in us]} (time functions other than the coordinates); one each is needed")
    dummies = [sp.Dummy(f"u{i}") for i in range(len(us))]
    sub = dict(zip(us, dummies))
    try:
        A, b = sp.linear_eq_to_matrix([e.xreplace(sub) for e in kd], dummies)
    except (sp.PolynomialError, ValueError) as exc:  # NonlinearError is a ValueError
        raise InputError(f"kinematic equations must be linear in the speeds {[str(u) for u in us]}: {exc}") from exc
    if det_exact(A).is_zero or sp.cancel(det_exact(A)) == 0:
        raise InputError(f"kinematic equations cannot be solved for the speeds {[str(u) for u in us]}")
    sol = solve_exact(A, b)
    out = {}
    for u, v in zip(us, sol):
        v = sp.cancel(v)
        out[u.diff(tt)] = v.diff(tt)
        out[u] = v
    return out
