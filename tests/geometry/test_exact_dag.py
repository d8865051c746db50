"""The DAG side of the exact core (jetgeo.geometry.exact.affine, solve.det_dag, the F_p tier of
the zero test): Cramer's rule by one fraction-free elimination with its term budget, the sized
determinant, derivatives on expression DAGs.

Independent truths: the solution substituted back and A X − B evaluated exactly at rational
points (sympy's arithmetic, not the module's F_p shadows); sympy's ``Matrix.det`` (Laplace /
Bareiss on numbers) at rational points; ``sympy.diff`` evaluated at rational points; an
expression that is zero by the Pythagorean identity.
"""

import random

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sympy.polys.domains import ZZ

from jetgeo import ConstraintSubmanifold, FibredManifold
from jetgeo.errors import NotRationalError
from jetgeo.geometry.exact import (
    PRIME,
    atoms_dag,
    det_dag,
    det_exact,
    det_sized,
    diff_dag,
    generic_rank,
    generic_rank_dag,
    gradient_dag,
    mod_derivative,
    mod_value,
    power_dag,
    product_dag,
    rename_dag,
    shadow,
    solve_affine,
    solve_cramer,
    solve_exact,
    tree_size,
    xreplace_dag,
)
from jetgeo.geometry.exact.solve import _Entry, _fraction_sum, substitute_affine
from jetgeo.geometry.zero import zero_test, zero_tests

a, b, th, x = sp.symbols("a b theta x")
ATOMS = [a, b, sp.sin(th), sp.cos(th), sp.Integer(1), sp.Integer(2), sp.Integer(-3)]


def _point(k: int) -> dict:
    u = sp.Rational(k + 1, 7)
    return {sp.sin(th): 2 * u / (1 + u**2), sp.cos(th): (1 - u**2) / (1 + u**2),
            a: sp.Rational(k + 2, 5), b: sp.Rational(3, k + 4), x: sp.Rational(k + 5, 9)}


def _at(e, k: int):
    pt = _point(k)
    return sp.sympify(e).xreplace({s: v for s, v in pt.items() if not s.is_Symbol}).xreplace(
        {s: v for s, v in pt.items() if s.is_Symbol})


def _equal_in_F_p(e1, e2) -> bool:
    """e1 ≡ e2 as functions, by their values at two random points of F_p (a point where a denominator
    vanishes is passed over)."""
    seen = 0
    for trial in range(12):
        try:
            if mod_value(e1 - e2, {}, {}, {}, trial) != 0:
                return False
        except ZeroDivisionError:
            continue
        seen += 1
        if seen == 2:
            return True
    return False


entry = st.lists(st.tuples(st.sampled_from(ATOMS), st.sampled_from(ATOMS)), min_size=1, max_size=3).map(
    lambda ps: sp.Add(*[p * q for p, q in ps]))


@st.composite
def systems(draw, max_n: int = 4):
    n = draw(st.integers(1, max_n))
    A = sp.Matrix(n, n, lambda i, j: draw(entry))
    B = sp.Matrix(n, 2, lambda i, j: draw(entry) / (1 + a**2))
    return A, B


@settings(max_examples=25, deadline=None)
@given(systems(), st.integers(0, 20))
def test_fraction_free_cramer_solves_exactly(system, k):
    A, B = system
    if _at(A, k).det() == 0 or _at(A, k + 1).det() == 0:
        return  # singular at the check points: nothing to compare there
    X = solve_cramer(A, B, max_terms=None)
    assert X is not None
    for kk in (k, k + 1):
        # A X − B at the point, each factor evaluated first: the same exact value as substituting into the
        # symbolic product, without building it (2/3 of this test's time went into A * X and its substitution)
        assert _at(A, kk) * _at(X, kk) - _at(B, kk) == sp.zeros(*B.shape)


def test_the_term_budget_gives_up_and_solve_exact_keeps_the_dag():
    n = 5
    A = sp.Matrix(n, n, lambda i, j: (a + i * sp.sin(th) + j * sp.cos(th) + b * (i - j)) ** (1 + (i + j) % 3))
    B = sp.Matrix(n, 1, lambda i, j: b ** i + sp.cos(th))
    assert solve_cramer(A, B, max_terms=20) is None  # the budget is exceeded: no canonical form
    X = solve_exact(A, B)  # the unexpanded DAG instead, still exact
    for k in (1, 2):
        assert _at(A * X - B, k).applyfunc(sp.nsimplify) == sp.zeros(n, 1)


@settings(max_examples=25, deadline=None)
@given(systems(max_n=5), st.integers(0, 20))
def test_det_sized_and_det_dag_are_the_determinant(system, k):
    A, _ = system
    if _at(A, k).det() == 0:
        return
    want = _at(A, k).det()
    assert _at(det_sized(A), k) == want
    # det_dag is a product of quotients of pivots: where a pivot vanishes (cos θ = 0 at k = 6) its
    # unexpanded form is not defined (nan, zoo with all values put in at once); compared there as a
    # function instead, by its values in F_p (cancel of a 5 × 5 DAG takes minutes)
    d = det_dag(A)
    at = sp.sympify(d).xreplace(_point(k))
    if not at.has(sp.nan, sp.zoo):
        assert at == want
    assert _equal_in_F_p(d, det_sized(A))
    assert sp.expand(_at(det_exact(A), k) - want) == 0


def test_solve_affine_condition_is_the_numerator_of_the_determinant():
    u, v = sp.symbols("u v")
    eqs = [u / sp.cos(th) + a * v - 1, u - v * sp.sin(th)]
    sol, det = solve_affine(eqs, [u, v], "example")
    assert all(sp.cancel(_at(e.xreplace(sol), 3)) == 0 for e in eqs)
    # det M = −(sin θ + a cos θ)/cos θ: the condition is its numerator (a constant multiple of it)
    ratio = sp.cancel(det / (sp.Matrix([[1 / sp.cos(th), a], [1, -sp.sin(th)]]).det() * sp.cos(th)))
    assert ratio.is_number and ratio != 0


def _expression_trees(leaves: list, max_leaves: int) -> st.SearchStrategy:
    """Sums, products, sines, cosines and integer powers (−2 … 3) of the ``leaves``."""
    return st.recursive(
        st.sampled_from(leaves),
        lambda kids: st.one_of(
            st.tuples(kids, kids).map(lambda p: p[0] + p[1]),
            st.tuples(kids, kids).map(lambda p: p[0] * p[1]),
            kids.map(sp.sin), kids.map(sp.cos),
            st.tuples(kids, st.integers(-2, 3)).map(lambda p: p[0] ** p[1] if p[0] != 0 else p[0]),
        ),
        max_leaves=max_leaves,
    )


exprs = _expression_trees([a, b, x, th, sp.Integer(2), sp.Rational(1, 3)], 8)


@settings(max_examples=40, deadline=None)
@given(exprs, st.sampled_from([a, x, th]))
def test_diff_dag_is_the_derivative(e, var):
    d1, d2 = diff_dag(e, var), sp.diff(e, var)
    pt = {a: sp.Rational(2, 3), b: sp.Rational(5, 7), x: sp.Rational(3, 11), th: sp.Rational(1, 5)}
    v1, v2 = d1.xreplace(pt), d2.xreplace(pt)
    if v2.has(sp.zoo, sp.nan) or v1.has(sp.zoo, sp.nan):
        return  # a pole of the expression at this point
    assert abs(sp.N(v1 - v2, 30)) <= 1e-25 * (1 + abs(sp.N(v2, 30)))


@settings(max_examples=40, deadline=None)
@given(exprs)
def test_gradient_dag_is_diff_dag_variable_by_variable(e):
    """One walk for all the variables gives, for each, the very expression ``diff_dag`` gives, and
    leaves out exactly the variables whose derivative is the number 0."""
    variables = frozenset({a, x, th})
    grad = gradient_dag(e, variables)
    for v in variables:
        d = diff_dag(e, v)
        assert grad.get(v, sp.S.Zero) == d
        assert (v in grad) == (d != 0)


_t = sp.Symbol("t")
_qf = [sp.Function(name)(_t) for name in ("x", "theta", "b")]  # b(t) renamed onto the parameter b: a clash
_renamed = {**{q.diff(_t): sp.Symbol(f"{q.func.__name__}dot") for q in _qf},
            **{q: sp.Symbol(q.func.__name__) for q in _qf}}
time_exprs = _expression_trees([*_qf[:2], *(q.diff(_t) for q in _qf[:2]), a, _t, sp.Integer(3), sp.Rational(-1, 2)],
                               10)


@settings(max_examples=60, deadline=None)
@given(time_exprs, st.booleans())
def test_rename_dag_is_xreplace(e, clash):
    """Renaming q(t), q̇(t) to symbols by sorting the renamed arguments of every sum and product gives
    the very expression ``xreplace`` gives (srepr equal: the same arguments in the same order) — also
    when an image already occurs in the expression (b(t) ↦ b next to the parameter b: then x·x must
    become x², and the renaming is handed to ``xreplace_dag``), and with one memo for several calls."""
    if clash:
        e = e * _qf[2] + b * _qf[2] ** 2
    memo: dict = {}
    assert sp.srepr(rename_dag(e, _renamed, memo)) == sp.srepr(e.xreplace(_renamed))
    f = e + sp.sin(e)
    assert sp.srepr(rename_dag(f, _renamed, memo)) == sp.srepr(f.xreplace(_renamed))


def test_rename_dag_hands_unevaluated_shapes_to_xreplace():
    """Sums and products sympy's constructors would change (unevaluated, nested, a number over a sum)
    are rebuilt by them: the result is ``xreplace``'s."""
    x = _qf[0]
    for e in (sp.Add(x, x, evaluate=False), sp.Mul(2, x + a, evaluate=False),
              sp.Add(sp.Add(x, a, evaluate=False), 1, evaluate=False), sp.Mul(x, x, evaluate=False) + a):
        assert sp.srepr(rename_dag(e, _renamed)) == sp.srepr(e.xreplace(_renamed))

def _chain(levels: int):
    e = x
    for _ in range(levels):  # a DAG of `levels` levels whose tree has 2^levels leaves
        e = (e + a) * sp.sin(th) / (1 + e) + e * sp.cos(th)
    return e


def test_diff_dag_visits_each_distinct_subexpression_once():
    e = _chain(25)
    assert tree_size(e) > 10**7  # sympy.diff would walk this tree
    memo: dict = {}
    diff_dag(e, x, memo)
    assert len(memo) < 500
    # on a chain small enough for sympy's tree walk, the two derivatives agree exactly at a point
    small = _chain(4)
    pt = {a: sp.Float(1, 50) / 3, x: sp.Float(3, 50) / 7, th: sp.Float(2, 50) / 5}
    v1, v2 = xreplace_dag(diff_dag(small, x), pt), xreplace_dag(sp.diff(small, x), pt)
    assert abs(v1 - v2) < 1e-40 * (1 + abs(v2))


def test_large_zero_test_runs_on_the_dag_in_the_prime_field():
    e = _chain(30)  # tree of ~10^9 nodes: never walked
    assert tree_size(e) > 10**9
    pyth = sp.sin(th) ** 2 + sp.cos(th) ** 2
    zt = zero_test(e * pyth - e)
    # the Schwartz–Zippel bound with the degree bound of the chain (2^30-fold nesting): still tiny
    assert zt.zero and zt.method == "random points (F_p)" and zt.bound < 1e-9
    nz = zero_test(e * pyth - e + a * sp.Rational(1, 10**30))
    assert not nz.zero and nz.method == "counterexample"


@settings(max_examples=15, deadline=None)
@given(st.lists(st.tuples(st.integers(8, 20), st.integers(0, 2), st.sampled_from([0, 1, a])), min_size=1, max_size=5))
def test_zero_tests_share_points_and_agree_with_zero_test(items):
    """zero_tests (one F_p memo per point for all the expressions) gives zero_test's verdicts,
    method and bound: large chains times the Pythagorean identity, minus themselves, plus a
    perturbation (zero or not), small ones among them."""
    pyth = sp.sin(th) ** 2 + sp.cos(th) ** 2
    exprs = []
    for n, k, eps in items:
        e = _chain(n) * th**k
        exprs.append(e * pyth - e + sp.sympify(eps) / 10**30)
    exprs.append(pyth - 1)  # small: zero_test's own tiers
    got = zero_tests(exprs)
    want = [zero_test(e) for e in exprs]
    assert [(g.zero, g.method, g.bound) for g in got] == [(w.zero, w.method, w.bound) for w in want]
    assert [g.zero for g in got] == [eps == 0 for _, _, eps in items] + [True]


@settings(max_examples=25, deadline=None)
@given(systems(max_n=4), st.integers(0, 3), st.integers(0, 20))
def test_generic_rank_on_shadows_matches_sympy_rank(system, drop, k):
    """generic_rank decides on F_p shadows (no substitution): its rank is sympy's rank at rational
    points (the maximum over two), and its pivot block has a non-zero determinant there."""
    from jetgeo.geometry.exact import generic_rank

    A, _ = system
    n = A.rows
    if drop and n > 1:  # make a row a combination of the others: a rank drop to find
        A = A.copy()
        A[n - 1, :] = a * A[0, :] + sp.cos(th) * A[min(1, n - 2), :]
    info = generic_rank(A)
    want = max(_at(A, k).rank(), _at(A, k + 1).rank())
    assert info.rank == want
    if info.rank:
        block = A.extract(list(info.rows), list(info.cols))
        assert _at(block, k).det() != 0 or _at(block, k + 1).det() != 0


@settings(max_examples=20, deadline=None)
@given(systems(max_n=3))
def test_renaming_without_flatten_is_the_same_function(system):
    """xreplace_dag(..., renaming=True) rebuilds sums and products from their arguments as they
    are: the same function as xreplace (sympy's expand of the difference is 0); rules that are
    not a one-to-one renaming of symbols are refused."""
    import pytest

    from jetgeo.errors import InputError

    A, B = system
    ren = {a: sp.Symbol("_p0"), b: sp.Symbol("_p1"), th: sp.Symbol("_y0")}
    for e in (*A, *B):
        got = xreplace_dag(e, ren, renaming=True)
        assert sp.expand(got - e.xreplace(ren)) == 0
    with pytest.raises(InputError):
        xreplace_dag(a + b, {a: sp.Symbol("_p0"), b: sp.Symbol("_p0")}, renaming=True)
    with pytest.raises(InputError):
        xreplace_dag(a + b, {a: b + 1}, renaming=True)


_y = sp.Symbol("y")
_ATOMS = st.sampled_from([x, _y, sp.Integer(2), sp.Rational(-1, 3), sp.oo, sp.zoo, sp.S.Zero])


@st.composite
def _expressions_with_infinities(draw, depth=3):
    if depth == 0:
        return draw(_ATOMS)
    a, b = draw(_expressions_with_infinities(depth=depth - 1)), draw(_expressions_with_infinities(depth=depth - 1))
    return draw(st.sampled_from([a + b, a * b, a / (b + 1), a * sp.sin(b), a**2 * b, a - b]))


@settings(max_examples=150, deadline=None)
@given(_expressions_with_infinities(), st.sampled_from([{x: 0}, {x: 0, _y: 0}, {_y: 0}, {x: sp.oo}, {x: _y - 1}]))
def test_xreplace_dag_is_xreplace_with_zeros_and_infinities(e, rule):
    """A product whose factor became 0 is 0 without sympy's ``is_finite`` query — unless a factor
    holds an infinity (then sympy's nan): the same expression as ``xreplace``."""
    assert xreplace_dag(e, rule) == e.xreplace(rule)


@given(exprs)
def test_atoms_dag_is_atoms(e):
    # the zero test's atoms (trigonometric functions, powers, exp/log) collected on the DAG are sympy's
    for types in ((sp.sin, sp.cos, sp.tan), (sp.Pow,), (sp.Function,), (sp.exp, sp.log), (sp.Symbol,)):
        assert atoms_dag(e, *types) == e.atoms(*types)


_nc = sp.Symbol("n", commutative=False)
_plain = st.recursive(
    st.sampled_from([a, b, x, sp.sin(th), sp.cos(th), sp.Integer(2), sp.Rational(-1, 3), sp.Integer(-1)]),
    lambda kids: st.one_of(
        st.tuples(kids, kids).map(lambda p: p[0] + p[1]),
        st.tuples(kids, kids).map(lambda p: p[0] * p[1]),
        st.tuples(kids, st.integers(-2, 3)).map(lambda p: p[0] ** p[1] if p[0] != 0 else p[0]),
    ),
    max_leaves=6,
)
_factors = st.one_of(_plain, _plain, _plain, exprs,
                     st.sampled_from([sp.Float(1.5), _nc, _nc + a, sp.exp(a), sp.sqrt(a + b), (a + b)**-1,
                                      a + sp.oo, b + sp.zoo * a, sp.I * sp.oo + a, sp.Symbol("w", infinite=True) + a]))


@settings(max_examples=100, deadline=None)
@given(st.lists(_factors, min_size=1, max_size=4), st.integers(2, 4))
def test_product_dag_and_power_dag_are_sympys_expressions(factors, k):
    """The product and power built without sympy's assumption queries are the very expressions
    sympy's ``Mul`` and ``**`` build (``srepr`` equal: same arguments, same order) — sums, sin,
    cos, symbols, rationals, and the inputs that go through ``Mul`` (infinities, floats,
    non-commuting symbols, exp, square roots, cancelling powers, a number times a sum)."""
    assert sp.srepr(product_dag(*factors)) == sp.srepr(sp.Mul(*factors))
    assert sp.srepr(power_dag(factors[0], k)) == sp.srepr(factors[0] ** k)


def test_product_dag_skips_the_infinity_query_of_sums():
    """A square of a fresh two-term sum: sympy's ``Pow`` asks each term ``is_infinite`` (an
    assumption query, recorded on the term), ``power_dag`` asks nothing."""
    p, q = sp.Dummy("p"), sp.Dummy("q")  # fresh terms: no assumption asked yet
    s = p * sp.sin(q) + q * sp.cos(p)
    got, got3 = power_dag(s, 2), product_dag(s, p, s)
    assert all("infinite" not in t._assumptions for t in s.args)
    assert got == s**2 and got3 == p * s**2
    assert any("infinite" in t._assumptions for t in s.args)  # sympy's Pow asked


_angle_sums = st.recursive(
    st.sampled_from([a, b, x, sp.sin(th), sp.cos(th), sp.sin(2 * th - x), sp.cos(th + x), sp.Integer(3),
                     sp.Rational(-2, 5)]),
    lambda kids: st.one_of(
        st.tuples(kids, kids).map(lambda p: p[0] + p[1]),
        st.tuples(kids, kids).map(lambda p: p[0] * p[1]),
        st.tuples(kids, st.integers(-2, 3)).map(lambda p: p[0] ** p[1] if p[0] != 0 else p[0]),
    ),
    max_leaves=8,
)


@settings(max_examples=60, deadline=None)
@given(st.one_of(_angle_sums, exprs))
def test_mod_derivative_is_the_value_of_the_built_derivative(e):
    """Forward differentiation in F_p gives the value, at the same point, of the derivative
    ``diff_dag`` builds along the same direction (angles' rates included: d sin = cos·rate on the
    circle points).  It refuses (NotRationalError) only expressions the field cannot evaluate."""
    along = {x: b, th: a + 1, a: sp.Integer(2)}
    for trial in (1, 2):
        rep, angles, memo = {}, {}, {}
        try:
            want = mod_value(diff_dag(e, along), rep, angles, memo, trial)
        except (ZeroDivisionError, NotRationalError):
            continue
        try:
            got = mod_derivative(e, along, rep, angles, memo, {}, trial)
        except NotRationalError:
            with pytest.raises(NotRationalError):
                mod_value(e, {}, {}, {}, trial)
            continue
        assert got == want


def test_exp_of_symbols_has_a_shadow_that_keeps_its_relations():
    # exp(Σ kᵢ xᵢ) takes Π zᵢ^kᵢ: exp(a + b) = exp a · exp b and exp(2y) = exp(y)² hold at the point
    y, x = sp.symbols("y x")
    for e in (sp.Mul(sp.exp(x), sp.exp(y), evaluate=False) - sp.exp(x + y),
              sp.Add(sp.exp(2 * y), -sp.Pow(sp.exp(y), 2, evaluate=False), evaluate=False),
              sp.Mul(sp.exp(-y), sp.exp(y), evaluate=False) - 1):
        assert mod_value(e, {}, {}, {}) == 0
    assert mod_value(sp.exp(y) - y, {}, {}, {}) != 0
    with pytest.raises(NotRationalError):
        mod_value(sp.exp(y / 2), {}, {}, {})
    # the forward derivative: d/dy exp(2y) = 2 exp(2y)
    rep, angles, memo = {}, {}, {}
    d = mod_derivative(sp.exp(2 * y) * x, {y: sp.Integer(1)}, rep, angles, memo, {})
    assert d == mod_value(2 * sp.exp(2 * y) * x, rep, angles, memo)


def test_rank_of_constraints_with_an_exponential_factor():
    # f₁ = (ẋ² + ẏ² − a²(ψ̇ + φ̇)²)·exp(y), f₂ = ẋ cos ψ + ẏ sin ψ have rank 2; the rank at
    # 60-digit points with y ≈ −120 used to drop row 1 (exp(y) ≈ 1e-53 below the tolerance)
    xd, yd, psid, phid, y, psi, a = sp.symbols("xdot ydot psidot phidot y psi a")
    f = sp.Matrix([(xd**2 + yd**2 - a**2 * (psid + phid) ** 2) * sp.exp(y), xd * sp.cos(psi) + yd * sp.sin(psi)])
    J = f.jacobian([xd, yd, psid, phid])
    assert generic_rank(J).rank == 2
    assert generic_rank_dag(J) == 2


def test_constraints_with_a_gaussian_factor_are_accepted():
    # exp(−y²) has no F_p shadow (y² is not an integer combination of symbols): the rank is taken at
    # 60-digit points, where exp(−y²) ≈ 10⁻⁴³⁴²⁹⁴; the row counted as zero against the other row's size
    # and Q was refused ("generic rank 1 < k = 2")
    Y = FibredManifold(["x", "y", "z"])
    (x, y, z), (xd, yd, zd) = Y.q, Y.qdot
    Q = ConstraintSubmanifold(Y, [sp.exp(-y**2) * (zd - x * xd), yd - z * xd])
    assert Q.k == 2 and set(Q.dependent) == {yd, zd}
    assert Q.normal_form().g == {zd: x * xd, yd: z * xd}


_y = sp.Symbol("y")
_TERMS = st.sampled_from([x * _y, x + _y, sp.sin(x) * _y, 2 * x, -x - _y, sp.cos(_y) * (x + 1), sp.Integer(3), x**2])


@given(st.lists(_TERMS, min_size=1, max_size=5))
@settings(max_examples=40, deadline=None)
def test_an_elimination_entry_is_the_sum_its_updates_build(terms):
    """The LU on DAGs appends an update a − f·b to an entry and builds the sum when the entry is read:
    sympy's Add of all the terms, which is the expression the updates a − p₁ − p₂ … build one by one
    (Add flattens), so the solves give the same expressions as before the change (identical srepr)."""
    entry = _Entry(terms[0], 0)
    want = terms[0]
    for t in terms[1:]:
        entry.add(-t, 0)
        want = want - t
    assert sp.srepr(entry.expr) == sp.srepr(want)


def test_random_points_are_drawn_once_per_symbol_and_trial(call_log):
    """A symbol's residue and an angle's circle point at a trial are drawn once per process (seeding a
    ``random.Random`` is the costly part) and are the draws of their seeds: two evaluations at the same
    point, with fresh memos, seed two generators (x and θ), not four, and give the same value."""


    shadow._residue.cache_clear()
    shadow._circle_point.cache_clear()
    draws = call_log(random, "Random")
    e = x * sp.sin(th) + sp.cos(2 * th)
    first = mod_value(e, {}, {}, {}, 7)
    assert mod_value(e, {}, {}, {}, 7) == first
    assert sorted(args[0] for args in draws) == ["angle theta:7:mod", "x:7:mod"]
    # the values are those of the seeds: x's residue and θ's point ((1 − u²)/(1 + u²), 2u/(1 + u²))
    xv = random.Random("x:7:mod").randrange(2, PRIME)
    u = random.Random("angle theta:7:mod").randrange(1, PRIME)
    den = pow(1 + u * u, -1, PRIME)
    c, s = (1 - u * u) * den % PRIME, 2 * u * den % PRIME
    assert first == (xv * s + c * c - s * s) % PRIME


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(exprs, min_size=3, max_size=3), min_size=2, max_size=3))
def test_generic_rank_at_zero_is_the_rank_of_the_substituted_matrix(rows):
    """Fixing θ = x = 0 at the F_p points (values 0, cos 1, sin 0) gives the generic rank of the matrix
    with θ and x substituted by sympy, where that matrix is defined (a pole at the reference: no rank)."""
    M = sp.Matrix(rows)
    at = M.xreplace({th: 0, x: 0})
    if at.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
        return
    assert generic_rank_dag(M, at_zero=(th, x)) == generic_rank(at).rank


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.lists(st.integers(-3, 3), min_size=3, max_size=3),
                          st.lists(st.integers(-2, 2), min_size=2, max_size=2), st.booleans()),
                min_size=1, max_size=5))
def test_a_sum_over_one_common_denominator_is_the_termwise_sum(terms):
    """``substitute_affine``'s sum in the fraction field — the numerators over the lcm of the
    denominators, one cancellation — is the element the term-by-term sum gives (cancelled after every
    addition), written the same way; equal denominators (the common case) and distinct ones."""
    K = ZZ.frac_field(a, b)
    R = K.field.ring
    A, B = R.gens
    elements = []
    for (c0, c1, c2), (d0, d1), shared in terms:
        num = c0 * A**2 + c1 * A * B + c2
        den = (A + 1) * (B - 2) if shared else (A + 1) * (B - 2) + d0 * A + d1 + 3
        if den == 0:
            continue
        elements.append(K.field(num) / K.field(den))
    sequential = K.zero
    for t in elements:
        sequential = sequential + t
    together = _fraction_sum(K, elements)
    assert together == sequential
    assert sp.srepr(K.to_sympy(together)) == sp.srepr(K.to_sympy(sequential))


def test_substitute_affine_with_numbers_only():
    """Coefficients and values that are all numbers put the sum in ℚ, not in a fraction field."""
    y, z = sp.symbols("y z")
    assert substitute_affine(2 * y + 3 * z + 1, {y: sp.Rational(1, 3), z: sp.Rational(-1, 2)}) == sp.Rational(1, 6)
    assert substitute_affine(a * y + 1, {y: 1 / a}) == 2
