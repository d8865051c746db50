r"""Display-only tidying of expressions: for printed and LaTeX output, never in a computation path.

The computations keep exact, cheaply normalised expressions (``normalise``, ``trig_reduce``); what is
*shown* to a reader — conditions, singular states, equations — is passed through :func:`tidy`:
``trigsimp`` (which uses sin² + cos² = 1 in every form, e.g.
m(I sin²θ + I cos²θ + a²m sin⁴θ + 2a²m sin²θ cos²θ + a²m cos⁴θ)/cos²θ → m(I + a²m)/cos²θ), then
``factor``; the shortest of the forms met is kept.  Expressions above ``max_ops`` operations are
shown as they are (the simplifiers' cost grows quickly; the output would not be readable anyway).
"""

from __future__ import annotations

import sympy as sp

from .exact.size import within_ops

__all__ = ["tidy", "tidy_str", "tidy_latex"]

#: expressions with more operations than this are displayed untouched
TIDY_MAX_OPS = 250


def tidy(expr, max_ops: int = TIDY_MAX_OPS):
    """A readable, equal form of ``expr`` for display (see the module docstring); non-expressions and
    large expressions are returned unchanged.

    Parameters
    ----------
    expr : object
        A sympy expression (anything else is returned as it is).
    max_ops : int
        Expressions of more operations are returned unchanged (tidying them would cost more than it shows).

    Returns
    -------
    object
        The tidied expression, equal to ``expr``.
    """
    if not isinstance(expr, sp.Basic) or expr.is_Atom:
        return expr
    if isinstance(expr, sp.MatrixBase):
        return expr.applyfunc(lambda e: tidy(e, max_ops))
    if isinstance(expr, sp.Equality):
        return sp.Eq(tidy(expr.lhs, max_ops), tidy(expr.rhs, max_ops), evaluate=False)
    if not within_ops(expr, max_ops):
        return expr
    forms = [expr]
    try:
        t = sp.trigsimp(expr) if expr.has(sp.sin, sp.cos, sp.tan) else expr
        forms.append(t)
        forms.append(sp.factor(t))
    except (sp.PolynomialError, NotImplementedError, TypeError, ValueError):  # display only: keep what we have
        pass
    return min(forms, key=lambda e: (sp.count_ops(e), len(str(e))))


def tidy_str(expr) -> str:
    """``str`` of the tidied expression.

    Parameters
    ----------
    expr : object
        The expression.

    Returns
    -------
    str
        ``str(tidy(expr))``.
    """
    return str(tidy(expr))


def tidy_latex(expr) -> str:
    """LaTeX of the tidied expression.

    Parameters
    ----------
    expr : object
        The expression.

    Returns
    -------
    str
        LaTeX of ``tidy(expr)``.
    """
    return sp.latex(tidy(expr))
