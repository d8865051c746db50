"""The catalogue's kinetic energies and rolling constraints, re-derived with sympy.physics.vector.

An independent construction of the same models: reference frames rotated by the Euler
angles, the angular velocity and the velocity of the contact point computed by
sympy's vector algebra (v_I = v_G + ω × GI), the kinetic energy by König's theorem
with the inertia of each body in its principal frame.  The catalogue's hand-written
formulas must agree: T exactly (zero test), and the constraints as the same linear
conditions (the rows span the same space: rank of the stacked Jacobians = k).
"""

from __future__ import annotations

import sympy as sp
from sympy.physics.vector import ReferenceFrame, dynamicsymbols

from jetgeo import systems
from jetgeo.geometry import generic_rank, zero_test


def _to_jets(Y, names, expr):
    """Replace dynamicsymbols q(t), q'(t) by the jet symbols q, qdot."""
    qs = dynamicsymbols(" ".join(names))
    rep = {}
    for q, v in zip(qs, Y.qdot):
        rep[q.diff(dynamicsymbols._t)] = v
    expr = sp.sympify(expr).subs(rep)
    return expr.subs(dict(zip(qs, Y.q)))


def _same_constraints(e, rows):
    """The entry's constraints and ``rows`` define the same (linear) velocity conditions."""
    Y = e.Y
    J = e.Q.jacobian()
    K = sp.Matrix([[sp.diff(r, v) for v in Y.qdot] for r in rows])
    assert generic_rank(K).rank == e.Q.k
    assert generic_rank(J.col_join(K)).rank == e.Q.k
    # and no velocity-free terms on either side (homogeneous)
    zero_v = {v: 0 for v in Y.qdot}
    assert all(zero_test(r.xreplace(zero_v)).zero for r in rows)
    assert all(zero_test(f.xreplace(zero_v)).zero for f in e.Q.f)


def _euler_frames(psi, theta, phi):
    N = ReferenceFrame("N")
    A = N.orientnew("A", "Axis", [psi, N.z])  # precession about the vertical
    B = A.orientnew("B", "Axis", [theta, A.x])  # nutation about the line of nodes u = A.x
    C = B.orientnew("C", "Axis", [phi, B.z])  # spin about the symmetry axis B.z
    return N, A, B, C


def test_rolling_disc_model_003_33():
    """[Ghori 1960, §3.3]: G = (x, y, a sin θ), contact point I = G − a·B.y (the lowest point of the rim)."""
    e = systems.load("rolling_disc")
    names = ["x", "y", "theta", "psi", "phi"]
    x, y, th, ps, ph = dynamicsymbols(" ".join(names))
    m, a, Ai, Ci = sp.symbols("m a A C", positive=True)
    N, A, B, C = _euler_frames(ps, th, ph)
    w = C.ang_vel_in(N)
    t = dynamicsymbols._t
    vG = x.diff(t) * N.x + y.diff(t) * N.y + (a * sp.sin(th)).diff(t) * N.z
    vI = vG + w.cross(-a * B.y)
    assert zero_test(_to_jets(e.Y, names, vI.dot(N.z))).zero  # the vertical condition is holonomic: z_G = a sin θ
    T = m / 2 * vG.dot(vG) + (Ai * w.dot(B.x) ** 2 + Ai * w.dot(B.y) ** 2 + Ci * w.dot(B.z) ** 2) / 2
    assert zero_test(_to_jets(e.Y, names, T) - e.system.kinetic_energy).zero
    _same_constraints(e, [_to_jets(e.Y, names, vI.dot(N.x)), _to_jets(e.Y, names, vI.dot(N.y))])
    assert zero_test(e.system.potential_energy - sp.Symbol("g", positive=True) * m * a * sp.sin(e.Y.q[2])).zero


def test_rolling_ball_model_003_34():
    """[Ghori 1960, §3.4]: centre O = (x, y, a), contact point I = O − a·N.z, inertia (A, A, C) about O."""
    e = systems.load("rolling_ball")
    names = ["x", "y", "theta", "psi", "phi"]
    x, y, th, ps, ph = dynamicsymbols(" ".join(names))
    m, a, Ai, Ci = sp.symbols("m a A C", positive=True)
    N, A, B, C = _euler_frames(ps, th, ph)
    w = C.ang_vel_in(N)
    vO = x.diff(dynamicsymbols._t) * N.x + y.diff(dynamicsymbols._t) * N.y
    vI = vO + w.cross(-a * N.z)
    T = m / 2 * vO.dot(vO) + (Ai * w.dot(B.x) ** 2 + Ai * w.dot(B.y) ** 2 + Ci * w.dot(B.z) ** 2) / 2
    assert zero_test(_to_jets(e.Y, names, T) - e.system.kinetic_energy).zero
    _same_constraints(e, [_to_jets(e.Y, names, vI.dot(N.x)), _to_jets(e.Y, names, vI.dot(N.y))])
    # [Ghori 1960, eq. (3.4.1)]: ω_z = ψ̇ + φ̇ cos θ
    assert zero_test(_to_jets(e.Y, names, w.dot(N.z)) - (e.Y.qdot[3] + e.Y.qdot[4] * sp.cos(e.Y.q[2]))).zero


def test_two_wheels_axle_model_003_32():
    """[Ghori 1960, §3.2]: rod (m₁, length 2a) along A.x, wheels (m, radius a) at G ± a·A.x spinning about A.x;
    the wheel at G + a·A.x rolls: its contact point G + a·A.x − a·N.z has zero velocity."""
    e = systems.load("two_wheels_axle")
    names = ["x", "y", "psi", "phi", "chi"]
    x, y, ps, ph, ch = dynamicsymbols(" ".join(names))
    m1, m, a = sp.symbols("m1 m a", positive=True)
    N = ReferenceFrame("N")
    A = N.orientnew("A", "Axis", [ps, N.z])
    D1 = A.orientnew("D1", "Axis", [ph, A.x])
    D2 = A.orientnew("D2", "Axis", [ch, A.x])
    vG = x.diff(dynamicsymbols._t) * N.x + y.diff(dynamicsymbols._t) * N.y
    wA = A.ang_vel_in(N)
    vO1 = vG + wA.cross(a * A.x)
    vO2 = vG + wA.cross(-a * A.x)
    vI = vO1 + D1.ang_vel_in(N).cross(-a * N.z)
    T_rod = m1 / 2 * vG.dot(vG) + m1 * (2 * a) ** 2 / 12 * wA.dot(N.z) ** 2 / 2

    def wheel(v, D):
        w = D.ang_vel_in(N)
        rot = m * a**2 / 2 * w.dot(A.x) ** 2 + m * a**2 / 4 * (w.dot(A.y) ** 2 + w.dot(A.z) ** 2)
        return m / 2 * v.dot(v) + rot / 2

    T = T_rod + wheel(vO1, D1) + wheel(vO2, D2)
    assert zero_test(_to_jets(e.Y, names, T) - e.system.kinetic_energy).zero
    _same_constraints(e, [_to_jets(e.Y, names, vI.dot(N.x)), _to_jets(e.Y, names, vI.dot(N.y))])


def test_vertical_disc_and_coaxial_discs_models_001_92_93():
    """[Benenti 2007, eq. (9.2)]: contact point P − R·N.z of a vertical disc with axis u = cos ψ j − sin ψ i;
    (9.10)-(9.11):
    the second disc at P₂ = P₁ + a(sin ψ, −cos ψ) on the same axis."""
    e = systems.load("coaxial_discs")
    names = ["x", "y", "theta1", "theta2", "psi", "a"]
    x, y, th1, th2, ps, a = dynamicsymbols(" ".join(names))
    m, Ai, Bi, R = sp.symbols("m A B R", positive=True)
    N = ReferenceFrame("N")
    K = N.orientnew("K", "Axis", [ps, N.z])  # K.y = (−sin ψ, cos ψ) = u, the common axis
    D1 = K.orientnew("D1", "Axis", [th1, K.y])
    D2 = K.orientnew("D2", "Axis", [th2, K.y])
    vP1 = x.diff(dynamicsymbols._t) * N.x + y.diff(dynamicsymbols._t) * N.y
    P2 = x * N.x + y * N.y - a * K.y  # = P₁ + a(sin ψ, −cos ψ)
    vP2 = P2.dt(N)
    vI1 = vP1 + D1.ang_vel_in(N).cross(-R * N.z)
    vI2 = vP2 + D2.ang_vel_in(N).cross(-R * N.z)

    def disc(v, D):
        w = D.ang_vel_in(N)
        return m / 2 * v.dot(v) + (Ai * w.dot(K.y) ** 2 + Bi * w.dot(N.z) ** 2) / 2

    T = disc(vP1, D1) + disc(vP2, D2)
    assert zero_test(_to_jets(e.Y, names, T) - e.system.kinetic_energy).zero
    rows = [_to_jets(e.Y, names, v.dot(n)) for v in (vI1, vI2) for n in (N.x, N.y)]
    _same_constraints(e, rows)
