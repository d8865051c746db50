"""Charts and vector fields: coordinates, duality, action on functions, the Lie bracket."""

from __future__ import annotations

import pytest
import sympy as sp
from geometry_strategies import charts, forms, functions, vector_fields
from hypothesis import given, settings
from hypothesis import strategies as st

from jetgeo.errors import ChartError
from jetgeo.geometry import Chart, Form, VectorField

# --- Chart -------------------------------------------------------------------------------------


def test_chart_from_names_and_symbols():
    th = sp.Symbol("theta")
    C = Chart(["x", th, "y"], name="R^3")
    assert C.dim == len(C) == 3
    assert C.coords == (sp.Symbol("x"), th, sp.Symbol("y"))
    assert C[1] is th and th in C and sp.Symbol("z") not in C
    assert C.index(sp.Symbol("y")) == 2
    assert list(C) == list(C.coords)
    assert C == Chart(["x", "theta", "y"]) and hash(C) == hash(Chart(["x", "theta", "y"]))
    assert C != Chart(["theta", "x", "y"])  # the order of coordinates matters
    assert repr(C) == "Chart(['x', 'theta', 'y'])"
    assert C._repr_latex_() == r"$(x, \theta, y)$"


def test_chart_errors():
    with pytest.raises(ChartError, match="distinct"):
        Chart(["x", "x"])
    with pytest.raises(ChartError):
        Chart([1, 2])
    with pytest.raises(ChartError, match="not a coordinate"):
        Chart(["x"]).index(sp.Symbol("y"))
    with pytest.raises(ChartError):
        VectorField(Chart(["x", "y"]), [1])
    with pytest.raises(ChartError):
        VectorField(Chart(["x"]), [1]) + VectorField(Chart(["y"]), [1])


def test_basis_forms_and_fields_are_dual():
    C = Chart(["a", "b", "c", "d"])
    for i, dxi in enumerate(C.basis_forms):
        for j, dj in enumerate(C.basis_fields):
            assert dxi(dj) == (1 if i == j else 0)
    a, b, c, d = C
    assert C.dx(c) is C.basis_forms[2] and C.partial(b) is C.basis_fields[1]


@settings(max_examples=15)
@given(st.data())
def test_chart_d_is_the_gradient(data):
    C = data.draw(charts())
    f = data.draw(functions(C))
    df = C.d(f)
    assert df.degree == 1
    assert all(sp.expand(c - sp.diff(f, s)) == 0 for c, s in zip(df.coefficients(), C.coords))
    assert C.function(f).as_function() == f
    X = data.draw(vector_fields(C))
    assert sp.expand(df(X) - X(f)) == 0  # df(X) = X(f)


# --- VectorField ------------------------------------------------------------------------------


def test_vector_field_action_and_bracket_examples():
    C = Chart(["x", "y"])
    x, y = C
    X, Y = VectorField(C, [1, 0]), VectorField(C, [0, x])
    assert X(x * y) == y and Y(x * y) == x**2
    assert X.bracket(Y) == VectorField(C, [0, 1])  # [∂x, x∂y] = ∂y
    # rotations: [−y∂x + x∂y, x∂x + y∂y] = 0 (rotation commutes with dilation)
    rot, dil = VectorField(C, [-y, x]), VectorField(C, [x, y])
    assert rot.bracket(dil).is_zero()
    assert X[x] == 1 and Y[1] == x and Y[y] == x
    assert (X + Y) == VectorField(C, [1, x]) and (X - Y) == VectorField(C, [1, -x])
    assert (-X) == VectorField(C, [-1, 0]) and x * X == X * x == VectorField(C, [x, 0])
    th = sp.Symbol("theta")
    Ct = Chart([th, x])
    assert VectorField(Ct, [sp.sin(th) ** 2 + sp.cos(th) ** 2, 0]) == VectorField(Ct, [1, 0])
    assert VectorField(Ct, [1, 0]) != VectorField(Ct, [0, 1])
    assert VectorField(C, [1, 0]) != VectorField(Chart(["u", "v"]), [1, 0])


def test_vector_field_display():
    C = Chart(["x", "theta"])
    x, th = C
    X = VectorField(C, [-1, x + 1])
    assert str(X) == "(-1)*d/dx + (x + 1)*d/dtheta"
    assert repr(X) == "VectorField([-1, x + 1])"
    latex = X._repr_latex_()
    assert latex == r"$-\frac{\partial}{\partial x} + \left(x + 1\right) \frac{\partial}{\partial \theta}$"
    assert str(VectorField(C, [0, 0])) == "0" and VectorField(C, [0, 0]).latex() == "0"
    assert X.as_matrix() == sp.Matrix([-1, x + 1])
    assert X.subs(x, 2) == VectorField(C, [-1, 3])
    assert (sp.cos(th) ** 2 * X + sp.sin(th) ** 2 * X).normalised() == X


@settings(max_examples=15)
@given(st.data())
def test_bracket_antisymmetric(data):
    C = data.draw(charts())
    X, Y = data.draw(vector_fields(C)), data.draw(vector_fields(C))
    assert all(sp.expand(a + b) == 0 for a, b in zip(X.bracket(Y).components, Y.bracket(X).components))
    assert X.bracket(X).is_zero()


@settings(max_examples=12)
@given(st.data())
def test_jacobi_identity(data):
    C = data.draw(charts(2, 5))
    X, Y, Z = (data.draw(vector_fields(C)) for _ in range(3))
    J = X.bracket(Y.bracket(Z)) + Y.bracket(Z.bracket(X)) + Z.bracket(X.bracket(Y))
    assert all(sp.expand(c) == 0 for c in J.components)


@settings(max_examples=15)
@given(st.data())
def test_bracket_is_the_commutator_on_functions(data):
    C = data.draw(charts())
    X, Y = data.draw(vector_fields(C)), data.draw(vector_fields(C))
    f = data.draw(functions(C))
    assert sp.expand(X.bracket(Y)(f) - (X(Y(f)) - Y(X(f)))) == 0


@settings(max_examples=15)
@given(st.data())
def test_bracket_is_the_lie_derivative_of_fields(data):
    # (L_X α)(Y) = X(α(Y)) − α([X, Y]) for 1-forms α: the bracket seen from the forms' side
    C = data.draw(charts(2, 5))
    X, Y = data.draw(vector_fields(C)), data.draw(vector_fields(C))
    alpha = data.draw(forms(C, degree=1))
    assert sp.expand(alpha.lie_derivative(X)(Y) - (X(alpha(Y)) - alpha(X.bracket(Y)))) == 0


@settings(max_examples=15)
@given(st.data())
def test_bracket_leibniz_in_functions(data):
    # [X, fY] = X(f) Y + f [X, Y]
    C = data.draw(charts())
    X, Y = data.draw(vector_fields(C)), data.draw(vector_fields(C))
    f = data.draw(functions(C))
    lhs = X.bracket(f * Y)
    rhs = X(f) * Y + f * X.bracket(Y)
    assert all(sp.expand(a - b) == 0 for a, b in zip(lhs.components, rhs.components))


def test_form_interior_of_function_has_degree_minus_one():
    C = Chart(["x", "y"])
    f = Form.function(C, C[0] * C[1])
    X = VectorField(C, [1, 1])
    i = f.interior(X)
    assert i.is_zero() and i.degree == -1
    assert i.d().degree == 0  # so that i_X df + d i_X f = X(f) type-checks
    assert f.lie_derivative(X) == C[0] + C[1]
