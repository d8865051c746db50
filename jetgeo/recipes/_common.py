"""Shared plumbing of the recipes: the common result type, argument checks, the core object on Q
(their final affine solve is :func:`jetgeo.geometry.exact.solve_affine`)."""

from __future__ import annotations

from ..errors import InputError
from ..geometry.exact import xreplace_dag
from ..geometry.zero import normalise_if_small
from ..mechanics import ConstrainedSystem, ConstraintSubmanifold, LagrangianSystem, Motion, QuasiVelocitySystem

__all__ = ["Motion", "check_system", "constrained", "coordinate_form"]


def check_system(system, Q=None) -> None:
    """Clear errors for the two most common mistakes: wrong argument types or order."""
    if not isinstance(system, LagrangianSystem):
        raise InputError(f"expected a LagrangianSystem as first argument, got {type(system).__name__}")
    if Q is not None and not isinstance(Q, ConstraintSubmanifold):
        raise InputError(f"expected a ConstraintSubmanifold, got {type(Q).__name__}")
    if Q is not None and Q.Y.q != system.Y.q:
        raise InputError("the system and the constraint submanifold have different coordinates")


def coordinate_form(system, Q=None, who: str = "the recipe", needs_Q: bool = True) -> tuple:
    """The recipes' front door: (LagrangianSystem, ConstraintSubmanifold or None).

    A :class:`~jetgeo.mechanics.quasi.QuasiVelocitySystem` given alone (its constraints are in
    it) is read in its coordinate form L(q, q̇) = ℓ(q, Φ(q) q̇), f = φ(q, Φ(q) q̇)
    (``lagrangian_system()``, ``constraint_submanifold()``), the one conversion every recipe uses;
    a LagrangianSystem comes with its Q.

    Parameters
    ----------
    system : LagrangianSystem or QuasiVelocitySystem
        The system.
    Q : ConstraintSubmanifold, optional
        Its constraints (not with a QuasiVelocitySystem, which carries them).
    who : str
        The recipe's name, for the error messages.
    needs_Q : bool
        Whether a LagrangianSystem must come with Q.

    Returns
    -------
    (LagrangianSystem, ConstraintSubmanifold or None)
    """
    if isinstance(system, QuasiVelocitySystem):
        if Q is not None:
            raise InputError(f"{who}: a QuasiVelocitySystem carries its constraints; pass it alone, not with Q")
        return system.lagrangian_system(), system.constraint_submanifold()
    if needs_Q and Q is None:
        raise InputError(f"{who}: needs a constraint submanifold Q (or a QuasiVelocitySystem, which carries one)")
    return system, Q


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
