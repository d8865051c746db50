"""jetgeo.numerics.ensemble: many members at once, statuses, schedulers (a real Dask LocalCluster), stores.

Independent truths: the free skate's closed-form circles and the time where its normal form
ẏ = ẋ tan θ breaks, θ(t) = π/2 [Benenti 2007, §9.1, eq. (9.1)]; member by member agreement with
:func:`jetgeo.numerics.simulate` (scipy's DOP853 stepping one trajectory); a second scheduler
(a two-worker ``distributed.LocalCluster`` of processes) against the local default; an
uninterrupted study against an interrupted and resumed one.
"""

from __future__ import annotations

import functools
import re

import numpy as np
import pytest
import sympy as sp
import xarray as xr
from numerics_systems import skate

from jetgeo import systems
from jetgeo.errors import InputError
from jetgeo.jets import FibredManifold
from jetgeo.limits import time_limit
from jetgeo.mechanics import LagrangianSystem
from jetgeo.numerics import simulate
from jetgeo.numerics.ensembles import check_study_size, ensemble, grid, members_table, sample

T_SPAN = (0.0, 2.0)


@functools.cache
def disc():
    """The heavy rolling disc of the catalogue [Ghori 1960, §3.3]: its constrained system,
    sample parameters and initial state (floats, by name)."""
    e = systems.load("rolling_disc")
    num = e.numeric()
    params = {str(k): v for k, v in num.items() if k in e.params}
    initial = {str(k): v for k, v in num.items() if k in e.initial and str(k) != "t"}
    return e.constrained(), params, initial


def _state(ds, member):
    return ds.trajectory.sel(member=member).values


def test_members_agree_with_simulate_one_by_one():
    cs, params, initial = disc()
    mem = sample(5, seed=3, thetadot=(-0.4, 0.4), phidot=(2.0, 4.0), C=(0.4, 0.6))
    ds = ensemble(cs, mem, T_SPAN, n_times=21, params=params, initial=initial, complete=True, scheduler="serial")
    assert ds.sizes == {"member": 5, "time": 21, "state": 10, "constraint": 2}
    assert list(ds.status.values) == ["ok"] * 5
    np.testing.assert_array_equal(ds.C.values, mem["C"].to_numpy())  # parameters are coordinates
    for i in range(5):
        row = mem.iloc[i]
        ini = {k: v for k, v in initial.items() if k not in ("xdot", "ydot")}
        ini.update(thetadot=row.thetadot, phidot=row.phidot)
        r = simulate(cs, T_SPAN, ini, {**params, "C": row.C}, complete=True, t_eval=ds.time.values)
        ref = np.hstack([r.q, r.qdot])
        assert np.max(np.abs(_state(ds, i) - ref)) < 1e-9 * (1 + np.max(np.abs(ref)))
        np.testing.assert_allclose(ds.energy.sel(member=i).values, r.energy, rtol=1e-9)
        np.testing.assert_allclose(ds.residual.sel(member=i).values, r.residuals, atol=1e-9)
    assert float(np.abs(ds.residual).max()) < 1e-8          # Q is invariant: drift at the tolerance
    drift = np.abs(ds.energy - ds.energy.isel(time=0)).max()
    assert float(drift) < 1e-8                                # conservative system: E_L constant


def test_skate_members_follow_circles_and_stop_where_the_normal_form_breaks():
    """Free skate [Benenti 2007, §9.1, eq. (9.1)]: θ = θ₀ + ωt and circles of radius u/ω; the normal form
    ẏ = ẋ tan θ is singular at θ = π/2, reached at t = (π/2 − θ₀)/ω — each member stops there."""
    cs, (m, I) = skate()
    u, th0 = 1.3, -0.4
    ws = np.array([0.1, 0.2, 0.5, 0.9])
    mem = {"thetadot": ws, "xdot": u * np.cos(th0) * np.ones(4)}
    ds = ensemble(cs, mem, (0.0, 4.0), n_times=41, params={m: 2, I: 0.5}, initial={"x": 0, "y": 0, "theta": th0},
                  complete=True, scheduler="serial", atlas=False)
    t_hit = (np.pi / 2 - th0) / ws
    for i, w in enumerate(ws):
        if t_hit[i] > 4.0:
            assert ds.status.values[i] == "ok"
        else:
            assert ds.status.values[i] == "singular"
            assert "det ∂f/∂q̇^D" in ds.message.values[i]
            assert ds.t_stop.values[i] == pytest.approx(t_hit[i], rel=1e-7)
        T = ds.time.values
        ok = T <= ds.t_stop.values[i]
        th = th0 + w * T[ok]
        X = (u / w) * (np.sin(th) - np.sin(th0))
        Yc = -(u / w) * (np.cos(th) - np.cos(th0))
        traj = _state(ds, i)
        np.testing.assert_allclose(traj[ok, 0], X, atol=1e-8)
        np.testing.assert_allclose(traj[ok, 1], Yc, atol=1e-8)
        assert np.all(np.isnan(traj[~ok]))                  # nothing after the stop
    # with the atlas (the default, as in simulate) every member crosses θ = π/2 in the chart of [xdot]
    # and runs to the end on its circle, the same motion as simulate's
    da = ensemble(cs, mem, (0.0, 4.0), n_times=41, params={m: 2, I: 0.5}, initial={"x": 0, "y": 0, "theta": th0},
                  complete=True, scheduler="serial")
    assert set(da.status.values) == {"ok"}
    T = da.time.values
    for i, w in enumerate(ws):
        th = th0 + w * T
        np.testing.assert_allclose(_state(da, i)[:, 0], (u / w) * (np.sin(th) - np.sin(th0)), atol=1e-7)
        np.testing.assert_allclose(_state(da, i)[:, 1], -(u / w) * (np.cos(th) - np.cos(th0)), atol=1e-7)
        if t_hit[i] < 4.0:
            assert "dependent velocities [ydot] → [xdot]" in da.message.values[i]
            r = simulate(cs, (0.0, 4.0), {"x": 0, "y": 0, "theta": th0, "xdot": mem["xdot"][i], "thetadot": w},
                         {m: 2, I: 0.5}, complete=True, t_eval=T)
            assert r.status == "finished" and len(r.charts) >= 1
            np.testing.assert_allclose(_state(da, i), np.hstack([r.q, r.qdot]), atol=1e-9)
    # the multiplier formulation needs no normal form: all members run to the end on their circles
    mem2 = dict(mem, ydot=u * np.sin(th0) * np.ones(4))
    dm = ensemble(cs, mem2, (0.0, 4.0), n_times=41, params={m: 2, I: 0.5}, initial={"x": 0, "y": 0, "theta": th0},
                  formulation="multipliers", scheduler="serial")
    assert set(dm.status.values) == {"ok"}
    T = dm.time.values
    for i, w in enumerate(ws):
        th = th0 + w * T
        np.testing.assert_allclose(_state(dm, i)[:, 0], (u / w) * (np.sin(th) - np.sin(th0)), atol=1e-7)
        np.testing.assert_allclose(_state(dm, i)[:, 2], th, atol=1e-8)


def test_bad_members_are_reported_and_the_others_complete():
    cs, params, initial = disc()
    good = {"thetadot": [0.1, -0.2, 0.3], "A": [0.25, 0.25, 0.3], "xdot": [np.nan] * 3}
    ref = ensemble(cs, {k: v for k, v in good.items() if k != "xdot"}, T_SPAN, n_times=11, params=params,
                   initial=initial, complete=True, scheduler="serial")
    # member 1: A = 0 contradicts the declared A > 0 (it would make the reduced mass matrix singular:
    # the regularity determinant of Krupková–Stolařová (12) is ∝ A); member 3: ẋ off the constraint
    # ẋ + a(φ̇ + ψ̇ cos θ) cos ψ − … = 0; member 4: a parameter that is not a number
    mem = {"thetadot": [0.1, 0.0, -0.2, 0.0, 0.0, 0.3], "A": [0.25, 0.0, 0.25, 0.25, np.nan, 0.3],
           "xdot": [np.nan, np.nan, np.nan, 5.0, np.nan, np.nan]}
    ds = ensemble(cs, mem, T_SPAN, n_times=11, params=params, initial=initial, complete=True, chunk_size=4,
                  scheduler="serial")
    st = list(ds.status.values)
    assert st == ["ok", "invalid", "ok", "invalid", "invalid", "ok"]
    assert "the parameter A = 0 contradicts its assumption 'positive'" in ds.message.values[1]
    assert "off the constraint manifold" in ds.message.values[3] and "f^1" in ds.message.values[3]
    assert "not finite" in ds.message.values[4]
    for k, i in enumerate([0, 2, 5]):  # the good members are unaffected by their bad neighbours
        np.testing.assert_array_equal(_state(ds, i), _state(ref, k))
    assert np.all(np.isnan(_state(ds, 3)))


def test_local_cluster_equals_local_default_member_by_member():
    """A real two-worker LocalCluster (processes) gives the local default's dataset exactly."""
    import distributed  # the ensemble extra, part of the test extra

    cs, params, initial = disc()
    mem = grid(thetadot=[-0.3, 0.0, 0.3], phidot=[2.0, 3.0, 4.0])
    kw = dict(params=params, initial=initial, complete=True, n_times=11, chunk_size=2)
    local = ensemble(cs, mem, T_SPAN, **kw)  # default scheduler: a process pool on the machine's cores
    serial = ensemble(cs, mem, T_SPAN, scheduler="serial", **kw)
    xr.testing.assert_identical(local, serial)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cl, \
            distributed.Client(cl) as client:
        remote = ensemble(cs, mem, T_SPAN, client=client, **kw)
        assert len(client.scheduler_info()["workers"]) == 2
    xr.testing.assert_identical(remote, local)
    assert set(remote.status.values) == {"ok"}


class _Interrupt(Exception):
    pass


@functools.cache
def _resume_study() -> tuple:
    """(members, keywords, the study run in memory) of the resume tests: the in-memory run is the same for both
    kinds of store, so it is computed once (no test changes it: ``drop_attrs`` returns a new dataset)."""
    cs, params, initial = disc()
    mem = sample(10, seed=7, thetadot=(-0.3, 0.3), phidot=(2.0, 4.0))
    kw = dict(params=params, initial=initial, complete=True, n_times=11, chunk_size=3, scheduler="serial")
    return mem, kw, ensemble(cs, mem, T_SPAN, **kw)


@pytest.mark.parametrize("suffix", [".zarr", ".nc"])
def test_resumed_study_equals_uninterrupted(tmp_path, suffix):
    cs, _, _ = disc()
    mem, kw, memory = _resume_study()
    whole = ensemble(cs, mem, T_SPAN, store=tmp_path / f"whole{suffix}", **kw)
    xr.testing.assert_identical(whole.drop_attrs(), memory.drop_attrs())
    seen = []

    def stop_after_two(info):
        seen.append(info["chunk"])
        if len(seen) == 2:
            raise _Interrupt

    path = tmp_path / f"study{suffix}"
    with pytest.raises(_Interrupt):
        ensemble(cs, mem, T_SPAN, store=path, callback=stop_after_two, **kw)
    if suffix == ".zarr":  # the partial store is readable: two chunks done, the rest pending
        part = xr.open_zarr(path, consolidated=False)
        assert int(part.chunk_done.sum()) == 2 and (part.status.values == "pending").sum() == 10 - 6
    rest = []
    resumed = ensemble(cs, mem, T_SPAN, store=path, callback=lambda info: rest.append(info["chunk"]), **kw)
    assert sorted(rest) == sorted(set(range(4)) - set(seen))   # only the missing chunks were computed
    xr.testing.assert_identical(resumed, whole)
    again = []
    ensemble(cs, mem, T_SPAN, store=path, callback=lambda info: again.append(info), **kw)
    assert again == []                                           # a finished study is read, not recomputed
    with pytest.raises(InputError, match="different study"):
        ensemble(cs, mem.iloc[:5], T_SPAN, store=path, **kw)


def test_member_tables_and_input_errors():
    cs, params, initial = disc()
    g = grid(a=[1.0, 2.0], phidot=[3.0, 4.0, 5.0])
    assert g.shape == (6, 2) and sorted(set(zip(g.a, g.phidot))) == sorted({(a, p) for a in (1, 2) for p in (3, 4, 5)})
    s1, s2 = sample(20, seed=4, C=(0.4, 0.6)), sample(20, seed=4, C=(0.4, 0.6))
    assert s1.equals(s2) and s1.C.between(0.4, 0.6).all()
    table = members_table([{"a": 1, "C": 2}, {"C": 3, "a": 4}])
    assert table == {"a": pytest.approx([1, 4]), "C": pytest.approx([2, 3])}
    run = functools.partial(ensemble, cs, t_span=T_SPAN, params=params, initial=initial, complete=True,
                            scheduler="serial")
    with pytest.raises(InputError, match=r"\['radius'\] are neither parameters"):
        run({"radius": [1.0]})
    with pytest.raises(InputError, match="no value for the parameter"):
        ensemble(cs, {"phidot": [1.0]}, T_SPAN, initial=initial, scheduler="serial")
    with pytest.raises(InputError, match="complete=True"):
        ensemble(cs, {"phidot": [1.0]}, T_SPAN, params=params, scheduler="serial",
                 initial={k: v for k, v in initial.items() if k not in ("xdot", "ydot")})
    with pytest.raises(InputError, match="t_span"):
        ensemble(cs, {"phidot": [1.0]}, (1.0, 0.0), params=params, initial=initial)
    with pytest.raises(InputError, match=".zarr or .nc"):
        run({"phidot": [1.0]}, store="study.csv")
    with pytest.raises(InputError, match="different lengths"):
        run({"phidot": [1.0, 2.0], "C": [1.0]})
    with pytest.raises(InputError, match="scheduler"):
        run({"phidot": [1.0]}, scheduler="threads")
    with pytest.raises(InputError, match=r"\(low, high\)"):
        sample(3, C=5)


def test_catalogue_entry_gives_the_defaults():
    e = systems.load("rolling_disc")
    ds = ensemble(e, {"phidot": [3.0]}, (0.0, 0.5), n_times=3, scheduler="serial", complete=True)
    assert ds.status.values[0] == "ok" and float(ds.a[0]) == 1.0 and float(ds.g[0]) == 10.0


# ----------------------------------------------------------------------------------------------
# issue 25: hostile members never hang the batch, and the healthy member is kept
# ----------------------------------------------------------------------------------------------
def _one_dof(L_of):
    Y = FibredManifold(["x"])
    (x,), (xd,) = Y.q, Y.qdot
    return LagrangianSystem(Y, L_of(x, xd))


@pytest.mark.parametrize("L_of, x0, v0", [
    (lambda x, v: v**2 / 2 - sp.exp(x**2), 25.0, 0.0),      # exp(625) ≈ 1e271: the next stage overflows
    (lambda x, v: v**2 / 2 - x**4, 1e80, 0.0),              # 4x³ = 4e240, one step later inf
    (lambda x, v: v**2 / 2 - x**2 / 2, 0.0, 1e308),         # y + h f overflows at once
])
def test_an_overflowing_member_fails_and_the_healthy_one_finishes(L_of, x0, v0):
    """The first step of an overflowing member was NaN, and ``rej & (h < min_step)`` is never true for
    NaN: the batch spun for ever and lost the healthy member too.  Now the member fails, saying so."""
    S = _one_dof(L_of)
    with time_limit(30):
        ds = ensemble(S, {"x": [0.5, x0], "xdot": [0.0, v0]}, (0.0, 1.0), n_times=3, scheduler="serial")
    assert list(ds.status.values) == ["ok", "failed"]
    assert "not finite" in ds.message.values[1] and "overflow" in ds.message.values[1]
    ref = simulate(S, (0.0, 1.0), {"x": 0.5, "xdot": 0.0}, t_eval=ds.time.values)
    np.testing.assert_allclose(ds.trajectory.isel(member=0).values, np.hstack([ref.q, ref.qdot]), atol=1e-9)


def test_the_skate_member_with_thetadot_1e200_fails_alone():
    cs, (m, I) = skate()
    with time_limit(30):
        ds = ensemble(cs, {"thetadot": [1.0, 1e200]}, (0.0, 1.0), n_times=3, params={m: 1, I: 0.1},
                      initial={"x": 0, "y": 0, "theta": 0, "xdot": 1}, complete=True, scheduler="serial")
    assert list(ds.status.values) == ["ok", "failed"]
    np.testing.assert_allclose(ds.trajectory.sel(member=0, state="theta").values, [0.0, 0.5, 1.0], atol=1e-12)


@pytest.mark.parametrize("options, message", [
    ({"rtol": np.nan}, "rtol must be finite"),
    ({"rtol": 0.0, "atol": 0.0}, "rtol must be > 0"),
    ({"rtol": -1.0}, "rtol must be > 0"),
    ({"rtol": 1.5}, "rtol must be < 1"),
    ({"atol": -1.0}, "atol must be >= 0"),
    ({"atol": [1e-9, 1e-9]}, "atol must be one number"),
    ({"max_step": 0.0}, "max_step must be > 0"),
    ({"max_step": -1.0}, "max_step must be > 0"),
    ({"max_step": np.nan}, "max_step must be finite"),
    ({"singular_tol": np.nan}, "singular_tol must be finite"),
    ({"manifold_tol": -1.0}, "manifold_tol must be >= 0"),
    ({"t_span": (0.0, np.nan)}, "t_span[1] must be finite"),
    ({"t_eval": [0.0, 0.5, 2.0]}, "t_eval value 2 lies outside t_span"),
])
def test_tolerances_are_validated_as_simulate_validates_them(options, message):
    """rtol = nan, rtol = atol = 0 and max_step ≤ 0 or nan never returned; rtol < 0, atol < 0 returned
    'ok' with wrong results; singular_tol = nan was accepted; manifold_tol < 0 marked every member off Q.
    The messages are simulate's: one validation function for both."""
    cs, (m, I) = skate()
    kw = {"t_span": (0.0, 1.0), **options}
    t_span = kw.pop("t_span")
    with time_limit(20), pytest.raises(InputError, match=r"^ensemble: " + re.escape(message)):
        ensemble(cs, {"thetadot": [0.1, 0.2]}, t_span, n_times=3, params={m: 1, I: 0.1},
                 initial={"x": 0, "y": 0, "theta": 0, "xdot": 1}, complete=True, scheduler="serial", **kw)
    if np.ndim(kw.get("atol", 0)) == 0:       # simulate takes one atol per state component too
        with pytest.raises(InputError, match=r"^simulate: " + re.escape(message)):
            simulate(cs, t_span, {"x": 0, "y": 0, "theta": 0, "xdot": 1, "ydot": 0, "thetadot": 0.1},
                     {m: 1, I: 0.1}, **kw)


def test_parameter_values_are_checked_against_their_assumptions():
    """m is declared positive: m = -1 made cosh of a cos with status 'ok' (a spec's [values] refuses it).
    A value for all members is refused; a column of the table marks its bad members invalid."""
    cs, (m, I) = skate()
    ini = {"x": 0, "y": 0, "theta": 0, "xdot": 1}
    with pytest.raises(InputError, match=r"^ensemble: the parameter m = -1 contradicts its assumption 'positive'"):
        ensemble(cs, {"thetadot": [0.1, 0.2]}, (0.0, 1.0), n_times=3, params={m: -1, I: 0.1}, initial=ini,
                 complete=True, scheduler="serial")
    ds = ensemble(cs, {"m": [1.0, -1.0, 0.0]}, (0.0, 1.0), n_times=3, params={I: 0.1},
                  initial={**ini, "thetadot": 0.1}, complete=True, scheduler="serial")
    assert list(ds.status.values) == ["ok", "invalid", "invalid"]
    assert ds.message.values[1] == "invalid data: the parameter m = -1 contradicts its assumption 'positive'"
    assert np.all(np.isnan(ds.trajectory.isel(member=[1, 2]).values))
    e = systems.load("rolling_disc")       # the catalogue's lengths and masses are positive too
    with pytest.raises(InputError, match="the parameter a = -1 contradicts its assumption 'positive'"):
        ensemble(e, {"thetadot": [0.1]}, (0.0, 1.0), n_times=3, params={"a": -1.0}, complete=True,
                 scheduler="serial")


def test_the_study_size_is_capped_before_anything_is_allocated():
    cs, (m, I) = skate()
    with pytest.raises(InputError, match="n_times must be an integer from 2 to 1000000"):
        ensemble(cs, {"thetadot": [0.1]}, (0.0, 1.0), n_times=10**7, params={m: 1, I: 0.1}, scheduler="serial")
    with pytest.raises(InputError, match=r"members × 1000000 output times .* at most 1000000000"):
        check_study_size(5000, 10**6, "ensemble")
    with pytest.raises(InputError, match="at most 10000000 in one study"):
        check_study_size(10**23, 3, "sweep")
