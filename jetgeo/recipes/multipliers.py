r"""Lagrange's equations with multipliers under Chetaev's condition ([Ghori 1960, eqs. (2.2.20)–(2.2.23)]; [Benenti
2007, Theorem 3.1]).

The reactions are R_σ = λ_i ∂f^i/∂q̇^σ (Chetaev's rule) and the unknowns (q̈, λ)
solve the bordered (m + k) × (m + k) linear system on Q

.. math:: \begin{pmatrix} W & -C^T \\ C & 0\end{pmatrix}
          \begin{pmatrix}\ddot q\\ \lambda\end{pmatrix} =
          \begin{pmatrix} L \\ -\partial_t f - \partial_q f\,\dot q\end{pmatrix},
          \qquad C = \partial f/\partial\dot q ,

(the free motion is W q̈ = L; the second row is d/dt f = 0), built by
:func:`jetgeo.mechanics.bordered.bordered_system`.  Its determinant is
det W · det(C W⁻¹ Cᵀ): regular Lagrangian and independent constraints — the
compatibility condition of Theorem 2 of [Ibort et al. 1996] for Chetaev's bundle.
"""

from __future__ import annotations

import sympy as sp

from ..geometry.exact import solve_affine
from ..geometry.zero import normalise_if_small
from ..mechanics import ConstraintSubmanifold, LagrangianSystem, QuasiVelocitySystem
from ..mechanics.bordered import bordered_system
from ._common import Motion, constrained, coordinate_form

__all__ = ["lagrange_multipliers"]


def lagrange_multipliers(system: LagrangianSystem | QuasiVelocitySystem,
                         Q: ConstraintSubmanifold | None = None, branch: int | None = None) -> Motion:
    """Accelerations and Chetaev multipliers from Lagrange's equations with multipliers.

    Accelerations in (t, q, q̇^I) on Q; ``multipliers()`` in the representation f
    of Q given by the user; ``reactions()`` R_σ = λ_i ∂f^i/∂q̇^σ.

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
        Accelerations in (t, q, q̇^I) on Q, the multipliers λ_i and the reactions R_σ.

    Examples
    --------
    >>> import sympy as sp
    >>> from jetgeo import FibredManifold, LagrangianSystem, ConstraintSubmanifold
    >>> Y = FibredManifold(["x", "y", "theta"]); x, y, th = Y.q; xd, yd, thd = Y.qdot
    >>> S = LagrangianSystem(Y, (xd**2 + yd**2 + thd**2) / 2)
    >>> M = lagrange_multipliers(S, ConstraintSubmanifold(Y, [xd*sp.sin(th) - yd*sp.cos(th)]))
    >>> len(M.multipliers())
    1
    """
    system, Q = coordinate_form(system, Q, "lagrange_multipliers")
    cs = constrained(system, Q, branch=branch)
    Y = system.Y
    lam = [sp.Symbol(f"lambda{i + 1}") for i in range(Q.k)]
    qdd = list(Y.qddot)
    B = bordered_system(system, Q)
    C = B.J
    eqs = B.equations(qdd, lam)
    eqs = [cs.on_Q_velocities(e) for e in eqs]
    sol, det = solve_affine(eqs, qdd + lam, "Lagrange's equations with multipliers")
    acc = {a: normalise_if_small(sol[a]) for a in qdd}
    lam_v = [sol[x] for x in lam]
    CQ = C.applyfunc(cs.on_Q_velocities)
    R = [normalise_if_small(sum((lam_v[i] * CQ[i, s] for i in range(Q.k)), 0)) for s in range(Y.m)]
    return Motion(
        recipe="lagrange_multipliers", system=system, Q=Q, accelerations=acc, coordinates=tuple(cs.chart.coords),
        substitution=dict(cs.g), multipliers=lam_v, reactions=R,
        conditions=[c for c in (det, cs.nf.condition) if c != 1], extras={"equations": eqs},
        branch=cs.nf.branch.index,
    )
