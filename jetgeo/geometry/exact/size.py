r"""The one measure of expression size, and the thresholds that use it.

The size of an expression is the number of nodes of its *tree* — what printing, ``count_ops``,
``expand`` and ``evalf`` walk.  The unsimplified results of an exact solve share their
subexpressions (a DAG), so their trees can be astronomically larger than their DAGs;
:func:`tree_size` counts the tree on the DAG, visiting each distinct subexpression once, and
stops early once a ``cap`` is exceeded.  Every "is this expression small enough to normalise /
expand / bound exactly" decision in jetgeo compares this measure with one of the named
constants below.
"""

from __future__ import annotations

from sympy import Basic

from ..coerce import as_expr

__all__ = [
    "tree_size",
    "is_small",
    "describe",
    "within_ops",
    "PRINT_MAX_NODES",
    "NORMALISE_MAX_NODES",
    "TIDY_MAX_NODES",
    "EXPAND_MAX_NODES",
    "BOUND_EXACT_MAX_NODES",
    "EXACT_SAMPLE_MAX_NODES",
    "CANONICAL_MAX_NODES",
    "AFFINE_CANONICAL_MAX_NODES",
    "CRAMER_GCD_MAX_TERMS",
    "FRACTION_FREE_MAX_TERMS",
    "FRACTION_FREE_MAX_WORK",
    "CSE_PREPROCESS_MAX_NODES",
]

#: Above this many tree nodes an expression is not passed through ``cancel``/``together``
#: (:func:`jetgeo.geometry.zero.normalise_if_small`, the differences of
#: :func:`jetgeo.recipes.equivalent`, sample values of the catalogue): ``cancel`` of large
#: trigonometric results costs seconds and rarely shrinks them, and the zero test evaluates
#: them exactly at random points instead (measured: 25 of 37 s of an equivalence check on the
#: heavy disc went into such ``cancel`` calls).
NORMALISE_MAX_NODES = 400

#: Above this many tree nodes a *trigonometric* acceleration of the canonical route is left
#: unnormalised (``ConstrainedSystem``'s tidy step): smaller than
#: :data:`NORMALISE_MAX_NODES` because ``cancel`` with sin/cos generators is the costliest case.
TIDY_MAX_NODES = 300

#: Above this many tree nodes the zero test skips its first tier (``expand``) and goes straight
#: to exact evaluation at random points (measured: ``expand`` took 33 s on Appell's machine).
EXPAND_MAX_NODES = 600

#: Above this many tree nodes the zero test bounds its failure probability with degrees
#: bounded on the tree (no ``Poly``/``expand``), a coarser but valid Schwartz–Zippel bound.
BOUND_EXACT_MAX_NODES = 400

#: Above this many tree nodes (summed over a sample's velocities) exact sample values of the
#: catalogue are replaced by 60-digit floats: an exact rational of that size makes every later
#: evaluation slow without making it more trustworthy.
EXACT_SAMPLE_MAX_NODES = 4000

#: Above this many tree nodes a result of the canonical route *without* trigonometric functions
#: is left unnormalised (rational functions: ``cancel`` is cheaper than with sin/cos generators,
#: but on the nested DAG of a long chain of bodies it still stalls).  With trigonometric
#: functions :data:`TIDY_MAX_NODES` applies.
CANONICAL_MAX_NODES = 1500

#: A square system affine in its unknowns (the reduced equations on Q, every recipe's final
#: solve: :func:`~jetgeo.geometry.exact.affine.solve_affine`) of at most this many tree nodes in
#: its coefficients and right-hand sides is solved in cancelled form; a larger one by LU on the
#: expression DAG (measured: the Voronets equations of a 4-trailer, ~10⁵ nodes, spent minutes in
#: the cancellation of their coefficients alone).
AFFINE_CANONICAL_MAX_NODES = 4000

#: Cramer's rule (:func:`~jetgeo.geometry.exact.affine.solve_cramer`) cancels det A_i / det A by a
#: gcd only when the product of their numbers of terms is at most this (measured: 166 × 26 terms
#: 0.07 s; 1701 × 301 terms, an articulated vehicle's reduced equations, > 60 s in sympy's
#: heuristic gcd).
CRAMER_GCD_MAX_TERMS = 20000

#: Cramer's rule by fraction-free elimination gives up (and the caller keeps the unexpanded DAG)
#: once an intermediate polynomial has more than this many terms: the canonical form would be
#: too large to be worth having (measured: the 7 × 7 mass matrix of a 4-trailer with its
#: constraint and force columns: 200 s as a canonical solve; with this bound it gives up after
#: 1 s, while the 3-trailer (6 × 6, at most ~500 terms) is still solved in canonical form in 2 s).
FRACTION_FREE_MAX_TERMS = 1000

#: ... and once the term products it has formed (Σ terms(p)·terms(q) over its multiplications, a
#: measure of its cost) exceed this: a 15 × 15 system of small entries can stay under the term
#: bound while its elimination runs for a quarter of a minute (the multipliers recipe of a
#: 6-trailer).
FRACTION_FREE_MAX_WORK = 3_000_000

#: Above this many tree nodes (summed over the expressions) ``sympy.cse`` runs without its
#: "basic" pre-processing (``factor_terms`` of every expression, a walk over the *tree*): on the
#: unexpanded DAG accelerations of a 4-trailer that walk took 25 of the 26 s of ``simulate``.
CSE_PREPROCESS_MAX_NODES = 20000


#: Above this many tree nodes an expression is not printed into a message (:func:`describe`):
#: ``str`` walks the tree, and the unsimplified determinant of the Whipple bicycle's reduced
#: equations took 74 s to print into a validity condition nobody reads whole.
PRINT_MAX_NODES = 2000


def tree_size(e, memo: dict | None = None, cap: int | None = None) -> int:
    """Number of nodes of ``e`` as a tree, computed on the DAG in time linear in the number of
    *distinct* subexpressions.  With ``cap`` the count stops as soon as it exceeds ``cap`` and
    returns ``cap + 1`` (cost at most linear in ``cap`` distinct nodes); ``memo`` (exact counts
    of subexpressions) may be shared between calls.

    >>> import sympy as sp
    >>> x = sp.Symbol("x")
    >>> tree_size(x + 2 * x**2)        # Add(x, Mul(2, Pow(x, 2))): 7 nodes
    7
    """
    memo = {} if memo is None else memo
    limit = None if cap is None else cap + 1

    def walk(node) -> int:
        got = memo.get(node)
        if got is not None:
            return got
        total = 1
        for a in node.args:
            total += walk(a)
            if limit is not None and total >= limit:
                return limit  # capped: not memoised (not the exact count)
        memo[node] = total
        return total

    out = walk(as_expr(e))
    return out if limit is None else min(out, limit)


def is_small(e, cap: int = NORMALISE_MAX_NODES) -> bool:
    """``tree_size(e) <= cap``, computed with the early stop."""
    return tree_size(e, cap=cap) <= cap


def within_ops(e, max_ops: int) -> bool:
    """``count_ops(e) <= max_ops`` for display and bookkeeping decisions, without walking a large
    tree: expressions of more than 4·max_ops tree nodes count as larger (sympy's ``count_ops``
    walks the tree — minutes on the unexpanded DAG of a solve — and the operations of a tree
    are rarely fewer than a quarter of its nodes)."""
    from sympy import count_ops

    if tree_size(e, cap=4 * max_ops) > 4 * max_ops:
        return False
    return count_ops(e) <= max_ops


def describe(e, limit: int = 60) -> str:
    """``str(e)`` cut to ``limit`` characters for messages — or, for an expression of more than
    :data:`PRINT_MAX_NODES` tree nodes, a phrase with its size (printing would walk the tree).

    >>> import sympy as sp
    >>> x = sp.Symbol("x")
    >>> describe(x + 1)
    'x + 1'
    >>> e = x
    >>> for _ in range(40):
    ...     e = e * (e + 1)
    >>> describe(e)
    'an expression of more than 2000 tree nodes (82 distinct subexpressions)'
    """
    if not isinstance(e, Basic):
        text = str(e)
    elif tree_size(e, cap=PRINT_MAX_NODES) > PRINT_MAX_NODES:
        distinct: dict = {}
        tree_size(e, distinct)
        return f"an expression of more than {PRINT_MAX_NODES} tree nodes ({len(distinct)} distinct subexpressions)"
    else:
        text = str(e)
    return text if len(text) <= limit else text[: max(limit - 3, 1)] + "..."
