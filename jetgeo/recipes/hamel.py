r"""Hamel's (Boltzmann–Hamel) equations in quasi-velocities ([Ghori 1960] ch. 4).

For affine constraints f^i = C^i_σ(t,q) q̇^σ + c^i(t,q) choose m − k independent
quasi-velocities u^α = A^α_σ(t,q) q̇^σ + a^α(t,q) and complete them with the
constraint quasi-velocities u^{m−k+i} = f^i.  Inverting, q̇ = φ(t,q,u) = B u + b
(an m × m linear solve).  With L*(t,q,u) = L(t,q,φ) and p = ∂L/∂q̇ at q̇ = φ,
Lagrange's equations with Chetaev reactions (R·B_α = 0 for α ≤ m − k) give

.. math:: \frac{d}{dt}\frac{\partial L^*}{\partial u^\alpha} - B^\rho_\alpha\frac{\partial L^*}{\partial q^\rho}
          + p_\kappa\Big(B^\rho_\alpha\,\partial_\rho\varphi^\kappa - \partial_t B^\kappa_\alpha
          - \varphi^\rho\,\partial_\rho B^\kappa_\alpha\Big) = B^\rho_\alpha A_\rho ,\qquad \alpha\le m-k,

evaluated on Q (u^{m−k+i} = 0, u̇^{m−k+i} = 0).  The bracket term collects Hamel's
transpositional relations (for b = 0 it is p_κ γ^κ_{βα} u^β with the Hamel
coefficients γ of the frame B).  The unknowns are the u̇^α; then
q̈ = d/dt φ.  The result is written in (t, q, u^α) with ``to_jet`` = {u^α: A q̇ + a}.
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy as sp

from ..errors import InputError, NotApplicableError
from ..geometry.coerce import as_expr
from ..geometry.exact import det_sized, diff_dag, lu_solve_dag, solve_affine, xreplace_dag
from ..geometry.zero import is_zero, normalise_if_small
from ..mechanics import ConstraintSubmanifold, LagrangianSystem, QuasiVelocitySystem
from ._common import Motion, check_system, coordinate_form

__all__ = ["hamel"]


def _quasi_velocities(Y, Q: ConstraintSubmanifold, quasi: Sequence | None, symbols: Sequence | None) -> tuple:
    """(the m − k quasi-velocity expressions, their symbols u^α), checked (InputError)."""
    m, k = Y.m, Q.k
    if quasi is None:
        dep = Q.dependent
        quasi = [v for v in Y.qdot if v not in dep]
    quasi = [as_expr(e) for e in quasi]
    if len(quasi) != m - k:
        raise InputError(f"Hamel's equations need m − k = {m - k} quasi-velocities, got {len(quasi)}")
    if symbols is None:
        symbols = [f"u{i + 1}" for i in range(m - k)]
    u_ind = [sp.Symbol(s) if isinstance(s, str) else s for s in symbols]
    if len(u_ind) != m - k:
        raise InputError(f"need {m - k} symbols for the quasi-velocities, got {len(u_ind)}")
    clash = set(u_ind) & set(Y.J2.coords)
    if clash:
        raise InputError(f"quasi-velocity names clash with jet coordinates: {sorted(map(str, clash))}")
    return quasi, u_ind


def hamel(system: LagrangianSystem | QuasiVelocitySystem,
          Q: ConstraintSubmanifold | None = None, quasi: Sequence | None = None,
          symbols: Sequence | None = None) -> Motion:
    """Hamel's equations with quasi-velocities ``quasi`` (default: the independent q̇ of Q's normal form).

    Parameters
    ----------
    system : LagrangianSystem
        L and the forces A_σ on J¹Y.
    Q : ConstraintSubmanifold
        The constraints f^i(t, q, q̇) = 0.
    quasi : sequence of expressions, optional
        The m − k quasi-velocities u^α, expressions affine in q̇ (default: the independent velocities).
    symbols : sequence of str or Symbol, optional
        Names of the u^α (default ``u1, u2, …``).

    Returns
    -------
    Motion
        Accelerations in (t, q, u); ``extras["udot"]`` {u̇^α: expression}, ``to_jet`` u(t, q, q̇).

    Examples
    --------
    >>> import sympy as sp
    >>> from jetgeo import FibredManifold, LagrangianSystem, ConstraintSubmanifold
    >>> Y = FibredManifold(["x", "y", "theta"]); x, y, th = Y.q; xd, yd, thd = Y.qdot
    >>> S = LagrangianSystem(Y, (xd**2 + yd**2 + thd**2) / 2)
    >>> Q = ConstraintSubmanifold(Y, [xd*sp.sin(th) - yd*sp.cos(th)])
    >>> M = hamel(S, Q, quasi=[xd*sp.cos(th) + yd*sp.sin(th), thd], symbols=["v", "w"])
    >>> M.extras["udot"]
    {vdot: 0, wdot: 0}
    """
    system, Q = coordinate_form(system, Q, "hamel")
    check_system(system, Q)
    Y = system.Y
    m, k = Y.m, Q.k
    for f in Q.f:
        if any(not is_zero(sp.diff(f, v, w)) for v in Y.qdot for w in Y.qdot):
            raise NotApplicableError(
                f"Hamel's equations need constraints affine in the velocities; {f} = 0 is not "
                "(use recipes.gibbs_appell, recipes.maggi or the core for nonlinear constraints)"
            )
    quasi, u_ind = _quasi_velocities(Y, Q, quasi, symbols)
    u_con = [sp.Dummy(f"c{i}") for i in range(k)]
    u = u_ind + u_con
    rows = quasi + list(Q.f)
    zero_v = {v: 0 for v in Y.qdot}
    A = sp.Matrix(m, m, lambda r, s: sp.diff(rows[r], Y.qdot[s]))
    for r in rows:
        if any(not is_zero(sp.diff(r, v, w)) for v in Y.qdot for w in Y.qdot):
            raise NotApplicableError(f"quasi-velocity {r} is not affine in the velocities")
    a0 = sp.Matrix([r.xreplace(zero_v) for r in rows])
    B = lu_solve_dag(A, sp.eye(m)).applyfunc(normalise_if_small)
    b = (-B * a0).applyfunc(normalise_if_small)
    phi = [normalise_if_small(e) for e in (B * sp.Matrix(u) + b)]
    rep_v = dict(zip(Y.qdot, phi))
    Lstar = system.L.xreplace(rep_v)
    p = [sp.diff(system.L, v).xreplace(rep_v) for v in Y.qdot]
    forces = [a.xreplace(rep_v) for a in system.forces]
    udot = [sp.Symbol(f"{s.name}dot") for s in u_ind]
    on_Q = {c: 0 for c in u_con}

    # derivatives on the DAGs (each distinct subexpression visited once per variable; sympy's diff
    # walks trees: 20 s of the 6-trailer's equations)
    memos: dict = {}

    def D(F, x):
        return diff_dag(F, x, memos.setdefault(x, {}))

    def ddt(F):  # total derivative in (t, q, u) along q̇ = φ, u̇^con = 0
        out = [D(F, Y.t), *[ph * D(F, q) for q, ph in zip(Y.q, phi)], *[ud * D(F, ui) for ud, ui in zip(udot, u_ind)]]
        return sp.Add(*out)

    eqs = []
    for al in range(m - k):
        e = [ddt(D(Lstar, u[al])), *[-B[r, al] * D(Lstar, Y.q[r]) for r in range(m)]]
        for kap in range(m):
            br = [*[B[r, al] * D(phi[kap], Y.q[r]) for r in range(m)], -D(B[kap, al], Y.t),
                  *[-phi[r] * D(B[kap, al], Y.q[r]) for r in range(m)]]
            e.append(p[kap] * sp.Add(*br))
        e.extend(-B[r, al] * forces[r] for r in range(m))
        eqs.append(xreplace_dag(sp.Add(*e), on_Q))
    sol, det = solve_affine(eqs, udot, "Hamel's equations")
    qdd = []
    for kap in range(m):
        e = xreplace_dag(ddt(phi[kap]), on_Q)
        qdd.append(normalise_if_small(xreplace_dag(e, sol)))
    acc = dict(zip(Y.qddot, qdd))
    phiQ = [e.xreplace(on_Q) for e in phi]
    return Motion(
        recipe="hamel", system=system, Q=Q, accelerations=acc, coordinates=(Y.t, *Y.q, *u_ind),
        substitution=dict(zip(Y.qdot, phiQ)), conditions=[det, det_sized(A)],
        extras={"udot": sol, "equations": eqs, "frame": B, "reduced_lagrangian": Lstar.xreplace(on_Q)},
        to_jet=dict(zip(u_ind, quasi)),
    )
