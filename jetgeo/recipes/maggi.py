r"""Maggi's equations ([Ghori 1960, ch. 2]; the projection form of [Benenti 2007, Theorem 3.1]).

Chetaev's virtual displacements at a state are the kernel of C = ∂f/∂q̇.  With a
basis e_α (α = 1..m−k) of that kernel, Maggi's equations are the projections of
Lagrange's equations on the e_α together with the differentiated constraints:

.. math:: e_\alpha^\sigma\big(W_{\sigma\rho}\ddot q^\rho - L_\sigma\big) = 0,\qquad
          C^i_\sigma\ddot q^\sigma + \partial_t f^i + \partial_{q^\sigma} f^i\,\dot q^\sigma = 0,

an m × m linear system for q̈ with no multipliers (W q̈ = L is the free motion).
For affine constraints the e_α depend on (t, q) only (Maggi's kinematic
coefficients); for nonlinear constraints on the velocities too.
"""

from __future__ import annotations

import sympy as sp

from ..geometry.exact import matmul_dag, solve_square, xreplace_dag
from ..geometry.linalg import nullspace
from ..geometry.zero import normalise_if_small
from ..mechanics import ConstraintSubmanifold, LagrangianSystem, QuasiVelocitySystem
from ._common import Motion, constrained, coordinate_form

__all__ = ["maggi"]


def maggi(system: LagrangianSystem | QuasiVelocitySystem,
          Q: ConstraintSubmanifold | None = None, branch: int | None = None) -> Motion:
    """Equations of motion by Maggi's projection (accelerations in (t, q, q̇^I) on Q).

    Extras: ``"basis"`` (the e_α), ``"equations"``.

    Parameters
    ----------
    system : LagrangianSystem
        L and the forces A_σ on J¹Y.
    Q : ConstraintSubmanifold
        The constraints f^i(t, q, q̇) = 0.
    branch : int or None
        The branch of a nonlinear constraint's normal form (None: Q's own).

    Returns
    -------
    Motion
        Accelerations in (t, q, q̇^I) on Q, from the projection of the Euler–Lagrange expressions on the
        basis e_α of the constraint distribution.

    Examples
    --------
    >>> import sympy as sp
    >>> from jetgeo import FibredManifold, LagrangianSystem, ConstraintSubmanifold
    >>> Y = FibredManifold(["x", "y", "theta"]); x, y, th = Y.q; xd, yd, thd = Y.qdot
    >>> S = LagrangianSystem(Y, (xd**2 + yd**2 + thd**2) / 2)
    >>> maggi(S, ConstraintSubmanifold(Y, [xd*sp.sin(th) - yd*sp.cos(th)])).accelerations()[Y.qddot[2]]
    0
    """
    system, Q = coordinate_form(system, Q, "maggi")
    cs = constrained(system, Q, branch=branch)
    Y = system.Y
    C = Q.jacobian()
    basis, cond = nullspace(C)
    W = system.hessian()
    L = system.free_motion_functions()
    qdd = list(Y.qddot)
    # the affine system M q̈ = B read off directly (no differentiation of the equations): rows
    # e_α·W and e_α·L, then the constraint rows C q̈ = −(∂f/∂t + ∂f/∂q q̇); sums over the
    # non-zero coefficients only (0·e asks e.is_finite, which walks e's tree)
    E = sp.Matrix([list(e) for e in basis]) if basis else sp.zeros(0, Y.m)
    M = sp.Matrix.vstack(matmul_dag(E, W), C)
    rhs = [Y.cut_total_derivative(f) for f in Q.f]
    B = sp.Matrix.vstack(matmul_dag(E, sp.Matrix(L)), -sp.Matrix(rhs))
    memo: dict = {}
    M = M.applyfunc(lambda x: xreplace_dag(x, cs.g, memo))  # q̇^D = g; the q̈ stay unknowns
    B = B.applyfunc(lambda x: xreplace_dag(x, cs.g, memo))
    eqs = [sp.Add(*[M[i, j] * qdd[j] for j in range(Y.m) if M[i, j] != 0]) - B[i] for i in range(M.rows)]
    res = solve_square(M, B, "Maggi's equations", qdd)
    sol, det = dict(zip(qdd, res.X)), res.det
    acc = {a: normalise_if_small(sol[a]) for a in qdd}
    return Motion(
        recipe="maggi", system=system, Q=Q, accelerations=acc, coordinates=tuple(cs.chart.coords),
        substitution=dict(cs.g), conditions=[c for c in (det, cond, cs.nf.condition) if c != 1],
        extras={"basis": basis, "equations": eqs}, branch=cs.nf.branch.index,
    )
