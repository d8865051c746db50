r"""Generic rank of a symbolic matrix, with a pivot block and its condition.

A symbolic matrix M(x) has a *generic rank* r: the rank at almost every point.  It is found by
exact elimination at deterministic random points (angles on rational points of the unit circle,
see :mod:`jetgeo.geometry.zero`): the rank at a point never exceeds the generic rank and equals
it with overwhelming probability; the maximum over a few points is taken.  The elimination also
yields a pivot block — rows R and columns C with det M[R, C] ≢ 0 — whose determinant is the
*condition* under which everything derived from the pivot choice is valid; it is computed by
:func:`~jetgeo.geometry.exact.fraction_free.det_sized`, never through sympy's intermediate
simplification.  For matrices whose entries share large subexpressions (nested results of an LU
solve) :func:`generic_rank_dag` eliminates over F_p on shadow values instead.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction

import sympy as sp

from ...errors import NotRationalError
from ..coerce import as_matrix
from . import zero as _zero
from .fraction_free import det_sized
from .shadow import MAX_SHADOW_POINTS, eliminate_mod, mod_value
from .size import NORMALISE_MAX_NODES, tree_size
from .trig import expand_multiple_angles

__all__ = ["RankInfo", "generic_rank", "generic_rank_dag", "matrix_at_point"]


@dataclass
class RankInfo:
    """Generic rank of a symbolic matrix with a pivot block and its condition.

    ``rows``/``cols`` index an r × r block whose determinant ``condition`` does not
    vanish identically; results that use the block hold where ``condition ≠ 0``.
    ``method`` is ``"exact"`` (exact arithmetic at the sample points: shadow values in the
    prime field, :mod:`.shadow`, or rationals) or ``"numerical"`` (60-digit floating point).

    Parameters
    ----------
    rank : int
        r, the generic rank of ``matrix``.
    rows, cols : tuple of int
        The row and column indices of the r × r pivot block (empty when r = 0).
    method : str
        ``"exact"`` or ``"numerical"``: the arithmetic the rank was found in.
    matrix : sympy.Matrix
        The matrix M itself, kept for :attr:`condition`.
    _condition : sympy.Expr or None, optional
        A precomputed det M[rows, cols]; ``None`` (the default) computes it on first use.
    """

    rank: int
    rows: tuple
    cols: tuple
    method: str
    matrix: sp.Matrix = field(repr=False)
    _condition: sp.Expr | None = field(default=None, repr=False)

    @property
    def condition(self) -> sp.Expr:
        """det M[rows, cols] (the pivot minor), computed once by
        :func:`~jetgeo.geometry.exact.fraction_free.det_sized` (no intermediate simplification; expanded
        when small, the unexpanded product of DAG pivots when large)."""
        if self._condition is None:
            if self.rank == 0:
                self._condition = sp.Integer(1)
            else:
                block = self.matrix.extract(list(self.rows), list(self.cols))
                self._condition = det_sized(block)
        return self._condition


def matrix_at_point(M: sp.Matrix, sampler: _zero.PointSampler):
    """Evaluate every entry of ``M`` at one random point.

    Returns ``(values, exact)`` with values a list of lists of Fractions (exact) or
    mpmath numbers, or ``None`` if the point is a pole of some entry.

    Parameters
    ----------
    M : sympy.Matrix
        The symbolic matrix; multiple angles are expanded first so that sin, cos act on bare
        symbols and the Pythagorean relation holds at the point.
    sampler : jetgeo.geometry.zero.PointSampler
        Draws the point: rationals for symbols, rational points of the unit circle for
        (sin θ, cos θ), shared with the caller so that successive calls see fresh points.

    Returns
    -------
    tuple or None
        ``(values, exact, magnitudes)``: ``values`` a list of rows of ``fractions.Fraction`` when
        ``exact``, else of 60-digit sympy Floats (all of them, as soon as one entry has no rational
        value there), and then ``magnitudes`` the rows of each entry's
        :func:`~jetgeo.geometry.exact.zero.magnitude` at the point (the size of what cancels in it:
        a value below 10⁻³⁵ of it is rounding noise), else None; ``None`` when the point is a pole
        of some entry (the caller draws another).
    """
    prepared = M.applyfunc(expand_multiple_angles)
    atoms: set = set()
    syms: set = set()
    for e in prepared:
        atoms |= e.atoms(*_zero._TRIG)
        syms |= e.free_symbols
    angles = set()
    for e in prepared:
        angles |= _zero.angles_of(e)
    point = sampler.point(syms, angles)
    rep = _zero.substitution(point, atoms)
    vals = []
    exact = True
    for i in range(M.rows):
        row = []
        for j in range(M.cols):
            v = _zero.substitute(prepared[i, j], rep)
            if v.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
                return None
            if v.is_Rational:
                row.append(_zero.to_fraction(v))
            else:
                exact = False
                n = sp.N(v, _zero._PREC)
                if not n.is_number or n.has(sp.zoo, sp.nan):
                    return None
                row.append(n)
        vals.append(row)
    if exact:
        return vals, exact, None
    # an exact value has no rounding error: its own size is its magnitude
    mags = [[abs(sp.N(sp.Rational(v.numerator, v.denominator), _zero._PREC)) if isinstance(v, Fraction)
             else _zero.magnitude(prepared[i, j], rep) for j, v in enumerate(row)] for i, row in enumerate(vals)]
    vals = [[sp.N(sp.Rational(v.numerator, v.denominator), _zero._PREC) if isinstance(v, Fraction) else v
             for v in row] for row in vals]
    return vals, exact, mags


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
                row.append(2 + tree_size(e, cap=NORMALISE_MAX_NODES))
        out.append(row)
    return out


def _eliminate(vals, exact: bool, pref=None, mags=None):
    """Full-pivot Gaussian elimination: (rank, pivot rows, pivot cols).

    Among the non-zero candidates the pivot is the one with the lowest ``pref``
    (structural simplicity of the original entry), ties broken by magnitude.  In floating point
    (``exact`` False) an entry counts as zero when it is below 10⁻³⁵ of its own magnitude — the
    entry's :func:`~jetgeo.geometry.exact.zero.magnitude` (``mags``), carried through the elimination
    as |a_ij| + |f|·|a_pj| bounds are — never of the largest entry of the matrix: a row of
    size 10⁻⁴⁰⁰ (a factor exp(−y²)) is as regular as a row of size 1.
    """
    a = [list(r) for r in vals]
    nr = len(a)
    nc = len(a[0]) if nr else 0
    if exact:
        m = None
        rel = 0
    else:
        m = [list(r) for r in mags] if mags is not None else [[abs(x) for x in r] for r in a]
        rel = sp.Float("1e-35", _zero._PREC)
    rows_left = list(range(nr))
    cols_left = list(range(nc))
    prow, pcol = [], []
    while rows_left and cols_left:
        best, bi, bj = None, None, None
        for i in rows_left:
            for j in cols_left:
                v = abs(a[i][j])
                if v == 0 or (m is not None and v <= rel * m[i][j]):
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
                    if m is not None:
                        m[i][j] += abs(f) * m[bi][j]
    return len(prow), tuple(prow), tuple(pcol)


def generic_rank(M, trials: int = 2) -> RankInfo:
    """Generic rank of ``M`` with a non-singular pivot block.

    Parameters
    ----------
    M : sympy.Matrix
        The symbolic matrix.
    trials : int
        Random points at which the rank is evaluated.

    Returns
    -------
    RankInfo
        The rank, a pivot block (rows, cols) and its determinant ``condition``, valid where it is non-zero.

    Examples
    --------
    >>> import sympy as sp
    >>> x = sp.Symbol('x')
    >>> generic_rank(sp.Matrix([[x, 1], [x**2, x]])).rank
    1
    """
    M = as_matrix(M, "M")
    if M.rows == 0 or M.cols == 0:
        return RankInfo(0, (), (), "exact", M)
    pref = _preference(M)
    shadow = _generic_rank_mod(M, pref, trials)
    if shadow is not None:
        return shadow
    sampler = _zero.PointSampler()
    best = None
    attempts = 0
    done = 0
    while done < trials and attempts < 10 * trials:
        attempts += 1
        res = matrix_at_point(M, sampler)
        if res is None:
            continue
        vals, exact, mags = res
        r, rows, cols = _eliminate(vals, exact, pref, mags)
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


def _generic_rank_mod(M: sp.Matrix, pref: list | None, trials: int, zero: tuple = ()) -> RankInfo | None:
    """:func:`generic_rank` on shadow values in F_p (each shared subexpression evaluated once,
    no sympy substitution: 3 s → 0.1 s for the Whipple bicycle's 8 × 8 Hessian of expanded
    polynomials); ``None`` when an entry has atoms the shadows cannot evaluate or no point
    was defined — the caller samples rational points instead.  The symbols ``zero`` are 0 at
    every point (their cosine 1, their sine 0)."""
    best = None
    done = 0
    for trial in range(MAX_SHADOW_POINTS):
        rep: dict = {s: 0 for s in zero}
        angles: dict = {s: (1, 0) for s in zero}
        memo: dict = {}
        try:
            vals = [[mod_value(M[i, j], rep, angles, memo, trial) for j in range(M.cols)] for i in range(M.rows)]
        except NotRationalError:
            return None
        except ZeroDivisionError:  # a pole, or a radicand without a root in F_p: another point
            continue
        r, rows, cols = eliminate_mod(vals, pref)
        done += 1
        if best is None or r > best[0]:
            best = (r, tuple(sorted(rows)), tuple(sorted(cols)))
        if r == min(M.rows, M.cols) or done == trials:
            break
    if best is None:
        return None
    return RankInfo(best[0], best[1], best[2], "exact", M)


def generic_rank_dag(M: sp.Matrix, at_zero: Iterable = ()) -> int:
    """Generic rank of a matrix whose entries share large subexpressions (the unsimplified
    results of an LU solve): elimination over F_p at two random points, each shared
    subexpression evaluated once (:func:`~jetgeo.geometry.exact.shadow.mod_value`); the rank at a point
    never exceeds the generic rank and equals it with overwhelming probability.  Falls back
    to :func:`generic_rank` for entries it cannot evaluate (functions other than sin, cos of
    integer combinations of symbols; powers other than integers and halves, see
    :mod:`~jetgeo.geometry.exact.shadow`).  With ``at_zero`` it is the generic rank of M with those
    symbols set to 0 (a reference configuration: t = 0, q = 0), their values, sines and cosines
    fixed at every point instead of substituted into the entries (sympy's ``xreplace`` and the
    evaluation of cos 0, sin 0 were half of the choice of dependent velocities of the 4-trailer).

    Parameters
    ----------
    M : sympy.Matrix
        The matrix, entries possibly large unexpanded DAGs.
    at_zero : iterable of Symbol, optional
        Symbols set to 0.

    Returns
    -------
    int
        The generic rank: the largest rank over F_p (p = 2⁶¹ − 1) at the random points, a lower
        bound for the rank at almost every real point and equal to it with overwhelming probability
        [Schwartz 1980; Zippel 1979].

    Examples
    --------
    >>> th = sp.Symbol("theta")
    >>> generic_rank_dag(sp.Matrix([[sp.cos(th), sp.sin(th)], [sp.cos(th)**2, sp.sin(th) * sp.cos(th)]]))
    1
    """
    zero = tuple(at_zero)
    info = _generic_rank_mod(M, None, 2, zero)  # no pivot preference: the rank alone is wanted
    if info is not None:
        return info.rank
    return generic_rank(M.xreplace({s: 0 for s in zero}) if zero else M).rank
