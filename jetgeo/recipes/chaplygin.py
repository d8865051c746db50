r"""Chaplygin's equations ([Stolařová 2009, eq. (5)]; [Ghori 1960, ch. 2]).

A Chaplygin system: affine constraints q̇^D = g^D = a^D_l(t, q^I) q̇^l + a^D_0(t, q^I)
whose coefficients do not depend on the dependent coordinates q^D, a Lagrangian
and forces that do not depend on q^D either.  With L̄(t, q^I, q̇^I) = L∘ι and
p̄_D = (∂L/∂q̇^D)∘ι the motion of the q^I decouples:

.. math:: \frac{d}{dt}\frac{\partial\bar L}{\partial\dot q^l} - \frac{\partial\bar L}{\partial q^l}
          - \bar p_D\Big[\big(\partial_m a^D_l - \partial_l a^D_m\big)\dot q^m + \partial_t a^D_l
          - \partial_l a^D_0\Big] = \bar A_l + a^D_l\,\bar A_D ,

a system of m − k second-order equations on the reduced configuration space (the
bracket is the curvature of the constraint distribution; it vanishes iff Q is
semiholonomic).  The dependent accelerations follow from q̈^D = d g^D/dt.  This is
the special case of the general reduced equations [Stolařová 2009, eq. (8)] in which the terms
with ∂/∂q^D drop out; here it is computed from L̄ alone.
"""

from __future__ import annotations

import sympy as sp

from ..errors import NotApplicableError
from ..geometry.exact import solve_affine
from ..geometry.zero import is_zero
from ..mechanics import ConstraintSubmanifold, LagrangianSystem, QuasiVelocitySystem
from ._common import Motion, accelerations_on_Q, constrained, coordinate_form

__all__ = ["chaplygin", "is_chaplygin", "chaplygin_choices"]


def _violations(cs) -> list:
    Y = cs.Y
    qD = [Y.q[Y.qdot.index(d)] for d in cs.dependent]
    out = []
    for d, g in cs.g.items():
        for v in cs.independent:
            if not is_zero(sp.diff(g, v, 2)) or any(not is_zero(sp.diff(g, v, w)) for w in cs.independent):
                out.append(f"the constraint {d} = {g} is not affine in the velocities")
                break
        for q in qD:
            if not is_zero(sp.diff(g, q)):
                out.append(f"the constraint {d} = {g} depends on the dependent coordinate {q}")
    for q in qD:
        if not is_zero(sp.diff(cs.system.L, q)):
            out.append(f"the Lagrangian depends on the dependent coordinate {q}")
        for s, a in enumerate(cs.system.forces):
            if not is_zero(sp.diff(a, q)):
                out.append(f"the force component A_{Y.q[s]} depends on {q}")
    return out


def is_chaplygin(system: LagrangianSystem | QuasiVelocitySystem,
                 Q: ConstraintSubmanifold | None = None, dependent=None) -> bool:
    """True when (system, Q) satisfies the hypotheses of Chaplygin's equations with the dependent
    velocities ``dependent`` (default: Q's choice); :func:`chaplygin_choices` tries every choice.

    Parameters
    ----------
    system : LagrangianSystem
        L and the forces A_σ on J¹Y.
    Q : ConstraintSubmanifold
        The constraints f^i(t, q, q̇) = 0.
    dependent : sequence of Symbols, optional
        The dependent velocities q̇^D of the normal form (default: Q's choice).

    Returns
    -------
    bool
        Whether Q is in Chaplygin's form for that choice and L and the forces are free of q^D.
    """
    system, Q = coordinate_form(system, Q, "is_chaplygin")
    return not _violations(constrained(system, Q, dependent=dependent))


def chaplygin_choices(system: LagrangianSystem | QuasiVelocitySystem, Q: ConstraintSubmanifold | None = None) -> list:
    """The admissible choices of dependent velocities (:meth:`ConstraintSubmanifold.admissible_choices`)
    with which (system, Q) satisfies the hypotheses of Chaplygin's equations: Q in Chaplygin's form
    (``Q.classify().chaplygin_choices``) and L and the forces free of the dependent coordinates.

    Parameters
    ----------
    system : LagrangianSystem
        L and the forces A_σ on J¹Y.
    Q : ConstraintSubmanifold
        The constraints f^i(t, q, q̇) = 0.

    Returns
    -------
    list of tuple
        Each a tuple of dependent velocities for which :func:`is_chaplygin` holds.
    """
    system, Q = coordinate_form(system, Q, "chaplygin_choices")
    cl = Q.classify()
    return [c for c in cl.chaplygin_choices if not _violations(constrained(system, Q, dependent=list(c)))]


def chaplygin(system: LagrangianSystem | QuasiVelocitySystem,
              Q: ConstraintSubmanifold | None = None, dependent=None) -> Motion:
    """Chaplygin's equations for a Chaplygin system [Stolařová 2009, eq. (5)]; accelerations in (t, q, q̇^I).

    Raises :class:`jetgeo.errors.NotApplicableError` naming each failed hypothesis.
    Extras: ``"reduced_lagrangian"`` (L̄), ``"equations"``.

    Parameters
    ----------
    system : LagrangianSystem
        L and the forces A_σ on J¹Y.
    Q : ConstraintSubmanifold
        The constraints f^i(t, q, q̇) = 0.
    dependent : sequence of Symbols, optional
        The dependent velocities q̇^D of the normal form (default: Q's choice).

    Returns
    -------
    Motion
        Accelerations in (t, q, q̇^I), from the reduced Lagrangian L̄.

    Examples
    --------
    >>> import sympy as sp
    >>> from jetgeo import FibredManifold, LagrangianSystem, ConstraintSubmanifold
    >>> Y = FibredManifold(["x", "y", "theta"]); x, y, th = Y.q; xd, yd, thd = Y.qdot
    >>> S = LagrangianSystem(Y, (xd**2 + yd**2 + thd**2) / 2)
    >>> Q = ConstraintSubmanifold(Y, [yd - xd*sp.tan(th)], dependent=[yd])
    >>> chaplygin(S, Q).accelerations()[Y.qddot[2]]
    0
    """
    system, Q = coordinate_form(system, Q, "chaplygin")
    cs = constrained(system, Q, dependent=dependent)
    bad = _violations(cs)
    if bad:
        dep = ", ".join(map(str, cs.dependent))
        msg = f"Chaplygin's equations do not apply with the dependent velocities [{dep}]: " + "; ".join(bad)
        if Q.classify().affine:
            works = [c for c in chaplygin_choices(system, Q) if tuple(c) != tuple(cs.dependent)]
            msg += ("; they apply with " + " or ".join(f"dependent=[{', '.join(map(str, c))}]" for c in works)
                    if works else "; no other choice of dependent velocities satisfies them either")
        raise NotApplicableError(msg)
    Y = cs.Y
    idx = cs.independent_indices
    qI = [Y.q[i] for i in idx]
    vI = [Y.qdot[i] for i in idx]
    aI = [Y.qddot[i] for i in idx]
    Lbar = system.L.xreplace(cs.g)
    pbar = {d: sp.diff(system.L, d).xreplace(cs.g) for d in cs.dependent}
    zero_v = {v: 0 for v in vI}
    coef = {d: [sp.diff(g, v) for v in vI] for d, g in cs.g.items()}
    free = {d: g.xreplace(zero_v) for d, g in cs.g.items()}

    def ddt(f):  # total derivative on the reduced space (t, q^I, q̇^I, q̈^I)
        out = sp.diff(f, Y.t)
        for q, v, a in zip(qI, vI, aI):
            out += v * sp.diff(f, q) + a * sp.diff(f, v)
        return out

    A = system.forces
    eqs = []
    for r, (ql, vl, li) in enumerate(zip(qI, vI, idx)):
        e = ddt(sp.diff(Lbar, vl)) - sp.diff(Lbar, ql)
        force = A[li]
        for d in cs.dependent:
            a = coef[d]
            curv = sum(((sp.diff(a[r], qm) - sp.diff(a[m], ql)) * vm for m, (qm, vm) in enumerate(zip(qI, vI))), 0)
            curv += sp.diff(a[r], Y.t) - sp.diff(free[d], ql)
            e -= pbar[d] * curv
            force += A[Y.qdot.index(d)] * a[r]
        eqs.append(e - force.xreplace(cs.g))
    sol, det = solve_affine(eqs, aI, "Chaplygin's equations")
    acc = accelerations_on_Q(cs, sol)
    return Motion(
        recipe="chaplygin", system=system, Q=Q, accelerations=acc, coordinates=tuple(cs.chart.coords),
        substitution=dict(cs.g), conditions=[c for c in (det, cs.nf.condition) if c != 1],
        extras={"reduced_lagrangian": Lbar, "equations": eqs}, branch=cs.nf.branch.index,
    )
