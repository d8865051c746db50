r"""Common subexpressions of the expressions both compilers print: :func:`common_subexpressions`
(``sympy.cse``, or the elimination on the expression DAG for large inputs).

Below :mod:`jetgeo.numerics.compile` (the Python backend) and :mod:`jetgeo.numerics.codegen`
(the C backend), which both import it; it imports neither.
"""

from __future__ import annotations

from functools import lru_cache

import sympy as sp
from sympy.core.exprtools import _keep_coeff, gcd_terms
from sympy.simplify import cse_opts
from sympy.utilities.iterables import iterable

from ..geometry.exact import CSE_PREPROCESS_MAX_NODES, tree_size

__all__ = ["common_subexpressions"]


def common_subexpressions(exprs: list, optimizations: str | None = "basic") -> tuple:
    """(replacements, reduced expressions): ``sympy.cse`` with locals ``_c0, _c1, …`` — for
    expressions of more than :data:`~jetgeo.geometry.exact.CSE_PREPROCESS_MAX_NODES` tree nodes
    (together) the elimination on the DAG of :func:`_dag_cse` instead: sympy's pre-processing,
    its search for negated sums (``opt_cse`` asks every sum ``could_extract_minus_sign``, which
    sorts its terms) and the canonical ordering all walk trees (170 s of the Whipple bicycle's
    bordered system went into that search; the DAG already shares what it would find).  Below the
    threshold the result is kept per process (:data:`MEMO_SIZE` inputs): compiling the same
    expressions again does not repeat sympy's elimination.

    Parameters
    ----------
    exprs : list of sympy expressions
        The expressions compiled together.
    optimizations : str or None
        sympy's ``cse`` optimisations (``"basic"``; None: none), for the expressions below the size threshold.

    Returns
    -------
    tuple
        (replacements [(``_ci``, expression)], the reduced expressions), the replacements in evaluation order.
    """
    symbols = sp.numbered_symbols("_c")
    if _tree_nodes(exprs) > CSE_PREPROCESS_MAX_NODES:
        return _dag_cse(list(exprs), symbols)
    repl, reduced = _sympy_cse(tuple(exprs), optimizations)
    return list(repl), list(reduced)


#: inputs whose sympy cse result is kept per process (below the size threshold): the same expressions compiled
#: again (the same system prepared for another run, method or command) are not eliminated again — sympy's
#: pre-processing is most of a small system's compile time.
MEMO_SIZE = 256


@lru_cache(maxsize=MEMO_SIZE)
def _sympy_cse(exprs: tuple, optimizations: str | None) -> tuple:
    """sympy's ``cse`` of ``exprs`` with locals ``_c0, _c1, …``, kept per process (an ``lru_cache``, so
    that benchmarks that empty jetgeo's caches before a timed call empty this one too); sympy
    expressions are immutable and the caller gets new lists.  ``"basic"`` is sympy's
    ``basic_optimizations`` with its ``factor_terms`` pre-processing done by :class:`_SharedFactorTerms`
    (the same result, each subexpression shared by the expressions factored once)."""
    if optimizations == "basic":
        optimizations = [(cse_opts.sub_pre, cse_opts.sub_post), (_SharedFactorTerms(), None)]
    return sp.cse(list(exprs), symbols=sp.numbered_symbols("_c"), optimizations=optimizations)


class _SharedFactorTerms:
    """``sympy.factor_terms(e)`` (default options) of the expressions of one ``cse`` call, with the results of
    the subexpressions kept in between: sympy's pre-processing factors every expression on its own, walking a
    subexpression again in each expression (and in each entry of a Jacobian) that contains it.  The recursion
    is sympy's (``factor_terms.<locals>.do`` of sympy 1.14, ``sympy/core/exprtools.py``) with a memo; sums and
    integrals go to sympy's own function.  On the catalogue runs, the orientation atlas, the discrete
    simulations and Hamel's systems (54 eliminations, sympy's cache emptied before each): 2.67 s → 1.52 s, the
    same expressions (tests/numerics/test_numerics_compile.py checks it against sympy's)."""

    def __init__(self) -> None:
        self.memo: dict = {}

    def __call__(self, expr):
        if not isinstance(expr, sp.Basic) or expr.is_Atom:
            if iterable(expr):
                return type(expr)([self(i) for i in expr])
            return expr
        got = self.memo.get(expr)
        if got is None:
            got = self.memo[expr] = self._factor(expr)
        return got

    def _factor(self, expr):
        if expr.is_Pow or expr.is_Function or iterable(expr) or not isinstance(expr, sp.Expr):  # sympy: no args_cnc
            args = expr.args
            new = tuple(self(a) for a in args)
            return expr if new == args else expr.func(*new)
        if isinstance(expr, (sp.Sum, sp.Integral)):
            return sp.factor_terms(expr)
        cont, p = expr.as_content_primitive(radical=False, clear=False)
        if p.is_Add:
            terms = [self(a) for a in sp.Add.make_args(p)]
            # a common negative sign, which gcd_terms does not remove
            if not any(a.as_coeff_Mul()[0].extract_multiplicatively(-1) is None for a in terms):
                cont = -cont
                terms = [-a for a in terms]
            special = {}  # exp(-(x + 2)), which gcd_terms would change to exp(-x - 2)
            for i, a in enumerate(terms):
                _, e = a.as_base_exp()
                if e.is_Mul and e != sp.Mul(*e.args):
                    terms[i] = sp.Dummy()
                    special[terms[i]] = a
            p = gcd_terms(sp.Add._from_args(terms), isprimitive=True, clear=False, fraction=False).xreplace(special)
        elif p.args:
            p = p.func(*[self(a) for a in p.args])
        return _keep_coeff(cont, p, clear=False, sign=True)


def _rebuilt(e, args: list):
    """``e`` with new arguments; sums, products and powers unevaluated (their arguments are
    already in canonical order — re-flattening an 11 000-term sum sorts it again)."""
    if e.is_Add or e.is_Mul or e.is_Pow:
        return e.func(*args, evaluate=False)
    return e.func(*args)


def _dag_cse(exprs: list, symbols) -> tuple:
    """Common subexpressions of expression DAGs: every non-atomic node reached more than once
    (as an argument or as a root; equal nodes count as one, as in sympy's ``tree_cse``) becomes
    a local ``_cK``, assigned before its first use, in post-order; nodes are rebuilt
    unevaluated around the locals.  The same replacements as ``tree_cse`` finds on these inputs,
    without rebuilding (and re-sorting) every sum it meets: the Whipple bicycle's bordered
    system (40 000 DAG nodes, 8 676 locals) 3.9 s → 1.1 s."""
    count: dict = {}
    stack = list(exprs)
    while stack:  # reference counts, each node's arguments walked once
        e = stack.pop()
        if e.is_Atom:
            continue
        k = e
        if k in count:
            count[k] += 1
            continue
        count[k] = 1
        stack.extend(e.args)
    repl: list = []
    done: dict = {}

    def visit(e):
        if e.is_Atom:
            return e
        k = e
        got = done.get(k)
        if got is not None:
            return got
        args = [visit(a) for a in e.args]
        new = _rebuilt(e, args) if any(a is not b for a, b in zip(args, e.args)) else e
        if count[k] > 1 and isinstance(e, sp.Expr):  # not a Piecewise branch (ExprCondPair) or a tuple
            sym = next(symbols)
            repl.append((sym, new))
            new = sym
        done[k] = new
        return new

    reduced = [visit(e) for e in exprs]
    return repl, reduced


def _tree_nodes(exprs) -> int:
    """Tree nodes of the expressions together, counted on the DAG and capped just above
    :data:`~jetgeo.geometry.exact.CSE_PREPROCESS_MAX_NODES`."""
    memo: dict = {}
    total = 0
    for e in exprs:
        total += tree_size(e, memo, cap=CSE_PREPROCESS_MAX_NODES)
        if total > CSE_PREPROCESS_MAX_NODES:
            break
    return total
