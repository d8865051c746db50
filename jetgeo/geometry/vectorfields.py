r"""Vector fields on a chart: X = X^i ∂/∂x^i."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import sympy as sp

from ..errors import ChartError
from .coerce import as_expr, as_substitution
from .coordinates import Coordinates
from .zero import is_zero, normalise

if TYPE_CHECKING:  # annotations only: chart.py builds on this module
    from .chart import Chart

__all__ = ["VectorField"]


class VectorField:
    r"""A vector field :math:`X = X^i\,\partial/\partial x^i` on a chart.

    ``components`` are given in chart order.  ``X(f)`` is the derivative of a
    function along X, ``X.bracket(Y)`` the Lie bracket
    :math:`[X,Y]^i = X(Y^i) - Y(X^i)`.

    Parameters
    ----------
    chart : Chart
        The chart.
    components : sequence of expressions
        X^i, one per coordinate in chart order.

    Examples
    --------
    >>> from jetgeo.geometry import Chart
    >>> C = Chart(["x", "y"])
    >>> x, y = C
    >>> X, Y = VectorField(C, [1, 0]), VectorField(C, [0, x])
    >>> X.bracket(Y)
    VectorField([0, 1])
    """

    __slots__ = ("chart", "components")

    def __init__(self, chart: Chart, components: Sequence) -> None:
        if not isinstance(chart, Coordinates):
            raise ChartError(f"VectorField needs a Chart, got {chart!r}")
        comps = tuple(as_expr(c) for c in components)
        if len(comps) != chart.dim:
            raise ChartError(
                f"VectorField on a chart of dimension {chart.dim} needs {chart.dim} components, "
                f"got {len(comps)}"
            )
        self.chart = chart
        self.components = comps

    # --- algebra -----------------------------------------------------------
    def _check(self, other: VectorField) -> None:
        if not isinstance(other, VectorField):
            raise TypeError(f"expected a VectorField, got {type(other).__name__}")
        if other.chart != self.chart:
            raise ChartError(f"vector fields on different charts: {self.chart!r} and {other.chart!r}")

    def __add__(self, other: VectorField) -> VectorField:
        self._check(other)
        return VectorField(self.chart, [a + b for a, b in zip(self.components, other.components)])

    def __sub__(self, other: VectorField) -> VectorField:
        self._check(other)
        return VectorField(self.chart, [a - b for a, b in zip(self.components, other.components)])

    def __neg__(self) -> VectorField:
        return VectorField(self.chart, [-a for a in self.components])

    def __mul__(self, f) -> VectorField:
        if isinstance(f, VectorField):
            return NotImplemented
        f = as_expr(f)
        return VectorField(self.chart, [f * a for a in self.components])

    __rmul__ = __mul__

    def __getitem__(self, i):
        """The component X^i, by integer 0 ≤ i < dim or coordinate symbol (ChartError otherwise)."""
        if isinstance(i, sp.Symbol):
            return self.components[self.chart.index(i)]
        if isinstance(i, bool) or not isinstance(i, int):
            raise ChartError(f"index {i!r} is neither an integer nor a coordinate of the chart")
        if not 0 <= i < self.chart.dim:
            raise IndexError(f"index {i} out of range for a chart of dimension {self.chart.dim}")
        return self.components[i]

    def __iter__(self):
        """The components X^1, …, X^n in chart order."""
        return iter(self.components)

    def __len__(self) -> int:
        return len(self.components)

    def _sympy_(self):
        raise sp.SympifyError(self, TypeError("a vector field is not an expression; apply it to one: X(f)"))

    # --- action and bracket ------------------------------------------------
    def __call__(self, f) -> sp.Expr:
        """X(f) = X^i ∂f/∂x^i."""
        f = as_expr(f)
        return sp.Add(*[c * sp.diff(f, x) for c, x in zip(self.components, self.chart.coords) if c != 0])

    def bracket(self, other: VectorField) -> VectorField:
        """Lie bracket [X, Y]^i = X(Y^i) − Y(X^i)."""
        self._check(other)
        return VectorField(
            self.chart,
            [self(b) - other(a) for a, b in zip(self.components, other.components)],
        )

    def normalised(self) -> VectorField:
        """Components passed through the cheap exact normaliser."""
        return VectorField(self.chart, [normalise(c) for c in self.components])

    def is_zero(self) -> bool:
        return all(is_zero(c) for c in self.components)

    def __eq__(self, other) -> bool:
        if not isinstance(other, VectorField) or other.chart != self.chart:
            return False
        return all(is_zero(a - b) for a, b in zip(self.components, other.components))

    __hash__ = None  # mutable-free but equality is mathematical, not structural

    def subs(self, *args, **kwargs) -> VectorField:
        """Components with ``subs`` applied; text values are refused (never evaluated)."""
        pairs = as_substitution(*args)
        return VectorField(self.chart, [c.subs(pairs, **kwargs) for c in self.components])

    def as_matrix(self) -> sp.Matrix:
        return sp.Matrix(self.components)

    # --- display ---------------------------------------------------------------
    def __repr__(self) -> str:
        return f"VectorField({list(self.components)})"

    def __str__(self) -> str:
        terms = [
            f"({c})*d/d{x}" for c, x in zip(self.components, self.chart.coords) if c != 0
        ]
        return " + ".join(terms) if terms else "0"

    def latex(self) -> str:
        terms = []
        for c, x in zip(self.components, self.chart.coords):
            if c == 0:
                continue
            d = r"\frac{\partial}{\partial " + sp.latex(x) + "}"
            if c == 1:
                terms.append(d)
            elif c == -1:
                terms.append("-" + d)
            else:
                cl = sp.latex(c)
                if isinstance(c, sp.Add):
                    cl = r"\left(" + cl + r"\right)"
                terms.append(cl + " " + d)
        return " + ".join(terms).replace("+ -", "- ") if terms else "0"

    def _repr_latex_(self) -> str:
        return "$" + self.latex() + "$"
