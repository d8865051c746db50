r"""Lagrange's equations with Chetaev multipliers as one bordered linear system: :func:`bordered_system`.

A Lagrangian system L(t, q, q̇) with forces A_σ under constraints f^i(t, q, q̇) = 0 moves by
d/dt ∂L/∂q̇^σ − ∂L/∂q^σ = A_σ + λ_i ∂f^i/∂q̇^σ (Chetaev's reactions R = Jᵀλ,
[Ghori 1960, eq. (2.2.20)–(2.2.23)], [Benenti 2007, eq. (8.6)]) while d/dt f^i = 0.  Both are
linear in the unknowns (q̈, λ):

.. math:: \begin{pmatrix} W & -J^T \\ J & 0\end{pmatrix}
          \begin{pmatrix}\ddot q\\ \lambda\end{pmatrix} =
          \begin{pmatrix} \ell \\ -b\end{pmatrix},
          \qquad W = \frac{\partial^2 L}{\partial\dot q\,\partial\dot q},\quad
          J = \frac{\partial f}{\partial\dot q},\quad
          b = \partial_t f + \dot q^\nu\,\partial_{q^\nu} f ,

with the free-motion functions ℓ_σ = A_σ + ∂L/∂q^σ − ∂²L/∂q̇^σ∂t − ∂²L/∂q̇^σ∂q^ν q̇^ν
(W q̈ = ℓ is the free motion).  The bordered matrix K has det K = det W · det(J W⁻¹ Jᵀ): it is
invertible for a regular Lagrangian and independent constraints [Ibort et al. 1996, eq. (4.17)].

One builder serves the multipliers recipe (solved symbolically on Q), simulation (compiled and
solved numerically at every step) and linearisation (differentiated at a point).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import sympy as sp

from ..errors import InputError
from ..geometry.coerce import as_expr, as_symbol
from ..geometry.exact import diff_dag
from .constraints import ConstraintSubmanifold
from .lagrangian import LagrangianSystem

__all__ = ["BorderedSystem", "bordered_system"]


@dataclass(frozen=True)
class BorderedSystem:
    """W q̈ − Jᵀλ = ℓ, J q̈ = −b (module docstring): the blocks as sympy objects in (t, q, q̇).

    Parameters
    ----------
    W : sympy.Matrix, m × m
        ∂²L/∂q̇∂q̇.
    ell : sympy.Matrix, m × 1
        ℓ: the forces and the velocity terms of the Euler–Lagrange expressions.
    J : sympy.Matrix, k × m
        ∂f/∂q̇.
    b : sympy.Matrix, k × 1
        d̄f = ∂_t f + ∂_q f q̇.
    """

    #: W_σν = ∂²L/∂q̇^σ∂q̇^ν, m × m
    W: sp.Matrix
    #: ℓ_σ, the free-motion functions (W q̈ = ℓ without constraints), m entries
    ell: tuple
    #: J_iσ = ∂f^i/∂q̇^σ, k × m
    J: sp.Matrix
    #: b_i = ∂_t f^i + q̇^ν ∂_{q^ν} f^i (d/dt f^i = J q̈ + b), k entries
    b: tuple

    @property
    def matrix(self) -> sp.Matrix:
        """K = [[W, −Jᵀ], [J, 0]], (m + k) × (m + k)."""
        k = self.J.rows
        return self.W.row_join(-self.J.T).col_join(self.J.row_join(sp.zeros(k, k)))

    @property
    def rhs(self) -> sp.Matrix:
        """(ℓ, −b): the right-hand side of K (q̈, λ) = (ℓ, −b)."""
        return sp.Matrix([*self.ell, *[-x for x in self.b]])

    def equations(self, qddot, lam) -> list:
        """[W q̈ − Jᵀλ − ℓ, J q̈ + b] (m + k expressions that vanish along a motion)."""
        m, k = self.W.rows, self.J.rows
        rows = [sp.Add(*[self.W[s, r] * qddot[r] for r in range(m)]) - self.ell[s]
                - sp.Add(*[lam[i] * self.J[i, s] for i in range(k)]) for s in range(m)]
        rows += [sp.Add(*[self.J[i, s] * qddot[s] for s in range(m)]) + self.b[i] for i in range(k)]
        return rows

    def flat(self) -> list:
        """[W (row-major), ℓ, J (row-major), b]: one list, for compilation."""
        return [*self.W, *self.ell, *self.J, *self.b]


def bordered_system(system: LagrangianSystem, Q: ConstraintSubmanifold, *, grouped: bool = False,
                    frozen_velocities: Mapping | None = None) -> BorderedSystem:
    r"""The bordered system W q̈ − Jᵀλ = ℓ, J q̈ = −b of ``system`` under the constraints of ``Q``
    [Ghori 1960, eq. (2.2.20)–(2.2.23)], [Benenti 2007, eq. (8.6)].

    ``grouped=False`` (default): ℓ is :meth:`LagrangianSystem.free_motion_functions` (computed once
    per system, in the polynomial ring when L is a trigonometric polynomial) and W the cached
    Hessian — what the recipe solves and simulation compiles.

    ``grouped=True``: ℓ_σ = A_σ + ∂L/∂q^σ − ∂²L/∂q̇^σ∂t − Σ_ν ∂²L/∂q̇^σ∂q^ν q̇^ν kept as single
    derivatives of L (not expanded): what linearisation differentiates at a point.

    ``frozen_velocities`` ({q̇^ν: value}, only with ``grouped=True``): the velocities multiplying
    the transport terms ∂²L/∂q̇^σ∂q^ν q̇^ν of ℓ and ∂_{q^ν} f q̇^ν of b are replaced by the given
    values, and the terms of velocities absent from the mapping or frozen at 0 are dropped.  At a
    point whose velocities equal the frozen values the blocks agree with the unfrozen ones, and so do
    their derivatives along q (at a steady motion only the moving directions enter).

    Raises :class:`~jetgeo.errors.InputError` for ``frozen_velocities`` without ``grouped`` (the
    expanded ℓ has no transport term to freeze), for a key that is not a velocity, and for a system
    and Q on different fibred manifolds.

    Parameters
    ----------
    system : LagrangianSystem
        L and the forces A_σ.
    Q : ConstraintSubmanifold
        The constraints f = 0; J = ∂f/∂q̇ and b = ∂_t f + ∂_q f q̇.
    grouped : bool
        Keep ℓ as single derivatives of L (above).
    frozen_velocities : mapping, optional
        {q̇^ν: value} of the transport terms (only with ``grouped``).

    Returns
    -------
    BorderedSystem
        The blocks W, J, ℓ, b.
    """
    if not isinstance(system, LagrangianSystem):
        raise InputError(f"bordered_system needs a LagrangianSystem, got {type(system).__name__}")
    if not isinstance(Q, ConstraintSubmanifold):
        raise InputError(f"bordered_system needs a ConstraintSubmanifold, got {type(Q).__name__}")
    Y = system.Y
    if Q.Y.q != Y.q or Q.Y.t != Y.t:
        raise InputError("bordered_system: the system and Q live on different fibred manifolds")
    if frozen_velocities is not None and not grouped:
        raise InputError("bordered_system: frozen_velocities needs grouped=True (the expanded free-motion "
                         "functions have no transport term q̇^ν ∂/∂q^ν to freeze)")
    fs = [as_expr(f) for f in Q.f]
    J = Q.jacobian()
    if not grouped:
        # d̄f on the DAG (the same function as Y.cut_total_derivative; sympy's diff of the Whipple
        # bicycle's front-wheel constraints took 2.2 s, diff_dag 0.11 s)
        along = {Y.t: sp.S.One, **dict(zip(Y.q, Y.qdot))}
        memo: dict = {}
        return BorderedSystem(system.hessian(), tuple(system.free_motion_functions()), J,
                              tuple(diff_dag(f, along, memo) for f in fs))
    if frozen_velocities is None:
        transport = list(zip(Y.q, Y.qdot))
    else:
        frozen = {as_symbol(k, Y.qdot, "frozen velocity"): as_expr(v) for k, v in frozen_velocities.items()}
        transport = [(s, frozen[v]) for s, v in zip(Y.q, Y.qdot) if v in frozen and frozen[v] != 0]
    L = as_expr(system.L)
    Lv = [sp.diff(L, v) for v in Y.qdot]
    W = sp.Matrix(Y.m, Y.m, lambda i, j: sp.diff(Lv[i], Y.qdot[j]))
    ell = tuple(A + sp.diff(L, s) - sp.diff(Lv[i], Y.t) - sp.Add(*[sp.diff(Lv[i], q) * v for q, v in transport])
                for i, (s, A) in enumerate(zip(Y.q, system.forces)))
    b = tuple(sp.diff(f, Y.t) + sp.Add(*[sp.diff(f, q) * v for q, v in transport]) for f in fs)
    return BorderedSystem(W, ell, J, b)
