"""Systems of the four papers for the recipe tests, written down from the papers (kept local so the recipe
tests do not depend on the catalogue they cross-check)."""

from __future__ import annotations

from functools import lru_cache

import sympy as sp

from jetgeo import ConstraintSubmanifold, FibredManifold, LagrangianSystem, recipes

A = sp.symbols("A1:5")  # generic constant generalised forces
m, I, R, Ai, Bi, a, G = sp.symbols("m I R A B a G", positive=True)


@lru_cache(None)
def skate():
    """[Benenti 2007, §9.1]: K = ½m(ẋ² + ẏ²) + ½Iθ̇², ẋ sin θ − ẏ cos θ = 0 (9.1), generic forces."""
    Y = FibredManifold(["x", "y", "theta"])
    x, y, th = Y.q
    xd, yd, thd = Y.qdot
    S = LagrangianSystem.mechanical(Y, m / 2 * (xd**2 + yd**2) + I / 2 * thd**2, forces=list(A[:3]))
    Q = ConstraintSubmanifold(Y, [xd * sp.sin(th) - yd * sp.cos(th)])
    z = sp.symbols("z1 z2")
    return S, Q, [z[0] * sp.cos(th), z[0] * sp.sin(th), z[1]], list(z)


@lru_cache(None)
def vertical_disc():
    """[Benenti 2007, §9.2]: (x, y, θ, ψ), K (9.3), ẋ − R cos ψ θ̇ = ẏ − R sin ψ θ̇ = 0 (9.2), ψ of (9.4)."""
    Y = FibredManifold(["x", "y", "theta", "psi"])
    x, y, th, ps = Y.q
    xd, yd, thd, psd = Y.qdot
    K = m / 2 * (xd**2 + yd**2) + (Ai * thd**2 + Bi * psd**2) / 2
    S = LagrangianSystem.mechanical(Y, K, forces=list(A))
    Q = ConstraintSubmanifold(Y, [xd - R * sp.cos(ps) * thd, yd - R * sp.sin(ps) * thd])
    z = sp.symbols("z1 z2")
    return S, Q, [R * sp.cos(ps) * z[0], R * sp.sin(ps) * z[0], z[0], z[1]], list(z)


@lru_cache(None)
def parallel_points():
    """[Benenti 2007, §9.4]: two points with parallel velocities, ẋ1ẏ2 − ẋ2ẏ1 = 0 (9.14), ψ of (9.15)."""
    Y = FibredManifold(["x1", "y1", "x2", "y2"])
    x1d, y1d, x2d, y2d = Y.qdot
    m1, m2 = sp.symbols("m1 m2", positive=True)
    S = LagrangianSystem.mechanical(Y, m1 / 2 * (x1d**2 + y1d**2) + m2 / 2 * (x2d**2 + y2d**2), forces=list(A))
    Q = ConstraintSubmanifold(Y, [x1d * y2d - x2d * y1d])
    rho, sig, th = sp.symbols("rho sigma vartheta")
    psi = [rho * sp.cos(th), rho * sp.sin(th), sig * sp.cos(th), sig * sp.sin(th)]
    return S, Q, psi, [rho, sig, th]


@lru_cache(None)
def krupkova_example1():
    """[Stolařová 2009, Example 1]: free unit particle, ż − y x ẋ = 0 (13); ψ = (z1, z2, x y z1) depends on q."""
    Y = FibredManifold(["x", "y", "z"])
    x, y, _ = Y.q
    xd, yd, zd = Y.qdot
    S = LagrangianSystem.mechanical(Y, (xd**2 + yd**2 + zd**2) / 2)
    Q = ConstraintSubmanifold(Y, [zd - y * x * xd])
    w = sp.symbols("w1 w2")
    return S, Q, [w[0], w[1], x * y * w[0]], list(w)


@lru_cache(None)
def krupkova_example2():
    """[Stolařová 2009, Example 2]: L = ½m|v|² − mGz, ẋ² + ẏ² − a²ż² = 0 (14), branch ż = +√(ẋ² + ẏ²)/a."""
    Y = FibredManifold(["x", "y", "z"])
    xd, yd, zd = Y.qdot
    S = LagrangianSystem.mechanical(Y, m / 2 * (xd**2 + yd**2 + zd**2), V=m * G * Y.q[2])
    Q = ConstraintSubmanifold(Y, [xd**2 + yd**2 - a**2 * zd**2], dependent=[zd], branch=0)
    r, phi = sp.symbols("r phi", positive=True)
    return S, Q, [a * r * sp.cos(phi), a * r * sp.sin(phi), r], [r, phi]


@lru_cache(None)
def krupkova_example3():
    """[Stolařová 2009, Example 3] (time-dependent): ẏ(x − k1 t) − ẋ(y − k2 t + ½Gt²) = 0 (17), L = ½m|v|² − mGy."""
    Y = FibredManifold(["x", "y"])
    t = Y.t
    x, y = Y.q
    xd, yd = Y.qdot
    k1, k2 = sp.symbols("k1 k2", positive=True)
    S = LagrangianSystem.mechanical(Y, m / 2 * (xd**2 + yd**2), V=m * G * y)
    Q = ConstraintSubmanifold(Y, [yd * (x - k1 * t) - xd * (y - k2 * t + G * t**2 / 2)])
    s = sp.Symbol("s")
    return S, Q, [(x - k1 * t) * s, (y - k2 * t + G * t**2 / 2) * s], [s]


@lru_cache(None)
def damped_curved():
    """Outside the papers: a q-dependent metric, a damping force and a q-dependent ψ.

    T = ½((1 + x²)ẋ² + 2ẋẏ + (2 + y²)ẏ² + ż²), V = x y, A = −c q̇, constraint
    ż = x ẏ + y² ẋ + t (affine, time-dependent), ψ = (z1, z2, x z2 + y² z1 + t).
    """
    Y = FibredManifold(["x", "y", "z"])
    t = Y.t
    x, y, z = Y.q
    xd, yd, zd = Y.qdot
    c = sp.Symbol("c", positive=True)
    T = ((1 + x**2) * xd**2 + 2 * xd * yd + (2 + y**2) * yd**2 + zd**2) / 2
    S = LagrangianSystem.mechanical(Y, T, V=x * y, forces=[-c * xd, -c * yd, -c * zd])
    Q = ConstraintSubmanifold(Y, [zd - x * yd - y**2 * xd - t])
    w = sp.symbols("w1 w2")
    return S, Q, [w[0], w[1], x * w[1] + y**2 * w[0] + t], list(w)


ALL = {
    "skate [Benenti 2007, §9.1]": skate,
    "vertical disc [Benenti 2007, §9.2]": vertical_disc,
    "parallel velocities [Benenti 2007, §9.4]": parallel_points,
    "[Stolařová 2009, Example 1]": krupkova_example1,
    "[Stolařová 2009, Example 2]": krupkova_example2,
    "[Stolařová 2009, Example 3]": krupkova_example3,
    "damped, curved metric": damped_curved,
}


@lru_cache(None)
def recipe_results(name: str) -> dict:
    """``recipes.all_recipes`` on ``ALL[name]()`` with its ψ and z: {recipe: Motion or the exception}, derived
    once per test process and shared by the recipe test modules (none of them mutates a Motion)."""
    S, Q, psi, z = ALL[name]()
    return recipes.all_recipes(S, Q, psi=psi, z=z)
