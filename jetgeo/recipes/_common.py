"""Shared plumbing of the recipes: the common result type, argument checks, the core object on Q
(their final affine solve is :func:`jetgeo.geometry.exact.solve_affine`)."""

from __future__ import annotations

from ..errors import InputError
from ..geometry.exact import xreplace_dag
from ..geometry.zero import normalise_if_small
from ..mechanics import ConstrainedSystem, ConstraintSubmanifold, LagrangianSystem, Motion
from ..mechanics.quasi import coordinate_form

__all__ = ["Motion", "check_system", "constrained", "coordinate_form"]


def check_system(system, Q=None) -> None:
    """Clear errors for the two most common mistakes: wrong argument types or order.

    Parameters
    ----------
    system : object
        Must be a :class:`~jetgeo.mechanics.LagrangianSystem`.
    Q : object, optional
        If given, a :class:`~jetgeo.mechanics.ConstraintSubmanifold` on the same coordinates.

    Raises
    ------
    jetgeo.errors.InputError
        If ``system`` is not a LagrangianSystem (e.g. the arguments are swapped), ``Q`` is not a
        ConstraintSubmanifold, or their coordinates differ.

    Examples
    --------
    >>> from jetgeo import FibredManifold, LagrangianSystem, ConstraintSubmanifold
    >>> Y = FibredManifold(["x", "y"])
    >>> S = LagrangianSystem(Y, (Y.qdot[0]**2 + Y.qdot[1]**2) / 2)
    >>> Q = ConstraintSubmanifold(Y, [Y.qdot[0] - Y.qdot[1]])
    >>> check_system(Q, S)
    Traceback (most recent call last):
    ...
    jetgeo.errors.InputError: expected a LagrangianSystem as first argument, got ConstraintSubmanifold
    """
    if not isinstance(system, LagrangianSystem):
        raise InputError(f"expected a LagrangianSystem as first argument, got {type(system).__name__}")
    if Q is not None and not isinstance(Q, ConstraintSubmanifold):
        raise InputError(f"expected a ConstraintSubmanifold, got {type(Q).__name__}")
    if Q is not None and Q.Y.q != system.Y.q:
        raise InputError("the system and the constraint submanifold have different coordinates")


def constrained(system, Q, branch=None, dependent=None) -> ConstrainedSystem:
    """The core object on Q that the recipes specialise (normal form, on_Q, dg/dt).

    Parameters
    ----------
    system : LagrangianSystem
        L and the applied forces.
    Q : ConstraintSubmanifold
        The constraint submanifold Q ⊂ J¹Y.
    branch : int, optional
        The branch of the normal form of a nonlinear constraint.
    dependent : sequence of Symbol, optional
        The dependent velocities q̇^D of the normal form (default: Q's choice).

    Returns
    -------
    ConstrainedSystem
        Krupková's constrained system on Q [Stolařová 2009, eq. (7)–(11)], whose normal form
        q̇^D = g, restriction to Q and d̄g/dt the recipes build on.

    Raises
    ------
    jetgeo.errors.InputError
        As :func:`check_system`.
    """
    check_system(system, Q)
    return ConstrainedSystem(system, Q, branch=branch, dependent=dependent)


def accelerations_on_Q(cs, independent: dict) -> dict:
    """All accelerations on Q from the independent ones: q̈^D = d g^D/dt (``cs.gdot``, affine in
    the independent q̈) with the solution substituted; small results normalised."""
    acc = dict(independent)
    memo: dict = {}
    for dd, expr in cs.gdot.items():
        acc[dd] = xreplace_dag(expr, independent, memo)
    return {a: normalise_if_small(acc[a]) for a in cs.Y.qddot}
