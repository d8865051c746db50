r"""The constrained system in parametric coordinates (t, q, z) on Q, q̇ = ψ(t, q, z).

[Benenti 2007, eq. (2.1)]: Q is the image of q̇ = ψ(t, q, z), rank[ψ^i_α] = dim z (2.3),
ψ^i_α = ∂ψ^i/∂z^α.  Chetaev's virtual displacements are spanned by the ψ_α
[Benenti 2007, eq. (3.6)], so the reduced equations [Stolařová 2009, eq. (7)] in these coordinates — the
Gibbs–Appell equations [Benenti 2007, eq. (5.2)] — are the projections

.. math:: \psi^i_\alpha\,\big(W_{ij}\ddot q^j - L_i\big)\big|_{\dot q=\psi} = 0,
          \qquad \ddot q^i = \psi^i_\beta\,\dot z^\beta + \partial_t\psi^i + \partial_j\psi^i\,\psi^j

(the acceleration along a motion on Q, [Benenti 2007, eq. (3.3)]), where W q̈ = L is the free
motion [Benenti 2007, eq. (7.3)].  Solving the m × m system

.. math:: G_{\alpha\beta}\,\dot z^\beta = Z_\alpha, \qquad
          G_{\alpha\beta} = W_{ij}\psi^i_\alpha\psi^j_\beta,\quad
          Z_\alpha = \psi^i_\alpha\big(L_i - W_{ij}(\partial_t\psi^j + \partial_k\psi^j\psi^k)\big)

gives the vector field Z = ∂_t + ψ^i ∂_{q^i} + Z^α ∂_{z^α} on Q [Benenti 2007, eqs. (7.1)–(7.2)].

**Misprint in [Benenti 2007].** For L = T − V with T = ½ g q̇ q̇ the free-motion functions
are L_i = A_i − Γ_hki q̇^h q̇^k and the formula above becomes
Z_α = ψ^i_α(A_i − Γ_hki ψ^h ψ^k − g_ij ∂_kψ^j ψ^k).  The printed (6.1)–(7.2) and the
recipe of Remark 7.2 omit the last term, which comes from the q-dependence of ψ in
the acceleration (3.3); they hold only when ∂ψ/∂q ≡ 0 (as in the paper's examples
after a suitable choice of ψ).  jetgeo implements the derived formula; the tests
show the difference on a ψ that depends on q.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property

import sympy as sp

from ..errors import InputError, NotRegularError, RankDeficientError
from ..geometry import Chart, VectorField, generic_rank
from ..geometry.coerce import as_expr
from ..geometry.exact import solve_square, trig_reduce_if_small
from ..geometry.zero import is_zero, normalise_if_small
from .lagrangian import LagrangianSystem

__all__ = ["ParametricConstrainedSystem"]


class ParametricConstrainedSystem:
    """A Lagrangian system on Q given parametrically, q̇ = ψ(t, q, z).

    This is the constraint of the first kind [Benenti 2007, §7]: Q is the image of
    (t, q, z) ↦ (t, q, ψ(t, q, z)), and the equations of motion are a first-order system
    ż = Z(t, q, z) on C, q̇ = ψ [Benenti 2007, eq. (7.1)–(7.2)].

    Parameters
    ----------
    system : LagrangianSystem
        L(t, q, q̇) with its applied forces.
    psi : sequence of sympy.Expr
        ψ^σ(t, q, z), one per velocity q̇^σ, free of velocities and accelerations.
    z : sequence of Symbol or str
        The parameters z^1 … z^k (1 ≤ k ≤ m; strings become symbols); their derivatives are
        named ``<z>dot``.

    Raises
    ------
    jetgeo.errors.InputError
        If ψ has the wrong number of components or contains velocities, k is out of range, or a
        parameter clashes with a jet coordinate.

    Examples
    --------
    >>> import sympy as sp
    >>> from jetgeo import FibredManifold, LagrangianSystem
    >>> Y = FibredManifold(["x", "y", "theta"])
    >>> x, y, th = Y.q; xd, yd, thd = Y.qdot
    >>> m, I = sp.symbols("m I", positive=True)
    >>> u, w = sp.symbols("u w")
    >>> S = LagrangianSystem(Y, m/2*(xd**2 + yd**2) + I/2*thd**2)
    >>> P = ParametricConstrainedSystem(S, [u*sp.cos(th), u*sp.sin(th), w], [u, w])   # the skate
    >>> P.zdot()
    {udot: 0, wdot: 0}
    """

    def __init__(self, system: LagrangianSystem, psi: Sequence, z: Sequence) -> None:
        Y = system.Y
        psi = [as_expr(p) for p in psi]
        z = tuple(sp.Symbol(s) if isinstance(s, str) else s for s in z)
        if len(psi) != Y.m:
            raise InputError(f"ψ needs {Y.m} components (one per velocity), got {len(psi)}")
        if not z or len(z) >= Y.m + 1:
            raise InputError(f"need 1 ≤ dim z ≤ m = {Y.m} parameters, got {len(z)}")
        jets = set(Y.qdot) | set(Y.qddot)
        for p in psi:
            if p.free_symbols & jets:
                raise InputError(f"ψ must be a function of (t, q, z) only; {p} contains velocities")
        clash = set(z) & (set(Y.J2.coords))
        if clash:
            raise InputError(f"parameters z clash with jet coordinates: {clash}")
        self.system = system
        self.Y = Y
        self.psi = tuple(psi)
        self.z = z
        self.zdot_symbols = tuple(sp.Symbol(f"{s.name}dot") for s in z)
        J = self.psi_z
        info = generic_rank(J)
        if info.rank < len(z):
            raise RankDeficientError(
                f"rank [∂ψ/∂z] = {info.rank} < dim z = {len(z)}: ψ is not a parametrisation [Benenti 2007, eq. (2.3)]"
            )

    # --- the parametrisation --------------------------------------------------------------
    @cached_property
    def chart(self) -> Chart:
        return Chart([self.Y.t, *self.Y.q, *self.z], name="Q(z)")

    @cached_property
    def psi_z(self) -> sp.Matrix:
        """[ψ^i_α] = [∂ψ^i/∂z^α], m × dim z."""
        return sp.Matrix(len(self.psi), len(self.z), lambda i, a: sp.diff(self.psi[i], self.z[a]))

    @cached_property
    def psi_map(self) -> dict:
        """{q̇^i: ψ^i}."""
        return dict(zip(self.Y.qdot, self.psi))

    @cached_property
    def drift(self) -> list:
        """∂_tψ^i + ∂_jψ^i ψ^j: the acceleration of a motion on Q at ż = 0 [Benenti 2007, eq. (3.3)]."""
        Y = self.Y
        return [
            sp.diff(p, Y.t) + sp.Add(*[sp.diff(p, q) * pj for q, pj in zip(Y.q, self.psi)]) for p in self.psi
        ]

    def qddot_of_zdot(self) -> dict:
        """{q̈^i: ψ^i_α ż^α + ∂_tψ^i + ∂_jψ^i ψ^j}."""
        J = self.psi_z
        return {
            a: sp.Add(*[J[i, al] * zd for al, zd in enumerate(self.zdot_symbols)]) + self.drift[i]
            for i, a in enumerate(self.Y.qddot)
        }

    # --- the Gauss/Gibbs–Appell system ------------------------------------------------------------
    @cached_property
    def _W(self) -> sp.Matrix:
        return self.system.hessian().xreplace(self.psi_map)

    @cached_property
    def _L(self) -> list:
        return [e.xreplace(self.psi_map) for e in self.system.free_motion_functions()]

    @cached_property
    def gauss_matrix(self) -> sp.Matrix:
        """G_αβ = W_ij ψ^i_α ψ^j_β [Benenti 2007, eq. (4.3)]; dim z × dim z."""
        J = self.psi_z
        return (J.T * self._W * J).applyfunc(trig_reduce_if_small)

    @cached_property
    def projected_forces(self) -> list:
        """Z_α = ψ^i_α (L_i − W_ij(∂_tψ^j + ∂_kψ^j ψ^k)) at q̇ = ψ."""
        J = self.psi_z
        W = self._W
        inner = [self._L[i] - sp.Add(*[W[i, j] * self.drift[j] for j in range(len(self.psi))])
                 for i in range(len(self.psi))]
        return [sp.Add(*[J[i, a] * inner[i] for i in range(len(self.psi))]) for a in range(len(self.z))]

    def equations(self) -> list:
        """The reduced (Gibbs–Appell) equations G_αβ ż^β − Z_α = 0."""
        G = self.gauss_matrix
        return [
            sp.Add(*[G[a, b] * self.zdot_symbols[b] for b in range(len(self.z))]) - self.projected_forces[a]
            for a in range(len(self.z))
        ]

    def regularity_condition(self) -> sp.Expr:
        """det G (non-zero wherever ψ is a parametrisation and W is positive definite)."""
        return self._solved.det

    @cached_property
    def _solved(self):
        """G ż = Z solved by the exact core (:func:`~jetgeo.geometry.exact.solve_square`: cancelled
        when small, an unexpanded DAG when large), with det G."""
        try:
            return solve_square(self.gauss_matrix, sp.Matrix(self.projected_forces), "the Gauss matrix")
        except NotRegularError as exc:
            raise NotRegularError(
                "the Gauss matrix G_αβ = W_ij ψ^i_α ψ^j_β is generically singular: the equations on Q do not "
                "determine ż (is the Lagrangian regular on the constraint?)"
            ) from exc

    @cached_property
    def _zdot(self) -> dict:
        return {zd: normalise_if_small(s) for zd, s in zip(self.zdot_symbols, self._solved.X)}

    def zdot(self) -> dict:
        """{ż^α: Z^α(t, q, z)}: the vertical components of Z ([Benenti 2007, eq. (7.2)], corrected)."""
        return dict(self._zdot)

    def vector_field(self) -> VectorField:
        """Z = ∂_t + ψ^i ∂_{q^i} + Z^α ∂_{z^α} on the chart (t, q, z)."""
        zd = self._zdot
        return VectorField(self.chart, [1, *self.psi, *[zd[s] for s in self.zdot_symbols]])

    def accelerations(self) -> dict:
        """{q̈^i: expression in (t, q, z)} along the motion."""
        rep = self._zdot
        return {a: normalise_if_small(e.xreplace(rep)) for a, e in self.qddot_of_zdot().items()}

    def reaction_forces(self) -> list:
        """R_i = W_ij q̈^j − L_i on the motion (covariant Lagrangian reaction forces)."""
        acc = self.accelerations()
        W = self._W
        qdd = [acc[a] for a in self.Y.qddot]
        return [
            normalise_if_small(sp.Add(*[W[i, j] * qdd[j] for j in range(len(qdd))]) - self._L[i])
            for i in range(len(qdd))
        ]

    # --- qualitative analysis [Benenti 2007, Remarks 7.4, 7.5] ------------------------------------------------
    def first_integral_condition(self, F) -> sp.Expr:
        """Z(F) = ∂_tF + ψ^i ∂F/∂q^i + Z^α ∂F/∂z^α; F is a first integral iff it vanishes (7.7)."""
        return self.vector_field()(as_expr(F))

    def is_first_integral(self, F) -> bool:
        return is_zero(self.first_integral_condition(F))

    def singular_point_equations(self) -> list:
        """Equations of the singular points of Z [Benenti 2007, eq. (7.8)]: ψ^i = 0 and Z_α = 0."""
        return [*self.psi, *[normalise_if_small(e) for e in self.projected_forces]]

    # --- the EquationsOfMotion protocol (jetgeo.mechanics.eom) ------------------------------------------
    #: no constraint submanifold is stored: Q is the image of ψ
    Q = None
    branch = None

    @property
    def to_jet(self) -> dict:
        """{}: z as functions of (t, q, q̇) is not known (it would invert ψ)."""
        return {}

    @property
    def coordinates(self) -> tuple:
        """(t, q, z): the chart the expressions are written in."""
        return tuple(self.chart.coords)

    @property
    def substitution(self) -> dict:
        """{q̇^i: ψ^i(t, q, z)} [Benenti 2007, eq. (2.1)]."""
        return dict(self.psi_map)

    def validity_conditions(self) -> list:
        """det G, G the Gauss matrix (when not constant)."""
        c = self.regularity_condition()
        return [c] if as_expr(c).free_symbols else []

    def multipliers(self) -> None:
        """None: the parametric route gives the reactions, not multipliers."""
        return None

    def reactions(self) -> list:
        """R_i = W_ij q̈^j − L_i (:meth:`reaction_forces`)."""
        return self.reaction_forces()

    def __repr__(self) -> str:
        return f"ParametricConstrainedSystem(ψ={list(self.psi)}, z={list(self.z)})"
