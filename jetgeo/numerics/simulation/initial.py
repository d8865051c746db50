r"""Initial data: the full state (q, q̇) at t₀ from the user's values, the completion of the
dependent velocities from f(t₀, q, q̇) = 0, and the check that the data lie on Q."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import sympy as sp

from ...errors import InputError, OffManifoldError
from .atlas import chart_quality
from .model import names
from .prepare import PreparedSystem, along_solution

__all__ = ["initial_data", "check_on_manifold", "complete_from_normal_form", "lookup"]


def lookup(values: Mapping, s: sp.Symbol):
    """The value given for the symbol ``s`` in a user's mapping, whose keys may be symbols or their names.

    Parameters
    ----------
    values : mapping
        {Symbol or str: value}, e.g. an initial state or parameter values.
    s : sympy.Symbol
        The symbol looked up: by identity first, then by name (a symbol with other assumptions
        but the same name matches too).

    Returns
    -------
    object or None
        The value, or None when ``s`` is not given.

    Examples
    --------
    >>> x = sp.Symbol("x", positive=True)
    >>> lookup({"x": 1.5}, x), lookup({}, x)
    (1.5, None)
    """
    if s in values:
        return values[s]
    for k, v in values.items():
        if str(k) == str(s):
            return v
    return None



def complete_from_normal_form(g, t, y: np.ndarray, p, rows) -> np.ndarray:
    """Complete a state on Q from the normal form q̇^D = g(t, q, q̇^I): the entries of ``y`` in ``rows`` that
    are NaN (the dependent velocities not given) become g there; the given ones are kept (checked on Q
    afterwards).  The one numerical completion of a state on Q: :func:`initial_data` (one state) and
    :func:`jetgeo.numerics.batch.check_initial` (one column per member) use it.

    Parameters
    ----------
    g : callable
        (t, y, p) ↦ the values of g, one row per dependent velocity (a compiled normal form).
    t : float or numpy.ndarray
        The time (one per member for a batch).
    y : numpy.ndarray
        The full state (q, q̇): 2m values, or 2m × N for N members; NaN where a velocity is missing.
    p : numpy.ndarray
        The parameter values.
    rows : sequence of int
        The rows of y holding the dependent velocities, in the order of g's rows.

    Returns
    -------
    numpy.ndarray
        ``y``, completed in place.
    """
    gv = g(t, np.where(np.isnan(y), 0.0, y), p)  # g reads q and q̇^I only: a missing entry is never used
    for k, r in enumerate(rows):
        y[r] = np.where(np.isnan(y[r]), gv[k], y[r])
    return y


def _choice_in_force(prep: PreparedSystem) -> tuple:
    """The dependent velocities of the normal form in use, else Q's own choice (a (system, Q) pair)."""
    if prep.dependent:
        return tuple(prep.dependent)
    Q = prep.model.Q
    return tuple(Q.dependent) if Q is not None else ()



def initial_data(prep: PreparedSystem, initial: Mapping, complete: bool, t0: float, p) -> np.ndarray:
    """The full state (q, q̇) at t0 from the user's data; with ``complete`` the k missing velocities
    are solved from f(t0, q, q̇) = 0 (numerically and exactly in one step when f is affine in the
    velocities, else from the normal form for those velocities).

    Parameters
    ----------
    prep : PreparedSystem
        The compiled system.
    initial : mapping
        {symbol or name: value} for every q and the velocities given.
    complete : bool
        Solve the missing velocities from the constraints.
    t0 : float
        The initial time.
    p : numpy.ndarray
        The parameter values.

    Returns
    -------
    numpy.ndarray
        The full state (q, q̇), 2m values.

    Raises
    ------
    InputError
        A coordinate missing; velocities missing without ``complete``, or more or fewer than the constraints
        can give, or ones they cannot be solved for at the point (∂f/∂q̇ singular there, several branches).
    """
    M = prep.model
    m = len(M.q)
    y = np.full(2 * m, np.nan)
    miss = []
    for i, s in enumerate(prep.full_state):
        v = lookup(initial, s)
        if v is None:
            miss.append(s)
        else:
            y[i] = float(v)
    miss_q = [s for s in miss if s in M.q]
    if miss_q:
        raise InputError(f"simulate: initial values missing for the coordinates {names(miss_q)}")
    miss_v = [s for s in miss if s in M.qdot]
    if not miss_v:
        return y
    k = len(M.f)
    choice = _choice_in_force(prep)
    given_dep = [d for d in choice if d not in miss_v]
    if not k:
        raise InputError(f"simulate: initial values missing for the velocities {names(miss_v)} (there are no "
                        "constraints to compute them from)")
    where = (f"the dependent velocities of the choice in force are {names(choice)}"
             + (f" ({', '.join(map(str, given_dep))} given)" if given_dep else ""))
    if not complete:
        raise InputError(
            f"simulate: initial values missing for the velocities {names(miss_v)}; {where}. Give them, or pass "
            f"complete=True to compute {k} missing velocit{'y' if k == 1 else 'ies'} from the constraints "
            "f(t, q, q̇) = 0")
    if len(miss_v) > k:
        raise InputError(
            f"simulate: complete=True computes {k} velocit{'y' if k == 1 else 'ies'} from the {k} constraint(s), "
            f"but {len(miss_v)} are missing: {names(miss_v)}; give all but {k} ({where})")
    if len(miss_v) < k:
        if prep.normal_form is not None and set(miss_v) <= set(prep.dependent):
            return complete_from_normal_form(prep.normal_form, t0, y, p, [m + M.qdot.index(d) for d in prep.dependent])
        raise InputError(
            f"simulate: complete=True computes the missing velocities from the constraints: omit exactly {k} "
            f"velocities the constraints can be solved for ({where}); missing: {names(miss_v)}")
    idx = [m + M.qdot.index(v) for v in miss_v]
    J = prep.constraint_jacobian
    if prep.jacobian_of_constraints is not None and not any(e.has(*M.qdot) for e in J):
        # f affine in the velocities: f(q̇) = f(q̇ with q̇^M = 0) + J_M q̇^M, one exact linear solve
        y0 = np.where(np.isnan(y), 0.0, y)
        f0 = np.asarray(prep.constraint_residuals(t0, y0, p), dtype=float)
        J0 = np.asarray(prep.jacobian_of_constraints(t0, y0, p), dtype=float)
        cols = [i - m for i in idx]
        if not np.all(np.isfinite(J0)) or chart_quality(J0, cols) < 1e-20:
            raise InputError(
                f"simulate: the constraints cannot be solved for {names(miss_v)} at the initial point "
                f"(∂f/∂({', '.join(map(str, miss_v))}) is singular there); give those velocities and omit others "
                f"({where})")
        y[idx] = np.linalg.solve(J0[:, cols], -f0)
        return y
    Q = M.Q if M.Q is not None else (M.cs.Q if M.cs is not None else None)
    if set(miss_v) == set(prep.dependent) and prep.normal_form is not None:
        return complete_from_normal_form(prep.normal_form, t0, y, p, [m + M.qdot.index(d) for d in prep.dependent])
    if Q is None:
        raise InputError(f"simulate: cannot complete {names(miss_v)}: no constraint submanifold is known")
    Qm = Q.with_dependent(miss_v)
    brs = Qm.branches()
    if len(brs) != 1:
        raise InputError(
            f"simulate: the constraints have {len(brs)} solution branches for {names(miss_v)}; give those "
            "velocities (complete=True cannot choose a branch)")
    g = [brs[0].solution[v] for v in miss_v]
    gv = along_solution(g, prep.full_state, prep.params, M.t, name="completion")(t0, np.where(np.isnan(y), 0.0, y), p)
    y[idx] = gv
    return y



def check_on_manifold(prep: PreparedSystem, t0, y_full, p, tol) -> None:
    """Refuse initial data off Q: |f^i| ≤ tol (1 + Σ|terms of f^i|) at (t0, y_full) for every constraint, and
    q̇^D within 10³ tol of g of the normal form in use.

    Parameters
    ----------
    prep : PreparedSystem
        The compiled system (its constraint residuals, scales and normal form).
    t0 : float
        The initial time.
    y_full : numpy.ndarray
        The full state (q, q̇).
    p : numpy.ndarray
        The parameter values.
    tol : float
        The relative tolerance.

    Raises
    ------
    OffManifoldError
        Naming the first constraint (or dependent velocity) violated, its value and the tolerance.
    """
    M = prep.model
    if not M.f:
        return
    vals = prep.constraint_residuals(t0, y_full, p)
    scales = prep.constraint_scales(t0, y_full, p)
    for i, (f, v, s) in enumerate(zip(M.f, vals, scales)):
        if not np.isfinite(v) or abs(v) > tol * (1.0 + abs(s)):
            raise OffManifoldError(
                f"the initial data are not on the constraint manifold Q: constraint f^{i + 1} = {f} should vanish "
                f"but its value at t = {t0:g} is {v:.6g} (tolerance {tol * (1.0 + abs(s)):.3g}). Give consistent "
                f"velocities, or omit {len(M.f)} of them (e.g. the dependent velocities of the choice in force, "
                f"{names(_choice_in_force(prep))}) and pass complete=True to compute them from f = 0"
            )
    if prep.normal_form is not None:
        m = len(M.q)
        gv = prep.normal_form(t0, y_full, p)
        for k, d in enumerate(prep.dependent):
            have = y_full[m + M.qdot.index(d)]
            if abs(have - gv[k]) > tol * (1.0 + abs(have)) * 1e3:
                raise OffManifoldError(
                    f"the initial data satisfy the constraints but not the chosen branch of the normal form: "
                    f"{d} = {M.g[d]} gives {gv[k]:.6g}, the data say {have:.6g} (another branch of Q: choose it "
                    "with branch= when constraining the system)"
                )
