r"""Simulation with constraint monitoring: :func:`simulate` and :class:`SimulationResult`.

**Formulations.**  A constrained system gives the accelerations q̈^σ = F^σ(t, q, q̇^I) of
every coordinate on Q (seed 004 (8)–(12): the independent ones from the reduced equations,
the dependent ones as q̈^D = dg/dt).  jetgeo integrates either

* ``formulation="full"`` (default): the state (q, q̇) ∈ J¹Y with
  q̇' = F — Q is an invariant manifold of this ODE, so the constraint values
  f^i(t, q, q̇) along the numerical solution measure the integration error (they drift at
  the integrator's tolerance), or
* ``formulation="reduced"``: the state (q, q̇^I) on Q with q' = (q̇^I, g(t, q, q̇^I))
  (the normal form, 004 (4)): the constraints hold by construction.

**Projection** (``project=True``, full formulation).  After every accepted step of an
explicit Runge–Kutta method the velocities are projected back onto Q along the kinetic
metric W = ∂²L/∂q̇∂q̇ (Newton iteration for min ½ Δq̇ᵀWΔq̇ subject to f(t, q, q̇ + Δq̇) = 0,
Δq̇ = −W⁻¹Jᵀ(JW⁻¹Jᵀ)⁻¹ f with J = ∂f/∂q̇): the residuals stay at round-off.

**Energy balance.**  Along any motion of the constrained system
d/dt(∂L/∂q̇^σ) − ∂L/∂q^σ = A_σ + R_σ (001 (3.14), R_σ = λ_i ∂f^i/∂q̇^σ the Chetaev
reaction), the energy E_L = q̇^σ ∂L/∂q̇^σ − L satisfies

.. math:: \frac{dE_L}{dt} = -\frac{\partial L}{\partial t} + A_\sigma\dot q^\sigma + R_\sigma\dot q^\sigma,
          \qquad R_\sigma\dot q^\sigma = \lambda_i\,\frac{\partial f^i}{\partial\dot q^\sigma}\dot q^\sigma .

If f^i is homogeneous of degree d_i in the velocities (even with t-dependent
coefficients), Euler's identity gives R·q̇ = d_i λ_i f^i = 0 on Q: the reaction does no
work.  The result object returns all three powers along the solution so that the
balance can be checked (``energy_balance``).

**Singular states.**  Integration stops (terminal events) where the problem stops being
well posed, with an explanation: the constraint rank drops (004 (3); for a homogeneous
constraint the zero section, 001 Remark 7.5), the regularity determinant (004 (12))
vanishes, the normal form's determinant det ∂f/∂q̇^D vanishes (another choice of
dependent velocities is needed), the branch of a nonlinear constraint leaves its
domain, or a condition carried by a result (``Motion.conditions``) vanishes.  A quantity
c "vanishes" when it changes sign or |c| falls below ``singular_tol`` times its initial size;
the integrator is stepped by hand so that a non-negative quantity that only *touches* zero
inside a step (det JJᵀ at a zero section, where the multiplier formulation stays smooth) is
caught too (a minimum search on the step's dense output).
"""

from __future__ import annotations

import math
import sys
import warnings
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import sympy as sp
from scipy.integrate import BDF, DOP853, LSODA, RK23, RK45, OdeSolution, Radau

from ..errors import (
    BranchError,
    InputError,
    NotRegularError,
    OffManifoldError,
    RankDeficientError,
    SpecError,
    UndecidedError,
)
from ..geometry.coerce import as_expr
from ..geometry.display import tidy_latex
from ..mechanics import ConstrainedSystem, ConstraintSubmanifold, LagrangianSystem
from ..mechanics.bordered import bordered_system
from ..mechanics.eom import EquationsOfMotion, dependent_velocities
from .compile import CompiledFunction, compile_rhs


def _ev(*args, **kw) -> CompiledFunction:
    """compile_rhs for the monitors evaluated along a solution (plain cse, no extra passes)."""
    return compile_rhs(*args, optimizations=None, **kw)

__all__ = ["simulate", "SimulationResult", "SingularEvent", "ChartSwitch", "SimulationStoppedWarning", "prepare"]

_RK = {"RK45": RK45, "RK23": RK23, "DOP853": DOP853}


# ----------------------------------------------------------------------------------------------
# the numerical model of a system
# ----------------------------------------------------------------------------------------------
@dataclass
class _Condition:
    expr: sp.Expr
    # "threshold" (|c| must not fall to 0), "sign" (c must stay ≥ 0), "rank", or "chart" (a threshold
    # that only bounds the chart of Q in use: the atlas switches charts there instead of stopping)
    kind: str
    explanation: str


@dataclass
class _Model:
    Y: object
    acc: list
    g: dict
    f: list
    system: object | None
    lam: list | None
    reactions: list | None
    conditions: list
    method: str
    cs: object | None = None  # the ConstrainedSystem (its other charts are reached from it)
    Q: object | None = None   # the constraint submanifold, when known

    @property
    def t(self):
        return self.Y.t

    @property
    def q(self):
        return tuple(self.Y.q)

    @property
    def qdot(self):
        return tuple(self.Y.qdot)


def _pair_of(obj):
    """(LagrangianSystem, ConstraintSubmanifold) if ``obj`` is such a pair (a tuple, or an object with
    ``.system`` and ``.Q`` that is not itself equations of motion: a catalogue entry, an imported
    model), else None."""
    if isinstance(obj, (tuple, list)) and len(obj) == 2:
        system, Q = obj
    elif not isinstance(obj, EquationsOfMotion) and isinstance(getattr(obj, "system", None), LagrangianSystem):
        system, Q = obj.system, getattr(obj, "Q", None)
    else:
        return None
    if isinstance(system, LagrangianSystem) and isinstance(Q, ConstraintSubmanifold):
        return system, Q
    return None


def _model_of(obj, formulation: str = "full") -> _Model:
    """Normalise what :func:`simulate` is given into the pieces the integrator needs.

    * a (system, Q) pair: integrated in the multipliers formulation without ever forming the
      normal form;
    * :class:`~jetgeo.mechanics.eom.EquationsOfMotion` (a ConstrainedSystem, a Motion, …): its
      accelerations, normal form (``substitution``), validity conditions, multipliers and
      reactions, all asked through the protocol.  The canonical route (a ConstrainedSystem) is the
      one the atlas can move to other charts; its normal form's determinant bounds a chart only,
      and its multipliers are computed numerically from the bordered system along the solution
      (cheaper than the symbolic ``multipliers()``, same values on Q);
    * a :class:`~jetgeo.mechanics.LagrangianSystem`: the free motion;
    * any other object with ``.Y`` and ``.accelerations()``: a second-order ODE on J¹Y.
    """
    pair = _pair_of(obj)
    if pair is not None:
        system, Q = pair
        if formulation != "multipliers":
            raise SpecError("a (system, Q) pair is integrated in formulation='multipliers' (no normal form); "
                            f"got {formulation!r} — for 'full' or 'reduced' pass system.constrain(Q)")
        return _Model(Q.Y, [], {}, list(Q.f), system, None, None, [], "constrained system (bordered)", Q=Q)
    if isinstance(obj, ConstrainedSystem):
        cs = obj
        if formulation == "multipliers":
            return _Model(cs.Y, [], dict(cs.g), list(cs.Q.f), cs.system, None, None, [], "constrained system",
                          cs=cs, Q=cs.Q)
        Y = cs.Y
        acc = cs.accelerations()
        conds = []
        reg, nfc = cs.regularity_condition(), cs.nf.condition
        for c in cs.validity_conditions():
            if c == nfc:
                conds.append(_Condition(nfc, "chart", f"the normal form q̇^D = g for {list(cs.dependent)} is "
                                        f"singular: det ∂f/∂q̇^D = {nfc} vanishes (choose other dependent "
                                        "velocities, or formulation='multipliers', which needs no normal form)"))
            else:
                conds.append(_Condition(c, "threshold", "the constrained system stops being regular: the "
                                        f"determinant [Stolařová 2009, eq. (12)], {reg}, vanishes"))
        conds += _branch_conditions(cs.nf.branch)
        return _Model(Y, [acc[a] for a in Y.qddot], dict(cs.g), list(cs.Q.f), cs.system, None, None, conds,
                      "constrained system", cs=cs, Q=cs.Q)
    if isinstance(obj, EquationsOfMotion):
        return _model_of_eom(obj)
    if isinstance(obj, LagrangianSystem):
        acc = obj.accelerations()
        return _Model(obj.Y, [acc[a] for a in obj.Y.qddot], {}, [], obj, None, None, [], "LagrangianSystem")
    Y = getattr(obj, "Y", None)
    if Y is None or not callable(getattr(obj, "accelerations", None)):
        raise SpecError("simulate needs equations of motion (jetgeo.mechanics.EquationsOfMotion), a "
                        "LagrangianSystem, a pair (system, Q) or an object with .Y and .accelerations(); "
                        f"got {type(obj).__name__}")
    acc = obj.accelerations()
    missing = [a for a in Y.qddot if a not in acc]
    if missing:
        raise SpecError(f"simulate: .accelerations() gives no expression for {missing}; one per coordinate is needed")
    return _Model(Y, [as_expr(acc[a]) for a in Y.qddot], {}, [], None, None, None, [], type(obj).__name__)


def _model_of_eom(eom: EquationsOfMotion) -> _Model:
    """The model of equations of motion other than the canonical route (a recipe's Motion, …)."""
    system, Q = eom.system, eom.Q
    Y = system.Y if system is not None else Q.Y
    acc = eom.accelerations()
    to_jet = dict(eom.to_jet or {})
    missing = [a for a in Y.qddot if a not in acc]
    if missing:
        raise SpecError(f"simulate: .accelerations() gives no expression for {missing}; one per coordinate is needed")
    acc_l = [as_expr(acc[a]).xreplace(to_jet) for a in Y.qddot]
    foreign = set(eom.coordinates or ()) - {Y.t, *Y.q, *Y.qdot}
    left = sorted({str(s) for e in acc_l for s in e.free_symbols & foreign})
    if left:
        raise SpecError(
            f"simulate: the accelerations are written in the coordinates {left}, which are not jet coordinates, "
            "and the result has no map to_jet expressing them in (t, q, q̇); give one (e.g. z = z(t, q, q̇) "
            "of a parametrisation)"
        )
    g, f = {}, []
    conds = []
    if Q is not None:
        f = list(Q.f)
        try:  # the normal form is optional here (the reduced formulation and complete=True use it)
            nf = Q.normal_form(dependent=dependent_velocities(eom) or None, branch=eom.branch)
        except (BranchError, RankDeficientError, UndecidedError):
            nf = None
        if nf is not None:
            g = dict(nf.g)
            conds += _branch_conditions(nf.branch)
    for c in eom.validity_conditions():
        c = as_expr(c).xreplace(to_jet)
        if not _is_const(c):
            conds.append(_Condition(c, "threshold", f"a condition of the result ({getattr(eom, 'method', '?')}), "
                                    f"{c}, vanishes"))
    lam = eom.multipliers()
    lam = None if lam is None else [as_expr(x).xreplace(to_jet) for x in lam]
    R = eom.reactions()
    R = None if R is None else [as_expr(x).xreplace(to_jet) for x in R]
    return _Model(Y, acc_l, g, f, system, lam, R, conds, getattr(eom, "method", type(eom).__name__), Q=Q)


def _latex_float(v: float) -> str:
    """A float in LaTeX: 1.2 \\cdot 10^{-11}."""
    m, _, e = f"{v:.3g}".partition("e")
    return m if not e else rf"{m} \cdot 10^{{{int(e)}}}"


def _is_const(e) -> bool:
    return not as_expr(e).free_symbols


def _branch_conditions(br) -> list:
    out = []
    for c in getattr(br, "nonnegative", []) or []:
        out.append(_Condition(c, "sign", f"the solution leaves the domain of branch {br.index}: {c} becomes negative"))
    for c in getattr(br, "nonzero", []) or []:
        out.append(_Condition(c, "threshold", f"a denominator of branch {br.index}, {c}, vanishes"))
    return out


# ----------------------------------------------------------------------------------------------
# results
# ----------------------------------------------------------------------------------------------
@dataclass
class SingularEvent:
    """Where and why the integration was stopped: time, explanation, the expression and its value."""

    t: float
    explanation: str
    expr: object
    value: float
    initial_value: float

    def __str__(self) -> str:
        return (f"stopped at t = {self.t:.6g}: {self.explanation} "
                f"(value {self.value:.3g}, initially {self.initial_value:.3g})")


@dataclass
class SimulationResult:
    """A simulated motion, with the constraint residuals, energy, multipliers and reactions along it.

    Arrays are indexed by time first: ``q[i, σ]`` is q^σ(t_i).  ``residuals[i, j]`` is the
    value of the j-th constraint f^j(t_i, q, q̇) (``constraints`` lists them; ``residual_scale``
    holds Σ|terms of f^j|, the size of what cancels, for relative figures), ``energy``
    E_L = q̇·∂L/∂q̇ − L (None without a Lagrangian), ``multipliers[i, j]`` λ_j and
    ``reactions[i, σ]`` R_σ = λ_j ∂f^j/∂q̇^σ (None when the method does not give them).
    ``reaction_power`` R·q̇, ``force_power`` A·q̇ and ``explicit_power`` −∂L/∂t make up
    dE_L/dt (theory/numerics.md, "The energy balance").  ``event`` tells why the integration stopped early.
    """

    t: np.ndarray
    q: np.ndarray
    qdot: np.ndarray
    q_symbols: tuple
    qdot_symbols: tuple
    constraints: list
    residuals: np.ndarray
    residual_scale: np.ndarray
    energy: np.ndarray | None
    multipliers: np.ndarray | None
    reactions: np.ndarray | None
    reaction_power: np.ndarray | None
    force_power: np.ndarray | None
    explicit_power: np.ndarray | None
    integrals: dict
    success: bool
    status: str
    message: str
    event: SingularEvent | None
    nfev: int
    projected: bool
    formulation: str
    params: dict
    sol: object = None
    _to_full: object = field(default=None, repr=False)
    #: the chart switches of the atlas (:class:`ChartSwitch`), in time order
    charts: list = field(default_factory=list)

    # --- derived figures ----------------------------------------------------------------------
    @property
    def max_residual(self) -> float:
        """max over time and constraints of |f^j| (0 without constraints)."""
        return float(np.max(np.abs(self.residuals))) if self.residuals.size else 0.0

    @property
    def max_relative_residual(self) -> float:
        """max of |f^j| / (1 + Σ|terms of f^j|): the residual against the size of the terms that cancel."""
        if not self.residuals.size:
            return 0.0
        return float(np.max(np.abs(self.residuals) / (1.0 + np.abs(self.residual_scale))))

    @property
    def energy_drift(self) -> np.ndarray | None:
        """E_L(t) − E_L(t_0)."""
        return None if self.energy is None else self.energy - self.energy[0]

    @property
    def max_energy_drift(self) -> float | None:
        """max |E_L(t) − E_L(t_0)|."""
        return None if self.energy is None else float(np.max(np.abs(self.energy - self.energy[0])))

    @property
    def relative_energy_drift(self) -> float | None:
        """max |E_L(t) − E_L(t_0)| / max(|E_L(t_0)|, tiny)."""
        if self.energy is None:
            return None
        return self.max_energy_drift / max(abs(float(self.energy[0])), 1e-300)

    def integral_drift(self, name: str) -> float:
        """max |I(t) − I(t_0)| of a first integral given to :func:`simulate`."""
        v = self.integrals[name]
        return float(np.max(np.abs(v - v[0])))

    def energy_balance(self) -> np.ndarray | None:
        r"""E_L(t) − E_L(t_0) − ∫_{t_0}^t (−∂_t L + A·q̇ + R·q̇) dt (trapezoidal rule on the output
        times): zero up to the quadrature and integration error when the energy identity holds."""
        if self.energy is None or self.reaction_power is None:
            return None
        from scipy.integrate import cumulative_trapezoid

        power = self.reaction_power + self.force_power + self.explicit_power
        work = cumulative_trapezoid(power, self.t, initial=0.0)
        return self.energy - self.energy[0] - work

    # --- access ---------------------------------------------------------------------------
    def column(self, coord) -> np.ndarray:
        """The time series of a coordinate or velocity (symbol or name), or ``"t"``."""
        name = str(coord)
        if name == "t" or (len(self.q_symbols) and name == "t"):
            return self.t
        for i, s in enumerate(self.q_symbols):
            if str(s) == name:
                return self.q[:, i]
        for i, s in enumerate(self.qdot_symbols):
            if str(s) == name:
                return self.qdot[:, i]
        raise SpecError(f"{coord} is not a coordinate or velocity of this result: {list(self.q_symbols)}")

    def __call__(self, t):
        """(q, q̇) at time(s) t from the dense output."""
        if self.sol is None:
            raise SpecError("no dense output was kept (simulate(..., dense_output=True))")
        y = self.sol(t)
        return self._to_full(np.atleast_1d(t), y if y.ndim == 2 else y[:, None])

    def summary(self) -> str:
        lines = [f"simulation ({self.formulation}{', projected' if self.projected else ''}): {self.message}",
                 f"  t in [{self.t[0]:.6g}, {self.t[-1]:.6g}], {len(self.t)} output points, {self.nfev} rhs calls"]
        if self.residuals.size:
            lines.append(f"  max |constraint residual| = {self.max_residual:.3g}")
        if self.energy is not None:
            lines.append(f"  energy drift max |E - E0| = {self.max_energy_drift:.3g} "
                         f"(relative {self.relative_energy_drift:.3g})")
        for c in self.charts:
            lines.append(f"  chart switch at {c}")
        if self.event is not None:
            lines.append(f"  {self.event}")
        return "\n".join(lines)

    __str__ = summary

    def _repr_html_(self) -> str:
        import html

        rows = "".join(f"<tr><td>{html.escape(line.strip())}</td></tr>" for line in self.summary().splitlines())
        return f"<table>{rows}</table>"

    def _repr_latex_(self) -> str:
        """The monitored figures as a LaTeX array (constraints f^j, their max |f^j|, energy drift, event)."""
        rows = [rf"\text{{{self.formulation}{', projected' if self.projected else ''}}} & "
                rf"t \in [{self.t[0]:.6g},\ {self.t[-1]:.6g}],\ {len(self.t)}\ \text{{points}}"]
        for j, f in enumerate(self.constraints):
            val = float(np.max(np.abs(self.residuals[:, j]))) if self.residuals.size else 0.0
            rows.append(rf"\max_t |{sp.latex(f)}| & {_latex_float(val)}")
        if self.energy is not None:
            rows.append(rf"\max_t |E_L - E_L(t_0)| & {_latex_float(self.max_energy_drift)}")
        for c in self.charts:
            rows.append(rf"\text{{chart switch at }} t = {c.t:.6g} & "
                        rf"({', '.join(map(sp.latex, c.old))}) \to ({', '.join(map(sp.latex, c.new))})")
        if self.event is not None:
            rows.append(rf"\text{{stopped at }} t = {self.event.t:.6g} & "
                        rf"{tidy_latex(self.event.expr) if isinstance(self.event.expr, sp.Basic) else self.event.expr}"
                        r" \to 0")
        return "$\\begin{array}{ll}" + r" \\ ".join(rows) + r"\end{array}$"

    # --- plots (matplotlib, optional) -----------------------------------------------------
    def plot(self, coords=None, **kw):
        """Trajectory and its projections on the coordinate planes (see :mod:`jetgeo.numerics.plots`)."""
        from .plots import plot_trajectory

        return plot_trajectory(self, coords, **kw)

    def plot_monitor(self, **kw):
        """Constraint residuals and energy drift against time."""
        from .plots import plot_monitor

        return plot_monitor(self, **kw)

    def plot_reactions(self, **kw):
        """Reaction forces (and multipliers) against time."""
        from .plots import plot_reactions

        return plot_reactions(self, **kw)


# ----------------------------------------------------------------------------------------------
# preparation: symbolic → compiled
# ----------------------------------------------------------------------------------------------
class Prepared:
    """The compiled pieces of a system for a given formulation (reusable across simulations)."""

    def __init__(self, model: _Model, formulation: str, first_integrals: Mapping | None = None,
                 backend: str = "python") -> None:
        if formulation not in ("full", "reduced", "multipliers"):
            raise SpecError(f"formulation must be 'full', 'reduced' or 'multipliers', got {formulation!r}")
        if formulation == "multipliers" and (model.system is None or not model.f):
            raise SpecError("formulation='multipliers' needs a Lagrangian system and implicit constraints f")
        if formulation == "reduced" and not model.g:
            raise SpecError("formulation='reduced' needs the normal form q̇^D = g of the constraints")
        self.model = M = model
        self.formulation = formulation
        self.backend = backend
        t, q, qd = M.t, M.q, M.qdot
        self.full_state = q + qd
        dep = tuple(v for v in qd if v in M.g)
        self.dependent = dep
        self.independent = tuple(v for v in qd if v not in M.g)
        sysL = M.system
        self.energy_expr = sysL.energy() if sysL is not None and hasattr(sysL, "energy") else None
        self.integrals = {str(k): as_expr(v) for k, v in (first_integrals or {}).items()}
        if formulation == "full":
            self.state = self.full_state
            rhs = list(qd) + list(M.acc)
        elif formulation == "multipliers":
            self.state = self.full_state
            rhs = []
        else:
            self.state = q + self.independent
            rhs = [M.g.get(v, v) for v in qd]
            rhs += [M.acc[qd.index(v)].xreplace(M.g) for v in self.independent]
        # parameters: everything that is not a jet coordinate
        jets = {t, *q, *qd}
        pool = list(rhs) + list(M.f) + list(M.g.values())
        for extra in (M.lam or []) + (M.reactions or []) + [c.expr for c in M.conditions]:
            pool.append(extra)
        if sysL is not None:
            pool += [sysL.L, *sysL.forces]
        pool += list(self.integrals.values())
        params = set()
        for e in pool:
            params |= as_expr(e).free_symbols - jets
        self.params = tuple(sorted(params, key=str))
        P = self.params
        self._J = (sp.Matrix(len(M.f), len(qd), lambda i, j: sp.diff(M.f[i], qd[j])) if M.f else None)
        self.bordered = None
        if isinstance(sysL, LagrangianSystem) and M.Q is not None and M.f:
            # W q̈ − Jᵀλ = ℓ, J q̈ = −b [Ghori 1960, eq. (2.2.20)–(2.2.23)], solved numerically per call
            dae = compile_rhs(bordered_system(sysL, M.Q).flat(), self.full_state, P, t, name="bordered_system")
            self.bordered = _BorderedRHS(dae, len(q), len(M.f))
        if formulation == "multipliers":
            self.rhs = self.bordered
        else:
            self._rhs_exprs = rhs
            self.rhs = compile_rhs(rhs, self.state, P, t, name="rhs", backend=backend)
        # along-solution evaluators (vectorized, in the full state)
        self.v_f = _ev(M.f, self.full_state, P, t, vectorized=True, name="constraints") if M.f else None
        self.s_f = _ev(M.f, self.full_state, P, t, name="constraints_s") if M.f else None
        fscale = [sp.Add(*[sp.Abs(a) for a in sp.Add.make_args(f)]) for f in M.f]
        self.v_fscale = (_ev(fscale, self.full_state, P, t, vectorized=True, name="constraint_scale_v")
                         if M.f else None)
        self.s_fscale = _ev(fscale, self.full_state, P, t, name="constraint_scale") if M.f else None
        self.s_g = (_ev([M.g[d] for d in dep], self.full_state, P, t, name="normal_form") if dep else None)
        self.v_g = (_ev([M.g[d] for d in dep], self.full_state, P, t, vectorized=True, name="normal_form_v")
                    if dep else None)
        self.v_energy = (_ev([self.energy_expr], self.full_state, P, t, vectorized=True, name="energy")
                         if self.energy_expr is not None else None)
        self.v_lam = (_ev(M.lam, self.full_state, P, t, vectorized=True, name="multipliers")
                      if M.lam else None)
        self.v_R = (_ev(M.reactions, self.full_state, P, t, vectorized=True, name="reactions")
                    if M.reactions else None)
        if sysL is not None:
            self.v_A = _ev(list(sysL.forces), self.full_state, P, t, vectorized=True, name="forces")
            self.v_dLdt = _ev([-sp.diff(sysL.L, t)], self.full_state, P, t, vectorized=True, name="dLdt")
            W = sysL.hessian()
        else:
            self.v_A = self.v_dLdt = None
            W = sp.eye(len(q))
        self.v_int = (compile_rhs(list(self.integrals.values()), self.full_state, P, t, vectorized=True,
                                  name="integrals") if self.integrals else None)
        # projection pieces (full state)
        if M.f:
            J = self._J
            self.s_J = compile_rhs(J, self.full_state, P, t, name="constraint_jacobian")
            self.s_W = compile_rhs(W, self.full_state, P, t, name="metric", optimizations=None)
            # the constraint rank monitor works in the integration state
            self.i_J = (compile_rhs(J.xreplace(M.g), self.state, P, t, name="constraint_jacobian_i")
                        if formulation == "reduced" else self.s_J)
        else:
            self.s_J = self.s_W = self.i_J = None
        # condition monitors in the integration state
        sub = M.g if formulation == "reduced" else {}
        conds = M.conditions if formulation != "multipliers" else []
        self.i_conds = [(c, _ev([c.expr.xreplace(sub)], self.state, P, t, name="condition"))
                        for c in conds]

    def ensure_jacobian(self) -> None:
        """Compile ∂F/∂y of the right-hand side (for the implicit methods Radau, BDF, LSODA)."""
        if self.formulation != "multipliers" and self.rhs.jacobian is None:
            self.rhs = compile_rhs(self._rhs_exprs, self.state, self.params, self.model.t, jacobian=True, name="rhs",
                                   backend=self.backend)

    # full state (q, q̇) from the integration state, vectorized: y has shape (n_state, N)
    def to_full(self, t, y, p) -> np.ndarray:
        if self.formulation != "reduced":
            return y
        M = self.model
        m = len(M.q)
        out = np.empty((2 * m, y.shape[1]))
        out[:m] = y[:m]
        ind_pos = {v: m + i for i, v in enumerate(self.independent)}
        # evaluate g on a provisional full state (g does not contain q̇^D)
        prov = np.zeros((2 * m, y.shape[1]))
        prov[:m] = y[:m]
        for v, i in ind_pos.items():
            prov[m + M.qdot.index(v)] = y[i]
        gv = self.v_g(t, prov, p) if self.v_g is not None else np.zeros((0, y.shape[1]))
        out[m:] = prov[m:]
        for k, d in enumerate(self.dependent):
            out[m + M.qdot.index(d)] = gv[k]
        return out


_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def prepare(system, formulation: str = "full", first_integrals: Mapping | None = None,
            backend: str = "python") -> Prepared:
    """Compile a system once for repeated simulations (``simulate(prepared, ...)`` accepts it).

    Without first integrals the compiled pieces are cached per system object (weakly), so
    repeated ``simulate(cs, ...)`` calls on the same system compile once.  ``backend`` is the
    :func:`~jetgeo.numerics.compile.compile_rhs` backend of the right-hand side ("python", "c"
    or "auto"; the monitors evaluated along the solution stay in Python/NumPy).
    """
    if first_integrals:
        return Prepared(_model_of(system, formulation), formulation, first_integrals, backend)
    try:
        per = _CACHE.setdefault(system, {})
    except TypeError:  # not weak-referenceable or not hashable: no cache
        return Prepared(_model_of(system, formulation), formulation, None, backend)
    key = formulation if backend == "python" else (formulation, backend)
    if key not in per:
        per[key] = Prepared(_model_of(system, formulation), formulation, None, backend)
    return per[key]


# ----------------------------------------------------------------------------------------------
# simulate
# ----------------------------------------------------------------------------------------------
def _lookup(values: Mapping, s: sp.Symbol):
    if s in values:
        return values[s]
    for k, v in values.items():
        if str(k) == str(s):
            return v
    return None


def _progress(enabled, t0, t1):
    """A tqdm bar if wanted and possible (None otherwise)."""
    if enabled is False:
        return None
    if enabled is None and not (hasattr(sys.stderr, "isatty") and sys.stderr.isatty()):
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        if enabled:
            warnings.warn("progress=True needs tqdm (pip install tqdm); continuing without a progress bar",
                          stacklevel=3)
        return None
    return tqdm(total=1000, desc="simulate", unit="‰", leave=False)


def _finite(value, what: str, positive: bool = False, allow_inf: bool = False) -> float:
    """``value`` as a float, InputError unless finite (or +inf with ``allow_inf``) and > 0 / ≥ 0."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating, sp.Number)):
        raise InputError(f"simulate: {what} must be a number, got {type(value).__name__} {value!r:.40}")
    v = float(value)
    if math.isnan(v) or (math.isinf(v) and not (allow_inf and v > 0)):
        raise InputError(f"simulate: {what} must be finite, got {value!r}")
    if (positive and not v > 0) or v < 0:
        raise InputError(f"simulate: {what} must be {'> 0' if positive else '>= 0'}, got {value!r}")
    return v


def _check_arguments(t_span, rtol, atol, t_eval, max_step, singular_tol, manifold_tol) -> None:
    """InputError for arguments the integrator would misread: t_span = (0, nan) and rtol = nan ran for
    ever, manifold_tol = nan switched the off-Q check off, t_eval outside the span returned one sample
    with success=True, t_span = (0, 0) raised ZeroDivisionError."""
    try:
        t0, t1 = t_span
    except (TypeError, ValueError):
        raise InputError(f"simulate: t_span must be a pair (t0, t1), got {t_span!r:.60}") from None
    if isinstance(t0, bool) or isinstance(t1, bool):
        raise InputError(f"simulate: t_span must hold numbers, got {t_span!r:.60}")
    t0 = _finite(t0, "t_span[0]")
    t1 = _finite(t1, "t_span[1]")
    if t0 == t1:
        raise InputError(f"simulate: t_span = ({t0:g}, {t1:g}) is empty; give t1 != t0")
    _finite(rtol, "rtol", positive=True)
    _finite(atol, "atol")
    _finite(max_step, "max_step", positive=True, allow_inf=True)
    _finite(singular_tol, "singular_tol")
    _finite(manifold_tol, "manifold_tol")
    if t_eval is not None:
        try:
            te = np.asarray(t_eval, dtype=float).ravel()
        except (TypeError, ValueError):
            raise InputError(f"simulate: t_eval must be a sequence of numbers, got {t_eval!r:.60}") from None
        if te.size == 0:
            raise InputError("simulate: t_eval is empty")
        if not np.all(np.isfinite(te)):
            raise InputError("simulate: t_eval holds a non-finite value")
        lo, hi = min(t0, t1), max(t0, t1)
        tol = 1e-12 * max(1.0, abs(lo), abs(hi))
        out = te[(te < lo - tol) | (te > hi + tol)]
        if out.size:
            raise InputError(f"simulate: t_eval value {out[0]:g} lies outside t_span = ({t0:g}, {t1:g})")
        d = np.diff(te)
        if te.size > 1 and not (np.all(d > 0) if t1 > t0 else np.all(d < 0)):
            raise InputError("simulate: t_eval must be strictly monotonic in the direction of t_span")


def simulate(
    system,
    t_span: Sequence,
    initial: Mapping,
    params: Mapping | None = None,
    project: bool = False,
    complete: bool = False,
    formulation: str = "full",
    method: str = "DOP853",
    rtol: float = 1e-10,
    atol: float = 1e-12,
    t_eval=None,
    max_step: float = np.inf,
    dense_output: bool = True,
    events: bool = True,
    singular_tol: float = 1e-6,
    manifold_tol: float = 1e-9,
    first_integrals: Mapping | None = None,
    progress: bool | None = None,
    backend: str | None = None,
    atlas: bool = True,
) -> SimulationResult:
    r"""Integrate the equations of motion of a (constrained) system from data on Q.

    The state is integrated in one of three formulations (``"full"``: (q, q̇) on J¹Y with the
    accelerations of Krupková's reduced equations [Krupková–Stolařová 2012, eq. (8)];
    ``"reduced"``: (q, q̇^I) on Q with the normal form q̇^D = g [Krupková–Stolařová 2012,
    eq. (4)]; ``"multipliers"``: (q, q̇) with the bordered system W q̈ − Jᵀλ = …, J q̈ = −d̄f
    solved at every step, no normal form).  The run stops early only at a *singular state of
    the problem*, with a :class:`SimulationStoppedWarning` and ``result.event`` saying why:
    the rank of ∂f/∂q̇ drops [Krupková–Stolařová 2012, eq. (3)], the constrained system stops
    being regular [Krupková–Stolařová 2012, eq. (12)], the multiplier equations become singular
    [Ibort et al. 1997, eq. (4.17)], a branch of a nonlinear constraint leaves its domain, or a
    condition of a result (``Motion.conditions``) vanishes.

    **The atlas** (``atlas=True``, a ConstrainedSystem in the full or reduced formulation).  A
    normal form is a chart of Q: it fails where det ∂f/∂q̇^D = 0 although Q is smooth there (the
    sleigh's ẏ = ẋ tan θ at θ = π/2).  With J = ∂f/∂q̇ and N the number of k-subsets D of the
    m velocities, Cauchy–Binet gives det(J Jᵀ) = Σ_D det(J_D)², so the chart quality
    ρ_D = det(J_D)²/det(J Jᵀ) ∈ [0, 1] sums to 1 over the choices and some choice has ρ ≥ 1/N
    wherever the rank condition holds.  The run is watched for ρ of the choice in force falling
    below 1/(4N); there the state (t, q, q̇) is handed to the choice of largest ρ at that point
    (its normal form and accelerations derived once and cached, :meth:`ConstrainedSystem.
    with_dependent`; a nonlinear constraint's branch is identified from the state) and the
    integration continues (in the full formulation from the velocities projected onto Q along the
    kinetic metric, as ``project=True`` does after every step: the drift f ≠ 0 that the full
    formulation accumulates is not carried into the new chart, where the old dependent velocities
    become independent ones).  ``result.charts`` lists each switch (time, old and new dependent
    velocities, why).  ``atlas=False`` keeps one chart and stops at its boundary.

    Parameters
    ----------
    system : ConstrainedSystem, Motion, LagrangianSystem, any object with ``.accelerations()``,
        the result of :func:`prepare`, or a pair (LagrangianSystem, ConstraintSubmanifold) (a
        catalogue entry or an imported model too): integrated in the multipliers formulation
        from the bordered system W q̈ − Jᵀλ = …, J q̈ = −d̄f, solved numerically at every step —
        no normal form and no symbolic accelerations, the way to simulate long chains of bodies.
    t_span : (t0, t1)
    initial : {symbol or name: value}
        Values of every q^σ and q̇^σ at t0.  With ``complete=True`` k of the velocities may be
        omitted (k the number of constraints; usually the dependent ones): they are computed
        from f(t0, q, q̇) = 0 — whatever the formulation, and whichever k velocities the
        constraints can be solved for at the point.  Data off Q raise
        :class:`~jetgeo.errors.OffManifoldError` naming the violated constraint and its value.
    params : {symbol or name: value}
        Values of the parameters (masses, radii, …).
    project : bool
        Project the velocities back onto Q after every step (full formulation, explicit
        Runge–Kutta methods RK45/RK23/DOP853).
    formulation : "full", "reduced" or "multipliers" (see above).
    method, rtol, atol, t_eval, max_step, dense_output : passed to scipy's integrators.
    events : bool
        Stop at singular states with an explanation (and switch charts, with ``atlas``).
    first_integrals : {name: expression in (t, q, q̇)}
        Extra quantities to evaluate along the solution (``result.integrals``).
    progress : None (auto: only in a terminal and if tqdm is installed), True or False.
    backend : None, "python", "c" or "auto"
        How the right-hand side is compiled (:func:`~jetgeo.numerics.compile.compile_rhs`);
        None means "python", or the backend of a prepared system.  With "c" a division by
        zero in the right-hand side gives inf/nan instead of raising.
    atlas : bool
        Continue across the boundaries of the normal form's chart (see above).

    More: the module's docstring (constraint monitoring, projection, the energy balance), which
    ``help(importlib.import_module("jetgeo.numerics.simulate"))`` shows — ``jetgeo.numerics.simulate``
    is this function — and ``theory/numerics.md``.
    """
    _check_arguments(t_span, rtol, atol, t_eval, max_step, singular_tol, manifold_tol)
    if formulation == "full" and _pair_of(system) is not None:
        formulation = "multipliers"  # a (system, Q) pair has no symbolic accelerations to integrate
    prep = system if isinstance(system, Prepared) else prepare(system, formulation, first_integrals,
                                                               backend or "python")
    if isinstance(system, Prepared) and first_integrals:
        raise SpecError("give first_integrals to prepare(), not to simulate(), when passing a prepared system")
    if isinstance(system, Prepared) and backend is not None and backend != system.backend:
        raise SpecError(f"simulate: the prepared system was compiled with backend={system.backend!r}, not "
                        f"{backend!r}; give backend to prepare()")
    M = prep.model
    t0, t1 = float(t_span[0]), float(t_span[1])
    params = dict(params or {})
    pvals = []
    missing_p = []
    for s in prep.params:
        v = _lookup(params, s)
        if v is None:
            missing_p.append(s)
        else:
            pvals.append(float(v))
    if missing_p:
        raise SpecError(f"simulate: no value given for the parameter(s) {sorted(map(str, missing_p))}")
    p = np.array(pvals, dtype=float)
    y_full = _initial_data(prep, initial, complete, t0, p)
    atlas_on = bool(atlas and events and M.cs is not None and M.f and prep.formulation in ("full", "reduced"))
    switches: list = []
    stop = None
    if atlas_on:
        prep, stop = _chart_for(prep, t0, y_full, p, switches, first_integrals, initial_check=True)
    _check_on_manifold(prep, t0, y_full, p, manifold_tol)
    bar = _progress(progress, t0, t1)
    run = dict(method=method, rtol=rtol, atol=atol, t_eval=t_eval, max_step=max_step, project=project,
               events=events, singular_tol=singular_tol, bar=bar, dense_output=dense_output)
    segments = []
    try:
        t_start, y_start = t0, y_full
        while True:
            seg, hit = _segment(prep, t_start, t1, y_start, p, params, atlas_on, **run)
            segments.append(seg)
            if hit is None:
                break
            t_start, y_start = hit
            if prep.formulation == "full":  # start the new chart on Q: the velocities projected along W
                y_start = _project(prep, t_start, y_start, p)
            prep, stop = _chart_for(prep, t_start, y_start, p, switches, first_integrals)
            if stop is not None:
                break
    finally:
        if bar is not None:
            bar.close()
    res = segments[0] if len(segments) == 1 else _merge(segments, t_eval is not None)
    res.charts = list(switches)
    if stop is not None:  # no chart of Q continues at the switch point: a singular state after all
        res.event = stop
        res.status, res.success = "singular", True
        res.message = f"integration stopped at t = {stop.t:.6g}: {stop.explanation}"
    if res.status != "finished":
        warnings.warn(f"simulate: the run ended at t = {res.t[-1]:.6g} before t = {t1:g}: {res.message}",
                      SimulationStoppedWarning, stacklevel=2)
    return res


class SimulationStoppedWarning(UserWarning):
    """A simulation ended before the end of its time span (a singular state, or a failed step);
    ``result.event`` / ``result.message`` say why."""


def _segment(prep: Prepared, t0, t1, y_full, p, params, atlas_on: bool, *, method, rtol, atol, t_eval,
             max_step, project, events, singular_tol, bar, dense_output):
    """Integrate in one chart from the full state ``y_full`` at t0.  Returns (result, hit) where
    hit = (t, full state) when the chart monitor of the atlas fired (None otherwise)."""
    M = prep.model
    m = len(M.q)
    if prep.formulation != "reduced":
        y0 = y_full.copy()
    else:
        y0 = np.concatenate([y_full[:m], [y_full[m + M.qdot.index(v)] for v in prep.independent]])
    ev_list = _events(prep, t0, y0, p, singular_tol, skip_chart=atlas_on) if events else []
    if atlas_on:
        ev_list.append(_chart_monitor(prep, t0, y0, p))
        if getattr(M, "atlas_chart", False) and prep.bordered is not None:
            ev_list.append(_bordered_monitor(prep, t0, y0, p))
    span = (t1 - t0) or 1.0

    if method in ("Radau", "BDF", "LSODA"):
        prep.ensure_jacobian()
    fun_c = prep.rhs._func
    jac_c = prep.rhs.jacobian._func if prep.rhs.jacobian is not None else None
    if bar is not None:
        state = {"n": bar.n}

        def fun(t, y):
            k = int(1000 * (t - t0) / span)
            if k > state["n"]:
                bar.update(k - state["n"])
                state["n"] = k
            return fun_c(t, y, p)
    else:
        def fun(t, y):
            return fun_c(t, y, p)

    def jac(t, y):
        return jac_c(t, y, p)

    projecting = bool(project and prep.formulation != "reduced" and M.f)
    out = _integrate(prep, fun, jac if jac_c is not None else None, (t0, t1), y0, p, method, rtol, atol,
                     t_eval, max_step, ev_list, bar, projecting)
    if not dense_output:
        out.sol = None
    hit = None
    if out.status == 1:
        k = next(i for i, te in enumerate(out.t_events) if len(te))
        if getattr(ev_list[k][0], "chart", None) is not None:
            te = float(out.t_events[k][0])
            hit = (te, prep.to_full(np.array([te]), np.asarray(out.y_events[k][0])[:, None], p)[:, 0])
            out.status, out.message = 0, f"chart boundary at t = {te:.6g}"
    return _finish(prep, out, p, params, ev_list, projecting, t0), hit


def _check_on_manifold(prep: Prepared, t0, y_full, p, tol) -> None:
    M = prep.model
    if not M.f:
        return
    vals = prep.s_f(t0, y_full, p)
    scales = prep.s_fscale(t0, y_full, p)
    for i, (f, v, s) in enumerate(zip(M.f, vals, scales)):
        if not np.isfinite(v) or abs(v) > tol * (1.0 + abs(s)):
            raise OffManifoldError(
                f"the initial data are not on the constraint manifold Q: constraint f^{i + 1} = {f} should vanish "
                f"but its value at t = {t0:g} is {v:.6g} (tolerance {tol * (1.0 + abs(s)):.3g}). Give consistent "
                f"velocities, or omit {len(M.f)} of them (e.g. the dependent velocities of the choice in force, "
                f"{_names(_choice_in_force(prep))}) and pass complete=True to compute them from f = 0"
            )
    if prep.s_g is not None:
        m = len(M.q)
        gv = prep.s_g(t0, y_full, p)
        for k, d in enumerate(prep.dependent):
            have = y_full[m + M.qdot.index(d)]
            if abs(have - gv[k]) > tol * (1.0 + abs(have)) * 1e3:
                raise OffManifoldError(
                    f"the initial data satisfy the constraints but not the chosen branch of the normal form: "
                    f"{d} = {M.g[d]} gives {gv[k]:.6g}, the data say {have:.6g} (another branch of Q: choose it "
                    "with branch= when constraining the system)"
                )


def _events(prep: Prepared, t0, y0, p, tol, skip_chart: bool = False) -> list:
    """[(event function, explanation, expr, initial value)] in the integration state; with
    ``skip_chart`` the conditions that only bound the chart in use (the atlas watches those)."""
    out = []

    def make_threshold(fn, c0, kind_rank=False):
        thr = tol * abs(c0)

        if kind_rank:
            def ev(t, y):
                J = fn(t, y, p)
                return float(np.linalg.det(J @ J.T)) - thr
        else:
            def ev(t, y):
                return abs(float(fn(t, y, p)[0])) - thr
        ev.terminal = True
        ev.direction = -1
        ev.thr = thr
        ev.touch = True  # a quantity ≥ 0 that may touch 0 (det JJᵀ ∝ |q̇|² at a zero section): watch minima too
        return ev

    if prep.i_J is not None:
        J0 = prep.i_J(t0, y0, p)
        c0 = float(np.linalg.det(J0 @ J0.T))
        if c0 <= 0:
            raise NotRegularError("the initial state is a singular state of the constraints: rank ∂f/∂q̇ < k "
                                  "there (seed 004, condition (3))")
        out.append((make_threshold(prep.i_J, c0, True),
                    "singular state of the constraints: rank ∂f/∂q̇ drops below the number of constraints "
                    "(seed 004 condition (3); for a homogeneous constraint this is the zero section, seed 001 "
                    "Remark 7.5) — measured by det(J Jᵀ), J = ∂f/∂q̇", "det(J J^T)", c0))
    if prep.formulation == "multipliers":
        K0 = prep.rhs.solve(t0, y0, p)[2]
        d0 = float(np.linalg.det(K0))
        if d0 == 0:
            raise NotRegularError("the initial state is singular: the bordered matrix [[W, -J^T], [J, 0]] of the "
                                  "multiplier equations is singular (seed 002, det M = 0, (4.17))")

        s_d0 = float(np.sign(d0))

        def bordered(t, y, s0=s_d0):
            return s0 * float(np.linalg.det(prep.rhs.solve(t, y, p)[2]))

        bordered.terminal = True
        bordered.direction = -1
        bordered.thr = 0.0
        out.append((bordered, "the multiplier equations become singular: det [[W, -J^T], [J, 0]] vanishes "
                    "(the compatibility condition det M ≠ 0 of seed 002 (4.17) fails)", "det K", d0))
    for c, fn in prep.i_conds:
        if skip_chart and c.kind == "chart":
            continue
        c0 = float(fn(t0, y0, p)[0])
        if c.kind == "sign":
            if c0 < 0:
                raise NotRegularError(f"the initial state is outside the branch's domain: {c.expr} = {c0:.3g} < 0")

            def ev(t, y, fn=fn):
                return float(fn(t, y, p)[0])

            ev.terminal = True
            ev.direction = -1
            ev.thr = 0.0
            out.append((ev, c.explanation, c.expr, c0))
        else:
            if c0 == 0 or not np.isfinite(c0):
                raise NotRegularError(f"the initial state is singular: {c.explanation} (value {c0})")
            out.append((make_threshold(fn, c0), c.explanation, c.expr, c0))

            # a sign change within one step is not seen by the threshold: watch c itself too
            s_c0 = float(np.sign(c0))

            def cross(t, y, fn=fn, s0=s_c0):
                return s0 * float(fn(t, y, p)[0])

            cross.terminal = True
            cross.direction = -1
            cross.thr = 0.0
            out.append((cross, c.explanation, c.expr, c0))
    return out


# ----------------------------------------------------------------------------------------------
# initial data
# ----------------------------------------------------------------------------------------------
def _choice_in_force(prep: Prepared) -> tuple:
    """The dependent velocities of the normal form in use, else Q's own choice (a (system, Q) pair)."""
    if prep.dependent:
        return tuple(prep.dependent)
    Q = prep.model.Q
    return tuple(Q.dependent) if Q is not None else ()


def _names(symbols) -> str:
    return "[" + ", ".join(map(str, symbols)) + "]"


def _initial_data(prep: Prepared, initial: Mapping, complete: bool, t0: float, p) -> np.ndarray:
    """The full state (q, q̇) at t0 from the user's data; with ``complete`` the k missing velocities
    are solved from f(t0, q, q̇) = 0 (numerically and exactly in one step when f is affine in the
    velocities, else from the normal form for those velocities)."""
    M = prep.model
    m = len(M.q)
    y = np.full(2 * m, np.nan)
    miss = []
    for i, s in enumerate(prep.full_state):
        v = _lookup(initial, s)
        if v is None:
            miss.append(s)
        else:
            y[i] = float(v)
    miss_q = [s for s in miss if s in M.q]
    if miss_q:
        raise SpecError(f"simulate: initial values missing for the coordinates {_names(miss_q)}")
    miss_v = [s for s in miss if s in M.qdot]
    if not miss_v:
        return y
    k = len(M.f)
    choice = _choice_in_force(prep)
    given_dep = [d for d in choice if d not in miss_v]
    if not k:
        raise SpecError(f"simulate: initial values missing for the velocities {_names(miss_v)} (there are no "
                        "constraints to compute them from)")
    where = (f"the dependent velocities of the choice in force are {_names(choice)}"
             + (f" ({', '.join(map(str, given_dep))} given)" if given_dep else ""))
    if not complete:
        raise SpecError(
            f"simulate: initial values missing for the velocities {_names(miss_v)}; {where}. Give them, or pass "
            f"complete=True to compute {k} missing velocit{'y' if k == 1 else 'ies'} from the constraints "
            "f(t, q, q̇) = 0")
    if len(miss_v) > k:
        raise SpecError(
            f"simulate: complete=True computes {k} velocit{'y' if k == 1 else 'ies'} from the {k} constraint(s), "
            f"but {len(miss_v)} are missing: {_names(miss_v)}; give all but {k} ({where})")
    if len(miss_v) < k:
        if prep.s_g is not None and set(miss_v) <= set(prep.dependent):
            gv = prep.s_g(t0, np.where(np.isnan(y), 0.0, y), p)
            for d, val in zip(prep.dependent, gv):
                if np.isnan(y[m + M.qdot.index(d)]):
                    y[m + M.qdot.index(d)] = val
            return y
        raise SpecError(
            f"simulate: complete=True computes the missing velocities from the constraints: omit exactly {k} "
            f"velocities the constraints can be solved for ({where}); missing: {_names(miss_v)}")
    idx = [m + M.qdot.index(v) for v in miss_v]
    J = prep._J
    if prep.s_J is not None and not any(e.has(*M.qdot) for e in J):
        # f affine in the velocities: f(q̇) = f(q̇ with q̇^M = 0) + J_M q̇^M, one exact linear solve
        y0 = np.where(np.isnan(y), 0.0, y)
        f0 = np.asarray(prep.s_f(t0, y0, p), dtype=float)
        J0 = np.asarray(prep.s_J(t0, y0, p), dtype=float)
        cols = [i - m for i in idx]
        if not np.all(np.isfinite(J0)) or _chart_quality(J0, cols) < 1e-20:
            raise SpecError(
                f"simulate: the constraints cannot be solved for {_names(miss_v)} at the initial point "
                f"(∂f/∂({', '.join(map(str, miss_v))}) is singular there); give those velocities and omit others "
                f"({where})")
        y[idx] = np.linalg.solve(J0[:, cols], -f0)
        return y
    Q = M.Q if M.Q is not None else (M.cs.Q if M.cs is not None else None)
    if set(miss_v) == set(prep.dependent) and prep.s_g is not None:
        gv = prep.s_g(t0, np.where(np.isnan(y), 0.0, y), p)
        for d, val in zip(prep.dependent, gv):
            y[m + M.qdot.index(d)] = val
        return y
    if Q is None:
        raise SpecError(f"simulate: cannot complete {_names(miss_v)}: no constraint submanifold is known")
    Qm = Q.with_dependent(miss_v)
    brs = Qm.branches()
    if len(brs) != 1:
        raise SpecError(
            f"simulate: the constraints have {len(brs)} solution branches for {_names(miss_v)}; give those "
            "velocities (complete=True cannot choose a branch)")
    g = [brs[0].solution[v] for v in miss_v]
    gv = _ev(g, prep.full_state, prep.params, M.t, name="completion")(t0, np.where(np.isnan(y), 0.0, y), p)
    y[idx] = gv
    return y


# ----------------------------------------------------------------------------------------------
# the atlas: charts of Q (choices of dependent velocities) along a simulation
# ----------------------------------------------------------------------------------------------
@dataclass
class ChartSwitch:
    """A change of the dependent velocities at time ``t``: ``old`` → ``new``, because the chart
    quality ρ = det(J_D)²/det(J Jᵀ) of the old choice fell to ``rho_old`` (the new one has
    ``rho_new`` there)."""

    t: float
    old: tuple
    new: tuple
    reason: str
    rho_old: float
    rho_new: float

    def __str__(self) -> str:
        return f"t = {self.t:.6g}: dependent velocities {_names(self.old)} → {_names(self.new)} ({self.reason})"


#: switch charts where ρ_D < _CHART_SWITCH / N (N the number of k-subsets of the velocities; some
#: choice has ρ ≥ 1/N, so the chart switched to is never close to its own boundary)
_CHART_SWITCH = 0.25


def _chart_quality(J: np.ndarray, cols) -> float:
    """ρ_D = det(J_D)²/det(J Jᵀ) ∈ [0, 1] (Cauchy–Binet: Σ_D ρ_D = 1); 1.0 where J Jᵀ is singular
    (that is the rank monitor's business)."""
    G = float(np.linalg.det(J @ J.T))
    if not G > 0 or not np.isfinite(G):
        return 1.0
    d = float(np.linalg.det(J[:, list(cols)]))
    return d * d / G


def _switch_threshold(k: int, m: int) -> float:
    from math import comb

    return _CHART_SWITCH / comb(m, k)


def _best_choice(J: np.ndarray) -> tuple:
    """Column indices D maximising ρ_D at a point (every k-subset when there are at most 5000 of
    them, else QR with column pivoting: a near-maximal volume)."""
    from itertools import combinations
    from math import comb

    k, m = J.shape
    if comb(m, k) <= 5000:
        best, cols = -1.0, None
        for c in combinations(range(m), k):
            r = _chart_quality(J, c)
            if r > best + 1e-12:
                best, cols = r, c
        return tuple(cols)
    from scipy.linalg import qr

    _, _, piv = qr(J, pivoting=True)
    return tuple(sorted(int(i) for i in piv[:k]))


def _chart_monitor(prep: Prepared, t0, y0, p):
    """The atlas's event: ρ of the choice in force minus the switching threshold."""
    M = prep.model
    cols = [M.qdot.index(d) for d in prep.dependent]
    thr = _switch_threshold(len(M.f), len(M.qdot))

    def ev(t, y):
        return _chart_quality(np.asarray(prep.i_J(t, y, p), dtype=float), cols) - thr

    ev.terminal = True
    ev.direction = -1
    ev.thr = thr
    ev.chart = tuple(prep.dependent)
    return (ev, f"the chart of {_names(prep.dependent)} ends", "rho", ev(t0, y0) + thr)


_ATLAS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _atlas_prep(cs, dependent: tuple, branch, formulation: str, first_integrals, backend: str) -> Prepared:
    """The compiled model of ``cs`` in the chart q̇^D = g_D(t, q, q̇^I), D = ``dependent``, as the atlas
    enters it: the normal form of that choice (for the reduced formulation and the chart's monitors) and
    the accelerations on TQ (:func:`~jetgeo.mechanics.accelerations_on_TQ`: functions of all velocities
    that solve J q̈ = −d̄f at every (t, q, q̇), so that f is a first integral of the full formulation's
    ODE — it is not amplified off Q whatever the chart; the on-Q accelerations q̈(t, q, q̇^I) of a chart
    are only tangent to Q, and some charts repel: ḟ = −(∂g/∂q^D) f).  Regularity is watched through
    the bordered matrix [[W, −Jᵀ], [J, 0]], non-singular exactly where the reduced mass matrix of any
    chart is [Ibort et al. 1997, eq. (4.17)].  Derived once per (system, chart), compiled once per
    formulation (without first integrals)."""
    from ..mechanics import accelerations_on_TQ

    key = (tuple(dependent), branch, formulation, backend)
    per = _ATLAS.setdefault(cs, {})
    if key in per and not first_integrals:
        return per[key]
    mkey = (tuple(dependent), branch)
    if mkey not in per:
        Qn = cs.Q.with_dependent(dependent, branch=branch)
        nf = Qn.normal_form(branch=branch)
        acc = accelerations_on_TQ(cs.system, Qn, dependent=list(dependent))
        conds = []
        if not _is_const(nf.condition):
            conds.append(_Condition(nf.condition, "chart", f"the normal form q̇^D = g for {_names(dependent)} is "
                                    f"singular: det ∂f/∂q̇^D = {nf.condition} vanishes"))
        conds += _branch_conditions(nf.branch)
        Y = cs.Y
        model = _Model(Y, [acc[a] for a in Y.qddot], dict(nf.g), list(cs.Q.f), cs.system, None, None, conds,
                       f"constrained system, chart {_names(dependent)} (accelerations on TQ)", cs=cs, Q=Qn)
        model.atlas_chart = True
        per[mkey] = model
    prep = Prepared(per[mkey], formulation, first_integrals, backend)
    if not first_integrals:
        per[key] = prep
    return prep


def _bordered_monitor(prep: Prepared, t0, y0, p):
    """Regularity in any chart: the sign of det [[W, −Jᵀ], [J, 0]] (constant while the system is regular)."""
    def det_k(t, y):
        full = prep.to_full(np.array([t]), np.asarray(y, dtype=float)[:, None], p)[:, 0]
        return float(np.linalg.det(prep.bordered.solve(t, full, p)[2]))

    d0 = det_k(t0, y0)
    if not d0 or not np.isfinite(d0):
        raise NotRegularError("the constrained system is not regular here: the bordered matrix "
                              "[[W, -J^T], [J, 0]] is singular [Ibort et al. 1997, eq. (4.17)]")
    s0 = float(np.sign(d0))

    def ev(t, y):
        return s0 * det_k(t, y)

    ev.terminal = True
    ev.direction = -1
    ev.thr = 0.0
    return (ev, "the constrained system stops being regular: det [[W, -J^T], [J, 0]] vanishes (equivalently the "
            "reduced mass matrix of every chart is singular) [Ibort et al. 1997, eq. (4.17)]", "det K", d0)


def _chart_for(prep: Prepared, t, y_full, p, switches: list, first_integrals, initial_check: bool = False):
    """(prepared system, None) in a chart regular at the full state (t, y_full) — the one in force if
    its ρ is above the switching threshold, else the choice of largest ρ (recorded in ``switches``);
    or (prep, SingularEvent) when no chart continues there."""
    M = prep.model
    cs = M.cs
    J = np.asarray(prep.s_J(t, y_full, p), dtype=float)
    cols_now = tuple(M.qdot.index(d) for d in prep.dependent)
    rho_now = _chart_quality(J, cols_now)
    thr = _switch_threshold(len(M.f), len(M.qdot))
    if initial_check and rho_now >= thr:
        return prep, None
    best = _best_choice(J)
    rho_new = _chart_quality(J, best)
    new = tuple(M.qdot[c] for c in best)
    old = tuple(prep.dependent)
    if best == cols_now or rho_new < thr:
        return prep, SingularEvent(t, "no choice of dependent velocities is regular here (max ρ = "
                                   f"{rho_new:.3g})", "rho", rho_new, rho_now)
    try:
        branch = None
        Qn = cs.Q.with_dependent(new)
        if len(Qn.branches()) > 1:
            pt = {s: float(v) for s, v in zip(prep.full_state, y_full)}
            pt.update({s: float(v) for s, v in zip(prep.params, p)})
            pt[M.t] = t
            branch = Qn.branch_of(pt, tol=1e-6)
        prep_new = _atlas_prep(cs, new, branch, prep.formulation, first_integrals, prep.backend)
    except (BranchError, OffManifoldError, NotRegularError, RankDeficientError) as exc:
        return prep, SingularEvent(t, f"the chart of {_names(new)} cannot be entered: {exc}", "rho", rho_new,
                                   rho_now)
    D = ", ".join(map(str, old))
    reason = (f"ρ = det(∂f/∂({D}))²/det(J Jᵀ) = {rho_now:.3g} ≤ the switching threshold {thr:.3g}; "
              f"{_names(new)} has ρ = {rho_new:.3g}")
    switches.append(ChartSwitch(float(t), old, new, reason, rho_now, rho_new))
    return prep_new, None


def _merge(segments: list, have_t_eval: bool) -> SimulationResult:
    """One result from the segments of a run across charts (arrays concatenated, the duplicate state
    at each switch dropped; the dense output piecewise, in the full state)."""
    keep = []
    last_t = -np.inf
    for i, seg in enumerate(segments):
        mask = seg.t > last_t
        if have_t_eval and i < len(segments) - 1 and len(seg.t):
            mask[-1] = False  # the switch point, appended to the chart's last output: not asked for
        keep.append(mask)
        if np.any(mask):
            last_t = seg.t[mask][-1]
        elif len(seg.t):
            last_t = max(last_t, seg.t[-1]) if not have_t_eval else last_t

    def cat(name):
        parts = [getattr(seg, name) for seg in segments]
        if any(x is None for x in parts):
            return None
        return np.concatenate([x[mk] for x, mk in zip(parts, keep)], axis=0)

    first, last = segments[0], segments[-1]
    integrals = {k: np.concatenate([seg.integrals[k][mk] for seg, mk in zip(segments, keep)])
                 for k in first.integrals}
    m = len(first.q_symbols)
    bounds = [seg.t[0] for seg in segments[1:]]

    if all(seg.sol is not None for seg in segments):
        def sol(t):
            t = np.atleast_1d(np.asarray(t, dtype=float))
            out = np.empty((2 * m, len(t)))
            which = np.searchsorted(bounds, t, side="right")
            for j, seg in enumerate(segments):
                sel = which == j
                if np.any(sel):
                    y = seg.sol(t[sel])
                    qq, vv = seg._to_full(t[sel], y if y.ndim == 2 else y[:, None])
                    out[:m, sel], out[m:, sel] = qq, vv
            return out
    else:
        sol = None

    def to_full(tt, yy):
        return yy[:m], yy[m:]

    return SimulationResult(
        t=cat("t"), q=cat("q"), qdot=cat("qdot"), q_symbols=first.q_symbols, qdot_symbols=first.qdot_symbols,
        constraints=first.constraints, residuals=cat("residuals"), residual_scale=cat("residual_scale"),
        energy=cat("energy"), multipliers=cat("multipliers"), reactions=cat("reactions"),
        reaction_power=cat("reaction_power"), force_power=cat("force_power"), explicit_power=cat("explicit_power"),
        integrals=integrals, success=last.success, status=last.status, message=last.message, event=last.event,
        nfev=sum(seg.nfev for seg in segments), projected=first.projected, formulation=first.formulation,
        params=first.params, sol=sol, _to_full=to_full,
    )


class _BorderedRHS:
    """q' = q̇, (q̈, λ) from the bordered linear system [[W, −Jᵀ], [J, 0]] (q̈, λ) = (L, −d̄f)."""

    def __init__(self, dae: CompiledFunction, m: int, k: int) -> None:
        self.dae, self.m, self.k = dae, m, k
        self.jacobian = None

    def solve(self, t, y, p) -> tuple:
        m, k = self.m, self.k
        v = self.dae(t, y, p)
        K = np.zeros((m + k, m + k))
        W = v[: m * m].reshape(m, m)
        L = v[m * m: m * m + m]
        J = v[m * m + m: m * m + m + k * m].reshape(k, m)
        b = v[m * m + m + k * m:]
        K[:m, :m] = W
        K[:m, m:] = -J.T
        K[m:, :m] = J
        sol = np.linalg.solve(K, np.concatenate([L, -b]))
        return sol[:m], sol[m:], K

    def _func(self, t, y, p):
        acc, _lam, _K = self.solve(t, y, p)
        return np.concatenate([y[self.m:], acc])


@dataclass
class _Out:
    t: np.ndarray
    y: np.ndarray
    status: int
    message: str
    nfev: int
    sol: object
    t_events: list | None
    y_events: list | None


def _touch_down(ev, state, ta, tb, ca, cb):
    """A minimum of a monitored quantity c = ev + thr ≥ 0 inside (ta, tb) where c dips below the threshold
    although it is above it at both ends (a zero touched between two steps: no sign change to see).
    Returns the first time where ev = 0, or None."""
    from scipy.optimize import brentq, minimize_scalar

    h = tb - ta
    dl = 1e-4 * h
    def g(s):
        return ev(s, state(s))

    da = (g(ta + dl) - ca) / dl
    db = (cb - g(tb - dl)) / dl
    if not (da < 0 < db):
        return None
    # cubic Hermite model of g on the step: look further only if it dips well below the ends
    u = np.linspace(0.0, 1.0, 33)
    h00, h10, h01, h11 = 2 * u**3 - 3 * u**2 + 1, u**3 - 2 * u**2 + u, -2 * u**3 + 3 * u**2, u**3 - u**2
    thr = getattr(ev, "thr", 0.0)
    model = h00 * (ca + thr) + h10 * h * da + h01 * (cb + thr) + h11 * h * db
    if np.min(model) > 0.5 * min(ca + thr, cb + thr):
        return None
    res = minimize_scalar(g, bounds=(ta, tb), method="bounded", options={"xatol": 1e-13 * max(1.0, abs(tb))})
    if not res.fun <= 0:
        return None
    return brentq(g, ta, res.x, xtol=1e-14 * max(1.0, abs(tb)))


_METHODS = {"RK45": RK45, "RK23": RK23, "DOP853": DOP853, "Radau": Radau, "BDF": BDF, "LSODA": LSODA}


def _integrate(prep, fun, jac, t_span, y0, p, method, rtol, atol, t_eval, max_step, ev_list, bar,
               project: bool) -> _Out:
    """Step a scipy integrator by hand, with the singular-state monitors checked on every step.

    A monitor stops the integration where it changes sign (located on the step's dense output by
    Brent's method) or, for the non-negative quantities (det JJᵀ, |c|), where it touches zero between
    two step ends — a minimum inside a step, which ``solve_ivp``'s sign-change events cannot see.
    With ``project`` (explicit Runge–Kutta only) the velocities are projected onto Q after every step.
    """
    from scipy.optimize import brentq

    if method not in _METHODS:
        raise SpecError(f"unknown integration method {method!r}; one of {list(_METHODS)}")
    if project and method not in _RK:
        raise SpecError(f"project=True works with the explicit Runge–Kutta methods {list(_RK)}; got {method!r}")
    t0, t1 = t_span
    if project:
        y0 = _project(prep, t0, y0, p)
    kw = {"jac": jac} if method in ("Radau", "BDF", "LSODA") and jac is not None else {}
    solver = _METHODS[method](fun, t0, y0, t1, max_step=max_step, rtol=rtol, atol=atol, **kw)
    ts, ys, interps = [t0], [y0], []
    status, message = 0, "The solver successfully reached the end of the integration interval."
    t_events = [[] for _ in ev_list]
    y_events = [[] for _ in ev_list]
    ev_old = [e[0](t0, y0) for e in ev_list]
    while solver.status == "running":
        msg = solver.step()
        if solver.status == "failed":
            status, message = -1, msg or "step failed"
            break
        interp = solver.dense_output()
        yp = solver.y
        if project:
            yp = _project(prep, solver.t, solver.y, p)
            solver.y = yp
            solver.f = solver.fun(solver.t, yp)

        def state(s, it=interp):
            return _project(prep, s, it(s), p) if project else it(s)

        hit = None
        for k, (ev, *_rest) in enumerate(ev_list):
            new = ev(solver.t, yp)
            tk = None
            if ev_old[k] > 0 >= new:
                tk = brentq(lambda s, ev=ev: ev(s, state(s)), solver.t_old, solver.t,
                            xtol=1e-14 * max(1.0, abs(solver.t)))
            elif getattr(ev, "touch", False) and ev_old[k] > 0 and new > 0:
                tk = _touch_down(ev, state, solver.t_old, solver.t, ev_old[k], new)
            if tk is not None and (hit is None or tk < hit[0]):
                hit = (tk, k)
            ev_old[k] = new
        interps.append(interp)
        if hit is not None:
            tk, k = hit
            yk = state(tk)
            t_events[k].append(tk)
            y_events[k].append(yk)
            ts.append(tk)
            ys.append(yk)
            status, message = 1, "A termination event occurred."
            break
        ts.append(solver.t)
        ys.append(yp)
        if bar is not None:
            bar.n = int(1000 * (solver.t - t0) / ((t1 - t0) or 1.0))
            bar.refresh()
    ts_a = np.array(ts)
    dense = OdeSolution(ts_a, interps) if len(interps) else None

    def sol(t):
        t = np.atleast_1d(np.asarray(t, dtype=float))
        y = np.atleast_2d(dense(t).T).T if dense is not None else np.tile(y0[:, None], (1, len(t)))
        if not project:
            return y
        return np.stack([_project(prep, ti, y[:, i], p) for i, ti in enumerate(t)], axis=1)

    if t_eval is not None:
        te = np.asarray(t_eval, dtype=float)
        te = te[(te >= t0) & (te <= ts_a[-1])]
        Y = sol(te) if len(te) else np.zeros((len(y0), 0))
        T = te
        if status == 1 and (len(T) == 0 or ts_a[-1] > T[-1]):  # keep the state where the run was stopped
            T = np.append(T, ts_a[-1])
            Y = np.concatenate([Y.reshape(len(y0), -1), ys[-1][:, None]], axis=1)
    else:
        T, Y = ts_a, np.array(ys).T
    return _Out(T, Y, status, message, solver.nfev, sol, [np.array(x) for x in t_events],
                [np.array(x) for x in y_events])


def _project(prep: Prepared, t, y, p, maxit: int = 8) -> np.ndarray:
    """Newton projection of the velocities onto Q along the metric W (see module docstring)."""
    y = np.array(y, dtype=float)
    m = len(prep.model.q)
    for _ in range(maxit):
        f = prep.s_f(t, y, p)
        scale = 1.0 + np.abs(prep.s_fscale(t, y, p))
        if np.all(np.abs(f) <= 4e-16 * scale):
            break
        J = prep.s_J(t, y, p)
        W = prep.s_W(t, y, p)
        WiJt = np.linalg.solve(W, J.T)
        mu = np.linalg.solve(J @ WiJt, f)
        y[m:] -= WiJt @ mu
    return y


def _finish(prep: Prepared, out: _Out, p, params, ev_list, projected: bool, t0) -> SimulationResult:
    M = prep.model
    t = np.asarray(out.t, dtype=float)
    Y = np.asarray(out.y, dtype=float)
    if Y.ndim == 1:
        Y = Y[:, None]
    full = prep.to_full(t, Y, p) if Y.shape[1] else np.zeros((2 * len(M.q), 0))
    m = len(M.q)

    def ev_v(fn, rows):
        if fn is None or full.shape[1] == 0:
            return None
        return np.asarray(fn(t, full, p)).T.reshape(full.shape[1], rows)

    residuals = ev_v(prep.v_f, len(M.f)) if M.f else np.zeros((len(t), 0))
    residual_scale = ev_v(prep.v_fscale, len(M.f)) if M.f else np.zeros((len(t), 0))
    energy = ev_v(prep.v_energy, 1)
    energy = None if energy is None else energy[:, 0]
    if M.lam is None and prep.bordered is not None and full.shape[1]:
        lam = np.array([prep.bordered.solve(ti, full[:, i], p)[1] for i, ti in enumerate(t)]).reshape(len(t), len(M.f))
        Jv = [prep.s_J(ti, full[:, i], p) for i, ti in enumerate(t)]
        R = np.array([Jv[i].T @ lam[i] for i in range(len(t))]).reshape(len(t), m)
    else:
        lam = ev_v(prep.v_lam, len(M.lam)) if M.lam else None
        R = ev_v(prep.v_R, m) if M.reactions else None
    qd = full[m:].T
    reaction_power = None if R is None else np.einsum("ij,ij->i", R, qd)
    A = ev_v(prep.v_A, m) if prep.v_A is not None else None
    force_power = None if A is None else np.einsum("ij,ij->i", A, qd)
    dLdt = ev_v(prep.v_dLdt, 1)
    explicit_power = None if dLdt is None else dLdt[:, 0]
    integrals = {}
    if prep.v_int is not None:
        vals = ev_v(prep.v_int, len(prep.integrals))
        integrals = {k: vals[:, i] for i, k in enumerate(prep.integrals)}
    event = None
    status = {0: "finished", 1: "singular", -1: "failed"}.get(out.status, str(out.status))
    message = out.message
    if out.status == 1 and out.t_events is not None:
        for k, te in enumerate(out.t_events):
            if len(te):
                ev, expl, expr, c0 = ev_list[k]
                yk = out.y_events[k][0]
                val = ev(te[0], yk)
                # report the monitored quantity itself (undo the threshold shift)
                event = SingularEvent(float(te[0]), expl, expr, float(val + ev.thr), float(c0))
                message = f"integration stopped at t = {te[0]:.6g}: {expl}"
                break

    def to_full(tt, yy):
        f = prep.to_full(tt, yy, p)
        return f[:m], f[m:]

    return SimulationResult(
        t=t, q=full[:m].T.copy(), qdot=qd.copy(), q_symbols=M.q, qdot_symbols=M.qdot, constraints=list(M.f),
        residuals=residuals, residual_scale=residual_scale, energy=energy, multipliers=lam, reactions=R,
        reaction_power=reaction_power,
        force_power=force_power, explicit_power=explicit_power, integrals=integrals,
        success=out.status >= 0, status=status, message=message, event=event, nfev=int(out.nfev),
        projected=projected, formulation=prep.formulation, params=dict(params), sol=out.sol, _to_full=to_full,
    )
