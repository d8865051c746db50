r"""Stability maps: the eigenvalues of the linearisation about a steady motion over a parameter grid.

A steady motion x₀(p) of a constrained system (a relative equilibrium: the kept states are
at rest, the dropped ones cyclic) is linearly stable when every eigenvalue of the Jacobian
A(p) = ∂(ḡ, a)/∂x of its vector field on Q, restricted to the kept states, has non-positive
real part — asymptotically when all are negative, neutrally (marginally) when a pair sits on
the imaginary axis, as for a conservative system.  :func:`stability_map` computes A(p) **once,
symbolically**, with the swept parameters kept as symbols (:func:`jetgeo.numerics.linearise`,
exact multiplier route: second derivatives of L and f at the point, one constant linear solve),
compiles it once (:func:`jetgeo.numerics.compile_rhs`, vectorised over the grid) and evaluates
the eigenvalues on every grid point.  :meth:`StabilityMap.critical` locates the boundaries of
the stable region along one parameter to machine precision: Brent's method on the largest real
part where it changes sign (a simple eigenvalue or a pair crossing the imaginary axis
transversally: the Whipple bicycle's weave and capsize speeds [Meijaard et al. 2007, §5]),
bisection on "largest real part ≤ tol" where the stable side is neutral (the real part is
zero there, not negative: Routh's rolling disc, stable for C(C + ma²)Ω² > Amga
[Routh 1884]).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import sympy as sp

from ..errors import InputError
from ..geometry.coerce import as_expr, as_symbol
from ..mechanics import ConstraintSubmanifold, LagrangianSystem
from ..mechanics.eom import EquationsOfMotion, SampledSystem, dependent_velocities
from ..mechanics.linearisation import linearise
from .compile import compile_rhs

__all__ = ["stability_map", "StabilityMap"]


def _symbol_of(name, pool) -> sp.Symbol:
    if isinstance(name, sp.Symbol):
        return name
    for s in pool:
        if str(s) == str(name):
            return s
    return as_symbol(str(name))  # a new symbol: the name must be an identifier (never parsed)


class StabilityMap:
    """Eigenvalues of the restricted linearisation over a grid (see the module docstring).

    Attributes: ``data`` (an xarray Dataset: ``eigenvalues`` over the grid dimensions and
    ``mode``, ``max_real``, ``stable``), ``matrix`` (the symbolic restricted Jacobian),
    ``state`` (its states), ``swept`` (the grid symbols, in the order of the dimensions),
    ``tol`` (the real part counted as zero).

    Parameters
    ----------
    matrix : sympy.Matrix
        The restricted Jacobian A (k × k), a function of the swept symbols only.
    state : tuple of Symbol
        The states of A.
    swept : tuple of Symbol
        The grid's symbols, in the order of the dimensions.
    axes : dict
        {symbol: numpy array of values}: the grid.
    tol : float
        A real part counted as zero (|Re λ| ≤ tol is neither stable nor unstable).
    """

    def __init__(self, matrix: sp.Matrix, state: tuple, swept: tuple, axes: dict, tol: float) -> None:
        self.matrix = matrix
        self.state = state
        self.swept = swept
        self.axes = axes
        self.tol = tol
        self._A = compile_rhs(matrix, (), swept, sp.Symbol("_t_unused"), vectorized=True, name="stability_matrix",
                              optimizations=None)
        self.data = self._evaluate()

    # --- evaluation -------------------------------------------------------------------------
    def matrices(self, values: np.ndarray) -> np.ndarray:
        """A at N points: ``values`` (n_swept, N) -> (N, k, k)."""
        values = np.asarray(values, dtype=float).reshape(len(self.swept), -1)
        N = values.shape[1]
        out = np.asarray(self._A(np.zeros(N), (), values), dtype=float).reshape(self.matrix.rows, self.matrix.cols, N)
        return np.moveaxis(out, -1, 0)

    def eigenvalues(self, **values) -> np.ndarray:
        """The eigenvalues at one point (by name), sorted by real part then imaginary part."""
        p = np.array([[float(values[str(s)])] for s in self.swept])
        ev = np.linalg.eigvals(self.matrices(p))[0]
        return ev[np.lexsort((ev.imag, ev.real))]

    def abscissa(self, **values) -> float:
        """The largest real part of the eigenvalues at one point."""
        return float(np.max(self.eigenvalues(**values).real))

    def _evaluate(self):
        import xarray as xr

        names = [str(s) for s in self.swept]
        mesh = np.meshgrid(*[self.axes[n] for n in names], indexing="ij")
        pts = np.stack([m.reshape(-1) for m in mesh])
        with np.errstate(all="ignore"):
            A = self.matrices(pts)
        finite = np.all(np.isfinite(A), axis=(1, 2))
        ev = np.full((A.shape[0], A.shape[1]), np.nan + 0j)
        if finite.any():
            e = np.linalg.eigvals(A[finite])
            order = np.lexsort((e.imag, e.real), axis=-1)
            ev[finite] = np.take_along_axis(e, order, axis=-1)
        shape = mesh[0].shape
        ev = ev.reshape(*shape, A.shape[1])
        mr = np.max(ev.real, axis=-1)
        dims = tuple(names)
        return xr.Dataset(
            {"eigenvalues": (dims + ("mode",), ev), "max_real": (dims, mr), "stable": (dims, mr <= self.tol)},
            coords={**{n: self.axes[n] for n in names}, "mode": np.arange(A.shape[1])},
            attrs={"states": [str(s) for s in self.state], "tol": self.tol,
                   "description": "eigenvalues of the linearisation about the steady motion, restricted to the states"},
        )

    # --- the boundaries of the stable region --------------------------------------------------
    def critical(self, along: str, xtol: float = 1e-14):
        """The values of ``along`` where stability changes, for every point of the other axes.

        Returns an xarray Dataset with ``value`` (other dims…, ``boundary``), NaN-padded, and
        ``becomes`` (+1: stable for larger values, −1: unstable for larger values)."""
        import xarray as xr
        from scipy.optimize import brentq

        names = [str(s) for s in self.swept]
        if along not in names:
            raise InputError(f"critical: {along!r} is not a swept parameter; they are {names}")
        others = [n for n in names if n != along]
        stable = self.data["stable"].transpose(*others, along).values
        x = np.asarray(self.axes[along], dtype=float)
        flat = stable.reshape(-1, len(x))
        other_pts = np.meshgrid(*[self.axes[n] for n in others], indexing="ij") if others else []
        other_flat = [m.reshape(-1) for m in other_pts]
        found: list = []
        for r in range(flat.shape[0]):
            fixed = {n: float(v[r]) for n, v in zip(others, other_flat)}
            roots = []
            for j in np.flatnonzero(flat[r, 1:] != flat[r, :-1]):
                a, b = x[j], x[j + 1]

                def f(v, fixed=fixed):
                    return self.abscissa(**fixed, **{along: v})

                fa, fb = f(a), f(b)
                if fa * fb < 0 and min(abs(fa), abs(fb)) > self.tol:
                    root = brentq(f, a, b, xtol=xtol, rtol=4 * np.finfo(float).eps, maxiter=200)
                else:  # a neutral side: bisect on the predicate "largest real part ≤ tol"
                    sa = fa <= self.tol
                    for _ in range(200):
                        mid = 0.5 * (a + b)
                        if abs(b - a) <= xtol * max(1.0, abs(mid)):
                            break
                        if (f(mid) <= self.tol) == sa:
                            a = mid
                        else:
                            b = mid
                    root = 0.5 * (a + b)
                roots.append((root, 1 if flat[r, j + 1] else -1))
            found.append(roots)
        nb = max([len(r) for r in found] + [1])
        val = np.full((len(found), nb), np.nan)
        bec = np.zeros((len(found), nb), dtype=int)
        for r, roots in enumerate(found):
            for k, (v, s) in enumerate(roots):
                val[r, k], bec[r, k] = v, s
        shape = tuple(len(self.axes[n]) for n in others) + (nb,)
        dims = tuple(others) + ("boundary",)
        return xr.Dataset({"value": (dims, val.reshape(shape)), "becomes": (dims, bec.reshape(shape))},
                          coords={n: self.axes[n] for n in others},
                          attrs={"along": along, "becomes": "+1: stable above the value, -1: unstable above it"})

    # --- plots -------------------------------------------------------------------------------
    def plot(self, along: str | None = None, ax=None):
        """One swept parameter: real parts of the eigenvalues against it, the stable range shaded
        and the critical values marked.  Two: the stable region in the plane (shaded) with the
        critical curves along ``along`` (default the last axis).  Returns the figure."""
        import matplotlib.pyplot as plt

        names = [str(s) for s in self.swept]
        along = along or names[-1]
        if ax is None:
            _, ax = plt.subplots(figsize=(6.4, 4.2))
        crit = self.critical(along)
        if len(names) == 1:
            x = np.asarray(self.axes[along])
            re = self.data["eigenvalues"].values.real
            for k in range(re.shape[-1]):
                ax.plot(x, re[:, k], lw=1.2)
            st = self.data["stable"].values
            ax.fill_between(x, 0, 1, where=st, transform=ax.get_xaxis_transform(), alpha=0.15, color="tab:green",
                            label="stable")
            for v in crit["value"].values.reshape(-1):
                if np.isfinite(v):
                    ax.axvline(v, color="k", ls="--", lw=0.8)
                    ax.annotate(f"{v:.6g}", (v, 0), xytext=(3, 6), textcoords="offset points", fontsize=8)
            ax.axhline(0, color="0.5", lw=0.6)
            ax.set_xlabel(along)
            ax.set_ylabel("Re λ")
            ax.legend(loc="best")
        elif len(names) == 2:
            other = [n for n in names if n != along][0]
            st = self.data["stable"].transpose(other, along).values.astype(float)
            xo, xa = np.asarray(self.axes[other]), np.asarray(self.axes[along])
            ax.contourf(xa, xo, st, levels=[0.5, 1.5], colors=["tab:green"], alpha=0.25)
            vals = crit["value"].values
            for k in range(vals.shape[-1]):
                ax.plot(vals[:, k], xo, "k-", lw=1.2)
            ax.set_xlabel(along)
            ax.set_ylabel(other)
            ax.set_title("stable region (shaded) and its boundaries")
        else:
            raise InputError("StabilityMap.plot: one or two swept parameters")
        return ax.figure


def stability_map(system, steady: Mapping, axes: Mapping, keep: Sequence, *, params: Mapping | None = None,
                  independent: Sequence | None = None, tol: float = 1e-9, check_tol: float = 1e-9) -> StabilityMap:
    r"""Eigenvalues of the linearisation about a steady motion across a grid of parameters.

    Parameters
    ----------
    system : equations of motion (:class:`~jetgeo.mechanics.eom.EquationsOfMotion`: a
        ConstrainedSystem, a Motion), a pair (LagrangianSystem, ConstraintSubmanifold) — a tuple or
        an object that unpacks as one (``system, Q = bike``) — or a catalogue entry
        (:class:`~jetgeo.mechanics.eom.SampledSystem`: its sample parameters are the defaults).
    steady : {coordinate or name: value} the point of Q: every q and the independent velocities
        (as for :func:`~jetgeo.numerics.linearise`); values may contain swept symbols (a spin rate Ω).
    axes : {symbol or name: values} the grid: parameters of the system or symbols of ``steady``.
    keep : the states of the restricted system (kept states at rest, dropped ones cyclic — checked
        numerically at the grid's corners to ``check_tol``).
    params : values of the other parameters.
    independent : the independent velocities (default: the system's choice).
    tol : a real part ≤ tol counts as zero (the stable side of a neutral boundary).

    Returns
    -------
    StabilityMap
        The eigenvalues at every grid point and, per point, whether every real part is ≤ ``tol``.
    """
    if not axes:
        raise InputError("stability_map: give at least one swept parameter with its values")
    entry_params: dict = {}
    target = system
    if isinstance(system, SampledSystem):  # a catalogue entry: its sample parameters are the defaults
        entry_params = dict(system.params)
        target = (system.system, system.Q)
    if isinstance(target, EquationsOfMotion):
        sysL, Q = target.system, target.Q
        dep = dependent_velocities(target)  # the chart the equations are written in ((): none)
    else:  # a pair: a tuple, or an object that unpacks as one (``system, Q = bike``), as linearise takes it
        try:
            sysL, Q = target
        except (TypeError, ValueError):
            raise InputError("stability_map: give equations of motion (a ConstrainedSystem, a Motion), a pair "
                             "(LagrangianSystem, ConstraintSubmanifold) or a catalogue entry; got "
                             f"{type(system).__name__}") from None
        target, dep = (sysL, Q), ()
    if not isinstance(sysL, LagrangianSystem) or not isinstance(Q, ConstraintSubmanifold):
        raise InputError("stability_map: the system must be a LagrangianSystem on a ConstraintSubmanifold; got "
                         f"({type(sysL).__name__}, {type(Q).__name__})")
    Y = sysL.Y
    jets = [Y.t, *Y.q, *Y.qdot]
    if independent is None:
        dep = dep or Q.dependent
        if dep:
            independent = [v for v in Y.qdot if v not in dep]
    known = set(jets) | set(sysL.L.free_symbols) | set().union(*(as_expr(f).free_symbols for f in Q.f))
    steady = {k: as_expr(v, f"steady value of {k}") for k, v in steady.items()}
    swept = tuple(_symbol_of(n, known | set().union(*(v.free_symbols for v in steady.values()))) for n in axes)
    grid_vals = {str(s): np.atleast_1d(np.asarray(v, dtype=float)) for s, v in zip(swept, axes.values())}
    for n, v in grid_vals.items():
        if v.ndim != 1 or not len(v) or not np.all(np.isfinite(v)):
            raise InputError(f"stability_map: the values of {n} must be a non-empty list of finite numbers")
    point = {_symbol_of(k, jets): v for k, v in steady.items()}
    bad = [k for k in point if k not in jets]
    if bad:
        raise InputError(f"stability_map: {bad} in steady are not coordinates or velocities of the system")
    fixed = {**entry_params, **{_symbol_of(k, known): v for k, v in (params or {}).items()}}
    fixed = {k: v for k, v in fixed.items() if k not in swept}
    lin = linearise(target, point, params=fixed, exact=True, independent=independent)
    keep_s = [_symbol_of(k, lin.state) for k in keep]
    missing = [k for k in keep_s if k not in lin.state]
    if missing:
        raise InputError(f"stability_map: {missing} are not states of the linearisation {list(lin.state)}")
    idx = sorted(lin.state.index(k) for k in keep_s)
    drop = [j for j in range(len(lin.state)) if j not in idx]
    extra = (lin.A.free_symbols | lin.f0.free_symbols) - set(swept)
    if extra:
        raise InputError(f"stability_map: the linearisation still contains {sorted(map(str, extra))}; give their "
                         "values in params= or sweep them")
    _check_steady(lin, idx, drop, swept, grid_vals, check_tol)
    A = lin.A.extract(idx, idx)
    return StabilityMap(A, tuple(lin.state[i] for i in idx), swept, grid_vals, tol)


def _check_steady(lin, idx, drop, swept, grid_vals, tol) -> None:
    """The kept states are at rest and do not feel the dropped ones, at the grid's corners and centre."""
    corners = [[v[0] for v in grid_vals.values()], [v[-1] for v in grid_vals.values()],
               [v[len(v) // 2] for v in grid_vals.values()]]
    exprs = [lin.f0[i] for i in idx] + [lin.A[i, j] for i in idx for j in drop]
    what = [f"d{lin.state[i]}/dt" for i in idx] + [f"∂(d{lin.state[i]}/dt)/∂{lin.state[j]}" for i in idx for j in drop]
    fn = compile_rhs(exprs, (), swept, sp.Symbol("_t_unused"), vectorized=True, name="steady_check",
                     optimizations=None)
    P = np.array(corners, dtype=float).T
    vals = np.asarray(fn(np.zeros(P.shape[1]), (), P), dtype=float)
    scale = 1.0 + float(np.max(np.abs(np.asarray(lin.A.extract(idx, idx).subs(
        dict(zip(swept, P[:, 0]))).evalf(), dtype=complex))))
    k, c = np.unravel_index(np.argmax(np.abs(vals)), vals.shape) if vals.size else (0, 0)
    if vals.size and not abs(vals[k, c]) <= tol * scale:
        kind = "not a steady motion for the kept states" if k < len(idx) else "a kept state depends on a dropped one"
        at = ", ".join(f"{s} = {P[r, c]:g}" for r, s in enumerate(swept))
        raise InputError(f"stability_map: {kind}: {what[k]} = {vals[k, c]:.3g} at {at}; keep other states")
