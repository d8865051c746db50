r"""Benenti's two recipes for non-linear non-holonomic constraints [Benenti 2007, §7–8].

**First kind** [Benenti 2007, Theorem 7.1, Remark 7.2].  Constraints given parametrically,
q̇ = ψ(t, q, z) with rank[ψ^i_α] = dim z [Benenti 2007, eqs. (2.1), (2.3)].  The motions are the
integral curves of the vector field on C ≅ (t, q, z)

.. math:: Z = \partial_t + \psi^i\,\partial_{q^i} + Z^\alpha\,\partial_{z^\alpha},\qquad
          G_{\alpha\beta} Z^\beta = \psi^i_\alpha\big(L_i - W_{ij}(\partial_t\psi^j + \partial_k\psi^j\,\psi^k)\big),

G_αβ = W_ij ψ^i_α ψ^j_β (only the dim z × dim z matrix is solved).  The printed
(7.2)/Remark 7.2 lack the term W_ij ∂_kψ^j ψ^k (see
:mod:`jetgeo.mechanics.parametric`, which computes Z).

**Second kind** [Benenti 2007, Theorems 8.1–8.2, Remarks 8.1–8.2].  Constraints given
implicitly, f^i(t, q, q̇) = 0, with Chetaev reactions R_σ = λ_i C^i_σ,
C^i_σ = ∂f^i/∂q̇^σ.  The vector field D on TQ (on J¹Y when time-dependent) is

.. math:: \ddot q = W^{-1}(L + C^T\lambda),\qquad
          G\lambda = -\big(\partial_t f + \partial_{q}f\,\dot q\big) - C\,W^{-1}L,\qquad G = C W^{-1} C^T

[Benenti 2007, eq. (8.6)]; the reaction forces R = λC as functions of the state [Benenti 2007, eq. (8.13)].
D is defined on all of TQ and is tangent to every level set f = const; on C it
gives the motions.  W⁻¹ is never formed: X = W⁻¹Cᵀ and W⁻¹L are LU solves.
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy as sp

from ..errors import JetgeoError, NotRegularError
from ..geometry import VectorField, generic_rank
from ..geometry.exact import matmul_dag, solve_exact, solve_square, trig_reduce_if_small
from ..geometry.zero import normalise_if_small
from ..mechanics import ConstraintSubmanifold, LagrangianSystem, ParametricConstrainedSystem, QuasiVelocitySystem
from ._common import Motion, check_system, coordinate_form

__all__ = ["benenti_first_kind", "benenti_second_kind"]


def benenti_first_kind(system: LagrangianSystem, psi: Sequence, z: Sequence) -> Motion:
    """Benenti's recipe of the first kind: the vector field Z on C [Benenti 2007, Theorem 7.1].

    Returns a :class:`Motion` whose accelerations are written in (t, q, z); ``to_jet``
    gives z as a function of (t, q, q̇) on C (so results can be compared in jet
    coordinates), ``substitution`` is q̇ = ψ.  Extras: ``"Z"`` (the vector field),
    ``"zdot"`` ({ż^α: Z^α}), ``"G"`` (the Gauss matrix), ``"singular_points"``
    (the equations (7.8)), ``"parametric_system"``.

    Parameters
    ----------
    system : LagrangianSystem
        L and the forces A_σ on J¹Y.
    psi : sequence of expressions
        q̇ = ψ(t, q, z), one per velocity: a parametrisation of the constraint manifold C.
    z : sequence of Symbols
        The parameters z^α of ψ.

    Returns
    -------
    Motion
        Z: the accelerations in (t, q, z), ``to_jet`` z(t, q, q̇) on C, the extras above.

    Examples
    --------
    >>> import sympy as sp
    >>> from jetgeo import FibredManifold, LagrangianSystem
    >>> Y = FibredManifold(["x", "y", "theta"]); x, y, th = Y.q; xd, yd, thd = Y.qdot
    >>> u, w = sp.symbols("u w")
    >>> S = LagrangianSystem(Y, (xd**2 + yd**2 + thd**2) / 2)
    >>> benenti_first_kind(S, [u*sp.cos(th), u*sp.sin(th), w], [u, w]).extras["zdot"]
    {udot: 0, wdot: 0}
    """
    check_system(system)
    P = ParametricConstrainedSystem(system, psi, z)
    Y = system.Y
    Q = None
    to_jet: dict = {}
    if len(P.z) < Y.m:
        try:
            Q = ConstraintSubmanifold.parametric(Y, P.psi, P.z)
            to_jet = dict(Q.z_of_qdot)
        except JetgeoError:  # z(q̇) not unique or not explicit: results stay in (t, q, z)
            Q, to_jet = None, {}
    acc = P.accelerations()
    return Motion(
        recipe="benenti_first_kind",
        system=system,
        Q=Q,
        accelerations=acc,
        coordinates=tuple(P.chart.coords),
        substitution=dict(P.psi_map),
        reactions=P.reaction_forces(),
        conditions=[P.regularity_condition()],
        extras={
            "Z": P.vector_field(),
            "zdot": P.zdot(),
            "G": P.gauss_matrix,
            "singular_points": P.singular_point_equations(),
            "parametric_system": P,
        },
        to_jet=to_jet,
    )


def benenti_second_kind(system: LagrangianSystem | QuasiVelocitySystem,
                        Q: ConstraintSubmanifold | None = None) -> Motion:
    """Benenti's recipe of the second kind: the vector field D on TQ [Benenti 2007, Theorem 8.1].

    Returns a :class:`Motion` with accelerations in (t, q, q̇) valid on Q (and D
    tangent to every level set of f), the multipliers (8.6) and the reaction forces
    R_σ = λ_i ∂f^i/∂q̇^σ (8.13) as functions of the state.  Extras: ``"D"`` (the
    vector field on J¹Y), ``"G"`` (the k × k matrix C W⁻¹ Cᵀ).

    Parameters
    ----------
    system : LagrangianSystem
        L and the forces A_σ on J¹Y.
    Q : ConstraintSubmanifold
        The constraints f^i(t, q, q̇) = 0.

    Returns
    -------
    Motion
        D: accelerations in (t, q, q̇), the multipliers (8.6) and the reactions (8.13).

    Examples
    --------
    >>> import sympy as sp
    >>> from jetgeo import FibredManifold, LagrangianSystem, ConstraintSubmanifold
    >>> Y = FibredManifold(["x", "y", "theta"]); x, y, th = Y.q; xd, yd, thd = Y.qdot
    >>> S = LagrangianSystem(Y, (xd**2 + yd**2 + thd**2) / 2)
    >>> D = benenti_second_kind(S, ConstraintSubmanifold(Y, [xd*sp.sin(th) - yd*sp.cos(th)]))
    >>> D.multipliers()
    [-thetadot*xdot*cos(theta) - thetadot*ydot*sin(theta)]
    """
    system, Q = coordinate_form(system, Q, "benenti_second_kind")
    check_system(system, Q)
    Y = system.Y
    W = system.hessian()
    if generic_rank(W).rank < Y.m:
        raise NotRegularError("Benenti's second kind needs a regular Lagrangian: det W vanishes identically")
    L = sp.Matrix(system.free_motion_functions())
    C = Q.jacobian()
    b = sp.Matrix([Y.cut_total_derivative(f) for f in Q.f])
    X = solve_exact(W, C.T)  # W⁻¹ Cᵀ (cancelled when small, an unexpanded DAG when large)
    Y0 = solve_exact(W, L)  # W⁻¹ L
    G = matmul_dag(C, X).applyfunc(trig_reduce_if_small)
    sol = solve_square(G, -b - matmul_dag(C, Y0), "Benenti's second kind: G = C W⁻¹ Cᵀ (the constraints must be "
                       "independent in the velocities)")
    # large results stay unexpanded (cancel of the heavy disc's accelerations cost 38 of 59 s and
    # does not shrink them); small ones are normalised
    lam = [normalise_if_small(v) for v in sol.X]
    qdd = Y0 + X * sp.Matrix(lam)
    acc = {a: normalise_if_small(e) for a, e in zip(Y.qddot, qdd)}
    R = [normalise_if_small(sp.Add(*[lam[i] * C[i, s] for i in range(Q.k)])) for s in range(Y.m)]
    D = VectorField(Y.J1, [1, *Y.qdot, *[acc[a] for a in Y.qddot]])
    return Motion(
        recipe="benenti_second_kind",
        system=system,
        Q=Q,
        accelerations=acc,
        coordinates=tuple(Y.J1.coords),
        substitution={},
        multipliers=lam,
        reactions=R,
        conditions=[system.regularity_condition(), sol.det],
        extras={"D": D, "G": G},
    )
