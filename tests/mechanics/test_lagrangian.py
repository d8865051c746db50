"""Lagrangian systems on J¹Y ([Stolařová 2009, §2]; [Benenti 2007, §3, §7]).

Sign convention ([Benenti 2007, eq. (3.14)]): the equations of motion read
d/dt ∂L/∂q̇^σ − ∂L/∂q^σ = A_σ and ``euler_lagrange()`` returns
E_σ = ∂L/∂q^σ − d/dt ∂L/∂q̇^σ + A_σ, so E_σ = 0 are the equations.

Independent truths: sympy.physics.mechanics.LagrangesMethod (pendulum, double pendulum,
damped particle), textbook equations (spherical pendulum, Kepler, charged particle in a magnetic
field), closed-form solutions (damped oscillator), sympy.diffgeom's Christoffel symbols,
exterior-calculus identities (Lepage property of the Cartan form, [Stolařová 2009, eq. (1)]), energy balance.
"""

import random

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sympy.physics.mechanics import LagrangesMethod, Point, ReferenceFrame, dynamicsymbols

from jetgeo import FibredManifold, Form, LagrangianSystem, VectorField
from jetgeo.errors import InputError, NotRegularError
from jetgeo.geometry import is_zero, normalise

TM = dynamicsymbols._t


def mechanics_eom(L_dyn, qs, forcelist=None, frame=None):
    """sympy's Lagrange equations d/dt ∂L/∂q̇ − ∂L/∂q − Q (its sign convention)."""
    lm = LagrangesMethod(L_dyn, qs, forcelist=forcelist, frame=frame)
    return list(lm.form_lagranges_equations())


def same(a, b) -> bool:
    return is_zero(sp.sympify(a) - sp.sympify(b))


_RNG = random.Random(20071036)


def vanishes_at_points(expr, points: int = 3) -> bool:
    """Exact evaluation at deterministic random rational points (all free symbols): a cheap
    probabilistic zero test for large rational expressions (a non-zero value disproves)."""
    expr = sp.sympify(expr)
    syms = sorted(expr.free_symbols, key=sp.default_sort_key)
    for _ in range(points):
        val = expr.xreplace({s: sp.Rational(_RNG.randint(-50, 50), _RNG.randint(1, 13)) for s in syms})
        if val.has(sp.zoo, sp.nan):
            continue
        if val.is_Rational:
            if val != 0:
                return False
        elif abs(sp.N(val, 50)) > sp.Float("1e-35", 50):
            return False
    return True


# --- against sympy.physics.mechanics ------------------------------------------------------------
def test_pendulum_vs_lagranges_method():
    Y = FibredManifold(["theta"])
    (th,), (thd,), (thdd,) = Y.q, Y.qdot, Y.qddot
    m, l, g = sp.symbols("m l g", positive=True)
    S = LagrangianSystem(Y, m * l**2 * thd**2 / 2 + m * g * l * sp.cos(th))
    ref = mechanics_eom(Y.to_dynamicsymbols(S.L), [dynamicsymbols("theta")])
    E = S.euler_lagrange()
    assert same(Y.to_dynamicsymbols(-E[0]), ref[0])
    assert same(S.accelerations()[thdd], -g / l * sp.sin(th))  # textbook θ̈ = −(g/l) sin θ
    assert S.is_regular() and same(S.hessian()[0, 0], m * l**2)


def test_double_pendulum_vs_lagranges_method():
    Y = FibredManifold(["a", "b"])
    a, b = Y.q
    m1, m2, l1, l2, g = sp.symbols("m1 m2 l1 l2 g", positive=True)
    # positions of the bobs, built independently in Cartesian coordinates
    x1, y1 = l1 * sp.sin(a), -l1 * sp.cos(a)
    x2, y2 = x1 + l2 * sp.sin(b), y1 - l2 * sp.cos(b)
    v2 = [Y.cut_total_derivative(c) ** 2 for c in (x1, y1, x2, y2)]
    T = m1 * (v2[0] + v2[1]) / 2 + m2 * (v2[2] + v2[3]) / 2
    V = m1 * g * y1 + m2 * g * y2
    S = LagrangianSystem.mechanical(Y, T, V)
    qs = [dynamicsymbols("a"), dynamicsymbols("b")]
    ref = mechanics_eom(Y.to_dynamicsymbols(S.L), qs)
    for e, r in zip(S.euler_lagrange(), ref):
        assert same(Y.to_dynamicsymbols(-e), r)
    # the metric is the textbook one: g_ab = m2 l1 l2 cos(a − b)
    gm = S.metric()
    assert same(gm[0, 0], (m1 + m2) * l1**2) and same(gm[0, 1], m2 * l1 * l2 * sp.cos(a - b))


def test_damped_particle_vs_lagranges_method_sign_of_forces():
    """A damping force enters with Newton's sign: forces=[-c*xdot] ([Benenti 2007, eq. (3.14)])."""
    Y = FibredManifold(["x"])
    (x,), (xd,), (xdd,) = Y.q, Y.qdot, Y.qddot
    m, c, k = sp.symbols("m c k", positive=True)
    S = LagrangianSystem(Y, m * xd**2 / 2 - k * x**2 / 2, forces=[-c * xd])
    X = dynamicsymbols("x")
    N = ReferenceFrame("N")
    P = Point("P")
    P.set_vel(N, X.diff(TM) * N.x)
    ref = mechanics_eom(Y.to_dynamicsymbols(S.L), [X], forcelist=[(P, -c * X.diff(TM) * N.x)], frame=N)
    assert same(Y.to_dynamicsymbols(-S.euler_lagrange()[0]), ref[0])
    assert same(S.euler_lagrange()[0], -m * xdd - c * xd - k * x)
    # closed-form solution of ẍ + ẋ + x = 0 (m = c = k = 1): e^{−t/2} cos(√3 t/2)
    t = Y.t
    gamma = Y.section([sp.exp(-t / 2) * sp.cos(sp.sqrt(3) * t / 2)])
    E1 = S.euler_lagrange()[0].xreplace({m: 1, c: 1, k: 1})
    assert same(gamma(E1), 0)
    # the same motion is *not* a solution with the opposite sign of the force
    E_wrong = LagrangianSystem(Y, S.L, forces=[c * xd]).euler_lagrange()[0].xreplace({m: 1, c: 1, k: 1})
    assert not same(gamma(E_wrong), 0)
    # forces given as a mapping
    assert LagrangianSystem(Y, S.L, forces={x: -c * xd}).euler_lagrange() == S.euler_lagrange()


def test_from_dynamicsymbols_round_trip():
    q1, q2 = dynamicsymbols("q1 q2")
    k = sp.Symbol("k")
    L_dyn = (q1.diff(TM) ** 2 + q2.diff(TM) ** 2) / 2 - k * q1 * q2
    S = LagrangianSystem.from_dynamicsymbols(L_dyn, [q1, q2], forces=[-q1.diff(TM), 0])
    assert [str(s) for s in S.Y.q] == ["q1", "q2"]
    assert all(type(s) is sp.Symbol for s in S.L.free_symbols)
    assert sp.expand(S.Y.to_dynamicsymbols(S.L) - L_dyn) == 0
    ref = mechanics_eom(L_dyn, [q1, q2])
    no_force = LagrangianSystem(S.Y, S.L)
    for e, r in zip(no_force.euler_lagrange(), ref):
        assert same(S.Y.to_dynamicsymbols(-e), r)
    assert same(S.euler_lagrange()[0], no_force.euler_lagrange()[0] - S.Y.qdot[0])


# --- textbook systems -----------------------------------------------------------------------------
def test_spherical_pendulum_textbook():
    Y = FibredManifold(["theta", "phi"])
    (th, _), (thd, phd), (thdd, phdd) = Y.q, Y.qdot, Y.qddot
    m, l, g = sp.symbols("m l g", positive=True)
    S = LagrangianSystem.mechanical(
        Y, m * l**2 / 2 * (thd**2 + sp.sin(th) ** 2 * phd**2), -m * g * l * sp.cos(th)
    )
    acc = S.accelerations()
    # θ̈ = sin θ cos θ φ̇² + (g/l) sin θ  (θ from the upward vertical: V = −mgl cos θ… here V = −m g l cos θ
    # means θ measured from the downward vertical with z = −l cos θ, V = m g z)
    assert same(acc[thdd], sp.sin(th) * sp.cos(th) * phd**2 - g / l * sp.sin(th))
    assert same(acc[phdd], -2 * sp.cos(th) / sp.sin(th) * thd * phd)
    # regular except at the poles: det g = m² l⁴ sin² θ
    assert same(S.regularity_condition(), m**2 * l**4 * sp.sin(th) ** 2)
    # p_φ = m l² sin²θ φ̇ is conserved (φ is cyclic)
    p_phi = S.momenta[1]
    assert same(Y.total_derivative(p_phi).xreplace(acc), 0)


def test_kepler_problem_textbook():
    Y = FibredManifold(["r", "phi"])
    (r, _), (rd, phd), (rdd, phdd) = Y.q, Y.qdot, Y.qddot
    m, mu = sp.symbols("m mu", positive=True)
    S = LagrangianSystem.mechanical(Y, m / 2 * (rd**2 + r**2 * phd**2), -m * mu / r)
    acc = S.accelerations()
    assert same(acc[rdd], r * phd**2 - mu / r**2)  # r̈ = r φ̇² − μ/r²
    assert same(acc[phdd], -2 * rd * phd / r)  # d/dt (r² φ̇) = 0
    assert same(Y.total_derivative(r**2 * phd).xreplace(acc), 0)
    # Laplace–Runge–Lenz check on circular orbits: φ̇² = μ/r³ gives r̈ = 0
    assert same(acc[rdd].xreplace({phd: sp.sqrt(mu / r**3)}), 0)


def test_charged_particle_in_magnetic_field():
    """L = m v²/2 + e A·v, A = B/2 (−y, x, 0): m ẍ = e B ẏ, m ÿ = −e B ẋ, z̈ = 0 (Lorentz force
    e v × B with B = B e_z), a velocity-dependent, gyroscopic, energy-conserving system."""
    Y = FibredManifold(["x", "y", "z"])
    (x, y, _), (xd, yd, zd), (xdd, ydd, zdd) = Y.q, Y.qdot, Y.qddot
    m, e, B = sp.symbols("m e B", positive=True)
    L = m / 2 * (xd**2 + yd**2 + zd**2) + e * B / 2 * (-y * xd + x * yd)
    S = LagrangianSystem(Y, L)
    acc = S.accelerations()
    assert same(acc[xdd], e * B / m * yd) and same(acc[ydd], -e * B / m * xd) and acc[zdd] == 0
    assert same(S.energy(), m / 2 * (xd**2 + yd**2 + zd**2))  # the magnetic force does no work
    assert same(S.semispray()(S.energy()), 0)
    # the free-motion functions contain the gyroscopic force ([Benenti 2007, eq. (7.3)] with A = Lorentz force)
    Lf = S.free_motion_functions()
    assert same(Lf[0], e * B * yd) and same(Lf[1], -e * B * xd)


# --- Cartan form, Lepage property, [Stolařová 2009, eq. (1)] ---------------------------------------------------
Y2 = FibredManifold(["x", "y"])
t = Y2.t
(x, y), (xd, yd), (xdd, ydd) = Y2.q, Y2.qdot, Y2.qddot


@st.composite
def polynomial(draw, symbols, max_terms=3, max_degree=2, trig=True):
    terms = []
    for _ in range(draw(st.integers(1, max_terms))):
        mono = sp.Integer(draw(st.integers(-3, 3).filter(bool)))
        for _ in range(draw(st.integers(0, max_degree))):
            mono *= draw(st.sampled_from(symbols))
        terms.append(mono)
    expr = sp.Add(*terms)
    if trig and draw(st.booleans()):
        expr += sp.cos(draw(st.sampled_from(symbols)))
    return expr


@st.composite
def lagrangian(draw):
    """A random first-order Lagrangian: quadratic in velocities with (t, q)-dependent coefficients."""
    base = [t, x, y]
    L = draw(polynomial(base))
    for v in (xd, yd):
        L += draw(polynomial(base, max_terms=2, max_degree=1)) * v
    for a, b in ((xd, xd), (xd, yd), (yd, yd)):
        L += draw(polynomial(base, max_terms=2, max_degree=1, trig=False)) * a * b
    if draw(st.booleans()):
        L += draw(st.integers(-2, 2)) * xd**3 * y  # not mechanical: velocity-dependent Hessian
    return L


@st.composite
def section_curve(draw):
    out = []
    for _ in range(2):
        c = [draw(st.integers(-3, 3)) for _ in range(3)]
        extra = draw(st.sampled_from([0, sp.sin(t), sp.exp(t)]))
        out.append(c[0] + c[1] * t + c[2] * t**2 + extra)
    return out


@settings(max_examples=12)
@given(lagrangian())
def test_cartan_form_is_a_lepage_form(L):
    """h θ_λ = λ, and the 1-contact part of dθ_λ is the Euler–Lagrange form E_σ ω^σ ∧ dt
    ([Stolařová 2009, §2]: θ_λ is the Lepage equivalent of λ, [dθ_λ] the Lagrangian system)."""
    S = LagrangianSystem(Y2, L)
    theta = S.cartan_form()
    lam = Form.function(Y2.J2, L) * Y2.J2.dx(t)
    assert Y2.horizontal(theta) == lam
    parts = Y2.decompose(theta.d())
    assert parts[0].is_zero()
    # E_σ from the coordinate formula (one method) vs. the exterior calculus (the other)
    dt = Y2.J2.dx(t)
    E = S.euler_lagrange()
    expected = sum(((Ei * w) ^ dt for Ei, w in zip(E, Y2.contact_forms_2[:2])), Form.zero(Y2.J2, 2))
    assert parts[1] == expected
    assert S.euler_lagrange_form() == expected
    # the 2-contact part is ∂p_σ/∂q^ν ω^ν∧ω^σ + ∂p_σ/∂q̇^ν ω̇^ν∧ω^σ
    w = Y2.contact_forms_2
    p = S.momenta
    two = Form.zero(Y2.J2, 2)
    for s in range(2):
        for n in range(2):
            two = two + ((sp.diff(p[s], Y2.q[n]) * w[n]) ^ w[s]) + ((sp.diff(p[s], Y2.qdot[n]) * w[2 + n]) ^ w[s])
    assert parts[2] == two


@settings(max_examples=10)
@given(lagrangian(), polynomial([t, x, y, xd, yd], trig=False))
def test_lepage_form_with_forces_gives_dynamical_form(L, A):
    S = LagrangianSystem(Y2, L, forces=[A, -A * x])
    alpha = S.lepage_form()
    parts = Y2.decompose(alpha)
    assert parts[1] == S.dynamical_form()
    assert parts[1] == S.euler_lagrange_form() + (
        ((A * Y2.contact_forms_2[0]) ^ Y2.J2.dx(t)) + ((-A * x * Y2.contact_forms_2[1]) ^ Y2.J2.dx(t))
    )
    assert (alpha - S.cartan_form().d()) == ((A * Y2.contact_forms[0]) ^ Y2.J1.dx(t)) + (
        (-A * x * Y2.contact_forms[1]) ^ Y2.J1.dx(t)
    )


@settings(max_examples=10)
@given(lagrangian(), section_curve())
def test_stolarova2009_eq1_vertical_contractions(L, curve):
    """[Stolařová 2009, eq. (1)]: J¹γ* i_ξ dθ_λ = 0 for all π₁-vertical ξ ⇔ E_σ∘J²γ = 0.

    For ξ = ∂/∂q^ν the pullback is (E_ν∘J²γ) dt; for ξ = ∂/∂q̇^ν it vanishes identically."""
    S = LagrangianSystem(Y2, L)
    dtheta = S.cartan_form().d()
    gamma = Y2.section(curve)
    E = S.euler_lagrange()
    for nu in range(2):
        got = gamma.pullback(dtheta.interior(Y2.J1.partial(Y2.q[nu])))
        assert got == gamma(E[nu]) * Y2.X.dx(t)
        assert gamma.pullback(dtheta.interior(Y2.J1.partial(Y2.qdot[nu]))).is_zero()


def test_stolarova2009_eq1_on_a_solution():
    """Harmonic oscillator: J¹γ* i_ξ dθ_λ vanishes exactly along the solutions."""
    Y = FibredManifold(["x"])
    (q,), (qd,), _ = Y.q, Y.qdot, Y.qddot
    w = sp.Symbol("w", positive=True)
    S = LagrangianSystem(Y, qd**2 / 2 - w**2 * q**2 / 2)
    xi = Y.J1.partial(q)
    iota = S.cartan_form().d().interior(xi)
    assert Y.section([sp.cos(w * Y.t) + 3 * sp.sin(w * Y.t)]).pullback(iota).is_zero()
    assert not Y.section([sp.cos(2 * w * Y.t)]).pullback(iota).is_zero()


@settings(max_examples=25)
@given(polynomial([t, x, y]))
def test_total_derivative_lagrangian_is_null(f):
    """L = d̄f(t, q) (= df/dt on J¹Y) has E_σ ≡ 0 and dθ_λ ≡ 0 (θ_λ = df)."""
    S = LagrangianSystem(Y2, Y2.cut_total_derivative(f))
    assert all(sp.expand(e) == 0 for e in S.euler_lagrange())
    assert S.cartan_form() == Y2.J1.d(f)
    assert S.cartan_form().d().is_zero()


# --- regularity -----------------------------------------------------------------------------------
def test_singular_lagrangian_linear_in_velocities():
    # L = q̇¹q² − q̇²q¹ (Hessian ≡ 0): first-order equations E = (−2q̇², 2q̇¹)
    S = LagrangianSystem(Y2, xd * y - yd * x)
    assert not S.is_regular()
    assert S.hessian() == sp.zeros(2, 2)
    assert [sp.expand(e) for e in S.euler_lagrange()] == [-2 * yd, 2 * xd]
    with pytest.raises(NotRegularError, match=r"not regular.*generic rank 0 < 2"):
        S.accelerations()
    with pytest.raises(NotRegularError, match="semispray"):
        S.semispray()


def test_singular_lagrangian_of_rank_one():
    S = LagrangianSystem(Y2, (xd + yd) ** 2 / 2)
    assert not S.is_regular()
    assert S.regularity_condition() == 0
    with pytest.raises(NotRegularError) as info:
        S.accelerations()
    msg = str(info.value)
    assert "generic rank 1 < 2" in msg and "(-1, 1)" in msg and "xddot, yddot" in msg
    # E_x = E_y: the equations only fix ẍ + ÿ
    E = S.euler_lagrange()
    assert sp.expand(E[0] - E[1]) == 0 and sp.expand(E[0] + xdd + ydd) == 0


def test_regular_with_a_singular_locus():
    S = LagrangianSystem(Y2, xd**2 / 2 + x**2 * yd**2 / 2)
    assert S.is_regular()
    assert same(S.regularity_condition(), x**2)
    locus = S.singular_locus()
    assert locus and all(same(f.xreplace({x: 0}), 0) for f in locus)
    acc = S.accelerations()
    assert same(acc[ydd], -2 * xd * yd / x)  # the accelerations blow up on the locus x = 0


def test_specification_errors():
    with pytest.raises(InputError, match="first order"):
        LagrangianSystem(Y2, xdd * x)
    with pytest.raises(InputError, match="2 components"):
        LagrangianSystem(Y2, xd**2, forces=[1])
    with pytest.raises(InputError, match=r"\(t, q, q̇\)"):
        LagrangianSystem(Y2, xd**2, forces=[xdd, 0])
    with pytest.raises(InputError, match="not coordinates"):
        LagrangianSystem(Y2, xd**2, forces={sp.Symbol("z"): 1})
    with pytest.raises(InputError, match="FibredManifold"):
        LagrangianSystem("Y", xd**2)
    with pytest.raises(InputError, match="potential"):
        LagrangianSystem.mechanical(Y2, xd**2, V=xd)
    with pytest.raises(InputError, match="no metric"):
        LagrangianSystem(Y2, xd**4 + yd**2).christoffel()


# --- semispray and energy ----------------------------------------------------------------------------
@st.composite
def mechanical_system(draw, q_dependent=True, with_forces=False, trig=False):
    """g = B Bᵀ + 1 with B constant or linear in q (positive definite), V random, forces optional."""
    entries = []
    for _ in range(4):
        e = sp.Integer(draw(st.integers(-2, 2)))
        if q_dependent:
            e += draw(st.integers(-1, 1)) * draw(st.sampled_from([x, y]))
        entries.append(e)
    Bm = sp.Matrix(2, 2, entries)
    g = Bm * Bm.T + sp.eye(2)
    v = sp.Matrix([xd, yd])
    T = sp.expand((v.T * g * v)[0] / 2)
    V = draw(polynomial([x, y], trig=trig))
    forces = None
    if with_forces:
        c = draw(st.integers(0, 3))
        forces = [-c * xd + draw(st.integers(-2, 2)) * yd, draw(st.integers(-2, 2)) * xd * y]
    return LagrangianSystem.mechanical(Y2, T, V, forces), g


@settings(max_examples=6)
@given(mechanical_system())
def test_energy_conservation_autonomous(data):
    """Γ(E_L) = 0 along the accelerations of an autonomous conservative system."""
    S, g = data
    assert S.is_autonomous
    Gam = S.semispray()
    assert vanishes_at_points(Gam(S.energy()))
    assert is_zero(S.energy() - S.kinetic_energy - S.potential_energy)


def test_energy_conservation_is_not_vacuous():
    """With the sign of the potential force flipped the energy T + V is not conserved."""
    T = (1 + x**2) * xd**2 / 2 + x * xd * yd + yd**2
    S = LagrangianSystem.mechanical(Y2, T, x * y**2)
    wrong = LagrangianSystem.mechanical(Y2, T, -x * y**2)
    assert vanishes_at_points(S.semispray()(S.energy()))
    assert not vanishes_at_points(wrong.semispray()(S.energy()))


@settings(max_examples=12)
@given(mechanical_system(q_dependent=False, with_forces=True))
def test_energy_balance_with_forces(data):
    """dE/dt = A_σ q̇^σ along the motion (power of the non-potential forces)."""
    S, g = data
    power = sum(A * v for A, v in zip(S.forces, Y2.qdot))
    assert vanishes_at_points(S.semispray()(S.energy()) - power)


def test_energy_balance_time_dependent():
    # dE/dt = −∂L/∂t for L = ẋ²/2 − t x²/2 (a parametric oscillator)
    S = LagrangianSystem(Y2, xd**2 / 2 + yd**2 / 2 - t * x**2 / 2)
    assert not S.is_autonomous
    assert same(S.semispray()(S.energy()), x**2 / 2)


@settings(max_examples=4)
@given(mechanical_system(with_forces=True))
def test_semispray_is_sode_and_spans_the_dynamical_distribution(data):
    S, g = data
    Gam = S.semispray()
    assert all(w(Gam) == 0 for w in Y2.contact_forms)  # second-order: ω^σ(Γ) = 0
    assert Y2.J1.dx(t)(Gam) == 1
    acc = S.accelerations()
    assert all(vanishes_at_points(e.xreplace(acc)) for e in S.euler_lagrange())
    # i_Γ α = 0: Γ is the characteristic direction of the Lepage form (regular system)
    assert all(vanishes_at_points(c) for c in S.lepage_form().interior(Gam).components.values())
    # … and not for a perturbed SODE
    bad = VectorField(Y2.J1, list(Gam.components[:3]) + [Gam.components[3] + 1, Gam.components[4]])
    assert not all(vanishes_at_points(c) for c in S.lepage_form().interior(bad).components.values())
    # W q̈ = L_σ: Hessian times accelerations equals the free-motion functions
    W = S.hessian()
    Lf = S.free_motion_functions()
    for i in range(2):
        assert vanishes_at_points(sum(W[i, j] * acc[Y2.qddot[j]] for j in range(2)) - Lf[i])


# --- metric and Christoffel symbols ----------------------------------------------------------------
def _diffgeom_christoffel(g):
    """Christoffel symbols of the first kind by sympy.diffgeom (independent implementation);
    returns ch[i][j][k] with i the lowered index."""
    from sympy.diffgeom import CoordSystem, Manifold, Patch, TensorProduct, metric_to_Christoffel_1st

    M = Manifold("M", 2)
    P = Patch("P", M)
    R = CoordSystem("R", P, [x, y])
    fx, fy = R.coord_functions()
    dx, dy = R.base_oneforms()
    gg = g.xreplace({x: fx, y: fy})
    basis = [dx, dy]
    metric = sum(gg[i, j] * TensorProduct(basis[i], basis[j]) for i in range(2) for j in range(2))
    ch = metric_to_Christoffel_1st(metric)
    return [[[sp.sympify(ch[i, j, k]).xreplace({fx: x, fy: y}) for k in range(2)] for j in range(2)]
            for i in range(2)]


@settings(max_examples=4)
@given(mechanical_system(with_forces=True, trig=True))
def test_christoffel_symbols_and_benenti2007_eq_7_3(data):
    """Γ_hki = ½(∂_h g_ki + ∂_k g_hi − ∂_i g_hk) against sympy.diffgeom, and [Benenti 2007, eq. (7.3)]:
    g_ij q̈^j = L_i with L_i = A_i − ∂V/∂q^i − Γ_hki q̇^h q̇^k."""
    S, g = data
    assert (S.metric() - g).applyfunc(sp.expand) == sp.zeros(2, 2)
    Gam = S.christoffel()
    ref = _diffgeom_christoffel(g)
    for h in range(2):
        for k in range(2):
            for i in range(2):
                assert same(Gam[h][k][i], ref[i][h][k])
                assert Gam[h][k][i] == Gam[k][h][i]
    Lf = S.free_motion_functions()
    V = S.potential_energy
    for i in range(2):
        expected = S.forces[i] - sp.diff(V, Y2.q[i]) - sum(
            Gam[h][k][i] * Y2.qdot[h] * Y2.qdot[k] for h in range(2) for k in range(2)
        )
        assert sp.expand(Lf[i] - expected) == 0
    # inverse metric: g g⁻¹ = 1
    gi = S.inverse_metric()
    assert (g * gi).applyfunc(normalise) == sp.eye(2)


def test_metric_comes_from_kinetic_energy():
    # with a gyroscopic term in T the metric is still the quadratic part
    T = (xd**2 + 2 * yd**2) / 2 + x * yd
    S = LagrangianSystem.mechanical(Y2, T, x * y)
    assert S.metric() == sp.diag(1, 2)
    assert S.kinetic_energy == T and S.potential_energy == x * y


def test_repr_and_latex():
    S = LagrangianSystem(Y2, xd**2 / 2 + yd**2 / 2, forces=[-xd, 0])
    assert "forces" in repr(S) and "LagrangianSystem" in repr(S)
    assert S._repr_latex_().startswith("$")
    assert isinstance(S.semispray(), VectorField)
    assert S.lagrangian_form() == S.L * Y2.J1.dx(t)


def test_constrain_chooses_the_chart_and_branch():
    """``S.constrain(Q, branch=, dependent=)`` is ``ConstrainedSystem(S, Q, branch=, dependent=)``: the
    normal form solved for the chosen velocities on the chosen branch.  Checked against independent
    truths: g satisfies f(q̇^I, g) = 0, and two charts of Q give the same accelerations on Q."""
    from jetgeo import ConstrainedSystem, ConstraintSubmanifold

    # the skate [Stolařová 2009, §3]: sin θ ẋ − cos θ ẏ = 0, solvable for ẋ or for ẏ
    Y = FibredManifold(["x", "y", "theta"])
    x, y, th = Y.q
    xd, yd, thd = Y.qdot
    m, I = sp.symbols("m I", positive=True)
    S = LagrangianSystem(Y, m * (xd**2 + yd**2) / 2 + I * thd**2 / 2)
    f = sp.sin(th) * xd - sp.cos(th) * yd
    Q = ConstraintSubmanifold(Y, [f])
    by_x, by_y = S.constrain(Q, dependent=[xd]), S.constrain(Q, dependent=["ydot"])
    assert by_x.dependent == (xd,) and by_y.dependent == (yd,)
    assert is_zero(f.subs(xd, by_x.g[xd])) and is_zero(f.subs(yd, by_y.g[yd]))
    ax, ay = by_x.accelerations(), by_y.accelerations()
    assert set().union(*(e.free_symbols for e in ax.values())).isdisjoint({xd})  # by_x's chart: (ẏ, θ̇)
    for a in Y.qddot:  # by_x's accelerations moved to by_y's chart (ẋ, θ̇) by ẏ = g_y(θ, ẋ)
        assert is_zero(ax[a].subs(yd, by_y.g[yd]) - ay[a]), a
    ref = ConstrainedSystem(S, Q, dependent=[xd])
    assert all(is_zero(ax[a] - ref.accelerations()[a]) for a in Y.qddot)
    # a nonlinear constraint with two branches ż = ±√(ẋ² + ẏ²)/a [Stolařová 2009, eq. (13)]
    Y2 = FibredManifold(["x", "y", "z"])
    a_ = sp.Symbol("a", positive=True)
    u, v, w = Y2.qdot
    Q2 = ConstraintSubmanifold(Y2, [u**2 + v**2 - a_**2 * w**2])
    S2 = LagrangianSystem(Y2, (u**2 + v**2 + w**2) / 2)
    g0, g1 = (S2.constrain(Q2, branch=b).g[w] for b in (0, 1))
    assert is_zero(g0 + g1) and not is_zero(g0)  # the two roots of a²ż² = ẋ² + ẏ²
    assert all(is_zero((u**2 + v**2 - a_**2 * w**2).subs(w, g)) for g in (g0, g1))
    assert is_zero(S2.constrain(Q2, branch=1).g[w] - ConstrainedSystem(S2, Q2, branch=1).g[w])
