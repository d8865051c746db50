"""simulate(..., method="dla-midpoint" | "dla-trapezoid" | "dla-4", step=h): the discrete
Lagrange–d'Alembert integrators [Cortés–Martínez 2001], [McLachlan–Perlmutter 2006] — their order,
reversibility, constraints at every node, the discrete reactions, every catalogue system."""

from __future__ import annotations

import shutil
import warnings

import numpy as np
import pytest
import sympy as sp
from rigid_fixtures import chaplygin_ball

from jetgeo import systems
from jetgeo.errors import InputError
from jetgeo.jets import FibredManifold
from jetgeo.mechanics.rigid import ellipsoid_support, rolling_on_plane
from jetgeo.numerics import codegen, simulate
from jetgeo.numerics.simulation.discrete import DISCRETE_METHODS
from jetgeo.numerics.simulation.discrete_lie import on_the_group

HAVE_CC = shutil.which(codegen.compiler_command()[0]) is not None
BACKENDS = ["python", pytest.param("c", marks=pytest.mark.skipif(not HAVE_CC, reason="no C compiler on this machine"))]
ORDER = {"dla-midpoint": 2, "dla-trapezoid": 2, "dla-4": 4}


def _chaplygin_sphere():
    """Chaplygin's ball in its coordinate form L(q, q̇) = ℓ(Φ q̇), ZXZ Euler angles [Chaplygin 1903]
    (the quasi-velocity system of tests/numerics/rigid_fixtures.py)."""
    S, par, ini = chaplygin_ball()
    return (S.lagrangian_system(), S.constraint_submanifold()), par, ini


@pytest.fixture(scope="module")
def cases():
    out = {}
    for name in ("skate", "rolling_disc"):
        e = systems.load(name)
        out[name] = ((e.system, e.Q), e.params, e.initial)
    out["chaplygin_sphere"] = _chaplygin_sphere()
    return out


def _final_error(pair, params, initial, method, h, ref):
    r = simulate(pair, (0, 1), initial, params, method=method, step=h)
    assert r.status == "finished"
    return np.max(np.abs(np.concatenate([r.q[-1] - ref.q[-1], r.qdot[-1] - ref.qdot[-1]])))


@pytest.mark.parametrize("method", list(DISCRETE_METHODS))
@pytest.mark.parametrize("name", ["skate", "rolling_disc", "chaplygin_sphere"])
def test_error_at_t1_falls_4x_or_16x_when_h_halves(cases, name, method):
    """The error at t = 1 against DOP853 (rtol 1e-12) falls by 2^order when h halves: 4 for the two
    second-order maps, 16 for the triple jump [Yoshida 1990]."""
    pair, params, initial = cases[name]
    ref = simulate(pair, (0, 1), initial, params, rtol=1e-13, atol=1e-13)
    h = {"dla-4": 0.1}.get(method, 0.05)
    e1 = _final_error(pair, params, initial, method, h, ref)
    e2 = _final_error(pair, params, initial, method, h / 2, ref)
    ratio = e1 / e2
    expected = 2 ** ORDER[method]
    assert 0.8 * expected < ratio < 1.25 * expected, (e1, e2, ratio)
    assert e2 > 1e3 * 1e-13  # the reference is far more accurate than the discrete solution


@pytest.mark.parametrize("method", list(DISCRETE_METHODS))
def test_forward_then_backward_returns_to_the_start(cases, method):
    """The maps are symmetric: stepping back with −h from the end undoes the run, to 1e-10 (the
    Newton iterations converge to round-off)."""
    pair, params, initial = cases["rolling_disc"]
    fwd = simulate(pair, (0, 2), initial, params, method=method, step=0.02)
    end = {**dict(zip(fwd.q_symbols, fwd.q[-1])), **dict(zip(fwd.qdot_symbols, fwd.qdot[-1]))}
    back = simulate(pair, (2, 0), end, params, method=method, step=0.02)
    assert back.t[-1] == pytest.approx(0.0, abs=1e-12)
    start = np.array([float(initial[s]) for s in (*fwd.q_symbols, *fwd.qdot_symbols)])
    assert np.max(np.abs(np.concatenate([back.q[-1], back.qdot[-1]]) - start)) < 1e-10
    # and the run is not trivially short: the disc moved
    assert np.max(np.abs(fwd.q[-1] - fwd.q[0])) > 0.5


@pytest.mark.parametrize("method", list(DISCRETE_METHODS))
def test_every_node_on_Q_and_energy_nearly_kept(cases, method):
    """f(t_k, q_k, q̇_k) ≤ 1e-12 (relative) at every node; the energy of the skate (reversible,
    homogeneous constraint) stays within 1e-6 over 500 steps."""
    pair, params, initial = cases["skate"]
    r = simulate(pair, (0, 5), initial, params, method=method, step=0.01)
    assert r.max_relative_residual <= 1e-12 and r.max_residual <= 1e-12
    assert r.relative_energy_drift < 1e-6


def test_discrete_reactions_converge_to_chetaevs(cases):
    """The multipliers of the discrete map (the half impulse arriving at each node, per unit time)
    converge to the continuous Chetaev multipliers λ of the bordered system at second order."""
    pair, params, initial = cases["rolling_disc"]
    ref = simulate(pair, (0, 1), initial, params, rtol=1e-12, atol=1e-12)
    errs = []
    for h in (0.02, 0.01):
        r = simulate(pair, (0, 1), initial, params, method="dla-midpoint", step=h)
        assert r.multipliers.shape == (len(r.t), 2) and r.reactions.shape == (len(r.t), 5)
        errs.append(np.max(np.abs(r.multipliers[-1] - ref.multipliers[-1])))
        # the reaction does no work on a homogeneous constraint: R·q̇ = λ f = 0 at the nodes
        assert np.max(np.abs(r.reaction_power)) < 1e-10
    assert errs[1] < errs[0] / 3 and errs[1] < 1e-2 * np.max(np.abs(ref.multipliers[-1]))


@pytest.mark.parametrize("method", list(DISCRETE_METHODS))
def test_stolarova_krupkova_nonlinear_constraint(method):
    """ẋ² + ẏ² − a²ż² = 0 with gravity [Stolařová 2009, Example 2]: every node on the cone.  The
    particle slows down along a fixed direction of the cone, q̇(t) = (1 − ct) q̇(0), until it stops
    on the zero section (t ≈ 0.71); a velocity linear in t is integrated exactly by the quadratures,
    so the discrete motion is the exact one, to round-off, before it stops."""
    e = systems.load("stolarova_example2")
    assert e.Q.classify().kind == "nonlinear"
    ref = simulate(e, (0, 0.5), e.initial, e.params, rtol=1e-13, atol=1e-13)
    r = simulate(e, (0, 0.5), e.initial, e.params, method=method, step=0.05)
    assert r.max_residual < 1e-12
    assert np.max(np.abs(r.qdot[-1] - ref.qdot[-1])) < 1e-10 and np.max(np.abs(r.q[-1] - ref.q[-1])) < 1e-10
    assert np.max(np.abs(r.qdot[-1] - r.qdot[0])) > 1.0  # it did slow down


@pytest.mark.parametrize("method", list(DISCRETE_METHODS))
@pytest.mark.parametrize("name", systems.names())
def test_every_catalogue_system_steps(name, method):
    """Five steps of every scheme on every catalogue system, every node on Q."""
    e = systems.load(name)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = simulate(e, (0, 0.05), e.initial, e.params, method=method, step=0.01)
    assert r.status == "finished" and len(r.t) == 6
    assert r.max_relative_residual < 1e-12
    assert np.all(np.isfinite(r.energy)) and np.all(np.isfinite(r.reactions))


def test_bad_arguments_are_named():
    e = systems.load("skate")
    with pytest.raises(InputError, match="needs step="):
        simulate(e, (0, 1), e.initial, e.params, method="dla-midpoint")
    with pytest.raises(InputError, match="whole number of steps"):
        simulate(e, (0, 1), e.initial, e.params, method="dla-midpoint", step=0.3)
    with pytest.raises(InputError, match="step must be"):
        simulate(e, (0, 1), e.initial, e.params, method="dla-4", step=-0.1)
    with pytest.raises(InputError, match="not rtol"):
        simulate(e, (0, 1), e.initial, e.params, method="dla-4", step=0.1, rtol=1e-3)
    with pytest.raises(InputError, match="t_eval"):
        simulate(e, (0, 1), e.initial, e.params, method="dla-4", step=0.1, t_eval=[0.5])
    with pytest.raises(InputError, match="needs a Lagrangian"):
        simulate(e.system, (0, 1), e.initial, e.params, method="dla-4", step=0.1)
    for extra in ({"formulation": "reduced"}, {"formulation": "multipliers"}, {"project": True}):
        with pytest.raises(InputError, match="do not apply"):
            simulate(e, (0, 1), e.initial, e.params, method="dla-midpoint", step=0.1, **extra)


@pytest.mark.parametrize("backend", BACKENDS)
def test_angles_of_1e7_rad_are_carried_modulo_2pi(backend):
    """The disc's coordinates enter the step only modulo 2π (ψ, φ through sin/cos; x, y not at all):
    started 1591549 turns (1e7 rad) out, the stepper reduces them, so every node keeps the constraint
    to round-off (main: 4.4e-12) and the motion is the unshifted one up to the rounding of the start
    (ulp(1e7) = 1.9e-9; main: q̇ off by 4.3e-8, the steps h·v quantised at ulp(1e7))."""
    e = systems.load("rolling_disc")
    turns = 1591549
    shifted = {k: (v + 2 * sp.pi * turns if str(k) in ("x", "y", "psi", "phi") else v) for k, v in e.initial.items()}
    a = simulate(e, (0, 3), e.initial, e.params, method="dla-midpoint", step=0.01, backend=backend)
    b = simulate(e, (0, 3), shifted, e.params, method="dla-midpoint", step=0.01, backend=backend, manifold_tol=1e-6)
    assert a.success and b.success
    assert np.abs(b.residuals[1:]).max() <= 1e-13  # node 0 is the given (rounded) start
    assert np.abs(a.qdot - b.qdot).max() <= 1e-8
    names = [str(s) for s in a.q_symbols]
    moved = [names.index(n) for n in ("x", "y", "psi", "phi")]
    assert np.abs((b.q - a.q)[:, moved] - 2 * np.pi * turns).max() <= 2e-8  # reported unwrapped
    assert np.abs(b.q[:, names.index("theta")] - a.q[:, names.index("theta")]).max() <= 1e-9


def test_rattleback_step_too_large_is_named_with_the_step_that_passes():
    """The rattleback [Neimark–Fufaev 1972] spun at 3 rad/s rocks at about 80 rad/s (period 0.08 s): at
    h = 0.01 the branch of solutions of the discrete equations that tends to the motion as h → 0 turns back
    (a fold, near h = 0.0091 at t = 0.02; the Jacobian is right — finite differences agree to 2e-10 — and
    a damped Newton stalls at |F| = 0.03), so Newton's method wanders.  The run stops there with a message
    naming the step and the one that passes (two steps of 0.005), which then runs to the end on Q.  Its
    contact point's 1/√(ξᵀAξ) makes ℓ of degree > 2 in R: stepped in the coordinate form (said by
    on_the_group)."""
    Y = FibredManifold(["phi", "theta", "psi", "x", "y"])
    a, b, c, m, g, d, A, B, C, dl = sp.symbols("a b c m g d A B C delta", positive=True)
    Rz = sp.Matrix([[sp.cos(dl), -sp.sin(dl), 0], [sp.sin(dl), sp.cos(dl), 0], [0, 0, 1]])
    S = rolling_on_plane(Y, "XYZ", ["w1", "w2", "w3", "u", "w"], ellipsoid_support(a, b, c), m,
                         Rz * sp.diag(A, B, C) * Rz.T, offset=(0, 0, -d), gravity=g)
    par = {a: 0.2, b: 0.03, c: 0.02, m: 1.0, g: 9.81, d: 0.01, A: 2e-4, B: 1.6e-3, C: 1.7e-3, dl: 0.1}
    w1, w2, w3 = S.frame.v[:3]
    jets = S.jet_state({Y.q[0]: 0.0, Y.q[1]: 0.05, Y.q[2]: 0.0, Y.q[3]: 0, Y.q[4]: 0, w1: 0, w2: 0, w3: 3.0},
                       params=par)
    pair = (S.lagrangian_system(), S.constraint_submanifold())
    r = simulate(pair, (0, 0.2), jets, par, method="dla-midpoint", step=0.01)
    assert r.status == "failed" and len(r.t) == 3 and r.t[-1] == pytest.approx(0.02)
    assert "too large" in r.message and "h = 0.01" in r.message and "choose step <= 0.005" in r.message
    ok = simulate(pair, (0, 0.2), jets, par, method="dla-midpoint", step=0.005)
    assert ok.success and ok.max_relative_residual < 1e-12
    assert "degree ≤ 2" in on_the_group(S)
