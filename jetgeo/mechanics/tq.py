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
expression DAGs (no cancellation), and the Lagrangian's derivatives are taken in a sparse
polynomial ring (:mod:`jetgeo.geometry.polydiff`).  This is what KanesMethod does with its
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

from collections.abc import Sequence
from typing import NamedTuple

import sympy as sp

from ..errors import NotRegularError, RankDeficientError
from ..geometry import generic_rank_dag, lu_solve_dag
from ..geometry.coerce import as_expr

__all__ = ["accelerations_on_TQ", "xreplace_dag", "solve_cramer", "solve_affine_dag"]


def xreplace_dag(expr, rule: dict, memo: dict | None = None):
    """``expr.xreplace(rule)`` visiting each *distinct* subexpression once.

    sympy's ``xreplace`` walks the expression as a tree; the unsimplified results of an LU solve
    share subexpressions, and their trees can be exponentially larger than their DAGs.  Here the
    result of every visited node is remembered in ``memo`` (pass one dict to several calls with
    the same ``rule`` to share the work between them).  Exact: the same expression as
    ``xreplace``, rebuilt bottom-up with sympy's constructors."""
    memo = {} if memo is None else memo

    def visit(e):
        got = memo.get(e)
        if got is not None:
            return got
        if e in rule:
            out = rule[e]
        elif not e.args:
            out = e
        else:
            args = [visit(a) for a in e.args]
            out = e.func(*args) if any(a is not b for a, b in zip(args, e.args)) else e
        memo[e] = out
        return out

    return visit(as_expr(expr))


def _dot(sparse: dict, dense: list) -> sp.Expr:
    """Σ sparse[s]·dense[s] over the non-zero terms (no product with a zero is ever formed)."""
    return sp.Add(*[v * dense[s] for s, v in sparse.items() if dense[s] != 0])


def accelerations_on_TQ(system, Q, dependent: Sequence | None = None) -> dict:
    """{q̈^σ: expression in (t, q, q̇)} for every coordinate, equal to the constrained
    accelerations at every point of Q (see the module docstring).

    ``dependent``: the dependent velocities (default: ``Q.dependent``, the verified structural
    choice).  Raises :class:`~jetgeo.errors.NotRegularError` if the reduced mass matrix
    ΨᵀWΨ is generically singular [Stolařová 2009, eq. (12)]."""
    parts = reduced_parts_on_TQ(system, Q, dependent)
    if generic_rank_dag(parts.B) < parts.B.rows:
        raise NotRegularError("the reduced mass matrix ΨᵀWΨ is generically singular [Stolařová 2009, eq. (12)]: "
                              "the constrained system does not determine the accelerations")
    return assemble_accelerations(system.Y, parts, lu_solve_dag(parts.B, parts.A))


#: :func:`solve_cramer` cancels det A_i / det A by a gcd only when the product of their numbers of
#: terms is at most this (measured: 166 × 26 terms 0.07 s; 1701 × 301 terms, an articulated
#: vehicle's reduced equations, > 60 s in sympy's heuristic gcd)
CRAMER_GCD_MAX_TERMS = 20000


def solve_cramer(A: sp.Matrix, B: sp.Matrix) -> sp.Matrix | None:
    r"""X with A X = B (A square, generically invertible — the caller checks), each entry one
    cancelled fraction, by Cramer's rule in a polynomial ring:

    .. math:: X_{ic} = \det A^{(i \leftarrow B_c)} / \det A,

    the determinants by fraction-free elimination (exact divisions, no gcd) and one gcd per entry
    to cancel (when the two are small enough: :data:`CRAMER_GCD_MAX_TERMS`).  Sines, cosines and
    other function atoms are independent generators (an identity in the larger ring, valid after
    sin² + cos² = 1 is imposed since det A is not the zero function);
    rows with denominators are first multiplied by them.  A fraction-field LU (``solve_rational``)
    takes a gcd at every elimination step: on the reduced equations of a ball with three distinct
    moments it ran for minutes, this takes 0.2 s.  For the small systems it is meant for
    (size ≤ 4 or so: m + 1 determinants).  Returns ``None`` when the entries do not fit a
    polynomial domain: non-integer powers, or functions inside a denominator (converting those
    expands them: 8 s for an articulated vehicle's reduced equations)."""
    from sympy.polys.matrices import DomainMatrix

    M = A.row_join(B)
    if not _polynomial_fractions(M):
        return None
    atoms = sorted(set().union(*(e.atoms(sp.Function) for e in M)), key=sp.default_sort_key)
    rep = {a: sp.Dummy(f"g{i}") for i, a in enumerate(atoms)}
    back = {v: k for k, v in rep.items()}
    try:
        dM = DomainMatrix.from_Matrix(M.xreplace(rep) if rep else M)
        if dM.domain.is_EX or dM.domain.is_EXRAW:
            return None
        if dM.domain.is_Field:
            _, dM = dM.clear_denoms_rowwise(convert=True)
        K = dM.domain
        n = A.rows
        cols = [dM[:, j] for j in range(M.cols)]
        det = cols[0].hstack(*cols[1:n]).det() if n > 1 else cols[0][0, 0].element
        if not det:
            return None
        out = sp.zeros(n, B.cols)
        for c in range(B.cols):
            for i in range(n):
                Mi = [cols[n + c] if j == i else cols[j] for j in range(n)]
                num = Mi[0].hstack(*Mi[1:]).det() if n > 1 else Mi[0][0, 0].element
                if not num:
                    continue
                if not K.is_PolynomialRing:  # numbers: sympy's Rational cancels
                    p, q = num, det
                elif len(num.terms()) * len(det.terms()) > CRAMER_GCD_MAX_TERMS:
                    p, q = num, det  # exact, not in lowest terms: the gcd itself would stall
                else:
                    _, p, q = K.cofactors(num, det)
                if K.is_PolynomialRing and K.domain.is_negative(q.LC):
                    p, q = -p, -q
                out[i, c] = K.to_sympy(p) / K.to_sympy(q)
    except (sp.PolynomialError, sp.CoercionFailed, NotImplementedError, ValueError, TypeError):
        return None
    return out.xreplace(back) if back else out


#: systems of at most this many tree nodes (coefficients and right-hand sides) are solved in
#: cancelled form by :func:`solve_cramer`; larger ones stay unsimplified DAGs
SOLVE_CANONICAL_MAX_NODES = 4000


def solve_affine_dag(eqs: Sequence, unknowns: Sequence, what: str) -> tuple:
    """Solve equations affine in ``unknowns``: ``({unknown: value}, det)`` with ``det`` the
    determinant of the coefficient matrix M = ∂eqs/∂unknowns (the solution holds where it is
    non-zero; cancelled when small).  M is checked generically invertible by exact values in F_p
    (:func:`~jetgeo.geometry.generic_rank_dag`; else :class:`~jetgeo.errors.NotRegularError`
    naming ``what``).  Small systems are solved in cancelled form (:func:`solve_cramer`), larger
    ones by LU on the expression DAG (:func:`~jetgeo.geometry.lu_solve_dag`), never cancelled: a
    fraction-field solve of the Hamel equations of an articulated vehicle spent minutes in
    expanding them."""
    from ..geometry import det_exact
    from ..geometry.zero import normalise_if_small

    unknowns = list(unknowns)
    zero = {u: sp.Integer(0) for u in unknowns}
    M = sp.Matrix(len(eqs), len(unknowns), lambda r, c: sp.diff(eqs[r], unknowns[c]))
    if any(e.has(*unknowns) for e in M):
        raise NotRegularError(f"{what}: the equations are not affine in {unknowns}")
    b = sp.Matrix([-e.xreplace(zero) for e in eqs])
    rank = generic_rank_dag(M)
    if rank < len(unknowns):
        raise NotRegularError(
            f"{what}: the coefficient matrix of ({', '.join(map(str, unknowns))}) has generic rank "
            f"{rank} < {len(unknowns)}; the equations do not determine them")
    memo: dict = {}

    def nodes(e):
        got = memo.get(e)
        if got is None:
            got = 1 + sum(nodes(a) for a in e.args)
            memo[e] = got
        return got

    sol = None
    if sum(nodes(e) for e in (*M, *b)) <= SOLVE_CANONICAL_MAX_NODES:
        sol = solve_cramer(M, b)
    if sol is None:
        sol = lu_solve_dag(M, b).applyfunc(lambda e: normalise_if_small(e, 300))
    det = det_exact(M)
    return dict(zip(unknowns, sol)), sp.factor_terms(normalise_if_small(det, 400))


def _polynomial_fractions(M: sp.Matrix) -> bool:
    """No non-integer power, and no function atom inside a denominator (a walk over the DAG)."""
    seen: set = set()
    stack = list(M)
    while stack:
        e = stack.pop()
        if e in seen or e.is_Atom:
            continue
        seen.add(e)
        if e.is_Pow and (not e.exp.is_Integer or (e.exp.is_negative and e.base.has(sp.Function))):
            return False
        stack.extend(e.args)
    return True


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
    r: list
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


def reduced_parts_on_TQ(system, Q, dependent: Sequence | None = None) -> ReducedParts:
    """:class:`ReducedParts` with the dependent velocities kept as symbols (LU on DAGs, no
    cancellation; see the module docstring)."""
    Y = system.Y
    qd = list(Y.qdot)
    n = len(qd)
    fs = list(Q.f)
    k = len(fs)
    dep = list(dependent) if dependent is not None else list(Q.dependent)
    ind = [v for v in qd if v not in dep]
    # ∂f/∂q̇ (Q's, computed once) and d̄f in the polynomial ring when f is a trigonometric
    # polynomial (else sympy's cut total derivative)
    J = Q._jacobian
    polys = Q._f_polys

    def d(i, v):
        return J[i, qd.index(v)]

    def dbar(i):
        P = polys[i]
        if P is None:
            return Y.cut_total_derivative(fs[i])
        out = P.diff(Y.t)
        for s_, v in zip(Y.q, Y.qdot):
            ds = P.diff(s_)
            if not ds.is_zero():
                out = out + ds * P.lift(v)
        return out.expr

    Jd = sp.Matrix(k, k, lambda i, j: d(i, dep[j]))
    rhs = sp.Matrix(k, len(ind) + 1, lambda i, c: -(d(i, ind[c]) if c < len(ind) else dbar(i)))
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
    r = []
    for s in range(n):
        terms = [e[s]] if e[s] != 0 else []
        terms += [-W[s, pos[dv]] * gbar[i] for i, dv in enumerate(dep) if W[s, pos[dv]] != 0 and gbar[i] != 0]
        r.append(sp.Add(*terms))
    A = sp.Matrix([_dot(col, r) for col in Psi])
    # W Ψ, then Ψᵀ(WΨ) — symmetric: the upper triangle only
    WPsi = [[_dot(col, [W[s, t] for t in range(n)]) for s in range(n)] for col in Psi]
    B = sp.zeros(m, m)
    for a in range(m):
        for b in range(a, m):
            B[a, b] = B[b, a] = _dot(Psi[a], WPsi[b])
    return ReducedParts(A, B, Psi_D, gbar, dep, ind, r, WPsi)
