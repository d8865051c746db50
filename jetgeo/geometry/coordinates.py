"""Coordinates: ordered tuples of distinct coordinate symbols, the part of a chart that forms and
vector fields build on (:class:`~jetgeo.geometry.chart.Chart` adds the coordinate forms and fields)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import sympy as sp

from ..errors import ChartError
from .coerce import as_expr

__all__ = ["Coordinates", "as_symbols"]


def as_symbols(coords: Iterable) -> tuple:
    """Strings become plain ``Symbol``s (no assumptions); Symbols are kept.

    Parameters
    ----------
    coords : iterable of str or sympy.Symbol
        The coordinate names or symbols.

    Returns
    -------
    tuple of sympy.Symbol
        One symbol per coordinate, in order.
    """
    out = []
    for c in coords:
        if isinstance(c, str):
            out.append(sp.Symbol(c))
        elif isinstance(c, sp.Symbol):
            out.append(c)
        else:
            raise ChartError(f"a coordinate must be a name or a sympy Symbol, got {c!r}")
    return tuple(out)


class Coordinates:
    """An ordered tuple of distinct coordinate symbols: the base of :class:`~jetgeo.geometry.chart.Chart`.

    Coordinates are plain sympy ``Symbol``s so that differentiation is cheap.  :class:`Form` and
    :class:`VectorField` check their chart against this class, so that this module and theirs
    import each other in no cycle.

    Parameters
    ----------
    coords : sequence of str or sympy.Symbol
        The coordinates, in order.
    name : str, optional
        A name for messages.

    Examples
    --------
    >>> C = Coordinates(["x", "y", "z"])
    >>> C.dim, C[0], C.index(C[2])
    (3, x, 2)
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
        return isinstance(other, Coordinates) and self.coords == other.coords

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

    def check_function(self, f, what: str = "function") -> sp.Expr:
        """Sympify ``f``; symbols not in the chart are treated as parameters."""
        try:
            return as_expr(f)
        except (sp.SympifyError, TypeError) as exc:
            raise ChartError(f"{what} {f!r} is not a symbolic expression") from exc
