"""FibredManifold: jet coordinates, charts, the total derivative [Stolařová 2009, §2] and the
conversion to ``sympy.physics.mechanics.dynamicsymbols``.

Independent truths used: the chain rule along a section (sympy's ``diff`` of the composed
function), the Leibniz rule, sympy's own time derivative of dynamicsymbols.
"""

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from jetgeo import FibredManifold
from jetgeo.errors import ChartError, InputError
from jetgeo.geometry import is_zero

Y2 = FibredManifold(["x", "y"], time="t")
t = Y2.t
(x, y), (xd, yd), (xdd, ydd) = Y2.q, Y2.qdot, Y2.qddot


# --- strategies -----------------------------------------------------------------------------
@st.composite
def polynomial(draw, symbols, max_terms=4, max_degree=2, trig=True):
    """A random polynomial in ``symbols`` (small integer coefficients), sometimes with a sine."""
    terms = []
    for _ in range(draw(st.integers(1, max_terms))):
        c = draw(st.integers(-3, 3).filter(bool))
        mono = sp.Integer(c)
        for _ in range(draw(st.integers(0, max_degree))):
            mono *= draw(st.sampled_from(symbols))
        terms.append(mono)
    expr = sp.Add(*terms)
    if trig and draw(st.booleans()):
        expr += draw(st.integers(1, 2)) * sp.sin(draw(st.sampled_from(symbols)))
    return expr


@st.composite
def section_curve(draw, m=2):
    """Components q^σ(t): polynomials in t plus sometimes sin(k t) or exp(t)."""
    out = []
    for _ in range(m):
        c = [draw(st.integers(-3, 3)) for _ in range(4)]
        q = c[0] + c[1] * t + c[2] * t**2 + c[3] * t**3
        extra = draw(st.sampled_from([0, sp.sin(2 * t), sp.cos(t), sp.exp(t)]))
        out.append(q + extra)
    return out


J1 = [t, x, y, xd, yd]
J2 = J1 + [xdd, ydd]


# --- coordinates and charts -----------------------------------------------------------------
def test_plain_symbols_and_charts():
    assert all(type(s) is sp.Symbol for s in (t, x, y, xd, yd, xdd, ydd))
    assert [str(s) for s in Y2.qdot + Y2.qddot] == ["xdot", "ydot", "xddot", "yddot"]
    assert Y2.Y.coords == (t, x, y)
    assert Y2.J1.coords == (t, x, y, xd, yd)
    assert Y2.J2.coords == (t, x, y, xd, yd, xdd, ydd)
    assert Y2.TQ.coords == (x, y, xd, yd)  # the autonomous view: no t
    assert (Y2.Y.dim, Y2.J1.dim, Y2.J2.dim) == (3, 5, 7)
    assert Y2.order_of(ydd) == (2, 1)
    assert Y2.jet_order(x * xd + t) == 1 and Y2.jet_order(sp.sin(ydd)) == 2 and Y2.jet_order(t) == 0
    assert Y2.chart_for(x, xd * yd) == Y2.J1



@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(["t", "x", "y", "xdot", "ydot", "xddot", "yddot", "a"]), min_size=1, max_size=5),
       st.integers(0, 2))
def test_jet_order_is_the_highest_order_among_the_free_symbols(names, nesting):
    """jet_order (free symbols on the DAG, one table of orders) is the highest k with a q^(k) among the
    expression's free symbols (sympy's ``free_symbols``), through nested functions and a Derivative
    node; an order made after the table (q⁽³⁾) is seen too."""
    Y = FibredManifold(["x", "y"])
    syms = [sp.Symbol(n) for n in names]
    e = sp.Add(*[sp.sin(s) ** (i + 1) for i, s in enumerate(syms)])
    for _ in range(nesting):
        e = sp.cos(e) * syms[0] + e
    truth = max((k for k in range(3) for s in e.free_symbols if s in Y.jet_symbols(k)), default=0)
    assert Y.jet_order(e) == truth
    assert Y.jet_order(sp.Derivative(sp.Function("u")(syms[-1]), syms[-1]) + e) == truth
    assert Y.jet_order(e + Y.jet_symbols(3)[1]) == 3

def test_constructor_errors_are_clear():
    with pytest.raises(InputError, match="at least one"):
        FibredManifold([])
    with pytest.raises(ChartError, match="time coordinate"):
        FibredManifold(["t", "x"], time="t")
    with pytest.raises(ChartError, match="clash"):
        FibredManifold(["x", "xdot"])
    with pytest.raises(ChartError):
        Y2.order_of(sp.Symbol("z"))


def test_is_autonomous():
    assert Y2.is_autonomous(x * xd**2, sp.cos(y))
    assert not Y2.is_autonomous(x, t * xd)


# --- total derivative -----------------------------------------------------------------------
def test_total_derivative_explicit():
    # d/dt = ∂_t + q̇ ∂_q + q̈ ∂_q̇ [Stolařová 2009, §2]
    f = t * x**2 + sp.sin(y) * xd
    expected = x**2 + 2 * t * x * xd + sp.cos(y) * yd * xd + sp.sin(y) * xdd
    assert sp.expand(Y2.total_derivative(f) - expected) == 0
    # d̄ f = ∂_t f + q̇ ∂_q f: the total derivative without the q̈ term [Stolařová 2009, §2]
    assert sp.expand(Y2.cut_total_derivative(f) - (expected - sp.sin(y) * xdd)) == 0
    # the third-order coordinate appears for a J²-function
    assert Y2.total_derivative(xdd) == Y2.jet_symbols(3)[0]


@settings(max_examples=20)
@given(polynomial(J2), section_curve())
def test_total_derivative_along_section_is_time_derivative(f, curve):
    """(d/dt f)∘J^{r+1}γ = d/dt (f∘J^rγ): the chain rule, a second method."""
    gamma = Y2.section(curve)
    lhs = gamma(Y2.total_derivative(f))
    rhs = sp.diff(gamma(f), t)
    assert is_zero(lhs - rhs)


@settings(max_examples=10)
@given(polynomial(J1), section_curve())
def test_iterated_total_derivative(f, curve):
    gamma = Y2.section(curve)
    twice = Y2.total_derivative(f, 2)
    assert sp.expand(twice - Y2.total_derivative(Y2.total_derivative(f))) == 0
    assert is_zero(gamma(twice) - sp.diff(gamma(f), t, 2))


@settings(max_examples=20)
@given(polynomial(J1), polynomial(J1))
def test_total_derivative_is_a_derivation(f, g):
    D = Y2.total_derivative
    assert sp.expand(D(f * g) - D(f) * g - f * D(g)) == 0
    assert sp.expand(D(f + g) - D(f) - D(g)) == 0


@settings(max_examples=20)
@given(polynomial(J1))
def test_total_derivative_field_agrees_with_operator(f):
    # on J¹ functions, the vector field ∂_t + q̇∂_q + q̈∂_q̇ on J²Y is the operator d/dt
    assert sp.expand(Y2.total_derivative_field(f) - Y2.total_derivative(f)) == 0


@settings(max_examples=20)
@given(polynomial(J1, trig=False))
def test_cut_total_derivative_is_truncation(f):
    # d̄f = df/dt − (∂f/∂q̇^σ) q̈^σ [Stolařová 2009, §2]
    cut = Y2.total_derivative(f) - sum(sp.diff(f, v) * a for v, a in zip(Y2.qdot, Y2.qddot))
    assert sp.expand(Y2.cut_total_derivative(f) - cut) == 0


# --- dynamicsymbols ---------------------------------------------------------------------------
@settings(max_examples=20)
@given(polynomial(J2))
def test_dynamicsymbols_round_trip(f):
    g = Y2.to_dynamicsymbols(f)
    assert not (g.free_symbols & set(J2[1:]))  # no plain jet symbol left
    assert sp.expand(Y2.from_dynamicsymbols(g) - f) == 0


@settings(max_examples=20)
@given(polynomial(J1))
def test_total_derivative_is_mechanics_time_derivative(f):
    from sympy.physics.mechanics import dynamicsymbols

    lhs = Y2.to_dynamicsymbols(Y2.total_derivative(f))
    rhs = sp.diff(Y2.to_dynamicsymbols(f), dynamicsymbols._t)
    assert sp.expand(lhs - rhs) == 0


def test_dynamicsymbols_explicit():
    from sympy.physics.mechanics import dynamicsymbols

    X = dynamicsymbols("x")
    T = dynamicsymbols._t
    assert Y2.to_dynamicsymbols(xd * xdd) == X.diff(T) * X.diff(T, 2)
    assert Y2.from_dynamicsymbols(X.diff(T, 2) + X.diff(T) + X) == xdd + xd + x
