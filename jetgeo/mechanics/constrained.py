r"""Krupková's constrained system on a constraint submanifold Q [Stolařová 2009, eq. (6)–(12)].

Let Q be given in normal form q̇^{D_i} = g^i(t, q, q̇^I) [Stolařová 2009, eq. (4)], with
coordinates (t, q^σ, q̇^l), l ∈ I, on Q and embedding ι.

* Canonical constraint 1-forms [Stolařová 2009, eq. (6)]:
  :math:`\iota^*\varphi^i = -\frac{\partial g^i}{\partial\dot q^l}\omega^l + dq^{D_i} - g^i dt`.
  They annihilate the canonical distribution 𝒞, spanned by ∂/∂q̇^l,
  ∂/∂q^l + ∂g^i/∂q̇^l ∂/∂q^{D_i} and ∂/∂t + (g^i − q̇^l ∂g^i/∂q̇^l) ∂/∂q^{D_i}.
* The constrained system [α_Q] is represented by α_Q = ι*α (α = dθ_λ + A_σ ω^σ∧dt);
  its reduced equations are J¹γ* i_ξ α_Q = 0 for ξ ∈ 𝒞 [Stolařová 2009, eq. (7)].  In
  coordinates [Stolařová 2009, eq. (8)–(11)] they read, for l ∈ I,

  .. math:: \Big(E_l + E_{D_i}\,\frac{\partial g^i}{\partial\dot q^l}\Big)\circ\iota_2 = 0
            \quad\Longleftrightarrow\quad A'_l + B'_{ls}\,\ddot q^s = 0,

  where E_σ are the Euler–Lagrange expressions with forces and ι₂ puts
  q̇^D = g, q̈^D = dg/dt.  [Stolařová 2009] (9)–(10) give A′ and B′ through L̄ = L∘ι;
  :meth:`ConstrainedSystem.krupkova_coefficients` evaluates those printed formulas
  independently, and the tests compare.
* Regularity [Stolařová 2009, eq. (12)]: det(∂²L̄/∂q̇^l∂q̇^s − (∂L/∂q̇^{D_i}∘ι) ∂²g^i/∂q̇^l∂q̇^s) = det(−B′) ≠ 0.
* Chetaev multipliers: with reaction forces R_σ = λ_i ∂f^i/∂q̇^σ the full
  equations are E_σ + λ_i ∂f^i/∂q̇^σ = 0 (i.e. d/dt ∂L/∂q̇ − ∂L/∂q = A + R with
  R = −… see :meth:`ConstrainedSystem.multipliers`), solved on the dependent rows.
"""

from __future__ import annotations

import warnings
from functools import cached_property
from typing import TYPE_CHECKING

import sympy as sp

from ..errors import ChartError, InputError, NotRegularError
from ..geometry import Chart, Codistribution, Distribution, Form, VectorField, generic_rank_dag, normalise
from ..geometry import singular_locus as _singular_locus
from ..geometry.coerce import as_expr, as_symbol
from ..geometry.exact import (
    AFFINE_CANONICAL_MAX_NODES,
    CANONICAL_MAX_NODES,
    TIDY_MAX_NODES,
    det_sized,
    diff_dag,
    lu_solve_dag,
    solve_cramer,
    solve_exact,
    solve_rational,
    substitute_affine,
    tree_size,
    xreplace_dag,
)
from ..geometry.readable import ReadableForm, readable
from ..geometry.zero import canonical_forms, normalise_if_small
from ..limits import staged
from .constraints import ConstraintSubmanifold, NormalForm
from .tq import LazyEntries, ReducedParts, assemble_accelerations, reduced_parts_on_TQ

if TYPE_CHECKING:  # annotations only: lagrangian.py builds ConstrainedSystem (LagrangianSystem.constrain)
    from .lagrangian import LagrangianSystem

__all__ = ["ConstrainedSystem"]



def _canonical(expr) -> sp.Expr:
    """The canonical (cancelled) form of a small result (:func:`~jetgeo.geometry.normalise`); a
    large one unchanged — exact, an expression DAG as solved.  The tree size is counted only up to
    the bound, so the test costs nothing on a large DAG."""
    expr = as_expr(expr)
    if expr.is_Atom:
        return expr
    cap = TIDY_MAX_NODES if expr.has(sp.sin, sp.cos, sp.tan) else CANONICAL_MAX_NODES
    return normalise_if_small(expr, cap)


def _sizes(expr) -> tuple:
    """(distinct subexpressions, tree nodes) of an expression, by the core's size measure."""
    memo: dict = {}
    total = tree_size(as_expr(expr), memo)
    return len(memo), total


class ConstrainedSystem:
    """The constrained system [α_Q] of a Lagrangian system on Q [Stolařová 2009, §2].

    Everything is expressed in the coordinates (t, q^σ, q̇^l, q̈^l) of Q and its
    prolongation; ``on_Q(expr)`` restricts any function on J¹Y or J²Y to them.

    Parameters
    ----------
    system : LagrangianSystem
        L and the forces A_σ.
    Q : ConstraintSubmanifold
        The constraints.
    branch : int, optional
        The branch of a nonlinear constraint (default: Q's).
    dependent : sequence of Symbols, optional
        The dependent velocities of the normal form (default: Q's choice).
    """

    def __init__(self, system: LagrangianSystem, Q: ConstraintSubmanifold, branch: int | None = None,
                 dependent=None) -> None:
        if Q.Y is not system.Y and Q.Y.q != system.Y.q:
            raise ChartError("the system and the constraint submanifold live on different fibred manifolds")
        self.system = system
        self.Q = Q
        self.Y = system.Y
        self.nf: NormalForm = Q.normal_form(dependent=dependent, branch=branch)

    def with_dependent(self, dependent, branch: int | None = None) -> ConstrainedSystem:
        """The same constrained system in another chart of Q: the normal form solved for the
        velocities ``dependent`` (on ``branch`` of that solution, for a nonlinear constraint).
        The charts of one system share a cache, so each is derived once (accelerations included).
        """
        dep = tuple(as_symbol(d, self.Y.qdot, "with_dependent") for d in dependent)
        charts = self.__dict__.setdefault("_charts", {(self.dependent, self.nf.branch.index): self})
        key = (dep, branch if branch is not None else 0)
        if key not in charts:
            other = ConstrainedSystem(self.system, self.Q.with_dependent(dep, branch=branch))
            other._charts = charts
            charts[(other.dependent, other.nf.branch.index)] = other
            charts[key] = other
        return charts[key]

    # --- coordinates on Q ------------------------------------------------------------------
    @property
    def dependent(self) -> tuple:
        return self.nf.dependent

    @property
    def independent(self) -> tuple:
        return self.nf.independent

    @cached_property
    def _idx_dep(self) -> list:
        return [self.Y.qdot.index(d) for d in self.dependent]

    @cached_property
    def independent_indices(self) -> list:
        return [self.Y.qdot.index(d) for d in self.independent]

    @cached_property
    def chart(self) -> Chart:
        """Coordinates (t, q^σ, q̇^l) on Q."""
        Y = self.Y
        return Chart([Y.t, *Y.q, *self.independent], name="Q")

    @cached_property
    def g(self) -> dict:
        return dict(self.nf.g)

    @cached_property
    def gdot(self) -> dict:
        """q̈^{D_i} = d g^i/dt on the prolongation of Q (in q̈^l, l ∈ I):
        d̄g^i/dt + (∂g^i/∂q̇^l) q̈^l, both parts by implicit differentiation of f (see
        :attr:`_implicit_derivatives`)."""
        Y = self.Y
        Psi_D, gbar_D = self._implicit_derivatives
        qdd_I = [Y.qddot[i] for i in self.independent_indices]
        out = {}
        for i, d in enumerate(self.g):
            dd = Y.qddot[Y.qdot.index(d)]
            out[dd] = gbar_D[i] + sp.Add(*[Psi_D[i, c] * a for c, a in enumerate(qdd_I)])
        return out

    def on_Q(self, expr) -> sp.Expr:
        """Restriction to Q (and its prolongation): q̇^D → g, q̈^D → dg/dt."""
        expr = as_expr(expr)  # on the DAG: each shared subexpression substituted once
        return self.on_Q_velocities(xreplace_dag(expr, self.gdot, self._substitution_memos[1]))

    def on_Q_velocities(self, expr) -> sp.Expr:
        """q̇^D → g only (accelerations left as they are): the restriction of a function on J¹Y to
        Q, on the DAG, with one memo per constrained system — the large coefficients that
        several expressions share (the Euler–Lagrange expressions' c_α(q)) are visited once."""
        return xreplace_dag(as_expr(expr), self.g, self._substitution_memos[0])

    @cached_property
    def _substitution_memos(self) -> tuple:
        """({node: node with q̇^D → g}, {node: node with q̈^D → dg/dt}) for :func:`xreplace_dag`."""
        return {}, {}

    # --- canonical forms and distribution ----------------------------------------------------
    @cached_property
    def constraint_forms(self) -> list:
        """ι*φ^i = −∂g^i/∂q̇^l ω^l + dq^{D_i} − g^i dt [Stolařová 2009, eq. (6)] on Q."""
        Y, C = self.Y, self.chart
        dt = C.dx(Y.t)
        out = []
        for d, g in self.g.items():
            qd = Y.q[Y.qdot.index(d)]
            # collect the dt coefficient −g + (∂g/∂q̇^l) q̇^l before building the form
            c_dt = -g
            w = C.dx(qd)
            for li in self.independent_indices:
                c = sp.diff(g, Y.qdot[li])
                if c != 0:
                    w = w - c * C.dx(Y.q[li])
                    c_dt = c_dt + c * Y.qdot[li]
            c_dt = normalise(c_dt)
            if c_dt != 0:
                w = w + c_dt * dt
            out.append(w)
        return out

    @cached_property
    def constraint_ideal(self) -> Codistribution:
        """The codistribution spanned by the canonical constraint forms (generators of I(𝒞°))."""
        return Codistribution(self.chart, self.constraint_forms)

    @cached_property
    def canonical_distribution(self) -> Distribution:
        """𝒞: the annihilator of the canonical constraint forms, with explicit generators."""
        Y, C = self.Y, self.chart
        n = C.dim
        fields = []

        def field_with(base_idx, extra):
            comps = [sp.Integer(0)] * n
            comps[base_idx] = sp.Integer(1)
            for j, v in extra.items():
                comps[j] = comps[j] + v
            return VectorField(C, comps)

        dep_pos = {d: C.index(Y.q[Y.qdot.index(d)]) for d in self.dependent}
        # time direction
        fields.append(field_with(0, {
            dep_pos[d]: normalise(g - sp.Add(*[v * sp.diff(g, v) for v in self.independent]))
            for d, g in self.g.items()
        }))
        for li in self.independent_indices:
            v = Y.qdot[li]
            fields.append(field_with(C.index(Y.q[li]), {dep_pos[d]: sp.diff(g, v) for d, g in self.g.items()}))
        for v in self.independent:
            fields.append(field_with(C.index(v), {}))
        return Distribution(C, fields, conditions=[self.nf.condition])

    def chetaev_forms(self) -> list:
        """ι*(∂f^i/∂q̇^σ ω^σ) on Q, from the user's implicit representation f.

        On Q, ∂f/∂q̇^σ ω^σ = (∂f/∂q̇^D)(ω^D − ∂g/∂q̇^l ω^l) and ι*ω^D = dq^D − g dt, so
        these forms are an invertible combination (matrix ∂f/∂q̇^D, the normal form's
        condition) of the canonical constraint forms (6): a second, representation-
        dependent set of generators of the same constraint ideal.
        """
        Y, C = self.Y, self.chart
        dt = C.dx(Y.t)
        out = []
        for f in self.Q.f:
            w = Form.zero(C, 1)
            for s, v in zip(Y.q, Y.qdot):
                c = self.on_Q(sp.diff(f, v))
                if c != 0:
                    w = w + c * (C.dx(s) - self.g.get(v, v) * dt)
            out.append(w)
        return out

    def canonical_distribution_in_J1(self) -> Distribution:
        """ι_*𝒞: the generators of the canonical distribution pushed forward to J¹Y.

        A vector ξ on Q (coordinates t, q, q̇^I) is ι_*ξ on J¹Y with the extra
        components ξ(g^i) along ∂/∂q̇^{D_i}.  The components are functions on Q; two
        descriptions of the same Q (other dependent velocities, f ↦ A·f) give the same
        span at every point of Q — the representation independence of 𝒞 [Stolařová 2009, §2].
        """
        Y = self.Y
        C1 = Y.J1
        fields = []
        for X in self.canonical_distribution.generators:
            comps = [sp.Integer(0)] * C1.dim
            for c, coord in zip(X.components, self.chart.coords):
                comps[C1.index(coord)] = c
            for d, g in self.g.items():
                comps[C1.index(d)] = normalise(X(g))
            fields.append(VectorField(C1, comps))
        return Distribution(C1, fields, conditions=[self.nf.condition])

    # --- the constrained system ---------------------------------------------------------------------
    def lepage_form(self) -> Form:
        """α_Q = ι*α, α = dθ_λ + A_σ ω^σ ∧ dt: a representative of [α_Q]."""
        alpha = self.system.lepage_form()
        return alpha.pullback(self.g, self.chart)

    @cached_property
    def _reduced(self) -> list:
        """(E_l + E_{D_i} ∂g^i/∂q̇^l)∘ι₂ for l ∈ I, as A′_l + B′_ls q̈^s."""
        A, B = self._reduced_AB
        qdd = [self.Y.qddot[i] for i in self.independent_indices]
        return [A[r] + sp.Add(*[B[r][c] * qdd[c] for c in range(len(qdd))]) for r in range(len(qdd))]

    def reduced_equations(self, route: str = "coordinates", *, method: str | None = None) -> list:
        """Reduced equations [Stolařová 2009, eq. (8)]; each expression = 0, one per independent velocity.

        ``route="coordinates"`` uses the projection of the Euler–Lagrange
        expressions; ``route="forms"`` evaluates the definition (7)
        J¹γ* i_ξ α_Q for the generators ξ_l = ∂_{q^l} + ∂g^i/∂q̇^l ∂_{q^{D_i}} of 𝒞
        directly with the exterior calculus (an independent computation).  ``method=`` is the old,
        deprecated keyword for ``route=``.
        """
        if method is not None:
            warnings.warn("reduced_equations(method=...) is deprecated: use route=", DeprecationWarning, stacklevel=2)
            route = method
        if route == "coordinates":
            return list(self._reduced)
        if route == "forms":
            return self._reduced_from_forms()
        raise InputError(f"reduced_equations: unknown route {route!r}; use 'coordinates' or 'forms'")

    def _reduced_from_forms(self) -> list:
        Y, C = self.Y, self.chart
        alpha_Q = self.lepage_form()
        gens = self.canonical_distribution.generators[1 : 1 + len(self.independent)]
        # horizontalisation on Q: dt → dt, dq^σ → q̇^σ dt (q̇^D = g), dq̇^l → q̈^l dt
        hcoef = {Y.t: sp.Integer(1)}
        for s, v in zip(Y.q, Y.qdot):
            hcoef[s] = self.g.get(v, v)
        for li in self.independent_indices:
            hcoef[Y.qdot[li]] = Y.qddot[li]
        out = []
        for xi in gens:
            one = alpha_Q.interior(xi)
            expr = sp.Add(*[c * hcoef[C.coords[idx[0]]] for idx, c in one.components.items()])
            out.append(expr)
        return out

    def reduced_coefficients(self) -> tuple:
        """(A′, B′) with reduced equations A′_l + B′_ls q̈^s = 0 [Stolařová 2009, eq. (8)].

        Computed without differentiating the (large) restricted equations: E_σ is affine
        in the accelerations, E_σ = e_σ − W_σρ q̈^ρ with W = ∂²L/∂q̇∂q̇ and e_σ = E_σ|_{q̈=0};
        on the prolongation of Q, q̈^D = d̄g/dt + Ψ^D_s q̈^s with Ψ^D_s = ∂g^D/∂q̇^s and
        d̄/dt the total derivative without q̈ terms.  With Ψ^σ_l = δ^σ_l on the independent
        rows, the reduced equations Ψ^σ_l E_σ∘ι = 0 [Stolařová 2009, eq. (8)] read

            A′_l = Ψ^σ_l (e_σ − W_σD d̄g^D/dt)∘ι,      B′_ls = −(Ψᵀ W Ψ)_ls∘ι.

        (``reduced_equations()`` is the same expression A′ + B′ q̈; ``krupkova_coefficients``
        evaluates the printed formulas (9)–(11) as an independent check.)
        """
        A, B = self._reduced_AB
        return sp.Matrix(A), sp.Matrix(B)

    @cached_property
    @staged("reduced equations")
    def _parts(self) -> ReducedParts:
        """The reduced equations' pieces on TQ (:func:`~jetgeo.mechanics.tq.reduced_parts_on_TQ`:
        implicit derivatives of f by an LU on expression DAGs, the Euler–Lagrange projection in
        the polynomial ring) with q̇^D = g substituted, each shared subexpression once
        (:func:`~jetgeo.geometry.exact.xreplace_dag`).  Exact and unsimplified: along a chain of
        bodies the normal form nests, and cancelling these DAGs is what stalled (module
        ``_canonical``)."""
        parts = reduced_parts_on_TQ(self.system, self.Q, dependent=list(self.dependent), project_residuals=True)
        sub = self.on_Q_velocities

        return ReducedParts(parts.A.applyfunc(sub), parts.B.applyfunc(sub), parts.Psi_D.applyfunc(sub),
                            [sub(x) for x in parts.gbar], parts.dependent, parts.independent,
                            LazyEntries(len(parts.r), lambda s: sub(parts.r[s])),
                            [[sub(x) for x in col] for col in parts.WPsi])

    @cached_property
    @staged("implicit derivatives of the constraints")
    def _implicit_derivatives(self) -> tuple:
        """(∂g^D/∂q̇^I, d̄g^D/dt) on Q by implicit differentiation of f(t, q, q̇^I, g) = 0:

            (∂f/∂q̇^D) ∂g/∂q̇^I = −∂f/∂q̇^I,     (∂f/∂q̇^D) d̄g/dt = −d̄f,

        solved on TQ and restricted to Q (:attr:`_parts`).  The constraints f are small where the
        solved g can be large (a chain of bodies: each g nests the previous ones), so this replaces
        differentiating g by one k × k solve with the normal form's own matrix (its determinant is
        the normal form's condition).  Small entries in canonical form (:func:`_canonical`).
        """
        if self._small:
            return self._implicit_derivatives_canonical
        P = self._parts
        return P.Psi_D.applyfunc(_canonical), [_canonical(x) for x in P.gbar]

    @property
    def is_large(self) -> bool:
        """Whether the reduced equations on Q exceed
        :data:`~jetgeo.geometry.exact.AFFINE_CANONICAL_MAX_NODES` tree nodes: then the results
        (accelerations, multipliers, the regularity determinant) are exact DAGs, never
        cancelled — at special states (a bicycle upright: every sine zero) their unsimplified
        quotients may meet a removable 0/0, so numerics solve the bordered system instead
        (``simulate`` integrates such a system in the multipliers formulation)."""
        return not self._small

    @cached_property
    def _small(self) -> bool:
        """Whether the reduced equations on Q are small (at most
        :data:`~jetgeo.geometry.exact.AFFINE_CANONICAL_MAX_NODES` tree nodes in A and B): then
        everything is computed in canonical (cancelled) form on Q — cheap at that size, and the
        readable form; else the exact DAGs of :attr:`_parts` are kept."""
        P = self._parts
        return sum(_sizes(x)[1] for x in (*P.A, *P.B)) <= AFFINE_CANONICAL_MAX_NODES

    @cached_property
    def _implicit_derivatives_canonical(self) -> tuple:
        """(∂g^D/∂q̇^I, d̄g^D/dt) on Q by implicit differentiation of f(t, q, q̇^I, g) = 0:

            (∂f/∂q̇^D) ∂g/∂q̇^I = −∂f/∂q̇^I,     (∂f/∂q̇^D) d̄g/dt = −d̄f,

        all evaluated on Q.  The constraints f are small where the solved g can be large (a chain
        of bodies: each g nests the previous ones), so this replaces differentiating g by one k × k
        solve with the normal form's own matrix (its determinant is the normal form's condition).
        """
        Y = self.Y
        on = self.g
        deps = list(on)
        ind = [Y.qdot[i] for i in self.independent_indices]
        fs = self.Q.f
        k = len(fs)
        J = self.Q._jacobian  # ∂f/∂q̇, computed once (in the polynomial ring where possible)
        col = {v: j for j, v in enumerate(Y.qdot)}
        Jd = sp.Matrix(k, k, lambda i, j: J[i, col[deps[j]]]).xreplace(on)
        rhs = sp.Matrix(k, len(ind) + 1, lambda i, c: -(J[i, col[ind[c]]] if c < len(ind)
                                                        else Y.cut_total_derivative(fs[i])))
        rhs = rhs.xreplace(on)
        sol = solve_rational(Jd, rhs)  # small, canonical path (see _multipliers_canonical)
        if sol is None:
            sol = solve_exact(Jd, rhs).applyfunc(_canonical)
        return sol[:, : len(ind)], [sol[i, len(ind)] for i in range(k)]

    @cached_property
    def _reduced_AB_canonical(self) -> tuple:
        Y = self.Y
        m = Y.m
        ind = self.independent_indices
        W = self.system._hessian
        on = self.g
        Psi_D, gbar_D = self._implicit_derivatives_canonical
        # Ψ (m × |I|) on Q
        Psi = sp.zeros(m, len(ind))
        for c, li in enumerate(ind):
            Psi[li, c] = sp.Integer(1)
            for i, d in enumerate(on):
                Psi[Y.qdot.index(d), c] = Psi_D[i, c]
        # e_σ = ∂L/∂q^σ − d̄/dt ∂L/∂q̇^σ + A_σ, restricted to Q
        e = self.system.euler_lagrange_without_accelerations()
        # d̄g^D/dt on Q (the q̈-free part of ġ)
        gbar = {d: gbar_D[i] for i, d in enumerate(on)}
        r = []
        for s in range(m):
            val = e[s]
            for d, gb in gbar.items():
                wsd = W[s, Y.qdot.index(d)]
                if wsd != 0:
                    val = val - wsd * gb
            r.append(val.xreplace(on))
        WQ = W.xreplace(on)
        WPsi = WQ * Psi
        self._el_on_Q_parts = (r, WPsi)  # E_σ∘ι = r_σ − (WΨ)_σs q̈^s, reused by the multipliers
        A = [sp.Add(*[Psi[s, c] * r[s] for s in range(m) if Psi[s, c] != 0]) for c in range(len(ind))]
        B = -(Psi.T * WPsi)
        return tuple(A), tuple(tuple(B.row(i)) for i in range(B.rows))

    @cached_property
    def _reduced_AB(self) -> tuple:
        if self._small:
            return self._reduced_AB_canonical
        P = self._parts
        m = len(P.independent)
        A = [_canonical(P.A[c]) for c in range(m)]
        B = [[_canonical(-P.B[a, b]) for b in range(m)] for a in range(m)]
        return tuple(A), tuple(tuple(row) for row in B)

    def krupkova_coefficients(self) -> tuple:
        """A′ and B′ evaluated by the printed formulas (9)–(11) of [Stolařová 2009] via L̄ = L∘ι.

        An independent route to the reduced equations used to cross-check
        :meth:`reduced_coefficients` (includes the forces: A_l + A_{D_i} ∂g^i/∂q̇^l).
        Note: (9) as printed has q^i and q^{m−k+i} where l and the sum index j are
        meant; this implements the corrected formula
        A′_l = ∂L̄/∂q^l + ∂L̄/∂q^{D_i} ∂g^i/∂q̇^l − d̄/dt(∂L̄/∂q̇^l)
               + (∂L/∂q̇^{D_j}∘ι)[d̄/dt(∂g^j/∂q̇^l) − ∂g^j/∂q^l − ∂g^j/∂q^{D_i} ∂g^i/∂q̇^l],
        with d̄/dt the total derivative on Q without the q̈ terms.
        """
        Y = self.Y
        L = self.system.L
        # derivatives and substitutions on the DAG (each distinct subexpression once per variable:
        # g of a long chain of bodies nests the previous ones)
        memos: dict = {}
        sub: dict = {}

        def D(f, x):
            return diff_dag(f, x, memos.setdefault(x, {}))

        def on_Q(f):
            return xreplace_dag(f, self.g, sub)

        Lbar = on_Q(L)
        ind = list(self.independent)
        qI = [Y.q[i] for i in self.independent_indices]
        dep_q = {d: Y.q[Y.qdot.index(d)] for d in self.dependent}
        pD = {d: on_Q(D(L, d)) for d in self.dependent}
        A = self.system.forces

        def dbar(f):  # total derivative on Q without accelerations
            return sp.Add(D(f, Y.t), *[self.g.get(v, v) * D(f, s) for s, v in zip(Y.q, Y.qdot)])

        Ap, Bp = [], []
        for l_, v, ql in zip(self.independent_indices, ind, qI):
            a = [D(Lbar, ql), -dbar(D(Lbar, v))]
            force = [A[l_]]
            for d, g in self.g.items():
                a.append(D(Lbar, dep_q[d]) * D(g, v))
                force.append(on_Q(A[Y.qdot.index(d)]) * D(g, v))
            for dj, gj in self.g.items():
                bracket = [dbar(D(gj, v)), -D(gj, ql)]
                for di, gi in self.g.items():
                    bracket.append(-D(gj, dep_q[di]) * D(gi, v))
                a.append(pD[dj] * sp.Add(*bracket))
            Ap.append(sp.Add(*a) + on_Q(sp.Add(*force)))
            row = []
            for s_ in ind:
                b = [-D(D(Lbar, v), s_)]
                for d, g in self.g.items():
                    b.append(pD[d] * D(D(g, v), s_))
                row.append(sp.Add(*b))
            Bp.append(row)
        return sp.Matrix(Ap), sp.Matrix(Bp)

    # --- regularity ------------------------------------------------------------------------------------
    def regularity_matrix(self) -> sp.Matrix:
        """∂²L̄/∂q̇^l∂q̇^s − (∂L/∂q̇^{D_i}∘ι) ∂²g^i/∂q̇^l∂q̇^s = −B′ [Stolařová 2009, eq. (12)]."""
        return -self.reduced_coefficients()[1]

    @staged("regularity")
    def is_regular(self) -> bool:
        return generic_rank_dag(self._parts.B) == len(self.independent)

    @staged("regularity")
    def regularity_condition(self) -> sp.Expr:
        """The determinant (12); the reduced equations are regular where it is non-zero.

        Exact; in canonical (cancelled) form when it is small — for long chains of bodies its
        canonical form costs more than everything else (30 s for the 3-trailer), and the
        uncancelled determinant has the same zeros where the reduced coefficients are defined."""
        return _canonical(det_sized(self._parts.B))

    def singular_locus(self) -> list:
        """Expressions whose common zeros on Q make the reduced equations non-regular
        (together with the normal form's own condition and the constraint singular states)."""
        return _singular_locus(self.regularity_matrix())

    # --- accelerations and multipliers ------------------------------------------------------------------------
    @cached_property
    @staged("accelerations")
    def _acc_dag(self) -> dict:
        """{q̈^σ} on Q, exact and unsimplified: B q̈^I = A (:attr:`_parts`, B = ΨᵀWΨ) solved by LU on
        the expression DAGs with pivots proven non-zero by exact values in F_p, then
        q̈^D = d̄g/dt + Ψ^D q̈^I.  Raises NotRegularError where B is generically singular on Q."""
        P = self._parts
        self._require_regular()
        return assemble_accelerations(self.Y, P, lu_solve_dag(P.B, P.A))

    def _require_regular(self) -> None:
        B = self._parts.B
        rank = generic_rank_dag(B)
        if rank < B.rows:
            raise NotRegularError(
                "the constrained system is not regular: the matrix of (12) in [Stolařová 2009] is generically "
                f"singular (rank {rank} < {B.rows}); the reduced equations do not "
                "determine the accelerations"
            )

    @cached_property
    def _acc_independent(self) -> dict:
        """The independent accelerations (entries of :meth:`accelerations`)."""
        acc = self._acc_all
        return {self.Y.qddot[i]: acc[self.Y.qddot[i]] for i in self.independent_indices}

    def accelerations(self, canonical: bool = False, progress: bool | None = None) -> dict:
        """{q̈^σ: expression in (t, q, q̇^I)} for every coordinate, valid on Q.

        Small results are in canonical (cancelled) form; large ones are returned as solved —
        exact expression DAGs sharing subexpressions (see :attr:`_acc_dag`), never cancelled,
        so that long chains of bodies do not stall; :meth:`result_sizes` reports their sizes.
        ``canonical=True`` cancels every entry (:func:`~jetgeo.geometry.canonical_forms`: for
        large ones a :class:`~jetgeo.progress.LargeComputationWarning` with the size estimate
        first, then a progress bar — ``progress`` as in :mod:`jetgeo.progress`); small systems'
        entries are mostly canonical already, but large trigonometric ones are kept as solved."""
        if canonical:
            return canonical_forms(self._acc_all, progress, what="canonical form of the accelerations")
        return dict(self._acc_all)

    @cached_property
    @staged("accelerations")
    def _acc_all(self) -> dict:
        Y = self.Y
        if self._small:
            self._require_regular()
            # small reduced equations: solved in the field of rational functions, already cancelled
            A, B = self.reduced_coefficients()
            sol = solve_cramer(B, -A)
            fractions = sol is not None  # entries are quotients of polynomials in the frozen atoms
            if sol is None:
                sol = lu_solve_dag(B, -A).applyfunc(_canonical)
            acc = {Y.qddot[i]: sol[c] for c, i in enumerate(self.independent_indices)}
            for dd, expr in self.gdot.items():
                # the field substitution only when the solution is one: with functions in the
                # denominators (the articulated vehicle) building the field expands for minutes
                # only the accelerations ġ^D depends on: the field of every value in acc (the chain's
                # earlier dependent ones too) was built for each entry, quadratic along a chain (chain26: 4.4 s)
                used = {a: v for a, v in acc.items() if expr.has(a)}
                val = substitute_affine(expr, used) if fractions else None
                acc[dd] = _canonical(expr.xreplace(acc)) if val is None else val
            return {a: acc[a] for a in Y.qddot}
        return {a: _canonical(e) for a, e in self._acc_dag.items()}

    def result_sizes(self) -> dict:
        """{q̈^σ: (distinct subexpressions, tree nodes)} of :meth:`accelerations`: the size of the
        DAG (what the derivation and ``lambdify(..., cse=True)`` handle) and of the tree (what
        printing, ``count_ops`` and ``xreplace`` walk)."""
        acc = self._acc_all
        return {a: _sizes(e) for a, e in acc.items()}

    def vector_field(self) -> VectorField:
        """The dynamics as a vector field on Q: ∂_t + q̇^σ∂_{q^σ} + q̈^l ∂_{q̇^l} (q̇^D = g)."""
        Y = self.Y
        acc = self.accelerations()
        comps = [sp.Integer(1), *[self.g.get(v, v) for v in Y.qdot]]
        comps += [acc[Y.qddot[i]] for i in self.independent_indices]
        return VectorField(self.chart, comps)

    @cached_property
    def _multipliers_canonical(self) -> list:
        acc_I = self._acc_independent
        _ = self._reduced_AB_canonical
        r, WPsi = self._el_on_Q_parts
        qdd = [self.Y.qddot[i] for i in self.independent_indices]
        J = self.Q.jacobian().applyfunc(self.on_Q)
        # E_σ + λ_i ∂f^i/∂q̇^σ = 0 on the dependent rows, E_σ∘ι = r_σ − (WΨ)_σs q̈^s
        rows = self._idx_dep
        E = {}
        for row in rows:
            e = r[row] - sp.Add(*[WPsi[row, c] * qdd[c] for c in range(len(qdd))])
            val = substitute_affine(e, acc_I)
            E[row] = e.xreplace(acc_I) if val is None else val
        Jd = J.extract(list(range(self.Q.k)), rows).T
        rhs = -sp.Matrix([E[row] for row in rows])
        # small k × k on the canonical path: the fraction field's Gauss–Jordan (gcd per step) is the
        # fast canonical solve here (Cramer's one gcd per entry: 7 s on the rolling ball, this 0.3 s)
        lam = solve_rational(Jd, rhs)
        if lam is None:
            lam = solve_exact(Jd, rhs)
        return [_canonical(x) for x in lam]

    @cached_property
    def _multipliers(self) -> list:
        if self._small:
            return self._multipliers_canonical
        P = self._parts
        acc = self._acc_dag
        qdd = [acc[self.Y.qddot[i]] for i in self.independent_indices]
        J = self.Q.jacobian().applyfunc(self.on_Q)
        # E_σ + λ_i ∂f^i/∂q̇^σ = 0 on the dependent rows, E_σ∘ι = r_σ − (WΨ)_σc q̈^c
        rows = self._idx_dep
        E = {row: sp.Add(P.r[row], *[-P.WPsi[c][row] * qdd[c] for c in range(len(qdd))
                                     if P.WPsi[c][row] != 0 and qdd[c] != 0]) for row in rows}
        Jd = J.extract(list(range(self.Q.k)), rows).T
        rhs = -sp.Matrix([E[row] for row in rows])
        lam = lu_solve_dag(Jd, rhs)
        return [_canonical(x) for x in lam]

    def multipliers(self) -> list:
        """Chetaev multipliers λ_i (one per constraint f^i, in the user's representation).

        The equations of motion are d/dt ∂L/∂q̇^σ − ∂L/∂q^σ = A_σ + λ_i ∂f^i/∂q̇^σ,
        so the reaction force is R_σ = λ_i ∂f^i/∂q̇^σ; expressions on Q.
        """
        return list(self._multipliers)

    def reaction_forces(self) -> list:
        """R_σ = λ_i ∂f^i/∂q̇^σ on Q (Chetaev's rule: R annihilates 𝒞's virtual displacements)."""
        J = self.Q.jacobian().applyfunc(self.on_Q)
        lam = self._multipliers
        return [_canonical(sp.Add(*[lam[i] * J[i, s] for i in range(self.Q.k)])) for s in range(self.Y.m)]

    # --- the EquationsOfMotion protocol (jetgeo.mechanics.eom) ------------------------------------------
    @property
    def coordinates(self) -> tuple:
        """(t, q^σ, q̇^l): the chart of Q the expressions are written in."""
        return tuple(self.chart.coords)

    @property
    def substitution(self) -> dict:
        """The normal form {q̇^D: g(t, q, q̇^I)} [Stolařová 2009, eq. (4)]."""
        return dict(self.g)

    @property
    def to_jet(self) -> dict:
        """{} (the coordinates of Q are jet coordinates)."""
        return {}

    @property
    def branch(self) -> int | None:
        """The branch index of the normal form."""
        return self.nf.branch.index

    def validity_conditions(self) -> list:
        """The regularity determinant [Stolařová 2009, eq. (12)] and det ∂f/∂q̇^D of the normal form
        (the constant ones left out)."""
        conds = [self.regularity_condition(), self.nf.condition]
        return [c for c in conds if as_expr(c).free_symbols]

    def reactions(self) -> list:
        """R_σ = λ_i ∂f^i/∂q̇^σ (:meth:`reaction_forces`)."""
        return self.reaction_forces()

    # --- display ---
    def __repr__(self) -> str:
        return f"ConstrainedSystem(L={self.system.L}, Q: {self.nf})"

    def readable_accelerations(self) -> ReadableForm:
        """The accelerations in readable form (:func:`~jetgeo.geometry.readable`): exact zeros,
        sin² + cos² = 1 used, one factored denominator, numerators collected in the velocities,
        shared subexpressions named once.

        Returns
        -------
        ReadableForm
            ``equations`` {q̈^σ: …}; ``expand()`` equals :meth:`accelerations`.

        Examples
        --------
        >>> from jetgeo.systems import load
        >>> print(load("skate").constrained().readable_accelerations())
        xddot = -thetadot*xdot*tan(theta)
        yddot = thetadot*xdot
        thetaddot = 0
        """
        return readable(self.accelerations(), velocities=self.Y.qdot)

    def _repr_latex_(self) -> str:
        """The normal form q̇^D = g and the accelerations, both in readable form."""
        nf = readable(self.g, velocities=self.Y.qdot).latex()
        return r"$\begin{gathered}" + nf + r"\\" + self.readable_accelerations().latex() + r"\end{gathered}$"
