r"""Four rigid bodies of the catalogue, stated in quasi-velocities with the rigid-body helpers.

Each body is built once, as a :class:`~jetgeo.mechanics.quasi.QuasiVelocitySystem` in its
body-frame angular velocity Ω (:func:`~jetgeo.mechanics.rigid.body_angular_velocity`, the
orientation in the Euler-angle chart ZXZ: precession φ, nutation θ, spin ψ, computed by
``sympy.physics.mechanics``; :func:`~jetgeo.mechanics.rigid.rotation_matrix` for R, x_space = R x_body).
Its catalogue entry carries **both forms**: ``entry.quasi`` (Hamel's equations in Ω:
``accelerations()``, ``multipliers()``, ``motion()``) and the coordinate form on J¹Y that every other
route of jetgeo takes, ``entry.system`` = ``quasi.lagrangian_system()`` (L = ℓ(t, q, Φ q̇)) and
``entry.Q`` = ``quasi.constraint_submanifold()`` (f = φ(t, q, Φ q̇)), both trigonometrically reduced.
γ = Rᵀ e_z is the vertical in the body's axes.

========================  =====================================================================
``suslov``                a body about a fixed point, ⟨Ω, e₃⟩ = 0 (a body-fixed axis) [Bloch 2003];
                          I₁₂ = 0 (the axes e₁, e₂ turned about e₃).  With ⟨Ω, e₃⟩ = 0 the energy
                          E = ½(I₁Ω₁² + I₂Ω₂²) is kept and, with Ω₁ = √(2E/I₁) cos u,
                          Ω₂ = √(2E/I₂) sin u, u̇ = (I₁₃Ω₁ + I₂₃Ω₂)/√(I₁I₂) = K cos(u − u₀): the
                          closed form sin(u − u₀) = tanh(K t + s₀), every motion going from one
                          permanent rotation I₁₃Ω₁ + I₂₃Ω₂ = 0 to the opposite one
``veselova``              a body about a fixed point, ⟨Ω, γ⟩ = 0 (a space-fixed axis)
                          [Veselov–Veselova 1988]: besides the energy, the integral
                          F = |IΩ|² − ⟨IΩ, γ⟩²
``routh_sphere``          a heavy ball of radius r, centre of mass a below its centre on the
                          symmetry axis e₃, inertia (A, A, C), rolling without slipping on the
                          plane [Borisov–Mamaev 2002]: energy, Jellett's integral ⟨K, ρ⟩ and Routh's
                          Ω₃ √(A C + m A ⟨ρ, ρ⟩ + m (C − A) ρ₃²) (ρ = −r γ + a e₃ the contact from G,
                          K = IΩ + m ρ × (Ω × ρ) the angular momentum about the contact)
``ball_on_turntable``     a homogeneous ball rolling on a table turning at the constant rate Ω₀
                          [Weltner 1979]: v̇_G = (2/7) Ω₀ e_z × v_G — the centre circles at (2/7)Ω₀
========================  =====================================================================

The tests (tests/systems/test_rigid_bodies.py) check each published result against the derived
equations, and each body's quasi route against its coordinate route with
:func:`~jetgeo.recipes.equivalent`.  Chaplygin's dynamically asymmetric ball is not an entry: its
coordinate route in Euler-angle rates takes more than 300 s (benchmarks/results/rigid_bodies.txt), so
it could not pass through every route of the route table; its quasi route is on the theory page.

>>> from jetgeo import systems
>>> e = systems.load("suslov")
>>> e.quasi.accelerations()[e.quasi.frame.vdot[2]]
0
"""

from __future__ import annotations

import sympy as sp

from ..geometry.exact import trig_reduce_if_small, xreplace_dag
from ..jets import FibredManifold
from ..mechanics import ConstraintSubmanifold
from ..mechanics.quasi import QuasiVelocitySystem
from ..mechanics.rigid import body_angular_velocity, ellipsoid_support, rolling_on_plane, rotation_matrix
from .registry import SystemSpec, register

__all__ = ["ball_on_turntable", "routh_sphere", "suslov_body", "veselova_body"]

Rat = sp.Rational
_ANGLES = ["phi", "theta", "psi"]


def _pos(names: str) -> tuple:
    return sp.symbols(names, positive=True, seq=True)


def _body(extra: tuple = ()) -> tuple:
    """(Y, F, R, Ω, γ): the ZXZ chart, the body frame, R, Ω as a column, the vertical in body axes."""
    Y = FibredManifold([*_ANGLES, *extra])
    F = body_angular_velocity(Y, "ZXZ", ["w1", "w2", "w3", *[f"v{c}" for c in extra]])
    R = rotation_matrix(Y, "ZXZ")
    return Y, F, R, sp.Matrix(F.v[:3]), R.T * sp.Matrix([0, 0, 1])


def suslov_body() -> QuasiVelocitySystem:
    r"""Suslov's problem: a rigid body about a fixed point with ⟨Ω, e₃⟩ = 0 [Bloch 2003].

    ℓ = ½ Ωᵀ I Ω with I = [[I₁, 0, I₁₃], [0, I₂, I₂₃], [I₁₃, I₂₃, I₃]] (I₁₂ = 0: e₁, e₂ turned
    about e₃), the constraint Ω₃ = 0; the Euler–Suslov equations
    I₁ Ω̇₁ = −Ω₂ (I₁₃Ω₁ + I₂₃Ω₂), I₂ Ω̇₂ = Ω₁ (I₁₃Ω₁ + I₂₃Ω₂).

    Returns
    -------
    QuasiVelocitySystem
        On Y = (φ, θ, ψ), quasi-velocities (w1, w2, w3) = Ω.

    Examples
    --------
    >>> S = suslov_body()
    >>> S.dependent
    (w3,)
    """
    _, F, _, W, _ = _body()
    I1, I2, I3, I13, I23 = _pos("I1 I2 I3 I13 I23")
    inertia = sp.Matrix([[I1, 0, I13], [0, I2, I23], [I13, I23, I3]])
    return QuasiVelocitySystem(F, (W.T * inertia * W)[0] / 2, constraints=[W[2]])


def veselova_body() -> QuasiVelocitySystem:
    r"""Veselova's problem: a rigid body about a fixed point with ⟨Ω, γ⟩ = 0 [Veselov–Veselova 1988].

    ℓ = ½ (A₁Ω₁² + A₂Ω₂² + A₃Ω₃²), γ = Rᵀ e_z; the constraint (the angular velocity orthogonal to a
    space-fixed axis) has the reaction torque λ γ.

    Returns
    -------
    QuasiVelocitySystem
        On Y = (φ, θ, ψ), quasi-velocities (w1, w2, w3) = Ω.

    Examples
    --------
    >>> veselova_body().k
    1
    """
    _, F, _, W, gam = _body()
    A1, A2, A3 = _pos("A1 A2 A3")
    return QuasiVelocitySystem(F, (A1 * W[0] ** 2 + A2 * W[1] ** 2 + A3 * W[2] ** 2) / 2, constraints=[W.dot(gam)])


def routh_sphere() -> QuasiVelocitySystem:
    r"""Routh's sphere: a heavy ball, centre of mass off its centre on its symmetry axis, rolling on a plane.

    Radius r, mass m, the centre of mass G a below the geometric centre O along the body axis e₃,
    inertia diag(A, A, C) about G, built by the contact helper
    :func:`~jetgeo.mechanics.rigid.rolling_on_plane` from the support function of the sphere
    (:func:`~jetgeo.mechanics.rigid.ellipsoid_support` with three equal semi-axes): the contact point
    seen from G is ρ = −r γ + a e₃ (body axes), G is z_G = r − a γ₃ above the plane, the
    quasi-velocities are Ω and the horizontal velocity (vx, vy) of G, and no slip is
    v_G + R(Ω × ρ) = 0 horizontally [Borisov–Mamaev 2002].

    Returns
    -------
    QuasiVelocitySystem
        On Y = (φ, θ, ψ, x, y) ((x, y) the position of G), dependent (vx, vy).

    Examples
    --------
    >>> routh_sphere().dependent
    (vx, vy)
    """
    Y = FibredManifold([*_ANGLES, "x", "y"])
    m, r, a, A, C, g = _pos("m r a A C g")
    return rolling_on_plane(Y, "ZXZ", ["w1", "w2", "w3", "vx", "vy"], ellipsoid_support(r, r, r), m,
                            sp.diag(A, A, C), offset=(0, 0, -a), gravity=g)


def ball_on_turntable() -> QuasiVelocitySystem:
    r"""A homogeneous ball rolling without slipping on a table turning at the constant rate Ω₀ [Weltner 1979].

    Radius r, mass m, inertia (2/5) m r² about its centre; (x, y) the centre, the table turning about
    the vertical through the origin.  The material point of the ball at the contact moves with the
    table: v_G + ω × (−r e_z) = Ω₀ e_z × (x, y, 0), ω = R Ω, i.e. vx − r ω_y + Ω₀ y = 0,
    vy + r ω_x − Ω₀ x = 0 (affine, not homogeneous, in the velocities).

    Returns
    -------
    QuasiVelocitySystem
        On Y = (φ, θ, ψ, x, y), dependent (vx, vy).

    Examples
    --------
    >>> ball_on_turntable().dependent
    (vx, vy)
    """
    Y, F, R, W, _ = _body(("x", "y"))
    m, r, Om = _pos("m r Omega")
    vx, vy = F.v[3:]
    x, y = Y.q[3:]
    om = R * W
    ell = m * (vx**2 + vy**2) / 2 + Rat(2, 5) * m * r**2 * W.dot(W) / 2
    return QuasiVelocitySystem(F, ell, constraints=[vx - r * om[1] + Om * y, vy + r * om[0] - Om * x],
                               dependent=(vx, vy))


def _spec(S: QuasiVelocitySystem, params: dict, guess: tuple, reference: str, description: str, dependent,
          notes=(), rates: bool = False):
    """``guess`` gives q and the independent quasi-velocities v^I of the sample state.

    The catalogue's raw data of ``S``: its coordinate form L = ℓ(Φ q̇), f = φ(Φ q̇) trigonometrically
    reduced (exactly: :func:`~jetgeo.geometry.exact.trig_reduce_if_small`), the parametrisation
    q̇ = Ψ v with v^D = g(v^I) and z = v^I (the independent quasi-velocities), and ``S`` itself.  With
    ``rates`` the parametrisation is instead the coordinate one, z the independent velocities q̇^I and
    q̇^D from f = 0 (smaller where the constraints are not homogeneous: Benenti's first kind on the
    turntable takes 5 s so, more than 20 s in Ψ v)."""

    kin, nf = S.frame.kinematics(), S.normal_form
    psi = [trig_reduce_if_small(xreplace_dag(kin[qd], nf)) for qd in S.frame.Y.qdot]
    Y = S.frame.Y
    point = dict(zip((*Y.q, *S.independent), guess))  # a sample state (q, v^I): q̇ = ψ there lies on Q
    L = S.lagrangian_system()
    parameters = tuple(sorted(S.ell.free_symbols.union(*(p.free_symbols for p in S.phi)) - {Y.t, *Y.q, *S.frame.v},
                              key=lambda s: [str(p) for p in params].index(str(s))))
    f = [trig_reduce_if_small(c) for c in S.constraint_submanifold().f]
    values = {p: params[str(p)] for p in parameters}
    guess = {Y.t: 0, **{q: point[q] for q in Y.q},
             **{qd: xreplace_dag(e, {**values, **point}) for qd, e in zip(Y.qdot, psi)}}
    z = tuple(S.independent)
    if rates:
        dep = [Y.qdot[i] for i in dependent]
        z = sp.symbols(f"z1:{Y.m - len(dep) + 1}")
        rule = dict(zip([v for v in Y.qdot if v not in dep], z))
        g = ConstraintSubmanifold(Y, f, dependent=dep).normal_form().g
        psi = [rule[v] if v in rule else g[v].xreplace(rule) for v in Y.qdot]
    return SystemSpec(Y=Y, f=f, L=trig_reduce_if_small(L.L), reference=reference, description=description,
                      parameters=parameters, params=values,
                      guess=guess,
                      dependent=[Y.qdot[i] for i in dependent], notes=list(notes), quasi=S, psi=psi,
                      z=z)


def _register() -> None:
    @register("suslov", "Suslov's problem: a body about a fixed point, ⟨Ω, e₃⟩ = 0, in body-frame Ω [Bloch 2003]")
    def _suslov():
        return _spec(suslov_body(), {"I1": 2, "I2": 3, "I3": 4, "I13": Rat(3, 10), "I23": Rat(1, 2)},
                     (Rat(1, 10), Rat(6, 5), Rat(3, 10), 1, Rat(1, 2)), "[Bloch 2003]",
                     "A rigid body turning about a fixed point whose angular velocity is orthogonal to the body axis "
                     "e3 (Euler-angle chart ZXZ; inertia with I12 = 0). Hamel's equations in Omega are the "
                     "Euler-Suslov equations; entry.quasi is the body-frame form.", dependent=(2,))

    @register("veselova", "Veselova's problem: a body about a fixed point, ⟨Ω, γ⟩ = 0 [Veselov–Veselova 1988]")
    def _veselova():
        return _spec(veselova_body(), {"A1": 1, "A2": 2, "A3": 3},
                     (Rat(1, 10), Rat(6, 5), Rat(3, 10), 1, Rat(1, 2)), "[Veselov–Veselova 1988]",
                     "A rigid body turning about a fixed point whose angular velocity is orthogonal to the vertical "
                     "(a space-fixed axis; Euler-angle chart ZXZ, principal moments A1, A2, A3); entry.quasi is "
                     "the body-frame form.", dependent=(0,))

    @register("routh_sphere", "Routh's sphere: eccentric axisymmetric heavy ball rolling on a plane "
                              "[Borisov–Mamaev 2002]", heavy=True)
    def _routh():
        return _spec(routh_sphere(), {"m": 1, "r": 1, "a": Rat(3, 10), "A": Rat(2, 5), "C": Rat(1, 2),
                                      "g": Rat(981, 100)},
                     (Rat(1, 10), Rat(6, 5), Rat(3, 10), 0, 0, Rat(1, 2), Rat(1, 3), 2), "[Borisov–Mamaev 2002]",
                     "A ball of radius r and mass m whose centre of mass lies a below its centre on its symmetry "
                     "axis (moments A, A, C), rolling without slipping on a horizontal plane under gravity g; "
                     "(x, y) the centre of mass, Euler angles ZXZ; entry.quasi is the body-frame form "
                     "(Omega and the velocity of G).", dependent=(3, 4),
                     notes=["heavy: its accelerations in Euler-angle rates are a graph of about 7e5 tree nodes "
                            "(readable() cannot take them); entry.quasi gives them in Omega"])

    @register("ball_on_turntable", "homogeneous ball rolling on a turntable at constant rate Ω₀: the centre "
                                   "circles at (2/7)Ω₀ [Weltner 1979]")
    def _turntable():
        return _spec(ball_on_turntable(), {"m": 1, "r": 1, "Omega": Rat(1, 5)},
                     (Rat(1, 10), Rat(6, 5), Rat(3, 10), 1, 0, Rat(1, 2), Rat(1, 3), 2), "[Weltner 1979]",
                     "A homogeneous ball (radius r, mass m) rolling without slipping on a horizontal table turning "
                     "at the constant rate Omega about the vertical through the origin; (x, y) its centre, "
                     "Euler angles ZXZ; entry.quasi is the body-frame form.", dependent=(3, 4), rates=True)


_register()
