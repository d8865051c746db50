r"""Completing a state on Q exactly: the dependent velocities q̇^D at a point (t, q, q̇^I).

The one exact completion of a state on the constraint submanifold Q (the catalogue's sample states, a spec's
initial data); its numerical counterpart, for compiled normal forms and batches of states, is
:func:`jetgeo.numerics.simulation.initial.complete_from_normal_form`.  The constraints are solved for q̇^D at
the point: for constraints affine in q̇^D, f = A(t, q) q̇^D − b(t, q, q̇^I), by one k × k exact solve at the point
(the normal form q̇^D = g [Stolařová 2009, eq. (4)] of a long chain of bodies nests every link's g and costs
minutes; its value at one point needs one small solve), else from the normal form q̇^D = g on Q's branch.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import sympy as sp

from ..geometry.coerce import as_expr
from ..geometry.exact import NORMALISE_MAX_NODES, det_exact, lu_solve_dag, tree_size
from ..geometry.zero import normalise
from .constraints import ConstraintSubmanifold

__all__ = ["CompletedState", "complete_on_Q"]


@dataclass(frozen=True)
class CompletedState:
    """The dependent velocities at a point of Q.

    Attributes
    ----------
    velocities : dict
        {q̇^D: value} for every dependent velocity.
    digits : int or None
        None when the values are exact; else the number of significant digits they were computed to (exact values
        larger than ``max_nodes`` tree nodes were replaced by a solve in that precision).
    """

    velocities: dict
    digits: int | None = None


def complete_on_Q(Q: ConstraintSubmanifold, point: Mapping, normal_form: Mapping | None = None, *,
                  max_nodes: int | None = None, digits: int = 50) -> CompletedState:
    """The dependent velocities q̇^D that put ``point`` on Q, exactly.

    Parameters
    ----------
    Q : ConstraintSubmanifold
        The constraints f^i(t, q, q̇) = 0 (with their choice of dependent velocities and branch).
    point : mapping
        {symbol: value} for t, every q^σ, the independent velocities q̇^I and the parameters f contains; values
        given for the dependent velocities are ignored.
    normal_form : mapping, optional
        A normal form {q̇^D: g(t, q, q̇^I)} already formed (a constrained system's ``g``, for its chart and branch):
        its keys are the dependent velocities.  Default: Q's choice, and ``Q.normal_form()`` where one is needed.
    max_nodes : int, optional
        When the exact values together exceed this many tree nodes (a long chain's values nest every
        constraint), solve again in ``digits``-digit arithmetic.  Default: never.
    digits : int
        The precision of that solve.

    Returns
    -------
    CompletedState
        {q̇^D: value} (the small exact values of the affine solve in the library's normal form,
        :func:`~jetgeo.geometry.normalise`) and the precision when they are not exact.

    Examples
    --------
    >>> from jetgeo import FibredManifold
    >>> Y = FibredManifold(["x", "y", "theta"])
    >>> x, y, th = Y.q; xd, yd, thd = Y.qdot
    >>> Q = ConstraintSubmanifold(Y, [sp.sin(th) * xd - sp.cos(th) * yd], dependent=[yd])
    >>> complete_on_Q(Q, {Y.t: 0, x: 0, y: 0, th: sp.pi / 4, xd: 2, thd: 1}).velocities
    {ydot: 2}
    """
    g = dict(normal_form) if normal_form is not None else None
    dep = list(g) if g is not None else list(Q.dependent)
    rep = {k: v for k, v in point.items() if k not in dep}
    rows = [as_expr(f).xreplace(rep) for f in Q.f]
    if all(sp.diff(r, a, b) == 0 for r in rows for a in dep for b in dep):  # affine in q̇^D: one solve here
        A, b = sp.linear_eq_to_matrix(rows, dep)
        if not det_exact(A).is_zero:
            # the core's LU, unexpanded (as sympy's LUsolve nests it): a long chain's cancelled fractions are
            # twice as large (n_trailer n = 6: θ̇6 1 026 -> 2 357 tree nodes) and slow every route evaluated
            # at the state; small values are put in canonical form below
            values = list(lu_solve_dag(A, b))
            memo: dict = {}
            if max_nodes is not None and sum(tree_size(v, memo) for v in values) > max_nodes:
                return CompletedState(dict(zip(dep, lu_solve_dag(A.evalf(digits), b.evalf(digits)))), digits)
            return CompletedState({d: normalise(v) if not v.is_Float and tree_size(v, memo) <= NORMALISE_MAX_NODES
                                   else v for d, v in zip(dep, values)})
    g = g if g is not None else dict(Q.normal_form().g)
    return CompletedState({d: g[d].xreplace(rep) for d in dep})
