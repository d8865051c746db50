r"""The Gibbs–Appell equations with the energy of accelerations ([Benenti 2007, §5–6]; [Ghori 1960, eq. (2.2.11)]).

Split the Lagrangian as L = T − V when the system was built by
:meth:`LagrangianSystem.mechanical` (otherwise T := L, V := 0); the generalised
forces are Π_σ = A_σ − ∂V/∂q^σ.  Lagrange's expression of T is affine in the
accelerations, d/dt ∂T/∂q̇ − ∂T/∂q = W q̈ + b, so the **energy of accelerations**
(Gibbs' function) is

.. math:: S = \tfrac12 W_{ij}\ddot q^i\ddot q^j + b_i\,\ddot q^i

(up to terms free of q̈; for particles S = ½ Σ m |a|²).  On the constraint manifold
(**implicit form**, Q in normal form q̇^D = g): q̈^D = d g^D/dt, S̄ = S∘ι₂ and the
Gibbs–Appell equations are

.. math:: \frac{\partial\bar S}{\partial\ddot q^l} = \bar\Pi_l + \bar\Pi_D\,\frac{\partial g^D}{\partial\dot q^l},
          \qquad l\in I

(Chetaev's virtual displacements δq^D = ∂g^D/∂q̇^l δq^l; [Benenti 2007, eq. (5.2)] for ψ = the normal
form).  **Parametric form** q̇ = ψ(t,q,z): q̈ = ψ_α ż^α + ∂_tψ + ∂_kψ ψ^k [Benenti 2007, eq. (3.3)],
S̃(ż) = S∘(q̇ = ψ, q̈ = …), and ∂S̃/∂ż^α = Π_i ψ^i_α [Benenti 2007, eq. (5.2)].

In both forms the equations are linear in the unknown accelerations with matrix the
Hessian of S̄ (S̃), which is solved by LU; its determinant is the condition recorded.
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy as sp

from ..errors import InputError, JetgeoError
from ..geometry.coerce import as_expr
from ..geometry.exact import depends_on, diff_dag, solve_affine
from ..geometry.zero import normalise_if_small
from ..mechanics import ConstraintSubmanifold, LagrangianSystem, ParametricConstrainedSystem, QuasiVelocitySystem
from ._common import Motion, accelerations_on_Q, check_system, constrained, coordinate_form

__all__ = ["gibbs_appell", "energy_of_accelerations"]


def _split(system: LagrangianSystem) -> tuple:
    """(T, Π): kinetic part and generalised forces Π_σ = A_σ − ∂V/∂q^σ."""
    Y = system.Y
    T, V = system.kinetic_energy, system.potential_energy
    if T is None:
        return system.L, list(system.forces)
    V = as_expr(V or 0)
    return T, [a - sp.diff(V, q) for a, q in zip(system.forces, Y.q)]


def energy_of_accelerations(system: LagrangianSystem) -> sp.Expr:
    """Gibbs' function S = ½ W q̈ q̈ + b q̈ with W q̈ + b = d/dt ∂T/∂q̇ − ∂T/∂q [Benenti 2007, eq. (5.1)].

    Parameters
    ----------
    system : LagrangianSystem
        A mechanical system (``LagrangianSystem.mechanical``: T is its kinetic energy), else L.

    Returns
    -------
    sympy.Expr
        S in (t, q, q̇, q̈).
    """
    Y = system.Y
    T, Pi = _split(system)
    V = system.potential_energy
    if not depends_on([as_expr(V or 0)], Y.qdot):
        # L = T − V with V free of q̇: W is L's Hessian and b_σ = Π_σ − e_σ(L), e the Euler–Lagrange
        # expressions without accelerations — from L's polynomial ring when L is a polynomial (the
        # Whipple bicycle: sympy's total derivative of ∂T/∂q̇ ran for minutes)
        e = system.euler_lagrange_without_accelerations()
        b = [Pi[s] - e[s] for s in range(Y.m)]
        W = system.hessian()
    else:
        lagr = [Y.total_derivative(sp.diff(T, v)) - sp.diff(T, q) for q, v in zip(Y.q, Y.qdot)]
        zero = {a: 0 for a in Y.qddot}
        b = [sp.expand(e.xreplace(zero)) for e in lagr]
        W = sp.Matrix(Y.m, Y.m, lambda i, j: sp.diff(T, Y.qdot[i], Y.qdot[j]))
    qdd = Y.qddot
    S = sp.Rational(1, 2) * sum((W[i, j] * qdd[i] * qdd[j] for i in range(Y.m) for j in range(Y.m)), 0)
    return S + sum((bi * a for bi, a in zip(b, qdd)), 0)


def gibbs_appell(system: LagrangianSystem | QuasiVelocitySystem, Q: ConstraintSubmanifold | None = None, *,
                 psi: Sequence | None = None, z: Sequence | None = None,
                 branch: int | None = None, dependent=None) -> Motion:
    """Equations of motion from the Gibbs–Appell equations ([Benenti 2007, eq. (5.2)]; [Ghori 1960, eq. (2.2.11)]).

    ``gibbs_appell(sys, Q)`` works in the normal form of Q (accelerations in
    (t, q, q̇^I)); ``gibbs_appell(sys, psi=[...], z=[...])`` in parametric coordinates
    (accelerations in (t, q, z), with ``to_jet`` giving z(t, q, q̇)).  Extras: ``"S"``
    (the energy of accelerations on Q), ``"equations"``.

    Parameters
    ----------
    system : LagrangianSystem
        L and the forces A_σ on J¹Y.
    Q : ConstraintSubmanifold, optional
        The constraints f^i = 0 (the normal-form route).
    psi : sequence of expressions, optional
        q̇ = ψ(t, q, z), one per velocity (the parametric route, with ``z``).
    z : sequence of Symbols, optional
        The parameters z of ψ.
    branch : int or None
        The branch of a nonlinear constraint's normal form (None: Q's own).
    dependent : sequence of Symbols, optional
        The dependent velocities q̇^D of the normal form (default: Q's choice).

    Returns
    -------
    Motion
        Accelerations in (t, q, q̇^I) or, parametric, in (t, q, z) with ``to_jet``.

    Examples
    --------
    >>> import sympy as sp
    >>> from jetgeo import FibredManifold, LagrangianSystem, ConstraintSubmanifold
    >>> Y = FibredManifold(["x", "y", "theta"]); x, y, th = Y.q; xd, yd, thd = Y.qdot
    >>> S = LagrangianSystem.mechanical(Y, (xd**2 + yd**2 + thd**2) / 2)
    >>> gibbs_appell(S, ConstraintSubmanifold(Y, [xd*sp.sin(th) - yd*sp.cos(th)])).accelerations()[Y.qddot[2]]
    0
    """
    system, Q = coordinate_form(system, Q, "gibbs_appell", needs_Q=False)
    check_system(system, Q)
    if (Q is None) == (psi is None):
        raise InputError("gibbs_appell needs either a constraint submanifold Q or a parametrisation psi, z")
    Y = system.Y
    S = energy_of_accelerations(system)
    _, Pi = _split(system)
    if Q is not None:
        cs = constrained(system, Q, branch=branch, dependent=dependent)
        Sbar = cs.on_Q(S)
        ind = [Y.qddot[i] for i in cs.independent_indices]
        eqs = []
        memos: dict = {}  # derivatives on the DAG, one memo per variable
        # ∂S̄/∂q̈^a by the chain rule through q̈^D = dg^D/dt (affine in q̈^I): Σ_σ (∂S/∂q̈^σ)|_Q ∂q̈^σ/∂q̈^a —
        # S differentiated before the restriction (the same derivative; differentiating S̄, whose
        # q̈^D are large DAGs, cost most of the Whipple bicycle's time)
        dS = {dd: cs.on_Q(diff_dag(S, dd, memos.setdefault(dd, {}))) for dd in Y.qddot}
        for li, a in zip(cs.independent_indices, ind):
            v = Y.qdot[li]
            gen = sp.Add(Pi[li], *[Pi[Y.qdot.index(d)] * diff_dag(g, v, memos.setdefault(v, {}))
                                  for d, g in cs.g.items()])
            dSbar = sp.Add(dS[a], *[dS[dd] * diff_dag(acc_d, a, memos.setdefault(a, {}))
                                    for dd, acc_d in cs.gdot.items()])
            eqs.append(dSbar - cs.on_Q(gen))
        sol, det = solve_affine(eqs, ind, "Gibbs–Appell equations")
        acc = accelerations_on_Q(cs, sol)
        return Motion(
            recipe="gibbs_appell", system=system, Q=Q, accelerations=acc, coordinates=tuple(cs.chart.coords),
            substitution=dict(cs.g), conditions=[c for c in (det, cs.nf.condition) if c != 1],
            extras={"S": Sbar, "equations": eqs}, branch=cs.nf.branch.index,
        )
    if z is None:
        raise InputError("gibbs_appell: a parametrisation psi needs its parameters z")
    P = ParametricConstrainedSystem(system, psi, z)
    rep = {**P.psi_map, **P.qddot_of_zdot()}
    St = S.xreplace(rep)
    Pit = [p.xreplace(P.psi_map) for p in Pi]
    J = P.psi_z
    eqs = [sp.diff(St, zd) - sum((Pit[i] * J[i, al] for i in range(Y.m)), 0)
           for al, zd in enumerate(P.zdot_symbols)]
    sol, det = solve_affine(eqs, P.zdot_symbols, "Gibbs–Appell equations")
    acc = {a: normalise_if_small(e.xreplace(sol)) for a, e in P.qddot_of_zdot().items()}
    Qp, to_jet = None, {}
    if len(P.z) < Y.m:
        try:
            Qp = ConstraintSubmanifold.parametric(Y, P.psi, P.z)
            to_jet = dict(Qp.z_of_qdot)
        except JetgeoError:  # z(q̇) not unique or not explicit: the result stays in (t, q, z)
            Qp, to_jet = None, {}
    return Motion(
        recipe="gibbs_appell", system=system, Q=Qp, accelerations=acc, coordinates=tuple(P.chart.coords),
        substitution=dict(P.psi_map), conditions=[det], extras={"S": St, "equations": eqs, "zdot": sol},
        to_jet=to_jet,
    )
