r"""The common result type of every method: equations of motion on a constraint manifold.

A :class:`Motion` carries what a caller needs, like scipy's ``OdeResult``: the
accelerations {q̈^σ: expression}, in the jet coordinates of the constraint
manifold (``coordinates``: the symbols they may contain), the multipliers and
reaction forces when the method yields them, the conditions under which the
result holds (expressions that must not vanish), and method-specific extras
(the vector field Z of Benenti's first kind, the Gibbs–Appell function, …).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp

from ..geometry.display import tidy
from .bordered import BorderedSystem

__all__ = ["Motion"]


@dataclass
class Motion:
    """Equations of motion produced by one method.

    Attributes
    ----------
    method : str
        Name of the method (``"krupkova"``, ``"gibbs_appell"``, …).
    system : LagrangianSystem
    Q : ConstraintSubmanifold or None
    acc : dict
        {q̈^σ: expression} for every coordinate.
    coordinates : tuple
        Symbols the expressions are written in (e.g. (t, q, q̇^I) on Q, or
        (t, q, q̇) on TQ, or (t, q, z) for a parametrisation).
    substitution : dict
        Map from the jet coordinates to ``coordinates`` when they differ
        (q̇^D = g on Q; q̇ = ψ(z) for parametric results).
    lam : list or None
        Multipliers λ_i (reaction forces R_σ = λ_i ∂f^i/∂q̇^σ).
    reactions_ : list or None
        Reaction forces R_σ (covariant components), functions of the state.
    conditions : list
        Expressions whose vanishing invalidates the result (singular loci).
    extras : dict
        Method-specific objects.
    branch : int or None
        Branch of a nonlinear constraint the result lives on.
    to_jet : dict
        For results written in other coordinates than the jets (parameters z of
        q̇ = ψ(t,q,z), quasi-velocities u): those coordinates as functions of
        (t, q, q̇) on Q, so that the result can be compared in jet coordinates.
    bordered : BorderedSystem or None
        The route's own bordered system W q̈ − Jᵀλ = ℓ, J q̈ = −b in the jets, when it is
        cheaper than differentiating L (Hamel's equations give it from the expressions in the
        quasi-velocities); simulation's ``"multipliers"`` formulation solves it.  None: the
        bordered system is built from the Lagrangian.

    A Motion implements :class:`~jetgeo.mechanics.eom.EquationsOfMotion`.
    """

    method: str
    system: object
    Q: object
    acc: dict
    coordinates: tuple
    substitution: dict = field(default_factory=dict)
    lam: list | None = None
    reactions_: list | None = None
    conditions: list = field(default_factory=list)
    extras: dict = field(default_factory=dict)
    branch: int | None = None
    to_jet: dict = field(default_factory=dict)
    bordered: BorderedSystem | None = None

    def accelerations(self) -> dict:
        """{q̈^σ: expression} for every coordinate (in ``coordinates``)."""
        return dict(self.acc)

    def validity_conditions(self) -> list:
        """The ``conditions`` (:class:`~jetgeo.mechanics.eom.EquationsOfMotion`)."""
        return list(self.conditions)

    def multipliers(self) -> list | None:
        """The multipliers λ_i, or None if the method does not give them."""
        return None if self.lam is None else list(self.lam)

    def reactions(self) -> list | None:
        """Reaction forces R_σ = λ_i ∂f^i/∂q̇^σ, or None."""
        return None if self.reactions_ is None else list(self.reactions_)

    def __str__(self) -> str:
        """The equations as printed: small expressions tidied (display only, :mod:`jetgeo.geometry.display`)."""
        lines = [f"Motion by {self.method}:"]
        for a, e in self.acc.items():
            lines.append(f"  {a} = {tidy(e)}")
        if self.lam is not None:
            lines.append("  multipliers: " + ", ".join(str(tidy(v)) for v in self.lam))
        if self.conditions:
            lines.append("  valid where these do not vanish: " + ", ".join(str(tidy(c)) for c in self.conditions))
        return "\n".join(lines)

    def _repr_latex_(self) -> str:
        rows = [sp.latex(sp.Eq(a, tidy(e), evaluate=False)) for a, e in self.acc.items()]
        if self.lam is not None:
            rows += [rf"\lambda_{{{i + 1}}} = " + sp.latex(tidy(v)) for i, v in enumerate(self.lam)]
        if self.conditions:
            rows.append(r"\text{valid where } " + r",\ ".join(sp.latex(tidy(c)) for c in self.conditions)
                        + r" \neq 0")
        head = r"\text{" + self.method.replace("_", " ") + r"}"
        return r"$\begin{gathered}" + head + r"\\" + r"\\".join(rows) + r"\end{gathered}$"
