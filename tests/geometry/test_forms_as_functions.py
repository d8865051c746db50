"""A 0-form is a function; no kernel object is mistaken for a sequence.

sympy treats an object with ``__getitem__`` as a sequence; ``Form.__getitem__`` once answered 0
for every integer, so ``sympify`` of a form (and so ``X(i_X α)``) iterated for ever.  Now a
0-form converts to its expression (``_sympy_``), a form of positive degree refuses to, and an
index that is not a multi-index of the form is refused at once.
"""

from __future__ import annotations

import signal

import pytest
import sympy as sp
from geometry_strategies import charts, forms, vector_fields
from hypothesis import given
from hypothesis import strategies as st

from jetgeo.errors import ChartError, DegreeError, NotAFunctionError
from jetgeo.geometry import Chart, Form, VectorField
from jetgeo.geometry.distributions import Codistribution, Distribution


@pytest.fixture
def watchdog():
    """Fail (instead of hanging the suite) if a call takes more than 5 s."""

    def boom(signum, frame):
        raise AssertionError("the call did not return within 5 s")

    old = signal.signal(signal.SIGALRM, boom)
    signal.setitimer(signal.ITIMER_REAL, 5)
    yield
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, old)


def test_the_reported_example_returns_at_once(watchdog):
    C = Chart(["x", "y", "z"])
    x, y, z = C
    a = C.d(x * y)  # y dx + x dy
    X = VectorField(C, [1, 0, 0])  # ∂/∂x
    f = a.interior(X)
    assert f.degree == 0 and f == y
    assert sp.sympify(f) == y
    # X(i_X a) = ∂y/∂x = 0; the derivative along ∂/∂y of i_X a is 1
    assert X(f) == 0
    assert VectorField(C, [0, 1, 0])(f) == 1
    assert VectorField(C, [0, 1, 0])(a.interior(VectorField(C, [x, 0, 0]))) == x


def test_zero_form_arithmetic_with_expressions(watchdog):
    C = Chart(["x", "y"])
    x, y = C
    f = Form.function(C, x * y)
    assert isinstance(x * f, Form) and (x * f).as_function() == x**2 * y  # the form's __rmul__
    assert isinstance(f + x, Form) and (x + f).as_function() == x * y + x
    assert sp.sin(f) == sp.sin(x * y)  # a sympy function of a 0-form is of its expression
    assert sp.diff(f, x) == y
    assert (C.d(x) * f) == x * y * C.d(x)


def test_positive_degree_forms_are_not_functions(watchdog):
    C = Chart(["x", "y", "z"])
    x, y, z = C
    a = C.d(x * y)
    X = VectorField(C, [1, 0, 0])
    with pytest.raises(NotAFunctionError, match="a 1-form is not a function"):
        sp.sympify(a)
    with pytest.raises(DegreeError, match="a 1-form is not a function"):
        X(a)
    with pytest.raises(DegreeError):
        X(C.d(x) ^ C.d(y))
    assert isinstance(x * a, Form) and x * a == x * y * C.d(x) + x**2 * C.d(y)
    assert (a == x) is False


def test_getitem_refuses_what_is_not_a_multi_index(watchdog):
    C = Chart(["x", "y", "z"])
    x, y, z = C
    a = C.d(x * y)
    w = C.d(x) ^ C.d(y)
    assert a[0] == y and a[x] == y and a[(1,)] == x and a[2] == 0
    assert w[0, 1] == 1 and w[1, 0] == -1 and w[x, x] == 0 and w[y, x] == -1
    assert Form.function(C, x)[()] == x
    with pytest.raises(ChartError, match="out of range"):
        a[3]
    with pytest.raises(ChartError, match="out of range"):
        a[-1]
    with pytest.raises(DegreeError, match="a 1-form has components on 1 indices, got 2"):
        a[0, 1]
    with pytest.raises(DegreeError, match="got 1"):
        w[0]
    with pytest.raises(DegreeError, match="0-form"):
        Form.function(C, x)[0]
    with pytest.raises(ChartError, match="neither an integer nor a coordinate"):
        a[0.5]
    with pytest.raises(ChartError):
        a[True]
    with pytest.raises(ChartError):
        a[sp.Symbol("q")]


def test_no_kernel_object_is_a_bottomless_sequence(watchdog):
    """iteration, len, sympify, equality and hashing work or raise at once for every kernel class."""
    C = Chart(["x", "y"])
    x, y = C
    X = VectorField(C, [y, 0])
    a = C.d(x)
    for obj in (a, C.d(x) ^ C.d(y), Form.function(C, x)):
        with pytest.raises(TypeError, match="not iterable"):
            iter(obj)
        with pytest.raises(TypeError):
            len(obj)
        with pytest.raises(TypeError):
            hash(obj)
        assert obj == obj
    assert list(X) == [y, 0] and len(X) == 2 and X[x] == y
    with pytest.raises(IndexError):
        X[2]
    with pytest.raises(ChartError):
        X["x"]
    with pytest.raises(sp.SympifyError):
        sp.sympify(X)
    with pytest.raises(TypeError):
        hash(X)
    D, P = Distribution(C, [X]), Codistribution(C, [a])
    for obj in (D, P):
        with pytest.raises(TypeError):
            iter(obj)
        with pytest.raises(sp.SympifyError):
            sp.sympify(obj)
        assert obj == obj
    with pytest.raises(TypeError, match="vector fields"):
        x in D  # noqa: B015
    assert X in D


@given(st.data())
def test_exterior_derivative_of_a_one_form_on_two_fields(data):
    """dα(X, Y) = X(α(Y)) − Y(α(X)) − α([X, Y])   [Spivak 1979, vol. 1, ch. 7, Prop. 13]
    written as it reads, also with α(Y) as the 0-form i_Y α."""
    C = data.draw(charts(2, 4))
    alpha = data.draw(forms(C, degree=1, max_terms=2))
    X = data.draw(vector_fields(C))
    Y = data.draw(vector_fields(C))
    lhs = alpha.d()(X, Y)
    rhs = X(alpha(Y)) - Y(alpha(X)) - alpha(X.bracket(Y))
    assert sp.expand(lhs - rhs) == 0
    rhs_forms = X(alpha.interior(Y)) - Y(alpha.interior(X)) - alpha.interior(X.bracket(Y))
    assert sp.expand(lhs - rhs_forms) == 0
