"""ConstraintSubmanifold: rank condition [Stolařová 2009, eq. (3)], singular states, normal form [Stolařová 2009, eq.
(4)] with a
deterministic structural choice of dependent velocities, branches, parametric form [Benenti 2007, eqs. (2.1),
(2.3)] and the classification of [Stolařová 2009, §2, eq. (5)]."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import sympy as sp
import sympy.solvers.solvers as solvers

from jetgeo import ConstraintSubmanifold, FibredManifold
from jetgeo.errors import BranchError, InputError, OffManifoldError, RankDeficientError, UndecidedError
from jetgeo.geometry.zero import is_zero

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def Y3():
    return FibredManifold(["x", "y", "z"])


def test_singular_states_of_homogeneous_quadratic_is_zero_section_001_remark_7_5(Y3):
    xd, yd, zd = Y3.qdot
    a = sp.Symbol("a", positive=True)
    Q = ConstraintSubmanifold(Y3, [xd**2 + yd**2 - a**2 * zd**2])
    ss = Q.singular_states()
    # rank ∂f/∂q̇ = 0 iff all of 2ẋ, 2ẏ, −2a²ż vanish: the zero section
    assert sp.solve(ss, list(Y3.qdot), dict=True) == [{xd: 0, yd: 0, zd: 0}]
    # at a point of Q off the zero section the Jacobian has rank 1
    assert Q.jacobian().subs({xd: 3, yd: 4, zd: sp.Rational(5) / a}).rank() == 1


def test_rank_condition_violations_raise(Y3):
    x, y, z = Y3.q
    xd, yd, zd = Y3.qdot
    with pytest.raises(RankDeficientError, match="generic rank"):
        ConstraintSubmanifold(Y3, [x - y])  # holonomic: no velocities
    with pytest.raises(RankDeficientError):
        ConstraintSubmanifold(Y3, [xd - yd, 2 * xd - 2 * yd])  # dependent constraints
    with pytest.raises(RankDeficientError, match="codimension"):
        ConstraintSubmanifold(Y3, [xd, yd, zd])
    with pytest.raises(InputError, match="accelerations"):
        ConstraintSubmanifold(Y3, [Y3.qddot[0]])
    with pytest.raises(InputError, match="expressions"):
        ConstraintSubmanifold(Y3, [sp.Eq(xd, yd)])


def test_structural_choice_avoids_singular_block_and_is_reproducible():
    """f1 = ẋ + ż + ẇ, f2 = xẏ + ż + ẇ: preferring later velocities with constant coefficients a
    matching picks {ż, ẇ}, whose block [[1, 1], [1, 1]] is singular; the verified choice
    must be a non-singular block.  The block chosen is (ẋ, ẇ): det = 1."""
    Y = FibredManifold(["x", "y", "z", "w"])
    x = Y.q[0]
    xd, yd, zd, wd = Y.qdot
    Q = ConstraintSubmanifold(Y, [xd + zd + wd, x * yd + zd + wd])
    dep = Q.dependent
    cols = [Y.qdot.index(d) for d in dep]
    assert Q.jacobian().extract([0, 1], cols).det() != 0
    assert dep == (xd, wd)
    nf = Q.normal_form()
    assert nf.condition != 0
    # user's singular choice is refused with a clear error
    with pytest.raises(RankDeficientError, match="generically singular"):
        _ = ConstraintSubmanifold(Y, Q.f, dependent=[zd, wd]).dependent
    with pytest.raises(InputError):
        _ = ConstraintSubmanifold(Y, Q.f, dependent=[zd]).dependent


_SCRIPT = r"""
import sympy as sp
from jetgeo import ConstraintSubmanifold, FibredManifold
Y = FibredManifold(["x", "y", "z", "w"])
x, y, z, w = Y.q
xd, yd, zd, wd = Y.qdot
a = sp.Symbol("a", positive=True)
Q1 = ConstraintSubmanifold(Y, [xd + zd + wd, x * yd + zd + wd])
Q3 = ConstraintSubmanifold(Y, [xd**2 + yd**2 - a**2 * zd**2])
print(Q1.dependent, Q3.dependent)
print([str(b.solution) for b in Q3.branches()])
"""


def test_dependent_choice_and_branch_order_same_in_other_processes():
    outs = set()
    for seed in ("1", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=str(ROOT))
        res = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True, env=env, timeout=120)
        assert res.returncode == 0, res.stderr
        outs.add(res.stdout)
    assert len(outs) == 1, outs


def test_branches_listing_choice_and_errors(Y3):
    x, y, z = Y3.q
    xd, yd, zd = Y3.qdot
    Q = ConstraintSubmanifold(Y3, [zd**2 - xd**2 - yd**2 * x**2])
    brs = Q.branches()
    assert len(brs) == 2
    for b in brs:  # each branch solves the constraint
        assert sp.expand(Q.f[0].xreplace(b.solution)) == 0
    with pytest.raises(BranchError, match="choose one"):
        Q.normal_form()
    with pytest.raises(BranchError, match="does not exist"):
        Q.normal_form(branch=5)
    assert Q.normal_form(branch=1).g == brs[1].solution
    pt = {x: 2, y: 0, z: 0, xd: 3, yd: 2}
    assert Q.branch_of({**pt, zd: 5}) == [b.index for b in brs if b.solution[zd].xreplace(pt) == 5][0]
    with pytest.raises(OffManifoldError):
        Q.branch_of({**pt, zd: 4})
    with pytest.raises(InputError, match="values"):
        Q.branch_of({xd: 1})
    # branch chosen at construction time is used by default
    assert ConstraintSubmanifold(Y3, Q.f, branch=0).normal_form().g == brs[0].solution


def test_branch_domain_records_square_root_arguments(Y3):
    x, y, z = Y3.q
    xd, yd, zd = Y3.qdot
    Q = ConstraintSubmanifold(Y3, [zd**2 - xd + x * yd], dependent=[zd])
    b = Q.branches()[0]
    assert b.nonnegative and sp.expand(b.nonnegative[0] - (xd - x * yd)) == 0
    # a sum of squares is never negative: not listed
    Q2 = ConstraintSubmanifold(Y3, [zd**2 - xd**2 - yd**2], dependent=[zd])
    assert all(not br.nonnegative for br in Q2.branches())


def test_parametric_form_001_2_1_rank_2_3_and_round_trip():
    Yk = FibredManifold(["x", "y", "theta"])
    x, y, th = Yk.q
    xd, yd, thd = Yk.qdot
    z1, z2 = sp.symbols("z1 z2")
    # the skate [Benenti 2007, §9.1]: ẋ = z1 cos θ, ẏ = z1 sin θ, θ̇ = z2
    Q = ConstraintSubmanifold.parametric(Yk, [z1 * sp.cos(th), z1 * sp.sin(th), z2], [z1, z2])
    f = Q.f[0]
    # implicit equation vanishes on the parametrisation and is proportional to ẋ sin θ − ẏ cos θ
    on = f.xreplace({xd: z1 * sp.cos(th), yd: z1 * sp.sin(th), thd: z2})
    assert is_zero(on)
    assert Q.classify().kind in ("chaplygin", "affine")
    with pytest.raises(RankDeficientError, match=r"2\.3"):
        ConstraintSubmanifold.parametric(Yk, [z1 * sp.cos(th), z1 * sp.sin(th), 2 * z1], [z1, z2])
    # normal form -> parametric ([Benenti 2007, Remark 7.3]: z = independent velocities) -> normal form
    Q1 = ConstraintSubmanifold(Yk, [xd * sp.sin(th) - yd * sp.cos(th)])
    psi, z = Q1.to_parametric()
    assert z == Q1.normal_form().independent
    Q2 = ConstraintSubmanifold.parametric(Yk, psi, z)
    assert Q2.normal_form().g == Q1.normal_form().g


def test_classification_004_section_2():
    Y = FibredManifold(["x", "y", "z"])
    t = Y.t
    x, y, z = Y.q
    xd, yd, zd = Y.qdot
    # ż = y ẋ + x ẏ is d/dt(z − xy) = 0: integrable, really holonomic
    c = ConstraintSubmanifold(Y, [zd - y * xd - x * yd]).classify()
    assert c.kind == "semiholonomic" and c.integrable and c.homogeneous
    # time-dependent integrable: ż = ẋ + 2t  ⇔  d/dt(z − x − t²) = 0
    c = ConstraintSubmanifold(Y, [zd - xd - 2 * t]).classify()
    assert c.kind == "semiholonomic" and not c.homogeneous and not c.scleronomic
    # ż = x ẏ (Heisenberg): ω = dz − x dy, ω∧dω = −dz∧dx∧dy ≠ 0, b = x free of z: Chaplygin (5)
    c = ConstraintSubmanifold(Y, [zd - x * yd]).classify()
    assert c.kind == "chaplygin" and c.integrable is False
    # ż = z ẋ + ẏ? coefficients depend on the dependent coordinate z: not (5); ω = dz − z dx − dy,
    # dω = −dz∧dx, ω∧dω = dy∧dz∧dx ≠ 0: non-integrable affine
    # ż = z ẋ + ẏ: with ż dependent the coefficient z is a dependent coordinate, but solved for ẏ,
    # ẏ = ż − z ẋ has coefficients free of y: Chaplygin's form for that choice (and for ẋ, where z ≠ 0,
    # ẋ = (ż − ẏ)/z is free of x)
    c = ConstraintSubmanifold(Y, [zd - z * xd - yd]).classify()
    assert c.kind == "chaplygin" and c.integrable is False and c.dependent == (zd,)
    assert set(c.chaplygin_choices) == {(xd,), (yd,)} and c.choices_complete
    assert "not with the choice in force [zdot]" in c.explanation
    # x ẋ + (1 + x) y ẏ + z ż = 0 (not integrable: ω∧dω = y z dx∧dy∧dz ≠ 0): whichever velocity is
    # solved for, its own coordinate divides the others' coefficients — no Chaplygin choice
    c = ConstraintSubmanifold(Y, [x * xd + y * (1 + x) * yd + z * zd]).classify()
    assert c.kind == "affine" and not c.chaplygin_choices
    assert "no choice of dependent velocities gives Chaplygin's form" in c.explanation
    # affine with a velocity-free term, non-integrable: ż = x ẏ + 1 is not (5) (not homogeneous)
    c = ConstraintSubmanifold(Y, [zd - x * yd - 1]).classify()
    assert c.kind == "affine" and not c.homogeneous
    # genuinely nonlinear
    c = ConstraintSubmanifold(Y, [zd - xd**2 - yd**2]).classify()
    assert c.kind == "nonlinear" and not c.affine


def test_structural_choice_asks_sympys_diff_only_where_the_velocity_occurs(monkeypatch):
    """The cost of an edge of the structural matching asks whether ∂f^i/∂q̇^σ is free of q̇^σ; an entry
    without q̇^σ among its free symbols is (its derivative is 0) and sympy's ``diff`` is not asked —
    the same choice as before, and sympy's ``diff`` only for the entry of the non-linear constraint."""
    Y = FibredManifold(["x", "y", "th", "ph"])
    x, y, th, ph = Y.q
    xd, yd, thd, phd = Y.qdot
    fs = [xd * sp.sin(th) - yd * sp.cos(th), xd * sp.cos(th) + yd * sp.sin(th) - phd, thd**2 + phd - 1]
    expected = ConstraintSubmanifold(Y, fs).dependent
    asked = []
    diff = sp.diff
    monkeypatch.setattr(sp, "diff", lambda e, *a, **k: asked.append(e) or diff(e, *a, **k))
    assert ConstraintSubmanifold(Y, fs).dependent == expected
    assert asked == [2 * thd]


def test_parametric_form_solves_for_z_without_sympys_checksol(call_log):
    """z(q̇^I) of a non-linear parametrisation (the parallel velocities [Benenti 2007, §9.4]: ẋ₁ = ρ cos θ,
    ẏ₁ = ρ sin θ, ẋ₂ = σ cos θ, ẏ₂ = σ sin θ) comes from the branch solver, candidates verified by the zero
    test: sympy's ``checksol`` (its ``simplify``: 1.2 s of the 1.3 s, twice per catalogue entry in the recipes)
    never runs, and the two solutions are still found and refused as not unique."""
    calls = call_log(solvers, "checksol")
    Y = FibredManifold(["x1", "y1", "x2", "y2"])
    rho, sigma, th = sp.symbols("rho sigma theta")
    psi = [rho * sp.cos(th), rho * sp.sin(th), sigma * sp.cos(th), sigma * sp.sin(th)]
    with pytest.raises(UndecidedError, match="gives 2 solutions"):
        ConstraintSubmanifold.parametric(Y, psi, [rho, sigma, th])
    assert calls == []
