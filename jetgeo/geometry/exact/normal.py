r"""The cheap exact normal form of the core: ``cancel`` of ``together``, and the same gated by size.

It lives in the core (not beside the zero test of :mod:`jetgeo.geometry.zero`, which builds on
this package's size, trig and shadow modules) because the core's own solves normalise their small
results with it: with it here, nothing in :mod:`jetgeo.geometry.exact` imports the zero test to
normalise.  :mod:`jetgeo.geometry.zero` re-exports both functions as tier 1 of the zero test.
"""

from __future__ import annotations

from functools import lru_cache

import sympy as sp

from ..coerce import as_expr
from .size import NORMALISE_MAX_NODES, tree_size

__all__ = ["normalise", "normalise_if_small"]


def normalise(expr: sp.Expr) -> sp.Expr:
    """Cheap exact normaliser: ``cancel`` of ``together`` for rational expressions,
    ``expand`` otherwise.  Never ``simplify``.

    Parameters
    ----------
    expr : sympy expression
        The expression.

    Returns
    -------
    sympy.Expr
        An equal expression in that normal form.

    Examples
    --------
    >>> x = sp.Symbol("x")
    >>> normalise((x**2 - 1) / (x - 1))
    x + 1
    """
    expr = as_expr(expr)
    if expr.is_Number or expr.is_Symbol:
        return expr
    return _normalise_cached(expr)


#: expressions whose :func:`normalise` is kept per process
NORMALISE_MEMO_SIZE = 4096


@lru_cache(maxsize=NORMALISE_MEMO_SIZE)
def _normalise_cached(expr: sp.Expr) -> sp.Expr:
    """:func:`normalise` of a sympy expression, kept per process (an ``lru_cache``, emptied with jetgeo's
    caches by the benchmarks): recipes, their comparison and the reactions normalise the same entries again
    (in test_catalogue_agreement, test_agreement, test_benenti2007_krupkova and test_constrained, one
    process: 1 402 of 2 068 calls, 3.6 s of 8.8 s, repeated an expression already normalised); sympy
    expressions are immutable, so the result is shared safely."""
    try:
        return sp.cancel(sp.together(expr))
    except (sp.PolynomialError, TypeError, ValueError):  # pragma: no cover - defensive
        return sp.expand(expr)


def normalise_if_small(expr, max_nodes: int = NORMALISE_MAX_NODES) -> sp.Expr:
    """:func:`normalise` for expressions of at most ``max_nodes`` tree nodes; larger ones are
    returned unchanged (still exact).  ``cancel`` of large trigonometric results costs seconds
    and rarely shrinks them; zero tests evaluate them exactly at random points instead.

    Parameters
    ----------
    expr : sympy expression
        The expression.
    max_nodes : int
        The largest tree size (:func:`~jetgeo.geometry.exact.tree_size`) that is normalised.

    Returns
    -------
    sympy.Expr
        ``normalise(expr)`` when it is small enough, else ``expr`` itself.

    Examples
    --------
    >>> x = sp.Symbol("x")
    >>> normalise_if_small(1 / x + 1)
    (x + 1)/x
    >>> normalise_if_small(1 / x + 1, max_nodes=2)
    1 + 1/x
    """
    expr = as_expr(expr)
    if tree_size(expr, cap=max_nodes) > max_nodes:
        return expr
    return normalise(expr)
