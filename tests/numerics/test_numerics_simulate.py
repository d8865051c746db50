"""simulate(): closed-form motions, constraint drift, projection, energy balance, singular states.

Independent truths: closed-form solutions derived by hand (free skate, vertical rolling disc,
[Stolařová 2009, Example 2]), a hand-written integration of [Benenti 2007, eq. (9.18)], the energy identity
dE/dt = −∂_tL + (A + R)·q̇, and the numbers read off [Stolařová 2009, Figures 1–3].
"""

from __future__ import annotations

import sys

import numpy as np
import pytest
import sympy as sp
from numerics_systems import (
    rolling_disc,
    skate,
    skate_on_belt,
    stolarova2009_example1,
    stolarova2009_example2,
    stolarova2009_example3,
    two_points,
)
from scipy.integrate import solve_ivp

from jetgeo import FibredManifold, LagrangianSystem, systems
from jetgeo.errors import InputError, NotRegularError, OffManifoldError
from jetgeo.numerics import SimulationStoppedWarning, prepare, simulate


# --- the free skate [Benenti 2007, §9.1]: θ = θ0 + ωt, |v| = u, circles of radius u/ω ---------------------
def skate_closed_form(t, u, w, th0):
    th = th0 + w * t
    return (u / w) * (np.sin(th) - np.sin(th0)), -(u / w) * (np.cos(th) - np.cos(th0)), th


@pytest.mark.parametrize("formulation", ["full", "reduced"])
def test_free_skate_closed_form_benenti2007_9_1(formulation):
    cs, (m, I) = skate()
    x, y, th = cs.Y.q
    xd, yd, thd = cs.Y.qdot
    u, w, th0 = 1.3, 0.2, -0.4           # θ stays in (−π/2, π/2): the normal form ẏ = ẋ tan θ holds
    T = np.linspace(0, 8, 81)
    r = simulate(cs, (0, 8), {x: 0, y: 0, th: th0, xd: u * np.cos(th0), thd: w}, {m: 2, I: 0.5},
                 complete=True, formulation=formulation, t_eval=T)
    assert r.success and r.event is None
    X, Yc, TH = skate_closed_form(T, u, w, th0)
    assert np.allclose(r.q[:, 0], X, atol=1e-8)
    assert np.allclose(r.q[:, 1], Yc, atol=1e-8)
    assert np.allclose(r.q[:, 2], TH, atol=1e-8)
    # the multiplier is the centripetal force: R = λ(sin θ, −cos θ, 0), |R| = m u ω
    assert np.allclose(np.hypot(r.reactions[:, 0], r.reactions[:, 1]), 2 * u * w, atol=1e-7)


def test_free_skate_long_horizon_multipliers_formulation_and_projection():
    """θ crosses ±π/2 many times: no normal form works globally, the multiplier form does."""
    cs, (m, I) = skate()
    x, y, th = cs.Y.q
    xd, yd, thd = cs.Y.qdot
    u, w, th0 = 1.3, 0.7, 0.2
    T = np.linspace(0, 100, 201)
    ini = {x: 0, y: 0, th: th0, xd: u * np.cos(th0), yd: u * np.sin(th0), thd: w}
    r = simulate(cs, (0, 100), ini, {m: 2, I: 0.5}, formulation="multipliers", t_eval=T)
    X, Yc, _ = skate_closed_form(T, u, w, th0)
    assert np.max(np.abs(r.q[:, 0] - X)) < 1e-5 and np.max(np.abs(r.q[:, 1] - Yc)) < 1e-5
    assert r.max_residual < 1e-7                      # drift at the integrator's tolerance
    assert r.relative_energy_drift < 1e-6
    rp = simulate(cs, (0, 100), ini, {m: 2, I: 0.5}, formulation="multipliers", t_eval=T, project=True)
    assert rp.max_residual < 1e-14                    # round-off with projection
    assert rp.relative_energy_drift < r.relative_energy_drift
    # the normal form ẏ = ẋ tan θ breaks at θ = π/2: with one chart (atlas=False) integration stops there,
    # warns and says why
    with pytest.warns(SimulationStoppedWarning, match="det ∂f/∂q̇"):
        rn = simulate(cs, (0, 100), ini, {m: 2, I: 0.5}, atlas=False)
    assert rn.status == "singular" and "det ∂f/∂q̇^D" in rn.message and "multipliers" in rn.message
    assert rn.event.t == pytest.approx((np.pi / 2 - th0) / w, rel=1e-6)
    # with the atlas the same run switches between ẏ = ẋ tan θ and ẋ = ẏ cot θ and follows the circle
    for formulation in ("full", "reduced"):
        ra = simulate(cs, (0, 100), ini, {m: 2, I: 0.5}, t_eval=T, formulation=formulation)
        assert ra.status == "finished" and ra.event is None
        assert np.max(np.abs(ra.q[:, 0] - X)) < 1e-6 and np.max(np.abs(ra.q[:, 1] - Yc)) < 1e-6
        assert ra.max_residual < 1e-8
        # ρ_ẏ = cos²θ falls to 1/(4·3) where θ ≡ a = arccos(1/√12) (mod π), ρ_ẋ = sin²θ where
        # θ ≡ b = π − arcsin(1/√12): along θ = θ0 + ωt the switches alternate ẏ → ẋ at a, ẋ → ẏ at b
        a, b = np.arccos(1 / np.sqrt(12)), np.pi - np.arcsin(1 / np.sqrt(12))
        th_end = th0 + w * 100
        expected = sorted(((c + np.pi * k) - th0) / w for k in range(0, 30) for c in (a, b)
                          if th0 < c + np.pi * k < th_end)
        assert len(ra.charts) == len(expected) == 44
        assert np.allclose([c.t for c in ra.charts], expected, rtol=1e-6)
        assert [c.new for c in ra.charts[:2]] == [(xd,), (yd,)] and ra.charts[0].old == (yd,)
        assert "chart switch at t = " in ra.summary()


# --- vertical rolling disc [Benenti 2007, §9.2]: uniform circular motion -----------------------------------------
def test_vertical_rolling_disc_uniform_circular_motion_benenti2007_9_2():
    cs, (m, A, B, R) = rolling_disc()
    x, y, th, ps = cs.Y.q
    xd, yd, thd, psd = cs.Y.qdot
    Om, om, ps0, Rv = 2.0, 0.3, 0.1, 0.5
    T = np.linspace(0, 200, 401)
    par = {m: 1.0, A: 0.125, B: 0.0625, R: Rv}
    ini = {x: 0, y: 0, th: 0, ps: ps0, thd: Om, psd: om}
    r = simulate(cs, (0, 200), ini, par, complete=True, t_eval=T, rtol=1e-10, atol=1e-12)
    psi = ps0 + om * T
    assert np.allclose(r.column("theta"), Om * T, atol=1e-6)
    assert np.allclose(r.column("x"), Rv * Om / om * (np.sin(psi) - np.sin(ps0)), atol=1e-6)
    assert np.allclose(r.column("y"), -Rv * Om / om * (np.cos(psi) - np.cos(ps0)), atol=1e-6)
    # autonomous, homogeneous ideal constraints, no forces: energy conserved, residuals at tolerance
    assert r.max_residual < 1e-8
    assert r.relative_energy_drift < 1e-8
    assert np.max(np.abs(r.reaction_power)) < 1e-8  # R·q̇ = λ_i f^i = 0 on Q
    rp = simulate(cs, (0, 200), ini, par, complete=True, t_eval=T, project=True)
    assert rp.max_residual < 1e-14


# --- [Stolařová 2009, Example 1] --------------------------------------------------------------------------
def test_stolarova2009_example1_figures_1_3_values():
    """[Stolařová 2009] reads off its Figs. 2–3: at x = 1.5, y = 2.25 and z = 1.4 (x(0)=y(0)=z(0)=0, ẋ=ẏ=1).
    Our integration gives y ≈ 2.238, z ≈ 1.362 there: the figures' values, read to graph accuracy."""
    cs = stolarova2009_example1()
    x, y, z = cs.Y.q
    xd, yd, zd = cs.Y.qdot
    r = simulate(cs, (0, 3), {x: 0, y: 0, z: 0, xd: 1, yd: 1}, complete=True,
                 first_integrals={"ydot": yd, "E": ((1 + x**2 * y**2) * xd**2 + yd**2) / 2})
    ts = r.t[np.argmin(np.abs(r.column("x") - 1.5))]
    q, _ = r(ts)
    assert abs(q[0, 0] - 1.5) < 0.05
    assert abs(q[1, 0] - 2.25) < 0.03 and abs(q[2, 0] - 1.4) < 0.05
    # first integrals: ẏ and the energy ½((1 + x²y²)ẋ² + ẏ²) on Q
    assert np.allclose(r.column("ydot"), 1.0, atol=1e-10) and r.integral_drift("ydot") < 1e-10
    assert r.relative_energy_drift < 1e-9 and r.integral_drift("E") < 1e-8
    assert np.allclose(r.integrals["E"], r.energy, atol=1e-8)   # E_L on Q, written by hand
    assert r.max_residual < 1e-8


# --- [Stolařová 2009, Example 2]: a misprint, and a singular state reached in finite time ----------------------
def test_stolarova2009_example2_closed_form_and_singular_state():
    """Derived (Chetaev): ẍ = 2λẋ/m, ÿ = 2λẏ/m, z̈ = −G − 2λa²ż/m with ż = v/a, v = √(ẋ²+ẏ²), give
    v̇ = −Ga/(1+a²): a straight line at constant heading, decelerating until v = 0 (the zero section,
    where rank ∂f/∂q̇ = 0) at t* = v₀(1+a²)/(Ga).  [Stolařová 2009] prints a normal form with ẍ ∝ ẋ/v but
    ÿ ∝ v/ẏ and the factor (2 − a²) — not symmetric in x ↔ y although (14) and L are — and its
    figures (y = 858 at x = 15) follow from that misprint; the true motion has y = x throughout."""
    cs, (a, G, m) = stolarova2009_example2()
    x, y, z = cs.Y.q
    xd, yd, zd = cs.Y.qdot
    av, Gv, v0 = 2.0, 10.0, 2 * np.sqrt(2)
    tstar = v0 * (1 + av**2) / (Gv * av)
    T = np.linspace(0, 0.7, 71)
    r = simulate(cs, (0, 2), {x: 0, y: 0, z: 0, xd: 2, yd: 2}, {a: av, G: Gv, m: 1}, complete=True, t_eval=T)
    assert r.status == "singular" and "rank ∂f/∂q̇" in r.message
    assert r.event.t == pytest.approx(tstar, rel=2e-3) and r.event.t < tstar
    n = len(T)
    s = v0 * T - Gv * av * T**2 / (2 * (1 + av**2))
    assert np.allclose(r.q[:n, 0], s / np.sqrt(2), atol=1e-8)
    assert np.allclose(r.q[:n, 1], r.q[:n, 0], atol=1e-12)
    assert np.allclose(r.q[:n, 2], s / av, atol=1e-8)
    assert r.relative_energy_drift < 1e-9              # quadratic homogeneous: R·q̇ = 2λf = 0
    # the multiplier formulation is smooth through v = 0 (R = 2λ(ẋ, ẏ, −a²ż) stays finite), so no step sees
    # a sign change there: det JJᵀ = 4(ẋ² + ẏ² + a⁴ż²) only touches zero; the run must still stop at t*
    rm = simulate(cs, (0, 2), {x: 0, y: 0, z: 0, xd: 2, yd: 2}, {a: av, G: Gv, m: 1}, complete=True,
                  formulation="multipliers")
    assert rm.status == "singular" and "rank ∂f/∂q̇" in rm.message
    assert rm.event.t == pytest.approx(tstar, rel=2e-3) and rm.event.t < tstar
    assert np.all(rm.qdot[:, 0] > 0)                   # stopped before the velocity reverses


# --- [Stolařová 2009, Example 3] and an affine time-dependent constraint: the energy balance ------------------
def test_stolarova2009_example3_energy_conserved_because_constraint_is_homogeneous():
    """The issue expected energy not to be conserved for the time-dependent pursuit constraint (17).
    It is conserved: f is homogeneous of degree 1 in the velocities (its coefficients depend on t),
    so the Chetaev reaction does no work, R·q̇ = λ ∂f/∂q̇·q̇ = λf = 0, and L does not depend on t.
    The test shows both halves of dE/dt = −∂_tL + A·q̇ + R·q̇ vanish along the motion."""
    cs, (k1, k2, G, m) = stolarova2009_example3()
    x, y = cs.Y.q
    xd, yd = cs.Y.qdot
    d = np.array([-40.0, -20.0]) / np.hypot(40, 20)        # [Stolařová 2009]: from [40, 20], speed 1, aimed at C1
    par = {k1: 20 * np.cos(np.pi / 4), k2: 20 * np.sin(np.pi / 4), G: 10, m: 1}
    r = simulate(cs, (0, 2), {x: 40, y: 20, xd: d[0], yd: d[1]}, par, t_eval=np.linspace(0, 2, 201))
    assert r.success
    assert np.max(np.abs(r.reactions)) > 1.0                # the constraint does act on the particle ...
    assert np.max(np.abs(r.reaction_power)) < 1e-6 * np.max(np.abs(r.reactions))   # ... but does no work
    assert np.max(np.abs(r.explicit_power)) == 0 and np.max(np.abs(r.force_power)) == 0
    # dE/dt = R·q̇ pointwise (central differences of E_L along the solution), both ≈ 0
    dEdt = np.gradient(r.energy, r.t)
    assert np.max(np.abs(dEdt[1:-1] - r.reaction_power[1:-1])) < 1e-6
    assert r.relative_energy_drift < 1e-8
    # the velocity points at the first particle (ξ, η) = (k1 t, k2 t − G t²/2) all along
    xi, eta = par[k1] * r.t, par[k2] * r.t - 5 * r.t**2
    cross = r.qdot[:, 1] * (r.q[:, 0] - xi) - r.qdot[:, 0] * (r.q[:, 1] - eta)
    assert np.max(np.abs(cross)) < 1e-7


def test_affine_time_dependent_constraint_energy_changes_by_reaction_work():
    """Skate on a moving belt: (ẋ − U sin νt) sin θ − ẏ cos θ = 0 is affine; R·q̇ = λ U sin νt sin θ ≠ 0
    and the energy change equals the work of the reaction (∫R·q̇ dt)."""
    cs, (m, I, U, nu) = skate_on_belt()
    x, y, th = cs.Y.q
    xd, yd, thd = cs.Y.qdot
    T = np.linspace(0, 1.2, 1201)
    r = simulate(cs, (0, 1.2), {x: 0, y: 0, th: 0.3, xd: 1, thd: 0.5}, {m: 1, I: 0.2, U: 0.8, nu: 3},
                 complete=True, t_eval=T)
    dE = r.energy[-1] - r.energy[0]
    assert abs(dE) > 1e-2                                  # not conserved
    # pointwise: dE/dt (central differences of E_L along the solution) = R·q̇, which is not small
    dEdt = np.gradient(r.energy, r.t)
    assert np.max(np.abs(r.reaction_power)) > 0.1
    assert np.max(np.abs(dEdt[1:-1] - r.reaction_power[1:-1])) < 1e-4 * np.max(np.abs(r.reaction_power))
    assert np.max(np.abs(r.energy_balance())) < 1e-5 * abs(dE) * 100
    assert np.max(np.abs(r.force_power)) == 0 and np.max(np.abs(r.explicit_power)) == 0


# --- [Benenti 2007, §9.4]: two points with parallel velocities on an inclined plane -------------------------
def test_two_points_inclined_plane_against_benenti2007_9_18():
    """Integrate the paper's (9.18) (Benenti's vector field Z on C, parameters ρ, σ, θ) by hand with
    numpy, and compare with jetgeo's simulation of the implicit constraint (9.14)."""
    cs, (m1, m2, g) = two_points()
    x1, y1, x2, y2 = cs.Y.q
    x1d, y1d, x2d, y2d = cs.Y.qdot
    M1, M2, gv = 1.0, 2.0, 9.81 * np.sin(0.3)
    rho0, sig0, th0 = 1.0, 0.5, 1.0

    def z_field(t, s):
        _x1, _y1, _x2, _y2, rho, sig, th = s
        c, sn = np.cos(th), np.sin(th)
        return [rho * c, rho * sn, sig * c, sig * sn, gv * c, gv * c,
                -gv * sn * (M1 * rho + M2 * sig) / (M1 * rho**2 + M2 * sig**2)]

    T = np.linspace(0, 3, 31)
    ref = solve_ivp(z_field, (0, 3), [0, 0, 1, 0, rho0, sig0, th0], t_eval=T, rtol=1e-11, atol=1e-12,
                    method="DOP853")
    ini = {x1: 0, y1: 0, x2: 1, y2: 0, x1d: rho0 * np.cos(th0), y1d: rho0 * np.sin(th0),
           x2d: sig0 * np.cos(th0)}
    r = simulate(cs, (0, 3), ini, {m1: M1, m2: M2, g: gv}, complete=True, t_eval=T)
    assert r.success
    assert np.allclose(r.q, ref.y[:4].T, atol=1e-7)
    assert r.relative_energy_drift < 1e-8              # homogeneous quadratic constraint, potential forces


# --- initial data ------------------------------------------------------------------------------
def test_off_manifold_initial_data_rejected_naming_the_constraint():
    cs, (m, I) = skate()
    x, y, th = cs.Y.q
    xd, yd, thd = cs.Y.qdot
    with pytest.raises(OffManifoldError) as exc:
        simulate(cs, (0, 1), {x: 0, y: 0, th: 0.2, xd: 1, yd: 1, thd: 0}, {m: 1, I: 1})
    msg = str(exc.value)
    assert "xdot*sin(theta) - ydot*cos(theta)" in msg
    assert f"{np.sin(0.2) - np.cos(0.2):.6g}" in msg


def test_missing_dependent_velocity_needs_complete_and_complete_fills_it():
    cs, (m, I) = skate()
    x, y, th = cs.Y.q
    xd, yd, thd = cs.Y.qdot
    with pytest.raises(InputError, match="complete=True"):
        simulate(cs, (0, 1), {x: 0, y: 0, th: 0.2, xd: 1, thd: 0}, {m: 1, I: 1})
    r = simulate(cs, (0, 1), {"x": 0, "y": 0, "theta": 0.2, "xdot": 1, "thetadot": 0}, {"m": 1, "I": 1},
                 complete=True)
    assert r.qdot[0, 1] == pytest.approx(np.tan(0.2))
    with pytest.raises(InputError, match="parameter"):
        simulate(cs, (0, 1), {x: 0, y: 0, th: 0.2, xd: 1, thd: 0}, {m: 1}, complete=True)


def test_wrong_branch_of_nonlinear_constraint_rejected():
    cs, (a, G, m) = stolarova2009_example2()
    x, y, z = cs.Y.q
    xd, yd, zd = cs.Y.qdot
    # ż = −√(ẋ²+ẏ²)/a lies on Q but not on the chosen branch ż = +√(ẋ²+ẏ²)/a
    with pytest.raises(OffManifoldError, match="branch"):
        simulate(cs, (0, 1), {x: 0, y: 0, z: 0, xd: 2, yd: 2, zd: -np.sqrt(2)}, {a: 2, G: 10, m: 1})


def test_initial_singular_state_rejected():
    cs, (a, G, m) = stolarova2009_example2()
    x, y, z = cs.Y.q
    xd, yd, zd = cs.Y.qdot
    with pytest.raises(NotRegularError):
        simulate(cs, (0, 1), {x: 0, y: 0, z: 0, xd: 0, yd: 0, zd: 0}, {a: 2, G: 10, m: 1})


# --- any object with .accelerations() ----------------------------------------------------------------
class _Oscillator:
    """A bare object with .accelerations() and .Y (no constraints): ẍ = −ω²x."""

    def __init__(self):
        self.Y = FibredManifold(["x"])
        self.w = sp.Symbol("w", positive=True)

    def accelerations(self):
        return {self.Y.qddot[0]: -self.w**2 * self.Y.q[0]}


def test_second_order_equations_are_a_declared_protocol_and_other_objects_are_refused():
    """``simulate``'s smallest input is the protocol ``jetgeo.mechanics.SecondOrderEquations`` (``.Y``, a
    FibredManifold, and ``.accelerations()``), asked by ``isinstance``, not probed; an object with a ``.Y`` that
    is not a FibredManifold, or without ``.accelerations()``, is refused with the protocol's name."""
    from jetgeo.mechanics import SecondOrderEquations

    assert isinstance(_Oscillator(), SecondOrderEquations)

    class NoAccelerations:
        Y = FibredManifold(["x"])

    class WrongY(_Oscillator):
        def __init__(self):
            super().__init__()
            self.Y = "x"

    for bad in (NoAccelerations(), WrongY(), object()):
        with pytest.raises(InputError, match="SecondOrderEquations"):
            simulate(bad, (0, 1), {"x": 1, "xdot": 0})


def test_any_object_with_accelerations_and_a_lagrangian_system():
    osc = _Oscillator()
    T = np.linspace(0, 10, 11)
    r = simulate(osc, (0, 10), {"x": 1, "xdot": 0}, {"w": 2}, t_eval=T)
    assert np.allclose(r.q[:, 0], np.cos(2 * T), atol=1e-8)
    assert r.energy is None and r.residuals.shape == (11, 0)
    Y = FibredManifold(["x"])
    k = sp.Symbol("k", positive=True)
    S = LagrangianSystem.mechanical(Y, Y.qdot[0] ** 2 / 2, k * Y.q[0] ** 2 / 2)
    r2 = simulate(S, (0, 10), {"x": 1, "xdot": 0}, {"k": 4}, t_eval=T)
    assert np.allclose(r2.q[:, 0], np.cos(2 * T), atol=1e-8)
    assert r2.relative_energy_drift < 1e-9


def test_motion_result_is_simulated_like_the_constrained_system():
    from jetgeo.mechanics import Motion

    cs, (m, A, B, R) = rolling_disc()
    mo = Motion(recipe="test", system=cs.system, Q=cs.Q, accelerations=cs.accelerations(),
                coordinates=tuple(cs.chart.coords), substitution=dict(cs.g), multipliers=cs.multipliers(),
                reactions=cs.reaction_forces())
    x, y, th, ps = cs.Y.q
    ini = {x: 0, y: 0, th: 0, ps: 0.1, "thetadot": 2.0, "psidot": 0.3}
    par = {m: 1.0, A: 0.125, B: 0.0625, R: 0.5}
    T = np.linspace(0, 5, 6)
    r1 = simulate(cs, (0, 5), ini, par, complete=True, t_eval=T)
    r2 = simulate(mo, (0, 5), ini, par, complete=True, t_eval=T)
    assert np.allclose(r1.q, r2.q, atol=1e-10) and np.allclose(r1.reactions, r2.reactions, atol=1e-10)


def test_prepared_system_reused_and_formulations_agree():
    cs, (m, I) = skate()
    prep = prepare(cs)
    x, y, th = cs.Y.q
    ini = {x: 0, y: 0, th: 0.1, "xdot": 1.0, "ydot": np.tan(0.1), "thetadot": 0.05}
    T = np.linspace(0, 5, 11)
    a = simulate(prep, (0, 5), ini, {m: 1, I: 1}, t_eval=T)
    b = simulate(cs, (0, 5), ini, {m: 1, I: 1}, t_eval=T, formulation="multipliers")
    assert np.allclose(a.q, b.q, atol=1e-8) and np.allclose(a.multipliers, b.multipliers, atol=1e-7)
    q, qd = a(2.5)
    assert q.shape == (3, 1) and abs(qd[0, 0] * np.sin(q[2, 0]) - qd[1, 0] * np.cos(q[2, 0])) < 1e-8
    assert np.allclose(a(T[3])[0][:, 0], a.q[3], atol=1e-12)       # dense output at an output time
    c = simulate(prep, (0, 5), ini, {m: 1, I: 1}, t_eval=T, dense_output=False)
    with pytest.raises(InputError, match="dense output"):
        c(2.5)
    assert "max |constraint residual|" in str(a) and "<table>" in a._repr_html_()
    tex = a._repr_latex_()
    assert tex.startswith("$") and tex.endswith("$") and sp.latex(cs.Q.f[0]) in tex
    res = f"{np.max(np.abs(a.residuals)):.3g}".split("e")[0]
    assert res in tex and "E_L" in tex


def test_implicit_method_uses_the_compiled_jacobian_and_agrees():
    cs = stolarova2009_example1()
    x, y, z = cs.Y.q
    xd, yd, zd = cs.Y.qdot
    T = np.linspace(0, 2, 5)
    a = simulate(cs, (0, 2), {x: 0, y: 0, z: 0, xd: 1, yd: 1}, complete=True, t_eval=T)
    b = simulate(cs, (0, 2), {x: 0, y: 0, z: 0, xd: 1, yd: 1}, complete=True, t_eval=T, method="Radau",
                 rtol=1e-10, atol=1e-12)
    assert np.allclose(a.q, b.q, atol=1e-7)
    with pytest.raises(InputError, match="Runge"):
        simulate(cs, (0, 2), {x: 0, y: 0, z: 0, xd: 1, yd: 1}, complete=True, method="Radau", project=True)


def test_options_are_grouped_like_solve_ivp_and_reach_the_solver():
    """simulate(system, t_span, initial, params, method, t_eval, dense_output, events, *, jetgeo's choices,
    **solver options): the options reach scipy's solver (first_step is the size of the first step taken, an
    absurd rtol is refused), and the result equals the one with keywords."""
    from jetgeo.errors import InputError

    cs, (m, I) = skate()
    x, y, th = cs.Y.q
    ini = {x: 0, y: 0, th: 0.1, "xdot": 1.0, "ydot": np.tan(0.1), "thetadot": 0.05}
    T = np.linspace(0, 1, 5)
    a = simulate(cs, (0, 1), ini, {m: 1, I: 1}, "RK45", T, True, True, rtol=1e-9, atol=1e-11)
    b = simulate(cs, (0, 1), ini, {m: 1, I: 1}, method="RK45", t_eval=T, rtol=1e-9, atol=1e-11)
    np.testing.assert_array_equal(a.q, b.q)
    c = simulate(cs, (0, 1), ini, {m: 1, I: 1}, first_step=1e-3, max_step=0.05)
    assert np.isclose(c.t[1], 1e-3)                              # without t_eval: the steps taken
    assert np.max(np.diff(c.t)) <= 0.05 + 1e-12
    with pytest.raises(InputError, match="rtol"):
        simulate(cs, (0, 1), ini, {m: 1, I: 1}, rtol=float("nan"))
    with pytest.raises(InputError, match="first_step"):
        simulate(cs, (0, 1), ini, {m: 1, I: 1}, first_step=-1.0)
    with pytest.raises(TypeError):  # jetgeo's own choices are keyword-only
        simulate(cs, (0, 1), ini, {m: 1, I: 1}, "RK45", None, True, True, "reduced")


def test_prepared_system_is_a_frozen_record_with_named_fields():
    import dataclasses

    from jetgeo.numerics import PreparedSystem

    cs, (m, I) = skate()
    prep = prepare(cs, "reduced")
    assert isinstance(prep, PreparedSystem) and prep.state == (*cs.Y.q, *cs.independent)
    with pytest.raises(dataclasses.FrozenInstanceError):
        prep.rhs = None
    assert prepare(cs, "reduced") is prep                      # cached per system and formulation
    jac = prep.with_jacobian()
    assert jac.rhs.jacobian is not None and prep.rhs.jacobian is None and prep.with_jacobian() is jac
    th = 0.3
    y = np.array([0.0, 0.0, th, 1.0, 0.2])                       # (x, y, θ, ẋ, θ̇) in the reduced state
    p = np.array([1.0 if str(s) in ("m", "I") else 0.0 for s in prep.params])
    full = prep.to_full(np.array([0.0]), y[:, None], p)[:, 0]
    assert np.isclose(full[4], np.tan(th))                       # ẏ = ẋ tan θ from the normal form
    assert abs(prep.constraint_residuals(0.0, full, p)[0]) < 1e-14


def test_progress_bar_is_optional(monkeypatch):
    import sys

    cs = stolarova2009_example1()
    x, y, z = cs.Y.q
    ini = {x: 0, y: 0, z: 0, "xdot": 1, "ydot": 1}
    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    with pytest.warns(UserWarning, match="tqdm"):
        r = simulate(cs, (0, 1), ini, complete=True, progress=True)
    assert r.success
    r = simulate(cs, (0, 1), ini, complete=True)          # auto: not a terminal → no bar, no warning
    assert r.success


def test_progress_bar_shown_in_a_terminal_only(monkeypatch):
    """progress=None (default): a tqdm bar on stderr when stderr is a terminal, nothing otherwise."""
    import io
    import sys

    import tqdm  # noqa: F401  (in the test extra; for users an optional extra: without it no bar, test above)

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    cs = stolarova2009_example1()
    x, y, z = cs.Y.q
    ini = {x: 0, y: 0, z: 0, "xdot": 1, "ydot": 1}
    pipe = io.StringIO()
    monkeypatch.setattr(sys, "stderr", pipe)
    assert simulate(cs, (0, 1), ini, complete=True).success
    assert pipe.getvalue() == ""
    term = Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    assert simulate(cs, (0, 1), ini, complete=True).success
    assert "simulate" in term.getvalue()
    term2 = Terminal()
    monkeypatch.setattr(sys, "stderr", term2)
    assert simulate(cs, (0, 1), ini, complete=True, progress=False).success
    assert term2.getvalue() == ""


def test_benenti_first_kind_motion_in_parameters_z_is_simulated_through_to_jet():
    """A Motion written in (t, q, z) (Benenti's recipe, [Benenti 2007, Theorem 7.1]) is mapped to jet coordinates by its
    to_jet; its simulation agrees with Krupková's constrained system."""
    from jetgeo.mechanics import Motion
    from jetgeo.recipes import benenti_first_kind

    cs, (m, I) = skate()
    x, y, th = cs.Y.q
    u, w = sp.symbols("u w")
    mo = benenti_first_kind(cs.system, [u * sp.cos(th), u * sp.sin(th), w], [u, w])
    ini = {x: 0, y: 0, th: 0.1, "xdot": 1.0, "ydot": np.tan(0.1), "thetadot": 0.05}
    T = np.linspace(0, 5, 11)
    a = simulate(mo, (0, 5), ini, {m: 1, I: 1}, t_eval=T)
    b = simulate(cs, (0, 5), ini, {m: 1, I: 1}, t_eval=T)
    assert np.allclose(a.q, b.q, atol=1e-8)
    bare = Motion(recipe="bare", system=cs.system, Q=None, accelerations=mo.accelerations(),
                  coordinates=mo.coordinates)
    with pytest.raises(InputError, match="to_jet"):
        simulate(bare, (0, 1), ini, {m: 1, I: 1})


# --- recipe results and the SODE of [Ibort et al. 1996] are simulated like the constrained system ----------------
def test_gibbs_appell_and_ibort_sode_results_simulated_with_multipliers_and_reactions():
    """recipes.gibbs_appell(sys, Q) [Benenti 2007, eq. (5.2)] and NonholonomicProblem(sys, Q).solve() [Ibort et al.
    1996, Theorem 2] are
    objects with .accelerations(); simulate() integrates them.  Independent truth: the closed-form uniform
    circular motion of the vertical disc, and the reaction R = λ_j ∂f^j/∂q̇ of the SODE against the
    bordered multiplier system solved numerically along the constrained system's motion."""
    from jetgeo import NonholonomicProblem, recipes

    cs, (m, A, B, R) = rolling_disc()
    x, y, th, ps = cs.Y.q
    Om, om, ps0, Rv = 2.0, 0.3, 0.1, 0.5
    par = {m: 1.0, A: 0.125, B: 0.0625, R: Rv}
    ini = {x: 0, y: 0, th: 0, ps: ps0, "thetadot": Om, "psidot": om}
    T = np.linspace(0, 20, 41)
    psi = ps0 + om * T
    ref = simulate(cs, (0, 20), ini, par, complete=True, t_eval=T)
    ga = recipes.gibbs_appell(cs.system, cs.Q)
    sode = NonholonomicProblem(cs.system, cs.Q).solve()
    for mo in (ga, sode):
        r = simulate(mo, (0, 20), ini, par, complete=True, t_eval=T, project=False)
        assert r.success, r.message
        assert np.allclose(r.column("x"), Rv * Om / om * (np.sin(psi) - np.sin(ps0)), atol=1e-7)
        assert np.allclose(r.column("y"), -Rv * Om / om * (np.cos(psi) - np.cos(ps0)), atol=1e-7)
        assert r.residuals.shape == (41, 2) and r.max_residual < 1e-8
        assert r.energy.shape == (41,) and r.relative_energy_drift < 1e-8
        assert r.qdot.shape == (41, 4) and np.allclose(r.column("thetadot"), Om)
        assert np.allclose(r.reactions, ref.reactions, atol=1e-8)   # symbolic (SODE) or bordered solve (GA)
    rs = simulate(sode, (0, 20), ini, par, complete=True, t_eval=T)
    assert rs.multipliers.shape == (41, 2) and rs.reactions.shape == (41, 4)
    assert np.allclose(rs.reactions, ref.reactions, atol=1e-8)
    assert np.max(np.abs(rs.reactions)) > 0.1          # the disc is kept on its circle by a real force



def test_large_constrained_system_is_integrated_through_the_bordered_system():
    """A system whose accelerations are kept as unsimplified DAGs (ConstrainedSystem.is_large: the
    2-trailer) is integrated in the multipliers formulation — numerical solves of the bordered
    system, no 0/0 at special states — and the motion agrees with the DAG accelerations
    integrated directly (prepare(cs, "full")) at a generic state: two routes, one motion."""
    from jetgeo import systems

    e = systems.load("n_trailer", n=2)
    cs = e.system.constrain(e.Q)
    assert cs.is_large
    start = dict(e.initial)
    for k, q in enumerate(cs.Y.q):  # a generic state: angles away from 0
        start[q] = start[q] + sp.Rational(k + 1, 7)
    for v in cs.dependent:  # completed from f = 0
        start.pop(v)
    bordered = simulate(cs, (0, 0.5), start, e.params, complete=True)
    assert bordered.formulation == "multipliers"
    direct = simulate(prepare(cs, "full"), (0, 0.5), start, e.params, complete=True)
    assert direct.formulation == "full"
    assert bordered.success and direct.success and bordered.t[-1] == direct.t[-1] == 0.5
    assert np.allclose(bordered.q[-1], direct.q[-1], rtol=1e-7, atol=1e-8)
    assert np.allclose(bordered.qdot[-1], direct.qdot[-1], rtol=1e-7, atol=1e-8)


@pytest.mark.parametrize("formulation", ["full", "reduced", "multipliers"])
def test_only_the_integrated_function_gets_the_basic_cse_pass(monkeypatch, formulation):
    """``prepare`` compiles the right-hand side with sympy's "basic" cse pre-processing (factor_terms on every
    expression: fewer operations per call, paid once) and every kernel evaluated only along the solution or at a
    projection (constraint Jacobians, the bordered system when it is not the right-hand side, integrals) with
    plain cse: without that pass there, tests/numerics/test_orientation_atlas.py took 14.6 s of CPU instead of
    17.9 s.  The run itself is unchanged: on Q, energy kept."""
    prepare_module = sys.modules["jetgeo.numerics.simulation.prepare"]  # the package's `prepare` is the function
    seen = []
    real = prepare_module.compile_rhs

    def recording(*args, **kw):
        seen.append((kw.get("name"), kw.get("optimizations", "basic")))
        return real(*args, **kw)

    monkeypatch.setattr(prepare_module, "compile_rhs", recording)
    e = systems.load("rolling_disc")
    res = simulate(e.constrained(), (0, 1), e.initial, e.params, formulation=formulation, rtol=1e-10, atol=1e-12)
    assert res.status == "finished" and res.max_residual < 1e-8 and res.relative_energy_drift < 1e-8
    integrated = "bordered_system" if formulation == "multipliers" else "rhs"
    assert (integrated, "basic") in seen, seen
    assert all(opt is None for name, opt in seen if name != integrated), seen
