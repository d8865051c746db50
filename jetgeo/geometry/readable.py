r"""Equations a researcher can read: :func:`readable`.

The accelerations of a constrained system come out of an exact solve as expression graphs that
share their subexpressions; printed as trees they are unreadable, and a generic simplifier takes
minutes on them.  :func:`readable` rewrites them in the form papers print, by steps that are each
an *exact* rewriting (theory/readable.md):

1. **zeros** — an entry proven identically zero becomes ``0``: by its normal form (step 2: for a
   rational function of symbols and of sines and cosines of symbols the reduced numerator is a
   normal form, zero iff the entry is), else by :func:`~jetgeo.geometry.zero_tests` (exactly, or
   in the prime field with a stated Schwartz–Zippel bound; never by floating point);
2. **trigonometric normal form and one common denominator** — an entry of at most
   :data:`~jetgeo.geometry.exact.size.READABLE_MAX_NODES` tree nodes is written as one fraction
   n/d of polynomials in its atoms (multiple angles expanded, ``cancel``), n and d reduced
   modulo sin²θ + cos²θ − 1 (:func:`~jetgeo.geometry.exact.trig.reduce_pythagorean`, then
   cancelled again, then the shorter direction per angle,
   :func:`~jetgeo.geometry.exact.trig.reduce_pythagorean_shortest`); d is kept as the product
   of its irreducible factors;
3. **numerators collected in the velocities** — with ``velocities`` given, n is written as
   Σ c_{ij} q̇ⁱq̇ʲ + Σ c_i q̇ⁱ + c₀ (the quadratic form mechanics papers print), each coefficient
   factored when that is shorter;
4. **named subexpressions** — subexpressions shared by the entries (a common denominator, a
   recurring coefficient) are named once, Δ₁, Δ₂, … ("where Δ = …"); a name is kept only where it
   shortens the whole (uses × size > uses + size + 1) and only for subexpressions of at least
   :data:`NAME_MIN_NODES` tree nodes.  Larger entries are handled here on their
   DAG (``cse`` visits each distinct subexpression once), and steps 2–3 then apply to each named
   piece small enough.

No step calls ``simplify``; :meth:`ReadableForm.expand` substitutes the names back.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import sympy as sp

from ..errors import InputError
from .coerce import as_expr
from .exact.affine import free_symbols_dag, xreplace_dag
from .exact.size import FACTOR_MAX_NODES, READABLE_MAX_NODES, tree_size
from .exact.trig import expand_multiple_angles, reduce_pythagorean, reduce_pythagorean_shortest
from .zero import ZeroTest, zero_tests

__all__ = ["ReadableForm", "readable", "PROVEN_ZERO_MAX_BOUND", "NAME_MIN_NODES"]

#: A probabilistic zero verdict makes an entry ``0`` only with a failure bound at most this
#: (the prime-field test gives (D/p)^3 with p = 2⁶¹ − 1: below 10⁻⁴⁰ for any degree D < 10⁶).
PROVEN_ZERO_MAX_BOUND = 1e-12

#: Subexpressions of fewer tree nodes are not named (sin θ, a²m, …: a reader takes them in at a
#: glance; a name for them only moves the reader's eye to the list of definitions).
NAME_MIN_NODES = 8

_PROOFS = ("structural", "normal form", "trig normal form")
_TRIG = (sp.sin, sp.cos, sp.tan)


def _proven_zero(t: ZeroTest) -> bool:
    """A zero verdict that is a proof, or exact/F_p random points with a finite small bound."""
    if not t.zero:
        return False
    if t.method in _PROOFS:
        return True
    if t.method in ("random points (exact)", "random points (F_p)"):
        return not math.isnan(t.bound) and t.bound <= PROVEN_ZERO_MAX_BOUND
    return False  # numerical evaluation decides nothing here


@dataclass(frozen=True)
class ReadableForm:
    """The readable form of a dict or list of expressions (:func:`readable`).

    ``equations`` has the keys (or the order) of the input, written with the names of
    ``definitions``: ordered (Symbol, expression) pairs, each expression in the input's symbols
    and the names defined before it.  ``zeros``: the keys (indices for a list) of the entries
    proven identically zero, with their :class:`~jetgeo.geometry.zero.ZeroTest`.
    """

    equations: dict | list
    definitions: tuple = ()
    zeros: dict = field(default_factory=dict)

    def _items(self) -> list:
        eqs = self.equations
        return list(eqs.items()) if isinstance(eqs, dict) else list(enumerate(eqs))

    def expand(self) -> dict | list:
        """The equations with every name substituted back (exactly the input's values).

        Returns
        -------
        dict or list
            Same keys (or order) as :attr:`equations`; the names are substituted on the DAG
        (each distinct subexpression once), so the result shares its subexpressions.

        Examples
        --------
        >>> x, y = sp.symbols("x y")
        >>> r = readable([(x + y)**3 / (1 + x), (x + y)**3 * x])
        >>> sp.expand(r.expand()[1] - (x + y)**3 * x)
        0
        """
        back: dict = {}
        memo: dict = {}  # shared: a node of definition i holds only names < i, already in ``back``
        for name, value in self.definitions:
            back[name] = xreplace_dag(value, back, memo)
        if isinstance(self.equations, dict):
            return {k: xreplace_dag(v, back, memo) for k, v in self.equations.items()}
        return [xreplace_dag(v, back, memo) for v in self.equations]

    def size(self) -> int:
        """Tree nodes of the equations plus those of the named subexpressions (one per name
        and the nodes of its expression).

        Returns
        -------
        int
            The size the issue's comparison with ``simplify(trigsimp(cancel(e)))`` uses.
        """
        memo: dict = {}
        total = sum(tree_size(v, memo) for _, v in self._items())
        return total + sum(1 + tree_size(v, memo) for _, v in self.definitions)

    def __str__(self) -> str:
        lines = [f"{sp.sstr(k)} = {sp.sstr(v)}" for k, v in self._items()]
        if self.definitions:
            lines.append("where")
            lines += [f"  {sp.sstr(n)} = {sp.sstr(v)}" for n, v in self.definitions]
        return "\n".join(lines)

    def _latex_rows(self) -> list:
        rows = [f"{sp.latex(k) if isinstance(k, sp.Basic) else k} &= {sp.latex(v)}" for k, v in self._items()]
        if self.definitions:
            rows.append(r"\text{where}\quad")
            rows += [f"{sp.latex(n)} &= {sp.latex(v)}" for n, v in self.definitions]
        return rows

    def latex(self) -> str:
        """The equations and the definitions as one LaTeX ``aligned`` block (no ``$``).

        Returns
        -------
        str
        """
        return r"\begin{aligned}" + r"\\ ".join(self._latex_rows()) + r"\end{aligned}"

    def _repr_latex_(self) -> str:
        return "$" + self.latex() + "$"


def _fraction(e: sp.Expr) -> tuple | None:
    """(n, d, canonical): expanded polynomials with ``e = n/d``, n and d reduced modulo
    sin² + cos² − 1 and cancelled; ``canonical`` when ``e`` is a rational function of symbols and
    sines and cosines of symbols, so that n is the normal form of the numerator and n = 0 iff
    ``e`` vanishes identically (see :mod:`jetgeo.geometry.exact.trig`).  ``None`` where ``cancel`` does not apply."""
    e = expand_multiple_angles(e)
    if e.atoms(sp.tan):
        e = e.replace(sp.tan, lambda a: sp.sin(a) / sp.cos(a))
    canonical = (all(f.func in (sp.sin, sp.cos) and f.args[0].is_Symbol for f in e.atoms(sp.Function))
                 and all(p.exp.is_Integer for p in e.atoms(sp.Pow)) and not e.has(sp.Derivative))
    try:
        n, d = sp.fraction(sp.cancel(sp.together(e)))
    except (sp.PolynomialError, TypeError, ValueError):
        return None
    for _ in range(3):  # the gcd of reduced polynomials can bring cos² back: reduce to a fixed point
        rn, rd = reduce_pythagorean(n), reduce_pythagorean(d)
        if rn is None or rd is None:
            canonical = False
            break
        nn, dd = sp.fraction(sp.cancel(rn / rd))
        if (nn, dd) == (n, d):
            break
        n, d = nn, dd
    sn, sd = reduce_pythagorean_shortest(n), reduce_pythagorean_shortest(d)
    return (n if sn is None else sn), (d if sd is None else sd), canonical


def _shortest(*forms):
    return min(forms, key=tree_size)


def _factor_if_shorter(e: sp.Expr) -> sp.Expr:
    try:
        return _shortest(e, sp.factor(e))
    except (sp.PolynomialError, TypeError, ValueError, NotImplementedError):
        return e


def _numerators(n: sp.Expr, velocities: tuple) -> list:
    """Equal forms of ``n``: as it is, common factors out, factored (if small), collected in the
    velocities (each coefficient factored if shorter) — the caller keeps the shortest."""
    forms = [n, sp.factor_terms(n)]
    if tree_size(n, cap=FACTOR_MAX_NODES) <= FACTOR_MAX_NODES:
        forms.append(_factor_if_shorter(n))
    if velocities and n.has(*velocities):
        parts = sp.collect(sp.expand(n), list(velocities), evaluate=False)
        collected = sp.Add(*[m * _factor_if_shorter(c) for m, c in parts.items()])
        forms += [collected, sp.factor_terms(collected)]
    return forms


def _denominator(d: sp.Expr) -> tuple:
    """(numeric coefficient, [factor**-k]) of the polynomial ``d``."""
    try:
        coeff, factors = sp.factor_list(d)
    except (sp.PolynomialError, TypeError, ValueError, NotImplementedError):
        return sp.Integer(1), [d**-1]
    return coeff, [f ** (-k) for f, k in factors]


def _fold_tangent(m: sp.Mul) -> sp.Expr:
    """sinᵃu·cos⁻ᵇu ↦ tanᵏu·sinᵃ⁻ᵏu·cos⁻⁽ᵇ⁻ᵏ⁾u, k = min(a, b), in one product (an identity)."""
    powers = dict(f.as_base_exp() for f in m.args if f.as_base_exp()[0].func in (sp.sin, sp.cos))
    rep = {}
    for base, a in powers.items():
        if base.func is sp.sin and a.is_Integer and a > 0:
            b = powers.get(sp.cos(base.args[0]))
            if b is not None and b.is_Integer and b < 0:
                k = min(a, -b)
                rep[base.args[0]] = k
    if not rep:
        return m
    out = []
    for f in m.args:
        base, x = f.as_base_exp()
        if base.func in (sp.sin, sp.cos) and base.args[0] in rep:
            k = rep[base.args[0]]
            out.append(base ** (x - k if base.func is sp.sin else x + k))
        else:
            out.append(f)
    return sp.Mul(*out, *[sp.tan(u) ** k for u, k in rep.items()])


def _tangents(e: sp.Expr) -> sp.Expr:
    """``e`` with sin u / cos u written tan u in its products (display form; exact)."""
    if not (e.has(sp.sin) and e.has(sp.cos)):
        return e
    return e.replace(lambda x: x.is_Mul, _fold_tangent)


def _normal_form(e: sp.Expr, velocities: tuple) -> sp.Expr:
    """Steps 2–3 for one expression; the shortest of it and its normal form (both exact)."""
    return _normal_form_decided(e, velocities)[0]


def _normal_form_decided(e: sp.Expr, velocities: tuple) -> tuple:
    """(:func:`_normal_form` of ``e``, whether that decided if ``e`` vanishes identically)."""
    if e.is_Atom:
        return e, True
    if tree_size(e, cap=READABLE_MAX_NODES) > READABLE_MAX_NODES:
        return e, False
    got = _fraction(e)
    if got is None:
        return e, False
    n, d, canonical = got
    if n == 0:
        return sp.Integer(0), True
    coeff, den = _denominator(d)
    # the shortest as a whole: a factored numerator merges into the product with the denominator
    outs = [_tangents(sp.Mul(num, *den)) for num in _numerators(sp.expand(n / coeff), velocities)]
    return _shortest(*outs, e), canonical


def _occurrences(e: sp.Expr, names: set, memo: dict) -> dict:
    """{name: occurrences in the tree of ``e``}, counted on the DAG (memoised per node)."""
    got = memo.get(e)
    if got is not None:
        return got
    if e in names:
        out = {e: 1}
    else:
        out: dict = {}
        for arg in e.args:
            for k, v in _occurrences(arg, names, memo).items():
                out[k] = out.get(k, 0) + v
    memo[e] = out
    return out


def _name_shared(values: list, velocities: tuple, taken: set, again: bool) -> tuple:
    """Step 4: ``cse`` on the values, non-paying names substituted back; with ``again`` (some
    entry was too large for steps 2–3) the pieces are brought to normal form first."""
    if all(v.is_Atom for v in values):
        return [], list(values)
    gen = sp.numbered_symbols("_readable_cse")
    defs, eqs = sp.cse(values, symbols=gen, optimizations=None, order="none", list=True)
    if again:
        defs = [(s, _normal_form(v, velocities)) for s, v in defs]
        eqs = [_normal_form(v, velocities) for v in eqs]
    for _ in range(20):  # drop the names that do not shorten the whole: uses × size ≤ uses + size + 1
        names = {s for s, _ in defs}
        occ_memo: dict = {}
        uses: dict = {}
        for w in [v for _, v in defs] + eqs:
            for k, n in _occurrences(w, names, occ_memo).items():
                uses[k] = uses.get(k, 0) + n
        rep: dict = {}
        memo: dict = {}
        kept = []
        for s, v in defs:  # in order: a value is measured with the names dropped before it inlined
            v = xreplace_dag(v, rep, memo)
            size = tree_size(v, cap=10**6)
            k = uses.get(s, 0)
            if size < NAME_MIN_NODES or k * size <= k + size + 1:
                rep[s] = v
            else:
                kept.append((s, v))
        if not rep:
            break
        defs = kept
        eqs = [xreplace_dag(v, rep, memo) for v in eqs]
    # the names Δ₁, Δ₂, … in order of definition (avoiding the input's own symbol names)
    names = {}
    k = 0
    for s, _ in defs:
        k += 1
        while f"Delta_{k}" in taken:
            k += 1
        names[s] = sp.Symbol(f"Delta_{k}")
    memo = {}
    defs = [(names[s], xreplace_dag(v, names, memo, renaming=True)) for s, v in defs]
    eqs = [xreplace_dag(v, names, memo, renaming=True) for v in eqs]
    return defs, eqs


def readable(exprs, velocities=None) -> ReadableForm:
    """The readable form of ``exprs``: exact zeros, a trigonometric normal form over one common
    denominator with its factors kept, numerators collected in ``velocities``, shared
    subexpressions named once (see the module docstring and theory/readable.md).

    Parameters
    ----------
    exprs : dict or list
        Expressions (sympy or convertible), e.g. ``cs.accelerations()``; possibly large
        unexpanded DAGs sharing subexpressions.
    velocities : iterable of Symbol, optional
        The numerators are collected in these (the quadratic form in q̇); by default they are
        only factored where that is shorter.

    Returns
    -------
    ReadableForm
        ``equations`` (same keys or order), ``definitions`` ((Symbol, expression) pairs),
        ``zeros``; ``expand()`` gives back expressions equal to the input.

    Raises
    ------
    InputError
        If ``exprs`` is not a dict or a list/tuple, or ``velocities`` contains a non-symbol.

    Examples
    --------
    >>> th, w, a = sp.symbols("theta omega a")
    >>> r = readable({"u": a * w**2 * (sp.sin(th)**2 + sp.cos(th)**2) / (1 + a**2),
    ...               "v": sp.sin(2 * th) - 2 * sp.sin(th) * sp.cos(th)}, velocities=[w])
    >>> r.equations
    {'u': a*omega**2/(a**2 + 1), 'v': 0}
    """
    if isinstance(exprs, dict):
        keys = list(exprs)
        values = [as_expr(v) for v in exprs.values()]
    elif isinstance(exprs, (list, tuple)):
        keys = None
        values = [as_expr(v) for v in exprs]
    else:
        raise InputError(f"readable: expected a dict or a list of expressions, got {type(exprs).__name__}")
    vel = tuple(velocities or ())
    bad = [v for v in vel if not isinstance(v, sp.Symbol)]
    if bad:
        raise InputError(f"readable: velocities must be symbols, got {bad[0]!r}")
    if all(v.is_Atom for v in values):  # nothing to rewrite (a number, a symbol)
        return ReadableForm(dict(zip(keys, values)) if keys is not None else values)
    original = list(values)
    again = any(tree_size(v, cap=READABLE_MAX_NODES) > READABLE_MAX_NODES for v in values)
    # 2-3. per entry: trigonometric normal form, common denominator, collected numerator; for a
    # rational function of symbols and sin/cos of symbols this also decides whether it is zero
    decided = [_normal_form_decided(v, vel) for v in values]
    values = [v for v, _ in decided]
    # 1. exact zeros of the entries not decided by their normal form (large ones, other functions)
    undecided = [i for i, (_, ok) in enumerate(decided) if not ok]
    zeros = {}
    for i, t in zip(undecided, zero_tests([values[i] for i in undecided])):
        if values[i] != 0 and _proven_zero(t):
            zeros[keys[i] if keys is not None else i] = t
            values[i] = sp.Integer(0)
    # 4. shared subexpressions named once (2-3 again on each piece if some entry was too large)
    taken = {s.name for s in free_symbols_dag(values)}
    defs, eqs = _name_shared(values, vel, taken, again)
    for i, e in enumerate(eqs):  # zeros found by the exact rewriting itself (a normal form is 0)
        key = keys[i] if keys is not None else i
        if e == 0 and key not in zeros and original[i] != 0:
            zeros[key] = ZeroTest(True, "trig normal form")
    equations = dict(zip(keys, eqs)) if keys is not None else eqs
    return ReadableForm(equations, tuple(defs), zeros)
