"""The branches of non-linear constraints (issue 28): solved without sympy's simplify-based check, each
candidate verified by the zero test, ordered by value at fixed sample points (jetgeo/mechanics/branch_solve.py,
theory/constraints.md 'Branches')."""

from __future__ import annotations

from pathlib import Path

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import jetgeo.mechanics.branch_solve as branch_solve
from jetgeo import ConstraintSubmanifold, FibredManifold, systems
from jetgeo.errors import UndecidedError
from jetgeo.geometry.zero import PointSampler, angles_of, substitution, zero_test
from jetgeo.io import load_spec
from jetgeo.mechanics.branch_solve import order_branches, square_part

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def Y3():
    return FibredManifold(["x", "y", "z"])


def _same_function(g, h) -> bool:
    return zero_test(g - h).zero


def _values_at_random_points(exprs, points: int = 3):
    """For each of ``points`` random points (rationals; angles on rational circle points, so sin, cos
    rational): the values of ``exprs`` there, exact algebraic numbers."""
    syms = set().union(*(e.free_symbols for e in exprs))
    angles = set().union(*(angles_of(e) for e in exprs))
    trig = set().union(*(e.atoms(sp.sin, sp.cos, sp.tan) for e in exprs))
    sampler = PointSampler(seed=2028)
    out = []
    for _ in range(points):
        rep = substitution(sampler.point(syms, angles), trig)
        out.append([e.xreplace(rep) for e in exprs])
    return out


def _equal_numbers(u, v) -> bool:
    """Exact equality of two algebraic numbers: the minimal polynomial of u − v is x."""
    d = u - v
    if d.is_Rational:
        return d == 0
    x = sp.Symbol("x")
    return sp.minimal_polynomial(d, x) == x


def _two_wheels_nl():
    e = systems.load("two_wheels_axle", form="nonlinear")
    return e.Y, list(e.Q.f), list(e.Q.dependent)


def _cone(Y3):
    xd, yd, zd = Y3.qdot
    a = sp.Symbol("a", positive=True)
    return Y3, [xd**2 + yd**2 - a**2 * zd**2], [zd]


def _surd(Y3):
    """A quadratic whose discriminant is no square: the branches keep a square root."""
    x, y, _ = Y3.q
    xd, yd, zd = Y3.qdot
    return Y3, [yd**2 + xd * yd - x**2 - sp.sin(y) ** 2 * xd**2 - 1], [yd]


def _cubic(Y3):
    xd, yd, zd = Y3.qdot
    return Y3, [yd**3 - yd * (xd**2 + 1)], [yd]


@pytest.mark.parametrize("build", [_two_wheels_nl, _cone, _surd, _cubic])
def test_branches_equal_sympys_checked_solutions_as_sets(build, Y3):
    """The new branches are sympy's checked (``simplify``-based) solutions — today's branches — as a set of
    functions: at random rational points (angles on rational circle points) the two sets of values are equal,
    decided exactly (minimal polynomial of each difference)."""
    Y, fs, dep = build() if build is _two_wheels_nl else build(Y3)
    Q = ConstraintSubmanifold(Y, fs, dependent=dep)
    new = [b.solution for b in Q.branches()]
    old = sp.solve(fs, dep, dict=True)  # sympy's check and simplification: the reference only
    assert len(new) == len(old)
    exprs = [s[u] for s in new for u in dep] + [s[u] for s in old for u in dep]
    n = len(new) * len(dep)
    for values in _values_at_random_points(exprs):
        new_v = [tuple(values[i * len(dep):(i + 1) * len(dep)]) for i in range(len(new))]
        old_v = [tuple(values[n + i * len(dep):n + (i + 1) * len(dep)]) for i in range(len(old))]
        unmatched = list(old_v)
        for v in new_v:
            hits = [w for w in unmatched if all(_equal_numbers(p, q) for p, q in zip(v, w))]
            assert hits, f"the value {v} of a new branch is no value of sympy's branches {old_v}"
            unmatched.remove(hits[0])
        assert not unmatched


def test_the_roots_of_the_quadratic_formula_are_verified_exactly(Y3):
    """With √R replaced by s and the residual reduced modulo s² − R, every coefficient is proven zero by the
    exact tiers of the zero test: no 60-digit evaluation decides that a branch with a square root is one."""
    Y, fs, dep = _surd(Y3)
    brs = ConstraintSubmanifold(Y, fs, dependent=dep).branches()
    assert len(brs) == 2
    assert all(any(p.exp == sp.S.Half for p in b.solution[dep[0]].atoms(sp.Pow)) for b in brs)
    assert all(branch_solve._zero_modulo_roots(fs[0].xreplace(b.solution)) for b in brs)


def test_a_root_of_the_squared_equation_that_is_none_is_dropped(Y3):
    """√ẏ + ẏ = w² + w, w = ẋ² + 1 > 0: squaring gives √ẏ = w or √ẏ = −w − 1, so sympy returns ẏ = w² and
    ẏ = (w + 1)²; only the first solves f = 0 (its check keeps both: √((ẋ² + 2)²) is not simplified for complex
    ẋ).  The zero test finds f = 2w + 2 ≠ 0 exactly at a rational point for the second and drops it."""
    xd, yd, _ = Y3.qdot
    w = xd**2 + 1
    f = sp.sqrt(yd) + yd - w**2 - w
    assert len(sp.solve(f, yd, dict=True, check=False, simplify=False)) == 2  # the spurious root is offered
    brs = ConstraintSubmanifold(Y3, [f], dependent=[yd]).branches()
    assert len(brs) == 1
    assert _same_function(brs[0].solution[yd], w**2)
    spurious = (w + 1) ** 2
    assert zero_test(f.xreplace({yd: spurious})).method == "counterexample"


def test_an_undecidable_candidate_is_reported_not_kept(Y3, monkeypatch):
    """When the zero test cannot decide whether a candidate solves f = 0, UndecidedError names it."""
    xd, yd, _ = Y3.qdot

    decide = branch_solve.zero_test

    def undecided(expr, *args, **kwargs):
        """No verdict on the candidates' residuals (they hold the square root), the real test elsewhere."""
        if any(p.exp == sp.S.Half for p in sp.sympify(expr).atoms(sp.Pow)):
            raise UndecidedError("no verdict here")
        return decide(expr, *args, **kwargs)

    monkeypatch.setattr(branch_solve, "zero_test", undecided)
    monkeypatch.setattr(branch_solve, "_zero_modulo_roots", lambda value: False)
    x = Y3.q[0]
    with pytest.raises(UndecidedError, match=r"the constraints: cannot decide whether ydot = .*sqrt.* solves .* = 0"):
        branch_solve.solve_branches([yd**2 + xd * yd - x**2 - 1], [yd], "the constraints")


def test_quadratic_constraints_are_solved_without_sympy_solve(monkeypatch):
    """Ghori's rolling disc and two wheels in their non-linear forms (one affine equation and one quadratic)
    are solved by elimination and the quadratic formula: sympy's ``solve`` (whose solution check runs
    ``simplify``) is never called, and each branch solves f = 0 (verified by the zero test)."""
    def refuse(*args, **kwargs):
        raise AssertionError("sympy.solve was called")

    entries = [systems.load(n, form="nonlinear") for n in ("rolling_disc", "two_wheels_axle")]
    monkeypatch.setattr(sp, "solve", refuse)
    for e in entries:
        Q = ConstraintSubmanifold(e.Y, list(e.Q.f), dependent=e.Q.dependent)
        brs = Q.branches()
        assert len(brs) == 2
        for br in brs:
            assert all(zero_test(f.xreplace(br.solution)).zero for f in Q.f)
            # the discriminant is a square modulo sin² + cos² = 1: no square root is left
            assert not any(p.exp == sp.S.Half for v in br.solution.values() for p in v.atoms(sp.Pow))


def test_square_part_finds_a_square_modulo_the_pythagorean_identity():
    """The rolling disc's discriminant 4a²θ̇² sin²θ (1 − sin²ψ) is a square only modulo sin² + cos² = 1."""
    a, th, ps, w = sp.symbols("a theta psi w")
    delta = 4 * a**2 * w**2 * sp.sin(th) ** 2 * (1 - sp.sin(ps) ** 2)
    p, r = square_part(delta)
    assert r == 1 and zero_test(p**2 * r - delta).zero
    p, r = square_part(8 * w**2 * (w + 1) / (w - 1))  # a rational function, a numeric content 8 = 2² · 2
    assert zero_test(p**2 * r - 8 * w**2 * (w + 1) / (w - 1)).zero
    assert not r.has(w**2) and sp.count_ops(r) < sp.count_ops(8 * w**2 * (w + 1) / (w - 1))


def test_the_order_is_by_value_largest_first(Y3):
    """ẏ³ = ẏ(ẋ² + 1): +√(ẋ² + 1), 0, −√(ẋ² + 1) (sympy lists 0 first)."""
    xd, yd, _ = Y3.qdot
    brs = ConstraintSubmanifold(Y3, [yd**3 - yd * (xd**2 + 1)]).branches()
    r = sp.sqrt(xd**2 + 1)
    assert [_same_function(b.solution[yd], v) for b, v in zip(brs, (r, 0, -r))] == [True] * 3
    x = sp.Symbol("x")
    assert order_branches([{x: sp.Integer(-1)}, {x: sp.I}, {x: sp.Integer(1)}], [x]) == [
        {x: 1}, {x: sp.I}, {x: -1}]


# --- the order does not depend on how the constraints are written --------------------------------------------

_Y = FibredManifold(["x", "y", "psi", "phi", "chi"])
_x, _y, _ps, _ph, _ch = _Y.q
_xd, _yd, _psd, _phd, _chd = _Y.qdot
_a = sp.Symbol("a", positive=True)
# Ghori's two wheels [Ghori 1960, eq. (3.2.2)] and a cone of velocities
_SYSTEMS = [
    ([_xd**2 + _yd**2 - _a**2 * (_psd + _phd) ** 2, _xd * sp.cos(_ps) + _yd * sp.sin(_ps)], [_yd, _phd]),
    ([_xd**2 + _yd**2 - _a**2 * _psd**2 * sp.cos(_x) ** 2], [_psd]),
]
_FACTORS = [sp.Integer(3), sp.Integer(-2), 1 + _x**2, -(2 + sp.sin(_ps) ** 2), 1 + sp.cos(_y) ** 2, sp.exp(_y)]


@settings(max_examples=12)
@given(system=st.sampled_from(range(len(_SYSTEMS))), factor=st.sampled_from(_FACTORS),
       form=st.sampled_from(["as is", "expanded", "factored", "identity added"]), swap=st.booleans(),
       combine=st.booleans())
def test_the_order_is_invariant_under_rewriting_the_constraints(system, factor, form, swap, combine):
    """The same submanifold written otherwise — a constraint multiplied by a non-vanishing factor, expanded or
    factored, sin² + cos² − 1 times something added, the equations swapped, one added to the other — has the
    same branches in the same order (each compared as a function by the zero test)."""
    fs, dep = _SYSTEMS[system]
    base = [b.solution for b in ConstraintSubmanifold(_Y, fs, dependent=dep).branches()]
    g = [factor * fs[0], *fs[1:]]
    if form == "expanded":
        g = [sp.expand(h) for h in g]
    elif form == "factored":
        g = [sp.factor(h) for h in g]
    elif form == "identity added":
        g = [g[0] + _x * _xd**2 * (sp.sin(_ps) ** 2 + sp.cos(_ps) ** 2 - 1), *g[1:]]
    if len(g) == 2 and combine:
        g = [g[0] + (1 + _x**2) * _xd * g[1], g[1]]
    if swap:
        g = g[::-1]
    other = [b.solution for b in ConstraintSubmanifold(_Y, g, dependent=dep).branches()]
    assert len(other) == len(base)
    for b, o in zip(base, other):
        assert all(_same_function(b[u], o[u]) for u in dep)


# --- every place that names a branch selects the solution it selected before issue 28 -----------------------


def test_branch_indices_in_specs_and_catalogue_select_the_positive_cone_and_the_rolling_branches():
    """By value: branch 0 of Stolařová's cone (catalogue, examples/specs) is ż = +√(ẋ² + ẏ²)/a; the catalogue's
    branches of Ghori's non-linear forms are those on which the linear rolling constraints hold (two wheels:
    φ̇ = −ψ̇ + ẋ/(a sin ψ), which was branch 1 before the value order and is branch 0 now)."""
    for name in ("krupkova_example2.toml", "catalogue/stolarova_example2.toml"):
        path = ROOT / "examples" / "specs" / name
        spec = load_spec(path)
        xd, yd, zd = spec.Y.qdot
        a = spec.symbol("a")
        g = spec.Q.normal_form(branch=spec.branch).g
        assert _same_function(g[zd], sp.sqrt(xd**2 + yd**2) / a), path
    e = systems.load("stolarova_example2")
    xd, yd, zd = e.Y.qdot
    a = next(p for p in e.parameters if p.name == "a")
    assert _same_function(e.Q.normal_form().g[zd], sp.sqrt(xd**2 + yd**2) / a)
    for name in ("two_wheels_axle", "rolling_disc", "rolling_ball"):
        nl, lin = systems.load(name, form="nonlinear"), systems.load(name)
        g = nl.Q.normal_form().g
        assert all(zero_test(f.xreplace(g)).zero for f in lin.Q.f), name
    nl = systems.load("two_wheels_axle", form="nonlinear")
    x, y, ps, ph, ch = nl.Y.q
    xd, yd, psd, phd, chd = nl.Y.qdot
    a = sp.Symbol("a", positive=True)
    assert nl.branch == 0 and _same_function(nl.Q.normal_form().g[phd], -psd + xd / (a * sp.sin(ps)))


def test_candidates_with_a_root_inside_a_function_are_verified_by_the_zero_test():
    """sympy's candidates for ρ cos θ = ẋ₁, ρ sin θ = ẏ₁, σ cos θ = ẋ₂ (the parallel velocities' ψ [Benenti
    2007, §9.4]) hold √(ẋ₁² + ẏ₁²) inside sin(2 atan(…)): reducing modulo s² − R does not apply there (sympy's
    ``rem`` raised PolynomialError out of solve_branches), and the zero test verifies both branches."""
    Y = FibredManifold(["x1", "y1", "x2", "y2"])
    x1d, y1d, x2d, _ = Y.qdot
    rho, sigma, th = sp.symbols("rho sigma theta")
    eqs = [x1d - rho * sp.cos(th), y1d - rho * sp.sin(th), x2d - sigma * sp.cos(th)]
    sols = branch_solve.solve_branches(eqs, [rho, sigma, th], "the parametrisation")
    assert len(sols) == 2
    for s in sols:
        assert all(zero_test(e.xreplace(s)).zero for e in eqs)
    assert not zero_test(sols[0][rho] - sols[1][rho]).zero
