"""galgebra as an independent oracle for jetgeo's exterior-algebra kernel.

jetgeo's ∧, i_X, d (and evaluation, Cartan's L_X) are compared with galgebra's outer
product, left contraction and ∇∧ on random forms and vector fields in dimensions 1–5
(polynomial and trigonometric coefficients), through the identification
dx^{i1}∧…∧dx^{ik} ↔ e_{i1}∧…∧e_{ik} of ``jetgeo.geometry.galgebra_bridge`` (Euclidean
metric in the coordinate basis).  The comparison reads galgebra's blade coefficients
directly (``blade_coefs``) and tests ``expand(difference) == 0``: it uses neither the
bridge's inverse map nor jetgeo's zero test.  Both sides compute the same sums of products
of the same coefficients and their derivatives, so no trigonometric identity is needed and
expansion decides equality.
"""

from __future__ import annotations

import subprocess
import sys
from itertools import combinations

import pytest
import sympy as sp
from galgebra.ga import Ga
from geometry_strategies import chart_of_dim, charts, coefficients, vector_fields
from hypothesis import given, settings
from hypothesis import strategies as st

from jetgeo.errors import InputError
from jetgeo.geometry import Chart, Form, VectorField
from jetgeo.geometry.galgebra_bridge import (
    euclidean_algebra,
    from_multivector,
    to_multivector,
    vector_field_from_multivector,
)

MAX_DIM = 5


# --- the comparison ------------------------------------------------------------------------


def assert_agrees(form: Form, mv) -> None:
    """Every blade coefficient of ``mv`` equals the form's component on that index tuple
    (and every blade of another grade has coefficient 0)."""
    ga = mv.Ga
    indexes = [idx for grade in ga.indexes for idx in grade]
    coefs = mv.blade_coefs()
    assert len(coefs) == len(indexes) == 2**form.chart.dim
    for idx, c in zip(indexes, coefs):
        expected = form.components.get(idx, sp.Integer(0)) if len(idx) == form.degree else sp.Integer(0)
        assert sp.expand(c - expected) == 0, f"blade {idx}: galgebra {c}, jetgeo {expected} (form {form!r})"


# --- strategies --------------------------------------------------------------------------


@st.composite
def forms_any_degree(draw, chart: Chart, degree: int | None = None, max_degree: int | None = None) -> Form:
    """A k-form, 0 ≤ k ≤ n (every degree, up to the top form), with 1–4 non-zero terms."""
    top = chart.dim if max_degree is None else max_degree
    k = draw(st.integers(0, top)) if degree is None else degree
    comps = {}
    for _ in range(draw(st.integers(1, 4))):
        idx = tuple(draw(st.permutations(range(chart.dim)))[:k])  # unsorted on purpose:
        comps[idx] = draw(coefficients(chart, allow_zero=False))  # Form sorts it, with the sign
    return Form(chart, comps, k)


small_charts = charts(1, MAX_DIM)

# Each example takes ~15 ms: three times the profile's count, still derandomised in CI.
oracle = settings(max_examples=3 * settings.default.max_examples)


# --- the oracle ------------------------------------------------------------------------------


@oracle
@given(st.data())
def test_conversion_round_trip(data):
    C = data.draw(small_charts)
    eta = data.draw(forms_any_degree(C))
    A = to_multivector(eta, euclidean_algebra(C))
    assert_agrees(eta, A)
    back = from_multivector(A, C, degree=eta.degree)
    assert back.degree == eta.degree
    assert all(sp.expand(back[idx] - c) == 0 for idx, c in eta.components.items())
    assert set(back.components) <= set(eta.components)
    X = data.draw(vector_fields(C))
    Y = vector_field_from_multivector(to_multivector(X), C)
    assert all(sp.expand(a - b) == 0 for a, b in zip(X.components, Y.components))


@oracle
@given(st.data())
def test_wedge_is_the_outer_product(data):
    """η ∧ ζ ↔ A ∧ B (galgebra ``A ^ B``)."""
    C = data.draw(small_charts)
    eta = data.draw(forms_any_degree(C))
    zeta = data.draw(forms_any_degree(C, max_degree=C.dim - eta.degree))  # degrees that can meet
    ga = euclidean_algebra(C)
    assert_agrees(eta ^ zeta, to_multivector(eta, ga) ^ to_multivector(zeta, ga))


@oracle
@given(st.data())
def test_interior_product_is_the_left_contraction(data):
    """i_X η ↔ X ⌋ A (galgebra ``X < A``); i_X f = 0 ↔ X ⌋ f = 0."""
    C = data.draw(small_charts)
    eta, X = data.draw(forms_any_degree(C)), data.draw(vector_fields(C))
    ga = euclidean_algebra(C)
    assert_agrees(eta.interior(X), to_multivector(X, ga) < to_multivector(eta, ga))


@oracle
@given(st.data())
def test_exterior_derivative_is_grad_wedge(data):
    """dη ↔ ∇ ∧ A, ∇ = Σ e^i ∂_i (galgebra ``ga.grad ^ A``)."""
    C = data.draw(small_charts)
    eta = data.draw(forms_any_degree(C, max_degree=C.dim - 1))  # below the top degree, d can be ≠ 0
    ga = euclidean_algebra(C)
    assert_agrees(eta.d(), ga.grad ^ to_multivector(eta, ga))


@oracle
@given(st.data())
def test_evaluation_is_contraction_by_the_reversed_blade(data):
    """η(X_1, …, X_k) = (X_k ∧ … ∧ X_1) ⌋ A: jetgeo's determinant convention
    ((dx∧dy)(∂x, ∂y) = 1, no 1/k!) against galgebra's metric contraction."""
    C = data.draw(small_charts)
    k = data.draw(st.integers(1, min(C.dim, 3)))
    eta = data.draw(forms_any_degree(C, k))
    fields = [data.draw(vector_fields(C)) for _ in range(k)]
    ga = euclidean_algebra(C)
    blade = to_multivector(fields[-1], ga)
    for X in reversed(fields[:-1]):
        blade = blade ^ to_multivector(X, ga)
    assert_agrees(Form.function(C, eta(*fields)), blade < to_multivector(eta, ga))


@oracle
@given(st.data())
def test_lie_derivative_by_cartan_in_geometric_algebra(data):
    """L_X η ↔ X ⌋ (∇ ∧ A) + ∇ ∧ (X ⌋ A)."""
    C = data.draw(charts(1, 4))
    eta, X = data.draw(forms_any_degree(C)), data.draw(vector_fields(C))
    ga = euclidean_algebra(C)
    A, V = to_multivector(eta, ga), to_multivector(X, ga)
    inner = V < A
    assert_agrees(eta.lie_derivative(X), (V < (ga.grad ^ A)) + (ga.grad ^ inner))


# --- the sign tables, exhaustively in dimension 5 --------------------------------------------------
# Random forms meet an odd number ≥ 3 of inversions (e.g. dx¹∧dx³ ∧ dx⁰∧dx²) only rarely; the
# tables below meet every case once: 32 × 32 wedges, 5 × 32 contractions, 5 × 32 derivatives.


def basis_blades(n: int) -> list[tuple]:
    return [idx for k in range(n + 1) for idx in combinations(range(n), k)]


def test_wedge_sign_table():
    C = chart_of_dim(MAX_DIM)
    ga = euclidean_algebra(C)
    for idx in basis_blades(C.dim):
        eta = Form(C, {idx: 1}, len(idx))
        A = to_multivector(eta, ga)
        for jdx in basis_blades(C.dim):
            zeta = Form(C, {jdx: 1}, len(jdx))
            assert_agrees(eta ^ zeta, A ^ to_multivector(zeta, ga))


def test_interior_and_d_sign_tables():
    C = chart_of_dim(MAX_DIM)
    ga = euclidean_algebra(C)
    for idx in basis_blades(C.dim):
        for x, X in zip(C.coords, C.basis_fields):
            eta = Form(C, {idx: x}, len(idx))  # x^j dx^I: d gives dx^j ∧ dx^I
            A = to_multivector(eta, ga)
            assert_agrees(eta.d(), ga.grad ^ A)
            assert_agrees(eta.interior(X), to_multivector(X, ga) < A)


# --- the conventions, explicitly -------------------------------------------------------------------


def test_basis_blades_and_signs():
    C = Chart(["x", "y", "z"])
    x, y, z = C
    dx, dy, dz = C.basis_forms
    ga = euclidean_algebra(C)
    e0, e1, e2 = ga.mv_basis
    assert to_multivector(dx ^ dy, ga) == e0 ^ e1
    assert to_multivector(dy ^ dx, ga) == -(e0 ^ e1)
    assert to_multivector(dz ^ dx ^ dy, ga) == e0 ^ e1 ^ e2  # a cyclic permutation: even
    assert (dx ^ dy)(C.partial(x), C.partial(y)) == 1
    assert ((e1 ^ e0) < (e0 ^ e1)).scalar() == 1  # the reversed blade gives +1 …
    assert ((e0 ^ e1) < (e0 ^ e1)).scalar() == -1  # … the blade itself −1
    assert from_multivector(x * (e1 ^ e2) + sp.sin(y) * (e0 ^ e2), C) == x * (dy ^ dz) + sp.sin(y) * (dx ^ dz)
    assert from_multivector((e0 * e2).base_rep(), C) == dx ^ dz  # galgebra's base representation
    assert vector_field_from_multivector(3 * e0 - z * e2, C) == VectorField(C, [3, 0, -z])
    assert euclidean_algebra(Chart(["x", "y", "z"])) is ga  # one algebra per chart


def test_degrees_outside_the_algebra_map_to_zero():
    C = Chart(["x", "y"])
    x, y = C
    f = Form.function(C, x * y)
    ga = euclidean_algebra(C)
    assert to_multivector(f.interior(C.partial(x)), ga).is_zero()  # degree −1
    top = x * (C.d(x) ^ C.d(y))
    assert top.d().degree == 3 and to_multivector(top.d(), ga).is_zero()


# --- bad input -----------------------------------------------------------------------------------


def test_algebras_that_do_not_fit_are_rejected():
    C = Chart(["x", "y"])
    x, y = C
    eta = C.d(x)
    wrong_dim = Ga.build("e_0 e_1 e_2", g=[1, 1, 1], coords=sp.symbols("x y z"))[0]
    with pytest.raises(InputError, match="3 basis vectors"):
        to_multivector(eta, wrong_dim)
    no_coords = Ga.build("e_0 e_1", g=[1, 1])[0]
    with pytest.raises(InputError, match="coordinates"):
        to_multivector(eta, no_coords)
    other_coords = Ga.build("e_0 e_1", g=[1, 1], coords=sp.symbols("u v"))[0]
    with pytest.raises(InputError, match="coordinates"):
        to_multivector(eta, other_coords)
    minkowski = Ga.build("e_0 e_1", g=[1, -1], coords=(x, y))[0]
    with pytest.raises(InputError, match="Euclidean metric"):
        to_multivector(eta, minkowski)
    with pytest.raises(InputError, match="Form or VectorField"):
        to_multivector(x * y, euclidean_algebra(C))
    with pytest.raises(InputError, match="needs a Chart"):
        euclidean_algebra(["x", "y"])
    with pytest.raises(InputError, match="galgebra Mv"):
        from_multivector(eta, C)


def test_mixed_and_zero_multivectors_are_reported():
    C = Chart(["x", "y"])
    x, y = C
    ga = euclidean_algebra(C)
    e0, e1 = to_multivector(C.partial(x), ga), to_multivector(C.partial(y), ga)
    with pytest.raises(InputError, match=r"grades \[0, 2\]"):
        from_multivector(e0 * e1 + x, C)  # a geometric product: scalar + bivector
    with pytest.raises(InputError, match="pass degree="):
        from_multivector(e0 - e0, C)
    assert from_multivector(e0 - e0, C, degree=1) == Form.zero(C, 1)
    with pytest.raises(InputError, match="grades"):
        from_multivector(e0 + x * y, C, degree=1)
    with pytest.raises(InputError, match="not 1"):
        vector_field_from_multivector(e0 ^ e1, C)
    with pytest.raises(InputError, match="degree 3"):
        from_multivector(e0 - e0, C, degree=3)
    # a coefficient that vanishes only by sin² + cos² = 1 is still zero (no spurious grade)
    assert from_multivector(e0 + (sp.sin(x) ** 2 + sp.cos(x) ** 2 - 1), C) == C.d(x)


def test_missing_galgebra_is_an_input_error(monkeypatch):
    for name in ("galgebra", "galgebra.ga", "galgebra.mv"):
        monkeypatch.setitem(sys.modules, name, None)  # makes the import fail
    C = Chart(["p", "q"])
    with pytest.raises(InputError, match=r"jetgeo\[galgebra\]"):
        to_multivector(C.d(C[0]))


def test_import_jetgeo_does_not_import_galgebra():
    code = (
        "import sys, jetgeo, jetgeo.geometry, jetgeo.geometry.galgebra_bridge\n"
        "assert 'galgebra' not in sys.modules, sorted(m for m in sys.modules if 'galgebra' in m)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_the_bridge_leaves_the_processs_printing_alone():
    # galgebra's import replaces builtins.print and every sympy object's __repr__ with its own
    # printer (minutes on large expressions, in a user's session or a test's traceback); the
    # bridge puts them back.  In a fresh process: galgebra is imported once per process.
    code = (
        "import builtins, sympy\n"
        "from sympy.core._print_helpers import Printable\n"
        "before = (builtins.print, Printable.__repr__)\n"
        "from jetgeo.geometry import Chart\n"
        "from jetgeo.geometry.galgebra_bridge import to_multivector\n"
        "C = Chart(['p', 'q'])\n"
        "A = to_multivector(C.d(C[0]))\n"
        "assert 'galgebra.printer' in __import__('sys').modules\n"
        "assert (builtins.print, Printable.__repr__) == before\n"
        "assert not hasattr(sympy.Symbol('x'), '__ga_print_str__')\n"
        "assert repr(sympy.sin(sympy.Symbol('x')) ** 2) == 'sin(x)**2'\n"
        "assert str(A)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
