r"""Substitution and free symbols on expression DAGs, visiting each distinct subexpression once.

The unexpanded results of the exact core (LU on the DAG, the Euler–Lagrange form of long chains of
bodies) share subexpressions; their trees can be exponentially larger than their DAGs, so sympy's
``xreplace`` and ``free_symbols``, which walk the tree, are replaced here by walks of the DAG.
This module sits at the bottom of the core (it imports nothing of it but :mod:`..coerce`), so the
zero test (:mod:`.zero`) and the solvers above it can both use it.
"""

from __future__ import annotations

import sympy as sp
from sympy.core.basic import _args_sortkey  # the key of sympy's canonical argument order
from sympy.core.mul import _unevaluated_Mul

from ...errors import InputError
from ..coerce import as_expr

__all__ = ["xreplace_dag", "rename_dag", "free_symbols_dag", "product_dag", "power_dag"]


def xreplace_dag(expr, rule: dict, memo: dict | None = None, renaming: bool = False):
    """``expr.xreplace(rule)`` visiting each *distinct* subexpression once.

    The unsimplified results of an LU solve share subexpressions, and their trees can be
    exponentially larger than their DAGs.  The result of every visited node is remembered in
    ``memo`` (pass one dict to several calls with the same ``rule`` to share the work).  Exact:
    the same expression as ``xreplace``, rebuilt bottom-up with sympy's constructors.

    The memo is keyed by object identity (``id``, the node kept alive beside its result):
    looking a node up by value compares equal-but-distinct subtrees with ``Basic.__eq__``,
    which recurses without a memo — exponential on two separately built copies of one DAG
    (73 of 100 s of ``equivalent`` on the Whipple bicycle).

    ``renaming=True`` is for a rule that maps symbols one-to-one onto new symbols (the safe
    names of generated code): sums and products are then rebuilt from their arguments as they
    are (``_from_args``), without sympy's flatten — nothing can combine under an injective
    renaming, so the function is the same, only the order of arguments is not re-sorted by the
    new names (the Whipple bicycle's bordered system: 8 s of sorting 11 000-term sums).

    Parameters
    ----------
    expr : sympy expression
        The expression.
    rule : dict
        {old: new}, as for ``xreplace``.
    memo : dict, optional
        Results of visited nodes (shared between calls with the same rule).
    renaming : bool
        The rule is an injective renaming of symbols (above).

    Returns
    -------
    sympy.Basic
        ``expr.xreplace(rule)``.

    Examples
    --------
    >>> x, y = sp.symbols("x y")
    >>> xreplace_dag((x + y)**2 + sp.sin(x + y), {x: 1})
    (y + 1)**2 + sin(y + 1)
    """
    memo = {} if memo is None else memo
    if renaming and not all(k.is_Symbol and v.is_Symbol for k, v in rule.items()):
        raise InputError("xreplace_dag: renaming=True needs a rule from symbols to symbols")
    if renaming and len(set(rule.values())) != len(rule):
        raise InputError("xreplace_dag: renaming=True needs a one-to-one rule")
    value_flags: dict = {}

    def visit(e):
        # (result, whether the result contains an infinite atom: oo, zoo, nan or an infinite symbol)
        got = memo.get(id(e))
        if got is not None and got[0] is e:
            return got[1], got[2]
        if not e.args or e in rule:
            out = rule.get(e, e)
            if not isinstance(out, sp.Basic):
                out = as_expr(out)
            infinite = _infinite_atom(out) if not out.args else _contains_infinity(out, value_flags)
        else:
            pairs = [visit(a) for a in e.args]
            args = [p[0] for p in pairs]
            infinite = any(p[1] for p in pairs)
            if not any(a is not b for a, b in zip(args, e.args)):
                out = e
            elif renaming and (e.is_Add or e.is_Mul):
                out = e.func._from_args(args)
            elif e.is_Mul and not infinite and any(a is sp.S.Zero for a in args):
                # 0·X = 0 for X free of infinities — sympy's Mul asks every other factor
                # ``is_finite``, an assumption query that walks the tree of an unexpanded DAG
                # (2.5 s of the Whipple bicycle's integrability algorithm)
                out = sp.S.Zero
            else:
                out = e.func(*args)
                infinite = infinite or _infinite_atom(out)
        memo[id(e)] = (e, out, infinite)
        return out, infinite

    return visit(as_expr(expr))[0]


def rename_dag(expr, rule: dict, memo: dict | None = None):
    """``expr.xreplace(rule)`` for a rule that renames: it maps atoms and other leaves (symbols,
    applied undefined functions q(t), their derivatives) one-to-one to symbols.  Each distinct
    subexpression is visited once (as :func:`xreplace_dag`), and sums and products are rebuilt by
    sorting their renamed arguments into sympy's canonical order (``_args_sortkey``, a number
    first) — what ``Add.flatten`` and ``Mul.flatten`` end with — without the rest of flatten: under
    a one-to-one renaming no two arguments become equal or combinable, so the expression is the one
    ``xreplace`` gives.  That holds only when no image of the rule already occurs in ``expr`` (x(t) ↦ x
    next to a parameter x would make x·x): such a clash, a renamed sum or product that is not in
    sympy's canonical shape (unevaluated, nested, a number distributed over a sum), or a rule that is
    not a renaming are handed to :func:`xreplace_dag`, and ``memo`` remembers a clash.  The 4-trailer
    from its bodies: its conversion to jet coordinates 4.3 → 2 ms.

    Parameters
    ----------
    expr : sympy expression
        The expression.
    rule : dict
        {old: new}: ``new`` symbols, distinct.
    memo : dict, optional
        Results of visited nodes (shared between calls with the same rule).

    Returns
    -------
    sympy.Basic
        ``expr.xreplace(rule)``.

    Examples
    --------
    >>> t = sp.Symbol("t")
    >>> x, y = sp.Function("x")(t), sp.Function("y")(t)
    >>> X, Y, Xd = sp.symbols("x y xdot")
    >>> rename_dag(x.diff(t) * sp.sin(y) + 2 * x, {x.diff(t): Xd, x: X, y: Y})
    2*x + xdot*sin(y)
    """
    memo = {} if memo is None else memo
    safe = memo.get("xreplace_dag")
    if safe is not None:
        return xreplace_dag(expr, rule, safe)
    images = set(rule.values())
    if not all(v.is_Symbol for v in images) or len(images) != len(rule):
        memo["xreplace_dag"] = {}
        return xreplace_dag(expr, rule, memo["xreplace_dag"])

    def visit(e):  # the renamed node, or None where a clash or a shape flatten would change is met
        got = memo.get(id(e))
        if got is not None and got[0] is e:
            return got[1]
        if e in rule:
            out = rule[e]
        elif not e.args:
            if e in images:
                return None
            out = e
        else:
            args = []
            for a in e.args:
                r = visit(a)
                if r is None:
                    return None
                args.append(r)
            if not any(a is not b for a, b in zip(args, e.args)):
                out = e
            elif e.is_Add or e.is_Mul:
                out = _sorted_like(e, args)
                if out is None:
                    return None
            else:
                out = e.func(*args)
        memo[id(e)] = (e, out)
        return out

    out = visit(as_expr(expr))
    if out is None:
        memo["xreplace_dag"] = {}
        return xreplace_dag(expr, rule, memo["xreplace_dag"])
    return out


def _sorted_like(e, args: list):
    """The sum or product of the renamed ``args`` of ``e`` in sympy's canonical order, or None when
    ``e`` is not a shape its constructor leaves alone (then ``Add``/``Mul`` must evaluate)."""
    cls = e.func
    numbers = [a for a in args if a.is_Number]
    if (len(numbers) > 1 or (numbers and args[0] is not numbers[0]) or not e.is_commutative
            or any(a.func is cls for a in args)):
        return None
    # terms with a common part (x + x, 2x + 3x) or factors with a common base (x·x²): only unevaluated
    # input has them, and flatten would combine them
    if e.is_Add:
        keys = [a.args[1:] if a.is_Mul and a.args[0].is_Number else (a,) for a in args]
    else:
        keys = [a.args[0] if a.is_Pow else a for a in args]
    if len(set(keys)) != len(keys):
        return None
    if numbers:
        c = numbers[0]
        if (c is sp.S.Zero and e.is_Add) or (c is sp.S.One and e.is_Mul) or not c.is_finite or (
                e.is_Mul and len(args) == 2 and args[1].is_Add):
            return None
        rest = args[1:]
        rest.sort(key=_args_sortkey)
        return cls._from_args([c, *rest])
    args = list(args)
    args.sort(key=_args_sortkey)
    return cls._from_args(args)


_INFINITIES = (sp.S.Infinity, sp.S.NegativeInfinity, sp.S.ComplexInfinity, sp.S.NaN)


def _infinite_atom(a) -> bool:
    """Whether the atom ``a`` is ±oo, zoo, nan or a symbol assumed infinite."""
    return any(a is inf for inf in _INFINITIES) or (a.is_Symbol and a.is_finite is False)


def _contains_infinity(e, flags: dict) -> bool:
    """Whether the DAG of ``e`` has an infinite atom (each distinct node once; ``flags`` by id)."""
    got = flags.get(id(e))
    if got is not None:
        return got[1]
    out = _infinite_atom(e) if not e.args else any(_contains_infinity(a, flags) for a in e.args)
    flags[id(e)] = (e, out)
    return out


def free_symbols_dag(exprs) -> set:
    """The free symbols of the expressions, collected on the DAG (sympy's ``free_symbols`` unions
    the sets of every path of the tree).  Nodes that bind variables (derivatives, integrals, …)
    contribute their own ``free_symbols``.

    Parameters
    ----------
    exprs : iterable of sympy expressions
        The expressions.

    Returns
    -------
    set of Symbol
        Their free symbols.
    """
    seen: set = set()
    out: set = set()
    stack = [as_expr(e) for e in exprs]
    while stack:
        e = stack.pop()
        if e in seen:
            continue
        seen.add(e)
        if e.is_Symbol:
            out.add(e)
        elif e.is_Add or e.is_Mul or e.is_Pow or isinstance(e, sp.Function):
            stack.extend(e.args)
        elif not e.is_Atom:
            out |= e.free_symbols
    return out



def _plain_base(b, flags: dict) -> bool:
    """A base whose integer powers and products sympy builds without evaluating anything: a
    commutative symbol that is not infinite, sin or cos, or a commutative sum that is not a number
    and has no infinite atom (its powers ask ``is_infinite`` of its terms and get None)."""
    if b.is_Symbol:
        return b.is_commutative and not _infinite_atom(b)
    if b.func in (sp.sin, sp.cos):
        return not b.args[0].is_number
    return b.is_Add and b.is_commutative and not b.is_number and not _contains_infinity(b, flags)


def product_dag(*factors, memo: dict | None = None) -> sp.Expr:
    """``sp.Mul(*factors)``, the same expression, built without sympy's assumption queries when the
    factors are products of integer powers of plain bases (symbols, sin, cos, sums that are not
    numbers — no infinity among their atoms) and rational numbers: equal bases are merged
    by adding exponents, and the product is assembled by sympy's ``_unevaluated_Mul`` (the
    coefficient first, the factors in sympy's order).  sympy's ``Mul`` rebuilds every power of a
    sum it meets with an evaluated ``Pow``, which asks each term of a two-term sum ``is_infinite``:
    milliseconds per fresh sum (after a cleared cache).  Any other input — a float, another
    kind of base, a power that cancels, a number times a single sum (which sympy
    distributes), a zero — goes through ``sp.Mul``.

    Parameters
    ----------
    *factors : sympy.Expr
        The factors.
    memo : dict, optional
        Whether a visited sum has an infinite atom (by identity): pass one dict to several calls
        on shared subexpressions, so that each is walked once.

    Returns
    -------
    sympy.Expr
        Their product, the expression ``sp.Mul(*factors)`` gives.

    Examples
    --------
    >>> x, y = sp.symbols("x y")
    >>> product_dag(x * (x + y), -3 * y * (x + y) * sp.sin(x))
    -3*x*y*(x + y)**2*sin(x)
    >>> product_dag(x + y, x + y) == (x + y)**2
    True
    """
    factors = [as_expr(f) for f in factors]
    if len(factors) < 2:
        return sp.Mul(*factors)
    memo = {} if memo is None else memo
    coeff = sp.S.One
    powers: dict = {}
    for f in factors:
        for a in sp.Mul.make_args(f):
            if a.is_Rational:
                coeff *= a
                continue
            b, e = a.as_base_exp()
            if not (e.is_Integer and _plain_base(b, memo)):
                return sp.Mul(*factors)
            powers[b] = powers.get(b, 0) + e
    if coeff == 0 or not powers or any(e == 0 for e in powers.values()) or (
            len(powers) == 1 and coeff != 1 and next(iter(powers.items()))[1] == 1):
        return sp.Mul(*factors)
    args = [b if e == 1 else sp.Pow(b, e, evaluate=False) for b, e in powers.items()]
    if len(args) == 1 and coeff == 1:
        return args[0]
    return _unevaluated_Mul(coeff, *args)


def power_dag(base, k: int, memo: dict | None = None) -> sp.Expr:
    """``base**k`` for an integer k ≥ 2: the same expression as sympy's, built as the product of k
    copies by :func:`product_dag` (a plain sum's power unevaluated, a product's factors raised).

    sympy's ``Pow`` of a two-term sum asks each term ``is_infinite`` (``Add._eval_power``), an
    assumption query that costs milliseconds on fresh expressions (after a cleared cache): 33 ms of
    the 4-trailer's mass matrix from its bodies' partial velocities.  Without infinite atoms that
    query answers None and ``Pow`` returns the unevaluated power, which is built here directly.

    Parameters
    ----------
    base : sympy.Expr
        The base.
    k : int
        The exponent, an integer ≥ 2.
    memo : dict, optional
        As for :func:`product_dag`.

    Returns
    -------
    sympy.Expr
        ``base**k``, identical to sympy's.

    Raises
    ------
    jetgeo.errors.InputError
        If ``k`` is not an integer ≥ 2.

    Examples
    --------
    >>> x, y = sp.symbols("x y")
    >>> power_dag(x + y, 2) == (x + y)**2
    True
    >>> power_dag(2 * x, 2)
    4*x**2
    """
    if not isinstance(k, int) or k < 2:
        raise InputError(f"power_dag: the exponent must be an integer >= 2, got {k!r}")
    base = as_expr(base)
    if base.is_Number:
        return base**k
    return product_dag(*[base] * k, memo=memo)
