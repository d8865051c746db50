r"""The non-holonomic problem (L, C, D, F) of [Ibort et al. 1996, §2, §4, §5].

Data: a Lagrangian system (L and its generalised forces A), a constraint submanifold
C = {φ^a(t, q, q̇) = 0} ⊂ J¹Y (TQ in the autonomous case), a field of permitted directions
D ⊂ T_C(J¹Y) along C — D° = (TC)° ⊕ K, K spanned by extra annihilators β^b (``permitted``;
default none: D = TC) — and a bundle F of horizontal reaction forces f^B = f^B_σ dq^σ
(``forces``; default Chetaev's bundle F = S*(D°), [Ibort et al. 1996, eqs. (5.20)–(5.21)]: S*(dφ^a) = ∂φ^a/∂q̇^σ dq^σ,
S*(β^b) = β^b_{q̇^σ} dq^σ).

The sought motions are the SODEs Γ = Γ_L + Λ_L(f), f ∈ F, lying in D [Ibort et al. 1996, eq. (2.6)].  In the
jet coordinates the force f = λ_B f^B enters the Euler–Lagrange equations with Newton's sign,

.. math:: W_{\sigma\nu}\ddot q^\nu = L_\sigma + \lambda_B f^B_\sigma ,

(W the Hessian, L_σ of :meth:`LagrangianSystem.free_motion_functions`), and Γ ∈ D reads
⟨β^C, Γ⟩ = 0 for the generators β^C = β^C_t dt + γ^C_σ dq^σ + β^C_σ dq̇^σ of D°.  Hence

.. math:: M^{BC}\lambda_B = -\langle\beta^C, \Gamma_L\rangle,\qquad
          M^{BC} = W^{\sigma\nu} f^B_\sigma \beta^C_\nu   \quad (\text{[Ibort et al. 1996, eq. (4.17)]}),

and Theorem 2: if rank F = corank D (4.15) and det M ≠ 0 on C (⇔ D° ∩ F^⊥ = 0, 4.16), the
problem is compatible and has a unique SODE.  Where Theorem 2 fails, the adapted integrability
algorithm (:meth:`NonholonomicProblem.integrability`) says what happens (secondary
constraints, a family of solutions, or none).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import sympy as sp

from ..errors import ChartError, IncompatibleError, InputError, NotRegularError, UndecidedError
from ..geometry import Form, VectorField, generic_rank, normalise
from ..geometry.coerce import as_expr
from ..geometry.display import tidy
from ..geometry.exact import (
    NORMALISE_MAX_NODES,
    det_dag,
    det_exact,
    field_product,
    generic_rank_dag,
    is_small,
    matmul_dag,
    solve_exact,
    trig_reduce,
    trig_reduce_if_small,
    xreplace_dag,
)
from ..limits import staged
from ..mechanics import ConstraintSubmanifold, LagrangianSystem, Motion, QuasiVelocitySystem
from ..mechanics.quasi import coordinate_form
from .ide import ImplicitDifferentialEquation, IntegrabilityReport
from .tulczyjew import alpha_inverse_equations, inverse_legendre, legendre_map, momenta_symbols

__all__ = ["NonholonomicProblem", "CompatibilityReport", "HamiltonianPicture", "NonholonomicMotion"]


@dataclass
class CompatibilityReport:
    """Theorem 2 of [Ibort et al. 1996] for (L, C, D, F).

    ``rank_F`` and ``corank_D`` (condition 4.15), ``matrix`` M^{BC} = W^{σν} f^B_σ β^C_ν on C
    (4.17; rows B index the forces, columns C the annihilators of D), its ``determinant`` on C,
    the ``singular_locus`` (factors of det M whose vanishing on C breaks 4.16), and the verdict
    ``compatible`` = (4.15) and det M ≢ 0 on C.  ``regular`` is det W ≢ 0 (L regular).

    Truthiness is the verdict ``compatible``.  When it holds the integrability algorithm stops at
    the first step and the problem has a unique second-order vector field as solution
    [Ibort et al. 1996, Theorem 2]; when not established the report says which condition failed.

    Attributes
    ----------
    compatible : bool
        (4.15) and det M ≢ 0 on C: a sufficient condition for a unique solution.
    rank_F : int
        The rank of the bundle of reaction forces F (the number of independent f^B).
    corank_D : int
        The corank of the permitted directions D (the number of annihilators β^C).
    rank_condition : bool
        rank F = corank D, condition (4.15).
    nondegenerate : bool
        det M ≢ 0 on C, the local form (4.17) of D° ∩ F^⊥ = 0, condition (4.16).
    matrix : sympy.Matrix
        M^{BC} = W^{σν} f^B_σ β^C_ν on C, W^{σν} the inverse of the Hessian
        W_{σν} = ∂²L/∂q̇^σ∂q̇^ν.
    determinant : sympy.Expr
        det M restricted to C.
    singular_locus : list
        The factors of det M whose vanishing on C breaks (4.16): the states where compatibility may fail.
    regular : bool, default True
        det W_{σν} ≢ 0: L is regular (the Hessian invertible, so M is defined).
    explanation : str, default ""
        Why compatibility was not established, in words (empty when it was).
    """

    compatible: bool
    rank_F: int
    corank_D: int
    rank_condition: bool
    nondegenerate: bool
    matrix: sp.Matrix
    determinant: sp.Expr
    singular_locus: list
    regular: bool = True
    explanation: str = ""

    def __bool__(self) -> bool:
        return self.compatible

    def __str__(self) -> str:
        return (f"Theorem 2 [Ibort et al. 1996]: {'compatible' if self.compatible else 'NOT established'}; "
                f"rank F = {self.rank_F}, corank D = {self.corank_D}, det M = {tidy(self.determinant)}"
                + (f"; singular where {[tidy(e) for e in self.singular_locus]} vanish" if self.singular_locus else "")
                + (f"\n  {self.explanation}" if self.explanation else ""))

    def _repr_latex_(self) -> str:
        verdict = r"\text{compatible}" if self.compatible else r"\text{NOT established}"
        locus = ", ".join(sp.latex(tidy(e)) for e in self.singular_locus)
        return (rf"$\text{{Theorem 2 [Ibort et al. 1996]}}: {verdict};\ \operatorname{{rank}}F = {self.rank_F},\ "
                rf"\operatorname{{corank}}D = {self.corank_D};\ M = {sp.latex(self.matrix)},\ "
                rf"\det M = {sp.latex(tidy(self.determinant))}"
                + (rf";\ \text{{singular where }} {locus} = 0" if locus else "") + "$")


@dataclass
class HamiltonianPicture:
    """The solution on C* = F_L(C) ⊂ T*Q [Ibort et al. 1996, §4.1, §6.1].

    ``momenta`` p_σ; ``legendre`` {p: ∂L/∂q̇}; ``velocities`` {q̇: q̇(t, q, p)};
    ``constraints`` the equations of C* (φ∘F_L⁻¹, numerators); ``vector_field``
    {q^σ: dq^σ/dt, p_σ: dp_σ/dt} as functions of (t, q, p), valid on C*; ``multipliers``
    λ_B as functions of (t, q, p).

    Attributes
    ----------
    momenta : tuple of Symbol
        The momenta p_σ (named ``p_<coordinate>``, :func:`~.tulczyjew.momenta_symbols`).
    legendre : dict
        F_L: {p_σ: ∂L/∂q̇^σ} as functions of (t, q, q̇).
    velocities : dict
        F_L⁻¹: {q̇^σ: q̇^σ(t, q, p)} (L regular).
    constraints : list
        The numerators of φ^a ∘ F_L⁻¹: the equations of C* ⊂ T*Q.
    vector_field : dict
        {q^σ: dq^σ/dt, p_σ: dp_σ/dt} in (t, q, p): the constrained Hamilton equations
        β⁻¹(dH + F) on C* [Ibort et al. 1996, eq. (4.12)].
    multipliers : list
        The multipliers λ_B of the reaction forces f^B, as functions of (t, q, p).
    """

    momenta: tuple
    legendre: dict
    velocities: dict
    constraints: list
    vector_field: dict
    multipliers: list

    def on(self, expr, values: dict) -> sp.Expr:
        return normalise(as_expr(expr).xreplace(values))


class NonholonomicMotion(Motion):
    """:class:`Motion` of a non-holonomic problem, with the Hamiltonian picture attached.

    Returned by :meth:`NonholonomicProblem.solve`: the accelerations solve the Lagrange–d'Alembert
    equations with the reaction forces F on C [Ibort et al. 1996, eq. (4.11)], and
    :meth:`hamiltonian` gives the same motion on C* = F_L(C) ⊂ T*Q.

    Parameters
    ----------
    method, system, Q, acc, ...
        The fields of :class:`~jetgeo.mechanics.motion.Motion`, in its order (the route name, the
        Lagrangian system, the constraint submanifold Q ⊂ J¹Y, the solved accelerations, …).
    hamiltonian_picture : HamiltonianPicture, optional
        The solution on C*, when already computed.
    _hamiltonian_factory : callable, optional
        Internal: computes the Hamiltonian picture on first use of :meth:`hamiltonian` (it costs
        a Legendre inversion).
    """

    def __init__(self, *args, hamiltonian_factory=None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.hamiltonian_picture: HamiltonianPicture | None = None
        self._hamiltonian_factory = hamiltonian_factory  # () -> HamiltonianPicture, called on first use

    def hamiltonian(self) -> HamiltonianPicture:
        """The solution on C* = F_L(C) ⊂ T*Q (computed on first use: it costs a Legendre inversion)."""
        if self.hamiltonian_picture is None and self._hamiltonian_factory is not None:
            self.hamiltonian_picture = self._hamiltonian_factory()
        if self.hamiltonian_picture is None:
            raise InputError("no Hamiltonian picture: the Lagrangian is not regular (or F_L could not be inverted)")
        return self.hamiltonian_picture


def _as_covector_rows(Y, beta, what: str) -> list:
    """[β_t, β_q..., β_q̇...] for a covector on J¹Y given as 2m or 2m+1 components or a Form."""
    m = Y.m
    if isinstance(beta, Form):
        C = beta.chart
        if beta.degree != 1:
            raise InputError(f"{what}: a 1-form is needed, got a {beta.degree}-form")
        out = []
        for s in (Y.t, *Y.q, *Y.qdot):
            out.append(beta[(C.index(s),)] if s in C.coords else sp.Integer(0))
        extra = [C.coords[i[0]] for i in beta.components if C.coords[i[0]] not in (Y.t, *Y.q, *Y.qdot)]
        if extra:
            raise ChartError(f"{what}: the form has components along {extra}, not coordinates of J¹Y")
        return out
    comps = [as_expr(c) for c in beta]
    if len(comps) == 2 * m:
        comps = [sp.Integer(0)] + comps
    if len(comps) != 2 * m + 1:
        raise InputError(f"{what}: give {2 * m} components (on dq^1..dq^m, dq̇^1..dq̇^m) or {2 * m + 1} "
                        f"(dt first), got {len(comps)}")
    return comps


class NonholonomicProblem:
    """The non-holonomic Lagrangian problem (L, C, D, F) of [Ibort et al. 1996].

    Parameters
    ----------
    sys : LagrangianSystem or QuasiVelocitySystem
        L (regular or not); a QuasiVelocitySystem alone is read in its coordinate form
        (:func:`~jetgeo.mechanics.quasi.coordinate_form`).
    Q : ConstraintSubmanifold
        The constraint submanifold C (not with a QuasiVelocitySystem, which carries it).
    permitted : sequence of covectors, optional
        Annihilators β^b of further permitted directions D (2m or 2m + 1 components, or Forms on J¹Y).
    forces : sequence of covectors, optional
        The constraint forces F, m components on dq^1..dq^m each (default: Chetaev's, S*(D°)).
    branch : int, optional
        The branch of a nonlinear constraint.

    Examples
    --------
    >>> import sympy as sp
    >>> from jetgeo import FibredManifold, LagrangianSystem, ConstraintSubmanifold
    >>> Y = FibredManifold(["x", "y", "theta"])
    >>> x, y, th = Y.q; xd, yd, thd = Y.qdot
    >>> sys = LagrangianSystem(Y, (xd**2 + yd**2 + thd**2) / 2)
    >>> P = NonholonomicProblem(sys, ConstraintSubmanifold(Y, [xd*sp.sin(th) - yd*sp.cos(th)]))
    >>> P.compatibility().compatible, P.integrability().steps
    (True, 1)
    """

    def __init__(self, sys: LagrangianSystem | QuasiVelocitySystem, Q: ConstraintSubmanifold | None = None,
                 permitted=None, forces=None, branch: int | None = None) -> None:
        sys, Q = coordinate_form(sys, Q, "NonholonomicProblem")
        if not isinstance(sys, LagrangianSystem):
            raise InputError(f"NonholonomicProblem needs a LagrangianSystem, got {type(sys).__name__}")
        if not isinstance(Q, ConstraintSubmanifold):
            raise InputError(f"NonholonomicProblem needs a ConstraintSubmanifold, got {type(Q).__name__}")
        if Q.Y.q != sys.Y.q or Q.Y.t != sys.Y.t:
            raise ChartError("the system and the constraint submanifold live on different fibred manifolds")
        self.system = sys
        self.Q = Q
        self.Y = Y = sys.Y
        self.nf = Q.normal_form(branch=branch)
        self.g = dict(self.nf.g)
        m = Y.m
        # generators of D°: dφ^a, then the permitted-direction annihilators β^b
        ann = []
        for f in Q.f:
            ann.append([sp.diff(f, Y.t)] + [sp.diff(f, s) for s in Y.q] + [sp.diff(f, v) for v in Y.qdot])
        self.permitted = [_as_covector_rows(Y, b, "permitted") for b in (permitted or [])]
        ann.extend(self.permitted)
        self.annihilators = ann
        if forces is None:
            self.forces = [row[1 + m:] for row in ann]  # Chetaev: S*(D°)
            self.chetaev = True
        else:
            self.forces = []
            for f in forces:
                f = [as_expr(c) for c in f]
                if len(f) != m:
                    raise InputError(f"forces: each covector needs {m} components on dq^1..dq^{m}, got {f}")
                if any(Y.jet_order(c) > 1 for c in f):
                    raise InputError(f"forces must depend on (t, q, q̇) only, got {f}")
                self.forces.append(f)
            self.chetaev = False
        self.multiplier_symbols = tuple(sp.Symbol(f"lambda_{i + 1}") for i in range(len(self.forces)))
        self._on_C_memo: dict = {}

    # --- restriction to C ---------------------------------------------------------------------
    def on_C(self, expr) -> sp.Expr:
        """Restriction to C: the normal form q̇^D = g substituted, normalised when small (a large
        result — a long chain of bodies — stays the exact unexpanded substitution)."""
        return trig_reduce_if_small(xreplace_dag(as_expr(expr), self.g, self._on_C_memo))

    def _on_C_matrix(self, M) -> sp.Matrix:
        return sp.Matrix(M).applyfunc(self.on_C)

    # --- Theorem 2 ---------------------------------------------------------------------------------
    @cached_property
    @staged("compatibility")
    def _compat(self) -> CompatibilityReport:
        m = self.Y.m
        Dfull = self._on_C_matrix(self.annihilators)
        corank = _rank(Dfull)
        Fm = self._on_C_matrix(self.forces) if self.forces else sp.zeros(0, m)
        rankF = _rank(Fm) if self.forces else 0
        W = self._on_C_matrix(self.system.hessian())
        regular = _rank(W) == m
        Bv = Dfull.extract(list(range(Dfull.rows)), list(range(1 + m, 1 + 2 * m)))
        if not regular:
            return CompatibilityReport(False, rankF, corank, rankF == corank, False, sp.zeros(0, 0), sp.Integer(0), [],
                                       regular=False,
                                       explanation="L is singular (det W ≡ 0 on C): Theorem 2 needs a regular "
                                                   "Lagrangian; use integrability()")
        small = True
        if Fm.rows == 0 or Bv.rows == 0:
            M = sp.zeros(Fm.rows, Bv.rows)
        else:
            X = solve_exact(W, Bv.T)  # W^{-1} β^T, solved (pivots proven non-zero), not inverted
            # in lowest terms when small; else the exact unexpanded product (a 4-trailer: converting
            # the DAG X into the fraction field runs for minutes)
            small = all(is_small(x) for x in (*Fm, *X))
            M = field_product(Fm, X) if small else Fm * X
        rank_ok = rankF == corank and Fm.rows == Dfull.rows
        if M.rows == M.cols and M.rows > 0:
            # exact evaluation at random points of C (in F_p on the DAG when M is large)
            nondeg = (generic_rank(M).rank if small else generic_rank_dag(M)) == M.rows
            if nondeg and small:
                # Schur complement: det [[W, βᵀ], [F, 0]] = det W · det(−F W⁻¹ βᵀ) = (−1)^k det W det M
                K = sp.Matrix.vstack(sp.Matrix.hstack(W, Bv.T), sp.Matrix.hstack(Fm, sp.zeros(Fm.rows, Fm.rows)))
                det = trig_reduce((-1) ** M.rows * det_exact(K) / det_exact(W))
            elif nondeg:  # the same determinant, unexpanded (the product of M's DAG pivots)
                det = (-1) ** M.rows * det_dag(M)
            else:
                det = sp.Integer(0)
        else:
            det = sp.Integer(0)
            nondeg = False
        locus = (_factors(det) if small else [det]) if nondeg else []
        why = []
        if not rank_ok:
            if rankF < Fm.rows:  # e.g. a generator listed twice: say so, not "rank F = 1 but corank D = 1"
                why.append(f"the {Fm.rows} generators of F are linearly dependent (rank F = {rankF}); give "
                           "independent generators (a basis of F)"
                           + ("" if rankF == corank else f", and (4.15) needs rank F = corank D = {corank}"))
            elif corank < Dfull.rows:
                why.append(f"the {Dfull.rows} annihilators of D are linearly dependent (corank D = {corank}); give "
                           "independent ones" + ("" if rankF == corank else f", and (4.15) needs rank F = {rankF} = "
                                                 "corank D"))
            else:
                why.append(f"(4.15) fails: rank F = {rankF} but corank D = {corank}")
        if not nondeg and M.rows == M.cols:  # (M is not square when (4.15) fails: said above)
            why.append("(4.16) fails: det M^{BC} vanishes identically on C (D° ∩ F^⊥ ≠ 0)")
        return CompatibilityReport(rank_ok and nondeg, rankF, corank, rank_ok, nondeg, M, det, locus,
                                   regular=True, explanation="; ".join(why))

    def compatibility(self) -> CompatibilityReport:
        """Theorem 2 [Ibort et al. 1996, eqs. (4.15)–(4.17)]: see :class:`CompatibilityReport`."""
        return self._compat

    # --- the implicit differential equations ------------------------------------------------------
    def ide(self) -> ImplicitDifferentialEquation:
        """The Lagrangian picture: E ⊂ T(J¹Y) on P = J¹Y, x = (q, q̇), ẋ = (q̇, q̈), unknowns λ_B:
        E_σ + λ_B f^B_σ = 0 and φ^a = 0, with D̂'s annihilators β^b permitted [Ibort et al. 1996, eqs. (4.11),
        (4.13)]."""
        Y = self.Y
        E = self.system.euler_lagrange()
        eqs = []
        for s in range(Y.m):
            eqs.append(E[s] + sp.Add(*[lam * f[s] for lam, f in zip(self.multiplier_symbols, self.forces)]))
        eqs.extend(self.Q.f)
        return ImplicitDifferentialEquation(
            x=[*Y.q, *Y.qdot], xdot=[*Y.qdot, *Y.qddot], equations=eqs, unknowns=self.multiplier_symbols,
            time=Y.t, permitted=self.permitted, solved_form=self.g, solved_condition=self.nf.condition,
        )

    def hamiltonian_ide(self) -> ImplicitDifferentialEquation:
        """The Tulczyjew picture: E = α⁻¹(dL + F) ⊂ T(T*Q), unknowns (q̇, ṗ, λ) [Ibort et al. 1996, eq. (4.11), §6.1];
        its C_0 = τ(E) is C* = F_L(C).  The forces' coefficients and the constraints are functions
        of q̇ here (v∘α = q̇); permitted directions are not translated (D̂ = TF_L(D) needs F_L⁻¹)."""
        Y = self.Y
        if self.permitted:
            raise InputError("hamiltonian_ide(): permitted directions are only supported in the Lagrangian picture")
        p = momenta_symbols(Y)
        qd = tuple(sp.Symbol(f"{s.name}_dot") for s in Y.q)
        pd = tuple(sp.Symbol(f"p_{s.name}_dot") for s in Y.q)
        at = dict(zip(Y.qdot, qd))
        forces = [[lam * c.xreplace(at) for c in f] for lam, f in zip(self.multiplier_symbols, self.forces)]
        eqs = alpha_inverse_equations(self.system, qd, pd, forces)
        eqs += [f.xreplace(at) for f in self.Q.f]
        return ImplicitDifferentialEquation(x=[*Y.q, *p], xdot=[*qd, *pd], equations=eqs,
                                            unknowns=self.multiplier_symbols, time=Y.t)

    @staged("integrability")
    def integrability(self, picture: str = "lagrangian") -> IntegrabilityReport:
        """The adapted integrability algorithm [Ibort et al. 1996, Fig. 2, eqs. (4.13)–(4.14)] on the Lagrangian
        picture (default) or on α⁻¹(dL + F) ⊂ T(T*Q) (``picture="hamiltonian"``)."""
        if picture == "lagrangian":
            return self.ide().integrability()
        if picture == "hamiltonian":
            return self.hamiltonian_ide().integrability()
        raise ValueError(f"unknown picture {picture!r}; use 'lagrangian' or 'hamiltonian'")

    # --- the solution -------------------------------------------------------------------------------
    def solve(self) -> NonholonomicMotion:
        """The unique SODE Γ and the multipliers when Theorem 2 applies (else IncompatibleError).

        W q̈ = L + Fᵀλ with Mᵀλ = −⟨β, Γ_L⟩ (solved by LU, on C).  Accelerations are in the
        coordinates (t, q, q̇^I) of C (q̇^D = g substituted), as for ``sys.constrain(Q)``.
        """
        rep = self.compatibility()
        if not rep.compatible:
            raise IncompatibleError(
                f"(L, C, D, F) does not satisfy Theorem 2 of [Ibort et al. 1996]: {rep.explanation}. "
                "NonholonomicProblem.integrability() shows what the adapted algorithm finds "
                "(secondary constraints, a family of solutions, or none)"
            )
        Y, m = self.Y, self.Y.m
        W = self._on_C_matrix(self.system.hessian())
        rhs = self._on_C_matrix(sp.Matrix(self.system.free_motion_functions()))
        Fm = self._on_C_matrix(self.forces)
        D = self._on_C_matrix(self.annihilators)
        qd_on_C = [self.g.get(v, v) for v in Y.qdot]
        c = []
        for row in D.tolist():
            c.append(row[0] + sp.Add(*[row[1 + i] * qd_on_C[i] for i in range(m)]))
        Bv = D.extract(list(range(D.rows)), list(range(1 + m, 1 + 2 * m)))
        k = Fm.rows
        # the saddle-point system  W q̈ − Fᵀλ = L,  ⟨β, Γ⟩ = β_t + γ·q̇ + β_v·q̈ = 0  [Ibort et al. 1996, eqs. (2.6),
        # (4.17)]
        K = sp.Matrix.vstack(sp.Matrix.hstack(W, -Fm.T), sp.Matrix.hstack(Bv, sp.zeros(k, k)))
        sol = solve_exact(K, sp.Matrix.vstack(rhs, -sp.Matrix(c)))
        acc = sp.Matrix(sol[:m])
        lam = sp.Matrix(sol[m:])
        accd = {a: acc[i] for i, a in enumerate(Y.qddot)}
        # in lowest terms when λ is small; else the exact unexpanded product (the heavy disc in Ghori's
        # non-linear form: λ of ~8000 nodes, whose field product costs minutes and shrinks nothing)
        small = all(is_small(x, NORMALISE_MAX_NODES) for x in lam)
        reactions = list(field_product(Fm.T, lam) if small else matmul_dag(Fm.T, lam))
        coords = (Y.t, *Y.q, *self.nf.independent)
        gamma = VectorField(Y.J1, [1, *qd_on_C, *acc])
        conds = [e for e in (rep.determinant, self.system.regularity_condition(), self.nf.condition)
                 if not as_expr(e).is_number]
        lam_l = list(lam)
        ham = (lambda: self._hamiltonian_picture(lam_l, accd)) if self.system.is_regular() else None
        return NonholonomicMotion(
            recipe="ibort_sode", system=self.system, Q=self.Q, accelerations=accd, coordinates=coords,
            substitution=dict(self.g), multipliers=list(lam), reactions=reactions, conditions=conds,
            extras={"vector_field": gamma, "compatibility": rep}, hamiltonian_factory=ham,
        )

    def _hamiltonian_picture(self, lam: list, acc: dict) -> HamiltonianPicture | None:
        Y = self.Y
        try:
            inv = inverse_legendre(self.system)
        except (NotRegularError, UndecidedError):  # no global inverse Legendre map: no Hamiltonian picture
            return None
        p = momenta_symbols(Y)
        leg = legendre_map(self.system)
        # on C the state is (t, q, q̇^I); replace q̇^I by q̇^I(t, q, p)
        indep = {v: inv[v] for v in self.nf.independent}

        def to_p(e):
            return trig_reduce(as_expr(e).xreplace(self.g).xreplace(indep))

        field_ = {}
        for q, v in zip(Y.q, Y.qdot):
            field_[q] = to_p(self.g.get(v, v))
        for s, (q, pi) in enumerate(zip(Y.q, p)):
            rhs = sp.diff(self.system.L, q) + self.system.forces[s]
            rhs += sp.Add(*[lam[B] * self.forces[B][s] for B in range(len(self.forces))])
            field_[pi] = to_p(rhs)
        cstar = []
        for f in self.Q.f:
            num = sp.fraction(sp.together(trig_reduce(f.xreplace(inv))))[0]
            cstar.append(sp.expand(num))
        return HamiltonianPicture(momenta=p, legendre=leg, velocities=inv, constraints=cstar,
                                  vector_field=field_, multipliers=[to_p(x) for x in lam])

    def __repr__(self) -> str:
        kind = "Chetaev" if self.chetaev else "given"
        return (f"NonholonomicProblem(L={self.system.L}, C={list(self.Q.f)}, "
                f"{len(self.permitted)} extra annihilator(s) of D, {kind} forces)")


def _rank(M: sp.Matrix) -> int:
    """Generic rank: exact values at random points of C for small entries, F_p shadows on the DAG
    for large ones (the restrictions to C of a long chain of bodies)."""
    return generic_rank(M).rank if all(is_small(e) for e in M) else generic_rank_dag(M)


def _factors(det) -> list:
    """Non-constant factors of the numerator of det (its zero set on C is the singular locus)."""
    num = sp.fraction(sp.together(det))[0]
    try:
        _c, facs = sp.factor_list(num)
        out = [f for f, _k in facs if not f.is_number]
    except (sp.PolynomialError, NotImplementedError):  # pragma: no cover - defensive
        out = [num]
    return out
