"""Orientation charts in simulation: unit quaternions (jetgeo.mechanics.rigid) and the atlas of Euler-angle
charts (jetgeo.numerics.simulate_orientation).

Independent truths: the kinematic identity Ṙ = R [Ω]× (Ω the body-frame angular velocity) checked
symbolically in the quaternion chart against ``sympy.algebras.Quaternion``'s rotation matrix and in
every Euler chart against ``sympy.physics.mechanics``' direction cosine matrix; Euler's equations;
the structure constants ε_{αβγ} of so(3); and for the runs, a second integration of the same motion
in another chart of SO(3) (quaternions: no pole), compared through the chart-independent R(t) and
Ω(t).
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest
import sympy as sp
from scipy.spatial.transform import Rotation

from jetgeo import FibredManifold
from jetgeo.errors import InputError, OffManifoldError
from jetgeo.geometry import is_zero
from jetgeo.mechanics.quasi import QuasiVelocities, QuasiVelocitySystem
from jetgeo.mechanics.rigid import (
    EULER_SEQUENCES,
    QUATERNION,
    body_angular_velocity,
    body_angular_velocity_quaternion,
    rotation_matrix,
)
from jetgeo.numerics import (
    ChartConditioningWarning,
    OrientationSwitch,
    SimulationResult,
    orientation_along,
    simulate,
    simulate_orientation,
)

I1, I2, I3, I13, I23 = sp.symbols("I1 I2 I3 I13 I23")
PAR = {I1: 1.0, I2: 2.0, I3: 3.0, I13: 0.2, I23: -0.3}
ANGLES = ["a1", "a2", "a3"]
Y = FibredManifold(ANGLES)
YQ = FibredManifold(["q0", "q1", "q2", "q3"])


def _hat(w):
    return sp.Matrix([[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]])


def _Rdot(Yc, F, R):
    """Ṙ along q̇ = Ψ v, as a matrix in (q, v)."""
    kin = F.kinematics()
    return sum((R.diff(q) * kin[qd] for q, qd in zip(Yc.q, Yc.qdot)), sp.zeros(3, 3))


def _inertia():
    return sp.Matrix([[I1, 0, I13], [0, I2, I23], [I13, I23, I3]])


@functools.cache
def build(sequence: str, suslov: bool = False) -> QuasiVelocitySystem:
    """The body in the Euler-angle chart ``sequence`` (free, or Suslov's ⟨Ω, e₃⟩ = 0); one object per
    chart, so that its compiled form is reused across the tests."""
    F = body_angular_velocity(Y, sequence, ["w1", "w2", "w3"])
    W = sp.Matrix(F.v)
    return QuasiVelocitySystem(F, (W.T * _inertia() * W)[0] / 2, constraints=[F.v[2]] if suslov else [])


def build_quaternion(suslov: bool = False) -> QuasiVelocitySystem:
    F = body_angular_velocity_quaternion(YQ, ["w1", "w2", "w3", "s"])
    W = sp.Matrix(F.v[:3])
    s = F.v[3]
    return QuasiVelocitySystem(F, (W.T * _inertia() * W)[0] / 2, constraints=[s, F.v[2]] if suslov else [s])


# --- the quaternion chart -----------------------------------------------------------------------------
def test_quaternion_frame_is_the_body_frame_with_the_structure_constants_of_so3():
    F = body_angular_velocity_quaternion(YQ, ["w1", "w2", "w3", "s"])
    c = F.structure_functions()
    for g in range(4):
        for a in range(4):
            for b in range(4):
                want = sp.LeviCivita(a, b, g) if max(a, b, g) < 3 else 0  # X_s commutes with every field
                assert is_zero(c[g][a][b] - want), (g, a, b, c[g][a][b])
    R = rotation_matrix(YQ, QUATERNION)
    assert all(is_zero(e) for e in R.T * R - sp.eye(3))  # orthogonal for every q ≠ 0, not only |q| = 1
    assert all(is_zero(e) for e in _Rdot(YQ, F, R) - R * _hat(F.v[:3]))  # Ṙ = R [Ω]×: Ω in the body's axes
    # the radial rate: ⟨q, q̇⟩ = s |q|²
    kin = F.kinematics()
    assert is_zero(sum(q * kin[qd] for q, qd in zip(YQ.q, YQ.qdot)) - F.v[3] * sum(q**2 for q in YQ.q))


@pytest.mark.parametrize("sequence", ["ZXZ", "XYZ", "YZX"])
def test_euler_charts_obey_the_same_kinematics(sequence):
    """The same identity in sympy.physics.mechanics' Euler charts: R and Ω mean the same in every chart."""
    F = body_angular_velocity(Y, sequence, ["w1", "w2", "w3"])
    R = rotation_matrix(Y, sequence)
    assert all(is_zero(e) for e in _Rdot(Y, F, R) - R * _hat(F.v))


def test_quaternion_hamel_equations_are_eulers_with_a_holonomic_multiplier():
    S = build_quaternion()
    F = S.frame
    w1, w2, w3, _s = F.v
    acc = S.accelerations()
    J = _inertia()
    W = sp.Matrix([w1, w2, w3])
    euler = J.LUsolve((J * W).cross(W))  # I Ω̇ = I Ω × Ω
    for a in range(3):
        assert is_zero(acc[F.vdot[a]] - euler[a])
    assert acc[F.vdot[3]] == 0  # s stays 0: |q| is kept
    assert S.multipliers() == [0]  # ℓ depends on q only through R(q), homogeneous of degree 0: no reaction


def test_frame_given_with_its_inverse_is_checked():
    Y2 = FibredManifold(["x", "y"])
    x, _ = Y2.q
    xd, yd = Y2.qdot
    F = QuasiVelocities(Y2, ["u", "w"], velocities=[xd, yd - x * xd], frame=[[1, 0], [x, 1]])
    assert F.Psi == sp.Matrix([[1, 0], [x, 1]])
    with pytest.raises(InputError, match="not the inverse"):
        QuasiVelocities(Y2, ["u", "w"], velocities=[xd, yd - x * xd], frame=[[1, 0], [-x, 1]])


@pytest.mark.parametrize("sequence", EULER_SEQUENCES)
def test_scipy_angles_reproduce_the_charts_of_sympy_mechanics(sequence):
    """The numeric conversion (scipy's intrinsic upper-case sequences) against sympy's direction cosines."""
    from jetgeo.numerics.simulation.orientation import _angles_of

    rng = np.random.default_rng(7)
    for _ in range(3):
        R = Rotation.from_rotvec(rng.normal(size=3)).as_matrix()
        a = _angles_of(R, sequence)  # raises unless sympy's R(a) reproduces R
        Rs = np.array(rotation_matrix(Y, sequence).xreplace(dict(zip(Y.q, a))), dtype=float)
        assert np.max(np.abs(Rs - R)) < 1e-12


# --- the atlas ----------------------------------------------------------------------------------------
def _initial(suslov: bool):
    """Near the pole of ZXZ (θ = 0.3), turning towards it; the same state in both charts of SO(3)."""
    a = (0.2, 0.3, 0.1)
    om = (-1.0, 0.1, 0.0 if suslov else 0.2)
    ini = build("ZXZ", suslov).jet_state({**dict(zip(ANGLES, a)), "w1": om[0], "w2": om[1], "w3": om[2]},
                                         params=PAR)
    x, y, z, w = Rotation.from_euler("ZXZ", a).as_quat()
    iq = build_quaternion(suslov).jet_state({"q0": w, "q1": x, "q2": y, "q3": z, "w1": om[0], "w2": om[1],
                                             "w3": om[2]}, params=PAR)
    return ini, iq


@pytest.mark.parametrize("suslov, formulation", [(False, "full"), (True, "full"), (True, "multipliers")],
                         ids=["free", "suslov", "suslov-multipliers"])
def test_tumbling_through_the_pole_switches_chart_and_agrees_with_quaternions(suslov, formulation):
    ini, iq = _initial(suslov)
    te = np.linspace(0, 2, 41)
    res = simulate_orientation(lambda seq: build(seq, suslov), ["ZXZ", "XYZ"], ANGLES, (0, 2), ini, PAR, t_eval=te,
                               formulation=formulation)
    assert res.formulation == formulation and res.params == PAR
    assert isinstance(res, SimulationResult) and res.status == "finished"
    assert len(res.charts) >= 1 and isinstance(res.charts[0], OrientationSwitch)
    sw = res.charts[0]
    assert (sw.old, sw.new) == (("ZXZ",), ("XYZ",)) and abs(sw.rho_old - 0.1) < 1e-9 and sw.rho_new > 0.99
    assert res.relative_energy_drift <= 1e-9
    if suslov:
        assert res.max_residual < 1e-9
    assert "orientation chart ZXZ → XYZ" in res.summary() and "ZXZ" in res._repr_latex_()
    # the chart of each row: ZXZ before the switch, XYZ after
    assert len(res.orientation_charts) == len(res.t)
    rows = np.array(res.orientation_charts)
    assert set(rows[res.t < sw.t]) == {"ZXZ"} and set(rows[res.t > sw.t]) <= {"XYZ", "ZXZ"}
    assert rows[-1] == "XYZ" or len(res.charts) > 1
    # the same motion in quaternions: no pole, the unit norm kept by s = 0
    rq = simulate(build_quaternion(suslov).motion(), (0, 2), iq, PAR, t_eval=te, formulation=formulation)
    assert rq.status == "finished" and rq.relative_energy_drift <= 1e-9
    assert np.max(np.abs(np.linalg.norm(rq.q, axis=1) - 1)) < 1e-9
    R, Om = orientation_along(res, ANGLES)
    Rq, Omq = orientation_along(rq, ["q0", "q1", "q2", "q3"], sequence=QUATERNION)
    assert np.max(np.abs(R - Rq)) < 1e-8 and np.max(np.abs(Om - Omq)) < 1e-8
    # the motion really went through the pole region of ZXZ: the body's third axis near the vertical
    assert np.min(np.sqrt(1 - Rq[:, 2, 2] ** 2)) < 0.05


def test_approaching_the_pole_with_no_other_chart_warns():
    ini, _ = _initial(False)
    with pytest.warns(ChartConditioningWarning, match="ZXZ degrades"):
        res = simulate_orientation(build, ["ZXZ"], ANGLES, (0, 0.5), ini, PAR)
    assert res.charts == [] and set(res.orientation_charts) == {"ZXZ"}
    # no warning where the chart stays well conditioned
    with warnings.catch_warnings():
        warnings.simplefilter("error", ChartConditioningWarning)
        simulate_orientation(build, ["ZXZ"], ANGLES, (0, 0.1), ini, PAR)


def test_a_start_at_the_pole_enters_the_better_chart_at_once():
    ini = build("ZXZ").jet_state({"a1": 0.2, "a2": 0.05, "a3": 0.1, "w1": 1.0, "w2": 0.5, "w3": 0.2}, params=PAR)
    res = simulate_orientation(build, ["ZXZ", "XYZ"], ANGLES, (0, 0.2), ini, PAR)
    assert res.charts[0].t == 0.0 and res.charts[0].new == ("XYZ",) and res.status == "finished"


def test_errors_are_named():
    ini, _ = _initial(False)
    with pytest.raises(InputError, match="unknown rotation sequence"):
        simulate_orientation(build, ["ZXZ", "XXY"], ANGLES, (0, 1), ini, PAR)
    with pytest.raises(InputError, match="threshold"):
        simulate_orientation(build, ["ZXZ"], ANGLES, (0, 1), ini, PAR, threshold=1.5)
    with pytest.raises(InputError, match="formulation"):
        simulate_orientation(build, ["ZXZ"], ANGLES, (0, 1), ini, PAR, formulation="reduced")
    with pytest.raises(InputError, match="must return a QuasiVelocitySystem"):
        simulate_orientation(lambda s: None, ["ZXZ"], ANGLES, (0, 1), ini, PAR)
    with pytest.raises(InputError, match="not coordinates"):
        simulate_orientation(build, ["ZXZ"], ["b1", "b2", "b3"], (0, 1), ini, PAR)
    with pytest.raises(InputError, match="give sequence="):
        orientation_along(simulate(build("ZXZ").motion(), (0, 0.1), ini, PAR), ANGLES)


def test_a_build_that_differs_across_charts_is_refused_at_the_switch():
    ini, _ = _initial(False)

    def inconsistent(seq):  # another body in the second chart
        S = build(seq)
        return S if seq == "ZXZ" else QuasiVelocitySystem(S.frame, 2 * S.ell)

    with pytest.raises(InputError, match="different bodies"):
        simulate_orientation(inconsistent, ["ZXZ", "XYZ"], ANGLES, (0, 0.3), ini, PAR)

    def off(seq):  # a constraint that the converted state violates
        S = build(seq)
        return S if seq == "ZXZ" else QuasiVelocitySystem(S.frame, S.ell, constraints=[S.frame.v[0] - 5])

    with pytest.raises(OffManifoldError):
        simulate_orientation(off, ["ZXZ", "XYZ"], ANGLES, (0, 0.3), ini, PAR)


def test_a_quaternion_run_crosses_every_coordinate_hyperplane():
    """|q|² = 1 has no global normal form (q̇_D = −(Σ q_σ q̇_σ)/q_D for any choice D): a Motion run in
    (q, q̇) does not use it, and used to stop where the default chart's denominator q₃ vanished."""
    S = build_quaternion()
    x, y, z, w = Rotation.from_rotvec([0.5, 0.0, 0.02]).as_quat()
    iq = S.jet_state({"q0": w, "q1": x, "q2": y, "q3": z, "w1": 0.2, "w2": 0.1, "w3": -2.0}, params=PAR)
    rq = simulate(S.motion(), (0, 1), iq, PAR, t_eval=np.linspace(0, 1, 21))
    assert rq.status == "finished" and rq.relative_energy_drift < 1e-9
    assert rq.q[0, 3] > 0 > rq.q[-1, 3]  # q₃ changed sign
    assert np.max(np.abs(np.linalg.norm(rq.q, axis=1) - 1)) < 1e-9
