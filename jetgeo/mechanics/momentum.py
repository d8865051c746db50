r"""The nonholonomic momentum equation of a symmetry [Bloch et al. 1996, §3 and Theorem 4.5].

A Lie group G acts on the configuration space; its infinitesimal generators are vector fields
X_a = X_a^σ(q) ∂/∂q^σ on the coordinates (translations ∂_x, ∂_y and the rotation −y∂_x + x∂_y + ∂_θ
of the plane, a wheel's spin ∂_φ, …).  A *section* η = c^a(q) X_a of generators that are allowed by
the constraints, η(q) ∈ D_q (∂f/∂q̇ · η = 0: the constraint distribution meets the group orbits),
gives the nonholonomic momentum

.. math:: p = \frac{\partial L}{\partial\dot q^\sigma}\,\eta^\sigma .

Along every motion of the constrained system, d/dt ∂L/∂q̇ − ∂L/∂q = A + R with the reaction R
annihilating D (Chetaev's rule for constraints affine in the velocities, [Stolařová 2009,
§2]), so R·η = 0 and

.. math:: \dot p = \Big(\frac{\partial L}{\partial q^\sigma} + A_\sigma\Big)\eta^\sigma
          + \frac{\partial L}{\partial\dot q^\sigma}\,\frac{\partial\eta^\sigma}{\partial q^\nu}\dot q^\nu .

When L is invariant under the lifted action (X_a^{(1)} L = 0, X^{(1)} = X^σ∂_{q^σ} +
(∂X^σ/∂q^ν) q̇^ν ∂_{q̇^σ}) the terms with a constant combination of generators cancel and this is
the momentum equation of [Bloch et al. 1996, eq. (4.7)]:

.. math:: \dot p = \frac{\partial L}{\partial\dot q^\sigma}\,X_a^\sigma\,\dot c^a + A_\sigma\eta^\sigma,
          \qquad \dot c^a = \frac{\partial c^a}{\partial q^\nu}\dot q^\nu,

the momentum of a generator is conserved when the constraints allow it with constant coefficients
(ċ = 0).  :func:`momentum_equation` computes both forms, restricted to Q, and checks that they agree
(the invariance of L is verified, else :class:`~jetgeo.errors.NotApplicableError`).  Which section
η is used is a choice (any function times η is another): the paper's body-frame momentum for the
snakeboard is one of them; without ``section`` a basis of the allowed combinations is computed (the null space of
(∂f/∂q̇)·X, each vector multiplied by the common denominator of its entries, so that its
coefficients have no poles).
See ``theory/momentum.md``.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import sympy as sp

from ..errors import InputError, NotApplicableError
from ..geometry.coerce import as_expr, as_symbol
from ..geometry.display import tidy
from ..geometry.exact import trig_reduce, within_ops
from ..geometry.linalg import nullspace
from ..geometry.readable import readable
from ..geometry.zero import is_zero, normalise_if_small

__all__ = ["MomentumEquation", "momentum_equation"]


@dataclass
class MomentumEquation:
    """ṗ = ``rhs`` along the motions, p = ∂L/∂q̇ · η (``momentum``, a function on J¹Y; ``momentum_on_Q``
    with the normal form substituted); ``rhs`` is a function on Q (t, q, q̇^I).  ``section`` holds the
    coefficients c^a of η = c^a X_a and ``eta`` its components η^σ.

    Returned by :func:`momentum_equation`; prints as ``d/dt(p) = rhs``.

    Attributes
    ----------
    momentum : sympy.Expr
        p = (∂L/∂q̇^σ) η^σ on J¹Y, the nonholonomic momentum of the section η
        [Bloch et al. 1996, §3].
    momentum_on_Q : sympy.Expr
        p restricted to Q (the normal form q̇^D = g substituted).
    rhs : sympy.Expr
        ṗ along the motions, a function of (t, q, q̇^I) [Bloch et al. 1996, eq. (4.7)]; zero
        when the momentum is conserved.
    section : tuple
        The coefficients c^a(q) of η = c^a X_a on the generators X_a.
    eta : tuple
        The components η^σ(q) of η on ∂/∂q^σ.
    """

    momentum: sp.Expr
    momentum_on_Q: sp.Expr
    rhs: sp.Expr
    section: tuple
    eta: tuple

    def __str__(self) -> str:
        return f"d/dt({tidy(self.momentum)}) = {tidy(self.rhs)}"

    def _repr_latex_(self) -> str:
        """ṗ = rhs with p and the right-hand side in readable form (:func:`~jetgeo.geometry.readable`)."""
        form = readable({"p": self.momentum, "rhs": self.rhs})
        p, rhs = form.equations["p"], form.equations["rhs"]
        rows = [r"\frac{d}{dt}\left(" + sp.latex(p) + r"\right) &= " + sp.latex(rhs)]
        if form.definitions:
            rows.append(r"\text{where}\quad")
            rows += [f"{sp.latex(n)} &= {sp.latex(v)}" for n, v in form.definitions]
        return r"$\begin{aligned}" + r"\\ ".join(rows) + r"\end{aligned}$"


def momentum_equation(cs, action: Sequence, section: Sequence | None = None) -> list:
    """The nonholonomic momentum equation(s) of the constrained system ``cs`` for the group whose
    infinitesimal generators are ``action`` (see the module docstring).

    ``action``: generators X_a, each a Mapping {coordinate: component} (missing coordinates 0) or a
    sequence of one component per coordinate.  ``section``: optional coefficient vectors c (one per
    momentum, each of length len(action)) with η = c^a X_a ∈ D (checked); by default a basis of the
    solutions of (∂f/∂q̇) X c = 0, denominators cleared.  Returns one :class:`MomentumEquation` per section.

    Raises :class:`~jetgeo.errors.SpecError` for malformed generators or a section that violates the
    constraints, :class:`~jetgeo.errors.NotApplicableError` when the Lagrangian is not invariant
    under a generator, the constraints are not affine in the velocities, or no generator
    combination is allowed by the constraints.

    Parameters
    ----------
    cs : ConstrainedSystem
        The constrained system (constraints affine in the velocities).
    action : sequence
        The generators X_a (mappings or component sequences).
    section : sequence of sequences, optional
        The coefficient vectors c of η = c^a X_a ∈ D.

    Returns
    -------
    list of MomentumEquation
        One per section: d/dt ⟨∂L/∂q̇, η⟩ = its right-hand side.
    """
    Y = cs.Y
    m = Y.m
    X = [_generator(Y, x) for x in action]
    if not X:
        raise InputError("momentum_equation: give at least one generator of the group action")
    L, A = cs.system.L, cs.system.forces
    J = cs.Q.jacobian()
    if any(e.has(*Y.qdot) for e in J):
        raise NotApplicableError("momentum_equation: the constraints are not affine in the velocities; "
                                 "the reaction then does not annihilate a distribution D of configurations")
    for Xa in X:  # X^(1) L = 0
        lifted = sum((Xa[s] * sp.diff(L, Y.q[s]) for s in range(m)), sp.Integer(0))
        lifted += sum((sp.diff(Xa[s], Y.q[n]) * Y.qdot[n] * sp.diff(L, Y.qdot[s])
                       for s in range(m) for n in range(m)), sp.Integer(0))
        if not is_zero(lifted):
            raise NotApplicableError(f"momentum_equation: the Lagrangian is not invariant under the generator "
                                     f"{_field_str(Y, Xa)}: X^(1) L = {normalise_if_small(lifted)} ≠ 0")
    Xm = sp.Matrix(m, len(X), lambda s, a: X[a][s])
    JX = (J * Xm).applyfunc(trig_reduce)
    if section is None:
        basis, _cond = nullspace(JX)
        if not basis:
            raise NotApplicableError("momentum_equation: no combination of the generators is allowed by the "
                                     "constraints (D ∩ T(orbit) = 0): there is no nonholonomic momentum")
        sections = [_clear_denominators([_reduce(c) for c in v]) for v in basis]
    else:
        sections = []
        for c in section:
            c = tuple(as_expr(x, "momentum_equation: section coefficient") for x in c)
            if len(c) != len(X):
                raise InputError(f"momentum_equation: a section needs {len(X)} coefficients (one per generator), "
                                f"got {len(c)}")
            viol = [e for e in JX * sp.Matrix(c) if not is_zero(e)]
            if viol:
                raise InputError(f"momentum_equation: the section {list(c)} is not allowed by the constraints: "
                                f"∂f/∂q̇ · η = {viol[0]} ≠ 0")
            sections.append(c)
    p_q = [sp.diff(L, v) for v in Y.qdot]
    out = []
    for c in sections:
        eta = [sum((c[a] * X[a][s] for a in range(len(X))), sp.Integer(0)) for s in range(m)]
        p = sum((p_q[s] * eta[s] for s in range(m)), sp.Integer(0))
        cdot = [sum((sp.diff(ca, Y.q[n]) * Y.qdot[n] for n in range(m)), sp.Integer(0)) for ca in c]
        bkmm = sum((p_q[s] * X[a][s] * cdot[a] for a in range(len(X)) for s in range(m)), sp.Integer(0))
        bkmm += sum((A[s] * eta[s] for s in range(m)), sp.Integer(0))
        general = sum(((sp.diff(L, Y.q[s]) + A[s]) * eta[s] for s in range(m)), sp.Integer(0))
        general += sum((p_q[s] * sp.diff(eta[s], Y.q[n]) * Y.qdot[n] for s in range(m) for n in range(m)),
                       sp.Integer(0))
        rhs = cs.on_Q(bkmm)
        if not is_zero(rhs - cs.on_Q(general)):  # pragma: no cover - an identity given X^(1) L = 0
            raise AssertionError("momentum_equation: the two forms of ṗ disagree on Q")
        out.append(MomentumEquation(_reduce(p), _reduce(cs.on_Q(p)), _reduce(rhs), tuple(c), tuple(eta)))
    return out


def _clear_denominators(v: list) -> tuple:
    """The vector times the least common multiple of its entries' denominators: a section with regular
    coefficients (the null space's pivot solution has poles where its pivot block is singular)."""
    dens = [sp.denom(sp.together(c)) for c in v]
    lcm = functools.reduce(sp.lcm, dens, sp.Integer(1))
    return tuple(_reduce(c * lcm) for c in v)


def _reduce(e, max_ops: int = 2000) -> sp.Expr:
    """Exact normal form of a small result: trigonometric functions of sums expanded (θ ± φ of a
    snakeboard's wheels), then reduced modulo sin² + cos² − 1 and cancelled (``trig_reduce``)."""
    if not within_ops(e, max_ops):
        return normalise_if_small(e)
    return trig_reduce(sp.expand_trig(e))


def _generator(Y, x) -> list:
    if isinstance(x, Mapping):
        comps = {}
        for k, v in x.items():
            k = as_symbol(k, Y.q, "momentum_equation: generator component") if isinstance(k, str) \
                else as_expr(k, "momentum_equation: generator component")
            if k not in Y.q:
                raise InputError(f"momentum_equation: a generator component is given for {k}, which is not a "
                                f"coordinate of {Y!r}")
            comps[k] = as_expr(v, f"momentum_equation: generator component for {k}")
        X = [comps.get(q, sp.Integer(0)) for q in Y.q]
    else:
        X = [as_expr(v, "momentum_equation: generator component") for v in x]
        if len(X) != Y.m:
            raise InputError(f"momentum_equation: a generator needs {Y.m} components, got {len(X)}")
    if any(e.has(Y.t, *Y.qdot, *Y.qddot) for e in X):
        raise InputError("momentum_equation: generators are vector fields on the configuration space (functions of q)")
    return X


def _field_str(Y, X) -> str:
    return " + ".join(f"({c})∂_{q}" for c, q in zip(X, Y.q) if c != 0) or "0"
