"""Krupková's constrained system [Stolařová 2009, eqs. (6)–(12)]: properties on random systems (hypothesis).

* 𝒞 does not depend on the representation of Q: f ↦ A·f (A invertible), or another choice
  of dependent velocities (compared as subspaces of TJ¹Y along Q);
* the canonical constraint forms (6) annihilate 𝒞 and span the same ideal as the Chetaev
  forms ι*(∂f/∂q̇ ω);
* the three routes to the reduced equations agree (definition (7) by forms, (8) by
  projection, Krupková's (9)–(10));
* the dynamics is tangent to Q: d/dt f^i = 0 along the computed accelerations;
* autonomous, velocity-homogeneous constraints and conservative forces conserve the energy;
* the reactions do no work along admissible virtual displacements (Chetaev).
"""

from __future__ import annotations

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from jetgeo import Codistribution, ConstraintSubmanifold, Distribution, FibredManifold, LagrangianSystem
from jetgeo.errors import NotRegularError
from jetgeo.geometry.zero import is_zero

Y = FibredManifold(["x", "y", "z"])
t = Y.t
x, y, z = Y.q
xd, yd, zd = Y.qdot

small = st.integers(-3, 3)
nonzero = st.integers(1, 3)


def _ddt(expr):
    """d/dt written out: ∂_t + q̇∂_q + q̈∂_q̇."""
    out = sp.diff(expr, t)
    for a, b, c in zip(Y.q, Y.qdot, Y.qddot):
        out += b * sp.diff(expr, a) + c * sp.diff(expr, b)
    return out


@st.composite
def systems(draw, homogeneous=False, autonomous=False, conservative=False):
    """L = ½(m1 ẋ² + m2 ẏ² + m3 ż²) + ½c ẋẏ − V(q) (positive definite), forces, and a constraint
    ż = g with g linear in ẋ (so ẋ can be made dependent too), possibly nonlinear in ẏ."""
    m1, m2, m3 = draw(nonzero), draw(nonzero), draw(nonzero)
    c = draw(st.sampled_from([0, sp.Rational(1, 2)]))
    V = draw(small) * x * y + draw(small) * z**2 + draw(small) * y
    L = (m1 * xd**2 + m2 * yd**2 + m3 * zd**2) / 2 + c * xd * yd / 2 - V
    b1 = draw(nonzero) + draw(small) * y**2  # coefficient of ẋ, generically ≠ 0
    b2 = draw(small) * x + draw(small)
    quad = draw(small)
    if homogeneous:
        # homogeneous of degree 1 in the velocities
        f = zd - (b1 * xd + b2 * yd)
        if quad:
            # degree-2 homogeneous constraint:  ẋ ż − (b1 ẋ² + b2 ẋ ẏ + quad ẏ²) = 0
            f = xd * zd - (b1 * xd**2 + b2 * xd * yd + quad * yd**2)
    else:
        b0 = draw(small) * (1 if autonomous else t) + draw(small) * x
        f = zd - (b1 * xd + b2 * yd + quad * yd**2 + b0)
    forces = [0, 0, 0]
    if not conservative:
        forces = [draw(small) * xd, draw(small) * t * y, draw(small)]
    return L, f, forces


def _cs(L, f, forces, **kw):
    return LagrangianSystem(Y, L, forces=forces).constrain(ConstraintSubmanifold(Y, [f], **kw))


@settings(max_examples=12)
@given(systems(), st.integers(1, 3), st.integers(-2, 2))
def test_canonical_distribution_independent_of_representation(sysdata, p, r):
    L, f, forces = sysdata
    cs1 = _cs(L, f, forces, dependent=[zd])
    D1 = cs1.canonical_distribution_in_J1()
    assert D1.rank == 2 * Y.m + 1 - 2  # dim Q − k = (2m + 1 − k) − k
    # f ↦ A f with A = p + r²x² + ẏ² > 0 (a function of q and an independent velocity)
    A = p + r**2 * x**2 + yd**2
    cs2 = _cs(L, A * f, forces, dependent=[zd])
    assert Codistribution(cs2.chart, cs2.chetaev_forms()).equals(Codistribution(cs1.chart, cs1.constraint_forms))
    assert cs2.canonical_distribution_in_J1().equals(D1)
    # other dependent velocity: ẋ (f is linear in ẋ with coefficient −b1 ≢ 0)
    cs3 = _cs(L, f, forces, dependent=[xd])
    D3 = cs3.canonical_distribution_in_J1()
    # bring D3's components (functions of t, q, ẏ, ż) to D1's coordinates (t, q, ẋ, ẏ) on Q
    D3_in_1 = Distribution(Y.J1, [X.subs(cs1.g) for X in D3.generators])
    assert D3_in_1.equals(D1)


@settings(max_examples=12)
@given(systems())
def test_constraint_forms_annihilate_C_and_three_routes_agree(sysdata):
    L, f, forces = sysdata
    cs = _cs(L, f, forces)
    for w in cs.constraint_forms:
        for X in cs.canonical_distribution.generators:
            assert is_zero(w.interior(X).components.get((), 0))
    A, B = cs.reduced_coefficients()
    Ak, Bk = cs.krupkova_coefficients()
    qdd = [Y.qddot[Y.qdot.index(v)] for v in cs.independent]
    for i, (ef, ec) in enumerate(zip(cs.reduced_equations(route="forms"), cs.reduced_equations())):
        assert is_zero(ef - ec)
        assert is_zero(ec - Ak[i] - sum(Bk[i, j] * qdd[j] for j in range(len(qdd))))
        assert is_zero(ec - A[i] - sum(B[i, j] * qdd[j] for j in range(len(qdd))))


@settings(max_examples=15)
@given(systems())
def test_dynamics_tangent_to_Q(sysdata):
    L, f, forces = sysdata
    cs = _cs(L, f, forces)
    acc = cs.accelerations()
    assert set(acc) == set(Y.qddot)
    assert is_zero(_ddt(f).xreplace(acc).xreplace(cs.g))


@settings(max_examples=15)
@given(systems(homogeneous=True, autonomous=True, conservative=True))
def test_energy_conserved_for_autonomous_homogeneous_constraints(sysdata):
    L, f, forces = sysdata
    cs = _cs(L, f, forces)
    E = sum(v * sp.diff(L, v) for v in Y.qdot) - L  # energy, written out
    assert is_zero(_ddt(E).xreplace(cs.accelerations()).xreplace(cs.g))


@settings(max_examples=12)
@given(systems())
def test_reactions_do_no_virtual_work(sysdata):
    """R_σ := d/dt ∂L/∂q̇^σ − ∂L/∂q^σ − A_σ evaluated on the motion (what the constraint must
    supply).  Along virtual displacements δq with (∂f/∂q̇)δq = 0 — the q-parts of the
    generators ∂_{q^l} + ∂g/∂q̇^l ∂_{q^D} of 𝒞 — R·δq = 0; and R = λ ∂f/∂q̇ (Chetaev)."""
    L, f, forces = sysdata
    cs = _cs(L, f, forces)
    acc = cs.accelerations()
    R = []
    for s in range(Y.m):
        Es = sp.diff(L, Y.q[s]) - _ddt(sp.diff(L, Y.qdot[s])) + forces[s]
        R.append(-Es.xreplace(acc).xreplace(cs.g))
    for v in cs.independent:
        dq = [sp.Integer(0)] * Y.m
        dq[Y.qdot.index(v)] = sp.Integer(1)
        for d, g in cs.g.items():
            dq[Y.qdot.index(d)] = sp.diff(g, v)
        assert is_zero(sum(Ri * di for Ri, di in zip(R, dq)))
    for Ri, Rj in zip(R, cs.reaction_forces()):
        assert is_zero(Ri - Rj)


def test_not_regular_constrained_system_raises():
    """L = ½(ẋ² − ẏ²) + ½ż² with ẏ = ẋ: L̄ = ½ż², B' singular — (12) fails everywhere."""
    L = (xd**2 - yd**2 + zd**2) / 2
    cs = _cs(L, yd - xd, [0, 0, 0])
    assert not cs.is_regular()
    assert is_zero(cs.regularity_condition())
    with pytest.raises(NotRegularError, match=r"\(12\)"):
        cs.accelerations()


def test_time_dependent_affine_constraint_reaction_and_multiplier_sign():
    """ż = t ẋ (rheonomic), L = ½|q̇|²: multiplier convention E_σ + λ ∂f/∂q̇^σ = 0 checked by hand:
    ẍ(1 + t²) = −t ż-part …  Solving by hand: λ = z̈ = ẋ + t ẍ, ẍ = −tλ ⇒ ẍ = −tẋ/(1 + t²)."""
    L = (xd**2 + yd**2 + zd**2) / 2
    cs = _cs(L, zd - t * xd, [0, 0, 0])
    acc = cs.accelerations()
    assert is_zero(acc[Y.qddot[0]] + t * xd / (1 + t**2))
    assert is_zero(acc[Y.qddot[2]] - xd / (1 + t**2))
    (lam,) = cs.multipliers()
    assert is_zero(lam - xd / (1 + t**2))
    assert cs.Q.classify().kind == "chaplygin"  # (5) allows b(t, q^I)
