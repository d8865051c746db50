"""The exact-algebra core (jetgeo.geometry.exact): solves, determinants, ranks, shadows, the
trigonometric reduction and the size measure.

Independent truths: the solution substituted back, A X − B, evaluated exactly at rational points
of the parameter space and of the unit circle (sympy's own arithmetic, not the module's F_p
shadow values); sympy's LUsolve (+ cancel) on the same matrices; the cofactor (Laplace)
expansion for determinants; values at random angles for the trigonometric reduction.
"""

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from jetgeo.errors import NotRationalError, RankDeficientError
from jetgeo.geometry import is_zero
from jetgeo.geometry.exact import (
    PRIME,
    det_exact,
    field_product,
    generic_rank,
    lu_solve_dag,
    mod_value,
    rank_mod,
    solve_field,
    solve_rational,
    trig_reduce,
)

TH = sp.symbols("th0:3")
P = sp.symbols("a b c", positive=True)
ATOMS = [*P, *[sp.sin(t) for t in TH], *[sp.cos(t) for t in TH], sp.cos(TH[0] - TH[1])]


def _circle(k: int) -> tuple:
    u = sp.Rational(k, 7)
    return (1 - u**2) / (1 + u**2), 2 * u / (1 + u**2)


def _exact_point(seed: int) -> dict:
    """Rational values for a, b, c and for sin θ, cos θ on the unit circle (cos(θ0 − θ1) from them)."""
    rep = {p: sp.Rational(seed + 3 * i + 2, 5) for i, p in enumerate(P)}
    cs = [_circle(seed + 2 * i + 1) for i in range(len(TH))]
    for t, (c, s) in zip(TH, cs):
        rep[sp.cos(t)], rep[sp.sin(t)] = c, s
    rep[sp.cos(TH[0] - TH[1])] = cs[0][0] * cs[1][0] + cs[0][1] * cs[1][1]
    return rep


def _at(M: sp.Matrix, rep: dict) -> sp.Matrix:
    # sin/cos atoms first, then the parameters (the atoms contain the angles, not the parameters)
    return M.xreplace({k: v for k, v in rep.items() if not k.is_Symbol}).xreplace(
        {k: v for k, v in rep.items() if k.is_Symbol})


entries = st.lists(st.sampled_from(ATOMS), min_size=1, max_size=3).map(lambda xs: sp.Mul(*xs))


@st.composite
def sparse_systems(draw, max_n: int = 5):
    n = draw(st.integers(2, max_n))
    A = sp.zeros(n, n)
    for i in range(n):
        for j in range(n):
            if draw(st.booleans()):
                A[i, j] = draw(entries) * draw(st.sampled_from([1, -1, 2, sp.Rational(1, 3)]))
    A += sp.diag(*[P[i % 3] ** 2 + 1 for i in range(n)])  # generically invertible
    perm = draw(st.permutations(range(n)))                 # rows permuted: pivoting needed
    A = A.extract(list(perm), list(range(n)))
    B = sp.Matrix(n, 2, lambda i, j: draw(entries) if draw(st.booleans()) else 0)
    return A, B


@given(sparse_systems(), st.integers(0, 40))
def test_solution_satisfies_the_system_exactly(system, seed):
    A, B = system
    X = lu_solve_dag(A, B)
    rep = _exact_point(seed)
    A0 = _at(A, rep)
    if A0.det() == 0:  # the point is on the singular locus (probability ~0)
        return
    assert _at(A * X - B, rep) == sp.zeros(*B.shape)
    assert _at(X, rep) == A0.LUsolve(_at(B, rep))  # sympy's LU on the numbers


def test_zero_leading_entry_needs_a_row_exchange():
    a, b = P[:2]
    A = sp.Matrix([[0, sp.cos(TH[0])], [a, sp.sin(TH[0])]])
    X = lu_solve_dag(A, sp.Matrix([b, 1]))
    assert sp.simplify(X[1] - b / sp.cos(TH[0])) == 0
    assert sp.simplify(X[0] - (1 - sp.sin(TH[0]) * b / sp.cos(TH[0])) / a) == 0


def test_sparsity_is_kept_block_by_block():
    """Block-diagonal A: each block's unknowns never involve the other block's symbols (no
    product with a zero entry is formed — that is what makes chains of bodies cheap)."""
    a, b, c = P
    A = sp.diag(sp.Matrix([[a, sp.sin(TH[0])], [1, b]]), sp.Matrix([[c, sp.cos(TH[1])], [sp.sin(TH[1]), 1]]))
    X = lu_solve_dag(A, sp.Matrix([1, 0, 0, 1]))
    assert X[0].free_symbols | X[1].free_symbols <= {a, b, TH[0]}
    assert X[2].free_symbols | X[3].free_symbols <= {c, TH[1]}
    assert sp.simplify(A * X - sp.Matrix([1, 0, 0, 1])) == sp.zeros(4, 1)


def test_singular_matrix_is_reported():
    a, b = P[:2]
    A = sp.Matrix([[a, b], [2 * a, 2 * b]])
    with pytest.raises(RankDeficientError, match="singular"):
        lu_solve_dag(A, sp.Matrix([1, 1]))
    # singular only after cancellation: sin² + cos² − 1 ≡ 0 as a pivot candidate
    A = sp.Matrix([[sp.sin(TH[0]) ** 2 + sp.cos(TH[0]) ** 2 - 1, 1], [0, a]])
    with pytest.raises(RankDeficientError):
        lu_solve_dag(A, sp.Matrix([1, 1]))


def test_other_functions_fall_back_to_sympy():
    a = P[0]
    A = sp.Matrix([[sp.exp(a), 1], [1, sp.sqrt(a)]])
    X = lu_solve_dag(A, sp.Matrix([1, 2]))
    assert sp.simplify(A * X - sp.Matrix([1, 2])) == sp.zeros(2, 1)
    for other in (sp.tan(a), sp.exp(a / 2)):  # exp of an integer combination of symbols has a shadow
        with pytest.raises(NotRationalError):
            mod_value(other, {}, {}, {})


@given(st.integers(-3, 3), st.integers(-3, 3), st.integers(0, 5))
def test_mod_value_knows_multiple_angle_identities(k, l, trial):
    """sin, cos of integer combinations of angles take the values the addition theorems give;
    the point lies on the unit circle over F_p; rational constants reduce correctly."""
    x, y = TH[:2]
    arg = k * x + l * y
    memo: dict = {}
    rep: dict = {}
    ang: dict = {}

    def v(e):
        return mod_value(e, rep, ang, memo, trial)

    assert v(sp.cos(arg)) == v(sp.expand_trig(sp.cos(arg)))
    assert v(sp.sin(arg)) == v(sp.expand_trig(sp.sin(arg)))
    assert v(sp.sin(x) ** 2 + sp.cos(x) ** 2) == 1
    assert v(sp.Rational(2, 3)) * 3 % PRIME == 2
    assert v(P[0] / P[1]) * v(P[1]) % PRIME == v(P[0])


@given(st.integers(1, 4), st.integers(0, 3), st.integers(0, 30))
def test_rank_mod_of_a_product_of_random_factors(r, extra, seed):
    """A = U V with U (r+extra) × r and V r × (r+extra) of rank r: rank_mod gives r (textbook:
    rank of a generic product), and appending a row that sums two rows does not raise it."""
    import random

    rnd = random.Random(seed)
    n = r + extra
    U = [[rnd.randrange(PRIME) for _ in range(r)] for _ in range(n)]
    V = [[rnd.randrange(PRIME) for _ in range(n)] for _ in range(r)]
    A = [[sum(U[i][k] * V[k][j] for k in range(r)) % PRIME for j in range(n)] for i in range(n)]
    assert rank_mod(A) == r
    assert rank_mod([*A, [(a + b) % PRIME for a, b in zip(A[0], A[-1])]]) == r


@given(sparse_systems())
def test_tree_size_counts_the_tree_not_the_dag(system):
    """tree_size equals the length of sympy's preorder traversal (which walks the tree)."""
    from jetgeo.geometry.exact import tree_size

    A, B = system
    X = lu_solve_dag(A, B)
    for e in list(X)[:2]:
        assert tree_size(e) == sum(1 for _ in sp.preorder_traversal(e))


def test_tree_size_of_a_chain_grows_exponentially_while_the_dag_does_not():
    from jetgeo.geometry.exact import tree_size

    x = sp.Symbol("x")
    e = x
    for k in range(40):                       # e_{k+1} = e_k·(e_k + k + 1): each level doubles the tree
        e = sp.Mul(e, e + k + 1, evaluate=True)
    assert tree_size(e) > 2**40


# --- the fraction-field solve -------------------------------------------------------------------


@settings(max_examples=15, deadline=None)
@given(sparse_systems(max_n=4), st.integers(0, 40))
def test_solve_field_agrees_with_sympy_lusolve(system, seed):
    """solve_rational (fraction-field Gauss–Jordan, pivots proven by F_p shadows) equals sympy's
    LUsolve at a rational point of the parameters and of the unit circle (sympy's LU on the
    numbers: what ``cancel`` of the symbolic LUsolve, minutes on these matrices, takes there), and
    satisfies the system there."""
    A, B = system
    X = solve_rational(A, B)
    assert X is not None
    rep = _exact_point(seed)
    A0 = _at(A, rep)
    if A0.det() == 0:  # the point is on the singular locus (probability ~0)
        return
    X0, B0 = _at(X, rep), _at(B, rep)
    assert X0 == A0.LUsolve(B0)
    # (AX − B)(p) = A(p)X(p) − B(p) exactly (substitution is a ring map): evaluated before multiplying
    assert A0 * X0 - B0 == sp.zeros(*B.shape)


def test_solve_field_reports_singular_only_when_no_pivot_is_proven():
    a, b = P[:2]
    e = sp.sin(TH[0]) ** 2 + sp.cos(TH[0]) ** 2 - 1  # non-zero as a frozen polynomial, zero as a function
    with pytest.raises(RankDeficientError, match="singular"):
        solve_rational(sp.Matrix([[e, 1], [0, e]]), sp.Matrix([1, 1]))
    with pytest.raises(RankDeficientError):
        solve_rational(sp.Matrix([[a, b], [2 * a, 2 * b]]), sp.Matrix([1, 1]))
    # the same entry beside a proven pivot is harmless: never divided by
    res = solve_field(sp.Matrix([[e, a], [b, 1]]), sp.Matrix([1, 2]))
    assert all(is_zero(u - v) for u, v in zip(res.X, [(2 * a - 1) / (a * b), 1 / a]))
    assert is_zero(res.det - (e - a * b)) or is_zero(res.det + (e - a * b))


def test_solve_field_det_is_the_determinant_numerator():
    a, b = P[:2]
    A = sp.Matrix([[a, sp.cos(TH[0])], [sp.sin(TH[0]), b]])
    res = solve_field(A, sp.Matrix([1, 0]))
    assert sp.expand(res.det - A.det()) == 0


def test_bad_shapes_are_input_errors():
    from jetgeo.errors import InputError

    with pytest.raises(InputError):
        solve_rational(sp.Matrix([[1, 2]]), sp.Matrix([1]))
    with pytest.raises(InputError):
        det_exact(sp.Matrix([[1, 2]]))


# --- determinants -------------------------------------------------------------------------------


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 5), st.lists(st.integers(-3, 3), min_size=25, max_size=25), st.integers(0, 3))
def test_det_exact_is_the_determinant(n, coeffs, shift):
    """det_exact (Berkowitz without intermediate simplification up to 3 × 3, the rational
    function field with frozen sin/cos beyond) equals the cofactor expansion, checked exactly at
    random points; entries mix symbols, sin, cos and a denominator."""
    a, th = sp.symbols("a th")
    atoms = [a, sp.sin(th), sp.cos(th), 1 / (1 + a**2), sp.cos(th) ** 2]
    M = sp.Matrix(n, n, lambda i, j: coeffs[i * 5 + j] * atoms[(i + j + shift) % 5] + int(i == j))
    assert is_zero(det_exact(M) - M.det(method="laplace"))


# --- generic rank and its condition -------------------------------------------------------------


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 3), st.integers(0, 2), st.integers(0, 30))
def test_rank_condition_is_a_nonvanishing_pivot_minor(r, extra, seed):
    """M = U V with U (r+extra) × r, V r × (r+extra) of symbolic/trigonometric entries has generic
    rank r; the condition is the determinant of the pivot block (Laplace) and does not vanish."""
    import random

    rnd = random.Random(seed)
    atoms = [*P, sp.sin(TH[0]), sp.cos(TH[1]), sp.Integer(1)]
    n = r + extra
    U = sp.Matrix(n, r, lambda i, j: rnd.randint(-2, 2) + rnd.choice(atoms))
    V = sp.Matrix(r, n, lambda i, j: rnd.randint(-2, 2) * rnd.choice(atoms) + int(i == j))
    M = U * V
    info = generic_rank(M)
    assert info.rank == min(r, M.rank(simplify=False) if r == 1 else r)
    block = M.extract(list(info.rows), list(info.cols))
    assert not is_zero(info.condition)
    assert is_zero(info.condition - block.det(method="laplace"))


# --- the trigonometric reduction ----------------------------------------------------------------

trig_terms = st.lists(
    st.tuples(st.integers(-3, 3), st.integers(0, 4), st.integers(0, 4), st.sampled_from([1, P[0], P[1] ** 2])),
    min_size=1, max_size=5)


@settings(max_examples=40, deadline=None)
@given(trig_terms, trig_terms, st.integers(1, 30))
def test_trig_reduce_is_idempotent_and_keeps_values(num, den, k):
    """trig_reduce(trig_reduce(e)) == trig_reduce(e), and the value at random angles (exact
    rational points of the unit circle) is unchanged."""
    s, c = sp.sin(TH[0]), sp.cos(TH[0])
    N = sp.Add(*[a * s**i * c**j * w for a, i, j, w in num])
    D = sp.Add(*[a * s**i * c**j * w for a, i, j, w in den]) + 5  # not identically zero
    e = N / D
    r = trig_reduce(e)
    assert trig_reduce(r) == r
    # cosines survive only to the first power
    assert all(p.exp < 2 for p in r.atoms(sp.Pow) if p.base == c)
    cc, ss = _circle(k)
    pt = {s: ss, c: cc, P[0]: sp.Rational(k + 2, 3), P[1]: sp.Rational(5, k + 1)}
    d0 = D.xreplace(pt)
    if d0 != 0:
        assert sp.nsimplify(r.xreplace(pt)) == sp.nsimplify(e.xreplace(pt))


def test_reduce_pythagorean_reads_the_powers_of_each_cosine_off_the_terms(call_log):
    """cos^{2j+e} u ↦ cos^e u (1 − sin²u)^j term by term, without a polynomial ring over the other atoms
    (building one per cosine was most of trig_reduce's time): the result equals the reduction written out by
    hand, and a cosine in a denominator, under a root or inside a function is refused (None)."""
    from jetgeo.geometry.exact.trig import reduce_pythagorean

    a, b = P[:2]
    s0, c0, s1, c1 = sp.sin(TH[0]), sp.cos(TH[0]), sp.sin(TH[1]), sp.cos(TH[1])
    calls = call_log(sp, "Poly")
    p = a * c0**3 * c1**2 + 2 * b * c0**2 + c0 * s1 / a - 3 * c1**4 + sp.cos(TH[0] - TH[1]) * c0**2 + 7
    want = (a * c0 * (1 - s0**2) * (1 - s1**2) + 2 * b * (1 - s0**2) + c0 * s1 / a - 3 * (1 - s1**2) ** 2
            + sp.cos(TH[0] - TH[1]) * (1 - s0**2) + 7)
    assert reduce_pythagorean(p) == sp.expand(want)
    assert reduce_pythagorean(s0**2 + c0**2) == 1
    for bad in (a / c0 + c0**2, sp.sqrt(c0) + c0**2, sp.exp(c0) * c0**2):
        assert reduce_pythagorean(bad) is None
    assert calls == []


def test_field_product_is_the_product():
    a, b = P[:2]
    A = sp.Matrix([[a / (1 + b), sp.cos(TH[0])], [1, sp.sin(TH[0]) / a]])
    B = sp.Matrix([[b], [1 / (a + sp.cos(TH[0]))]])
    assert all(is_zero(u - v) for u, v in zip(field_product(A, B), A * B))


def test_trig_reduce_of_the_same_expression_is_computed_once(call_log):
    """trig_reduce is kept per process: the same entry reduced again (a body's contact kinematics or a chart
    built again by another test or route) returns the first result without cancelling again; an equal
    expression with another symbol is computed on its own."""
    calls = call_log(sp, "cancel")
    th, u = sp.symbols("theta_once u_once")  # fresh symbols: no earlier test reduced this expression
    e = (u * sp.sin(th) ** 2 + u * sp.cos(th) ** 2) / (1 - sp.cos(th) ** 2)
    first = trig_reduce(e)
    n = len(calls)
    assert first == u / sp.sin(th) ** 2 and n > 0
    assert trig_reduce(e) is first and len(calls) == n
    v = sp.Symbol("v_once")
    assert trig_reduce(e.xreplace({u: v})) == v / sp.sin(th) ** 2 and len(calls) > n
