"""Differential forms: algebra, calculus and normalised equality.

Every identity is checked against an independent construction (a determinant
formula for evaluation, the derivation rule or the first-order flow for the Lie
derivative, the invariant formula for d, the Jacobian for pullbacks of top forms),
not against the implementation's own definition.
"""

from __future__ import annotations

from itertools import combinations

import pytest
import sympy as sp
from geometry_strategies import charts, forms, functions, maps, vector_fields
from hypothesis import given, settings
from hypothesis import strategies as st

from jetgeo.errors import ChartError, DegreeError
from jetgeo.geometry import Chart, Form, VectorField
from jetgeo.geometry.zero import is_zero

# --- independent constructions --------------------------------------------------------


def eval_by_determinants(eta: Form, fields) -> sp.Expr:
    """η(X_1..X_k) = Σ_I η_I det[X_j^{i_p}] (the determinant convention, no 1/k!)."""
    total = sp.Integer(0)
    for idx, c in eta.components.items():
        M = sp.Matrix([[X.components[i] for X in fields] for i in idx])
        total += c * M.det(method="berkowitz")
    return total


def lie_by_derivation(eta: Form, X: VectorField) -> Form:
    """L_X(f dx^{i1}∧…∧dx^{ik}) = X(f) dx^I + f Σ_p dx^{i1}∧…∧d(X^{ip})∧…∧dx^{ik}."""
    C = eta.chart
    out = Form.zero(C, eta.degree)
    for idx, f in eta.components.items():
        factors = [C.basis_forms[i] for i in idx]
        term = Form.function(C, X(f))
        for b in factors:
            term = term ^ b
        out = out + term
        for p in range(len(idx)):
            t = Form.function(C, f)
            for q, b in enumerate(factors):
                t = t ^ (C.d(X.components[idx[q]]) if q == p else b)
            out = out + t
    return out


def lie_by_flow(eta: Form, X: VectorField) -> Form:
    """d/dt|₀ ψ_t* η with ψ_t(x) = x + t X(x), which agrees with the flow to first order."""
    C = eta.chart
    t = sp.Symbol("t_flow")
    pulled = eta.pullback([x + t * Xi for x, Xi in zip(C.coords, X.components)], C)
    return pulled.applyfunc(lambda e: sp.diff(e, t).subs(t, 0))


def d_by_invariant_formula(eta: Form, fields) -> sp.Expr:
    """dη(X_0..X_k) = Σ_i (−1)^i X_i(η(..X̂_i..)) + Σ_{i<j} (−1)^{i+j} η([X_i,X_j], ..X̂_i..X̂_j..)."""
    k = eta.degree
    total = sp.Integer(0)
    for i in range(k + 1):
        rest = fields[:i] + fields[i + 1 :]
        total += (-1) ** i * fields[i](eta(*rest))
    for i, j in combinations(range(k + 1), 2):
        rest = [Z for m, Z in enumerate(fields) if m not in (i, j)]
        total += (-1) ** (i + j) * eta(fields[i].bracket(fields[j]), *rest)
    return total


def expanded_zero(eta: Form) -> bool:
    """Exact, structural check (stronger than ``==``): every component expands to 0."""
    return all(sp.expand(c) == 0 for c in eta.components.values())


# --- textbook cases -------------------------------------------------------------------------

C3 = Chart(["x", "y", "z"])
x, y, z = C3


def test_contact_form_is_not_integrable():
    w = C3.d(z) - y * C3.d(x)
    assert w.d() == C3.dx(x) ^ C3.dx(y)  # d(−y dx) = dx ∧ dy
    top = w ^ w.d()
    assert not top.is_zero()
    assert top[0, 1, 2] == 1  # ω ∧ dω = dx∧dy∧dz, a volume form


def test_closed_form_of_exact_one_form():
    f = x**2 * sp.sin(y) + sp.exp(z) * y
    df = C3.d(f)
    assert df.coefficients() == [sp.diff(f, s) for s in C3]
    assert expanded_zero(df.d())


def test_wedge_components_and_signs():
    dx, dy, dz = C3.basis_forms
    assert (dy ^ dx) == -(dx ^ dy)
    assert (dx ^ dx).is_zero()
    vol = dz ^ dx ^ dy  # cyclic permutation: even
    assert vol[0, 1, 2] == 1
    assert vol[2, 1, 0] == -1  # reading the component in reversed order
    assert vol[x, y, z] == 1  # symbols as indices
    # the component constructor sorts and signs unsorted index tuples
    assert Form(C3, {(1, 0): 1}) == -(dx ^ dy)
    assert Form(C3, {(1, 1): 5}).is_zero()


def test_evaluation_matches_determinants_example():
    dx, dy, dz = C3.basis_forms
    eta = x * (dx ^ dy) + z * (dy ^ dz)
    X = VectorField(C3, [1, y, 0])
    Y = VectorField(C3, [z, 0, 1])
    # by hand: x(1·0 − y·z) + z(y·1 − 0·0)
    assert sp.expand(eta(X, Y) - (-x * y * z + y * z)) == 0
    assert sp.expand(eta(X, Y) + eta(Y, X)) == 0


def test_pullback_of_area_form_to_polar_coordinates():
    P = Chart(["r", "phi"])
    r, phi = P
    C2 = Chart(["u", "v"])
    area = C2.basis_forms[0] ^ C2.basis_forms[1]
    pulled = area.pullback([r * sp.cos(phi), r * sp.sin(phi)], P)
    assert pulled == r * (P.dx(r) ^ P.dx(phi))  # du∧dv = r dr∧dφ (needs sin² + cos² = 1)


def test_pullback_with_mapping_embedding():
    S = Chart(["x", "y"])
    w = C3.d(z) - y * C3.d(x)
    # the surface z = x*y in R³, parametrised by (x, y): ω restricts to x dy
    pulled = w.pullback({z: S[0] * S[1], x: S[0], y: S[1]}, S)
    assert pulled == S[0] * S.dx(S[1])
    with pytest.raises(ChartError):
        w.pullback([x, y], S)


def test_lie_derivative_example():
    # L_{x∂x}(dx) = dx, L_{x∂x}(dy) = 0, L_{∂θ-rotation} of r² is 0
    X = VectorField(C3, [x, 0, 0])
    assert C3.dx(x).lie_derivative(X) == C3.dx(x)
    assert C3.dx(y).lie_derivative(X).is_zero()
    rot = VectorField(C3, [-y, x, 0])
    assert Form.function(C3, x**2 + y**2).lie_derivative(rot).is_zero()


def test_normalised_equality_sin2_cos2():
    th = sp.Symbol("theta")
    C = Chart([x, th])
    a = C.d(x)
    assert (sp.sin(th) ** 2 + sp.cos(th) ** 2) * a == a
    assert sp.expand((sp.sin(th) ** 2 + sp.cos(th) ** 2) * a[0] - a[0]) != 0  # expand alone is not enough
    assert (sp.sin(th) ** 2 - sp.cos(th) ** 2) * a != a
    assert sp.cos(2 * th) * a == (sp.cos(th) ** 2 - sp.sin(th) ** 2) * a
    assert (x / (x**2 - 1) - 1 / (2 * (x - 1)) - 1 / (2 * (x + 1))) * a == 0
    assert Form.function(C, sp.sin(th) ** 2) == 1 - sp.cos(th) ** 2
    assert a != C.d(th)
    assert (a ^ C.d(th)) != a  # different degrees are never equal
    n = ((sp.sin(th) ** 2 + sp.cos(th) ** 2) * a).normalised()
    assert n.degree == 1 and n == a


def test_arithmetic_and_errors():
    dx, dy, dz = C3.basis_forms
    w = dz - y * dx
    assert sum([w, w, w]) == 3 * w
    assert w - w == 0
    assert (w * x) == (x * w) == (sp.Integer(1) * x) * w
    assert (w / x) * x == w
    assert Form.function(C3, 2) + 3 == 5
    assert 1 - Form.function(C3, x) == Form.function(C3, 1 - x)
    with pytest.raises(DegreeError):
        w + (dx ^ dy)
    with pytest.raises(DegreeError):
        w + 1
    with pytest.raises(ChartError):
        w + Chart(["a", "b", "c"]).basis_forms[0]
    with pytest.raises(DegreeError):
        w(VectorField(C3, [1, 0, 0]), VectorField(C3, [0, 1, 0]))
    with pytest.raises(DegreeError):
        (dx ^ dy).coefficients()
    with pytest.raises(ChartError):
        Form.one_form(C3, [1, 2])
    with pytest.raises(TypeError):
        w.interior(dx)


def test_repr_and_latex():
    w = C3.d(z) - y * C3.d(x)
    assert repr(w) == "-y*dx + dz"
    assert repr(Form.zero(C3, 2)) == "0"
    latex = (w ^ w.d())._repr_latex_()
    assert latex.startswith("$") and latex.endswith("$") and r"\wedge" in latex
    th = sp.Symbol("theta")
    assert r"\theta" in Form.one_form(Chart([th, x]), [1, 0])._repr_latex_()


# --- properties on random forms ---------------------------------------------------------------


@settings(max_examples=15)
@given(st.data())
def test_wedge_associative_and_graded_commutative(data):
    C = data.draw(charts())
    a, b, c = (data.draw(forms(C, max_terms=2)) for _ in range(3))
    assert expanded_zero(((a ^ b) ^ c) - (a ^ (b ^ c)))
    sign = (-1) ** (a.degree * b.degree)
    assert expanded_zero((a ^ b) - sign * (b ^ a))


@settings(max_examples=15)
@given(st.data())
def test_d_squared_is_zero(data):
    C = data.draw(charts())
    eta = data.draw(forms(C))
    assert expanded_zero(eta.d().d())


@settings(max_examples=15)
@given(st.data())
def test_graded_leibniz_rule(data):
    C = data.draw(charts())
    a, b = data.draw(forms(C, max_terms=2)), data.draw(forms(C, max_terms=2))
    lhs = (a ^ b).d()
    rhs = (a.d() ^ b) + (-1) ** a.degree * (a ^ b.d())
    assert expanded_zero(lhs - rhs)


@settings(max_examples=12)
@given(st.data())
def test_d_matches_invariant_formula(data):
    C = data.draw(charts(2, 4))
    k = data.draw(st.integers(0, 2))
    eta = data.draw(forms(C, degree=k, max_terms=2))
    fields = [data.draw(vector_fields(C)) for _ in range(k + 1)]
    assert is_zero(eta.d()(*fields) - d_by_invariant_formula(eta, fields))


@settings(max_examples=15)
@given(st.data())
def test_cartan_formula_against_derivation_rule(data):
    C = data.draw(charts(2, 5))
    eta = data.draw(forms(C, max_terms=2))
    X = data.draw(vector_fields(C))
    cartan = eta.interior(X).d() + eta.d().interior(X)
    assert expanded_zero(cartan - lie_by_derivation(eta, X))
    assert expanded_zero(eta.lie_derivative(X) - cartan)


@settings(max_examples=12)
@given(st.data())
def test_lie_derivative_is_derivative_of_the_flow_pullback(data):
    C = data.draw(charts(2, 4))
    eta = data.draw(forms(C, max_terms=2))
    X = data.draw(vector_fields(C))
    assert eta.lie_derivative(X) == lie_by_flow(eta, X)


@settings(max_examples=15)
@given(st.data())
def test_lie_derivative_commutes_with_d(data):
    C = data.draw(charts(2, 5))
    eta = data.draw(forms(C, max_terms=2))
    X = data.draw(vector_fields(C))
    assert expanded_zero(eta.lie_derivative(X).d() - eta.d().lie_derivative(X))


@settings(max_examples=15)
@given(st.data())
def test_interior_products_anticommute(data):
    C = data.draw(charts())
    eta = data.draw(forms(C))
    X, Y = data.draw(vector_fields(C)), data.draw(vector_fields(C))
    assert expanded_zero(eta.interior(Y).interior(X) + eta.interior(X).interior(Y))
    assert eta.interior(X).interior(X).is_zero()


@settings(max_examples=15)
@given(st.data())
def test_interior_is_a_graded_derivation(data):
    C = data.draw(charts())
    a, b = data.draw(forms(C, max_terms=2)), data.draw(forms(C, max_terms=2))
    X = data.draw(vector_fields(C))
    lhs = (a ^ b).interior(X)
    rhs = (a.interior(X) ^ b) + (-1) ** a.degree * (a ^ b.interior(X))
    assert expanded_zero(lhs - rhs)
    for i, dxi in enumerate(C.basis_forms):  # i_X dx^i = X^i
        assert sp.expand(dxi.interior(X).as_function() - X.components[i]) == 0


@settings(max_examples=15)
@given(st.data())
def test_evaluation_matches_interior_products_and_determinants(data):
    C = data.draw(charts(2, 5))
    k = data.draw(st.integers(1, min(3, C.dim)))
    eta = data.draw(forms(C, degree=k))
    fields = [data.draw(vector_fields(C)) for _ in range(k)]
    value = eta(*fields)
    assert sp.expand(value - eval_by_determinants(eta, fields)) == 0
    inner = eta
    for X in fields:
        inner = inner.interior(X)
    assert sp.expand(value - inner.as_function()) == 0
    if k >= 2:  # alternating in its arguments
        swapped = [fields[1], fields[0], *fields[2:]]
        assert sp.expand(value + eta(*swapped)) == 0


@settings(max_examples=12)
@given(st.data())
def test_pullback_commutes_with_d_and_wedge(data):
    source = data.draw(charts(2, 4))
    target = data.draw(charts(2, 4))
    phi = data.draw(maps(source, target))
    a, b = data.draw(forms(target, max_terms=2)), data.draw(forms(target, max_terms=2))
    assert expanded_zero(a.d().pullback(phi, source) - a.pullback(phi, source).d())
    assert expanded_zero((a ^ b).pullback(phi, source) - (a.pullback(phi, source) ^ b.pullback(phi, source)))


@settings(max_examples=12)
@given(st.data())
def test_pullback_of_top_form_is_jacobian_determinant(data):
    C = data.draw(charts(2, 3))
    phi = data.draw(maps(C, C))
    f = data.draw(functions(C))
    top = Form(C, {tuple(range(C.dim)): f})
    jac = sp.Matrix([[sp.diff(p, s) for s in C.coords] for p in phi]).det(method="berkowitz")
    expected = f.xreplace(dict(zip(C.coords, phi))) * jac
    assert sp.expand(top.pullback(phi, C)[tuple(range(C.dim))] - expected) == 0


@settings(max_examples=15)
@given(st.data())
def test_pullback_is_functorial(data):
    A, B, T = data.draw(charts(2, 3)), data.draw(charts(2, 3)), data.draw(charts(2, 3))
    B = Chart([f"y{i}" for i in range(B.dim)])  # distinct names for the middle chart
    psi = data.draw(maps(A, B))  # A → B
    phi = data.draw(maps(B, T))  # B → T
    eta = data.draw(forms(T, max_terms=2, trig=False))
    composite = [p.xreplace(dict(zip(B.coords, psi))) for p in phi]
    assert expanded_zero(eta.pullback(phi, B).pullback(psi, A) - eta.pullback(composite, A))


@settings(max_examples=15)
@given(st.data())
def test_normalised_equality_is_mathematical(data):
    C = data.draw(charts(2, 4))
    eta = data.draw(forms(C))
    th = C.coords[0]
    one = sp.sin(th) ** 2 + sp.cos(th) ** 2
    assert one * eta == eta
    assert eta.normalised() == eta
    assert (eta - eta) == 0
    if not eta.is_zero():
        assert eta + eta != eta
