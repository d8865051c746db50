"""Size estimates before a large canonical form (issue 14: "where a route cannot avoid a large
canonical form it says so — a size estimate before it starts, and a progress bar").

Independent truths: the expanded numerator and denominator of ``sympy.together`` (their terms
counted after ``expand``), sympy's ``cancel`` for the canonical forms, the tree sizes of
jetgeo's one size measure."""

from __future__ import annotations

import io
import math
import sys
import warnings

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from jetgeo.geometry import canonical_forms, normalise
from jetgeo.geometry.exact import CANONICAL_MAX_NODES, size_estimate, tree_size
from jetgeo.geometry.exact.size import ESTIMATE_CAP, _power_terms
from jetgeo.progress import LargeComputationWarning

x, y, th = sp.symbols("x y theta")
_LEAVES = st.sampled_from([x, y, sp.sin(th), sp.cos(th), sp.Integer(1), sp.Integer(2), sp.Rational(-3, 2)])


@st.composite
def rational_expressions(draw, depth=3):
    if depth == 0:
        return draw(_LEAVES)
    a = draw(rational_expressions(depth=depth - 1))
    b = draw(rational_expressions(depth=depth - 1))
    k = draw(st.integers(2, 3))
    return draw(st.sampled_from([a + b, a * b, a - b, a / (b + 3), a**k + b, (a + b) ** -1 * a]))


def _terms(p) -> int:
    return len(sp.Add.make_args(sp.expand(p))) if p != 0 else 0


@settings(max_examples=60, deadline=None)
@given(rational_expressions())
def test_expanded_terms_bound_holds(e):
    """The bound is at least the terms of the expanded numerator and denominator over the common
    denominator sympy's ``together`` takes (before any cancellation)."""
    num, den = sp.fraction(sp.together(e))
    est = size_estimate([e])
    assert est.expanded_terms >= _terms(num)
    assert est.expanded_terms >= _terms(num) + (_terms(den) if den != 1 else 0) or den.is_Number
    assert est.tree_nodes == tree_size(e) and est.expressions == 1


def test_power_terms_is_the_number_of_monomials():
    for t in range(1, 25):
        for k in range(0, 25):
            assert _power_terms(t, k) == min(ESTIMATE_CAP, math.comb(t + k - 1, k))
    assert _power_terms(10**29, 2**20) == ESTIMATE_CAP  # saturates without computing the binomial


def test_estimate_of_a_nested_dag_is_cheap_and_says_large():
    e = x
    for _ in range(30):
        e = e * (e + y) / (1 + e**2)  # a DAG of ~200 nodes whose tree has ~10^15
    est = size_estimate(e)
    assert est.dag_nodes < 300 and est.tree_nodes > 10**14 and est.large
    assert est.expanded_terms == ESTIMATE_CAP and "no bound below" in str(est)
    small = size_estimate([x + 1, (x + 1) ** 2 / y])
    assert not small.large and small.expressions == 2 and "at most" in str(small)


def _large_sum():
    e = sum((x + k) ** 2 * sp.sin(th) / (y + 1) + k * y**k for k in range(150))
    assert tree_size(e) > CANONICAL_MAX_NODES
    return e


def test_canonical_forms_warn_with_the_estimate_before_starting_and_show_a_bar(monkeypatch):
    from jetgeo.geometry.exact import zero  # canonical_forms looks normalise up here

    e = _large_sum()
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    announced_first = []
    real = zero.normalise

    def watched(expr):  # the first cancel must come after the announcement
        announced_first.append(len(rec) == 1)
        return real(expr)

    monkeypatch.setattr(zero, "normalise", watched)
    with pytest.warns(LargeComputationWarning, match="tree nodes") as rec:
        got = canonical_forms([e, x / x], progress=True)
    assert announced_first == [True, True]
    assert str(size_estimate([e, x / x])) in str(rec[0].message)  # the estimate, word for word
    assert "canonical form" in err.getvalue()  # tqdm's bar on stderr
    assert got == [real(e), 1] and sp.cancel(got[0] - e) == 0


def test_small_canonical_forms_are_silent():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = canonical_forms({"a": (x**2 - 1) / (x - 1), "b": 1 / x + 1})
    assert got == {"a": x + 1, "b": (x + 1) / x}


def test_constrained_accelerations_canonical_on_request(monkeypatch):
    """A system pushed onto the DAG route (threshold lowered): ``accelerations()`` keeps the DAG,
    ``accelerations(canonical=True)`` cancels it — the same functions as the canonical route's."""
    from jetgeo import systems
    from jetgeo.mechanics import constrained

    e = systems.load("vertical_disc")
    want = e.system.constrain(e.Q).accelerations()
    monkeypatch.setattr(constrained, "AFFINE_CANONICAL_MAX_NODES", 0)
    cs = e.system.constrain(e.Q)
    assert cs.is_large
    got = cs.accelerations(canonical=True)
    assert set(got) == set(want)
    assert all(sp.cancel(got[a] - want[a]) == 0 for a in want)
    assert all(got[a] == normalise(got[a]) for a in got)  # already canonical
