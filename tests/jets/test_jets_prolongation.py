"""Prolongation of vector fields from Y to J¹Y and J²Y.

Independent truths: textbook prolongations of time translation, rotation, Galilean boost
and time scaling; the characterisation of J^rξ as the lift whose flow preserves the contact
ideal (L_{J^rξ} ω ∈ contact ideal); J^r[ξ, η] = [J^rξ, J^rη]; compatibility with the projection
J²Y → J¹Y.  A wrong lift (without the −q̇ dξ⁰/dt term) is shown to fail the contact test.
"""

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from jetgeo import FibredManifold, VectorField
from jetgeo.errors import ChartError
from jetgeo.jets import prolong

Y = FibredManifold(["x", "y"], time="t")
t = Y.t
(x, y), (xd, yd), (xdd, ydd) = Y.q, Y.qdot, Y.qddot
YC, J1, J2 = Y.Y, Y.J1, Y.J2


@st.composite
def polynomial(draw, symbols, max_terms=3, max_degree=2, trig=True):
    terms = []
    for _ in range(draw(st.integers(1, max_terms))):
        mono = sp.Integer(draw(st.integers(-3, 3).filter(bool)))
        for _ in range(draw(st.integers(0, max_degree))):
            mono *= draw(st.sampled_from(symbols))
        terms.append(mono)
    expr = sp.Add(*terms)
    if trig and draw(st.booleans()):
        expr += sp.sin(draw(st.sampled_from(symbols)))
    return expr


@st.composite
def field_on_Y(draw, time_component=True, trig=True):
    comps = [draw(polynomial([t, x, y], trig=trig)) for _ in range(3)]
    if not time_component:
        comps[0] = sp.Integer(0)
    return VectorField(YC, comps)


def test_textbook_prolongations():
    # time translation ∂_t: nothing to add
    assert prolong(Y, YC.partial(t), 2) == J2.partial(t)
    # rotation −y∂x + x∂y: velocities and accelerations rotate the same way
    rot = VectorField(YC, [0, -y, x])
    assert Y.prolong(rot) == VectorField(J1, [0, -y, x, -yd, xd])
    assert Y.prolong(rot, 2) == VectorField(J2, [0, -y, x, -yd, xd, -ydd, xdd])
    # Galilean boost t∂x: J¹ adds ∂ẋ, the acceleration is unchanged
    assert Y.prolong(VectorField(YC, [0, t, 0]), 2) == VectorField(J2, [0, t, 0, 1, 0, 0, 0])
    # time scaling t∂t: q̇ ↦ −q̇ ∂q̇, q̈ ↦ −2q̈ ∂q̈ (q̇ has weight −1, q̈ weight −2)
    assert Y.prolong(YC.partial(t) * t, 2) == VectorField(J2, [t, 0, 0, -xd, -yd, -2 * xdd, -2 * ydd])


def test_prolong_needs_a_field_on_Y():
    with pytest.raises(ChartError, match="vector field on"):
        prolong(Y, J1.partial(x))


def _lie_contact_ok(field, forms) -> bool:
    return all(Y.in_contact_ideal(w.lie_derivative(field)) for w in forms)


@settings(max_examples=12)
@given(field_on_Y())
def test_prolongation_preserves_contact_ideal(xi):
    assert _lie_contact_ok(Y.prolong(xi, 1), Y.contact_forms)
    assert _lie_contact_ok(Y.prolong(xi, 2), Y.contact_forms_2)


@settings(max_examples=10)
@given(field_on_Y())
def test_wrong_lift_breaks_contact_ideal(xi):
    """ξ^σ_(1) = dξ^σ/dt alone (forgetting −q̇^σ dξ⁰/dt) fails whenever dξ⁰/dt ≢ 0 (or a sign flip)."""
    xi0 = xi.components[0]
    dxi0 = Y.total_derivative(xi0)
    naive = VectorField(J1, list(xi.components) + [Y.total_derivative(c) for c in xi.components[1:]])
    flipped = VectorField(
        J1, list(xi.components) + [Y.total_derivative(c) + v * dxi0 for c, v in zip(xi.components[1:], Y.qdot)]
    )
    if sp.expand(dxi0) != 0:
        assert not _lie_contact_ok(naive, Y.contact_forms)
        assert not _lie_contact_ok(flipped, Y.contact_forms)
    else:
        assert _lie_contact_ok(naive, Y.contact_forms)


@settings(max_examples=8)
@given(field_on_Y(trig=False), field_on_Y(trig=False))
def test_prolongation_is_a_lie_algebra_homomorphism(xi, eta):
    # J¹[ξ, η] = [J¹ξ, J¹η]
    assert Y.prolong(xi.bracket(eta)) == Y.prolong(xi).bracket(Y.prolong(eta))


@settings(max_examples=15)
@given(field_on_Y())
def test_prolongations_are_compatible_with_projection(xi):
    one, two = Y.prolong(xi, 1), Y.prolong(xi, 2)
    assert two.components[: J1.dim] == one.components
    assert one.components[: YC.dim] == xi.components


@settings(max_examples=15)
@given(field_on_Y(time_component=False))
def test_vertical_fields_prolong_by_total_derivative(xi):
    # ξ⁰ = 0: ξ^σ_(1) = dξ^σ/dt, ξ^σ_(2) = d²ξ^σ/dt²
    two = Y.prolong(xi, 2)
    for s in range(2):
        assert sp.expand(two.components[3 + s] - Y.total_derivative(xi.components[1 + s])) == 0
        assert sp.expand(two.components[5 + s] - Y.total_derivative(xi.components[1 + s], 2)) == 0
