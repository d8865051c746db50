r"""Discrete Lagrange–d'Alembert systems: the discrete counterpart of (L, Q) on Y ×_R Y.

The discrete analogue of J¹Y is Y ×_R Y: a step from the node (t_k, q_k) to (t_k + h, q_{k+1})
with the discrete velocity v_k = (q_{k+1} − q_k)/h.  A quadrature of the action replaces L by a
discrete Lagrangian L_d(t_k, q_k, q_{k+1}; h) and the constraint submanifold Q ⊂ J¹Y by a
discrete constraint submanifold Q_d = {f_d = 0} ⊂ Y ×_R Y [Marsden–West 2001],
[Cortés–Martínez 2001], [McLachlan–Perlmutter 2006]:

========== ============================================ ==================================================
quadrature L_d                                          forces F^∓ (the two halves of ∫ A·δq dt)
========== ============================================ ==================================================
midpoint   h L(t_k + h/2, (q_k + q_{k+1})/2, v_k)       F^− = F^+ = (h/2) A(t_k + h/2, (q_k + q_{k+1})/2, v_k)
trapezoid  (h/2) [L(t_k, q_k, v_k) + L(t_{k+1}, q_{k+1}, F^− = (h/2) A(t_k, q_k, v_k),
           v_k)]                                        F^+ = (h/2) A(t_{k+1}, q_{k+1}, v_k)
========== ============================================ ==================================================

and the discrete constraints f_d(t_k, q_k, q_{k+1}; h) of [McLachlan–Perlmutter 2006]:
``"midpoint"`` f(t_k + h/2, (q_k + q_{k+1})/2, v_k), ``"nodes"`` ½[f(t_k, q_k, v_k) +
f(t_{k+1}, q_{k+1}, v_k)].

**The discrete Lagrange–d'Alembert principle.**  The discrete action Σ L_d is stationary under
variations δq_k that vanish at the ends and are *virtual displacements at the nodes* —
∂f/∂q̇(t_k, q_k, q̇_k)·δq_k = 0, Chetaev's rule [Chetaev 1933], the vertical part of Krupková's
canonical distribution [Stolařová 2009, eq. (6)] — with the forces doing their virtual work; the
motion satisfies the constraints.  With Lagrange multipliers this is, at every interior node,

.. math:: D_2L_d(q_{k-1}, q_k) + D_1L_d(q_k, q_{k+1}) + F^+_{k-1} + F^-_k
          + h\,J_k^{\mathsf T}\Lambda_k = 0,\qquad J_k = \frac{\partial f}{\partial\dot q}(t_k, q_k, \dot q_k)

(D_1, D_2 the derivatives in the first and second position).  Splitting the reaction impulse
h J_kᵀΛ_k into the half (h/2) J_kᵀλ_k of the step leaving the node and the half (h/2) J_kᵀμ_{k−1}
of the step arriving at it (Λ_k = (λ_k + μ_{k−1})/2) and naming the momentum at the node
p_k = ∂L/∂q̇(t_k, q_k, q̇_k) (the discrete Legendre transforms made to agree with the continuous
one at the nodes) gives the **one-step map** (t_k, q_k, q̇_k) ↦ (t_{k+1}, q_{k+1}, q̇_{k+1}): the
unknowns (q_{k+1}, q̇_{k+1}, λ, μ) solve the 2m + 2k equations

.. math::
    p_k + D_1L_d + F^-_k + \tfrac h2 J_k^{\mathsf T}\lambda &= 0, &
    p_{k+1} - D_2L_d - F^+_k - \tfrac h2 J_{k+1}^{\mathsf T}\mu &= 0,\\
    f_d(t_k, q_k, q_{k+1}; h) &= 0, & f(t_{k+1}, q_{k+1}, \dot q_{k+1}) &= 0 .

They are solved for the discrete velocity v_k with q_{k+1} = q_k + h v_k substituted: (q_{k+1} −
q_k)/h is then v_k exactly, where a difference of large coordinates (an angle at 10⁴ rad) would carry
the round-off |q|ε/h into every equation.

Composing two steps gives the principle above, so the nodes carry the Chetaev reactions; the last
equation puts every node on Q exactly (to the solver's tolerance).  The derivatives of L_d, from
the chain rule (∂_q L, ∂_q̇ L evaluated where the quadrature evaluates L):

* midpoint: D_1L_d = (h/2) ∂_qL − ∂_q̇L,  D_2L_d = (h/2) ∂_qL + ∂_q̇L, at (t_k + h/2, q_{k+½}, v_k);
* trapezoid: D_1L_d = (h/2) ∂_qL|_k − ½(∂_q̇L|_k + ∂_q̇L|_{k+1}),
  D_2L_d = (h/2) ∂_qL|_{k+1} + ½(∂_q̇L|_k + ∂_q̇L|_{k+1}), with |_k at (t_k, q_k, v_k) and |_{k+1}
  at (t_{k+1}, q_{k+1}, v_k).

Without constraints the midpoint map is the midpoint variational integrator: p_{k+1} − p_k =
h (∂_qL + A) at the midpoint, ∂_q̇L(midpoint) = (p_k + p_{k+1})/2.  Both maps are **symmetric**
(the map with step −h is the inverse of the map with step h: L_d(q_k, q_{k+1}; h) =
−L_d(q_{k+1}, q_k; −h), f_d likewise up to the sign of v_k, and λ, μ change places), hence of
even order, 2; the triple jump [Yoshida 1990] — steps γ₁h, γ₂h, γ₁h with γ₁ = 1/(2 − 2^{1/3}),
γ₂ = 1 − 2γ₁ — composes them to order 4 (:meth:`DiscreteSystem.triple_jump`).

**The discrete Chetaev bundle.**  The reactions of the discrete constraint Q_d are along
h ∂f_d/∂q_{k+1} (:meth:`DiscreteSystem.discrete_chetaev_matrix`): on q_{k+1} = q_k + h q̇ it
tends to ∂f/∂q̇(t_k, q_k, q̇) as h → 0, so its kernel — the discrete virtual displacements —
tends to the vertical part of the canonical distribution of the constrained system [Stolařová 2009,
eq. (6)] (tests/mechanics/test_discrete_systems.py checks it on every catalogue system).

Everything here is exact sympy (no floats, no ``simplify``); :mod:`jetgeo.numerics.simulation.
discrete` compiles the residual and its Jacobian ∂F/∂z and solves each step by Newton's method.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import sympy as sp

from ..errors import InputError
from ..geometry.coerce import as_expr
from .constraints import ConstraintSubmanifold
from .lagrangian import LagrangianSystem

__all__ = ["DiscreteSystem", "OneStepMap", "compose_triple_jump", "discrete_system", "QUADRATURES",
           "DISCRETE_CONSTRAINTS", "TRIPLE_JUMP"]

#: the quadratures of the action (the discrete Lagrangians)
QUADRATURES = ("midpoint", "trapezoid")
#: the choices of discrete constraints [McLachlan–Perlmutter 2006]
DISCRETE_CONSTRAINTS = ("midpoint", "nodes")
#: (γ₁, γ₂) of the triple jump [Yoshida 1990]: γ₁ = 1/(2 − 2^{1/3}), γ₂ = 1 − 2γ₁
TRIPLE_JUMP = (1 / (2 - sp.cbrt(2)), 1 - 2 / (2 - sp.cbrt(2)))


@dataclass(frozen=True)
class OneStepMap:
    """The implicit one-step map of a discrete system, as exact expressions.

    ``residual`` F(z; w) (a list of expressions in the ``unknowns`` z, the ``known`` w and the
    ``parameters``) vanishes at the next step; ``advance`` gives the next known vector from (z, w);
    ``predictor`` an explicit first guess of z from w.  ``stages`` steps of the map make one step of
    size ``step`` (3 for the triple jump, whose known vector carries the stage counter).

    :func:`~jetgeo.numerics.stepper.compile_stepper` compiles it (F and ∂F/∂z together) into an
    :class:`~jetgeo.numerics.stepper.ImplicitStepper`.

    Attributes
    ----------
    residual : list of sympy.Expr
        F(z; w), m expressions: the discrete equations of the step (e.g. the discrete
        Lagrange–d'Alembert equations and the constraints at the next node).
    unknowns : tuple of Symbol
        z, the m unknowns of a step (the next configuration, the multipliers, …).
    known : tuple of Symbol
        w, the known values of a node (time, configuration, …).
    parameters : tuple of Symbol
        The parameters, ending with the step symbol h.
    advance : list of sympy.Expr
        The next known vector as expressions in (z, w).
    predictor : list of sympy.Expr
        An explicit first guess of z from w (Newton's first iterate).
    step : sympy.Symbol
        The step symbol h.
    stages : int, default 1
        How many steps of the map make one step of size h.
    """

    residual: list
    unknowns: tuple
    known: tuple
    parameters: tuple
    advance: list
    predictor: list
    step: sp.Symbol
    stages: int = 1

    def jacobian(self) -> sp.Matrix:
        """∂F/∂z, the Newton matrix (exact).

        Returns
        -------
        sympy.Matrix
            len(residual) × len(unknowns).

        Examples
        --------
        >>> from jetgeo import systems
        >>> DiscreteSystem(*systems.load("skate")).one_step().jacobian().shape
        (8, 8)
        """
        return sp.Matrix(len(self.residual), len(self.unknowns),
                         lambda i, j: sp.diff(self.residual[i], self.unknowns[j]))


def _fresh(name: str, taken: set) -> sp.Symbol:
    """A Symbol called ``name`` (with trailing underscores added until no symbol in ``taken`` has it)."""
    while name in taken:
        name += "_"
    taken.add(name)
    return sp.Symbol(name, real=True)


class DiscreteSystem:
    r"""The discrete Lagrange–d'Alembert system of (L, A, Q) for one quadrature and one choice of
    discrete constraints (the module docstring states the equations).

    Parameters
    ----------
    system : LagrangianSystem
        L and the forces A (Newton's sign).
    Q : ConstraintSubmanifold
        The constraints f(t, q, q̇) = 0, linear or not in the velocities, time-dependent or not.
    quadrature : "midpoint" or "trapezoid"
        The discrete Lagrangian.
    constraint : "midpoint", "nodes" or None
        The discrete constraints; None takes the one matching the quadrature ("midpoint" for the
        midpoint rule, "nodes" for the trapezoidal one).

    Examples
    --------
    >>> from jetgeo import systems
    >>> S, Q = systems.load("skate")
    >>> D = DiscreteSystem(S, Q, "midpoint")
    >>> D.discrete_constraints()
    [(-x + x_next)*sin(theta/2 + theta_next/2)/h - (-y + y_next)*cos(theta/2 + theta_next/2)/h]
    >>> len(D.one_step().residual), len(D.one_step().unknowns)
    (8, 8)
    """

    def __init__(self, system: LagrangianSystem, Q: ConstraintSubmanifold, quadrature: str = "midpoint",
                 constraint: str | None = None) -> None:
        if not isinstance(system, LagrangianSystem):
            raise InputError(f"DiscreteSystem needs a LagrangianSystem, got {type(system).__name__}")
        if not isinstance(Q, ConstraintSubmanifold):
            raise InputError(f"DiscreteSystem needs a ConstraintSubmanifold, got {type(Q).__name__}")
        if Q.Y is not system.Y and tuple(Q.Y.q) != tuple(system.Y.q):
            raise InputError("DiscreteSystem: the system and Q live on different fibred manifolds")
        if quadrature not in QUADRATURES:
            raise InputError(f"DiscreteSystem: quadrature must be one of {QUADRATURES}, got {quadrature!r}")
        if constraint is None:
            constraint = "midpoint" if quadrature == "midpoint" else "nodes"
        if constraint not in DISCRETE_CONSTRAINTS:
            raise InputError(f"DiscreteSystem: constraint must be one of {DISCRETE_CONSTRAINTS}, got {constraint!r}")
        self.system, self.Q = system, Q
        self.quadrature, self.constraint = quadrature, constraint
        Y = system.Y
        self.Y = Y
        exprs = [system.L, *system.forces, *Q.f]
        taken = {str(s) for e in exprs for s in e.free_symbols} | {str(s) for s in Y.J2.coords}
        #: the step h, the next node's coordinates and velocities, the multipliers λ, μ and the carried Λ
        self.h = _fresh("h", taken)
        self.q_next = tuple(_fresh(f"{q}_next", taken) for q in Y.q)
        #: the unknowns of the one-step map for the step: the discrete velocity v_k = (q_{k+1} − q_k)/h
        self.discrete_velocity = tuple(_fresh(f"v_{q}", taken) for q in Y.q)
        self.qdot_next = tuple(_fresh(f"{v}_next", taken) for v in Y.qdot)
        self.lam = tuple(_fresh(f"lambda{i + 1}", taken) for i in range(Q.k))
        self.mu = tuple(_fresh(f"mu{i + 1}", taken) for i in range(Q.k))
        self.carried = tuple(_fresh(f"Lambda{i + 1}", taken) for i in range(Q.k))
        self.carried_lam = tuple(_fresh(f"Lambda_out{i + 1}", taken) for i in range(Q.k))
        self._taken = taken

    # --- evaluation of expressions of (t, q, q̇) at other points ------------------------------------------
    def _at(self, exprs, t, q, v) -> list:
        Y = self.Y
        rep = {Y.t: t, **dict(zip(Y.q, q)), **dict(zip(Y.qdot, v))}
        return [as_expr(e).xreplace(rep) for e in exprs]

    @cached_property
    def _v(self) -> tuple:
        """v_k = (q_{k+1} − q_k)/h."""
        return tuple((b - a) / self.h for a, b in zip(self.Y.q, self.q_next))

    @cached_property
    def _points(self) -> tuple:
        """The quadrature points (t, q) at which L, A and f are evaluated with the velocity v_k."""
        Y, h = self.Y, self.h
        mid = (Y.t + h / 2, tuple((a + b) / 2 for a, b in zip(Y.q, self.q_next)))
        return mid, (Y.t, tuple(Y.q)), (Y.t + h, self.q_next)

    @cached_property
    def _dL(self) -> tuple:
        S = self.system
        return [sp.diff(S.L, q) for q in self.Y.q], list(S.momenta)

    def discrete_lagrangian(self) -> sp.Expr:
        """L_d(t_k, q_k, q_{k+1}; h) of the quadrature (the module docstring).

        Returns
        -------
        sympy.Expr
            In (t, q, q_next, h) and the parameters.

        Examples
        --------
        >>> from jetgeo import FibredManifold, LagrangianSystem, ConstraintSubmanifold
        >>> Y = FibredManifold(["x", "y"]); (x, y), (xd, yd) = Y.q, Y.qdot
        >>> D = DiscreteSystem(LagrangianSystem(Y, (xd**2 + yd**2) / 2), ConstraintSubmanifold(Y, [yd - x*xd]))
        >>> D.discrete_lagrangian()
        h*((-x + x_next)**2/(2*h**2) + (-y + y_next)**2/(2*h**2))
        """
        (tm, qm), (t0, q0), (t1, q1) = self._points
        L, h, v = self.system.L, self.h, self._v
        if self.quadrature == "midpoint":
            return h * self._at([L], tm, qm, v)[0]
        return h / 2 * (self._at([L], t0, q0, v)[0] + self._at([L], t1, q1, v)[0])

    def discrete_lagrangian_derivatives(self) -> tuple:
        """(D_1L_d, D_2L_d): the derivatives of L_d in q_k and q_{k+1}, from the chain rule (the module
        docstring), free of the h·(1/h) that differentiating L_d directly leaves.

        Returns
        -------
        (list, list)
            m expressions each, in (t, q, q_next, h).

        Examples
        --------
        >>> from jetgeo import FibredManifold, LagrangianSystem, ConstraintSubmanifold
        >>> Y = FibredManifold(["x", "y"]); (x, y), (xd, yd) = Y.q, Y.qdot
        >>> D = DiscreteSystem(LagrangianSystem(Y, (xd**2 + yd**2) / 2), ConstraintSubmanifold(Y, [yd - x*xd]))
        >>> D.discrete_lagrangian_derivatives()[0]
        [-(-x + x_next)/h, -(-y + y_next)/h]
        """
        (tm, qm), (t0, q0), (t1, q1) = self._points
        dq, dv = self._dL
        h, v = self.h, self._v
        if self.quadrature == "midpoint":
            a, b = self._at(dq, tm, qm, v), self._at(dv, tm, qm, v)
            return ([h / 2 * x - y for x, y in zip(a, b)], [h / 2 * x + y for x, y in zip(a, b)])
        a0, b0 = self._at(dq, t0, q0, v), self._at(dv, t0, q0, v)
        a1, b1 = self._at(dq, t1, q1, v), self._at(dv, t1, q1, v)
        return ([h / 2 * x - (y + z) / 2 for x, y, z in zip(a0, b0, b1)],
                [h / 2 * x + (y + z) / 2 for x, y, z in zip(a1, b0, b1)])

    def discrete_forces(self) -> tuple:
        """(F^−, F^+): the forces' virtual work over the step, split between q_k and q_{k+1}.

        Returns
        -------
        (list, list)
            m expressions each, in (t, q, q_next, h).

        Examples
        --------
        >>> from jetgeo import FibredManifold, LagrangianSystem, ConstraintSubmanifold
        >>> Y = FibredManifold(["x", "y"]); (x, y), (xd, yd) = Y.q, Y.qdot
        >>> S = LagrangianSystem(Y, (xd**2 + yd**2) / 2, forces=[-xd, 0])           # damping along x
        >>> DiscreteSystem(S, ConstraintSubmanifold(Y, [yd - x*xd])).discrete_forces()[0]
        [x/2 - x_next/2, 0]
        """
        (tm, qm), (t0, q0), (t1, q1) = self._points
        A, h, v = self.system.forces, self.h, self._v
        if self.quadrature == "midpoint":
            F = [h / 2 * a for a in self._at(A, tm, qm, v)]
            return F, list(F)
        return [h / 2 * a for a in self._at(A, t0, q0, v)], [h / 2 * a for a in self._at(A, t1, q1, v)]

    def discrete_constraints(self) -> list:
        """f_d(t_k, q_k, q_{k+1}; h): the constraints at the midpoint, or averaged over the two nodes.

        Returns
        -------
        list
            k expressions in (t, q, q_next, h).

        Examples
        --------
        >>> from jetgeo import FibredManifold, LagrangianSystem, ConstraintSubmanifold
        >>> Y = FibredManifold(["x", "y"]); (x, y), (xd, yd) = Y.q, Y.qdot
        >>> S, Q = LagrangianSystem(Y, (xd**2 + yd**2) / 2), ConstraintSubmanifold(Y, [yd - x*xd])
        >>> DiscreteSystem(S, Q, "trapezoid").discrete_constraints()
        [-x*(-x + x_next)/(2*h) - x_next*(-x + x_next)/(2*h) + (-y + y_next)/h]
        """
        (tm, qm), (t0, q0), (t1, q1) = self._points
        f, v = self.Q.f, self._v
        if self.constraint == "midpoint":
            return self._at(f, tm, qm, v)
        return [(a + b) / 2 for a, b in zip(self._at(f, t0, q0, v), self._at(f, t1, q1, v))]

    def discrete_chetaev_matrix(self) -> sp.Matrix:
        """h ∂f_d/∂q_{k+1} (k × m), written without 1/h: the directions of the reactions of Q_d.  On
        q_{k+1} = q_k + h q̇ it tends to ∂f/∂q̇(t, q, q̇) as h → 0 (the module docstring).

        Returns
        -------
        sympy.Matrix
            k × m, in (t, q, q_next, h).

        Examples
        --------
        >>> from jetgeo import FibredManifold, LagrangianSystem, ConstraintSubmanifold
        >>> Y = FibredManifold(["x", "y"]); (x, y), (xd, yd) = Y.q, Y.qdot
        >>> S, Q = LagrangianSystem(Y, (xd**2 + yd**2) / 2), ConstraintSubmanifold(Y, [yd - x*xd])
        >>> DiscreteSystem(S, Q).discrete_chetaev_matrix()
        Matrix([[-x_next, 1]])
        """
        (tm, qm), (t0, q0), (t1, q1) = self._points
        f, h, v, Y = self.Q.f, self.h, self._v, self.Y
        k, m = self.Q.k, Y.m
        dq = [[sp.diff(fi, q) for q in Y.q] for fi in f]
        dv = [[sp.diff(fi, w) for w in Y.qdot] for fi in f]
        if self.constraint == "midpoint":
            a = [self._at(r, tm, qm, v) for r in dq]
            b = [self._at(r, tm, qm, v) for r in dv]
            return sp.Matrix(k, m, lambda i, s: h / 2 * a[i][s] + b[i][s])
        a1 = [self._at(r, t1, q1, v) for r in dq]
        b0 = [self._at(r, t0, q0, v) for r in dv]
        b1 = [self._at(r, t1, q1, v) for r in dv]
        return sp.Matrix(k, m, lambda i, s: h / 2 * a1[i][s] + (b0[i][s] + b1[i][s]) / 2)

    # --- the one-step map ---------------------------------------------------------------------------------
    def one_step(self) -> OneStepMap:
        """The one-step map (t_k, q_k, q̇_k, …) ↦ (t_{k+1}, q_{k+1}, q̇_{k+1}, μ, λ) (the module docstring).

        Returns
        -------
        OneStepMap
            unknowns z = (v_k, q̇_next, λ, μ) — v_k the discrete velocity, q_next = q + h v_k
            substituted everywhere, so that (q_next − q)/h is v_k exactly and carries no round-off
            |q|ε/h —, known w = (t, q, q̇, Λ, Λ′) — Λ and Λ′ the multipliers μ and λ of the step
            that arrived at the node, carried so that the node's multiplier (λ_k + μ_{k−1})/2 can be
            formed from two consecutive known vectors; only the predictor reads Λ (λ = μ = Λ,
            v_k = q̇_next = q̇) — and the parameters of the system followed by h.

        Examples
        --------
        >>> from jetgeo import systems
        >>> S, Q = systems.load("skate")
        >>> M = DiscreteSystem(S, Q, "trapezoid").one_step()
        >>> [str(s) for s in M.unknowns]
        ['v_x', 'v_y', 'v_theta', 'xdot_next', 'ydot_next', 'thetadot_next', 'lambda1', 'mu1']
        """
        return self._one_step

    @cached_property
    def _one_step(self) -> OneStepMap:
        Y, Q, h = self.Y, self.Q, self.h
        S = self.system
        t1, q1, v1 = Y.t + h, self.q_next, self.qdot_next
        D1, D2 = self.discrete_lagrangian_derivatives()
        Fm, Fp = self.discrete_forces()
        J = Q.jacobian()
        J0 = J
        J1 = J.xreplace({Y.t: t1, **dict(zip(Y.q, q1)), **dict(zip(Y.qdot, v1))})
        p0 = list(S.momenta)
        p1 = self._at(p0, t1, q1, v1)
        m, k = Y.m, Q.k
        E1 = [p0[s] + D1[s] + Fm[s] + h / 2 * sp.Add(*[J0[i, s] * self.lam[i] for i in range(k)]) for s in range(m)]
        E2 = [p1[s] - D2[s] - Fp[s] - h / 2 * sp.Add(*[J1[i, s] * self.mu[i] for i in range(k)]) for s in range(m)]
        E3 = self.discrete_constraints()
        E4 = self._at(Q.f, t1, q1, v1)
        params = sorted(set().union(*[e.free_symbols for e in [S.L, *S.forces, *Q.f]])
                        - set(Y.J1.coords) - {Y.t}, key=str)
        # solved for the discrete velocity v_k, q_{k+1} = q_k + h v_k: (q_{k+1} − q_k)/h is then v_k exactly
        # (sympy cancels it), free of the round-off |q|ε/h of a difference of large coordinates
        vk = self.discrete_velocity
        on = {b: a + h * v for a, b, v in zip(Y.q, q1, vk)}
        return OneStepMap(
            residual=[e.xreplace(on) for e in [*E1, *E2, *E3, *E4]],
            unknowns=(*vk, *v1, *self.lam, *self.mu),
            known=(Y.t, *Y.q, *Y.qdot, *self.carried, *self.carried_lam),
            parameters=(*params, h),
            advance=[t1, *(on[b] for b in q1), *v1, *self.mu, *self.lam],
            predictor=[*Y.qdot, *Y.qdot, *self.carried, *self.carried],
            step=h,
        )

    def triple_jump(self) -> OneStepMap:
        """The fourth-order composition [Yoshida 1990]: three stages of :meth:`one_step` with the steps
        γ₁h, γ₂h, γ₁h make one step of size h.

        The known vector carries the stage counter s ∈ {0, 1, 2}; stage s takes the step
        h (γ₁ + (γ₂ − γ₁) s(2 − s)) and advances s to 1 + s − (3/2) s(s − 1) (0 → 1 → 2 → 0), so the
        same residual serves every stage and a stepper runs 3n stages for n steps.  The carried Λ′
        keeps the λ of stage 0 (it is replaced only when s = 0), so that at every third node it is
        the λ of the whole step that left the previous one.

        Returns
        -------
        OneStepMap
            with ``stages=3``; known w = (t, q, q̇, Λ, Λ′, s).

        Examples
        --------
        >>> from jetgeo import systems
        >>> S, Q = systems.load("skate")
        >>> DiscreteSystem(S, Q).triple_jump().stages
        3
        """
        return self._triple_jump

    @cached_property
    def _triple_jump(self) -> OneStepMap:
        return compose_triple_jump(self.one_step(), self.lam, self.carried_lam, _fresh("stage", self._taken))

    def __repr__(self) -> str:
        return (f"DiscreteSystem({self.quadrature} quadrature, {self.constraint} constraints, "
                f"m={self.Y.m}, k={self.Q.k})")


def compose_triple_jump(base: OneStepMap, lam: tuple, carried_lam: tuple, s: sp.Symbol) -> OneStepMap:
    """Three stages of ``base`` with the steps γ₁h, γ₂h, γ₁h as one map of ``stages=3`` [Yoshida 1990]
    (:meth:`DiscreteSystem.triple_jump` states the stage counter's rule).

    Parameters
    ----------
    base : OneStepMap
        A symmetric one-step map whose known vector ends with the carried (Λ, Λ′) and whose advance map
        ends with (μ, λ).
    lam, carried_lam : tuples of Symbols
        Its multipliers λ (unknowns) and the carried Λ′ (known).
    s : Symbol
        The stage counter (a fresh symbol).

    Returns
    -------
    OneStepMap

    Examples
    --------
    >>> from jetgeo import systems
    >>> D = DiscreteSystem(*systems.load("skate"))
    >>> compose_triple_jump(D.one_step(), D.lam, D.carried_lam, sp.Symbol("stage")).known[-1]
    stage
    """
    g1, g2 = TRIPLE_JUMP
    h = base.step
    sub = {h: h * (g1 + (g2 - g1) * s * (2 - s))}
    k = len(lam)
    first = (1 - s) * (2 - s) / 2  # 1 at stage 0, 0 at stages 1 and 2
    # Λ′ keeps the λ of the first stage: at the next whole step it is the λ leaving this node
    kept = [first * a + (1 - first) * old for a, old in zip(lam, carried_lam)]
    return OneStepMap(
        residual=[e.xreplace(sub) for e in base.residual],
        unknowns=base.unknowns,
        known=(*base.known, s),
        parameters=base.parameters,
        advance=[*(e.xreplace(sub) for e in base.advance[: -k or None]), *kept,
                 1 + s - sp.Rational(3, 2) * s * (s - 1)],
        predictor=[e.xreplace(sub) for e in base.predictor],
        step=h,
        stages=3,
    )


def discrete_system(system, Q: ConstraintSubmanifold | None = None, quadrature: str = "midpoint",
                    constraint: str | None = None) -> DiscreteSystem:
    """The :class:`DiscreteSystem` of a pair (L, Q) — given as two arguments or as one object that
    unpacks as the pair (a catalogue entry).

    Parameters
    ----------
    system : LagrangianSystem, or a (LagrangianSystem, ConstraintSubmanifold) pair
    Q : ConstraintSubmanifold, or None when ``system`` is a pair
    quadrature, constraint : as for :class:`DiscreteSystem`

    Returns
    -------
    DiscreteSystem

    Examples
    --------
    >>> from jetgeo import systems
    >>> discrete_system(systems.load("rolling_disc"), quadrature="trapezoid")
    DiscreteSystem(trapezoid quadrature, nodes constraints, m=5, k=2)
    """
    if Q is None:
        try:
            system, Q = system
        except (TypeError, ValueError):
            raise InputError("discrete_system: give (system, Q) or an object that unpacks as the pair") from None
    return DiscreteSystem(system, Q, quadrature, constraint)
