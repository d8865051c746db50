r"""Distributions (spans of vector fields) and codistributions (spans of 1-forms).

Ranks are *generic* ranks (:mod:`jetgeo.geometry.linalg`): every object carries
its ``singular_locus``, the expressions whose common vanishing is where the rank
drops.  Constructions that choose a pivot (annihilators, bases) are valid off the
zero set of the pivot minor, recorded as ``condition``.

* annihilator of a distribution D: D° = {α : α(X) = 0 ∀X ∈ D};
  rank D + rank D° = dim;
* Frobenius: D is involutive iff [X_i, X_j] ∈ D for a basis;
* derived flag: D⁽⁰⁾ = D, D⁽ᵏ⁺¹⁾ = D⁽ᵏ⁾ + [D⁽ᵏ⁾, D⁽ᵏ⁾]; the growth vector is
  (rank D⁽⁰⁾, rank D⁽¹⁾, …) until it stabilises;
* the Lie (lower) flag D_{k+1} = D_k + [D, D_k] is available too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import sympy as sp

from ..errors import ChartError
from .chart import Chart
from .coerce import as_expr
from .forms import Form
from .linalg import generic_rank, nullspace, singular_locus
from .vectorfields import VectorField

__all__ = ["Distribution", "Codistribution", "InvolutivityReport"]


@dataclass
class InvolutivityReport:
    """Result of the Frobenius test: ``involutive`` and the offending brackets.

    ``offending`` lists ``(i, j, [X_i, X_j])`` for generator pairs whose bracket
    leaves the distribution.  Truthiness is the verdict.

    By Frobenius' theorem the distribution is integrable (tangent to a foliation by
    submanifolds) exactly when it is involutive; for the canonical distribution of a constraint
    this separates holonomic from genuinely non-holonomic constraints.

    Attributes
    ----------
    involutive : bool
        Whether every bracket [X_i, X_j] of generators lies in the span (generically).
    offending : list of tuple
        ``(i, j, bracket)`` with ``bracket`` the :class:`~jetgeo.geometry.VectorField` [X_i, X_j]
        for each pair whose bracket leaves the distribution; empty when involutive.
    """

    involutive: bool
    offending: list

    def __bool__(self) -> bool:
        return self.involutive


class Distribution:
    """The span of vector fields on a chart (a C^∞-module, generic rank).

    Parameters
    ----------
    chart : Chart
        The chart the fields live on.
    fields : sequence of VectorField
        The generators (on ``chart``).
    conditions : sequence of expressions
        Expressions that must not vanish for this representation to be valid (part of :attr:`domain`).

    Examples
    --------
    >>> import sympy as sp
    >>> C = Chart(["x", "y", "theta", "psi"])
    >>> x, y, th, ps = C
    >>> R = sp.Symbol("R", positive=True)
    >>> D = Distribution(C, [VectorField(C, [R*sp.cos(ps), R*sp.sin(ps), 1, 0]),
    ...                      VectorField(C, [0, 0, 0, 1])])
    >>> D.rank, D.is_involutive().involutive, D.growth_vector()
    (2, False, (2, 3, 4))
    """

    def __init__(self, chart: Chart, fields: Sequence[VectorField], conditions: Sequence = ()) -> None:
        if not isinstance(chart, Chart):
            raise ChartError(f"Distribution needs a Chart, got {chart!r}")
        fields = list(fields)
        for X in fields:
            if not isinstance(X, VectorField):
                raise TypeError(f"a Distribution is spanned by VectorFields, got {type(X).__name__}")
            if X.chart != chart:
                raise ChartError(f"vector field on {X.chart!r} given for a distribution on {chart!r}")
        self.chart = chart
        self.generators = fields
        self.conditions = [as_expr(c) for c in conditions]
        self._rank_info = None

    @property
    def domain(self) -> list:
        """Expressions that must not vanish for this representation to be valid:
        denominators of the generators and conditions of the construction
        (e.g. the pivot minor of an annihilator)."""
        return _domain(self.conditions, [c for X in self.generators for c in X.components])

    # --- rank ------------------------------------------------------------------
    def matrix(self) -> sp.Matrix:
        """dim × (number of generators) matrix whose columns are the generators."""
        if not self.generators:
            return sp.zeros(self.chart.dim, 0)
        return sp.Matrix.hstack(*[X.as_matrix() for X in self.generators])

    @property
    def rank_info(self):
        if self._rank_info is None:
            self._rank_info = generic_rank(self.matrix())
        return self._rank_info

    @property
    def rank(self) -> int:
        """Generic rank."""
        return self.rank_info.rank

    @property
    def corank(self) -> int:
        return self.chart.dim - self.rank

    def singular_locus(self) -> list:
        """Expressions whose common zeros are the points where the rank drops."""
        return singular_locus(self.matrix())

    @property
    def condition(self) -> sp.Expr:
        """Pivot minor: the chosen basis is a basis where it is non-zero."""
        return self.rank_info.condition

    def basis(self) -> list:
        """A generically independent subset of the generators."""
        return [self.generators[j] for j in self.rank_info.cols]

    # --- duality and lattice operations -------------------------------------------
    def annihilator(self) -> Codistribution:
        """D° as a :class:`Codistribution` (valid off the pivot condition)."""
        if not self.generators:
            return Codistribution(self.chart, list(self.chart.basis_forms))
        vecs, cond = nullspace(self.matrix().T)
        return Codistribution(
            self.chart, [Form.one_form(self.chart, list(v)) for v in vecs], self.conditions + [cond]
        )

    def __add__(self, other: Distribution) -> Distribution:
        self._check(other)
        return Distribution(self.chart, self.generators + other.generators)

    def sum(self, other: Distribution) -> Distribution:
        """D₁ + D₂ (the span of both)."""
        return self + other

    def intersection(self, other: Distribution) -> Distribution:
        """D₁ ∩ D₂ = (D₁° + D₂°)°."""
        self._check(other)
        return (self.annihilator() + other.annihilator()).annihilator()

    def contains(self, X: VectorField) -> bool:
        """Generic membership: rank(D + X) = rank D."""
        if not isinstance(X, VectorField):
            raise TypeError(f"membership in a distribution is for vector fields, got {type(X).__name__}")
        if X.chart != self.chart:
            raise ChartError(f"vector field on {X.chart!r}, distribution on {self.chart!r}")
        return generic_rank(sp.Matrix.hstack(self.matrix(), X.as_matrix())).rank == self.rank

    __contains__ = contains

    def _check(self, other) -> None:
        if not isinstance(other, Distribution):
            raise TypeError(f"expected a Distribution, got {type(other).__name__}")
        if other.chart != self.chart:
            raise ChartError(f"distributions on different charts: {self.chart!r} and {other.chart!r}")

    def equals(self, other: Distribution) -> bool:
        """Same span (generically)."""
        self._check(other)
        r = (self + other).rank
        return r == self.rank == other.rank

    # --- Frobenius and flags ---------------------------------------------------------
    def is_involutive(self) -> InvolutivityReport:
        """Frobenius test on a basis: every bracket [X_i, X_j] must lie in D."""
        basis = self.basis()
        offending = []
        for i in range(len(basis)):
            for j in range(i + 1, len(basis)):
                br = basis[i].bracket(basis[j])
                if not self.contains(br):
                    offending.append((i, j, br))
        return InvolutivityReport(not offending, offending)

    def derived(self) -> Distribution:
        """D + [D, D] (on a basis), reduced to a basis."""
        basis = self.basis()
        brackets = [basis[i].bracket(basis[j]) for i in range(len(basis)) for j in range(i + 1, len(basis))]
        return Distribution(self.chart, basis + brackets).reduced()

    def reduced(self) -> Distribution:
        """The same distribution spanned by an independent subset of generators."""
        return Distribution(self.chart, self.basis())

    def derived_flag(self, max_steps: int | None = None) -> list:
        """[D⁽⁰⁾, D⁽¹⁾, …] until the rank stops growing."""
        steps = self.chart.dim if max_steps is None else max_steps
        flag = [self.reduced()]
        for _ in range(steps):
            nxt = flag[-1].derived()
            if nxt.rank == flag[-1].rank:
                break
            flag.append(nxt)
        return flag

    def lie_flag(self, max_steps: int | None = None) -> list:
        """Lower flag D₁ = D, D_{k+1} = D_k + [D, D_k], until stable."""
        steps = self.chart.dim if max_steps is None else max_steps
        base = self.basis()
        flag = [self.reduced()]
        for _ in range(steps):
            cur = flag[-1].basis()
            brs = [X.bracket(Y) for X in base for Y in cur]
            nxt = Distribution(self.chart, cur + brs).reduced()
            if nxt.rank == flag[-1].rank:
                break
            flag.append(nxt)
        return flag

    def growth_vector(self) -> tuple:
        """Ranks along the derived flag."""
        return tuple(D.rank for D in self.derived_flag())

    # --- display --------------------------------------------------------------------------
    def __repr__(self) -> str:
        return f"Distribution(rank {self.rank} on {self.chart!r}: span{{{', '.join(map(str, self.generators))}}})"

    def _repr_latex_(self) -> str:
        gens = r",\; ".join(X.latex() for X in self.generators)
        return r"$\mathrm{span}\left\{" + gens + r"\right\}$"


class Codistribution:
    """The span of 1-forms on a chart (generic rank).

    Parameters
    ----------
    chart : Chart
        The chart the forms live on.
    forms : sequence of Form
        The generating 1-forms (on ``chart``).
    conditions : sequence of expressions
        Expressions that must not vanish for this representation to be valid (part of :attr:`domain`).

    Examples
    --------
    >>> C = Chart(["x", "y", "z"])
    >>> x, y, z = C
    >>> P = Codistribution(C, [C.d(z) - y*C.d(x)])
    >>> P.annihilator().rank, P.is_integrable().involutive
    (2, False)
    """

    def __init__(self, chart: Chart, forms: Sequence[Form], conditions: Sequence = ()) -> None:
        if not isinstance(chart, Chart):
            raise ChartError(f"Codistribution needs a Chart, got {chart!r}")
        forms = list(forms)
        for a in forms:
            if not isinstance(a, Form) or a.degree != 1:
                raise TypeError("a Codistribution is spanned by 1-forms")
            if a.chart != chart:
                raise ChartError(f"1-form on {a.chart!r} given for a codistribution on {chart!r}")
        self.chart = chart
        self.generators = forms
        self.conditions = [as_expr(c) for c in conditions]
        self._rank_info = None

    @property
    def domain(self) -> list:
        """Expressions that must not vanish for this representation to be valid."""
        return _domain(self.conditions, [c for a in self.generators for c in a.components.values()])

    def matrix(self) -> sp.Matrix:
        """(number of generators) × dim matrix whose rows are the coefficients."""
        if not self.generators:
            return sp.zeros(0, self.chart.dim)
        return sp.Matrix([a.coefficients() for a in self.generators])

    @property
    def rank_info(self):
        if self._rank_info is None:
            self._rank_info = generic_rank(self.matrix())
        return self._rank_info

    @property
    def rank(self) -> int:
        return self.rank_info.rank

    @property
    def condition(self) -> sp.Expr:
        return self.rank_info.condition

    def singular_locus(self) -> list:
        return singular_locus(self.matrix())

    def basis(self) -> list:
        return [self.generators[i] for i in self.rank_info.rows]

    def reduced(self) -> Codistribution:
        return Codistribution(self.chart, self.basis())

    def annihilator(self) -> Distribution:
        """The distribution of vectors killed by every generator."""
        if not self.generators:
            return Distribution(self.chart, list(self.chart.basis_fields))
        vecs, cond = nullspace(self.matrix())
        return Distribution(
            self.chart, [VectorField(self.chart, list(v)) for v in vecs], self.conditions + [cond]
        )

    def __add__(self, other: Codistribution) -> Codistribution:
        self._check(other)
        return Codistribution(self.chart, self.generators + other.generators)

    def sum(self, other: Codistribution) -> Codistribution:
        return self + other

    def intersection(self, other: Codistribution) -> Codistribution:
        """P₁ ∩ P₂ = (P₁° + P₂°)°."""
        self._check(other)
        return (self.annihilator() + other.annihilator()).annihilator()

    def contains(self, a: Form) -> bool:
        if not isinstance(a, Form) or a.degree != 1 or a.chart != self.chart:
            raise ChartError("membership in a codistribution is for 1-forms on the same chart")
        return generic_rank(sp.Matrix.vstack(self.matrix(), sp.Matrix([a.coefficients()]))).rank == self.rank

    __contains__ = contains

    def equals(self, other: Codistribution) -> bool:
        self._check(other)
        return (self + other).rank == self.rank == other.rank

    def _check(self, other) -> None:
        if not isinstance(other, Codistribution):
            raise TypeError(f"expected a Codistribution, got {type(other).__name__}")
        if other.chart != self.chart:
            raise ChartError(f"codistributions on different charts: {self.chart!r} and {other.chart!r}")

    def is_integrable(self) -> InvolutivityReport:
        """Frobenius in dual form: dα_i ∧ α_1 ∧ … ∧ α_r = 0 for a basis α.

        Offending entries are ``(i, None, dα_i ∧ α_1 ∧ … ∧ α_r)``.
        """
        basis = self.basis()
        if not basis:
            return InvolutivityReport(True, [])
        top = basis[0]
        for a in basis[1:]:
            top = top ^ a
        offending = []
        for i, a in enumerate(basis):
            w = a.d() ^ top
            if not w.is_zero():
                offending.append((i, None, w))
        return InvolutivityReport(not offending, offending)

    def is_involutive(self) -> InvolutivityReport:
        """Alias of :meth:`is_integrable` (Frobenius for the annihilated distribution)."""
        return self.is_integrable()

    def derived_flag(self, max_steps: int | None = None) -> list:
        """The dual derived flag P = P⁽⁰⁾ ⊃ P⁽¹⁾ ⊃ …, P⁽ᵏ⁾ = (D⁽ᵏ⁾)° with D = P°.

        Equivalently P⁽¹⁾ = {α ∈ P : dα ≡ 0 mod P}; stops when the rank stops falling.
        """
        return [D.annihilator() for D in self.annihilator().derived_flag(max_steps)]

    def growth_vector(self) -> tuple:
        """Ranks along the dual derived flag (non-increasing)."""
        return tuple(P.rank for P in self.derived_flag())

    def __repr__(self) -> str:
        return f"Codistribution(rank {self.rank} on {self.chart!r}: span{{{', '.join(map(repr, self.generators))}}})"

    def _repr_latex_(self) -> str:
        gens = r",\; ".join(a.latex() for a in self.generators)
        return r"$\mathrm{span}\left\{" + gens + r"\right\}$"


def _domain(conditions, components) -> list:
    out: list = []
    seen: set = set()
    cands = list(conditions)
    for c in components:
        den = sp.fraction(sp.together(c))[1]
        cands.append(den)
    for c in cands:
        for f in sp.Mul.make_args(sp.factor_terms(c)):
            if f.is_number:
                continue
            if f.is_Pow and f.exp.is_positive:
                f = f.base
            key = sp.srepr(f)
            if key not in seen:
                seen.add(key)
                out.append(f)
    return out
