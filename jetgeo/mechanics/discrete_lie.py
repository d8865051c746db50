r"""Rigid bodies stepped on the rotation group: the discrete Lagrange–d'Alembert–Poincaré equations.

A :class:`~jetgeo.mechanics.quasi.QuasiVelocitySystem` whose frame is a rigid body's
(``frame.rotation`` is a :class:`~jetgeo.mechanics.quasi.BodyRotation`: an Euler-angle chart and
the body angular velocity Ω among the quasi-velocities, the other quasi-velocities u the rates ẋ of
the other coordinates) has the configuration (R, x) ∈ SO(3) × Rⁿ, the reduced Lagrangian
ℓ(t, R, x, Ω, u), the constraints φ(t, R, x, Ω, u) = 0 and the forces F_α along the frame (body
torques, forces along x).  The discrete scheme moves the attitude by a group element,

.. math:: R_{k+1} = R_k\,\operatorname{cay}(h\xi_k), \qquad x_{k+1} = x_k + h u_k,
          \qquad \operatorname{cay}(a) = (I - \tfrac12\hat a)^{-1}(I + \tfrac12\hat a)
          = I + \frac{4}{4 + |a|^2}\,(\hat a + \tfrac12\hat a^2),

so the orientation never passes through a chart: it is carried as a unit quaternion, renormalised at
every step (q_{k+1} = q_k ⊗ (1, hξ_k/2) / |·|: the Cayley rotation's quaternion), and R(q) is
orthogonal to round-off at every node [Kobilarov–Marsden–Sukhatme 2010], [Fedorov–Zenkov 2005].

**Discrete Lagrangian** (trapezoidal, ξ_k and u_k constant over the step):
L_d = (h/2)[ℓ(t_k, R_k, x_k, ξ_k, u_k) + ℓ(t_{k+1}, R_{k+1}, x_{k+1}, ξ_k, u_k)].

**Variations.**  δR_k = R_k η̂_k (left-trivialised), so δ(R_kᵀR_{k+1}) cay(hξ)⁻¹ = −η̂_k + Ad_{cay(hξ)}η̂_{k+1}
and, with the right-trivialised tangent of the Cayley map, dcay⁻¹_a = I − ½â + ¼aaᵀ, and
dcay⁻¹_a Ad_{cay(a)} = dcay⁻¹_{−a},

.. math:: h\,\delta\xi_k = -\operatorname{dcay}^{-1}_{h\xi_k}\eta_k + \operatorname{dcay}^{-1}_{-h\xi_k}\eta_{k+1}.

With μ_k = ½(∂ℓ/∂Ω|_k + ∂ℓ/∂Ω|_{k+1}) and π_k = ½(∂ℓ/∂u|_k + ∂ℓ/∂u|_{k+1}) (both at the step's
velocity (ξ_k, u_k)), M = the left-trivialised attitude derivative of ℓ (M_α = d/dε ℓ(R e^{ε ê_α}),
the frame derivative X_α(ℓ) of Hamel's equations) at either node, the derivatives of L_d along
(η, δx) are

.. math::
    D_1L_d &= \bigl(\tfrac h2 M^- - (\operatorname{dcay}^{-1}_{h\xi})^{\mathsf T}\mu,\;
              \tfrac h2\partial_x\ell^- - \pi\bigr), &
    D_2L_d &= \bigl(\tfrac h2 M^+ + (\operatorname{dcay}^{-1}_{-h\xi})^{\mathsf T}\mu,\;
              \tfrac h2\partial_x\ell^+ + \pi\bigr),

(dcay⁻¹_{±hξ})ᵀ = I ± ½hξ̂ + ¼h²ξξᵀ.  The virtual displacements at a node are the (η, δx) with
(∂φ/∂v)·(η, δx) = 0 — Chetaev's rule in the frame, the canonical 1-forms (∂φ/∂v^α)θ^α of
:mod:`jetgeo.mechanics.quasi` — so the reactions are (∂φ/∂v)ᵀΛ, and, exactly as in
:mod:`jetgeo.mechanics.discrete` (the half impulses λ, μ of the steps leaving and arriving at a node,
the momenta P_k = ∂ℓ/∂v at the nodes), a step solves for z = (ξ_k, u_k, v_{k+1}, λ, μ)

.. math::
    P_k + D_1L_d + F^-_k + \tfrac h2 J_k^{\mathsf T}\lambda &= 0, &
    P_{k+1} - D_2L_d - F^+_k - \tfrac h2 J_{k+1}^{\mathsf T}\mu &= 0,\\
    \tfrac12\bigl[\varphi(t_k, R_k, x_k, \xi_k, u_k) + \varphi(t_{k+1}, R_{k+1}, x_{k+1}, \xi_k, u_k)\bigr] &= 0, &
    \varphi(t_{k+1}, R_{k+1}, x_{k+1}, v_{k+1}) &= 0,

F^∓ = (h/2) F(t, R, x, ξ_k, u_k) at the two nodes, J = ∂φ/∂v.  Subtracting the first two rows gives
P_{k+1} − P_k = h(μ × ξ + M̄ + F̄ + J̄ᵀΛ̄) + O(h³): the Euler–Poincaré–Suslov equations
ṗ = p × Ω + X(ℓ) + F + λ ∂φ/∂v [Bloch 2003].  The map is symmetric (cay(−a) = cay(a)⁻¹, the trapezoid
is symmetric, λ and μ change places), hence of order 2; the triple jump [Yoshida 1990] composes it to
order 4 (:func:`jetgeo.mechanics.discrete.compose_triple_jump`).  Every node satisfies φ = 0.

**ℓ, φ and F as functions of R.**  They are given in the Euler angles; the scheme needs them at a
rotation matrix.  :func:`in_rotation_entries` writes each as a polynomial of degree ≤ 2 in the nine
entries of R — the functions of a rigid body's Lagrangian and contact constraints (gravity through
γ = Rᵀe₃, a contact point ρ(γ), the space components R Ω): it interpolates at rational rotations
(the angles at rational points of the circle) on the 35 independent monomials of degree ≤ 2 on SO(3)
(1 + 9 + 25, the dimensions of the representations of degree 0, 1, 2) and checks the identity exactly
at further rational points; an expression that is not such a polynomial raises
:class:`~jetgeo.errors.NotApplicableError` (the coordinate form then serves).

Everything here is exact sympy; :mod:`jetgeo.numerics.simulation.discrete_lie` compiles and runs it.
"""

from __future__ import annotations

import random
from functools import cache, cached_property

import sympy as sp
from sympy.polys.domains import QQ
from sympy.polys.matrices import DomainMatrix

from ..errors import InputError, NotApplicableError
from ..geometry.coerce import as_expr
from ..geometry.exact import depends_on, diff_dag, xreplace_dag
from ..jets.fibred import FibredManifold
from .discrete import OneStepMap, _fresh, compose_triple_jump
from .quasi import QuasiVelocitySystem
from .rigid import QUATERNION, rotation_matrix

__all__ = ["LieDiscreteSystem", "cayley", "in_rotation_entries", "lie_discrete_system"]

Rat = sp.Rational


def _hat(a) -> sp.Matrix:
    return sp.Matrix([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])


def cayley(a) -> sp.Matrix:
    """cay(a) = (I − â/2)⁻¹(I + â/2) = I + 4/(4 + |a|²) (â + â²/2), a rotation for every a ∈ R³.

    Parameters
    ----------
    a : sequence of three expressions

    Returns
    -------
    sympy.Matrix
        3 × 3, rational in a.

    Examples
    --------
    >>> M = cayley([0, 0, 2])          # a quarter turn about e₃: angle 2 atan(|a|/2)
    >>> M
    Matrix([
    [0, -1, 0],
    [1,  0, 0],
    [0,  0, 1]])
    """
    A = _hat(a)
    a = [as_expr(x) for x in a]
    n2 = sp.Add(*[x**2 for x in a])
    return sp.eye(3) + sp.Integer(4) / (4 + n2) * (A + A * A / 2)


# --- ℓ, φ, F as polynomials in the entries of R -------------------------------------------------------
_N_SAMPLES, _N_CHECK = 48, 6


def _circle_points(n: int, seed: int) -> list:
    """n triples of rational points (sin, cos) of the unit circle, from a fixed seed."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        pts = []
        for _ in range(3):
            t = Rat(rng.randint(-40, 40), rng.randint(1, 40))
            pts.append((2 * t / (1 + t**2), (1 - t**2) / (1 + t**2)))
        out.append(pts)
    return out


def _monomials(r: list) -> list:
    quad = [r[i] * r[j] for i in range(9) for j in range(i, 9)]
    return [sp.Integer(1), *r, *quad]


@cache
def _interpolation(sequence: str) -> tuple:
    """For the chart ``sequence``: the sample points, the pivot monomials P (35), the rows used and the
    inverse of the 35 × 35 interpolation matrix (exact rationals), and R at every point."""
    Y = FibredManifold(["_a1", "_a2", "_a3"])
    Rsym = rotation_matrix(Y, sequence)
    r = sp.symbols("_r0:9")
    mons = _monomials(list(r))
    pts = _circle_points(_N_SAMPLES + _N_CHECK, 20261126)
    Rs = [_at_point(list(Rsym), Y.q, p) for p in pts]
    A = sp.Matrix([[m.xreplace(dict(zip(r, R))) for m in mons] for R in Rs])
    _, cols = DomainMatrix.from_Matrix(A[:_N_SAMPLES, :]).convert_to(QQ).rref()
    Ac = A[:_N_SAMPLES, list(cols)]
    _, rows = DomainMatrix.from_Matrix(Ac.T).convert_to(QQ).rref()
    inv = DomainMatrix.from_Matrix(Ac[list(rows), :]).convert_to(QQ).inv().to_Matrix()
    return pts, list(cols), list(rows), inv, A[:, list(cols)], r, mons, Y.q


def _sc(e: sp.Expr, angles) -> sp.Expr | None:
    """e with sin(a), cos(a) of each angle a replaced by symbols S_a, C_a (None if an angle is left)."""
    e = sp.expand_trig(e)
    rep = {}
    for i, a in enumerate(angles):
        rep[sp.sin(a)], rep[sp.cos(a)] = sp.Symbol(f"_S{i}"), sp.Symbol(f"_C{i}")
    out = e.xreplace(rep)
    return None if out.free_symbols & set(angles) else out


def _at_point(exprs: list, angles, pt) -> list:
    SC = {}
    for i, (s, c) in enumerate(pt):
        SC[sp.Symbol(f"_S{i}")], SC[sp.Symbol(f"_C{i}")] = s, c
    out = []
    for e in exprs:
        f = _sc(as_expr(e), angles)
        out.append(None if f is None else f.xreplace(SC))
    return out


def in_rotation_entries(expr, sequence: str, angles, r) -> sp.Expr:
    """``expr`` (in the Euler angles ``angles`` of the chart ``sequence`` and other symbols) written as a
    polynomial of degree ≤ 2 in the entries r of the rotation R = ``rotation_matrix(sequence)``.

    Parameters
    ----------
    expr : expression
        Depends on the angles through sin and cos only.
    sequence : str
        An Euler sequence (:data:`jetgeo.mechanics.rigid.EULER_SEQUENCES`).
    angles : three Symbols
    r : nine Symbols
        The entries R_11, R_12, …, R_33 (row by row).

    Returns
    -------
    sympy.Expr
        G(r, …) with G(R(angles), …) = expr on SO(3) (checked exactly at rational rotations besides
        the interpolation points).

    Raises
    ------
    NotApplicableError
        ``expr`` is not such a polynomial.

    Examples
    --------
    >>> from jetgeo import FibredManifold
    >>> Y = FibredManifold(["phi", "theta", "psi"])
    >>> r = sp.symbols("r0:9")
    >>> in_rotation_entries(sp.cos(Y.q[1]) * Y.qdot[0], "ZXZ", Y.q, r)     # cos θ = R_33
    phidot*r8
    """
    expr = as_expr(expr)
    angles = tuple(angles)
    if not depends_on([expr], set(angles)):
        return expr
    # a power of an expression of the attitude other than a positive whole one (the contact point's
    # 1/√(ξᵀAξ) of an ellipsoid): its base is rewritten, the power kept
    powers = {a for a in expr.atoms(sp.Pow)
              if not (a.exp.is_Integer and a.exp > 0) and depends_on([a.base], set(angles))}
    if powers:
        held = {a: sp.Dummy("held") for a in powers}
        inner = in_rotation_entries(expr.xreplace(held), sequence, angles, r)
        return inner.xreplace({d: in_rotation_entries(a.base, sequence, angles, r) ** a.exp for a, d in held.items()})
    pts, cols, rows, inv, Acols, rr, mons, a0 = _interpolation(sequence)
    e = _sc(expr.xreplace(dict(zip(angles, a0))), a0)
    if e is None:
        raise NotApplicableError(f"the attitude enters {str(expr):.80} otherwise than through sin and cos of the "
                                 "angles: it is not a function of R the Lie-group scheme can evaluate")
    SC = [sp.Symbol(f"_S{i}") for i in range(3)] + [sp.Symbol(f"_C{i}") for i in range(3)]
    groups: dict = {}
    for term in sp.Add.make_args(sp.expand(e)):  # grouped by the factor free of the angles
        coeff, dep = term.as_independent(*SC, as_Add=False)
        num, rest = coeff.as_coeff_Mul()
        groups[rest] = groups.get(rest, 0) + num * dep
    out = []
    for coeff, dep in groups.items():
        if not dep.free_symbols & set(SC):
            out.append(coeff * dep)
            continue
        vals = []
        for p in pts:
            rep = {SC[i]: p[i][0] for i in range(3)} | {SC[3 + i]: p[i][1] for i in range(3)}
            vals.append(dep.xreplace(rep))
        c = inv * sp.Matrix([vals[i] for i in rows])
        if any(x != 0 for x in (Acols * c - sp.Matrix(vals))):
            raise NotApplicableError(f"{str(expr):.80} is not a polynomial of degree ≤ 2 in the entries of R: the "
                                     "Lie-group scheme cannot evaluate it at a rotation matrix")
        poly = sp.Add(*[ci * mons[j].xreplace(dict(zip(rr, r))) for ci, j in zip(c, cols) if ci != 0])
        out.append(coeff * poly)
    return sp.Add(*out)


# --- the discrete system on SO(3) × Rⁿ ------------------------------------------------------------------
class LieDiscreteSystem:
    r"""The discrete Lagrange–d'Alembert–Poincaré system of a rigid body's QuasiVelocitySystem (module docstring).

    Parameters
    ----------
    S : QuasiVelocitySystem
        Its frame must be a rigid body's (``S.frame.rotation`` set, as by
        :func:`~jetgeo.mechanics.rigid.body_angular_velocity`), time-independent, with the other
        quasi-velocities the rates of the other coordinates.

    Raises
    ------
    NotApplicableError
        The frame is not a rigid body's, or ℓ, φ or F is not a polynomial of degree ≤ 2 in R.

    Examples
    --------
    >>> from jetgeo import systems
    >>> D = LieDiscreteSystem(systems.load("suslov").quasi)
    >>> M = D.one_step()
    >>> len(M.residual), [str(s) for s in M.known][:5]
    (8, ['t', 'qa0', 'qa1', 'qa2', 'qa3'])
    """

    def __init__(self, S: QuasiVelocitySystem) -> None:
        if not isinstance(S, QuasiVelocitySystem):
            raise InputError(f"LieDiscreteSystem needs a QuasiVelocitySystem, got {type(S).__name__}")
        F = S.frame
        rot = F.rotation
        if rot is None:
            raise NotApplicableError("LieDiscreteSystem: the frame is not a rigid body's (frame.rotation is None)")
        Y = F.Y
        if depends_on(list(F.Phi), {Y.t}):
            raise NotApplicableError("LieDiscreteSystem: the frame depends on t")
        self.S, self.rotation, self.Y = S, rot, Y
        self.angles = tuple(rot.angles)
        self.omega_index = [F.v.index(w) for w in rot.omega]
        self.x = tuple(q for q in Y.q if q not in self.angles)
        self.other_index = [i for i in range(Y.m) if i not in self.omega_index]
        for j, xq in zip(self.other_index, self.x):
            row = [s == Y.q.index(xq) for s in range(Y.m)]
            if any((F.Phi[j, s] != 0) != row[s] or (row[s] and F.Phi[j, s] != 1) for s in range(Y.m)):
                raise NotApplicableError(f"LieDiscreteSystem: the quasi-velocity {F.v[j]} is not the rate of {xq}")
        #: the node's quasi-velocities in the scheme's order: Ω then u
        self.v = tuple(F.v[i] for i in (*self.omega_index, *self.other_index))
        exprs = [S.ell, *S.phi, *S.forces]
        taken = {str(s) for e in exprs for s in e.free_symbols} | {str(s) for s in Y.J2.coords} | {str(s) for s in F.v}
        self.h = _fresh("h", taken)
        self._Yq = FibredManifold([_fresh(f"qa{i}", taken).name for i in range(4)])
        #: the unit quaternion carried at the nodes (scalar part first)
        self.quaternion = self._Yq.q
        self.r = tuple(_fresh(f"R{i // 3 + 1}{i % 3 + 1}", taken) for i in range(9))
        self.xi = tuple(_fresh(f"xi{i + 1}", taken) for i in range(3))
        self.u = tuple(_fresh(f"u_{q}", taken) for q in self.x)
        self.v_next = tuple(_fresh(f"{s}_next", taken) for s in self.v)
        k = S.k
        self.lam = tuple(_fresh(f"lambda{i + 1}", taken) for i in range(k))
        self.mu = tuple(_fresh(f"mu{i + 1}", taken) for i in range(k))
        self.carried = tuple(_fresh(f"Lambda{i + 1}", taken) for i in range(k))
        self.carried_lam = tuple(_fresh(f"Lambda_out{i + 1}", taken) for i in range(k))
        self._taken = taken

    # --- ℓ, φ, F in R -----------------------------------------------------------------------------------
    def _in_R(self, e) -> sp.Expr:
        return in_rotation_entries(e, self.rotation.sequence, self.angles, self.r)

    @cached_property
    def reduced(self) -> tuple:
        """(ℓ, [φ], [F]) as functions of (t, R, x, v): R's entries the symbols ``self.r``.

        Returns
        -------
        tuple
        """
        S = self.S
        F = [S.forces[i] for i in (*self.omega_index, *self.other_index)]
        return self._in_R(S.ell), [self._in_R(p) for p in S.phi], [self._in_R(f) for f in F]

    def attitude_derivative(self, e) -> list:
        """M_α = d/dε e(R e^{ε ê_α}) at ε = 0 (α = 1, 2, 3): the left-trivialised derivative of a function
        of R (the frame derivative X_α(e) of Hamel's equations), in R's entries.

        Parameters
        ----------
        e : expression in the symbols ``self.r``

        Returns
        -------
        list of three expressions
        """
        Rm = sp.Matrix(3, 3, self.r)
        dR = sp.Matrix(3, 3, [diff_dag(e, s) for s in self.r])
        E = [_hat(row) for row in sp.eye(3).tolist()]
        return [sp.Add(*[dR[i, j] * (Rm * Ea)[i, j] for i in range(3) for j in range(3)]) for Ea in E]

    def quaternion_rotation(self) -> sp.Matrix:
        """R(q) of the carried quaternion :attr:`quaternion` (x_space = q x_body q̄ / |q|²,
        :func:`~jetgeo.mechanics.rigid.rotation_matrix`).

        Returns
        -------
        sympy.Matrix
            3 × 3, rational in the quaternion.

        Examples
        --------
        >>> from jetgeo import systems
        >>> LieDiscreteSystem(systems.load("suslov").quasi).quaternion_rotation()[2, 2]
        (qa0**2 - qa1**2 - qa2**2 + qa3**2)/(qa0**2 + qa1**2 + qa2**2 + qa3**2)
        """
        return rotation_matrix(self._Yq, QUATERNION)

    def _at(self, exprs, t, R, x, v) -> list:
        rep = {self.Y.t: t, **dict(zip(self.r, list(R))), **dict(zip(self.x, x)), **dict(zip(self.v, v))}
        return [xreplace_dag(as_expr(e), rep) for e in exprs]

    def one_step(self) -> OneStepMap:
        """The one-step map on SO(3) × Rⁿ (the module docstring).

        Returns
        -------
        OneStepMap
            unknowns z = (ξ, u, v_next, λ, μ); known w = (t, quaternion, x, v, Λ, Λ′) with v = (Ω, u) at
            the node; parameters those of ℓ, φ, F then h.

        Examples
        --------
        >>> from jetgeo import systems
        >>> M = LieDiscreteSystem(systems.load("suslov").quasi).one_step()
        >>> [str(s) for s in M.unknowns]
        ['xi1', 'xi2', 'xi3', 'w1_next', 'w2_next', 'w3_next', 'lambda1', 'mu1']
        """
        return self._one_step

    @cached_property
    def _one_step(self) -> OneStepMap:
        Y, h, S = self.Y, self.h, self.S
        ell, phi, forces = self.reduced
        t0, t1 = Y.t, Y.t + h
        qa = self.quaternion
        R0 = self.quaternion_rotation()
        R1 = R0 * cayley([h * x for x in self.xi])
        x0 = list(self.x)
        x1 = [a + h * b for a, b in zip(self.x, self.u)]
        vs = [*self.xi, *self.u]
        v0, v1 = list(self.v), list(self.v_next)
        n3, m, k = 3, Y.m, S.k
        dv = [diff_dag(ell, s) for s in self.v]
        dx = [diff_dag(ell, s) for s in self.x]
        Mr = self.attitude_derivative(ell)
        Jm = [[diff_dag(p, s) for s in self.v] for p in phi]

        def node(exprs, t, R, x, v):
            return self._at(exprs, t, R, x, v)

        dv_m, dv_p = node(dv, t0, R0, x0, vs), node(dv, t1, R1, x1, vs)
        mu_d = [(a + b) / 2 for a, b in zip(dv_m, dv_p)]
        muO, piu = sp.Matrix(mu_d[:n3]), mu_d[n3:]
        a = sp.Matrix([h * x for x in self.xi])
        A = _hat(a)
        aaT = a * a.T / 4
        Tm = (sp.eye(3) + A / 2 + aaT) * muO   # (dcay⁻¹_{hξ})ᵀ μ
        Tp = (sp.eye(3) - A / 2 + aaT) * muO   # (dcay⁻¹_{−hξ})ᵀ μ
        M_m, M_p = node(Mr, t0, R0, x0, vs), node(Mr, t1, R1, x1, vs)
        dx_m, dx_p = node(dx, t0, R0, x0, vs), node(dx, t1, R1, x1, vs)
        D1 = [h / 2 * M_m[i] - Tm[i] for i in range(3)] + [h / 2 * dx_m[i] - piu[i] for i in range(m - 3)]
        D2 = [h / 2 * M_p[i] + Tp[i] for i in range(3)] + [h / 2 * dx_p[i] + piu[i] for i in range(m - 3)]
        Fm = [h / 2 * f for f in node(forces, t0, R0, x0, vs)]
        Fp = [h / 2 * f for f in node(forces, t1, R1, x1, vs)]
        P0, P1 = node(dv, t0, R0, x0, v0), node(dv, t1, R1, x1, v1)
        J0 = [node(row, t0, R0, x0, v0) for row in Jm]
        J1 = [node(row, t1, R1, x1, v1) for row in Jm]
        E1 = [P0[s] + D1[s] + Fm[s] + h / 2 * sp.Add(*[J0[i][s] * self.lam[i] for i in range(k)]) for s in range(m)]
        E2 = [P1[s] - D2[s] - Fp[s] - h / 2 * sp.Add(*[J1[i][s] * self.mu[i] for i in range(k)]) for s in range(m)]
        E3 = [(p0 + p1) / 2 for p0, p1 in zip(node(phi, t0, R0, x0, vs), node(phi, t1, R1, x1, vs))]
        E4 = node(phi, t1, R1, x1, v1)
        # the next quaternion: q ⊗ (1, hξ/2) (the Cayley rotation's quaternion), renormalised
        b = [1, *(h * x / 2 for x in self.xi)]
        q0, q1, q2, q3 = qa
        prod = [q0 * b[0] - q1 * b[1] - q2 * b[2] - q3 * b[3], q0 * b[1] + q1 * b[0] + q2 * b[3] - q3 * b[2],
                q0 * b[2] - q1 * b[3] + q2 * b[0] + q3 * b[1], q0 * b[3] + q1 * b[2] - q2 * b[1] + q3 * b[0]]
        norm = sp.sqrt(sp.Add(*[c**2 for c in prod]))
        params = sorted(set().union(*[e.free_symbols for e in [S.ell, *S.phi, *S.forces]])
                        - {Y.t, *Y.q, *self.S.frame.v}, key=str)
        omega0 = list(self.v[:3])
        u0 = list(self.v[3:])
        return OneStepMap(
            residual=[*E1, *E2, *E3, *E4],
            unknowns=(*self.xi, *self.u, *self.v_next, *self.lam, *self.mu),
            known=(Y.t, *qa, *self.x, *self.v, *self.carried, *self.carried_lam),
            parameters=(*params, h),
            advance=[t1, *(c / norm for c in prod), *x1, *v1, *self.mu, *self.lam],
            predictor=[*omega0, *u0, *self.v, *self.carried, *self.carried],
            step=h,
        )

    def triple_jump(self) -> OneStepMap:
        """The fourth-order composition of :meth:`one_step` [Yoshida 1990] (as
        :meth:`jetgeo.mechanics.discrete.DiscreteSystem.triple_jump`).

        Returns
        -------
        OneStepMap
            ``stages=3``; the known vector ends with the stage counter.

        Examples
        --------
        >>> from jetgeo import systems
        >>> LieDiscreteSystem(systems.load("suslov").quasi).triple_jump().stages
        3
        """
        return self._triple_jump

    @cached_property
    def _triple_jump(self) -> OneStepMap:
        return compose_triple_jump(self.one_step(), self.lam, self.carried_lam, _fresh("stage", self._taken))

    def __repr__(self) -> str:
        return f"LieDiscreteSystem({self.rotation.sequence} body, m={self.Y.m}, k={self.S.k})"


def lie_discrete_system(S: QuasiVelocitySystem) -> LieDiscreteSystem | None:
    """The :class:`LieDiscreteSystem` of ``S`` when its frame is a rigid body's, else None.

    Parameters
    ----------
    S : QuasiVelocitySystem

    Returns
    -------
    LieDiscreteSystem or None
        None when ``S.frame.rotation`` is None (no rigid body: the coordinate form serves).

    Raises
    ------
    NotApplicableError
        A rigid body whose ℓ, φ or F the scheme cannot evaluate at a rotation matrix.

    Examples
    --------
    >>> from jetgeo import systems
    >>> lie_discrete_system(systems.load("suslov").quasi)
    LieDiscreteSystem(ZXZ body, m=3, k=1)
    """
    if not isinstance(S, QuasiVelocitySystem):
        raise InputError(f"lie_discrete_system needs a QuasiVelocitySystem, got {type(S).__name__}")
    return None if S.frame.rotation is None else LieDiscreteSystem(S)
