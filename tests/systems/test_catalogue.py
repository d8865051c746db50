"""The systems catalogue: every entry loads, is well posed, and its dynamics stays on Q.

Independent truths used here: the papers' worked results (equation numbers in the
test names), hand derivations by Gibbs–Appell written out in the tests, and
consistency between two descriptions of the same system (linear vs nonlinear form,
Q₆ vs Q₅ for the co-axial discs, the n-trailer with n = 0 vs the skate).
"""

from __future__ import annotations

from functools import lru_cache

import pytest
import sympy as sp

from jetgeo import systems
from jetgeo.errors import InputError
from jetgeo.geometry import generic_rank, zero_test
from jetgeo.mechanics import Motion
from jetgeo.systems import CatalogueEntry, catalogue
from jetgeo.testing import check_agree, check_energy_conserved, check_tangent

NAMES = systems.names()


@lru_cache(None)
def entry(name: str, **kw) -> CatalogueEntry:
    return systems.load(name, **kw)


@lru_cache(None)
def cs(name: str):
    return entry(name).constrained()


def expected(e: CatalogueEntry, acc: dict, psi_map: dict | None = None) -> Motion:
    """A hand-derived result as a Motion (in jets on Q, or in parameters z with q̇ = ψ)."""
    return Motion("hand", e.system, e.Q, acc, tuple(), substitution=psi_map or {})


# --- the catalogue API --------------------------------------------------------------------------


def test_names_sorted_and_complete():
    assert NAMES == sorted(NAMES)
    for required in ("skate", "vertical_disc", "coaxial_discs", "parallel_velocities",
                     "parallel_velocities_inclined", "parallel_velocities_inclined_equal", "two_wheels_axle",
                     "rolling_disc", "rolling_ball", "stolarova_example1", "stolarova_example2",
                     "stolarova_example3", "appell_machine", "benenti_problem", "n_trailer"):
        assert required in NAMES
    assert set(systems.describe()) == set(systems.names(heavy=True))
    assert set(NAMES) < set(systems.names(heavy=True))  # heavy entries (the bicycle) only on request


def test_unknown_name_lists_the_valid_names():
    with pytest.raises(InputError) as exc:
        systems.load("no_such_system")
    for n in NAMES:
        assert n in str(exc.value)


def test_unknown_argument_and_bad_option():
    with pytest.raises(InputError, match="unknown argument"):
        systems.load("skate", mass=3)
    with pytest.raises(InputError, match="form"):
        systems.load("two_wheels_axle", form="cubic")
    with pytest.raises(InputError, match="n must be"):
        systems.load("n_trailer", n=-1)


def test_unpacking_and_parameter_values():
    sys_, Q = systems.load("skate")
    e = systems.load("skate", m=1)
    m = sp.Symbol("m", positive=True)
    assert m in sys_.L.free_symbols and m not in e.system.L.free_symbols
    assert [p.name for p in e.parameters] == ["I"]
    assert all(p.is_positive for p in entry("skate").parameters)
    s2, Q2 = e
    assert s2 is e.system and Q2 is e.Q
    assert "skate" in str(e) and "theta" in str(e) and e._repr_latex_().startswith("$")


def test_generic_forces_option():
    e = systems.load("skate", forces="generic")
    A = sp.symbols("A1:4")
    assert list(e.system.forces) == list(A)
    assert set(A) <= set(e.parameters) and set(A) <= set(e.params)
    with pytest.raises(InputError):
        systems.load("skate", forces=[1, 2])


# --- every entry: well posed, consistent data -----------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_entry_is_well_posed(name):
    e = entry(name)
    Q = e.Q
    assert generic_rank(Q.jacobian()).rank == Q.k  # full rank [Stolařová 2009, eq. (3)]
    assert e.system.is_regular()
    assert e.reference.startswith("[") and e.description
    # the sample initial state lies on Q (on its branch) for the sample parameters
    point = {**e.params, **e.initial}
    assert set(e.initial) == {e.Y.t, *e.Y.q, *e.Y.qdot}
    for f in Q.f:
        assert abs(sp.N(f.xreplace(point), 30)) < 1e-20, (name, f)
    num = e.numeric()
    assert all(isinstance(v, float) for v in num.values())


@pytest.mark.parametrize("name", NAMES)
def test_psi_parametrises_Q(name):
    """f(t, q, ψ(t, q, z)) ≡ 0 and rank ∂ψ/∂z = dim z = m − k [Benenti 2007, eqs. (2.1), (2.3)]."""
    e = entry(name)
    assert e.psi is not None and len(e.psi) == e.Y.m
    assert len(e.z) == e.Y.m - e.Q.k
    pm = dict(zip(e.Y.qdot, e.psi))
    for f in e.Q.f:
        assert zero_test(f.xreplace(pm)).zero, (name, f)
    J = sp.Matrix(e.Y.m, len(e.z), lambda i, a: sp.diff(e.psi[i], e.z[a]))
    assert generic_rank(J).rank == len(e.z)
    # ψ lands on the entry's branch: the normal form reproduces the dependent components
    nf = e.Q.normal_form()
    for d, g in nf.g.items():
        assert zero_test(g.xreplace(pm) - pm[d]).zero, (name, d)


@pytest.mark.parametrize("name", NAMES)
def test_dynamics_tangent_to_Q(name):
    """d/dt f^i = 0 on Q along sys.constrain(Q).accelerations() (the dynamics is a vector field on Q)."""
    rep = check_tangent(cs(name))
    assert rep.passed and len(rep.details) == entry(name).Q.k


@pytest.mark.parametrize("name", [n for n in NAMES if n not in ("parallel_velocities", "stolarova_example3",
                                                                 "ball_on_turntable")])
def test_energy_conserved(name):
    """Autonomous, conservative, homogeneous constraints: E = T + V is a first integral (the turntable does
    work on the ball: its constraints are affine, not homogeneous, in the velocities)."""
    assert check_energy_conserved(cs(name)).passed


def test_energy_check_refuses_forces_and_time_dependence():
    with pytest.raises(InputError, match="non-potential"):
        check_energy_conserved(cs("parallel_velocities"))
    with pytest.raises(InputError, match="rheonomic"):
        check_energy_conserved(cs("stolarova_example3"))


# --- hand derivations and the papers' results ------------------------------------------------------------


def test_skate_911_free_motion():
    """[Benenti 2007, §9.1], no forces: v = ẋ cos θ + ẏ sin θ and θ̇ are constant, so ẍ = −vθ̇ sin θ, ÿ = vθ̇ cos θ."""
    e = entry("skate")
    x, y, th = e.Y.q
    xd, yd, thd = e.Y.qdot
    xdd, ydd, thdd = e.Y.qddot
    v = xd * sp.cos(th) + yd * sp.sin(th)
    assert check_agree(cs("skate"), expected(e, {xdd: -v * thd * sp.sin(th), ydd: v * thd * sp.cos(th), thdd: 0}))


def test_skate_kinetic_energy_misprint_911():
    """[Benenti 2007, §9.1] prints K = ½m(ẋ² + ẏ²) + ½Iθ̇ (no square); a kinetic energy is quadratic in θ̇."""
    e = entry("skate")
    thd = e.Y.qdot[2]
    I = sp.Symbol("I", positive=True)
    assert sp.diff(e.system.kinetic_energy, thd, 2) == I  # ½Iθ̇², not ½Iθ̇


def test_vertical_disc_92():
    """[Benenti 2007, §9.2]: Gibbs–Appell gives (A + mR²)θ̈ = 0, Bψ̈ = 0; then ẍ = −R sin ψ ψ̇θ̇, ÿ = R cos ψ ψ̇θ̇."""
    e = entry("vertical_disc")
    x, y, th, ps = e.Y.q
    xd, yd, thd, psd = e.Y.qdot
    xdd, ydd, thdd, psdd = e.Y.qddot
    R = sp.Symbol("R", positive=True)
    acc = {xdd: -R * sp.sin(ps) * psd * thd, ydd: R * sp.cos(ps) * psd * thd, thdd: 0, psdd: 0}
    assert check_agree(cs("vertical_disc"), expected(e, acc))


def test_coaxial_discs_93_metric_misprint():
    """[Benenti 2007, §9.3] prints g₁₅ = (ma/2) cos ψ; its own K = … + maψ̇(ẋ cos ψ + ẏ sin ψ) gives g₁₅ = ma cos ψ."""
    e = entry("coaxial_discs_reduced")
    g = e.system.metric()
    m, a = sp.Symbol("m", positive=True), sp.Symbol("a", positive=True)
    ps = e.Y.q[4]
    assert sp.expand(g[0, 4] - m * a * sp.cos(ps)) == 0
    assert sp.expand(g[1, 4] - m * a * sp.sin(ps)) == 0
    assert sp.expand(g[4, 4] - (m * a**2 + 2 * sp.Symbol("B", positive=True))) == 0  # printed ma² + 2B: right
    # the Q₅ kinetic energy is that of Q₆ (two discs, König) at ȧ = 0
    e6 = entry("coaxial_discs")
    T6 = e6.system.kinetic_energy.xreplace({e6.Y.qdot[5]: 0, e6.Y.q[5]: a})
    T6 = T6.xreplace({**dict(zip(e6.Y.q[:5], e.Y.q)), **dict(zip(e6.Y.qdot[:5], e.Y.qdot))})
    assert zero_test(T6 - e.system.kinetic_energy).zero


def test_coaxial_discs_93_Q6_and_Q5_agree():
    """ȧ = 0 follows from the rolling conditions (9.11); the Q₆ dynamics is the Q₅ one (9.12) with ä = 0."""
    e6, e5 = entry("coaxial_discs"), entry("coaxial_discs_reduced")
    acc6 = cs("coaxial_discs").accelerations()
    acc5 = cs("coaxial_discs_reduced").accelerations()
    a_coord = e6.Y.q[5]
    a_par = sp.Symbol("a", positive=True)
    assert zero_test(acc6[e6.Y.qddot[5]]).zero  # ä = 0
    g5 = e5.Q.normal_form().g
    rename = {**dict(zip(e6.Y.q[:5], e5.Y.q)), **dict(zip(e6.Y.qdot[:5], e5.Y.qdot)), a_coord: a_par}
    for s6, s5 in zip(e6.Y.qddot[:5], e5.Y.qddot):
        diff = acc6[s6].xreplace(rename).xreplace(g5) - acc5[s5].xreplace(g5)
        assert zero_test(diff).zero, s6


def _parallel_expected(e, A1, A2, A3, A4, m1, m2):
    """[Benenti 2007, eq. (9.17)]: ρ̇ = (A₁c + A₂s)/m₁, σ̇ = (A₃c + A₄s)/m₂,
    θ̇ = [ρ(A₂c − A₁s) + σ(A₄c − A₃s)]/(m₁ρ² + m₂σ²), and q̈ = ψ_α ż^α + ∂_θψ θ̇ ... (3.3)."""
    rho, sig, th = e.z
    c, s = sp.cos(th), sp.sin(th)
    rd = (A1 * c + A2 * s) / m1
    sd = (A3 * c + A4 * s) / m2
    thd = (rho * (A2 * c - A1 * s) + sig * (A4 * c - A3 * s)) / (m1 * rho**2 + m2 * sig**2)
    zd = {rho: rd, sig: sd, th: thd}
    acc = {a: sp.Add(*[sp.diff(p, z) * zd[z] for z in e.z]) for a, p in zip(e.Y.qddot, e.psi)}
    return expected(e, acc, dict(zip(e.Y.qdot, e.psi)))


def test_parallel_velocities_917_generic_forces():
    e = entry("parallel_velocities")
    A = sp.symbols("A1:5")
    m1, m2 = sp.symbols("m1 m2", positive=True)
    assert check_agree(cs("parallel_velocities"), _parallel_expected(e, *A, m1, m2))


def test_parallel_velocities_inclined_918_919():
    """(9.18): A₁ = m₁g, A₃ = m₂g; (9.19): equal masses, θ̇ = −g sin θ (ρ + σ)/(ρ² + σ²)."""
    g = sp.Symbol("g", positive=True)
    m1, m2, m = sp.symbols("m1 m2 m", positive=True)
    e = entry("parallel_velocities_inclined")
    assert check_agree(cs("parallel_velocities_inclined"), _parallel_expected(e, m1 * g, 0, m2 * g, 0, m1, m2))
    e = entry("parallel_velocities_inclined_equal")
    assert check_agree(cs("parallel_velocities_inclined_equal"), _parallel_expected(e, m * g, 0, m * g, 0, m, m))


def test_benenti_problem_631_free_motion():
    """[Ibort et al. 1996, §6.3]: with Chetaev's forces λ = 0 and the motion is free: all accelerations vanish."""
    e = entry("benenti_problem")
    assert check_agree(cs("benenti_problem"), expected(e, {a: 0 for a in e.Y.qddot}))
    assert all(zero_test(lam).zero for lam in cs("benenti_problem").multipliers())


def test_two_wheels_axle_324():
    """[Ghori 1960, eq. (3.2.4)]: ψ̈ = φ̈ = χ̈ = 0 (S = ½Ma²(ψ̈+φ̈)² + ½I_ψψ̈² + ½I(φ̈² + χ̈²) + …, positive definite),
    hence ẍ = a(ψ̇ + φ̇)ψ̇ cos ψ, ÿ = a(ψ̇ + φ̇)ψ̇ sin ψ: G moves on a circle of radius a(ψ̇ + φ̇)/ψ̇."""
    e = entry("two_wheels_axle")
    x, y, ps, ph, ch = e.Y.q
    xd, yd, psd, phd, chd = e.Y.qdot
    xdd, ydd, psdd, phdd, chdd = e.Y.qddot
    a = sp.Symbol("a", positive=True)
    s = psd + phd
    acc = {xdd: a * s * psd * sp.cos(ps), ydd: a * s * psd * sp.sin(ps), psdd: 0, phdd: 0, chdd: 0}
    assert check_agree(cs("two_wheels_axle"), expected(e, acc))


def test_two_wheels_axle_nonlinear_form_322_same_dynamics():
    """Ghori's artificially nonlinear constraints (3.2.2), on the entry's branch (0), are the rolling constraints."""
    lin = entry("two_wheels_axle")
    nl = entry("two_wheels_axle", form="nonlinear")
    assert len(nl.Q.branches()) == 2
    g = nl.Q.normal_form().g  # on the entry's branch
    for f in lin.Q.f:  # the same submanifold: the linear constraints vanish on the branch, and the other
        assert zero_test(f.xreplace(g)).zero  # branch is the mirror image (ẋ, ẏ) → −(ẋ, ẏ)
    other = nl.Q.normal_form(branch=1 - nl.branch).g
    assert not zero_test(lin.Q.f[0].xreplace(other)).zero


def test_appell_machine_rho0_62():
    """[Ibort et al. 1996, §6.2], ρ = 0: φ̈ = −mgr/(I₁ + (M+m)R² + mr²), θ̈ = 0 (as printed)."""
    e = entry("appell_machine", rho=0)
    M, m, R, r, I1, g = sp.symbols("M m R r I1 g", positive=True)
    acc = e.constrained().accelerations()
    th_dd, ph_dd = e.Y.qddot[3], e.Y.qddot[4]
    assert zero_test(acc[th_dd]).zero
    assert zero_test(acc[ph_dd] + m * g * r / (I1 + (M + m) * R**2 + m * r**2)).zero


def test_appell_machine_629_630_misprint():
    """[Ibort et al. 1996, eqs. (6.29)–(6.30)] for ρ ≠ 0 print (I₂ + (M+m)ρ²)θ̈ + ρRmθ̇φ̇ = 0 and
    (I₁ + (m+M)R² + mr²)φ̈ − MRρθ̇² = −mrg.  Gibbs–Appell by hand with the paper's Lagrangian:
    v_m = Rφ̇ e + ρθ̇ n (e = (cos θ, sin θ), n = e⊥), a_m = (Rφ̈ − ρθ̇²) e + (Rφ̇θ̇ + ρθ̈) n, z̈ = rφ̈, the wheel's
    centre above the contact point: S = ½m|a_m|² + ½mr²φ̈² + ½MR²φ̈² + ½I₁φ̈² + ½I₂θ̈² + …, so
    (I₂ + mρ²)θ̈ + mρRθ̇φ̇ = 0 and (I₁ + (M+m)R² + mr²)φ̈ − mRρθ̇² = −mgr: M must not multiply ρ."""
    e = entry("appell_machine")
    M, m, R, r, I1, I2, g, rho = sp.symbols("M m R r I1 I2 g rho", positive=True)
    thd, phd = e.Y.qdot[3], e.Y.qdot[4]
    acc = cs("appell_machine").accelerations()
    th_dd, ph_dd = e.Y.qddot[3], e.Y.qddot[4]
    ours_th = -m * rho * R * thd * phd / (I2 + m * rho**2)
    ours_ph = (m * R * rho * thd**2 - m * g * r) / (I1 + (M + m) * R**2 + m * r**2)
    assert zero_test(acc[th_dd] - ours_th).zero
    assert zero_test(acc[ph_dd] - ours_ph).zero
    printed_th = -rho * R * m * thd * phd / (I2 + (M + m) * rho**2)
    assert not zero_test(acc[th_dd] - printed_th).zero


def test_stolarova_example1_normal_form():
    """[Stolařová 2009, Example 1]: ẍ = −(xy²ẋ² + x²yẋẏ)/(1 + x²y²), ÿ = 0 (as printed)."""
    e = entry("stolarova_example1")
    x, y, _ = e.Y.q
    xd, yd, _ = e.Y.qdot
    acc = cs("stolarova_example1").accelerations()
    assert zero_test(acc[e.Y.qddot[0]] + (x * y**2 * xd**2 + x**2 * y * xd * yd) / (1 + x**2 * y**2)).zero
    assert acc[e.Y.qddot[1]] == 0


def test_stolarova_example2_normal_form_misprint():
    """[Stolařová 2009, Example 2] prints ẍ = a³G/((a²+1)(2−a²)) ẋ/s and ÿ = −aG(1+a²)/(2−a²) s/ẏ (s = √(ẋ²+ẏ²)):
    not symmetric under x ↔ y although the problem is.  By hand: multiply the reduced equations by ẋ, ẏ and
    add: (1 + 1/a²)(ẋẍ + ẏÿ) = −Gs/a; then ẍ = −aGẋ/((1+a²)s), ÿ = −aGẏ/((1+a²)s)."""
    e = entry("stolarova_example2")
    xd, yd, _ = e.Y.qdot
    a, G = sp.symbols("a G", positive=True)
    s = sp.sqrt(xd**2 + yd**2)
    acc = cs("stolarova_example2").accelerations()
    assert zero_test(acc[e.Y.qddot[0]] + a * G * xd / ((1 + a**2) * s)).zero
    assert zero_test(acc[e.Y.qddot[1]] + a * G * yd / ((1 + a**2) * s)).zero
    printed = a**3 * G / ((a**2 + 1) * (2 - a**2)) * xd / s
    assert not zero_test(acc[e.Y.qddot[0]] - printed).zero


def test_stolarova_example3_normal_form_misprint():
    """[Stolařová 2009, Example 3] prints g = ẋ(x − k₁t)/(y − k₂t + Gt²/2); solving (17) for ẏ gives the reciprocal
    factor."""
    e = entry("stolarova_example3")
    t = e.Y.t
    x, y = e.Y.q
    xd, yd = e.Y.qdot
    k1, k2 = sp.symbols("k1 k2", real=True)
    G = sp.Symbol("G", positive=True)
    g = e.Q.normal_form().g[yd]
    assert zero_test(g - xd * (y - k2 * t + G * t**2 / 2) / (x - k1 * t)).zero
    assert not zero_test(g - xd * (x - k1 * t) / (y - k2 * t + G * t**2 / 2)).zero


def test_rolling_disc_upright_rolling_is_a_motion():
    """[Ghori 1960, §3.3]: the disc rolling upright (θ = π/2) straight (ψ̇ = 0, θ̇ = 0) at constant spin: all q̈ = 0."""
    e = entry("rolling_disc")
    x, y, th, ps, ph = e.Y.q
    xd, yd, thd, psd, phd = e.Y.qdot
    acc = cs("rolling_disc").accelerations()
    for a in e.Y.qddot:
        val = acc[a].xreplace({th: sp.pi / 2, thd: 0, psd: 0})
        assert zero_test(val).zero, a


def test_rolling_disc_steady_precession():
    """Steady motion of a rolling disc (θ, ψ̇, φ̇ constant) needs θ̈ = 0 and ψ̈ = φ̈ = 0: ψ̈ and φ̈ vanish
    identically at θ̇ = 0 (the ψ- and φ-equations are multiplied by θ̇: [Ghori 1960, eqs. (3.3.16)–(3.3.17)] are
    first order in
    the invariants), and θ̈ = 0 is one algebraic condition on (θ, ψ̇, φ̇)."""
    e = entry("rolling_disc")
    thd = e.Y.qdot[2]
    acc = cs("rolling_disc").accelerations()
    assert zero_test(acc[e.Y.qddot[3]].xreplace({thd: 0})).zero
    assert zero_test(acc[e.Y.qddot[4]].xreplace({thd: 0})).zero
    assert not zero_test(acc[e.Y.qddot[2]].xreplace({thd: 0})).zero


def test_n_trailer_with_no_trailer_is_the_skate():
    e0 = entry("n_trailer", n=0)
    sk = entry("skate")
    m0, J0 = sp.symbols("m0 J0", positive=True)
    m, I = sp.symbols("m I", positive=True)
    rename = {**dict(zip(e0.Y.J2.coords, sk.Y.J2.coords)), m0: m, J0: I}
    acc0 = e0.constrained().accelerations()
    g = sk.Q.normal_form().g
    acc_sk = cs("skate").accelerations()
    for a0, a in zip(e0.Y.qddot, sk.Y.qddot):
        assert zero_test(acc0[a0].xreplace(rename).xreplace(g) - acc_sk[a].xreplace(g)).zero


def test_ghori_nonlinear_form_333_contains_the_rolling_disc():
    """[Ghori 1960, eq. (3.3.4)]: the quadratic form |v_G|² = a²(r² + θ̇² sin²θ) and the linear one vanish on the rolling
    constraints (building the nonlinear Q, whose branch 0 is the rolling one, takes ~15 s: checked for the ball)."""
    from jetgeo.systems.entries import _rolling_disc

    spec = _rolling_disc(form="nonlinear")
    g = entry("rolling_disc").Q.normal_form().g
    assert spec.branch == 0 and all(zero_test(f.xreplace(g)).zero for f in spec.f)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["rolling_ball"])
def test_ghori_nonlinear_forms_342_are_the_rolling_branch(name):
    """[Ghori 1960, eq. (3.4.2)]: Ghori writes the rolling conditions with one equation quadratic in the velocities
    (|v_O|² = |ω × OI|²) and one linear; of the two branches the entry's is the rolling one: its normal form
    is that of the linear rolling constraints (the other branch mirrors the velocity across the line of nodes)."""
    nl = systems.load(name, form="nonlinear")
    g = nl.Q.normal_form().g
    gl = entry(name).Q.normal_form().g
    assert len(nl.Q.branches()) == 2
    assert all(zero_test(g[k] - gl[k]).zero for k in gl)
    other = nl.Q.normal_form(branch=1 - nl.branch).g
    assert not all(zero_test(other[k] - gl[k]).zero for k in gl)


def test_long_chain_sample_state_by_one_small_solve():
    """load("n_trailer", n=8): the dependent velocities of the sample state come from one
    9 × 9 linear solve at the point (not the nested normal form, which took 35 s); their exact
    values would be trees exponential in n, so they are given to 50 digits and the entry says
    so.  The state lies on Q and agrees with a numeric solve of f = 0.  Short chains stay exact."""
    import numpy as np

    short = systems.load("n_trailer", n=3)
    assert not any(v.atoms(sp.Float) for v in short.initial.values())
    e = systems.load("n_trailer", n=8)
    assert any("50 digits" in note for note in e.notes)
    point = {**e.params, **e.initial}
    for f in e.Q.f:
        assert abs(sp.N(f.xreplace(point), 30)) < 1e-20
    dep = list(e.Q.dependent)
    num = {k: float(sp.N(v)) for k, v in point.items() if k not in dep}
    A, b = sp.linear_eq_to_matrix([f.xreplace(num) for f in e.Q.f], dep)
    sol = np.linalg.solve(np.array(A.evalf(), dtype=float), np.array(b.evalf(), dtype=float).ravel())
    assert np.allclose([float(sp.N(e.initial[d])) for d in dep], sol, rtol=1e-12, atol=1e-12)


def test_the_sample_state_is_completed_when_first_read(call_log):
    """load() does not solve f = 0 for the sample state's dependent velocities (most uses of an entry
    never read it: 10 s of the suite's CPU went there); reading ``initial`` (or ``notes``, which carry
    the sample state's remark) completes it once, and the state lies on Q."""
    calls = call_log(catalogue, "complete_on_Q")
    e = systems.load("rolling_disc")
    assert calls == []
    state = e.initial
    assert len(calls) == 1 and e.initial is state and len(calls) == 1
    point = {**e.params, **state}
    assert all(zero_test(f.xreplace(point)).zero for f in e.Q.f)
    e2 = systems.load("two_wheels_axle")
    _ = e2.notes
    assert len(calls) == 2
