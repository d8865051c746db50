"""Test systems for the numerics tests, defined locally (the papers' equation numbers in the docstrings).

Each factory is cached: the symbolic derivation is done once per test session."""

from __future__ import annotations

from functools import cache

import sympy as sp

from jetgeo import ConstraintSubmanifold, FibredManifold, LagrangianSystem
from jetgeo.mechanics import ConstrainedSystem


@cache
def skate():
    """[Benenti 2007, §9.1]: ẋ sin θ − ẏ cos θ = 0 (9.1), K = m/2(ẋ² + ẏ²) + I/2 θ̇²."""
    Y = FibredManifold(["x", "y", "theta"])
    x, y, th = Y.q
    xd, yd, thd = Y.qdot
    m, I = sp.symbols("m I", positive=True)
    S = LagrangianSystem.mechanical(Y, m / 2 * (xd**2 + yd**2) + I / 2 * thd**2)
    return S.constrain(ConstraintSubmanifold(Y, [xd * sp.sin(th) - yd * sp.cos(th)])), (m, I)


@cache
def rolling_disc():
    """[Benenti 2007, §9.2]: ẋ = R cos ψ θ̇, ẏ = R sin ψ θ̇ (9.2), K of (9.3)."""
    Y = FibredManifold(["x", "y", "theta", "psi"])
    x, y, th, ps = Y.q
    xd, yd, thd, psd = Y.qdot
    m, A, B, R = sp.symbols("m A B R", positive=True)
    S = LagrangianSystem.mechanical(Y, m / 2 * (xd**2 + yd**2) + (A * thd**2 + B * psd**2) / 2)
    Q = ConstraintSubmanifold(Y, [xd - R * sp.cos(ps) * thd, yd - R * sp.sin(ps) * thd])
    return S.constrain(Q), (m, A, B, R)


@cache
def stolarova2009_example1():
    """[Stolařová 2009, Example 1]: ż − x y ẋ = 0 (13), L = ½(ẋ² + ẏ² + ż²)."""
    Y = FibredManifold(["x", "y", "z"])
    x, y, z = Y.q
    xd, yd, zd = Y.qdot
    S = LagrangianSystem.mechanical(Y, (xd**2 + yd**2 + zd**2) / 2)
    return S.constrain(ConstraintSubmanifold(Y, [zd - x * y * xd]))


@cache
def stolarova2009_example2():
    """[Stolařová 2009, Example 2]: ẋ² + ẏ² − a²ż² = 0 (14), L = m/2 |v|² − mGz, branch ż = +√(ẋ²+ẏ²)/a."""
    Y = FibredManifold(["x", "y", "z"])
    x, y, z = Y.q
    xd, yd, zd = Y.qdot
    a, G, m = sp.symbols("a G m", positive=True)
    S = LagrangianSystem.mechanical(Y, m / 2 * (xd**2 + yd**2 + zd**2), m * G * z)
    Q = ConstraintSubmanifold(Y, [xd**2 + yd**2 - a**2 * zd**2])
    return ConstrainedSystem(S, Q, branch=0), (a, G, m)


@cache
def stolarova2009_example3():
    """[Stolařová 2009, Example 3] (pursuit): f = ẏ(x − k₁t) − ẋ(y − k₂t + ½Gt²) (17), L = m/2|v|² − mGy."""
    Y = FibredManifold(["x", "y"])
    t = Y.t
    x, y = Y.q
    xd, yd = Y.qdot
    k1, k2, G, m = sp.symbols("k1 k2 G m", positive=True)
    S = LagrangianSystem.mechanical(Y, m / 2 * (xd**2 + yd**2), m * G * y)
    f = yd * (x - k1 * t) - xd * (y - k2 * t + G * t**2 / 2)
    return ConstrainedSystem(S, ConstraintSubmanifold(Y, [f], dependent=[yd])), (k1, k2, G, m)


@cache
def skate_on_belt():
    """A skate whose blade rests on a belt moving with velocity u(t) = U sin(νt) along x:
    the blade's velocity relative to the belt is along the blade, (ẋ − u) sin θ − ẏ cos θ = 0.
    An affine, time-dependent constraint: its reaction does work."""
    Y = FibredManifold(["x", "y", "theta"])
    t = Y.t
    x, y, th = Y.q
    xd, yd, thd = Y.qdot
    m, I, U, nu = sp.symbols("m I U nu", positive=True)
    S = LagrangianSystem.mechanical(Y, m / 2 * (xd**2 + yd**2) + I / 2 * thd**2)
    Q = ConstraintSubmanifold(Y, [(xd - U * sp.sin(nu * t)) * sp.sin(th) - yd * sp.cos(th)])
    return S.constrain(Q), (m, I, U, nu)


@cache
def two_points(g_val=None):
    """[Benenti 2007, §9.4]: ẋ₁ẏ₂ − ẋ₂ẏ₁ = 0 (9.14) on an inclined plane, A₁ = m₁g, A₃ = m₂g (9.18)."""
    Y = FibredManifold(["x1", "y1", "x2", "y2"])
    x1, y1, x2, y2 = Y.q
    x1d, y1d, x2d, y2d = Y.qdot
    m1, m2, g = sp.symbols("m1 m2 g", positive=True)
    S = LagrangianSystem.mechanical(Y, m1 / 2 * (x1d**2 + y1d**2) + m2 / 2 * (x2d**2 + y2d**2),
                                    -m1 * g * x1 - m2 * g * x2)
    Q = ConstraintSubmanifold(Y, [x1d * y2d - x2d * y1d], dependent=[y2d])
    return ConstrainedSystem(S, Q), (m1, m2, g)
