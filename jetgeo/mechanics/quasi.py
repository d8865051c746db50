r"""Systems stated in quasi-velocities: a frame of TQ, Hamel's equations, constraints in v.

A **frame** of TQ is an invertible matrix Ψ(t, q): the velocities are q̇ = Ψ(t, q) v, and the
**quasi-velocities** v^α = Φ^α_σ(t, q) q̇^σ with Φ = Ψ⁻¹ are the components of q̇ along the
vector fields X_α = Ψ^σ_α ∂/∂q^σ.  A rigid body's body-frame angular velocity is the classic
example; any other frame serves (the skate's velocity along and across its blade).  In the
jet-bundle picture the frame is a change of fibre coordinates on J¹Y, (t, q^σ, q̇^σ) →
(t, q^σ, v^α), which is linear on the fibres; the contact forms ω^σ = dq^σ − q̇^σ dt become
θ^α = Φ^α_σ ω^σ, and a constraint φ^κ(t, q, v) = 0 has the canonical (Chetaev) 1-forms
(∂φ^κ/∂v^α) θ^α — the same forms [Stolařová 2009, eq. (6)] gives for
f^κ(t, q, q̇) = φ^κ(t, q, Φ q̇), since ∂f/∂q̇^σ = (∂φ/∂v^α) Φ^α_σ.

The frame fields do not commute: [X_α, X_β] = c^γ_{αβ} X_γ with Hamel's transpositional (or
Boltzmann's three-index) symbols c^γ_{αβ}(t, q) [Hamel 1904]; [Neimark–Fufaev 1972, ch. I].
With ℓ(t, q, v) = L(t, q, Ψ v) and p_α = ∂ℓ/∂v^α, Lagrange's equations with Chetaev
reactions, d/dt ∂L/∂q̇ − ∂L/∂q = A + λ_κ ∂f^κ/∂q̇, contracted with X_β read (derived on the
theory page ``theory/quasi_velocities.md``)

.. math:: \frac{d p_\beta}{dt} = X_\beta(\ell) - c^\alpha_{\beta\gamma}\,v^\gamma p_\alpha
          + p_\alpha\,(\Phi\,\partial_t\Psi)^\alpha{}_\beta + F_\beta
          + \lambda_\kappa\,\frac{\partial\varphi^\kappa}{\partial v^\beta},
          \qquad
          \frac{d\varphi^\kappa}{dt} = \partial_t\varphi^\kappa + (\Psi v)^\sigma\partial_\sigma\varphi^\kappa
          + \dot v^\alpha\,\frac{\partial\varphi^\kappa}{\partial v^\alpha} = 0,

Hamel's equations [Hamel 1904]; [Neimark–Fufaev 1972, ch. III]; for a rigid body with its
body-frame angular velocity they are the Euler–Poincaré–Suslov equations
I Ω̇ = I Ω × Ω + λ ∂φ/∂Ω [Bloch 2003].  F_β = A_σ Ψ^σ_β are the forces along the frame;
the multipliers λ_κ are Chetaev's multipliers of the coordinate route (the same functions f).
Both rows are affine in (v̇, λ); they are solved once, exactly, by the core's
:func:`~jetgeo.geometry.exact.solve_affine`.  The coordinate route is always at hand —
:meth:`QuasiVelocitySystem.lagrangian_system` and :meth:`~QuasiVelocitySystem.constraint_submanifold`
give L(t, q, q̇) = ℓ(t, q, Φ q̇) and f = φ(t, q, Φ q̇) for every route of jetgeo (Krupková's
constrained system, the compatibility test, the recipes), and :meth:`~QuasiVelocitySystem.motion`
returns Hamel's equations as :class:`~jetgeo.mechanics.eom.EquationsOfMotion` for
:func:`~jetgeo.recipes.equivalent` and :func:`~jetgeo.numerics.simulate`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import sympy as sp

from ..errors import InputError, NotApplicableError, RankDeficientError
from ..geometry.coerce import as_expr
from ..geometry.exact import (
    depends_on,
    diff_dag,
    generic_rank,
    lu_solve_dag,
    matmul_dag,
    solve_affine,
    trig_reduce_if_small,
    xreplace_dag,
)
from ..geometry.readable import ReadableForm, readable
from ..geometry.zero import is_zero
from ..jets.fibred import FibredManifold
from .bordered import BorderedSystem
from .constrained import ConstrainedSystem
from .constraints import ConstraintSubmanifold
from .lagrangian import LagrangianSystem
from .motion import Motion

__all__ = ["BodyRotation", "QuasiVelocities", "QuasiVelocitySystem", "coordinate_form"]


@dataclass(frozen=True)
class BodyRotation:
    """What makes a frame a rigid body's: its orientation is the Euler-angle chart ``sequence`` (one of
    :data:`jetgeo.mechanics.rigid.EULER_SEQUENCES`) in the coordinates ``angles``, and its quasi-velocities
    ``omega`` are the body-frame angular velocity Ω (Ṙ = R Ω̂).  Set by
    :func:`~jetgeo.mechanics.rigid.body_angular_velocity`; read by the Lie-group integrator
    (:mod:`jetgeo.mechanics.discrete_lie`).

    Attributes
    ----------
    sequence : str
    angles : tuple of Symbols (three coordinates of Y)
    omega : tuple of Symbols (three quasi-velocities)
    """

    sequence: str
    angles: tuple
    omega: tuple


def _symbols(names: Sequence, m: int, what: str) -> tuple:
    out = tuple(sp.Symbol(n) if isinstance(n, str) else n for n in names)
    if len(out) != m:
        raise InputError(f"{what}: need {m} names for the quasi-velocities, got {len(out)}")
    if not all(isinstance(s, sp.Symbol) for s in out):
        raise InputError(f"{what}: the quasi-velocities must be named by symbols or strings, got {list(names)}")
    if len(set(out)) != m:
        raise InputError(f"{what}: the names of the quasi-velocities repeat: {[str(s) for s in out]}")
    return out


class QuasiVelocities:
    r"""A frame of TQ: q̇ = Ψ(t, q) v, v = Φ(t, q) q̇ with Φ = Ψ⁻¹ (module docstring).

    Parameters
    ----------
    Y : FibredManifold
        The configuration fibration Y → R with coordinates (t, q^σ).
    names : sequence of str or Symbol
        The m quasi-velocities v^α.
    velocities : sequence of expressions, optional
        v^α = Φ^α_σ(t, q) q̇^σ, linear and homogeneous in q̇ (e.g. a body's angular velocity
        written in Euler-angle rates).
    frame : matrix, optional
        Ψ(t, q), m × m, the columns the frame fields X_α.  Give at least one of ``velocities`` and
        ``frame``; the other matrix is obtained by one exact solve (never an explicit inverse of a
        large matrix: :func:`~jetgeo.geometry.exact.lu_solve_dag`).  Both may be given when both
        are known in closed form (a quaternion frame: the solve would bury Φ's rational entries in
        nested quotients); Φ Ψ = 1 is then checked (zero test of every entry).
    rotation : BodyRotation, optional
        Declares the frame a rigid body's (its Euler-angle chart and its Ω); ``frame.rotation`` is None
        otherwise.

    Returns
    -------
    QuasiVelocities
        With ``v`` (the symbols), ``vdot`` (their time derivatives), ``Phi``, ``Psi``,
        :meth:`structure_functions` (Hamel's c^γ_{αβ}) and the substitutions both ways.

    Examples
    --------
    The skate's velocity along and across its blade, and its rate of turn:

    >>> import sympy as sp
    >>> from jetgeo import FibredManifold
    >>> Y = FibredManifold(["x", "y", "theta"]); x, y, th = Y.q; xd, yd, thd = Y.qdot
    >>> F = QuasiVelocities(Y, ["u", "w", "r"], velocities=[xd*sp.cos(th) + yd*sp.sin(th),
    ...                                                    -xd*sp.sin(th) + yd*sp.cos(th), thd])
    >>> F.kinematics()[xd]
    u*cos(theta) - w*sin(theta)
    >>> F.structure_functions()[1][0][2]     # [X_u, X_r] = -X_w: c^w_{ur} = -1
    -1
    """

    def __init__(self, Y: FibredManifold, names: Sequence, *, velocities: Sequence | None = None,
                 frame=None, rotation: BodyRotation | None = None) -> None:
        if not isinstance(Y, FibredManifold):
            raise InputError(f"QuasiVelocities needs a FibredManifold, got {type(Y).__name__}")
        m = Y.m
        self.Y = Y
        self.v = _symbols(names, m, "QuasiVelocities")
        if rotation is not None and not (isinstance(rotation, BodyRotation) and set(rotation.angles) <= set(Y.q)
                                         and set(rotation.omega) <= set(self.v)):
            raise InputError(f"QuasiVelocities: rotation= must be a BodyRotation on coordinates of Y and "
                             f"quasi-velocities of the frame, got {rotation!r:.80}")
        #: the rigid body's chart and Ω when the frame is a body frame (:class:`BodyRotation`), else None
        self.rotation = rotation
        clash = set(self.v) & (set(Y.J2.coords) | {Y.t})
        if clash:
            raise InputError(f"QuasiVelocities: names clash with jet coordinates: {sorted(map(str, clash))}")
        self.vdot = tuple(sp.Symbol(f"{s.name}dot") for s in self.v)
        clash = set(self.vdot) & (set(Y.J2.coords) | set(self.v))
        if clash:
            raise InputError(f"QuasiVelocities: derivative names clash: {sorted(map(str, clash))}")
        if velocities is None and frame is None:
            raise InputError("QuasiVelocities: give exactly one of velocities= (v = Φ q̇) and frame= (Ψ with "
                             "q̇ = Ψ v), or both when each is known in closed form")
        Psi_given = None if frame is None else self._frame_matrix(frame, m)
        if velocities is not None:
            rows = [as_expr(e) for e in velocities]
            if len(rows) != m:
                raise InputError(f"QuasiVelocities: need {m} velocities, got {len(rows)}")
            memos: dict = {}
            Phi = sp.Matrix(m, m, lambda a, s: diff_dag(rows[a], Y.qdot[s], memos.setdefault(s, {})))
            rest = [xreplace_dag(r, dict.fromkeys(Y.qdot, sp.Integer(0))) for r in rows]
            bad = [str(r) for r, c in zip(rows, rest) if c != 0]
            if depends_on(list(Phi), set(Y.qdot) | set(Y.qddot)) or bad:
                raise InputError("QuasiVelocities: the velocities must be linear and homogeneous in q̇ "
                                 f"(v = Φ(t, q) q̇); not so: {bad or rows}")
            self.Phi = Phi
            if Psi_given is None:
                self.Psi = self._inverse(Phi, "Φ")
            else:
                off = [(a, b) for a in range(m) for b in range(m)
                       if not is_zero(sp.Add(*[Phi[a, s] * Psi_given[s, b] for s in range(m)]) - int(a == b))]
                if off:
                    raise InputError("QuasiVelocities: the frame Ψ given is not the inverse of the velocities' "
                                     f"matrix Φ: (Φ Ψ) differs from the identity at {off}")
                self.Psi = Psi_given
        else:
            self.Psi = Psi_given
            self.Phi = self._inverse(Psi_given, "Ψ")

    def _frame_matrix(self, frame, m: int) -> sp.Matrix:
        try:
            Psi = sp.Matrix(frame)
        except (TypeError, ValueError, sp.SympifyError) as exc:
            raise InputError(f"QuasiVelocities: frame= must be an m × m matrix, got {frame!r}") from exc
        if Psi.shape != (m, m):
            raise InputError(f"QuasiVelocities: frame= must be {m} × {m}, got {Psi.shape[0]} × {Psi.shape[1]}")
        Psi = Psi.applyfunc(as_expr)
        if depends_on(list(Psi), set(self.Y.qdot) | set(self.Y.qddot)):
            raise InputError("QuasiVelocities: the frame Ψ(t, q) must not depend on velocities")
        return Psi

    def _inverse(self, M: sp.Matrix, name: str) -> sp.Matrix:
        info = generic_rank(M)
        if info.rank < M.rows:
            raise RankDeficientError(f"QuasiVelocities: the frame matrix {name} has generic rank {info.rank} "
                                     f"< {M.rows}: the quasi-velocities are not independent")
        return lu_solve_dag(M, sp.eye(M.rows)).applyfunc(trig_reduce_if_small)

    @property
    def m(self) -> int:
        """The number of quasi-velocities (the dimension of the fibres of Y).

        Returns
        -------
        int
        """
        return self.Y.m

    def kinematics(self) -> dict:
        """{q̇^σ: (Ψ v)^σ}: the velocities in the quasi-velocities.

        Returns
        -------
        dict
            One entry per velocity of Y, in (t, q, v).
        """
        return {qd: sp.Add(*[self.Psi[s, a] * self.v[a] for a in range(self.m)])
                for s, qd in enumerate(self.Y.qdot)}

    def to_velocities(self) -> dict:
        """{v^α: (Φ q̇)^α}: the quasi-velocities in the jet coordinates.

        Returns
        -------
        dict
            One entry per quasi-velocity, in (t, q, q̇).
        """
        return {va: sp.Add(*[self.Phi[a, s] * self.Y.qdot[s] for s in range(self.m)])
                for a, va in enumerate(self.v)}

    def frame_derivative(self, F, alpha: int) -> sp.Expr:
        """X_α(F) = Ψ^σ_α ∂F/∂q^σ (at fixed t and v).

        Parameters
        ----------
        F : expression
            A function of (t, q, v).
        alpha : int
            The index of the frame field.

        Returns
        -------
        sympy.Expr
        """
        along = {q: self.Psi[s, alpha] for s, q in enumerate(self.Y.q) if self.Psi[s, alpha] != 0}
        return diff_dag(F, along) if along else sp.S.Zero  # on the DAG: sympy's diff walks the tree

    @cached_property
    def _c(self) -> list:
        m, Psi = self.m, self.Psi
        out = [[[sp.Integer(0)] * m for _ in range(m)] for _ in range(m)]
        for a in range(m):
            for b in range(a + 1, m):
                br = sp.Matrix([self.frame_derivative(Psi[s, b], a) - self.frame_derivative(Psi[s, a], b)
                                for s in range(m)])
                comp = self.Phi * br
                for g in range(m):
                    c = trig_reduce_if_small(comp[g])
                    out[g][a][b], out[g][b][a] = c, -c
        return out

    def structure_functions(self) -> list:
        r"""Hamel's transpositional symbols: ``c[γ][α][β]`` with [X_α, X_β] = c^γ_{αβ} X_γ.

        [Hamel 1904]; [Neimark–Fufaev 1972, ch. I]; antisymmetric in α, β, and constant (the
        structure constants of the Lie algebra, with a sign) for left- or right-invariant frames of
        a Lie group — a body frame of SO(3) gives ±ε_{αβγ}.

        Returns
        -------
        list
            Nested lists m × m × m of expressions in (t, q).
        """
        return [[list(row) for row in block] for block in self._c]


class QuasiVelocitySystem:
    r"""A Lagrangian system with constraints, stated in quasi-velocities (module docstring).

    Parameters
    ----------
    frame : QuasiVelocities
        The frame q̇ = Ψ(t, q) v.
    lagrangian : expression
        ℓ(t, q, v).
    constraints : sequence of expressions, optional
        φ^κ(t, q, v) = 0 (linear or not in v), independent (generic rank k of ∂φ/∂v).
    forces : sequence of expressions, optional
        The forces along the frame F_α(t, q, v) = A_σ Ψ^σ_α (for a rigid body with its body-frame
        angular velocity: the torque's body components).
    dependent : sequence of Symbols, optional
        The dependent quasi-velocities v^D solved from φ = 0 (constraints affine in v only;
        default: the pivot columns of ∂φ/∂v, the last ones preferred).

    Returns
    -------
    QuasiVelocitySystem
        With :meth:`equations` (Hamel's), :meth:`accelerations` {v̇^α: …} on the constraint set,
        :meth:`multipliers`, the coordinate route (:meth:`lagrangian_system`,
        :meth:`constraint_submanifold`, :meth:`constrain`) and :meth:`motion`.

    Examples
    --------
    Suslov's problem: a rigid body with its angular velocity Ω in the body frame, the
    constraint ⟨Ω, e₃⟩ = 0 [Bloch 2003]; the orientation does not enter the equations, so
    any frame of a 3-dimensional Y with constant structure functions ε serves here (the rigid-body
    helpers give the body frame of a chart of SO(3)).

    >>> import sympy as sp
    >>> from jetgeo import FibredManifold
    >>> from jetgeo.mechanics.rigid import body_angular_velocity
    >>> Y = FibredManifold(["phi", "theta", "psi"])
    >>> F = body_angular_velocity(Y, "ZXZ", ["w1", "w2", "w3"])
    >>> w1, w2, w3 = F.v
    >>> I1, I2, I3, I13, I23 = sp.symbols("I1 I2 I3 I13 I23")
    >>> T = (I1*w1**2 + I2*w2**2 + I3*w3**2)/2 + I13*w1*w3 + I23*w2*w3
    >>> S = QuasiVelocitySystem(F, T, constraints=[w3])
    >>> acc = S.accelerations()
    >>> acc[F.vdot[0]], acc[F.vdot[2]]
    ((-I13*w1*w2 - I23*w2**2)/I1, 0)
    """

    def __init__(self, frame: QuasiVelocities, lagrangian, constraints: Sequence = (), forces: Sequence | None = None,
                 dependent: Sequence | None = None) -> None:
        if not isinstance(frame, QuasiVelocities):
            raise InputError(f"QuasiVelocitySystem needs a QuasiVelocities frame, got {type(frame).__name__}")
        self.frame = F = frame
        Y = F.Y
        allowed = {Y.t, *Y.q, *F.v}
        jets = set(Y.J2.coords) - {Y.t, *Y.q}
        try:
            self.ell = as_expr(lagrangian)
            self.phi = [as_expr(c) for c in constraints]
            self.forces = [sp.Integer(0)] * Y.m if forces is None else [as_expr(a) for a in forces]
        except (sp.SympifyError, TypeError) as exc:
            raise InputError(f"QuasiVelocitySystem: not a symbolic expression: {exc}") from exc
        if len(self.forces) != Y.m:
            raise InputError(f"QuasiVelocitySystem: need {Y.m} force components along the frame, "
                             f"got {len(self.forces)}")
        for what, exprs in (("the Lagrangian", [self.ell]), ("a constraint", self.phi), ("a force", self.forces)):
            if depends_on(exprs, jets | set(F.vdot)):
                raise InputError(f"QuasiVelocitySystem: {what} must be written in (t, q, v) = "
                                 f"{tuple(map(str, allowed))}, not in the jet velocities")
        self.k = k = len(self.phi)
        memos: dict = {}
        self._J = sp.Matrix(k, Y.m, lambda r, a: diff_dag(self.phi[r], F.v[a], memos.setdefault(a, {})))
        info = generic_rank(self._J)
        if info.rank < k:
            raise RankDeficientError(f"QuasiVelocitySystem: the constraints are not independent: ∂φ/∂v has generic "
                                     f"rank {info.rank} < {k}")
        self.affine = not depends_on(list(self._J), set(F.v))
        if dependent is None:
            dependent = self._default_dependent()
        dep = tuple(sp.Symbol(d) if isinstance(d, str) else d for d in dependent)
        if len(dep) != k or not set(dep) <= set(F.v) or len(set(dep)) != k:
            raise InputError(f"QuasiVelocitySystem: dependent= must name {k} distinct quasi-velocities of "
                             f"{[str(s) for s in F.v]}, got {[str(d) for d in dep]}")
        self.dependent = dep
        self.independent = tuple(s for s in F.v if s not in dep)

    @classmethod
    def from_coordinates(cls, system: LagrangianSystem, Q: ConstraintSubmanifold | None, frame: QuasiVelocities,
                         dependent: Sequence | None = None) -> QuasiVelocitySystem:
        """A coordinate system (L, A_σ, f) rewritten in the quasi-velocities of ``frame``.

        ℓ(t, q, v) = L(t, q, Ψ v), φ^κ = f^κ(t, q, Ψ v), F_α = Ψ^σ_α A_σ(t, q, Ψ v) — the inverse of
        :meth:`lagrangian_system` and :meth:`constraint_submanifold`.

        Parameters
        ----------
        system : LagrangianSystem
        Q : ConstraintSubmanifold or None
        frame : QuasiVelocities
            A frame on the same fibred manifold.
        dependent : sequence of Symbols, optional
            As for the constructor.

        Returns
        -------
        QuasiVelocitySystem

        Examples
        --------
        >>> import sympy as sp
        >>> from jetgeo import FibredManifold, LagrangianSystem, ConstraintSubmanifold
        >>> Y = FibredManifold(["x", "y", "theta"]); x, y, th = Y.q; xd, yd, thd = Y.qdot
        >>> S = LagrangianSystem(Y, (xd**2 + yd**2 + thd**2) / 2)
        >>> Q = ConstraintSubmanifold(Y, [xd*sp.sin(th) - yd*sp.cos(th)])
        >>> F = QuasiVelocities(Y, ["u", "w", "r"], velocities=[xd*sp.cos(th) + yd*sp.sin(th),
        ...                                                    -xd*sp.sin(th) + yd*sp.cos(th), thd])
        >>> QuasiVelocitySystem.from_coordinates(S, Q, F).phi
        [-w]
        """
        if not isinstance(system, LagrangianSystem):
            raise InputError(f"from_coordinates needs a LagrangianSystem, got {type(system).__name__}")
        if not isinstance(frame, QuasiVelocities) or frame.Y.q != system.Y.q or frame.Y.t != system.Y.t:
            raise InputError("from_coordinates: the frame must be a QuasiVelocities on the system's fibred manifold")
        kin = frame.kinematics()
        memo: dict = {}

        def in_v(e):
            return trig_reduce_if_small(xreplace_dag(as_expr(e), kin, memo))

        forces = [sp.Add(*[frame.Psi[s, a] * in_v(system.forces[s]) for s in range(frame.m)]) for a in range(frame.m)]
        phi = [] if Q is None else [in_v(f) for f in Q.f]
        return cls(frame, in_v(system.L), constraints=phi, forces=[trig_reduce_if_small(a) for a in forces],
                   dependent=dependent)

    def _default_dependent(self) -> tuple:
        F, k = self.frame, self.k
        if k == 0:
            return ()
        cols = list(reversed(range(F.m)))
        info = generic_rank(self._J.extract(list(range(k)), cols))
        return tuple(sorted((F.v[cols[c]] for c in info.cols), key=F.v.index))

    # --- the equations ----------------------------------------------------------------------------------
    @cached_property
    def normal_form(self) -> dict:
        """{v^D: g(t, q, v^I)}: the constraints solved for the dependent quasi-velocities (affine φ).

        Returns
        -------
        dict
            Empty without constraints; :class:`~jetgeo.errors.NotApplicableError` for constraints
            not affine in v (their normal form has branches).
        """
        if self.k == 0:
            return {}
        if not self.affine:
            raise NotApplicableError("QuasiVelocitySystem: the constraints are not affine in the quasi-velocities; "
                                     "their normal form has branches — use lagrangian_system() and "
                                     "constraint_submanifold() for the coordinate route")
        sol = solve_affine(self.phi, self.dependent, "the constraints in the quasi-velocities")
        return {d: trig_reduce_if_small(sol.values[d]) for d in self.dependent}

    def momenta(self) -> list:
        """p_α = ∂ℓ/∂v^α.

        Returns
        -------
        list
            m expressions in (t, q, v).
        """
        return list(self._momenta)

    @cached_property
    def _momenta(self) -> tuple:
        return tuple(diff_dag(self.ell, va) for va in self.frame.v)  # on the DAG (a contact point's ℓ is large)

    def energy(self) -> sp.Expr:
        """The energy E = p_α v^α − ℓ in the jets (v = Φ q̇): the energy q̇·∂L/∂q̇ − L of
        :meth:`lagrangian_system` (q̇·∂L/∂q̇ = p_α Φ^α_σ q̇^σ), from the small expressions in v.

        Returns
        -------
        sympy.Expr
            A function of (t, q, q̇).

        Examples
        --------
        >>> import sympy as sp
        >>> from jetgeo import FibredManifold
        >>> Y = FibredManifold(["x", "y", "theta"]); x, y, th = Y.q; xd, yd, thd = Y.qdot
        >>> F = QuasiVelocities(Y, ["u", "w", "r"], velocities=[xd*sp.cos(th) + yd*sp.sin(th),
        ...                                                    -xd*sp.sin(th) + yd*sp.cos(th), thd])
        >>> u, w, r = F.v
        >>> S = QuasiVelocitySystem(F, (u**2 + w**2 + r**2) / 2, constraints=[w])
        >>> from jetgeo.geometry.zero import is_zero
        >>> is_zero(S.energy() - S.lagrangian_system().energy())
        True
        """
        p = self._momenta
        return xreplace_dag(sp.Add(*[pa * va for pa, va in zip(p, self.frame.v)]) - self.ell, self._to_v)

    def _ddt(self, G, vdot: bool = True) -> sp.Expr:
        """Total derivative of G(t, q, v) along q̇ = Ψ v with v̇ the symbols ``vdot`` (``vdot=False``:
        without the v̇ terms), in one pass over the DAG of G (sympy's diff walks the tree: 12 of the
        19 s of the rattleback's bordered system)."""
        key = "with" if vdot else "without"
        if key not in self._ddt_memo:
            F, Y = self.frame, self.frame.Y
            qdot = F.kinematics()
            along = {Y.t: sp.S.One, **{q: qdot[qd] for q, qd in zip(Y.q, Y.qdot)}}
            if vdot:
                along.update(zip(F.v, F.vdot))
            self._ddt_memo[key] = (along, {})
        along, memo = self._ddt_memo[key]
        return diff_dag(G, along, memo)

    @cached_property
    def _ddt_memo(self) -> dict:
        return {}

    @cached_property
    def _hamel(self) -> list:
        F, Y = self.frame, self.frame.Y
        m, c, p = F.m, F._c, self.momenta()
        PhiPsit = F.Phi * F.Psi.diff(Y.t)
        out = []
        for b in range(m):
            e = [self._ddt(p[b]), -F.frame_derivative(self.ell, b), -self.forces[b]]
            e.extend(c[a][b][g] * F.v[g] * p[a] for a in range(m) for g in range(m) if c[a][b][g] != 0)
            e.extend(-p[a] * PhiPsit[a, b] for a in range(m) if PhiPsit[a, b] != 0)
            out.append(sp.Add(*e))
        return out

    def equations(self) -> list:
        r"""Hamel's expressions H_β = ṗ_β − X_β(ℓ) + c^α_{βγ} v^γ p_α − p_α (Φ ∂_tΨ)^α_β − F_β.

        The motion is H_β = λ_κ ∂φ^κ/∂v^β with φ = 0 ([Hamel 1904]; module docstring).

        Returns
        -------
        list
            m expressions in (t, q, v, v̇), affine in v̇.
        """
        return list(self._hamel)

    @cached_property
    def _solution(self):
        F, k = self.frame, self.k
        lam = sp.symbols(f"lambda1:{k + 1}") if k else ()
        rows = [h - sp.Add(*[lam[r] * self._J[r, b] for r in range(k)]) for b, h in enumerate(self._hamel)]
        rows += [self._ddt(ph) for ph in self.phi]
        on = self.normal_form if self.affine else {}
        memo: dict = {}
        rows = [xreplace_dag(r, on, memo) for r in rows]
        sol = solve_affine(rows, [*F.vdot, *lam], "Hamel's equations with Chetaev multipliers")
        vals = {s: trig_reduce_if_small(e) for s, e in sol.values.items()}
        return vals, list(lam), sol.det

    def accelerations(self) -> dict:
        """{v̇^α: expression} for every α, on the constraint set.

        Returns
        -------
        dict
            In (t, q, v^I) when the constraints are affine in v (the dependent v^D eliminated by
            :attr:`normal_form`), else in (t, q, v), valid where φ = 0.
        """
        vals, _, _ = self._solution
        return {vd: vals[vd] for vd in self.frame.vdot}

    def readable_accelerations(self) -> ReadableForm:
        """The accelerations v̇ in readable form (:func:`~jetgeo.geometry.readable`): exact zeros, one
        factored denominator, numerators collected in the quasi-velocities, shared subexpressions named.

        Returns
        -------
        ReadableForm
            ``equations`` {v̇^α: …}; ``expand()`` equals :meth:`accelerations`.

        Examples
        --------
        >>> import sympy as sp
        >>> from jetgeo import FibredManifold
        >>> from jetgeo.mechanics.rigid import body_angular_velocity
        >>> F = body_angular_velocity(FibredManifold(["a", "b", "c"]), "XYZ", ["p", "q", "r"])
        >>> A, B, C = sp.symbols("A B C")
        >>> print(QuasiVelocitySystem(F, (A*F.v[0]**2 + B*F.v[1]**2 + C*F.v[2]**2)/2).readable_accelerations())
        pdot = q*r*(B - C)/A
        qdot = p*r*(-A + C)/B
        rdot = p*q*(A - B)/C
        """
        return readable(self.accelerations(), velocities=self.frame.v)

    def _repr_latex_(self) -> str:
        """Hamel's equations solved for v̇, in readable form."""
        return readable(self.accelerations(), velocities=self.frame.v)._repr_latex_()

    def multipliers(self) -> list:
        """Chetaev's multipliers λ_κ: H_β = λ_κ ∂φ^κ/∂v^β, the same λ as the coordinate route's
        d/dt ∂L/∂q̇ − ∂L/∂q = A + λ_κ ∂f^κ/∂q̇ [Benenti 2007, eq. (3.14)].

        Returns
        -------
        list
            k expressions on the constraint set, in the coordinates of :meth:`accelerations`.
        """
        vals, lam, _ = self._solution
        return [vals[x] for x in lam]

    def validity_conditions(self) -> list:
        """The determinant of the bordered system in (v̇, λ) (the equations hold where it is non-zero).

        Returns
        -------
        list
            One expression.
        """
        return [self._solution[2]]

    def bordered_system(self) -> BorderedSystem:
        r"""Hamel's equations as the bordered system W q̈ − Jᵀλ = ℓ, J q̈ = −b in the jets.

        With Hamel's rows W_v v̇ + h = J_vᵀ λ (W_v = ∂²ℓ/∂v∂v, h = H|_{v̇=0}), the differentiated
        constraints J_v v̇ + c = 0 and v̇ = Φ q̈ − a, a = Φ Ψ̇ v (from q̈ = d/dt(Ψ v)), multiplying the
        first rows by Φᵀ gives the blocks of :class:`~jetgeo.mechanics.bordered.BorderedSystem`:

        .. math:: W = Φ^T W_v Φ,\quad ℓ = Φ^T (W_v a − h),\quad J = J_v Φ,\quad b = c − J_v a,

        the coordinate route's W = ∂²L/∂q̇∂q̇ and J = ∂f/∂q̇ and the same multipliers, but built
        from the small expressions in v (then v = Φ q̇): what simulation's ``"multipliers"``
        formulation solves numerically at every step, with no symbolic solve and no large tree
        (``simulate(S, ..., formulation="multipliers", backend="c")`` takes the system itself and
        builds nothing else; with the C backend the solve is generated code too).

        Returns
        -------
        BorderedSystem
            Blocks in (t, q, q̇).
        """
        F, Y, k, m = self.frame, self.frame.Y, self.k, self.frame.m
        zero = dict.fromkeys(F.vdot, sp.Integer(0))
        p = self.momenta()
        memos: list = [{} for _ in range(m)]
        # H is affine in v̇ through ṗ only (ℓ, the forces and the transpositional terms have no v̇):
        # W_v = ∂H/∂v̇ = ∂p/∂v, the Hessian of ℓ in v
        Wv = sp.Matrix(m, m, lambda a, b: diff_dag(p[a], F.v[b], memos[b]))
        zmemo: dict = {}
        h = sp.Matrix([xreplace_dag(e, zero, zmemo) for e in self._hamel])
        kin = F.kinematics()
        Psidot = F.Psi.diff(Y.t) + sp.Add(*[F.Psi.diff(q) * kin[qd] for q, qd in zip(Y.q, Y.qdot)])
        a = matmul_dag(F.Phi, Psidot * sp.Matrix(F.v))
        c = sp.Matrix([self._ddt(ph, vdot=False) for ph in self.phi])
        Jv = self._J
        to_v = self._to_v
        memo: dict = {}

        def jets(M):
            return M.applyfunc(lambda e: xreplace_dag(e, to_v, memo))

        # products on the DAG (sympy's matrix product asks every zero entry's partner is_finite)
        W = jets(matmul_dag(F.Phi.T, matmul_dag(Wv, F.Phi)))
        ell = jets(matmul_dag(F.Phi.T, matmul_dag(Wv, a) - h))
        J = jets(matmul_dag(Jv, F.Phi)) if k else sp.zeros(0, m)
        b = jets(c - matmul_dag(Jv, a)) if k else sp.zeros(0, 1)
        return BorderedSystem(W, tuple(ell), J, tuple(b))

    # --- the coordinate route -------------------------------------------------------------------------
    @cached_property
    def _to_v(self) -> dict:
        return self.frame.to_velocities()

    def lagrangian_system(self) -> LagrangianSystem:
        """L(t, q, q̇) = ℓ(t, q, Φ q̇) with the forces A_σ = Φ^α_σ F_α(t, q, Φ q̇).

        Returns
        -------
        LagrangianSystem
            The coordinate form, on which every route of jetgeo runs.
        """
        F = self.frame
        A = [sp.Add(*[F.Phi[a, s] * xreplace_dag(self.forces[a], self._to_v) for a in range(F.m)])
             for s in range(F.m)]
        return LagrangianSystem(F.Y, xreplace_dag(self.ell, self._to_v), forces=A)

    def constraint_submanifold(self) -> ConstraintSubmanifold:
        """f^κ(t, q, q̇) = φ^κ(t, q, Φ q̇) (requires at least one constraint).

        Returns
        -------
        ConstraintSubmanifold
        """
        if not self.phi:
            raise InputError("QuasiVelocitySystem: no constraints, so no constraint submanifold")
        return ConstraintSubmanifold(self.frame.Y, [xreplace_dag(ph, self._to_v) for ph in self.phi])

    def constrain(self) -> ConstrainedSystem:
        """Krupková's constrained system of the coordinate route [Stolařová 2009, eq. (12)].

        Returns
        -------
        ConstrainedSystem
            ``lagrangian_system().constrain(constraint_submanifold())``.
        """
        return self.lagrangian_system().constrain(self.constraint_submanifold())

    def motion(self) -> Motion:
        r"""Hamel's equations as :class:`~jetgeo.mechanics.eom.EquationsOfMotion`.

        The accelerations q̈ = d/dt (Ψ v) with v̇ from :meth:`accelerations`, written in
        (t, q, v^I); ``substitution`` q̇ = Ψ v (v^D = g), ``to_jet`` v^I = (Φ q̇)^I — so that
        :func:`~jetgeo.recipes.equivalent` compares it with any coordinate route and
        :func:`~jetgeo.numerics.simulate` integrates it.

        Returns
        -------
        Motion
            ``recipe="quasi_velocities"``; extras: ``vdot`` (the accelerations in v), ``equations``
            (Hamel's expressions) and ``frame``.
        """
        F, Y = self.frame, self.frame.Y
        acc_v = self.accelerations()
        on = self.normal_form if self.affine else {}
        rule = {**acc_v}
        kin = F.kinematics()
        qdd = {}
        for qd, qdd_s in zip(Y.qdot, Y.qddot):
            e = xreplace_dag(self._ddt(kin[qd]), on)
            qdd[qdd_s] = trig_reduce_if_small(xreplace_dag(e, rule))
        sub = {qd: trig_reduce_if_small(xreplace_dag(kin[qd], on)) for qd in Y.qdot}
        coords = (Y.t, *Y.q, *(self.independent if self.affine else F.v))
        to_jet = {va: self._to_v[va] for va in coords[1 + Y.m:]}
        system = self.lagrangian_system()
        Q = self.constraint_submanifold() if self.phi else None
        lam = self.multipliers() if self.phi else None
        reactions = None
        if lam is not None:  # R_σ = λ_κ ∂f^κ/∂q̇^σ = λ_κ (∂φ^κ/∂v^α) Φ^α_σ on the constraint set
            J = self._J.applyfunc(lambda e: xreplace_dag(e, on))
            reactions = [sp.Add(*[lam[r] * J[r, a] * F.Phi[a, s] for r in range(self.k) for a in range(F.m)])
                         for s in range(F.m)]
        return Motion(recipe="quasi_velocities", system=system, Q=Q, accelerations=qdd, coordinates=coords,
                      substitution=sub, multipliers=lam, reactions=reactions,
                      bordered=self.bordered_system() if self.phi else None,
                      conditions=self.validity_conditions(),
                      extras={"vdot": acc_v, "equations": self.equations(), "frame": F},
                      to_jet=to_jet)

    def jet_state(self, values: dict, params: dict | None = None) -> dict:
        """A state in jet coordinates from one in quasi-velocities: the given t, q and v^I (v^D from
        the normal form when the constraints are affine), completed with q̇ = Ψ(t, q) v.

        Parameters
        ----------
        values : dict
            {symbol or name: number} for q (t optional, default 0) and the independent v^I (every v
            when the constraints are not affine in v; then the values must satisfy φ = 0).
        params : dict, optional
            Values of the parameters the frame or the normal form contain.

        Returns
        -------
        dict
            {q^σ: value, q̇^σ: value, v^α: value} (exact where the data are exact), ready for
            :func:`~jetgeo.numerics.simulate`'s ``initial``.
        """
        F, Y = self.frame, self.frame.Y
        by_name = {str(k): as_expr(v) for k, v in values.items()}
        by_name.update({str(k): as_expr(v) for k, v in (params or {}).items()})
        need = [*Y.q, *(self.independent if self.affine else F.v)]
        missing = [str(s) for s in need if str(s) not in by_name]
        if missing:
            raise InputError(f"jet_state: values missing for {missing}")
        rule = {s: by_name[str(s)] for s in {Y.t, *Y.q, *F.v, *self._parameters()} if str(s) in by_name}
        rule.setdefault(Y.t, sp.Integer(0))
        out = {q: rule[q] for q in Y.q}
        vs = {va: rule[va] for va in need[Y.m:]}
        on = self.normal_form if self.affine else {}
        for d, g in on.items():
            vs[d] = g.xreplace(rule)
        for va in F.v:
            rule[va] = vs[va]
        out.update(vs)
        for qd, e in self.frame.kinematics().items():
            out[qd] = e.xreplace(rule)
        return out

    def _parameters(self) -> set:
        F, Y = self.frame, self.frame.Y
        exprs = [self.ell, *self.phi, *self.forces, *F.Psi]
        syms = set().union(*(e.free_symbols for e in exprs))
        return syms - {Y.t, *Y.q, *F.v}

    def __repr__(self) -> str:
        return (f"QuasiVelocitySystem(v = {tuple(map(str, self.frame.v))}, {self.k} constraint"
                f"{'' if self.k == 1 else 's'} in v)")


def coordinate_form(system, Q=None, who: str = "the caller", needs_Q: bool = True) -> tuple:
    """The front door of the coordinate routes (the recipes, the (L, C, D, F) problem):
    (LagrangianSystem, ConstraintSubmanifold or None).

    A :class:`QuasiVelocitySystem` given alone (its constraints are in
    it) is read in its coordinate form L(q, q̇) = ℓ(q, Φ(q) q̇), f = φ(q, Φ(q) q̇)
    (``lagrangian_system()``, ``constraint_submanifold()``), the one conversion they all use;
    a LagrangianSystem comes with its Q.

    Parameters
    ----------
    system : LagrangianSystem or QuasiVelocitySystem
        The system.
    Q : ConstraintSubmanifold, optional
        Its constraints (not with a QuasiVelocitySystem, which carries them).
    who : str
        The caller's name, for the error messages.
    needs_Q : bool
        Whether a LagrangianSystem must come with Q.

    Returns
    -------
    (LagrangianSystem, ConstraintSubmanifold or None)
    """
    if isinstance(system, QuasiVelocitySystem):
        if Q is not None:
            raise InputError(f"{who}: a QuasiVelocitySystem carries its constraints; pass it alone, not with Q")
        return system.lagrangian_system(), system.constraint_submanifold()
    if needs_Q and Q is None:
        raise InputError(f"{who}: needs a constraint submanifold Q (or a QuasiVelocitySystem, which carries one)")
    return system, Q
