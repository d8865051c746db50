"""[Benenti 2007, §9.1–9.4], through Krupková's reduced equations [Stolařová 2009, eqs. (7)–(12)].

For each example jetgeo's ``sys.constrain(Q).accelerations()`` (all q̈ on Q) is compared with

* the paper's final equations, where they are right (second-method vector field D,
  (8.12), and first-method system dz/dt = Z, (7.5), mapped to q̈ through q̇ = ψ(q, z));
* Lagrange multipliers under Chetaev's condition, solved with sympy in this file
  (E_σ + λ ∂f/∂q̇^σ = 0 with d/dt f = 0).

Generalised forces are generic: plain symbols A1, A2, … stand for the values A_σ(q, q̇) at
the point — no derivative of a force enters the equations of motion, so this is general.
"""

from __future__ import annotations

import random

import pytest
import sympy as sp

from jetgeo import ConstraintSubmanifold, FibredManifold, LagrangianSystem
from jetgeo.geometry.zero import is_zero
from jetgeo.testing import vanishes_on_points


def _ddt(expr, t, q, qd, qdd):
    out = sp.diff(expr, t)
    for a, b, c in zip(q, qd, qdd):
        out += b * sp.diff(expr, a) + c * sp.diff(expr, b)
    return out


def chetaev_system(Y, L, fs, on_Q, forces):
    """Independent method: the linear system for (q̈, λ) of E_σ + λ_i ∂f^i/∂q̇^σ = 0 and
    d/dt f^i = 0 on Q, as a matrix pair (M, b) — solved below at exact random points."""
    t, q, qd, qdd = Y.t, list(Y.q), list(Y.qdot), list(Y.qddot)
    lam = sp.symbols(f"lam0:{len(fs)}")
    eqs = []
    for s in range(len(q)):
        E = sp.diff(L, q[s]) - _ddt(sp.diff(L, qd[s]), t, q, qd, qdd) + forces[s]
        eqs.append(E + sum(lam[i] * sp.diff(f, qd[s]) for i, f in enumerate(fs)))
    eqs += [_ddt(f, t, q, qd, qdd) for f in fs]
    eqs = [e.xreplace(on_Q) for e in eqs]
    return sp.linear_eq_to_matrix(eqs, qdd + list(lam))


_RNG = random.Random(20071036)


def random_point(exprs):
    """An exact substitution: rational values for the symbols and, for every angle θ, the
    rational point (2u/(1+u²), (1−u²)/(1+u²)) of the unit circle for (sin θ, cos θ)."""
    exprs = [sp.sympify(e) for e in exprs]
    syms = sorted(set().union(*(e.free_symbols for e in exprs)), key=sp.default_sort_key)
    trig = set().union(*(e.atoms(sp.sin, sp.cos, sp.tan) for e in exprs))
    angles = {a.args[0] for a in trig}
    assert all(th.is_Symbol for th in angles)
    rep = {}
    for th in sorted(angles, key=sp.default_sort_key):
        u = sp.Rational(_RNG.randint(1, 10**3), _RNG.randint(1, 97))
        sn, cs_ = 2 * u / (1 + u**2), (1 - u**2) / (1 + u**2)
        rep.update({sp.sin(th): sn, sp.cos(th): cs_, sp.tan(th): sn / cs_})
    vals = {}
    for s_ in syms:
        v = sp.Rational(_RNG.randint(1, 10**4), _RNG.randint(1, 97))
        vals[s_] = v if (s_.is_positive or _RNG.random() < 0.5) else -v
    return rep, vals


def at(expr, point):
    rep, vals = point
    return sp.sympify(expr).xreplace(rep).xreplace(vals)


def assert_same(a, b, what="", points=4):
    """a ≡ b: a − b vanishes at ``points`` random points (:func:`jetgeo.testing.vanishes_on_points`:
    rational coordinates, angles on the rational unit circle so that trigonometric identities hold
    exactly; exact, else to 40 digits).  A non-zero function vanishes there with negligible probability."""
    v = vanishes_on_points(sp.sympify(a) - sp.sympify(b), trials=points)
    assert v.zero, f"{what}: {a} != {b} (a - b = {v.value} at {v.point})"


def check_against_multipliers(cs, Y, L, fs, on_Q, forces, points=3):
    """jetgeo's accelerations and multipliers = the multiplier system solved at random points."""
    M, b = chetaev_system(Y, L, fs, on_Q, forces)
    acc = cs.accelerations()
    lam = cs.multipliers()
    mine = [acc[a] for a in Y.qddot] + list(lam)
    good = 0
    for _ in range(20 * points):
        pt = random_point(list(M) + list(b) + mine)
        Mv, bv = M.applyfunc(lambda e, pt=pt: at(e, pt)), b.applyfunc(lambda e, pt=pt: at(e, pt))
        if any(v.has(sp.zoo, sp.nan) for v in list(Mv) + list(bv)) or Mv.det() == 0:
            continue
        sol = Mv.LUsolve(bv)
        vals = [at(e, pt) for e in mine]
        if any(v.has(sp.zoo, sp.nan) for v in vals):
            continue
        assert list(sol) == vals, f"multiplier method disagrees at {pt}: {list(sol)} vs {vals}"
        good += 1
        if good == points:
            return acc
    raise AssertionError("no regular sample points")


def on_psi(expr, psi_map):
    """Evaluate a function of (q, q̇) at q̇ = ψ(q, z)."""
    return sp.sympify(expr).xreplace(psi_map)


# --------------------------------------------------------------------------------------------
# 9.1 the skate:  ẋ sin θ − ẏ cos θ = 0  (9.1);  K = ½m(ẋ² + ẏ²) + ½Iθ̇²
# (the paper prints ½Iθ̇ without the square: a misprint; its metric diag(m, m, I) is right)
# --------------------------------------------------------------------------------------------


def test_001_skate_9_1_second_method_D_first_method_Z_and_multipliers():
    Y = FibredManifold(["x", "y", "theta"])
    x, y, th = Y.q
    xd, yd, thd = Y.qdot
    xdd, ydd, thdd = Y.qddot
    m, I = sp.symbols("m I", positive=True)
    A1, A2, A3 = F = sp.symbols("A1 A2 A3")
    L = m * (xd**2 + yd**2) / 2 + I * thd**2 / 2
    f = xd * sp.sin(th) - yd * sp.cos(th)
    cs = LagrangianSystem(Y, L, forces=list(F)).constrain(ConstraintSubmanifold(Y, [f]))
    assert cs.dependent == (yd,)  # ẏ = ẋ tan θ, valid where cos θ ≠ 0
    assert_same(cs.nf.condition, -sp.cos(th))
    acc = check_against_multipliers(cs, Y, L, [f], {yd: xd * sp.tan(th)}, F)
    # second method, (8.12): D on C, here restricted to ẏ = ẋ tan θ
    on_Q = {yd: cs.g[yd]}
    D = {
        xdd: sp.cos(th) / m * (A1 * sp.cos(th) + A2 * sp.sin(th))
        - thd * (xd * sp.cos(th) + yd * sp.sin(th)) * sp.sin(th),
        ydd: sp.sin(th) / m * (A1 * sp.cos(th) + A2 * sp.sin(th))
        + thd * (xd * sp.cos(th) + yd * sp.sin(th)) * sp.cos(th),
        thdd: A3 / I,
    }
    for a, d in D.items():
        assert_same(acc[a], d.xreplace(on_Q), f"D {a}")
    # first method: ẋ = z1 cos θ, ẏ = z1 sin θ, θ̇ = z2; ż1 = (A1 cos θ + A2 sin θ)/m, ż2 = A3/I
    z1, z2 = sp.symbols("z1 z2")
    psi = {xd: z1 * sp.cos(th), thd: z2}
    z1dot = (A1 * sp.cos(th) + A2 * sp.sin(th)) / m
    z2dot = A3 / I
    assert_same(on_psi(acc[xdd], psi), z1dot * sp.cos(th) - z1 * sp.sin(th) * z2, "ẍ")
    assert_same(on_psi(acc[ydd], psi), z1dot * sp.sin(th) + z1 * sp.cos(th) * z2, "ÿ")
    assert_same(on_psi(acc[thdd], psi), z2dot, "θ̈")


# --------------------------------------------------------------------------------------------
# 9.2 the vertical rolling disc: ẋ − R cos ψ θ̇ = 0, ẏ − R sin ψ θ̇ = 0  (9.2);  K (9.3)
# --------------------------------------------------------------------------------------------


def test_001_vertical_disc_9_2_eqs_9_5_9_6_and_multipliers():
    Y = FibredManifold(["x", "y", "theta", "psi"])
    x, y, th, ps = Y.q
    xd, yd, thd, psd = Y.qdot
    xdd, ydd, thdd, psdd = Y.qddot
    m, R, A, B = sp.symbols("m R A B", positive=True)
    A1, A2, A3, A4 = F = sp.symbols("A1:5")
    L = m * (xd**2 + yd**2) / 2 + (A * thd**2 + B * psd**2) / 2
    fs = [xd - R * sp.cos(ps) * thd, yd - R * sp.sin(ps) * thd]
    Q = ConstraintSubmanifold(Y, fs)
    cs = LagrangianSystem(Y, L, forces=list(F)).constrain(Q)
    assert cs.dependent == (xd, yd)
    assert Q.classify().kind == "chaplygin"
    acc = check_against_multipliers(cs, Y, L, fs, dict(cs.g), F)
    # (9.6)
    P = A1 * R * sp.cos(ps) + A2 * R * sp.sin(ps) + A3
    D = {
        xdd: R * sp.cos(ps) / (m * R**2 + A) * P - R * thd * psd * sp.sin(ps),
        ydd: R * sp.sin(ps) / (m * R**2 + A) * P + R * thd * psd * sp.cos(ps),
        thdd: P / (m * R**2 + A),
        psdd: A4 / B,
    }
    for a, d in D.items():
        assert_same(acc[a], d, f"(9.6) {a}")
    # (9.5): z1 = θ̇, z2 = ψ̇, ż1 = P/(mR² + A), ż2 = A4/B
    assert_same(acc[thdd], P / (m * R**2 + A))
    assert_same(acc[psdd], A4 / B)
    # regularity (12): det of the reduced metric, constant
    assert_same(cs.regularity_condition(), (m * R**2 + A) * B)


# --------------------------------------------------------------------------------------------
# 9.3 two co-axial rolling discs: constraints (9.11) on Q6 = (x, y, θ1, θ2, ψ, a)
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def discs():
    Y = FibredManifold(["x", "y", "theta1", "theta2", "psi", "a"])
    x, y, t1, t2, ps, a = Y.q
    xd, yd, t1d, t2d, psd, ad = Y.qdot
    m, R, A, B = sp.symbols("m R A B", positive=True)
    F = sp.symbols("A1:7")
    # second centre: x2 = x + a sin ψ, y2 = y − a cos ψ  (9.10)
    x2d = xd + a * sp.cos(ps) * psd + sp.sin(ps) * ad
    y2d = yd + a * sp.sin(ps) * psd - sp.cos(ps) * ad
    K = m * (xd**2 + yd**2 + x2d**2 + y2d**2) / 2 + A * (t1d**2 + t2d**2) / 2 + B * psd**2
    fs = [
        xd - R * sp.cos(ps) * t1d,
        yd - R * sp.sin(ps) * t1d,
        x2d - R * sp.cos(ps) * t2d,
        y2d - R * sp.sin(ps) * t2d,
    ]
    Q = ConstraintSubmanifold(Y, fs, dependent=[xd, yd, psd, ad])
    cs = LagrangianSystem(Y, K, forces=list(F)).constrain(Q)
    return Y, K, fs, Q, cs, (m, R, A, B), F


def test_001_discs_9_3_parametric_form_9_12_and_kinetic_energy(discs):
    Y, K, fs, Q, cs, (m, R, A, B), F = discs
    x, y, t1, t2, ps, a = Y.q
    xd, yd, t1d, t2d, psd, ad = Y.qdot
    # (9.12): ẋ = R cos ψ θ̇1, ẏ = R sin ψ θ̇1, ψ̇ = (R/a)(θ̇2 − θ̇1), ȧ = 0
    expected = {xd: R * sp.cos(ps) * t1d, yd: R * sp.sin(ps) * t1d, psd: R / a * (t2d - t1d), ad: 0}
    for d, g in expected.items():
        assert_same(cs.g[d], g, str(d))
    # the paper's K (for ȧ = 0) agrees with ours
    K_paper = m * (xd**2 + yd**2) + A / 2 * (t1d**2 + t2d**2) + (m * a**2 / 2 + B) * psd**2 + m * a * psd * (
        xd * sp.cos(ps) + yd * sp.sin(ps)
    )
    assert_same(K.xreplace({ad: 0}), K_paper)


def test_001_discs_9_3_final_equations_printed_wrong_corrected_and_multipliers(discs):
    """The printed final system dz1/dt = R(A1 cos ψ + A2 sin ψ − A3/a) + A4, dz2/dt = (R/a)A3 + A5
    is wrong.  Its Z_α (covariant, forces numbered in the order x, y, ψ, θ1, θ2 of [ψ^i]) are
    right, but (i) the metric was written in the order (x, y, θ1, θ2, ψ) and contracted with
    ψ^i_α in the order (x, y, ψ, θ1, θ2), so the printed G_αβ (G11 = 2mR² + A(1 + R²/a²),
    G12 = maR − AR²/a², …) is wrong — the correct one is symmetric under θ1 ↔ θ2:
    G11 = G22 = A + mR² + 2BR²/a², G12 = −2BR²/a²; and (ii) the last step omits G^{αβ}:
    the equations are dz/dt = G⁻¹ Z (7.5), not Z.  The corrected system is checked here."""
    Y, K, fs, Q, cs, (m, R, A, B), F = discs
    x, y, t1, t2, ps, a = Y.q
    xd, yd, t1d, t2d, psd, ad = Y.qdot
    Ax, Ay, At1, At2, Aps, Aa = F
    acc = check_against_multipliers(cs, Y, K, fs, dict(cs.g), F)
    assert acc[Y.qddot[5]] == 0  # ä = 0: the distance stays constant
    # corrected first method, computed here by hand
    G = sp.Matrix(
        [
            [A + m * R**2 + 2 * B * R**2 / a**2, -2 * B * R**2 / a**2],
            [-2 * B * R**2 / a**2, A + m * R**2 + 2 * B * R**2 / a**2],
        ]
    )
    # ψ^i_α with (x, y, θ1, θ2, ψ, a) order
    psi1 = [R * sp.cos(ps), R * sp.sin(ps), 1, 0, -R / a, 0]
    psi2 = [0, 0, 0, 1, R / a, 0]
    W = LagrangianSystem(Y, K).hessian()
    G_direct = sp.Matrix(2, 2, lambda i, j: (sp.Matrix([[psi1, psi2][i]]) * W * sp.Matrix([psi1, psi2][j]))[0])
    for i in range(2):
        for j in range(2):
            assert_same(G_direct[i, j].xreplace({ad: 0}), G[i, j], "G")
    Z = sp.Matrix([R * (Ax * sp.cos(ps) + Ay * sp.sin(ps)) - R / a * Aps + At1, R / a * Aps + At2])
    zdot = G.LUsolve(Z)
    t1dd, t2dd = Y.qddot[2], Y.qddot[3]
    assert_same(acc[t1dd], zdot[0], "θ̈1 = (G⁻¹Z)_1")
    assert_same(acc[t2dd], zdot[1], "θ̈2 = (G⁻¹Z)_2")
    # the printed final equations (dz/dt = Z, forces relabelled to our order) disagree
    printed = [R * (Ax * sp.cos(ps) + Ay * sp.sin(ps) - Aps / a) + At1, R / a * Aps + At2]
    assert not is_zero(acc[t1dd] - printed[0])
    G_printed = sp.Matrix(
        [[2 * m * R**2 + A * (1 + R**2 / a**2), m * a * R - A * R**2 / a**2],
         [m * a * R - A * R**2 / a**2, A * R**2 / a**2 + m * a**2 + 2 * B]]
    )
    assert not is_zero(G_printed[0, 0] - G[0, 0])
    # regularity (12): det of the reduced metric (constant, as the paper notes for its G)
    assert_same(cs.regularity_condition(), G.det())


# --------------------------------------------------------------------------------------------
# 9.4 two points with parallel velocities: ẋ1 ẏ2 − ẋ2 ẏ1 = 0  (9.14), non-linear
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def parallel():
    Y = FibredManifold(["x1", "y1", "x2", "y2"])
    x1d, y1d, x2d, y2d = Y.qdot
    m1, m2 = sp.symbols("m1 m2", positive=True)
    F = sp.symbols("A1:5")
    K = m1 * (x1d**2 + y1d**2) / 2 + m2 * (x2d**2 + y2d**2) / 2
    f = x1d * y2d - x2d * y1d
    Q = ConstraintSubmanifold(Y, [f])
    cs = LagrangianSystem(Y, K, forces=list(F)).constrain(Q)
    return Y, K, f, Q, cs, (m1, m2), F


def test_001_parallel_9_4_singular_states_zero_section(parallel):
    """[C_i] = [ẏ2, −ẋ2, −ẏ1, ẋ1] drops rank exactly on the zero section [Benenti 2007, Remarks 7.3, 7.5]."""
    Y, K, f, Q, cs, ms, F = parallel
    sol = sp.solve(Q.singular_states(), list(Y.qdot), dict=True)
    assert sol == [{v: 0 for v in Y.qdot}]
    assert Q.classify().kind == "nonlinear"
    # the chosen normal form ẏ2 = ẋ2 ẏ1/ẋ1 needs ẋ1 ≠ 0: a chart of Q, smaller than Q minus the zero section
    x1d, y1d, x2d, y2d = Y.qdot
    assert cs.dependent == (y2d,)
    assert_same(cs.nf.condition, x1d)


def test_001_parallel_9_4_second_method_D_and_multipliers(parallel):
    Y, K, f, Q, cs, (m1, m2), F = parallel
    x1d, y1d, x2d, y2d = Y.qdot
    A1, A2, A3, A4 = F
    acc = check_against_multipliers(cs, Y, K, [f], dict(cs.g), F)
    twoK = m1 * (x1d**2 + y1d**2) + m2 * (x2d**2 + y2d**2)
    D = [
        (A1 * (m1 * (x1d**2 + y1d**2) + m2 * x2d**2) / m1 + A2 * m2 * x2d * y2d / m1
         + A3 * y1d * y2d - A4 * x1d * y2d) / twoK,
        (A1 * m2 * x2d * y2d / m1 + A2 * (m1 * (x1d**2 + y1d**2) + m2 * y2d**2) / m1
         - A3 * x2d * y1d + A4 * x1d * x2d) / twoK,
        (A1 * y1d * y2d - A2 * x2d * y1d + A3 * (m2 * (x2d**2 + y2d**2) + m1 * x1d**2) / m2
         + A4 * m1 * x1d * y1d / m2) / twoK,
        (-A1 * x1d * y2d + A2 * x1d * x2d + A3 * m1 * x1d * y1d / m2
         + A4 * (m2 * (x2d**2 + y2d**2) + m1 * y1d**2) / m2) / twoK,
    ]
    for a, d in zip(Y.qddot, D):
        assert_same(acc[a], d.xreplace(cs.g), f"D {a}")
    # inclined plane A1 = m1 g, A3 = m2 g, A2 = A4 = 0: the printed D's
    g = sp.Symbol("g", positive=True)
    incl = {A1: m1 * g, A3: m2 * g, A2: 0, A4: 0}
    Dp = [
        g * (m1 * (x1d**2 + y1d**2) + m2 * (x2d**2 + y1d * y2d)) / twoK,
        g * m2 * x2d * (y2d - y1d) / twoK,
        g * (m2 * (x2d**2 + y2d**2) + m1 * (x1d**2 + y1d * y2d)) / twoK,
        g * m1 * x1d * (y1d - y2d) / twoK,
    ]
    for a, d in zip(Y.qddot, Dp):
        assert_same(acc[a].xreplace(incl), d.xreplace(cs.g), f"inclined plane {a}")


def test_001_parallel_9_4_first_method_9_17_9_18(parallel):
    """(9.17) with ẋ1 = ρ cos θ, ẏ1 = ρ sin θ, ẋ2 = σ cos θ, ẏ2 = σ sin θ (9.15)."""
    Y, K, f, Q, cs, (m1, m2), F = parallel
    x1d, y1d, x2d, y2d = Y.qdot
    xdd = Y.qddot
    A1, A2, A3, A4 = F
    rho, sig, th = sp.symbols("rho sigma theta")
    psi = {x1d: rho * sp.cos(th), y1d: rho * sp.sin(th), x2d: sig * sp.cos(th), y2d: sig * sp.sin(th)}
    c, s = sp.cos(th), sp.sin(th)
    rhod = (A1 * c + A2 * s) / m1
    sigd = (A3 * c + A4 * s) / m2
    thd = (rho * (A2 * c - A1 * s) + sig * (A4 * c - A3 * s)) / (m1 * rho**2 + m2 * sig**2)
    # q̈ = d/dt ψ(z) = ψ_z ż
    expected = [rhod * c - rho * s * thd, rhod * s + rho * c * thd, sigd * c - sig * s * thd, sigd * s + sig * c * thd]
    acc = cs.accelerations()
    for a, e in zip(xdd, expected):
        assert_same(on_psi(acc[a], psi), e, f"(9.17) {a}")
    # (9.18): inclined plane ρ̇ = σ̇ = g cos θ, θ̇ = −g sin θ (m1ρ + m2σ)/(m1ρ² + m2σ²)
    g = sp.Symbol("g", positive=True)
    incl = {A1: m1 * g, A3: m2 * g, A2: 0, A4: 0}
    assert_same(rhod.xreplace(incl), g * c)
    assert_same(sigd.xreplace(incl), g * c)
    assert_same(thd.xreplace(incl), -g * s * (m1 * rho + m2 * sig) / (m1 * rho**2 + m2 * sig**2))
