r"""Solving linear systems over rational functions, with pivots proven non-zero.

Two solvers share one pivoting rule — **a pivot is an entry whose shadow value in F_p is
non-zero** (:mod:`.shadow`), which proves it a non-zero function (also modulo
sin² + cos² = 1) without any symbolic zero test or intermediate simplification:

* :func:`solve_field` (and :func:`solve_rational`, its matrix-only form): Gauss–Jordan in the
  field of rational functions of the symbols and the frozen atoms (:mod:`.freeze`), every
  quotient in lowest terms by polynomial gcds; among the proven pivots the structurally smallest
  (fewest terms, then sparsest row and column — Markowitz), so constant pivots go first and the
  fill-in stays small.  Results are canonical (expanded numerator over denominator).
* :func:`lu_solve_dag`: elimination on the expressions themselves, sparse rows, no product with a
  zero entry ever formed; results are exact, unexpanded and share subexpressions (what
  KanesMethod returns for its dependent speeds) — for long chains of bodies, where canonical
  forms are astronomically large.

Each shadow is carried through the same arithmetic as its entry.  If in some column no entry
with a non-zero shadow is left, the elimination is repeated at a second point; if it fails
there too the matrix is singular at two random points and
:class:`~jetgeo.errors.RankDeficientError` is raised — the only failure reported as a rank
drop.  Every other failure propagates with its own type.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from ...errors import InputError, NotRationalError, RankDeficientError
from ..coerce import as_matrix
from .det import berkowitz
from .freeze import fits_polynomial_domain, freeze
from .shadow import MAX_SHADOW_POINTS, PRIME, free_values, mod_value, shadow_evaluable
from .zero import is_zero

__all__ = ["FieldSolution", "solve_field", "solve_rational", "lu_solve_dag", "det_dag", "substitute_affine"]


@dataclass(frozen=True)
class FieldSolution:
    """X with A X = B in the rational function field; ``det`` the numerator of det A
    (up to sign conventions exact: the product of the pivots with the permutation's sign).

    Attributes
    ----------
    X : sympy.Matrix
        The solution of A X = B, entries expanded numerator over denominator in lowest terms.
    det : sympy.Expr
        The numerator of det A (the signed product of the pivots); X holds where it is non-zero.
    """

    X: sp.Matrix
    det: sp.Expr


def _shapes(A, B, who: str) -> tuple[sp.Matrix, sp.Matrix]:
    A = as_matrix(A, "A")
    B = as_matrix(B, "B")
    if A.rows != A.cols or B.rows != A.rows:
        raise InputError(f"{who}: A must be square with as many rows as B, got {A.shape} and {B.shape}")
    return A, B


def _size(e) -> int:
    try:
        return len(e.numer) + len(e.denom)
    except (AttributeError, TypeError):  # a ground element (QQ)
        return 1


class _FillInTooLarge(Exception):
    """An intermediate entry grew beyond ``max_terms`` (internal)."""


def _gauss_jordan(a: list, sh: list, K, n: int, max_terms: int | None):
    """Gauss–Jordan on the augmented rows ``a`` (field elements) with shadows ``sh``; pivots
    only where the shadow is non-zero.  Returns (pivots [(row, col)], det) or None when some
    column has no proven pivot left."""
    rows_left, cols_left = set(range(n)), set(range(n))
    pivots, det = [], K.one
    while rows_left:
        best = None
        for r in rows_left:
            nz_r = sum(1 for c in cols_left if a[r][c])
            for c in cols_left:
                if a[r][c] and sh[r][c]:
                    key = (_size(a[r][c]), nz_r, sum(1 for q in rows_left if a[q][c]))
                    if best is None or key < best[0]:
                        best = (key, r, c)
        if best is None:
            return None
        _, r, c = best
        piv, piv_sh = a[r][c], sh[r][c]
        det = det * piv
        inv, inv_sh = K.one / piv, pow(piv_sh, -1, PRIME)
        a[r] = [x * inv if x else x for x in a[r]]
        sh[r] = [x * inv_sh % PRIME for x in sh[r]]
        if max_terms is not None and max(_size(x) for x in a[r]) > max_terms:
            raise _FillInTooLarge
        for q in range(n):
            if q != r and a[q][c]:
                f, f_sh = a[q][c], sh[q][c]
                a[q] = [x - f * y if y else x for x, y in zip(a[q], a[r])]
                sh[q] = [(x - f_sh * y) % PRIME for x, y in zip(sh[q], sh[r])]
        pivots.append((r, c))
        rows_left.discard(r)
        cols_left.discard(c)
    return pivots, det


def _permutation_sign(perm: list) -> int:
    sign, seen = 1, [False] * len(perm)
    for i in range(len(perm)):  # by its cycles
        if not seen[i]:
            j, length = i, 0
            while not seen[j]:
                seen[j] = True
                j = perm[j]
                length += 1
            sign *= -1 if length % 2 == 0 else 1
    return sign


def solve_field(A, B, max_terms: int | None = None) -> FieldSolution | None:
    """X with A X = B (A square, generically invertible) in the field of rational functions of
    the symbols and frozen atoms; see the module docstring.

    Returns ``None`` when the entries do not fit a polynomial fraction field (floats, symbolic
    exponents), when ``max_terms`` is given and an intermediate entry grows beyond that many
    terms, or — for entries with atoms other than sin/cos of integer combinations of symbols,
    whose relations the shadows do not see — when a denominator of the result vanishes
    identically (decided by the zero test).  Raises
    :class:`~jetgeo.errors.RankDeficientError` if A is singular at two random points.

    Parameters
    ----------
    A : sympy.Matrix
        The n × n coefficient matrix.
    B : sympy.Matrix
        The right-hand sides, n × k.
    max_terms : int or None, optional
        Give up (``None``) when an intermediate entry grows beyond this many terms; default no bound.

    Returns
    -------
    FieldSolution or None
        X in lowest terms and the numerator of det A; ``None`` in the cases above.

    Raises
    ------
    jetgeo.errors.InputError
        If A is not square or B has a different number of rows.
    jetgeo.errors.RankDeficientError
        If A is singular at two random points.

    Examples
    --------
    >>> a, th = sp.symbols("a theta")
    >>> solve_field(sp.Matrix([[0, sp.cos(th)], [a, sp.sin(th)]]), sp.Matrix([1, 0])).X
    Matrix([
    [-sin(theta)/(a*cos(theta))],
    [              1/cos(theta)]])
    """
    from sympy.polys.matrices import DomainMatrix

    A, B = _shapes(A, B, "solve_field")
    n, nb = A.rows, B.cols
    if n == 0:
        return FieldSolution(sp.zeros(0, nb), sp.Integer(1))
    M = A.row_join(B)
    if not fits_polynomial_domain(M):
        return None
    Mf, back = freeze(M)
    try:
        dM = DomainMatrix.from_Matrix(Mf)
    except (sp.PolynomialError, sp.CoercionFailed, NotImplementedError):
        return None
    if dM.domain.is_EX or dM.domain.is_EXRAW or not dM.domain.is_Exact:
        return None
    dM = dM.to_field()
    K = dM.domain
    free = [a for a in back.values() if not shadow_evaluable(a)]
    singular = 0  # points at which no pivot was left
    for trial in range(MAX_SHADOW_POINTS):
        if singular == 2:
            break
        memo = free_values(free, trial)
        rep: dict = {}
        angles: dict = {}
        try:
            sh = [[mod_value(M[i, j], rep, angles, memo, trial) for j in range(n + nb)] for i in range(n)]
        except ZeroDivisionError:  # an entry undefined at this point: the next one
            continue
        except NotRationalError:  # pragma: no cover - every other atom is frozen and pre-valued
            return None
        a = [list(r) for r in dM.to_list()]
        try:
            got = _gauss_jordan(a, sh, K, n, max_terms)
        except _FillInTooLarge:
            return None
        if got is None:
            singular += 1
            continue
        pivots, det = got
        X = sp.Matrix(n, nb, lambda i, j: 0)
        for r, c in pivots:
            for j in range(nb):
                X[c, j] = K.to_sympy(a[r][n + j])
        if free:  # relations among √x, exp, … are invisible to the shadows: check the denominators
            dens = {sp.fraction(e)[1] for e in X} - {sp.Integer(1)}
            if any(is_zero(d.xreplace(back)) for d in dens):
                return None
        sign = _permutation_sign([c for _, c in sorted(pivots)])
        d = sp.numer(K.to_sympy(det))
        return FieldSolution(X.xreplace(back) if back else X, sp.factor_terms(sign * d).xreplace(back))
    if singular < 2:  # undefined at every point tried: no verdict from the shadows
        return None
    raise RankDeficientError(f"the {n} × {n} matrix is singular at two random points (no pivot with a "
                             "non-zero value is left)")


def solve_rational(A, b) -> sp.Matrix | None:
    """X with A X = b exactly in the field of rational functions (:func:`solve_field`): entries
    ``numerator/denominator``, expanded and cancelled.  ``None`` when the entries do not fit a
    polynomial domain (callers fall back to :func:`lu_solve_dag`); raises
    :class:`~jetgeo.errors.RankDeficientError` if A is singular at two random points.

    Parameters
    ----------
    A : sympy.Matrix
        The n × n coefficient matrix, generically invertible.
    b : sympy.Matrix
        The right-hand side(s), n rows.

    Returns
    -------
    sympy.Matrix or None
        X, canonical (expanded numerator over denominator); ``None`` when the entries do not fit a
        polynomial domain.

    Raises
    ------
    jetgeo.errors.RankDeficientError
        If A is singular at two random points.

    Examples
    --------
    >>> a = sp.Symbol("a")
    >>> solve_rational(sp.Matrix([[a, 1], [0, a]]), sp.Matrix([1, 1])).T
    Matrix([[(a - 1)/a**2, 1/a]])
    """
    res = solve_field(A, b)
    return None if res is None else res.X


class _Entry:
    """An entry of the elimination: the terms whose sum it is and its shadow value.  Updates
    a_ij − f·a_pj append a term; the sum is built when the entry is read (as a pivot, a factor or
    a right-hand side of the back substitution) — once, not once per update: sympy's ``Add`` of a
    sum and a term copies and sorts every term of the sum, so updating a right-hand side k times
    cost k rebuilds of a growing sum (a third of the 4-trailer's implicit derivatives of f).  The
    sum is sympy's ``Add`` of the same terms, so the expression is the one the updates built."""

    __slots__ = ("terms", "value", "_expr")

    def __init__(self, expr, value: int) -> None:
        self.terms = [expr]
        self.value = value
        self._expr = expr

    def add(self, term, value: int) -> None:
        self.terms.append(term)
        self.value = (self.value + value) % PRIME
        self._expr = None

    @property
    def expr(self):
        if self._expr is None:
            self._expr = sp.Add(*self.terms)
            self.terms = [self._expr]
        return self._expr


def _eliminate_at(A: sp.Matrix, B: sp.Matrix, trial: int, want_det: bool = False):
    """Gaussian elimination on sparse rows with shadow values at point ``trial``; None if no
    pivot with a non-zero shadow is left in some column."""
    n, nb = A.rows, B.cols
    rep: dict = {}
    angles: dict = {}
    memo: dict = {}

    def val(e):
        return mod_value(e, rep, angles, memo, trial)

    # row i: {column: _Entry}; columns n … n+nb−1 are the right-hand sides
    rows = []
    for i in range(n):
        r = {}
        for j in range(n):
            e = A[i, j]
            if e != 0:
                r[j] = _Entry(e, val(e))
        for j in range(nb):  # right-hand sides: no value (only A's values choose pivots), never walked in F_p
            e = B[i, j]
            if e != 0:
                r[n + j] = _Entry(e, 0)
        rows.append(r)
    free = set(range(n))
    order = []  # (pivot row, pivot column)
    for c in range(n):
        cand = [i for i in free if c in rows[i] and rows[i][c].value != 0]
        if not cand:
            return None
        p = min(cand, key=lambda i: (len(rows[i]), i))  # the sparsest pivot row (Markowitz)
        free.discard(p)
        order.append((p, c))
        pivot = rows[p][c]
        pe, pv = pivot.expr, pivot.value
        for i in free:
            entry = rows[i].pop(c, None)
            if entry is None:
                continue
            factor = entry.expr / pe
            factor_v = entry.value * pow(pv, -1, PRIME) % PRIME
            for j, other in rows[p].items():
                if j == c:
                    continue
                prod = -(factor * other.expr)
                prod_v = -factor_v * other.value % PRIME if j < n else 0
                old = rows[i].get(j)
                if old is None:
                    rows[i][j] = _Entry(prod, prod_v)
                else:
                    old.add(prod, prod_v)
    if want_det:  # det A = sign(row permutation) · Π pivots
        perm = [p for p, _c in order]
        sign = _permutation_sign(perm)
        return sign * sp.Mul(*[rows[p][c].expr for p, c in order])
    x = [[sp.S.Zero] * nb for _ in range(n)]
    for p, c in reversed(order):
        pe = rows[p][c].expr
        for b in range(nb):
            terms = []
            rhs = rows[p].get(n + b)
            if rhs is not None:
                terms.append(rhs.expr)
            for j, other in rows[p].items():
                if j < n and j != c and x[j][b] != 0:
                    terms.append(-other.expr * x[j][b])
            x[c][b] = sp.Add(*terms) / pe if terms else sp.S.Zero
    return sp.Matrix(x)


def det_dag(A) -> sp.Expr:
    """det A as the signed product of the pivots of the DAG elimination (:func:`lu_solve_dag`):
    exact, unexpanded, a rational expression in the entries that shares their subexpressions —
    for matrices whose expanded determinant is too large to be worth having (the bordered
    matrices of a long chain of bodies).  Raises :class:`~jetgeo.errors.RankDeficientError` if
    A is singular at two random points (then det A ≡ 0).

    Parameters
    ----------
    A : sympy.Matrix
        A square matrix, entries possibly unexpanded DAGs.

    Returns
    -------
    sympy.Expr
        det A = sign(π) Π_k p_k over the pivots p_k of the elimination, unexpanded.

    Raises
    ------
    jetgeo.errors.InputError
        If A is not square.
    jetgeo.errors.RankDeficientError
        If A is singular at two random points.

    Examples
    --------
    >>> a, th = sp.symbols("a theta")
    >>> sp.cancel(det_dag(sp.Matrix([[0, sp.cos(th)], [a, sp.sin(th)]])))
    -a*cos(theta)
    """
    A = as_matrix(A, "A")
    if A.rows != A.cols:
        raise InputError(f"det_dag: the matrix is {A.rows} × {A.cols}, not square")
    if A.rows == 0:
        return sp.Integer(1)
    singular = 0
    for trial in range(MAX_SHADOW_POINTS):
        try:
            d = _eliminate_at(A, sp.zeros(A.rows, 0), trial, want_det=True)
        except NotRationalError:
            break
        except ZeroDivisionError:  # a pole or a radicand without a root in F_p: another point
            continue
        if d is not None:
            return d
        singular += 1
        if singular == 2:
            break
    if singular < 2:  # entries the shadows cannot evaluate (or undefined at every point tried)
        return berkowitz(A)
    raise RankDeficientError(f"det_dag: the {A.rows} × {A.cols} matrix is singular at two random points")


def lu_solve_dag(A: sp.Matrix, B: sp.Matrix) -> sp.Matrix:
    """X with A X = B, A square and generically invertible, as unsimplified expressions that
    share subexpressions (see the module docstring).

    Pivots are chosen by exact values in F_p at a random point (never by a symbolic zero
    test), rows are sparse (zero entries never multiplied).  Only A's entries are evaluated (the
    right-hand sides choose no pivot: the large d̄f of a chain's constraints and the reduced
    equations' right-hand sides are never walked in F_p).  Entries of A :func:`mod_value`
    cannot evaluate (exp, nested or possibly-square roots, …) fall back to sympy's ``LUsolve``.  Raises
    :class:`~jetgeo.errors.RankDeficientError` if A is singular at two random points.

    Parameters
    ----------
    A : sympy.Matrix
        The n × n coefficient matrix.
    B : sympy.Matrix
        The right-hand sides, n × k.

    Returns
    -------
    sympy.Matrix
        X (n × k), entries exact rational expressions in those of A and B, unexpanded.

    Raises
    ------
    jetgeo.errors.InputError
        If A is not square or B has a different number of rows.
    jetgeo.errors.RankDeficientError
        If A is singular at two random points.

    Examples
    --------
    >>> a, b, th = sp.symbols("a b theta")
    >>> A = sp.Matrix([[0, sp.cos(th)], [a, sp.sin(th)]])
    >>> x = lu_solve_dag(A, sp.Matrix([b, 1]))
    >>> (A * x - sp.Matrix([b, 1])).applyfunc(sp.cancel)
    Matrix([
    [0],
    [0]])
    """
    A, B = _shapes(A, B, "lu_solve_dag")
    singular = 0
    for trial in range(MAX_SHADOW_POINTS):
        try:
            X = _eliminate_at(A, B, trial)
        except NotRationalError:
            return A.LUsolve(B)
        except ZeroDivisionError:  # a pole or a radicand without a root in F_p: another point
            continue
        if X is not None:
            return X
        singular += 1
        if singular == 2:
            break
    if singular < 2:  # undefined at every point tried: sympy's elimination decides
        return A.LUsolve(B)
    raise RankDeficientError(f"lu_solve_dag: the {A.rows} × {A.cols} matrix is singular at two random points")


def substitute_affine(expr, values: dict) -> sp.Expr | None:
    """``expr`` (affine in the keys of ``values``) with the keys replaced, as a cancelled fraction.

    Writes expr = c₀ + Σ c_k y_k and evaluates c₀ + Σ c_k v_k in the fraction field of the
    frozen atoms (as :func:`solve_field`): 3× faster than ``cancel`` of the substituted
    expression.  Returns ``None`` if ``expr`` is not affine in the keys or the entries do not
    fit a polynomial domain.

    Parameters
    ----------
    expr : sympy.Expr
        An expression affine in the keys of ``values`` (its coefficients c_k free of them).
    values : dict
        {y_k: v_k}, the values substituted (e.g. the solved accelerations).

    Returns
    -------
    sympy.Expr or None
        c₀ + Σ c_k v_k as one fraction in lowest terms; ``None`` if ``expr`` is not affine in the
        keys or some entry does not fit a polynomial domain.

    Examples
    --------
    >>> x, y, a = sp.symbols("x y a")
    >>> substitute_affine(a * y + x, {y: 1 / a})
    x + 1
    """
    from sympy.polys.matrices import DomainMatrix

    keys = list(values)
    cs = [sp.diff(expr, k) for k in keys]
    if any(c.has(*keys) for c in cs):
        return None
    c0 = expr.xreplace({k: 0 for k in keys})
    col = sp.Matrix([c0, *cs, *[values[k] for k in keys]])
    if not fits_polynomial_domain(col):
        return None
    col, back = freeze(col)
    try:
        dm = DomainMatrix.from_Matrix(col)
    except (sp.PolynomialError, sp.CoercionFailed, NotImplementedError):
        return None
    if dm.domain.is_EX or dm.domain.is_EXRAW:
        return None
    dm = dm.to_field()
    K = dm.domain
    el = [dm[i, 0].element for i in range(col.rows)]
    n = len(keys)
    terms = [el[0], *[el[1 + i] * el[1 + n + i] for i in range(n)]]
    total = _fraction_sum(K, terms) if K.is_FractionField else sum(terms, K.zero)  # else ℚ: numbers
    out = K.to_sympy(total)
    return out.xreplace(back) if back else out


def _fraction_sum(K, terms: list):
    """Σ terms in the fraction field K with one cancellation: the numerators over the least common
    multiple of the denominators (most often all equal: the substituted accelerations share one),
    where adding term by term cancels after every addition (a gcd of the growing sum each time).
    The same element of K: its cancelled form is unique."""
    terms = [t for t in terms if t]
    if not terms:
        return K.zero
    D = terms[0].denom
    for t in terms[1:]:
        if t.denom != D:
            D = D.lcm(t.denom)
    N = D.ring.zero
    for t in terms:
        N += t.numer if t.denom == D else t.numer * D.exquo(t.denom)
    return terms[0].new(N, D)
