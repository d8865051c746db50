"""Zero tests in three tiers and the generic-rank linear algebra.

Independent truths: hand-computed normal forms, the trigonometric normal form as a
second method for the random-point test, sympy's own rank/det at numeric points for
the singular locus, and back-substitution for null spaces and solutions.
"""

from __future__ import annotations

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import jetgeo.geometry.exact.zero as zero_module
from jetgeo.errors import NotRegularError
from jetgeo.geometry import generic_rank, is_zero, normalise, nullspace, singular_locus
from jetgeo.geometry.exact import solve_square, trig_normal_form
from jetgeo.geometry.linalg import independent_rows
from jetgeo.geometry.zero import PointSampler, zero_test

x, y, z = sp.symbols("x y z")
th, ph = sp.symbols("theta phi")
s, c = sp.sin(th), sp.cos(th)
N = PointSampler().size

# --- zero test, tier 1: cheap exact normalisation ------------------------------------------------


def test_tier1_polynomial_and_rational_identities():
    assert zero_test(0).method == "structural"
    r = zero_test((x + 1) ** 2 - x**2 - 2 * x - 1)
    assert r.zero and r.method == "normal form" and r.bound == 0
    r = zero_test(1 / (x - 1) - 1 / (x + 1) - 2 / (x**2 - 1))  # needs cancel, not only expand
    assert sp.expand(1 / (x - 1) - 1 / (x + 1) - 2 / (x**2 - 1)) != 0
    assert r.zero and r.method == "normal form"
    r = zero_test((x**2 - y**2) / (x - y) - x)
    assert not r.zero and r.method == "normal form"
    assert normalise((x**2 - 1) / (x - 1)) == x + 1
    assert normalise(x) == x and normalise(3) == 3


def test_tier1_decides_rational_identities_by_the_numerator_without_cancel(call_log):
    """A rational function vanishes exactly when its numerator over the common denominator is the zero
    polynomial: tier 1 expands that numerator and never asks sympy's ``cancel`` (whose gcd of numerator and
    denominator the verdict does not need); with floats it still does, in cancel's arithmetic as before."""
    u, v, w = sp.symbols("u_tier1 v_tier1 w_tier1")  # fresh: not in the zero test's cache
    calls = call_log(sp, "cancel")
    r = zero_test(u / (u + v) + v / (u + v) - 1 + w / (u - v) - w * (u + v) / (u**2 - v**2))
    assert r.zero and r.method == "normal form"
    r = zero_test(u / (u + v) - 1 + w / (u - v))
    assert not r.zero and r.method == "normal form"
    assert calls == []
    r = zero_test(sp.Float(0.5) * u / (u + 1) - u / (2 * u + 2))
    assert r.zero and r.method == "normal form" and len(calls) == 1


# --- tier 2: exact random points (angles on rational points of the circle) --------------------------


def test_tier2_decides_where_expand_is_not_enough():
    e = s**2 + c**2 - 1
    assert sp.expand(e) != 0 and sp.cancel(e) != 0  # tier 1 cannot see it
    r = zero_test(e)
    assert r.zero and r.method == "random points (exact)"
    # stated failure bound (D/N)^trials, D = 2·deg = 4 after the circle substitution
    assert r.bound == pytest.approx((4 / N) ** 3)
    assert r.bound < 1e-16
    r = zero_test(x * (s**2 + c**2) - x, trials=4)
    assert r.zero and r.bound == pytest.approx((5 / N) ** 4)  # D = 1 (x) + 2·2 (θ)


def test_tier2_finds_counterexamples_and_multiple_angles():
    r = zero_test(s**2 - c**2)
    assert not r.zero and r.method == "counterexample"
    assert zero_test(sp.sin(2 * th) - 2 * s * c).zero
    assert zero_test(sp.cos(th + ph) - (c * sp.cos(ph) - s * sp.sin(ph))).zero
    assert zero_test(sp.tan(th) * c - s).zero
    assert not zero_test(sp.tan(th) - s).zero
    # x = 1 is a pole of the first term only at one point; sampling avoids it
    assert zero_test((s**2 + c**2 - 1) / (x - 1)).zero


def test_tier2_respects_sign_assumptions():
    n = sp.Symbol("n", negative=True)
    p = sp.Symbol("p", positive=True)
    assert sp.sqrt(n**2) == -n and sp.sqrt(p**2) == p  # sympy already used the assumptions
    assert zero_test(sp.sqrt(n**2) + n).zero
    assert zero_test(sp.Abs(p) - p).zero
    assert zero_test(sp.sqrt(p**2 * (s**2 + c**2)) - p).zero  # numerical path, sqrt of a square


def test_numerical_fallback_is_labelled():
    r = zero_test(sp.cosh(x) ** 2 - sp.sinh(x) ** 2 - 1)
    assert r.zero and r.method == "random points (numerical)"
    r = zero_test(sp.exp(x) - 1 - x)
    assert not r.zero


def test_a_constant_is_evaluated_once_not_once_per_trial(call_log):
    """An expression without free symbols (sin, cos of rationals: a long chain's sample state) has the same value
    at every random point; the numerical tier evaluates it once (three times before, the same sp.N each time), with
    the same verdicts: zero for sin²(1/7) + cos²(1/7) − 1 and its multiples, not zero when it is off by 10⁻³⁰."""
    calls = call_log(zero_module, "evaluate")
    u = sp.Rational(1, 7)
    identity = sp.sin(u) ** 2 + sp.cos(u) ** 2 - 1
    for k in (3, 5):  # fresh expressions: zero_test caches its verdicts
        r = zero_test(k * sp.cos(2 * u) * identity + identity, trials=k)
        assert r.zero and r.method == "random points (numerical)" and len(calls) == 1
        calls.clear()
    assert not zero_test(identity + sp.Rational(1, 10**30)).zero and len(calls) == 1


# --- tier 3: proof by normal form modulo sin² + cos² − 1 --------------------------------------------


def test_tier3_trig_normal_form_proves():
    r = zero_test(s**2 + c**2 - 1, prove=True)
    assert r.zero and r.method == "trig normal form" and r.bound == 0
    assert trig_normal_form(c**4 - s**4 - c**2 + s**2) == 0
    assert trig_normal_form(c**2) == 1 - s**2
    assert trig_normal_form(sp.sin(2 * th) - 2 * s * c) == 0
    assert trig_normal_form(sp.sin(th**2)) is None  # not polynomial in sin/cos of a symbol
    assert not zero_test(c**3 - c, prove=True).zero


@st.composite
def trig_polynomials(draw):
    """P(s, c) of degree ≤ 3 and Q, with e = P + (s² + c² − 1)·Q."""
    def poly():
        terms = draw(st.lists(st.tuples(st.integers(-2, 2), st.integers(0, 2), st.integers(0, 2),
                                        st.integers(0, 1)), max_size=3))
        return sp.Add(*[k * s**i * c**j * x**m for k, i, j, m in terms])
    return poly(), poly()


@settings(max_examples=25)
@given(trig_polynomials())
def test_random_points_agree_with_the_normal_form(pq):
    P, Q = pq
    e = sp.expand(P + (s**2 + c**2 - 1) * Q)
    expected = trig_normal_form(P) == 0  # second method: exact reduction of P alone
    assert is_zero(e) == expected
    assert zero_test(e, prove=True).zero == expected


# --- linear algebra: generic rank with singular locus ---------------------------------------------


def chain_mass_matrix(n: int = 3):
    """Planar n-link pendulum, point masses m_k at the link ends, absolute angles q_k:
    M_ij = (Σ_{k ≥ max(i,j)} m_k) l_i l_j cos(q_i − q_j)."""
    q = sp.symbols(f"q1:{n + 1}")
    m = sp.symbols(f"m1:{n + 1}", positive=True)
    ell = sp.symbols(f"l1:{n + 1}", positive=True)
    M = sp.Matrix(n, n, lambda i, j: sum(m[max(i, j):]) * ell[i] * ell[j] * sp.cos(q[i] - q[j]))
    return M, q, m, ell


def test_generic_rank_of_chain_mass_matrix():
    M, q, m, ell = chain_mass_matrix(3)
    info = generic_rank(M)
    assert info.rank == 3 and info.method == "exact"
    # all links aligned (q_i = 0): still positive definite, full rank; a massless tip link drops it
    at_rest = M.subs({qi: 0 for qi in q})
    assert at_rest.subs({m[0]: 1, m[1]: 2, m[2]: 3, ell[0]: 1, ell[1]: 1, ell[2]: 1}).rank() == 3
    assert generic_rank(M.subs(m[2], 0)).rank == 2


def test_generic_rank_drops_and_locus():
    info = generic_rank(sp.Matrix([[x, y], [x**2, x * y]]))
    assert info.rank == 1 and info.condition != 0
    D = sp.Matrix([[x, 0], [0, y]])
    assert generic_rank(D).rank == 2
    assert singular_locus(D) == [x * y]
    assert D.subs(x, 0).rank() == 1 and D.subs({x: 2, y: 3}).rank() == 2
    B = sp.Matrix([[1, x, y], [x, x**2, x * y + z]])  # rank 2 unless z = 0 (then row 2 = x·row 1)
    assert generic_rank(B).rank == 2
    locus = singular_locus(B)
    assert all(sp.expand(mn.subs(z, 0)) == 0 for mn in locus)
    assert B.subs(z, 0).rank() == 1 and B.subs({x: 1, y: 2, z: 1}).rank() == 2
    rot = sp.Matrix([[s, c], [-c, s]])  # det = sin² + cos² = 1: the rank never drops
    assert generic_rank(rot).rank == 2 and singular_locus(rot) == []
    assert singular_locus(sp.Matrix([[1, x], [0, 1]])) == []
    assert generic_rank(sp.zeros(2, 3)).rank == 0 and singular_locus(sp.zeros(2, 2)) == []
    assert generic_rank(sp.Matrix([[s**2 + c**2 - 1, 0], [0, 0]])).rank == 0


def test_pivot_condition_is_a_nonvanishing_minor():
    M = sp.Matrix([[x, 1, y], [y, 0, x], [x + y, 1, x + y]])  # row 3 = row 1 + row 2
    info = generic_rank(M)
    assert info.rank == 2 and len(info.rows) == len(info.cols) == 2
    minor = M.extract(list(info.rows), list(info.cols)).det()
    assert sp.expand(minor - info.condition) == 0 and not is_zero(minor)
    assert independent_rows(M) == list(info.rows)


def test_nullspace_and_solve():
    M = sp.Matrix([[x, 1, y], [y, 0, x], [x + y, 1, x + y]])
    basis, cond = nullspace(M)
    assert len(basis) == 3 - 2 and not is_zero(cond)
    for v in basis:
        assert all(is_zero(e) for e in M * v)
    A = sp.Matrix([[c, -s], [s, c]])
    b = sp.Matrix([x, y])
    res = solve_square(A, b, "rotation")
    sol, det = res.X, res.det
    assert all(is_zero(e) for e in A * sol - b)
    assert is_zero(det - 1)
    with pytest.raises(NotRegularError, match="singular example: the 2 × 2 coefficient matrix has generic rank 1"):
        solve_square(sp.Matrix([[x, y], [2 * x, 2 * y]]), b, "singular example")
    with pytest.raises(NotRegularError, match="generic rank 1 < 3"):
        solve_square(sp.Matrix([[x, y, 1]]), sp.Matrix([1]), "wide example")
    # an identically-zero but undecided entry (sin² + cos² − 1) does not poison the solution
    e = s**2 + c**2 - 1
    sol = solve_square(sp.Matrix([[e, x], [y, 1]]), sp.Matrix([1, 2]), "example").X
    assert all(is_zero(u - v) for u, v in zip(sol, [(2 * x - 1) / (x * y), 1 / x]))


@settings(max_examples=20)
@given(st.lists(st.lists(st.integers(-2, 2), min_size=3, max_size=3), min_size=2, max_size=3),
       st.lists(st.integers(-2, 2), min_size=3, max_size=3))
def test_generic_rank_matches_rank_at_a_point(rows, mults):
    # M = A · diag(x, y, z)-like symbolic scaling: generic rank = rank of A (integers)
    A = sp.Matrix(rows)
    M = A * sp.diag(x + 1, y, z**2 + 1)
    assert generic_rank(M).rank == A.rank()
    assert len(nullspace(M)[0]) == 3 - A.rank()
    lin = sp.Matrix([[sum(k * r for k, r in zip(mults, col)) for col in zip(*rows)]])
    assert generic_rank(M.col_join(lin * sp.diag(x + 1, y, z**2 + 1))).rank == A.rank()


def test_generic_rank_dag_on_nested_lu_results():
    """The DAG-aware rank agrees with generic_rank on the nested (uncancelled) solution of a
    triangular trigonometric system, regular and made singular; other atoms fall back."""
    from jetgeo.geometry import generic_rank, generic_rank_dag

    th = sp.symbols("th0:6")
    d = sp.Symbol("d", positive=True)
    n = len(th)
    J = sp.Matrix(n, n, lambda i, j: (sp.cos(th[i] - th[j]) if j < i else (-d if i == j else 0)))
    X = J.LUsolve(sp.Matrix(n, 2, lambda i, j: sp.sin(th[i]) if j == 0 else sp.cos(th[i]) * d))
    M = X.T * X                                   # Gram matrix of two generic columns: rank 2
    assert generic_rank_dag(M) == 2 == generic_rank(M).rank
    S = sp.Matrix([[X[0, 0], 2 * X[0, 0]], [X[1, 0], 2 * X[1, 0]]])   # dependent columns: rank 1
    assert generic_rank_dag(S) == 1
    assert generic_rank_dag(sp.Matrix([[sp.exp(d), 1], [1, sp.exp(-d)]])) == 1  # via generic_rank


# --- tiny values are not zero: the numerical tier is relative to each expression's own size ----------


def test_a_gaussian_factor_is_not_taken_for_zero():
    """x·exp(−y²) at the sampler's points (|y| ~ 10³) is about 10⁻⁴³⁴²⁹⁴: it was declared identically
    zero (the numerical tier compared with max(magnitude, 1)), and a constraint with that factor was
    refused as rank-deficient.  Noise relative to the magnitude is still zero."""
    g = sp.exp(-y**2)
    assert not zero_test(x * g).zero
    assert not zero_test((x + 1) * g - g).zero
    assert not zero_test(g * sp.tan(x)).zero
    assert zero_test(g * (sp.tan(x) * sp.cos(x) - sp.sin(x))).zero
    assert zero_test(sp.exp(y / 3) * (sp.exp(y / 3) ** 2 - sp.exp(2 * y / 3))).zero
    assert generic_rank(sp.Matrix([[g * x, g], [1, 2]])).rank == 2
    assert generic_rank(sp.Matrix([[g * x, g], [2 * g * x, 2 * g]])).rank == 1


@given(st.lists(st.lists(st.integers(-3, 3), min_size=3, max_size=3), min_size=2, max_size=3),
       st.lists(st.integers(0, 3), min_size=3, max_size=3))
@settings(max_examples=25, deadline=None)
def test_rank_is_unchanged_by_rows_of_any_size(rows, powers):
    """Generic rank is invariant under scaling rows by non-vanishing functions: rank(diag(e^{−kᵢy²}, …)·A)
    = rank A for integer matrices A (sympy's rank of A is the independent truth), whatever the rows'
    sizes at the sample points (e^{−3y²} ≈ 10⁻¹³⁰²⁸⁸² next to 1)."""
    A = sp.Matrix(rows)
    D = sp.Matrix(A.rows, A.cols, lambda i, j: sp.exp(-powers[i] * y**2) * (1 + x) * A[i, j])
    assert generic_rank(D).rank == A.rank()


def test_normalise_of_the_same_expression_is_computed_once(call_log):
    """normalise is kept per process: an entry normalised again (a recipe's result compared, its reactions
    formed) returns the first result without cancelling again; another expression is computed on its own."""
    calls = call_log(sp, "cancel")
    u, w = sp.symbols("u_norm w_norm")  # fresh symbols: no earlier test normalised this expression
    e = (u**2 - w**2) / (u - w) + 1 / u
    first = normalise(e)
    n = len(calls)
    assert is_zero(first - (u + w + 1 / u)) and n > 0
    assert normalise(e) is first and len(calls) == n
    assert normalise(e + 1) != first and len(calls) > n
