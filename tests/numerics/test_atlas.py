"""The atlas of Q in simulate(): runs that cross the boundary of a normal form's chart, and honest
initial data.

Independent truth: the Chaplygin sleigh's closed form (derived in theory/atlas.md from the body-frame
equations m(v̇ − aω²) = 0, (I + m a²)ω̇ = −m a v ω; [Neimark–Fufaev 1972]):
v = v∞ tanh(κt + c), ω = ω₀ cosh c / cosh(κt + c), θ = θ₀ + (ω₀ cosh c/κ)(gd(κt + c) − gd(c)),
v∞ = √(2E/m), κ = m a v∞/(I + m a²), c = artanh(v₀/v∞), gd the Gudermannian.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
import sympy as sp

from jetgeo import ConstraintSubmanifold, FibredManifold, LagrangianSystem
from jetgeo.errors import InputError, OffManifoldError
from jetgeo.io import load_spec
from jetgeo.io.specs import spec_path
from jetgeo.numerics import SimulationStoppedWarning, simulate

PARAMS = {"m": 2.0, "I": 0.7, "a": 0.4}


@cache
def sleigh():
    Y = FibredManifold(["x", "y", "th"])
    x, y, th = Y.q
    xd, yd, thd = Y.qdot
    m, I, a = sp.symbols("m I a", positive=True)
    L = m / 2 * ((xd - a * thd * sp.sin(th)) ** 2 + (yd + a * thd * sp.cos(th)) ** 2) + I / 2 * thd**2
    S = LagrangianSystem(Y, L)
    Q = ConstraintSubmanifold(Y, [-xd * sp.sin(th) + yd * sp.cos(th)])
    return S, Q, S.constrain(Q)


def closed_form(t, v0, w0, th0, m=2.0, I=0.7, a=0.4):
    """(v, ω, θ) of the sleigh (module docstring)."""
    E = m * v0**2 / 2 + (I + m * a**2) * w0**2 / 2
    vinf = np.sqrt(2 * E / m)
    kappa = m * a * vinf / (I + m * a**2)
    c = np.arctanh(v0 / vinf)

    def gd(u):
        return 2 * np.arctan(np.tanh(u / 2))

    u = kappa * t + c
    return vinf * np.tanh(u), w0 * np.cosh(c) / np.cosh(u), th0 + w0 * np.cosh(c) / kappa * (gd(u) - gd(c))


def forward_speed(r):
    th = r.q[:, 2]
    return r.qdot[:, 0] * np.cos(th) + r.qdot[:, 1] * np.sin(th)


@pytest.mark.parametrize("formulation", ["full", "reduced"])
def test_sleigh_runs_40s_across_theta_pi_over_2_and_matches_the_closed_form(formulation):
    S, Q, cs = sleigh()
    x, y, th = cs.Y.q
    xd, yd, thd = cs.Y.qdot
    assert cs.dependent == (yd,)                       # ẏ = ẋ tan θ: singular at θ = π/2
    T = np.linspace(0, 40, 801)
    r = simulate(cs, (0, 40), {x: 0, y: 0, th: 0, xd: 0.3, thd: 1.5}, PARAMS, complete=True, t_eval=T,
                 formulation=formulation)
    assert r.status == "finished" and r.t[-1] == 40 and r.event is None
    v, w, theta = closed_form(T, 0.3, 1.5, 0.0)
    assert np.max(np.abs(forward_speed(r) - v)) < 1e-8
    assert np.max(np.abs(r.qdot[:, 2] - w)) < 1e-8
    assert np.max(np.abs(r.q[:, 2] - theta)) < 1e-8
    assert theta[-1] > np.pi / 2 + 0.5                 # it really crossed the chart boundary
    # one switch, where ρ_ẏ = cos²θ falls to 1/(4·3), i.e. θ = arccos(1/√12): located by the monitor
    assert len(r.charts) == 1
    sw = r.charts[0]
    assert sw.old == (yd,) and sw.new == (xd,)
    assert closed_form(sw.t, 0.3, 1.5, 0.0)[2] == pytest.approx(np.arccos(1 / np.sqrt(12)), abs=1e-9)
    assert "ρ" in sw.reason and sw.rho_new > 0.9
    assert r.max_residual < 1e-9
    # dense output across the switch, in the full state
    qq, vv = r(np.array([0.5 * sw.t, sw.t + 0.5, 30.0]))
    assert np.allclose(qq[2], closed_form(np.array([0.5 * sw.t, sw.t + 0.5, 30.0]), 0.3, 1.5, 0.0)[2], atol=1e-8)


def test_sleigh_from_the_shipped_spec_and_the_summary():
    spec = load_spec(spec_path("chaplygin_sleigh"))
    ini = spec.initial_state()
    t0 = ini.pop(spec.Y.t)
    r = simulate(spec.constrained(), (t0, 40), ini, spec.numeric_params(), t_eval=np.linspace(0, 40, 201))
    v, _, _ = closed_form(r.t, 0.3, 1.5, 0.0)
    assert r.status == "finished" and np.max(np.abs(forward_speed(r) - v)) < 1e-8
    assert "chart switch at t = " in r.summary() and r"\to" in r._repr_latex_()


def test_one_chart_stops_at_its_boundary_with_a_warning():
    S, Q, cs = sleigh()
    x, y, th = cs.Y.q
    xd, yd, thd = cs.Y.qdot
    with pytest.warns(SimulationStoppedWarning, match="det ∂f/∂q̇"):
        r = simulate(cs, (0, 40), {x: 0, y: 0, th: 0, xd: 0.3, thd: 1.5}, PARAMS, complete=True, atlas=False)
    assert r.status == "singular" and r.t[-1] < 2 and not r.charts
    _, _, theta = closed_form(np.array([r.t[-1]]), 0.3, 1.5, 0.0)
    assert theta[0] == pytest.approx(np.pi / 2, abs=1e-5)


def test_start_on_the_boundary_of_the_chart_in_force():
    """θ(0) = π/2: ẏ = ẋ tan θ is undefined at the initial point; the run starts in ẋ = ẏ cot θ."""
    S, Q, cs = sleigh()
    x, y, th = cs.Y.q
    xd, yd, thd = cs.Y.qdot
    T = np.linspace(0, 10, 101)
    r = simulate(cs, (0, 10), {x: 0, y: 0, th: np.pi / 2, yd: 0.3, thd: 1.5}, PARAMS, complete=True, t_eval=T)
    assert r.charts[0].t == 0 and r.charts[0].new == (xd,)
    v, w, theta = closed_form(T, 0.3, 1.5, np.pi / 2)
    assert np.max(np.abs(forward_speed(r) - v)) < 1e-8 and np.max(np.abs(r.q[:, 2] - theta)) < 1e-8


def test_a_true_singular_state_still_stops_with_a_warning():
    """ẋ² + ẏ² − a²ż² = 0 reaches its zero section (rank ∂f/∂q̇ = 0): no chart continues."""
    Y = FibredManifold(["x", "y", "z"])
    x, y, z = Y.q
    xd, yd, zd = Y.qdot
    S = LagrangianSystem.mechanical(Y, (xd**2 + yd**2 + zd**2) / 2, 10 * z)
    cs = S.constrain(ConstraintSubmanifold(Y, [xd**2 + yd**2 - 4 * zd**2], dependent=[zd], branch=0))
    with pytest.warns(SimulationStoppedWarning, match="rank ∂f/∂q̇"):
        r = simulate(cs, (0, 2), {x: 0, y: 0, z: 0, xd: 2, yd: 2}, complete=True)
    assert r.status == "singular" and r.event.t == pytest.approx(np.sqrt(2) / 2, rel=2e-3)


def test_a_chart_that_cannot_be_entered_ends_the_run_as_failed_not_singular(monkeypatch):
    """The atlas reaches the boundary of ẏ = ẋ tan θ; if the next chart cannot be entered (here: its branch
    is not identified, simulated by making the derivation raise BranchError) the state is not proven
    singular — the run ends as "failed", saying why, and is not reported as a singular state."""
    from jetgeo.errors import BranchError
    from jetgeo.numerics.simulation import atlas

    S, Q, cs = sleigh()
    x, y, th = cs.Y.q
    xd, yd, thd = cs.Y.qdot

    def refuse(*args, **kw):
        raise BranchError("no branch through the state (test)")

    monkeypatch.setattr(atlas, "_atlas_prep", refuse)
    with pytest.warns(SimulationStoppedWarning, match="cannot be entered"):
        r = simulate(S.constrain(ConstraintSubmanifold(cs.Y, list(Q.f))), (0, 40),
                     {x: 0, y: 0, th: 0, xd: 0.3, thd: 1.5}, PARAMS, complete=True)
    assert r.status == "failed" and not r.success and not r.event.proven and r.t[-1] < 2


# --- initial data --------------------------------------------------------------------------------------
def test_complete_for_a_system_Q_pair_and_the_named_choice():
    S, Q, cs = sleigh()
    x, y, th = S.Y.q
    xd, yd, thd = S.Y.qdot
    T = np.linspace(0, 5, 51)
    # multipliers formulation (no normal form): complete=True computes ẏ from f = 0
    r = simulate((S, Q), (0, 5), {x: 0, y: 0, th: 0.3, xd: 0.3, thd: 1.5}, PARAMS, complete=True, t_eval=T)
    v, _, theta = closed_form(T, 0.3 / np.cos(0.3), 1.5, 0.3)
    assert np.max(np.abs(forward_speed(r) - v)) < 1e-8 and np.max(np.abs(r.q[:, 2] - theta)) < 1e-8
    with pytest.raises(InputError, match=r"missing for the velocities \[ydot\]; the dependent velocities of the "
                       r"choice in force are \[ydot\]"):
        simulate((S, Q), (0, 5), {x: 0, y: 0, th: 0.3, xd: 0.3, thd: 1.5}, PARAMS)
    # ẋ omitted instead: it is computed (the constraint can be solved for ẋ where sin θ ≠ 0)
    r2 = simulate(cs, (0, 5), {x: 0, y: 0, th: 0.3, yd: 0.3 * np.tan(0.3), thd: 1.5}, PARAMS, complete=True,
                  t_eval=T)
    assert np.allclose(r2.q, r.q, atol=1e-8)
    with pytest.raises(InputError, match=r"cannot be solved for \[xdot\] at the initial point"):
        simulate(cs, (0, 5), {x: 0, y: 0, th: 0.0, yd: 0.0, thd: 1.5}, PARAMS, complete=True)
    with pytest.raises(InputError, match="computes 1 velocity from the 1 constraint"):
        simulate(cs, (0, 5), {x: 0, y: 0, th: 0.3, thd: 1.5}, PARAMS, complete=True)


def test_given_dependent_velocity_error_names_the_choice():
    """θ̇ given although dependent: the error says which velocities the choice in force solves for."""
    Y = FibredManifold(["x", "y", "th"])
    x, y, th = Y.q
    xd, yd, thd = Y.qdot
    S = LagrangianSystem.mechanical(Y, (xd**2 + yd**2 + thd**2) / 2)
    Q = ConstraintSubmanifold(Y, [-xd * sp.sin(th) + yd * sp.cos(th) - thd / 2], dependent=[thd])
    cs = S.constrain(Q)
    ini = {x: 0, y: 0, th: 0.2, yd: 0.4, thd: 0.1}
    with pytest.raises(InputError, match=r"missing for the velocities \[xdot\]; the dependent velocities of the "
                       r"choice in force are \[thdot\] \(thdot given\)"):
        simulate(cs, (0, 1), ini)
    r = simulate(cs, (0, 1), ini, complete=True)
    xd0 = (0.4 * np.cos(0.2) - 0.05) / np.sin(0.2)      # from f = 0
    assert r.qdot[0, 0] == pytest.approx(xd0, rel=1e-12)
    with pytest.raises(OffManifoldError, match=r"omit 1 of them \(e.g. the dependent velocities of the choice in "
                       r"force, \[thdot\]\)"):
        simulate(cs, (0, 1), {**ini, xd: 1.0})


def test_help_of_the_simulate_function_is_self_contained():
    """jetgeo.numerics.simulate is the function, and no module of that name exists to shadow: its own
    docstring explains the formulations, the atlas and the singular states, and names the package
    (jetgeo.numerics.simulation) whose docstring has the rest."""
    import importlib

    import jetgeo.numerics

    doc = jetgeo.numerics.simulate.__doc__
    for word in ("formulation", "multipliers", "atlas", "ρ_D", "SimulationStoppedWarning", "complete=True",
                 "rank of ∂f/∂q̇", "jetgeo.numerics.simulation", "**keywords", "SimulationOptions"):
        assert word in doc, word
    assert "see the module docstring" not in doc
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("jetgeo.numerics.simulate")
    package = importlib.import_module("jetgeo.numerics.simulation")
    assert package.__doc__.startswith("Simulation with constraint monitoring") and package.simulate is simulate
