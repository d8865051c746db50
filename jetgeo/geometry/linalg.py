r"""Symbolic linear algebra with generic ranks and stated singular loci.

A symbolic matrix M(x) has a *generic rank* r: the rank at almost every point.
jetgeo finds it by exact elimination at deterministic random points (angles on
rational points of the unit circle, see :mod:`jetgeo.geometry.zero`): the rank at a
point never exceeds the generic rank and equals it with overwhelming probability;
the maximum over a few points is taken.  The elimination also yields a pivot
block — rows R and columns C with det M[R, C] ≢ 0 — and that minor is the
*condition* under which everything derived from the pivot choice is valid:
the *singular locus* where the rank may drop is contained in {det M[R, C] = 0}
(it is exactly the common zero set of all r × r minors, which
:func:`singular_locus` returns when there are few enough of them).

Null spaces and solutions are computed by solving with the pivot block
(``LUsolve``), never by inverting the whole matrix, and normalised with
``cancel`` — never ``simplify``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations

import sympy as sp

from .coerce import as_matrix
from .dag import NotRationalError, mod_value, rank_mod
from .zero import (
    _PREC,
    _TRIG,
    PointSampler,
    angles_of,
    is_zero,
    normalise,
    prepare_trig,
    substitute,
    substitution,
    to_fraction,
)

__all__ = [
    "RankInfo",
    "generic_rank",
    "generic_rank_dag",
    "det_exact",
    "singular_locus",
    "nullspace",
    "solve_linear",
    "independent_rows",
    "matrix_at_point",
]


@dataclass
class RankInfo:
    """Generic rank of a symbolic matrix with a pivot block and its condition.

    ``rows``/``cols`` index an r × r block whose determinant ``condition`` does not
    vanish identically; results that use the block hold where ``condition ≠ 0``.
    ``method`` is ``"exact"`` (rational arithmetic at the sample points) or
    ``"numerical"`` (60-digit floating point).
    """

    rank: int
    rows: tuple
    cols: tuple
    method: str
    matrix: sp.Matrix = field(repr=False)
    _condition: sp.Expr | None = field(default=None, repr=False)

    @property
    def condition(self) -> sp.Expr:
        """det M[rows, cols] (the pivot minor), computed once, division-free."""
        if self._condition is None:
            if self.rank == 0:
                self._condition = sp.Integer(1)
            else:
                block = self.matrix.extract(list(self.rows), list(self.cols))
                self._condition = sp.factor_terms(block.det(method="berkowitz"))
        return self._condition


def matrix_at_point(M: sp.Matrix, sampler: PointSampler):
    """Evaluate every entry of ``M`` at one random point.

    Returns ``(values, exact)`` with values a list of lists of Fractions (exact) or
    mpmath numbers, or ``None`` if the point is a pole of some entry.
    """
    prepared = M.applyfunc(prepare_trig)
    atoms: set = set()
    syms: set = set()
    for e in prepared:
        atoms |= e.atoms(*_TRIG)
        syms |= e.free_symbols
    angles = set()
    for e in prepared:
        angles |= angles_of(e)
    point = sampler.point(syms, angles)
    rep = substitution(point, atoms)
    vals = []
    exact = True
    for i in range(M.rows):
        row = []
        for j in range(M.cols):
            v = substitute(prepared[i, j], rep)
            if v.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
                return None
            if v.is_Rational:
                row.append(to_fraction(v))
            else:
                exact = False
                n = sp.N(v, _PREC)
                if not n.is_number or n.has(sp.zoo, sp.nan):
                    return None
                row.append(n)
        vals.append(row)
    if not exact:
        vals = [[sp.N(sp.Rational(v.numerator, v.denominator), _PREC) if isinstance(v, Fraction) else v
                 for v in row] for row in vals]
    return vals, exact


def _preference(M: sp.Matrix) -> list:
    """Pivot preference of each symbolic entry: constants first, then small expressions.

    Pivoting on structurally simple entries keeps solved expressions small and
    avoids spurious validity conditions (a constant pivot never vanishes).
    """
    out = []
    for i in range(M.rows):
        row = []
        for j in range(M.cols):
            e = M[i, j]
            if e.is_number:
                row.append(0)
            elif e.is_Symbol:
                row.append(1)
            else:
                row.append(2 + sp.count_ops(e))
        out.append(row)
    return out


def _eliminate(vals, exact: bool, pref=None):
    """Full-pivot Gaussian elimination: (rank, pivot rows, pivot cols).

    Among the non-zero candidates the pivot is the one with the lowest ``pref``
    (structural simplicity of the original entry), ties broken by magnitude.
    """
    a = [list(r) for r in vals]
    nr = len(a)
    nc = len(a[0]) if nr else 0
    scale = max([abs(x) for r in a for x in r] + [1])
    tol = 0 if exact else sp.Float("1e-35", _PREC) * scale
    rows_left = list(range(nr))
    cols_left = list(range(nc))
    prow, pcol = [], []
    while rows_left and cols_left:
        best, bi, bj = None, None, None
        for i in rows_left:
            for j in cols_left:
                v = abs(a[i][j])
                if v <= tol:
                    continue
                key = ((pref[i][j] if pref else 0), -v)
                if best is None or key < best:
                    best, bi, bj = key, i, j
        if best is None:
            break
        prow.append(bi)
        pcol.append(bj)
        rows_left.remove(bi)
        cols_left.remove(bj)
        piv = a[bi][bj]
        for i in rows_left:
            f = a[i][bj] / piv
            if f != 0:
                for j in cols_left:
                    a[i][j] -= f * a[bi][j]
    return len(prow), tuple(prow), tuple(pcol)


def generic_rank(M, trials: int = 2) -> RankInfo:
    """Generic rank of ``M`` with a non-singular pivot block.

    >>> import sympy as sp
    >>> x = sp.Symbol('x')
    >>> generic_rank(sp.Matrix([[x, 1], [x**2, x]])).rank
    1
    """
    M = as_matrix(M, "M")
    if M.rows == 0 or M.cols == 0:
        return RankInfo(0, (), (), "exact", M)
    sampler = PointSampler()
    pref = _preference(M)
    best = None
    attempts = 0
    done = 0
    while done < trials and attempts < 10 * trials:
        attempts += 1
        res = matrix_at_point(M, sampler)
        if res is None:
            continue
        vals, exact = res
        r, rows, cols = _eliminate(vals, exact, pref)
        done += 1
        if best is None or r > best[0]:
            best = (r, tuple(sorted(rows)), cols, exact)
        if r == min(M.rows, M.cols):
            break
    if best is None:  # every sample point was a pole
        return RankInfo(0, (), (), "exact", M)
    r, rows, cols, exact = best
    # order pivot columns to match sorted rows is irrelevant for the minor's vanishing
    return RankInfo(r, rows, tuple(sorted(cols)), "exact" if exact else "numerical", M)


def singular_locus(M, max_minors: int = 60) -> list:
    """Expressions whose common vanishing is where ``M`` drops below its generic rank.

    All r × r minors (r the generic rank) when there are at most ``max_minors`` of
    them — their common zero set is exactly the locus; otherwise the pivot minor
    alone, whose zero set contains the locus.  Identically vanishing minors and
    non-zero constants are dropped; an empty list means the rank never drops.
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
                cands.append(M.extract(list(rows), list(cols)).det(method="berkowitz"))
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


def nullspace(M, normaliser=normalise):
    """A basis of the generic (right) null space of ``M``, and its validity condition.

    With a pivot block B = M[R, C] of generic rank r, every free column j gives the
    vector with 1 in place j and −B⁻¹ M[R, j] in the pivot places (solved by LU,
    not by inversion).  Returns ``(basis, condition)``: a list of column matrices,
    valid where ``condition`` (= det B) does not vanish.
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
        sol = B.LUsolve(rhs)
        v = [sp.Integer(0)] * n
        v[j] = sp.Integer(1)
        for k, c in enumerate(info.cols):
            v[c] = normaliser(sol[k])
        basis.append(sp.Matrix(v))
    return basis, info.condition


def solve_linear(A, b, normaliser=normalise):
    """Solve the square system A x = b by LU (no inversion); entries normalised.

    Raises :class:`jetgeo.errors.RankDeficientError` if A is generically singular.
    Returns ``(x, det A)``: the solution holds where det A ≠ 0.
    """
    from ..errors import RankDeficientError

    A = as_matrix(A, "A")
    b = as_matrix(b, "b")
    info = generic_rank(A)
    if A.rows != A.cols or info.rank < A.rows:
        raise RankDeficientError(
            f"solve_linear: the {A.rows}×{A.cols} matrix has generic rank {info.rank}; "
            "a square matrix of full rank is required"
        )
    x = solve_rational(A, b)
    if x is None:
        x = A.LUsolve(b)
    return x.applyfunc(normaliser), info.condition


def _fits_polynomial_domain(M: sp.Matrix) -> bool:
    """Cheap pre-check (no expansion) that sympy will not fall back to the slow EX domain:
    no function (sin, cos, sqrt …) and no non-integer power inside a denominator, no
    non-integer power at all."""
    seen: set = set()
    stack = list(M)
    while stack:  # a walk over the expression DAG: shared subexpressions are visited once
        e = stack.pop()
        if e in seen or not isinstance(e, sp.Basic) or e.is_Atom:
            continue
        seen.add(e)
        if e.is_Pow:
            if not e.exp.is_Integer:
                return False
            if e.exp.is_negative and e.base.has(sp.Function):
                return False
        stack.extend(e.args)
    return True


def _generators_as_symbols(M: sp.Matrix) -> tuple:
    """M with every non-polynomial atom (sin θ, cos θ, e^x …) replaced by a fresh symbol, and the
    map back.  sympy's domain constructor puts sin θ and cos θ of one angle in the slow EX
    domain (they are algebraically dependent); as independent generators they give a
    polynomial ring, where fraction-field elimination is fast."""
    atoms = set()
    for e in M:
        atoms |= {a for a in e.atoms(sp.Function)}
    if not atoms:
        return M, {}
    rep = {a: sp.Dummy(f"g{i}") for i, a in enumerate(sorted(atoms, key=sp.default_sort_key))}
    return M.xreplace(rep), {v: k for k, v in rep.items()}


def det_exact(M) -> sp.Expr:
    """det M, exact and unsimplified.  Up to 3 × 3 by Berkowitz *without* sympy's intermediate
    simplification (``Matrix.det`` cancels every product along the way — minutes on the
    reduced mass matrix of a 3-trailer, for a 2 × 2 determinant); larger matrices in the field
    of rational functions of their symbols and function atoms (sin θ, cos θ … frozen as
    independent generators, sympy's ``DomainMatrix``: the Leibniz polynomial of the entries is
    an identity there, so the result is exact wherever the entries are defined).  Normalise
    the result if a canonical form is needed."""
    from sympy.matrices.utilities import dotprodsimp
    from sympy.polys.matrices import DomainMatrix

    M = as_matrix(M, "M")
    if M.rows != M.cols:
        raise ValueError(f"det_exact: the matrix is {M.rows} × {M.cols}")
    if M.rows == 0:
        return sp.Integer(1)
    if M.rows > 3 and not any(a.exp.is_Integer is False for e in M for a in e.atoms(sp.Pow)):
        Mx, back = _generators_as_symbols(M)
        try:
            dM = DomainMatrix.from_Matrix(Mx)
            if not (dM.domain.is_EX or dM.domain.is_EXRAW):
                return dM.domain.to_sympy(dM.det()).xreplace(back)
        except (sp.PolynomialError, sp.CoercionFailed, NotImplementedError, ValueError, TypeError):
            pass  # not a rational-function matrix after all: Berkowitz below
    with dotprodsimp(False):
        return M.det(method="berkowitz")


def solve_rational(A, b) -> sp.Matrix | None:
    """Solve the square system A x = b exactly in the field of rational functions.

    The entries are converted to sympy's sparse polynomial domain (``DomainMatrix`` over
    K(generators)) and the system is solved by fraction-field LU there: every intermediate
    quotient is kept in lowest terms by polynomial gcds, which is 10–20× faster than ``LUsolve``
    followed by ``cancel`` of the nested result (measured on Krupková's reduced equations,
    2.4 s → 0.15 s).  Sines, cosines and other function atoms are treated as independent
    generators: the elimination is then an identity in a larger polynomial ring, valid after
    the relations among them (sin² + cos² = 1) are imposed provided no denominator of the
    result vanishes identically under those relations — checked by jetgeo's zero test, and
    ``None`` is returned if one does.  The result entries are ``numerator/denominator`` in
    expanded, cancelled form.  Returns ``None`` when the entries do not fit a polynomial
    domain (the caller falls back to ``LUsolve``) or the matrix is singular in that domain.
    """
    from sympy.polys.matrices import DomainMatrix

    A = as_matrix(A, "A")
    b = as_matrix(b, "b")
    if not _fits_polynomial_domain(A.row_join(b)):
        return None
    Mx, back = _generators_as_symbols(A.row_join(b))
    try:
        dM = DomainMatrix.from_Matrix(Mx)
        if dM.domain.is_EX or dM.domain.is_EXRAW:
            return None
        dM = dM.to_field()
        xs = dM[:, : A.cols].lu_solve(dM[:, A.cols :])
    except (sp.PolynomialError, ZeroDivisionError, NotImplementedError, ValueError, TypeError):
        return None
    if not back:
        return xs.to_Matrix()
    X = xs.to_Matrix()
    dens = {sp.fraction(e)[1] for e in X} - {sp.Integer(1)}
    for den in dens:
        if is_zero(den.xreplace(back)):
            return None  # a denominator vanishes on the relations among the generators
    return X.xreplace(back)


def substitute_affine(expr, values: dict) -> sp.Expr | None:
    """``expr`` (affine in the keys of ``values``) with the keys replaced, as a cancelled fraction.

    Writes expr = c₀ + Σ c_k y_k and evaluates c₀ + Σ c_k v_k in the fraction field of one
    polynomial domain (as :func:`solve_rational`): 3× faster than ``cancel`` of the substituted
    expression.  Returns ``None`` if ``expr`` is not affine in the keys or the entries do not
    fit a polynomial domain.
    """
    from sympy.polys.matrices import DomainMatrix

    keys = list(values)
    cs = [sp.diff(expr, k) for k in keys]
    if any(c.has(*keys) for c in cs):
        return None
    c0 = expr.xreplace({k: 0 for k in keys})
    col = sp.Matrix([c0, *cs, *[values[k] for k in keys]])
    if not _fits_polynomial_domain(col):
        return None
    col, back = _generators_as_symbols(col)
    try:
        dm = DomainMatrix.from_Matrix(col)
        if dm.domain.is_EX or dm.domain.is_EXRAW:
            return None
        dm = dm.to_field()
        K = dm.domain
        el = [dm[i, 0].element for i in range(col.rows)]
    except (sp.PolynomialError, NotImplementedError, ValueError, TypeError):
        return None
    n = len(keys)
    r = el[0]
    for i in range(n):
        r = r + el[1 + i] * el[1 + n + i]
    out = K.to_sympy(r)
    return out.xreplace(back) if back else out


def independent_rows(M) -> list:
    """Indices of a maximal set of generically independent rows, in increasing order."""
    return list(generic_rank(sp.Matrix(M)).rows)


def generic_rank_dag(M: sp.Matrix) -> int:
    """Generic rank of a matrix whose entries share large subexpressions (the unsimplified
    results of an LU solve): elimination over F_p at two random points, each shared
    subexpression evaluated once (:func:`jetgeo.geometry.dag.mod_value`); the rank at a point
    never exceeds the generic rank and equals it with overwhelming probability.  Falls back
    to :func:`generic_rank` for entries it cannot evaluate (functions other than sin, cos of
    integer combinations of symbols; non-integer powers)."""
    best = 0
    for trial in range(2):
        rep: dict = {}
        angles: dict = {}
        memo: dict = {}
        try:
            vals = [[mod_value(M[i, j], rep, angles, memo, trial) for j in range(M.cols)] for i in range(M.rows)]
        except (NotRationalError, ZeroDivisionError):
            return generic_rank(M).rank
        best = max(best, rank_mod(vals))  # the trials use different points
        if best == min(M.shape):
            break
    return best
