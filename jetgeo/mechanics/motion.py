r"""The common result type of every recipe and route: equations of motion on a constraint manifold.

A :class:`Motion` carries what a caller needs, like scipy's ``OdeResult``: the
accelerations {q̈^σ: expression}, in the jet coordinates of the constraint
manifold (``coordinates``: the symbols they may contain), the multipliers and
reaction forces when the recipe yields them, the conditions under which the
result holds (expressions that must not vanish), and recipe-specific extras
(the vector field Z of Benenti's first kind, the Gibbs–Appell function, …).
"""

from __future__ import annotations

import warnings

import sympy as sp

from ..geometry.display import tidy
from .bordered import BorderedSystem
from .constraints import ConstraintSubmanifold
from .lagrangian import LagrangianSystem

__all__ = ["Motion"]

#: the constructor's old keywords, accepted with a DeprecationWarning: {old: new}
_OLD_KEYWORDS = {"method": "recipe", "acc": "accelerations", "lam": "multipliers", "reactions_": "reactions"}


def _deprecated(old: str, new: str, what: str, stacklevel: int = 3) -> None:
    warnings.warn(f"Motion{what}: {old!r} is deprecated, use {new!r}", DeprecationWarning, stacklevel=stacklevel)


def _renamed(changes: dict, what: str) -> dict:
    """``changes`` with the old keywords (:data:`_OLD_KEYWORDS`) renamed, each with a DeprecationWarning."""
    out = dict(changes)
    for old, new in _OLD_KEYWORDS.items():
        if old in out:
            _deprecated(old, new, what, stacklevel=4)
            if new in out:
                raise TypeError(f"Motion{what}: give {new!r} only ({old!r} is its deprecated spelling)")
            out[new] = out.pop(old)
    return out


class _AcceptsOldKeywords(type):
    """Renames the old constructor keywords before ``__init__`` sees them, so that its signature stays typed."""

    def __call__(cls, *args, **kwargs):
        return super().__call__(*args, **_renamed(kwargs, "(...)"))


class Motion(metaclass=_AcceptsOldKeywords):
    """Equations of motion produced by one recipe or route.

    The accelerations, multipliers and reactions are read through the methods of
    :class:`~jetgeo.mechanics.eom.EquationsOfMotion` (:meth:`accelerations`, :meth:`multipliers`,
    :meth:`reactions`), the one way to get them.  The old names — the keywords and attributes ``method``
    (now ``recipe``), ``acc``, ``lam`` and ``reactions_`` — still work, with a :class:`DeprecationWarning`.

    Parameters
    ----------
    recipe : str
        Name of the recipe or route that produced the result: its name in :data:`jetgeo.recipes.RECIPES`
        (``"krupkova"``, ``"gibbs_appell"``, …), or ``"ibort_sode"``, ``"quasi_velocities"``, ….
    system : LagrangianSystem
        L and the forces.
    Q : ConstraintSubmanifold or None
        The constraint submanifold, or None on TQ.
    accelerations : dict
        {q̈^σ: expression} for every coordinate, in ``coordinates``.
    coordinates : tuple
        Symbols the expressions are written in (e.g. (t, q, q̇^I) on Q, or
        (t, q, q̇) on TQ, or (t, q, z) for a parametrisation).
    substitution : dict, optional
        Map from the jet coordinates to ``coordinates`` when they differ
        (q̇^D = g on Q; q̇ = ψ(z) for parametric results).
    multipliers : list or None, optional
        Multipliers λ_i (reaction forces R_σ = λ_i ∂f^i/∂q̇^σ).
    reactions : list or None, optional
        Reaction forces R_σ (covariant components), functions of the state.
    conditions : list, optional
        Expressions whose vanishing invalidates the result (singular loci).
    extras : dict, optional
        Method-specific objects.
    branch : int or None, optional
        Branch of a nonlinear constraint the result lives on.
    to_jet : dict, optional
        For results written in other coordinates than the jets (parameters z of
        q̇ = ψ(t,q,z), quasi-velocities u): those coordinates as functions of
        (t, q, q̇) on Q, so that the result can be compared in jet coordinates.
    bordered : BorderedSystem or None, optional
        The route's own bordered system W q̈ − Jᵀλ = ℓ, J q̈ = −b in the jets, when it is
        cheaper than differentiating L (Hamel's equations give it from the expressions in the
        quasi-velocities); simulation's ``"multipliers"`` formulation solves it.  None: the
        bordered system is built from the Lagrangian.

    A Motion implements :class:`~jetgeo.mechanics.eom.EquationsOfMotion`.

    Examples
    --------
    >>> from jetgeo import FibredManifold, LagrangianSystem
    >>> Y = FibredManifold(["x"])
    >>> S = LagrangianSystem(Y, Y.qdot[0]**2 / 2 - Y.q[0]**2 / 2)
    >>> m = Motion("by hand", S, None, {Y.qddot[0]: -Y.q[0]}, tuple(Y.J1.coords))
    >>> m.accelerations()
    {xddot: -x}
    >>> m.replace(accelerations={Y.qddot[0]: 0}).accelerations()
    {xddot: 0}
    """

    def __init__(self, recipe: str, system: LagrangianSystem, Q: ConstraintSubmanifold | None, accelerations: dict,
                 coordinates: tuple, substitution: dict | None = None, multipliers: list | None = None,
                 reactions: list | None = None, conditions: list | None = None, extras: dict | None = None,
                 branch: int | None = None, to_jet: dict | None = None, bordered: BorderedSystem | None = None) -> None:
        self.recipe = recipe
        self.system = system
        self.Q = Q
        self.coordinates = coordinates
        self.substitution = {} if substitution is None else substitution
        self.conditions = [] if conditions is None else conditions
        self.extras = {} if extras is None else extras
        self.branch = branch
        self.to_jet = {} if to_jet is None else to_jet
        self.bordered = bordered
        self._accelerations = accelerations
        self._multipliers = multipliers
        self._reactions = reactions

    def accelerations(self) -> dict:
        """{q̈^σ: expression} for every coordinate (in ``coordinates``).

        Returns
        -------
        dict
            A copy of the accelerations.
        """
        return dict(self._accelerations)

    def validity_conditions(self) -> list:
        """The ``conditions`` (:class:`~jetgeo.mechanics.eom.EquationsOfMotion`).

        Returns
        -------
        list
            Expressions whose vanishing invalidates the result.
        """
        return list(self.conditions)

    def multipliers(self) -> list | None:
        """The multipliers λ_i, or None if the recipe does not give them.

        Returns
        -------
        list or None
            A copy of the multipliers.
        """
        return None if self._multipliers is None else list(self._multipliers)

    def reactions(self) -> list | None:
        """Reaction forces R_σ = λ_i ∂f^i/∂q̇^σ, or None.

        Returns
        -------
        list or None
            A copy of the reaction forces.
        """
        return None if self._reactions is None else list(self._reactions)

    def replace(self, **changes) -> Motion:
        """A copy with some members changed, as :func:`dataclasses.replace` (the keywords of the constructor).

        Parameters
        ----------
        **changes
            Constructor keywords (``accelerations=``, ``multipliers=``, ``conditions=``, …) and their new values.

        Returns
        -------
        Motion
            A new Motion of the same class; the members not named are those of ``self``.
        """
        changes = _renamed(changes, ".replace(...)")
        members = dict(recipe=self.recipe, system=self.system, Q=self.Q, accelerations=self.accelerations(),
                       coordinates=self.coordinates, substitution=self.substitution, multipliers=self._multipliers,
                       reactions=self._reactions, conditions=self.conditions, extras=self.extras,
                       branch=self.branch, to_jet=self.to_jet, bordered=self.bordered)
        unknown = set(changes) - set(members)
        if unknown:
            raise TypeError(f"Motion.replace: unknown members {sorted(unknown)}")
        return type(self)(**{**members, **changes})

    @property
    def method(self) -> str:
        """Deprecated: :attr:`recipe`."""
        _deprecated("method", "recipe", ".method")
        return self.recipe

    @method.setter
    def method(self, value: str) -> None:
        _deprecated("method", "recipe", ".method")
        self.recipe = value

    @property
    def acc(self) -> dict:
        """Deprecated: :meth:`accelerations`."""
        _deprecated("acc", "accelerations()", ".acc")
        return self._accelerations

    @property
    def lam(self) -> list | None:
        """Deprecated: :meth:`multipliers`."""
        _deprecated("lam", "multipliers()", ".lam")
        return self.multipliers()

    @property
    def reactions_(self) -> list | None:
        """Deprecated: :meth:`reactions`."""
        _deprecated("reactions_", "reactions()", ".reactions_")
        return self.reactions()

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(recipe={self.recipe!r}, accelerations={self._accelerations!r}, "
                f"coordinates={self.coordinates!r}, conditions={self.conditions!r})")

    def __str__(self) -> str:
        """The equations as printed: small expressions tidied (display only, :mod:`jetgeo.geometry.display`)."""
        lines = [f"Motion by {self.recipe}:"]
        for a, e in self._accelerations.items():
            lines.append(f"  {a} = {tidy(e)}")
        if self._multipliers is not None:
            lines.append("  multipliers: " + ", ".join(str(tidy(v)) for v in self._multipliers))
        if self.conditions:
            lines.append("  valid where these do not vanish: " + ", ".join(str(tidy(c)) for c in self.conditions))
        return "\n".join(lines)

    def _repr_latex_(self) -> str:
        rows = [sp.latex(sp.Eq(a, tidy(e), evaluate=False)) for a, e in self._accelerations.items()]
        if self._multipliers is not None:
            rows += [rf"\lambda_{{{i + 1}}} = " + sp.latex(tidy(v)) for i, v in enumerate(self._multipliers)]
        if self.conditions:
            rows.append(r"\text{valid where } " + r",\ ".join(sp.latex(tidy(c)) for c in self.conditions)
                        + r" \neq 0")
        head = r"\text{" + self.recipe.replace("_", " ") + r"}"
        return r"$\begin{gathered}" + head + r"\\" + r"\\".join(rows) + r"\end{gathered}$"
