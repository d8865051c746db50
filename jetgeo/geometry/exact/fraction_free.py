r"""Fraction-free elimination in the polynomial ring of a matrix's entries, and determinants sized to
what is worth having (:func:`det_sized`).

The rows of a matrix whose entries are rational functions once function atoms are frozen
(:mod:`.freeze`) are brought into a polynomial ring (each row multiplied by its denominators) and
eliminated without fractions (Bareiss: every division exact), with bounds on the terms of the
intermediate polynomials and on the work (:data:`~.size.FRACTION_FREE_MAX_TERMS`,
:data:`~.size.FRACTION_FREE_MAX_WORK`).  Cramer's rule (:func:`~.affine.solve_cramer`) and
:func:`det_sized` share it; it sits below :mod:`.affine` and :mod:`.rank`, which both use it.
"""

from __future__ import annotations

import sympy as sp
from sympy.polys.matrices import DomainMatrix

from .det import BERKOWITZ_MAX_SIZE, det_exact
from .freeze import fits_polynomial_domain, freeze, polynomial_fractions
from .normal import normalise_if_small
from .size import AFFINE_CANONICAL_MAX_NODES, FRACTION_FREE_MAX_TERMS, FRACTION_FREE_MAX_WORK, tree_size
from .solve import det_dag

__all__ = ["det_sized"]


def _to_ring(M: sp.Matrix, function_denominators: bool):
    """The rows of M in a polynomial ring (function atoms frozen as generators, each row
    multiplied by its denominators): (rows, ring, substitution back, the rows' multipliers), or
    None when the entries do not fit (see :func:`solve_cramer`)."""
    if not (fits_polynomial_domain(M) if function_denominators else polynomial_fractions(M)):
        return None
    frozen, back = freeze(M)
    try:
        dM = DomainMatrix.from_Matrix(frozen)
        if dM.domain.is_EX or dM.domain.is_EXRAW:
            return None
        dens = None
        if dM.domain.is_Field:
            D, dM = dM.clear_denoms_rowwise(convert=True)
            dens = [D[i, i].element for i in range(D.shape[0])]
    except (sp.PolynomialError, sp.CoercionFailed, NotImplementedError, ValueError, TypeError):
        return None
    return dM.to_list(), dM.domain, back, dens


def _radical_of_functions(M: sp.Matrix) -> bool:
    """Whether an entry holds a fractional power of an expression with function atoms, e.g.
    √(1 − (sin φ cos δ + …)²) (a walk over the DAG).  Converting such entries to a polynomial
    ring expands them and then fails (sympy's EX domain): 3.3 s for nothing on the Whipple
    bicycle's 5 × 5 block ∂f/∂q̇^D."""
    seen: set = set()
    stack = list(M)
    while stack:
        e = stack.pop()
        if e in seen or e.is_Atom:
            continue
        seen.add(e)
        if e.is_Pow and not e.exp.is_Integer and e.base.has(sp.Function):
            return True
        stack.extend(e.args)
    return False


def det_sized(M) -> sp.Expr:
    """det M in the form worth having: expanded and cancelled (by fraction-free elimination in
    the polynomial ring of the entries, divided by the rows' cleared denominators) when M is
    small — at most :data:`~.size.AFFINE_CANONICAL_MAX_NODES` tree nodes and no intermediate
    polynomial beyond :data:`~.size.FRACTION_FREE_MAX_TERMS` terms — else the unexpanded signed
    product of the DAG elimination's pivots (:func:`~.solve.det_dag`).  Either is exact; the
    second is what a long chain of bodies can afford.

    Parameters
    ----------
    M : sympy.Matrix or nested list
        A square matrix (the 0 × 0 matrix has determinant 1).

    Returns
    -------
    sympy.Expr
        det M: with common factors pulled out (``factor_terms``) and normalised when small, else the
        unexpanded signed pivot product of :func:`~.solve.det_dag`.

    Raises
    ------
    jetgeo.errors.RankDeficientError
        On the large route, if M is singular at two random points (det M ≡ 0).

    Examples
    --------
    >>> th = sp.Symbol("theta")
    >>> det_sized(sp.Matrix([[sp.cos(th), -sp.sin(th)], [sp.sin(th), sp.cos(th)]]))
    sin(theta)**2 + cos(theta)**2
    """
    M = sp.Matrix(M)
    if M.rows == 0:
        return sp.Integer(1)
    memo: dict = {}
    if sum(tree_size(e, memo) for e in M) <= AFFINE_CANONICAL_MAX_NODES:
        if M.rows <= BERKOWITZ_MAX_SIZE:
            return sp.factor_terms(normalise_if_small(det_exact(M)))
        ring = None if _radical_of_functions(M) else _to_ring(M, True)
        if ring is not None:
            rows, K, back, dens = ring
            got = _fraction_free_jordan(rows, M.rows, K, FRACTION_FREE_MAX_TERMS)
            if got is not None:  # row i was multiplied by dens[i]: det M = det(rows) / Π dens
                out = K.to_sympy(got[0])
                if dens is not None:
                    out = out / sp.Mul(*[K.to_sympy(d) for d in dens])
                return sp.factor_terms(normalise_if_small(out.xreplace(back) if back else out))
    return det_dag(M)


def _fraction_free_jordan(rows: list, n: int, K, max_terms: int | None):
    """Fraction-free Gauss–Jordan on the n × (n + k) rows (elements of the integral domain K):
    pivot p_k, previous pivot p_{k−1}, every other row i updated as
    a_ij ← (p_k a_ij − a_ik a_kj) / p_{k−1} (an exact division, Bareiss).  Pivots are the non-zero
    entries of the column with the fewest terms.  Returns (det, rows) with rows = [det·I | det·X],
    or None when a column has no non-zero entry left or a polynomial exceeds ``max_terms``."""
    poly = K.is_PolynomialRing
    ncols = len(rows[0])
    prev, sign = K.one, 1

    def terms(e):
        return len(e) if poly else 1

    work = 0  # term products formed so far (the cost of the elimination)

    for k in range(n):
        cand = [r for r in range(k, n) if rows[r][k]]
        if not cand:
            return None
        r = min(cand, key=lambda r: terms(rows[r][k]))
        if r != k:
            rows[k], rows[r] = rows[r], rows[k]
            sign = -sign
        pk, row_k = rows[k][k], rows[k]
        for i in range(n):
            if i == k:
                continue
            row_i = rows[i]
            aik = row_i[k]
            new = []
            for j in range(ncols):
                if j == k:
                    new.append(K.zero)
                    continue
                v = pk * row_i[j]
                work += terms(pk) * terms(row_i[j])
                if aik and row_k[j]:
                    v = v - aik * row_k[j]
                    work += terms(aik) * terms(row_k[j])
                if max_terms is not None and work > FRACTION_FREE_MAX_WORK:
                    return None
                if prev != K.one and v:
                    work += terms(v) * terms(prev)
                    if max_terms is not None and work > FRACTION_FREE_MAX_WORK:
                        return None
                    # one division (the element's exquo: quotient and remainder together); the domain's
                    # exquo divides twice, for the remainder (a % b) and then the quotient (a // b)
                    v = v.exquo(prev) if poly else K.exquo(v, prev)
                if max_terms is not None and terms(v) > max_terms:
                    return None
                new.append(v)
            rows[i] = new
        prev = pk
    # every a_ii is now the last pivot, the determinant of the row-permuted A; the quotients
    # a_{i, n+c} / a_ii are X_ic whatever the permutation, and det A carries its sign
    det = rows[0][0]
    if sign < 0:
        det, rows = -det, [[-v for v in row] for row in rows]
    return det, rows
