r"""A rigid body's orientation charts and its body-frame angular velocity as quasi-velocities.

The kinematics come from ``sympy.physics.mechanics`` (the kinematics engine; no frame algebra is
re-implemented here): a :class:`~sympy.physics.vector.ReferenceFrame` oriented by a body-fixed
sequence of three rotations (any of the twelve Euler/Tait–Bryan sequences, ``"ZXZ"``,
``"XYZ"``, …), its angular velocity Ω in the body's own axes, written in the Euler-angle rates
of the fibred manifold Y: Ω = Φ(q) q̇.  The result is a
:class:`~jetgeo.mechanics.quasi.QuasiVelocities` frame, whose fields X_α are the left-invariant
fields of SO(3) read in the chart, [X_α, X_β] = ε_{αβγ} X_γ for every sequence (tested).  Hamel's
equations in this frame are Euler's equations, and with a constraint in Ω the
Euler–Poincaré–Suslov equations [Bloch 2003].

The chart is singular where det Φ = 0 (the gimbal lock of the sequence: sin θ = 0 for a proper
Euler sequence such as ZXZ, cos θ = 0 for a Tait–Bryan sequence such as XYZ);
:func:`chart_singularity` returns that determinant.

**Unit quaternions** (:func:`body_angular_velocity_quaternion`) have no pole: four coordinates
q = (q₀, q₁, q₂, q₃) ∈ R⁴ ∖ {0}, the rotation R(q) = q (·) q̄ / |q|² (``sympy.algebras.Quaternion``),
and the frame q̇ = ½ q ⊗ (0, Ω) + s q whose fourth quasi-velocity s = ⟨q, q̇⟩/|q|² is the radial
rate.  The fields ½ q ⊗ e_α are left-invariant on the quaternion group, so
[X_α, X_β] = ε_{αβγ} X_γ as in every Euler chart, and the radial (Euler) field q·∂_q commutes with
them.  The unit sphere |q| = 1 is kept by the constraint s = 0: the holonomic constraint
|q|² = 1 stated as a velocity constraint (d/dt |q|² = 2 s |q|²), whose Chetaev reaction
λ ∂s/∂q̇ = λ q/|q|² is normal to the sphere — the reaction of the holonomic constraint.  Since R(q)
is homogeneous of degree 0 in q, a Lagrangian ℓ(q, Ω) that depends on q through R only has
X_s(ℓ) = 0 and the multiplier of s = 0 vanishes: Hamel's equations are Euler's, the quaternion
stays on its sphere up to the integrator's error.
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy as sp
from sympy.algebras.quaternion import Quaternion
from sympy.physics.mechanics import ReferenceFrame, dynamicsymbols

from ..errors import InputError
from ..geometry.coerce import as_expr
from ..geometry.exact import det_exact, trig_reduce_if_small
from ..jets.fibred import FibredManifold
from .quasi import QuasiVelocities, QuasiVelocitySystem

__all__ = ["EULER_SEQUENCES", "QUATERNION", "body_angular_velocity", "body_angular_velocity_quaternion",
           "chart_singularity", "ellipsoid_support", "rolling_on_plane", "rotation_matrix"]

#: the twelve body-fixed rotation sequences: six proper Euler (first axis = last) and six Tait–Bryan
EULER_SEQUENCES = ("XYX", "XZX", "YXY", "YZY", "ZXZ", "ZYZ", "XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX")
#: the name of the quaternion chart in :func:`rotation_matrix`
QUATERNION = "quaternion"


def _oriented(Y: FibredManifold, sequence: str, angles: Sequence):
    """(N, B, {dynamicsymbol: jet symbol}) for the body frame B oriented in N by ``sequence``."""
    seq = sequence.upper()
    if seq not in EULER_SEQUENCES:
        raise InputError(f"unknown rotation sequence {sequence!r}; one of {', '.join(EULER_SEQUENCES)}")
    if Y.m < 3:
        raise InputError(f"a rigid body's orientation needs three coordinates; Y has {Y.m}")
    idx = [Y.q.index(a) if a in Y.q else -1 for a in angles]
    if -1 in idx or len(set(idx)) != 3:
        raise InputError(f"the three angles {[str(a) for a in angles]} must be distinct coordinates of Y")
    N = ReferenceFrame("N")
    qs = dynamicsymbols(" ".join(f"_jg_a{i}" for i in range(3)))
    B = N.orientnew("B", "Body", qs, seq)
    t = dynamicsymbols._t
    back = {}
    for qi, a, i in zip(qs, angles, idx):
        back[qi.diff(t)] = Y.qdot[i]
        back[qi] = a
    return N, B, back


def _angular_velocity_rows(Y: FibredManifold, sequence: str, angles: Sequence) -> list:
    N, B, back = _oriented(Y, sequence, angles)
    w = B.ang_vel_in(N)
    rows = []
    for e in (B.x, B.y, B.z):
        comp = w.dot(e).subs(back)  # derivatives first: xreplace would not see q(t) inside q'(t)
        rows.append(sp.expand(comp))
    return rows


def body_angular_velocity(Y: FibredManifold, sequence: str, names: Sequence, angles: Sequence | None = None,
                          others: Sequence | None = None) -> QuasiVelocities:
    r"""The body-frame angular velocity Ω of a rigid body as quasi-velocities.

    Parameters
    ----------
    Y : FibredManifold
        The configuration fibration; three of its coordinates are the rotation angles.
    sequence : str
        The body-fixed rotation sequence, one of :data:`EULER_SEQUENCES` (e.g. ``"ZXZ"``: precession,
        nutation, spin).
    names : sequence of str or Symbol
        Names for the three body components Ω₁, Ω₂, Ω₃ followed, when Y has more coordinates, by
        names for the remaining quasi-velocities (``others``).
    angles : sequence of Symbols, optional
        The three angle coordinates of Y, in the order of the sequence (default: the first three).
    others : sequence of expressions, optional
        For the other coordinates of Y (a position, say): their quasi-velocities as linear
        homogeneous expressions in q̇ (default: the rates of the remaining coordinates themselves).

    Returns
    -------
    QuasiVelocities
        v = (Ω₁, Ω₂, Ω₃, …) = Φ(q) q̇, Ω computed by ``sympy.physics.mechanics``.

    Examples
    --------
    >>> from jetgeo import FibredManifold
    >>> Y = FibredManifold(["phi", "theta", "psi"])
    >>> F = body_angular_velocity(Y, "ZXZ", ["w1", "w2", "w3"])
    >>> F.to_velocities()[F.v[2]]
    phidot*cos(theta) + psidot
    >>> chart_singularity(F)
    -sin(theta)
    """
    if not isinstance(Y, FibredManifold):
        raise InputError(f"body_angular_velocity needs a FibredManifold, got {type(Y).__name__}")
    angles = tuple(Y.q[:3]) if angles is None else tuple(angles)
    if len(angles) != 3:
        raise InputError(f"a rotation sequence takes three angles, got {len(angles)}")
    rows = _angular_velocity_rows(Y, sequence, angles)
    rest = [q for q in Y.q if q not in angles]
    if others is None:
        others = [Y.qdot[Y.q.index(q)] for q in rest]
    others = list(others)
    if len(others) != len(rest):
        raise InputError(f"need {len(rest)} further quasi-velocities for {[str(q) for q in rest]}, got {len(others)}")
    return QuasiVelocities(Y, names, velocities=[*rows, *others])


def rotation_matrix(Y: FibredManifold, sequence: str, angles: Sequence | None = None) -> sp.Matrix:
    """The rotation R(q) taking a body's components to the space components (x_space = R x_body), in
    the Euler-angle chart of ``sequence`` (``sympy.physics.mechanics``' direction cosine matrix) or
    in quaternions (``sequence=QUATERNION``: ``sympy.algebras.Quaternion.to_rotation_matrix``,
    x_space = q x_body q̄ / |q|², rational in q and orthogonal for every q ≠ 0).

    Parameters
    ----------
    Y : FibredManifold
    sequence : str
        One of :data:`EULER_SEQUENCES`, or :data:`QUATERNION`.
    angles : sequence of Symbols, optional
        The three angle coordinates of Y (default: the first three); for quaternions the four
        coordinates (q₀, q₁, q₂, q₃), scalar part first (default: the first four).

    Returns
    -------
    sympy.Matrix
        3 × 3, orthogonal, in the angles (the quaternion).

    Examples
    --------
    >>> from jetgeo import FibredManifold
    >>> Y = FibredManifold(["phi", "theta", "psi"])
    >>> rotation_matrix(Y, "ZXZ")[2, 2]          # the body's third axis against the vertical
    cos(theta)
    >>> Yq = FibredManifold(["q0", "q1", "q2", "q3"])
    >>> rotation_matrix(Yq, QUATERNION)[2, 2]
    (q0**2 - q1**2 - q2**2 + q3**2)/(q0**2 + q1**2 + q2**2 + q3**2)
    """
    if isinstance(sequence, str) and sequence.lower() == QUATERNION:
        q = _quaternion_coordinates(Y, angles)
        return Quaternion(*q).to_rotation_matrix()  # divided by |q|² = q.norm()**2: orthogonal for q ≠ 0
    angles = tuple(Y.q[:3]) if angles is None else tuple(angles)
    N, B, back = _oriented(Y, sequence, angles)
    return N.dcm(B).subs(back)


def _quaternion_coordinates(Y: FibredManifold, quaternion: Sequence | None) -> tuple:
    if not isinstance(Y, FibredManifold):
        raise InputError(f"a quaternion chart needs a FibredManifold, got {type(Y).__name__}")
    if Y.m < 4 and quaternion is None:
        raise InputError(f"a quaternion chart needs four coordinates; Y has {Y.m}")
    q = tuple(Y.q[:4]) if quaternion is None else tuple(quaternion)
    if len(q) != 4 or len(set(q)) != 4 or not set(q) <= set(Y.q):
        raise InputError(f"the quaternion must be four distinct coordinates of Y, got {[str(c) for c in q]}")
    return q


def body_angular_velocity_quaternion(Y: FibredManifold, names: Sequence, quaternion: Sequence | None = None,
                                     others: Sequence | None = None) -> QuasiVelocities:
    r"""The body-frame angular velocity Ω of a rigid body in the quaternion chart, as quasi-velocities.

    The frame q̇ = ½ q ⊗ (0, Ω) + s q on four coordinates q = (q₀, q₁, q₂, q₃) of Y (module
    docstring): the quasi-velocities are Ω = 2 Im(q̄ ⊗ q̇)/|q|² and the radial rate
    s = ⟨q, q̇⟩/|q|².  Both Φ and Ψ are given in closed form (Ψ polynomial, Φ with the one
    denominator |q|²).  The unit norm is kept by stating the system with the constraint s = 0
    (``QuasiVelocitySystem(F, ℓ, constraints=[F.v[3], …])``): the holonomic constraint |q| = 1 as
    a velocity constraint, whose Chetaev reaction is the holonomic one.

    Parameters
    ----------
    Y : FibredManifold
        The configuration fibration; four of its coordinates are the quaternion.
    names : sequence of str or Symbol
        Names for Ω₁, Ω₂, Ω₃, the radial rate s, then for the quasi-velocities of the further
        coordinates of Y (``others``).
    quaternion : sequence of Symbols, optional
        The four coordinates (q₀, q₁, q₂, q₃) of Y, scalar part first (default: the first four).
    others : sequence of expressions, optional
        For the other coordinates of Y: their quasi-velocities as linear homogeneous expressions in
        q̇ (default: the rates of the remaining coordinates themselves).

    Returns
    -------
    QuasiVelocities
        v = (Ω₁, Ω₂, Ω₃, s, …); R(q) is :func:`rotation_matrix` with ``QUATERNION``.

    Examples
    --------
    >>> from jetgeo import FibredManifold
    >>> Y = FibredManifold(["q0", "q1", "q2", "q3"])
    >>> F = body_angular_velocity_quaternion(Y, ["w1", "w2", "w3", "s"])
    >>> F.kinematics()[Y.qdot[0]]             # q̇₀ = −½ ⟨q⃗, Ω⟩ + s q₀
    q0*s - q1*w1/2 - q2*w2/2 - q3*w3/2
    >>> F.structure_functions()[2][0][1]      # [X_1, X_2] = X_3, as in every Euler chart
    1
    """
    q = _quaternion_coordinates(Y, quaternion)
    idx = [Y.q.index(c) for c in q]
    qd = [Y.qdot[i] for i in idx]
    Q, Qd = Quaternion(*q), Quaternion(*qd)
    n2 = sp.Add(*[c**2 for c in q])
    P = Q.conjugate() * Qd  # q̄ ⊗ q̇ = |q|² (s + ½ Ω)
    rows = [2 * P.b / n2, 2 * P.c / n2, 2 * P.d / n2, P.a / n2]
    rest = [c for c in Y.q if c not in q]
    given = others is not None
    others = [Y.qdot[Y.q.index(c)] for c in rest] if others is None else [as_expr(e) for e in others]
    if len(others) != len(rest):
        raise InputError(f"need {len(rest)} further quasi-velocities for {[str(c) for c in rest]}, got {len(others)}")
    if given:  # Ψ from the exact solve
        return QuasiVelocities(Y, names, velocities=[*rows, *others])
    m = Y.m
    Psi = sp.zeros(m, m)
    for a, e in enumerate(((0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 0, 1))):
        col = Q * Quaternion(*e)
        for i, c in zip(idx, (col.a, col.b, col.c, col.d)):
            Psi[i, a] = c / 2
    for i, c in zip(idx, q):
        Psi[i, 3] = c
    for a, c in enumerate(rest, start=4):
        Psi[Y.q.index(c), a] = sp.Integer(1)
    return QuasiVelocities(Y, names, velocities=[*rows, *others], frame=Psi)


def chart_singularity(frame: QuasiVelocities) -> sp.Expr:
    """det Φ(q) of a frame, trigonometrically reduced: the chart of the orientation fails where it
    vanishes (the pole, or gimbal lock, of an Euler-angle sequence).

    Parameters
    ----------
    frame : QuasiVelocities

    Returns
    -------
    sympy.Expr
        The determinant of v = Φ q̇.
    """
    return trig_reduce_if_small(det_exact(frame.Phi))


def ellipsoid_support(a, b, c):
    r"""The support function h(ξ) = √(a²ξ₁² + b²ξ₂² + c²ξ₃²) of the ellipsoid with semi-axes a, b, c.

    Parameters
    ----------
    a, b, c : expressions
        The semi-axes along the body's axes.

    Returns
    -------
    callable
        ξ (a 3-vector) ↦ h(ξ) = max over the body of ⟨x, ξ⟩.

    Examples
    --------
    >>> import sympy as sp
    >>> h = ellipsoid_support(1, 2, 3)
    >>> h(sp.Matrix([0, 0, -1]))
    3
    """
    A = sp.diag(as_expr(a) ** 2, as_expr(b) ** 2, as_expr(c) ** 2)

    def h(xi):
        xi = sp.Matrix(xi)
        return sp.sqrt((xi.T * A * xi)[0])

    return h


def rolling_on_plane(Y: FibredManifold, sequence: str, names: Sequence, support, mass, inertia_matrix,
                     offset=(0, 0, 0), gravity=0, rubber: bool = False) -> QuasiVelocitySystem:
    r"""A convex rigid body rolling without slipping on the horizontal plane z = 0, in quasi-velocities.

    The body is given by its support function h(ξ) = max_{x ∈ body} ⟨x, ξ⟩ about a body-fixed
    reference point O (the geometric centre).  With γ = Rᵀ e_z the vertical in the body's axes, the
    contact point is r(γ) = ∇h(−γ) (the point of the body farthest along −γ) and O is h(−γ) above the
    plane.  The centre of mass G = O + a (``offset`` a in body axes) is at height
    z_G = h(−γ) + ⟨a, γ⟩; the coordinates are the three angles of ``sequence`` and the horizontal
    position (x, y) of G (the last two coordinates of Y).  The quasi-velocities are the body-frame
    angular velocity Ω and (ẋ, ẏ); the Lagrangian is ℓ = ½ Ω·I Ω + ½ m (ẋ² + ẏ² + ż_G²) − m g z_G
    with ż_G = X(z_G) along q̇ = Ψ v, and the no-slip constraints are the horizontal components of
    v_G + ω × ρ = 0, ρ = R(r − a) the contact point seen from G ("rubber": also ⟨Ω, γ⟩ = 0, no
    spin about the normal).  The rolling disc, ball and the rattleback are special cases
    [Neimark–Fufaev 1972].

    Parameters
    ----------
    Y : FibredManifold
        Five coordinates: the three angles (in the order of ``sequence``), then x, y of G.
    sequence : str
        The Euler-angle chart, one of :data:`EULER_SEQUENCES`.
    names : sequence of str
        Five names: Ω₁, Ω₂, Ω₃, then the velocities of x and y.
    support : callable
        ξ ↦ h(ξ), the support function about O (e.g. :func:`ellipsoid_support`).
    mass : expression
    inertia_matrix : 3 × 3 matrix
        The inertia tensor about G in body axes.
    offset : 3-vector, optional
        a = G − O in body axes.
    gravity : expression, optional
        g (the potential m g z_G).
    rubber : bool, optional
        Add the no-spin constraint ⟨Ω, γ⟩ = 0.

    Returns
    -------
    QuasiVelocitySystem

    Examples
    --------
    A homogeneous ball of radius ρ rolls with constant Ω and a uniform straight motion:

    >>> import sympy as sp
    >>> from jetgeo import FibredManifold
    >>> Y = FibredManifold(["phi", "theta", "psi", "x", "y"])
    >>> m, rho, g = sp.symbols("m rho g", positive=True)
    >>> S = rolling_on_plane(Y, "ZXZ", ["w1", "w2", "w3", "u", "w"], ellipsoid_support(rho, rho, rho), m,
    ...                      sp.eye(3) * 2 * m * rho**2 / 5, gravity=g)
    >>> from jetgeo.geometry import is_zero
    >>> all(is_zero(e) for e in S.accelerations().values())
    True
    """
    if Y.m != 5:
        raise InputError(f"rolling_on_plane: Y needs five coordinates (three angles, x, y), has {Y.m}")
    angles = tuple(Y.q[:3])
    F = body_angular_velocity(Y, sequence, names, angles=angles)
    R = rotation_matrix(Y, sequence, angles)
    gam = R.T * sp.Matrix([0, 0, 1])
    xi = sp.symbols("_jg_xi1:4")
    h = as_expr(support(sp.Matrix(xi)))
    at = dict(zip(xi, -gam))
    r = sp.Matrix([sp.diff(h, s).xreplace(at) for s in xi])  # the contact point from O, in body axes
    a = sp.Matrix([as_expr(c) for c in offset])
    I = sp.Matrix(inertia_matrix).applyfunc(as_expr)
    if I.shape != (3, 3):
        raise InputError("rolling_on_plane: the inertia matrix must be 3 × 3")
    m, g = as_expr(mass), as_expr(gravity)
    zG = h.xreplace(at) + a.dot(gam)
    W = sp.Matrix(F.v[:3])
    u, w = F.v[3:]
    kin = F.kinematics()
    zdot = sp.Add(*[sp.diff(zG, q) * kin[qd] for q, qd in zip(Y.q, Y.qdot)])
    ell = (W.T * I * W)[0] / 2 + m * (u**2 + w**2 + zdot**2) / 2 - m * g * zG
    slip = R * W.cross(r - a)
    constraints = [u + slip[0], w + slip[1]]
    if rubber:
        constraints.append(W.dot(gam))
    return QuasiVelocitySystem(F, ell, constraints=constraints, dependent=(u, w) if not rubber else None)
