"""[Stolařová 2009, §2] and Examples 1–3, through Krupková's constrained system.

Every quantity is derived by jetgeo and checked against an independent truth:

* the printed value, where the paper is right;
* Lagrange multipliers under Chetaev's condition, solved directly with sympy in this
  file from L and f alone:  E_σ + λ_i ∂f^i/∂q̇^σ = 0  (E_σ = ∂L/∂q^σ − d/dt ∂L/∂q̇^σ + A_σ)
  together with d/dt f^i = 0, on Q;
* Krupková's formulas (9)–(10) (``krupkova_coefficients``) and the definition (7)
  evaluated with exterior calculus (``reduced_equations(route="forms")``).

Where the paper prints something wrong the test asserts the printed formula is
wrong and says why (the list is repeated in theory/constraints.md).
"""

from __future__ import annotations

import pytest
import sympy as sp

from jetgeo import ConstraintSubmanifold, FibredManifold, LagrangianSystem
from jetgeo.errors import BranchError
from jetgeo.geometry.zero import is_zero
from jetgeo.testing import vanishes_on_points

# --------------------------------------------------------------------------------------------
# independent method: Lagrange multipliers with Chetaev's condition, solved with sympy here
# --------------------------------------------------------------------------------------------


def _ddt(expr, t, q, qd, qdd):
    """Total derivative d/dt = ∂_t + q̇ ∂_q + q̈ ∂_q̇, written out (not jetgeo's operator)."""
    out = sp.diff(expr, t)
    for a, b, c in zip(q, qd, qdd):
        out += b * sp.diff(expr, a) + c * sp.diff(expr, b)
    return out


def chetaev_multipliers(Y, L, fs, on_Q, forces=None):
    """Solve E_σ + λ_i ∂f^i/∂q̇^σ = 0, d/dt f^i = 0 for (q̈, λ) on Q (q̇^D = on_Q[q̇^D])."""
    t, q, qd, qdd = Y.t, list(Y.q), list(Y.qdot), list(Y.qddot)
    forces = forces or [0] * len(q)
    lam = sp.symbols(f"lam0:{len(fs)}")
    eqs = []
    for s in range(len(q)):
        p = sp.diff(L, qd[s])
        E = sp.diff(L, q[s]) - _ddt(p, t, q, qd, qdd) + forces[s]
        eqs.append(E + sum(lam[i] * sp.diff(f, qd[s]) for i, f in enumerate(fs)))
    eqs += [_ddt(f, t, q, qd, qdd) for f in fs]
    eqs = [e.xreplace(on_Q) for e in eqs]
    A, b = sp.linear_eq_to_matrix(eqs, qdd + list(lam))
    sol = A.LUsolve(b)
    acc = {a: sol[i] for i, a in enumerate(qdd)}
    return acc, [sol[len(qdd) + i] for i in range(len(fs))]


def assert_same(a, b, what="", points=4):
    """a ≡ b: a − b vanishes at ``points`` random points (:func:`jetgeo.testing.vanishes_on_points`:
    rational coordinates, angles on the rational unit circle so that trigonometric identities hold
    exactly; exact, else to 40 digits).  A non-zero function vanishes there with negligible probability."""
    v = vanishes_on_points(sp.sympify(a) - sp.sympify(b), trials=points)
    assert v.zero, f"{what}: {a} != {b} (a - b = {v.value} at {v.point})"


def assert_matches_multipliers(cs, Y, L, fs, on_Q, forces=None):
    acc_ref, lam_ref = chetaev_multipliers(Y, L, fs, on_Q, forces)
    acc = cs.accelerations()
    assert set(acc) == set(Y.qddot)
    for a in Y.qddot:
        assert_same(acc[a], acc_ref[a], str(a))
    for lam, ref in zip(cs.multipliers(), lam_ref):
        assert_same(lam, ref, "multiplier")


# --------------------------------------------------------------------------------------------
# Example 1:  f = ż − x y ẋ = 0, L = ½(ẋ² + ẏ² + ż²)   [Stolařová 2009, eq. (13)]
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ex1():
    Y = FibredManifold(["x", "y", "z"])
    x, y, z = Y.q
    xd, yd, zd = Y.qdot
    L = (xd**2 + yd**2 + zd**2) / 2
    f = zd - y * x * xd
    Q = ConstraintSubmanifold(Y, [f])
    cs = LagrangianSystem(Y, L).constrain(Q)
    return Y, L, f, Q, cs


def test_004_ex1_rank_condition_3_and_normal_form_4(ex1):
    Y, L, f, Q, cs = ex1
    x, y, z = Y.q
    xd, yd, zd = Y.qdot
    assert Q.jacobian() == sp.Matrix([[-x * y, 0, 1]])  # printed (−xy 0 1): right
    assert Q.singular_states() == []  # the entry 1 never vanishes: rank 1 everywhere
    nf = Q.normal_form()
    assert nf.dependent == (zd,) and nf.independent == (xd, yd)
    assert_same(nf.g[zd], x * y * xd, "g")  # printed g = x y ẋ
    assert nf.condition == 1


def test_004_ex1_chaplygin_5(ex1):
    Y, L, f, Q, cs = ex1
    c = Q.classify()
    # (5): ż = b(x, y) ẋ with b free of the dependent coordinate z — and not integrable
    # (ω = dz − x y dx, dω = −x dy∧dx, ω∧dω = x dz∧dy∧dx ≠ 0).
    assert c.kind == "chaplygin" and c.affine and c.homogeneous and c.integrable is False


def test_004_ex1_Lbar_11(ex1):
    Y, L, f, Q, cs = ex1
    x, y, z = Y.q
    xd, yd, zd = Y.qdot
    assert_same(L.xreplace(cs.g), (xd**2 + yd**2 + (x * y * xd) ** 2) / 2, "L̄ (11)")


def test_004_ex1_coefficients_9_10_three_routes(ex1):
    Y, L, f, Q, cs = ex1
    x, y, z = Y.q
    xd, yd, zd = Y.qdot
    A, B = cs.reduced_coefficients()
    # printed values (right)
    assert_same(A[0], -x * y**2 * xd**2 - x**2 * y * xd * yd, "A'_1")
    assert A[1] == 0
    assert B == sp.Matrix([[-1 - x**2 * y**2, 0], [0, -1]])
    # Krupková's formulas (9)–(10) (corrected, see test below) give the same
    Ak, Bk = cs.krupkova_coefficients()
    for i in range(2):
        assert_same(Ak[i], A[i], "A' via (9)")
        for j in range(2):
            assert_same(Bk[i, j], B[i, j], "B' via (10)")
    # the definition (7) with exterior calculus gives the same equations
    xdd, ydd = Y.qddot[:2]
    forms = cs.reduced_equations(route="forms")
    coords = cs.reduced_equations()
    for e1, e2, ref in zip(forms, coords, [A[0] + B[0, 0] * xdd, A[1] + B[1, 1] * ydd]):
        assert_same(e1, ref, "(7) by forms")
        assert_same(e2, ref, "(8) by coordinates")


def test_004_eq9_printed_indices_and_d_dt_are_misprints(ex1):
    """(9) as printed cannot be read literally.

    * Its label is A'_i and its first term ∂L̄/∂q^i, while (8) says the equations run
      over l = 1..m−k: read literally with i = 1 (the only constraint index of Ex. 1), the
      y-equation (l = 2) would get ∂L̄/∂q^1 = ∂L̄/∂x = x y² ẋ² ≠ 0, contradicting the
      paper's own A'_2 = 0.  The first term is ∂L̄/∂q^l (and the dummy i of the second
      term must be a summation index distinct from the label).
    * d/dt in (9) must be d̄/dt (the operator without q̈ defined in §2): with the full
      d/dt, A' would contain q̈ and A' + B'q̈ would count ∂²L̄/∂q̇∂q̇ q̈ twice.
    """
    Y, L, f, Q, cs = ex1
    x, y, z = Y.q
    xd, yd, zd = Y.qdot
    xdd = Y.qddot[0]
    Lbar = L.xreplace(cs.g)
    literal_first_term_l2 = sp.diff(Lbar, x)  # ∂L̄/∂q^i with i = 1
    assert not is_zero(literal_first_term_l2)
    A, B = cs.reduced_coefficients()
    assert A[1] == 0
    # full d/dt instead of d̄/dt in the term −d/dt(∂L̄/∂ẋ): q̈ appears in A'
    full = Y.total_derivative(sp.diff(Lbar, xd)).xreplace(cs.gdot).xreplace(cs.g)
    cut = Y.cut_total_derivative(sp.diff(Lbar, xd)).xreplace(cs.g)
    assert sp.diff(full, xdd) != 0 and sp.diff(cut, xdd) == 0


def test_004_ex1_regularity_12(ex1):
    Y, L, f, Q, cs = ex1
    x, y, z = Y.q
    assert_same(cs.regularity_condition(), 1 + x**2 * y**2, "(12)")
    assert cs.is_regular()
    # (12)'s matrix is −B'
    assert cs.regularity_matrix() == -cs.reduced_coefficients()[1]


def test_004_ex1_reduced_equations_printed_miss_a_factor_xdot(ex1):
    """The printed reduced x-equation −xy(yẋ + xẏ) − (1 + x²y²)ẍ = 0 lacks a factor ẋ
    in its first term: A'_1 printed just above is −xy²ẋ² − x²yẋẏ = −xyẋ(yẋ + xẏ)."""
    Y, L, f, Q, cs = ex1
    x, y, z = Y.q
    xd, yd, zd = Y.qdot
    xdd = Y.qddot[0]
    derived = cs.reduced_equations()[0]
    assert_same(derived, -x * y * xd * (y * xd + x * yd) - (1 + x**2 * y**2) * xdd, "reduced eq")
    printed = -x * y * (y * xd + x * yd) - (1 + x**2 * y**2) * xdd
    assert not is_zero(derived - printed)


def test_004_ex1_normal_form_of_the_equations_and_multipliers(ex1):
    Y, L, f, Q, cs = ex1
    x, y, z = Y.q
    xd, yd, zd = Y.qdot
    xdd, ydd, zdd = Y.qddot
    acc = cs.accelerations()
    # printed normal form (right)
    assert_same(acc[xdd], -(x * y**2 * xd**2) / (1 + x**2 * y**2) - x**2 * y * xd * yd / (1 + x**2 * y**2))
    assert acc[ydd] == 0
    assert_matches_multipliers(cs, Y, L, [f], {zd: x * y * xd})


# --------------------------------------------------------------------------------------------
# Example 2:  f = ẋ² + ẏ² − a²ż² = 0, L = ½m(ẋ² + ẏ² + ż²) − mGz   [Stolařová 2009, eq. (14)]
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ex2():
    Y = FibredManifold(["x", "y", "z"])
    x, y, z = Y.q
    xd, yd, zd = Y.qdot
    a, m, G = sp.symbols("a m G", positive=True)
    L = m * (xd**2 + yd**2 + zd**2) / 2 - m * G * z
    f = xd**2 + yd**2 - a**2 * zd**2
    Q = ConstraintSubmanifold(Y, [f])
    Qp = ConstraintSubmanifold(Y, [f], branch=0)
    cs = LagrangianSystem(Y, L).constrain(Qp)
    return Y, L, f, Q, cs, (a, m, G)


def test_004_ex2_rank_condition_3_and_singular_states(ex2):
    """Printed (2ẋ, −2ẏ, −2a²ż): the sign of the middle entry is a misprint (∂f/∂ẏ = 2ẏ)."""
    Y, L, f, Q, cs, (a, m, G) = ex2
    xd, yd, zd = Y.qdot
    assert Q.jacobian() == sp.Matrix([[2 * xd, 2 * yd, -2 * a**2 * zd]])
    # the rank drops exactly on the zero section ẋ = ẏ = ż = 0 [Benenti 2007, Remark 7.5]
    sol = sp.solve(Q.singular_states(), [xd, yd, zd], dict=True)
    assert sol == [{xd: 0, yd: 0, zd: 0}]


def test_004_ex2_two_branches_4_and_the_choice(ex2):
    Y, L, f, Q, cs, (a, m, G) = ex2
    x, y, z = Y.q
    xd, yd, zd = Y.qdot
    r = sp.sqrt(xd**2 + yd**2)
    brs = Q.branches()
    assert len(brs) == 2
    assert_same(brs[0].solution[zd], r / a)  # Q_+ (ż > 0 since a > 0)
    assert_same(brs[1].solution[zd], -r / a)
    with pytest.raises(BranchError, match="2 branches"):
        Q.normal_form()
    with pytest.raises(BranchError):
        Q.normal_form(branch=2)
    pt = {a: 2, x: 0, y: 0, z: 0, xd: 3, yd: 4}
    assert Q.branch_of({**pt, zd: sp.Rational(5, 2)}) == 0
    assert Q.branch_of({**pt, zd: -sp.Rational(5, 2)}) == 1
    assert Q.classify().kind == "nonlinear"  # both branches
    assert cs.nf.g == {zd: brs[0].solution[zd]}


def test_004_ex2_Lbar_and_coefficients_9_10(ex2):
    Y, L, f, Q, cs, (a, m, G) = ex2
    x, y, z = Y.q
    xd, yd, zd = Y.qdot
    r2 = xd**2 + yd**2
    r = sp.sqrt(r2)
    assert_same(L.xreplace(cs.g), m * (r2 + (r / a) ** 2) / 2 - m * G * z, "L̄")
    A, B = cs.reduced_coefficients()
    printed_A = [-m * G * xd / (a * r), -m * G * yd / (a * r)]
    printed_B = sp.Matrix(
        [
            [m * (-1 - 1 / a**2 + yd**2 / (a**2 * r2)), -m * xd * yd / (a**2 * r2)],
            [-m * xd * yd / (a**2 * r2), m * (-1 - 1 / a**2 + xd**2 / (a**2 * r2))],
        ]
    )
    Ak, Bk = cs.krupkova_coefficients()
    for i in range(2):
        assert_same(A[i], printed_A[i], "A'")
        assert_same(Ak[i], printed_A[i], "A' via (9)")
        for j in range(2):
            assert_same(B[i, j], printed_B[i, j], "B'")
            assert_same(Bk[i, j], printed_B[i, j], "B' via (10)")
    for e1, e2 in zip(cs.reduced_equations(route="forms"), cs.reduced_equations()):
        assert_same(e1, e2, "(7) by forms vs (8)")


def test_004_ex2_regularity_12_printed_value_is_wrong(ex2):
    """(12) is det(−B') = m²(1 + 1/a²) = m²(a² + 1)/a², a non-zero constant.

    The paper's matrix has the second row (B'_22, B'_12)/m instead of (B'_21, B'_22)/m and
    its value 1 + 2/a² + 1/a⁴ + (ẋ² − ẏ²)/(a²(ẋ² + ẏ²)) − 1/a⁴ even depends on the
    velocities: wrong (the conclusion "regular" is right)."""
    Y, L, f, Q, cs, (a, m, G) = ex2
    xd, yd, zd = Y.qdot
    r2 = xd**2 + yd**2
    det = cs.regularity_condition()
    assert_same(det, m**2 * (a**2 + 1) / a**2, "(12)")
    # independent: the 2×2 determinant written out from the printed (right) B'
    b11 = 1 + xd**2 / (a**2 * r2)
    b22 = 1 + yd**2 / (a**2 * r2)
    b12 = xd * yd / (a**2 * r2)
    assert_same(m**2 * (b11 * b22 - b12**2), det)
    printed = 1 + 2 / a**2 + 1 / a**4 + (xd**2 - yd**2) / (a**2 * r2) - r2 / (a**4 * r2)
    assert not is_zero(printed - det / m**2)


def test_004_ex2_printed_normal_form_is_wrong_derived_one_checked(ex2):
    """Derived: ẍ = −aGẋ/((a²+1)√(ẋ²+ẏ²)), ÿ likewise, z̈ = −G/(a²+1).

    Printed: ẍ = a³G ẋ/((a²+1)(2−a²)√(ẋ²+ẏ²)), ÿ = −aG(1+a²)√(ẋ²+ẏ²)/((2−a²)ẏ) —
    these do not even satisfy the paper's own (right) reduced equations."""
    Y, L, f, Q, cs, (a, m, G) = ex2
    x, y, z = Y.q
    xd, yd, zd = Y.qdot
    xdd, ydd, zdd = Y.qddot
    r = sp.sqrt(xd**2 + yd**2)
    acc = cs.accelerations()
    assert_same(acc[xdd], -a * G * xd / ((a**2 + 1) * r), "ẍ")
    assert_same(acc[ydd], -a * G * yd / ((a**2 + 1) * r), "ÿ")
    assert_same(acc[zdd], -G / (a**2 + 1), "z̈")
    printed = {xdd: a**3 * G * xd / ((a**2 + 1) * (2 - a**2) * r), ydd: -a * G * (1 + a**2) * r / ((2 - a**2) * yd)}
    residual = [e.xreplace(printed) for e in cs.reduced_equations()]
    assert not all(is_zero(e) for e in residual)
    assert_matches_multipliers(cs, Y, L, [f], {zd: r / a})


def test_004_ex2_other_branch_zdot_negative(ex2):
    """Branch ż = −√(ẋ²+ẏ²)/a: the sign of ẍ, ÿ flips, z̈ = −G/(a²+1) again."""
    Y, L, f, Q, cs, (a, m, G) = ex2
    xd, yd, zd = Y.qdot
    xdd, ydd, zdd = Y.qddot
    r = sp.sqrt(xd**2 + yd**2)
    cs1 = LagrangianSystem(Y, L).constrain(ConstraintSubmanifold(Y, [f], branch=1))
    acc = cs1.accelerations()
    assert_same(acc[xdd], a * G * xd / ((a**2 + 1) * r), "ẍ")
    assert_same(acc[zdd], -G / (a**2 + 1), "z̈")
    assert_matches_multipliers(cs1, Y, L, [f], {zd: -r / a})


# --------------------------------------------------------------------------------------------
# Example 3 (pursuit, time-dependent):  f = ẏ(x − k1 t) − ẋ(y − k2 t + ½Gt²)   [Stolařová 2009, eq. (17)]
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ex3():
    Y = FibredManifold(["x", "y"])
    t = Y.t
    x, y = Y.q
    xd, yd = Y.qdot
    m, G = sp.symbols("m G", positive=True)
    k1, k2 = sp.symbols("k1 k2")
    L = m * (xd**2 + yd**2) / 2 - m * G * y
    u = x - k1 * t  # x − ξ(t)
    w = y - k2 * t + G * t**2 / 2  # y − η(t)
    f = yd * u - xd * w
    Q = ConstraintSubmanifold(Y, [f])
    cs = LagrangianSystem(Y, L).constrain(Q)
    return Y, L, f, Q, cs, (m, G, k1, k2, u, w)


def test_004_ex3_rank_condition_and_singular_states(ex3):
    """Printed (y − k2t + ½Gt², x − k1t): the first entry lacks its minus sign; and the rank
    drops only where BOTH vanish, x = k1 t and y = k2 t − ½Gt² (the two particles meet) —
    the printed "x ≠ k2t − ½Gt², y ≠ k1t" swaps x and y."""
    Y, L, f, Q, cs, (m, G, k1, k2, u, w) = ex3
    xd, yd = Y.qdot
    assert Q.jacobian() == sp.Matrix([[-w, u]])
    ss = Q.singular_states()
    t = Y.t
    x, y = Y.q
    sol = sp.solve(ss, [x, y], dict=True)
    assert sol == [{x: k1 * t, y: k2 * t - G * t**2 / 2}]


def test_004_ex3_normal_form_printed_upside_down(ex3):
    """Derived ẏ = ẋ (y − k2t + ½Gt²)/(x − k1t); the printed g = ẋ(x − k1t)/(y − k2t + ½Gt²)
    is the reciprocal ratio and does not satisfy (17)."""
    Y, L, f, Q, cs, (m, G, k1, k2, u, w) = ex3
    xd, yd = Y.qdot
    nf = Q.normal_form()
    assert nf.dependent == (yd,)
    assert_same(nf.g[yd], xd * w / u, "g")
    assert not is_zero(f.xreplace({yd: xd * u / w}))
    c = Q.classify()
    # linear homogeneous but b = w/u depends on the dependent coordinate y (not (5)) and on t:
    # ω = dy − (w/u) dx, ω∧dω = −∂_t(w/u) dy∧dt∧dx ≠ 0 → not integrable
    assert c.kind == "affine" and c.homogeneous and not c.scleronomic and c.integrable is False


def test_004_ex3_coefficients_A_B_and_printed_misprints(ex3):
    """B'_11 printed right up to k1 ↔ k2; A'_1 printed has k1 ↔ k2 swapped throughout and its
    third term −m k2 (y−…)²/(x−…)³ lacks a factor ẋ (derived: −m k1 ẋ w²/u³).  The printed
    A'_1 also keeps ẏ; on Q (ẏ = ẋ w/u) its last two terms cancel."""
    Y, L, f, Q, cs, (m, G, k1, k2, u, w) = ex3
    t = Y.t
    xd, yd = Y.qdot
    A, B = cs.reduced_coefficients()
    Ak, Bk = cs.krupkova_coefficients()
    # hand derivation: h = w/u, ḣ = (k1 w − (k2 − G t) u)/u² on Q, A' = −m h (G + ẋ ḣ)
    h = w / u
    hdot = (k1 * w - (k2 - G * t) * u) / u**2
    assert_same(A[0], -m * h * (G + xd * hdot), "A' derived")
    assert_same(Ak[0], A[0], "A' via (9)")
    assert_same(B[0, 0], -m * (1 + w**2 / u**2), "B'")
    assert_same(Bk[0, 0], B[0, 0], "B' via (10)")
    # printed A'_1, transcribed as printed (uses k1 where k2 belongs and vice versa):
    wp = Y.q[1] - t * (k1 - G * t / 2)
    up = Y.q[0] - k2 * t
    printed = (
        -m * G * wp / up
        - m * xd * wp * (G * t - k1) / up**2
        - m * k2 * wp**2 / up**3
        - m * xd * yd * wp / up**2
        + m * xd**2 * wp**2 / up**3
    )
    swap = {k1: k2, k2: k1}
    printed_fixed = printed.xreplace(swap).xreplace(cs.g)
    assert not is_zero(printed_fixed - A[0])
    # …and it becomes right once the third term gets its factor ẋ
    repaired = printed_fixed - (-m * k1 * w**2 / u**3) + (-m * k1 * xd * w**2 / u**3)
    assert_same(repaired, A[0], "A' repaired")
    # B'_11 printed (with the swap) is right
    Bp = -m * (1 + wp**2 / up**2)
    assert_same(Bp.xreplace(swap), B[0, 0])
    for e1, e2 in zip(cs.reduced_equations(route="forms"), cs.reduced_equations()):
        assert_same(e1, e2, "(7) by forms vs (8)")


def test_004_ex3_regularity_12_and_normal_form(ex3):
    """(12) = det(−B') = m(u² + w²)/u² (printed with the opposite sign: the paper writes
    det B' for this 1×1 case — harmless for ≠ 0).  The printed normal form for ẍ carries
    spurious factors m (m cancels), k1 ↔ k2 swapped, and its k-term has the wrong sign
    and lacks 1/(x − k1 t); derived:
    ẍ = (−G w u + ẋ w (k2 − G t) − k1 ẋ w²/u)/(u² + w²)."""
    Y, L, f, Q, cs, (m, G, k1, k2, u, w) = ex3
    t = Y.t
    x, y = Y.q
    xd, yd = Y.qdot
    xdd, ydd = Y.qddot
    assert_same(cs.regularity_condition(), m * (u**2 + w**2) / u**2, "(12)")
    acc = cs.accelerations()
    derived = (-G * w * u + xd * w * (k2 - G * t) - k1 * xd * w**2 / u) / (u**2 + w**2)
    assert_same(acc[xdd], derived, "ẍ")
    wp = y - t * (k1 - G * t / 2)
    up = x - k2 * t
    printed = (
        m * k2 * xd * wp**2 / (wp**2 + up**2)
        - m * xd * wp * (G * t - k1) / (wp**2 + up**2)
        - m * G * wp * up / (wp**2 + up**2)
    ).xreplace({k1: k2, k2: k1, m: 1})
    assert not is_zero(printed - derived)
    assert_matches_multipliers(cs, Y, L, [f], {yd: xd * w / u})
