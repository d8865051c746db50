r"""Import a ``sympy.physics.mechanics`` model as a jetgeo system.

An existing model — reference frames, points, rigid bodies and particles, loads, and
velocity constraints written with ``dynamicsymbols`` — is brought over without
rewriting its kinematics:

* the kinetic energy T = Σ body.kinetic_energy(N) (König's theorem is sympy's), after a check
  that each mass centre's velocity is the derivative of its position from a fixed point (a
  rolling contact embedded in the kinematics — usual in models written for KanesMethod —
  would put a non-holonomic constraint into L: refused, see :func:`_check_velocities`);
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

from collections.abc import Sequence
from dataclasses import dataclass, field

import sympy as sp

from ..errors import InputError
from ..geometry.coerce import as_expr
from ..geometry.exact import det_exact, solve_exact
from ..geometry.zero import is_zero
from ..jets import FibredManifold
from ..mechanics import ConstraintSubmanifold, LagrangianSystem

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


def _fixed_point_from(P, frame):
    """A point reachable from P through located positions whose velocity in ``frame`` is set
    to zero (breadth first), or None."""
    seen, todo = {P}, [P]
    while todo:
        X = todo.pop(0)
        if X is not P and frame in X._vel_dict and X._vel_dict[frame] == 0:
            return X
        for Y in X._pos_dict:
            if Y not in seen:
                seen.add(Y)
                todo.append(Y)
    return None


def _check_velocities(bodies, frame, jet) -> None:
    """Each mass centre's velocity must be the time derivative of its position from a fixed
    point: a Lagrangian needs the kinetic energy of the *free* motion.  sympy models written
    for KanesMethod often embed a rolling contact in the kinematics (the contact point's
    velocity set to zero, the centre's velocity by ``v2pt_theory`` from it); substituting a
    non-holonomic constraint into L before the variation gives wrong equations, so such a
    model is refused with the point named (give velocities as derivatives of positions and
    the rolling as ``velocity_constraints``).  Points with no fixed point among their located
    neighbours cannot be checked and are taken as given.

    The difference is first tested frame by frame, on the measure numbers sympy keeps for each
    frame it is written in (small: no frame is expressed in another); zero in every frame, it is
    zero.  Otherwise its components along ``frame``'s axes decide (they may cancel between frames).
    The 6-trailer: 0.07 s instead of 0.15 s of CPU time, most of it in expanding the components
    along N, whose direction cosines nest the whole chain."""
    for b in bodies:
        P = getattr(b, "masscenter", None) or getattr(b, "point", None)
        if P is None:
            continue
        O = _fixed_point_from(P, frame)
        if O is None:
            continue
        given = P.vel(frame)
        true = P.pos_from(O).dt(frame)
        diff = given - true
        if all(is_zero(jet(c, f"the velocity of {P}")) for measures, _ in diff.args for c in measures):
            continue
        for e in (frame.x, frame.y, frame.z):
            d = jet(diff.dot(e), f"the velocity of {P}")
            if not is_zero(d):
                raise InputError(
                    f"the velocity of {P} in {frame} is not the time derivative of its position from {O} "
                    f"(whose velocity is set to zero): they differ by {as_expr(d)} along {e}.  A constraint "
                    "seems embedded in the kinematics (e.g. a rolling contact point given zero velocity); the "
                    "Lagrangian needs the free motion — give velocities as derivatives of positions and the "
                    "constraint as velocity_constraints")


def _leftover_functions(expr, allowed) -> set:
    return {f for f in as_expr(expr).atoms(sp.core.function.AppliedUndef) if f not in allowed}


def from_mechanics(coordinates: Sequence, bodies: Sequence, frame, loads: Sequence = (), potential=0,
                   velocity_constraints: Sequence = (), time: str = "t",
                   configuration_constraints: Sequence = (), kinematic_equations: Sequence = ()) -> ImportedModel:
    """Build a jetgeo system from a ``sympy.physics.mechanics`` model.

    ``coordinates``: the generalised coordinates (dynamicsymbols q(t)), in the order of
    the new :class:`~jetgeo.jets.FibredManifold`; ``bodies``: RigidBody/Particle
    objects whose velocities in ``frame`` (the inertial frame) are defined through the
    coordinates; ``loads``: forces at points and torques on frames; ``potential``: V(t, q)
    in dynamicsymbols (alternatively give conservative forces as loads — not both for the
    same force); ``velocity_constraints``: expressions f(t, q, q̇) = 0;
    ``configuration_constraints``: expressions h(t, q) = 0 (KanesMethod's
    ``configuration_constraints``), entered as ḣ = 0 after the velocity constraints;
    ``kinematic_equations``: KanesMethod's ``kd_eqs`` k(t, q, q̇, u) = 0 for auxiliary speeds
    u(t) (every time function in them that is not a coordinate), linear in u and solvable for
    them — u = u(t, q, q̇) is substituted everywhere (velocities, loads, constraints), and the
    velocity check then makes sure no constraint hides in the kinematics.

    Parameters
    ----------
    coordinates : sequence of dynamicsymbols
        q^σ(t), the generalised coordinates.
    bodies : sequence of RigidBody or Particle
        The bodies whose kinetic energy makes T.
    frame : ReferenceFrame
        The inertial frame.
    loads : sequence, optional
        ``(Point, Vector)``, ``(ReferenceFrame, Vector)``, ``Force`` or ``Torque`` loads.
    potential : sympy.Expr, default 0
        V(t, q) in dynamicsymbols.
    velocity_constraints : sequence of sympy.Expr, optional
        f(t, q, q̇) = 0 (non-holonomic constraints).
    time : str, default "t"
        The name of the time symbol of the new FibredManifold.
    configuration_constraints : sequence of sympy.Expr, optional
        h(t, q) = 0 (holonomic constraints), kept as ḣ = 0.
    kinematic_equations : sequence of sympy.Expr, optional
        k(t, q, q̇, u) = 0 defining auxiliary speeds u.

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
    rep = {}
    for c, s0, s1, s2 in zip(q, Y.q, Y.qdot, Y.qddot):
        rep.update({c.diff(tt, 2): s2, c.diff(tt): s1, c: s0})

    speeds = _solve_speeds(kinematic_equations, allowed, tt)

    def jet(expr, what):
        out = as_expr(expr)
        if speeds:
            out = out.xreplace(speeds)
        out = out.xreplace(rep).xreplace({tt: Y.t})
        left = _leftover_functions(out, allowed)
        if left:
            raise InputError(f"{what} contains time functions that are not coordinates: {sorted(map(str, left))}; "
                            "give auxiliary speeds u(t) with their kinematic_equations (kd_eqs), or express them "
                            "through the coordinates' derivatives")
        return out

    try:
        T = sp.Add(*[b.kinetic_energy(frame) for b in bodies])
    except ValueError as exc:
        raise InputError(f"the kinetic energy needs every body's velocity in {frame}: {exc}") from exc
    _check_velocities(bodies, frame, jet)
    T = jet(T, "the kinetic energy")
    V = jet(potential, "the potential")
    qdot = list(Y.qdot)
    forces = [sp.Integer(0)] * Y.m
    for load in loads:
        kind, where, vec = _load_parts(load)
        try:
            vel = where.vel(frame) if kind == "force" else where.ang_vel_in(frame)
        except ValueError as exc:
            raise InputError(f"the load {load!r}: {exc}") from exc
        F = sp.Matrix([jet(vec.dot(e), f"the load on {where}") for e in (frame.x, frame.y, frame.z)])
        v = sp.Matrix([jet(vel.dot(e), f"the velocity of {where}") for e in (frame.x, frame.y, frame.z)])
        for s in range(Y.m):
            forces[s] += (F.T * v.diff(qdot[s]))[0, 0]
    forces = [sp.expand(f) for f in forces]
    system = LagrangianSystem.mechanical(Y, T, V, forces=forces if any(f != 0 for f in forces) else None)
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
