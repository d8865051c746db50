r"""The protocols of mechanics' results: :class:`EquationsOfMotion` (every route's equations of
motion), :class:`SecondOrderEquations` (a bare q̈ = F(t, q, q̇), the smallest thing ``simulate``
integrates) and :class:`SampledSystem` (a constrained system with sample data, as the catalogue gives).

A route (Krupková's constrained system ``sys.constrain(Q)``, a recipe's :class:`Motion`, the
parametric system q̇ = ψ(t, q, z), the implicit route's ``NonholonomicProblem.solve()``) ends
in the same object: the accelerations q̈^σ = F^σ of a Lagrangian system L with forces A_σ
under constraints f^i(t, q, q̇) = 0, written in some chart of Q.  Simulation
(:func:`jetgeo.numerics.simulate`), linearisation (:func:`jetgeo.mechanics.linearise`) and the
invariant checks (:mod:`jetgeo.testing.checks`) ask these members — and nothing else — of it:

========================  ==================================================================
``system``                the Lagrangian system: L, A_σ; from it the kinetic metric
                          W = ∂²L/∂q̇∂q̇, the free-motion functions ℓ_σ (W q̈ = ℓ), the
                          energy E_L = q̇^σ ∂L/∂q̇^σ − L
``Q``                     the constraint submanifold f^i(t, q, q̇) = 0, or None
``coordinates``           the symbols the expressions are written in: (t, q, q̇^I) on Q in a
                          normal form, (t, q, z) for a parametrisation, (t, q, q̇) on TQ
``substitution``          the velocities as functions of ``coordinates``: q̇^D = g(t, q, q̇^I)
                          [Stolařová 2009, eq. (4)] or q̇ = ψ(t, q, z) [Benenti 2007,
                          eq. (2.1)]; its keys are the dependent velocities (every velocity
                          for a parametrisation), {} on TQ
``to_jet``                the coordinates that are not jet coordinates (z, quasi-velocities)
                          as functions of (t, q, q̇) on Q; {} when there are none or no such
                          map is known
``branch``                the branch index of a nonlinear constraint's solution, or None
``accelerations()``       {q̈^σ: F^σ} for every coordinate, in ``coordinates``
``validity_conditions()`` expressions whose zeros the equations do not hold on: the
                          regularity determinant [Stolařová 2009, eq. (12)], det ∂f/∂q̇^D of
                          the normal form, the determinants a recipe divided by
``multipliers()``         Chetaev's multipliers λ_i of R_σ = λ_i ∂f^i/∂q̇^σ
                          [Benenti 2007, eq. (3.14)], or None when the route does not give them
``reactions()``           the reaction forces R_σ, or None
========================  ==================================================================

The protocol is ``runtime_checkable``: ``isinstance(obj, EquationsOfMotion)`` tells whether an
object carries all the members (not their types).  Members are plain attributes or methods so
that the check evaluates nothing expensive.

:class:`SampledSystem` is what a layer that may not import :mod:`jetgeo.systems` (numerics
sits on the same floor) asks of a catalogue entry: the pair (L, Q) together with sample values
of the parameters and a state on Q, from which ensembles and stability maps take their
defaults.  :class:`~jetgeo.systems.CatalogueEntry` subclasses it explicitly, so the relation is
declared, not discovered.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from ..jets import FibredManifold
from .constrained import ConstrainedSystem
from .constraints import ConstraintSubmanifold
from .lagrangian import LagrangianSystem

__all__ = ["EquationsOfMotion", "SecondOrderEquations", "SampledSystem", "SystemOnQ", "dependent_velocities",
           "is_parametrised"]


@runtime_checkable
class EquationsOfMotion(Protocol):
    """Equations of motion of a Lagrangian system on a constraint submanifold Q (see the module)."""

    #: the Lagrangian system (L, forces A_σ)
    system: LagrangianSystem
    #: the constraint submanifold f^i(t, q, q̇) = 0, or None
    Q: ConstraintSubmanifold | None
    #: the symbols the expressions are written in (a chart of Q, or of J¹Y)
    coordinates: tuple
    #: {q̇^σ: expression in ``coordinates``}: q̇^D = g (normal form) or q̇ = ψ(t, q, z)
    substitution: dict
    #: {coordinate outside J¹Y: expression in (t, q, q̇)}
    to_jet: dict
    #: the branch of a nonlinear constraint, or None
    branch: int | None

    def accelerations(self) -> dict:
        """{q̈^σ: F^σ} for every σ, in ``coordinates``."""
        ...

    def validity_conditions(self) -> list:
        """Expressions whose vanishing invalidates the equations (singular loci)."""
        ...

    def multipliers(self) -> list | None:
        """λ_i with R_σ = λ_i ∂f^i/∂q̇^σ, or None."""
        ...

    def reactions(self) -> list | None:
        """R_σ (covariant components), or None."""
        ...


@runtime_checkable
class SecondOrderEquations(Protocol):
    """A second-order ODE q̈ = F(t, q, q̇) on J¹Y with no constraints and no Lagrangian: the smallest input
    :func:`jetgeo.numerics.simulate` integrates (a hand-written model, an oscillator in a test).
    ``isinstance(obj, SecondOrderEquations)`` tells whether ``obj`` carries the two members; a
    :class:`~jetgeo.mechanics.LagrangianSystem` has them too, but ``simulate`` asks for it first.

    Attributes
    ----------
    Y : FibredManifold
        The configuration bundle Y → R whose jet coordinates the accelerations are written in.

    Examples
    --------
    >>> import sympy as sp
    >>> class Oscillator:
    ...     Y = FibredManifold(["x"])
    ...     def accelerations(self):
    ...         return {self.Y.qddot[0]: -self.Y.q[0]}
    >>> isinstance(Oscillator(), SecondOrderEquations)
    True
    """

    #: the configuration bundle Y → R
    Y: FibredManifold

    def accelerations(self) -> dict:
        """{q̈^σ: F^σ(t, q, q̇)} for every coordinate.

        Returns
        -------
        dict
            One expression per acceleration symbol of ``Y``.
        """
        ...


@runtime_checkable
class SystemOnQ(Protocol):
    """A Lagrangian system together with its constraint submanifold, not yet equations of motion: a catalogue
    entry (:class:`SampledSystem`), a model imported by :func:`jetgeo.io.from_mechanics`.
    ``isinstance(obj, SystemOnQ)`` tells whether ``obj`` carries the two members."""

    #: the Lagrangian system (L, forces A_σ)
    system: LagrangianSystem
    #: the constraint submanifold f^i(t, q, q̇) = 0, or None
    Q: ConstraintSubmanifold | None


@runtime_checkable
class SampledSystem(Protocol):
    """A Lagrangian system L on a constraint submanifold Q with sample data: values of its
    parameters and a state on Q for them (see the module).  ``isinstance(obj, SampledSystem)``
    tells whether ``obj`` carries the members; :class:`~jetgeo.systems.CatalogueEntry` declares it
    by subclassing."""

    #: the name used in messages and descriptions
    name: str
    #: the Lagrangian system (L, forces A_σ)
    system: LagrangianSystem
    #: the constraint submanifold f^i(t, q, q̇) = 0 (with its branch)
    Q: ConstraintSubmanifold
    #: {parameter symbol: sample value}
    params: dict
    #: {symbol: value} for t, every q^σ and every q̇^σ: a point of Q for the sample ``params``
    initial: dict

    def constrained(self) -> ConstrainedSystem:
        """Krupková's constrained system ``system.constrain(Q)`` (an :class:`EquationsOfMotion`)."""
        ...

    def numeric(self) -> dict:
        """``params`` and ``initial`` together as {symbol: float}."""
        ...


def is_parametrised(eom: EquationsOfMotion) -> bool:
    """True when ``eom`` is written in parameters z of q̇ = ψ(t, q, z) without a map back to the
    jets: every velocity is substituted and ``to_jet`` is empty.

    Parameters
    ----------
    eom : EquationsOfMotion
        The equations (their ``substitution`` and ``to_jet``).

    Returns
    -------
    bool
        Whether the equations live in the parameters z only.
    """
    Y = eom.system.Y
    sub = eom.substitution or {}
    return bool(sub) and not eom.to_jet and set(Y.qdot) <= set(sub)


def dependent_velocities(eom: EquationsOfMotion) -> tuple:
    """The dependent velocities q̇^D of the normal form ``eom`` is written in (``()`` on TQ or for a
    parametrisation), in the order of ``Y.qdot``.

    Parameters
    ----------
    eom : EquationsOfMotion
        The equations; their ``substitution`` {q̇^D: g} names the dependent velocities.

    Returns
    -------
    tuple of sympy.Symbol
        q̇^D, the keys of the substitution, ordered as ``Y.qdot``.
    """
    sub = eom.substitution or {}
    Y = eom.system.Y
    if set(Y.qdot) <= set(sub):  # a parametrisation q̇ = ψ(t, q, z): no velocity is independent
        return ()
    return tuple(v for v in Y.qdot if v in sub)
