"""Every system of the catalogue (jetgeo.systems) simulated over a long horizon, t ∈ [0, 100].

The expensive part is symbolic (the constrained accelerations of each entry): it is derived once
per session (``_derived``, cached per entry name) and compiled once (``prepare`` caches per system
object); integrating a compiled right-hand side over a long horizon is cheap.

* ``formulation="full"`` integrates (q, q̇) with q̈ = cs.accelerations(): Q is an invariant manifold
  of this ODE, so the constraint values along the solution are integration error — at the
  integrator's tolerance without projection, at round-off with it.
* Where the normal form q̇^D = g(t, q, q̇^I) of an entry breaks down before t = 100 (the skate at
  θ = π/2, …) the integration stops with an explanation, and the multiplier formulation
  (W q̈ = L + Jᵀλ, J q̈ = −d̄f, no normal form) carries the same motion on over the whole horizon
  unless the state is genuinely singular (rank ∂f/∂q̇ drops, e.g. [Stolařová 2009, Example 2]'s zero
  section): then that formulation stops too and says so.
* Energy: the balance dE/dt = −∂_tL + (A + R)·q̇ holds along every motion (``energy_balance``).
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from jetgeo import systems
from jetgeo.errors import InputError
from jetgeo.numerics import simulate

NAMES = systems.names()
HORIZON = 100.0


@cache
def _derived(name):
    """(entry, constrained system) with the symbolic accelerations derived once per session."""
    e = systems.load(name)
    cs = e.constrained()
    cs.accelerations()
    return e, cs


def _check_monitors(r, name):
    assert r.max_relative_residual < 1e-7, (name, r.formulation, r.max_relative_residual)
    if r.energy is not None and len(r.t) > 2:
        scale = 1.0 + np.max(np.abs(r.energy))
        assert np.max(np.abs(r.energy_balance())) < 1e-4 * scale, (name, r.formulation)


@pytest.mark.parametrize("name", NAMES)
def test_catalogue_residuals_long_horizon_and_projection(name):
    e, cs = _derived(name)
    T = np.linspace(0, HORIZON, 401)
    r = simulate(cs, (0, HORIZON), e.initial, e.params, t_eval=T)
    assert r.success, (name, r.message)
    _check_monitors(r, name)
    formulation = "full"
    if r.event is not None:
        # stopped at a singular state of the chosen representation: the message says which quantity
        assert r.status == "singular" and r.event.explanation in r.message and r.t[-1] == r.event.t < HORIZON
        formulation = "multipliers"
        r = simulate(cs, (0, HORIZON), e.initial, e.params, t_eval=T, formulation=formulation)
        assert r.success, (name, r.message)
        _check_monitors(r, name)
        if r.event is not None:  # a genuine singular state of Q itself
            assert "rank ∂f/∂q̇" in r.message, (name, r.message)
    assert r.event is not None or r.t[-1] == HORIZON
    # with projection the residuals stay at round-off whatever the tolerance: a looser one (fewer steps) shows it
    rp = simulate(cs, (0, HORIZON), e.initial, e.params, t_eval=T, formulation=formulation, project=True,
                  rtol=1e-8, atol=1e-10)
    assert rp.success, (name, rp.message)
    assert rp.max_relative_residual < 1e-14, (name, rp.max_relative_residual)
    # the same motion with and without projection
    n = min(len(r.t), len(rp.t)) - 1
    assert np.allclose(rp.q[:n], r.q[:n], atol=1e-4 * (1 + np.max(np.abs(r.q[:n])))), name


def test_three_lines_from_catalogue_to_plot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    e = systems.load("skate")
    res = simulate(e.constrained(), (0, 5), e.initial, e.params)
    fig = res.plot()
    assert len(fig.axes) == 4 and res.max_residual < 1e-8
    assert np.allclose(fig.axes[1].lines[0].get_xdata(), res.q[:, 0])
    plt.close("all")


def test_long_chain_simulated_from_system_and_Q_without_normal_form():
    """A (system, Q) pair is integrated in the multipliers formulation (bordered system solved
    numerically): on the 2-trailer it follows the canonical route's trajectory (full formulation
    from cs.accelerations(), an independent symbolic derivation); the 8-trailer runs without
    the normal form ever being formed, stays on Q and conserves energy (homogeneous constraints)."""
    e = systems.load("n_trailer", n=2)
    T = np.linspace(0, 2, 5)
    a = simulate((e.system, e.Q), (0, 2), e.initial, e.params, t_eval=T)
    b = simulate(e.constrained(), (0, 2), e.initial, e.params, t_eval=T)
    assert a.formulation == "multipliers"
    np.testing.assert_allclose(a.q, b.q, rtol=1e-7, atol=1e-8)
    np.testing.assert_allclose(a.qdot, b.qdot, rtol=1e-7, atol=1e-8)
    long = systems.load("n_trailer", n=8)
    r = simulate(long, (0, 2), long.initial, long.params)
    assert "_branches" not in long.Q.__dict__          # no normal form was computed
    assert r.max_residual < 1e-9 and r.relative_energy_drift < 1e-9
    with pytest.raises(InputError, match="formulation='multipliers'"):
        simulate((long.system, long.Q), (0, 1), long.initial, long.params, formulation="reduced")
