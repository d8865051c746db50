"""Conversion between jet coordinates and ``sympy.physics.mechanics.dynamicsymbols``.

jetgeo works with plain Symbols (x, xdot, xddot); sympy.physics.mechanics uses
undefined functions of time x(t) and their derivatives.  These maps translate
expressions both ways (orders 0–4).
"""

from __future__ import annotations

from ..geometry.coerce import as_expr

__all__ = ["to_dynamicsymbols", "from_dynamicsymbols", "dynamic_map"]


def dynamic_map(Y, max_order: int = 4) -> dict:
    """{jet symbol: dynamicsymbol expression} for orders 0..max_order."""
    from sympy.physics.mechanics import dynamicsymbols

    t = dynamicsymbols._t
    funcs = [dynamicsymbols(s.name) for s in Y.q]
    out = {}
    for k in range(max_order + 1):
        for s, f in zip(Y.jet_symbols(k), funcs):
            out[s] = f.diff(t, k) if k else f
    return out


def to_dynamicsymbols(Y, expr):
    """Replace jet symbols by dynamicsymbols (and the time symbol by mechanics' t)."""
    from sympy.physics.mechanics import dynamicsymbols

    rep = dynamic_map(Y)
    rep[Y.t] = dynamicsymbols._t
    return as_expr(expr).xreplace(rep)


def from_dynamicsymbols(Y, expr):
    """Replace dynamicsymbols and their derivatives by jet symbols (highest order first)."""
    from sympy.physics.mechanics import dynamicsymbols

    expr = as_expr(expr)
    rep = dynamic_map(Y)
    by_order = sorted(rep.items(), key=lambda kv: -Y.order_of(kv[0])[0])
    for s, dyn in by_order:
        expr = expr.subs(dyn, s)
    return expr.xreplace({dynamicsymbols._t: Y.t})
