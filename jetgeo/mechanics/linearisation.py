r"""Exact linearisation of a constrained system about a point (a steady motion) of Q.

A constrained system on Q (normal form q̇^D = g(t, q, q̇^I), [Stolařová 2009, eq. (4)]) is the
first-order system on Q with state x = (q^σ, q̇^l), l ∈ I:

.. math:: \dot q^\sigma = \bar g^\sigma(t, x), \qquad \dot{\dot q}{}^l = a^l(t, x),

where ḡ^σ = q̇^σ for σ ∈ I, ḡ^{D_i} = g^i, and a = −B′⁻¹A′ solves the reduced
equations A′(x) + B′(x) a = 0 [Stolařová 2009, eq. (8)].  Its linearisation at a point x₀ is the
Jacobian J = ∂(ḡ, a)/∂x at x₀.  It is computed **exactly** and without ever forming
the symbolic accelerations (which is where symbolic cost explodes):

.. math:: \frac{\partial a}{\partial x_j}\Big|_{x_0}
          = -B'(x_0)^{-1}\Big(\frac{\partial A'}{\partial x_j}
          + \frac{\partial B'}{\partial x_j}\,a_0\Big)\Big|_{x_0},
          \qquad a_0 = -B'(x_0)^{-1}A'(x_0),

(differentiate A′ + B′a = 0 along the solution a(x)).  Only derivatives of A′, B′
are taken, then the point is substituted and one small *constant* linear system is
solved.  With exact values (integers, rationals, ``sp.pi``…) the result is exact.

A **steady motion** (relative equilibrium) is a point whose motion changes only
coordinates on which the vector field does not depend (cyclic ones: position on the
ground, heading, wheel angles).  :meth:`Linearisation.restrict` keeps the other
states, after checking both conditions (their velocity field vanishes at x₀, and their
rows do not depend on the dropped states), so that the restricted matrix is the
constant linear system governing small perturbations of the steady motion.
Examples: ``tests/mechanics/test_linearise.py`` (pendulum on a rolling cart,
vertical rolling disc) and :mod:`jetgeo.systems.whipple`.

The module is ``jetgeo.mechanics.linearisation`` (symbolic and exact, below the catalogue of
systems); the function is exported as ``jetgeo.mechanics.linearise`` and, the same object, as
``jetgeo.numerics.linearise``.  The module is not named after the function so that the package
attribute ``jetgeo.mechanics.linearise`` is unambiguously the function.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence

import sympy as sp

from ..errors import InputError, NotRegularError, OffManifoldError
from ..geometry.coerce import as_expr, as_symbol, check_assumptions
from ..geometry.exact import (
    NORMALISE_MAX_NODES,
    det_exact,
    generic_rank_dag,
    is_small,
    lu_solve_dag,
    solve_exact,
    xreplace_dag,
)
from ..geometry.zero import is_zero, normalise_if_small
from .bordered import bordered_system
from .constrained import ConstrainedSystem
from .constraints import ConstraintSubmanifold
from .eom import EquationsOfMotion, dependent_velocities
from .lagrangian import LagrangianSystem
from .quasi import QuasiVelocitySystem
from .steady import SteadyMotion

__all__ = ["Linearisation", "linearise"]


def _exact(v):
    """Floats become exact rationals (so that the linear algebra below stays exact)."""
    v = as_expr(v)
    if isinstance(v, sp.Float):
        return sp.nsimplify(v, rational=True)
    return v


class Linearisation:
    """The Jacobian of a constrained system's first-order vector field on Q at a point.

    The state is x = (q^σ, q̇^l): every coordinate, then the independent velocities; the
    first-order field on Q is ẋ = (ḡ, a) with ḡ the velocities (dependent ones from the normal
    form) and a the independent constrained accelerations.  Truncating ẋ = f0 + A (x − x₀) is the
    linearised motion; the eigenvalues of A decide the stability of a steady motion (e.g. the
    weave and capsize modes of the Whipple bicycle [Meijaard et al. 2007, §5]).  The constructor
    parameters are kept as attributes of the same names.

    Parameters
    ----------
    state : tuple of Symbol
        The state symbols: q^σ for all σ, then the independent q̇^l.
    A : sympy.Matrix
        The Jacobian ∂(ḡ, a)/∂x at the point (exact for exact inputs).
    f0 : sympy.Matrix
        The vector field (ḡ, a) at the point (zero at an equilibrium; a steady motion has only
        the cyclic coordinates moving).
    point : dict
        {symbol: value} for t, q, every q̇ (dependent ones from the normal form) and the
        parameters.
    accelerations : dict
        {q̈^l: value} at the point (independent ones).
    M : sympy.Matrix, optional
        With ``F``, the second-order form M δq̈^I + F δx = 0 of the acceleration rows: M the
        reduced mass matrix Ψᵀ W Ψ at the point, positive definite for a mechanical system.  For
        the Whipple bicycle restricted to lean and steer, M is the benchmark's mass matrix
        [Meijaard et al. 2007, eq. (A1)].  Also :attr:`mass`.
    F : sympy.Matrix, optional
        F = −M ∂a/∂x; its columns for the rates are :attr:`damping` (v C₁ for the bicycle), those
        for the coordinates :attr:`stiffness` (g K₀ + v² K₂).
    multipliers : dict, optional
        {λ_a: value} at the point (``method="multipliers"`` only): the reactions of the steady
        motion.
    method : str, default "reduced"
        The derivation route: ``"reduced"`` (Krupková's reduced equations on Q) or
        ``"multipliers"`` (the bordered system with Lagrange multipliers).
    n_coordinates : int, optional
        How many leading states are coordinates δq (the others are rates δq̇^I); default:
        ``len(state)`` minus the rows of M (or the number of accelerations).
    """

    def __init__(self, state: tuple, A: sp.Matrix, f0: sp.Matrix, point: dict, accelerations: dict,
                 M: sp.Matrix | None = None, F: sp.Matrix | None = None, multipliers: dict | None = None,
                 method: str = "reduced", n_coordinates: int | None = None) -> None:
        self.state = tuple(state)
        #: the first ``n_coordinates`` states are coordinates δq, the others rates δq̇^I
        self.n_coordinates = len(state) - (M.rows if M is not None else len(accelerations)) \
            if n_coordinates is None else n_coordinates
        self.A = A
        self.f0 = f0
        self.point = point
        self.accelerations = accelerations
        self.M = M
        self.F = F
        self.multipliers = multipliers or {}
        self.method = method

    @property
    def _rate_idx(self) -> list:
        return list(range(self.n_coordinates, len(self.state)))

    @property
    def mass(self) -> sp.Matrix:
        """M of M δq̈ + C δq̇ + K δq = 0 (the reduced mass matrix on the kept rates)."""
        return self.M

    @property
    def damping(self) -> sp.Matrix:
        """C: the columns of F for the rate states δq̇^I."""
        return self.F.extract(list(range(self.F.rows)), self._rate_idx)

    @property
    def stiffness(self) -> sp.Matrix:
        """K: the columns of F for the coordinate states δq."""
        idx = [i for i in range(len(self.state)) if i not in self._rate_idx]
        return self.F.extract(list(range(self.F.rows)), idx)

    def index(self, s) -> int:
        try:
            return self.state.index(as_symbol(s, self.state, "state variable"))
        except ValueError:
            raise InputError(f"{s} is not a state of this linearisation; states are {list(self.state)}") from None

    def restrict(self, states: Sequence, tol: float = 0.0) -> Linearisation:
        """The linearisation of the subsystem of ``states`` about the steady motion.

        Requires (checked; :class:`~jetgeo.errors.InputError` names the offender):
        the field of every kept state vanishes at the point (the kept part is at rest:
        a relative equilibrium), and no kept row depends on a dropped state (so the
        dropped states are cyclic to first order).  ``tol`` > 0 allows a numeric
        tolerance for non-exact inputs; 0 means exact zero tests.
        """
        idx = sorted(self.index(s) for s in states)  # coordinates stay before rates
        drop = [j for j in range(len(self.state)) if j not in idx]

        def is_zero(e):
            if tol == 0:  # jetgeo's exact zero test (never an expansion of a large expression)
                return _is_zero(sp.nsimplify(e) if e.has(sp.Float) else e)
            return abs(complex(sp.N(e))) <= tol

        for i in idx:
            if not is_zero(self.f0[i]):
                raise InputError(
                    f"not a steady motion for the kept states: d{self.state[i]}/dt = {self.f0[i]} ≠ 0 at the point"
                )
            for j in drop:
                if not is_zero(self.A[i, j]):
                    raise InputError(
                        f"the row of {self.state[i]} depends on the dropped state {self.state[j]} "
                        f"(∂/∂{self.state[j]} = {self.A[i, j]}); it is not cyclic to first order"
                    )
        A = self.A.extract(idx, idx)
        M = F = None
        n_q = self.n_coordinates
        if self.M is not None:
            acc_rows = [i for i in idx if i >= n_q]
            k = [i - n_q for i in acc_rows]
            M = self.M.extract(k, k)
            F = (-M * self.A.extract(acc_rows, idx)).applyfunc(_normalise_small)
        return Linearisation(tuple(self.state[i] for i in idx), A, self.f0.extract(idx, [0]), self.point,
                             self.accelerations, M, F, self.multipliers, self.method,
                             n_coordinates=sum(1 for i in idx if i < n_q))

    def numeric(self, params: Mapping | None = None):
        """The matrix as a numpy float array (after substituting ``params`` if given; a name is the
        matrix's symbol of that name).  :class:`~jetgeo.errors.InputError` names the symbols left
        without a value."""
        import numpy as np

        A = self.A.xreplace(_parameter_values(params, list(self.A), _exact)) if params else self.A
        left = sorted(map(str, A.free_symbols))
        if left:
            raise InputError(f"Linearisation.numeric: no value given for {left}")
        return np.array(A.evalf(), dtype=float)

    def eigenvalues(self, params: Mapping | None = None):
        """Eigenvalues of the (numeric) matrix, sorted by real part then imaginary part."""
        import numpy as np

        ev = np.linalg.eigvals(self.numeric(params))
        return ev[np.lexsort((ev.imag, ev.real))]

    def __repr__(self) -> str:
        return f"Linearisation(state={list(self.state)}, A={self.A})"

    def _repr_latex_(self) -> str:
        return "$" + sp.latex(self.A) + "$"


def _chosen_route(route: str, method: str | None) -> str:
    """``linearise``'s route: ``method=`` is its old, deprecated keyword (``method`` names an integrator)."""
    if method is not None:
        warnings.warn("linearise(method=...) is deprecated: use route=", DeprecationWarning, stacklevel=3)
        route = method
    if route not in ("multipliers", "reduced"):
        raise InputError(f"linearise: route must be 'multipliers' or 'reduced', got {route!r}")
    return route


def linearise(cs, point: Mapping, params: Mapping | None = None, exact: bool = True,
              route: str = "multipliers", independent: Sequence | None = None, *,
              method: str | None = None) -> Linearisation:
    r"""Linearise a constrained system at a point of Q: the Jacobian of its vector field.

    ``cs`` is a :class:`~jetgeo.mechanics.ConstrainedSystem`, or a pair ``(system, Q)``
    (a :class:`~jetgeo.mechanics.LagrangianSystem` and its
    :class:`~jetgeo.mechanics.ConstraintSubmanifold`, e.g. an imported model): the
    multiplier route never needs the normal form.  A
    :class:`~jetgeo.mechanics.quasi.QuasiVelocitySystem` is taken as its coordinate pair
    ``(lagrangian_system(), constraint_submanifold())``; ``point`` is then in the jets (its
    ``jet_state``).  ``point`` gives t (if the system
    depends on it), every q^σ and the independent velocities q̇^l; dependent velocities
    may be given (they are checked against f = 0) or are solved for at the point.
    ``point`` may also be a :class:`~jetgeo.mechanics.SteadyMotion` (from
    :func:`~jetgeo.mechanics.steady_motions`): the result is then restricted to the states that
    stay constant along it (:meth:`Linearisation.restrict`), the linear system of its perturbations.
    ``params`` gives values of the remaining symbols (parameters), or leaves them symbolic.
    With ``exact=True`` floats are converted to rationals first.

    Two exact routes, same result (tested against each other):

    ``route="multipliers"`` (default) — only first and second derivatives of L and f are
    evaluated at the point.  The motion solves the bordered system (forces Newton's sign)

    .. math:: W\ddot q - (\partial f/\partial\dot q)^T\lambda = A_\sigma - h, \qquad
              (\partial f/\partial\dot q)\,\ddot q = -(\partial_q f\,\dot q + \partial_t f),

    with W = ∂²L/∂q̇∂q̇ and h = ∂²L/∂q̇∂q q̇ + ∂²L/∂q̇∂t − ∂L/∂q, i.e.
    K(z) y = r(z) in z = (q, q̇), y = (q̈, λ).  At the point, K₀y₀ = r₀ gives the
    accelerations and the multipliers λ₀ (the reactions of the steady motion), and
    differentiating K y = r,

    .. math:: K_0\,\partial y/\partial z = \partial r/\partial z - (\partial K/\partial z)\,y_0,
              \qquad \partial\dot q^D/\partial x = -(\partial f/\partial\dot q^D)^{-1}
              \partial f/\partial x,

    composed with z(x), x = (q, q̇^I).  The third derivatives of L that ∂h/∂z contains
    enter only along the directions where q̇₀ ≠ 0 (and ∂W/∂z only through q̈₀ ≠ 0), so at a
    steady motion — q̇₀ along cyclic coordinates — nothing beyond second derivatives is
    formed.  The holonomic constraints of a model are given by their time derivatives
    ḣ = ∂h/∂q q̇ = 0; their reactions λ₀ ≠ 0 (a normal force) bring the curvature ∂²h/∂q²
    in through the term ∂(fᵀ_{q̇} λ₀)/∂z, as they must.

    ``route="reduced"`` — differentiates Krupková's reduced coefficients A′, B′ ([Stolařová 2009, eq.
    (8)], see the module docstring); needs the normal form and the symbolic A′, B′.

    Raises :class:`~jetgeo.errors.InputError` for a missing coordinate,
    :class:`~jetgeo.errors.OffManifoldError` if given dependent velocities violate the
    constraints, :class:`~jetgeo.errors.NotRegularError` if the equations are singular at
    the point (the bordered matrix K₀, equivalently det B′ = 0, [Stolařová 2009, eq. (12)]).

    Parameters
    ----------
    cs : ConstrainedSystem or (LagrangianSystem, ConstraintSubmanifold)
        The constrained system.
    point : mapping or SteadyMotion
        {symbol or name: value} for t, every q^σ and the independent velocities (dependent ones optional).
    params : mapping, optional
        Values of the parameters; those not given stay symbolic.
    exact : bool
        Convert floats to rationals first.
    route : {"multipliers", "reduced"}
        The exact route (above).
    independent : sequence of Symbols, optional
        The independent velocities q̇^I of the state x = (q, q̇^I) (default: Q's choice).
    method : {"multipliers", "reduced"}, optional
        The old keyword for ``route`` (deprecated: ``method=`` names an integrator elsewhere).

    Returns
    -------
    Linearisation
        The Jacobian A = ∂(ḡ, a)/∂x at the point (ẋ ≈ f0 + A (x − x₀)), the accelerations there and, on the
        multipliers route, the multipliers.
    """
    route = _chosen_route(route, method)
    if isinstance(point, SteadyMotion):  # a SteadyMotion: linearise at its point, keep its constant states
        return linearise(cs, point.point, params, exact, route, independent).restrict(point.kept_states)
    if isinstance(cs, QuasiVelocitySystem):  # the coordinate form, on which the multiplier route runs
        cs = (cs.lagrangian_system(), cs.constraint_submanifold())
    if route == "reduced":
        if not isinstance(cs, ConstrainedSystem):
            raise InputError("linearise(route='reduced') needs a ConstrainedSystem (it uses the normal form)")
        return _linearise_reduced(cs, point, params, exact)
    if isinstance(cs, EquationsOfMotion):
        system, Q = cs.system, cs.Q
        dep = dependent_velocities(cs)
        if independent is None and dep:  # the chart the equations are written in
            independent = [v for v in system.Y.qdot if v not in dep]
    else:
        try:
            system, Q = cs
        except (TypeError, ValueError):
            raise InputError("linearise: give equations of motion (a ConstrainedSystem, a Motion) or a pair "
                            f"(LagrangianSystem, ConstraintSubmanifold); got {cs!r}") from None
    if not isinstance(system, LagrangianSystem) or not isinstance(Q, ConstraintSubmanifold):
        raise InputError("linearise: the multiplier route needs a LagrangianSystem and a ConstraintSubmanifold; got "
                        f"{type(system).__name__} and {type(Q).__name__}")
    return _linearise_multipliers(system, Q, point, params, exact, independent)


def _parameter_values(params: Mapping | None, exprs: Sequence, conv, who: str = "linearise") -> dict:
    """{parameter symbol: value}: a name is looked up among the symbols of ``exprs`` (the system and the
    point), so that ``{"a": 1}`` reaches the system's ``a`` whatever its assumptions; an unknown name is
    an :class:`~jetgeo.errors.InputError` listing the known ones."""
    if not params:
        return {}
    known = set().union(*(as_expr(e).free_symbols for e in exprs))
    out = {as_symbol(k, known if isinstance(k, str) else None, f"{who}: parameter"): conv(v)
           for k, v in params.items()}
    check_assumptions(out, who)
    return out


def _point_values(point: Mapping, pv: dict, conv) -> dict:
    """{state symbol: value} of ``point`` with the parameter values ``pv`` substituted into the values
    (a steady motion's point carries its parameters: ẋ = −a Ω for the rolling disc)."""
    pt = {as_symbol(k, what="point coordinate"): conv(v) for k, v in point.items()}
    return {k: v.xreplace(pv) for k, v in pt.items()} if pv else pt


def _choose_dependent(Af0: sp.Matrix, qdot: Sequence, independent) -> list:
    """Column indices of a nonsingular k × k block of ∂f/∂q̇ at the point (the dependent
    velocities): the complement of ``independent`` if given, else the first pivot columns
    of an exact row reduction, scanning from the last velocity (so that coordinates listed
    first — the ones a user cares about, such as lean and steer — stay independent)."""
    k, n = Af0.shape
    if independent is not None:
        ind = [as_symbol(v, what="independent velocity") for v in independent]
        bad = [v for v in ind if v not in qdot]
        if bad or len(ind) != n - k:
            raise InputError(f"linearise: independent velocities must be {n - k} of {list(qdot)}; got {ind}")
        dep = [j for j, v in enumerate(qdot) if v not in ind]
        if Af0.extract(list(range(k)), dep).rank() < k:
            raise NotRegularError(f"linearise: the constraints cannot be solved for {[qdot[j] for j in dep]} "
                                  "at the point (∂f/∂q̇^D is singular there)")
        return dep
    order = list(range(n))[::-1]
    _, piv = Af0.extract(list(range(k)), order).rref(simplify=False)
    if len(piv) < k:
        raise NotRegularError(f"linearise: ∂f/∂q̇ has rank {len(piv)} < {k} at the point: the constraints are "
                              "not independent there (a singular state of Q)")
    return sorted(order[c] for c in piv)


def _solve(K: sp.Matrix, r: sp.Matrix) -> sp.Matrix:
    """K x = r for a constant (numeric or parametric) K: in the field of rational functions
    when everything is exact, by LU in 50-digit arithmetic when floats are present (a
    fraction field over floats would need polynomial gcds over ℝ: slow and meaningless)."""
    if K.has(sp.Float) or r.has(sp.Float):
        x = lu_solve_dag(K, r)  # floats have no F_p shadow: the core's LU in the floats' precision
        return x if K.free_symbols else x.applyfunc(_normalise_small)
    return solve_exact(K, r).applyfunc(_normalise_small)


def _normalise_small(e):
    """Expanded (floats) or cancelled (exact) when small; large results stay as they are."""
    if not isinstance(e, sp.Basic) or e.is_Number:
        return e
    if e.has(sp.Float):
        return sp.expand(e) if is_small(e, NORMALISE_MAX_NODES) else e
    return normalise_if_small(e)


def _linearise_multipliers(system, Q, point: Mapping, params, exact: bool, independent) -> Linearisation:
    """The multiplier route: with every constant at the point exact (rationals, π, square roots of rationals:
    the values of sin and cos at π/3, π/4, π/6 …) when that is possible, else — a constant without a closed
    form such as sin(1/5) or cos(π/10) turned up — with the irrational constants as 50-digit floats
    (mixed with floats, exact radicals only swell the expansions: the Whipple bicycle's stability test took
    four times as long)."""
    try:
        return _linearise_multipliers_in(system, Q, point, params, exact, independent, radicals=True)
    except _FloatNeeded:
        return _linearise_multipliers_in(system, Q, point, params, exact, independent, radicals=False)


def _linearise_multipliers_in(system, Q, point: Mapping, params, exact: bool, independent,
                              radicals: bool) -> Linearisation:
    Y = system.Y
    conv = _exact if exact else as_expr
    pv = _parameter_values(params, [system.L, *system.forces, *Q.f, *point.values()], conv)
    pt = _point_values(point, pv, conv)
    q, qd, qdd = list(Y.q), list(Y.qdot), list(Y.qddot)
    n = len(q)
    fs = [as_expr(f) for f in Q.f]
    k = len(fs)
    missing = [s for s in q if s not in pt]
    if missing:
        raise InputError(f"linearise: the point lacks values for {missing} (needs every q and q̇^I)")
    base = dict(pv)
    base.update({s: pt[s] for s in q})
    if Y.t in pt:
        base[Y.t] = pt[Y.t]

    def at(e, values):
        return _normalise_small(_numify(xreplace_dag(as_expr(e), values), radicals))

    # --- the velocities at the point: independent given, dependent solved from f = 0
    A_sym = sp.Matrix(k, n, lambda a, j: sp.diff(fs[a], qd[j]))
    given = {v: pt[v] for v in qd if v in pt}
    if independent is None and Q.dependent_choice is not None:
        independent = [v for v in qd if v not in Q.dependent_choice]
    if independent is None and len(given) == n - k:
        independent = list(given)  # exactly n − k velocities given: they are the independent ones
    Af_probe = A_sym.xreplace({**base, **given}).applyfunc(lambda e: _numify(e, radicals))
    if Af_probe.free_symbols & set(qd):
        # ∂f/∂q̇ depends on unknown velocities (nonlinear constraints): all velocities are needed
        lack = [v for v in qd if v not in given]
        raise InputError(f"linearise: the constraints are nonlinear in the velocities; give every velocity at the "
                        f"point (missing {lack}), they are checked against f = 0")
    dep_idx = _choose_dependent(Af_probe.applyfunc(sp.expand), qd, independent)
    ind_idx = [j for j in range(n) if j not in dep_idx]
    lack = [qd[j] for j in ind_idx if qd[j] not in pt]
    if lack:
        raise InputError(f"linearise: the point lacks values for the independent velocities {lack}")
    vals = dict(base)
    vals.update({qd[j]: pt[qd[j]] for j in ind_idx})
    AD0 = Af_probe.extract(list(range(k)), dep_idx)
    unknown_dep = [qd[j] for j in dep_idx if qd[j] not in pt]
    if unknown_dep:
        f_aff = sp.Matrix([at(f, {**vals, **{qd[j]: 0 for j in dep_idx}}) for f in fs])
        sol = _solve(AD0, -f_aff)
        for c, j in enumerate(dep_idx):
            if qd[j] not in pt:
                vals[qd[j]] = sol[c]
    for j in dep_idx:
        if qd[j] in pt:
            vals[qd[j]] = pt[qd[j]]
    tol = 1e-25 if exact else 1e-9  # 50-digit arithmetic, or the caller's double-precision floats
    res = [at(f, vals) for f in fs]
    for f, r in zip(fs, res):
        if not _is_zero(r, tol):
            raise OffManifoldError(f"linearise: the point is not on Q: the constraint {f} = {r} ≠ 0 there")

    # --- the bordered system and its derivatives at the point
    z = [*q, *qd]
    x = [*q, *[qd[j] for j in ind_idx]]
    L = system.L
    forces = list(system.forces)
    qd0 = [vals[v] for v in qd]
    moving = [j for j in range(n) if not _is_zero(qd0[j], tol)]
    fast = None
    if not any(e.has(Y.t, *[q[j] for j in moving]) for e in [L, *forces]):
        # a steady motion along coordinates L does not see: second-order Taylor expansions of
        # L, A and f at the point are all that is needed (no symbolic differentiation)
        try:
            tz = [*z, Y.t] if any(f.has(Y.t) for f in fs) else list(z)
            fast = _bordered_by_taylor(L, forces, fs, q, qd, tz, vals, moving, qd0, radicals)
        except _NoTaylor:
            fast = None
    if fast is not None:
        K0, r0, A0, finish = fast
    else:
        K0, r0, A0, finish = _bordered_by_diff(system, Q, fs, A_sym, Y, q, qd, z, vals, moving, qd0, at)
    # full rank at a random point of F_p proves det K0 ≢ 0 at once; only a drop there is checked
    # by the exact determinant (13 × 13 and symbolic in v, g for the Whipple bicycle: minutes)
    if generic_rank_dag(K0) < K0.rows and det_exact(K0).expand() == 0:
        raise NotRegularError(
            "linearise: the equations of motion are singular at the point (the bordered matrix "
            "[W, −fᵀ; f_q̇, 0] is singular: det B′ = 0, [Stolařová 2009, eq. (12)])"
        )
    y0 = _solve(K0, r0)
    qdd0, lam0 = list(y0[:n]), list(y0[n:])
    if fast is not None and any(not _is_zero(a, tol) for a in qdd0):
        # accelerating at the point: ∂W/∂z q̈₀ needs third derivatives of L
        K0, r0, A0, finish = _bordered_by_diff(system, Q, fs, A_sym, Y, q, qd, z, vals, moving, qd0, at)
        fast = None
    W0 = K0[:n, :n]
    Rz, fx = finish(qdd0, lam0, x)
    # z(x): q and q̇^I are states; q̇^D = q̇^D(x) by the implicit function theorem
    dqD = _solve(AD0, -fx)
    Dz = sp.zeros(2 * n, len(x))
    for c in range(n):
        Dz[c, c] = 1
    for c, j in enumerate(ind_idx):
        Dz[n + j, n + c] = 1
    for r, j in enumerate(dep_idx):
        Dz[n + j, :] = dqD[r, :]
    dy = _solve(K0, Rz * Dz)
    acc_rows = dy.extract(ind_idx, list(range(len(x))))
    rows_q = Dz[n:, :]
    J = rows_q.col_join(acc_rows).applyfunc(_normalise_small)
    # the reduced mass matrix Ψᵀ W Ψ, Ψ = ∂q̇/∂q̇^I
    Psi = Dz.extract(list(range(n, 2 * n)), list(range(n, len(x))))
    Mred = (Psi.T * W0 * Psi).applyfunc(_normalise_small)
    F = (-Mred * acc_rows).applyfunc(_normalise_small)
    f0 = sp.Matrix(qd0 + [qdd0[j] for j in ind_idx])
    lam_syms = sp.symbols(f"lambda1:{k + 1}")
    return Linearisation(tuple(x), J, f0, vals, {qdd[j]: qdd0[j] for j in ind_idx}, M=Mred, F=F,
                         multipliers=dict(zip(lam_syms, lam0)), method="multipliers", n_coordinates=n)


class _NoTaylor(Exception):
    """An expression the second-order Taylor propagation does not handle (falls back to diff)."""


class _Taylor2:
    r"""Second-order Taylor expansions at a point by forward propagation over the expression DAG.

    Each subexpression e becomes (e₀, {i: ∂_i e}, {(i, j): c_ij}) with Σ_{i≤j} c_ij δ_i δ_j the
    quadratic part (c_ii = ½∂²_i e, c_ij = ∂_i∂_j e for i < j); sums add, products convolve,
    and a function φ of one argument composes as φ(a) = φ(a₀) + φ′(a₀)(a₁ + a₂) + ½φ″(a₀)a₁².
    Shared subexpressions (the rotation matrices of a multibody Lagrangian) are expanded once.
    The cost is linear in the size of the DAG, against one traversal per derivative for
    ``diff``: the Whipple bicycle's linearisation takes seconds instead of a minute.
    """

    def __init__(self, variables, values, radicals: bool = False):
        self.index = {v: i for i, v in enumerate(variables)}
        self.values = values
        self.radicals = radicals
        self.memo: dict = {}
        self.fderiv: dict = {}

    @staticmethod
    def _mul(a, b):
        if a.is_Number and b.is_Number:
            return a * b
        return sp.expand(a * b)

    def _add_into(self, out: dict, key, val):
        v = out.get(key, 0) + val
        if v == 0:
            out.pop(key, None)
        else:
            out[key] = v

    def times(self, A, B):
        a0, a1, a2 = A
        b0, b1, b2 = B
        m = self._mul
        c1: dict = {}
        c2: dict = {}
        if b0 != 0:
            for i, v in a1.items():
                self._add_into(c1, i, m(v, b0))
            for ij, v in a2.items():
                self._add_into(c2, ij, m(v, b0))
        if a0 != 0:
            for i, v in b1.items():
                self._add_into(c1, i, m(v, a0))
            for ij, v in b2.items():
                self._add_into(c2, ij, m(v, a0))
        for i, u in a1.items():
            for j, w in b1.items():
                self._add_into(c2, (i, j) if i <= j else (j, i), m(u, w))
        return m(a0, b0), c1, c2

    def compose(self, f0, f1, f2, A):
        """φ(a) with φ(a₀) = f0, φ′(a₀) = f1, φ″(a₀) = f2."""
        _, a1, a2 = A
        m = self._mul
        c1: dict = {}
        c2: dict = {}
        if f1 != 0:
            for i, v in a1.items():
                self._add_into(c1, i, m(f1, v))
            for ij, v in a2.items():
                self._add_into(c2, ij, m(f1, v))
        if f2 != 0:
            h = f2 / 2
            items = list(a1.items())
            for p, (i, u) in enumerate(items):
                for j, w in items[p:]:
                    coef = h if i == j else f2
                    self._add_into(c2, (i, j) if i <= j else (j, i), m(coef, m(u, w)))
        return f0, c1, c2

    def num(self, e):
        return _numify(e, self.radicals)

    def __call__(self, e):
        got = self.memo.get(e)
        if got is not None:
            return got
        out = self._expand(e)
        self.memo[e] = out
        return out

    def _expand(self, e):
        if e in self.index:
            return self.num(self.values[e]), {self.index[e]: sp.Integer(1)}, {}
        if e.is_Number or e.is_Symbol or e.is_NumberSymbol:
            return self.num(self.values.get(e, e)), {}, {}
        if e.is_Add:
            c0, c1, c2 = sp.Integer(0), {}, {}
            for a in e.args:
                b0, b1, b2 = self(a)
                c0 = c0 + b0
                for i, v in b1.items():
                    self._add_into(c1, i, v)
                for ij, v in b2.items():
                    self._add_into(c2, ij, v)
            return (c0 if c0.is_Number else sp.expand(c0)), c1, c2
        if e.is_Mul:
            out = self(e.args[0])
            for a in e.args[1:]:
                out = self.times(out, self(a))
            return out
        if e.is_Pow:
            base, ex = e.args
            if ex.free_symbols & set(self.index):
                raise _NoTaylor(e)
            ex = self.num(ex.xreplace(self.values))
            B = self(base)
            if ex.is_Integer and 0 < ex <= 4:
                out = B
                for _ in range(int(ex) - 1):
                    out = self.times(out, B)
                return out
            b0 = B[0]
            if b0 == 0:
                raise _NoTaylor(e)
            f0 = self.num(b0**ex)
            return self.compose(f0, self.num(ex * b0 ** (ex - 1)), self.num(ex * (ex - 1) * b0 ** (ex - 2)), B)
        if isinstance(e, sp.Function) and len(e.args) == 1:
            A = self(e.args[0])
            d = self.fderiv.get(e.func)
            if d is None:
                X = sp.Dummy("X")
                d1 = e.func(X).diff(X)
                d = self.fderiv[e.func] = (X, d1, d1.diff(X))
            X, a0 = d[0], A[0]
            return self.compose(self.num(e.func(a0)), self.num(d[1].xreplace({X: a0})),
                                self.num(d[2].xreplace({X: a0})), A)
        raise _NoTaylor(e)

    def d1(self, T, var) -> sp.Expr:
        return T[1].get(self.index[var], sp.Integer(0))

    def d2(self, T, a, b) -> sp.Expr:
        i, j = self.index[a], self.index[b]
        if i == j:
            return 2 * T[2].get((i, i), sp.Integer(0))
        return T[2].get((i, j) if i < j else (j, i), sp.Integer(0))


def _bordered_by_taylor(L, forces, fs, q, qd, tz, vals, moving, qd0, radicals: bool = False):
    """K₀, r₀, f_q̇(p) and the derivative columns, from second-order Taylor expansions
    (valid when L and A do not depend on t nor on the moving coordinates, and q̈₀ = 0).

    Not a second builder: it *evaluates* the blocks of
    :func:`~jetgeo.mechanics.bordered.bordered_system` (grouped ℓ, q̇ frozen along the moving
    directions) and their first derivatives at the point from the Taylor coefficients of L, A and f,
    without forming the symbolic blocks (tests compare it with :func:`_bordered_by_diff`)."""
    n, k = len(q), len(fs)
    tay = _Taylor2(tz, vals, radicals)
    TL = tay(as_expr(L))
    TA = [tay(as_expr(a)) for a in forces]
    Tf = [tay(as_expr(f)) for f in fs]
    t = tz[-1] if len(tz) > 2 * n else None
    d1, d2 = tay.d1, tay.d2
    W0 = sp.Matrix(n, n, lambda i, j: d2(TL, qd[i], qd[j]))
    A0 = sp.Matrix(k, n, lambda a, j: d1(Tf[a], qd[j]))
    h0 = [sp.Add(*[d2(TL, qd[i], q[j]) * qd0[j] for j in moving]) - d1(TL, q[i]) - TA[i][0] for i in range(n)]
    g0 = [sp.Add(*[d1(Tf[a], q[j]) * qd0[j] for j in moving]) + (d1(Tf[a], t) if t is not None else 0)
          for a in range(k)]
    K0 = W0.row_join(-A0.T).col_join(A0.row_join(sp.zeros(k, k)))
    r0 = sp.Matrix([-_normalise_small(e) for e in h0] + [-_normalise_small(e) for e in g0])
    z = [*q, *qd]

    def finish(qdd0, lam0, x):
        Rz = sp.zeros(n + k, 2 * n)
        for c, v in enumerate(z):
            vel = c >= n
            for i in range(n):
                d = -d2(TL, q[i], v) - d1(TA[i], v) - sp.Add(*[lam0[a] * d2(Tf[a], qd[i], v) for a in range(k)])
                if vel:
                    d += d2(TL, qd[i], q[c - n])
                Rz[i, c] = -_normalise_small(d)
            for a in range(k):
                d = sp.Add(*[d2(Tf[a], q[j], v) * qd0[j] for j in moving])
                if t is not None:
                    d += d2(Tf[a], t, v)
                if vel:
                    d += d1(Tf[a], q[c - n])
                Rz[n + a, c] = -_normalise_small(d)
        fx = sp.Matrix(k, len(x), lambda a, c: d1(Tf[a], x[c]))
        return Rz, fx

    return K0, r0, A0, finish


def _bordered_by_diff(system, Q, fs, A_sym, Y, q, qd, z, vals, moving, qd0, at):
    """The same by symbolic differentiation (any point; third derivatives of L where needed), from
    :func:`~jetgeo.mechanics.bordered.bordered_system` with ℓ grouped and q̇ frozen at its value along
    the directions that move (the others contribute nothing to ℓ, b at the point nor to their
    q-derivatives)."""
    n, k = len(q), len(fs)
    L = system.L
    Lv = [sp.diff(L, v) for v in qd]
    B = bordered_system(system, Q, grouped=True, frozen_velocities={qd[j]: qd0[j] for j in moving})
    H = [-e for e in B.ell]
    G = list(B.b)
    W0 = B.W.applyfunc(lambda e: at(e, vals))
    A0 = A_sym.applyfunc(lambda e: at(e, vals))
    K0 = W0.row_join(-A0.T).col_join(A0.row_join(sp.zeros(k, k)))
    r0 = sp.Matrix([-at(e, vals) for e in H] + [-at(e, vals) for e in G])

    def finish(qdd0, lam0, x):
        accelerating = [j for j in range(n) if not _is_zero(qdd0[j])]
        reacting = [a for a in range(k) if not _is_zero(lam0[a])]
        # the terms of ∂K/∂z y₀: W q̈₀ and (f_q̇)ᵀ λ₀, f_q̇ q̈₀ as single expressions
        Wq = [sp.Add(*[sp.diff(Lv[i], qd[j]) * qdd0[j] for j in accelerating]) for i in range(n)]
        Rl = [sp.Add(*[A_sym[a, i] * lam0[a] for a in reacting]) for i in range(n)]
        Aq = [sp.Add(*[A_sym[a, j] * qdd0[j] for j in accelerating]) for a in range(k)]
        Rz = sp.zeros(n + k, 2 * n)
        for c, v in enumerate(z):
            is_vel = c >= n
            for i in range(n):
                d = sp.diff(H[i], v) + sp.diff(Wq[i], v) - sp.diff(Rl[i], v)
                if is_vel:
                    d += sp.diff(Lv[i], q[c - n])  # ∂(∂²L/∂q̇∂q q̇)/∂q̇^k ∋ ∂²L/∂q̇^i∂q^k
                Rz[i, c] = -at(d, vals)
            for a in range(k):
                d = sp.diff(G[a], v) + sp.diff(Aq[a], v)
                if is_vel:
                    d += sp.diff(fs[a], q[c - n])
                Rz[n + a, c] = -at(d, vals)
        fx = sp.Matrix(k, len(x), lambda a, c: at(sp.diff(fs[a], x[c]), vals))
        return Rz, fx

    return K0, r0, A0, finish


_DIGITS = 50


class _FloatNeeded(Exception):  # noqa: N818 - a signal between _numify and _linearise_multipliers
    """A constant without an exact form kept by the linearisation (sin(1/5), cos(π/10)) turned up while
    the square roots were kept exact: the caller starts again with floats."""


def _numify(e, radicals: bool = False):
    """Constants without an exact form kept here (sin(1/5), cos(π/10), e¹ …) become 50-digit floats;
    exact numbers (:func:`_exact_number`) stay exact.

    Kept exact, such constants would enter the linear algebra as independent generators, and
    relations among them (sin²(1/5) + cos²(1/5) = 1) would go unseen: a pivot that vanishes
    would be taken as non-zero.  Rationals and π (π/2 at a point) stay exact, so that sympy evaluates
    cos(π/2) to 0 — never a float of size 1e-52 — and the exact core decides zero and rank questions
    with π as the transcendental it is.  With ``radicals`` the square roots of rationals stay exact as
    well (sin(π/3) = √3/2: sympy reduces their products, the shadows evaluate them in F_p), and a
    constant that would become a float raises :class:`_FloatNeeded` instead.  Symbolic parameters
    stay symbolic."""
    memo: dict = {}  # each distinct subexpression once (the DAG results of long chains)
    exact: dict = {}

    def num(e):
        got = memo.get(e)
        if got is not None:
            return got
        if e.is_Rational or e.is_Symbol or e.is_Float:
            out = e
        elif _exact_number(e, exact, radicals):
            out = e
        elif _constant(e):  # evaluated node by node (evalf of a large DAG walks its tree)
            if radicals:
                raise _FloatNeeded(e)
            v = e.func(*[num(a) for a in e.args]) if e.args else e
            out = v if v.is_Float else sp.Float(v.evalf(_DIGITS), _DIGITS)
        elif e.is_Atom:
            out = e
        else:
            args = [num(a) for a in e.args]
            out = e.func(*args) if any(x is not y for x, y in zip(args, e.args)) else e
        memo[e] = out
        return out

    consts: dict = {}

    def _constant(e):  # no free symbol (on the DAG, memoised)
        got = consts.get(e)
        if got is None:
            got = not e.is_Symbol and all(_constant(a) for a in e.args)
            consts[e] = got
        return got

    return num(as_expr(e))


def _exact_number(e, memo: dict | None = None, radicals: bool = False) -> bool:
    """Whether the constant ``e`` is a number the linearisation keeps exact: built from rationals and π
    by sums, products and integer powers (π/2, π²/4) and, with ``radicals``, square roots of rationals
    (√3/2, 1/4 + √5/4: sin and cos at π/3, π/4, π/5, π/6).  Functions of constants (sin(1/5), log 2)
    and nested radicals (cos(π/10) = √(5/8 + √5/8)) are not."""
    memo = {} if memo is None else memo
    got = memo.get(e)
    if got is None:
        if e.is_Rational or e is sp.pi:
            got = True
        elif e.is_Add or e.is_Mul:
            got = all(_exact_number(a, memo, radicals) for a in e.args)
        elif e.is_Pow:
            got = bool(e.exp.is_Integer and _exact_number(e.base, memo, radicals)
                       or radicals and e.base.is_Rational and (2 * e.exp).is_Integer)
        else:
            got = False
        memo[e] = got
    return got


def _is_zero(e, tol: float = 1e-25) -> bool:
    """Exact zero test at the point (constants: numerically to 30 digits relative to the
    size of the terms when floats are present; symbolic parameters: jetgeo's zero test)."""
    e = as_expr(e)
    if e.is_Number:
        return e == 0 if not e.is_Float else abs(e) <= tol
    if e.has(sp.Float):
        # 50-digit arithmetic: zero to 25 digits at a generic value of the remaining parameters
        syms = sorted(e.free_symbols, key=sp.default_sort_key)
        gen = {x: sp.Rational(7 + 3 * i, 5 + 2 * i) for i, x in enumerate(syms)}
        return abs(complex(sp.N(e.xreplace(gen), _DIGITS))) <= tol
    if not e.free_symbols:
        return is_zero(e)
    return is_zero(e)


def _linearise_reduced(cs, point: Mapping, params: Mapping | None = None, exact: bool = True) -> Linearisation:
    """Linearise the constrained system ``cs`` (a :class:`~jetgeo.mechanics.ConstrainedSystem`) at a point of Q.

    ``point`` gives t (if the system depends on it), every q^σ and the independent
    velocities q̇^l (dependent ones may be given: they are checked against the normal
    form); ``params`` gives values of the remaining symbols (parameters), or leaves
    them symbolic.  With ``exact=True`` floats are converted to rationals first.

    Raises :class:`~jetgeo.errors.InputError` for a missing coordinate,
    :class:`~jetgeo.errors.OffManifoldError` if given dependent velocities violate
    the normal form, :class:`~jetgeo.errors.NotRegularError` if the reduced equations
    are singular at the point (det B′ = 0, [Stolařová 2009, eq. (12)]).
    """
    Y = cs.Y
    conv = _exact if exact else as_expr
    pv = _parameter_values(params, [cs.system.L, *cs.system.forces, *cs.Q.f, *point.values()], conv)
    pt = _point_values(point, pv, conv)
    ind = list(cs.independent)
    state = [*Y.q, *ind]
    missing = [s for s in state if s not in pt]
    if missing:
        raise InputError(f"linearise: the point lacks values for {missing} (needs every q and q̇^I: {state})")
    subs = dict(pv)
    subs.update({s: pt[s] for s in state})
    if Y.t in pt:
        subs[Y.t] = pt[Y.t]
    g = cs.g
    full = dict(subs)
    for d, gi in g.items():
        val = gi.xreplace(subs)
        if d in pt:
            diff = pt[d] - val
            if diff.has(sp.Float):  # the caller's floats (exact=False): to their precision
                off = not _is_zero(diff, 1e-9)
            else:
                off = not _is_zero(diff)
            if off:
                raise OffManifoldError(f"linearise: the given {d} = {pt[d]} is not on Q (normal form gives {val})")
        full[d] = val

    Ap, Bp = cs.reduced_coefficients()
    n = len(ind)
    B0 = Bp.xreplace(subs)
    A0 = Ap.xreplace(subs)
    if _is_zero(det_exact(B0)):
        raise NotRegularError(
            "linearise: the reduced equations are singular at the point (det B′ = 0, [Stolařová 2009, eq. (12)]); "
            f"point {pt}"
        )
    a0 = lu_solve_dag(B0, -A0)  # exact and unexpanded, as solved (LU on the DAG; floats: LU in their precision)
    acc_sym = [Y.qddot[Y.qdot.index(v)] for v in ind]

    # velocity rows: ḡ^σ
    gbar = [g.get(v, v) for v in Y.qdot]
    rows_q = sp.Matrix(len(Y.q), len(state), lambda i, j: sp.diff(gbar[i], state[j]).xreplace(subs))
    # acceleration rows: −B0⁻¹ (∂A′/∂x_j + ∂B′/∂x_j a0)
    R = sp.zeros(n, len(state))
    for j, x in enumerate(state):
        dA = Ap.diff(x).xreplace(subs)
        dB = Bp.diff(x).xreplace(subs)
        R[:, j] = dA + dB * a0
    rows_a = lu_solve_dag(B0, -R)
    J = rows_q.col_join(rows_a)
    f0 = sp.Matrix([as_expr(e).xreplace(subs) for e in gbar]).col_join(a0)
    return Linearisation(tuple(state), J, f0, full, dict(zip(acc_sym, a0)), M=-B0, F=-R, method="reduced",
                         n_coordinates=len(Y.q))
