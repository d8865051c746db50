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

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import sympy as sp
from sympy.algebras.quaternion import Quaternion
from sympy.physics.mechanics import ReferenceFrame, dynamicsymbols

from ..errors import InputError
from ..geometry.coerce import as_expr
from ..geometry.exact import det_exact, lu_solve_dag, trig_reduce_if_small
from ..geometry.zero import is_zero
from ..jets.fibred import FibredManifold
from .quasi import BodyRotation, QuasiVelocities, QuasiVelocitySystem

__all__ = ["EULER_SEQUENCES", "QUATERNION", "SURFACES", "ContactSurface", "SupportFunction", "body_angular_velocity",
           "body_angular_velocity_quaternion", "chart_singularity", "ellipsoid_support", "quadric_support",
           "rolling_contact", "rolling_on_plane", "rotation_matrix"]

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
    omega = tuple(sp.Symbol(n) if isinstance(n, str) else n for n in list(names)[:3])
    return QuasiVelocities(Y, names, velocities=[*rows, *others],
                           rotation=BodyRotation(sequence.upper(), angles, omega))


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


# --- convex bodies: support functions --------------------------------------------------------------------


def _decided_positive(e: sp.Expr) -> bool | None:
    """True / False where sympy's assumptions decide e > 0, None where they cannot."""
    return sp.ask(sp.Q.positive(e)) if not e.is_number else bool(e > 0)


class SupportFunction:
    r"""The support function h(ξ) = max_{x ∈ body} ⟨x, ξ⟩ of a convex body about a body-fixed point O.

    h is positively homogeneous of degree 1; for a strictly convex, smooth body the point of the body
    farthest along ξ is ∇h(ξ), and the Hessian ∇²h(ξ) restricted to ξ^⊥ (|ξ| = 1) holds the principal
    radii of curvature there.

    Parameters
    ----------
    function : callable
        ξ (a 3-vector of expressions) ↦ h(ξ), an expression.
    max_curvature_radius : expression, optional
        The largest principal radius of curvature of the body's surface (all points), when known; a
        body rolls inside a sphere or cylinder of radius R only where its radii are below R, which
        :func:`rolling_contact` checks when both are numbers.
    shape : str, optional
        A short description ("ellipsoid a, b, c"), for messages.

    Returns
    -------
    SupportFunction
        Callable: ``h(xi)``.

    Examples
    --------
    >>> import sympy as sp
    >>> h = SupportFunction(lambda xi: 2 * sp.sqrt(xi[0]**2 + xi[1]**2 + xi[2]**2), 2, "ball of radius 2")
    >>> h(sp.Matrix([0, 3, 4]))
    10
    """

    def __init__(self, function: Callable, max_curvature_radius=None, shape: str = "") -> None:
        if not callable(function):
            raise InputError(f"SupportFunction needs a callable ξ ↦ h(ξ), got {type(function).__name__}")
        self.function = function
        self.max_curvature_radius = None if max_curvature_radius is None else as_expr(max_curvature_radius)
        self.shape = shape or "a convex body"

    def __call__(self, xi) -> sp.Expr:
        return as_expr(self.function(sp.Matrix(xi)))

    def __repr__(self) -> str:
        return f"SupportFunction({self.shape})"


def ellipsoid_support(a, b, c) -> SupportFunction:
    r"""The support function h(ξ) = √(a²ξ₁² + b²ξ₂² + c²ξ₃²) of the ellipsoid with semi-axes a, b, c.

    Parameters
    ----------
    a, b, c : expressions
        The semi-axes along the body's axes (a sphere: a = b = c); a semi-axis that is a number must be
        positive, one that is a symbol should be declared ``positive=True``.

    Returns
    -------
    SupportFunction
        ξ (a 3-vector) ↦ h(ξ) = max over the body of ⟨x, ξ⟩; its largest radius of curvature is
        max(a, b, c)² / min(a, b, c).

    Examples
    --------
    >>> import sympy as sp
    >>> h = ellipsoid_support(1, 2, 3)
    >>> h(sp.Matrix([0, 0, -1]))
    3
    >>> h.max_curvature_radius
    9
    """
    axes = [as_expr(x) for x in (a, b, c)]
    for name, x in zip("abc", axes):
        if x.is_positive is False or (x.is_number and not x.is_positive):
            raise InputError(f"ellipsoid_support: the semi-axis {name} = {x} must be positive")
    A = sp.diag(*[x**2 for x in axes])

    def h(xi):
        xi = sp.Matrix(xi)
        return sp.sqrt((xi.T * A * xi)[0])

    big, small = sp.Max(*axes), sp.Min(*axes)
    return SupportFunction(h, big**2 / small, f"ellipsoid {', '.join(map(str, axes))}")


def quadric_support(phi, variables: Sequence) -> SupportFunction:
    r"""The support function of the convex body φ(x) ≤ 0 bounded by a quadric φ(x) = 0 in body axes.

    With φ(x) = xᵀM x + 2 bᵀx + c (M symmetric), the body is an ellipsoid exactly when M is positive
    definite and κ = bᵀM⁻¹b − c > 0: its centre is x₀ = −M⁻¹b and (x − x₀)ᵀM(x − x₀) = κ, so that
    h(ξ) = ⟨x₀, ξ⟩ + √(κ ξᵀM⁻¹ξ) about the body's origin O (a φ with M negative definite describes the
    same surface, φ ≥ 0 inside, and is turned round).  Anything else — a surface of higher degree, a
    hyperboloid or paraboloid (not convex, or not bounded), an empty quadric — is an
    :class:`~jetgeo.errors.InputError` naming what fails.

    Parameters
    ----------
    phi : expression
        φ(x₁, x₂, x₃), a polynomial of degree 2 in the body coordinates.
    variables : sequence of three Symbols
        The body coordinates x₁, x₂, x₃.

    Returns
    -------
    SupportFunction

    Examples
    --------
    >>> import sympy as sp
    >>> x, y, z = sp.symbols("x y z")
    >>> h = quadric_support(x**2 + y**2/4 + (z - 1)**2/9 - 1, (x, y, z))
    >>> h(sp.Matrix([0, 0, -1]))               # the lowest point: z = 1 - 3
    2
    """
    xs = tuple(variables)
    if len(xs) != 3 or not all(isinstance(v, sp.Symbol) for v in xs) or len(set(xs)) != 3:
        raise InputError(f"quadric_support: need three distinct body coordinates, got {list(variables)}")
    f = as_expr(phi)
    try:
        poly = sp.Poly(f, *xs)
    except sp.PolynomialError:
        raise InputError(f"quadric_support: φ = {f} is not a polynomial in {', '.join(map(str, xs))}; only "
                         "quadric surfaces are supported") from None
    if poly.total_degree() != 2:
        raise InputError(f"quadric_support: φ has degree {poly.total_degree()} in the body coordinates; only "
                         "quadrics (degree 2) are supported")
    zero = dict.fromkeys(xs, 0)
    M = sp.Matrix(3, 3, lambda i, j: sp.diff(f, xs[i], xs[j]) / 2)
    b = sp.Matrix([sp.diff(f, v).xreplace(zero) / 2 for v in xs])
    c = f.xreplace(zero)
    minors = [det_exact(M[:k, :k]) for k in (1, 2, 3)]
    signs = [_decided_positive(m) for m in minors]
    if None in signs:
        raise InputError("quadric_support: cannot decide whether the quadric is an ellipsoid: the leading minors "
                         f"{minors} of its matrix have no known sign (declare the parameters positive)")
    if not all(signs):
        neg = [_decided_positive(-m if k % 2 == 0 else m) for k, m in enumerate(minors)]
        if not all(neg):
            raise InputError(f"quadric_support: φ = {f} = 0 is not an ellipsoid (its matrix is not definite: "
                             f"leading minors {minors}), so it bounds no convex body")
        M, b, c = -M, -b, -c
    Minv = lu_solve_dag(M, sp.eye(3)).applyfunc(sp.cancel)
    x0 = -Minv * b
    kappa = sp.cancel((b.T * Minv * b)[0] - c)
    if _decided_positive(kappa) is not True:
        raise InputError(f"quadric_support: φ = {f} = 0 has no real points (or only one): "
                         f"bᵀM⁻¹b − c = {kappa} must be positive")
    radius = None
    if all(M[i, j] == 0 for i in range(3) for j in range(3) if i != j):
        axes = [sp.sqrt(kappa / M[i, i]) for i in range(3)]
        radius = sp.Max(*axes) ** 2 / sp.Min(*axes)

    def h(xi):
        xi = sp.Matrix(xi)
        return x0.dot(xi) + sp.sqrt(kappa * (xi.T * Minv * xi)[0])

    return SupportFunction(h, radius, f"quadric {f} = 0")


# --- the surfaces a body rolls on ----------------------------------------------------------------------------

#: the kinds of fixed surface of :class:`ContactSurface`
SURFACES = ("plane", "sphere", "cylinder")


@dataclass(frozen=True)
class ContactSurface:
    r"""A fixed surface a convex body rolls on: the plane z = 0, a sphere, or a cylinder.

    Every surface is given by two coordinates s = (s₁, s₂) of the contact, its contact point P(s), the
    unit normal ν(s) pointing from the surface into the body and two unit tangents E₁, E₂:

    * ``plane``: the body above z = 0, ν = e_z; the coordinates are those of the centre of mass
      (x_G, y_G) (:func:`rolling_on_plane`).
    * ``sphere`` of radius R centred at C: ν = u(a, b) = (sin a, −cos a sin b, cos a cos b) and
      P = C + σ R ν, σ = +1 ``outside`` (a = b = 0: the top), σ = −1 ``inside`` (a = b = 0: the bottom
      of the bowl); the chart is regular away from cos a = 0.
    * ``cylinder`` of radius R, ``axis="vertical"`` (the z axis through C): coordinates (α, z) with
      e = (cos α, sin α, 0), P = C + R e + z e_z, ν = σ e (inside: the body is at azimuth α, touching
      the wall there); ``axis="horizontal"`` (the x axis through C): coordinates (α, x) with
      ν = (0, −sin α, cos α), P = C + σ R ν + x e_x (α = 0: the top outside, the bottom inside).

    Parameters
    ----------
    kind : str
        One of :data:`SURFACES`.
    radius : expression, optional
        R (sphere, cylinder); a number must be positive.
    inside : bool, optional
        The body rolls on the inside of the sphere or cylinder (default: outside).
    axis : str, optional
        ``"vertical"`` or ``"horizontal"`` (cylinder only).
    centre : 3-vector, optional
        C (default the origin).

    Returns
    -------
    ContactSurface

    Examples
    --------
    >>> import sympy as sp
    >>> a, b = sp.symbols("a b")
    >>> P, nu, E = ContactSurface("sphere", 2, inside=True).geometry((a, b))
    >>> P.T, nu.T
    (Matrix([[-2*sin(a), 2*sin(b)*cos(a), -2*cos(a)*cos(b)]]), Matrix([[sin(a), -sin(b)*cos(a), cos(a)*cos(b)]]))
    """

    kind: str = "plane"
    radius: object = None
    inside: bool = False
    axis: str = "vertical"
    centre: tuple = (0, 0, 0)

    def __post_init__(self) -> None:
        if self.kind not in SURFACES:
            raise InputError(f"ContactSurface: unknown surface {self.kind!r}; one of {', '.join(SURFACES)}")
        if not isinstance(self.inside, bool):
            raise InputError(f"ContactSurface: inside must be True or False, got {self.inside!r}")
        if self.axis not in ("vertical", "horizontal"):
            raise InputError(f"ContactSurface: axis must be 'vertical' or 'horizontal', got {self.axis!r}")
        centre = tuple(as_expr(c) for c in self.centre)
        if len(centre) != 3:
            raise InputError(f"ContactSurface: the centre must be a 3-vector, got {len(centre)} components")
        object.__setattr__(self, "centre", centre)
        if self.kind == "plane":
            if self.radius is not None or self.inside:
                raise InputError("ContactSurface: the plane has no radius and no inside")
            return
        if self.radius is None:
            raise InputError(f"ContactSurface: a {self.kind} needs its radius")
        R = as_expr(self.radius)
        if R.is_positive is False or (R.is_number and not R.is_positive):
            raise InputError(f"ContactSurface: the radius of the {self.kind} must be positive, got {R}")
        object.__setattr__(self, "radius", R)

    @property
    def sign(self) -> int:
        """σ = −1 inside, +1 outside (and for the plane).

        Returns
        -------
        int
        """
        return -1 if self.inside else 1

    def geometry(self, s: Sequence) -> tuple:
        """(P, ν, (E₁, E₂)) at the surface coordinates ``s`` (class docstring; not for the plane).

        Parameters
        ----------
        s : two expressions
            The surface coordinates.

        Returns
        -------
        tuple
            P and ν as 3 × 1 matrices, the two unit tangents.
        """
        if self.kind == "plane":
            raise InputError("ContactSurface.geometry: the plane is stated by the centre's (x, y)")
        s1, s2 = s
        C, R, sg = sp.Matrix(self.centre), self.radius, self.sign
        c1, n1 = sp.cos(s1), sp.sin(s1)
        if self.kind == "sphere":
            c2, n2 = sp.cos(s2), sp.sin(s2)
            nu = sp.Matrix([n1, -c1 * n2, c1 * c2])
            E = (sp.Matrix([c1, n1 * n2, -n1 * c2]), sp.Matrix([0, -c2, -n2]))
            return C + sg * R * nu, nu, E
        if self.axis == "vertical":
            e = sp.Matrix([c1, n1, 0])
            return C + R * e + s2 * sp.Matrix([0, 0, 1]), sg * e, (sp.Matrix([-n1, c1, 0]), sp.Matrix([0, 0, 1]))
        nu = sp.Matrix([0, -n1, c1])
        return C + sg * R * nu + s2 * sp.Matrix([1, 0, 0]), nu, (sp.Matrix([0, -c1, -n1]), sp.Matrix([1, 0, 0]))


PLANE = ContactSurface("plane")


def _support_expression(support, xi: tuple) -> sp.Expr:
    """h(ξ) as an expression in the symbols ξ, checked: of ξ and parameters only, 1-homogeneous."""
    try:
        h = as_expr(support(sp.Matrix(xi)))
    except (TypeError, ValueError, IndexError, sp.SympifyError) as exc:
        raise InputError(f"rolling_contact: the support function failed on a 3-vector: {exc}") from exc
    if not set(xi) & h.free_symbols:
        raise InputError(f"rolling_contact: the support function h(ξ) = {h} does not depend on ξ")
    lam = sp.Symbol("_jg_lambda", positive=True)
    scaled = as_expr(support(sp.Matrix(xi) * lam))
    if not is_zero(scaled - lam * h):
        raise InputError(f"rolling_contact: h(ξ) = {h} is not positively homogeneous of degree 1 "
                         "(h(λξ) = λ h(ξ)): not the support function of a body about a point")
    return h


def _reduced_radicands(e: sp.Expr) -> sp.Expr:
    """``e`` with the base of every square root (and its odd powers) trigonometrically reduced: h(−γ) of
    a ball is ρ √(γ·γ) = ρ once |γ|² = 1 is used, and its derivatives shrink likewise."""
    return e.replace(lambda x: x.is_Pow and x.exp.is_Rational and x.exp.q == 2,
                     lambda x: sp.Pow(trig_reduce_if_small(x.base), x.exp))


def _orientation(Y: FibredManifold, chart: str, names: Sequence, what: str):
    """(frame F, rotation R, Ω as a 3 × 1 matrix, the position quasi-velocities, extra constraints)."""
    quaternion = isinstance(chart, str) and chart.lower() == QUATERNION
    need = 6 if quaternion else 5
    if Y.m != need:
        kind = "four quaternion coordinates" if quaternion else "three angles"
        raise InputError(f"{what}: Y needs {need} coordinates ({kind}, then two of the position), has {Y.m}")
    if len(names) != need:
        raise InputError(f"{what}: need {need} names for the quasi-velocities (Ω₁, Ω₂, Ω₃"
                         f"{', s' if quaternion else ''}, then the two position rates), got {len(names)}")
    if quaternion:
        F = body_angular_velocity_quaternion(Y, names, quaternion=Y.q[:4])
        R = rotation_matrix(Y, QUATERNION, Y.q[:4])
        return F, R, sp.Matrix(F.v[:3]), tuple(F.v[4:]), [F.v[3]]
    angles = tuple(Y.q[:3])
    F = body_angular_velocity(Y, chart, names, angles=angles)
    return F, rotation_matrix(Y, chart, angles), sp.Matrix(F.v[:3]), tuple(F.v[3:]), []


def _body_data(what: str, mass, inertia_matrix, offset, gravity) -> tuple:
    I = sp.Matrix(inertia_matrix).applyfunc(as_expr)
    if I.shape != (3, 3):
        raise InputError(f"{what}: the inertia matrix must be 3 × 3, got {I.shape[0]} × {I.shape[1]}")
    if not all(is_zero(I[i, j] - I[j, i]) for i in range(3) for j in range(i)):
        raise InputError(f"{what}: the inertia matrix must be symmetric, got {I.tolist()}")
    if all(e.is_number for e in I) and not all(det_exact(I[:k, :k]) > 0 for k in (1, 2, 3)):
        raise InputError(f"{what}: the inertia matrix {I.tolist()} is not positive definite")
    m = as_expr(mass)
    if m.is_positive is False or (m.is_number and not m.is_positive):
        raise InputError(f"{what}: the mass must be positive, got {m}")
    a = sp.Matrix([as_expr(c) for c in offset])
    if a.shape != (3, 1):
        raise InputError(f"{what}: the offset of the centre of mass must be a 3-vector, got {len(a)} components")
    return m, I, a, as_expr(gravity)


def _check_fit(support, surface: ContactSurface) -> None:
    """Inside a sphere or cylinder of radius R the body's radii of curvature must stay below R."""
    if not surface.inside or not isinstance(support, SupportFunction) or support.max_curvature_radius is None:
        return
    gap = surface.radius - support.max_curvature_radius
    if gap.is_number and not gap > 0:
        raise InputError(f"rolling_contact: {support.shape} does not fit inside the {surface.kind} of radius "
                         f"{surface.radius}: its largest radius of curvature {support.max_curvature_radius} must be "
                         "smaller (else the contact is not one point in every orientation)")


def _rolling_on_the_plane(Y: FibredManifold, body: tuple, rubber: bool) -> tuple:
    """(ℓ, constraints, dependent, γ) of :func:`rolling_contact` on the plane z = 0: the coordinates are those
    of G, z_G = h(−γ) + ⟨a, γ⟩, and the no-slip constraints the horizontal components of v_G + ω × (r − a)."""
    F, R, W, pos, extra, m, I, a, g, xi, h = body
    kin = F.kinematics()
    gam = R.T * sp.Matrix([0, 0, 1])
    at = dict(zip(xi, -gam))
    r = sp.Matrix([sp.diff(h, s).xreplace(at) for s in xi])  # the contact point from O, in body axes
    zG = h.xreplace(at) + a.dot(gam)
    u, w = pos
    zdot = sp.Add(*[sp.diff(zG, q) * kin[qd] for q, qd in zip(Y.q, Y.qdot)])
    ell = (W.T * I * W)[0] / 2 + m * (u**2 + w**2 + zdot**2) / 2 - m * g * zG
    slip = R * W.cross(r - a)
    constraints = [*extra, u + slip[0], w + slip[1]]
    dependent = None if rubber else (*extra, u, w)
    return ell, constraints, dependent, gam


def _rolling_on_a_surface(Y: FibredManifold, body: tuple, surface: ContactSurface, rubber: bool) -> tuple:
    """(ℓ, constraints, dependent, γ) of :func:`rolling_contact` on a sphere or cylinder: the contact point
    R x* = ∇(h∘Rᵀ)(−ν), its velocity Ṗ − R ẋ* = Ṗ + R∇²h(−γ)Rᵀ(ν × ω + ν̇), and the two tangential no-slip
    constraints ⟨E_i, Ṗ − R ẋ*⟩ = 0."""
    F, R, W, pos, extra, m, I, a, g, xi, h = body
    s = tuple(Y.q[-2:])
    P, nu, E = surface.geometry(s)
    sdot = dict(zip(s, pos))
    Pdot = sum((sp.diff(P, c) * sdot[c] for c in s), sp.zeros(3, 1))
    nudot = sum((sp.diff(nu, c) * sdot[c] for c in s), sp.zeros(3, 1))
    # the support function in space axes, h(Rᵀξ): a ball's is ρ|ξ| once RRᵀ = 1 is used
    hs = _reduced_radicands(h.xreplace(dict(zip(xi, R.T * sp.Matrix(xi)))))
    at = dict(zip(xi, -nu))
    grad = [sp.diff(hs, c) for c in xi]
    X = sp.Matrix([_reduced_radicands(e.xreplace(at)) for e in grad])  # R x*: the contact point from O
    K = sp.Matrix(3, 3, lambda i, j: _reduced_radicands(sp.diff(grad[i], xi[j]).xreplace(at)))
    K = K.applyfunc(trig_reduce_if_small)  # R ∇²h(−γ) Rᵀ
    om = R * W  # ω in space axes
    vc = (Pdot + K * (nu.cross(om) + nudot)).applyfunc(trig_reduce_if_small)  # Ṗ − R ẋ*
    GP = R * a - X  # G − P
    vG = (vc + om.cross(GP)).applyfunc(trig_reduce_if_small)
    zG = trig_reduce_if_small(P[2] + GP[2])
    ell = (W.T * I * W)[0] / 2 + m * vG.dot(vG) / 2 - m * g * zG
    constraints = [*extra, *[trig_reduce_if_small(Ei.dot(vc)) for Ei in E]]
    dependent = None if rubber else (*extra, *pos)
    return ell, constraints, dependent, R.T * nu


def rolling_contact(Y: FibredManifold, chart: str, names: Sequence, support, mass, inertia_matrix,
                    surface: ContactSurface | None = None, offset=(0, 0, 0), gravity=0,
                    rubber: bool = False) -> QuasiVelocitySystem:
    r"""A convex rigid body rolling without slipping on a fixed plane, sphere or cylinder, in quasi-velocities.

    The body is given by its support function h about a body-fixed point O (:class:`SupportFunction`,
    :func:`ellipsoid_support`, :func:`quadric_support`), its orientation by an Euler-angle ``chart``
    (one of :data:`EULER_SEQUENCES`) or by unit quaternions (:data:`QUATERNION`; the unit norm is the
    constraint s = 0 of :func:`body_angular_velocity_quaternion`).  With ν(s) the surface's normal into
    the body (:class:`ContactSurface`) and γ = Rᵀν its body components, the body touches with its point
    x*(γ) = ∇h(−γ), the point farthest along −ν, so that

    .. math:: O = P(s) - R\,x^*,\qquad G = O + R\,a = P + R\rho,\quad \rho = a - x^*,\qquad
              z_G = P_z + \langle R^T e_z, \rho\rangle,

    (``offset`` a = G − O in body axes).  The quasi-velocities are the body-frame Ω and the rates of
    the two surface coordinates; with γ̇ = γ × Ω + Rᵀν̇ and ẋ* = −∇²h(−γ) γ̇, the velocity of G is
    v_G = Ṗ + R(Ω × ρ − ẋ*), the Lagrangian ℓ = ½ Ω·I Ω + ½ m |v_G|² − m g z_G (I about G in body
    axes), and the velocity of the body's material point at the contact, v_G + ω × (P − G), is
    Ṗ − R ẋ*: the contact point moves on the body as it moves on the surface.  Its normal component
    vanishes identically (∇²h(ξ) ξ = 0, h being 1-homogeneous), so rolling without slipping is the two
    tangential constraints ⟨E_i, Ṗ⟩ − ⟨RᵀE_i, ẋ*⟩ = 0, solved for the rates of the surface coordinates;
    ``rubber`` adds no spin about the normal, ⟨Ω, γ⟩ = 0 [Borisov–Mamaev 2008].  On the plane the
    coordinates are those of G (:func:`rolling_on_plane`, the same equations).  Balls on and in
    spheres and cylinders [Routh 1884]; [Borisov–Mamaev–Kilin 2002]; the rattleback [Neimark–Fufaev 1972].

    Parameters
    ----------
    Y : FibredManifold
        Five coordinates — the three angles in the order of ``chart``, then the two surface coordinates
        of ``surface`` — or six with quaternions (q₀, q₁, q₂, q₃ first).
    chart : str
        One of :data:`EULER_SEQUENCES`, or :data:`QUATERNION`.
    names : sequence of str
        The quasi-velocities: Ω₁, Ω₂, Ω₃ (with quaternions then the radial rate s), then the rates of the
        two surface coordinates.
    support : callable
        ξ ↦ h(ξ), the support function about O; a plain callable is checked to be 1-homogeneous.
    mass : expression
    inertia_matrix : 3 × 3 matrix
        The inertia tensor about G in body axes (symmetric; positive definite when numeric).
    surface : ContactSurface, optional
        Default the plane z = 0.
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
    A homogeneous ball of radius ρ inside a vertical cylinder of radius R:

    >>> import sympy as sp
    >>> from jetgeo import FibredManifold
    >>> Y = FibredManifold(["phi", "theta", "psi", "alpha", "z"])
    >>> m, rho, R, g = sp.symbols("m rho R g", positive=True)
    >>> S = rolling_contact(Y, "ZXZ", ["w1", "w2", "w3", "alphadot_", "zdot_"], ellipsoid_support(rho, rho, rho),
    ...                     m, sp.eye(3) * 2 * m * rho**2 / 5, ContactSurface("cylinder", R, inside=True), gravity=g)
    >>> S.dependent
    (alphadot_, zdot_)
    """
    what = "rolling_contact"
    if not isinstance(Y, FibredManifold):
        raise InputError(f"{what} needs a FibredManifold, got {type(Y).__name__}")
    surface = PLANE if surface is None else surface
    if not isinstance(surface, ContactSurface):
        raise InputError(f"{what}: surface must be a ContactSurface, got {type(surface).__name__}")
    if not isinstance(rubber, bool):
        raise InputError(f"{what}: rubber must be True or False, got {rubber!r}")
    F, R, W, pos, extra = _orientation(Y, chart, names, what)
    m, I, a, g = _body_data(what, mass, inertia_matrix, offset, gravity)
    _check_fit(support, surface)
    xi = sp.symbols("_jg_xi1:4")
    h = _support_expression(support, xi)
    body = (F, R, W, pos, extra, m, I, a, g, xi, h)
    if surface.kind == "plane":
        ell, constraints, dependent, gam = _rolling_on_the_plane(Y, body, rubber)
    else:
        ell, constraints, dependent, gam = _rolling_on_a_surface(Y, body, surface, rubber)
    if rubber:
        constraints.append(W.dot(gam))
    return QuasiVelocitySystem(F, ell, constraints=constraints, dependent=dependent)


def rolling_on_plane(Y: FibredManifold, sequence: str, names: Sequence, support, mass, inertia_matrix,
                     offset=(0, 0, 0), gravity=0, rubber: bool = False) -> QuasiVelocitySystem:
    r"""A convex rigid body rolling without slipping on the horizontal plane z = 0, in quasi-velocities.

    The body is given by its support function h(ξ) = max_{x ∈ body} ⟨x, ξ⟩ about a body-fixed
    reference point O (the geometric centre).  With γ = Rᵀ e_z the vertical in the body's axes, the
    contact point is r(γ) = ∇h(−γ) (the point of the body farthest along −γ) and O is h(−γ) above the
    plane.  The centre of mass G = O + a (``offset`` a in body axes) is at height
    z_G = h(−γ) + ⟨a, γ⟩; the coordinates are the three angles of ``sequence`` (or the quaternion) and
    the horizontal position (x, y) of G (the last two coordinates of Y).  The quasi-velocities are the
    body-frame angular velocity Ω and (ẋ, ẏ); the Lagrangian is
    ℓ = ½ Ω·I Ω + ½ m (ẋ² + ẏ² + ż_G²) − m g z_G with ż_G = X(z_G) along q̇ = Ψ v, and the no-slip
    constraints are the horizontal components of v_G + ω × ρ = 0, ρ = R(r − a) the contact point seen
    from G ("rubber": also ⟨Ω, γ⟩ = 0, no spin about the normal).  The rolling disc, ball and the
    rattleback are special cases [Neimark–Fufaev 1972]; :func:`rolling_contact` with the plane.

    Parameters
    ----------
    Y : FibredManifold
        Five coordinates: the three angles (in the order of ``sequence``), then x, y of G.
    sequence : str
        The Euler-angle chart, one of :data:`EULER_SEQUENCES` (or :data:`QUATERNION`, Y then has six).
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
    return rolling_contact(Y, sequence, names, support, mass, inertia_matrix, PLANE, offset=offset,
                           gravity=gravity, rubber=rubber)
