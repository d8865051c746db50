"""Shared plumbing of the recipes: the common result type and small exact solvers."""

from __future__ import annotations

import sympy as sp

from ..errors import InputError, NotRegularError
from ..geometry import generic_rank
from ..geometry.exact import lu_solve_dag, solve_field, trig_reduce
from ..geometry.zero import normalise_if_small
from ..mechanics import ConstrainedSystem, ConstraintSubmanifold, LagrangianSystem, Motion

__all__ = ["Motion", "linear_solve", "check_system", "constrained"]


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


def linear_solve(eqs, unknowns, what: str) -> tuple[dict, sp.Expr]:
    """Solve equations affine in ``unknowns`` exactly (LU on the coefficient matrix).

    Returns ``({unknown: value}, det)`` where ``det`` is the determinant condition
    under which the solution holds (the numerator of det M, computed in the fraction field).
    Raises :class:`NotRegularError` when the coefficient matrix is generically singular,
    naming ``what``.
    """
    unknowns = list(unknowns)
    zero = {u: 0 for u in unknowns}
    M = sp.Matrix(len(eqs), len(unknowns), lambda r, c: trig_reduce(sp.diff(eqs[r], unknowns[c])))
    b = sp.Matrix([-e.xreplace(zero) for e in eqs])
    info = generic_rank(M)
    if info.rank < len(unknowns):
        raise NotRegularError(
            f"{what}: the coefficient matrix of ({', '.join(map(str, unknowns))}) has generic rank "
            f"{info.rank} < {len(unknowns)}; the equations do not determine them"
        )
    res = solve_field(M, b)  # fraction-field elimination: quotients in lowest terms, pivots proven
    if res is None:
        sol = lu_solve_dag(M, b)
        return {u: normalise_if_small(s) for u, s in zip(unknowns, sol)}, info.condition
    return dict(zip(unknowns, res.X)), res.det


def accelerations_on_Q(cs, independent: dict) -> dict:
    """All accelerations on Q from the independent ones: q̈^D = d g^D/dt (``cs.gdot``, affine in
    the independent q̈) with the solution substituted; small results normalised."""
    acc = dict(independent)
    for dd, expr in cs.gdot.items():
        acc[dd] = expr.xreplace(independent)
    return {a: normalise_if_small(acc[a]) for a in cs.Y.qddot}
