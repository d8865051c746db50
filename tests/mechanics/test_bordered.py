"""The bordered system W q̈ − Jᵀλ = ℓ, J q̈ = −b [Ghori 1960, eq. (2.2.20)–(2.2.23)] and its three users.

Independent truths: the Euler–Lagrange expressions written out with the total derivative (W q̈ − ℓ =
d/dt ∂L/∂q̇ − ∂L/∂q − A, J q̈ + b = d/dt f), Krupková's canonical route (``sys.constrain(Q)``), and the
Taylor evaluation of linearisation against symbolic differentiation."""

from __future__ import annotations

import random

import numpy as np
import pytest
import sympy as sp

from jetgeo import ConstraintSubmanifold, FibredManifold, LagrangianSystem, systems
from jetgeo.errors import InputError
from jetgeo.mechanics.bordered import bordered_system
from jetgeo.recipes import lagrange_multipliers
from jetgeo.testing.checks import check_agree, vanishes_on_points


def _rheonomic():
    """A system with explicit t in L, non-potential forces and a rheonomic constraint."""
    Y = FibredManifold(["x", "y", "theta"])
    x, y, th = Y.q
    xd, yd, thd = Y.qdot
    t = Y.t
    m, c = sp.symbols("m c", positive=True)
    L = m / 2 * (xd**2 + yd**2) + sp.Rational(1, 3) * thd**2 + t * x * yd + sp.cos(th) * xd * thd - y**2 / 2
    S = LagrangianSystem(Y, L, forces=[-c * xd, 0, sp.sin(t)])
    Q = ConstraintSubmanifold(Y, [xd * sp.sin(th) - yd * sp.cos(th) + t * x])
    return S, Q


def _random_point(Y, params, seed):
    rnd = random.Random(seed)
    syms = [Y.t, *Y.q, *Y.qdot, *Y.qddot, *params]
    return {s: sp.Rational(rnd.randint(-90, 90), rnd.randint(7, 40)) for s in syms}


@pytest.mark.parametrize("grouped", [False, True])
def test_blocks_are_the_euler_lagrange_equations_and_the_derivative_of_f(grouped):
    S, Q = _rheonomic()
    Y = S.Y
    B = bordered_system(S, Q, grouped=grouped)
    L = S.L
    lam = sp.symbols("lambda1:2")
    # d/dt ∂L/∂q̇ − ∂L/∂q − A − λ ∂f/∂q̇ with the total derivative on J²Y, written out
    def ddt(e):
        return sp.diff(e, Y.t) + sum(sp.diff(e, q) * v + sp.diff(e, v) * a for q, v, a in zip(Y.q, Y.qdot, Y.qddot))
    f = Q.f[0]
    truth = [ddt(sp.diff(L, v)) - sp.diff(L, q) - A - lam[0] * sp.diff(f, v)
             for q, v, A in zip(Y.q, Y.qdot, S.forces)] + [ddt(f)]
    got = B.equations(list(Y.qddot), lam)
    params = sorted((S.parameters | {lam[0]}) - set(Y.J2.coords), key=str)
    for seed in range(3):
        pt = _random_point(Y, params, seed)
        for a, b in zip(got, truth):
            assert sp.nsimplify(sp.N((a - b).xreplace(pt), 40), tolerance=1e-30) == 0
    # the matrix and right-hand side form of the same system
    K, r = B.matrix, B.rhs
    sol = sp.Matrix([*Y.qddot, *lam])
    for a, b in zip(K * sol - r, got):
        assert sp.expand(a - b) == 0


def test_frozen_velocities_agree_where_the_velocities_take_their_frozen_values():
    S, Q = _rheonomic()
    Y = S.Y
    x, y, th = Y.q
    xd, yd, thd = Y.qdot
    frozen = {xd: sp.Rational(3, 2), thd: 0}                     # ẏ absent: frozen at 0 too
    B0 = bordered_system(S, Q, grouped=True)
    Bf = bordered_system(S, Q, grouped=True, frozen_velocities=frozen)
    pt = {Y.t: sp.Rational(1, 3), x: sp.Rational(2, 7), y: sp.Rational(-1, 5), th: sp.Rational(1, 4),
          xd: sp.Rational(3, 2), yd: 0, thd: 0, sp.Symbol("m", positive=True): 2, sp.Symbol("c", positive=True): 1}
    for a, b in zip([*B0.ell, *B0.b], [*Bf.ell, *Bf.b]):
        assert sp.N((a - b).xreplace(pt), 30) == 0
    with pytest.raises(InputError, match="grouped=True"):
        bordered_system(S, Q, frozen_velocities=frozen)
    with pytest.raises(InputError, match="LagrangianSystem"):
        bordered_system(Q, S)


def test_recipe_agrees_with_the_canonical_route():
    """The multipliers recipe built on bordered_system: the same accelerations as sys.constrain(Q) and the same
    multipliers, on Q at random points."""
    for name in ("skate", "rolling_disc"):
        e = systems.load(name)
        cs = e.constrained()
        mo = lagrange_multipliers(e.system, e.Q)
        assert check_agree(cs, mo).passed
        for a, b in zip(cs.multipliers(), mo.multipliers()):
            assert vanishes_on_points(sp.sympify(a) - sp.sympify(b)).zero
    S, Q = _rheonomic()
    assert check_agree(S.constrain(Q), lagrange_multipliers(S, Q)).passed


def test_simulation_solves_the_same_system_as_the_canonical_accelerations():
    """The compiled bordered system of simulation, solved numerically at random points of Q, gives the
    accelerations of sys.constrain(Q) and the multipliers of the recipe."""
    from jetgeo.numerics import prepare

    S, Q = _rheonomic()
    cs = S.constrain(Q)
    prep = prepare(cs, "multipliers")
    acc = cs.accelerations()
    lam = lagrange_multipliers(S, Q).multipliers()
    Y = S.Y
    rnd = np.random.default_rng(5)
    for _ in range(3):
        vals = {s: float(v) for s, v in zip([Y.t, *Y.q, *cs.independent, *prep.params], rnd.uniform(0.2, 1.2, 99))}
        for d, g in cs.g.items():
            vals[d] = float(g.xreplace(vals))
        y = np.array([vals[s] for s in (*Y.q, *Y.qdot)])
        p = np.array([vals[s] for s in prep.params])
        qdd, lam_num, _K = prep.bordered.solve(vals[Y.t], y, p)
        want = [float(acc[a].xreplace(vals)) for a in Y.qddot]
        np.testing.assert_allclose(qdd, want, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(lam_num, [float(v.xreplace(vals)) for v in lam], rtol=1e-10, atol=1e-12)


def test_linearisation_taylor_evaluation_equals_the_symbolic_bordered_system():
    """At a point of the rolling disc that moves only along cyclic coordinates (spin φ̇ and the contact point
    ẋ, ẏ from f = 0) the Taylor evaluation of linearisation and the differentiated bordered_system (grouped ℓ,
    q̇ frozen along the moving directions) give the same K₀, r₀ and ∂f/∂x."""
    from jetgeo.mechanics import linearisation as L_mod
    e = systems.load("rolling_disc")
    S, Q = e.system, e.Q
    Y = S.Y
    q, qd = list(Y.q), list(Y.qdot)
    x, y, th, ps, ph = q
    xd, yd, thd, psd, phd = qd
    vals = {x: 0, y: 0, th: sp.Rational(4, 3), ps: sp.Rational(1, 3), ph: 0, thd: 0, psd: 0, phd: 3}
    vals.update(e.params)
    vals[xd], vals[yd] = (-f.xreplace({**vals, xd: 0, yd: 0}) for f in Q.f)   # f = ẋ + … , ẏ + …
    vals = {k: L_mod._numify(sp.sympify(v)) for k, v in vals.items()}
    assert all(abs(sp.N(f.xreplace(vals), 40)) < 1e-30 for f in Q.f)
    n = len(q)
    qd0 = [vals[v] for v in qd]
    moving = [j for j in range(n) if qd0[j] != 0]
    assert {qd[j] for j in moving} == {xd, yd, phd}
    z = [*q, *qd]
    def at(ex, vv):
        return L_mod._normalise_small(L_mod._numify(sp.sympify(ex).xreplace(vv)))
    Kt, rt, _, fin_t = L_mod._bordered_by_taylor(S.L, list(S.forces), list(Q.f), q, qd, z, vals, moving, qd0)
    Kd, rd, _, fin_d = L_mod._bordered_by_diff(S, Q, list(Q.f), Q.jacobian(), Y, q, qd, z, vals, moving, qd0, at)
    assert Kt.shape == Kd.shape == (n + 2, n + 2)
    for a, b in zip([*Kt, *rt], [*Kd, *rd]):
        assert abs(sp.N(a - b, 40)) < 1e-25
    xs = [*q, thd, psd, phd]
    _, ft = fin_t([0] * n, [0, 0], xs)
    _, fd = fin_d([0] * n, [0, 0], xs)
    for a, b in zip(ft, fd):
        assert abs(sp.N(a - b, 40)) < 1e-25
