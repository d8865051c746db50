r"""Constrained accelerations as functions of all velocities (no normal form substituted).

Krupková's reduced equations [Stolařová 2009, eq. (8)] project the Euler–Lagrange expressions on the
canonical distribution: with Ψ = ∂q̇/∂q̇^I the basis of ker(∂f/∂q̇) solved for the dependent
velocities and d̄g/dt the q̈-free part of the dependent accelerations,

.. math:: \Psi^T(e - W\,\bar{d}g/dt) - \Psi^T W \Psi\,\ddot q^I = 0, \qquad
          (\partial f/\partial\dot q^D)\,\Psi^D = -\partial f/\partial\dot q^I, \qquad
          (\partial f/\partial\dot q^D)\,\bar{d}g/dt = -\bar{d}f .

:class:`~jetgeo.mechanics.ConstrainedSystem` evaluates everything **on Q** (q̇^D = g
substituted) and keeps results in canonical form: the best form for reading, comparing and
proving, but along a chain of bodies each g nests the previous ones and the canonical forms grow
geometrically (the n-trailer).  Here the dependent velocities stay **symbols**: every quantity
is a function on TQ that agrees on Q with the one on Q, the linear solves are plain LU on
expression DAGs (no cancellation), the Lagrangian's derivatives are taken in a sparse
polynomial ring (:mod:`jetgeo.geometry.polydiff`; on the DAG when L is large), and the constraints'
∂f/∂q̇ and d̄f on their DAG (:func:`~jetgeo.geometry.exact.gradient_dag`,
:func:`~jetgeo.geometry.exact.diff_dag`).  This is what KanesMethod does with its
dependent speeds; the results are exact but not canonical (larger expressions, fast to derive).
To evaluate them, give all velocities of a point of Q (the dependent ones from f = 0).

>>> import sympy as sp
>>> from jetgeo import FibredManifold, LagrangianSystem, ConstraintSubmanifold
>>> Y = FibredManifold(["x", "y", "th"])
>>> x, y, th = Y.q; xd, yd, thd = Y.qdot
>>> S = LagrangianSystem(Y, (xd**2 + yd**2 + thd**2) / 2)
>>> Q = ConstraintSubmanifold(Y, [xd * sp.sin(th) - yd * sp.cos(th)], dependent=[yd])
>>> acc = accelerations_on_TQ(S, Q)
>>> pt = {th: sp.Rational(1, 3), xd: 2, thd: 1, yd: 2 * sp.tan(sp.Rational(1, 3))}   # a point of Q
>>> abs(sp.N((acc[Y.qddot[0]] + thd * xd * sp.tan(th)).xreplace(pt)))  < 1e-15   # the skate: ẍ = −ẋθ̇ tan θ
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

import sympy as sp

from ..errors import NotRegularError, RankDeficientError
from ..geometry import generic_rank_dag
from ..geometry.exact import diff_dag, lu_solve_dag

__all__ = ["accelerations_on_TQ", "LazyEntries"]


def _dot(sparse: dict, dense: list) -> sp.Expr:
    """Σ sparse[s]·dense[s] over the non-zero terms (no product with a zero is ever formed)."""
    return sp.Add(*[v * dense[s] for s, v in sparse.items() if dense[s] != 0])


def accelerations_on_TQ(system, Q, dependent: Sequence | None = None) -> dict:
    """{q̈^σ: expression in (t, q, q̇)} for every coordinate, equal to the constrained
    accelerations at every point of Q (see the module docstring).

    ``dependent``: the dependent velocities (default: ``Q.dependent``, the verified structural
    choice).  Raises :class:`~jetgeo.errors.NotRegularError` if the reduced mass matrix
    ΨᵀWΨ is generically singular [Stolařová 2009, eq. (12)].

    Parameters
    ----------
    system : LagrangianSystem
        L(t, q, q̇) and the applied forces.
    Q : ConstraintSubmanifold
        The constraint submanifold of J¹Y, f^a(t, q, q̇) = 0.
    dependent : sequence of Symbol, optional
        The dependent velocities q̇^D; default ``Q.dependent``.

    Returns
    -------
    dict
        {q̈^σ: expression}, for the independent q̈^I the solution of
        Ψᵀ W Ψ q̈^I = Ψᵀ(e − W d̄g/dt) (the reduced equations [Stolařová 2009, eq. (8)]) and
        for the dependent q̈^D = Ψ^D q̈^I + d̄g/dt: exact, unexpanded, with q̇^D left as symbols.

    Raises
    ------
    jetgeo.errors.NotRegularError
        If Ψᵀ W Ψ is generically singular.
    """
    parts = reduced_parts_on_TQ(system, Q, dependent)
    if generic_rank_dag(parts.B) < parts.B.rows:
        raise NotRegularError("the reduced mass matrix ΨᵀWΨ is generically singular [Stolařová 2009, eq. (12)]: "
                              "the constrained system does not determine the accelerations")
    return assemble_accelerations(system.Y, parts, lu_solve_dag(parts.B, parts.A))


class LazyEntries(Sequence):
    """A sequence whose i-th entry is ``build(i)``, built when first read and kept (the residuals r of
    :class:`ReducedParts`: the TQ route's accelerations never read them, the multipliers read the
    dependent rows only).

    Parameters
    ----------
    length : int
        The number of entries.
    build : callable
        i ↦ the i-th entry.

    Examples
    --------
    >>> r = LazyEntries(3, lambda i: sp.Integer(i) ** 2)
    >>> r[2], list(r)
    (4, [0, 1, 4])
    """

    def __init__(self, length: int, build: Callable) -> None:
        self._build = build
        self._entries: list = [None] * length

    def __len__(self) -> int:
        return len(self._entries)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        got = self._entries[i]
        if got is None:
            got = self._entries[i] = self._build(range(len(self))[i])
        return got


class ReducedParts(NamedTuple):
    """The pieces of the reduced equations on TQ (module docstring): A = Ψᵀ(e − W d̄g/dt),
    B = ΨᵀWΨ (so B q̈^I = A), Ψ^D = ∂g/∂q̇^I and d̄g/dt by implicit differentiation, the
    dependent / independent velocities they refer to, r = e − W d̄g/dt (one entry per coordinate)
    and WΨ (``WPsi[c][σ]``: column c), so that E_σ = r_σ − (WΨ)_σc q̈^c on the prolongation."""

    A: sp.Matrix
    B: sp.Matrix
    Psi_D: sp.Matrix
    gbar: list
    dependent: list
    independent: list
    r: Sequence
    WPsi: list


def assemble_accelerations(Y, parts: ReducedParts, acc_I) -> dict:
    """{q̈^σ} from the independent accelerations: q̈^D = d̄g/dt + Ψ^D q̈^I."""
    qd = list(Y.qdot)
    ind, dep = parts.independent, parts.dependent
    m = len(ind)
    out = {Y.qddot[qd.index(v)]: acc_I[c] for c, v in enumerate(ind)}
    for i, d in enumerate(dep):
        out[Y.qddot[qd.index(d)]] = sp.Add(parts.gbar[i], *[parts.Psi_D[i, c] * acc_I[c] for c in range(m)
                                                            if parts.Psi_D[i, c] != 0 and acc_I[c] != 0])
    return {a: out[a] for a in Y.qddot}


def reduced_parts_on_TQ(system, Q, dependent: Sequence | None = None, project_residuals: bool = False
                        ) -> ReducedParts:
    """:class:`ReducedParts` with the dependent velocities kept as symbols (LU on DAGs, no
    cancellation; see the module docstring).  A = Ψᵀ(e − W d̄g/dt) is assembled as
    Ψᵀe − (WΨ)ᵀ_D d̄g/dt (W symmetric: m rows of k products, the residuals r built only when read),
    or with ``project_residuals`` as Ψᵀr — the same function, a larger DAG (the 2-trailer's A: 4 281
    tree nodes against 1 962), the form whose size :class:`~jetgeo.mechanics.ConstrainedSystem`
    compares with ``AFFINE_CANONICAL_MAX_NODES`` to choose canonical forms (that bound was tuned on
    it)."""
    Y = system.Y
    qd = list(Y.qdot)
    n = len(qd)
    fs = list(Q.f)
    k = len(fs)
    dep = list(dependent) if dependent is not None else list(Q.dependent)
    ind = [v for v in qd if v not in dep]
    # ∂f/∂q̇ (Q's, computed once) and d̄f on the expression DAG, unexpanded: no polynomial ring is built
    # (its conversion and code generation were a quarter of the 4-trailer's import and TQ route from
    # its bodies; the expanded d̄f is the larger form from about 13 terms on, and the LU after it slower)
    J = Q._jacobian_dag

    def d(i, v):
        return J[i, qd.index(v)]

    along = {Y.t: sp.S.One, **dict(zip(Y.q, Y.qdot))}  # d̄/dt: the total derivative without q̈
    memo: dict = {}

    def dbar(i):
        return diff_dag(fs[i], along, memo)

    # (∂f/∂q̇^D) X = −(∂f/∂q̇^I | d̄f) solved as (−∂f/∂q̇^D) X = (∂f/∂q̇^I | d̄f): the sign on the small
    # Jacobian entries, not on the large d̄f (negating a sum rebuilds every term)
    Jd = sp.Matrix(k, k, lambda i, j: -d(i, dep[j]))
    rhs = sp.Matrix(k, len(ind) + 1, lambda i, c: d(i, ind[c]) if c < len(ind) else dbar(i))
    try:
        sol = lu_solve_dag(Jd, rhs)
    except RankDeficientError as exc:
        raise RankDeficientError(
            f"∂f/∂q̇^D is generically singular for the dependent velocities {dep}: the constraints "
            "cannot be solved for them (choose others, e.g. Q.dependent)") from exc
    m = len(ind)
    Psi_D = sol[:, :m]
    gbar = [sol[i, m] for i in range(k)]
    W = system._hessian
    # Ψ column c: 1 at ind[c], Ψ^D[:, c] at the dependent velocities (sparse: {row: entry})
    pos = {v: s for s, v in enumerate(qd)}
    Psi = [{pos[v]: sp.S.One, **{pos[dv]: Psi_D[i, c] for i, dv in enumerate(dep) if Psi_D[i, c] != 0}}
           for c, v in enumerate(ind)]
    e = system.euler_lagrange_without_accelerations()

    def residual(s: int) -> sp.Expr:  # r_σ = e_σ − W_σD d̄g/dt
        terms = [e[s]] if e[s] != 0 else []
        terms += [-W[s, pos[dv]] * gbar[i] for i, dv in enumerate(dep) if W[s, pos[dv]] != 0 and gbar[i] != 0]
        return sp.Add(*terms)

    # W Ψ, then Ψᵀ(WΨ) — symmetric: the upper triangle only
    WPsi = [[_dot(col, [W[s, t] for t in range(n)]) for s in range(n)] for col in Psi]
    r = LazyEntries(n, residual)
    if project_residuals:
        A = sp.Matrix([_dot(col, r) for col in Psi])
    else:  # A = Ψᵀ(e − W d̄g/dt) = Ψᵀe − (WΨ)ᵀ_D d̄g/dt (W symmetric): m rows of k products, not n of r
        A = sp.Matrix([sp.Add(_dot(col, e), *[-WPsi[c][pos[dv]] * gbar[i] for i, dv in enumerate(dep)
                                             if WPsi[c][pos[dv]] != 0 and gbar[i] != 0])
                       for c, col in enumerate(Psi)])
    B = sp.zeros(m, m)
    for a in range(m):
        for b in range(a, m):
            B[a, b] = B[b, a] = _dot(Psi[a], WPsi[b])
    return ReducedParts(A, B, Psi_D, gbar, dep, ind, r, WPsi)
