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
   n/d in ℤ[generators] (:class:`_Fraction`: its symbols, sin u and cos u of its angles, any
   other atom as an opaque generator; multiple angles expanded on the way in), converted on
   its DAG; n/d is cancelled and reduced modulo sin²u + cos²u − 1
   (:func:`~jetgeo.geometry.exact.trig.reduce_pythagorean_poly`) to a fixed point, then each
   angle written in the shorter direction;
3. **factors, numerators collected in the velocities** — the denominator as the product of
   its factors, the numerator in the shortest of: expanded, split into factors, collected in
   ``velocities`` (Σ c_{ij} q̇ⁱq̇ʲ + Σ c_i q̇ⁱ + c₀, the quadratic form mechanics papers print,
   the gcd of the coefficients in front), split with each factor collected.  Factors come from
   gcds alone (:func:`_split`: contents in one generator, repeated factors by gcd(f, ∂f/∂x));
   forms are sized on the ring elements and only the shortest built;
4. **named subexpressions** — subexpressions repeated in the entries (a common denominator, a
   recurring coefficient) are named once, Δ₁, Δ₂, … ("where Δ = …"); a name is kept only where it
   shortens the whole (uses × size > uses + size + 1) and only for subexpressions of at least
   :data:`NAME_MIN_NODES` tree nodes.  Larger entries are first reduced from the leaves
   up (:func:`_bottom_up`: each piece of their DAG with the normal forms of the pieces below
   it substituted in, within a bound on work); one that does not come down to a small normal
   form is handled here on its DAG (``cse`` visits each distinct subexpression once), and
   steps 2–3 (without the gcds of step 3) then apply to each named piece small enough.

Before step 2, the base of every radical is brought to its normal form (:func:`_radicands`:
√(sin²θ + cos²θ) = 1).

No step calls ``simplify``; :meth:`ReadableForm.expand` substitutes the names back.

Fast paths, none changing a result: a dict of atoms (a bare 0, a symbol) is returned at once;
two ring elements are first tried for a coprimality certificate by images in F_p
(:func:`_coprime`: most gcds of step 3 are 1) and otherwise their gcd is taken on the
generators they use (:func:`_cofactors`); products are built by sympy's own unevaluated
constructor where that is its evaluated product (:func:`_mul`).  With sympy's cache cleared
(a fresh session), these cut a small entry's time by a factor 2-3 (benchmarks/readable.py).
"""

from __future__ import annotations

import math

import sympy as sp
from sympy.core.cache import clear_cache
from sympy.core.mul import _unevaluated_Mul
from sympy.polys.densebasic import dmp_from_dict, dmp_to_dict
from sympy.polys.domains import ZZ
from sympy.polys.euclidtools import dmp_inner_gcd
from sympy.polys.orderings import lex
from sympy.polys.rings import PolyRing

from ..errors import InputError
from .coerce import as_expr
from .exact.affine import free_symbols_dag, xreplace_dag
from .exact.shadow import PRIME
from .exact.size import BOTTOM_UP_MAX_TERMS, FACTOR_MAX_TERMS, READABLE_MAX_NODES, atoms_dag, tree_size
from .exact.trig import reduce_pythagorean_poly
from .zero import ZeroTest, zero_tests

__all__ = ["ReadableForm", "readable", "PROVEN_ZERO_MAX_BOUND", "NAME_MIN_NODES"]

#: A probabilistic zero verdict makes an entry ``0`` only with a failure bound at most this
#: (the prime-field test gives (D/p)^3 with p = 2⁶¹ − 1: below 10⁻⁴⁰ for any degree D < 10⁶).
PROVEN_ZERO_MAX_BOUND = 1e-12

#: Subexpressions of fewer tree nodes are not named (sin θ, a²m, …: a reader takes them in at a
#: glance; a name for them only moves the reader's eye to the list of definitions).
NAME_MIN_NODES = 8

_PROOFS = ("structural", "normal form", "trig normal form")
#: The dense gcd (:func:`_cofactors`) is used on at most this many generators; sparse above
#: (the dense representation nests one level per generator: slower, and recursive).
DENSE_GCD_MAX_GENS = 8
_ATOM_TYPES: set = set()  # the types of the atoms (sympy Expr) met so far
_Symbol = sp.Symbol
_CHECKED: list = [None]  # the last tuple of velocities found to be symbols
_new = object.__new__
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


class ReadableForm:
    """The readable form of a dict or list of expressions (:func:`readable`).

    ``equations`` has the keys (or the order) of the input, written with the names of
    ``definitions``: ordered (Symbol, expression) pairs, each expression in the input's symbols
    and the names defined before it.  ``zeros``: the keys (indices for a list) of the entries
    proven identically zero, with their :class:`~jetgeo.geometry.zero.ZeroTest`.  Read-only
    attributes in slots: building one costs a fraction of a microsecond (an input of atoms
    returns at once, :func:`readable`).

    Parameters
    ----------
    equations : dict or list
        The entries, written with the names of ``definitions``.
    definitions : tuple, default ()
        Ordered (Symbol, expression) pairs: the named subexpressions, each in the input's symbols
        and the names defined before it (substituting them back in reverse order gives the input
        exactly).
    zeros : dict, optional
        {key: ZeroTest} of the entries proven identically zero.
    """

    __slots__ = ("_parts",)  # (equations, definitions, zeros or None): one store builds it

    def __init__(self, equations: dict | list, definitions: tuple = (), zeros: dict | None = None):
        self._parts = (equations, definitions, zeros)

    @property
    def equations(self) -> dict | list:
        """The entries, written with the names of :attr:`definitions`."""
        return self._parts[0]

    @property
    def definitions(self) -> tuple:
        """Ordered (Symbol, expression) pairs: the named subexpressions."""
        return self._parts[1]

    @property
    def zeros(self) -> dict:
        """{key: ZeroTest} of the entries proven identically zero."""
        eqs, defs, zeros = self._parts
        if zeros is None:
            zeros = {}
            self._parts = (eqs, defs, zeros)
        return zeros

    def __repr__(self) -> str:
        return f"ReadableForm(equations={self.equations!r}, definitions={self.definitions!r}, zeros={self.zeros!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ReadableForm):
            return NotImplemented
        return (self.equations, self.definitions, self.zeros) == (other.equations, other.definitions, other.zeros)

    __hash__ = None  # type: ignore[assignment]  # the equations are a dict or a list

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


_RINGS: dict = {}


def _ring(n: int) -> PolyRing:
    """ℤ[g₀, …, g_{n−1}] in placeholder generators: the expressions the generators stand for are
    kept beside it (:class:`_Fraction`), so that a ring — and the code sympy generates for each
    new ring's monomial arithmetic, milliseconds per ring — is built once per number of
    generators.  Integer coefficients (a rational constant is a fraction p/q of constants): the
    gcds work over ℤ without first converting the ring."""
    ring = _RINGS.get(n)
    if ring is None:
        ring = _RINGS[n] = PolyRing([sp.Symbol(f"_readable_g{i}") for i in range(n)], ZZ, lex)
    return ring


def _term_values(f, point: list) -> list:
    """[(monomial, value in F_p of the term at ``point``)] of the ring element ``f``."""
    out = []
    for monom, c in f.iterterms():
        v = int(c) % PRIME
        for i, k in enumerate(monom):
            if k:
                v = v * pow(point[i], k, PRIME) % PRIME
        out.append((monom, v))
    return out


def _image(terms: list, x: int, point: list) -> list:
    """The coefficients (low degree first) in F_p, as a polynomial in the generator ``x``, of
    the element whose :func:`_term_values` at ``point`` are ``terms`` (every other generator
    set to its value: the value of x^k divided out; the point has no zero coordinate)."""
    coeffs: dict = {}
    inv = pow(point[x], PRIME - 2, PRIME)
    for monom, v in terms:
        k = monom[x]
        if k:
            v = v * pow(inv, k, PRIME) % PRIME
        coeffs[k] = (coeffs.get(k, 0) + v) % PRIME
    return [coeffs.get(k, 0) for k in range(max(coeffs) + 1)]


def _gcd_degree_mod(a: list, b: list) -> int:
    """Degree of gcd(a, b) in F_p[x] (coefficient lists, low degree first; -1 for 0)."""
    def trim(c):
        while c and not c[-1]:
            c.pop()
        return c
    a, b = trim(list(a)), trim(list(b))
    while b:
        inv = pow(b[-1], PRIME - 2, PRIME)
        while len(a) >= len(b):  # a := a mod b
            q, shift = a[-1] * inv % PRIME, len(a) - len(b)
            for i, c in enumerate(b):
                a[i + shift] = (a[i + shift] - q * c) % PRIME
            trim(a)
        a, b = b, a
    return len(a) - 1


def _points(n: int) -> list:
    """Three fixed points of F_p^n for :func:`_coprime` (any points serve: a point where a
    leading coefficient vanishes is skipped, and a failure only means "not proven")."""
    return [[(7919 * (i + 1) * (t + 3) ** 5 + 104729 * t) % PRIME for i in range(n)] for t in range(3)]


def _coprime(f, g) -> bool:
    """Whether the ring elements ``f``, ``g`` are proven to have no common factor of positive
    degree, by images: a common factor h involves only generators x present in both; h | f gives
    LC_x(h) | LC_x(f), so at a point of the other generators where LC_x(f) ≢ 0 (mod p) the image
    of h keeps its degree in x and divides the images of f and g in F_p[x] — a gcd of degree 0
    there proves deg_x h = 0.  ``False`` means "not proven" (the caller computes the gcd).  The
    common case (nothing to cancel, a factor with no content) costs evaluations instead of
    sympy's sparse heuristic gcd, which builds a polynomial ring per generator it evaluates
    away — rebuilt, monomial code generated anew, whenever sympy's cache was cleared."""
    fdeg, gdeg = f.degrees(), g.degrees()
    common = [i for i, k in enumerate(fdeg) if k > 0 and gdeg[i] > 0]
    if not common:
        return True
    values: dict = {}  # point index -> (terms of f, terms of g), computed when first needed
    points = _points(f.ring.ngens)
    for x in common:
        for t, point in enumerate(points):
            if t not in values:
                values[t] = (_term_values(f, point), _term_values(g, point))
            a = _image(values[t][0], x, point)
            if len(a) - 1 == fdeg[x] and a[-1]:  # LC_x(f) does not vanish at the point
                if _gcd_degree_mod(a, _image(values[t][1], x, point)) > 0:
                    return False
                break
        else:
            return False
    return True


def _cofactors(f, g) -> tuple:
    """(h, f/h, g/h), h = gcd(f, g) over ℤ with a positive leading coefficient, for ring elements
    of at least two terms each, computed on the generators the two use (the ring may have
    hundreds more): sympy's dense heuristic gcd on up to :data:`DENSE_GCD_MAX_GENS` of them,
    its sparse one in the ring of just those above.  ``PolyElement.gcd`` on the whole ring
    builds a ring for each generator it evaluates away — rebuilt, monomial code generated anew,
    whenever sympy's cache was cleared: 27 s for one gcd in a ring of 260 generators (a piece of
    Routh's sphere's ψ̈)."""
    used = sorted({i for p in (f, g) for m in p.itermonoms() for i, k in enumerate(m) if k})
    u = len(used) - 1
    ring = f.ring
    if u < 0 or len(used) == ring.ngens:
        return f.cofactors(g)
    zero = [0] * ring.ngens

    def lift(terms):
        out = {}
        for m, c in terms:
            full = list(zero)
            for i, k in zip(used, m):
                full[i] = k
            out[tuple(full)] = c
        return ring.from_dict(out)

    small = [{tuple(m[i] for i in used): c for m, c in p.iterterms()} for p in (f, g)]
    if u < DENSE_GCD_MAX_GENS:
        dense = [dmp_from_dict(t, u, ZZ) for t in small]
        return tuple(lift(dmp_to_dict(d, u, ZZ).items()) for d in dmp_inner_gcd(dense[0], dense[1], u, ZZ))
    sub = _ring(len(used))
    return tuple(lift(q.iterterms()) for q in sub.from_dict(small[0]).cofactors(sub.from_dict(small[1])))


def _gcd(f, g):
    """gcd of the ring elements ``f``, ``g`` over ℤ (as ``PolyElement.gcd``): their integer
    content's gcd when :func:`_coprime` proves them coprime, else :func:`_cofactors`."""
    if not f or not g or len(f) == 1 or len(g) == 1:
        return f.gcd(g)
    if _coprime(f, g):
        return f.ring(math.gcd(int(f.content()), int(g.content())))
    return _cofactors(f, g)[0]


def _cancel(n, d, max_terms: int | None = None) -> tuple:
    """n/d cancelled (as ``PolyElement.cancel`` over ℤ: the denominator's leading coefficient
    positive), without a gcd when :func:`_coprime` proves there is nothing but integers to
    cancel, else by :func:`_cofactors` — or :class:`_OutsideTheRing` if that gcd is needed and
    len(n)·len(d) exceeds ``max_terms`` (the bound on work of :func:`_bottom_up`)."""
    if not n or len(n) == 1 or len(d) == 1:
        return n.cancel(d)
    if _coprime(n, d):
        c = math.gcd(int(n.content()), int(d.content()))
        p, q = (n.quo_ground(c), d.quo_ground(c)) if c != 1 else (n, d)
    elif max_terms is not None and len(n) * len(d) > max_terms:
        raise _TooCostly("too costly a gcd")
    else:
        _, p, q = _cofactors(n, d)
    return (-p, -q) if q.LC < 0 else (p, q)


class _OutsideTheRing(Exception):
    """An expression the ring route does not take (a Float, a division by an identically zero
    polynomial): it is kept as it is (exact)."""


class _TooCostly(_OutsideTheRing):
    """The bound on work of :func:`_bottom_up` was reached (only raised under ``max_terms``)."""


class _Fraction:
    """One expression as n/d in the sparse polynomial ring ℚ[generators] (sympy's
    :class:`~sympy.polys.rings.PolyRing`): the generators are its symbols, sin u and cos u of its
    angles u (both of each, so that sin²u + cos²u − 1 can be reduced), and every other
    non-polynomial atom (a root, another function) as an opaque generator.  Multiple angles are
    expanded and tan u = sin u / cos u on the way in.  Converting walks the DAG (each distinct
    subexpression once) and works on sparse polynomials: no ``cancel``/``expand`` on expressions,
    which is what makes the steps cheap (theory/readable.md)."""

    def __init__(self, e: sp.Expr, max_terms: int | None = None):
        self.max_terms = max_terms  # a product of more terms than this: _OutsideTheRing (a bound on work)
        self.rewrite: dict = {}  # id(trig atom) -> its expansion in bare angles
        self.keep: list = []  # rewritten nodes kept alive (the memos are keyed by id)
        gens: dict = {}
        angles: dict = {}
        self.canonical = True
        self._scan(e, gens, angles, set())
        trig = []
        for u in angles:
            trig += [sp.cos(u), sp.sin(u)]
        order = trig + [g for g in gens if g not in set(trig)]
        self.order = order or [sp.Integer(0)]  # a ring has at least one generator
        self.ring = _ring(len(self.order))
        index = {g: i for i, g in enumerate(order)}
        self.index = index
        self.pairs = [(self.ring.gens[index[sp.cos(u)]], self.ring.gens[index[sp.sin(u)]]) for u in angles]
        self.gsize = [tree_size(g) for g in order]
        self.num, self.den = self._convert(e, {})

    def _scan(self, e, gens: dict, angles: dict, seen: set) -> None:
        stack = [e]
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            if node.is_Rational:
                continue
            if node.is_Float:
                raise _OutsideTheRing("a float")
            if node.is_Symbol:
                gens.setdefault(node, None)
            elif node.is_Add or node.is_Mul:
                stack.extend(node.args)
            elif node.is_Pow and node.exp.is_Integer:
                stack.append(node.base)
            elif isinstance(node, _TRIG) and node.args[0].is_Symbol:
                angles.setdefault(node.args[0], None)
                if node.func is sp.tan:
                    self._rewrite(node, sp.sin(node.args[0]) / sp.cos(node.args[0]), stack)
            elif isinstance(node, _TRIG) and _expands(node):
                self._rewrite(node, sp.expand_trig(node), stack)
            else:  # a root, another function, an unexpandable angle: an opaque generator
                gens.setdefault(node, None)
                self.canonical = False

    def _rewrite(self, node, value, stack: list) -> None:
        if value.has(sp.tan):
            value = value.replace(sp.tan, lambda a: sp.sin(a) / sp.cos(a))
        self.rewrite[id(node)] = value
        self.keep.append((node, value))
        stack.append(value)

    def _convert(self, e, memo: dict) -> tuple:
        got = memo.get(id(e))
        if got is not None:
            return got
        ring = self.ring
        if id(e) in self.rewrite:
            out = self._convert(self.rewrite[id(e)], memo)
        elif e in self.index and not e.is_Add and not e.is_Mul and not (e.is_Pow and e.exp.is_Integer):
            out = (ring.gens[self.index[e]], ring.one)
        elif e.is_Rational:
            out = (ring(int(e.p)), ring(int(e.q)))
        elif e.is_Mul:
            n, d = ring.one, ring.one
            for a in e.args:
                an, ad = self._convert(a, memo)
                n, d = self._times(n, an), self._times(d, ad)
            out = (n, d)
        elif e.is_Add:
            by_den: dict = {}  # group the terms by their denominators before bringing them together
            for a in e.args:
                an, ad = self._convert(a, memo)
                by_den[ad] = by_den.get(ad, ring.zero) + an
            n, d = ring.zero, ring.one
            for ad, an in by_den.items():
                n, d = self._times(n, ad) + self._times(an, d), self._times(d, ad)
            out = (n, d)
        elif e.is_Pow:
            bn, bd = self._convert(e.base, memo)
            k = int(e.exp)
            if k < 0:
                if not bn:
                    raise _OutsideTheRing("a division by zero")
                bn, bd, k = bd, bn, -k
            if self.max_terms is not None and k > 1 and max(len(bn), len(bd)) ** k > self.max_terms:
                raise _TooCostly("too many terms")
            out = (bn**k, bd**k)
        else:  # pragma: no cover - _scan made every other node a generator
            raise _OutsideTheRing(type(e).__name__)
        memo[id(e)] = out
        return out

    def _times(self, a, b):
        """a·b, or :class:`_OutsideTheRing` when that could have more than ``max_terms`` terms."""
        if self.max_terms is not None and len(a) * len(b) > self.max_terms:
            raise _TooCostly("too many terms")
        return a * b

    def reduce(self) -> bool:
        """n/d cancelled and reduced modulo sin²u + cos²u − 1 for every angle, to a fixed point
        (the gcd of reduced polynomials can bring cos² back); then each angle written in the
        shorter direction.  Returns whether n is a normal form (zero iff the input vanishes)."""
        n, d = self.num, self.den
        if not d:
            raise _OutsideTheRing("a division by zero")
        n, d = _cancel(n, d, self.max_terms)
        for _ in range(4):  # the gcd of reduced polynomials can bring cos² back: to a fixed point
            rn, rd = self._reduced(n), self._reduced(d)
            if (rn, rd) == (n, d):  # cancelled and reduced
                break
            if not rd:
                raise _OutsideTheRing("a division by zero")
            n, d = _cancel(rn, rd, self.max_terms)
            if (n, d) == (rn, rd):  # reduced, and nothing cancels
                break
        for c, s in self.pairs:  # both directions are normal forms: keep the shorter one
            n = min((n, reduce_pythagorean_poly(n, s, c)), key=self.size)
            d = min((d, reduce_pythagorean_poly(d, s, c)), key=self.size)
        self.num, self.den = n, d
        return self.canonical

    def _reduced(self, p):
        for c, s in self.pairs:
            p = reduce_pythagorean_poly(p, c, s)
        return p

    def size(self, p) -> int:
        """Tree nodes of ``p.as_expr()``, counted on the ring element (no expression built)."""
        gsize = self.gsize
        total = 0
        nterms = 0
        for monom, coeff in p.iterterms():
            nterms += 1
            nodes = 0 if coeff == 1 else 1
            nf = nodes
            for i, k in enumerate(monom):
                if k:
                    nf += 1
                    nodes += gsize[i] if k == 1 else gsize[i] + 2
            total += nodes + (1 if nf > 1 else 0)
        if nterms == 0:
            return 1
        return total + (1 if nterms > 1 else 0)

    def expr(self, p) -> sp.Expr:
        return p.as_expr(*self.order)

    def collected(self, p, velocities: set) -> list:
        """``p`` grouped by its monomials in the velocities: [(monomial, coefficient)]."""
        vel = [i for i, g in enumerate(self.order) if g in velocities]
        if not vel:
            return [(self.ring.one, p)]
        groups: dict = {}
        for monom, coeff in p.iterterms():
            key = tuple(monom[i] for i in vel)
            rest = list(monom)
            for i in vel:
                rest[i] = 0
            groups.setdefault(key, {})[tuple(rest)] = coeff
        out = []
        for key, terms in groups.items():
            m = [0] * self.ring.ngens
            for i, k in zip(vel, key):
                m[i] = k
            out.append((self.ring({tuple(m): 1}), self.ring.from_dict(terms)))
        return out


def _expands(node) -> bool:
    """Whether ``expand_trig`` writes the trigonometric atom ``node`` in bare angles (sin 2u,
    cos(u − v), …): its argument a sum of integer multiples of symbols."""
    for term in sp.Add.make_args(node.args[0]):
        c, rest = term.as_coeff_Mul()
        if not (c.is_Integer and rest.is_Symbol):
            return False
    return True


def _gcd_of(polys: list):
    """The gcd of the ring elements ``polys`` (``None`` when it is a constant), smallest first
    and stopping as soon as it is a constant; a single-term element makes it a monomial."""
    polys = sorted(polys, key=len)
    if len(polys) < 2 or len(polys[0]) == 1:
        return None
    g = polys[0]
    for q in polys[1:]:
        g = _gcd(g, q)
        if g.is_ground:
            return None
    return g


def _content_in_one_generator(p):
    """A nonconstant factor of ``p`` free of some generator x: the gcd of the coefficients of
    ``p`` as a polynomial in x (its content in x); ``None`` if ``p`` has none for any x."""
    ngens = p.ring.ngens
    for i in range(ngens):
        groups: dict = {}
        for m, c in p.iterterms():
            groups.setdefault(m[i], {})[m[:i] + (0,) + m[i + 1:]] = c
        if len(groups) < 2 or any(len(t) == 1 for t in groups.values()):
            continue
        g = _gcd_of([p.ring.from_dict(t) for t in groups.values()])
        if g is not None:
            return g
    return None


def _split(p, deep: bool = True) -> tuple:
    """(coefficient, [(factor, multiplicity)]) with ``p`` = coefficient × Π factor^multiplicity:
    the rational content, the common monomial, and then repeatedly the content of a factor in
    one of its generators split off, and a repeated factor by gcd(f, ∂f/∂x) (gcds only — much
    cheaper than a full factorisation, and it finds the factors mechanics produces: sums of
    masses, of squared velocities, an angle's polynomial times parameters, powers of them).
    A factor without content in any generator has all its irreducible factors in every one
    of its generators x, so a repeated one divides ∂f/∂x.  The factors need not be
    irreducible; each is written with the sign that has fewer minus signs."""
    coeff, q = p.primitive()
    if q.LC < 0:
        coeff, q = -coeff, -q
    ring = p.ring
    out: dict = {}
    common = [min(m[i] for m in q.itermonoms()) for i in range(ring.ngens)]
    if any(common):
        for i, k in enumerate(common):
            if k:
                out[ring.gens[i]] = k
        q = q.exquo(ring({tuple(common): 1}))
    stack = [q]
    while stack:
        f = stack.pop()
        if f.is_ground:
            coeff *= f.LC
            continue
        g = _content_in_one_generator(f) if deep and len(f) > 1 else None
        if g is None and deep and len(f) > 1:  # a repeated factor of f divides ∂f/∂x (x any of its generators)
            g = _gcd(f, f.diff(f.ring.gens[next(i for i, k in enumerate(f.degrees()) if k)]))
            g = None if g.is_ground else g
        if g is None:
            if 2 * sum(c < 0 for c in f.itercoeffs()) > len(f):  # the sign with fewer minus signs
                coeff, f = -coeff, -f
            out[f] = out.get(f, 0) + 1
            continue
        stack += [g, f.exquo(g)]
    if coeff < 0:  # a factor with as many minus signs as plus signs takes the sign of the product
        for f, k in out.items():
            if k % 2 and 2 * sum(c < 0 for c in f.itercoeffs()) == len(f):
                del out[f]
                out[-f] = k
                coeff = -coeff
                break
    return coeff, list(out.items())


def _plain_base(b) -> bool:
    """A base whose integer powers sympy leaves as they are: a symbol, sin/cos of an angle, a
    sum that is not a number."""
    return b.is_Symbol or (b.is_Add and not b.is_number) or (b.func in (sp.sin, sp.cos) and b.args[0].is_Symbol)


def _pow(b: sp.Expr, k: int) -> sp.Expr:
    """``b**k`` as sympy writes it, built without evaluating when :func:`_plain_base` (sympy's
    Pow of a two-term sum asks whether its terms are infinite: on fresh expressions — after a
    cleared cache — that query costs milliseconds; the result is the same expression)."""
    if k == 1:
        return b
    return sp.Pow(b, k, evaluate=False) if _plain_base(b) else b**k


def _mul(*factors: sp.Expr) -> sp.Expr:
    """``sp.Mul(*factors)``, built by sympy's ``_unevaluated_Mul`` (numbers collected in front,
    products flattened, the factors sorted — sympy's own order) when that is the evaluated
    product: the factors' bases plain (:func:`_plain_base`) and distinct, and not a number
    times one sum (which sympy distributes).  Else the evaluated ``sp.Mul``."""
    bases = []
    numbers = 0
    for f in factors:
        for a in sp.Mul.make_args(f):
            if a.is_Number:
                numbers += 1
                continue
            b, k = a.as_base_exp()
            if not (_plain_base(b) and k.is_Integer):
                return sp.Mul(*factors)
            bases.append(b)
    if len(set(bases)) < len(bases) or (len(bases) == 1 and bases[0].is_Add) or len(bases) == 0:
        return sp.Mul(*factors)
    return _unevaluated_Mul(*factors)


class _Form:
    """A form of an expression not built yet: its tree size estimated on the ring elements
    (:meth:`_Fraction.size`) and the function that builds it — only the shortest forms are
    built (building expressions is the costly part of steps 2–3)."""

    __slots__ = ("size", "build")

    def __init__(self, size: int, build):
        self.size = size
        self.build = build


def _coeff_nodes(c) -> int:
    return 0 if c == 1 else 1


def _product(fr: _Fraction, coeff: sp.Rational, factors: list) -> _Form:
    nodes = _coeff_nodes(coeff) + sum(fr.size(f) + (0 if k == 1 else 2) for f, k in factors)
    items = len(factors) + (coeff != 1)
    return _Form(nodes + (items > 1),
                 lambda: _mul(coeff, *[_pow(fr.expr(f), k) for f, k in factors]))


def _forms(fr: _Fraction, p, scale: sp.Rational | None = None, deep: bool = True, split=None) -> list:
    """Equal forms of ``scale`` × the ring element ``p`` (:class:`_Form`): expanded, and split
    into factors (:func:`_split`) when it has at most :data:`FACTOR_MAX_TERMS` terms (else only
    its content and common monomial are taken out)."""
    scale = sp.Integer(1) if scale is None else scale
    forms = [_Form(fr.size(p) + _coeff_nodes(scale) * len(p), lambda: scale * fr.expr(p))]
    if len(p) > 1:
        if len(p) <= FACTOR_MAX_TERMS:
            coeff, factors = _split(p, deep) if split is None else split
        else:
            coeff, prim = p.primitive()
            common = [min(m[i] for m in prim.itermonoms()) for i in range(p.ring.ngens)]
            monom = p.ring({tuple(common): 1})
            factors = [(monom, 1), (prim.exquo(monom), 1)]
        coeff = scale * int(coeff)
        if len(factors) > 1 or coeff != 1 or any(k > 1 for _, k in factors):
            forms.append(_product(fr, coeff, factors))
    return forms


def _best(forms: list) -> _Form:
    return min(forms, key=lambda f: f.size)


def _collected(fr: _Fraction, p, velocities: set, scale: sp.Rational, deep: bool) -> _Form | None:
    """``scale`` × ``p`` collected in the velocities: Σ monomial × coefficient, the gcd of the
    coefficients taken out, each coefficient in its shortest form; ``None`` if ``p`` has fewer
    than two monomials in the velocities."""
    groups = fr.collected(p, velocities) if velocities else []
    if len(groups) < 2:
        return None
    common = _gcd_of([c for _, c in groups]) if deep else None
    if common is not None:
        groups = [(m, c.exquo(common)) for m, c in groups]
    parts = [(m, _best(_forms(fr, c, None, deep))) for m, c in groups]
    nodes = 1 + sum(fr.size(m) + f.size + 1 for m, f in parts)

    def build_sum():
        return sp.Add(*[fr.expr(m) * f.build() for m, f in parts])

    if common is not None:
        front = _best(_forms(fr, common, scale, deep))
        return _Form(nodes + front.size + 1, lambda: _mul(front.build(), build_sum()))
    return _Form(nodes + _coeff_nodes(scale) * len(parts), lambda: scale * build_sum())


def _numerators(fr: _Fraction, n, velocities: set, scale: sp.Rational, deep: bool = True) -> list:
    """Equal forms (:class:`_Form`) of ``scale`` × the numerator ``n``: its :func:`_forms`,
    collected in the velocities (:func:`_collected`), and split into factors with each factor
    collected in the velocities — the caller builds the shortest."""
    split = _split(n, deep) if 1 < len(n) <= FACTOR_MAX_TERMS else None
    forms = _forms(fr, n, scale, deep, split)
    whole = _collected(fr, n, velocities, scale, deep)
    if whole is not None:
        forms.append(whole)
    if velocities and split is not None:
        coeff, factors = split
        coeff = scale * int(coeff)
        parts = []
        for f, k in factors:
            best = _best([_Form(fr.size(f), lambda f=f: fr.expr(f))]
                         + [c for c in [_collected(fr, f, velocities, sp.Integer(1), deep)] if c is not None])
            parts.append((best, k))
        if len(parts) > 1 and any(len(f) > 1 for f, _ in factors):
            nodes = _coeff_nodes(coeff) + sum(b.size + (0 if k == 1 else 2) for b, k in parts) + 1
            forms.append(_Form(nodes, lambda: _mul(coeff, *[_pow(b.build(), k) for b, k in parts])))
    return forms


def _denominator(fr: _Fraction, d, deep: bool = True) -> tuple:
    """(numeric coefficient, [factor**-k]) of the ring element ``d``."""
    if d.is_ground:
        return d.LC, []
    coeff, factors = _split(d, deep)
    return coeff, [sp.Pow(fr.expr(f), -k, evaluate=False) for f, k in factors]


def _shortest(*forms):
    return min(forms, key=tree_size)


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


def _is_monomial(e: sp.Expr) -> bool:
    """A product of rational numbers and integer powers of symbols and of sin/cos of symbols,
    at most one of sin u, cos u per angle u: nothing to cancel or to reduce, and not zero."""
    angles = set()
    for f in sp.Mul.make_args(e):
        base, k = f.as_base_exp()
        if base.is_Rational and f.is_Rational:
            continue
        if not k.is_Integer:
            return False
        if base.is_Symbol:
            continue
        if base.func in (sp.sin, sp.cos) and base.args[0].is_Symbol:
            if base.args[0] in angles:
                return False
            angles.add(base.args[0])
            continue
        return False
    return True


def _normal_form(e: sp.Expr, velocities: tuple, deep: bool = True, max_terms: int | None = None) -> sp.Expr:
    """Steps 2–3 for one expression; the shortest of it and its normal form (both exact).
    ``max_terms``: a product of polynomials of more terms than this is not formed (``e`` is
    kept as it is) — the bound on work of the bottom-up pass (:func:`_bottom_up`)."""
    return _normal_form_decided(e, velocities, deep, max_terms)[0]


def _normal_form_decided(e: sp.Expr, velocities: tuple, deep: bool = True, max_terms: int | None = None) -> tuple:
    """(:func:`_normal_form` of ``e``, whether that decided if ``e`` vanishes identically)."""
    if e.is_Atom:
        return e, True
    if _is_monomial(e):  # already its own normal form (a nonzero product of atoms)
        return _tangents(e), True
    if tree_size(e, cap=READABLE_MAX_NODES) > READABLE_MAX_NODES:
        return e, False
    try:
        fr = _Fraction(e, max_terms)
        canonical = fr.reduce()
    except _TooCostly:
        raise  # only under max_terms: the bottom-up pass keeps the piece as a name
    except _OutsideTheRing:
        return e, False
    n, d = fr.num, fr.den
    if not n:
        return sp.Integer(0), True
    coeff, den = _denominator(fr, d, deep)
    scale = sp.Rational(1, int(coeff))
    # the shortest as a whole: a factored numerator merges into the product with the denominator
    forms = sorted(_numerators(fr, n, set(velocities), scale, deep), key=lambda f: f.size)
    outs = [_tangents(_mul(f.build(), *den)) for f in forms[:2]]  # the estimates are close, not exact
    return _shortest(*outs, e), canonical


def _radicands(values: list) -> list:
    """``values`` with the base b of every radical b^(p/q) (a power with a non-integer rational
    exponent, or any other non-integer exponent) written in its own normal form (steps 2–3)
    where that is shorter: b is replaced by an expression equal to it, so b^(p/q) keeps its
    value, branch included; a base that reduces to a number makes the power a number (Routh's
    sphere's √(sin²ψ sin²θ + sin²θ cos²ψ + cos²θ) = √1 = 1).  On the DAG: each radical once."""
    rep: dict = {}
    for p in atoms_dag(sp.Tuple(*values), sp.Pow):
        if p.exp.is_Integer or p.base.is_Atom:
            continue
        base = _normal_form(p.base, ())
        if base is not p.base and tree_size(base) < tree_size(p.base):
            rep[p] = sp.Pow(base, p.exp)
    if not rep:
        return values
    memo: dict = {}
    return [xreplace_dag(v, rep, memo) for v in values]


def _bottom_up(values: list, velocities: tuple) -> tuple:
    """Step 2 on the DAG of entries too large for it, from the leaves up: ``cse`` names every
    shared subexpression (each distinct one once), and each piece, in order, gets the normal
    forms of the pieces it uses substituted in and is brought to its own normal form.  A name
    hides nothing from the reduction this way: sin²ψ + cos²ψ split across two pieces, or a
    factor of one piece that cancels against another, meet in the parent's normal form.  A
    piece whose normal form exceeds :data:`READABLE_MAX_NODES` tree nodes, or would need more
    work than :data:`BOTTOM_UP_MAX_TERMS` allows, stops the pass for every piece above it
    (those are not reduced at all); an entry all of whose pieces came through is replaced by
    its normal form, every other entry is returned as it was.  Exact: a piece is replaced only
    by an expression equal to it (Routh's sphere's θ̈: 70 968 tree nodes as derived, 80 so).
    Returns (the entries, the ``cse`` of ``values``): step 4 reuses the latter when no entry
    changed (one ``cse`` of the DAG, not two)."""
    gen = sp.numbered_symbols("_readable_cse")
    defs, eqs = sp.cse(values, symbols=gen, optimizations=None, order="none", list=True)
    small: dict = {}  # name -> the normal form of its piece, the pieces below it substituted in
    stopped: set = set()  # names of pieces that did not come through, or that use one that did not
    memo: dict = {}  # the rule grows only by names whose pieces come later: a node's result is final

    def reduced(v):
        if v.free_symbols & stopped:  # a piece below did not come through: neither can this one
            return None
        w = xreplace_dag(v, small, memo)
        if tree_size(w, cap=READABLE_MAX_NODES) > READABLE_MAX_NODES:
            return None
        try:
            w = _normal_form(w, velocities, deep=False, max_terms=BOTTOM_UP_MAX_TERMS)
        except _TooCostly:
            return None
        return w if tree_size(w, cap=READABLE_MAX_NODES) <= READABLE_MAX_NODES else None

    for name, v in defs:
        w = reduced(v)
        if w is None:
            stopped.add(name)
        else:
            small[name] = w
    return [v if w is None else w for v, w in zip(values, [reduced(e) for e in eqs])], (defs, eqs)


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


def _repeats(values: list) -> bool:
    """Whether some subexpression of at least :data:`NAME_MIN_NODES` tree nodes occurs twice in
    the trees of ``values`` (else no name can pay, and ``cse`` is not run)."""
    size_memo: dict = {}
    seen: set = set()
    stack = list(values)
    while stack:
        e = stack.pop()
        if e.is_Atom:
            continue
        if tree_size(e, size_memo) >= NAME_MIN_NODES:
            if e in seen:
                return True
            seen.add(e)
        stack.extend(e.args)
    return False


def _name_shared(values: list, velocities: tuple, taken: set, again: bool, done: tuple | None = None) -> tuple:
    """Step 4: ``cse`` on the values, non-paying names substituted back; with ``again`` (some
    entry was too large for steps 2–3) the pieces are brought to normal form first.  ``done``:
    the ``cse`` of ``values`` already computed (:func:`_bottom_up`)."""
    if all(v.is_Atom for v in values) or not (again or _repeats(values)):
        return [], list(values)
    gen = sp.numbered_symbols("_readable_cse")
    # sympy's cse, common parts of sums and products included: on the Whipple bicycle 13 738
    # tree nodes in 7.9 s, against 17 330 in 4.6 s with repeated subexpressions alone
    # (tree_cse), and on the nested DAG of theory/readable.md 953 nodes against 8 903
    if done is None:
        defs, eqs = sp.cse(values, symbols=gen, optimizations=None, order="none", list=True)
    else:
        defs, eqs = done
    if again:
        # the pieces of a large DAG: cancelled and reduced, contents out, but not split further
        # by gcds (hundreds of pieces: 27 of the Whipple bicycle's 47 s went into those gcds)
        defs = [(s, _normal_form(v, velocities, deep=False)) for s, v in defs]
        eqs = [_normal_form(v, velocities, deep=False) for v in eqs]
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
    if velocities is not None and velocities is not _CHECKED[0]:
        for v in velocities:
            if type(v) is not _Symbol and not isinstance(v, _Symbol):  # the common case first: cheaper
                raise InputError(f"readable: velocities must be symbols, got {v!r}")
        if type(velocities) is tuple:  # immutable: checked once for repeated calls with the same tuple
            _CHECKED[0] = velocities
    if type(exprs) is dict:
        # an input of atoms (a bare 0, a symbol) is its own readable form: returned at once, a
        # copy of the dict — the catalogue's zero entries cost a fraction of a microsecond
        for v in exprs.values():
            if type(v) not in _ATOM_TYPES:
                if not (isinstance(v, sp.Expr) and v.is_Atom):
                    break
                _ATOM_TYPES.add(type(v))
        else:
            form = _new(ReadableForm)
            form._parts = (exprs.copy(), (), None)
            return form
    if isinstance(exprs, dict):
        keys = list(exprs)
        values = [as_expr(v) for v in exprs.values()]
    elif isinstance(exprs, (list, tuple)):
        keys = None
        values = [as_expr(v) for v in exprs]
    else:
        raise InputError(f"readable: expected a dict or a list of expressions, got {type(exprs).__name__}")
    if all(v.is_Atom for v in values):  # nothing to rewrite (a number, a symbol)
        return ReadableForm(dict(zip(keys, values)) if keys is not None else values)
    vel = () if velocities is None else tuple(velocities)
    original = list(values)
    values = _radicands(values)
    again = any(tree_size(v, cap=READABLE_MAX_NODES) > READABLE_MAX_NODES for v in values)
    done = None
    if again:  # from the leaves up: the entries whose pieces all stay small come down to one normal form
        before = values
        values, done = _bottom_up(values, vel)
        again = any(tree_size(v, cap=READABLE_MAX_NODES) > READABLE_MAX_NODES for v in values)
        if any(v is not w for v, w in zip(values, before)):
            done = None  # some entry changed: its cse is not that of the values any more
        else:
            # nothing came through: forget the expressions the pass built (sympy's cache only
            # memoises; left in it, they made expand() of the nested DAG of
            # test_a_large_identically_zero_dag_becomes_exactly_zero take 9 s instead of 0.1 s)
            clear_cache()
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
    if done is not None and any(v is not w for v, w in zip(values, before)):
        done = None  # an entry became 0 (a zero test): its cse is not that of the values any more
    defs, eqs = _name_shared(values, vel, taken, again, done)
    for i, e in enumerate(eqs):  # zeros found by the exact rewriting itself (a normal form is 0)
        key = keys[i] if keys is not None else i
        if e == 0 and key not in zeros and original[i] != 0:
            zeros[key] = ZeroTest(True, "trig normal form")
    equations = dict(zip(keys, eqs)) if keys is not None else eqs
    return ReadableForm(equations, tuple(defs), zeros)
