r"""The Euler–Lagrange expressions of a system of bodies from their velocities (partial velocities).

When the kinetic energy is known body by body,

.. math:: T = \tfrac12 \sum_b w_b^T M_b\, w_b ,

with w_b(t, q, q̇) the components of a velocity in an orthonormal basis (a mass centre's velocity,
M_b = m_b·1; a body's angular velocity, M_b its central inertia in the same basis) and w_b affine
in the velocities, the Euler–Lagrange expressions E_σ = ∂L/∂q^σ − d/dt ∂L/∂q̇^σ + A_σ of
L = T − V need no derivative of L.  With the partial velocities J_b = ∂w_b/∂q̇ (functions of
(t, q)), p_b = M_b w_b and d̄ the total derivative without the q̈ term (∂_t + q̇^σ∂_{q^σ}):

.. math::
   \frac{\partial T}{\partial\dot q^\sigma} = \sum_b p_b^T J_{b\sigma}, \qquad
   \frac{d}{dt}\frac{\partial T}{\partial\dot q^\sigma}
      = \sum_b \bigl(J_b\ddot q + \bar d w_b\bigr)^T M_b J_{b\sigma}
        + w_b^T(\bar d M_b) J_{b\sigma} + p_b^T \bar d J_{b\sigma},

so E_σ = e_σ − g_σν q̈^ν with the mass matrix g = Σ_b J_bᵀ M_b J_b and

.. math::
   e_\sigma = -\sum_b \Bigl[\bar d(p_b)^T J_{b\sigma}
       + p_b^T\bigl(\bar d J_{b\sigma} - \partial w_b/\partial q^\sigma\bigr)
       - \tfrac12 w_b^T (\partial M_b/\partial q^\sigma) w_b\Bigr]
       - \partial V/\partial q^\sigma + A_\sigma .

This is Kane's generalised inertia force written for components in any basis: in a fixed basis
with w = ṙ the bracket d̄J − ∂w/∂q vanishes and e + A is Σ m a·∂v/∂q̇ with the accelerations'
q̈-free part; for body-frame components of an angular velocity with constant inertia it gives the
Euler terms ω × Iω (Kane's generalised inertia forces, [Kane–Levinson 1985]).  The derivation assumes nothing else,
so the basis is free (a frame in which the inertia's coefficients are constant keeps ∂M/∂q = 0).
Every derivative is taken once per distinct subexpression of the small velocity components
(:func:`~jetgeo.geometry.exact.diff_dag`, :func:`~jetgeo.geometry.exact.gradient_dag`), never of the assembled L.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import sympy as sp

from ..errors import InputError
from ..geometry.coerce import as_expr
from ..geometry.exact import diff_dag, free_symbols_dag, gradient_dag, power_dag, product_dag
from ..jets import FibredManifold

__all__ = ["VelocityPart", "kinetic_energy_of", "euler_lagrange_of_bodies", "energy_and_euler_lagrange"]


class VelocityPart(NamedTuple):
    """One term ½ wᵀ M w of the kinetic energy: ``w`` the components of a velocity (translational or
    angular) in an orthonormal basis, functions of (t, q, q̇) affine in q̇; ``M`` the symmetric
    matrix of the mass (m·1) or of the central inertia in the same basis, a function of (t, q);
    ``derivative``: w = d r(t, q)/dt for position components r in a fixed basis (the caller has
    checked it), so that d̄(∂w/∂q̇^σ) = ∂w/∂q^σ and the bracket of the module docstring is not formed
    (two derivatives per component and coordinate saved)."""

    w: tuple
    M: sp.Matrix
    derivative: bool = False


def _checked(Y: FibredManifold, parts: Sequence) -> list:
    out = []
    for k, part in enumerate(parts):
        if not isinstance(part, VelocityPart):
            raise InputError(f"velocity part {k}: a VelocityPart(w, M) is expected, got {type(part).__name__}")
        w = tuple(as_expr(c, f"velocity part {k}") for c in part.w)
        M = sp.Matrix(part.M)
        n = len(w)
        if M.shape != (n, n) or any(M[i, j] != M[j, i] for i in range(n) for j in range(i + 1, n)):
            raise InputError(f"velocity part {k}: M must be a symmetric {n} × {n} matrix, got {M.shape}")
        out.append(VelocityPart(w, M, bool(part.derivative)))
    # the jet orders of all the parts' free symbols, collected in one walk of their DAG (the velocities
    # of a chain of bodies share their direction cosines); the part is named when one is wrong
    if Y.jet_order(*[c for part in out for c in part.w]) > 1 or Y.jet_order(*[c for part in out for c in part.M]) > 0:
        for k, (w, M, _) in enumerate(out):
            if Y.jet_order(*w) > 1 or Y.jet_order(*M) > 0:
                raise InputError(f"velocity part {k}: w must depend on (t, q, q̇) and M on (t, q) only")
    return out


def kinetic_energy_of(Y: FibredManifold, parts: Sequence) -> sp.Expr:
    """T = ½ Σ wᵀ M w of the velocity parts (unexpanded).

    Parameters
    ----------
    Y : FibredManifold
        The configuration bundle whose jet coordinates the parts are written in.
    parts : sequence of VelocityPart
        The terms of the kinetic energy.

    Returns
    -------
    sympy.Expr
        The kinetic energy.

    Examples
    --------
    >>> Y = FibredManifold(["x"])
    >>> kinetic_energy_of(Y, [VelocityPart((Y.qdot[0],), sp.Matrix([[2]]))])
    xdot**2
    """
    return _kinetic_energy(_checked(Y, parts))


def _kinetic_energy(parts: list) -> sp.Expr:
    """T = ½ Σ wᵀ M w of checked parts (:func:`_checked`)."""
    terms = []
    flags: dict = {}  # product_dag's memo
    for w, M, _ in parts:
        n = len(w)
        for i in range(n):
            if w[i] == 0:
                continue
            if M[i, i] != 0:
                terms.append(product_dag(M[i, i], power_dag(w[i], 2, flags), sp.S.Half, memo=flags))
            terms += [M[i, j] * w[i] * w[j] for j in range(i + 1, n) if M[i, j] != 0 and w[j] != 0]
    return sp.Add(*terms)


def _is_scalar(M: sp.Matrix) -> bool:
    """Whether M = c·1 (a mass: every velocity component weighs the same)."""
    return M.is_diagonal() and all(M[i, i] == M[0, 0] for i in range(M.rows))

def _add_mass_terms(w: tuple, M: sp.Matrix, J: list, g_terms: dict, flags: dict) -> list:
    """Add one part's terms of the mass matrix Jᵀ M J to ``g_terms`` ({(a, b), a ≤ b: terms}: the columns
    that occur, symmetric) and return its momentum p = M w.  M = c·1 (a mass) as c Σ_i J_ia J_ib — a
    third of the products of sums — each product by :func:`~jetgeo.geometry.exact.product_dag`
    (``flags`` its memo)."""
    k = len(w)
    used = sorted({j for row in J for j, c in enumerate(row) if c != 0})
    if _is_scalar(M):
        for n_a, a in enumerate(used):
            for b in used[n_a:]:
                val = sp.Add(*[product_dag(J[i][a], J[i][b], memo=flags)
                               for i in range(k) if J[i][a] != 0 and J[i][b] != 0])
                if val != 0:
                    g_terms.setdefault((a, b), []).append(product_dag(M[0, 0], val, memo=flags))
        return [product_dag(M[0, 0], c, memo=flags) if c != 0 else c for c in w]
    MJ = {j: [sp.Add(*[M[i, r] * J[r][j] for r in range(k) if M[i, r] != 0 and J[r][j] != 0])
              for i in range(k)] for j in used}
    for n_a, a in enumerate(used):
        for b in used[n_a:]:
            g_terms.setdefault((a, b), []).extend(
                J[i][a] * MJ[b][i] for i in range(k) if J[i][a] != 0 and MJ[b][i] != 0)
    return [sp.Add(*[M[i, r] * w[r] for r in range(k) if M[i, r] != 0 and w[r] != 0]) for i in range(k)]


def euler_lagrange_of_bodies(Y: FibredManifold, parts: Sequence, potential=0, forces: Sequence | None = None
                             ) -> tuple | None:
    """The mass matrix g and the Euler–Lagrange expressions without accelerations e (module docstring).

    E_σ = e_σ − g_σν q̈^ν are the Euler–Lagrange expressions of L = ½ Σ wᵀ M w − V with the
    generalised forces A (Newton's sign), as functions equal to those obtained by differentiating L.

    Parameters
    ----------
    Y : FibredManifold
        The configuration bundle.
    parts : sequence of VelocityPart
        The kinetic energy's terms ½ wᵀ M w.
    potential : sympy expression, optional
        V(t, q).
    forces : sequence of sympy expressions, optional
        A_σ(t, q, q̇), one per coordinate.

    Returns
    -------
    tuple or None
        (g, e): the symmetric m × m mass matrix (a ``sympy.Matrix`` in (t, q)) and the tuple of the
        m expressions e_σ (unexpanded); None when a velocity is not affine in q̇ (its partial
        velocities depend on q̇: the formula does not apply, L's derivatives are needed).

    Raises
    ------
    InputError
        If a part is malformed, the potential depends on q̇ or the number of forces is wrong.

    Examples
    --------
    >>> Y = FibredManifold(["x", "th"])
    >>> (x, th), (xd, thd) = Y.q, Y.qdot
    >>> bob = VelocityPart((xd + sp.cos(th) * thd, sp.sin(th) * thd), sp.eye(2))  # a pendulum on a cart
    >>> g, e = euler_lagrange_of_bodies(Y, [bob], potential=-sp.cos(th))
    >>> g
    Matrix([
    [      1,                 cos(th)],
    [cos(th), sin(th)**2 + cos(th)**2]])
    >>> [sp.expand(c) for c in e]
    [thdot**2*sin(th), -sin(th)]
    >>> euler_lagrange_of_bodies(Y, [VelocityPart((xd**2,), sp.eye(1))]) is None
    True
    """
    return _euler_lagrange(Y, _checked(Y, parts), potential, forces)


def energy_and_euler_lagrange(Y: FibredManifold, parts: Sequence, potential=0, forces: Sequence | None = None
                              ) -> tuple:
    """(T, EL): :func:`kinetic_energy_of` and :func:`euler_lagrange_of_bodies` of the same parts, which
    are checked once (what :func:`jetgeo.io.sympy_import.from_mechanics` needs).

    Parameters
    ----------
    Y : FibredManifold
        The configuration bundle.
    parts : sequence of VelocityPart
        The kinetic energy's terms ½ wᵀ M w.
    potential : sympy expression, optional
        V(t, q).
    forces : sequence of sympy expressions, optional
        A_σ(t, q, q̇), one per coordinate.

    Returns
    -------
    tuple
        (T, el): the kinetic energy and what :func:`euler_lagrange_of_bodies` returns ((g, e) or None).

    Raises
    ------
    InputError
        As :func:`euler_lagrange_of_bodies`.

    Examples
    --------
    >>> Y = FibredManifold(["x"])
    >>> T, (g, e) = energy_and_euler_lagrange(Y, [VelocityPart((Y.qdot[0],), sp.Matrix([[2]]))])
    >>> T, g, e
    (xdot**2, Matrix([[2]]), (0,))
    """
    checked = _checked(Y, parts)
    return _kinetic_energy(checked), _euler_lagrange(Y, checked, potential, forces)


def _euler_lagrange(Y: FibredManifold, parts: list, potential, forces) -> tuple | None:
    """:func:`euler_lagrange_of_bodies` of checked parts (:func:`_checked`)."""
    V = as_expr(potential, "the potential")
    if Y.jet_order(V) > 0:
        raise InputError(f"the potential must depend on (t, q) only; got {V}")
    m = Y.m
    A = [sp.S.Zero] * m if forces is None else [as_expr(a, "a generalised force") for a in forces]
    if len(A) != m:
        raise InputError(f"forces: {m} components expected, got {len(A)}")
    velocities = set(Y.qdot)
    along = {Y.t: sp.S.One, **dict(zip(Y.q, Y.qdot))}  # d̄/dt: the total derivative without q̈
    memo_dbar: dict = {}
    memo_v: dict = {}  # the velocity gradients of visited nodes
    qdot = frozenset(Y.qdot)
    memo_q = {s: {} for s in Y.q}
    g_terms: dict = {}  # (a, b), a ≤ b: the terms of g_ab
    flags: dict = {}  # product_dag's memo
    e_terms = [[-sp.diff(V, s), a] for s, a in zip(Y.q, A)]
    for w, M, derivative in parts:
        k = len(w)
        grads = [gradient_dag(c, qdot, memo_v) for c in w]  # one walk for all the velocities
        J = [[grad.get(v, sp.S.Zero) for v in Y.qdot] for grad in grads]
        if free_symbols_dag([c for row in J for c in row]) & velocities:
            return None
        p = _add_mass_terms(w, M, J, g_terms, flags)
        M_symbols = free_symbols_dag(list(M))
        # −d̄p and −p, negated once (not once per coordinate)
        if _is_scalar(M) and M[0, 0].is_Symbol and M[0, 0] not in along:
            # a mass m, constant: −d̄(m w) = (−m)·d̄w, one product (diff_dag's product rule and the
            # negation would each flatten m·d̄w)
            neg_m = -M[0, 0]
            ndp = [product_dag(neg_m, d, memo=flags) if d != 0 else d
                   for d in (diff_dag(c, along, memo_dbar) for c in w)]
        else:
            ndp = [-diff_dag(c, along, memo_dbar) for c in p]
        np_ = [-c for c in p] if not derivative else p
        # the coordinates each component depends on: ∂w_i/∂q^j = 0 and d̄J_ij = 0 (a number) need no walk
        w_symbols = [free_symbols_dag([c]) for c in w] if not derivative else []
        for j, s in enumerate(Y.q):
            terms = e_terms[j]
            for i in range(k):
                if J[i][j] != 0 and ndp[i] != 0:
                    terms.append(product_dag(ndp[i], J[i][j], memo=flags))
                if p[i] != 0 and not derivative:  # p·(d̄J_j − ∂w/∂q^j)
                    dJ = sp.S.Zero if J[i][j].is_Number else diff_dag(J[i][j], along, memo_dbar)
                    D = dJ - diff_dag(w[i], s, memo_q[s]) if s in w_symbols[i] else dJ
                    if D != 0:
                        terms.append(np_[i] * D)
            if s not in M_symbols:  # ∂M/∂q^j = 0
                continue
            dM = [(a, b, diff_dag(M[a, b], s)) for a in range(k) for b in range(k) if M[a, b].has(s)]
            terms += [w[a] * c * w[b] / 2 for a, b, c in dM if c != 0]
    g = sp.zeros(m, m)
    for (a, b), terms in g_terms.items():
        g[a, b] = g[b, a] = sp.Add(*terms)
    return g, tuple(sp.Add(*terms) for terms in e_terms)
