r"""Fibred manifolds π: Y → X = R and their jet prolongations [Stolařová 2009, §2].

Coordinates: t on X; (t, q^σ) on Y; (t, q^σ, q̇^σ) on J¹Y; (t, q^σ, q̇^σ, q̈^σ) on
J²Y.  All are plain sympy ``Symbol``s, named ``x``, ``xdot``, ``xddot`` (sympy
prints these as x, ẋ, ẍ in LaTeX); higher orders are ``xdddot``, ``xddddot`` and
then ``x_5``, ``x_6``, ….  The total derivative is the explicit operator

.. math:: \frac{d}{dt} = \partial_t + \dot q^\sigma \partial_{q^\sigma}
          + \ddot q^\sigma \partial_{\dot q^\sigma} + \dots

([Stolařová 2009, §2]: df/dt for f on J¹Y, and d̄f without the second-order term).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cached_property

import sympy as sp

from ..errors import ChartError, InputError
from ..geometry import Chart, Distribution, Form, VectorField
from ..geometry.chart import as_symbols
from ..geometry.coerce import as_expr
from ..geometry.exact import free_symbols_dag
from ..geometry.zero import is_zero
from .contact import _source_order, decompose, horizontal
from .interop import from_dynamicsymbols, to_dynamicsymbols
from .prolongation import prolong
from .sections import Section

__all__ = ["FibredManifold"]

_SUFFIX = {1: "dot", 2: "ddot", 3: "dddot", 4: "ddddot"}


def _check_coordinate_name(c: object) -> None:
    """A coordinate is named by an ASCII identifier that is not a Python keyword (the jet names
    add suffixes to it, and generated code uses it as a variable): InputError otherwise."""
    import keyword

    name = c.name if isinstance(c, sp.Symbol) else c
    if not isinstance(name, str):
        raise InputError(f"a coordinate must be a name or a sympy Symbol, got {type(c).__name__} {c!r:.60}")
    if not (name.isidentifier() and name.isascii()) or keyword.iskeyword(name):
        raise InputError(f"coordinate name {name!r:.60} is not a valid name (ASCII letters, digits and '_', "
                         "not first a digit, not a Python keyword)")


class FibredManifold:
    r"""A fibred manifold π: Y → X = R with fibre coordinates q^σ.

    Parameters
    ----------
    coords : sequence of str or Symbol
        The fibre coordinates q^σ (m ≥ 1, distinct); the jet coordinates q̇^σ, q̈^σ are named ``<q>dot``,
        ``<q>ddot``.
    time : str or Symbol
        The base coordinate t.
    autonomous : bool
        Declare that nothing may depend on t (the system lives on TQ [Ibort et al. 1996]; a spec's
        ``autonomous = true``).

    Examples
    --------
    >>> Y = FibredManifold(["x", "y"], time="t")
    >>> Y.t, Y.q, Y.qdot, Y.qddot
    (t, (x, y), (xdot, ydot), (xddot, yddot))
    >>> Y.total_derivative(Y.q[0] * Y.qdot[1])
    x*yddot + xdot*ydot
    >>> Y.contact_forms[0]
    -xdot*dt + dx
    """

    def __init__(self, coords: Sequence, time: str | sp.Symbol = "t", autonomous: bool = False) -> None:
        if isinstance(coords, (str, bytes)) or not isinstance(coords, Iterable):
            raise InputError(f"coordinates: expected a list of names or symbols, got {type(coords).__name__} "
                             f"{coords!r:.60}")
        coords = list(coords)
        for c in [*coords, time]:
            _check_coordinate_name(c)
        if not isinstance(autonomous, bool):
            raise InputError(f"autonomous: expected True or False, got {autonomous!r:.60}")
        q = as_symbols(coords)
        if not q:
            raise InputError("a fibred manifold needs at least one fibre coordinate")
        t = as_symbols([time])[0]
        if t in q:
            raise ChartError(f"the time coordinate {t} is also a fibre coordinate")
        self.t: sp.Symbol = t
        self.q: tuple = q
        self.autonomous = autonomous
        self._jets: dict = {0: q}
        all_syms = {t, *q, *self.qdot, *self.qddot}
        if len(all_syms) != 1 + 3 * len(q):
            raise ChartError(
                f"coordinate names clash with their jet names: {list(map(str, q))} "
                "(e.g. 'x' and 'xdot' both given)"
            )

    # --- symbols ----------------------------------------------------------------
    @property
    def m(self) -> int:
        """Number of fibre coordinates (degrees of freedom before constraints)."""
        return len(self.q)

    def jet_symbols(self, order: int) -> tuple:
        """The coordinates q^σ_(order): order 0 → q, 1 → q̇, 2 → q̈, …"""
        if order < 0:
            raise ValueError("jet order must be non-negative")
        if order not in self._jets:
            suffix = _SUFFIX.get(order)
            self._jets[order] = tuple(
                sp.Symbol(f"{s.name}{suffix}" if suffix else f"{s.name}_{order}") for s in self.q
            )
        return self._jets[order]

    @property
    def qdot(self) -> tuple:
        return self.jet_symbols(1)

    @property
    def qddot(self) -> tuple:
        return self.jet_symbols(2)

    def order_of(self, s: sp.Symbol) -> tuple:
        """(order, σ) of a jet coordinate symbol; ChartError if it is not one."""
        for k in range(0, max(self._jets) + 1):
            syms = self.jet_symbols(k)
            if s in syms:
                return k, syms.index(s)
        raise ChartError(f"{s} is not a jet coordinate of {self!r}")

    def jet_order(self, *f) -> int:
        """Highest jet order of the coordinates occurring in the expressions ``f`` (0 for functions on
        Y): the free symbols collected on the DAG (:func:`~jetgeo.geometry.exact.free_symbols_dag`, the
        nodes the expressions share visited once; sympy's ``free_symbols`` unions the sets of every path
        of the tree) looked up in one table of the jet coordinates' orders."""
        orders = self._orders()
        return max((orders.get(s, 0) for s in free_symbols_dag([as_expr(e) for e in f])), default=0)

    def _orders(self) -> dict:
        """{jet coordinate of order ≥ 1: its order}, over the orders made so far (at least q̇, q̈)."""
        top = max(max(self._jets), 2)
        cached = self.__dict__.get("_order_table")
        if cached is None or cached[0] != top:
            table = {s: k for k in range(1, top + 1) for s in self.jet_symbols(k)}
            cached = self.__dict__["_order_table"] = (top, table)
        return cached[1]

    # --- charts ---------------------------------------------------------------------
    def jet_chart(self, order: int) -> Chart:
        """The chart (t, q, q̇, …, q^(order)) of J^order Y (order 0: Y)."""
        coords = [self.t]
        for k in range(order + 1):
            coords.extend(self.jet_symbols(k))
        return Chart(coords, name=f"J{order}Y" if order else "Y")

    @cached_property
    def Y(self) -> Chart:
        return self.jet_chart(0)

    @cached_property
    def J1(self) -> Chart:
        return self.jet_chart(1)

    @cached_property
    def J2(self) -> Chart:
        return self.jet_chart(2)

    @cached_property
    def TQ(self) -> Chart:
        """The autonomous view: (q, q̇) without t."""
        return Chart(list(self.q) + list(self.qdot), name="TQ")

    @cached_property
    def X(self) -> Chart:
        """The base X = R."""
        return Chart([self.t], name="X")

    def chart_for(self, *exprs) -> Chart:
        """The smallest jet chart on which all ``exprs`` are functions."""
        return self.jet_chart(max([self.jet_order(e) for e in exprs] + [0]))

    # --- total derivative ---------------------------------------------------------
    def total_derivative(self, f, n: int = 1) -> sp.Expr:
        r"""d/dt applied ``n`` times: ∂_t f + Σ_k q^σ_(k+1) ∂f/∂q^σ_(k)."""
        f = as_expr(f)
        for _ in range(n):
            r = self.jet_order(f)
            out = sp.diff(f, self.t)
            free = f.free_symbols
            for k in range(r + 1):
                for s, s1 in zip(self.jet_symbols(k), self.jet_symbols(k + 1)):
                    if s in free:
                        out += s1 * sp.diff(f, s)
            f = out
        return f

    def cut_total_derivative(self, f) -> sp.Expr:
        """d̄f = ∂_t f + q̇^σ ∂_{q^σ} f [Stolařová 2009, §2]: the total derivative without the q̈ term."""
        f = as_expr(f)
        return sp.diff(f, self.t) + sp.Add(*[v * sp.diff(f, s) for s, v in zip(self.q, self.qdot)])

    @cached_property
    def total_derivative_field(self) -> VectorField:
        """d/dt as a vector field on J²Y restricted to functions on J¹Y (∂_t + q̇∂_q + q̈∂_q̇)."""
        C = self.J2
        comps = [1] + list(self.qdot) + list(self.qddot) + [0] * self.m
        return VectorField(C, comps)

    # --- contact structure ------------------------------------------------------------
    def contact_form(self, sigma: int, order: int = 0, chart: Chart | None = None) -> Form:
        """ω^σ_(order) = dq^σ_(order) − q^σ_(order+1) dt on ``chart`` (default J^(order+1)Y)."""
        C = chart or self.jet_chart(order + 1)
        s = self.jet_symbols(order)[sigma]
        s1 = self.jet_symbols(order + 1)[sigma]
        return C.dx(s) - s1 * C.dx(self.t)

    @cached_property
    def contact_forms(self) -> tuple:
        """ω^σ = dq^σ − q̇^σ dt on J¹Y."""
        return tuple(self.contact_form(s, 0, self.J1) for s in range(self.m))

    @cached_property
    def contact_forms_2(self) -> tuple:
        """(ω^σ, ω̇^σ = dq̇^σ − q̈^σ dt) on J²Y."""
        return tuple(self.contact_form(s, 0, self.J2) for s in range(self.m)) + tuple(
            self.contact_form(s, 1, self.J2) for s in range(self.m)
        )

    def cartan_distribution(self, order: int = 1):
        r"""The Cartan (contact) distribution on J^order Y, annihilated by the contact forms
        ω^σ_(k), k < order:  spanned by the truncated total derivative
        :math:`\partial_t + \sum_{k<r} q^\sigma_{(k+1)}\partial_{q^\sigma_{(k)}}` and the
        :math:`\partial_{q^\sigma_{(r)}}` (r = ``order``; rank m + 1).
        """
        if order < 1:
            raise ValueError("the Cartan distribution lives on J^r Y with r ≥ 1")
        C = self.jet_chart(order)
        comps = [sp.Integer(1)]
        for k in range(order):
            comps.extend(self.jet_symbols(k + 1))
        comps.extend([0] * self.m)
        fields = [VectorField(C, comps)] + [C.partial(s) for s in self.jet_symbols(order)]
        return Distribution(C, fields)

    def in_contact_ideal(self, eta: Form) -> bool:
        r"""Whether a form η on J^r Y belongs to the contact ideal generated by the ω^σ_(k), k < r.

        A form lies in the ideal iff it vanishes on the Cartan distribution (a k-form:
        iff η(X_1, …, X_k) = 0 for all X_i in it); a 0-form iff it is zero.
        """
        from itertools import combinations

        r = _source_order(self, eta)
        if eta.degree == 0:
            return eta.is_zero()
        if r == 0:
            # on Y there are no contact forms: only the zero form is in the ideal
            return eta.is_zero()
        gens = self.cartan_distribution(r).generators
        return all(is_zero(eta(*fs)) for fs in combinations(gens, eta.degree))

    def is_autonomous(self, *exprs) -> bool:
        """True iff none of ``exprs`` depends explicitly on t (they live on the autonomous view TQ)."""
        return all(self.t not in as_expr(e).free_symbols for e in exprs)

    def horizontal(self, eta: Form) -> Form:
        """Horizontalisation h: dt ↦ dt, dq^σ_(k) ↦ q^σ_(k+1) dt (see :mod:`.contact`)."""
        return horizontal(self, eta)

    def decompose(self, eta: Form) -> dict:
        """{k: k-contact part} with 0 the horizontal part (see :mod:`.contact`)."""
        return decompose(self, eta)

    # --- sections and prolongations ---------------------------------------------------
    def section(self, curve: Sequence):
        """A section γ(t) = (t, q^σ(t)) given by expressions in ``t``."""
        return Section(self, curve)

    def prolong(self, xi: VectorField, order: int = 1) -> VectorField:
        """Prolongation of a vector field on Y to J^order Y (see :mod:`.prolongation`)."""
        return prolong(self, xi, order)

    # --- interoperability ---------------------------------------------------------------
    def to_dynamicsymbols(self, expr):
        """Replace q, q̇, q̈ by q(t), q'(t), q''(t) of ``sympy.physics.mechanics``."""
        return to_dynamicsymbols(self, expr)

    def from_dynamicsymbols(self, expr):
        """Inverse of :meth:`to_dynamicsymbols`."""
        return from_dynamicsymbols(self, expr)

    # --- display -------------------------------------------------------------------------
    def __repr__(self) -> str:
        return f"FibredManifold({list(map(str, self.q))}, time={str(self.t)!r})"

    def _repr_latex_(self) -> str:
        q = ", ".join(sp.latex(s) for s in self.q)
        return rf"$\pi: Y \to \mathbb{{R}},\quad ({sp.latex(self.t)};\, {q})$"
