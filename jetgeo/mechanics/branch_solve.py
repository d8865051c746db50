r"""The solution branches q̇^D = g(t, q, q̇^I) of non-linear constraints f = 0, solved exactly and
ordered by their values (theory/constraints.md, 'Branches').

* **Solving.**  Equations polynomial in the dependent velocities are solved by elimination: an
  equation affine in one unknown (its coefficient free of the other unknowns and proven non-zero
  by the zero test) is solved for it and substituted into the others; a remaining equation in one
  unknown of degree 2 is solved by the quadratic formula, the square root of its discriminant Δ
  written as P √R with Δ = P² R exactly (:func:`square_part`: Δ factored in each of the forms
  modulo sin² + cos² − 1), so that Δ = a²θ̇² sin²θ cos²ψ gives the two smooth branches ± aθ̇ sin θ
  cos ψ, not √Δ.  Every other system goes to ``sympy.solve`` with ``check=False, simplify=False``:
  its solution check runs ``simplify`` (4.3 s of the non-linear rolling disc), and no ``simplify``
  runs in a computation path of jetgeo.  Each result is tidied by
  :func:`~jetgeo.geometry.exact.trig_cancel` when small.
* **Verifying.**  Each candidate is substituted into f and decided by the zero test
  (:func:`~jetgeo.geometry.zero.zero_test`); square roots √R are first replaced by symbols s and
  the numerators reduced modulo s² − R, so that a root of the quadratic formula is verified in exact
  rational arithmetic.  A candidate proven not to solve f = 0 (sympy's solutions of an equation it
  squared) is dropped; one the zero test cannot decide raises :class:`~jetgeo.errors.UndecidedError`
  naming it — never kept or dropped silently.
* **Ordering.**  The branches are sorted by their values at fixed exact sample points of the base
  (:data:`ORDER_POINTS`): the largest value of the first dependent velocity first (real parts, then
  imaginary parts), then the next dependent velocity; a tie at one point (a branch point) is broken
  at the next.  The values are those of the branches as functions, not of how they are written, so
  the order is the same whatever form the solver, a rewriting of f or a tidy produced.
"""

from __future__ import annotations

import random
from functools import cmp_to_key

import sympy as sp

from ..errors import UndecidedError
from ..geometry.coerce import as_expr
from ..geometry.exact import NORMAL_FORM_MAX_NODES, is_small, pythagorean_forms, trig_cancel, xreplace_dag
from ..geometry.zero import angles_of, substitution, zero_test

__all__ = ["solve_branches", "square_part", "order_branches", "ORDER_POINTS"]

#: number of fixed sample points of the base used to order the branches (ties at one broken at the next)
ORDER_POINTS = 4

#: seed of the fixed sample points (the order must never change between releases: keep it)
_ORDER_SEED = 28

#: digits to which two branch values are compared at a sample point
_ORDER_DIGITS = 40


def solve_branches(eqs, unknowns, what: str) -> list:
    """All solutions of ``eqs = 0`` for ``unknowns``, verified exactly and in the value order.

    Parameters
    ----------
    eqs : list of sympy.Expr
        The equations f = 0 (not affine in ``unknowns``: the caller solves those by LU).
    unknowns : list of sympy.Symbol
        The unknowns (the dependent velocities).
    what : str
        Names the equations in error messages.

    Returns
    -------
    list of dict
        One ``{unknown: value}`` per branch, ordered by :func:`order_branches`.

    Raises
    ------
    UndecidedError
        When no explicit solution is found, or the zero test cannot decide whether a candidate
        solves ``eqs``.

    Examples
    --------
    >>> xd, yd, zd = sp.symbols("xdot ydot zdot")
    >>> solve_branches([xd**2 + yd**2 - 4 * zd**2], [zd], "the constraints")
    [{zdot: sqrt(xdot**2 + ydot**2)/2}, {zdot: -sqrt(xdot**2 + ydot**2)/2}]
    """
    eqs = [as_expr(e, "equation") for e in eqs]
    unknowns = list(unknowns)
    cands = _eliminate(eqs, unknowns)
    if cands is None:
        cands = _sympy_candidates(eqs, unknowns, what)
    sols = []
    for cand in cands:
        if _verified(eqs, cand, what) and not any(_same(cand, s, unknowns) for s in sols):
            sols.append(cand)
    if not sols:
        raise UndecidedError(f"{what}: no explicit solution for {unknowns} was found")
    return order_branches(sols, unknowns)


# --- solving -------------------------------------------------------------------------------------------


def _tidy(e: sp.Expr) -> sp.Expr:
    return trig_cancel(e) if is_small(e, NORMAL_FORM_MAX_NODES) else e


def _numerator(e: sp.Expr) -> sp.Expr:
    return sp.expand(sp.fraction(sp.together(e))[0])


def _coefficients(num: sp.Expr, u: sp.Symbol) -> list | None:
    """[c₀, c₁, …] of ``num`` as a polynomial in ``u`` (leading coefficients proven zero removed), or
    ``None`` when it is not one."""
    try:
        poly = sp.Poly(num, u)
    except sp.PolynomialError:
        return None
    cs = [poly.coeff_monomial(u**k) for k in range(poly.degree() + 1)]
    while len(cs) > 1 and zero_test(cs[-1]).zero:
        cs.pop()
    return cs


def _eliminate(eqs: list, unknowns: list) -> list | None:
    """The candidates by elimination (see the module docstring), or ``None`` when the system is not
    of that kind (then sympy solves it)."""
    eqs = [_numerator(e) for e in eqs]
    if any(e == 0 for e in eqs) or len(eqs) != len(unknowns):
        return None
    if not all(e.is_polynomial(*unknowns) for e in eqs):
        return None
    # an equation affine in an unknown whose coefficient is free of the unknowns: the smallest coefficient
    best = None
    for i, e in enumerate(eqs):
        for u in unknowns:
            if not e.has(u):
                continue
            cs = _coefficients(e, u)
            if cs is None or len(cs) != 2 or cs[1].has(*unknowns):
                continue
            key = (sp.count_ops(cs[1]), i, unknowns.index(u))
            if best is None or key < best[0]:
                best = (key, i, u, cs)
    if best is not None:
        _, i, u, (c0, c1) = best
        value = _tidy(-c0 / c1)
        rest_eqs = [e.xreplace({u: value}) for j, e in enumerate(eqs) if j != i]
        rest_unknowns = [v for v in unknowns if v != u]
        if not rest_unknowns:
            return [{u: value}]
        subs = _eliminate(rest_eqs, rest_unknowns)
        if subs is None:
            return None
        return [{**s, u: _tidy(value.xreplace(s))} for s in subs]
    # one equation in one unknown of degree 2
    if len(unknowns) != 1:
        return None
    (e,), (u,) = eqs, unknowns
    cs = _coefficients(e, u)
    if cs is None or len(cs) != 3:
        return None
    c0, c1, c2 = cs
    p, r = square_part(c1**2 - 4 * c0 * c2)
    root = p * sp.sqrt(r)
    return [{u: _tidy((-c1 + sign * root) / (2 * c2))} for sign in (1, -1)]


def square_part(delta: sp.Expr) -> tuple:
    """(P, R) with Δ = P² R exactly (modulo sin² + cos² − 1), R as small as the factorisations find.

    The numerator N and denominator M of Δ give Δ = N M / M²; N M is factored (``factor_list``,
    sines and cosines as generators) in each of its forms modulo sin² + cos² − 1
    (:func:`~jetgeo.geometry.exact.pythagorean_forms`); the factors of even multiplicity go to P, the rest to R, and the
    form with the smallest R wins (ties: the earlier).  Then √Δ = ±P √R pointwise, so the pair
    (−b ± √Δ)/2a of the quadratic formula is the same pair of values with P √R in it.

    Parameters
    ----------
    delta : sympy.Expr
        A rational expression in symbols, sines and cosines (a discriminant).

    Returns
    -------
    tuple
        (P, R), sympy expressions with P² R = Δ.

    Examples
    --------
    >>> a, th, ps, w = sp.symbols("a theta psi w")
    >>> square_part(4 * a**2 * w**2 * sp.sin(th)**2 * (1 - sp.sin(ps)**2))
    (2*a*w*sin(theta)*cos(psi), 1)
    """
    num, den = sp.fraction(sp.together(delta))
    prod = sp.expand(num * den)
    if not is_small(prod, NORMAL_FORM_MAX_NODES):
        return sp.Integer(1) / den, prod
    forms = pythagorean_forms(prod)
    best = None
    for form in forms:
        try:
            content, factors = sp.factor_list(form)
        except sp.PolynomialError:
            continue
        # the rational content c = q² c' (q rational, c' free of squares) gives q to P
        q, c = sp.Integer(1), content
        if content.is_Rational and content != 0:
            q, rest = sp.sqrt(abs(content)).as_coeff_Mul()
            c = sp.sign(content) * rest**2
        p = q * sp.Mul(*[f ** (k // 2) for f, k in factors])
        r = c * sp.Mul(*[f ** (k % 2) for f, k in factors])
        if best is None or sp.count_ops(r) < sp.count_ops(best[1]):
            best = (p, r)
    if best is None:
        return sp.Integer(1) / den, prod
    p, r = best
    return p / den, r


def _sympy_candidates(eqs: list, unknowns: list, what: str) -> list:
    """sympy's solutions, without its check and its simplification (see the module docstring)."""
    try:
        sols = sp.solve(list(eqs), list(unknowns), dict=True, check=False, simplify=False)
    except NotImplementedError as exc:
        raise UndecidedError(
            f"{what}: sympy cannot solve {list(eqs)} for {list(unknowns)}; "
            "give the normal form q̇^D = g or a parametrisation instead"
        ) from exc
    return [{u: _tidy(s[u]) for u in unknowns} for s in sols if all(u in s for u in unknowns)]


# --- verifying -----------------------------------------------------------------------------------------


def _verified(eqs: list, sol: dict, what: str) -> bool:
    """Whether ``sol`` solves ``eqs`` (the zero test's verdict); UndecidedError when it cannot say."""
    for f in eqs:
        value = xreplace_dag(f, sol)
        try:
            if _zero_modulo_roots(value):
                continue
            if not zero_test(value).zero:
                return False
        except UndecidedError as exc:
            listing = ", ".join(f"{k} = {v}" for k, v in sol.items())
            raise UndecidedError(
                f"{what}: cannot decide whether {listing} solves {f} = 0 ({exc}); "
                "give the normal form q̇^D = g instead"
            ) from exc
    return True


def _zero_modulo_roots(value: sp.Expr) -> bool:
    """True when ``value``, its square roots √R replaced by symbols s and its numerator reduced modulo
    s² − R, has every coefficient proven zero by the zero test (exact tiers); False when that does
    not show it (the caller then asks the zero test of ``value`` itself)."""
    roots = sorted({p for p in value.atoms(sp.Pow) if p.exp == sp.Rational(1, 2)}, key=sp.default_sort_key)
    if not roots or not is_small(value, NORMAL_FORM_MAX_NODES):
        return False
    names = [sp.Dummy(f"s{i}") for i in range(len(roots))]
    num = _numerator(value.xreplace(dict(zip(roots, names))))
    try:
        for s, root in zip(names, roots):
            if num.has(s):
                num = sp.rem(num, s**2 - root.base, s)
    except sp.PolynomialError:  # a root inside a function (sin(2 atan(√R))): not polynomial in s
        return False
    if any(num.has(p) for p in roots):  # a root inside another's radicand: not this way
        return False
    try:
        coeffs = sp.Poly(num, *names).coeffs() if num != 0 else []
    except sp.PolynomialError:
        return False
    return all(zero_test(c).zero for c in coeffs)


def _same(s1: dict, s2: dict, unknowns: list) -> bool:
    """Whether two candidates are the same branch (sympy may list a root twice)."""
    try:
        return all(zero_test(s1[u] - s2[u]).zero for u in unknowns)
    except UndecidedError:
        return False


# --- ordering ------------------------------------------------------------------------------------------


def _sample_point(index: int, symbols, angles) -> dict:
    """The fixed sample point number ``index``: positive rationals 1/2 … 5/2 for the symbols, circle
    parameters in (0, 1/2) for the angles (sin, cos > 0), drawn by name from a fixed seed."""
    rng = random.Random(_ORDER_SEED + 1000 * index)
    point = {}
    for s in sorted(symbols, key=sp.default_sort_key):
        num = rng.randint(1, 997)
        if s in angles:
            point[s] = ("angle", sp.Rational(num, 2 * 997 + 1))
        else:
            sign = -1 if (s.is_negative or s.is_nonpositive) else 1
            point[s] = ("value", sign * (sp.Rational(1, 2) + sp.Rational(2 * num, 997)))
    return point


def order_branches(sols: list, unknowns: list) -> list:
    """``sols`` sorted by their values at the fixed sample points (see the module docstring).

    Parameters
    ----------
    sols : list of dict
        Distinct solutions ``{unknown: value}``.
    unknowns : list of sympy.Symbol
        The unknowns, in the order that decides (the first dependent velocity first).

    Returns
    -------
    list of dict
        The same solutions: the largest value of the first unknown at the first sample point first
        (real parts compared first, then imaginary parts; then the next unknown; a tie is broken at
        the next point; solutions equal at every point keep their order).

    Examples
    --------
    >>> x, y = sp.symbols("x y")
    >>> order_branches([{y: -x}, {y: x}], [y])   # x is positive at the sample point
    [{y: x}, {y: -x}]
    """
    if len(sols) < 2:
        return list(sols)
    exprs = [s[u] for s in sols for u in unknowns]
    symbols = set().union(*(e.free_symbols for e in exprs)) - set(unknowns)
    angles = set().union(*(angles_of(e) for e in exprs))
    trig = set().union(*(e.atoms(sp.sin, sp.cos, sp.tan) for e in exprs))
    reps = [substitution(_sample_point(i, symbols, angles), trig) for i in range(ORDER_POINTS)]
    values: dict = {}

    def value(i: int, p: int, u: sp.Symbol):
        key = (i, p, u)
        if key not in values:
            values[key] = sols[i][u].xreplace(reps[p])
        return values[key]

    def sign(x: sp.Expr) -> tuple:
        """Signs of the real and imaginary parts of a number (0 when below the comparison accuracy)."""
        try:
            z = complex(sp.N(x, _ORDER_DIGITS, strict=True))
        except (sp.PrecisionExhausted, TypeError, ValueError, ZeroDivisionError):
            z = complex(sp.N(x, _ORDER_DIGITS))
        eps = 10.0 ** (-_ORDER_DIGITS // 2)
        return tuple(0 if abs(c) <= eps else (1 if c > 0 else -1) for c in (z.real, z.imag))

    def compare(i: int, j: int) -> int:
        for p in range(ORDER_POINTS):
            for u in unknowns:
                vi, vj = value(i, p, u), value(j, p, u)
                if vi.has(sp.zoo, sp.nan) or vj.has(sp.zoo, sp.nan):
                    continue  # a pole of a branch at this point: the next point decides
                for s in sign(vi - vj):
                    if s:
                        return -s  # larger first
        return i - j

    order = sorted(range(len(sols)), key=cmp_to_key(compare))
    return [sols[i] for i in order]
