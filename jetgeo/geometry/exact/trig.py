r"""The one trigonometric reduction: polynomials modulo sin²θ + cos²θ − 1.

A polynomial in sin θ, cos θ (coefficients rational functions of everything else) is reduced
modulo sin²θ + cos²θ − 1 by cos^{2j+e} θ ↦ cos^e θ (1 − sin²θ)^j, e ∈ {0, 1}, for every cosine
atom.  For sines and cosines of *independent symbols* the result is a normal form: it is zero
iff the polynomial vanishes identically (the ring ℚ(x)[s, c]/(s² + c² − 1) has the basis
sⁱ, sⁱc).  Multiple angles (sin 2θ, cos(θ₁ − θ₂)) are expanded to bare angles first when a
normal form is asked for (:func:`trig_normal_form`); :func:`trig_reduce` reduces numerator and
denominator of a rational expression and cancels — a cheap exact normaliser for the small
matrices the recipes and the implicit-equation algorithm solve, never a general simplifier.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import product

import sympy as sp

from ..coerce import as_expr
from .size import atoms_dag, is_small, tree_size

__all__ = [
    "trig_reduce",
    "trig_reduce_if_small",
    "trig_normal_form",
    "reduce_pythagorean",
    "reduce_pythagorean_shortest",
    "reduce_pythagorean_poly",
    "pythagorean_forms",
    "trig_cancel",
    "expand_multiple_angles",
]

#: at most this many angles get every combination of reduction directions in :func:`pythagorean_forms`
PYTHAGOREAN_FORMS_MAX_ANGLES = 3

_TRIG = (sp.sin, sp.cos, sp.tan)


def reduce_pythagorean(p: sp.Expr) -> sp.Expr | None:
    """The expanded polynomial ``p`` reduced modulo sin²u + cos²u − 1 for every cos u occurring
    in it (cos^{2j+e} u ↦ cos^e u (1 − sin²u)^j); ``None`` if ``p`` is not polynomial in a
    cosine it contains (cos u in a denominator or under a root).

    Parameters
    ----------
    p : sympy.Expr
        An expanded polynomial in sines and cosines (over rational functions of other atoms).

    Returns
    -------
    sympy.Expr or None
        The reduced polynomial, even powers of cosines replaced through 1 − sin²; ``None`` when
        ``p`` is not polynomial in a cosine it contains.

    Examples
    --------
    >>> th = sp.Symbol("theta")
    >>> reduce_pythagorean(sp.expand(sp.cos(th)**2 + sp.sin(th)**2))
    1
    """
    p = sp.expand(p)
    for c in sorted(p.atoms(sp.cos), key=sp.default_sort_key):
        s = sp.sin(c.args[0])
        # the terms of p as (c-free part)·c^k, read off term by term (no polynomial ring over the other atoms:
        # building one was most of this function's time); its expansion equals the one of the sum by powers
        terms = [_power_of(t, c) for t in sp.Add.make_args(p)]
        if any(t is None for t in terms):
            return None
        p = sp.expand(sp.Add(*[rest * c ** (k % 2) * (1 - s**2) ** (k // 2) for k, rest in terms]))
    return p


def _power_of(term: sp.Expr, c: sp.Expr) -> tuple | None:
    """(k, rest) with ``term`` = rest·c^k and rest free of c, k ≥ 0 an integer; None if c occurs in ``term``
    otherwise (in a denominator, under a root, inside a function): not polynomial in c."""
    k, rest = 0, []
    for f in sp.Mul.make_args(term):
        base, e = f.as_base_exp()
        if base == c:
            if not (e.is_Integer and e > 0):
                return None
            k += int(e)
        elif f.has(c):
            return None
        else:
            rest.append(f)
    return k, sp.Mul(*rest)


def reduce_pythagorean_shortest(p: sp.Expr) -> sp.Expr | None:
    """The expanded polynomial ``p`` reduced modulo sin²u + cos²u − 1, angle by angle, in the
    shorter of the two directions: cos^{2j+e} u ↦ cos^e u (1 − sin²u)^j or
    sin^{2j+e} u ↦ sin^e u (1 − cos²u)^j, whichever has fewer tree nodes (ties: the first).
    Each direction is a normal form for its angle (the basis sⁱ, sⁱc, resp. cⁱ, cⁱs of
    ℚ(x)[s, c]/(s² + c² − 1)), so the result equals ``p`` exactly and is zero iff ``p``
    vanishes identically (for sin/cos of independent symbols).  ``None`` if ``p`` is not
    polynomial in a sine or cosine it contains.

    Parameters
    ----------
    p : sympy.Expr
        An expanded polynomial in sines and cosines.

    Returns
    -------
    sympy.Expr or None
        The reduced polynomial (equal to ``p`` modulo sin² + cos² = 1), or ``None``.

    Examples
    --------
    >>> th, a, b = sp.symbols("theta a b")
    >>> reduce_pythagorean_shortest(a * sp.cos(th)**2 + a * sp.sin(th)**2 + b * sp.cos(th)**2)
    a + b*cos(theta)**2
    """
    p = sp.expand(p)
    angles = sorted({a.args[0] for a in p.atoms(sp.sin, sp.cos)}, key=sp.default_sort_key)
    for u in angles:
        s, c = sp.sin(u), sp.cos(u)
        forms = []
        for x, y in ((c, s), (s, c)):  # reduce powers of x by x² = 1 − y²
            reduced = _eliminate_square(p, x, y)
            if reduced is None:
                return None
            forms.append(reduced)
        p = min(forms, key=tree_size)
    return p


def _eliminate_square(p: sp.Expr, x: sp.Expr, y: sp.Expr) -> sp.Expr | None:
    """``p`` with x^{2j+e} ↦ x^e (1 − y²)^j, e ∈ {0, 1}, expanded (``p`` itself when it has no x);
    ``None`` when ``p`` is not polynomial in x."""
    if not p.has(x):
        return p
    try:
        poly = sp.Poly(p, x)
    except sp.PolynomialError:
        return None
    return sp.expand(sp.Add(*[coeff * x ** (k % 2) * (1 - y**2) ** (k // 2) for (k,), coeff in poly.terms()]))


def pythagorean_forms(p: sp.Expr) -> list:
    """The forms of the polynomial ``p`` modulo sin² + cos² − 1 with one direction per angle
    (sin² ↦ 1 − cos² or cos² ↦ 1 − sin²): every combination for at most
    :data:`PYTHAGOREAN_FORMS_MAX_ANGLES` angles, else the two uniform ones; ``p`` (expanded) first,
    no form twice.  Each equals ``p`` modulo the identity; a property visible in one form only (a
    perfect square, a common factor) is found by trying them all.

    Parameters
    ----------
    p : sympy.Expr
        A polynomial in sines and cosines (over rational functions of other atoms).

    Returns
    -------
    list of sympy.Expr
        The forms, ``p`` expanded first; the directions for which ``p`` is not polynomial in the
        eliminated atom are left out.

    Examples
    --------
    >>> th = sp.Symbol("theta")
    >>> pythagorean_forms(1 - sp.sin(th)**2)
    [1 - sin(theta)**2, cos(theta)**2]
    """
    p = sp.expand(as_expr(p))
    angles = sorted({a.args[0] for a in p.atoms(sp.sin, sp.cos)}, key=sp.default_sort_key)
    if len(angles) <= PYTHAGOREAN_FORMS_MAX_ANGLES:
        choices = list(product((0, 1), repeat=len(angles)))
    else:
        choices = [(0,) * len(angles), (1,) * len(angles)]
    forms = [p]
    for choice in choices:
        q = p
        for u, d in zip(angles, choice):
            s, c = sp.sin(u), sp.cos(u)
            q = _eliminate_square(q, *((c, s) if d == 0 else (s, c)))
            if q is None:
                break
        if q is not None and q not in forms:
            forms.append(q)
    return forms


def trig_cancel(expr) -> sp.Expr:
    """A rational expression in sines and cosines, cancelled also where the common factor appears
    only modulo sin² + cos² − 1.

    ``sympy.cancel`` treats sin u and cos u as independent generators, so in
    (a sin²u − a) / cos u it sees no common factor; written as −a cos²u / cos u it cancels to
    −a cos u.  Angle by angle, numerator and denominator are rewritten in each direction of the
    identity (:func:`pythagorean_forms`' reductions) and cancelled; the smallest candidate (tree nodes;
    ties: the earlier) is kept.  Every candidate equals ``expr`` modulo the identity: exact, no
    ``simplify``.  An angle in whose sines or cosines the expression is not polynomial is left as it is.

    Parameters
    ----------
    expr : sympy expression
        A rational function of sines, cosines and other atoms.

    Returns
    -------
    sympy.Expr
        An equal expression, cancelled modulo sin² + cos² − 1.

    Examples
    --------
    >>> psi, a = sp.symbols("psi a")
    >>> trig_cancel((a * sp.sin(psi)**2 - a) / sp.cos(psi))
    -a*cos(psi)
    """
    expr = as_expr(expr)
    if expr.is_Atom:
        return expr
    best = sp.cancel(sp.together(expr))
    angles = sorted({a.args[0] for a in best.atoms(sp.sin, sp.cos)}, key=sp.default_sort_key)
    for u in angles:
        s, c = sp.sin(u), sp.cos(u)
        candidates = [best]
        num, den = sp.fraction(best)
        for x, y in ((s, c), (c, s)):
            parts = [_eliminate_square(part, x, y) for part in (num, den)]
            if parts[0] is not None and parts[1] is not None:
                candidates.append(sp.cancel(parts[0] / parts[1]))
        best = min(candidates, key=tree_size)
    return best


def trig_reduce(expr) -> sp.Expr:
    """``expr`` with numerator and denominator reduced modulo sin² + cos² − 1 (cos² → 1 − sin²),
    then cancelled.  Expressions without cosines, or not polynomial in them, are returned
    cancelled only.  Exact, cheap, idempotent; no ``simplify``.

    Parameters
    ----------
    expr : sympy.Expr
        Any expression.

    Returns
    -------
    sympy.Expr
        An equal expression, numerator and denominator reduced modulo sin² + cos² − 1, cancelled.

    Examples
    --------
    >>> th, a = sp.symbols("theta a")
    >>> trig_reduce((a * sp.sin(th)**2 + a * sp.cos(th)**2) / (1 - sp.cos(th)**2))
    a/sin(theta)**2
    """
    expr = as_expr(expr)
    if expr.is_Number or expr.is_Symbol:
        return expr
    return _trig_reduce_cached(expr)


#: expressions whose :func:`trig_reduce` is kept per process
TRIG_REDUCE_MEMO_SIZE = 4096


@lru_cache(maxsize=TRIG_REDUCE_MEMO_SIZE)
def _trig_reduce_cached(expr: sp.Expr) -> sp.Expr:
    """:func:`trig_reduce` of a sympy expression, kept per process (an ``lru_cache``, emptied with jetgeo's
    caches by the benchmarks): the same entries come back — a body's contact kinematics built again, a chart
    of the orientation atlas set up again, a frame's quasi-velocities inverted again — and were cancelled
    again (4.6 s of the 12.0 s trig_reduce took in three test files of rigid bodies, each in its own process);
    sympy expressions are immutable, so the result is shared safely."""
    try:
        expr = sp.cancel(sp.together(expr))
    except (sp.PolynomialError, TypeError, ValueError):  # pragma: no cover - defensive
        expr = sp.expand(expr)
    if not expr.has(sp.cos):
        return expr
    num, den = sp.fraction(expr)
    rn, rd = reduce_pythagorean(num), reduce_pythagorean(den)
    if rn is None or rd is None:
        return expr
    return sp.cancel(rn / rd)


def trig_reduce_if_small(expr) -> sp.Expr:
    """:func:`trig_reduce` for an expression of at most ``NORMALISE_MAX_NODES`` tree nodes; a
    larger one (an unexpanded DAG of a long chain of bodies) is returned as it is — exact, and
    decided by the F_p tier of the zero test when needed (cancelling it costs minutes).

    Parameters
    ----------
    expr : sympy.Expr
        Any expression, possibly an unexpanded DAG.

    Returns
    -------
    sympy.Expr
        :func:`trig_reduce` of ``expr`` when it has at most ``NORMALISE_MAX_NODES`` tree nodes,
        otherwise ``expr`` itself.

    Examples
    --------
    >>> th = sp.Symbol("theta")
    >>> trig_reduce_if_small(sp.sin(th)**2 + sp.cos(th)**2)
    1
    """
    expr = as_expr(expr)
    return trig_reduce(expr) if is_small(expr) else expr


def trig_normal_form(expr) -> sp.Expr | None:
    """Numerator of ``expr`` reduced modulo sin²θ + cos²θ − 1 for every angle θ.

    Multiple angles are expanded (``expand_trig``) and tan = sin/cos first.  Returns the reduced
    polynomial — zero iff ``expr`` vanishes identically, for expressions polynomial in sin/cos of
    bare symbols over rational functions of the remaining atoms — or ``None`` when the
    expression is not of that kind.

    Parameters
    ----------
    expr : sympy.Expr
        The expression to decide (typically a difference of two results).

    Returns
    -------
    sympy.Expr or None
        The numerator of ``expr`` (after ``together``) reduced modulo sin²θ + cos²θ − 1, or ``None``.

    Examples
    --------
    >>> th = sp.Symbol("theta")
    >>> trig_normal_form(sp.sin(2 * th) - 2 * sp.sin(th) * sp.cos(th))
    0
    """
    expr = expand_multiple_angles(as_expr(expr))
    if expr.atoms(sp.tan):
        expr = expr.replace(sp.tan, lambda a: sp.sin(a) / sp.cos(a))
    if not _trig_args_are_symbols(expr):
        return None
    num = sp.fraction(sp.together(expr))[0]
    return reduce_pythagorean(num)


def expand_multiple_angles(expr: sp.Expr) -> sp.Expr:
    """``expand_trig`` when some sin/cos/tan acts on more than a bare symbol (sin 2θ, cos(θ₁ − θ₂)),
    so that trigonometric functions act on bare angles where possible; else ``expr`` itself.

    Parameters
    ----------
    expr : sympy.Expr
        Any expression.

    Returns
    -------
    sympy.Expr
        ``expr`` with sin(2θ), cos(θ₁ − θ₂), … written through sin, cos of the bare angles
        (addition theorems), or ``expr`` unchanged when every trigonometric argument is a symbol.

    Examples
    --------
    >>> th = sp.Symbol("theta")
    >>> expand_multiple_angles(sp.sin(2 * th))
    2*sin(theta)*cos(theta)
    """
    if atoms_dag(expr, *_TRIG) and not _trig_args_are_symbols(expr):
        expr = sp.expand_trig(expr)
    return expr


def _trig_args_are_symbols(expr: sp.Expr) -> bool:
    return all(a.args[0].is_Symbol for a in atoms_dag(expr, *_TRIG))


def reduce_pythagorean_poly(p, x, y):
    """The ring element ``p`` with x^{2j+e} ↦ x^e (1 − y²)^j, e ∈ {0, 1}: its reduction modulo
    x² + y² − 1 with x the eliminated generator (x = cos u, y = sin u, or the other way round).

    ``p`` is a :class:`~sympy.polys.rings.PolyElement`, ``x`` and ``y`` generators of its ring.
    The ring-level twin of :func:`reduce_pythagorean` (which works on expressions): the same
    normal form, computed on the sparse polynomial without building expressions.

    Parameters
    ----------
    p : PolyElement
        The polynomial.
    x, y : PolyElement
        Generators of its ring: x is eliminated above degree 1 by x² = 1 − y².

    Returns
    -------
    PolyElement
        The reduced polynomial (``p`` itself when no power of x reaches 2).

    Examples
    --------
    >>> from sympy.polys.rings import ring
    >>> from sympy.polys.domains import QQ
    >>> R, c, s, a = ring("c s a", QQ)
    >>> reduce_pythagorean_poly(a * c**2 + a * s**2 + c**3, c, s)
    -c*s**2 + c + a
    """
    ring = p.ring
    ix = ring.gens.index(x)
    parts: dict = {}
    for monom, coeff in p.iterterms():
        j, e = divmod(monom[ix], 2)
        parts.setdefault(j, {})[monom[:ix] + (e,) + monom[ix + 1:]] = coeff
    if len(parts) == 1 and 0 in parts:
        return p
    out = ring.zero
    base = 1 - y**2
    for j, terms in parts.items():
        out += ring.from_dict(terms) * base**j
    return out
