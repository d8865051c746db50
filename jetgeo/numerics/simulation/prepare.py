r"""Compilation of a model: :func:`prepare` → :class:`PreparedSystem` (reusable across simulations).

Two kinds of evaluator are compiled (:func:`~jetgeo.numerics.compile.compile_rhs`): functions of
one state, called as ``fn(t, y, p)`` with y of shape (n,), and ``*_along`` functions vectorised
over the output points of a run, called with y of shape (n, N).  Unless said otherwise they take
the full state y = (q, q̇); the integration state is (q, q̇) in the full and multipliers
formulations and (q, q̇^I) in the reduced one.
"""

from __future__ import annotations

import dataclasses
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
import sympy as sp

from ...errors import InputError
from ...geometry.coerce import as_expr
from ...geometry.exact import free_symbols_dag
from ...mechanics import LagrangianSystem
from ...mechanics.bordered import bordered_system
from ..compile import CompiledFunction, compile_rhs
from .model import Model, model_of

__all__ = ["PreparedSystem", "BorderedRHS", "prepare"]

FORMULATIONS = ("full", "reduced", "multipliers")


def along_solution(*args, **kw) -> CompiledFunction:
    """compile_rhs for the monitors evaluated along a solution (plain cse, no extra passes)."""
    return compile_rhs(*args, optimizations=None, **kw)


class BorderedRHS:
    """q' = q̇ and (q̈, λ) from the bordered linear system [[W, −Jᵀ], [J, 0]] (q̈, λ) = (ℓ, −b)
    (:func:`~jetgeo.mechanics.bordered.bordered_system`), solved at every call: in the generated C
    code when ``dae`` was compiled with the C backend (``compile_rhs(..., bordered=(m, k))``: one
    call evaluates the blocks and eliminates, no NumPy round trip), else with numpy.

    Parameters
    ----------
    dae : CompiledFunction
        The compiled blocks [W (row-major), ℓ, J (row-major), b] at a full state; with the C
        backend it also carries ``bordered_rhs`` and ``bordered_solve``.
    m : int
        The number of coordinates (W is m × m).
    k : int
        The number of constraints (J is k × m).
    """

    def __init__(self, dae: CompiledFunction, m: int, k: int) -> None:
        self.dae, self.m, self.k = dae, m, k
        self.jacobian = None
        if dae.bordered_rhs is not None:
            self._func = dae.bordered_rhs

    def matrix(self, t, y, p) -> tuple:
        """(K, (ℓ, −b)) at the full state y."""
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
        return K, np.concatenate([L, -b])

    def solve(self, t, y, p) -> tuple:
        """(q̈, λ, K) at the full state y (``numpy.linalg.LinAlgError`` where K is singular)."""
        K, r = self.matrix(t, y, p)
        if self.dae.bordered_solve is not None:
            sol, _det = self.dae.bordered_solve(t, y, p)
            if sol is None:
                raise np.linalg.LinAlgError("Singular matrix")
        else:
            sol = np.linalg.solve(K, r)
        return sol[: self.m], sol[self.m:], K

    def constraint_jacobian(self, t, y, p) -> np.ndarray:
        """J = ∂f/∂q̇ (k × m) at the full state y: the J block of the compiled blocks."""
        m, k = self.m, self.k
        return self.dae(t, y, p)[m * m + m: m * m + m + k * m].reshape(k, m)

    def metric(self, t, y, p) -> np.ndarray:
        """W = ∂²L/∂q̇∂q̇ (m × m) at the full state y: the W block of the compiled blocks."""
        m = self.m
        return self.dae(t, y, p)[: m * m].reshape(m, m)

    def det(self, t, y, p) -> float:
        """det K at the full state y (the product of the pivots of the C elimination, or numpy's)."""
        if self.dae.bordered_solve is not None:
            return float(self.dae.bordered_solve(t, y, p)[1])
        return float(np.linalg.det(self.matrix(t, y, p)[0]))

    def _func(self, t, y, p):
        acc, _lam, _K = self.solve(t, y, p)
        return np.concatenate([y[self.m:], acc])


class TermScales:
    """Σ|terms of f^j| per constraint (the size of what cancels in f^j): the terms compiled as one
    list, their absolute values summed numerically.  (Compiling Σ Abs(term) instead rebuilt every
    ``Abs`` under the safe names of the generated code, and sympy's ``Abs`` asks its argument's
    sign on every construction: 1.9 of the 2.3 s of this function on the Whipple bicycle.)"""

    def __init__(self, terms: CompiledFunction, counts: list) -> None:
        self.terms = terms
        self.starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(int)

    def __call__(self, t, y, p) -> np.ndarray:
        """The scales at y (shape (k,)), or along a run (y of shape (n, N): shape (k, N))."""
        return np.add.reduceat(np.abs(self.terms(t, y, p)), self.starts, axis=0)


def term_scales(fs: list, state: tuple, params: tuple, t, vectorized: bool, name: str) -> TermScales:
    """:class:`TermScales` of the constraints ``fs``."""
    terms = [sp.Add.make_args(f) for f in fs]
    return TermScales(along_solution([a for ts in terms for a in ts], state, params, t, vectorized=vectorized,
                                     name=name), [len(ts) for ts in terms])


@dataclass(frozen=True)
class PreparedSystem:
    """The compiled pieces of a model in one formulation (see the module docstring for the calling
    conventions).  Built by :func:`prepare`; ``simulate(prepared, ...)`` accepts it.

    Not built directly: :func:`prepare` compiles it.  Each field is documented where it is
    declared (``#:`` comments); they fall in four groups.

    Parameters
    ----------
    model, formulation, backend
        The symbolic :class:`~jetgeo.numerics.simulation.model.Model`, ``"full"`` / ``"reduced"`` /
        ``"multipliers"``, and the compile backend.
    state, full_state, dependent, independent, params
        Symbols: the integration state, (q, q̇), the dependent and independent velocities of the
        normal form in use, and the parameters in the order of the vector p.
    integrals, energy_expression, rhs_expressions, bordered_expressions, constraint_jacobian
        The symbolic pieces compiled: first integrals, E_L, the right-hand side F, the bordered
        blocks [W, ℓ, J, b] and J = ∂f/∂q̇.
    rhs, bordered, constraint_residuals, constraint_scales, normal_form
        Evaluators of one state: y' = F(t, y, p), the bordered solve, f^j, Σ|terms of f^j| and g.
    jacobian_of_constraints, metric, jacobian_of_constraints_in_state, condition_monitors
        J and W at a full state, J at an integration state, and the singular-state monitors.
    constraint_residuals_along, constraint_scales_along, normal_form_along, energy_along
        f^j, its scales, g and E_L vectorised over the output points of a run (y of shape (n, N)).
    multipliers_along, reactions_along, forces_along, explicit_power_along, integrals_along
        λ, R, A, −∂L/∂t and the first integrals along a run (None where not available).
    _variants : dict, optional
        Internal: variants derived on demand (with ∂F/∂y compiled), shared between them.
    """

    #: the symbolic model (:class:`~jetgeo.numerics.simulation.model.Model`)
    model: Model
    #: "full", "reduced" or "multipliers"
    formulation: str
    #: the compile_rhs backend of ``rhs`` ("python", "c" or "auto")
    backend: str
    #: the symbols of the integration state
    state: tuple
    #: the symbols (q, q̇) of the full state
    full_state: tuple
    #: the dependent velocities q̇^D of the normal form in use (() without one)
    dependent: tuple
    #: the other velocities q̇^I
    independent: tuple
    #: the parameter symbols, in the order of the vector p
    params: tuple
    #: {name: expression} of the first integrals evaluated along a run
    integrals: dict
    #: E_L = q̇·∂L/∂q̇ − L, or None without a Lagrangian
    energy_expression: sp.Expr | None
    #: the right-hand side F of the integration state as expressions (empty for the multipliers formulation)
    rhs_expressions: list
    #: [W (row-major), ℓ, J (row-major), b] of the bordered system, or None without L and constraints
    bordered_expressions: list | None
    #: J = ∂f/∂q̇ (symbolic), or None without constraints
    constraint_jacobian: sp.Matrix | None
    #: y' = F(t, y, p) of the integration state (``._func`` is the raw function, ``.jacobian`` ∂F/∂y or None)
    rhs: object
    #: the bordered system solved numerically (:class:`BorderedRHS`), or None
    bordered: BorderedRHS | None
    #: f^j(t, q, q̇)
    constraint_residuals: CompiledFunction | None
    #: f^j along a run
    constraint_residuals_along: CompiledFunction | None
    #: Σ|terms of f^j| (the size of what cancels in f^j)
    constraint_scales: TermScales | None
    #: Σ|terms of f^j| along a run
    constraint_scales_along: TermScales | None
    #: g(t, q, q̇^I) of the normal form (at a full state; g does not contain q̇^D)
    normal_form: CompiledFunction | None
    #: g along a run
    normal_form_along: CompiledFunction | None
    #: E_L along a run
    energy_along: CompiledFunction | None
    #: the route's symbolic multipliers λ along a run (None: computed from ``bordered``)
    multipliers_along: CompiledFunction | None
    #: the route's symbolic reactions R along a run
    reactions_along: CompiledFunction | None
    #: the forces A_σ along a run
    forces_along: CompiledFunction | None
    #: −∂L/∂t along a run
    explicit_power_along: CompiledFunction | None
    #: the first integrals along a run
    integrals_along: CompiledFunction | None
    #: J = ∂f/∂q̇ at a full state (k × m): a CompiledFunction, or the C bordered system's J block
    #: (:meth:`BorderedRHS.constraint_jacobian`)
    jacobian_of_constraints: CompiledFunction | Callable | None
    #: the kinetic metric W = ∂²L/∂q̇∂q̇ (identity without L; in the multipliers formulation the W block
    #: of the bordered system, :meth:`BorderedRHS.metric`)
    metric: CompiledFunction | Callable | None
    #: J = ∂f/∂q̇ at an integration state (the rank monitor)
    jacobian_of_constraints_in_state: CompiledFunction | Callable | None
    #: ((Condition, c(t, y, p) at an integration state), ...): the singular-state monitors
    condition_monitors: tuple
    #: variants derived on demand and shared between them (the one with ∂F/∂y compiled)
    _variants: dict = field(default_factory=dict, repr=False, compare=False)

    def with_jacobian(self) -> PreparedSystem:
        """The same system with ∂F/∂y compiled (for the implicit methods Radau, BDF, LSODA); cached."""
        if self.formulation == "multipliers" or self.rhs.jacobian is not None:
            return self
        got = self._variants.get("jacobian")
        if got is None:
            rhs = compile_rhs(self.rhs_expressions, self.state, self.params, self.model.t, jacobian=True,
                              name="rhs", backend=self.backend)
            got = self._variants["jacobian"] = dataclasses.replace(self, rhs=rhs, _variants=self._variants)
        return got

    def to_full(self, t, y, p) -> np.ndarray:
        """The full state (q, q̇) from the integration state, vectorised: y has shape (n_state, N)."""
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
        gv = self.normal_form_along(t, prov, p) if self.normal_form_along is not None else np.zeros((0, y.shape[1]))
        out[m:] = prov[m:]
        for k, d in enumerate(self.dependent):
            out[m + M.qdot.index(d)] = gv[k]
        return out


def _check_formulation(M: Model, formulation: str) -> None:
    """Refuse a formulation ``M`` cannot serve (InputError)."""
    if formulation not in FORMULATIONS:
        raise InputError(f"formulation must be 'full', 'reduced' or 'multipliers', got {formulation!r}")
    if formulation == "multipliers" and (M.system is None or not M.f):
        raise InputError("formulation='multipliers' needs a Lagrangian system and implicit constraints f")
    if formulation == "reduced" and not M.g:
        raise InputError("formulation='reduced' needs the normal form q̇^D = g of the constraints")


def _state_and_rhs(M: Model, formulation: str) -> tuple:
    """(integration state, right-hand side expressions): (q, q̇) and (q̇, q̈) in 'full'; (q, q̇^I) and
    (g or q̇, q̈^I on the normal form) in 'reduced'; (q, q̇) and none in 'multipliers' (the bordered system)."""
    qd = M.qdot
    if formulation == "full":
        return M.q + qd, list(qd) + list(M.acc)
    if formulation == "multipliers":
        return M.q + qd, []
    independent = tuple(v for v in qd if v not in M.g)
    rhs_exprs = [M.g.get(v, v) for v in qd]
    rhs_exprs += [M.acc[qd.index(v)].xreplace(M.g) for v in independent]
    return M.q + independent, rhs_exprs


def _parameters(M: Model, rhs_exprs: list, integrals: dict) -> tuple:
    """The parameters: every free symbol of the compiled expressions that is not a jet coordinate, sorted by name."""
    sysL = M.system
    jets = {M.t, *M.q, *M.qdot}
    pool = list(rhs_exprs) + list(M.f) + list(M.g.values())
    pool += (M.lam or []) + (M.reactions or []) + [c.expr for c in M.conditions]
    if sysL is not None:
        pool += [sysL.L, *sysL.forces]
    pool += list(integrals.values())
    found = free_symbols_dag(pool) - set(jets)  # on the DAG: large results are not walked as trees
    return tuple(sorted(found, key=str))


def _bordered(M: Model, formulation: str, P: tuple, backend: str) -> tuple:
    """(bordered RHS or None, its expressions or None): W q̈ − Jᵀλ = ℓ, J q̈ = −b [Ghori 1960, eq.
    (2.2.20)–(2.2.23)], solved numerically per call; compiled with ``backend`` only when it is the right-hand side."""
    sysL = M.system
    if not (isinstance(sysL, LagrangianSystem) and M.Q is not None and M.f):
        return None, None
    own = M.bordered
    exprs = (own if own is not None else bordered_system(sysL, M.Q)).flat()
    dae = compile_rhs(exprs, M.q + M.qdot, P, M.t, name="bordered_system",
                      optimizations="basic" if formulation == "multipliers" else None,
                      backend=backend if formulation == "multipliers" else "python", bordered=(len(M.q), len(M.f)))
    return BorderedRHS(dae, len(M.q), len(M.f)), exprs


def _constraint_kernels(M: Model, formulation: str, J, state: tuple, P: tuple, bordered) -> tuple:
    """(∂f/∂q̇ on (q, q̇), the metric W = ∂²L/∂q̇∂q̇, ∂f/∂q̇ in the integration state), or three Nones without f."""
    if not M.f:
        return None, None, None
    t, full_state, sysL = M.t, M.q + M.qdot, M.system
    from_blocks = formulation == "multipliers" and bordered is not None
    if from_blocks and bordered.dae.backend == "c":
        s_J = bordered.constraint_jacobian  # the J block of the compiled bordered system: no second build
    else:
        s_J = compile_rhs(J, full_state, P, t, name="constraint_jacobian", optimizations=None)
    if from_blocks:  # W = ∂²L/∂q̇∂q̇ is the bordered system's first block (for the projection)
        s_W = bordered.metric
    else:
        W = sysL.hessian() if sysL is not None else sp.eye(len(M.q))
        s_W = compile_rhs(W, full_state, P, t, name="metric", optimizations=None)
    # the constraint rank monitor works in the integration state
    i_J = (compile_rhs(J.xreplace(M.g), state, P, t, name="constraint_jacobian_i", optimizations=None)
           if formulation == "reduced" else s_J)
    return s_J, s_W, i_J


def _along(exprs, full_state: tuple, P: tuple, t, name: str, vectorized: bool = True):
    """:func:`along_solution` of ``exprs``, or None when there are none."""
    return along_solution(list(exprs), full_state, P, t, vectorized=vectorized, name=name) if exprs else None


def build(model: Model, formulation: str, first_integrals: Mapping | None = None,
          backend: str = "python") -> PreparedSystem:
    """Compile ``model`` in ``formulation`` (see :class:`PreparedSystem`).

    Parameters
    ----------
    model : Model
        The equations of motion, as :func:`model_of` makes them.
    formulation : {"full", "reduced", "multipliers"}
        The integration state: (q, q̇); (q, q̇^I) on the normal form q̇^D = g; (q, q̇) with the bordered
        system solved for (q̈, λ) at every call.
    first_integrals : mapping, optional
        Name → expression in (t, q, q̇), monitored along the solution.
    backend : {"python", "c", "auto"}
        The :func:`~jetgeo.numerics.compile.compile_rhs` backend of the right-hand side.

    Returns
    -------
    PreparedSystem
        The compiled right-hand side and the monitors evaluated along a solution.
    """
    _check_formulation(model, formulation)
    M = model
    t, q, qd = M.t, M.q, M.qdot
    full_state = q + qd
    dep = tuple(v for v in qd if v in M.g)
    independent = tuple(v for v in qd if v not in M.g)
    sysL = M.system
    if M.energy is not None:
        energy_expr = M.energy
    else:
        energy_expr = sysL.energy() if isinstance(sysL, LagrangianSystem) else None
    integrals = {str(k): as_expr(v) for k, v in (first_integrals or {}).items()}
    state, rhs_exprs = _state_and_rhs(M, formulation)
    P = _parameters(M, rhs_exprs, integrals)
    if not M.f:
        J = None
    elif M.Q is not None:
        J = M.Q.jacobian()  # computed once by Q
    else:
        J = sp.Matrix(len(M.f), len(qd), lambda i, j: sp.diff(M.f[i], qd[j]))
    bordered, bordered_exprs = _bordered(M, formulation, P, backend)
    rhs = bordered if formulation == "multipliers" else compile_rhs(rhs_exprs, state, P, t, name="rhs",
                                                                    backend=backend)
    g_dep = [M.g[d] for d in dep]
    s_J, s_W, i_J = _constraint_kernels(M, formulation, J, state, P, bordered)
    sub = M.g if formulation == "reduced" else {}
    conds = M.conditions if formulation != "multipliers" else []
    monitors = tuple((c, along_solution([c.expr.xreplace(sub)], state, P, t, name="condition")) for c in conds)
    has_f = bool(M.f)
    return PreparedSystem(
        model=M, formulation=formulation, backend=backend, state=state, full_state=full_state, dependent=dep,
        independent=independent, params=P, integrals=integrals, energy_expression=energy_expr,
        rhs_expressions=rhs_exprs, bordered_expressions=bordered_exprs, constraint_jacobian=J,
        rhs=rhs, bordered=bordered,
        constraint_residuals=_along(M.f, full_state, P, t, "constraints_s", vectorized=False),
        constraint_residuals_along=_along(M.f, full_state, P, t, "constraints"),
        constraint_scales=term_scales(M.f, full_state, P, t, False, "constraint_scale") if has_f else None,
        constraint_scales_along=(term_scales(M.f, full_state, P, t, True, "constraint_scale_v")
                                 if has_f else None),
        normal_form=_along(g_dep, full_state, P, t, "normal_form", vectorized=False),
        normal_form_along=_along(g_dep, full_state, P, t, "normal_form_v"),
        energy_along=_along([energy_expr] if energy_expr is not None else [], full_state, P, t, "energy"),
        multipliers_along=_along(M.lam or [], full_state, P, t, "multipliers"),
        reactions_along=_along(M.reactions or [], full_state, P, t, "reactions"),
        forces_along=(along_solution(list(sysL.forces), full_state, P, t, vectorized=True, name="forces")
                      if sysL is not None else None),
        explicit_power_along=(along_solution([-sp.diff(sysL.L, t)], full_state, P, t, vectorized=True, name="dLdt")
                              if sysL is not None else None),
        integrals_along=(compile_rhs(list(integrals.values()), full_state, P, t, vectorized=True,
                                     name="integrals", optimizations=None) if integrals else None),
        jacobian_of_constraints=s_J, metric=s_W, jacobian_of_constraints_in_state=i_J,
        condition_monitors=monitors,
    )


_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def prepare(system, formulation: str = "full", first_integrals: Mapping | None = None,
            backend: str = "python") -> PreparedSystem:
    """Compile a system once for repeated simulations (``simulate(prepared, ...)`` accepts it).

    Without first integrals the compiled pieces are cached per system object (weakly), so
    repeated ``simulate(cs, ...)`` calls on the same system compile once.  ``backend`` is the
    :func:`~jetgeo.numerics.compile.compile_rhs` backend of the right-hand side ("python", "c"
    or "auto"; the monitors evaluated along the solution stay in Python/NumPy).

    Parameters
    ----------
    system : object
        What :func:`~jetgeo.numerics.simulate` accepts (see :func:`model_of`).
    formulation : {"full", "reduced", "multipliers"}
        The integration state (see :func:`build`).
    first_integrals : mapping, optional
        Name → expression in (t, q, q̇) monitored along the solution (no cache then).
    backend : {"python", "c", "auto"}
        The backend of the right-hand side.

    Returns
    -------
    PreparedSystem
        The compiled system, the same object for repeated calls with the same system and options.
    """
    if first_integrals:
        return build(model_of(system, formulation), formulation, first_integrals, backend)
    try:
        per = _CACHE.setdefault(system, {})
    except TypeError:  # not weak-referenceable or not hashable: no cache
        return build(model_of(system, formulation), formulation, None, backend)
    key = formulation if backend == "python" else (formulation, backend)
    if key not in per:
        per[key] = build(model_of(system, formulation), formulation, None, backend)
    return per[key]
