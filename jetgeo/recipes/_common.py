"""Shared plumbing of the recipes: the common result type and small exact solvers."""

from __future__ import annotations

import sympy as sp

from ..errors import NotRegularError, SpecError
from ..geometry import generic_rank
from ..geometry.trig import trig_reduce
from ..geometry.zero import normalise_if_small
from ..mechanics import ConstrainedSystem, ConstraintSubmanifold, LagrangianSystem, Motion

__all__ = ["Motion", "linear_solve", "check_system", "constrained"]


def check_system(system, Q=None) -> None:
    """Clear errors for the two most common mistakes: wrong argument types or order."""
    if not isinstance(system, LagrangianSystem):
        raise SpecError(f"expected a LagrangianSystem as first argument, got {type(system).__name__}")
    if Q is not None and not isinstance(Q, ConstraintSubmanifold):
        raise SpecError(f"expected a ConstraintSubmanifold, got {type(Q).__name__}")
    if Q is not None and Q.Y.q != system.Y.q:
        raise SpecError("the system and the constraint submanifold have different coordinates")


def constrained(system, Q, branch=None, dependent=None) -> ConstrainedSystem:
    """The core object on Q that the recipes specialise (normal form, on_Q, dg/dt)."""
    check_system(system, Q)
    return ConstrainedSystem(system, Q, branch=branch, dependent=dependent)


def linear_solve(eqs, unknowns, what: str) -> tuple[dict, sp.Expr]:
    """Solve equations affine in ``unknowns`` exactly (LU on the coefficient matrix).

    Returns ``({unknown: value}, det)`` where ``det`` is the determinant condition
    under which the solution holds (the numerator of det M, computed in the fraction field).
    Raises :class:`NotRegularError` when the coefficient matrix is generically singular,
    naming ``what``.
    """
    unknowns = list(unknowns)
    zero = {u: 0 for u in unknowns}
    M = sp.Matrix(len(eqs), len(unknowns), lambda r, c: trig_reduce(sp.diff(eqs[r], unknowns[c])))
    b = sp.Matrix([-e.xreplace(zero) for e in eqs])
    info = generic_rank(M)
    if info.rank < len(unknowns):
        raise NotRegularError(
            f"{what}: the coefficient matrix of ({', '.join(map(str, unknowns))}) has generic rank "
            f"{info.rank} < {len(unknowns)}; the equations do not determine them"
        )
    res = _solve_fraction_field(M, b)  # fraction-field LU: intermediate quotients kept in lowest terms
    if res is None:
        sol = M.LUsolve(b)
        return {u: normalise_if_small(s) for u, s in zip(unknowns, sol)}, info.condition
    sol, det = res
    return dict(zip(unknowns, sol)), det


def _solve_fraction_field(M: sp.Matrix, b: sp.Matrix, max_terms: int | None = None):
    """Solve M x = b in a field of rational functions by Gauss–Jordan with Markowitz-style pivoting.

    Every non-polynomial atom (sin θ, cos θ, √…) becomes a plain generator (sympy's
    domain construction would otherwise fall back to its slow expression domain EX on
    sin² + cos²); the arithmetic is then exact in the fraction field, every quotient kept
    in lowest terms by polynomial gcds (the relation sin² + cos² = 1 is simply not used —
    the entries were reduced by ``trig_reduce`` beforehand).  The pivot at each step is
    the structurally smallest non-zero entry (fewest terms, then sparsest row and column),
    so constant pivots — the unit coefficients of constraints, constant inertias — go
    first and the fill-in stays small: on the bordered 10 × 10 system of the co-axial
    discs [Benenti 2007, §9.3] this took 90 s with plain fraction-field LU and takes about 2 s.

    Returns ``([x_1, …, x_n], numerator of det M)``, or None when the entries do not fit
    a polynomial fraction field, or when ``max_terms`` is given and an intermediate entry
    grows beyond that many terms (the caller then keeps an unexpanded exact solution).
    """
    from sympy.polys.matrices import DomainMatrix

    n = M.rows
    if M.cols != n:
        return None
    atoms = set()
    for e in (*M, *b):
        atoms |= {a for a in e.atoms(sp.Function, sp.Pow) if isinstance(a, sp.Function) or not a.exp.is_Integer}
    rep = {a: sp.Dummy(f"g{i}") for i, a in enumerate(sorted(atoms, key=sp.default_sort_key))}
    back = {v: k for k, v in rep.items()}
    try:
        dM = DomainMatrix.from_Matrix(M.xreplace(rep).row_join(b.xreplace(rep)))
        if dM.domain.is_EX or dM.domain.is_EXRAW:
            return None
        dM = dM.to_field()
    except (sp.PolynomialError, NotImplementedError, ValueError, TypeError):
        return None
    K = dM.domain
    a = [list(r) for r in dM.to_list()]

    def size(e):
        try:
            return len(e.numer) + len(e.denom)
        except (AttributeError, TypeError):  # QQ or a ground element
            return 1

    if max_terms is not None and max(size(x) for r in a for x in r) > max_terms:
        return None
    rows_left, cols_left = set(range(n)), set(range(n))
    pivots, det = [], K.one
    while rows_left:
        best = None
        for r in rows_left:
            nz_r = sum(1 for c in cols_left if a[r][c])
            for c in cols_left:
                if a[r][c]:
                    key = (size(a[r][c]), nz_r, sum(1 for q in rows_left if a[q][c]))
                    if best is None or key < best[0]:
                        best = (key, r, c)
        if best is None:
            return None  # singular in the fraction field
        _, r, c = best
        piv = a[r][c]
        det = det * piv
        inv = K.one / piv
        if max_terms is not None and max(size(x) for x in a[r]) > max_terms:
            return None
        a[r] = [x * inv if x else x for x in a[r]]
        for q in range(n):
            if q != r and a[q][c]:
                f = a[q][c]
                a[q] = [x - f * y if y else x for x, y in zip(a[q], a[r])]
        pivots.append((r, c))
        rows_left.discard(r)
        cols_left.discard(c)
    perm = [c for _, c in sorted(pivots)]
    sign = 1
    seen = [False] * n
    for i in range(n):  # sign of the permutation row → pivot column, by its cycles
        if not seen[i]:
            j, length = i, 0
            while not seen[j]:
                seen[j] = True
                j = perm[j]
                length += 1
            sign *= -1 if length % 2 == 0 else 1
    x = [None] * n
    for r, c in pivots:
        x[c] = K.to_sympy(a[r][n]).xreplace(back)
    d = sp.numer(K.to_sympy(det)).xreplace(back)
    return x, sp.factor_terms(sign * d)


def accelerations_on_Q(cs, independent: dict) -> dict:
    """All accelerations on Q from the independent ones: q̈^D = d g^D/dt (``cs.gdot``, affine in
    the independent q̈) with the solution substituted; small results normalised."""
    acc = dict(independent)
    for dd, expr in cs.gdot.items():
        acc[dd] = expr.xreplace(independent)
    return {a: normalise_if_small(acc[a]) for a in cs.Y.qddot}
