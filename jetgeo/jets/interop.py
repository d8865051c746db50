"""Conversion between jet coordinates and ``sympy.physics.mechanics.dynamicsymbols``.

jetgeo works with plain Symbols (x, xdot, xddot); sympy.physics.mechanics uses
undefined functions of time x(t) and their derivatives.  These maps translate
expressions both ways (orders 0–4).
"""

from __future__ import annotations

from ..geometry.coerce import as_expr

__all__ = ["to_dynamicsymbols", "from_dynamicsymbols", "dynamic_map"]


def dynamic_map(Y, max_order: int = 4) -> dict:
    """{jet symbol: dynamicsymbol expression} for orders 0..max_order.

    Parameters
    ----------
    Y : FibredManifold
        The configuration bundle Y → R with fibre coordinates q^σ.
    max_order : int, default 4
        The highest jet order mapped.

    Returns
    -------
    dict
        {q^σ_(k): d^k q^σ(t)/dt^k} for k = 0 … ``max_order``, with q^σ(t) the dynamicsymbol of
        the same name.

    Examples
    --------
    >>> from sympy.physics.mechanics import dynamicsymbols
    >>> from jetgeo.jets import FibredManifold
    >>> Y = FibredManifold(["x"], time="t")
    >>> dynamic_map(Y, 1) == {Y.q[0]: dynamicsymbols("x"), Y.qdot[0]: dynamicsymbols("x").diff()}
    True
    """
    from sympy.physics.mechanics import dynamicsymbols

    t = dynamicsymbols._t
    funcs = [dynamicsymbols(s.name) for s in Y.q]
    out = {}
    for k in range(max_order + 1):
        for s, f in zip(Y.jet_symbols(k), funcs):
            out[s] = f.diff(t, k) if k else f
    return out


def to_dynamicsymbols(Y, expr):
    """Replace jet symbols by dynamicsymbols (and the time symbol by mechanics' t).

    Parameters
    ----------
    Y : FibredManifold
        The bundle whose jet symbols are replaced.
    expr : sympy.Expr
        An expression in the jet coordinates (t, q, q̇, …, up to order 4).

    Returns
    -------
    sympy.Expr
        The same expression in sympy.physics.mechanics' dynamicsymbols q(t), q'(t), ….

    Examples
    --------
    >>> from sympy.physics.mechanics import dynamicsymbols
    >>> from jetgeo.jets import FibredManifold
    >>> Y = FibredManifold(["x"], time="t")
    >>> to_dynamicsymbols(Y, Y.qdot[0] ** 2) == dynamicsymbols("x").diff() ** 2
    True
    """
    from sympy.physics.mechanics import dynamicsymbols

    rep = dynamic_map(Y)
    rep[Y.t] = dynamicsymbols._t
    return as_expr(expr).xreplace(rep)


def from_dynamicsymbols(Y, expr):
    """Replace dynamicsymbols and their derivatives by jet symbols (highest order first).

    Parameters
    ----------
    Y : FibredManifold
        The bundle whose jet symbols replace the dynamicsymbols of the same names.
    expr : sympy.Expr
        An expression in dynamicsymbols q(t), their time derivatives and mechanics' t.

    Returns
    -------
    sympy.Expr
        The expression on the jet bundle: d^k q/dt^k ↦ q_(k) (highest order first, so that the
        derivatives are not broken up), t ↦ ``Y.t``.

    Examples
    --------
    >>> from sympy.physics.mechanics import dynamicsymbols
    >>> from jetgeo.jets import FibredManifold
    >>> Y = FibredManifold(["x"], time="t")
    >>> x = dynamicsymbols("x")
    >>> from_dynamicsymbols(Y, x.diff() ** 2 + x)
    x + xdot**2
    """
    from sympy.physics.mechanics import dynamicsymbols

    expr = as_expr(expr)
    rep = dynamic_map(Y)
    by_order = sorted(rep.items(), key=lambda kv: -Y.order_of(kv[0])[0])
    for s, dyn in by_order:
        expr = expr.subs(dyn, s)
    return expr.xreplace({dynamicsymbols._t: Y.t})
