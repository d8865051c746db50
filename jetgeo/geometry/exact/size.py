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

import math
from dataclasses import dataclass

import sympy as sp
from sympy import Basic

from ..coerce import as_expr

__all__ = [
    "tree_size",
    "BOTTOM_UP_MAX_TERMS",
    "atoms_dag",
    "not_real_finite",
    "FACTOR_MAX_TERMS",
    "is_small",
    "describe",
    "within_ops",
    "SizeEstimate",
    "size_estimate",
    "ESTIMATE_CAP",
    "PRINT_MAX_NODES",
    "NORMALISE_MAX_NODES",
    "NORMAL_FORM_MAX_NODES",
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
    "READABLE_MAX_NODES",
    "FACTOR_MAX_NODES",
    "EL_DAG_MIN_NODES",
]

#: Above this many tree nodes an expression is not passed through ``cancel``/``together``
#: (:func:`jetgeo.geometry.zero.normalise_if_small`, the differences of
#: :func:`jetgeo.recipes.equivalent`, sample values of the catalogue): ``cancel`` of large
#: trigonometric results costs seconds and rarely shrinks them, and the zero test evaluates
#: them exactly at random points instead (measured: 25 of 37 s of an equivalence check on the
#: heavy disc went into such ``cancel`` calls).
NORMALISE_MAX_NODES = 400

#: Solutions of the constraints q̇^D = g of at most this many tree nodes are put in canonical
#: (cancelled) form (:class:`~jetgeo.mechanics.ConstraintSubmanifold`'s normal form, its domain
#: and condition); larger ones (a chain of bodies: the n-trailer from n = 5 on) stay as solved,
#: exact DAGs.
NORMAL_FORM_MAX_NODES = 400

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


#: Above this many tree nodes an expression (an entry, or a named subexpression after the
#: common subexpressions are named) is not brought to a common denominator with a trigonometric
#: normal form by :func:`jetgeo.geometry.readable` (``cancel`` with sin/cos generators is the
#: costly step); it is kept as it is, with its shared subexpressions named.
READABLE_MAX_NODES = 3000

#: The bottom-up pass of :func:`jetgeo.geometry.readable` forms no product of polynomials of more
#: than this many term pairs (len(a)·len(b)): a piece whose normal form would need one is kept as it is.
BOTTOM_UP_MAX_TERMS = 1000

#: A whole numerator is factored by :func:`jetgeo.geometry.readable` only up to this many tree
#: nodes (``factor`` of the numerators of the rolling disc's accelerations took 6 of its 13 s);
#: its coefficients in the velocities, smaller, always are.
FACTOR_MAX_NODES = 150

#: Above this many tree nodes of L, its derivatives — momenta, Hessian W and the Euler–Lagrange
#: expressions without accelerations e — are taken on L's expression DAG (exact, unexpanded, each
#: distinct subexpression once: :func:`~jetgeo.geometry.exact.diff_dag`; used by
#: :class:`~jetgeo.mechanics.LagrangianSystem`) instead of in its
#: polynomial ring (:mod:`jetgeo.geometry.polydiff`, expanded and collected).  Expanded, a chain of
#: rigid bodies grows like 2ⁿ in sin, cos of the relative angles: the 8-trailer's L from
#: ``sympy.physics.mechanics`` bodies (23 687 nodes) has 15 835 terms and its e_σ up to 19 177 each
#: (ring: 12 s for e, 8 s for converting L and W; DAG: 0.3 s for all), and the Whipple bicycle's
#: (4 424 nodes, 12 505 terms) TQ route takes 8 s instead of 22 s (one loaded machine, issue 28).
#: The catalogue's compact Lagrangians (the 8-trailer: 557 nodes) keep the ring's collected forms.
EL_DAG_MIN_NODES = 1000

#: Above this many tree nodes an expression is not printed into a message (:func:`describe`):
#: ``str`` walks the tree, and the unsimplified determinant of the Whipple bicycle's reduced
#: equations took 74 s to print into a validity condition nobody reads whole.
PRINT_MAX_NODES = 2000


#: readable: a numerator (or a coefficient of it in the velocities) is split into factors only up to
#: this many terms (``geometry.readable._split``); larger ones have only their content and common
#: monomial taken out.
FACTOR_MAX_TERMS = 40


def atoms_dag(e, *types) -> set:
    """``e.atoms(*types)`` collected on the DAG: the subexpressions of ``e`` that are instances of
    ``types``, each distinct subexpression visited once (sympy's ``atoms`` walks the tree: 150 of
    the 198 s of ``equivalent`` on Routh's sphere, whose accelerations share their subexpressions).

    Parameters
    ----------
    e : sympy expression
        The expression.
    *types : sympy classes
        The kinds of subexpressions wanted (at least one).

    Returns
    -------
    set
        The subexpressions of those kinds, at any depth (as ``e.atoms(*types)``).

    Examples
    --------
    >>> import sympy as sp
    >>> x, y = sp.symbols("x y")
    >>> sorted(atoms_dag(sp.sin(x) * sp.cos(y) + sp.sin(x)**2, sp.sin, sp.cos), key=str)
    [cos(y), sin(x)]
    """
    if not types:
        raise TypeError("atoms_dag: name the types of the subexpressions wanted")
    # visited nodes keyed by identity (kept alive in ``seen``): a lookup by value compares equal but
    # distinct subtrees with Basic.__eq__, which recurses without a memo (see xreplace_dag)
    seen: dict = {}
    out: set = set()
    stack = [e]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen[id(node)] = node
        if isinstance(node, types):
            out.add(node)
        stack.extend(node.args)
    return out


#: the atoms that make an expression not real and finite: ±oo, zoo, nan and the imaginary unit
_NOT_REAL_FINITE = (type(sp.oo), type(-sp.oo), type(sp.zoo), type(sp.nan), type(sp.I))


def not_real_finite(e) -> str | None:
    """Why ``e`` is not a real, finite expression — ``"not finite"`` (±oo, zoo, nan among its atoms),
    ``"not real"`` (the imaginary unit) — or None; the atoms collected on the DAG in one walk
    (:func:`atoms_dag`; sympy's ``has`` walks the tree, once per question).  The input checks of the
    Lagrangian, its forces and the constraints (I·L or oo·ẋ + L would silently give wrong equations).

    Parameters
    ----------
    e : sympy expression
        The expression.

    Returns
    -------
    str or None
        The reason, or None for an expression without such atoms.

    Examples
    --------
    >>> import sympy as sp
    >>> x = sp.Symbol("x")
    >>> not_real_finite(x + 1), not_real_finite(sp.oo * x), not_real_finite(sp.I * x)
    (None, 'not finite', 'not real')
    """
    special = atoms_dag(e, *_NOT_REAL_FINITE)
    if special - {sp.I}:
        return "not finite"
    return "not real" if special else None


def tree_size(e, memo: dict | None = None, cap: int | None = None) -> int:
    """Number of nodes of ``e`` as a tree, computed on the DAG in time linear in the number of
    *distinct* subexpressions.  With ``cap`` the count stops as soon as it exceeds ``cap`` and
    returns ``cap + 1`` (cost at most linear in ``cap`` distinct nodes); ``memo`` (exact counts
    of subexpressions) may be shared between calls.

    Parameters
    ----------
    e : sympy expression
        The expression.
    memo : dict, optional
        Exact counts of subexpressions, shared between calls.
    cap : int, optional
        Stop counting beyond it.

    Returns
    -------
    int
        The number of tree nodes (``cap + 1`` when it exceeds ``cap``).

    Examples
    --------
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
    """``tree_size(e) <= cap``, computed with the early stop.

    Parameters
    ----------
    e : sympy expression
        The expression.
    cap : int
        The largest tree size counted as small.

    Returns
    -------
    bool
        Whether ``e`` has at most ``cap`` tree nodes.
    """
    return tree_size(e, cap=cap) <= cap


def within_ops(e, max_ops: int) -> bool:
    """``count_ops(e) <= max_ops`` for display and bookkeeping decisions, without walking a large
    tree: expressions of more than 4·max_ops tree nodes count as larger (sympy's ``count_ops``
    walks the tree — minutes on the unexpanded DAG of a solve — and the operations of a tree
    are rarely fewer than a quarter of its nodes).

    Parameters
    ----------
    e : sympy expression
        The expression.
    max_ops : int
        The largest operation count allowed.

    Returns
    -------
    bool
        Whether ``e`` has at most ``max_ops`` operations.
    """
    from sympy import count_ops

    if tree_size(e, cap=4 * max_ops) > 4 * max_ops:
        return False
    return count_ops(e) <= max_ops


def describe(e, limit: int = 60) -> str:
    """``str(e)`` cut to ``limit`` characters for messages — or, for an expression of more than
    :data:`PRINT_MAX_NODES` tree nodes, a phrase with its size (printing would walk the tree).

    Parameters
    ----------
    e : object
        A sympy expression (measured before it is printed) or anything with a ``str``.
    limit : int, default 60
        The longest text returned; longer ones are cut and end in ``...``.

    Returns
    -------
    str
        The (cut) text, or "an expression of more than N tree nodes (k distinct subexpressions)".

    Examples
    --------
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


#: bounds of :func:`size_estimate` saturate here (a number of terms beyond any computation)
ESTIMATE_CAP = 10**30


@dataclass(frozen=True)
class SizeEstimate:
    """What bringing expressions to canonical form (one cancelled fraction of expanded
    polynomials each: :func:`~jetgeo.geometry.zero.normalise`) would face, measured on their
    DAG before it starts (:func:`size_estimate`).

    ``expressions``; ``dag_nodes``: distinct subexpressions (what the derivation handled);
    ``tree_nodes``: nodes of the trees (what printing and ``cancel`` walk); ``expanded_terms``:
    an upper bound on the terms of the expanded numerators and denominators over a common
    denominator before any cancellation (saturating at :data:`ESTIMATE_CAP`); ``large``: more
    tree nodes than :data:`CANONICAL_MAX_NODES` in some expression — the size at which jetgeo's
    own routes keep a result as a DAG rather than cancel it.

    Attributes
    ----------
    expressions : int
        How many expressions were measured.
    dag_nodes : int
        Their distinct subexpressions, counted once over all of them.
    tree_nodes : int
        Their nodes as trees (shared subexpressions counted at every occurrence).
    expanded_terms : int
        Upper bound on the terms of the expanded numerators and denominators, saturating at
        :data:`ESTIMATE_CAP`.
    large : bool
        Whether some expression has more than :data:`CANONICAL_MAX_NODES` tree nodes.
    """

    expressions: int
    dag_nodes: int
    tree_nodes: int
    expanded_terms: int
    large: bool

    def __str__(self) -> str:
        def n(v: int) -> str:
            return f"{v:,}".replace(",", " ") if v < 10**7 else f"{v:.1e}"

        bound = (f"at most {n(self.expanded_terms)} terms when expanded" if self.expanded_terms < ESTIMATE_CAP
                 else f"no bound below {ESTIMATE_CAP:.0e} on the terms when expanded")
        return (f"{self.expressions} expression{'s' * (self.expressions != 1)}: {n(self.dag_nodes)} distinct "
                f"subexpressions, {n(self.tree_nodes)} tree nodes, {bound}")


def _power_terms(t: int, k: int) -> int:
    """Terms of p^k for a polynomial p of at most t terms: at most C(t + k − 1, k), its
    monomials of degree k (saturating at :data:`ESTIMATE_CAP`)."""
    if k == 0 or t <= 1:
        return min(t, 1) if k else 1
    m, big = min(k, t - 1), max(k, t - 1)  # C(t + k − 1, k) = C(big + m, m) ≥ ((big + m)/m)^m
    if m * math.log10((big + m) / m) > 31:
        return ESTIMATE_CAP
    return min(ESTIMATE_CAP, math.comb(big + m, m))  # here m ≤ 31/log10 2 < 104: cheap


def _denominator_terms(den: dict) -> int:
    """Terms of Π_b b^e (``den``: id → (b, e, terms of b)) expanded, bounded factor by factor."""
    out = 1
    for _, e, t in den.values():
        out = min(ESTIMATE_CAP, out * _power_terms(t, e))
    return out


def _terms_bound(e, memo: dict) -> tuple:
    """(numerator term bound, denominator) of ``e`` as one fraction of expanded polynomials in its
    generators (symbols, function values, fractional powers); the denominator is kept factored,
    {id(b): (b, exponent, term bound of b)}, so that a sum's common denominator is the least
    common multiple of its terms' denominators (the shared pivots of an LU solve count once):
    Σᵢ pᵢ/Dᵢ = (Σᵢ pᵢ·L/Dᵢ)/L, a product multiplies numerators and adds exponents, and an
    integer power k of a polynomial of n terms has at most C(n + k − 1, k) terms."""
    got = memo.get(id(e))
    if got is not None and got[0] is e:
        return got[1]
    cap = ESTIMATE_CAP
    if e.is_Add:
        parts = [_terms_bound(a, memo) for a in e.args]
        lcm: dict = {}
        for _, den in parts:
            for k, (b, x, t) in den.items():
                if k not in lcm or lcm[k][1] < x:
                    lcm[k] = (b, x, t)
        num = 0
        for n_i, den in parts:
            rest = {k: (b, x - den.get(k, (b, 0, t))[1], t) for k, (b, x, t) in lcm.items()}
            num = min(cap, num + n_i * _denominator_terms(rest))
        out = (num, lcm)
    elif e.is_Mul:
        num, den = 1, {}
        for a in e.args:
            n_i, d_i = _terms_bound(a, memo)
            num = min(cap, num * n_i)
            for k, (b, x, t) in d_i.items():
                den[k] = (b, den[k][1] + x if k in den else x, t)
        out = (num, den)
    elif e.is_Pow and e.exp.is_Integer:
        n_b, d_b = _terms_bound(e.base, memo)
        k = int(e.exp)
        if k >= 0:
            out = (_power_terms(n_b, k), {key: (b, x * k, t) for key, (b, x, t) in d_b.items()})
        else:  # (p/D)^-k = D^k / p^k
            num = _denominator_terms({key: (b, -x * k, t) for key, (b, x, t) in d_b.items()})
            out = (num, {id(e.base): (e.base, -k, n_b)})
    else:  # a number, a symbol, a function value, a fractional power: one generator
        out = (1, {})
    memo[id(e)] = (e, out)
    return out


def size_estimate(exprs) -> SizeEstimate:
    """The :class:`SizeEstimate` of an expression or a list of them, in time linear in their
    distinct subexpressions (nothing is expanded or printed).

    Parameters
    ----------
    exprs : sympy expression or iterable of them
        The expressions.

    Returns
    -------
    SizeEstimate
        Their distinct (DAG) and tree node counts and whether they count as large.

    Examples
    --------
    >>> import sympy as sp
    >>> x, y = sp.symbols("x y")
    >>> e = x
    >>> for _ in range(30):
    ...     e = e * (e + y) / (1 + e**2)
    >>> est = size_estimate([e])
    >>> est.dag_nodes < 300, est.tree_nodes > 10**9, est.large
    (True, True, True)
    """
    if isinstance(exprs, Basic) or not isinstance(exprs, (list, tuple)):
        exprs = [exprs]
    exprs = [as_expr(e) for e in exprs]
    size_memo: dict = {}
    terms_memo: dict = {}
    tree = terms = 0
    large = False
    for e in exprs:
        t = tree_size(e, size_memo)
        tree += t
        large = large or t > CANONICAL_MAX_NODES
        n, den = _terms_bound(e, terms_memo)
        terms = min(ESTIMATE_CAP, terms + n + (_denominator_terms(den) if den else 0))
    return SizeEstimate(len(exprs), len(size_memo), tree, terms, large)
