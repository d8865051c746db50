r"""Differential forms on a chart.

A k-form is stored as a map from strictly increasing index tuples to sympy
expressions, :math:`\eta = \sum_{I} \eta_I\, dx^{I}`, with
:math:`dx^I = dx^{i_1}\wedge\dots\wedge dx^{i_k}`, :math:`i_1<\dots<i_k`.
Zero components are not stored.  This plain representation was chosen over
galgebra and sympy.diffgeom on measured evidence (``theory/geometry.md``).

Conventions (all standard):

* wedge: :math:`dx^I\wedge dx^J = \operatorname{sign}(I,J)\, dx^{I\cup J}`;
* exterior derivative: :math:`d(f\,dx^I) = \partial_j f\, dx^j\wedge dx^I`;
* interior product: :math:`i_X(f\,dx^{i_1}\wedge\dots\wedge dx^{i_k})
  = \sum_p (-1)^{p-1} X^{i_p} f\, dx^{i_1}\wedge\dots\widehat{dx^{i_p}}\dots\wedge dx^{i_k}`,
  so that :math:`\eta(X_1,\dots,X_k) = i_{X_k}\cdots i_{X_1}\eta` … evaluated as
  ``(i_{X_1}η)(X_2, …, X_k)``;
* pullback along :math:`\varphi`: :math:`\varphi^*(f\,dx^I) = (f\circ\varphi)\,
  d\varphi^{i_1}\wedge\dots\wedge d\varphi^{i_k}`;
* Lie derivative by Cartan's formula :math:`L_X = i_X d + d i_X`.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import sympy as sp

from ..errors import ChartError, DegreeError, NotAFunctionError
from .coerce import as_expr, as_substitution
from .coordinates import Coordinates
from .vectorfields import VectorField
from .zero import is_zero, normalise

if TYPE_CHECKING:  # annotations only: chart.py builds on this module
    from .chart import Chart

__all__ = ["Form", "NotAFunctionError"]


def _merge_sign(a: tuple, b: tuple):
    """(sign, merged) for dx^a ∧ dx^b, or (0, None) if they share an index."""
    if set(a) & set(b):
        return 0, None
    inversions = sum(1 for i in a for j in b if i > j)
    return (-1 if inversions % 2 else 1), tuple(sorted(a + b))



class Form:
    """A differential k-form on a :class:`Chart`.

    Parameters
    ----------
    chart : Chart
        The chart.
    components : mapping
        {(i₁, …, i_k): coefficient of dx^{i₁} ∧ … ∧ dx^{i_k}}, indices into the chart (any order: a
        permutation contributes its sign).
    degree : int, optional
        k (default: the length of the indices; needed for the zero form).

    Examples
    --------
    >>> from jetgeo.geometry import Chart
    >>> C = Chart(["x", "y", "z"])
    >>> x, y, z = C
    >>> w = C.d(z) - y * C.d(x)          # the contact form dz − y dx
    >>> (w ^ w.d()).is_zero()            # ω ∧ dω ≠ 0: not integrable
    False
    >>> w.d()
    dx^dy
    """

    __slots__ = ("chart", "degree", "components")
    #: above sympy's expressions (10.0) and matrices (10.01): ``expr * η`` is η's ``__rmul__``
    _op_priority = 12.0

    def __init__(self, chart: Chart, components: Mapping, degree: int | None = None) -> None:
        if not isinstance(chart, Coordinates):
            raise ChartError(f"Form needs a Chart, got {chart!r}")
        comps: dict = {}
        for idx, c in components.items():
            idx = tuple(idx)
            if degree is None:
                degree = len(idx)
            if len(idx) != degree:
                raise DegreeError(f"component {idx} does not fit a {degree}-form")
            if any(not 0 <= i < chart.dim for i in idx):
                raise ChartError(f"index {idx} out of range for a chart of dimension {chart.dim}")
            sign = 1
            if list(idx) != sorted(idx):
                perm = sorted(range(len(idx)), key=lambda k: idx[k])
                sign = _perm_sign(perm)
                idx = tuple(sorted(idx))
            if len(set(idx)) != len(idx):
                continue
            c = as_expr(c)
            if c == 0:
                continue
            comps[idx] = comps.get(idx, 0) + sign * c
            if comps[idx] == 0:
                del comps[idx]
        self.chart = chart
        self.degree = 0 if degree is None else int(degree)
        self.components = comps

    # --- constructors ---------------------------------------------------------
    @classmethod
    def function(cls, chart: Chart, f) -> Form:
        """A function as a 0-form."""
        return cls(chart, {(): as_expr(f)}, 0)

    @classmethod
    def zero(cls, chart: Chart, degree: int) -> Form:
        return cls(chart, {}, degree)

    @classmethod
    def one_form(cls, chart: Chart, coefficients: Sequence) -> Form:
        """The 1-form a_i dx^i from its coefficients in chart order."""
        if len(coefficients) != chart.dim:
            raise ChartError(
                f"a 1-form on a chart of dimension {chart.dim} needs {chart.dim} coefficients, "
                f"got {len(coefficients)}"
            )
        return cls(chart, {(i,): c for i, c in enumerate(coefficients)}, 1)

    # --- access ------------------------------------------------------------------
    def __getitem__(self, idx) -> sp.Expr:
        """Component on dx^{i1}∧…∧dx^{ik}: ``η[i, j]`` (or ``η[(i, j)]``) with exactly k indices,
        each an integer 0 ≤ i < dim or a coordinate symbol; ``f[()]`` is a 0-form's function.

        Anything else is refused at once (:class:`DegreeError` for the wrong number of
        indices, :class:`ChartError` for an index that is not one of the chart): a form is not a
        sequence, and answering 0 for every integer made ``sympify`` iterate for ever.
        """
        if not isinstance(idx, tuple):
            idx = (idx,)
        if len(idx) != self.degree:
            raise DegreeError(
                f"a {self.degree}-form has components on {self.degree} indices, got {len(idx)}: {idx!r}"
                + (" (a 0-form's function is f[()] or f.as_function())" if self.degree == 0 else "")
            )
        idx = tuple(self._index(i) for i in idx)
        if len(set(idx)) != len(idx):
            return sp.Integer(0)
        perm = sorted(range(len(idx)), key=lambda k: idx[k])
        return _perm_sign(perm) * self.components.get(tuple(sorted(idx)), sp.Integer(0))

    def _index(self, i) -> int:
        """A chart index from an integer or a coordinate symbol (ChartError otherwise)."""
        if isinstance(i, sp.Symbol):
            return self.chart.index(i)
        if isinstance(i, bool):
            raise ChartError(f"index {i!r} is not a coordinate index")
        try:
            j = operator.index(i)
        except TypeError:
            raise ChartError(f"index {i!r} is neither an integer nor a coordinate of the chart") from None
        if not 0 <= j < self.chart.dim:
            raise ChartError(f"index {j} out of range for a chart of dimension {self.chart.dim}")
        return j

    def __iter__(self):
        raise TypeError("a Form is not iterable: use .components ({indices: coefficient}) or .coefficients()")

    def _sympy_(self) -> sp.Expr:
        """A 0-form is a function: sympy treats it as its expression (``sympify``, ``X(f)``)."""
        if self.degree != 0:
            raise NotAFunctionError(f"a {self.degree}-form is not a function; only 0-forms convert to expressions")
        return self.as_function()

    def coefficients(self) -> list:
        """For a 1-form, its coefficients in chart order."""
        if self.degree != 1:
            raise DegreeError(f"coefficients() is for 1-forms; this is a {self.degree}-form")
        return [self.components.get((i,), sp.Integer(0)) for i in range(self.chart.dim)]

    def as_function(self) -> sp.Expr:
        if self.degree != 0:
            raise DegreeError(f"a {self.degree}-form is not a function")
        return self.components.get((), sp.Integer(0))

    # --- algebra ---------------------------------------------------------------
    def _coerce(self, other) -> Form:
        if isinstance(other, Form):
            if other.chart != self.chart:
                raise ChartError(f"forms on different charts: {self.chart!r} and {other.chart!r}")
            return other
        if self.degree == 0:
            return Form.function(self.chart, other)
        if as_expr(other) == 0:
            return Form.zero(self.chart, self.degree)
        raise DegreeError(f"cannot add a function to a {self.degree}-form")

    def __add__(self, other) -> Form:
        other = self._coerce(other)
        if other.degree != self.degree:
            raise DegreeError(f"cannot add a {self.degree}-form and a {other.degree}-form")
        comps = dict(self.components)
        for k, v in other.components.items():
            comps[k] = comps.get(k, 0) + v
        return Form(self.chart, comps, self.degree)

    __radd__ = __add__

    def __neg__(self) -> Form:
        return Form(self.chart, {k: -v for k, v in self.components.items()}, self.degree)

    def __sub__(self, other) -> Form:
        return self + (-self._coerce(other))

    def __rsub__(self, other) -> Form:
        return self._coerce(other) - self

    def __mul__(self, f) -> Form:
        if isinstance(f, Form):
            return self.wedge(f)
        if isinstance(f, VectorField):
            return NotImplemented
        f = as_expr(f)
        return Form(self.chart, {k: f * v for k, v in self.components.items()}, self.degree)

    def __rmul__(self, f) -> Form:
        return self.__mul__(f)

    def __truediv__(self, f) -> Form:
        return self * (1 / as_expr(f))

    def wedge(self, other: Form) -> Form:
        """Exterior product η ∧ ζ (also written ``η ^ ζ``)."""
        other = self._coerce(other) if not isinstance(other, Form) else other
        if other.chart != self.chart:
            raise ChartError(f"forms on different charts: {self.chart!r} and {other.chart!r}")
        comps: dict = {}
        for a, u in self.components.items():
            for b, v in other.components.items():
                sign, idx = _merge_sign(a, b)
                if sign:
                    comps[idx] = comps.get(idx, 0) + sign * u * v
        return Form(self.chart, comps, self.degree + other.degree)

    def __xor__(self, other: Form) -> Form:
        return self.wedge(other)

    def __rxor__(self, other) -> Form:
        return self._coerce(other).wedge(self)

    # --- calculus ----------------------------------------------------------------
    def d(self) -> Form:
        """Exterior derivative d(f dx^I) = ∂_j f dx^j ∧ dx^I."""
        comps: dict = {}
        xs = self.chart.coords
        for idx, f in self.components.items():
            for j in f.free_symbols & set(xs):
                jj = self.chart.index(j)
                if jj in idx:
                    continue
                df = sp.diff(f, j)
                if df == 0:
                    continue
                sign, new = _merge_sign((jj,), idx)
                comps[new] = comps.get(new, 0) + sign * df
        return Form(self.chart, comps, self.degree + 1)

    def interior(self, X: VectorField) -> Form:
        """Interior product i_X η (contraction in the first slot).

        i_X (f dx^{i_1}∧…∧dx^{i_k}) = Σ_p (−1)^{p−1} X^{i_p} f dx^{i_1}∧…(omit i_p)…∧dx^{i_k}.
        On a function (0-form) i_X f = 0, the zero form of degree −1, so that the graded
        identities (i_X as a derivation, Cartan's formula) hold in every degree.
        """
        if not isinstance(X, VectorField):
            raise TypeError(f"interior() needs a VectorField, got {type(X).__name__}")
        if X.chart != self.chart:
            raise ChartError(f"vector field on {X.chart!r}, form on {self.chart!r}")
        if self.degree == 0:
            return Form.zero(self.chart, -1)
        comps: dict = {}
        for idx, f in self.components.items():
            for p, i in enumerate(idx):
                xi = X.components[i]
                if xi == 0:
                    continue
                rest = idx[:p] + idx[p + 1 :]
                comps[rest] = comps.get(rest, 0) + (-1) ** p * xi * f
        return Form(self.chart, comps, self.degree - 1)

    def __call__(self, *fields: VectorField) -> sp.Expr:
        """Evaluation η(X_1, …, X_k) = (i_{X_k} ⋯ i_{X_1} η)."""
        if len(fields) != self.degree:
            raise DegreeError(f"a {self.degree}-form takes {self.degree} vector fields, got {len(fields)}")
        out = self
        for X in fields:
            out = out.interior(X)
        return out.as_function()

    def lie_derivative(self, X: VectorField) -> Form:
        """L_X η = i_X dη + d(i_X η) (Cartan's formula)."""
        return self.d().interior(X) + self.interior(X).d()

    def pullback(self, phi, source: Chart) -> Form:
        """Pullback φ*η along φ: source → self.chart.

        ``phi`` gives the target coordinates as functions of the source
        coordinates: a sequence in target-chart order, or a mapping
        {target coordinate: expression} in which a missing coordinate maps to
        itself (convenient for embeddings of submanifolds).
        """
        tgt = self.chart
        if isinstance(phi, Mapping):
            for k in phi:
                tgt.index(k)
            images = [as_expr(phi.get(x, x)) for x in tgt.coords]
        else:
            images = [as_expr(e) for e in phi]
            if len(images) != tgt.dim:
                raise ChartError(f"the map must give {tgt.dim} coordinate functions, got {len(images)}")
        rep = dict(zip(tgt.coords, images))
        dphi: dict = {}
        result = Form.zero(source, self.degree)
        for idx, f in self.components.items():
            term = Form.function(source, f.xreplace(rep))
            for i in idx:
                if i not in dphi:
                    dphi[i] = Form.function(source, images[i]).d()
                term = term.wedge(dphi[i])
            result = result + term
        return result

    # --- normalisation, equality, substitution ----------------------------------------
    def applyfunc(self, fn) -> Form:
        return Form(self.chart, {k: fn(v) for k, v in self.components.items()}, self.degree)

    def normalised(self) -> Form:
        """Components through the cheap exact normaliser (``cancel``)."""
        return self.applyfunc(normalise)

    def subs(self, *args, **kwargs) -> Form:
        """Components with ``subs`` applied; text values are refused (never evaluated)."""
        pairs = as_substitution(*args)
        return self.applyfunc(lambda e: e.subs(pairs, **kwargs))

    def is_zero(self) -> bool:
        """True iff every component vanishes identically (zero test of ``geometry.zero``)."""
        return all(is_zero(v) for v in self.components.values())

    def __eq__(self, other) -> bool:
        if isinstance(other, Form):
            if other.chart != self.chart or other.degree != self.degree:
                return False
            return (self - other).is_zero()
        if self.degree == 0 or as_expr(other) == 0:
            try:
                return (self - other).is_zero()
            except (DegreeError, sp.SympifyError):
                return False
        return False

    __hash__ = None

    # --- display -----------------------------------------------------------------------
    def _basis(self, idx, sep: str, fmt) -> str:
        return sep.join("d" + fmt(self.chart.coords[i]) for i in idx)

    def __repr__(self) -> str:
        if not self.components:
            return "0"
        terms = []
        for idx in sorted(self.components):
            c = self.components[idx]
            basis = self._basis(idx, "^", str)
            if not idx:
                terms.append(str(c))
            elif c == 1:
                terms.append(basis)
            elif c == -1:
                terms.append("-" + basis)
            else:
                cs = str(c)
                if isinstance(c, sp.Add):
                    cs = f"({cs})"
                terms.append(f"{cs}*{basis}")
        return " + ".join(terms).replace("+ -", "- ")

    def latex(self) -> str:
        if not self.components:
            return "0"
        terms = []
        for idx in sorted(self.components):
            c = self.components[idx]
            basis = self._basis(idx, r" \wedge ", lambda s: " " + sp.latex(s))
            if not idx:
                terms.append(sp.latex(c))
            elif c == 1:
                terms.append(basis)
            elif c == -1:
                terms.append("-" + basis)
            else:
                cl = sp.latex(c)
                if isinstance(c, sp.Add):
                    cl = r"\left(" + cl + r"\right)"
                terms.append(cl + r"\, " + basis)
        return " + ".join(terms).replace("+ -", "- ")

    def _repr_latex_(self) -> str:
        return "$" + self.latex() + "$"


def _perm_sign(perm) -> int:
    perm = list(perm)
    sign = 1
    seen = [False] * len(perm)
    for i in range(len(perm)):
        if seen[i]:
            continue
        j, length = i, 0
        while not seen[j]:
            seen[j] = True
            j = perm[j]
            length += 1
        if length % 2 == 0:
            sign = -sign
    return sign
