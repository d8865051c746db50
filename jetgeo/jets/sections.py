r"""Sections γ(t) = (t, q^σ(t)) of Y → R, their prolongations and pullbacks.

The r-jet prolongation is J^rγ(t) = (t, q^σ(t), q̇^σ(t), …, d^rq^σ/dt^r).  Every
contact form pulls back to zero along a prolonged (holonomic) section:
J¹γ*ω^σ = (dq^σ/dt − q̇^σ∘J¹γ) dt = 0.
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy as sp

from ..errors import ChartError
from ..geometry import Chart, Form
from ..geometry.coerce import as_expr

__all__ = ["Section"]


class Section:
    """A section of π: Y → R given by expressions q^σ(t) in the time symbol.

    Calling the section on a function f of a jet chart gives f ∘ J^rγ; :meth:`pullback` pulls
    forms back by the prolongation J^rγ, so that every contact form ω^σ = dq^σ − q̇^σ dt pulls
    back to zero [Stolařová 2009; Krupková 1997].

    Parameters
    ----------
    Y : FibredManifold
        The fibred manifold π: Y → R.
    curve : sequence of sympy.Expr
        The components q^σ(t), one per fibre coordinate, expressions in ``Y.t`` only.

    Raises
    ------
    jetgeo.errors.ChartError
        If the number of components is not the fibre dimension, or a component contains a jet
        coordinate other than t.

    Examples
    --------
    >>> from jetgeo.jets import FibredManifold
    >>> Y = FibredManifold(["x", "y"], time="t")
    >>> gamma = Section(Y, [Y.t**2, sp.sin(Y.t)])
    >>> gamma(Y.qdot[0] * Y.q[1])
    2*t*sin(t)
    >>> gamma.pullback(Y.contact_forms[0]).is_zero()
    True
    """

    def __init__(self, Y, curve: Sequence) -> None:
        curve = [as_expr(c) for c in curve]
        if len(curve) != Y.m:
            raise ChartError(f"a section of {Y!r} needs {Y.m} components, got {len(curve)}")
        jet = set(Y.J2.coords) - {Y.t}
        for c in curve:
            bad = c.free_symbols & jet
            if bad:
                raise ChartError(f"section components must be functions of {Y.t}; {c} contains {bad}")
        self.Y = Y
        self.curve = tuple(curve)
        self.domain = Chart([Y.t], name="X")

    def prolongation(self, order: int = 1) -> dict:
        """The map J^order γ as {jet coordinate: expression in t}."""
        Y = self.Y
        out = {Y.t: Y.t}
        for k in range(order + 1):
            for s, c in zip(Y.jet_symbols(k), self.curve):
                out[s] = sp.diff(c, Y.t, k) if k else c
        return out

    def pullback(self, eta: Form) -> Form:
        """(J^rγ)*η for a form η on J^rY (r read off the form's chart)."""
        r = None
        for k in range(0, 8):
            if eta.chart == self.Y.jet_chart(k):
                r = k
                break
        if r is None:
            raise ChartError(f"{eta.chart!r} is not a jet chart of {self.Y!r}")
        return eta.pullback(self.prolongation(r), self.domain)

    def __call__(self, f) -> sp.Expr:
        """f ∘ J^rγ for a function f on a jet chart."""
        r = self.Y.jet_order(f)
        return as_expr(f).xreplace(self.prolongation(r))

    def __repr__(self) -> str:
        return f"Section({list(self.curve)})"
