"""The canonical route on Q does not stall (issue 14): systems whose canonical (cancelled) forms
are large — a ball with three distinct principal moments rolling on a plane, an articulated
vehicle with two knife edges (Hamel's equations), a 6-trailer — finish in seconds, and their
accelerations agree with the second route, ``accelerations_on_TQ`` (dependent velocities kept
as symbols), at random rational points of Q, exactly."""

from __future__ import annotations

import random
import time

import sympy as sp
from sympy import cos, sin

from jetgeo import ConstraintSubmanifold, FibredManifold, LagrangianSystem, systems
from jetgeo.geometry.exact import solve_affine, solve_cramer, xreplace_dag
from jetgeo.mechanics import accelerations_on_TQ
from jetgeo.recipes import hamel, krupkova

#: generous bounds (the machine is shared); measured 0.4 s, 1 s, 3 s, 1 s
SECONDS = 20  # of this process's CPU time (process_time): the wall time of a shared machine varies with its load


def _ball():
    """Euler angles (ψ precession, θ nutation, φ spin), body angular velocity ω₁, ω₂, ω₃; the
    centre of mass at the centre (x, y, a); rolling: v_centre = ω × (a e_z), i.e.
    ẋ = a ω_y, ẏ = −a ω_x with ω in fixed axes (as the catalogue's ``rolling_ball``)."""
    Y = FibredManifold(["x", "y", "theta", "psi", "phi"])
    x, y, th, ps, ph = Y.q
    xd, yd, thd, psd, phd = Y.qdot
    m, a, A, B, C = sp.symbols("m a A B C", positive=True)
    w1 = psd * sin(th) * sin(ph) + thd * cos(ph)
    w2 = psd * sin(th) * cos(ph) - thd * sin(ph)
    w3 = psd * cos(th) + phd
    T = m / 2 * (xd**2 + yd**2) + (A * w1**2 + B * w2**2 + C * w3**2) / 2
    wx = thd * cos(ps) + phd * sin(th) * sin(ps)
    wy = thd * sin(ps) - phd * sin(th) * cos(ps)
    params = {m: sp.Integer(1), a: sp.Rational(1, 2), A: sp.Rational(2, 7), B: sp.Rational(1, 3),
              C: sp.Rational(2, 5)}
    return Y, LagrangianSystem(Y, T), ConstraintSubmanifold(Y, [xd - a * wy, yd + a * wx]), params


def _vehicle():
    """Tractor (rear axle at (x, y), heading θ₁, centre of mass b ahead of the axle) and a
    trailer (heading θ₂) hitched h behind the tractor's axle, its axle d behind the hitch, its
    centre of mass c ahead of its axle; knife edges at both axles."""
    Y = FibredManifold(["x", "y", "theta1", "theta2"])
    x, y, t1, t2 = Y.q
    m1, m2, J1, J2, b, c, h, d = sp.symbols("m1 m2 J1 J2 b c h d", positive=True)

    def vel(P):
        return [sum(sp.diff(P[i], q) * v for q, v in zip(Y.q, Y.qdot)) for i in range(2)]

    G1 = [x + b * cos(t1), y + b * sin(t1)]
    P2 = [x - h * cos(t1) - d * cos(t2), y - h * sin(t1) - d * sin(t2)]
    G2 = [P2[0] + c * cos(t2), P2[1] + c * sin(t2)]
    v1, v2, vP2 = vel(G1), vel(G2), vel(P2)
    xd, yd, t1d, t2d = Y.qdot
    T = (m1 / 2 * (v1[0] ** 2 + v1[1] ** 2) + J1 / 2 * t1d**2 + m2 / 2 * (v2[0] ** 2 + v2[1] ** 2)
         + J2 / 2 * t2d**2)
    f = [-xd * sin(t1) + yd * cos(t1), -vP2[0] * sin(t2) + vP2[1] * cos(t2)]
    params = {m1: 2, m2: 1, J1: sp.Rational(1, 2), J2: sp.Rational(1, 3), b: sp.Rational(1, 2),
              c: sp.Rational(1, 4), h: sp.Rational(1, 5), d: sp.Rational(3, 2)}
    return Y, LagrangianSystem(Y, T), ConstraintSubmanifold(Y, f), {k: sp.Integer(v) if isinstance(v, int) else v
                                                                   for k, v in params.items()}


def _points(Y, cs, params, count=2, seed=11):
    """Points of Q: random rational q and q̇^I, q̇^D from the normal form, all as 50-digit floats
    (a DAG evaluated node by node: the trees of the large results are far too big to walk)."""
    rng = random.Random(seed)
    for _ in range(count):
        pt = {s: sp.Rational(rng.randint(-90, 90), 100) for s in (Y.t, *Y.q, *cs.independent)}
        pt.update(params)
        pt = {k: sp.Float(v, 50) for k, v in pt.items()}
        for dv, g in cs.g.items():
            pt[dv] = xreplace_dag(g, pt)
        yield pt


def _value(expr, pt, memo=None):
    return complex(xreplace_dag(expr, pt, memo))


def _agree(Y, cs, acc, acc_TQ, pt, tol=1e-30):
    memo_TQ, memo = {}, {}  # the accelerations of one result share subexpressions: each is evaluated once per point
    for a in Y.qddot:
        want = _value(acc_TQ[a], pt, memo_TQ)
        got = _value(acc[a], pt, memo)
        assert abs(got - want) <= tol * (1 + abs(want)), (a, got, want)


def test_three_moment_ball_finishes_and_agrees_with_TQ():
    Y, S, Q, params = _ball()
    t0 = time.process_time()
    cs = S.constrain(Q)
    acc = cs.accelerations()
    assert time.process_time() - t0 < SECONDS
    acc_TQ = accelerations_on_TQ(S, Q, dependent=cs.dependent)
    for pt in _points(Y, cs, params):
        _agree(Y, cs, acc, acc_TQ, pt)


def test_articulated_vehicle_hamel_finishes_and_agrees():
    Y, S, Q, params = _vehicle()
    t0 = time.process_time()
    M = hamel(S, Q)
    assert time.process_time() - t0 < SECONDS
    cs = S.constrain(Q)
    acc_K = krupkova(S, Q).accelerations()
    acc_TQ = accelerations_on_TQ(S, Q, dependent=cs.dependent)
    u = list(M.to_jet)  # Hamel's results are written in (t, q, u), u = the independent velocities
    for pt in _points(Y, cs, params):
        pt_u = {**pt, **{ui: xreplace_dag(M.to_jet[ui], pt) for ui in u}}
        _agree(Y, cs, M.accelerations(), acc_TQ, pt_u)
        _agree(Y, cs, acc_K, acc_TQ, pt)


def test_six_trailer_dag_route_agrees_with_TQ():
    entry = systems.load("n_trailer", n=6)
    cs = entry.constrained()
    acc = cs.accelerations()
    assert not cs._small  # the large route: exact DAGs, not cancelled
    # the point of the large route: results kept as DAGs, whose distinct subexpressions grow with the chain
    # while their trees grow exponentially (measured: 1 118 distinct, up to 991 280 tree nodes).  A route
    # that expanded or cancelled them would have as many distinct subexpressions as tree nodes (or stall)
    sizes = cs.result_sizes()
    assert all(dag <= 3000 for dag, _tree in sizes.values()), sizes
    assert max(tree / dag for dag, tree in sizes.values()) > 100, sizes
    acc_TQ = accelerations_on_TQ(entry.system, entry.Q, dependent=cs.dependent)
    for pt in _points(entry.Y, cs, entry.params):
        _agree(entry.Y, cs, acc, acc_TQ, pt)


def test_solve_cramer_and_affine_solve_are_exact():
    a, b, th = sp.symbols("a b theta")
    A = sp.Matrix([[1 + sin(th) ** 2, cos(th)], [a, 2 + sin(th)]])
    rhs = sp.Matrix([b, cos(th) * a])
    X = solve_cramer(A, rhs)
    assert (A * X - rhs).applyfunc(sp.cancel) == sp.zeros(2, 1)
    # numbers only (the ground domain, no polynomial ring), 1 × 1 and 2 × 2
    assert solve_cramer(sp.Matrix([[2]]), sp.Matrix([3])) == sp.Matrix([sp.Rational(3, 2)])
    assert solve_cramer(sp.Matrix([[1, 2], [3, 4]]), sp.Matrix([5, 6])) == sp.Matrix([-4, sp.Rational(9, 2)])
    x1, x2 = sp.symbols("x1 x2")
    eqs = list(A * sp.Matrix([x1, x2]) - rhs)
    sol, det = solve_affine(eqs, [x1, x2], "test")
    assert [sp.cancel(e.xreplace(sol)) for e in eqs] == [0, 0]
    assert sp.cancel(det - A.det()) == 0


def test_xreplace_dag_equals_xreplace():
    x, y, z = sp.symbols("x y z")
    e = x
    for _ in range(10):  # a DAG of 10 levels, a tree of 2^10 leaves
        e = (e + y) * sin(e - y) / (1 + e)
    assert xreplace_dag(e, {x: z + 1}) == e.xreplace({x: z + 1})
    memo: dict = {}
    assert xreplace_dag(e, {y: 2}, memo) == e.xreplace({y: 2})
    assert len(memo) < 100  # each distinct subexpression visited once


def test_dependent_accelerations_are_substituted_with_the_accelerations_they_use(monkeypatch):
    """q̈^D = d̄ġ^D/dt is evaluated in the fraction field with only the accelerations it holds: a chain
    q̇_{i+1} = q_i q̇_i (tests/corpus/specs/chain26.toml; 7 links here) built the field of every acceleration
    solved so far for each link (quadratic along the chain: chain26's derivation 4.4 s, now 1.9 s).  Independent
    truth: the constraints' second derivatives vanish on the accelerations (exact zero test)."""
    import jetgeo.mechanics.constrained as constrained_module
    from jetgeo.geometry.zero import is_zero

    calls = []
    real = constrained_module.substitute_affine

    def spy(expr, values):
        calls.append((set(values), expr.free_symbols))
        return real(expr, values)

    monkeypatch.setattr(constrained_module, "substitute_affine", spy)
    n = 8
    Y = FibredManifold([f"q{i}" for i in range(n)])
    q, qd = Y.q, Y.qdot
    f = [qd[i + 1] - q[i] * qd[i] for i in range(n - 1)]
    cs = LagrangianSystem(Y, sum(v**2 for v in qd)).constrain(ConstraintSubmanifold(Y, f, dependent=qd[1:]))
    acc = cs.accelerations()
    assert len(calls) == n - 1 and all(keys <= syms for keys, syms in calls)
    on_Q = dict(cs.g)
    for i in range(n - 1):  # d/dt (q̇_{i+1} − q_i q̇_i) = q̈_{i+1} − q̇_i² − q_i q̈_i on Q
        assert is_zero((acc[Y.qddot[i + 1]] - qd[i] ** 2 - q[i] * acc[Y.qddot[i]]).xreplace(on_Q))
