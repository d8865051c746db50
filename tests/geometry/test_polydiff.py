"""Derivatives in the sparse polynomial ring (jetgeo.geometry.polydiff) against sympy.diff —
the textbook chain rule ∂/∂θ sin θ = cos θ, ∂/∂θ cos θ = −sin θ, on random trigonometric
polynomials (hypothesis), and the refusals that send callers back to sympy.diff."""

from __future__ import annotations

import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from jetgeo.geometry.polydiff import poly_of

th, ph, w, u, m = sp.symbols("theta phi w u m")
ATOMS = [th, ph, w, u, m, sp.sin(th), sp.cos(th), sp.sin(ph), sp.cos(ph)]


@st.composite
def trig_polynomials(draw):
    terms = draw(st.lists(st.tuples(st.integers(-5, 5), st.lists(st.integers(0, len(ATOMS) - 1), max_size=4)),
                          min_size=1, max_size=6))
    return sp.Add(*[c * sp.Mul(*[ATOMS[i] for i in idx]) for c, idx in terms])


@settings(max_examples=15, deadline=None)
@given(trig_polynomials())
def test_first_and_second_derivatives_match_sympy(e):
    P = poly_of(e, extra=(th, ph, w, u))
    assert P is not None
    for a in (th, ph, w, u):
        assert sp.expand(P.diff(a).expr - sp.diff(e, a)) == 0
        for b in (th, w):
            assert sp.expand(P.diff(a).diff(b).expr - sp.diff(e, a, b)) == 0


def test_products_and_lifts_stay_in_the_ring():
    e = m * w**2 * sp.sin(th) / 2
    P = poly_of(e, extra=(th, w, u))
    prod = P.diff(w) * P.lift(u) - P.lift(u * w * m * sp.sin(th))
    assert prod.is_zero() and sp.expand((P + P).expr - 2 * e) == 0


def test_refuses_what_it_cannot_differentiate():
    for e in (sp.exp(th), 1 / w, sp.sin(2 * th), sp.sqrt(w), sp.sin(th + ph)):
        assert poly_of(e) is None


@settings(max_examples=15, deadline=None)
@given(st.lists(trig_polynomials(), min_size=2, max_size=2), st.integers(1, 2))
def test_nested_products_and_powers_convert_without_expanding_first(factors, k):
    """Unexpanded products and powers (the shape of a multibody Lagrangian) are converted by
    one walk of the expression DAG; the polynomial equals the expanded expression."""
    e = sp.Mul(*factors) ** k + factors[0]
    P = poly_of(e, extra=(th, ph, w, u))
    assert P is not None and sp.expand(P.expr - e) == 0
    assert sp.expand(P.diff(th).expr - sp.diff(e, th)) == 0


def test_float_coefficients_fall_back_to_sympy_ring():
    e = sp.Float("0.5") * w**2 * sp.cos(th) + sp.Rational(1, 3) * u
    P = poly_of(e, extra=(th, w, u))
    assert P is not None
    assert abs(sp.expand(P.diff(th).expr + sp.Float("0.5") * w**2 * sp.sin(th)).subs({w: 1.3, th: 0.4})) < 1e-14
    Ppi = poly_of(sp.pi * w**2 * sp.sin(th))   # π goes into sympy's coefficient domain
    assert Ppi is None or sp.expand(Ppi.diff(th).expr - sp.pi * w**2 * sp.cos(th)) == 0


@settings(max_examples=25, deadline=None)
@given(trig_polynomials(), st.integers(0, 2))
def test_expr_is_sympys_canonical_object(e, k):
    """PolyExpr.expr assembles products in sympy's argument order itself: the result must be the
    very object sympy's ``expand`` builds (same srepr, so equal and equally hashed), also for
    derivatives (other monomials, the same ring)."""
    P = poly_of(e, extra=(th, ph, w, u))
    for _ in range(k):
        P = P.diff(th) * P.lift(w) + P.diff(w)
    want = sp.expand(P.p.as_expr().xreplace(P._ring.back))
    got = P.expr
    assert got == want and sp.srepr(got) == sp.srepr(want) and hash(got) == hash(want)


@settings(max_examples=25, deadline=None)
@given(trig_polynomials())
def test_collected_form_is_the_same_polynomial_with_one_term_per_monomial(e):
    """collected([w, u]) = expr, with one top-level term per non-constant monomial w^i u^j
    (sympy's Poly in w, u counts them; the constant coefficient merges into the sum)."""
    P = poly_of(e, extra=(th, ph, w, u))
    got = P.collected([w, u])
    assert sp.expand(got - P.expr) == 0
    want = [m for m in sp.Poly(P.expr, w, u).monoms() if any(m)] if P.expr != 0 else []
    terms = [t for t in sp.Add.make_args(got) if t.has(w, u)]
    assert len(terms) == len(want)


def test_sin_and_cos_atoms_of_the_expression_are_its_generators():
    """The atoms sin θ, cos θ an expression holds become the ring's generators as they are (not rebuilt:
    after a cleared cache building sin θ runs sympy's evaluation again); a missing partner is built;
    other functions and negative or fractional powers are refused, found anywhere in the DAG."""
    from sympy.core.cache import clear_cache

    from jetgeo.geometry.polydiff import _acceptable

    th, ph, w = sp.symbols("theta phi w")
    clear_cache()  # else w·sin θ may come from the cache of an earlier test, with its own sin θ object
    s, c = sp.sin(th), sp.cos(th)
    e = (w * s + c) ** 2 * w + w * s + sp.sin(ph)
    clear_cache()
    atoms = _acceptable(e)
    assert set(atoms) == {s, c, sp.sin(ph), sp.cos(ph)}
    assert any(a is s for a in atoms) and any(a is c for a in atoms)
    assert _acceptable(w * s + sp.exp(w) * s) is None
    assert _acceptable((w + s) ** 2 + 1 / (w + c)) is None
    assert _acceptable(w + sp.sqrt(w + c) * s) is None
    assert _acceptable(sp.sin(2 * th) + w) is None


def test_shared_ring_makes_one_generator_per_trig_atom(monkeypatch):
    """polys_of's shared ring: one fresh generator per sin/cos atom over all expressions (none made and
    dropped per expression), the polynomials unchanged."""
    from jetgeo.geometry.polydiff import polys_of

    th, ph, w = sp.symbols("theta phi w")
    exprs = [w * sp.sin(th) + sp.cos(ph), w**2 * sp.cos(th) * sp.sin(ph), sp.sin(th) * sp.cos(th) - w]
    before = [P.expr for P in polys_of(exprs)]
    made = []
    dummy = sp.Dummy
    monkeypatch.setattr(sp, "Dummy", lambda *a, **k: made.append(a) or dummy(*a, **k))
    Ps = polys_of(exprs)
    assert len(made) == 4
    assert [P.expr for P in Ps] == before == [sp.expand(e) for e in exprs]
