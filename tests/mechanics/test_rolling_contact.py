"""Rolling contact on planes, spheres and cylinders (jetgeo.mechanics.rigid.rolling_contact).

Independent truths: the contact kinematics built point by point with ``sympy.physics.mechanics``
(centre, contact point, v_G + ω × (P − G)) at exact points; the ball inside a vertical cylinder,
whose height oscillates with frequency √(2/7) Ω [Gualtieri et al. 2006]; the ball in a spherical
bowl, small oscillations of frequency √(5g / (7(R − ρ))) and the spin about the normal an integral
[Routh 1884]; [Borisov–Mamaev–Kilin 2002]; the ball on a sphere of radius R → ∞ is the ball on the plane,
exactly; the rubber ball's integral |M × γ|², M = (I + mρ²) Ω [Borisov–Mamaev 2008]; energy kept by the
integrator.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from sympy.core.function import AppliedUndef
from sympy.physics.mechanics import Point, ReferenceFrame, dynamicsymbols

from jetgeo import FibredManifold
from jetgeo.errors import InputError
from jetgeo.geometry import is_zero
from jetgeo.mechanics.rigid import (
    QUATERNION,
    ContactSurface,
    SupportFunction,
    ellipsoid_support,
    quadric_support,
    rolling_contact,
    rolling_on_plane,
    rotation_matrix,
)
from jetgeo.numerics import simulate

m, rho, R, g = sp.symbols("m rho R g", positive=True)
a1, a2, a3 = sp.symbols("a1 a2 a3", positive=True)
NAMES = ["w1", "w2", "w3", "v1", "v2"]


def _ball(surface: ContactSurface, sequence: str = "ZXZ", rubber: bool = False):
    Y = FibredManifold(["phi", "theta", "psi", "s1", "s2"])
    S = rolling_contact(Y, sequence, NAMES, ellipsoid_support(rho, rho, rho), m, sp.eye(3) * 2 * m * rho**2 / 5,
                        surface, gravity=g, rubber=rubber)
    return Y, S


def _mechanics_contact(Y, sequence, surface, support_point, offset):
    """v_G and the material contact point's velocity built with sympy.physics.mechanics points, in (q, q̇)."""
    qs = dynamicsymbols("q1:6")
    t = dynamicsymbols._t
    N = ReferenceFrame("N")
    B = N.orientnew("B", "Body", qs[:3], sequence)
    back = {q.diff(t): qd for q, qd in zip(qs, Y.qdot)}
    back.update(dict(zip(qs, Y.q)))
    Pvec, nu, E = surface.geometry(qs[3:])
    O0 = Point("O0")
    O0.set_vel(N, 0)
    P = O0.locatenew("P", Pvec[0] * N.x + Pvec[1] * N.y + Pvec[2] * N.z)
    gam = sp.Matrix([nu[0] * B.dcm(N)[i, 0] + nu[1] * B.dcm(N)[i, 1] + nu[2] * B.dcm(N)[i, 2] for i in range(3)])
    xs = support_point(gam)  # the body's contact point from O, body axes
    O = P.locatenew("O", -(xs[0] * B.x + xs[1] * B.y + xs[2] * B.z))
    G = O.locatenew("G", offset[0] * B.x + offset[1] * B.y + offset[2] * B.z)
    vG = G.pos_from(O0).dt(N)
    vc = vG + B.ang_vel_in(N).cross(P.pos_from(G))

    def in_jets(e):
        # xreplace matches q̇ᵢ(t) as a whole before its argument qᵢ(t): exactly .subs(back) here, without
        # subs' pattern search (which took ~75 % of this test); no function of t may be left over
        out = e.xreplace(back)
        assert not out.atoms(sp.Derivative, AppliedUndef), out
        return out

    tang = [in_jets(vc.dot(ei[0] * N.x + ei[1] * N.y + ei[2] * N.z)) for ei in E]
    normal = in_jets(vc.dot(nu[0] * N.x + nu[1] * N.y + nu[2] * N.z))
    vG2 = in_jets(vG.dot(vG))
    zG = in_jets(G.pos_from(O0).dot(N.z))
    return tang, normal, vG2, zG


SURFACES = [ContactSurface("sphere", 5), ContactSurface("sphere", 5, inside=True),
            ContactSurface("cylinder", 5, inside=True), ContactSurface("cylinder", 5, axis="horizontal"),
            ContactSurface("cylinder", 5, axis="horizontal", inside=True, centre=(1, 2, 3))]


@pytest.mark.slow
@pytest.mark.parametrize("surface", SURFACES, ids=lambda s: f"{s.kind}-{s.axis}-{'in' if s.inside else 'out'}")
def test_contact_constraints_and_energy_equal_the_point_by_point_construction(surface):
    """An ellipsoid with an offset centre of mass on each surface: the helper's no-slip constraints are the
    tangential components of v_G + ω × (P − G) built from sympy.physics.mechanics points, the normal
    component vanishes, and the kinetic and potential energies agree — at random exact points."""
    Y = FibredManifold(["phi", "theta", "psi", "s1", "s2"])
    off = (sp.Rational(1, 7), sp.Rational(-1, 5), sp.Rational(1, 3))
    Ib = sp.Matrix([[2, 0, sp.Rational(1, 4)], [0, 3, 0], [sp.Rational(1, 4), 0, 4]])
    axes = (sp.Rational(3, 2), 1, sp.Rational(1, 2))
    S = rolling_contact(Y, "ZXZ", NAMES, ellipsoid_support(*axes), m, Ib, surface, offset=off, gravity=g)
    A = sp.diag(*[x**2 for x in axes])

    def support_point(gam):  # ∇h(−γ) of the ellipsoid, written out by hand
        return -A * gam / sp.sqrt((gam.T * A * gam)[0])

    tang, normal, vG2, zG = _mechanics_contact(Y, "ZXZ", surface, support_point, off)
    kin = S.frame.kinematics()
    W = sp.Matrix(S.frame.v[:3])
    point = {m: 2, g: sp.Rational(49, 5)}

    def in_v(e):
        return e.xreplace(kin).xreplace(point)

    helper = [c.xreplace(point) for c in S.phi]
    assert len(helper) == 2
    for mine, ref in zip(helper, tang):
        assert is_zero(mine - in_v(ref))
    assert is_zero(in_v(normal))
    ell_ref = (W.T * Ib * W)[0] / 2 + point[m] * in_v(vG2) / 2 - point[m] * point[g] * in_v(zG)
    assert is_zero(S.ell.xreplace(point) - ell_ref)


def test_plane_helper_is_rolling_on_plane_and_quaternions_give_the_same_body():
    """rolling_on_plane is rolling_contact on the plane; the quaternion chart states the same ball in a bowl
    (the same ℓ and constraints once R(q) of the quaternion equals R of the Euler angles)."""
    Y = FibredManifold(["phi", "theta", "psi", "x", "y"])
    h = ellipsoid_support(a1, a2, a3)
    S1 = rolling_on_plane(Y, "XYZ", NAMES, h, m, sp.diag(1, 2, 3), offset=(0, 0, -rho), gravity=g)
    S2 = rolling_contact(Y, "XYZ", NAMES, h, m, sp.diag(1, 2, 3), offset=(0, 0, -rho), gravity=g)
    assert S1.ell == S2.ell and S1.phi == S2.phi and S1.dependent == S2.dependent
    # quaternions: a ball in a bowl, compared with the ZXZ chart at a point where the rotations agree
    Yq = FibredManifold(["q0", "q1", "q2", "q3", "s1", "s2"])
    bowl = ContactSurface("sphere", R, inside=True)
    Sq = rolling_contact(Yq, QUATERNION, ["w1", "w2", "w3", "s", "v1", "v2"], ellipsoid_support(rho, rho, rho),
                         m, sp.eye(3) * 2 * m * rho**2 / 5, bowl, gravity=g)
    Ye, Se = _ball(bowl)
    assert Sq.dependent == (Sq.frame.v[3], *Sq.frame.v[4:])
    quat = dict(zip(Yq.q[:4], (sp.Rational(1, 2), sp.Rational(1, 2), sp.Rational(1, 2), sp.Rational(1, 2))))
    Rq = rotation_matrix(Yq, QUATERNION).xreplace(quat)  # a rotation by 2π/3 about (1, 1, 1)
    ang = {Ye.q[0]: sp.pi / 2, Ye.q[1]: sp.pi / 2, Ye.q[2]: 0}
    assert rotation_matrix(Ye, "ZXZ").xreplace(ang) == Rq
    rename = {**dict(zip(Yq.q[4:], Ye.q[3:])), **dict(zip(Sq.frame.v[:3], Se.frame.v[:3])),
              **dict(zip(Sq.frame.v[4:], Se.frame.v[3:]))}
    for e_q, e_e in zip([Sq.ell, *Sq.phi[1:]], [Se.ell, *Se.phi]):
        assert is_zero(e_q.xreplace(quat).xreplace(rename) - e_e.xreplace(ang))
    # and an ellipsoid on the plane in quaternions (the radial rate s drops out of ℓ: R(q) is 0-homogeneous)
    Yp = FibredManifold(["q0", "q1", "q2", "q3", "x", "y"])
    Sp = rolling_contact(Yp, QUATERNION, ["w1", "w2", "w3", "s", "v1", "v2"], h, m, sp.diag(1, 2, 3),
                         offset=(0, 0, -rho), gravity=g)
    assert Sp.dependent == (Sp.frame.v[3], *Sp.frame.v[4:])
    Sz = rolling_contact(Y, "ZXZ", NAMES, h, m, sp.diag(1, 2, 3), offset=(0, 0, -rho), gravity=g)
    quat = dict(zip(Yp.q[:4], (sp.Rational(1, 2),) * 4))
    rename = {**dict(zip(Sp.frame.v[:3], Sz.frame.v[:3])), **dict(zip(Sp.frame.v[4:], Sz.frame.v[3:]))}
    for e_q, e_e in zip([Sp.ell, *Sp.phi[1:]], [Sz.ell, *Sz.phi]):
        assert is_zero(e_q.xreplace(quat).xreplace(rename) - e_e.xreplace(ang))


def test_ball_on_a_sphere_tends_to_the_ball_on_the_plane_as_the_radius_grows():
    """A ball on top of a sphere of radius R centred at (0, 0, −R), in the chart x = R a, y = −R b near the
    top: as R → ∞ its no-slip constraints and its Lagrangian tend exactly to those of the ball on the
    plane (rolling_on_plane), limits taken by sympy in ε = 1/R."""
    eps = sp.Symbol("epsilon", positive=True)
    Ys, Ss = _ball(ContactSurface("sphere", R, centre=(0, 0, -R)))
    Yp = FibredManifold(["phi", "theta", "psi", "x", "y"])
    Sp = rolling_on_plane(Yp, "ZXZ", ["w1", "w2", "w3", "u", "v"], ellipsoid_support(rho, rho, rho), m,
                          sp.eye(3) * 2 * m * rho**2 / 5, gravity=g)
    x, y = Yp.q[3:]
    u, v = Sp.frame.v[3:]
    a, b = Ys.q[3:]
    va, vb = Ss.frame.v[3:]
    chart = {a: eps * x, b: -eps * y, va: eps * u, vb: -eps * v, R: 1 / eps}

    def limit(e):
        return sp.limit(sp.expand(e.xreplace(chart)), eps, 0)

    assert is_zero(limit(Ss.phi[0]) - Sp.phi[0])
    assert is_zero(limit(Ss.phi[1]) + Sp.phi[1])  # E₂ = (0, −cos b, −sin b) → −e_y
    assert is_zero(limit(Ss.ell) - Sp.ell)


def _fit_residual(t, y, omega):
    """Largest residual of the least-squares fit y ≈ c + A cos ωt + B sin ωt, relative to the amplitude."""
    basis = np.column_stack([np.ones_like(t), np.cos(omega * t), np.sin(omega * t)])
    coef, *_ = np.linalg.lstsq(basis, y, rcond=None)
    return np.max(np.abs(basis @ coef - y)) / np.hypot(coef[1], coef[2])


@pytest.mark.slow
def test_ball_inside_a_vertical_cylinder_oscillates_with_frequency_sqrt_two_sevenths():
    """A homogeneous ball rolling inside a vertical cylinder under gravity: the rate Ω of its centre about
    the axis is constant and its height is exactly harmonic with frequency √(2/7) |Ω| — the ratio
    k²/(1 + k²), k² = 2/5, of the golf ball that lips out [Gualtieri et al. 2006]; energy kept to 1e-9."""
    Y, S = _ball(ContactSurface("cylinder", R, inside=True))
    w1, w2, w3 = S.frame.v[:3]
    par = {m: 1.0, rho: 0.1, R: 0.5, g: 9.81}
    ini = S.jet_state({Y.q[0]: 0.3, Y.q[1]: 1.0, Y.q[2]: 0.2, Y.q[3]: 0, Y.q[4]: 0, w1: 20.0, w2: -10.0,
                       w3: 30.0}, params=par)
    te = np.linspace(0, 2, 401)
    res = simulate(S.motion(), (0, 2), ini, par, t_eval=te, rtol=1e-11, atol=1e-12, formulation="multipliers")
    assert res.status == "finished" and res.relative_energy_drift < 1e-9 and res.max_residual < 1e-9
    Om = res.qdot[:, 3]
    assert np.ptp(Om) < 1e-9 * abs(Om[0]) and abs(Om[0]) > 2
    omega = np.sqrt(2 / 7) * abs(Om[0])
    z = res.q[:, 4]
    assert _fit_residual(res.t, z, omega) < 1e-7
    assert _fit_residual(res.t, z, 1.01 * omega) > 1e-3  # the fit does distinguish the frequency


@pytest.mark.slow
def test_ball_in_a_spherical_bowl_small_oscillations_and_the_spin_integral():
    """A homogeneous ball in a spherical bowl: small oscillations of frequency √(5g / (7(R − ρ)))
    [Routh 1884]; with spin, ⟨ω, ν⟩ (the spin about the contact normal) is an integral
    [Borisov–Mamaev–Kilin 2002] and the energy is kept to 1e-9."""
    Y, S = _ball(ContactSurface("sphere", R, inside=True), "XYZ")  # XYZ: regular at the rest angles 0
    w1, w2, w3 = S.frame.v[:3]
    par = {m: 1.0, rho: 0.1, R: 0.5, g: 9.81}
    M = S.motion()
    # a swing in the plane x = 0 from a small angle b, released at rest
    ini = S.jet_state({Y.q[0]: 0, Y.q[1]: 0, Y.q[2]: 0, Y.q[3]: 0, Y.q[4]: 1e-4, w1: 0, w2: 0, w3: 0}, params=par)
    omega = np.sqrt(5 * 9.81 / (7 * 0.4))
    te = np.linspace(0, 3, 301)
    res = simulate(M, (0, 3), ini, par, t_eval=te, rtol=1e-12, atol=1e-14, formulation="multipliers")
    assert res.status == "finished"
    b = res.q[:, 4]
    assert np.ptp(b) > 1.9e-4
    assert _fit_residual(res.t, b, omega) < 1e-5
    assert _fit_residual(res.t, b, 1.01 * omega) > 1e-3
    # with spin: ⟨Ω, γ⟩ is kept
    ini = S.jet_state({Y.q[0]: 0.3, Y.q[1]: 1.0, Y.q[2]: 0.2, Y.q[3]: 0.2, Y.q[4]: -0.1, w1: 2.0, w2: -1.0,
                       w3: 3.0}, params=par)
    res = simulate(M, (0, 2), ini, par, t_eval=np.linspace(0, 2, 41), rtol=1e-11, atol=1e-12,
                   formulation="multipliers")
    assert res.status == "finished" and res.relative_energy_drift < 1e-9
    spin = sp.lambdify([*Y.q, *Y.qdot], _spin_about_normal(Y, S).xreplace(par))
    values = np.array([spin(*q, *qd) for q, qd in zip(res.q, res.qdot)])
    assert np.ptp(values) < 1e-9 and abs(values[0]) > 0.3


def _spin_about_normal(Y, S):
    """⟨Ω, γ⟩ = ⟨ω, ν⟩ in (q, q̇), γ = Rᵀν of the bowl."""
    nu = ContactSurface("sphere", R, inside=True).geometry(Y.q[3:])[1]
    gam = rotation_matrix(Y, "XYZ").T * nu
    Om = S.frame.Phi[:3, :] * sp.Matrix(Y.qdot)
    return Om.dot(gam)


@pytest.mark.slow
def test_rubber_ball_keeps_the_no_spin_constraint_and_its_integral():
    """A rubber ball (centre of mass at the centre, unequal moments) rolling without slipping or spinning on the
    plane: with M = (I + m ρ²) Ω, Ṁ = M × Ω + λ γ, so |M|² − ⟨M, γ⟩² is an integral
    [Borisov–Mamaev 2008, §1.3]; ⟨Ω, γ⟩ = 0 and the energy are kept to 1e-9."""
    Y = FibredManifold(["phi", "theta", "psi", "x", "y"])
    Ib = sp.diag(sp.Rational(3, 10), sp.Rational(2, 5), sp.Rational(1, 2))
    S = rolling_on_plane(Y, "ZXZ", ["w1", "w2", "w3", "u", "v"], ellipsoid_support(1, 1, 1), 1, Ib, rubber=True)
    assert S.k == 3
    w1, w2, w3 = S.frame.v[:3]
    th, ps = 1.0, 0.2
    gam0 = np.array([np.sin(th) * np.sin(ps), np.sin(th) * np.cos(ps), np.cos(th)])
    W0 = np.cross(gam0, [1.0, -0.5, 2.0])  # ⟨Ω, γ⟩ = 0
    values = {Y.q[0]: 0.1, Y.q[1]: th, Y.q[2]: ps, Y.q[3]: 0, Y.q[4]: 0}
    free = [v for v in S.independent if v in (w1, w2, w3)]
    values.update({v: W0[[w1, w2, w3].index(v)] for v in free})
    ini = S.jet_state(values)
    res = simulate(S.motion(), (0, 3), ini, {}, t_eval=np.linspace(0, 3, 31), rtol=1e-11, atol=1e-12)
    assert res.status == "finished" and res.relative_energy_drift < 1e-9 and res.max_residual < 1e-9
    R_ = rotation_matrix(Y, "ZXZ")
    gam = R_.T * sp.Matrix([0, 0, 1])
    W = S.frame.Phi[:3, :] * sp.Matrix(Y.qdot)
    Mom = (Ib + sp.eye(3)) * W
    F = sp.lambdify([*Y.q, *Y.qdot], Mom.dot(Mom) - Mom.dot(gam) ** 2)
    spin = sp.lambdify([*Y.q, *Y.qdot], W.dot(gam))
    f = np.array([F(*q, *qd) for q, qd in zip(res.q, res.qdot)])
    assert np.ptp(f) < 1e-9 * abs(f[0])
    assert max(abs(spin(*q, *qd)) for q, qd in zip(res.q, res.qdot)) < 1e-9
    assert np.ptp(res.q[:, 3]) > 0.1  # it rolls


def test_quadric_support_is_the_ellipsoid_support():
    """The implicit quadric (x/a)² + (y/b)² + ((z − d)/c)² = 1 has the ellipsoid's support function shifted by
    d e_z: h(ξ) = d ξ₃ + √(a²ξ₁² + b²ξ₂² + c²ξ₃²), and its largest radius of curvature."""
    x, y, z = sp.symbols("x y z")
    d = sp.Rational(1, 3)
    h = quadric_support((x / a1) ** 2 + (y / a2) ** 2 + ((z - d) / a3) ** 2 - 1, (x, y, z))
    xi = sp.Matrix(sp.symbols("k1:4"))
    assert is_zero(h(xi) - d * xi[2] - ellipsoid_support(a1, a2, a3)(xi))
    # the same surface with φ turned round, and a rotated quadric, numerically exact
    h2 = quadric_support(-(x**2 + 4 * y**2 + 9 * z**2 - 1), (x, y, z))
    assert h2(sp.Matrix([0, 0, 1])) == sp.Rational(1, 3) and h2.max_curvature_radius == 3
    h3 = quadric_support(2 * x**2 + 2 * x * y + 2 * y**2 + z**2 - 3, (x, y, z))
    assert h3(sp.Matrix([1, -1, 0])) ** 2 == 6  # along the eigenvector (1, −1)/√2 of eigenvalue 1: semi-axis √3


@pytest.mark.parametrize("call, match", [
    (lambda: ContactSurface("cone", 1), "unknown surface"),
    (lambda: ContactSurface("sphere", -2), "must be positive"),
    (lambda: ContactSurface("sphere"), "needs its radius"),
    (lambda: ContactSurface("cylinder", 1, axis="oblique"), "axis"),
    (lambda: ellipsoid_support(1, 0, 2), "must be positive"),
    (lambda: quadric_support(sp.Symbol("x") ** 2 - sp.Symbol("y") ** 2 + sp.Symbol("z") ** 2 - 1,
                             sp.symbols("x y z")), "not an ellipsoid"),
    (lambda: quadric_support(sp.Symbol("x") ** 4 + sp.Symbol("y") ** 2 + sp.Symbol("z") ** 2 - 1,
                             sp.symbols("x y z")), "degree 4"),
    (lambda: quadric_support(sp.Symbol("x") ** 2 + sp.Symbol("y") ** 2 + sp.Symbol("z") ** 2 + 1,
                             sp.symbols("x y z")), "no real points"),
])
def test_bad_shapes_and_surfaces_are_named(call, match):
    with pytest.raises(InputError, match=match):
        call()


def test_bad_bodies_are_named():
    Y = FibredManifold(["phi", "theta", "psi", "s1", "s2"])
    ball = ellipsoid_support(1, 1, 1)
    bowl = ContactSurface("sphere", 1, inside=True)
    with pytest.raises(InputError, match="does not fit"):
        rolling_contact(Y, "ZXZ", NAMES, ellipsoid_support(1, 1, 2), 1, sp.eye(3), ContactSurface("sphere", 3,
                                                                                                   inside=True))
    with pytest.raises(InputError, match="does not fit"):
        rolling_contact(Y, "ZXZ", NAMES, ball, 1, sp.eye(3), bowl)
    with pytest.raises(InputError, match="homogeneous"):
        rolling_contact(Y, "ZXZ", NAMES, lambda xi: xi[0] ** 2 + xi[1] ** 2 + xi[2] ** 2, 1, sp.eye(3))
    with pytest.raises(InputError, match="3 × 3"):
        rolling_contact(Y, "ZXZ", NAMES, ball, 1, sp.eye(2))
    with pytest.raises(InputError, match="not positive definite"):
        rolling_contact(Y, "ZXZ", NAMES, ball, 1, sp.diag(1, -1, 1))
    with pytest.raises(InputError, match="symmetric"):
        rolling_contact(Y, "ZXZ", NAMES, ball, 1, sp.Matrix([[1, 1, 0], [0, 1, 0], [0, 0, 1]]))
    with pytest.raises(InputError, match="mass must be positive"):
        rolling_contact(Y, "ZXZ", NAMES, ball, -1, sp.eye(3))
    with pytest.raises(InputError, match="five|5 coordinates|needs 5"):
        rolling_contact(FibredManifold(["a", "b", "c"]), "ZXZ", NAMES[:3], ball, 1, sp.eye(3))
    with pytest.raises(InputError, match="needs 6"):
        rolling_contact(Y, QUATERNION, NAMES, ball, 1, sp.eye(3))
    with pytest.raises(InputError, match="ContactSurface"):
        rolling_contact(Y, "ZXZ", NAMES, ball, 1, sp.eye(3), "sphere")
    with pytest.raises(InputError, match="offset"):
        rolling_contact(Y, "ZXZ", NAMES, ball, 1, sp.eye(3), offset=(0, 1))
    with pytest.raises(InputError, match="callable"):
        SupportFunction(3)
