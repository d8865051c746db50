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

Square roots (√R and its odd powers R^(k/2)) are evaluated too, when that is sound.  The value
of √R is a root s of s² = R(point) in F_p (p ≡ 3 mod 4: s = R^((p+1)/4), the smaller of ±s; a
point where R(point) is not a square raises :class:`NoRootAtPointError`, and the caller samples
another point).  The point (x, s) then lies on the variety s² = R.  If R is not a square of a
rational function, that variety is irreducible and the real branch s = +√R is Zariski dense in
it, so a rational function of (x, √R) that vanishes identically vanishes at (x, s) as well; the
same holds for several radicands R₁, …, R_k if no product of a subset of them is a square
(Kummer theory: the extension has full degree 2^k).  That hypothesis is *proven* before a root is
used: every radicand is evaluated at :data:`RADICAND_CERTIFICATE_POINTS` fixed points; a square
has a quadratic-residue value at every point, so the Legendre symbols of the radicands, as
vectors over GF(2), must be linearly independent — a non-zero combination cannot come from a
square.  Radicands with the same values at those points are one function (one root rule, the
same root).  A radicand that is (or may be) a square times the others, or that contains a root
itself, raises :class:`~jetgeo.errors.NotRationalError`: the sign of its root is not decidable
in F_p.

exp of an integer combination of symbols, Σ kᵢ xᵢ, takes the value Π zᵢ^kᵢ with independent random
residues zᵢ: the functions xᵢ and exp xᵢ are algebraically independent [Ax 1971], and the relations
exp(a + b) = exp a · exp b hold at the point.
Other atoms the field arithmetic cannot evaluate (tan, exp(x/2), sin of a non-linear argument) raise
:class:`~jetgeo.errors.NotRationalError`; callers that can treat them as independent
generators give them random residues with :func:`free_values` instead (the shadow then proves
non-vanishing only as a function of independent generators).
"""

from __future__ import annotations

import random
from functools import lru_cache

import sympy as sp

from ...errors import NoRootAtPointError, NotRationalError

__all__ = [
    "PRIME",
    "MAX_SHADOW_POINTS",
    "RADICAND_CERTIFICATE_POINTS",
    "NoRootAtPointError",
    "mod_value",
    "mod_derivative",
    "rank_mod",
    "eliminate_mod",
    "free_values",
    "shadow_evaluable",
]

PRIME = 2**61 - 1  # shadow values live in the field F_p; p ≡ 3 (mod 4)
RADICAND_CERTIFICATE_POINTS = 24  # fixed points at which radicands' Legendre symbols are taken
MAX_SHADOW_POINTS = 40  # points a caller samples before it gives up (each radicand: ½ chance of a root)
_CERTIFICATE_TRIAL = 1_000_003  # the certificate points' trial numbers start here
_RADICALS = object()  # memo key of the evaluation's radicand registry
_NO_RADICALS = object()  # memo key: a radicand is being certified (nested roots are not evaluated)
_SIGNATURES: dict = {}  # radicand → (values at the certificate points, Legendre bit mask)
_SIGNATURES_MAX = 4096


def mod_value(e, rep: dict, angles: dict, memo: dict, trial: int = 0) -> int:
    """The value of ``e`` in F_p, p = 2⁶¹ − 1, at a random point, visiting each shared
    subexpression once (sympy's xreplace and atoms walk the tree, exponential for the nested
    results of an LU solve).  Symbols take deterministic random values (seeded by name and
    ``trial``); sin θ, cos θ are a random point ((1−u²)/(1+u²), 2u/(1+u²)) of the unit circle
    over F_p, and sin, cos of integer combinations of angles (2θ, θ₁ − θ₂) the values the
    addition theorems give.  A non-zero value proves the function non-zero (a rational value
    that vanishes is 0 mod p).  Raises :class:`~jetgeo.errors.NotRationalError` for other
    functions and non-integer powers (unless ``memo`` already holds a value for them, see
    :func:`free_values`), ``ZeroDivisionError`` if a denominator vanishes there.

    Parameters
    ----------
    e : sympy.Basic
        The expression to evaluate.
    rep : dict
        The values already drawn for symbols, {Symbol: residue}; filled as new symbols are met.
    angles : dict
        The circle points already drawn, {angle symbol: (cos, sin) residues}; filled likewise.
    memo : dict
        {subexpression: residue}: shared between calls at the same point so that a DAG is evaluated
        once; may be pre-filled by :func:`free_values`.
    trial : int, default 0
        Which random point (the values are deterministic in the symbol names and ``trial``).

    Returns
    -------
    int
        The residue of ``e`` mod p = 2⁶¹ − 1 at the point.

    Raises
    ------
    jetgeo.errors.NotRationalError
        For atoms it cannot evaluate and the memo does not hold.
    ZeroDivisionError
        If a denominator vanishes at the point (the caller draws another one).

    Examples
    --------
    >>> th = sp.Symbol("theta")
    >>> mod_value(sp.sin(th)**2 + sp.cos(th)**2 - 1, {}, {}, {})
    0
    """
    got = memo.get(e)
    if got is not None:
        return got
    if e.is_Integer:
        v = int(e.p) % PRIME
    elif e.is_Rational:
        q = int(e.q) % PRIME
        if q == 0:
            raise ZeroDivisionError
        v = int(e.p) * pow(q, -1, PRIME) % PRIME
    elif e.is_Symbol:
        if e not in rep:
            rep[e] = _residue(f"{e.name}:{trial}:mod", 2)
        v = rep[e]
    elif e.is_Add:
        v = 0
        for a in e.args:
            v += mod_value(a, rep, angles, memo, trial)
        v %= PRIME
    elif e.is_Mul:
        v = 1
        for a in e.args:
            v = v * mod_value(a, rep, angles, memo, trial) % PRIME
    elif e.is_Pow and e.exp.is_Integer:
        b = mod_value(e.base, rep, angles, memo, trial)
        if b == 0 and e.exp < 0:
            raise ZeroDivisionError
        v = pow(b, int(e.exp), PRIME)
    elif e.is_Pow and e.exp.is_Rational and e.exp.q == 2:
        s_ = _root_value(e.base, rep, angles, memo, trial)
        if s_ == 0 and e.exp < 0:
            raise ZeroDivisionError
        v = pow(s_, int(e.exp.p), PRIME)
    elif isinstance(e, (sp.sin, sp.cos)):
        c, s_ = _circle_value(e, angles, trial)
        v = s_ if isinstance(e, sp.sin) else c
    elif isinstance(e, sp.exp):
        v = _exp_value(e, trial)
    else:
        raise NotRationalError(e)
    memo[e] = v
    return v



@lru_cache(maxsize=4096)
def _residue(seed: str, low: int) -> int:
    """The random residue in [low, p) that ``seed`` (a symbol's name and the trial) stands for: the same
    value at every evaluation of that point, drawn once per process (seeding a ``random.Random`` costs
    6 µs, and the rank checks, the solves and the velocity check of one import meet the same symbols
    at the same points: 119 draws for the 4-trailer from its bodies)."""
    return random.Random(seed).randrange(low, PRIME)


@lru_cache(maxsize=4096)
def _circle_point(name: str, trial: int) -> tuple:
    """(cos θ, sin θ) of the angle ``name`` at the point ``trial``: the rational point
    ((1 − u²)/(1 + u²), 2u/(1 + u²)) of the unit circle over F_p for a random u."""
    u = _residue(f"angle {name}:{trial}:mod", 1)
    den = pow((1 + u * u) % PRIME, -1, PRIME)  # 1 + u² ≠ 0: −1 is not a square mod p
    return (1 - u * u) * den % PRIME, 2 * u * den % PRIME

def _exp_value(e, trial: int) -> int:
    """exp(Σ kᵢ xᵢ) (integers kᵢ, symbols xᵢ, no constant term) in F_p: Π zᵢ^kᵢ, with zᵢ a random
    residue standing for exp xᵢ, drawn independently of xᵢ's own value.  Sound because x₁, …, xₙ,
    exp x₁, …, exp xₙ (and the e^{iθ} of the angles) are algebraically independent functions
    [Ax 1971], while the relations exp(a + b) = exp a · exp b are kept."""
    v = 1
    for x, k in e.args[0].as_coefficients_dict().items():
        if not (x.is_Symbol and k.is_Integer):
            raise NotRationalError(e)
        z = _residue(f"exp {x.name}:{trial}:mod", 2)
        v = v * pow(z, int(k), PRIME) % PRIME
    return v


def _circle_value(e, angles: dict, trial: int) -> tuple:
    """(cos, sin) of the argument of ``e`` (sin or cos of an integer combination of angle symbols)
    in F_p: the angles' random circle points (drawn into ``angles``) combined by the addition
    theorems."""
    c, s_ = 1, 0
    for th, k in e.args[0].as_coefficients_dict().items():
        if not (th.is_Symbol and k.is_Integer):
            raise NotRationalError(e)
        if th not in angles:
            angles[th] = _circle_point(th.name, trial)
        c1, s1 = angles[th]
        if k < 0:
            s1 = -s1 % PRIME
        for _ in range(abs(int(k))):
            c, s_ = (c * c1 - s_ * s1) % PRIME, (c * s1 + s_ * c1) % PRIME
    return c, s_


def mod_derivative(e, along: dict, rep: dict, angles: dict, memo: dict, dmemo: dict, trial: int = 0) -> int:
    """The value in F_p, at the point of :func:`mod_value`, of the derivative of ``e`` along the
    direction {symbol: rate} — Σ rate·∂e/∂symbol — without building the derivative: forward-mode
    differentiation over F_p[ε]/(ε²), each shared subexpression once.  The rates are expressions
    evaluated at the same point (``rep``, ``angles``, ``memo`` shared with :func:`mod_value`), and
    d sin(Σkθ) = cos(Σkθ)·Σk·rate(θ), d cos = −sin·(…) hold exactly on the circle points.  So the
    result is ``mod_value`` of the symbolic derivative (:func:`~jetgeo.geometry.exact.diff_dag`
    along the same direction), with the same guarantee: a non-zero value proves the derivative
    non-zero.  Sums, products, integer powers, rationals, symbols, sin, cos and exp only; anything else
    raises :class:`~jetgeo.errors.NotRationalError`.

    Parameters
    ----------
    e : sympy.Basic
        The expression.
    along : dict
        {Symbol: rate}: the direction (e.g. {t: 1, q: q̇}, the total derivative without q̈);
        symbols not in it have rate 0.
    rep, angles, memo : dict
        As for :func:`mod_value` (one point: pass the same dicts to both).
    dmemo : dict
        {subexpression: value of its derivative}, shared between calls at the same point and
        direction.
    trial : int, default 0
        Which random point.

    Returns
    -------
    int
        The residue of the derivative mod p at the point.

    Raises
    ------
    jetgeo.errors.NotRationalError
        For a node other than the ones above.
    ZeroDivisionError
        If a denominator vanishes at the point.

    Examples
    --------
    >>> x, th = sp.symbols("x theta")
    >>> e = x**2 * sp.sin(th)
    >>> along = {x: sp.Integer(1), th: x}
    >>> rep, angles, memo = {}, {}, {}
    >>> d = 2 * x * sp.sin(th) + x**3 * sp.cos(th)
    >>> mod_derivative(e, along, rep, angles, memo, {}) == mod_value(d, rep, angles, memo)
    True
    """
    got = dmemo.get(e)
    if got is not None:
        return got
    if e.is_Rational:
        v = 0
    elif e.is_Symbol:
        r = along.get(e)
        v = 0 if r is None else mod_value(r, rep, angles, memo, trial)
    elif e.is_Add:
        v = sum(mod_derivative(a, along, rep, angles, memo, dmemo, trial) for a in e.args) % PRIME
    elif e.is_Mul:
        v, prod = 0, 1  # (value, derivative) of the product of the factors so far
        for a in e.args:
            va = mod_value(a, rep, angles, memo, trial)
            da = mod_derivative(a, along, rep, angles, memo, dmemo, trial)
            v, prod = (v * va + prod * da) % PRIME, prod * va % PRIME
    elif e.is_Pow and e.exp.is_Integer:
        k = int(e.exp)
        b = mod_value(e.base, rep, angles, memo, trial)
        if b == 0 and k < 1:
            raise ZeroDivisionError
        v = k * pow(b, k - 1, PRIME) * mod_derivative(e.base, along, rep, angles, memo, dmemo, trial) % PRIME
    elif isinstance(e, (sp.sin, sp.cos)):
        c, s_ = _circle_value(e, angles, trial)
        rate = sum(int(k) * mod_derivative(th, along, rep, angles, memo, dmemo, trial)
                   for th, k in e.args[0].as_coefficients_dict().items()) % PRIME
        v = (c if isinstance(e, sp.sin) else -s_) * rate % PRIME
    elif isinstance(e, sp.exp):
        rate = sum(int(k) * mod_derivative(x, along, rep, angles, memo, dmemo, trial)
                   for x, k in e.args[0].as_coefficients_dict().items()) % PRIME
        v = _exp_value(e, trial) * rate % PRIME
    else:
        raise NotRationalError(e)
    dmemo[e] = v
    return v


def _root_value(b, rep: dict, angles: dict, memo: dict, trial: int) -> int:
    """The shadow of √b at the point: a square root of b's value in F_p, once b is certified
    (see the module docstring); :class:`NoRootAtPointError` if b's value is a non-residue."""
    if memo.get(_NO_RADICALS):
        raise NotRationalError(f"√({b}) inside a radicand: nested roots are not certified")
    registry = memo.get(_RADICALS)
    if registry is None:
        registry = memo[_RADICALS] = {"certified": set(), "classes": set(), "basis": []}
    if b not in registry["certified"]:
        _certify(b, registry)
    bv = mod_value(b, rep, angles, memo, trial)
    if bv == 0:
        return 0
    if pow(bv, (PRIME - 1) // 2, PRIME) != 1:
        raise NoRootAtPointError(b)
    r = pow(bv, (PRIME + 1) // 4, PRIME)
    return min(r, PRIME - r)  # a rule of the value alone: equal radicands, equal roots


def _signature(b) -> tuple:
    """(values of b at the certificate points, Legendre bit mask): bit j set where the value at
    point j is a quadratic non-residue.  Cached by radicand."""
    got = _SIGNATURES.get(b)
    if got is not None:
        return got
    values, bits = [], 0
    for j in range(RADICAND_CERTIFICATE_POINTS):
        try:
            v = mod_value(b, {}, {}, {_NO_RADICALS: True}, _CERTIFICATE_TRIAL + j)
        except ZeroDivisionError:  # a pole of the radicand: no information at this point
            values.append(None)
            continue
        values.append(v)
        if v and pow(v, (PRIME - 1) // 2, PRIME) != 1:
            bits |= 1 << j
    if len(_SIGNATURES) >= _SIGNATURES_MAX:
        _SIGNATURES.clear()
    got = _SIGNATURES[b] = (tuple(values), bits)
    return got


def _certify(b, registry: dict) -> None:
    """Admit the radicand b to this evaluation's registry, or raise NotRationalError: b must be
    the same function as an admitted radicand (equal values at the certificate points), or its
    Legendre vector must be independent over GF(2) of the admitted ones — then no product of a
    subset of the radicands is a square, and the roots' shadows are sound."""
    values, bits = _signature(b)
    if values not in registry["classes"]:
        v = bits
        for top, vec in sorted(registry["basis"], reverse=True):  # echelon basis, leading bits descending
            if v >> top & 1:
                v ^= vec
        if v == 0:
            raise NotRationalError(f"√({b}): the radicand may be a square (times other radicands of the "
                                   "expression); the sign of its root is not decidable in F_p")
        registry["basis"].append((v.bit_length() - 1, v))
        registry["classes"].add(values)
    registry["certified"].add(b)


def shadow_evaluable(a: sp.Basic) -> bool:
    """Whether :func:`mod_value` evaluates the atom ``a`` (sin, cos, exp of an integer combination
    of symbols) with the relations among such atoms respected.

    Parameters
    ----------
    a : sympy.Basic
        An atom of an expression (a frozen function or power).

    Returns
    -------
    bool
        True for sin u, cos u and exp u with u an integer combination of symbols (2θ, θ₁ − θ₂);
        False for anything else (tan, exp(x/2), roots), which :func:`free_values` must value.

    Examples
    --------
    >>> a, b = sp.symbols("a b")
    >>> shadow_evaluable(sp.cos(a - 2 * b)), shadow_evaluable(sp.cos(a / 2)), shadow_evaluable(sp.exp(a))
    (True, False, True)
    """
    if not isinstance(a, (sp.sin, sp.cos, sp.exp)):
        return False
    return all(th.is_Symbol and k.is_Integer for th, k in a.args[0].as_coefficients_dict().items())


def free_values(atoms, trial: int = 0) -> dict:
    """Random residues for atoms :func:`mod_value` cannot evaluate (treated as independent
    generators), to pre-fill its ``memo``: ``{atom: value}``.

    Parameters
    ----------
    atoms : iterable of sympy.Basic
        The atoms to value (exp x, √(x² + 1), …).
    trial : int, default 0
        The index of the random point; the values are deterministic in (atom, trial).

    Returns
    -------
    dict
        {atom: residue in [2, p)}: the atoms become independent generators at this point, so a
        non-zero value still proves the expression non-zero as a function of those generators (the
        caller must not rely on relations among them).
    """
    return {a: random.Random(f"{sp.srepr(a)}:{trial}:free").randrange(2, PRIME) for a in atoms}


def eliminate_mod(vals: list, pref: list | None = None) -> tuple:
    """Full-pivot Gaussian elimination over F_p of a matrix of residues: (rank, pivot rows,
    pivot cols).  Among the non-zero residues the pivot is the entry with the lowest ``pref``
    (structural simplicity of the symbolic entry, :func:`~jetgeo.geometry.exact.generic_rank`),
    the first one without.  The rank is a lower bound for the rank over ℚ of the matrix the
    residues reduce, equal to it unless p divides a minor.

    Parameters
    ----------
    vals : list of list of int
        The residues mod p, one list per row (not modified).
    pref : list of list, optional
        A sort key per entry (smaller is preferred as a pivot); ``None``: the first non-zero.

    Returns
    -------
    tuple
        ``(rank, pivot_rows, pivot_cols)`` with the pivot indices as tuples, in elimination order.

    Examples
    --------
    >>> eliminate_mod([[1, 2], [2, 4]])
    (1, (0,), (0,))
    """
    a = [list(r) for r in vals]
    rows_left = list(range(len(a)))
    cols_left = list(range(len(a[0]) if a else 0))
    prow, pcol = [], []
    while rows_left and cols_left:
        cand = [((pref[i][j] if pref else 0), i, j) for i in rows_left for j in cols_left if a[i][j]]
        if not cand:
            break
        _, bi, bj = min(cand)
        prow.append(bi)
        pcol.append(bj)
        rows_left.remove(bi)
        cols_left.remove(bj)
        inv = pow(a[bi][bj], -1, PRIME)
        for i in rows_left:
            if a[i][bj]:
                f = a[i][bj] * inv % PRIME
                for j in cols_left:
                    a[i][j] = (a[i][j] - f * a[bi][j]) % PRIME
    return len(prow), tuple(prow), tuple(pcol)


def rank_mod(vals: list) -> int:
    """Rank over F_p of a matrix of residues (:func:`eliminate_mod`).

    Parameters
    ----------
    vals : list of list of int
        The residues mod p, one list per row.

    Returns
    -------
    int
        The rank over F_p.

    Examples
    --------
    >>> rank_mod([[1, 2, 3], [2, 4, 6], [0, 0, 1]])
    2
    """
    return eliminate_mod(vals)[0]
