r"""Shadow values: exact values of expressions in the prime field F_p at a random point.

Every decision "this entry is non-zero, so it may be a pivot" of the exact core is taken on a
*shadow value*: the value of the expression in F_p, p = 2⁶¹ − 1, at a deterministic random
point.  Symbols take random residues; sin θ, cos θ take the coordinates of a random point of
the unit circle over F_p, ((1 − u²)/(1 + u²), 2u/(1 + u²)), so that sin² + cos² = 1 and the
addition theorems hold *exactly* there.  A rational function that is zero as a function has
shadow 0 wherever it is defined; so a **non-zero shadow proves the function non-zero** — no
symbolic zero test, no intermediate simplification.  (A zero shadow of a non-zero function is
possible, with probability about deg/p ≈ 10⁻¹⁷ per entry; it only costs a pivot choice, and a
rank is taken as the maximum over two points.)

Atoms the field arithmetic cannot evaluate (exp, √, tan, sin of a non-linear argument) raise
:class:`~jetgeo.errors.NotRationalError`; callers that can treat them as independent
generators give them random residues with :func:`free_values` instead (the shadow then proves
non-vanishing only as a function of independent generators).
"""

from __future__ import annotations

import random

import sympy as sp

from ...errors import NotRationalError

__all__ = ["PRIME", "mod_value", "rank_mod", "free_values", "shadow_evaluable"]

PRIME = 2**61 - 1  # shadow values live in the field F_p


def mod_value(e, rep: dict, angles: dict, memo: dict, trial: int = 0) -> int:
    """The value of ``e`` in F_p, p = 2⁶¹ − 1, at a random point, visiting each shared
    subexpression once (sympy's xreplace and atoms walk the tree, exponential for the nested
    results of an LU solve).  Symbols take deterministic random values (seeded by name and
    ``trial``); sin θ, cos θ are a random point ((1−u²)/(1+u²), 2u/(1+u²)) of the unit circle
    over F_p, and sin, cos of integer combinations of angles (2θ, θ₁ − θ₂) the values the
    addition theorems give.  A non-zero value proves the function non-zero (a rational value
    that vanishes is 0 mod p).  Raises :class:`~jetgeo.errors.NotRationalError` for other
    functions and non-integer powers (unless ``memo`` already holds a value for them, see
    :func:`free_values`), ``ZeroDivisionError`` if a denominator vanishes there."""
    got = memo.get(e)
    if got is not None:
        return got
    if e.is_Rational:
        q = int(e.q) % PRIME
        if q == 0:
            raise ZeroDivisionError
        v = int(e.p) * pow(q, -1, PRIME) % PRIME
    elif e.is_Symbol:
        if e not in rep:
            rep[e] = random.Random(f"{e.name}:{trial}:mod").randrange(2, PRIME)
        v = rep[e]
    elif e.is_Add:
        v = sum(mod_value(a, rep, angles, memo, trial) for a in e.args) % PRIME
    elif e.is_Mul:
        v = 1
        for a in e.args:
            v = v * mod_value(a, rep, angles, memo, trial) % PRIME
    elif e.is_Pow and e.exp.is_Integer:
        b = mod_value(e.base, rep, angles, memo, trial)
        if b == 0 and e.exp < 0:
            raise ZeroDivisionError
        v = pow(b, int(e.exp), PRIME)
    elif isinstance(e, (sp.sin, sp.cos)):
        terms = e.args[0].as_coefficients_dict()
        c, s_ = 1, 0
        for th, k in terms.items():
            if not (th.is_Symbol and k.is_Integer):
                raise NotRationalError(e)
            if th not in angles:
                u = random.Random(f"angle {th.name}:{trial}:mod").randrange(1, PRIME)
                den = pow((1 + u * u) % PRIME, -1, PRIME)  # 1 + u² ≠ 0: −1 is not a square mod p
                angles[th] = ((1 - u * u) * den % PRIME, 2 * u * den % PRIME)
            c1, s1 = angles[th]
            if k < 0:
                s1 = -s1 % PRIME
            for _ in range(abs(int(k))):
                c, s_ = (c * c1 - s_ * s1) % PRIME, (c * s1 + s_ * c1) % PRIME
        v = s_ if isinstance(e, sp.sin) else c
    else:
        raise NotRationalError(e)
    memo[e] = v
    return v


def shadow_evaluable(a: sp.Basic) -> bool:
    """Whether :func:`mod_value` evaluates the atom ``a`` (sin, cos of an integer combination of
    symbols) with the relations among such atoms respected."""
    if not isinstance(a, (sp.sin, sp.cos)):
        return False
    return all(th.is_Symbol and k.is_Integer for th, k in a.args[0].as_coefficients_dict().items())


def free_values(atoms, trial: int = 0) -> dict:
    """Random residues for atoms :func:`mod_value` cannot evaluate (treated as independent
    generators), to pre-fill its ``memo``: ``{atom: value}``."""
    return {a: random.Random(f"{sp.srepr(a)}:{trial}:free").randrange(2, PRIME) for a in atoms}


def rank_mod(vals: list) -> int:
    """Rank over F_p of a matrix of residues (Gaussian elimination): a lower bound for the
    rank over ℚ of the matrix it reduces, which it equals unless p divides a minor."""
    a = [list(r) for r in vals]
    rank = 0
    cols = len(a[0]) if a else 0
    rows_left = list(range(len(a)))
    for c in range(cols):
        piv = next((i for i in rows_left if a[i][c]), None)
        if piv is None:
            continue
        rows_left.remove(piv)
        rank += 1
        inv = pow(a[piv][c], -1, PRIME)
        for i in rows_left:
            if a[i][c]:
                f = a[i][c] * inv % PRIME
                a[i] = [(x - f * y) % PRIME for x, y in zip(a[i], a[piv])]
    return rank
