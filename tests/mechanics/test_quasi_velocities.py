"""Systems stated in quasi-velocities (jetgeo.mechanics.quasi, jetgeo.mechanics.rigid).

Independent truths: Suslov's equations derived by hand from I Ω̇ = I Ω × Ω + λ e
[Bloch 2003]; the same body modelled by ``sympy.physics.mechanics`` (a RigidBody's kinetic
energy in Euler-angle rates) and run through Krupková's coordinate route; Euler's equations;
the structure constants of so(3); every catalogue system with a rigid body rewritten in a frame
and compared with its coordinate route (accelerations and Chetaev reactions); random frames.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sympy.physics.mechanics import Point, ReferenceFrame, RigidBody, dynamicsymbols, inertia

from jetgeo import ConstraintSubmanifold, FibredManifold, LagrangianSystem
from jetgeo.errors import InputError, NotApplicableError, RankDeficientError
from jetgeo.geometry import is_zero
from jetgeo.mechanics.quasi import QuasiVelocities, QuasiVelocitySystem
from jetgeo.mechanics.rigid import EULER_SEQUENCES, body_angular_velocity, chart_singularity, rotation_matrix
from jetgeo.numerics import prepare, simulate
from jetgeo.recipes import equivalent
from jetgeo.systems import load

I1, I2, I3, I12, I13, I23 = sp.symbols("I1 I2 I3 I12 I13 I23")


def suslov(sequence: str = "ZXZ", with_i12: bool = True):
    """Suslov's problem in at most 15 lines of user code (the acceptance criterion)."""
    Y = FibredManifold(["a1", "a2", "a3"])
    F = body_angular_velocity(Y, sequence, ["w1", "w2", "w3"])
    w = sp.Matrix(F.v)
    Ib = sp.Matrix([[I1, I12 if with_i12 else 0, I13], [I12 if with_i12 else 0, I2, I23], [I13, I23, I3]])
    e3 = sp.Matrix([0, 0, 1])
    S = QuasiVelocitySystem(F, (w.T * Ib * w)[0] / 2, constraints=[w.dot(e3)])
    return Y, F, Ib, S


def test_suslov_equals_the_hand_derived_euler_suslov_equations():
    Y, F, Ib, S = suslov()
    w1, w2, w3 = F.v
    acc = S.accelerations()
    assert acc[F.vdot[2]] == 0
    # by hand: Ω = (Ω1, Ω2, 0); rows 1, 2 of I Ω̇ = IΩ × Ω + λ e3 with Ω̇3 = 0; row 3 gives λ
    Om = sp.Matrix([w1, w2, 0])
    rhs = (Ib * Om).cross(Om)
    A2 = Ib[:2, :2]
    hand = A2.LUsolve(rhs[:2, :])
    for a in range(2):
        assert sp.cancel(acc[F.vdot[a]] - hand[a]) == 0
    lam_hand = Ib[2, 0] * hand[0] + Ib[2, 1] * hand[1] - rhs[2]
    assert sp.cancel(S.multipliers()[0] - lam_hand) == 0
    # the classical form for I12 = 0: I1 Ω̇1 = −Ω2 (I13 Ω1 + I23 Ω2), I2 Ω̇2 = Ω1 (I13 Ω1 + I23 Ω2)
    _, F0, _, S0 = suslov(with_i12=False)
    u1, u2, _ = F0.v
    a0 = S0.accelerations()
    assert sp.cancel(I1 * a0[F0.vdot[0]] + u2 * (I13 * u1 + I23 * u2)) == 0
    assert sp.cancel(I2 * a0[F0.vdot[1]] - u1 * (I13 * u1 + I23 * u2)) == 0


def test_suslov_equivalent_to_the_euler_angle_model_of_sympy_mechanics():
    Y, F, Ib, S = suslov()
    angles = dynamicsymbols("a1 a2 a3")
    N = ReferenceFrame("N")
    B = N.orientnew("B", "Body", angles, "ZXZ")
    O = Point("O")
    O.set_vel(N, 0)
    body = RigidBody("b", O, B, 1, (inertia(B, I1, I2, I3, I12, I23, I13), O))
    L = Y.from_dynamicsymbols(body.kinetic_energy(N))
    f = Y.from_dynamicsymbols(B.ang_vel_in(N).dot(B.z))
    cs = LagrangianSystem(Y, L).constrain(ConstraintSubmanifold(Y, [f]))
    report = equivalent(S.motion(), cs)
    assert report.equivalent and report.reactions  # accelerations and Chetaev reactions agree


@pytest.mark.parametrize("sequence", EULER_SEQUENCES)
def test_body_frame_structure_constants_are_those_of_so3(sequence):
    Y = FibredManifold(["a", "b", "c"])
    F = body_angular_velocity(Y, sequence, ["w1", "w2", "w3"])
    c = F.structure_functions()
    for g in range(3):
        for a in range(3):
            for b in range(3):
                assert is_zero(c[g][a][b] - sp.LeviCivita(a, b, g)), (sequence, g, a, b, c[g][a][b])
    # the chart fails at the pole of the sequence: sin of the middle angle (proper Euler), its cos (Tait–Bryan)
    mid = Y.q[1]
    expected = sp.sin(mid) if sequence[0] == sequence[2] else sp.cos(mid)
    d = chart_singularity(F)
    assert is_zero(d - expected) or is_zero(d + expected)


def test_free_rigid_body_gives_eulers_equations():
    Y = FibredManifold(["a1", "a2", "a3"])
    F = body_angular_velocity(Y, "XYZ", ["w1", "w2", "w3"])
    w1, w2, w3 = F.v
    S = QuasiVelocitySystem(F, (I1 * w1**2 + I2 * w2**2 + I3 * w3**2) / 2)
    acc = S.accelerations()
    assert sp.cancel(acc[F.vdot[0]] - (I2 - I3) * w2 * w3 / I1) == 0
    assert sp.cancel(acc[F.vdot[1]] - (I3 - I1) * w3 * w1 / I2) == 0
    assert sp.cancel(acc[F.vdot[2]] - (I1 - I2) * w1 * w2 / I3) == 0
    assert S.multipliers() == []


def _catalogue_frame(name: str):
    e = load(name)
    Y = e.system.Y
    if name in ("rolling_ball", "rolling_disc"):
        x, y, th, ps, ph = Y.q
        return e, body_angular_velocity(Y, "ZXZ", ["w1", "w2", "w3", "u1", "u2"], angles=[ps, th, ph])
    qd = dict(zip(map(str, Y.q), Y.qdot))
    heading = dict(zip(map(str, Y.q), Y.q)).get("psi", Y.q[2])
    rest = [v for s, v in zip(map(str, Y.q), Y.qdot) if s not in ("x", "y")]
    c, s = sp.cos(heading), sp.sin(heading)
    names = ["u", "w", *[f"r{i}" for i in range(len(rest))]]
    return e, QuasiVelocities(Y, names, velocities=[qd["x"] * c + qd["y"] * s, -qd["x"] * s + qd["y"] * c, *rest])


@pytest.mark.parametrize("name", ["rolling_ball", "rolling_disc", "vertical_disc", "two_wheels_axle",
                                  "coaxial_discs", "skate"])
def test_catalogue_rigid_bodies_in_a_frame_agree_with_the_coordinate_route(name):
    e, F = _catalogue_frame(name)
    S = QuasiVelocitySystem.from_coordinates(e.system, e.Q, F)
    report = equivalent(S.motion(), e.constrained())
    assert report.equivalent and report.reactions


def test_time_dependent_frame_rotating_axes():
    """A particle on a rotating table seen in rotating axes, with a knife edge fixed in those axes:
    the frame Ψ(t) rotates at the rate Ω, so Hamel's equations carry the term p Φ ∂_tΨ."""
    Y = FibredManifold(["x", "y"])
    x, y = Y.q
    xd, yd = Y.qdot
    t = Y.t
    Om, m, k = sp.symbols("Omega m k", positive=True)
    c, s = sp.cos(Om * t), sp.sin(Om * t)
    F = QuasiVelocities(Y, ["u", "w"], velocities=[c * xd + s * yd, -s * xd + c * yd])
    u, w = F.v
    ell = m * (u**2 + w**2) / 2 - k * (x**2 + y**2) / 2
    S = QuasiVelocitySystem(F, ell, constraints=[w - Om * x * u])  # a non-Chetaev-looking, affine constraint
    report = equivalent(S.motion(), S.constrain())
    assert report.equivalent and report.reactions
    # without the constraint: the coordinate route on TQ
    S0 = QuasiVelocitySystem(F, ell)
    acc = S0.motion().accelerations()
    sub = F.to_velocities()
    for qdd, rhs in zip(Y.qddot, (-k * x / m, -k * y / m)):
        assert is_zero(acc[qdd].xreplace(sub) - rhs)


coefficients = st.tuples(st.sampled_from([0, 1, 2, -1]), st.sampled_from([0, 1, -2]))


@settings(max_examples=6, deadline=None)
@given(st.tuples(coefficients, coefficients), st.sampled_from([1, 2, 3]), st.booleans())
def test_hamel_equals_the_coordinate_route_on_random_frames(coeffs, mass, constrained):
    """Random unimodular-by-construction frames Ψ(q) = [[1, P(q)], [Q(q), 1 + P(q) Q(q)]] on R²
    (the coordinate route, the reference here, is the slow side: L(q, Φ q̇) is rational in q)."""
    Y = FibredManifold(["x", "y"])
    x, y = Y.q
    (a0, a1), (b0, b1) = coeffs
    P = a0 + a1 * x
    Qf = b0 + b1 * sp.sin(y)
    F = QuasiVelocities(Y, ["u", "w"], frame=[[1, P], [Qf, 1 + P * Qf]])
    u, w = F.v
    ell = (mass * u**2 + w**2 + u * w) / 2 - x**2 * y / 3
    S = QuasiVelocitySystem(F, ell, constraints=[u + x * w] if constrained else [])
    M = S.motion()
    if constrained:
        assert equivalent(M, S.constrain()).equivalent
    else:
        acc = M.accelerations()
        ref = S.lagrangian_system().accelerations()
        sub = F.to_velocities()
        for qdd in Y.qddot:
            assert is_zero(acc[qdd].xreplace(sub) - ref[qdd])
    c = F.structure_functions()
    for g in range(2):
        assert is_zero(c[g][0][1] + c[g][1][0])


def test_suslov_simulates_in_a_chart_with_energy_and_constraint_kept():
    Y, F, Ib, S = suslov(with_i12=False)
    a1, a2, a3 = Y.q
    w1, w2, w3 = F.v
    par = {I1: 2.0, I2: 3.0, I3: 4.0, I13: 0.3, I23: 0.5}
    ini = S.jet_state({a1: 0.1, a2: 1.2, a3: 0.3, w1: 1.0, w2: 0.5})
    assert ini[w3] == 0
    res = simulate(S.motion(), (0, 3), ini, par, t_eval=np.linspace(0, 3, 31))
    assert res.status == "finished"
    assert res.relative_energy_drift < 1e-8 and res.max_residual < 1e-8
    # the energy of Suslov's body, computed from the body rates along the run, is the initial one
    Phi = sp.lambdify([*Y.q, *Y.qdot], F.Phi.xreplace({I1: 2.0}))
    T0 = (2.0 * 1.0**2 + 3.0 * 0.5**2) / 2
    for row in range(0, 31, 10):
        om = np.array(Phi(*res.q[row], *res.qdot[row])).astype(float) @ res.qdot[row]
        assert abs(om[2]) < 1e-8
        assert abs((2.0 * om[0] ** 2 + 3.0 * om[1] ** 2 + 4.0 * om[2] ** 2) / 2 + 0.3 * om[0] * om[2]
                   + 0.5 * om[1] * om[2] - T0) < 1e-8


def test_errors_are_named():
    Y = FibredManifold(["x", "y"])
    xd, yd = Y.qdot
    with pytest.raises(InputError, match="linear and homogeneous"):
        QuasiVelocities(Y, ["u", "w"], velocities=[xd + 1, yd])
    with pytest.raises(RankDeficientError, match="not independent"):
        QuasiVelocities(Y, ["u", "w"], velocities=[xd + yd, 2 * xd + 2 * yd])
    with pytest.raises(InputError, match="exactly one"):
        QuasiVelocities(Y, ["u", "w"])
    with pytest.raises(InputError, match="clash"):
        QuasiVelocities(Y, ["xdot", "w"], velocities=[xd, yd])
    F = QuasiVelocities(Y, ["u", "w"], velocities=[xd, yd])
    u, w = F.v
    with pytest.raises(InputError, match="not in the jet velocities"):
        QuasiVelocitySystem(F, u**2 + xd**2)
    with pytest.raises(RankDeficientError, match="not independent"):
        QuasiVelocitySystem(F, u**2 + w**2, constraints=[u, 2 * u])
    S = QuasiVelocitySystem(F, (u**2 + w**2) / 2, constraints=[u**2 + w**2 - 1])
    with pytest.raises(NotApplicableError, match="not affine"):
        S.normal_form  # noqa: B018
    with pytest.raises(InputError, match="unknown rotation sequence"):
        body_angular_velocity(FibredManifold(["a", "b", "c"]), "XXY", ["p", "q", "r"])


@functools.cache
def _chaplygin_ball():
    """Chaplygin's ball (centre of mass at the centre, unequal moments) rolling without slipping, stated in
    body-frame Ω and the centre's velocity (the contact point at rest), and its motion: built once for the
    three tests below, none of which changes them."""
    Y = FibredManifold(["a1", "a2", "a3", "x", "y"])
    F = body_angular_velocity(Y, "ZXZ", ["w1", "w2", "w3", "u", "v"])
    R = rotation_matrix(Y, "ZXZ")
    m, r, A1, A2, A3 = sp.symbols("m r A1 A2 A3", positive=True)
    W = sp.Matrix(F.v[:3])
    u, v = F.v[3:]
    Om = R * W  # the angular velocity in space axes
    ell = (A1 * W[0] ** 2 + A2 * W[1] ** 2 + A3 * W[2] ** 2) / 2 + m * (u**2 + v**2) / 2
    S = QuasiVelocitySystem(F, ell, constraints=[u - r * Om[1], v + r * Om[0]])  # the contact point at rest
    return Y, F, R, (m, r, A1, A2, A3), S, S.motion()


def test_chaplygin_sphere_keeps_chaplygins_integrals():
    """Chaplygin's ball (centre of mass at the centre, unequal moments) rolling without slipping,
    stated in body-frame Ω and the centre's velocity: energy, |K|² and ⟨K, γ⟩ with
    K = I Ω + m r² (Ω − γ ⟨γ, Ω⟩) the angular momentum about the contact point are integrals
    [Chaplygin 1903]; a run of 5 s keeps them to 1e-9 (relative)."""
    Y, F, R, (m, r, A1, A2, A3), S, motion = _chaplygin_ball()
    W = sp.Matrix(F.v[:3])
    u, v = F.v[3:]
    assert S.dependent == (u, v)
    par = {m: 1.0, r: 1.0, A1: 0.3, A2: 0.4, A3: 0.5}
    ini = S.jet_state({Y.q[0]: 0.1, Y.q[1]: 1.0, Y.q[2]: 0.2, Y.q[3]: 0, Y.q[4]: 0,
                       W[0]: 1.0, W[1]: -0.5, W[2]: 2.0}, params=par)
    res = simulate(motion, (0, 5), ini, par, t_eval=np.linspace(0, 5, 51), rtol=1e-11, atol=1e-12)
    assert res.status == "finished" and res.relative_energy_drift < 1e-9
    gam = R.T * sp.Matrix([0, 0, 1])  # the vertical in body axes
    K = sp.diag(A1, A2, A3) * W + m * r**2 * (W - gam * gam.dot(W))
    wb = dict(zip(W, F.Phi[:3, :] * sp.Matrix(Y.qdot)))
    Kq = K.xreplace(wb).xreplace(par)
    K2 = sp.lambdify([*Y.q, *Y.qdot], Kq.dot(Kq))
    Kg = sp.lambdify([*Y.q, *Y.qdot], Kq.dot(gam))
    k2 = np.array([K2(*q, *qd) for q, qd in zip(res.q, res.qdot)])
    kg = np.array([Kg(*q, *qd) for q, qd in zip(res.q, res.qdot)])
    assert np.ptp(k2) < 1e-9 * abs(k2[0]) and np.ptp(kg) < 1e-9 * max(1.0, abs(kg[0]))
    assert abs(k2[0]) > 0.1


@pytest.mark.slow
def test_rolling_on_plane_reproduces_the_hand_built_chaplygin_ball():
    """The contact helper (support function, r = ∇h(−γ), slip R(Ω × (r − a))) against the ball stated
    by hand (contact point r below the centre, slip v + ω × (−r e_z)): the same equations."""
    from jetgeo.mechanics.rigid import ellipsoid_support, rolling_on_plane

    Y, F, _, (m, r, A1, A2, A3), hand, _ = _chaplygin_ball()  # the ball stated by hand
    g = sp.Symbol("g", positive=True)
    names = ["w1", "w2", "w3", "u", "v"]
    helper = rolling_on_plane(Y, "ZXZ", names, ellipsoid_support(r, r, r), m, sp.diag(A1, A2, A3), gravity=g)
    u, v = F.v[3:]
    assert helper.dependent == hand.dependent == (u, v)
    a_helper, a_hand = helper.accelerations(), hand.accelerations()  # both in (t, q, Ω)
    for vd in F.vdot:
        assert is_zero(a_helper[vd] - a_hand[vd]), vd
    for l1, l2 in zip(helper.multipliers(), hand.multipliers()):
        assert is_zero(l1 - l2)


@pytest.mark.parametrize("which", ["suslov", "skate"])
def test_hamel_bordered_system_equals_the_coordinate_one(which):
    """W = Φᵀ W_v Φ, ℓ = Φᵀ(W_v a − h), J = J_v Φ, b = c − J_v a are the blocks of Lagrange's bordered
    system of L = ℓ(Φ q̇) [Ghori 1960, eq. (2.2.20)–(2.2.23)], entry by entry."""
    from jetgeo.mechanics.bordered import bordered_system

    if which == "suslov":
        _, _, _, S = suslov()
    else:
        e, F = _catalogue_frame("skate")
        S = QuasiVelocitySystem.from_coordinates(e.system, e.Q, F)
    mine = S.bordered_system()
    ref = bordered_system(S.lagrangian_system(), S.constraint_submanifold())
    for x, y in zip(mine.flat(), ref.flat()):
        assert is_zero(x - y)


def test_multipliers_formulation_integrates_hamels_bordered_system():
    """simulate(..., formulation="multipliers") solves the route's own bordered system: the Chaplygin
    ball's run agrees with the full formulation (the symbolic accelerations) to 1e-8."""
    Y, F, _, (m, r, A1, A2, A3), S, M = _chaplygin_ball()
    W = sp.Matrix(F.v[:3])
    assert prepare(M, "multipliers").bordered_expressions == M.bordered.flat()  # Hamel's, not L's
    par = {m: 1.0, r: 1.0, A1: 0.3, A2: 0.4, A3: 0.5}
    ini = S.jet_state({Y.q[0]: 0.1, Y.q[1]: 1.0, Y.q[2]: 0.2, Y.q[3]: 0, Y.q[4]: 0,
                       W[0]: 1.0, W[1]: -0.5, W[2]: 2.0}, params=par)
    te = np.linspace(0, 2, 21)
    full = simulate(prepare(M, "full"), (0, 2), ini, par, t_eval=te, rtol=1e-11, atol=1e-12)
    mult = simulate(M, (0, 2), ini, par, t_eval=te, rtol=1e-11, atol=1e-12, formulation="multipliers")
    assert mult.status == "finished" and mult.relative_energy_drift < 1e-9
    assert np.max(np.abs(full.q - mult.q)) < 1e-8 and np.max(np.abs(full.qdot - mult.qdot)) < 1e-8


@pytest.fixture(scope="module")
def rattleback():
    """A rattleback from the contact helper, its parameters, a state from rest angles, and its motion
    (derived once for the tests below)."""
    from jetgeo.mechanics.rigid import ellipsoid_support, rolling_on_plane

    Y = FibredManifold(["phi", "theta", "psi", "x", "y"])
    a, b, c, m, g, d, A, B, C, dl = sp.symbols("a b c m g d A B C delta", positive=True)
    Rz = sp.Matrix([[sp.cos(dl), -sp.sin(dl), 0], [sp.sin(dl), sp.cos(dl), 0], [0, 0, 1]])
    S = rolling_on_plane(Y, "XYZ", ["w1", "w2", "w3", "u", "w"], ellipsoid_support(a, b, c), m,
                         Rz * sp.diag(A, B, C) * Rz.T, offset=(0, 0, -d), gravity=g)
    par = {a: 0.2, b: 0.03, c: 0.02, m: 1.0, g: 9.81, d: 0.01, A: 2e-4, B: 1.6e-3, C: 1.7e-3, dl: 0.1}
    w1, w2, w3 = S.frame.v[:3]
    ini = S.jet_state({Y.q[0]: 0, Y.q[1]: 0.05, Y.q[2]: 0, Y.q[3]: 0, Y.q[4]: 0, w1: 0, w2: 0, w3: 3.0}, params=par)
    return S, par, ini, S.motion()


def test_a_rattleback_from_rest_angles_simulates_through_its_bordered_system(rattleback):
    """At ψ = φ = 0 the symbolic accelerations of the rattleback (a DAG of an LU solve) hold removable
    0/0; simulate integrates a large Hamel Motion through its own bordered system instead, and the
    energy is kept."""
    _, par, ini, motion = rattleback
    res = simulate(motion, (0, 0.5), ini, par, rtol=1e-11, atol=1e-12)
    assert res.formulation == "multipliers"
    assert res.status == "finished" and res.relative_energy_drift < 1e-9 and res.max_residual < 1e-9


def test_a_quasi_velocity_system_is_simulated_from_hamels_bordered_system_directly(rattleback):
    """simulate(S, formulation="multipliers") takes the QuasiVelocitySystem itself: Hamel's bordered system
    in v (with v = Φ q̇) and nothing else — not the symbolic accelerations of S.motion() — and gives the
    same motion as simulate(S.motion(), ...), in the Python and the C backends."""
    S, par, ini, motion = rattleback
    prep = prepare(S, "multipliers")
    assert prep.model.method == "quasi-velocities (Hamel's bordered system)"
    assert prep.bordered_expressions == S.bordered_system().flat()
    te = np.linspace(0, 0.5, 11)
    kw = dict(t_eval=te, rtol=1e-11, atol=1e-12, formulation="multipliers")
    direct = simulate(S, (0, 0.5), ini, par, **kw)
    in_c = simulate(S, (0, 0.5), ini, par, backend="c", **kw)
    via_motion = simulate(motion, (0, 0.5), ini, par, **kw)
    default = simulate(S, (0, 0.5), ini, par, t_eval=te, rtol=1e-11, atol=1e-12)  # through S.motion()
    assert np.max(np.abs(default.q - via_motion.q)) < 1e-8
    for res in (direct, in_c):
        assert res.status == "finished" and res.relative_energy_drift < 1e-9 and res.max_residual < 1e-9
        assert np.max(np.abs(res.q - via_motion.q)) < 1e-10 and np.max(np.abs(res.qdot - via_motion.qdot)) < 1e-9
        assert np.max(np.abs(res.multipliers - via_motion.multipliers)) < 1e-8
