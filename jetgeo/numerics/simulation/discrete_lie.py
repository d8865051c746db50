r"""A rigid body stepped on the rotation group: ``simulate(S, method="dla-…", step=h)`` for a
:class:`~jetgeo.mechanics.quasi.QuasiVelocitySystem` whose frame is a rigid body's.

The exact one-step map is :class:`~jetgeo.mechanics.discrete_lie.LieDiscreteSystem`'s (the discrete
Lagrange–d'Alembert–Poincaré equations: R_{k+1} = R_k cay(hξ_k), the trapezoidal discrete
Lagrangian, the constraints averaged over the nodes and imposed at every node); "dla-midpoint" and
"dla-trapezoid" both step it (the Cayley map has no rational symmetric midpoint on the group, so there
is one second-order scheme), "dla-4" its triple jump [Yoshida 1990].  It is compiled once per system
and method by :func:`~jetgeo.numerics.stepper.compile_stepper` (Python or C).  The stepper carries the
orientation as a unit quaternion (renormalised at every step: R(q) is orthogonal to round-off at every
node, with no chart and no pole) and the quasi-velocities v; the result reports

* ``q`` in the system's coordinates — the Euler angles of the chart from the quaternion (through
  ``scipy.spatial.transform.Rotation``, checked against the chart's own R, unwrapped in time) and
  the other coordinates —, ``qdot`` = Ψ(q) v (which grows like 1/|det Φ| near the chart's pole, as
  the angle rates do: the motion itself does not);
* ``orientation`` (the unit quaternions) and ``quasi_velocities`` (v), pole-free;
* the constraints φ, the energy v·∂ℓ/∂v − ℓ, the reactions and their power evaluated at (R, x, v),
  the node multipliers Λ_k = (λ_k + μ_{k−1})/2 as in the coordinate form.

theory/discrete_mechanics.md, "Rigid bodies on the rotation group".
"""

from __future__ import annotations

import warnings
import weakref
from collections.abc import Mapping

import numpy as np
import sympy as sp

from ...errors import InputError, NotApplicableError, OffManifoldError
from ...geometry.coerce import as_expr, check_assumptions
from ...geometry.exact import xreplace_dag
from ...mechanics.discrete_lie import LieDiscreteSystem
from ...mechanics.quasi import QuasiVelocitySystem
from ...mechanics.rigid import rotation_matrix
from ..stepper import compile_stepper
from .initial import lookup
from .prepare import along_solution, term_scales
from .results import SimulationResult
from .stepping import StepOptions, parameter_vector, run_nodes

__all__ = ["LIE_METHODS", "lie_stepper", "on_the_group", "simulate_lie"]

#: method → composed to order 4 (the triple jump)
LIE_METHODS = {"dla-midpoint": False, "dla-trapezoid": False, "dla-4": True}

_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_NOT_ON_GROUP: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class _Compiled:
    """The stepper of one method and backend, and the monitors of the system (shared by its methods)."""

    def __init__(self, D: LieDiscreteSystem) -> None:
        self.D = D
        self.steppers: dict = {}
        self._monitors = None

    def monitors(self) -> dict:
        if self._monitors is None:
            self._monitors = _monitors(self.D)
        return self._monitors


def _system(S: QuasiVelocitySystem) -> _Compiled:
    hit = _CACHE.get(S)
    if hit is None:
        D = LieDiscreteSystem(S)
        D.reduced  # noqa: B018 - ℓ, φ, F in R's entries, or NotApplicableError: decided once per system
        hit = _CACHE[S] = _Compiled(D)
    return hit


def on_the_group(S: QuasiVelocitySystem) -> str | None:
    """None when ``S`` is stepped on SO(3), else why not (it is then stepped in its coordinate form).

    Parameters
    ----------
    S : QuasiVelocitySystem

    Returns
    -------
    str or None
        None for a rigid body whose ℓ, φ and F the group scheme evaluates at a rotation matrix
        (:func:`~jetgeo.mechanics.discrete_lie.in_rotation_entries`); the reason otherwise (no
        ``frame.rotation``, or the :class:`~jetgeo.errors.NotApplicableError` of the rewriting).  Decided
        once per system.

    Examples
    --------
    >>> from jetgeo import systems
    >>> on_the_group(systems.load("suslov").quasi) is None
    True
    """
    if S.frame.rotation is None:
        return "the frame is not a rigid body's"
    if S in _NOT_ON_GROUP:
        return _NOT_ON_GROUP[S]
    try:
        _system(S)
    except NotApplicableError as exc:
        _NOT_ON_GROUP[S] = str(exc)
        return _NOT_ON_GROUP[S]
    return None


def lie_stepper(S: QuasiVelocitySystem, method: str = "dla-midpoint", backend: str = "python") -> tuple:
    """The compiled stepper of the rigid body ``S`` on SO(3) for ``method``, cached per system.

    Parameters
    ----------
    S : QuasiVelocitySystem
        Its frame a rigid body's (``S.frame.rotation`` set).
    method : "dla-midpoint", "dla-trapezoid" or "dla-4"
    backend : "python", "c" or "auto"

    Returns
    -------
    (ImplicitStepper, OneStepMap, LieDiscreteSystem)
        The known vector is (t, quaternion, x, v, Λ, Λ′[, stage]).

    Examples
    --------
    >>> from jetgeo import systems
    >>> st, osm, D = lie_stepper(systems.load("suslov").quasi)
    >>> len(st.known), osm.stages
    (10, 1)
    """
    if method not in LIE_METHODS:
        raise InputError(f"lie_stepper: method must be one of {sorted(LIE_METHODS)}, got {method!r}")
    c = _system(S)
    key = (LIE_METHODS[method], backend)
    if key not in c.steppers:
        osm = c.D.triple_jump() if LIE_METHODS[method] else c.D.one_step()
        st = compile_stepper(osm.residual, osm.unknowns, osm.known, osm.parameters, advance=osm.advance,
                             predictor=osm.predictor, backend=backend)
        c.steppers[key] = (st, osm)
    return (*c.steppers[key], c.D)


def _monitors(D: LieDiscreteSystem) -> dict:
    """Compiled along the nodes, in the state (quaternion, x, v): φ, their term scales, the energy, ∂φ/∂v,
    the forces, −∂ℓ/∂t; and in (q, v): Ψ(q) v and Φ(q)."""
    ell, phi, forces = D.reduced
    Y, S = D.Y, D.S
    R = sp.Matrix(3, 3, D.r)
    Rq = D.quaternion_rotation()
    on = dict(zip(list(R), list(Rq)))
    state = (*D.quaternion, *D.x, *D.v)
    params = tuple(D.one_step().parameters[:-1])
    t = Y.t

    def comp(exprs, name, st=state):
        return along_solution([xreplace_dag(e, on) for e in exprs], st, params, t, vectorized=True, name=name)

    energy = sp.Add(*[sp.diff(ell, v) * v for v in D.v]) - ell
    J = [sp.diff(p, v) for p in phi for v in D.v]
    F = S.frame
    order = [F.v.index(v) for v in D.v]
    Psi_v = [sp.Add(*[F.Psi[s, a] * F.v[a] for a in range(Y.m)]) for s in range(Y.m)]
    return {
        "phi": comp(phi, "lie_phi") if phi else None,
        "scales": (term_scales([xreplace_dag(p, on) for p in phi], state, params, t, True, "lie_scales")
                   if phi else None),
        "energy": comp([energy], "lie_energy"),
        "J": comp(J, "lie_J") if phi else None,
        "forces": comp(forces, "lie_forces"),
        "dLdt": comp([-sp.diff(ell, t)], "lie_dLdt"),
        "qdot": along_solution(Psi_v, (*Y.q, *F.v), params, t, vectorized=True, name="lie_qdot"),
        "Phi": along_solution(list(F.Phi), tuple(Y.q), params, t, vectorized=True, name="lie_Phi"),
        "R": along_solution(list(rotation_matrix(Y, D.rotation.sequence, D.angles)), tuple(Y.q), params, t,
                            vectorized=True, name="lie_R"),
        "order": order,
    }


def _initial(D: LieDiscreteSystem, initial: Mapping, t0: float, p: np.ndarray, monitors: dict) -> np.ndarray:
    """(quaternion, x, v) from ``initial``: q, and either every quasi-velocity or every q̇."""
    from scipy.spatial.transform import Rotation

    Y, F = D.Y, D.S.frame
    q = []
    for s in Y.q:
        v = lookup(initial, s)
        if v is None:
            raise InputError(f"simulate: no initial value for the coordinate {s}")
        q.append(float(v))
    given_v = [lookup(initial, s) for s in F.v]
    if all(v is not None for v in given_v):
        v = np.array([float(x) for x in given_v])
    else:
        qd = [lookup(initial, s) for s in Y.qdot]
        if any(x is None for x in qd):
            raise InputError(f"simulate: give every velocity {[str(s) for s in Y.qdot]} or every quasi-velocity "
                             f"{[str(s) for s in F.v]} (complete= does not apply to a rigid body on SO(3))")
        Phi = np.asarray(monitors["Phi"](t0, np.array(q)[:, None], p), dtype=float).reshape(Y.m, Y.m)
        v = Phi @ np.array([float(x) for x in qd])
    Rm = np.asarray(monitors["R"](t0, np.array(q)[:, None], p), dtype=float).reshape(3, 3)
    x, y, z, w = Rotation.from_matrix(Rm).as_quat()
    x_other = [q[Y.q.index(s)] for s in D.x]
    return np.array([w, x, y, z, *x_other, *v[monitors["order"]]])


def _check_on_Q(D: LieDiscreteSystem, monitors: dict, t0: float, y0: np.ndarray, p: np.ndarray, tol: float) -> None:
    if monitors["phi"] is None:
        return
    res = np.asarray(monitors["phi"](t0, y0[:, None], p), dtype=float).reshape(-1)
    scale = np.asarray(monitors["scales"](t0, y0[:, None], p), dtype=float).reshape(-1)
    bad = np.abs(res) > tol * (1.0 + scale)
    if np.any(bad):
        j = int(np.argmax(bad))
        raise OffManifoldError(f"simulate: the initial state violates the constraint {D.S.phi[j]} = 0: its value is "
                               f"{res[j]:.3g} (tolerance {tol:g} relative to 1 + {scale[j]:.3g})")


def _angles(D: LieDiscreteSystem, mon: dict, t, quats: np.ndarray, q: np.ndarray, p) -> None:
    """The chart's angles of the quaternions (N, 4) into the columns of ``q``, unwrapped in time, checked
    against the chart's own R(angles) (:func:`~jetgeo.mechanics.rigid.rotation_matrix`) at every node."""
    from scipy.spatial.transform import Rotation

    Y = D.Y
    rot = Rotation.from_quat(quats[:, [1, 2, 3, 0]])
    with warnings.catch_warnings():  # scipy warns of gimbal lock at the chart's pole: the angles are still valid
        warnings.simplefilter("ignore", UserWarning)
        a = rot.as_euler(D.rotation.sequence)
    q[:, [Y.q.index(s) for s in D.angles]] = np.unwrap(a, axis=0)
    back = np.asarray(mon["R"](t, q.T, p), dtype=float).reshape(3, 3, -1).transpose(2, 0, 1)
    off = float(np.max(np.abs(back - rot.as_matrix()))) if len(t) else 0.0
    if not off < 1e-9:
        raise RuntimeError(f"the angles of chart {D.rotation.sequence} do not reproduce the rotation ({off:.3g} off): "
                           "a convention mismatch with scipy")


def simulate_lie(S: QuasiVelocitySystem, grid: tuple, initial: Mapping, params: Mapping | None, method: str,
                 opts: StepOptions, *, complete: bool = False, manifold_tol: float = 1e-9, backend: str | None = None,
                 first_integrals: Mapping | None = None) -> SimulationResult:
    r"""Step the rigid body ``S`` on SO(3) (the module docstring); called by
    :func:`~jetgeo.numerics.simulation.discrete.simulate_discrete`.

    Parameters
    ----------
    S : QuasiVelocitySystem
        Its frame a rigid body's.
    grid : (t0, t1, h, n)
        From :func:`~.stepping.node_grid`.
    initial : mapping
        The coordinates q and either every quasi-velocity v or every velocity q̇ (then v = Φ(q) q̇).
    params : mapping
    method : "dla-midpoint", "dla-trapezoid" or "dla-4"
    opts : StepOptions
    complete : bool
        Not supported (give v or q̇ in full).
    manifold_tol, backend, first_integrals : as for ``simulate`` (the first integrals in (t, q, q̇)).

    Returns
    -------
    SimulationResult
        With ``orientation`` and ``quasi_velocities`` set.

    Examples
    --------
    >>> from jetgeo import systems
    >>> from jetgeo.numerics import simulate
    >>> S = systems.load("suslov").quasi
    >>> r = simulate(S, (0, 1), {"phi": 0.1, "theta": 1.2, "psi": 0.3, "w1": 1, "w2": 0.5, "w3": 0},
    ...              {"I1": 2, "I2": 3, "I3": 4, "I13": 0.3, "I23": 0.5}, method="dla-midpoint", step=0.1)
    >>> r.orientation.shape, r.max_residual < 1e-12
    ((11, 4), True)
    """
    if complete:
        raise InputError("simulate: complete= does not apply to a rigid body stepped on SO(3); give every "
                         "quasi-velocity (or every velocity)")
    t0, _, h, n_steps = grid
    stepper, osm, D = lie_stepper(S, method, backend or "python")
    stepper.tol, stepper.ftol, stepper.max_iter = opts.tol, opts.ftol, int(opts.max_iter)
    params = dict(params or {})
    p = parameter_vector(osm.parameters[:-1], params)
    check_assumptions(dict(zip(osm.parameters[:-1], p)), "simulate")
    mon = _system(S).monitors()
    y0 = _initial(D, initial, t0, p, mon)
    _check_on_Q(D, mon, t0, y0, p, manifold_tol)
    k, stages = S.k, osm.stages
    w0 = np.concatenate([[t0], y0, np.zeros(2 * k), [0.0] if stages > 1 else []])
    run = run_nodes(stepper, w0, n_steps, stages, np.array([*p, h]), 1 + len(y0), k, method, h)
    return _result(D, mon, run, p, params, method, first_integrals)


def _result(D: LieDiscreteSystem, mon: dict, run, p, params, method, first_integrals) -> SimulationResult:
    W = run.nodes
    Y = D.Y
    n, m, k = len(D.x), Y.m, D.S.k
    t, N = W[:, 0], len(W)
    state = W[:, 1: 5 + n + m].T
    quats, xs, vs = W[:, 1:5], W[:, 5:5 + n], W[:, 5 + n: 5 + n + m]
    q = np.empty((N, m))
    q[:, [Y.q.index(s) for s in D.x]] = xs
    _angles(D, mon, t, quats, q, p)
    v = np.empty((N, m))
    v[:, mon["order"]] = vs  # the frame's order
    with np.errstate(divide="ignore", invalid="ignore"):  # Ψ(q) is infinite at the chart's pole: q̇ too
        qdot = np.asarray(mon["qdot"](t, np.vstack([q.T, v.T]), p), dtype=float).reshape(m, N).T
    if k:
        residuals = np.asarray(mon["phi"](t, state, p), dtype=float).reshape(k, N).T
        scales = np.asarray(mon["scales"](t, state, p), dtype=float).reshape(k, N).T
        J = np.asarray(mon["J"](t, state, p), dtype=float).reshape(k, m, N)  # in the scheme's order of v
        react_v = np.einsum("kmn,nk->nm", J, run.lam)
        Phi = np.asarray(mon["Phi"](t, q.T, p), dtype=float).reshape(m, m, N)
        rv = np.empty((N, m))
        rv[:, mon["order"]] = react_v
        reactions = np.einsum("na,asn->ns", rv, Phi)  # R_σ = (Λ ∂φ/∂v)_α Φ^α_σ
        reaction_power = np.einsum("nm,nm->n", react_v, vs)
    else:
        residuals, scales = np.zeros((N, 0)), np.zeros((N, 0))
        reactions, reaction_power = np.zeros((N, m)), np.zeros(N)
    energy = np.asarray(mon["energy"](t, state, p), dtype=float).reshape(N)
    forces = np.asarray(mon["forces"](t, state, p), dtype=float).reshape(m, N).T
    dLdt = np.asarray(mon["dLdt"](t, state, p), dtype=float).reshape(N)
    integrals = {}
    if first_integrals:
        names = list(first_integrals)
        fn = along_solution([as_expr(first_integrals[a]) for a in names], (*Y.q, *Y.qdot),
                            tuple(D.one_step().parameters[:-1]), Y.t, vectorized=True, name="lie_integrals")
        vals = np.asarray(fn(t, np.vstack([q.T, qdot.T]), p), dtype=float).reshape(len(names), N)
        integrals = {a: vals[i] for i, a in enumerate(names)}

    def to_full(tt, yy):
        return yy[:m], yy[m:]

    return SimulationResult(
        t=t, q=q, qdot=qdot, q_symbols=tuple(Y.q), qdot_symbols=tuple(Y.qdot), constraints=list(D.S.phi),
        residuals=residuals, residual_scale=scales, energy=energy, multipliers=run.lam, reactions=reactions,
        reaction_power=reaction_power, force_power=np.einsum("nm,nm->n", forces, vs), explicit_power=dLdt,
        integrals=integrals, success=run.status == "finished", status=run.status,
        message=run.message + " on SO(3) (Lie-group scheme)", event=None, nfev=int(run.nfev), projected=False,
        formulation=method, params=dict(params), sol=None, _to_full=to_full, t_stop=float(t[-1]),
        orientation=quats.copy(), quasi_velocities=v,
    )
