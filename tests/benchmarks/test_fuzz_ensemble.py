"""The fuzzing harness on ``jetgeo.numerics.ensemble``'s keyword arguments (hypothesis, deterministic).

Any values of the keywords — NaN, ±inf, negative, zero, huge, text, booleans, lists, None — must
give either a dataset (every member with a status) or an exception of :mod:`jetgeo.errors`; never a
raw Python exception and never a hang (each call runs under a 30 s :func:`jetgeo.limits.time_limit`,
and reaching it fails the test).  Before issue 25, ``rtol=nan``, ``rtol=atol=0`` and ``max_step=0``
never returned, and members with huge initial values hung the batch.

Step counts are the caller's business (``max_step=1e-300``, ``t_span=(0, 1e300)`` or a stiffness
k = 1e300 ask for 10¹⁵⁰ steps and more, as they would of ``simulate``): the strategies draw
``max_step``, ``t_span`` and k hostile in kind but not astronomically small or large, so that every
call ends within the limit when jetgeo is correct.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
import sympy as sp
from hypothesis import event, given, settings
from hypothesis import strategies as st

from jetgeo.errors import JetgeoError, ResourceLimitError
from jetgeo.jets import FibredManifold
from jetgeo.limits import time_limit
from jetgeo.mechanics import LagrangianSystem
from jetgeo.numerics.ensembles import STATUS, ensemble
from jetgeo.numerics.simulation import prepare

pytest.importorskip("xarray")

#: seconds per call: each takes milliseconds; the limit only turns a hang into a failure
LIMIT = 30

HOSTILE_FLOATS = [math.nan, math.inf, -math.inf, 0.0, -0.0, -1.0, 1e-300, 1e300, 5e-324, 1.7e308]
#: the same, without the finite sizes that ask for astronomically many steps (k = 1e300: 1e150 periods)
HOSTILE_SIZES = [math.nan, math.inf, -math.inf, 0.0, -0.0, -1.0, 5e-324]
HOSTILE = st.one_of(
    st.sampled_from(HOSTILE_FLOATS), st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-10**30, max_value=10**30),
    st.text(max_size=5), st.booleans(), st.none(),
    st.lists(st.one_of(st.sampled_from(HOSTILE_SIZES), st.floats(-2, 2)), max_size=3),
    st.just(sp.Rational(1, 3)), st.just(sp.I), st.just(sp.zoo), st.just({"k": -1.0}),
)
#: sensible values of every keyword (each example gives some of them, and one keyword a hostile value)
SENSIBLE = {
    "t_eval": st.lists(st.floats(0, 1), min_size=1, max_size=4, unique=True).map(sorted),
    "n_times": st.integers(min_value=2, max_value=300),
    "params": st.fixed_dictionaries({"k": st.one_of(st.floats(0.1, 10), st.sampled_from(HOSTILE_SIZES))}),
    "initial": st.fixed_dictionaries({"xdot": st.one_of(st.floats(-2, 2), st.sampled_from(HOSTILE_FLOATS))}),
    "complete": st.booleans(),
    "formulation": st.sampled_from(["full", "reduced", "multipliers"]),
    "rtol": st.floats(1e-14, 0.5),
    "atol": st.floats(0, 1e3),
    "max_step": st.floats(1e-2, math.inf),
    "events": st.booleans(),
    "singular_tol": st.floats(0, 1e3),
    "manifold_tol": st.floats(0, 1e3),
    "atlas": st.booleans(),
    "chunk_size": st.integers(min_value=1, max_value=5),
    "scheduler": st.just("serial"),
    "workers": st.integers(min_value=1, max_value=4),
}
#: hostile values that ask for astronomically many steps are the caller's business (max_step=1e-300
#: asks simulate for 1e300 steps too): a hostile max_step is non-finite, ≤ 0 or not a number
HOSTILE_OF = {"max_step": st.one_of(st.sampled_from([0.0, -1.0, math.nan, -math.inf, 5e-324 * 0]), st.text(max_size=3),
                                    st.none(), st.booleans(), st.just(sp.I)),
              "n_times": st.one_of(st.integers(max_value=1), st.just(10**7), st.text(max_size=3), st.floats())}
KEYWORDS = st.fixed_dictionaries({}, optional=SENSIBLE)
#: an end of t_span hostile in kind (t_span = (0, 1e300) asks for 1e300 periods of the oscillator)
ENDS = st.one_of(st.sampled_from([math.nan, math.inf, -math.inf, 0.0, -0.0, -1.0, 0.5, 5e-324]), st.text(max_size=3),
                 st.none(), st.booleans(), st.just(sp.I), st.just(sp.zoo), st.just(sp.Rational(1, 3)))
T_SPAN = st.one_of(st.tuples(st.just(0.0), st.floats(0.01, 1.0)), st.tuples(st.just(0.0), st.just(1.0)),
                   st.tuples(ENDS, ENDS), st.tuples(ENDS), HOSTILE)
MEMBERS = st.fixed_dictionaries({"x": st.lists(st.one_of(st.floats(-2, 2), st.sampled_from(HOSTILE_FLOATS)),
                                               min_size=1, max_size=3)})


@functools.cache
def oscillator():
    """L = q̇²/2 − k x²/2 (k > 0): prepared once, so that each example integrates only."""
    Y = FibredManifold(["x"])
    (x,), (xd,) = Y.q, Y.qdot
    k = sp.Symbol("k", positive=True)
    return prepare(LagrangianSystem(Y, xd**2 / 2 - k * x**2 / 2), "full")


@settings(max_examples=60)
@given(members=MEMBERS, t_span=T_SPAN, keywords=KEYWORDS, data=st.data())
def test_any_keywords_give_a_result_or_a_jetgeo_error(members, t_span, keywords, data):
    kw = {"params": {"k": 2.0}, "initial": {"xdot": 0.5}, "scheduler": "serial", "progress": False, **keywords}
    bad = data.draw(st.sampled_from([None, *SENSIBLE]), label="hostile keyword")
    if bad is not None:
        kw[bad] = data.draw(HOSTILE_OF.get(bad, HOSTILE), label=bad)
    try:
        with time_limit(LIMIT):
            ds = ensemble(oscillator(), members, t_span, **kw)
    except ResourceLimitError as exc:  # the limit: a hang, whatever jetgeo says about it
        pytest.fail(f"ensemble did not return within {LIMIT} s: {exc}")
    except JetgeoError as exc:
        event(f"refused: {type(exc).__name__}")
        return
    event("integrated")
    n = len(members["x"])
    assert ds.sizes["member"] == n
    assert set(ds.status.values) <= set(STATUS.values())
    ok = ds.status.values == "ok"
    assert np.all(np.isfinite(ds.trajectory.values[ok]))
