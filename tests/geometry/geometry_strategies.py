"""Hypothesis strategies for the geometry kernel's property tests.

Small charts (dimension 2–6, coordinates ``x0 … x5``) and random coefficients:
sums of at most two monomials of degree ≤ 2 in the coordinates, optionally times a
sine or cosine of one coordinate.  Small on purpose, so that the properties are
checked exactly and quickly (the suite's hypothesis profile is derandomised).
"""

from __future__ import annotations

from functools import cache

import sympy as sp
from hypothesis import strategies as st

from jetgeo.geometry import Chart, Form, VectorField

MAX_DIM = 6


@cache
def chart_of_dim(n: int) -> Chart:
    return Chart([f"x{i}" for i in range(n)])


def charts(min_dim: int = 2, max_dim: int = MAX_DIM) -> st.SearchStrategy:
    return st.integers(min_dim, max_dim).map(chart_of_dim)


@st.composite
def monomials(draw, chart: Chart, trig: bool = True) -> sp.Expr:
    coeff = draw(st.integers(-3, 3).filter(bool))
    deg = draw(st.integers(0, 2))
    term = sp.Integer(coeff)
    for _ in range(deg):
        term *= draw(st.sampled_from(chart.coords))
    if trig and draw(st.integers(0, 3)) == 0:
        f = draw(st.sampled_from([sp.sin, sp.cos]))
        term *= f(draw(st.sampled_from(chart.coords)))
    return term


@st.composite
def coefficients(draw, chart: Chart, trig: bool = True, allow_zero: bool = True) -> sp.Expr:
    n = draw(st.integers(0 if allow_zero else 1, 2))
    return sp.Add(*[draw(monomials(chart, trig)) for _ in range(n)])


@st.composite
def forms(draw, chart: Chart, degree: int | None = None, max_terms: int = 3, trig: bool = True) -> Form:
    """A random k-form with at most ``max_terms`` components."""
    k = draw(st.integers(0, min(chart.dim, 3))) if degree is None else degree
    n_terms = draw(st.integers(1, max_terms))
    comps = {}
    for _ in range(n_terms):
        idx = tuple(sorted(draw(st.permutations(range(chart.dim)))[:k]))
        comps[idx] = draw(coefficients(chart, trig))
    return Form(chart, comps, k)


@st.composite
def vector_fields(draw, chart: Chart, trig: bool = True) -> VectorField:
    """A random vector field; about half of its components vanish, to keep brackets small."""
    comps = []
    for _ in range(chart.dim):
        comps.append(draw(coefficients(chart, trig)) if draw(st.booleans()) else sp.Integer(0))
    return VectorField(chart, comps)


@st.composite
def functions(draw, chart: Chart, trig: bool = True) -> sp.Expr:
    return draw(coefficients(chart, trig))


@st.composite
def maps(draw, source: Chart, target: Chart) -> list:
    """Coordinate functions of a map source → target (polynomial, one trig factor at most)."""
    return [draw(coefficients(source, trig=True, allow_zero=False)) for _ in range(target.dim)]
