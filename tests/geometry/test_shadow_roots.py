"""Square roots in the prime-field shadows (jetgeo.geometry.exact.shadow): √R evaluated as a root
of s² = R in F_p once the radicands are proven independent (Legendre symbols over GF(2)).

Independent truths: identities of the field Q(x)(√R) built by sympy's own polynomial
arithmetic (s² replaced by R after expansion), evaluated with the roots' real values at rational
points (mpmath, 50 digits) — the shadow must call them zero, and a perturbed identity non-zero;
ranks and solves compared with sympy's elimination on the tree at real points.
"""

import mpmath
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from jetgeo.errors import NotRationalError
from jetgeo.geometry.exact import det_dag, generic_rank, generic_rank_dag, lu_solve_dag
from jetgeo.geometry.exact.shadow import MAX_SHADOW_POINTS, NoRootAtPointError, mod_value
from jetgeo.geometry.zero import zero_test

x, y, th = sp.symbols("x y theta")
s = sp.Symbol("s")


def _shadow(e):
    """The shadow at the first point where it is defined (None: undefined at every point)."""
    for trial in range(MAX_SHADOW_POINTS):
        try:
            return mod_value(e, {}, {}, {}, trial)
        except ZeroDivisionError:
            continue
    return None


def _real(e, k: int = 0):
    """e at a real point where every radicand below is positive (50 digits)."""
    pt = {x: sp.Rational(3 + k, 7), y: sp.Rational(2, 5 + k), th: sp.Rational(1, 3 + k)}
    with mpmath.workdps(50):
        return complex(sp.N(e.xreplace(pt), 50))


# radicands: 1 + (polynomial)², positive everywhere and not squares
base = st.sampled_from([x, y, sp.sin(th), sp.cos(th), x * sp.cos(th), sp.Integer(2)])
radicand = st.lists(base, min_size=1, max_size=3).map(lambda ts: 1 + sp.Add(*ts) ** 2)
coeff = st.lists(st.tuples(st.integers(-3, 3), base), min_size=1, max_size=3).map(
    lambda ps: sp.Add(*[c * b for c, b in ps]))


@settings(max_examples=30, deadline=None)
@given(radicand, st.lists(coeff, min_size=2, max_size=4))
def test_identities_of_the_root_field_are_zero(R, cs):
    """P(√R) and its reduction modulo s² − R (sympy's polynomial remainder) are one function:
    the shadow is 0; adding 1/1000 makes it non-zero (as the real values confirm)."""
    P = sp.Add(*[c * s**k for k, c in enumerate(cs)])
    reduced = sp.rem(sp.expand(P), s**2 - sp.expand(R), s)
    lhs = P.xreplace({s: sp.sqrt(R)})                # R as built (factored square)
    rhs = reduced.xreplace({s: sp.sqrt(sp.expand(R))})  # the expanded radicand: another tree
    identity = lhs - rhs
    assert abs(_real(identity)) < 1e-30               # the truth, at a real point
    assert _shadow(identity) == 0
    perturbed = identity + sp.Rational(1, 1000)
    assert abs(_real(perturbed)) > 1e-4
    assert _shadow(perturbed) not in (0, None)


def test_root_of_a_square_is_refused():
    """√(x²) may be x or −x: no shadow can know the sign, so it refuses."""
    e = sp.sqrt(sp.expand((x + 1) ** 2)) - (x + 1)
    with pytest.raises(NotRationalError):
        mod_value(e, {}, {}, {}, 0)
    with pytest.raises(NotRationalError):  # 1 − sin² is cos²: a square on the circle
        mod_value(sp.sqrt(1 - sp.sin(th) ** 2), {}, {}, {}, 0)


def test_dependent_radicands_are_refused():
    """√x·√y − √(xy) is zero for positive x, y but not as a complex function: xy is a product of
    admitted radicands, the sign of its root undecidable, and the shadow refuses."""
    with pytest.raises(NotRationalError):
        _shadow(sp.sqrt(x) * sp.sqrt(y) - sp.sqrt(sp.expand(x * y)))
    with pytest.raises(NotRationalError):  # nested roots are not certified
        _shadow(sp.sqrt(1 + sp.sqrt(x)))


def test_one_radicand_in_two_forms_gets_one_root():
    R = (x + 1) * (y + 2) + 3
    assert _shadow(sp.sqrt(R) - sp.sqrt(sp.expand(R))) == 0
    assert _shadow(sp.sqrt(R) + sp.sqrt(sp.expand(R))) not in (0, None)


def test_non_residue_is_another_point():
    """A radicand whose value is a non-residue raises NoRootAtPointError (a ZeroDivisionError: the
    caller samples again), and half the points or so have a root."""
    R = 1 + x**2 + y**2
    outcomes = []
    for trial in range(MAX_SHADOW_POINTS):
        try:
            mod_value(sp.sqrt(R), {}, {}, {}, trial)
            outcomes.append(True)
        except NoRootAtPointError:
            outcomes.append(False)
    assert 5 <= sum(outcomes) <= MAX_SHADOW_POINTS - 5


def _first_trials_without_root():
    """A radicand 1 + x² + k with no root in F_p at the first two sample points."""
    for k in range(1, 200):
        R = 1 + x**2 + k
        misses = 0
        for trial in range(2):
            try:
                mod_value(sp.sqrt(R), {}, {}, {}, trial)
            except NoRootAtPointError:
                misses += 1
        if misses == 2:
            return R
    raise AssertionError("no such radicand among 200")  # pragma: no cover


def test_points_without_a_root_are_not_a_singularity():
    """Undefined points are skipped, never counted as singular: det, solve and rank of a
    regular matrix with a root whose first two points have no root in F_p."""
    R = _first_trials_without_root()
    r = sp.sqrt(R)
    A = sp.Matrix([[r, x], [1, r + y]])
    d = det_dag(A)
    assert abs(_real(d) - _real(A.det(method="berkowitz"))) < 1e-30
    B = sp.Matrix([1, x])
    X = lu_solve_dag(A, B)
    for k in range(2):
        res = A * X - B
        assert all(abs(_real(e, k)) < 1e-30 for e in res)
    assert generic_rank_dag(A) == 2


@settings(max_examples=15, deadline=None)
@given(radicand, st.lists(coeff, min_size=6, max_size=6))
def test_rank_with_roots_agrees_with_the_tree(R, cs):
    r = sp.sqrt(R)
    M = sp.Matrix([[cs[0] * r, cs[1], cs[2] * r + cs[3]],
                   [cs[4], cs[5] * r, 0],
                   [cs[0] * cs[4] * r, cs[1] * cs[4] + cs[0] * cs[5] * R, cs[2] * cs[4] * r + cs[3] * cs[4]]])
    # the third row is cs[4]·(first row) + cs[0]·r·(second row) after s² = R: rank ≤ 2
    assert generic_rank_dag(M) == generic_rank(M).rank


def test_zero_test_f_p_tier_with_roots():
    """The F_p tier of the zero test decides large expressions with a root on their DAG."""
    R = 1 + (x + sp.cos(th)) ** 2
    e = sp.sqrt(R)
    for _ in range(12):  # a nested, shared expression of a large tree
        e = (e + x) * (e - x) - R + x**2 + e - sp.sqrt(R) + sp.sqrt(sp.expand(R))
    got = zero_test(e - sp.sqrt(R))
    assert got.zero and got.method == "random points (F_p)"
    assert not zero_test(e - sp.sqrt(R) + sp.Rational(1, 10**6)).zero
