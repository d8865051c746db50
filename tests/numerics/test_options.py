"""The options objects of the long entry points (issue 29, item 5): ``simulate``, ``simulate_orientation`` and
``ensemble`` take their rarely changed choices in a frozen :class:`SimulationOptions` / :class:`EnsembleOptions`,
and the same choices as keywords (the notebook convenience) give the same run.

Independent truth: the keyword form of each call, which is the documented interface the options object must
reproduce bit for bit (the same integrator steps), and the free skate's conserved speed and θ̇ [Benenti 2007,
§9.1, eq. (9.1)].
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from numerics_systems import skate

from jetgeo.errors import InputError
from jetgeo.numerics import SimulationStoppedWarning, simulate
from jetgeo.numerics.ensembles import ensemble
from jetgeo.numerics.simulation.options import EnsembleOptions, SimulationOptions

INITIAL = {"x": 0.0, "y": 0.0, "theta": 0.3, "xdot": np.cos(0.3), "ydot": np.sin(0.3), "thetadot": 0.7}
PARAMS = {"m": 1.0, "I": 0.5}


def test_options_are_frozen_and_merge_keywords():
    opts = SimulationOptions(rtol=1e-8)
    with pytest.raises(dataclasses.FrozenInstanceError):
        opts.rtol = 1e-9  # type: ignore[misc]
    merged = SimulationOptions.merged(opts, {"singular_tol": 1e-9, "vectorized": False})
    assert (merged.rtol, merged.singular_tol, dict(merged.extra)) == (1e-8, 1e-9, {"vectorized": False})
    assert opts.singular_tol == 1e-6  # the original is unchanged
    assert merged.integrator_options() == {"rtol": 1e-8, "atol": 1e-12, "max_step": np.inf, "vectorized": False}
    with pytest.raises(InputError, match="options must be a SimulationOptions"):
        SimulationOptions.merged({"rtol": 1e-8}, {})


def test_simulate_with_an_options_object_equals_the_keywords():
    cs, _ = skate()
    with pytest.warns(SimulationStoppedWarning):
        by_kw = simulate(cs, (0, 2), INITIAL, PARAMS, rtol=1e-7, atol=1e-9, singular_tol=1e-8, atlas=False)
    opts = SimulationOptions(rtol=1e-7, atol=1e-9, singular_tol=1e-8, atlas=False)
    with pytest.warns(SimulationStoppedWarning):
        by_obj = simulate(cs, (0, 2), INITIAL, PARAMS, options=opts)
    np.testing.assert_array_equal(by_kw.t, by_obj.t)
    np.testing.assert_array_equal(by_kw.q, by_obj.q)
    np.testing.assert_array_equal(by_kw.qdot, by_obj.qdot)
    # atlas=False is honoured: the run stops where the normal form ẏ = ẋ tan θ ends, θ = 0.3 + 0.7 t = π/2
    assert by_obj.status == "singular" and abs(by_obj.t_stop - (np.pi / 2 - 0.3) / 0.7) < 1e-6
    speed = np.hypot(by_obj.qdot[:, 0], by_obj.qdot[:, 1])
    assert np.max(np.abs(speed - 1.0)) < 1e-5 and np.max(np.abs(by_obj.qdot[:, 2] - 0.7)) < 1e-6
    # a keyword overrides the object's field: with the atlas the run crosses θ = π/2 to t = 2
    across = simulate(cs, (0, 2), INITIAL, PARAMS, options=opts, atlas=True)
    assert across.status == "finished" and len(across.charts) == 1


def test_simulate_refuses_an_options_object_of_another_kind():
    cs, _ = skate()
    with pytest.raises(InputError, match="simulate: options must be a SimulationOptions, got dict"):
        simulate(cs, (0, 1), INITIAL, PARAMS, options={"rtol": 1e-8})


def test_ensemble_with_an_options_object_equals_the_keywords():
    cs, _ = skate()
    members = {"thetadot": [0.5, 0.7]}
    kw = dict(n_times=5, params=PARAMS, initial=INITIAL)
    by_kw = ensemble(cs, members, (0.0, 1.0), rtol=1e-8, max_step=0.1, scheduler="serial", **kw)
    opts = EnsembleOptions(rtol=1e-8, max_step=0.1, scheduler="serial")
    by_obj = ensemble(cs, members, (0.0, 1.0), options=opts, **kw)
    np.testing.assert_array_equal(by_kw.trajectory.values, by_obj.trajectory.values)
    assert by_obj.attrs["rtol"] == 1e-8 and list(by_obj.status.values) == ["ok", "ok"]
    # a SimulationOptions serves too (the study's own choices at their defaults)
    plain = ensemble(cs, members, (0.0, 1.0), options=SimulationOptions(rtol=1e-8, max_step=0.1),
                     scheduler="serial", **kw)
    np.testing.assert_array_equal(plain.trajectory.values, by_obj.trajectory.values)


def test_ensemble_names_the_options_when_a_keyword_is_unknown():
    cs, _ = skate()
    with pytest.raises(InputError, match=r"ensemble: unknown option\(s\) \['rtoll'\]; the options are .*'rtol'"):
        ensemble(cs, {"thetadot": [0.5]}, (0.0, 1.0), params=PARAMS, initial=INITIAL, rtoll=1e-8)
    with pytest.raises(InputError, match="ensemble: first_integrals does not apply"):
        ensemble(cs, {"thetadot": [0.5]}, (0.0, 1.0), params=PARAMS, initial=INITIAL,
                 first_integrals={"E": 0})
