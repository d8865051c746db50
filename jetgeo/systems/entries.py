r"""The systems of the catalogue, each derived from the physics and checked against its paper.

Conventions: kinetic energies by König's theorem (translation of the centre of mass
plus rotation about it); rolling without slipping is v_contact = v_G + ω × GI = 0;
generalised forces enter with Newton's sign, d/dt ∂L/∂q̇ − ∂L/∂q = A [Benenti 2007, eq. (3.14)].
Every entry gives the implicit constraints f^i(t, q, q̇) = 0 and, where it is natural,
a parametrisation q̇ = ψ(t, q, z) of the same submanifold [Benenti 2007, eq. (2.1)], which
Benenti's recipe of the first kind needs.
"""

from __future__ import annotations

import sympy as sp

from ..errors import InputError
from ..jets import FibredManifold
from .registry import SystemSpec, register

cos, sin = sp.cos, sp.sin
Rat = sp.Rational


def _pos(names: str):
    return sp.symbols(names, positive=True, seq=True)


# --- [Benenti 2007, §9] ------------------------------------------------------------------------------


@register("skate", "skate / Chaplygin sleigh: ẋ sin θ − ẏ cos θ = 0 [Benenti 2007, §9.1, eq. (9.1)]")
def _skate() -> SystemSpec:
    Y = FibredManifold(["x", "y", "theta"])
    x, y, th = Y.q
    xd, yd, thd = Y.qdot
    m, I = _pos("m I")
    z1, z2 = sp.symbols("z1 z2")
    return SystemSpec(
        Y=Y,
        T=m / 2 * (xd**2 + yd**2) + I / 2 * thd**2,
        f=[xd * sin(th) - yd * cos(th)],
        psi=[z1 * cos(th), z1 * sin(th), z2], z=(z1, z2),
        parameters=(m, I), params={m: Rat(2), I: Rat(1, 3)},
        guess={x: 1, y: -1, th: Rat(1, 3), xd: Rat(3, 2), yd: 0, thd: Rat(1, 2)},
        reference="[Benenti 2007, §9.1, eq. (9.1)]",
        description=(
            "A homogeneous rod (mass m, moment of inertia I about its centre G) sliding on a plane; "
            "coordinates (x, y) of G and the angle θ of the rod; the velocity of G is parallel to the rod."
        ),
        notes=["[Benenti 2007, §9.1] prints the kinetic energy as ½m(ẋ² + ẏ²) + ½Iθ̇: the square on θ̇ is missing."],
    )


@register("vertical_disc", "vertical rolling disc: ẋ = R cos ψ θ̇, ẏ = R sin ψ θ̇ [Benenti 2007, §9.2, eqs. (9.2)–(9.4)]")
def _vertical_disc() -> SystemSpec:
    Y = FibredManifold(["x", "y", "theta", "psi"])
    x, y, th, ps = Y.q
    xd, yd, thd, psd = Y.qdot
    m, A, B, R = _pos("m A B R")
    z1, z2 = sp.symbols("z1 z2")
    return SystemSpec(
        Y=Y,
        T=m / 2 * (xd**2 + yd**2) + (A * thd**2 + B * psd**2) / 2,
        f=[xd - R * cos(ps) * thd, yd - R * sin(ps) * thd],
        dependent=[xd, yd],
        psi=[R * cos(ps) * z1, R * sin(ps) * z1, z1, z2], z=(z1, z2),
        parameters=(m, A, B, R), params={m: Rat(1), A: Rat(1, 2), B: Rat(1, 4), R: Rat(1)},
        guess={x: 0, y: 0, th: 0, ps: Rat(1, 4), xd: 0, yd: 0, thd: 2, psd: Rat(1, 3)},
        reference="[Benenti 2007, §9.2, eqs. (9.2)–(9.4)]",
        description=(
            "A disc of radius R kept vertical, rolling without slipping on a plane: (x, y) its centre, θ the "
            "rotation about its axis (moment A), ψ the orientation of the axis (moment B about a diameter)."
        ),
    )


def _coaxial_T(m, A, B, xd, yd, thd1, thd2, psd, ad, ps, a):
    """Kinetic energy of the two discs; P₂ = P₁ + a(sin ψ, −cos ψ) ([Benenti 2007, §9.3], before (9.10))."""
    x2d = xd + a * cos(ps) * psd + sin(ps) * ad
    y2d = yd + a * sin(ps) * psd - cos(ps) * ad
    return (m / 2 * (xd**2 + yd**2 + x2d**2 + y2d**2) + A / 2 * (thd1**2 + thd2**2) + B * psd**2)


@register("coaxial_discs", "two co-axial rolling discs, axle length a a coordinate [Benenti 2007, §9.3, eqs. "
                           "(9.9)–(9.11)]")
def _coaxial_discs() -> SystemSpec:
    Y = FibredManifold(["x", "y", "theta1", "theta2", "psi", "a"])
    x, y, th1, th2, ps, a = Y.q
    xd, yd, thd1, thd2, psd, ad = Y.qdot
    m, A, B, R = _pos("m A B R")
    z1, z2 = sp.symbols("z1 z2")
    return SystemSpec(
        Y=Y,
        T=_coaxial_T(m, A, B, xd, yd, thd1, thd2, psd, ad, ps, a),
        f=[
            xd - R * cos(ps) * thd1,
            yd - R * sin(ps) * thd1,
            xd + a * cos(ps) * psd + sin(ps) * ad - R * cos(ps) * thd2,
            yd + a * sin(ps) * psd - cos(ps) * ad - R * sin(ps) * thd2,
        ],
        dependent=[xd, yd, psd, ad],
        psi=[R * cos(ps) * z1, R * sin(ps) * z1, z1, z2, R / a * (z2 - z1), 0], z=(z1, z2),
        parameters=(m, A, B, R), params={m: Rat(1), A: Rat(1, 2), B: Rat(1, 4), R: Rat(1, 2)},
        guess={x: 0, y: 0, th1: 0, th2: 0, ps: Rat(1, 5), a: Rat(3, 2),
               xd: 0, yd: 0, thd1: 1, thd2: 2, psd: 0, ad: 0},
        reference="[Benenti 2007, §9.3, eqs. (9.9)–(9.11), (9.12)–(9.13)]",
        description=(
            "Two identical discs (mass m, radius R, moments A, B) rolling vertically on a plane, joined by a "
            "massless common axis along which they slide freely; coordinates (x, y) of the first centre, the "
            "rotation angles θ₁, θ₂, the axis orientation ψ and the distance a of the centres (ȧ = 0 follows)."
        ),
        notes=[
            "[Benenti 2007, §9.3] prints the metric entry g₁₅ = g₅₁ as (ma/2) cos ψ (and g₂₅ as (ma/2) sin ψ); the "
            "kinetic "
            "energy printed just above it, … + ma ψ̇ (ẋ cos ψ + ẏ sin ψ), gives g₁₅ = ma cos ψ, g₂₅ = ma sin ψ.",
        ],
    )


@register("coaxial_discs_reduced",
          "two co-axial rolling discs on Q₅, a = const ([Benenti 2007, §9.3, eqs. (9.12)–(9.13)] and the metric "
          "after them)")
def _coaxial_discs_reduced() -> SystemSpec:
    Y = FibredManifold(["x", "y", "theta1", "theta2", "psi"])
    x, y, th1, th2, ps = Y.q
    xd, yd, thd1, thd2, psd = Y.qdot
    m, A, B, R, a = _pos("m A B R a")
    z1, z2 = sp.symbols("z1 z2")
    return SystemSpec(
        Y=Y,
        T=m * (xd**2 + yd**2) + A / 2 * (thd1**2 + thd2**2) + (m * a**2 / 2 + B) * psd**2
        + m * a * psd * (xd * cos(ps) + yd * sin(ps)),
        f=[xd - R * cos(ps) * thd1, yd - R * sin(ps) * thd1, a * psd - R * (thd2 - thd1)],
        dependent=[xd, yd, psd],
        psi=[R * cos(ps) * z1, R * sin(ps) * z1, z1, z2, R / a * (z2 - z1)], z=(z1, z2),
        parameters=(m, A, B, R, a),
        params={m: Rat(1), A: Rat(1, 2), B: Rat(1, 4), R: Rat(1, 2), a: Rat(3, 2)},
        guess={x: 0, y: 0, th1: 0, th2: 0, ps: Rat(1, 5), xd: 0, yd: 0, thd1: 1, thd2: 2, psd: 0},
        reference="[Benenti 2007, §9.3, eqs. (9.12)–(9.13)]",
        description=(
            "The co-axial discs with the constant distance a eliminated (configuration space Q₅): "
            "K = m(ẋ² + ẏ²) + A/2 (θ̇₁² + θ̇₂²) + (ma²/2 + B) ψ̇² + ma ψ̇ (ẋ cos ψ + ẏ sin ψ)."
        ),
        notes=["See coaxial_discs: the printed g₁₅, g₂₅ of [Benenti 2007, §9.3] lack a factor 2."],
    )


def _parallel(forces_generic: bool, inclined: bool, equal: bool) -> SystemSpec:
    Y = FibredManifold(["x1", "y1", "x2", "y2"])
    x1, y1, x2, y2 = Y.q
    x1d, y1d, x2d, y2d = Y.qdot
    if equal:
        (m,) = _pos("m")
        m1 = m2 = m
        masses = (m,)
        mvals = {m: Rat(1)}
    else:
        m1, m2 = _pos("m1 m2")
        masses = (m1, m2)
        mvals = {m1: Rat(1), m2: Rat(3)}
    rho, sig, th = sp.symbols("rho sigma theta")
    params = dict(mvals)
    parameters = masses
    V = sp.Integer(0)
    forces = None
    if inclined:
        (g,) = _pos("g")
        V = -g * (m1 * x1 + m2 * x2)  # A₁ = m₁g, A₃ = m₂g ([Benenti 2007], before eq. (9.18))
        parameters += (g,)
        params[g] = Rat(10)
    if forces_generic:
        forces = list(sp.symbols("A1:5"))
        parameters += tuple(forces)
        params.update({A: Rat(k + 1, 3) for k, A in enumerate(forces)})
    return SystemSpec(
        Y=Y,
        T=m1 / 2 * (x1d**2 + y1d**2) + m2 / 2 * (x2d**2 + y2d**2),
        V=V, forces=forces,
        f=[x1d * y2d - x2d * y1d],
        psi=[rho * cos(th), rho * sin(th), sig * cos(th), sig * sin(th)], z=(rho, sig, th),
        parameters=parameters, params=params,
        guess={x1: 0, y1: 0, x2: 1, y2: 2, x1d: 1, y1d: 2, x2d: 3, y2d: 6},
        reference="",
        description="",
    )


@register("parallel_velocities",
          "two points with parallel velocities, generic constant forces A₁..A₄ [Benenti 2007, §9.4, eqs. "
          "(9.14)–(9.17)]")
def _parallel_velocities() -> SystemSpec:
    s = _parallel(True, False, False)
    s.reference = "[Benenti 2007, §9.4, eqs. (9.14)–(9.17)]"
    s.description = (
        "Two material points (masses m₁, m₂) in the plane whose velocities stay parallel, "
        "ẋ₁ẏ₂ − ẋ₂ẏ₁ = 0 — a genuinely nonlinear constraint, singular on the zero section; generic "
        "constant generalised forces A₁..A₄ [Benenti 2007, eqs. (9.16)–(9.17)]."
    )
    return s


@register("parallel_velocities_inclined",
          "two points with parallel velocities on an inclined plane, masses m₁ ≠ m₂ [Benenti 2007, §9.4, eq. (9.18)]")
def _parallel_inclined() -> SystemSpec:
    s = _parallel(False, True, False)
    s.reference = "[Benenti 2007, §9.4, eq. (9.18)]"
    s.description = (
        "The points of parallel_velocities on an inclined plane: A₁ = m₁g, A₃ = m₂g, A₂ = A₄ = 0, i.e. the "
        "potential V = −g(m₁x₁ + m₂x₂) (g the component of gravity along the plane's slope)."
    )
    return s


@register("parallel_velocities_inclined_equal",
          "two points with parallel velocities on an inclined plane, equal masses [Benenti 2007, §9.4, eq. (9.19)]")
def _parallel_inclined_equal() -> SystemSpec:
    s = _parallel(False, True, True)
    s.reference = "[Benenti 2007, §9.4, eq. (9.19)]"
    s.description = "parallel_velocities_inclined with m₁ = m₂ = m."
    return s


# --- [Ibort et al. 1996, §6] ------------------------------------------


@register("appell_machine",
          "Appell's machine: rolling wheel, rope and hanging mass on a frame of length ρ [Ibort et al. 1996, §6.2]")
def _appell_machine() -> SystemSpec:
    Y = FibredManifold(["x", "y", "z", "theta", "phi"])
    x, y, z, th, ph = Y.q
    xd, yd, zd, thd, phd = Y.qdot
    M, m, R, r, I1, I2, g, rho = _pos("M m R r I1 I2 g rho")
    u1, u2 = sp.symbols("u1 u2")
    xDd = xd + rho * sin(th) * thd  # x_D = x − ρ cos θ: the contact point of the wheel
    yDd = yd - rho * cos(th) * thd
    return SystemSpec(
        Y=Y,
        T=M / 2 * (xDd**2 + yDd**2) + m / 2 * (xd**2 + yd**2 + zd**2) + I1 / 2 * phd**2 + I2 / 2 * thd**2,
        V=m * g * z,
        f=[xDd - R * cos(th) * phd, yDd - R * sin(th) * phd, r * phd - zd],
        dependent=[xd, yd, zd],
        psi=[R * cos(th) * u2 - rho * sin(th) * u1, R * sin(th) * u2 + rho * cos(th) * u1, r * u2, u1, u2],
        z=(u1, u2),
        parameters=(M, m, R, r, I1, I2, g, rho),
        params={M: Rat(2), m: Rat(1), R: Rat(1), r: Rat(1, 4), I1: Rat(1), I2: Rat(1, 2), g: Rat(10),
                rho: Rat(1, 2)},
        guess={x: 0, y: 0, z: 0, th: Rat(1, 6), ph: 0, xd: 0, yd: 0, zd: 0, thd: Rat(1, 2), phd: 1},
        reference="[Ibort et al. 1996, §6.2, eqs. (6.27)–(6.30)]",
        description=(
            "A wheel (mass M, radius R, moments I₁ about its axle, I₂ about the vertical) rolls on the floor; "
            "a rope wound on a coaxial drum of radius r carries a mass m at (x, y, z) hanging from a massless "
            "frame of length ρ, so that x − x_D = ρ cos θ, y − y_D = ρ sin θ; ż = r φ̇. load(..., rho=0) gives "
            "the machine of Fig. 3."
        ),
        notes=[
            "[Ibort et al. 1996, §6.2] (ρ = 0) prints L with +mgz while (6.27) has ṗ_z = λ₃ − mg: the potential is "
            "+mgz, L = T − mgz.",
            "[Ibort et al. 1996, eqs. (6.29)–(6.30)] print (I₂ + (M+m)ρ²)θ̈ + ρRm θ̇φ̇ = 0 and (I₁ + (m+M)R² + "
            "mr²)φ̈ − MRρθ̇² = −mrg; "
            "deriving from the Lagrangian the paper states (the wheel's centre of mass on the contact "
            "vertical, the mass m at distance ρ) gives (I₂ + mρ²)θ̈ + mρR θ̇φ̇ = 0 and "
            "(I₁ + (M+m)R² + mr²)φ̈ − mRρθ̇² = −mrg: only the mass m sits on the frame, so M must not "
            "appear with ρ (the intermediate equations printed before (6.29) also carry M where m is meant).",
        ],
    )


@register("benenti_problem",
          "Benenti's problem: two free points with parallel velocities, no forces [Ibort et al. 1996, §6.3, eq. "
          "(6.31)]")
def _benenti_problem() -> SystemSpec:
    s = _parallel(False, False, False)
    s.reference = "[Ibort et al. 1996, §6.3, eq. (6.31)]"
    s.description = (
        "Two free point masses in the plane with parallel velocities, Ψ = ẋ₁ẏ₂ − ẋ₂ẏ₁ = 0, no forces: with "
        "Chetaev's forces the multiplier vanishes and the motion is free motion with parallel initial velocities."
    )
    return s


# --- [Ghori 1960], chapter 3 --------------------------------------------------------------------------


def _form(form: str, name: str) -> str:
    if form not in ("linear", "nonlinear"):
        raise InputError(f"{name}: form must be 'linear' or 'nonlinear', got {form!r}")
    return form


@register("two_wheels_axle",
          "two wheels and their axle, one wheel rolling, one sliding [Ghori 1960, §3.2, eqs. (3.2.1)–(3.2.4)]",
          form="linear")
def _two_wheels(form: str = "linear") -> SystemSpec:
    _form(form, "two_wheels_axle")
    Y = FibredManifold(["x", "y", "psi", "phi", "chi"])
    x, y, ps, ph, ch = Y.q
    xd, yd, psd, phd, chd = Y.qdot
    m1, m, a = _pos("m1 m a")
    z1, z2, z3 = sp.symbols("z1 z2 z3")
    s = psd + phd
    if form == "linear":
        f = [xd - a * s * sin(ps), yd + a * s * cos(ps)]
        dependent, branch = [xd, yd], None
    else:
        # Ghori's artificially nonlinear form (3.2.2): |v_G|² = a²(ψ̇ + φ̇)², v_G ⊥ the rod.
        f = [xd**2 + yd**2 - a**2 * s**2, xd * cos(ps) + yd * sin(ps)]
        dependent, branch = [yd, phd], 0  # branch 0: φ̇ = −ψ̇ + ẋ/(a sin ψ), the rolling wheel
    return SystemSpec(
        Y=Y,
        T=(m1 + 2 * m) / 2 * (xd**2 + yd**2) + (m1 / 3 + 5 * m / 2) * a**2 / 2 * psd**2
        + m * a**2 / 4 * (phd**2 + chd**2),
        f=f, dependent=dependent, branch=branch,
        psi=[a * (z1 + z2) * sin(ps), -a * (z1 + z2) * cos(ps), z1, z2, z3], z=(z1, z2, z3),
        parameters=(m1, m, a), params={m1: Rat(1), m: Rat(2), a: Rat(1, 2)},
        guess={x: 0, y: 0, ps: Rat(1, 3), ph: 0, ch: 0, xd: Rat(1, 5), yd: 0, psd: Rat(1, 2), phd: 1, chd: 2},
        reference="[Ghori 1960, §3.2, eqs. (3.2.1)–(3.2.4)]",
        description=(
            "An axle (homogeneous rod, mass m₁, length 2a) with two homogeneous discs (mass m, radius a) at its "
            "ends, free to turn about it; the wheel at O = G + a·u rolls without slipping, the other slides "
            "without friction. Coordinates: centre G = (x, y), rod angle ψ, wheel angles φ (rolling wheel) and "
            "χ. Rolling: v_G + a(ψ̇ + φ̇) v = 0, v = (−sin ψ, cos ψ). "
            "form='nonlinear' gives Ghori's artificially nonlinear equations (3.2.2)."
        ),
        notes=[
            "Kinetic energy (König): T = ½(m₁ + 2m)(ẋ² + ẏ²) + ½(m₁/3 + 5m/2)a²ψ̇² + ¼ma²(φ̇² + χ̇²); "
            "the equations of motion are ψ̈ = φ̈ = χ̈ = 0 (3.2.4), so G moves uniformly on a circle of radius "
            "a(ψ̇ + φ̇)/ψ̇ (Ghori's text says radius a, which holds only for φ̇ = 0; the OCR is unreadable there).",
        ],
    )


def _euler_T(A, C, th, thd, psd, phd):
    """Rotational energy of an axisymmetric body, ½[A(θ̇² + ψ̇² sin²θ) + C(φ̇ + ψ̇ cos θ)²] [Ghori 1960, eq. (3.3.1)]."""
    return (A * (thd**2 + psd**2 * sin(th) ** 2) + C * (phd + psd * cos(th)) ** 2) / 2


@register("rolling_disc",
          "heavy disc rolling on a horizontal plane, Euler angles [Ghori 1960, §3.3, eqs. (3.3.1)–(3.3.18)]",
          form="linear")
def _rolling_disc(form: str = "linear") -> SystemSpec:
    _form(form, "rolling_disc")
    Y = FibredManifold(["x", "y", "theta", "psi", "phi"])
    x, y, th, ps, ph = Y.q
    xd, yd, thd, psd, phd = Y.qdot
    m, a, A, C, g = _pos("m a A C g")
    z1, z2, z3 = sp.symbols("z1 z2 z3")
    r = phd + psd * cos(th)
    if form == "linear":
        f = [xd + a * r * cos(ps) - a * thd * sin(th) * sin(ps), yd + a * r * sin(ps) + a * thd * sin(th) * cos(ps)]
        branch = None
    else:
        f = [xd**2 + yd**2 - a**2 * (r**2 + thd**2 * sin(th) ** 2), xd * cos(ps) + yd * sin(ps) + a * r]
        branch = 0
    rz = z3 + z2 * cos(th)
    return SystemSpec(
        Y=Y,
        T=m / 2 * (xd**2 + yd**2 + a**2 * cos(th) ** 2 * thd**2) + _euler_T(A, C, th, thd, psd, phd),
        V=m * g * a * sin(th),
        f=f, dependent=[xd, yd], branch=branch,
        psi=[-a * rz * cos(ps) + a * z1 * sin(th) * sin(ps), -a * rz * sin(ps) - a * z1 * sin(th) * cos(ps),
             z1, z2, z3], z=(z1, z2, z3),
        parameters=(m, a, A, C, g), params={m: Rat(1), a: Rat(1), A: Rat(1, 4), C: Rat(1, 2), g: Rat(10)},
        guess={x: 0, y: 0, th: Rat(4, 3), ps: Rat(1, 3), ph: 0, xd: 0, yd: 0, thd: Rat(1, 10), psd: Rat(1, 2),
               phd: 3},
        reference="[Ghori 1960, §3.3, eqs. (3.3.1)–(3.3.18)]",
        description=(
            "A heavy circular disc (mass m, radius a, moments A about a diameter, C about its axis) rolling "
            "without slipping on a horizontal plane; (x, y) its centre, Euler angles θ (nutation: the disc plane "
            "makes the angle θ with the horizontal plane, the centre is at height a sin θ), ψ (precession), φ (spin). "
            "Rolling: v_G = −ω × GI, GI = −a v. Ghori takes unit mass (load(..., m=1)); form='nonlinear' gives "
            "his artificially nonlinear form (3.3.4)."
        ),
    )


@register("rolling_ball",
          "heavy axisymmetric ball rolling and pivoting on a horizontal plane [Ghori 1960, §3.4, eqs. "
          "(3.4.1)–(3.4.13)]",
          form="linear")
def _rolling_ball(form: str = "linear") -> SystemSpec:
    _form(form, "rolling_ball")
    Y = FibredManifold(["x", "y", "theta", "psi", "phi"])
    x, y, th, ps, ph = Y.q
    xd, yd, thd, psd, phd = Y.qdot
    m, a, A, C = _pos("m a A C")
    z1, z2, z3 = sp.symbols("z1 z2 z3")
    if form == "linear":
        wx = thd * cos(ps) + phd * sin(th) * sin(ps)  # ω in fixed axes [Ghori 1960, eq. (3.4.1)]
        wy = thd * sin(ps) - phd * sin(th) * cos(ps)
        f = [xd - a * wy, yd + a * wx]
        branch = None
    else:
        f = [xd**2 + yd**2 - a**2 * (thd**2 + phd**2 * sin(th) ** 2), xd * cos(ps) + yd * sin(ps) + a * phd * sin(th)]
        branch = 0  # ẋ = +a ω_y: the rolling branch (checked in tests/systems)
    return SystemSpec(
        Y=Y,
        T=m / 2 * (xd**2 + yd**2) + _euler_T(A, C, th, thd, psd, phd),
        f=f, dependent=[xd, yd], branch=branch,
        psi=[a * (z1 * sin(ps) - z3 * sin(th) * cos(ps)), -a * (z1 * cos(ps) + z3 * sin(th) * sin(ps)), z1, z2, z3],
        z=(z1, z2, z3),
        parameters=(m, a, A, C), params={m: Rat(1), a: Rat(1), A: Rat(2, 5), C: Rat(1, 2)},
        guess={x: 0, y: 0, th: Rat(1, 2), ps: Rat(1, 3), ph: 0, xd: 0, yd: 0, thd: Rat(1, 3), psd: Rat(1, 2),
               phd: 1},
        reference="[Ghori 1960, §3.4, eqs. (3.4.1)–(3.4.13)]",
        description=(
            "A heavy sphere (mass m, radius a) whose centre of mass is its centre and whose inertia ellipsoid is "
            "of revolution (A, A, C), rolling and pivoting without slipping on a horizontal plane; (x, y) its "
            "centre (z = a), Euler angles θ, ψ, φ; ω in fixed axes (θ̇ cos ψ + φ̇ sin θ sin ψ, "
            "θ̇ sin ψ − φ̇ sin θ cos ψ, ψ̇ + φ̇ cos θ) (3.4.1); rolling: v_O = a(ω_y, −ω_x). Gravity does no work "
            "(z = a), so V = 0. form='nonlinear' gives an artificially nonlinear form in Ghori's style."
        ),
    )


# --- [Stolařová 2009, §3] -----------------------------------------------------------------------------


@register("stolarova_example1", "free unit particle with ż − xyẋ = 0, a Chaplygin system [Stolařová 2009, Example "
                                "1, eq. (13)]")
def _stolarova1() -> SystemSpec:
    Y = FibredManifold(["x", "y", "z"])
    x, y, z = Y.q
    xd, yd, zd = Y.qdot
    u1, u2 = sp.symbols("u1 u2")
    return SystemSpec(
        Y=Y,
        T=(xd**2 + yd**2 + zd**2) / 2,
        f=[zd - y * x * xd], dependent=[zd],
        psi=[u1, u2, x * y * u1], z=(u1, u2),
        parameters=(), params={},
        guess={x: 0, y: 0, z: 0, xd: 1, yd: 1, zd: 0},
        reference="[Stolařová 2009, Example 1, eq. (13)]",
        description="A free particle of unit mass in R³ subject to ż − xyẋ = 0; initial data of the paper.",
    )


@register("stolarova_example2",
          "particle in gravity with the nonlinear constraint ẋ² + ẏ² − a²ż² = 0, branch ż > 0 [Stolařová 2009, "
          "Example 2]")
def _stolarova2() -> SystemSpec:
    Y = FibredManifold(["x", "y", "z"])
    x, y, z = Y.q
    xd, yd, zd = Y.qdot
    m, G, a = _pos("m G a")
    rho = sp.Symbol("rho", positive=True)
    phi = sp.Symbol("phi")
    return SystemSpec(
        Y=Y,
        T=m / 2 * (xd**2 + yd**2 + zd**2), V=m * G * z,
        f=[xd**2 + yd**2 - a**2 * zd**2], dependent=[zd], branch=0,
        psi=[rho * cos(phi), rho * sin(phi), rho / a], z=(rho, phi),
        parameters=(m, G, a), params={m: Rat(1), G: Rat(10), a: Rat(2)},
        guess={x: 0, y: 0, z: 0, xd: 2, yd: 2, zd: 0},
        reference="[Stolařová 2009, Example 2, eq. (14)]",
        description=(
            "A particle of mass m in the field mGz subject to ẋ² + ẏ² − a²ż² = 0 (a cone of velocities), on the "
            "component Q₊: ż = +√(ẋ² + ẏ²)/a; singular states on the zero section. Initial data of the paper "
            "(a = 2, ẋ = ẏ = 2)."
        ),
        notes=[
            "[Stolařová 2009, Example 2] prints the normal form ẍ = a³G/((a²+1)(2−a²)) ẋ/√(ẋ²+ẏ²), "
            "ÿ = −aG(1+a²)/(2−a²) √(ẋ²+ẏ²)/ẏ, which is not what its own reduced equations give "
            "(they are symmetric in x and y); solving them gives "
            "ẍ = −aG ẋ/((1+a²)√(ẋ²+ẏ²)), ÿ = −aG ẏ/((1+a²)√(ẋ²+ẏ²)).",
        ],
    )


@register("stolarova_example3",
          "pursuit: velocity of a particle directed at a thrown particle, time-dependent [Stolařová 2009, Example "
          "3, eq. (17)]")
def _stolarova3() -> SystemSpec:
    Y = FibredManifold(["x", "y"])
    t = Y.t
    x, y = Y.q
    xd, yd = Y.qdot
    m, G = _pos("m G")
    k1, k2 = sp.symbols("k1 k2", real=True)
    w = sp.Symbol("w")
    eta = k2 * t - G * t**2 / 2
    return SystemSpec(
        Y=Y,
        T=m / 2 * (xd**2 + yd**2), V=m * G * y,
        f=[yd * (x - k1 * t) - xd * (y - eta)], dependent=[yd],
        psi=[w * (k1 * t - x), w * (eta - y)], z=(w,),
        parameters=(m, G, k1, k2), params={m: Rat(1), G: Rat(10), k1: 10 * sp.sqrt(2), k2: 10 * sp.sqrt(2)},
        guess={t: 0, x: 40, y: 20, xd: -2, yd: -1},
        reference="[Stolařová 2009, Example 3, eqs. (15)–(17)]",
        description=(
            "A particle in the vertical plane (potential mGy) whose velocity always points at a first particle "
            "thrown from the origin, ξ = k₁t, η = k₂t − Gt²/2 (k₁ = v₀ cos α, k₂ = v₀ sin α): the rheonomic "
            "constraint ẏ(x − k₁t) − ẋ(y − k₂t + Gt²/2) = 0. Sample: v₀ = 20, α = 45°, start at (40, 20)."
        ),
        notes=[
            "[Stolařová 2009, Example 3] prints the rank condition as x ≠ k₂t − Gt²/2, y ≠ k₁t and the normal form as "
            "g = ẋ(x − k₁t)/(y − k₂t + Gt²/2): k₁ and k₂ are swapped and the fraction is upside down; from (17), "
            "ẏ = ẋ(y − k₂t + Gt²/2)/(x − k₁t), valid where x ≠ k₁t; the rank drops only where both "
            "x = k₁t and y = k₂t − Gt²/2.",
        ],
    )


# --- a family: the n-trailer ----------------------------------------------------------------------------


@register("n_trailer", "a car pulling n trailers, each a knife edge hitched at the previous axle (n ≥ 0)", n=1)
def _n_trailer(n: int = 1) -> SystemSpec:
    if not isinstance(n, int) or isinstance(n, bool) or n < 0 or n > 8:
        raise InputError(f"n_trailer: n must be an integer 0 ≤ n ≤ 8, got {n!r}")
    Y = FibredManifold(["x", "y", *[f"theta{i}" for i in range(n + 1)]])
    x, y, *ths = Y.q
    xd, yd, *thds = Y.qdot
    ms = tuple(sp.Symbol(f"m{i}", positive=True) for i in range(n + 1))
    Js = tuple(sp.Symbol(f"J{i}", positive=True) for i in range(n + 1))
    ds = tuple(sp.Symbol(f"d{i}", positive=True) for i in range(1, n + 1))
    v, w = sp.symbols("v w")
    # axle midpoints P_i = P_{i-1} − d_i (cos θ_i, sin θ_i), velocities by differentiation
    P = [(xd, yd)]
    for i in range(1, n + 1):
        px, py = P[-1]
        P.append((px + ds[i - 1] * sin(ths[i]) * thds[i], py - ds[i - 1] * cos(ths[i]) * thds[i]))
    T = sum(ms[i] / 2 * (P[i][0] ** 2 + P[i][1] ** 2) + Js[i] / 2 * thds[i] ** 2 for i in range(n + 1))
    f = [-P[i][0] * sin(ths[i]) + P[i][1] * cos(ths[i]) for i in range(n + 1)]
    psi = [v * cos(ths[0]), v * sin(ths[0]), w]
    vi = v
    for i in range(1, n + 1):
        psi.append(vi * sin(ths[i - 1] - ths[i]) / ds[i - 1])
        vi = vi * cos(ths[i - 1] - ths[i])
    params = {s: Rat(1) for s in ms}
    params.update({s: Rat(1, 4) for s in Js})
    params.update({s: Rat(1) for s in ds})
    guess = {x: 0, y: 0, xd: 1, yd: 0}
    for i in range(n + 1):
        guess[ths[i]] = Rat(i, 5)
        guess[thds[i]] = Rat(1, 2) if i == 0 else 0
    return SystemSpec(
        Y=Y, T=T, f=f, dependent=[yd, *thds[1:]],
        psi=psi, z=(v, w),
        parameters=(*ms, *Js, *ds), params=params, guess=guess,
        reference="[Laumond 1993]: the n-trailer, built like the skate of [Benenti 2007, §9.1]",
        description=(
            f"A car and {n} trailer(s), each a knife edge (skate) whose axle midpoint P_i carries its mass m_i "
            "and moment J_i; P_i = P_(i−1) − d_i (cos θ_i, sin θ_i) and the velocity of every P_i is along its "
            "heading: Ṗ_i · (−sin θ_i, cos θ_i) = 0. Parametrised by the car's speed v and turning rate w."
        ),
    )
