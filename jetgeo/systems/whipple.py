r"""The Whipple bicycle [Meijaard et al. 2007] as a jetgeo system.

Four rigid bodies — rear wheel R, rear frame B (with the rider), front frame H (fork and
handlebar), front wheel F — on knife-edge wheels rolling without slipping on level ground.
Conventions are the benchmark's: x forward, y to the right, z **down**; lean φ about the
heading line (positive: to the right), steer δ about the steering axis (positive: to the
right), gravity +g ẑ.  The reference configuration is upright and straight: rear contact P
at the origin, wheel centres at (0, 0, −r_R) and (w, 0, −r_F), the steering axis through
(w + c, 0, 0) tilted back by λ from the vertical.

Coordinates q = (x, y, ψ, φ, θ, δ, θ_R, θ_F): rear contact point, yaw (heading), lean,
pitch of the rear frame, steer, the wheels' rotations relative to their frames.
Orientations: lean frame C_L = R_z(ψ)R_x(φ) (the rear wheel's plane), rear frame
C_B = C_L R_y(θ), front frame C_H = C_B R_s(δ) with R_s the rotation about the steering
axis s = (sin λ, 0, cos λ) (Rodrigues).

Constraints, derived here from v_contact = 0 (not copied from the paper):

* rear wheel (contact on the ground by construction, centre C_R = P − r_R ℓ₃):
  the material point at P has zero velocity ⇔ ẋ = −r_R(θ̇ + θ̇_R) cos ψ,
  ẏ = −r_R(θ̇ + θ̇_R) sin ψ (θ + θ_R is the rear wheel's rotation relative to the lean frame);
* front wheel: the contact point Q_F = C_F + r_F d, d the unit vector of the wheel plane
  pointing most downward, d ∝ ẑ − (ẑ·ĥ₂)ĥ₂ (ĥ₂ the front axle).  Its height is the
  **holonomic** condition h(φ, θ, δ) = ẑ·Q_F = ẑ·C_F + r_F √(1 − (ẑ·ĥ₂)²) = 0 (pitch is
  fixed by lean and steer); it enters as ḣ = 0.  The horizontal components of the velocity of
  the wheel's material point at Q_F, v_{C_F} + ω_F × r_F d, vanish: two non-holonomic
  constraints.

So 5 velocity constraints on 8 coordinates: 3 degrees of freedom (lean rate, steer rate,
rear wheel rate).  L = T − V with T = Σ ½m|v_G|² + ½ωᵀIω (König) and V = −g Σ m z_G.
Upright straight-ahead motion at speed v (all angles 0, θ̇_R = −v/r_R, θ̇_F = −v/r_F) is a
steady motion; :func:`benchmark_matrices` linearises about it with
:func:`jetgeo.mechanics.linearise` (multiplier route: second derivatives of L and f at the
point; the front normal force is the multiplier of ḣ = 0) and returns M, C₁, K₀, K₂ of
M q̈ + v C₁ q̇ + (g K₀ + v² K₂) q = 0, q = (φ, δ) — independent of the four papers: [Meijaard et al. 2007,
eq. (A1), Table 1] (parameters), [Meijaard et al. 2007, §5, Table 2] (values).

>>> from jetgeo.systems.whipple import benchmark_matrices
>>> M, C1, K0, K2 = benchmark_matrices()
>>> round(float(M[0, 0]), 5)       # [Meijaard et al. 2007, eq. (5.4)]: 80.81722
80.81722
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import sympy as sp

from ..errors import InputError
from ..geometry.coerce import as_expr
from ..jets import FibredManifold
from ..mechanics import ConstraintSubmanifold, LagrangianSystem
from ..mechanics.linearisation import linearise
from .registry import SystemSpec, register

__all__ = ["WhippleBicycle", "whipple_bicycle", "benchmark_parameters", "benchmark_matrices",
           "eigenvalues", "stability_speeds"]

_PARAMETER_NAMES = ("w c lam g rR mR IRxx IRyy xB zB mB IBxx IByy IBzz IBxz xH zH mH IHxx IHyy IHzz IHxz "
                    "rF mF IFxx IFyy").split()


def benchmark_parameters() -> dict:
    """[Meijaard et al. 2007, Table 1] (exact decimals as rationals; λ = π/10), by name.

    Returns
    -------
    dict
        {name: value}: wheelbase ``w``, trail ``c``, steer axis tilt ``lam``, gravity ``g``, and
        radius, mass, inertia and centre of mass of the rear wheel (``R``), rear body (``B``), front
        frame (``H``) and front wheel (``F``); decimals as exact rationals.

    Examples
    --------
    >>> P = benchmark_parameters()
    >>> P["w"], P["lam"], P["mB"]
    (51/50, pi/10, 85)
    """
    R = sp.Rational
    return dict(
        w=R("1.02"), c=R("0.08"), lam=sp.pi / 10, g=R("9.81"),
        rR=R("0.3"), mR=2, IRxx=R("0.0603"), IRyy=R("0.12"),
        xB=R("0.3"), zB=R("-0.9"), mB=85, IBxx=R("9.2"), IByy=11, IBzz=R("2.8"), IBxz=R("2.4"),
        xH=R("0.9"), zH=R("-0.7"), mH=4, IHxx=R("0.05892"), IHyy=R("0.06"), IHzz=R("0.00708"),
        IHxz=R("-0.00756"),
        rF=R("0.35"), mF=3, IFxx=R("0.1405"), IFyy=R("0.28"),
    )


@dataclass
class WhippleBicycle:
    """The bicycle as jetgeo objects: ``system, Q = bike`` unpacks it.

    ``params`` maps the parameter symbols to their values (empty when symbolic);
    ``holonomic`` is h(φ, θ, δ) (front contact height, = 0 on the configuration manifold);
    ``symbols`` maps parameter names to symbols.

    Attributes
    ----------
    Y : FibredManifold
        Time t and the eight coordinates (x, y, ψ, φ, θ, δ, θ_R, θ_F): rear contact point, yaw,
        lean, pitch, steer, rear and front wheel rotation.
    system : LagrangianSystem
        T − V of the four rigid bodies.
    Q : ConstraintSubmanifold
        The four rolling constraints of the knife-edge wheels and ḣ = 0 (the time derivative of the
        holonomic contact condition).
    holonomic : sympy.Expr
        h(φ, θ, δ): the height of the front contact point, zero on the configuration manifold.
    symbols : dict
        {parameter name: Symbol} (names as in [Meijaard et al. 2007, Table 1]).
    params : dict
        {parameter symbol: value}; empty when symbolic.
    """

    Y: FibredManifold
    system: LagrangianSystem
    Q: ConstraintSubmanifold
    holonomic: sp.Expr
    symbols: dict
    params: dict

    def __iter__(self):
        return iter((self.system, self.Q))

    def upright(self, v) -> dict:
        """The point of Q of upright straight-ahead motion at forward speed v."""
        x, y, psi, phi, th, de, thR, thF = self.Y.q
        xd, yd, psid, phid, thd, ded, thRd, thFd = self.Y.qdot
        rR, rF = self.symbols["rR"], self.symbols["rF"]
        pt = {s: 0 for s in self.Y.q}
        pt.update({phid: 0, ded: 0, thRd: -v / rR, xd: v, yd: 0, psid: 0, thd: 0, thFd: -v / rF})
        return {k: (as_expr(val).xreplace(self.params) if self.params else val) for k, val in pt.items()}

    def linearise(self, v=None, g=None):
        """The linearised lean/steer dynamics about upright straight-ahead motion at speed v.

        Returns the :class:`~jetgeo.mechanics.linearisation.Linearisation` restricted to
        (φ, δ, φ̇, δ̇): ``.A`` (4 × 4), ``.mass``, ``.damping``, ``.stiffness``.  ``v`` and
        ``g`` default to symbols (then the entries are polynomials in them).
        """
        v = sp.Symbol("v") if v is None else v
        Y = self.Y
        x, y, psi, phi, th, de, thR, thF = Y.q
        xd, yd, psid, phid, thd, ded, thRd, thFd = Y.qdot
        params = dict(self.params)
        if g is not None:
            params[self.symbols["g"]] = g
        elif self.params:
            params.pop(self.symbols["g"], None)  # keep g symbolic: K = g K₀ + v² K₂
        point = self.upright(v)
        point = {k: val for k, val in point.items() if k in (*Y.q, phid, ded, thRd)}
        lin = linearise((self.system, self.Q), point, params=params, independent=[phid, ded, thRd])
        return lin.restrict([phi, de, phid, ded])


def _rot(axis: int, a) -> sp.Matrix:
    c, s = sp.cos(a), sp.sin(a)
    if axis == 0:
        return sp.Matrix([[1, 0, 0], [0, c, -s], [0, s, c]])
    if axis == 1:
        return sp.Matrix([[c, 0, s], [0, 1, 0], [-s, 0, c]])
    return sp.Matrix([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def _rodrigues(u: sp.Matrix, a) -> sp.Matrix:
    """Rotation by the angle a about the unit vector u."""
    K = sp.Matrix([[0, -u[2], u[1]], [u[2], 0, -u[0]], [-u[1], u[0], 0]])
    return sp.cos(a) * sp.eye(3) + sp.sin(a) * K + (1 - sp.cos(a)) * (u * u.T)


def whipple_bicycle(numeric: bool = True) -> WhippleBicycle:
    """Build the Whipple bicycle; ``numeric=True`` substitutes the benchmark parameters
    (:func:`benchmark_parameters`, g kept symbolic by :meth:`WhippleBicycle.linearise`).

    The model of [Meijaard et al. 2007]: rear wheel, rear frame with rider, front frame and front
    wheel, knife-edge wheels rolling without slipping on level ground (z down).

    Parameters
    ----------
    numeric : bool, default True
        Substitute the benchmark parameters; False keeps every parameter a symbol (the Lagrangian
        and constraints are then much larger).

    Returns
    -------
    WhippleBicycle
        The fibred manifold, the Lagrangian system and Q, with the holonomic contact condition and
        the parameter symbols.
    """
    Y = FibredManifold(["x", "y", "psi", "phi", "theta", "delta", "thetaR", "thetaF"], time="t")
    x, y, psi, phi, th, de, thR, thF = Y.q
    xd, yd, psid, phid, thd, ded, thRd, thFd = Y.qdot
    S = {n: sp.Symbol(n, real=True) for n in _PARAMETER_NAMES}
    for n in ("w", "c", "g", "rR", "rF", "mR", "mB", "mH", "mF"):
        S[n] = sp.Symbol(n, positive=True)
    w, c, lam, g, rR, rF = (S[n] for n in ("w", "c", "lam", "g", "rR", "rF"))

    CL = _rot(2, psi) * _rot(0, phi)
    CB = CL * _rot(1, th)
    s_ax = sp.Matrix([sp.sin(lam), 0, sp.cos(lam)])
    CH = CB * _rodrigues(s_ax, de)
    e2, e3 = sp.Matrix([0, 1, 0]), sp.Matrix([0, 0, 1])
    P = sp.Matrix([x, y, 0])
    XR = sp.Matrix([0, 0, -rR])          # rear wheel centre, reference coordinates
    XS = sp.Matrix([w + c, 0, 0])        # a point of the steering axis
    XF = sp.Matrix([w, 0, -rF])          # front wheel centre
    CR = P + CL * XR
    GB = CR + CB * (sp.Matrix([S["xB"], 0, S["zB"]]) - XR)
    Sp = CR + CB * (XS - XR)
    GH = Sp + CH * (sp.Matrix([S["xH"], 0, S["zH"]]) - XS)
    CF = Sp + CH * (XF - XS)

    def vel(r):
        return sp.Matrix([sum(sp.diff(ri, qq) * v for qq, v in zip(Y.q[:6], Y.qdot[:6])) for ri in r])

    # angular velocities in body coordinates
    wL = _rot(0, phi).T * sp.Matrix([0, 0, psid]) + sp.Matrix([phid, 0, 0])
    wB = _rot(1, th).T * wL + sp.Matrix([0, thd, 0])
    RS = _rodrigues(s_ax, de)
    wH = RS.T * wB + ded * s_ax
    wR = wB + thRd * e2                  # rear wheel, in rear-frame coordinates (symmetric about e2)
    wF = wH + thFd * e2                  # front wheel, in front-frame coordinates
    IR = sp.diag(S["IRxx"], S["IRyy"], S["IRxx"])
    IF = sp.diag(S["IFxx"], S["IFyy"], S["IFxx"])
    IB = sp.Matrix([[S["IBxx"], 0, S["IBxz"]], [0, S["IByy"], 0], [S["IBxz"], 0, S["IBzz"]]])
    IH = sp.Matrix([[S["IHxx"], 0, S["IHxz"]], [0, S["IHyy"], 0], [S["IHxz"], 0, S["IHzz"]]])
    T = sp.Rational(1, 2) * sp.Add(
        S["mR"] * (vel(CR).T * vel(CR))[0], S["mB"] * (vel(GB).T * vel(GB))[0],
        S["mH"] * (vel(GH).T * vel(GH))[0], S["mF"] * (vel(CF).T * vel(CF))[0],
        (wR.T * IR * wR)[0], (wB.T * IB * wB)[0], (wH.T * IH * wH)[0], (wF.T * IF * wF)[0],
    )
    V = -g * (S["mR"] * CR[2] + S["mB"] * GB[2] + S["mH"] * GH[2] + S["mF"] * CF[2])

    # rear wheel rolling: derived in the module docstring
    f_rear = [xd + rR * (thd + thRd) * sp.cos(psi), yd + rR * (thd + thRd) * sp.sin(psi)]
    # front wheel: contact point, holonomic height and the horizontal material velocity
    h2 = CH * e2
    nz = h2[2]
    root = sp.sqrt(1 - nz**2)
    d = (e3 - nz * h2) / root
    h = CF[2] + rF * root
    wF_N = CH * wF
    vQ = vel(CF) + wF_N.cross(rF * d)
    f_front = [vQ[0], vQ[1]]
    hdot = sum(sp.diff(h, qq) * v for qq, v in zip(Y.q, Y.qdot))
    fs = [*f_rear, *f_front, hdot]
    params = {}
    if numeric:
        params = {S[k]: v for k, v in benchmark_parameters().items()}
        keep_g = {k: v for k, v in params.items() if k != g}
        T, V, h = (e.xreplace(keep_g) for e in (T, V, h))
        fs = [f.xreplace(keep_g) for f in fs]
    system = LagrangianSystem.mechanical(Y, T, V)
    Q = ConstraintSubmanifold(Y, fs, dependent=[xd, yd, psid, thd, thFd])
    return WhippleBicycle(Y, system, Q, h, S, params)


@lru_cache(maxsize=2)
def _benchmark_linearisation():
    return whipple_bicycle(numeric=True).linearise()


def benchmark_matrices() -> tuple:
    """(M, C₁, K₀, K₂) of the benchmark bicycle, from the linearisation about upright
    straight-ahead motion (entries are 50-digit floats: λ = π/10 is not rational).

    M is the reduced mass matrix on (φ̇, δ̇); the rate columns of F are v C₁ and its angle
    columns g K₀ + v² K₂ [Meijaard et al. 2007, eq. (A1)]; C₁, K₀, K₂ are read off as the
    coefficients of v, g and v² — they are computed, with v and g kept symbolic.

    Returns
    -------
    tuple of sympy.Matrix
        ``(M, C1, K0, K2)``, each 2 × 2 on (φ, δ): the linearised equations are
        M q̈ + v C₁ q̇ + (g K₀ + v² K₂) q = 0.

    Raises
    ------
    jetgeo.errors.InputError
        If the computed linearisation is not of that form (a symbol other than v, g left over).
    """
    lin = _benchmark_linearisation()
    v, g = sp.Symbol("v"), sp.Symbol("g", positive=True)
    C = lin.damping.applyfunc(sp.expand)
    K = lin.stiffness.applyfunc(sp.expand)
    extra = (C.free_symbols | K.free_symbols) - {v, g}
    if extra:
        raise InputError(f"benchmark_matrices: unexpected symbols {extra} in the linearisation")
    C1 = C.applyfunc(lambda e: e.coeff(v, 1))
    K0 = K.applyfunc(lambda e: e.coeff(g, 1))
    K2 = K.applyfunc(lambda e: e.coeff(v, 2))
    rest = (K - g * K0 - v**2 * K2).applyfunc(sp.expand)
    if any(abs(sp.N(r)) > 1e-30 for r in rest) or any(abs(sp.N(e.coeff(v, 0))) > 1e-30 for e in C):
        raise InputError("benchmark_matrices: the linearisation is not of the form v C₁, g K₀ + v² K₂")
    return lin.mass, C1, K0, K2


def eigenvalues(v: float, g: float = 9.81):
    """Eigenvalues of the benchmark's 4 × 4 lean/steer system at forward speed v (numpy,
    sorted by real part), from :func:`benchmark_matrices`.

    Parameters
    ----------
    v : float
        Forward speed in m/s.
    g : float, default 9.81
        Gravity in m/s².

    Returns
    -------
    numpy.ndarray
        The four complex eigenvalues of A = [[0, I], [−M⁻¹(g K₀ + v² K₂), −M⁻¹ v C₁]], sorted by
        real part then imaginary part; the motion is stable where all real parts are negative.
    """
    import numpy as np

    M, C1, K0, K2 = (np.array(m.evalf(30), dtype=float) for m in benchmark_matrices())
    Minv = np.linalg.inv(M)
    A = np.block([[np.zeros((2, 2)), np.eye(2)], [-Minv @ (g * K0 + v**2 * K2), -Minv @ (v * C1)]])
    ev = np.linalg.eigvals(A)
    return ev[np.lexsort((ev.imag, ev.real))]


def stability_speeds(g: float = 9.81) -> tuple:
    """(weave speed, capsize speed): where the weave pair's and the capsize mode's real parts
    cross zero ([Meijaard et al. 2007, §5]: 4.29238253634111, 6.02426201538837 m/s).  Found by
    Brent's root finder (``scipy.optimize.brentq``, xtol 1e-15) on the largest real part of
    :func:`eigenvalues`, in the brackets [3, 5] and [5.5, 7] m/s.

    Parameters
    ----------
    g : float, default 9.81
        Gravity in m/s².

    Returns
    -------
    tuple of float
        ``(v_weave, v_capsize)`` in m/s: the benchmark bicycle is self-stable for
        v_weave < v < v_capsize.
    """
    from scipy.optimize import brentq

    def abscissa(v):
        return float(max(eigenvalues(v, g).real))

    return brentq(abscissa, 3.0, 5.0, xtol=1e-15), brentq(abscissa, 5.5, 7.0, xtol=1e-15)


def _register() -> None:
    @register("whipple_bicycle", "Whipple bicycle, the benchmark of [Meijaard et al. 2007] (4 bodies, 8 coordinates, "
              "4 rolling constraints + 1 holonomic contact condition as ḣ = 0)", heavy=True)
    def _whipple() -> SystemSpec:
        b = whipple_bicycle(numeric=False)
        Y = b.Y
        P = benchmark_parameters()
        params = {b.symbols[k]: v for k, v in P.items()}
        guess = {Y.t: 0, **b.upright(4)}
        guess = {k: (as_expr(v).xreplace(params)) for k, v in guess.items()}
        return SystemSpec(
            Y=Y, f=list(b.Q.f), T=b.system.kinetic_energy, V=b.system.potential_energy,
            reference="[Meijaard et al. 2007, §§2–5, Table 1]",
            description=("Rear wheel, rear frame with rider, front frame, front wheel on knife-edge wheels "
                         "rolling on level ground (z down). Pitch is fixed by lean and steer through the front "
                         "contact height h = 0, entered as ḣ = 0. Linearise about upright straight-ahead "
                         "motion with jetgeo.systems.whipple (M, C1, K0, K2; Table 2 eigenvalues)."),
            parameters=tuple(b.symbols[k] for k in _PARAMETER_NAMES), params=params, guess=guess,
            dependent=[Y.qdot[i] for i in (0, 1, 2, 4, 7)],
            notes=["heavy: the full nonlinear reduced equations are not formed by the catalogue tests; "
                   "the holonomic condition h is jetgeo.systems.whipple.whipple_bicycle().holonomic"],
        )


_register()
