r"""Exact linear algebra on expression DAGs: solve without simplifying, never multiply by zero.

Along a chain of bodies the entries of a constraint Jacobian are products of sums that share
subexpressions; an LU solve nests them.  sympy's ``Matrix.LUsolve`` handles such entries well
except in two places that walk the whole tree: the pivot test ``expr.is_zero`` (the assumptions
system, recursively through every ``Add``) and products with a zero entry (``0 * expr`` asks
``expr.is_finite``, recursively).  Here both are avoided:

* every entry carries an exact **shadow value** at a deterministic random point — its value
  in the field F_p, p = 2⁶¹ − 1 (sin θ, cos θ on a point of the unit circle over F_p, see
  :func:`mod_value`) — updated by the same arithmetic as the expression; a pivot is an entry
  whose shadow is non-zero, so it is non-zero as a function (the point proves it: a rational
  value that vanishes is 0 mod p) — no zero test on expressions at all;
* structurally zero entries are never stored, so nothing is multiplied by zero.

An entry whose shadow vanishes may still be a non-zero function; it is kept (never dropped)
and only not used as a pivot.  If no column has a non-zero shadow left the elimination is
repeated at a second point; if that fails too the matrix is (generically) singular and
:class:`~jetgeo.errors.RankDeficientError` is raised.

The results are exact, unsimplified and share subexpressions (what KanesMethod returns for
its dependent speeds); ``cancel`` them only when a canonical form is needed.

>>> import sympy as sp
>>> a, b, th = sp.symbols("a b theta")
>>> A = sp.Matrix([[0, sp.cos(th)], [a, sp.sin(th)]])
>>> x = lu_solve_dag(A, sp.Matrix([b, 1]))
>>> sp.simplify(A * x - sp.Matrix([b, 1]))
Matrix([
[0],
[0]])
"""

from __future__ import annotations

import random

import sympy as sp

from ..errors import RankDeficientError
from .coerce import as_matrix

__all__ = ["mod_value", "rank_mod", "lu_solve_dag", "tree_size", "NotRationalError"]


class NotRationalError(Exception):
    """An expression :func:`mod_value` cannot evaluate exactly (callers fall back)."""


PRIME = 2**61 - 1  # shadow values live in the field F_p


def mod_value(e, rep: dict, angles: dict, memo: dict, trial: int = 0) -> int:
    """The value of ``e`` in F_p, p = 2⁶¹ − 1, at a random point, visiting each shared
    subexpression once (sympy's xreplace and atoms walk the tree, exponential for the nested
    results of an LU solve).  Symbols take deterministic random values (seeded by name and
    ``trial``); sin θ, cos θ are a random point ((1−u²)/(1+u²), 2u/(1+u²)) of the unit circle
    over F_p, and sin, cos of integer combinations of angles (2θ, θ₁ − θ₂) the values the
    addition theorems give.  A non-zero value proves the function non-zero (a rational value
    that vanishes is 0 mod p).  Raises :class:`NotRationalError` for other functions and
    non-integer powers, ``ZeroDivisionError`` if a denominator vanishes there."""
    got = memo.get(e)
    if got is not None:
        return got
    if e.is_Rational:
        q = int(e.q) % PRIME
        if q == 0:
            raise ZeroDivisionError
        v = int(e.p) * pow(q, -1, PRIME) % PRIME
    elif e.is_Symbol:
        if e not in rep:
            rep[e] = random.Random(f"{e.name}:{trial}:mod").randrange(2, PRIME)
        v = rep[e]
    elif e.is_Add:
        v = sum(mod_value(a, rep, angles, memo, trial) for a in e.args) % PRIME
    elif e.is_Mul:
        v = 1
        for a in e.args:
            v = v * mod_value(a, rep, angles, memo, trial) % PRIME
    elif e.is_Pow and e.exp.is_Integer:
        b = mod_value(e.base, rep, angles, memo, trial)
        if b == 0 and e.exp < 0:
            raise ZeroDivisionError
        v = pow(b, int(e.exp), PRIME)
    elif isinstance(e, (sp.sin, sp.cos)):
        terms = e.args[0].as_coefficients_dict()
        c, s_ = 1, 0
        for th, k in terms.items():
            if not (th.is_Symbol and k.is_Integer):
                raise NotRationalError(e)
            if th not in angles:
                u = random.Random(f"angle {th.name}:{trial}:mod").randrange(1, PRIME)
                den = pow((1 + u * u) % PRIME, -1, PRIME)  # 1 + u² ≠ 0: −1 is not a square mod p
                angles[th] = ((1 - u * u) * den % PRIME, 2 * u * den % PRIME)
            c1, s1 = angles[th]
            if k < 0:
                s1 = -s1 % PRIME
            for _ in range(abs(int(k))):
                c, s_ = (c * c1 - s_ * s1) % PRIME, (c * s1 + s_ * c1) % PRIME
        v = s_ if isinstance(e, sp.sin) else c
    else:
        raise NotRationalError(e)
    memo[e] = v
    return v


def tree_size(e, memo: dict | None = None) -> int:
    """Number of nodes of ``e`` as a tree (what printing, ``count_ops`` and ``evalf`` walk),
    computed on the DAG in time linear in the number of *distinct* subexpressions — the nested
    results of an LU solve can be small DAGs and astronomically large trees."""
    memo = {} if memo is None else memo
    got = memo.get(e)
    if got is None:
        got = 1 + sum(tree_size(a, memo) for a in e.args)
        memo[e] = got
    return got


def rank_mod(vals: list) -> int:
    """Rank over F_p of a matrix of residues (Gaussian elimination): a lower bound for the
    rank over ℚ of the matrix it reduces, which it equals unless p divides a minor."""
    a = [list(r) for r in vals]
    rank = 0
    cols = len(a[0]) if a else 0
    rows_left = list(range(len(a)))
    for c in range(cols):
        piv = next((i for i in rows_left if a[i][c]), None)
        if piv is None:
            continue
        rows_left.remove(piv)
        rank += 1
        inv = pow(a[piv][c], -1, PRIME)
        for i in rows_left:
            if a[i][c]:
                f = a[i][c] * inv % PRIME
                a[i] = [(x - f * y) % PRIME for x, y in zip(a[i], a[piv])]
    return rank


def _eliminate_at(A: sp.Matrix, B: sp.Matrix, trial: int) -> sp.Matrix | None:
    """Gaussian elimination on sparse rows with shadow values at point ``trial``; None if no
    pivot with a non-zero shadow is left in some column."""
    n, nb = A.rows, B.cols
    rep: dict = {}
    angles: dict = {}
    memo: dict = {}

    def val(e):
        return mod_value(e, rep, angles, memo, trial)

    # row i: {column: (expr, shadow)}; columns n … n+nb−1 are the right-hand sides
    rows = []
    for i in range(n):
        r = {}
        for j in range(n):
            e = A[i, j]
            if e != 0:
                r[j] = (e, val(e))
        for j in range(nb):
            e = B[i, j]
            if e != 0:
                r[n + j] = (e, val(e))
        rows.append(r)
    free = set(range(n))
    order = []  # (pivot row, pivot column)
    for c in range(n):
        cand = [i for i in free if c in rows[i] and rows[i][c][1] != 0]
        if not cand:
            return None
        p = min(cand, key=lambda i: (len(rows[i]), i))  # the sparsest pivot row (Markowitz)
        free.discard(p)
        order.append((p, c))
        pe, pv = rows[p][c]
        for i in free:
            entry = rows[i].pop(c, None)
            if entry is None:
                continue
            fe, fv = entry
            factor = fe / pe
            factor_v = fv * pow(pv, -1, PRIME) % PRIME
            for j, (ee, ev) in rows[p].items():
                if j == c:
                    continue
                old = rows[i].get(j)
                prod = factor * ee
                rows[i][j] = ((old[0] - prod, (old[1] - factor_v * ev) % PRIME) if old
                              else (-prod, -factor_v * ev % PRIME))
    x = [[sp.S.Zero] * nb for _ in range(n)]
    for p, c in reversed(order):
        pe = rows[p][c][0]
        for b in range(nb):
            terms = []
            rhs = rows[p].get(n + b)
            if rhs is not None:
                terms.append(rhs[0])
            for j, (ee, _) in rows[p].items():
                if j < n and j != c and x[j][b] != 0:
                    terms.append(-ee * x[j][b])
            x[c][b] = sp.Add(*terms) / pe if terms else sp.S.Zero
    return sp.Matrix(x)


def lu_solve_dag(A: sp.Matrix, B: sp.Matrix) -> sp.Matrix:
    """X with A X = B, A square and generically invertible (see the module docstring).

    Pivots are chosen by exact values in F_p at a random point (never by a symbolic zero
    test), rows are sparse (zero entries never multiplied).  Entries :func:`mod_value`
    cannot evaluate (exp, sqrt, …) fall back to sympy's ``LUsolve``.  Raises
    :class:`~jetgeo.errors.RankDeficientError` if A is singular at two random points."""
    A = as_matrix(A, "A")
    B = as_matrix(B, "B")
    if A.rows != A.cols or B.rows != A.rows:
        raise ValueError(f"lu_solve_dag: shapes {A.shape}, {B.shape}")
    for trial in range(2):
        try:
            X = _eliminate_at(A, B, trial)
        except NotRationalError:
            return A.LUsolve(B)
        except ZeroDivisionError:  # an entry undefined at this point: try the next one
            continue
        if X is not None:
            return X
    raise RankDeficientError(f"lu_solve_dag: the {A.rows} × {A.cols} matrix is singular at two random points")
