r"""Objects → the numerical model of a system: :func:`model_of`.

What :func:`~jetgeo.numerics.simulate` is given — equations of motion
(:class:`~jetgeo.mechanics.eom.EquationsOfMotion`), a (LagrangianSystem, ConstraintSubmanifold)
pair, a LagrangianSystem, or :class:`~jetgeo.mechanics.eom.SecondOrderEquations` — becomes a
:class:`Model`: the accelerations q̈ = F(t, q, q̇) of every coordinate, the normal form
q̇^D = g, the constraints f, the Lagrangian system, the conditions to watch and, when the route
gives them, multipliers and reactions.  Everything is asked through the protocol.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp

from ...errors import BranchError, InputError, RankDeficientError, UndecidedError
from ...geometry.coerce import as_expr
from ...geometry.exact import describe, free_symbols_dag, xreplace_dag
from ...jets import FibredManifold
from ...mechanics import ConstrainedSystem, ConstraintSubmanifold, LagrangianSystem, Motion, QuasiVelocitySystem
from ...mechanics.eom import EquationsOfMotion, SecondOrderEquations, SystemOnQ, dependent_velocities

__all__ = ["Condition", "Model", "model_of", "pair_of"]


@dataclass(frozen=True)
class Condition:
    """A quantity c(t, q, q̇) watched along a run, with what its vanishing means.

    Attributes
    ----------
    expr : sympy.Expr
        The expression c(t, q, q̇).
    kind : str
        ``"threshold"``, ``"sign"`` or ``"chart"`` (see the field's comment).
    explanation : str
        Why the run stops there, in one sentence.
    """

    #: the expression c
    expr: sp.Expr
    #: "threshold" (|c| must not fall to 0), "sign" (c must stay ≥ 0), or "chart" (a threshold that only
    #: bounds the chart of Q in use: the atlas switches charts there instead of stopping)
    kind: str
    #: one sentence for the user (why the run stops there)
    explanation: str


@dataclass
class Model:
    """The symbolic pieces the integrator needs (one chart of Q).

    Built by :func:`model_of` from what :func:`~jetgeo.numerics.simulate` is given.

    Attributes
    ----------
    Y : FibredManifold
        The fibred manifold (t, q^σ, q̇^σ).
    acc : list of sympy.Expr
        F^σ with q̈^σ = F^σ(t, q, q̇), in the order of ``Y.qddot`` (empty in the multipliers formulation).
    g : dict
        The normal form {q̇^D: g(t, q, q̇^I)} ({} when none is known).
    f : list of sympy.Expr
        The constraints f^i(t, q, q̇).
    system : LagrangianSystem or None
        For the energy and the bordered system; None for a bare ODE.
    lam : list or None
        The route's symbolic multipliers λ_i.
    reactions : list or None
        The route's symbolic reactions R_σ.
    conditions : list of Condition
        The quantities watched along a run.
    method : str
        A label of the route.
    cs : ConstrainedSystem or None, optional
        The constrained system whose other charts the atlas may enter.
    Q : ConstraintSubmanifold or None, optional
        The constraint submanifold, when known.
    atlas_chart : bool, default False
        True for a chart entered by the atlas.
    bordered : BorderedSystem or None, optional
        The route's own bordered system (Hamel's equations); None: built from the Lagrangian.
    energy : sympy.Expr or None, optional
        E_L in a cheaper form than q̇·∂L/∂q̇ − L, when the route has one.
    """

    #: the fibred manifold (t, q^σ, q̇^σ)
    Y: object
    #: [F^σ] with q̈^σ = F^σ(t, q, q̇), in the order of Y.qddot (empty in the multipliers formulation)
    acc: list
    #: the normal form {q̇^D: g(t, q, q̇^I)} ({} when none is known)
    g: dict
    #: the constraints [f^i(t, q, q̇)]
    f: list
    #: the LagrangianSystem (energy, bordered system), or None for a bare ODE
    system: object | None
    #: the multipliers λ_i given by the route (symbolic), or None
    lam: list | None
    #: the reactions R_σ given by the route (symbolic), or None
    reactions: list | None
    #: the :class:`Condition` s watched along a run
    conditions: list
    #: a label of the route
    method: str
    #: the ConstrainedSystem whose other charts the atlas may enter
    cs: object | None = None
    #: the constraint submanifold, when known
    Q: object | None = None
    #: True for a chart entered by the atlas (accelerations on TQ, regularity watched through the
    #: bordered matrix)
    atlas_chart: bool = field(default=False)
    #: the route's own bordered system (:class:`~jetgeo.mechanics.bordered.BorderedSystem`, e.g. from
    #: Hamel's equations in quasi-velocities), or None: built from the Lagrangian
    bordered: object | None = None
    #: the energy E_L in (t, q, q̇) when the route has it in a cheaper form than q̇·∂L/∂q̇ − L of
    #: ``system`` (Hamel's p·v − ℓ), or None: from the Lagrangian system
    energy: sp.Expr | None = None

    @property
    def t(self):
        return self.Y.t

    @property
    def q(self):
        return tuple(self.Y.q)

    @property
    def qdot(self):
        return tuple(self.Y.qdot)


def names(symbols) -> str:
    """[a, b, c] for messages."""
    return "[" + ", ".join(map(str, symbols)) + "]"


def pair_of(obj):
    """(LagrangianSystem, ConstraintSubmanifold) if ``obj`` is such a pair (a tuple, or an object with
    ``.system`` and ``.Q`` that is not itself equations of motion: a catalogue entry, an imported
    model), else None.

    Parameters
    ----------
    obj : object
        Anything given to :func:`~jetgeo.numerics.simulate`.

    Returns
    -------
    tuple or None
        ``(system, Q)`` when ``obj`` is a LagrangianSystem with a ConstraintSubmanifold, else None.
    """
    if isinstance(obj, (tuple, list)) and len(obj) == 2:
        system, Q = obj
    elif isinstance(obj, SystemOnQ) and not isinstance(obj, EquationsOfMotion):
        system, Q = obj.system, obj.Q
    else:
        return None
    if isinstance(system, LagrangianSystem) and isinstance(Q, ConstraintSubmanifold):
        return system, Q
    return None



def model_of(obj, formulation: str = "full") -> Model:
    """Normalise what :func:`simulate` is given into the pieces the integrator needs.

    * a (system, Q) pair: integrated in the multipliers formulation without ever forming the
      normal form;
    * :class:`~jetgeo.mechanics.eom.EquationsOfMotion` (a ConstrainedSystem, a Motion, …): its
      accelerations, normal form (``substitution``), validity conditions, multipliers and
      reactions, all asked through the protocol.  The canonical route (a ConstrainedSystem) is the
      one the atlas can move to other charts; its normal form's determinant bounds a chart only,
      and its multipliers are computed numerically from the bordered system along the solution
      (cheaper than the symbolic ``multipliers()``, same values on Q);
    * a :class:`~jetgeo.mechanics.QuasiVelocitySystem` (a rigid body in body-frame angular
      velocities, a rolling contact): in the multipliers formulation Hamel's bordered system
      (:meth:`~jetgeo.mechanics.QuasiVelocitySystem.bordered_system`, small expressions in v with
      v = Φ q̇) and nothing else — not the symbolic accelerations its :meth:`~jetgeo.mechanics.
      QuasiVelocitySystem.motion` solves for (9 million tree nodes for a rattleback); the other
      formulations need that motion (pass it; without constraints it is used here);
    * a :class:`~jetgeo.mechanics.LagrangianSystem`: the free motion;
    * :class:`~jetgeo.mechanics.eom.SecondOrderEquations` (``.Y`` and ``.accelerations()``): a second-order
      ODE on J¹Y.

    Parameters
    ----------
    obj : object
        One of the kinds listed above.
    formulation : str, default "full"
        ``"full"``, ``"reduced"`` or ``"multipliers"``: which pieces are needed.

    Returns
    -------
    Model
        The symbolic pieces.

    Raises
    ------
    jetgeo.errors.InputError
        For an object of another kind, a (system, Q) pair outside the multipliers formulation, a
        constrained QuasiVelocitySystem without its motion outside it, or accelerations missing
        for some coordinate.
    """
    pair = pair_of(obj)
    if pair is not None:
        system, Q = pair
        if formulation != "multipliers":
            raise InputError("a (system, Q) pair is integrated in formulation='multipliers' (no normal form); "
                            f"got {formulation!r} — for 'full' or 'reduced' pass system.constrain(Q)")
        return Model(Q.Y, [], {}, list(Q.f), system, None, None, [], "constrained system (bordered)", Q=Q)
    if isinstance(obj, ConstrainedSystem):
        cs = obj
        if formulation == "multipliers":
            return Model(cs.Y, [], dict(cs.g), list(cs.Q.f), cs.system, None, None, [], "constrained system",
                          cs=cs, Q=cs.Q)
        Y = cs.Y
        acc = cs.accelerations()
        conds = []
        reg, nfc = cs.regularity_condition(), cs.nf.condition
        for c in cs.validity_conditions():
            if c == nfc:
                conds.append(Condition(nfc, "chart", f"the normal form q̇^D = g for {list(cs.dependent)} is "
                                        f"singular: det ∂f/∂q̇^D = {describe(nfc, 200)} vanishes (choose other "
                                        "dependent "
                                        "velocities, or formulation='multipliers', which needs no normal form)"))
            else:
                conds.append(Condition(c, "threshold", "the constrained system stops being regular: the "
                                        f"determinant [Stolařová 2009, eq. (12)], {describe(reg, 200)}, vanishes"))
        conds += branch_conditions(cs.nf.branch)
        return Model(Y, [acc[a] for a in Y.qddot], dict(cs.g), list(cs.Q.f), cs.system, None, None, conds,
                      "constrained system", cs=cs, Q=cs.Q)
    if isinstance(obj, QuasiVelocitySystem):
        if not obj.phi:  # a free body: Hamel's equations are Euler's, small
            return model_of_eom(obj.motion(), formulation)
        if formulation != "multipliers":
            raise InputError("simulate: a QuasiVelocitySystem with constraints is integrated from Hamel's bordered "
                             "system: give formulation='multipliers', or pass S.motion() (whose accelerations are "
                             f"solved symbolically first) for formulation={formulation!r}")
        Q = obj.constraint_submanifold()
        return Model(Q.Y, [], {}, list(Q.f), obj.lagrangian_system(), None, None, [],
                     "quasi-velocities (Hamel's bordered system)", Q=Q, bordered=obj.bordered_system(),
                     energy=obj.energy())
    if isinstance(obj, EquationsOfMotion):
        return model_of_eom(obj, formulation)
    if isinstance(obj, LagrangianSystem):
        acc = obj.accelerations()
        return Model(obj.Y, [acc[a] for a in obj.Y.qddot], {}, [], obj, None, None, [], "LagrangianSystem")
    if not isinstance(obj, SecondOrderEquations) or not isinstance(obj.Y, FibredManifold):
        raise InputError("simulate needs equations of motion (jetgeo.mechanics.EquationsOfMotion), a "
                        "LagrangianSystem, a pair (system, Q) or second-order equations "
                        "(jetgeo.mechanics.SecondOrderEquations: .Y, a FibredManifold, and .accelerations()); "
                        f"got {type(obj).__name__}")
    Y = obj.Y
    acc = obj.accelerations()
    missing = [a for a in Y.qddot if a not in acc]
    if missing:
        raise InputError(f"simulate: .accelerations() gives no expression for {missing}; one per coordinate is needed")
    return Model(Y, [as_expr(acc[a]) for a in Y.qddot], {}, [], None, None, None, [], type(obj).__name__)



def model_of_eom(eom: EquationsOfMotion, formulation: str = "full") -> Model:
    """The model of equations of motion other than the canonical route (a recipe's Motion, …).

    Q's normal form (for the reduced formulation and the completion of initial data) is a chart of Q
    the equations are not written in: its denominators bound the run only in the reduced formulation
    (the constraint |q|² = 1 of a quaternion has a denominator q_D in every chart of Q, and a run in
    (q, q̇) crossed q_D = 0 without harm)."""
    system, Q = eom.system, eom.Q
    Y = system.Y if system is not None else Q.Y
    acc = eom.accelerations()
    to_jet = dict(eom.to_jet or {})
    missing = [a for a in Y.qddot if a not in acc]
    if missing:
        raise InputError(f"simulate: .accelerations() gives no expression for {missing}; one per coordinate is needed")
    memo: dict = {}  # on the DAG: a large route's accelerations share subexpressions (trees cost minutes)
    acc_l = [xreplace_dag(as_expr(acc[a]), to_jet, memo) for a in Y.qddot]
    foreign = set(eom.coordinates or ()) - {Y.t, *Y.q, *Y.qdot}
    left = sorted(str(s) for s in free_symbols_dag(acc_l) & foreign)
    if left:
        raise InputError(
            f"simulate: the accelerations are written in the coordinates {left}, which are not jet coordinates, "
            "and the result has no map to_jet expressing them in (t, q, q̇); give one (e.g. z = z(t, q, q̇) "
            "of a parametrisation)"
        )
    g, f = {}, []
    conds = []
    if Q is not None:
        f = list(Q.f)
        try:  # the normal form is optional here (the reduced formulation and complete=True use it)
            nf = Q.normal_form(dependent=dependent_velocities(eom) or None, branch=eom.branch)
        except (BranchError, RankDeficientError, UndecidedError):
            nf = None
        if nf is not None:
            g = dict(nf.g)
            conds += [c for c in branch_conditions(nf.branch) if formulation == "reduced" or c.kind == "sign"]
    for c in eom.validity_conditions():
        c = xreplace_dag(as_expr(c), to_jet, memo)
        if not is_const(c):
            conds.append(Condition(c, "threshold", f"a condition of the result ({_label(eom)}), "
                                    f"{describe(c, 200)}, vanishes"))
    own = eom.bordered if isinstance(eom, Motion) else None
    lam = R = None
    if own is None:  # with its own bordered system the route's λ and R are computed from it along a run
        lam = eom.multipliers()
        lam = None if lam is None else [as_expr(x).xreplace(to_jet) for x in lam]
        R = eom.reactions()
        R = None if R is None else [as_expr(x).xreplace(to_jet) for x in R]
    return Model(Y, acc_l, g, f, system, lam, R, conds, _label(eom), Q=Q, bordered=own)


def _label(eom: EquationsOfMotion) -> str:
    """The name of the route: a Motion's ``recipe``, else the class name."""
    return eom.recipe if isinstance(eom, Motion) else type(eom).__name__



def is_const(e) -> bool:
    return not free_symbols_dag([as_expr(e)])



def branch_conditions(br) -> list:
    out = []
    for c in br.nonnegative:
        out.append(Condition(c, "sign", f"the solution leaves the domain of branch {br.index}: "
                             f"{describe(c, 200)} becomes negative"))
    for c in br.nonzero:
        out.append(Condition(c, "threshold", f"a denominator of branch {br.index}, {describe(c, 200)}, vanishes"))
    return out
