"""Cheap exact reduction of expressions polynomial in sines and cosines.

Used on small matrices (Gauss matrices G_αβ, C W⁻¹ Cᵀ) so that sin² + cos² does
not survive into every acceleration; never a general simplifier.
"""

from __future__ import annotations

import sympy as sp

from .coerce import as_expr
from .zero import normalise

__all__ = ["trig_reduce"]


def trig_reduce(expr) -> sp.Expr:
    """Numerator and denominator reduced modulo sin²θ + cos²θ − 1 (cos² → 1 − sin²), then cancelled.

    A cheap exact normaliser for the small matrices the recipes solve (e.g. the k × k
    matrix G = C W⁻¹ Cᵀ of Benenti's second kind), so that sin² + cos² does not
    survive into every acceleration.  Expressions of another kind are returned as
    ``normalise`` leaves them.
    """
    expr = normalise(as_expr(expr))
    if not expr.atoms(sp.cos):
        return expr
    num, den = sp.fraction(sp.together(expr))
    return sp.cancel(_reduce_poly(num) / _reduce_poly(den))


def _reduce_poly(p: sp.Expr) -> sp.Expr:
    p = sp.expand(p)
    for c in sorted(p.atoms(sp.cos), key=sp.default_sort_key):
        s = sp.sin(c.args[0])
        try:
            poly = sp.Poly(p, c)
        except sp.PolynomialError:
            return p
        p = sp.expand(sum((coeff * c ** (k % 2) * (1 - s**2) ** (k // 2) for (k,), coeff in poly.terms()), 0))
    return p
