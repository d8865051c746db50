"""Reliability audit 3, finding 4: parameter values are checked against their assumptions in every
route that takes values — here ``simulate`` and ``linearise`` (the spec's ``[values]``, ``sweep
--param`` and ``ensemble`` have their own tests).  A mass m = −1 against ``m = {assume="positive"}``
turned the skate's cos into a cosh with status ``ok``; now it is bad input naming the assumption."""

from __future__ import annotations

import pytest
import sympy as sp

from jetgeo.errors import InputError
from jetgeo.geometry.coerce import check_assumptions
from jetgeo.mechanics import linearise
from jetgeo.numerics import simulate
from jetgeo.systems import load


@pytest.fixture(scope="module")
def skate():
    e = load("skate")
    m = next(s for s in e.params if str(s) == "m")
    return e, e.constrained(), m


def test_simulate_refuses_a_negative_mass(skate):
    e, cs, m = skate
    with pytest.raises(InputError, match=r"simulate: the parameter m = -1 contradicts its assumption 'positive'"):
        simulate(cs, (0, 0.1), e.initial, {**e.params, m: -1})
    assert simulate(cs, (0, 0.1), e.initial, e.params).status == "finished"


@pytest.mark.parametrize("key", ["symbol", "name"])
def test_linearise_refuses_a_negative_mass(skate, key):
    e, cs, m = skate
    params = {(m if key == "symbol" else "m"): -2, **{k: v for k, v in e.params.items() if k != m}}
    with pytest.raises(InputError, match=r"linearise: the parameter m = -2 contradicts its assumption 'positive'"):
        linearise(cs, e.initial, params)


def test_check_assumptions_skips_symbolic_values_and_reads_every_sign_word():
    a = sp.Symbol("a", positive=True)
    b = sp.Symbol("b", nonzero=True)
    n = sp.Symbol("n", integer=True)
    check_assumptions({a: sp.Symbol("c"), b: 3, n: 4.0}, "t")
    with pytest.raises(InputError, match="'nonzero'"):
        check_assumptions({b: 0}, "t")
    with pytest.raises(InputError, match="'integer'"):
        check_assumptions({n: 0.5}, "t")
    with pytest.raises(InputError, match="'positive'"):
        check_assumptions({a: 0}, "t")
