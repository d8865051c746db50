r"""Equations affine in a set of unknowns, and substitution on expression DAGs.

Every recipe ends with a square system of equations affine in the accelerations (or
quasi-accelerations, multipliers): Lagrange's with multipliers, Gibbs–Appell, Maggi, Chaplygin,
Voronets, Hamel, Ghori.  :func:`solve_affine` is the one solver they share.  With
M = ∂eqs/∂u and b = −eqs|_{u=0}, so that the equations read M u = b,

* the generic rank of M is decided by exact values in F_p (:func:`~.rank.generic_rank_dag`);
  a rank drop raises :class:`~jetgeo.errors.NotRegularError` naming the equations;
* small systems (at most :data:`~.size.AFFINE_CANONICAL_MAX_NODES` tree nodes) are solved in
  cancelled form — Cramer's rule in a polynomial ring (:func:`solve_cramer`), else Gauss–Jordan
  in the fraction field (:func:`~.solve.solve_field`);
* larger ones by LU on the expression DAG (:func:`~.solve.lu_solve_dag`): exact, unexpanded,
  never cancelled — a canonical form of the Voronets equations of a 4-trailer takes minutes
  to compute and pages to print, the DAG a fraction of a second;
* the condition det M ≠ 0 under which the solution holds is returned with it (:func:`det_sized`:
  expanded and cancelled when small, else the unexpanded product of the DAG pivots).

:func:`xreplace_dag` substitutes into unexpanded results visiting each *distinct*
subexpression once (sympy's ``xreplace`` walks the tree, exponentially larger than the DAG).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import sympy as sp

from ...errors import InputError, NotRegularError
from ..coerce import as_expr, as_matrix
from .dag import free_symbols_dag, xreplace_dag
from .fraction_free import _fraction_free_jordan, _to_ring, det_sized
from .normal import normalise_if_small
from .rank import generic_rank_dag
from .size import (
    AFFINE_CANONICAL_MAX_NODES,
    CRAMER_GCD_MAX_TERMS,
    FRACTION_FREE_MAX_TERMS,
    tree_size,
)
from .solve import lu_solve_dag
from .trig import trig_reduce

__all__ = ["affine_system", "AffineSolution", "SquareSolution", "solve_square", "solve_affine", "solve_cramer",
           "solve_exact", "det_sized", "diff_dag", "gradient_dag", "depends_on",
           "free_symbols_dag", "xreplace_dag", "matmul_dag"]


def matmul_dag(A, B) -> sp.Matrix:
    """A·B entry by entry, Σ_k A_ik B_kj over the non-zero products only (the terms of an entry
    are summed once, with sympy's constructors).  sympy's matrix product in the EXRAW domain
    tests ``0 * B_kj != 0`` for every zero of A, and ``0 * e`` asks ``e.is_finite``, an
    assumption query that walks the tree of an unexpanded DAG (11 of 30 s of Benenti's second
    kind on the Whipple bicycle).

    Parameters
    ----------
    A : sympy.Matrix or nested list
        The left factor, m × k; its entries may be unexpanded DAGs.
    B : sympy.Matrix or nested list
        The right factor, k × n.

    Returns
    -------
    sympy.Matrix
        The m × n product, each entry the sum of the products A_ik B_kj with both factors non-zero
        (structurally), formed once — nothing is expanded or cancelled.

    Raises
    ------
    jetgeo.errors.InputError
        If the number of columns of ``A`` differs from the number of rows of ``B``.

    Examples
    --------
    >>> x, y = sp.symbols("x y")
    >>> matmul_dag(sp.Matrix([[1, 0], [x, 2]]), sp.Matrix([[y], [x + y]]))
    Matrix([
    [            y],
    [x*y + 2*x + 2*y]])
    """
    A, B = sp.Matrix(A), sp.Matrix(B)
    if A.cols != B.rows:
        raise InputError(f"matmul_dag: shapes {A.shape} and {B.shape} do not match")
    rows = [[(k, a) for k, a in enumerate(A.row(i)) if a != 0] for i in range(A.rows)]
    cols = [{k: b for k, b in enumerate(B.col(j)) if b != 0} for j in range(B.cols)]
    return sp.Matrix(A.rows, B.cols, lambda i, j: sp.Add(*[a * cols[j][k] for k, a in rows[i] if k in cols[j]]))


def diff_dag(expr, x, memo: dict | None = None) -> sp.Expr:
    """∂expr/∂x visiting each *distinct* subexpression once (sympy's ``diff`` walks the tree).

    The chain rule node by node — sums, products, powers, functions (``fdiff``) — with the
    derivative of every visited node remembered in ``memo`` (one dict per variable ``x``; pass it
    to several calls to share the work).  Exact and unexpanded: the same function as
    ``sp.diff(expr, x)``, not always the same expression.  Nodes of another kind (derivatives,
    piecewise, …) are handed to ``sp.diff``.

    ``x`` may also be a dict {symbol: its rate}: the derivative along that direction,
    Σ rate·∂expr/∂symbol, in one pass (e.g. the total derivative cut before the accelerations,
    {t: 1, q: q̇}; one memo per direction).

    Parameters
    ----------
    expr : sympy expression
        The expression.
    x : Symbol or dict
        The variable, or a direction {symbol: rate}.
    memo : dict, optional
        Derivatives of visited nodes (one per variable or direction).

    Returns
    -------
    sympy.Expr
        The derivative, unexpanded.

    Examples
    --------
    >>> x, y = sp.symbols("x y")
    >>> diff_dag(sp.sin(x * y) + x**3, x)
    3*x**2 + y*cos(x*y)
    >>> diff_dag(x * y, {x: 1, y: 2})
    2*x + y
    """
    memo = {} if memo is None else memo  # by identity, as in xreplace_dag
    zero = sp.S.Zero
    seed = {k: as_expr(v) for k, v in x.items()} if isinstance(x, dict) else {x: sp.S.One}

    def d(e):
        got = memo.get(id(e))
        if got is not None and got[0] is e:
            return got[1]
        if e.is_Atom:
            out = seed.get(e, zero)
        elif e.is_Add:
            out = sp.Add(*[d(a) for a in e.args])
        elif e.is_Mul:
            args = e.args
            terms = []
            for i, a in enumerate(args):
                da = d(a)
                if da != 0:
                    terms.append(sp.Mul(*args[:i], da, *args[i + 1:]))
            out = sp.Add(*terms)
        elif e.is_Pow:
            base, ex = e.args
            db, de = d(base), d(ex)
            out = zero
            if db != 0:
                out = ex * base ** (ex - 1) * db
            if de != 0:
                out = out + e * sp.log(base) * de
        elif isinstance(e, sp.Function) and not isinstance(e, (sp.Derivative, sp.Subs)):
            terms = []
            for i, a in enumerate(e.args):
                da = d(a)
                if da != 0:
                    terms.append(e.fdiff(i + 1) * da)
            out = sp.Add(*terms)
        else:
            out = sp.Add(*[r * sp.diff(e, k) for k, r in seed.items()])
        memo[id(e)] = (e, out)
        return out

    return d(as_expr(expr))


def gradient_dag(expr, variables, memo: dict | None = None) -> dict:
    """{x: ∂expr/∂x} over the ``variables`` with a non-zero derivative, in one walk of the DAG.

    The expressions :func:`diff_dag` gives variable by variable — the same rule at every node
    (sums, products, powers, functions by ``fdiff``, ``sp.diff`` for other nodes) — but no node is
    visited once per variable and no sum of zero derivatives is formed (most nodes of a velocity
    or a constraint depend on few velocities).  The partial velocities ∂w/∂q̇ of the bodies
    (:mod:`jetgeo.mechanics.bodies_el`) and the constraint Jacobian ∂f/∂q̇ on the DAG
    (:class:`~jetgeo.mechanics.ConstraintSubmanifold`) are gradients.

    Parameters
    ----------
    expr : sympy expression
        The expression.
    variables : collection of Symbol
        The variables (a set or frozenset: membership is asked at every atom).
    memo : dict, optional
        The gradients of visited nodes, by identity (pass the same dict to several calls over the
        same variables to share the work).

    Returns
    -------
    dict
        {variable: derivative} for the variables whose derivative is not the number 0 (unexpanded).

    Examples
    --------
    >>> x, y, z = sp.symbols("x y z")
    >>> gradient_dag(x * sp.sin(y) + z, {x, y})
    {x: sin(y), y: x*cos(y)}
    """
    memo = {} if memo is None else memo
    return _gradient(as_expr(expr), variables, memo)


def _gradient(e, variables, memo: dict) -> dict:
    got = memo.get(id(e))
    if got is not None and got[0] is e:
        return got[1]
    out: dict = {}
    if e.is_Atom:
        if e in variables:
            out = {e: sp.S.One}
    elif e.is_Add:
        parts: dict = {}
        for a in e.args:
            for v, da in _gradient(a, variables, memo).items():
                parts.setdefault(v, []).append(da)
        out = {v: sp.Add(*ds) for v, ds in parts.items()}
    elif e.is_Mul:
        args = e.args
        parts = {}
        for i, a in enumerate(args):
            for v, da in _gradient(a, variables, memo).items():
                parts.setdefault(v, []).append(sp.Mul(*args[:i], da, *args[i + 1:]))
        out = {v: sp.Add(*ts) for v, ts in parts.items()}
    elif e.is_Pow:
        base, ex = e.args
        gb, ge = _gradient(base, variables, memo), _gradient(ex, variables, memo)
        for v in {*gb, *ge}:
            dv = sp.S.Zero
            if v in gb:
                dv = ex * base ** (ex - 1) * gb[v]
            if v in ge:
                dv = dv + e * sp.log(base) * ge[v]
            out[v] = dv
    elif isinstance(e, sp.Function) and not isinstance(e, (sp.Derivative, sp.Subs)):
        parts = {}
        for i, a in enumerate(e.args):
            ga = _gradient(a, variables, memo)
            if ga:
                f_i = e.fdiff(i + 1)
                for v, da in ga.items():
                    parts.setdefault(v, []).append(f_i * da)
        out = {v: sp.Add(*ts) for v, ts in parts.items()}
    else:
        out = {v: sp.diff(e, v) for v in variables}
    out = {v: d for v, d in out.items() if d != 0}
    memo[id(e)] = (e, out)
    return out


def solve_cramer(A: sp.Matrix, B: sp.Matrix, max_terms: int | None = FRACTION_FREE_MAX_TERMS,
                 function_denominators: bool = False) -> sp.Matrix | None:
    r"""X with A X = B (A square, generically invertible — the caller checks), each entry one
    fraction of polynomials: Cramer's rule

    .. math:: X_{ic} = \det A^{(i \leftarrow B_c)} / \det A,

    computed by *one* fraction-free Gauss–Jordan elimination of [A | B] in a polynomial ring
    (every division exact, no gcd; at the end the left block is det A · I and the right block
    det A · X), then one gcd per entry to cancel (when the two are small enough:
    :data:`~.size.CRAMER_GCD_MAX_TERMS`).  Sines, cosines and other function atoms are
    independent generators (an identity in the larger ring, valid after sin² + cos² = 1 is
    imposed since det A is not the zero function); rows with denominators are first multiplied
    by them.  A fraction-field elimination takes a gcd at every step: on the reduced equations
    of a ball with three distinct moments it ran for minutes, this takes 0.2 s.

    The elimination stops and ``None`` is returned as soon as an intermediate polynomial has more
    than ``max_terms`` terms (:data:`~.size.FRACTION_FREE_MAX_TERMS`; ``None``: no bound): the
    canonical form is then too large to be worth having (the 7 × 7 mass matrix of a 4-trailer:
    minutes), and the caller keeps the unexpanded DAG.  ``None`` also when the entries do not
    fit a polynomial domain (:func:`~.freeze.polynomial_fractions`; with
    ``function_denominators`` function atoms in denominators are accepted, :func:`~.freeze.
    fits_polynomial_domain` — converting them expands the rows, 8 s for an articulated vehicle's
    reduced equations, which is why it is not the default).

    Parameters
    ----------
    A : sympy.Matrix
        The square coefficient matrix, generically invertible (not checked here).
    B : sympy.Matrix
        The right-hand sides, one column each (as many rows as A).
    max_terms : int or None, default 1000
        Give up (return ``None``) once an intermediate polynomial of the elimination has more terms;
        ``None``: no bound.
    function_denominators : bool, default False
        Accept function atoms (sin θ, …) inside denominators of the entries (cleared by multiplying
        the rows, which expands them).

    Returns
    -------
    sympy.Matrix or None
        X, each entry det A^(i←B_c) / det A as one cancelled (when the gcd is affordable) fraction of
        expanded polynomials; ``None`` when the entries do not fit a polynomial domain or an
        intermediate grows beyond ``max_terms``.

    Examples
    --------
    >>> solve_cramer(sp.Matrix([[1, 2], [3, 4]]), sp.Matrix([5, 6])).T
    Matrix([[-4, 9/2]])
    """
    ring = _to_ring(A.row_join(B), function_denominators)
    if ring is None:
        return None
    rows, K, back, _dens = ring
    n = A.rows
    try:
        got = _fraction_free_jordan(rows, n, K, max_terms)
        if got is None:
            return None
        det, rows = got
        poly = K.is_PolynomialRing
        out = sp.zeros(n, B.cols)
        for i in range(n):
            for c in range(B.cols):
                num = rows[i][n + c]
                if not num:
                    continue
                if not poly:  # numbers: sympy's Rational cancels
                    p, q = num, det
                elif len(num) * len(det) > CRAMER_GCD_MAX_TERMS:
                    p, q = num, det  # exact, not in lowest terms: the gcd itself would stall
                else:
                    _, p, q = K.cofactors(num, det)
                if poly and K.domain.is_negative(q.LC):
                    p, q = -p, -q
                out[i, c] = K.to_sympy(p) / K.to_sympy(q)
    except (sp.PolynomialError, sp.CoercionFailed, NotImplementedError, ValueError, TypeError):
        return None
    return out.xreplace(back) if back else out


def depends_on(exprs, symbols) -> bool:
    """Whether some expression of ``exprs`` contains one of ``symbols`` (a walk over the DAG,
    each shared subexpression once; sympy's ``has`` walks the tree).

    Parameters
    ----------
    exprs : iterable of sympy expressions
        The expressions.
    symbols : iterable of Symbol
        The symbols looked for.

    Returns
    -------
    bool
        Whether one of them occurs.
    """
    symbols = set(symbols)
    seen: set = set()
    stack = list(exprs)
    while stack:
        e = stack.pop()
        if e in seen:
            continue
        seen.add(e)
        if e.is_Symbol and e in symbols:
            return True
        stack.extend(e.args)
    return False


def solve_exact(A, B) -> sp.Matrix:
    """X with A X = B, exact: in canonical form (cancelled fractions) when A and B are small —
    at most :data:`~.size.AFFINE_CANONICAL_MAX_NODES` tree nodes and no intermediate polynomial of
    Cramer's rule beyond :data:`~.size.FRACTION_FREE_MAX_TERMS` terms (:func:`solve_cramer`) — else the
    unexpanded :func:`~.solve.lu_solve_dag`.  Raises :class:`~jetgeo.errors.RankDeficientError`
    if A is singular at two random points.

    Parameters
    ----------
    A : sympy.Matrix
        The square coefficient matrix.
    B : sympy.Matrix
        The right-hand side(s).

    Returns
    -------
    sympy.Matrix
        X, with A X = B where det A ≠ 0.

    Examples
    --------
    >>> th = sp.Symbol("theta")
    >>> solve_exact(sp.Matrix([[sp.cos(th), -sp.sin(th)], [sp.sin(th), sp.cos(th)]]), sp.Matrix([1, 0])).T
    Matrix([[cos(theta)/(sin(theta)**2 + cos(theta)**2), -sin(theta)/(sin(theta)**2 + cos(theta)**2)]])
    """
    A, B = sp.Matrix(A), sp.Matrix(B)
    memo: dict = {}
    if sum(tree_size(e, memo) for e in (*A, *B)) <= AFFINE_CANONICAL_MAX_NODES:
        X = solve_cramer(A, B, function_denominators=True)
        if X is not None:
            return X
    return lu_solve_dag(A, B)


@dataclass(frozen=True)
class SquareSolution:
    """X with M X = B (M square): ``X`` exact, valid where ``det`` = det M is non-zero;
    ``canonical`` tells whether the entries are cancelled fractions or unexpanded DAGs.

    Attributes
    ----------
    X : sympy.Matrix
        The solution of M X = B, one column per column of B.
    det : sympy.Expr
        det M (its numerator, factored, when ``canonical``); X is valid where it is non-zero.
    canonical : bool
        True when the entries of X are cancelled fractions (Cramer's rule in a polynomial ring,
        :func:`solve_cramer`), False when they are unexpanded DAGs (:func:`~.solve.lu_solve_dag`).
    """

    X: sp.Matrix
    det: sp.Expr
    canonical: bool


def solve_square(M, B, what: str, unknowns: Sequence | None = None) -> SquareSolution:
    """X with M X = B for a square M: generic rank proven full by F_p shadows (else
    :class:`~jetgeo.errors.NotRegularError` naming ``what``), then the solve of
    :func:`solve_exact` (cancelled when small, entries of M reduced modulo sin² + cos² = 1 first;
    an unexpanded DAG when large), with det M (:func:`det_sized`; its numerator when small).

    Parameters
    ----------
    M : sympy.Matrix
        The square matrix.
    B : sympy.Matrix
        The right-hand side(s).
    what : str
        Names the system in the error message.
    unknowns : sequence of Symbols, optional
        Names of the unknowns, for the error message.

    Returns
    -------
    SquareSolution
        X, det M and whether X is in canonical form.

    Examples
    --------
    >>> a = sp.Symbol("a")
    >>> solve_square(sp.Matrix([[a, 1], [1, -1]]), sp.Matrix([1, 0]), "example").X.T
    Matrix([[1/(a + 1), 1/(a + 1)]])
    """
    M, B = as_matrix(M, "M"), as_matrix(B, "B")
    rank = generic_rank_dag(M)
    if rank < M.cols:
        of = f"of ({', '.join(map(str, unknowns))}) " if unknowns is not None else ""
        raise NotRegularError(f"{what}: the {M.rows} × {M.cols} coefficient matrix {of}has generic rank {rank} < "
                              f"{M.cols}; the equations do not determine the unknowns")
    memo: dict = {}
    if sum(tree_size(e, memo) for e in (*M, *B)) <= AFFINE_CANONICAL_MAX_NODES:
        Mr = M.applyfunc(trig_reduce)
        X = solve_cramer(Mr, B, function_denominators=True)
        if X is not None:
            # the condition: the numerator of det M (its zero set; the poles are those of the entries)
            return SquareSolution(X, sp.factor_terms(sp.numer(det_sized(Mr))), True)
    X = lu_solve_dag(M, B).applyfunc(normalise_if_small)
    return SquareSolution(X, det_sized(M), False)


@dataclass(frozen=True)
class AffineSolution:
    """The solution of equations affine in ``unknowns``: ``values`` {unknown: expression},
    valid where ``det`` (the determinant of the coefficient matrix) is non-zero; ``canonical``
    tells whether the values are cancelled fractions or unexpanded DAGs.

    Attributes
    ----------
    values : dict
        {unknown: expression}: the solution of the affine equations, each value exact.
    det : sympy.Expr
        The determinant of the coefficient matrix of the unknowns (its numerator when the solution
        is canonical); the solution holds where ``det ≠ 0`` — the regularity condition of the
        equations, e.g. for the reduced equations of motion the condition of
        [Stolařová 2009, eq. (12)].
    canonical : bool
        True when every value is one cancelled fraction of expanded polynomials; False when it is
        an unexpanded DAG (exact, shared subexpressions) of :func:`~.solve.lu_solve_dag`.
    """

    values: dict
    det: sp.Expr
    canonical: bool

    def __iter__(self):  # ``values, det = solve_affine(...)``
        return iter((self.values, self.det))


def affine_system(eqs: Sequence, unknowns: Sequence,
                  jacobian: sp.Matrix | None = None) -> tuple[sp.Matrix, sp.Matrix] | None:
    """``(M, b)`` with eqs = M u − b when the equations are affine in the unknowns u, else None.

    M = ∂eqs/∂u is computed on the expression DAG (each shared subexpression differentiated once),
    or taken from ``jacobian`` when the caller already has it; the equations are affine exactly
    when M does not depend on u, and then b = −eqs|_{u=0} (substituted on the DAG, no expansion).

    Parameters
    ----------
    eqs : sequence of sympy expressions
        The equations eqs = 0.
    unknowns : sequence of sympy symbols
        The unknowns u.
    jacobian : sympy.Matrix, optional
        ∂eqs/∂u, if known.

    Returns
    -------
    tuple of sympy.Matrix or None
        ``(M, b)`` (M of shape len(eqs) × len(unknowns), b a column), or None if some equation is
        not affine in the unknowns.

    Examples
    --------
    >>> x, y, a = sp.symbols("x y a")
    >>> affine_system([a * x + y - 1, x - y], [x, y])
    (Matrix([
    [a,  1],
    [1, -1]]), Matrix([
    [1],
    [0]]))
    >>> affine_system([x * y - 1], [x, y]) is None
    True
    """
    eqs = [as_expr(e) for e in eqs]
    unknowns = list(unknowns)
    if jacobian is None:
        memos = [{} for _ in unknowns]  # one derivative memo per unknown, shared by the equations
        M = sp.Matrix(len(eqs), len(unknowns), lambda r, c: diff_dag(eqs[r], unknowns[c], memos[c]))
    else:
        M = sp.Matrix(jacobian)
    if depends_on(list(M), set(unknowns)):
        return None
    zero = {u: sp.Integer(0) for u in unknowns}
    memo: dict = {}
    b = sp.Matrix(len(eqs), 1, [-xreplace_dag(e, zero, memo) for e in eqs])
    return M, b


def solve_affine(eqs: Sequence, unknowns: Sequence, what: str) -> AffineSolution:
    """Solve ``eqs`` (affine in ``unknowns``, as many as unknowns) exactly; see the module
    docstring and :func:`solve_square`.  Raises :class:`~jetgeo.errors.NotRegularError` naming
    ``what`` when the equations are not affine in the unknowns or do not determine them
    (generic rank of ∂eqs/∂unknowns proven deficient at two random points).

    Parameters
    ----------
    eqs : sequence of sympy expressions
        The equations eqs = 0, affine in the unknowns.
    unknowns : sequence of Symbols
        As many as equations.
    what : str
        Names the system in the error message.

    Returns
    -------
    AffineSolution
        ``values`` {unknown: expression}, ``det`` of the coefficient matrix and ``canonical``;
        ``values, det = solve_affine(...)`` unpacks it.

    Examples
    --------
    >>> x, y, a = sp.symbols("x y a")
    >>> sol, det = solve_affine([a * x + y - 1, x - y], [x, y], "example")
    >>> sol[x], det
    (1/(a + 1), -(a + 1))
    """
    unknowns = list(unknowns)
    system = affine_system(eqs, unknowns)
    if system is None:
        raise NotRegularError(f"{what}: the equations are not affine in {unknowns}")
    M, b = system
    res = solve_square(M, b, what, unknowns)
    return AffineSolution(dict(zip(unknowns, res.X)), res.det, res.canonical)
