r"""Tulczyjew's triple T*(TQ) ←α— T(T*Q) —β→ T*(T*Q) in coordinates [Ibort et al. 1996, eq. (2.1), §6.1].

Coordinates: (q^i, p_i; q̇^i, ṗ_i) on T(T*Q); (q^i, v^i; r_i, s_i) on T*(TQ) (the covector
r_i dq^i + s_i dv^i); (q^i, p_i; a_i, b^i) on T*(T*Q) (the covector a_i dq^i + b^i dp_i).

* α(q, p, q̇, ṗ) = (q, v = q̇; r = ṗ, s = p)   ([Ibort et al. 1996, §6.1]: s_i∘α = p_i, r_i∘α = ṗ_i, v^i∘α = q̇^i);
* β(q, p, q̇, ṗ) = (q, p; a = −ṗ, b = q̇): β(V) = i_V ω_Q with ω_Q = dq^i ∧ dp_i, so that
  β⁻¹(dH) is Hamilton's equations q̇ = ∂H/∂p, ṗ = −∂H/∂q;
* α⁻¹(dL + f) for f = f_i dq^i horizontal: p = ∂L/∂v (at v = q̇), ṗ = ∂L/∂q + f — the
  Euler–Lagrange equations with the force f in implicit form [Ibort et al. 1996, eq. (4.11)];
* the Legendre map F_L(q, v) = (q, ∂L/∂v) and, for regular L, H = p_i v^i − L with v = v(q, p).
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy as sp

from ..errors import NotRegularError, UndecidedError
from ..geometry import generic_rank, normalise
from ..geometry.coerce import as_expr
from ..geometry.exact import solve_exact

__all__ = ["alpha", "beta", "momenta_symbols", "legendre_map", "inverse_legendre", "hamiltonian",
           "alpha_inverse_equations", "beta_inverse_equations"]


def alpha(q: Sequence, p: Sequence, qdot: Sequence, pdot: Sequence) -> tuple:
    """α: T(T*Q) → T*(TQ), (q, p, q̇, ṗ) ↦ (q, v, r, s) = (q, q̇, ṗ, p).

    Parameters
    ----------
    q, p, qdot, pdot : sequence
        The coordinates (q^i, p_i; q̇^i, ṗ_i) of a point of T(T*Q).

    Returns
    -------
    tuple
        ``(q, v, r, s)`` = (q, q̇, ṗ, p): the covector r_i dq^i + s_i dv^i of T*(TQ) at (q, v)
        [Ibort et al. 1996, eq. (2.1), §6.1].

    Examples
    --------
    >>> q, p, qd, pd = sp.symbols("q p qdot pdot")
    >>> alpha([q], [p], [qd], [pd])
    ((q,), (qdot,), (pdot,), (p,))
    """
    return tuple(q), tuple(qdot), tuple(pdot), tuple(p)


def beta(q: Sequence, p: Sequence, qdot: Sequence, pdot: Sequence) -> tuple:
    """β: T(T*Q) → T*(T*Q), (q, p, q̇, ṗ) ↦ (q, p, a, b) = (q, p, −ṗ, q̇).

    Parameters
    ----------
    q, p, qdot, pdot : sequence
        The coordinates (q^i, p_i; q̇^i, ṗ_i) of a point of T(T*Q).

    Returns
    -------
    tuple
        ``(q, p, a, b)`` = (q, p, −ṗ, q̇): the covector a_i dq^i + b^i dp_i = i_V ω_Q of T*(T*Q),
        ω_Q = dq^i ∧ dp_i [Ibort et al. 1996, eq. (2.1)].

    Examples
    --------
    >>> q, p, qd, pd = sp.symbols("q p qdot pdot")
    >>> beta([q], [p], [qd], [pd])
    ((q,), (p,), (-pdot,), (qdot,))
    """
    return tuple(q), tuple(p), tuple(-as_expr(x) for x in pdot), tuple(qdot)


def momenta_symbols(Y) -> tuple:
    """p_σ named ``p_<coordinate>`` for the fibre coordinates of ``Y``.

    Parameters
    ----------
    Y : FibredManifold
        The configuration bundle with fibre coordinates q^σ.

    Returns
    -------
    tuple of Symbol
        (p_{q^1}, …, p_{q^m}): plain symbols, so the same name always gives the same momentum.

    Examples
    --------
    >>> from jetgeo import FibredManifold
    >>> momenta_symbols(FibredManifold(["x", "theta"]))
    (p_x, p_theta)
    """
    return tuple(sp.Symbol(f"p_{s.name}") for s in Y.q)


def legendre_map(system) -> dict:
    """F_L: {p_σ: ∂L/∂q̇^σ} (functions of t, q, q̇).

    Parameters
    ----------
    system : LagrangianSystem
        L(t, q, q̇) on J¹Y.

    Returns
    -------
    dict
        {p_σ: ∂L/∂q̇^σ}, momenta named as :func:`momenta_symbols`.

    Examples
    --------
    >>> from jetgeo import FibredManifold, LagrangianSystem
    >>> Y = FibredManifold(["x"])
    >>> m = sp.Symbol("m", positive=True)
    >>> legendre_map(LagrangianSystem(Y, m * Y.qdot[0]**2 / 2))
    {p_x: m*xdot}
    """
    p = momenta_symbols(system.Y)
    return {pi: sp.diff(system.L, v) for pi, v in zip(p, system.Y.qdot)}


def inverse_legendre(system) -> dict:
    """{q̇^σ: expression in (t, q, p)} inverting p = ∂L/∂q̇ (regular L).

    The core's exact solve (:func:`jetgeo.geometry.exact.solve_exact`) when ∂L/∂q̇ is affine in q̇
    (mechanical Lagrangians), else ``sympy.solve``
    (:class:`UndecidedError` when it fails or finds several branches).

    Parameters
    ----------
    system : LagrangianSystem
        A system with a regular Lagrangian.

    Returns
    -------
    dict
        {q̇^σ: q̇^σ(t, q, p)}, the inverse of F_L; momenta named as :func:`momenta_symbols`.

    Raises
    ------
    jetgeo.errors.NotRegularError
        If the Hessian ∂²L/∂q̇∂q̇ has generic rank below m.
    jetgeo.errors.UndecidedError
        If sympy cannot invert a non-affine F_L or finds several branches.

    Examples
    --------
    >>> from jetgeo import FibredManifold, LagrangianSystem
    >>> Y = FibredManifold(["x"])
    >>> m = sp.Symbol("m", positive=True)
    >>> inverse_legendre(LagrangianSystem(Y, m * Y.qdot[0]**2 / 2))
    {xdot: p_x/m}
    """
    Y = system.Y
    if generic_rank(system.hessian()).rank < Y.m:
        raise NotRegularError("the Legendre map of a singular Lagrangian is not invertible [Ibort et al. 1996, §2]")
    leg = legendre_map(system)
    eqs = [pv - p for p, pv in leg.items()]
    qd = list(Y.qdot)
    A = sp.Matrix(len(eqs), len(qd), lambda i, j: sp.diff(eqs[i], qd[j]))
    if not any(e.has(v) for e in A for v in qd):
        b = -sp.Matrix([e.xreplace({v: 0 for v in qd}) for e in eqs])
        sol = solve_exact(A, b)
        return {v: normalise(s) for v, s in zip(qd, sol)}
    try:
        sols = sp.solve(eqs, qd, dict=True)
    except NotImplementedError as exc:  # pragma: no cover - depends on sympy
        raise UndecidedError(f"cannot invert the Legendre map p = {list(leg.values())}") from exc
    if len(sols) != 1:
        raise UndecidedError(f"inverting the Legendre map gave {len(sols)} branches; it is not globally invertible")
    return {v: sols[0][v] for v in qd}


def hamiltonian(system) -> sp.Expr:
    """H = p_σ q̇^σ − L with q̇ = q̇(t, q, p) (regular L).

    Parameters
    ----------
    system : LagrangianSystem
        A system with a regular Lagrangian L (det ∂²L/∂q̇∂q̇ ≢ 0).

    Returns
    -------
    sympy.Expr
        H(t, q, p) = p_σ q̇^σ(t, q, p) − L(t, q, q̇(t, q, p)), normalised; momenta named as
        :func:`momenta_symbols`.

    Raises
    ------
    jetgeo.errors.NotRegularError
        If L is singular (the Legendre map is not invertible).
    jetgeo.errors.UndecidedError
        If p = ∂L/∂q̇ is not affine in q̇ and sympy finds no or several inverses.

    Examples
    --------
    >>> from jetgeo import FibredManifold, LagrangianSystem
    >>> Y = FibredManifold(["x"])
    >>> hamiltonian(LagrangianSystem(Y, Y.qdot[0]**2 / 2 - Y.q[0]**2 / 2))
    p_x**2/2 + x**2/2
    """
    inv = inverse_legendre(system)
    p = momenta_symbols(system.Y)
    H = sp.Add(*[pi * inv[v] for pi, v in zip(p, system.Y.qdot)]) - system.L.xreplace(inv)
    return normalise(H)


def alpha_inverse_equations(system, qdot_syms: Sequence, pdot_syms: Sequence, forces: Sequence = ()) -> list:
    """Equations of α⁻¹(dL + f) ⊂ T(T*Q), f = Σ forces (each a list of dq-components):
    p − ∂L/∂v|_{v=q̇} = 0 and ṗ − ∂L/∂q|_{v=q̇} − A − f = 0 ([Ibort et al. 1996, eq. (4.11)]; §6.1's E).

    Parameters
    ----------
    system : LagrangianSystem
        L(t, q, q̇) with its applied forces A_σ (``system.forces``).
    qdot_syms : sequence of Symbol
        The symbols q̇^σ of the fibre of T(T*Q) (the velocity v is evaluated there).
    pdot_syms : sequence of Symbol
        The symbols ṗ_σ.
    forces : sequence of sequence, optional
        Further horizontal 1-forms f = f_σ dq^σ (the reactions), m components each, added.

    Returns
    -------
    list of sympy.Expr
        2m expressions (meaning = 0): first p_σ − ∂L/∂q̇^σ, then ṗ_σ − ∂L/∂q^σ − A_σ − Σ f_σ, all
        at v = q̇ — the Euler–Lagrange equations with forces in implicit form.
    """
    Y = system.Y
    p = momenta_symbols(Y)
    at = dict(zip(Y.qdot, qdot_syms))
    eqs = [pi - sp.diff(system.L, v).xreplace(at) for pi, v in zip(p, Y.qdot)]
    for s, (q, pd, A) in enumerate(zip(Y.q, pdot_syms, system.forces)):
        rhs = sp.diff(system.L, q) + A
        for f in forces:
            rhs += f[s]
        eqs.append(pd - rhs.xreplace(at))
    return eqs


def beta_inverse_equations(H, q: Sequence, p: Sequence, qdot_syms: Sequence, pdot_syms: Sequence) -> list:
    """Equations of β⁻¹(dH): q̇ − ∂H/∂p = 0, ṗ + ∂H/∂q = 0 (Hamilton's equations, [Ibort et al. 1996, eq. (4.12)]).

    Parameters
    ----------
    H : sympy.Expr
        The Hamiltonian H(t, q, p).
    q, p : sequence of Symbol
        The coordinates q^i and momenta p_i.
    qdot_syms, pdot_syms : sequence of Symbol
        The fibre coordinates q̇^i, ṗ_i of T(T*Q).

    Returns
    -------
    list of sympy.Expr
        2m expressions (meaning = 0): q̇^i − ∂H/∂p_i, then ṗ_i + ∂H/∂q^i.

    Examples
    --------
    >>> q, p, qd, pd = sp.symbols("q p qdot pdot")
    >>> beta_inverse_equations(p**2 / 2 + q**2 / 2, [q], [p], [qd], [pd])
    [-p + qdot, pdot + q]
    """
    return [qd - sp.diff(H, pi) for qd, pi in zip(qdot_syms, p)] + [
        pd + sp.diff(H, qi) for pd, qi in zip(pdot_syms, q)
    ]
