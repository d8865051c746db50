"""Distributions and codistributions: generic rank with singular locus, annihilators,
sum, intersection, membership, Frobenius with offending brackets, derived flags."""

from __future__ import annotations

import sympy as sp
from geometry_strategies import charts, vector_fields
from hypothesis import given, settings
from hypothesis import strategies as st

from jetgeo.geometry import Chart, Codistribution, Distribution, Form, VectorField
from jetgeo.geometry.zero import is_zero


def rank_at(D: Distribution, point: dict) -> int:
    """Rank at a point by plain sympy (an independent check of the locus)."""
    return D.matrix().subs(point).rank()


def annihilates(P: Codistribution, D: Distribution) -> bool:
    return all(is_zero(a(X)) for a in P.generators for X in D.generators)


# --- the vertical rolling disc [Benenti 2007, §9.2] -------------------------------------------------

R = sp.Symbol("R", positive=True)
Cd = Chart(["x", "y", "theta", "psi"])
xd, yd, thd, psd = Cd
X1 = VectorField(Cd, [R * sp.cos(psd), R * sp.sin(psd), 1, 0])  # ∂θ + R cos ψ ∂x + R sin ψ ∂y
X2 = VectorField(Cd, [0, 0, 0, 1])  # ∂ψ
DISC = Distribution(Cd, [X1, X2])


def test_rolling_disc_rank_locus_and_annihilator():
    assert DISC.rank == 2 and DISC.corank == 2
    assert DISC.singular_locus() == []  # the rank never drops
    P = DISC.annihilator()
    assert P.rank == 2 and annihilates(P, DISC)
    expected = Codistribution(
        Cd, [Cd.d(xd) - R * sp.cos(psd) * Cd.d(thd), Cd.d(yd) - R * sp.sin(psd) * Cd.d(thd)]
    )
    assert P.equals(expected)
    assert P.annihilator().equals(DISC)


def test_rolling_disc_is_not_involutive_with_offending_bracket():
    report = DISC.is_involutive()
    assert not report and not report.involutive
    assert len(report.offending) == 1
    i, j, br = report.offending[0]
    assert (i, j) == (0, 1)
    # [X1, X2]^k = X1(X2^k) − X2(X1^k) = −∂ψ X1^k = (R sin ψ, −R cos ψ, 0, 0)
    assert br == VectorField(Cd, [R * sp.sin(psd), -R * sp.cos(psd), 0, 0])
    assert not DISC.contains(br)


def test_rolling_disc_derived_flag_growth_2_3_4():
    flag = DISC.derived_flag()
    assert [D.rank for D in flag] == [2, 3, 4]
    assert DISC.growth_vector() == (2, 3, 4)
    assert flag[1].contains(X1.bracket(X2)) and not flag[0].contains(X1.bracket(X2))
    assert [D.rank for D in DISC.lie_flag()] == [2, 3, 4]
    # dual flag of the constraint codistribution: (2, 1, 0)
    assert DISC.annihilator().growth_vector() == (2, 1, 0)


# --- contact and Engel distributions --------------------------------------------------------

C3 = Chart(["x", "y", "z"])
x, y, z = C3
CONTACT_FORM = C3.d(z) - y * C3.d(x)
CONTACT = Distribution(C3, [VectorField(C3, [1, 0, y]), VectorField(C3, [0, 1, 0])])


def test_contact_distribution_growth_2_3():
    assert CONTACT.rank == 2
    assert CONTACT.growth_vector() == (2, 3)
    rep = CONTACT.is_involutive()
    assert not rep
    (i, j, br), = rep.offending
    assert br == VectorField(C3, [0, 0, -1])  # [∂x + y∂z, ∂y] = −∂z
    P = Codistribution(C3, [CONTACT_FORM])
    assert CONTACT.annihilator().equals(P)
    assert P.annihilator().equals(CONTACT)
    irep = P.is_integrable()
    assert not irep and not P.is_involutive()
    (k, _none, w), = irep.offending
    assert w == (C3.dx(x) ^ C3.dx(y) ^ C3.dx(z))  # dω ∧ ω = dx∧dy∧(dz − y dx) = dx∧dy∧dz
    assert P.growth_vector() == (1, 0)


def test_engel_distribution_growth_2_3_4():
    C = Chart(["x", "y", "z", "w"])
    x_, y_, z_, w_ = C
    E = Distribution(C, [VectorField(C, [0, 1, 0, 0]), VectorField(C, [1, 0, y_, z_])])
    assert E.growth_vector() == (2, 3, 4)
    P = Codistribution(C, [C.d(z_) - y_ * C.d(x_), C.d(w_) - z_ * C.d(x_)])
    assert E.annihilator().equals(P)


def test_integrable_distribution_tangent_to_spheres():
    rots = [VectorField(C3, [-y, x, 0]), VectorField(C3, [0, -z, y]), VectorField(C3, [z, 0, -x])]
    S = Distribution(C3, rots)
    assert S.rank == 2  # three generators, generic rank 2
    rep = S.is_involutive()
    assert rep.involutive and rep.offending == []
    assert S.growth_vector() == (2,)
    radial = Codistribution(C3, [x * C3.d(x) + y * C3.d(y) + z * C3.d(z)])
    assert S.annihilator().equals(radial)
    assert radial.is_integrable().involutive
    assert radial.growth_vector() == (1,)
    # the rank drops only at the origin: every 2×2 minor vanishes there, not elsewhere
    locus = S.singular_locus()
    assert locus and all(m.subs({x: 0, y: 0, z: 0}) == 0 for m in locus)
    assert rank_at(S, {x: 0, y: 0, z: 0}) == 0
    for p in ({x: 1, y: 0, z: 0}, {x: 0, y: 0, z: 2}, {x: 1, y: -1, z: 3}):
        assert any(m.subs(p) != 0 for m in locus) and rank_at(S, p) == 2


# --- rank, locus, lattice operations, membership -----------------------------------------------------


def test_rank_with_singular_locus():
    C = Chart(["x", "y"])
    u, v = C
    D = Distribution(C, [VectorField(C, [1, 0]), VectorField(C, [0, u])])  # span{∂x, x∂y}
    assert D.rank == 2
    assert D.singular_locus() == [u]
    assert rank_at(D, {u: 0}) == 1 and rank_at(D, {u: 3}) == 2
    polar = Distribution(C, [VectorField(C, [u, v]), VectorField(C, [-v, u])])
    (m,) = polar.singular_locus()
    assert sp.expand(m - (u**2 + v**2)) == 0 or sp.expand(m + u**2 + v**2) == 0
    # a one-generator distribution drops rank where all components vanish
    E = Distribution(C, [VectorField(C, [u * v, u**2])])
    assert E.rank == 1 and set(E.singular_locus()) == {u * v, u**2}
    assert Distribution(C, []).rank == 0


def test_annihilator_carries_its_validity_condition():
    C = Chart(["x", "y"])
    u, v = C
    D = Distribution(C, [VectorField(C, [u, v])])  # the radial field
    P = D.annihilator()
    assert P.rank == 1 and annihilates(P, D)
    assert P.conditions and not is_zero(P.conditions[-1])
    assert any(d in (u, v) for d in P.domain)  # the chosen pivot, u or v, must not vanish


def test_sum_and_intersection():
    D1 = Distribution(C3, [VectorField(C3, [1, 0, 0]), VectorField(C3, [0, 1, x])])
    D2 = Distribution(C3, [VectorField(C3, [0, 1, 0]), VectorField(C3, [0, 0, 1])])
    assert (D1 + D2).rank == 3 and D1.sum(D2).rank == 3
    I = D1.intersection(D2)
    assert I.rank == 1
    assert I.contains(VectorField(C3, [0, 1, x])) and not I.contains(VectorField(C3, [0, 1, 0]))
    assert D1.contains(I.generators[0]) and D2.contains(I.generators[0])
    P1 = Codistribution(C3, [C3.d(x), C3.d(y)])
    P2 = Codistribution(C3, [C3.d(y) + x * C3.d(z), C3.d(z)])
    J = P1.intersection(P2)
    assert J.rank == 1 and J.contains(C3.d(y)) and not J.contains(C3.d(x))
    assert (P1 + P2).rank == 3 and P1.sum(P2).rank == 3


def test_membership():
    assert CONTACT.contains(x * VectorField(C3, [1, 0, y]))
    assert VectorField(C3, [x, sp.sin(z), x * y]) in CONTACT  # x(∂x + y∂z) + sin z ∂y
    assert VectorField(C3, [0, 0, 1]) not in CONTACT
    P = Codistribution(C3, [CONTACT_FORM])
    assert (2 * x * CONTACT_FORM) in P and C3.d(x) not in P
    assert CONTACT.basis() == CONTACT.generators and CONTACT.reduced().rank == 2
    redundant = Distribution(C3, [VectorField(C3, [1, 0, y]), VectorField(C3, [2, 0, 2 * y])])
    assert redundant.rank == 1 and len(redundant.basis()) == 1


def test_repr_and_latex():
    assert "rank 2" in repr(CONTACT)
    assert CONTACT._repr_latex_().startswith(r"$\mathrm{span}")
    P = Codistribution(C3, [CONTACT_FORM])
    assert "rank 1" in repr(P) and r"\mathrm{span}" in P._repr_latex_()


# --- properties on random distributions --------------------------------------------------------------


@st.composite
def distributions(draw, max_dim: int = 4):
    C = draw(charts(2, max_dim))
    k = draw(st.integers(1, C.dim))
    return Distribution(C, [draw(vector_fields(C, trig=False)) for _ in range(k)])


@settings(max_examples=12)
@given(distributions())
def test_annihilator_duality(D):
    P = D.annihilator()
    assert D.rank + P.rank == D.chart.dim
    assert annihilates(P, D)
    back = P.annihilator()
    assert back.rank == D.rank
    assert all(D.contains(X) for X in back.generators)
    assert all(back.contains(X) for X in D.generators)


@settings(max_examples=12)
@given(distributions(max_dim=3), st.data())
def test_intersection_is_contained_in_both(D1, data):
    D2 = Distribution(D1.chart, [data.draw(vector_fields(D1.chart, trig=False)) for _ in range(2)])
    I = D1.intersection(D2)
    assert all(D1.contains(X) and D2.contains(X) for X in I.generators)
    # Grassmann: dim(D1 ∩ D2) = rank D1 + rank D2 − rank(D1 + D2), generically
    assert I.rank == D1.rank + D2.rank - (D1 + D2).rank


@settings(max_examples=12)
@given(distributions(max_dim=3))
def test_derived_flag_is_increasing_and_ends_involutive(D):
    flag = D.derived_flag()
    ranks = [E.rank for E in flag]
    assert ranks == sorted(set(ranks))  # strictly increasing
    assert all(flag[k + 1].contains(X) for k in range(len(flag) - 1) for X in flag[k].generators)
    assert flag[-1].is_involutive().involutive


def test_codistribution_from_forms_needs_one_forms():
    import pytest

    with pytest.raises(TypeError):
        Codistribution(C3, [C3.dx(x) ^ C3.dx(y)])
    with pytest.raises(TypeError):
        Distribution(C3, [C3.dx(x)])
    assert Codistribution(C3, []).annihilator().rank == 3
    assert Distribution(C3, []).annihilator().rank == 3
    assert isinstance(Codistribution(C3, [C3.d(x)]).generators[0], Form)
