r"""Lagrangian systems on J¹Y ([Stolařová 2009, §2]; [Benenti 2007, §2–3]).

For a first-order Lagrangian λ = L dt and generalised forces A_σ(t, q, q̇)
(non-potential and velocity-dependent allowed):

* Euler–Lagrange expressions, forces included (Newton's sign, [Benenti 2007, eq. (3.14)]):
  :math:`E_\sigma = \partial L/\partial q^\sigma - \frac{d}{dt}\partial L/\partial\dot q^\sigma + A_\sigma`,
  the equations of motion being E_σ = 0, i.e. d/dt ∂L/∂q̇ − ∂L/∂q = A;
* dynamical form :math:`E = E_\sigma\,\omega^\sigma\wedge dt` on J²Y;
* Cartan form :math:`\theta_\lambda = L\,dt + \partial L/\partial\dot q^\sigma\,\omega^\sigma`
  and the Lepage 2-form :math:`\alpha = d\theta_\lambda + A_\sigma\,\omega^\sigma\wedge dt`,
  whose equations :math:`J^1\gamma^* i_\xi\alpha = 0` for vertical ξ are E_σ = 0 [Stolařová 2009, eq. (1)];
* Hessian :math:`W_{\sigma\nu} = \partial^2 L/\partial\dot q^\sigma\partial\dot q^\nu`; the system
  is regular where det W ≠ 0, and then
  :math:`W\ddot q = \partial L/\partial q - \partial_t p - (\partial p/\partial q)\dot q + A`
  (p = ∂L/∂q̇) gives the accelerations and the semispray
  Γ = ∂_t + q̇^σ∂_{q^σ} + F^σ ∂_{q̇^σ}.

The right-hand side :math:`L_\sigma` of :math:`W_{\sigma\nu}\ddot q^\nu = L_\sigma` is
returned by :meth:`LagrangianSystem.free_motion_functions`; for L = T − V with
T = ½ g_{ij}(q) q̇^i q̇^j it is [Benenti 2007, eq. (7.3)],
:math:`L_i = A_i - \Gamma_{hki}\dot q^h\dot q^k` with A_i including −∂V/∂q^i.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property

import sympy as sp

from ..errors import InputError, NotRegularError
from ..geometry import Form, VectorField, det_exact, generic_rank, nullspace, singular_locus
from ..geometry.coerce import as_expr
from ..geometry.exact import det_sized, diff_dag, free_symbols_dag, lu_solve_dag
from ..geometry.exact.size import EL_DAG_MIN_NODES, not_real_finite, tree_size
from ..geometry.polydiff import poly_of
from ..geometry.realfunctions import real_functions
from ..geometry.zero import normalise
from ..jets import FibredManifold
from ..limits import staged
from .constrained import ConstrainedSystem

__all__ = ["LagrangianSystem"]


def _normalise_forces(Y: FibredManifold, forces) -> tuple:
    if forces is None:
        return tuple(sp.Integer(0) for _ in Y.q)
    if isinstance(forces, Mapping):
        unknown = [k for k in forces if k not in Y.q]
        if unknown:
            raise InputError(f"forces given for {unknown}, which are not coordinates of {Y!r}")
        return tuple(real_functions(as_expr(forces.get(s, 0))) for s in Y.q)
    forces = list(forces)
    if len(forces) != Y.m:
        raise InputError(f"forces: {Y.m} components A_σ expected (one per coordinate), got {len(forces)}")
    return tuple(real_functions(as_expr(f)) for f in forces)


class LagrangianSystem:
    """A Lagrangian system (Y, L, A) on J¹Y.

    The Euler–Lagrange expressions are E_σ = ∂L/∂q^σ − d/dt ∂L/∂q̇^σ + A_σ, and the motions are
    the sections along which they vanish [Stolařová 2009, eq. (1)]; constraining the system to a
    submanifold Q ⊂ J¹Y (:meth:`constrain`) gives Krupková's constrained system
    [Stolařová 2009, eq. (7)–(11)].

    Parameters
    ----------
    Y : FibredManifold
        The configuration bundle Y → R (time t, coordinates q^σ).
    L : sympy.Expr
        The Lagrangian L(t, q, q̇): first order, real and finite.
    forces : sequence of sympy.Expr, optional
        The generalised forces A_σ(t, q, q̇), one per coordinate (Newton's sign: on the right of
        d/dt ∂L/∂q̇ − ∂L/∂q = A); default none.
    euler_lagrange : (W, e), optional
        The Euler–Lagrange form E = W q̈ + e already known (W the Hessian ∂²L/∂q̇∂q̇, e the rest, forces
        included), e.g. assembled from the bodies' partial velocities by
        :func:`jetgeo.mechanics.bodies_el.euler_lagrange_of_bodies` [Kane–Levinson 1985]; every route then
        reads it instead of differentiating L twice.  Default: derived from L.

    Raises
    ------
    jetgeo.errors.InputError
        If ``Y`` is not a FibredManifold, L is not a first-order real finite expression, or a
        force depends on accelerations or is not real and finite.

    Examples
    --------
    >>> import sympy as sp
    >>> Y = FibredManifold(["x"], time="t")
    >>> (x,), (xd,) = Y.q, Y.qdot
    >>> k, m = sp.symbols("k m", positive=True)
    >>> S = LagrangianSystem(Y, m*xd**2/2 - k*x**2/2)
    >>> S.euler_lagrange()
    [-k*x - m*xddot]
    >>> S.accelerations()
    {xddot: -k*x/m}
    """

    def __init__(self, Y: FibredManifold, L, forces=None, euler_lagrange: tuple | None = None) -> None:
        if not isinstance(Y, FibredManifold):
            raise InputError(f"LagrangianSystem needs a FibredManifold, got {type(Y).__name__}")
        try:
            L = as_expr(L)
        except (sp.SympifyError, TypeError) as exc:
            raise InputError(f"the Lagrangian {L!r} is not a symbolic expression") from exc
        if Y.jet_order(L) > 1:
            raise InputError(f"the Lagrangian must be first order (a function of t, q, q̇); got {L}")
        # as ConstraintSubmanifold's constraints: I*L or oo*xdot + L would silently give wrong equations
        # (the atoms collected on the DAG, once for both tests)
        why = not_real_finite(L)
        if why == "not finite":
            raise InputError(f"the Lagrangian {L} is not finite")
        if why:
            raise InputError(f"the Lagrangian {L} is not real (it contains the imaginary unit); jetgeo works "
                             "over the reals")
        L = real_functions(L)
        self.Y = Y
        self.L = L
        self.forces = _normalise_forces(Y, forces)
        #: T and V when built by :meth:`mechanical` (None otherwise: L is not split)
        self.kinetic_energy: sp.Expr | None = None
        self.potential_energy: sp.Expr | None = None
        for A in self.forces:
            if Y.jet_order(A) > 1:
                raise InputError(f"generalised forces must depend on (t, q, q̇) only; got {A}")
            if not_real_finite(A):
                raise InputError(f"the generalised force {A} is not real and finite")
        #: whether W and e were handed over (``euler_lagrange``) instead of derived from L
        self._el_given = euler_lagrange is not None
        if euler_lagrange is not None:
            self._set_euler_lagrange(euler_lagrange)

    def _set_euler_lagrange(self, euler_lagrange) -> None:
        """Take (W, e) — the Hessian ∂²L/∂q̇∂q̇ and the Euler–Lagrange expressions without their q̈
        terms, forces included — as this system's, e.g. assembled from the bodies' partial velocities
        (:func:`jetgeo.mechanics.bodies_el.euler_lagrange_of_bodies`): every route reads them from
        here, so L is never differentiated twice."""
        try:
            W, e = euler_lagrange
        except (TypeError, ValueError):
            raise InputError("euler_lagrange must be a pair (W, e): the Hessian and the Euler–Lagrange "
                             "expressions without accelerations") from None
        W = sp.Matrix(W)
        e = tuple(as_expr(c, "an Euler–Lagrange expression") for c in e)
        m = self.Y.m
        if W.shape != (m, m) or len(e) != m:
            raise InputError(f"euler_lagrange: a {m} × {m} Hessian and {m} expressions expected, got "
                             f"{W.shape[0]} × {W.shape[1]} and {len(e)}")
        if free_symbols_dag([*W, *e]) & set(self.Y.qddot):  # on the DAG: e may be large
            raise InputError("euler_lagrange: W and e must depend on (t, q, q̇) only")
        self.__dict__["_hessian"] = W  # the cached properties' values
        self.__dict__["_e"] = e

    # --- constructors --------------------------------------------------------------
    @classmethod
    def mechanical(cls, Y: FibredManifold, T, V=0, forces=None, euler_lagrange: tuple | None = None
                   ) -> LagrangianSystem:
        """L = T − V with generalised forces A_σ (kinetic energy T, potential V); ``euler_lagrange``:
        (W, e) already known, e.g. from the bodies' partial velocities (:meth:`_set_euler_lagrange`)."""
        V = as_expr(V)
        if Y.jet_order(V) > 0:
            raise InputError(f"the potential must depend on (t, q) only; got {V}")
        S = cls(Y, as_expr(T) - V, forces, euler_lagrange=euler_lagrange)
        S.kinetic_energy = as_expr(T)
        S.potential_energy = V
        return S

    @classmethod
    def from_dynamicsymbols(cls, L, coordinates, forces=None, time: str = "t") -> LagrangianSystem:
        """Build the system from expressions in ``sympy.physics.mechanics.dynamicsymbols``.

        ``coordinates`` are the dynamicsymbols q(t) (or their names); L and the forces are
        converted to the plain jet symbols of the new :class:`FibredManifold`.
        """
        names = [c if isinstance(c, str) else getattr(getattr(c, "func", None), "__name__", None)
                 for c in coordinates]
        if any(n is None for n in names):
            raise InputError(f"coordinates must be dynamicsymbols or names, got {list(coordinates)}")
        Y = FibredManifold(names, time=time)
        L = Y.from_dynamicsymbols(L)
        if forces is not None:
            forces = [Y.from_dynamicsymbols(A) for A in forces]
        return cls(Y, L, forces)

    @property
    def is_autonomous(self) -> bool:
        """L and the forces do not depend explicitly on t (the system lives on TQ)."""
        return self.Y.is_autonomous(self.L, *self.forces)

    # --- basic objects ----------------------------------------------------------------
    @property
    def parameters(self) -> set:
        """Symbols of L and A that are not jet coordinates."""
        jets = set(self.Y.J2.coords)
        syms = set(self.L.free_symbols)
        for A in self.forces:
            syms |= A.free_symbols
        return syms - jets

    @cached_property
    def _on_dag(self) -> bool:
        """Whether L's derivatives are taken on its expression DAG
        (:data:`~jetgeo.geometry.exact.size.EL_DAG_MIN_NODES`)."""
        return tree_size(self.L, cap=EL_DAG_MIN_NODES) > EL_DAG_MIN_NODES

    @cached_property
    def _dag_memos(self) -> dict:
        """{velocity: diff_dag memo}: ∂/∂q̇^ν of L's nodes, shared by the momenta and the Hessian."""
        return {v: {} for v in self.Y.qdot}

    @cached_property
    def _momenta_dag(self) -> tuple:
        return tuple(diff_dag(self.L, v, self._dag_memos[v]) for v in self.Y.qdot)

    @cached_property
    def _L_poly(self):
        """L as a sparse polynomial in (t, q, q̇, sin, cos of the angles) when it is one
        (:mod:`jetgeo.geometry.polydiff`: derivatives 30× faster than ``sympy.diff``), else None."""
        Y = self.Y
        return poly_of(self.L, extra=(Y.t, *Y.q, *Y.qdot))

    @cached_property
    def _momenta_poly(self):
        if self._on_dag:
            return None
        P = self._L_poly
        return None if P is None else tuple(P.diff(v) for v in self.Y.qdot)

    @cached_property
    def momenta(self) -> tuple:
        """p_σ = ∂L/∂q̇^σ."""
        if self._on_dag:
            return self._momenta_dag
        if self._momenta_poly is not None:
            return tuple(p.expr for p in self._momenta_poly)
        return tuple(sp.diff(self.L, v) for v in self.Y.qdot)

    def euler_lagrange_without_accelerations(self) -> list:
        """e_σ = ∂L/∂q^σ − d̄/dt ∂L/∂q̇^σ + A_σ: the Euler–Lagrange expressions without their
        q̈ terms (E_σ = e_σ − W_σν q̈^ν, d̄ the total derivative cut before q̈, [Stolařová 2009, §2]).
        For a polynomial L of at most :data:`~jetgeo.geometry.exact.size.EL_DAG_MIN_NODES` tree nodes
        they are collected in the velocities (Σ_α c_α(t, q) q̇^α); for a larger one they are exact,
        unexpanded expression DAGs (each distinct subexpression of L differentiated once: d̄/dt along
        {t: 1, q: q̇} in one pass, :func:`~jetgeo.geometry.exact.diff_dag`).  Computed once per system
        (every route starts from them)."""
        return list(self._e)

    @cached_property
    def _e(self) -> tuple:
        Y = self.Y
        if self._on_dag:
            along = {Y.t: sp.S.One, **dict(zip(Y.q, Y.qdot))}  # d̄/dt: the total derivative without q̈
            memo: dict = {}
            return tuple(diff_dag(self.L, q) - diff_dag(p, along, memo) + A
                         for q, p, A in zip(Y.q, self._momenta_dag, self.forces))
        if self._momenta_poly is None:
            return tuple(sp.diff(self.L, q) - Y.cut_total_derivative(p) + A
                         for q, p, A in zip(Y.q, self.momenta, self.forces))
        P = self._L_poly
        out = []
        for q, p, A in zip(Y.q, self._momenta_poly, self.forces):
            e = P.diff(q) - p.diff(Y.t)
            for s, v in zip(Y.q, Y.qdot):
                dp = p.diff(s)
                if not dp.is_zero():
                    e = e - dp * P.lift(v)
            out.append(e.collected(Y.qdot) + A)  # collected in the velocities: cheap to restrict to Q
        return tuple(out)

    def euler_lagrange(self) -> list:
        """[E_σ] = ∂L/∂q^σ − d/dt ∂L/∂q̇^σ + A_σ (forces included); equations E_σ = 0."""
        return list(self._el)

    @cached_property
    def _el(self) -> tuple:
        """E_σ = e_σ − W_σν q̈^ν (:meth:`euler_lagrange_without_accelerations`, :meth:`hessian`)
        when L is a polynomial of :mod:`~jetgeo.geometry.polydiff` — both are taken in its ring
        (the Whipple bicycle: 85 s of ``total_derivative`` on the expanded momenta → 2 s) —
        else ∂L/∂q^σ − d/dt ∂L/∂q̇^σ + A_σ by ``sympy.diff``."""
        Y = self.Y
        if self._el_given or self._on_dag or self._momenta_poly is not None:
            e = self.euler_lagrange_without_accelerations()
            W = self._hessian
            return tuple(sp.Add(e[s], *[-W[s, v] * a for v, a in enumerate(Y.qddot) if W[s, v] != 0])
                         for s in range(len(Y.q)))
        return tuple(
            sp.diff(self.L, q) - Y.total_derivative(p) + A
            for q, p, A in zip(Y.q, self.momenta, self.forces)
        )

    def lagrangian_form(self) -> Form:
        """λ = L dt, a horizontal 1-form on J¹Y."""
        return self.L * self.Y.J1.dx(self.Y.t)

    def _one_contact(self, coefficients) -> Form:
        """Σ c_σ ω^σ ∧ dt on J²Y."""
        Y = self.Y
        dt = Y.J2.dx(Y.t)
        out = Form.zero(Y.J2, 2)
        for c, w in zip(coefficients, Y.contact_forms_2[: Y.m]):
            out = out + ((c * w) ^ dt)  # parenthesised: ^ binds less tightly than +
        return out

    def euler_lagrange_form(self) -> Form:
        """E_λ = (∂L/∂q^σ − d/dt ∂L/∂q̇^σ) ω^σ ∧ dt on J²Y: the Euler–Lagrange form of λ alone
        (no forces); it is the 1-contact part of dθ_λ [Stolařová 2009, §2]."""
        Y = self.Y
        return self._one_contact(
            [sp.diff(self.L, q) - Y.total_derivative(p) for q, p in zip(Y.q, self.momenta)]
        )

    def dynamical_form(self) -> Form:
        """E = E_σ ω^σ ∧ dt on J²Y, forces included (E_σ of :meth:`euler_lagrange`)."""
        return self._one_contact(self._el)

    def cartan_form(self) -> Form:
        """θ_λ = L dt + ∂L/∂q̇^σ ω^σ on J¹Y."""
        Y = self.Y
        out = self.L * Y.J1.dx(Y.t)
        for p, w in zip(self.momenta, Y.contact_forms):
            out = out + p * w
        return out

    def lepage_form(self) -> Form:
        """α = dθ_λ + A_σ ω^σ ∧ dt (the Lepage 2-form of the system with forces)."""
        Y = self.Y
        alpha = self.cartan_form().d()
        dt = Y.J1.dx(Y.t)
        for A, w in zip(self.forces, Y.contact_forms):
            if A != 0:
                alpha = alpha + ((A * w) ^ dt)  # parenthesised: ^ binds less tightly than +
        return alpha

    # --- regularity -----------------------------------------------------------------------
    @cached_property
    def _hessian(self) -> sp.Matrix:
        qd = self.Y.qdot
        n = len(qd)
        W = sp.zeros(n, n)
        if self._on_dag:
            p, memos = self._momenta_dag, self._dag_memos
            for i in range(n):  # symmetric: the upper triangle
                for j in range(i, n):
                    W[i, j] = W[j, i] = diff_dag(p[i], qd[j], memos[qd[j]])
            return W
        mp = self._momenta_poly
        for i in range(n):  # from the momenta, once each; symmetric
            for j in range(i, n):
                W[i, j] = W[j, i] = mp[i].diff(qd[j]).expr if mp is not None else sp.diff(self.momenta[i], qd[j])
        return W

    def hessian(self) -> sp.Matrix:
        """W = (∂²L/∂q̇^σ∂q̇^ν)."""
        return self._hessian.copy()

    @cached_property
    @staged("regularity")
    def _rank_info(self):
        return generic_rank(self._hessian)

    def is_regular(self) -> bool:
        """det W ≢ 0 (generic regularity; [Stolařová 2009, §2]: det(∂²L/∂q̇^σ∂q̇^ν) ≠ 0)."""
        return self._rank_info.rank == self.Y.m

    def regularity_condition(self) -> sp.Expr:
        """det W: the system is regular where it does not vanish (expanded when affordable, else
        the unexpanded product of DAG pivots: :func:`~jetgeo.geometry.exact.det_sized`)."""
        return det_sized(self._hessian)

    def singular_locus(self) -> list:
        """Expressions whose common zeros are the non-regular points (rank W drops)."""
        return singular_locus(self._hessian)

    # --- explicit dynamics ------------------------------------------------------------------
    def free_motion_functions(self) -> list:
        """L_σ with W_σν q̈^ν = L_σ ([Benenti 2007, eq. (7.3)] for L = T − V, T quadratic): the
        Euler–Lagrange expressions without their q̈ terms, e_σ
        (:meth:`euler_lagrange_without_accelerations`)."""
        return list(self._e)

    def require_regular(self, what: str = "this operation") -> None:
        """Raise :class:`NotRegularError` (saying why and along which velocity directions the
        Hessian degenerates) unless det(∂²L/∂q̇^σ∂q̇^ν) ≢ 0."""
        info = self._rank_info
        if info.rank == self.Y.m:
            return
        kernel, _ = nullspace(self._hessian)
        dirs = ", ".join("(" + ", ".join(map(str, vec)) + ")" for vec in kernel)
        acc = ", ".join(map(str, self.Y.qddot))
        raise NotRegularError(
            f"{what} needs a regular Lagrangian, but L = {self.L} is not regular: its Hessian "
            f"∂²L/∂q̇∂q̇ = {self._hessian.tolist()} has generic rank {info.rank} < {self.Y.m} "
            f"(det ≡ 0 everywhere); the Euler–Lagrange equations do not determine the accelerations "
            f"({acc}) along the kernel directions {dirs}"
        )

    def accelerations(self) -> dict:
        """{q̈^σ: F^σ(t, q, q̇)} solving W_σν q̈^ν = L_σ (W the Hessian, L_σ of
        :meth:`free_motion_functions`), i.e. E_σ = 0 solved for q̈.

        Valid where det W ≠ 0 (:meth:`regularity_condition`, :meth:`singular_locus`);
        raises :class:`NotRegularError` if det W ≡ 0 ([Stolařová 2009, §2]: regularity condition).
        """
        self.require_regular("LagrangianSystem.accelerations()")
        return dict(self._accelerations)

    @cached_property
    @staged("accelerations")
    def _accelerations(self) -> dict:
        W = self._hessian
        rhs = sp.Matrix(self._e)
        if W.rows <= 3:
            # Cramer's rule with division-free (Berkowitz) determinants: one cancel per
            # component of a single fraction is much cheaper than normalising LU's nested
            # quotients (measured 4× on a q-dependent 2×2 metric with a trigonometric potential)
            den = sp.expand(det_exact(W))
            sol = []
            for i in range(W.rows):
                Wi = W.copy()
                Wi[:, i] = rhs
                sol.append(sp.cancel(sp.expand(det_exact(Wi)) / den))
        else:
            sol = [normalise(s) for s in lu_solve_dag(W, rhs)]
        return dict(zip(self.Y.qddot, sol))

    def semispray(self) -> VectorField:
        r"""Γ = ∂_t + q̇^σ ∂_{q^σ} + F^σ ∂_{q̇^σ} on J¹Y (regular systems), F = :meth:`accelerations`.

        Γ is a semispray (SODE): ω^σ(Γ) = 0 and dt(Γ) = 1; its integral curves are the
        prolongations J¹γ of the motions.  It spans the dynamical distribution of the
        Lepage form: :math:`i_\Gamma\alpha = 0` ([Stolařová 2009, §2], regular systems: rank Δ_α = 1).
        """
        self.require_regular("LagrangianSystem.semispray()")
        acc = self.accelerations()
        Y = self.Y
        return VectorField(Y.J1, [1, *Y.qdot, *[acc[a] for a in Y.qddot]])

    def energy(self) -> sp.Expr:
        r"""E_L = q̇^σ ∂L/∂q̇^σ − L.  Along the motions
        :math:`dE_L/dt = A_\sigma\dot q^\sigma - \partial L/\partial t`: conserved for an
        autonomous L without forces, dissipated by damping forces."""
        return sp.Add(*[v * p for v, p in zip(self.Y.qdot, self.momenta)]) - self.L

    # --- mechanical structure -----------------------------------------------------------------
    def metric(self) -> sp.Matrix:
        """g_ij = ∂²T/∂q̇^i∂q̇^j (T the kinetic energy when given, else L: the Hessian of L;
        [Benenti 2007, eq. (3.15)] for T = ½ g_ij q̇^i q̇^j)."""
        if self.kinetic_energy is not None:
            qd = self.Y.qdot
            T = self.kinetic_energy
            return sp.Matrix(len(qd), len(qd), lambda i, j: sp.diff(T, qd[i], qd[j]))
        return self.hessian()

    def _metric_checked(self) -> sp.Matrix:
        g = self.metric()
        bad = set().union(*(e.free_symbols for e in g)) & set(self.Y.qdot)
        if bad:
            raise InputError(
                f"the Hessian of L depends on the velocities {sorted(map(str, bad))}: L is not of the "
                "mechanical form ½ g_ij(t, q) q̇^i q̇^j + (linear) + (potential), so it defines no metric"
            )
        return g

    def inverse_metric(self) -> sp.Matrix:
        """g^ij, by solving g X = 1 with the core's LU (:func:`~jetgeo.geometry.exact.lu_solve_dag`; valid
        where det g ≠ 0; NotRegularError if det g ≡ 0).

        Prefer :meth:`accelerations` (which solves, never inverts) for dynamics."""
        g = self._metric_checked()
        if generic_rank(g).rank < self.Y.m:
            self.require_regular("LagrangianSystem.inverse_metric()")
            raise NotRegularError(f"the metric {g.tolist()} is degenerate; it has no inverse")
        return lu_solve_dag(g, sp.eye(self.Y.m)).applyfunc(normalise)

    def christoffel(self) -> list:
        """Christoffel symbols of the first kind ([Benenti 2007, §6] before eq. 7.1),
        Γ_hki = ½(∂_h g_ki + ∂_k g_hi − ∂_i g_hk), as a nested list [h][k][i]
        (symmetric in h, k; i is the lowered index of the Levi-Civita connection)."""
        g = self._metric_checked()
        q = self.Y.q
        n = len(q)
        return [
            [
                [
                    (sp.diff(g[k, i], q[h]) + sp.diff(g[h, i], q[k]) - sp.diff(g[h, k], q[i])) / 2
                    for i in range(n)
                ]
                for k in range(n)
            ]
            for h in range(n)
        ]

    def restricted_to(self, values: Mapping) -> LagrangianSystem:
        """The same system with parameters or coordinates replaced (xreplace)."""
        return LagrangianSystem(
            self.Y, self.L.xreplace(dict(values)), [A.xreplace(dict(values)) for A in self.forces]
        )

    # --- constraints -----------------------------------------------------------------------------
    def constrain(self, Q, branch: int | None = None, dependent=None):
        """Krupková's constrained system on the constraint submanifold Q [Stolařová 2009, eqs. (6)–(12)]:
        ``ConstrainedSystem(self, Q, branch=branch, dependent=dependent)``.

        ``dependent`` (k velocities) and ``branch`` choose the chart q̇^D = g(t, q, q̇^I) of Q, i.e. the
        normal form's solution; None keeps Q's own choice (``Q.dependent_choice``, ``Q.branch_choice``).
        """
        return ConstrainedSystem(self, Q, branch=branch, dependent=dependent)

    # --- display ------------------------------------------------------------------------------------
    def __repr__(self) -> str:
        forces = "" if not any(a != 0 for a in self.forces) else f", forces={list(self.forces)}"
        return f"LagrangianSystem({self.Y!r}, L={self.L}{forces})"

    def _repr_latex_(self) -> str:
        rows = [
            sp.latex(sp.Eq(E, 0)) for E in self._el
        ]
        return (
            r"$\begin{gathered}L = " + sp.latex(self.L) + r"\\" + r"\\".join(rows) + r"\end{gathered}$"
        )


