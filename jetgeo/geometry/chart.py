"""Charts: ordered tuples of coordinate symbols."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cached_property

import sympy as sp

from ..errors import ChartError
from .coerce import as_expr

__all__ = ["Chart", "as_symbols"]


def as_symbols(coords: Iterable) -> tuple:
    """Strings become plain ``Symbol``s (no assumptions); Symbols are kept."""
    out = []
    for c in coords:
        if isinstance(c, str):
            out.append(sp.Symbol(c))
        elif isinstance(c, sp.Symbol):
            out.append(c)
        else:
            raise ChartError(f"a coordinate must be a name or a sympy Symbol, got {c!r}")
    return tuple(out)


class Chart:
    """A coordinate chart: an ordered tuple of distinct coordinate symbols.

    Coordinates are plain sympy ``Symbol``s so that differentiation is cheap.

    >>> import sympy as sp
    >>> C = Chart(["x", "y", "z"])
    >>> C.dim, C[0]
    (3, x)
    >>> C.d(C[0] * C[1])   # the exact 1-form d(xy)
    y*dx + x*dy
    """

    def __init__(self, coords: Sequence, name: str | None = None) -> None:
        self.coords: tuple = as_symbols(coords)
        if len(set(self.coords)) != len(self.coords):
            raise ChartError(f"chart coordinates must be distinct, got {self.coords}")
        self.name = name
        self._index = {s: i for i, s in enumerate(self.coords)}

    # --- basic protocol -------------------------------------------------
    @property
    def dim(self) -> int:
        return len(self.coords)

    def __len__(self) -> int:
        return len(self.coords)

    def __iter__(self):
        return iter(self.coords)

    def __getitem__(self, i):
        return self.coords[i]

    def __contains__(self, s) -> bool:
        return s in self._index

    def __eq__(self, other) -> bool:
        return isinstance(other, Chart) and self.coords == other.coords

    def __hash__(self) -> int:
        return hash(self.coords)

    def __repr__(self) -> str:
        return f"Chart({list(map(str, self.coords))})"

    def _repr_latex_(self) -> str:
        return "$(" + ", ".join(sp.latex(c) for c in self.coords) + ")$"

    def index(self, s) -> int:
        """Position of coordinate ``s``; raises :class:`ChartError` if it is not one."""
        try:
            return self._index[s]
        except KeyError:
            raise ChartError(f"{s} is not a coordinate of {self!r}") from None

    # --- forms and fields ------------------------------------------------
    @cached_property
    def basis_forms(self) -> tuple:
        """The coordinate 1-forms dx^i."""
        from .forms import Form

        return tuple(Form(self, {(i,): sp.Integer(1)}, 1) for i in range(self.dim))

    @cached_property
    def basis_fields(self) -> tuple:
        """The coordinate vector fields ∂/∂x^i."""
        from .vectorfields import VectorField

        return tuple(
            VectorField(self, [1 if j == i else 0 for j in range(self.dim)]) for i in range(self.dim)
        )

    def dx(self, s):
        """The coordinate 1-form d``s`` of coordinate ``s``."""
        return self.basis_forms[self.index(s)]

    def partial(self, s):
        """The coordinate vector field ∂/∂``s``."""
        return self.basis_fields[self.index(s)]

    def d(self, f):
        """The exact 1-form df of a function on this chart."""
        from .forms import Form

        return Form.function(self, f).d()

    def function(self, f):
        """A function as a 0-form."""
        from .forms import Form

        return Form.function(self, f)

    def check_function(self, f, what: str = "function") -> sp.Expr:
        """Sympify ``f``; symbols not in the chart are treated as parameters."""
        try:
            return as_expr(f)
        except (sp.SympifyError, TypeError) as exc:
            raise ChartError(f"{what} {f!r} is not a symbolic expression") from exc
