"""Charts: ordered tuples of coordinate symbols with their coordinate 1-forms and vector fields."""

from __future__ import annotations

from functools import cached_property

import sympy as sp

from .coordinates import Coordinates, as_symbols
from .forms import Form
from .vectorfields import VectorField

__all__ = ["Chart", "as_symbols"]


class Chart(Coordinates):
    """A coordinate chart: an ordered tuple of distinct coordinate symbols, with the coordinate
    1-forms dx^i and vector fields ∂/∂x^i.

    Parameters
    ----------
    coords, name
        As for :class:`~jetgeo.geometry.coordinates.Coordinates` (plain sympy ``Symbol``s, so that
        differentiation is cheap).

    Examples
    --------
    >>> import sympy as sp
    >>> C = Chart(["x", "y", "z"])
    >>> C.dim, C[0]
    (3, x)
    >>> C.d(C[0] * C[1])   # the exact 1-form d(xy)
    y*dx + x*dy
    """

    # --- forms and fields ------------------------------------------------
    @cached_property
    def basis_forms(self) -> tuple:
        """The coordinate 1-forms dx^i."""
        return tuple(Form(self, {(i,): sp.Integer(1)}, 1) for i in range(self.dim))

    @cached_property
    def basis_fields(self) -> tuple:
        """The coordinate vector fields ∂/∂x^i."""
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
        return Form.function(self, f).d()

    def function(self, f):
        """A function as a 0-form."""
        return Form.function(self, f)
