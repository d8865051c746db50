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
    """Clear errors for the two most common mistakes: wrong argument types or order."""
    if not isinstance(system, LagrangianSystem):
        raise InputError(f"expected a LagrangianSystem as first argument, got {type(system).__name__}")
    if Q is not None and not isinstance(Q, ConstraintSubmanifold):
        raise InputError(f"expected a ConstraintSubmanifold, got {type(Q).__name__}")
    if Q is not None and Q.Y.q != system.Y.q:
        raise InputError("the system and the constraint submanifold have different coordinates")


def constrained(system, Q, branch=None, dependent=None) -> ConstrainedSystem:
    """The core object on Q that the recipes specialise (normal form, on_Q, dg/dt)."""
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
