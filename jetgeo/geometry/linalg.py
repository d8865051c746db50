r"""Linear algebra built on the exact core: null spaces, linear solves, singular loci.

The generic rank of a symbolic matrix, its pivot block and the block's determinant (the
*condition* under which results derived from the pivots hold) come from
:mod:`jetgeo.geometry.exact`; the *singular locus* where the rank may drop is contained in
{condition = 0} and is exactly the common zero set of all r × r minors, which
:func:`singular_locus` returns when there are few enough of them.  Null spaces and solutions
are computed by solving with the pivot block, never by inverting, and normalised with
``cancel`` — never ``simplify``.
"""

from __future__ import annotations

from itertools import combinations

import sympy as sp

from .coerce import as_matrix
from .exact import det_exact, generic_rank, solve_exact
from .zero import is_zero, normalise, normalise_if_small

__all__ = ["singular_locus", "nullspace", "independent_rows"]


def singular_locus(M, max_minors: int = 60) -> list:
    """Expressions whose common vanishing is where ``M`` drops below its generic rank.

    All r × r minors (r the generic rank) when there are at most ``max_minors`` of
    them — their common zero set is exactly the locus; otherwise the pivot minor
    alone, whose zero set contains the locus.  Identically vanishing minors and
    non-zero constants are dropped; an empty list means the rank never drops.

    Parameters
    ----------
    M : sympy.Matrix or nested list
        A symbolic matrix (e.g. the constraint Jacobian whose rank defines regularity).
    max_minors : int, default 60
        Beyond this many r × r minors only the pivot minor is returned.

    Returns
    -------
    list of sympy.Expr
        Distinct expressions, each normalised with common factors pulled out; M has rank < r
        exactly where all vanish (or, with the pivot minor alone, possibly only there).

    Examples
    --------
    >>> x, y = sp.symbols("x y")
    >>> singular_locus([[x, y]])
    [x, y]
    """
    M = as_matrix(M, "M")
    info = generic_rank(M)
    r = info.rank
    if r == 0:
        return []
    n_minors = _binom(M.rows, r) * _binom(M.cols, r)
    if n_minors > max_minors:
        cands = [info.condition]
    else:
        cands = []
        for rows in combinations(range(M.rows), r):
            for cols in combinations(range(M.cols), r):
                cands.append(det_exact(M.extract(list(rows), list(cols))))
    out = []
    seen = set()
    for c in cands:
        c = sp.factor_terms(normalise(c))
        if c == 0 or is_zero(c):
            continue
        if c.is_number or _is_constant(c):
            return []  # a non-zero constant minor (e.g. sin²θ + cos²θ): the rank never drops
        key = sp.srepr(c)
        if key not in seen:
            seen.add(key)
            out.append(c)
    return out


def _is_constant(c: sp.Expr) -> bool:
    """True if ``c`` is constant although not structurally a number (all partials vanish)."""
    return all(is_zero(sp.diff(c, s)) for s in c.free_symbols)


def _binom(n: int, k: int) -> int:
    from math import comb

    return comb(n, k)


def nullspace(M, normaliser=normalise_if_small):
    """A basis of the generic (right) null space of ``M``, and its validity condition.

    With a pivot block B = M[R, C] of generic rank r, every free column j gives the
    vector with 1 in place j and −B⁻¹ M[R, j] in the pivot places (solved by LU,
    not by inversion).  Returns ``(basis, condition)``: a list of column matrices,
    valid where ``condition`` (= det B) does not vanish.

    Parameters
    ----------
    M : sympy.Matrix or nested list
        A symbolic k × n matrix.
    normaliser : callable, optional
        Applied to each solved entry; by default :func:`~jetgeo.geometry.zero.normalise_if_small`
        (cancel small entries, keep large DAGs exact as they are).

    Returns
    -------
    tuple
        ``(basis, condition)``: n − r column matrices spanning ker M where ``condition ≠ 0``, and
        ``condition`` = det B (1 when M has rank 0).

    Examples
    --------
    >>> x = sp.Symbol("x")
    >>> basis, cond = nullspace([[x, 1, 0]])
    >>> [list(v) for v in basis], cond
    ([[1, -x, 0], [0, 0, 1]], 1)
    """
    M = as_matrix(M, "M")
    info = generic_rank(M)
    n = M.cols
    free = [j for j in range(n) if j not in info.cols]
    if info.rank == 0:
        return [sp.Matrix([1 if i == j else 0 for i in range(n)]) for j in range(n)], sp.Integer(1)
    B = M.extract(list(info.rows), list(info.cols))
    basis = []
    for j in free:
        rhs = -M.extract(list(info.rows), [j])
        sol = solve_exact(B, rhs)
        v = [sp.Integer(0)] * n
        v[j] = sp.Integer(1)
        for k, c in enumerate(info.cols):
            v[c] = normaliser(sol[k])
        basis.append(sp.Matrix(v))
    return basis, info.condition


def independent_rows(M) -> list:
    """Indices of a maximal set of generically independent rows, in increasing order.

    Parameters
    ----------
    M : sympy.Matrix or nested list
        A symbolic matrix, e.g. the Jacobian ∂(f^1 … f^k)/∂(q̇^1 … q̇^m) of constraint functions.

    Returns
    -------
    list of int
        The rows of the pivot block of :func:`~jetgeo.geometry.exact.generic_rank`: that many rows
        are independent at almost every point; as many as the generic rank.

    Examples
    --------
    >>> x = sp.Symbol("x")
    >>> independent_rows([[1, x], [2, 2 * x], [0, 1]])
    [0, 2]
    """
    return list(generic_rank(sp.Matrix(M)).rows)
