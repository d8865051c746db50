r"""Discrete Lagrange–d'Alembert integrators: :func:`simulate_discrete` (``simulate(...,
method="dla-midpoint" | "dla-trapezoid" | "dla-4", step=h)``).

The exact one-step map comes from :mod:`jetgeo.mechanics.discrete` (the residual F(z; w) of the
discrete Lagrange–d'Alembert equations, the advance map and the predictor); here it is compiled
once by :func:`~jetgeo.numerics.stepper.compile_stepper` — F and ∂F/∂z together, the Newton and the
step loops in Python or, with ``backend="c"``, in C — and each step is solved by Newton's method
from the explicit predictor (q_{k+1} = q_k + h q̇_k,
q̇_{k+1} = q̇_k, the multipliers of the previous step) until the correction is below ``tol``
relative to the unknowns.  The last equation of the map is f(t_{k+1}, q_{k+1}, q̇_{k+1}) = 0, so
every node lies on Q to the solver's tolerance.  Coordinates the step sees only modulo 2π (angles
entering through sin/cos, coordinates absent from L, Q and the forces; decided exactly by
:func:`~jetgeo.numerics.stepper.periodic_indices`) are carried reduced to [−π, π) plus whole turns
and reported unwrapped; the constraint residuals are evaluated at the reduced values
(theory/discrete_mechanics.md, "Angles carried modulo 2π").

==================  ===================================  =====================  =====
method              discrete Lagrangian                  discrete constraints   order
==================  ===================================  =====================  =====
``dla-midpoint``    midpoint rule                        at the midpoint        2
``dla-trapezoid``   trapezoidal rule                     averaged over nodes    2
``dla-4``           triple jump of ``dla-midpoint``      at the midpoint        4
==================  ===================================  =====================  =====

The result is the usual :class:`~.results.SimulationResult` at the nodes t_k = t_0 + k h: the
state (q_k, q̇_k), the constraint residuals, the energy, and as ``multipliers``/``reactions`` the
discrete Chetaev forces J(t_k, q_k, q̇_k)ᵀΛ_k per unit time, with Λ_k = (λ_k + μ_{k−1})/2 the mean
of the half impulses of the steps leaving and arriving at the node (one extra step past the end
gives λ at the last node).  ``nfev`` bounds the Newton iterations: per node, the stages times the
most iterations one of them took.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping

import numpy as np

from ...errors import InputError
from ...geometry.coerce import check_assumptions
from ...mechanics.discrete import DiscreteSystem
from ...mechanics.quasi import QuasiVelocitySystem
from ..stepper import compile_stepper, periodic_indices
from .discrete_lie import on_the_group, simulate_lie
from .initial import check_on_manifold, initial_data
from .prepare import along_solution, prepare
from .results import SimulationResult
from .stepping import NodeRun, StepOptions, node_grid, parameter_vector, run_nodes, step_options

__all__ = ["DISCRETE_METHODS", "PortableStepper", "discrete_stepper", "portable_stepper", "simulate_discrete"]

#: method → (quadrature, discrete constraints, composed to order 4)
DISCRETE_METHODS = {
    "dla-midpoint": ("midpoint", "midpoint", False),
    "dla-trapezoid": ("trapezoid", "nodes", False),
    "dla-4": ("midpoint", "midpoint", True),
}


_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def discrete_stepper(system, Q, method: str = "dla-midpoint", backend: str = "python") -> tuple:
    """The compiled stepper (:func:`~jetgeo.numerics.stepper.compile_stepper`) of ``method`` for
    (system, Q), cached per system object.

    Parameters
    ----------
    system : LagrangianSystem
    Q : ConstraintSubmanifold
    method : "dla-midpoint", "dla-trapezoid" or "dla-4"
    backend : "python", "c" or "auto": where the Newton and step loops run

    Returns
    -------
    (ImplicitStepper, OneStepMap)
        The stepper — its known vector is (t, q, q̇, Λ, Λ′[, stage]), its parameters those of the
        system then h — and the exact map it was compiled from
        (:meth:`~jetgeo.mechanics.discrete.DiscreteSystem.one_step`; ``.stages`` is 3 for "dla-4").

    Examples
    --------
    >>> from jetgeo import systems
    >>> e = systems.load("skate")
    >>> [str(s) for s in discrete_stepper(e.system, e.Q, "dla-midpoint")[0].parameters]
    ['I', 'm', 'h']
    """
    if method not in DISCRETE_METHODS:
        raise InputError(f"discrete_stepper: method must be one of {sorted(DISCRETE_METHODS)}, got {method!r}")
    per = _CACHE.setdefault(system, {})
    key = (id(Q), method, backend)
    hit = per.get(key)
    if hit is not None and hit[0] is Q:
        return hit[1:]
    quadrature, constraint, composed = DISCRETE_METHODS[method]
    D = DiscreteSystem(system, Q, quadrature, constraint)
    osm = D.triple_jump() if composed else D.one_step()
    # the coordinates the step sees modulo 2π (angles; also coordinates absent from L, Q and the forces)
    periodic = periodic_indices(osm.residual, osm.known, osm.advance, osm.predictor, range(1, 1 + D.Y.m))
    stepper = compile_stepper(osm.residual, osm.unknowns, osm.known, osm.parameters, advance=osm.advance,
                              predictor=osm.predictor, backend=backend, periodic=periodic)
    per[key] = (Q, stepper, osm)
    return stepper, osm


class PortableStepper:
    """A discrete stepper that travels to other processes (a Dask worker): it pickles as its exact
    one-step map (sympy expressions) and compiles on first use in each process, once.

    Parameters
    ----------
    osm : OneStepMap
    periodic : tuple of int
        The known values carried modulo 2π (decided where the map was built).
    backend : str
    m, k : int
        The coordinates and the constraints.
    compiled : ImplicitStepper, optional
        The stepper already compiled in this process (not pickled).

    Examples
    --------
    >>> from jetgeo import systems
    >>> job = portable_stepper(systems.load("skate"), "dla-midpoint")
    >>> job.m, job.k, job.run(0.0, [0, 0, 0, 1, 0, 0], [1, 1, 0.1], 3, "dla-midpoint").nodes.shape
    (3, 1, (4, 9))
    """

    def __init__(self, osm, periodic: tuple, backend: str, m: int, k: int, compiled=None) -> None:
        self.osm, self.periodic, self.backend, self.m, self.k = osm, tuple(periodic), backend, m, k
        self._compiled = compiled

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_compiled": None}  # the compiled functions stay in their process

    def stepper(self):
        """The compiled :class:`~jetgeo.numerics.stepper.ImplicitStepper` (compiled here once), with the
        default stopping rule of :class:`~.stepping.StepOptions`.

        Returns
        -------
        ImplicitStepper
        """
        if self._compiled is None:
            o = self.osm
            self._compiled = compile_stepper(o.residual, o.unknowns, o.known, o.parameters, advance=o.advance,
                                             predictor=o.predictor, backend=self.backend, periodic=self.periodic)
        st, opts = self._compiled, StepOptions(1.0)
        st.tol, st.ftol, st.max_iter = opts.tol, opts.ftol, opts.max_iter
        return st

    def run(self, t0: float, y0, ps, n_steps: int, method: str) -> NodeRun:
        """``n_steps`` steps from the state y0 = (q, q̇) at t0, as ``simulate`` runs them.

        Parameters
        ----------
        t0 : float
        y0 : sequence of 2m floats
        ps : sequence of floats
            The parameters in the order of ``osm.parameters``, h last.
        n_steps : int
        method : str

        Returns
        -------
        NodeRun
        """
        st, stages = self.stepper(), self.osm.stages
        w0 = np.concatenate([[t0], y0, np.zeros(2 * self.k), [0.0] if stages > 1 else []])
        return run_nodes(st, w0, n_steps, stages, np.asarray(ps, dtype=float), 1 + 2 * self.m, self.k, method,
                         float(ps[-1]))


def portable_stepper(system, method: str, backend: str = "python") -> PortableStepper:
    """The :class:`PortableStepper` of ``method`` for a system ``simulate_discrete`` steps in its
    coordinate form (compiled here already: the calling process reuses it).

    Parameters
    ----------
    system : a (LagrangianSystem, ConstraintSubmanifold) pair, a catalogue entry, a ConstrainedSystem
    method : "dla-midpoint", "dla-trapezoid" or "dla-4"
    backend : "python", "c" or "auto"

    Returns
    -------
    PortableStepper

    Examples
    --------
    >>> import pickle
    >>> from jetgeo import systems
    >>> ps = portable_stepper(systems.load("skate"), "dla-midpoint")
    >>> pickle.loads(pickle.dumps(ps)).stepper().unknowns == ps.stepper().unknowns
    True
    """
    M = prepare(system, "multipliers", None, "python").model
    if M.system is None or M.Q is None:
        raise InputError(f"ensemble: the {method} method needs a Lagrangian and a constraint submanifold")
    st, osm = discrete_stepper(M.system, M.Q, method, backend)
    return PortableStepper(osm, st.periodic, backend, len(M.q), M.Q.k, compiled=st)


def simulate_discrete(system, t_span, initial: Mapping, params: Mapping | None = None, method: str = "dla-midpoint",
                      *, complete: bool = False, manifold_tol: float = 1e-9, backend: str | None = None,
                      first_integrals: Mapping | None = None, t_eval=None, **options) -> SimulationResult:
    r"""Step a constrained system with a discrete Lagrange–d'Alembert integrator (the module docstring).

    Parameters
    ----------
    system : what :func:`~jetgeo.numerics.simulate` accepts that has a Lagrangian and a constraint
        submanifold: a (LagrangianSystem, ConstraintSubmanifold) pair, a catalogue entry, a
        ConstrainedSystem, a QuasiVelocitySystem.  A QuasiVelocitySystem whose frame is a rigid body's
        (``frame.rotation`` set) is stepped on the rotation group
        (:func:`~jetgeo.numerics.simulation.discrete_lie.simulate_lie`) when its ℓ, φ and forces are
        polynomials of degree ≤ 2 in R's entries (:func:`~.discrete_lie.on_the_group` says why not
        otherwise); every other system in its coordinate form.
    t_span : (t0, t1); t1 < t0 steps backwards (step −h).
    initial, params, complete, manifold_tol, first_integrals : as for ``simulate``.
    method : "dla-midpoint", "dla-trapezoid" or "dla-4"
    backend : None/"python", "c" or "auto": how the residual is compiled.
    t_eval : not supported (the output is every node).
    **options
        ``step`` (required): the step h, (t1 − t0)/h a whole number of steps (to 1e-9); ``tol``,
        ``ftol``, ``max_iter``: Newton's stopping rule (:class:`~.stepping.StepOptions`,
        :func:`~jetgeo.numerics.stepper.compile_stepper`: converged when |Δz| ≤ tol·(1 + |z|) and
        |F| ≤ ftol).  The correction test decides (Newton's method converges quadratically, so |F| is
        then at round-off); ``ftol`` is a safety net, loose because the momentum equations carry the
        round-off |q|ε/h of v_k = Δq/h (the sleigh far from the origin).  The stepper is shared between
        runs of the same system: these are set on it for each run.

    Returns
    -------
    SimulationResult
        At the nodes; ``formulation`` is the method's name.  A step whose Newton iteration fails ends
        the run there (``status="failed"``, ``message`` says why).

    Examples
    --------
    >>> from jetgeo import systems
    >>> e = systems.load("skate")
    >>> r = simulate_discrete(e, (0, 1), e.initial, e.params, "dla-midpoint", step=0.1)
    >>> len(r.t), r.max_residual < 1e-12
    (11, True)
    """
    if method not in DISCRETE_METHODS:
        raise InputError(f"simulate: unknown discrete method {method!r}; one of {sorted(DISCRETE_METHODS)}")
    opts = step_options(method, t_eval, options)
    grid = node_grid(t_span, opts.step)
    if isinstance(system, QuasiVelocitySystem) and on_the_group(system) is None:
        return simulate_lie(system, grid, initial, params, method, opts, complete=complete,
                            manifold_tol=manifold_tol, backend=backend, first_integrals=first_integrals)
    t0, _, h, n_steps = grid
    prep = prepare(system, "multipliers", first_integrals, "python")
    M = prep.model
    if M.system is None or M.Q is None:
        raise InputError(f"simulate: the {method} method needs a Lagrangian and a constraint submanifold "
                         "(a (system, Q) pair, a catalogue entry or a ConstrainedSystem)")
    params = dict(params or {})
    p = parameter_vector(prep.params, params)
    check_assumptions(dict(zip(prep.params, p)), "simulate")
    y0 = initial_data(prep, initial, complete, t0, p)
    check_on_manifold(prep, t0, y0, p, manifold_tol)
    stepper, osm = discrete_stepper(M.system, M.Q, method, backend or "python")
    stepper.tol, stepper.ftol, stepper.max_iter = opts.tol, opts.ftol, int(opts.max_iter)
    ps = np.array([*parameter_vector(stepper.parameters[:-1], params), h])
    m, k, stages = len(M.q), M.Q.k, osm.stages
    w0 = np.concatenate([[t0], y0, np.zeros(2 * k), [0.0] if stages > 1 else []])  # Λ = Λ′ = 0, stage 0
    run = run_nodes(stepper, w0, n_steps, stages, ps, 1 + 2 * m, k, method, h)
    W, U = run.nodes, run.unwrapped
    return _result(prep, method, W[:, 0], U[:, 1: 1 + 2 * m].T, W[:, 1: 1 + 2 * m].T, run.lam, p, params,
                   run.status, run.message, run.nfev)


def _result(prep, method, t, full, reduced, lam, p, params, status, message, nfev) -> SimulationResult:
    """The result at the nodes: ``full`` the unwrapped states (reported, and what the energy and the
    first integrals are evaluated at), ``reduced`` the stepper's own, with the periodic coordinates in
    [−π, π) — the constraints, their scales and their Jacobian are 2π-periodic in those (the stepper
    checked it), and at the reduced angle they are evaluated without the round-off of sin(10⁴ rad)."""
    M = prep.model
    m = len(M.q)
    N = full.shape[1]

    def ev_v(fn, rows, at=full):
        return None if fn is None else np.asarray(fn(t, at, p)).T.reshape(N, rows)

    residuals = ev_v(prep.constraint_residuals_along, len(M.f), reduced)
    scales = ev_v(prep.constraint_scales_along, len(M.f), reduced)
    energy = ev_v(prep.energy_along, 1)
    J = np.asarray(along_solution(prep.constraint_jacobian, prep.full_state, prep.params, M.t,
                                  vectorized=True, name="dla_jacobian")(t, reduced, p))  # (k, m, N)
    R = np.einsum("kmn,nk->nm", J.reshape(len(M.f), m, N), lam)
    qd = full[m:].T
    A = ev_v(prep.forces_along, m) if prep.forces_along is not None else None
    dLdt = ev_v(prep.explicit_power_along, 1)
    integrals = {}
    if prep.integrals_along is not None:
        vals = ev_v(prep.integrals_along, len(prep.integrals))
        integrals = {name: vals[:, i] for i, name in enumerate(prep.integrals)}

    def to_full(tt, yy):
        return yy[:m], yy[m:]

    return SimulationResult(
        t=t, q=full[:m].T.copy(), qdot=qd.copy(), q_symbols=M.q, qdot_symbols=M.qdot, constraints=list(M.f),
        residuals=residuals, residual_scale=scales, energy=None if energy is None else energy[:, 0],
        multipliers=lam, reactions=R, reaction_power=np.einsum("ij,ij->i", R, qd),
        force_power=None if A is None else np.einsum("ij,ij->i", A, qd),
        explicit_power=None if dLdt is None else dLdt[:, 0], integrals=integrals,
        success=status == "finished", status=status, message=message, event=None, nfev=int(nfev),
        projected=False, formulation=method, params=dict(params), sol=None, _to_full=to_full,
        t_stop=float(t[-1]),
    )
