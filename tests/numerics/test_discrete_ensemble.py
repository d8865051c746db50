"""ensemble(..., method="dla-…", step=h): one compiled stepper steps every member, and each member
equals its own simulate(..., method=..., step=h) run."""

from __future__ import annotations

import numpy as np
import pytest

from jetgeo import systems
from jetgeo.errors import InputError
from jetgeo.numerics import ensemble, simulate


@pytest.mark.parametrize("method", ["dla-midpoint", "dla-4"])
def test_members_equal_simulate_member_by_member(method):
    e = systems.load("rolling_disc")
    radii = [0.8, 1.0, 1.25]
    initial = {k: v for k, v in e.initial.items() if str(k) not in ("xdot", "ydot")}
    ds = ensemble(e, {"a": radii}, (0, 1), n_times=11, initial=initial, complete=True, method=method, step=0.02,
                  backend="python")
    assert list(ds.status.values) == ["ok"] * 3 and ds.attrs["formulation"] == method
    for i, a in enumerate(radii):
        par = {**{str(k): v for k, v in e.params.items()}, "a": a}
        r = simulate(e, (0, 1), initial, par, method=method, step=0.02, complete=True)
        # equal up to the round-off of completing q̇^D (the batch's compiled g vs simulate's)
        np.testing.assert_allclose(ds.trajectory.values[i], np.hstack([r.q, r.qdot])[::5], rtol=0, atol=1e-12)
        np.testing.assert_allclose(ds.energy.values[i], r.energy[::5], rtol=0, atol=1e-12)
        assert np.abs(ds.residual.values[i]).max() < 1e-12


def test_an_off_manifold_member_is_invalid_and_the_others_run():
    e = systems.load("rolling_disc")
    ds = ensemble(e, {"xdot": [float(e.numeric()[next(k for k in e.initial if str(k) == "xdot")]), 5.0]}, (0, 0.2),
                  n_times=3, method="dla-midpoint", step=0.1, backend="python")
    assert list(ds.status.values) == ["ok", "invalid"] and "constraint" in ds.message.values[1]


@pytest.mark.parametrize("kwargs, message", [
    ({"method": "dla-midpoint"}, "needs step="),
    ({"method": "dla-midpoint", "step": -0.1}, "step must be a finite number > 0"),
    ({"method": "dla-midpoint", "step": 0.3}, "not a whole number of steps"),
    ({"method": "dla-midpoint", "step": 0.1, "n_times": 4}, "output times must be nodes"),
    ({"method": "rk4", "step": 0.1}, "method must be 'DOP853' or one of"),
    ({"step": 0.1}, "step= is for the dla methods"),
])
def test_bad_arguments_are_named(kwargs, message):
    e = systems.load("rolling_disc")
    with pytest.raises(InputError, match=message):
        ensemble(e, {"a": [1.0]}, (0, 1), **{"n_times": 11, **kwargs})


def test_a_member_whose_step_fails_is_failed_with_its_nodes_kept():
    """At h = 2 the disc's second step has a singular Newton matrix (simulate says so); in an
    ensemble that member is 'failed' with simulate's message and its nodes up to the failure."""
    e = systems.load("rolling_disc")
    r = simulate(e, (0, 16), e.initial, e.params, method="dla-midpoint", step=2.0)
    assert r.status == "failed"
    ds = ensemble(e, {"m": [1.0]}, (0, 16), n_times=9, method="dla-midpoint", step=2.0, backend="python")
    assert ds.status.values[0] == "failed" and ds.message.values[0] == r.message
    traj = ds.trajectory.values[0]
    np.testing.assert_array_equal(traj[: len(r.t)], np.hstack([r.q, r.qdot]))
    assert np.all(np.isnan(traj[len(r.t):])) and float(ds.t_stop.values[0]) == r.t[-1]


def test_members_stepped_on_dask_workers_equal_the_embedded_run():
    """A real two-worker LocalCluster (processes): the members are split into one chunk per worker, each
    worker receives the exact one-step map once and compiles it once, and the dataset equals the embedded
    run's member by member (main refused client= for the dla methods)."""
    import distributed  # the ensemble extra, part of the test extra

    e = systems.load("rolling_disc")
    members = {"a": [0.8, 1.0, 1.25], "m": [1.0, 2.0, 0.5]}
    initial = {k: v for k, v in e.initial.items() if str(k) not in ("xdot", "ydot")}
    kw = dict(n_times=11, method="dla-midpoint", step=0.02, backend="python", initial=initial, complete=True)
    here = ensemble(e, members, (0, 1), **kw)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cl, \
            distributed.Client(cl) as client:
        there = ensemble(e, members, (0, 1), client=client, **kw)
        assert len(client.scheduler_info()["workers"]) == 2
    assert list(there.status.values) == ["ok"] * 3
    for name in ("trajectory", "residual", "energy", "t_stop", "nfev", "nsteps"):
        np.testing.assert_array_equal(there[name].values, here[name].values)
