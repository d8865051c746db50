"""Rigid bodies shared by the discrete-integrator tests (imported as ``rigid_fixtures``, like
tests/geometry/geometry_strategies.py): built once here, not copied into each test module."""

from __future__ import annotations

import sympy as sp

from jetgeo.jets import FibredManifold
from jetgeo.mechanics import QuasiVelocitySystem
from jetgeo.mechanics.rigid import body_angular_velocity, rotation_matrix


def chaplygin_ball() -> tuple:
    """Chaplygin's ball (centre of mass at the centre, unequal moments) in body-frame Ω, ZXZ Euler angles
    [Chaplygin 1903]: (S, parameter values, a state on Q in the jets).  ℓ = ½ Σ A_i Ω_i² + ½ m (u² + v²),
    rolling without slipping u = r (RΩ)_2, v = −r (RΩ)_1 — the same ball as
    tests/mechanics/test_quasi_velocities.py."""
    Y = FibredManifold(["a1", "a2", "a3", "x", "y"])
    F = body_angular_velocity(Y, "ZXZ", ["w1", "w2", "w3", "u", "v"])
    R = rotation_matrix(Y, "ZXZ")
    m, r, A1, A2, A3 = sp.symbols("m r A1 A2 A3", positive=True)
    W = sp.Matrix(F.v[:3])
    u, v = F.v[3:]
    Om = R * W
    S = QuasiVelocitySystem(F, (A1 * W[0] ** 2 + A2 * W[1] ** 2 + A3 * W[2] ** 2) / 2 + m * (u**2 + v**2) / 2,
                            constraints=[u - r * Om[1], v + r * Om[0]])
    par = {m: 1.0, r: 1.0, A1: 0.3, A2: 0.4, A3: 0.5}
    ini = S.jet_state({Y.q[0]: 0.1, Y.q[1]: 1.0, Y.q[2]: 0.2, Y.q[3]: 0, Y.q[4]: 0,
                       W[0]: 1.0, W[1]: -0.5, W[2]: 2.0}, params=par)
    return S, par, ini
