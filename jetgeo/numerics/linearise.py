r"""Exact linearisation of a constrained system about a point (a steady motion) of Q.

A constrained system on Q (normal form q̇^D = g(t, q, q̇^I), seed 004 (4)) is the
first-order system on Q with state x = (q^σ, q̇^l), l ∈ I:

.. math:: \dot q^\sigma = \bar g^\sigma(t, x), \qquad \dot{\dot q}{}^l = a^l(t, x),

where ḡ^σ = q̇^σ for σ ∈ I, ḡ^{D_i} = g^i, and a = −B′⁻¹A′ solves the reduced
equations A′(x) + B′(x) a = 0 (004 (8)).  Its linearisation at a point x₀ is the
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
Examples: ``tests/benchmarks/test_linearise.py`` (pendulum on a rolling cart,
vertical rolling disc) and :mod:`jetgeo.systems.whipple`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import sympy as sp

from ..errors import NotRegularError, OffManifoldError, SpecError

__all__ = ["Linearisation", "linearise"]


def _exact(v):
    """Floats become exact rationals (so that the linear algebra below stays exact)."""
    v = sp.sympify(v)
    if isinstance(v, sp.Float):
        return sp.nsimplify(v, rational=True)
    return v


class Linearisation:
    """The Jacobian of a constrained system's first-order vector field on Q at a point.

    Attributes
    ----------
    state : tuple of the state symbols (q^σ for all σ, then the independent q̇^l)
    A : sympy Matrix, the Jacobian ∂(ḡ, a)/∂x at the point (exact for exact inputs)
    f0 : sympy Matrix, the vector field (ḡ, a) at the point
    point : {symbol: value} for t, q, every q̇ (dependent ones from the normal form) and
        the parameters
    accelerations : {q̈^l: value} at the point (independent ones)
    """

    def __init__(self, state: tuple, A: sp.Matrix, f0: sp.Matrix, point: dict, accelerations: dict) -> None:
        self.state = tuple(state)
        self.A = A
        self.f0 = f0
        self.point = point
        self.accelerations = accelerations

    def index(self, s) -> int:
        try:
            return self.state.index(sp.sympify(s))
        except ValueError:
            raise SpecError(f"{s} is not a state of this linearisation; states are {list(self.state)}") from None

    def restrict(self, states: Sequence, tol: float = 0.0) -> Linearisation:
        """The linearisation of the subsystem of ``states`` about the steady motion.

        Requires (checked; :class:`~jetgeo.errors.SpecError` names the offender):
        the field of every kept state vanishes at the point (the kept part is at rest:
        a relative equilibrium), and no kept row depends on a dropped state (so the
        dropped states are cyclic to first order).  ``tol`` > 0 allows a numeric
        tolerance for non-exact inputs; 0 means exact zero tests.
        """
        idx = [self.index(s) for s in states]
        drop = [j for j in range(len(self.state)) if j not in idx]

        def is_zero(e):
            e = sp.nsimplify(e) if tol == 0 and e.has(sp.Float) else e
            if tol == 0:
                z = sp.expand(e)
                return z == 0 or z.is_zero is True
            return abs(complex(sp.N(e))) <= tol

        for i in idx:
            if not is_zero(self.f0[i]):
                raise SpecError(
                    f"not a steady motion for the kept states: d{self.state[i]}/dt = {self.f0[i]} ≠ 0 at the point"
                )
            for j in drop:
                if not is_zero(self.A[i, j]):
                    raise SpecError(
                        f"the row of {self.state[i]} depends on the dropped state {self.state[j]} "
                        f"(∂/∂{self.state[j]} = {self.A[i, j]}); it is not cyclic to first order"
                    )
        A = self.A.extract(idx, idx)
        return Linearisation(tuple(self.state[i] for i in idx), A, self.f0.extract(idx, [0]), self.point,
                             self.accelerations)

    def numeric(self, params: Mapping | None = None):
        """The matrix as a numpy float array (after substituting ``params`` if given)."""
        import numpy as np

        A = self.A if not params else self.A.xreplace({sp.sympify(k): _exact(v) for k, v in params.items()})
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


def linearise(cs, point: Mapping, params: Mapping | None = None, exact: bool = True) -> Linearisation:
    """Linearise the constrained system ``cs`` (a :class:`~jetgeo.mechanics.ConstrainedSystem`) at a point of Q.

    ``point`` gives t (if the system depends on it), every q^σ and the independent
    velocities q̇^l (dependent ones may be given: they are checked against the normal
    form); ``params`` gives values of the remaining symbols (parameters), or leaves
    them symbolic.  With ``exact=True`` floats are converted to rationals first.

    Raises :class:`~jetgeo.errors.SpecError` for a missing coordinate,
    :class:`~jetgeo.errors.OffManifoldError` if given dependent velocities violate
    the normal form, :class:`~jetgeo.errors.NotRegularError` if the reduced equations
    are singular at the point (det B′ = 0, seed 004 (12)).
    """
    Y = cs.Y
    conv = _exact if exact else sp.sympify
    pt = {sp.sympify(k): conv(v) for k, v in point.items()}
    pv = {sp.sympify(k): conv(v) for k, v in (params or {}).items()}
    ind = list(cs.independent)
    state = [*Y.q, *ind]
    missing = [s for s in state if s not in pt]
    if missing:
        raise SpecError(f"linearise: the point lacks values for {missing} (needs every q and q̇^I: {state})")
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
            if diff.free_symbols:
                off = sp.cancel(sp.expand(diff)) != 0
            else:
                off = abs(complex(sp.N(diff))) > 1e-9 * (1 + abs(complex(sp.N(val))))
            if off:
                raise OffManifoldError(f"linearise: the given {d} = {pt[d]} is not on Q (normal form gives {val})")
        full[d] = val

    Ap, Bp = cs.reduced_coefficients()
    n = len(ind)
    B0 = Bp.xreplace(subs)
    A0 = Ap.xreplace(subs)
    if B0.det(method="berkowitz").equals(0):
        raise NotRegularError(
            f"linearise: the reduced equations are singular at the point (det B′ = 0, seed 004 (12)); point {pt}"
        )
    a0 = B0.LUsolve(-A0)
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
    rows_a = B0.LUsolve(-R)
    J = rows_q.col_join(rows_a)
    f0 = sp.Matrix([sp.sympify(e).xreplace(subs) for e in gbar]).col_join(a0)
    return Linearisation(tuple(state), J, f0, full, dict(zip(acc_sym, a0)))
