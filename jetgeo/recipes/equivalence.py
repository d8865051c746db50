r"""Do two results describe the same dynamics on the constraint manifold?

Every result is brought to the jet coordinates of Q in normal form, (t, q, q̇^I)
with q̇^D = g^D(t, q, q̇^I) [Stolařová 2009, eq. (4)]: parameters z of a parametrisation and
quasi-velocities u are first replaced by their expressions in the velocities
(``Motion.to_jet``), then the dependent velocities by g.  The differences of the
accelerations (and, when both results carry them, of the reaction forces, which do
not depend on how the constraints are written) are then decided by the three-tier
zero test of :mod:`jetgeo.geometry.zero`: exact normalisation when that suffices,
otherwise exact evaluation at random rational points of Q (angles on rational
points of the unit circle), or 60-digit evaluation where exact arithmetic is
impossible (square roots of a non-linear branch).  The report says which.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp

from ..errors import InputError, UndecidedError
from ..geometry.coerce import as_expr
from ..geometry.exact import NORMALISE_MAX_NODES, is_small, xreplace_dag
from ..geometry.zero import normalise, zero_tests
from ..mechanics.eom import EquationsOfMotion
from ..mechanics.motion import Motion
from ..mechanics.quasi import QuasiVelocitySystem


def _difference(x, y):
    """x − y, normalised when small; large results are left for the exact point evaluation
    (``cancel`` of large trigonometric differences took 25 of 37 s on the heavy disc)."""
    d = as_expr(x) - as_expr(y)
    return normalise(d) if is_small(d, NORMALISE_MAX_NODES) else d

__all__ = ["equivalent", "EquivalenceReport"]

_RANK = {"structural": 0, "normal form": 1, "trig normal form": 2, "random points (exact)": 3,
         "random points (F_p)": 3, "random points (numerical)": 4, "counterexample": 5}


@dataclass
class EquivalenceReport:
    """Outcome of :func:`equivalent`; truthy iff the two results agree on Q.

    ``method`` is the weakest decision used (``"normal form"`` — proved by exact
    normalisation; ``"random points (exact)"`` — exact evaluation at random points,
    failure probability ≤ ``bound``; ``"random points (numerical)"``);
    ``per_coordinate`` gives the method per acceleration; ``differences`` the
    non-vanishing differences when they disagree; ``reactions`` whether the reaction
    forces were compared (None: not both available).

    Attributes
    ----------
    equivalent : bool
        Whether the accelerations (and reactions, when compared) agree on Q.
    method : str
        The weakest decision used (see above).
    bound : float
        Failure probability of the random-point decisions (0 for proofs).
    names : tuple of str
        The two routes compared, for printing.
    per_coordinate : dict
        {q̈^σ: method} per acceleration.
    differences : dict
        {q̈^σ: difference on Q} for those that do not vanish (empty when equivalent).
    reactions : bool or None
        Whether the reaction forces were compared too.
    """

    equivalent: bool
    method: str
    bound: float
    names: tuple
    per_coordinate: dict = field(default_factory=dict)
    differences: dict = field(default_factory=dict)
    reactions: bool | None = None

    def __bool__(self) -> bool:
        return self.equivalent

    def __str__(self) -> str:
        a, b = self.names
        if self.equivalent:
            extra = f" (failure probability ≤ {self.bound:.1e})" if self.bound else ""
            react = "" if self.reactions is None else ", reaction forces included"
            return f"{a} and {b} agree on Q, decided by {self.method}{extra}{react}"
        diffs = "; ".join(f"{k}: {v}" for k, v in self.differences.items())
        return f"{a} and {b} DISAGREE on Q: {diffs}"

    def _repr_html_(self) -> str:
        colour = "green" if self.equivalent else "red"
        return f'<span style="color:{colour}">{sp.utilities.misc.filldedent(str(self))}</span>'


def _name(r) -> str:
    return r.recipe if isinstance(r, Motion) else type(r).__name__


def _reducer(a: EquationsOfMotion, b: EquationsOfMotion):
    """The normal form used to write both results on Q: (Y, g)."""
    for r in (a, b):
        if r.Q is not None:
            nf = r.Q.normal_form(branch=r.branch)
            return r.Q.Y, dict(nf.g)
    sysm = a.system or b.system
    if sysm is None:
        raise InputError("equivalent: cannot tell the coordinates of either result (no .system or .Q)")
    return sysm.Y, {}


def _on_Q(r: EquationsOfMotion, g: dict, exprs):
    to_jet = r.to_jet or {}
    m1: dict = {}
    m2: dict = {}
    # substitutions on the DAG (each shared subexpression once: results of long chains of bodies)
    return [xreplace_dag(xreplace_dag(as_expr(e), to_jet, m1), g, m2) for e in exprs]


def _foreign(r: EquationsOfMotion, jets) -> bool:
    """True when r's coordinates include symbols that are not jets and r gives no ``to_jet``."""
    coords = set(r.coordinates or ())
    return bool(coords - jets) and not r.to_jet


def equivalent(a: EquationsOfMotion, b: EquationsOfMotion, trials: int = 3,
               reactions: bool = True) -> EquivalenceReport:
    """Decide whether results ``a`` and ``b`` (equations of motion,
    :class:`~jetgeo.mechanics.eom.EquationsOfMotion`: a Motion, a ConstrainedSystem) agree on Q.

    The reaction forces are compared too when both results give them (``reactions()`` is not
    None) and ``reactions`` is true (pass ``reactions=False`` to compare the accelerations only).
    A :class:`~jetgeo.mechanics.quasi.QuasiVelocitySystem` is taken as its Hamel equations,
    ``motion()`` (the one conversion of a system stated in quasi-velocities for the routes that
    take equations of motion).

    Parameters
    ----------
    a, b : EquationsOfMotion
        The two results.
    trials : int
        Random points of Q at which an undecided difference is evaluated.
    reactions : bool
        Compare the reaction forces too (when both give them).

    Returns
    -------
    EquivalenceReport
        True when every acceleration (and reaction) agrees on Q; it names the first that does not.

    Examples
    --------
    >>> import sympy as sp
    >>> from jetgeo import FibredManifold, LagrangianSystem, ConstraintSubmanifold
    >>> from jetgeo import recipes
    >>> Y = FibredManifold(["x", "y", "theta"]); x, y, th = Y.q; xd, yd, thd = Y.qdot
    >>> S = LagrangianSystem(Y, (xd**2 + yd**2 + thd**2) / 2)
    >>> Q = ConstraintSubmanifold(Y, [xd*sp.sin(th) - yd*sp.cos(th)])
    >>> bool(equivalent(recipes.krupkova(S, Q), recipes.benenti_second_kind(S, Q)))
    True
    """
    a, b = (r.motion() if isinstance(r, QuasiVelocitySystem) else r for r in (a, b))
    for r in (a, b):
        if not isinstance(r, EquationsOfMotion):
            raise InputError("equivalent: give equations of motion (jetgeo.mechanics.EquationsOfMotion: a Motion, "
                             f"a ConstrainedSystem); got {type(r).__name__}")
    Y, g = _reducer(a, b)
    acc_a, acc_b = a.accelerations(), b.accelerations()
    keys = list(Y.qddot)
    missing = [k for k in keys if k not in acc_a or k not in acc_b]
    if missing:
        raise InputError(f"equivalent: accelerations of {missing} are missing from one of the results")
    jets = {Y.t, *Y.q, *Y.qdot}
    opaque = [r for r in (a, b) if _foreign(r, jets)]
    if len(opaque) == 2:
        raise UndecidedError(
            "equivalent: both results are written in coordinates other than the jets and neither gives "
            "their expression in the velocities (Motion.to_jet); cannot compare"
        )
    if opaque:
        # compare on the parametrised chart of the opaque result: q̇ = ψ(t, q, z)
        par = opaque[0]
        psi = dict(par.substitution)
        ea = [as_expr(acc_a[k]) if a is par else _on_Q(a, {}, [acc_a[k]])[0].xreplace(psi) for k in keys]
        eb = [as_expr(acc_b[k]) if b is par else _on_Q(b, {}, [acc_b[k]])[0].xreplace(psi) for k in keys]
        g = psi
    else:
        ea = _on_Q(a, g, [acc_a[k] for k in keys])
        eb = _on_Q(b, g, [acc_b[k] for k in keys])
    per, diffs = {}, {}
    worst, bound = "structural", 0.0
    differences = [_difference(x, y) for x, y in zip(ea, eb)]
    for k, d, zt in zip(keys, differences, zero_tests(differences, trials=trials)):  # shared F_p points
        per[k] = zt.method
        if not zt.zero:
            diffs[k] = d
        elif _RANK[zt.method] > _RANK[worst]:
            worst = zt.method
        bound = max(bound, zt.bound)
    compare_reactions, reactions = reactions, None
    ra = a.reactions() if compare_reactions else None
    rb = b.reactions() if ra is not None else None
    if ra is not None and rb is not None and not diffs:
        reactions = True
        if opaque:
            xa = [as_expr(e) if a is par else _on_Q(a, {}, [e])[0].xreplace(psi) for e in ra]
            xb = [as_expr(e) if b is par else _on_Q(b, {}, [e])[0].xreplace(psi) for e in rb]
        else:
            xa, xb = _on_Q(a, g, ra), _on_Q(b, g, rb)
        differences = [_difference(x, y) for x, y in zip(xa, xb)]
        for s, d, zt in zip(Y.q, differences, zero_tests(differences, trials=trials)):
            if not zt.zero:
                diffs[f"R_{s}"] = d
                reactions = False
    ok = not diffs
    return EquivalenceReport(ok, worst if ok else "counterexample", bound if ok else 0.0,
                             (_name(a), _name(b)), per, diffs, reactions)
