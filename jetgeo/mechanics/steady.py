r"""Steady motions (relative equilibria) of a constrained system.

A *steady motion* for an ansatz is a motion of the constrained system along which the chosen
coordinates stay fixed and the chosen velocities stay constant, while the remaining (cyclic)
coordinates change at the rates the ansatz gives — a rolling disc running round a circle at a
constant lean, a sleigh gliding straight.  With the accelerations on Q,
q̈^σ = F^σ(t, q, q̇^I) [Stolařová 2009, eqs. (8), (12)] and the normal form
q̇^D = g(t, q, q̇^I) [Stolařová 2009, eq. (4)], the conditions are

.. math:: F^\sigma\big|_{\text{ansatz}} = 0 \quad\text{for every velocity held constant},
          \qquad g^D\big|_{\text{ansatz}} = c^D \quad\text{for a dependent velocity given a value},

where a fixed coordinate holds its velocity at 0 (and constant).  The equations may not depend on
the cyclic coordinates (nor on t) — otherwise the velocities would not stay constant along the
motion, and the ansatz does not describe a relative equilibrium; this is checked.  They are solved
for the ``unknowns`` the ansatz leaves open (e.g. the spin rate that keeps a leaning disc on its
circle).  Each :class:`SteadyMotion` carries a point of Q (cyclic coordinates at 0, any value does)
and the states that stay constant, so that

>>> import sympy as sp                                                # doctest: +SKIP
>>> sm = steady_motions(cs, {th: th0, thdot: 0, psdot: W, phdot: w}, unknowns=[w])[0]  # doctest: +SKIP
>>> lin = linearise(cs, sm.point).restrict(sm.kept_states)            # doctest: +SKIP

linearises about it (``jetgeo.mechanics.linearise`` also accepts ``sm`` itself).  See
``theory/steady_motions.md``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import sympy as sp

from ..errors import InputError, NotApplicableError, UndecidedError
from ..geometry.coerce import as_expr, as_symbol
from ..geometry.exact import NORMALISE_MAX_NODES, is_small, trig_reduce
from ..geometry.readable import readable
from ..geometry.zero import is_zero, normalise_if_small

__all__ = ["SteadyMotion", "steady_motions"]


@dataclass
class SteadyMotion:
    """One steady motion: ``values`` of the unknowns, the ``point`` of Q it passes through (every q^σ,
    every q̇^σ; cyclic coordinates at 0), the states that stay constant (``kept_states``: the fixed
    coordinates and the independent velocities, for :meth:`Linearisation.restrict`), the ``rates`` of
    the cyclic coordinates at that point, and ``conditions`` (expressions that must not vanish for it to exist:
    denominators of the solution, the normal form's condition).

    Parameters
    ----------
    values : dict
        {unknown of the ansatz: value}.
    point : dict
        {q^σ or q̇^σ: value}, the point of Q.
    kept_states : tuple
        The states that stay constant.
    rates : dict
        {cyclic coordinate: its rate}.
    conditions : list
        Expressions that must not vanish.
    """

    values: dict
    point: dict
    kept_states: tuple
    rates: dict
    conditions: list = field(default_factory=list)

    def at(self, values: Mapping) -> dict:
        """The point with the remaining symbols (parameters, ansatz constants) given values."""
        vals = {as_expr(k, "at: key"): as_expr(v, f"at: value of {k}") for k, v in values.items()}
        return {k: as_expr(v).xreplace(vals) for k, v in self.point.items()}

    def __str__(self) -> str:
        sol = ", ".join(f"{k} = {v}" for k, v in self.values.items()) or "no unknowns"
        rates = ", ".join(f"d{k}/dt = {v}" for k, v in self.rates.items())
        return f"steady motion: {sol}" + (f"; cyclic rates {rates}" if rates else "")

    def _repr_latex_(self) -> str:
        """The values and the cyclic rates (q̇ of each cyclic q) in readable form
        (:func:`~jetgeo.geometry.readable`)."""
        rows = {**self.values, **{sp.Symbol(f"{k}dot"): v for k, v in self.rates.items()}}
        if not rows:
            return r"$\text{steady motion (no unknowns)}$"
        return "$" + readable(rows).latex() + "$"


def steady_motions(cs, ansatz: Mapping, unknowns: Sequence = ()) -> list:
    """The steady motions of the constrained system ``cs`` of the form ``ansatz``.

    ``ansatz`` maps coordinates q^σ (held fixed: their velocity is 0) and velocities q̇^σ (held
    constant) to values — numbers, parameters or new symbols; every independent velocity of ``cs``
    must be given, or have its coordinate fixed.  ``unknowns``: symbols of the ansatz to solve for.
    Returns one :class:`SteadyMotion` per solution (an empty list when there is none); with no
    unknowns, ``[SteadyMotion]`` when the ansatz is a steady motion as it stands, else ``[]``.

    Raises :class:`~jetgeo.errors.SpecError` for an ansatz that names something else or leaves an
    independent velocity open, and :class:`~jetgeo.errors.NotApplicableError` when the conditions
    depend on a coordinate that changes along the motion (not a relative equilibrium).

    Parameters
    ----------
    cs : ConstrainedSystem
        The constrained system.
    ansatz : mapping
        {coordinate: fixed value, velocity: constant value}.
    unknowns : sequence of Symbols
        The symbols of the ansatz to solve for.

    Returns
    -------
    list of SteadyMotion
        The solutions (empty when there is none).
    """
    Y = cs.Y
    a = {}
    for k, v in ansatz.items():
        k = _jet_symbol(Y, k)
        a[k] = as_expr(v, f"steady_motions: the ansatz value of {k}")
    unknowns = tuple(as_symbol(u, what="steady_motions: unknown") if isinstance(u, str)
                     else as_expr(u, "steady_motions: unknown") for u in unknowns)
    bad = [u for u in unknowns if not isinstance(u, sp.Symbol) or u in (Y.t, *Y.q, *Y.qdot)]
    if bad:
        raise InputError(f"steady_motions: unknowns must be symbols of the ansatz, not jet coordinates: {bad}")
    fixed = [q for q in Y.q if q in a]
    for q in fixed:
        v = Y.qdot[Y.q.index(q)]
        if v in a and not is_zero(a[v]):
            raise InputError(f"steady_motions: {q} is held fixed but its velocity {v} = {a[v]} ≠ 0")
        a[v] = sp.Integer(0)
    open_ = [v for v in cs.independent if v not in a]
    if open_:
        raise InputError(f"steady_motions: the ansatz must give every independent velocity {list(cs.independent)} "
                        f"(or fix its coordinate); missing {open_}")
    on_point = {s: a[s] for s in (*Y.q, *cs.independent) if s in a}
    g = {d: e.xreplace(on_point) for d, e in cs.g.items()}
    acc = cs.accelerations()
    constant = [v for v in Y.qdot if v in a]
    eqs = []
    for v in constant:
        eqs.append(acc[Y.qddot[Y.qdot.index(v)]].xreplace(on_point))
    for d in cs.dependent:
        if d in a:
            eqs.append(g[d] - a[d])
    eqs = [trig_reduce(sp.numer(sp.together(e))) if is_small(e, NORMALISE_MAX_NODES) else e for e in eqs]
    cyclic = [q for q in Y.q if q not in fixed]
    eqs = [_without_spurious(e, {Y.t, *cyclic}) for e in eqs]
    moving = sorted({str(s) for e in eqs for s in e.free_symbols & {Y.t, *cyclic}})
    if moving:
        raise NotApplicableError(
            f"steady_motions: the conditions depend on {moving}, which change along the motion: the velocities "
            "of the ansatz cannot stay constant (fix those coordinates in the ansatz, or choose another one)")
    eqs = [e for e in eqs if not is_zero(e)]
    kept = tuple([*fixed, *cs.independent])
    conds = [c for c in (cs.nf.condition.xreplace(on_point),) if not c.is_number]
    if not unknowns:
        if eqs:
            return []
        return [_motion(cs, a, g, {}, kept, cyclic, conds)]
    if not eqs:
        raise InputError(f"steady_motions: every condition holds identically; nothing determines {list(unknowns)}")
    try:
        sols = sp.solve(eqs, list(unknowns), dict=True)
    except NotImplementedError as exc:
        raise UndecidedError(f"steady_motions: sympy cannot solve {eqs} for {list(unknowns)}") from exc
    out = []
    for sol in sols:
        dens = []
        for v in sol.values():
            den = sp.denom(sp.together(v))
            if not den.is_number:
                dens.append(den)
        out.append(_motion(cs, a, g, sol, kept, cyclic, conds + dens))
    return out


def _without_spurious(e: sp.Expr, moving: set) -> sp.Expr:
    """``e`` with every symbol of ``moving`` it does not depend on (∂e/∂s ≡ 0, decided by the exact zero
    test: sin²ψ + cos²ψ of a rolling constraint) set to 0, so that only a real dependence remains."""
    spurious = {s: sp.Integer(0) for s in e.free_symbols & moving if is_zero(sp.diff(e, s))}
    return e.xreplace(spurious) if spurious else e


def _jet_symbol(Y, k) -> sp.Symbol:
    if isinstance(k, str):
        names = {str(s): s for s in (*Y.q, *Y.qdot)}
        if k not in names:
            raise InputError(f"steady_motions: {k!r} is not a coordinate or velocity of {Y!r}")
        return names[k]
    k = as_expr(k, "steady_motions: ansatz key")
    if k not in Y.q and k not in Y.qdot:
        raise InputError(f"steady_motions: {k} is not a coordinate or velocity of {Y!r}")
    return k


def _motion(cs, a: dict, g: dict, sol: dict, kept: tuple, cyclic: list, conds: list) -> SteadyMotion:
    Y = cs.Y
    point = {}
    for q in Y.q:
        point[q] = a.get(q, sp.Integer(0)).xreplace(sol)
    at_q = {q: point[q] for q in cyclic}
    for v in Y.qdot:
        val = g[v].xreplace(at_q) if v in g else a[v]
        point[v] = normalise_if_small(as_expr(val).xreplace(sol))
    rates = {q: point[Y.qdot[Y.q.index(q)]] for q in cyclic}
    conds = [trig_reduce(normalise_if_small(c.xreplace(at_q).xreplace(sol))) for c in conds]
    return SteadyMotion({k: v for k, v in sol.items()}, point, kept, rates, [c for c in conds if not c.is_number])
