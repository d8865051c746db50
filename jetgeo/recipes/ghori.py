r"""Ghori's forms of the equations of motion ([Ghori 1960, ch. 2] and ch. 4).

**Symmetric forms** ([Ghori 1960, eq. (2.2.19)] with Gibbs' function S; [Ghori 1960, eq. (2.3.14)] with the
function R of §2.3).  With Q in normal form q̇^D = g^D(t, q, q̇^I) (Woronetz's choice
of independent velocities, [Ghori 1960, eq. (2.2.2)]), a^D_i = ∂g^D/∂q̇^i and Π the generalised
forces, the equations for the independent indices i are

.. math:: \Big(\frac{\partial F}{\partial\ddot q^i} - \Pi_i\Big)
          + a^D_i\Big(\frac{\partial F}{\partial\ddot q^D} - \Pi_D\Big) = 0,
          \qquad \ddot q^D = \frac{d g^D}{dt},

where F is a function of the *unconstrained* system whose q̈-gradient is the
left-hand side of Lagrange's equations, d/dt ∂T/∂q̇ − ∂T/∂q:

* F = S, the energy of accelerations (Pogosov's symmetric form [Ghori 1960, eq. (2.2.19)]);
* F = R = ½ T̈ − (3/2) T̈₀ ([Ghori 1960, §2.3], Tzenoff's function), where T̈ = d²T/dt² along a
  curve (it contains the jerks q⃛) and T̈₀ is the same derivative with the velocities in
  T frozen (T₀(t, q) = T(t, q, q̇₀)).  Derivation: with ẋ = J(t, q) q̇ + x_t,
  ∂x⃛/∂q̈^σ = 3 d/dt ∂ẋ/∂q̇^σ and ∂ẍ/∂q̈^σ = ∂x/∂q^σ, so
  ∂T̈/∂q̈^σ = 2 m ẍ·∂_σx + 3 ∂T/∂q^σ, while ∂T̈₀/∂q̈^σ = ∂T/∂q^σ; hence
  ∂R/∂q̈^σ = m ẍ·∂_σx = ∂S/∂q̈^σ.  This is computed here from T alone (T̈ and T̈₀ are
  taken literally, on J³Y), not through S.

Ghori's R-form (2.3.11) with the constrained function R′ needs the jerks of the
dependent coordinates; the symmetric form (2.3.14) used here avoids them.

**Novoselov's nonlinear nonholonomic coordinates** [Ghori 1960, §4.1, §4.3].  Kinetic
characteristics ω^s = ω^s(t, q, q̇), possibly nonlinear in q̇, of which the constraint
ones are ω^α = f^α ([Ghori 1960, eq. (4.1.6)], Chetaev type): on Q the n − r independent
characteristics ω^i are coordinates of the velocities, q̇ = φ(t, q, ω^i) ([Ghori 1960, eq. (4.3.12)],
found here by solving ω^i(t, q, q̇^I, g(t, q, q̇^I)) = ω^i for q̇^I), the virtual
displacements are δq = ∂φ/∂ω^i δπ^i (4.3.13) and Appell's equations read
∂S′/∂ω̇^i = Π_s ∂φ^s/∂ω^i (4.3.14), S′ the energy of accelerations in (t, q, ω, ω̇).
The last step is the parametric Gibbs–Appell computation of
:func:`jetgeo.recipes.gibbs_appell` with ψ = φ; what is specific here is the change of
velocity coordinates and its inverse.
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy as sp

from ..errors import InputError, NotApplicableError, NotRegularError
from ..geometry.coerce import as_expr
from ..geometry.exact import solve_affine
from ..geometry.zero import normalise_if_small
from ..mechanics import ConstraintSubmanifold, LagrangianSystem, QuasiVelocitySystem
from ._common import Motion, accelerations_on_Q, check_system, constrained, coordinate_form
from .gibbs_appell import _split, energy_of_accelerations, gibbs_appell

__all__ = ["tzenoff_function", "ghori_symmetric", "novoselov"]


def tzenoff_function(system: LagrangianSystem) -> sp.Expr:
    """R = ½ T̈ − (3/2) T̈₀ of [Ghori 1960, §2.3] (an expression in t, q, q̇, q̈, q⃛).

    T is the kinetic part of the Lagrangian (``LagrangianSystem.mechanical``), else L.

    Parameters
    ----------
    system : LagrangianSystem
        Its kinetic energy T (or L) gives R.

    Returns
    -------
    sympy.Expr
        R in (t, q, q̇, q̈, q⃛).
    """
    Y = system.Y
    T, _ = _split(system)
    Tdd = Y.total_derivative(T, 2)
    frozen = [sp.Dummy(f"v{i}") for i in range(Y.m)]
    T0 = as_expr(T).xreplace(dict(zip(Y.qdot, frozen)))
    # d/dt of a function of (t, q) and, after one step, of (t, q, q̇): the frozen velocities stay fixed
    T0dd = Y.total_derivative(T0, 2).xreplace(dict(zip(frozen, Y.qdot)))
    return sp.Rational(1, 2) * Tdd - sp.Rational(3, 2) * T0dd


def ghori_symmetric(system: LagrangianSystem | QuasiVelocitySystem,
                    Q: ConstraintSubmanifold | None = None, function: str = "R",
                    branch: int | None = None, dependent=None) -> Motion:
    """Ghori's symmetric equations of motion: [Ghori 1960, eq. (2.3.14)] (``function="R"``) or (2.2.19) (``"S"``).

    Accelerations in (t, q, q̇^I) on Q.  Extras: ``"function"`` (R or S of the
    unconstrained system), ``"equations"``.

    Parameters
    ----------
    system : LagrangianSystem
        L and the forces A_σ on J¹Y.
    Q : ConstraintSubmanifold
        The constraints f^i(t, q, q̇) = 0.
    function : {"R", "S"}
        Tzenoff's function R (2.3.14) or the energy of accelerations S (2.2.19).
    branch : int or None
        The branch of a nonlinear constraint's normal form (None: Q's own).
    dependent : sequence of Symbols, optional
        The dependent velocities q̇^D of the normal form (default: Q's choice).

    Returns
    -------
    Motion
        Accelerations in (t, q, q̇^I) on Q.

    Examples
    --------
    >>> import sympy as sp
    >>> from jetgeo import FibredManifold, LagrangianSystem, ConstraintSubmanifold
    >>> Y = FibredManifold(["x", "y", "theta"]); x, y, th = Y.q; xd, yd, thd = Y.qdot
    >>> S = LagrangianSystem.mechanical(Y, (xd**2 + yd**2 + thd**2) / 2)
    >>> Q = ConstraintSubmanifold(Y, [xd*sp.sin(th) - yd*sp.cos(th)])
    >>> ghori_symmetric(S, Q).accelerations()[Y.qddot[2]]
    0
    """
    system, Q = coordinate_form(system, Q, "ghori_symmetric")
    check_system(system, Q)
    if function not in ("R", "S"):
        raise InputError("ghori_symmetric: function must be 'R' [Ghori 1960, eq. (2.3.14)] or 'S' [Ghori 1960, eq. "
                         f"(2.2.19)], got {function!r}")
    Y = system.Y
    F = tzenoff_function(system) if function == "R" else energy_of_accelerations(system)
    _, Pi = _split(system)
    cs = constrained(system, Q, branch=branch, dependent=dependent)
    grad = [sp.diff(F, a) - p for a, p in zip(Y.qddot, Pi)]  # free of the jerks: R is affine in q⃛
    if any(s in e.free_symbols for e in grad for s in Y.jet_symbols(3)):
        raise NotApplicableError("ghori_symmetric: ∂R/∂q̈ depends on the jerks; T is not a kinetic energy")
    ind = [Y.qddot[i] for i in cs.independent_indices]
    eqs = []
    for li in cs.independent_indices:
        v = Y.qdot[li]
        e = grad[li] + sum((grad[Y.qdot.index(d)] * sp.diff(g, v) for d, g in cs.g.items()), 0)
        eqs.append(cs.on_Q(e))
    sol, det = solve_affine(eqs, ind, f"Ghori's symmetric equations with {function}")
    acc = accelerations_on_Q(cs, sol)
    return Motion(
        recipe=f"ghori_{function}", system=system, Q=Q, accelerations=acc, coordinates=tuple(cs.chart.coords),
        substitution=dict(cs.g), conditions=[c for c in (det, cs.nf.condition) if c != 1],
        extras={"function": F, "equations": eqs}, branch=cs.nf.branch.index,
    )


def novoselov(system: LagrangianSystem, Q: ConstraintSubmanifold, characteristics: Sequence,
              symbols: Sequence | None = None, solution: int = 0, branch: int | None = None) -> Motion:
    """Appell's equations in Novoselov's nonlinear nonholonomic coordinates [Ghori 1960, eqs. (4.3.12)–(4.3.14)].

    ``characteristics``: the n − r independent kinetic characteristics ω^i(t, q, q̇)
    (any functions of the velocities whose restriction to Q can be inverted);
    ``symbols``: their names (default ``w1, w2, …``); ``solution``: which solution of
    the inversion to take when there are several (sympy's order).  Accelerations are
    in (t, q, ω); ``to_jet`` = {ω^i: characteristic}.  Extras: ``"phi"`` (q̇ = φ(t, q, ω)),
    everything of the parametric :func:`gibbs_appell`.

    Parameters
    ----------
    system : LagrangianSystem
        L and the forces A_σ on J¹Y.
    Q : ConstraintSubmanifold
        The constraints f^i(t, q, q̇) = 0.
    characteristics : sequence of expressions
        The kinetic characteristics ω^i(t, q, q̇).
    symbols : sequence of str or Symbol, optional
        Their names (default ``w1, w2, …``).
    solution : int
        Which solution of the inversion q̇ = φ(t, q, ω) to take.
    branch : int or None
        The branch of a nonlinear constraint's normal form (None: Q's own).

    Returns
    -------
    Motion
        Accelerations in (t, q, ω), ``to_jet`` {ω^i: characteristic}.

    Examples
    --------
    >>> import sympy as sp
    >>> from jetgeo import FibredManifold, LagrangianSystem, ConstraintSubmanifold
    >>> Y = FibredManifold(["x", "y", "theta"]); x, y, th = Y.q; xd, yd, thd = Y.qdot
    >>> S = LagrangianSystem.mechanical(Y, (xd**2 + yd**2 + thd**2) / 2)
    >>> Q = ConstraintSubmanifold(Y, [xd*sp.sin(th) - yd*sp.cos(th)])
    >>> M = novoselov(S, Q, [xd*sp.cos(th) + yd*sp.sin(th), thd])
    >>> M.extras["zdot"]
    {w1dot: 0, w2dot: 0}
    """
    check_system(system, Q)
    Y = system.Y
    cs = constrained(system, Q, branch=branch)
    n_ind = len(cs.independent)
    chars = [as_expr(c) for c in characteristics]
    if len(chars) != n_ind:
        raise InputError(f"novoselov: need n − r = {n_ind} independent characteristics, got {len(chars)}")
    names = symbols or [f"w{i + 1}" for i in range(n_ind)]
    w = [sp.Symbol(s) if isinstance(s, str) else s for s in names]
    if len(w) != n_ind or set(w) & set(Y.J2.coords):
        raise InputError(f"novoselov: need {n_ind} new symbols for the characteristics, distinct from the jets")
    on_Q = [cs.on_Q(c) for c in chars]
    ind = list(cs.independent)
    J = sp.Matrix(n_ind, n_ind, lambda r, c: sp.diff(on_Q[r], ind[c]))
    if all(not (J[r, c].free_symbols & set(ind)) for r in range(n_ind) for c in range(n_ind)):
        # affine in the independent velocities: one LU solve
        sol, _ = solve_affine([e - wi for e, wi in zip(on_Q, w)], ind, "Novoselov's characteristics")
        sols = [sol]
    else:
        sols = sp.solve([e - wi for e, wi in zip(on_Q, w)], ind, dict=True)
    if not sols:
        raise NotRegularError("novoselov: the characteristics cannot be solved for the independent velocities on Q")
    if not 0 <= solution < len(sols):
        raise InputError(f"novoselov: solution={solution} but the inversion has {len(sols)} solution(s)")
    inv = {v: normalise_if_small(e) for v, e in sols[solution].items()}
    if set(inv) != set(ind):
        raise NotRegularError("novoselov: the characteristics do not determine every independent velocity")
    phi = [inv[v] if v in inv else normalise_if_small(cs.g[v].xreplace(inv)) for v in Y.qdot]
    res = gibbs_appell(system, psi=phi, z=w)
    res.recipe = "novoselov"
    res.Q = Q
    res.branch = cs.nf.branch.index
    res.to_jet = dict(zip(w, chars))
    res.extras["phi"] = dict(zip(Y.qdot, phi))
    return res
