r"""The initial data of a :class:`~jetgeo.io.spec_model.Spec`: the state (t, q, q̇) on Q, the dependent
velocities completed from the normal form q̇^D = g [Stolařová 2009, eq. (4)], data off Q refused
(:class:`~jetgeo.errors.InitialDataError`)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import sympy as sp

from ..errors import InitialDataError, SpecError
from ..geometry.coerce import as_expr
from ..mechanics import complete_on_Q
from .parse import evaluate_constant

if TYPE_CHECKING:
    from .spec_model import Spec

_OFF_Q_TOL = 1e-9


def _num(spec: Spec, e, vals: dict, key: str) -> float:
    v = as_expr(e).xreplace(vals)
    if v.free_symbols:
        free = ", ".join(sorted(map(str, v.free_symbols)))
        raise SpecError(f"{spec.source}: [initial] {key}: needs values for {free}")
    return evaluate_constant(v, f"{spec.source}: [initial] {key}")


def _check_initial_on_Q(spec: Spec) -> None:
    """If every velocity is given, check f^i = 0 at the initial state (relative tolerance 1e-9)."""
    Y = spec.Y
    if not all(v in spec.initial for v in Y.qdot) or not all(q in spec.initial for q in Y.q):
        return
    vals = dict(spec.params)
    vals.update(spec.initial)
    vals.setdefault(Y.t, sp.Integer(0))
    needed = set().union(*[f.free_symbols for f in spec.Q.f])
    if needed - set(vals):
        return  # parameter values missing: checked later by initial_state()
    _off_Q(spec, vals)


def _off_Q(spec: Spec, vals: dict) -> None:
    """InitialDataError unless |f^i| ≤ 1e-9 (1 + Σ|terms of f^i|) at ``vals`` for every constraint."""
    for i, f in enumerate(spec.Q.f):
        at = f.xreplace(vals)
        if at.free_symbols:
            continue
        where = f"{spec.source}: [initial]: constraint {i + 1} at the initial data"
        val = evaluate_constant(at, where)  # bounded: refuses overflow and non-real values
        scale = 1.0 + sum(abs(evaluate_constant(term.xreplace(vals), where))
                          for term in sp.Add.make_args(sp.expand(f)))
        if not math.isfinite(val) or abs(val) > _OFF_Q_TOL * scale:
            point = ", ".join(f"{s} = {vals[s]}" for s in (*spec.Y.q, *spec.Y.qdot) if s in vals)
            raise InitialDataError(
                f"{spec.source}: [initial]: the initial data are off the constraint manifold Q: "
                f"constraint {i + 1}, {f} = {val:.6g} != 0 at {point}"
            )


def _initial_state(spec: Spec) -> dict:
    Y = spec.Y
    if spec.parameters:
        spec.numeric_params()  # SpecError naming the parameters without a value
    pvals = {s: sp.nsimplify(v) if not isinstance(v, sp.Basic) else v for s, v in spec.params.items()}
    missing = [str(q) for q in Y.q if q not in spec.initial]
    if missing:
        raise SpecError(f"{spec.source}: [initial]: no initial value for {', '.join(missing)}")
    vals: dict = {Y.t: spec.initial.get(Y.t, sp.Integer(0))}
    vals.update(pvals)
    for s, e in spec.initial.items():
        vals[s] = as_expr(e).xreplace(pvals)
    given_v = [v for v in Y.qdot if v in spec.initial]
    if spec.Q is None:
        miss = [str(v) for v in Y.qdot if v not in spec.initial]
        if miss:
            raise SpecError(f"{spec.source}: [initial]: no initial value for {', '.join(miss)}")
    elif len(given_v) < Y.m:
        cs = spec.constrained()
        miss = [str(v) for v in cs.independent if v not in spec.initial]
        if miss:
            raise SpecError(f"{spec.source}: [initial]: no initial value for the independent velocit"
                            f"{'y' if len(miss) == 1 else 'ies'} {', '.join(miss)}")
        vals.update({d: v for d, v in complete_on_Q(spec.Q, vals, cs.g).velocities.items() if d not in spec.initial})
    if spec.Q is not None:
        _off_Q(spec, vals)
    return {s: _num(spec, vals[s], vals, str(s)) for s in (Y.t, *Y.q, *Y.qdot)}
