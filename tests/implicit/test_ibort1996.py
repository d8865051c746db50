"""[Ibort et al. 1996, §6]: the examples through the public API.

Every expected value is derived by hand in the comments (or by a second method of jetgeo), then
compared with the paper's printed formula; where the paper misprints, the test says so and why."""

import sympy as sp

from jetgeo import ConstraintSubmanifold, FibredManifold, LagrangianSystem, NonholonomicProblem
from jetgeo.geometry.zero import is_zero
from jetgeo.systems import load


def _on(Q, expr):
    return sp.sympify(expr).xreplace(Q.normal_form().g)


# --- §6.1 disk rolling on a surface ---------------------------------------------------------------------


def test_6_1_rolling_disk_multipliers_and_gamma_on_Cstar_eqs_6_25_6_26():
    Y = FibredManifold(["x", "y", "theta", "phi"])
    x, y, th, ph = Y.q
    xd, yd, thd, phd = Y.qdot
    M, R, I1, I2 = sp.symbols("M R I1 I2", positive=True)
    L = M / 2 * (xd**2 + yd**2) + I1 / 2 * thd**2 + I2 / 2 * phd**2  # (6.25)
    Q = ConstraintSubmanifold(Y, [xd - R * sp.cos(th) * phd, yd - R * sp.sin(th) * phd])  # (6.26)
    P = NonholonomicProblem(LagrangianSystem(Y, L), Q)
    comp = P.compatibility()
    assert comp.compatible and comp.rank_F == comp.corank_D == 2
    motion = P.solve()
    lam1, lam2 = motion.multipliers()
    # by hand: λ1 = ṗ_x = M ẍ = M R (cos θ φ̈ − sin θ θ̇ φ̇), λ2 = M R (sin θ φ̈ + cos θ θ̇ φ̇); ṗ_φ = −R(cos θ λ1 +
    # sin θ λ2) gives (I2 + M R²) φ̈ = 0, so λ1 = −M R sin θ θ̇ φ̇, λ2 = +M R cos θ θ̇ φ̇.
    assert is_zero(_on(Q, lam1 + M * R * sp.sin(th) * thd * phd))
    assert is_zero(_on(Q, lam2 - M * R * sp.cos(th) * thd * phd))
    # [Ibort et al. 1996] prints λ2 = −M R cos θ p_φ p_θ/(I1 I2): a sign misprint — its own Γ below has
    # ṗ_y = +M R cos θ p_φ p_θ/(I1 I2), and λ2 = ṗ_y.  (p_φ p_θ/(I1 I2) = θ̇ φ̇ whichever way the moments are attached.)
    assert not is_zero(_on(Q, lam2 + M * R * sp.cos(th) * thd * phd))
    acc = motion.accelerations()
    assert is_zero(_on(Q, acc[Y.qddot[3]])) and is_zero(_on(Q, acc[Y.qddot[2]]))  # φ̈ = θ̈ = 0
    # Hamiltonian picture on C* = F_L(C).  With L as printed in (6.25) p_θ = I1 θ̇ and p_φ = I2 φ̇; 002 then writes
    # p_φ = I1 φ̇, p_θ = I2 θ̇ (the moments swapped with respect to (6.25)) and C*: I1 p_x = m R cos θ p_φ (lower-case
    # m, a misprint for the disk's mass M).  Derived: I2 p_x = M R cos θ p_φ, I2 p_y = M R sin θ p_φ.
    H = motion.hamiltonian()
    px, py, pth, pph = H.momenta
    cstar = [I2 * px - M * R * sp.cos(th) * pph, I2 * py - M * R * sp.sin(th) * pph]
    for c in H.constraints:
        assert any(sp.cancel(c / d).is_number for d in cstar)
    # Γ on C* (the paper's vector field with I1 ↔ I2 as explained, and with the sign of ṗ_y it prints):
    gamma = {x: R * sp.cos(th) * pph / I2, y: R * sp.sin(th) * pph / I2, ph: pph / I2, th: pth / I1,
             px: -M * R * sp.sin(th) * pph * pth / (I1 * I2), py: M * R * sp.cos(th) * pph * pth / (I1 * I2),
             pph: 0, pth: 0}
    for k, val in gamma.items():
        assert is_zero(H.vector_field[k] - val), k
    # the algorithm on E = α⁻¹(dL + F) ⊂ T(T*Q) stops at the first step (footnote 5: L definite, admissible constraints)
    rep = P.integrability(picture="hamiltonian")
    assert rep.consistent and rep.steps == 1 and rep.free_parameters == 0 and rep.secondary_constraints == []
    for c in cstar:
        assert is_zero(rep.on_C(c))


# --- §6.2 Appell's machine ------------------------------------------------------------------------------


def test_6_2_appell_machine_rho_0_accelerations_and_Cstar():
    sys_, Q = load("appell_machine", rho=0)
    x, y, z, th, ph = sys_.Y.q
    M, m, R, r, I1, g = sp.symbols("M m R r I1 g", positive=True)
    P = NonholonomicProblem(sys_, Q)
    assert P.compatibility().compatible
    acc = P.solve().accelerations()
    qdd = dict(zip(sys_.Y.q, sys_.Y.qddot))
    # [Ibort et al. 1996, §6.2]: φ̈ = −m g r/(I1 + (M+m)R² + m r²), θ̈ = 0 (the paper's L prints +mgz but (6.27) has
    # ṗ_z = λ3 − mg:
    # the potential is +mgz, L = T − mgz, as the catalogue uses)
    assert is_zero(_on(Q, acc[qdd[ph]] + m * g * r / (I1 + (M + m) * R**2 + m * r**2)))
    assert is_zero(_on(Q, acc[qdd[th]]))
    # the integrability algorithm stops at the first step, E_1 is a graph
    rep = P.integrability()
    assert rep.steps == 1 and rep.free_parameters == 0
    # C*: I1 p_x = (M+m) R cos θ p_φ, I1 p_y = (M+m) R sin θ p_φ as printed; the third equation is printed
    # I1 p_z = m R p_φ, a misprint for m r p_φ (ż = r φ̇, Ψ3, so p_z = m ż = m r p_φ/I1).
    H = P.solve().hamiltonian()
    px, py, pz, pth, pph = H.momenta
    cstar = [I1 * px - (M + m) * R * sp.cos(th) * pph, I1 * py - (M + m) * R * sp.sin(th) * pph,
             I1 * pz - m * r * pph]
    for c in H.constraints:
        assert any(sp.cancel(c / d).is_number for d in cstar)


def test_6_2_appell_machine_rho_nonzero_eqs_6_29_6_30():
    entry = load("appell_machine")
    sys_, Q = entry
    x, y, z, th, ph = sys_.Y.q
    thd, phd = sys_.Y.qdot[3], sys_.Y.qdot[4]
    M, m, R, r, I1, I2, g, rho = sp.symbols("M m R r I1 I2 g rho", positive=True)
    num = {M: 2, m: 1, R: 1, r: sp.Rational(1, 4), I1: 1, I2: sp.Rational(1, 2), g: 10}  # ρ stays symbolic
    sys_, Q = load("appell_machine", **{str(k): v for k, v in num.items()})
    P = NonholonomicProblem(sys_, Q)
    assert P.compatibility().compatible
    acc = P.solve().accelerations()
    qdd = dict(zip(sys_.Y.q, sys_.Y.qddot))
    # by hand (Gibbs–Appell in the frame e1 = (cos θ, sin θ), e2 = (−sin θ, cos θ)): a_D = (R φ̈, R φ̇ θ̇),
    # a_m = (R φ̈ − ρ θ̇², R φ̇ θ̇ + ρ θ̈), z̈ = r φ̈, hence
    #   (I2 + m ρ²) θ̈ + m ρ R θ̇ φ̇ = 0,   (I1 + (M+m) R² + m r²) φ̈ − m R ρ θ̇² = −m r g.
    e29 = (I2 + m * rho**2) * acc[qdd[th]] + m * rho * R * thd * phd
    e30 = (I1 + (M + m) * R**2 + m * r**2) * acc[qdd[ph]] - m * R * rho * thd**2 + m * r * g
    assert is_zero(_on(Q, e29.xreplace(num))) and is_zero(_on(Q, e30.xreplace(num)))
    # [Ibort et al. 1996] prints (6.29) with (I2 + (M+m)ρ²) and ρ R m, (6.30) with M R ρ θ̇²: with the Lagrangian the
    # paper gives
    # (only the mass m sits on the frame) M cannot multiply ρ; its own integral even writes I2 − (M+m)ρ².  The data
    # allow the check above for any ρ; the printed coefficients are refuted:
    p29 = (I2 + (M + m) * rho**2) * acc[qdd[th]] + rho * R * m * thd * phd
    assert not is_zero(_on(Q, p29.xreplace(num)))


# --- §6.3 Benenti's problem -----------------------------------------------------------------------------


def _benenti():
    sys_, Q = load("benenti_problem")
    m1, m2 = sp.symbols("m1 m2", positive=True)
    return sys_, Q, m1, m2


def test_6_3_benenti_chetaev_multiplier_vanishes_eq_6_31():
    sys_, Q, m1, m2 = _benenti()
    x1d, y1d, x2d, y2d = sys_.Y.qdot
    P = NonholonomicProblem(sys_, Q)
    comp = P.compatibility()
    assert comp.compatible
    # 002: (ẋ2² + ẏ2²)/m1 + (ẋ1² + ẏ1²)/m2 multiplies λ; that is M^{BC} = W^{ij} f_i β_j (4.17) for Chetaev's F
    paper = (x2d**2 + y2d**2) / m1 + (x1d**2 + y1d**2) / m2
    assert is_zero(_on(Q, comp.determinant - paper))
    motion = P.solve()
    assert [is_zero(_on(Q, lam)) for lam in motion.multipliers()] == [True]
    assert all(is_zero(_on(Q, a)) for a in motion.accelerations().values())  # free motion
    rep = P.integrability()
    assert rep.steps == 1 and rep.free_parameters == 0 and rep.secondary_constraints == []


def test_6_3_benenti_non_chetaev_constant_directions_unique():
    sys_, Q, m1, m2 = _benenti()
    x1d, y1d, x2d, y2d = sys_.Y.qdot
    f1, f2 = sp.symbols("f1 f2")
    F = [[m1 * f1, m1 * f2, m2 * f1, m2 * f2]]
    P = NonholonomicProblem(sys_, Q, forces=F)
    comp = P.compatibility()
    # by hand: W⁻¹f = (f1, f2, f1, f2), β = ∂Ψ/∂q̇ = (ẏ2, −ẋ2, −ẏ1, ẋ1): M = f1 (ẏ2 − ẏ1) − f2 (ẋ2 − ẋ1),
    # i.e. M = 0 iff the force direction f is parallel to v1 − v2.  Not identically zero on C: Theorem 2 holds.
    assert comp.compatible and comp.rank_F == comp.corank_D == 1
    assert is_zero(_on(Q, comp.determinant - (f1 * (y2d - y1d) - f2 * (x2d - x1d))))
    motion = P.solve()
    # ⟨dΨ, Γ_L⟩ = 0 for free motion, so λ = 0: the unique solution is free motion
    assert is_zero(_on(Q, motion.multipliers()[0]))
    rep = P.integrability()
    assert rep.consistent and rep.steps == 1 and rep.free_parameters == 0


def test_6_3_benenti_non_chetaev_velocity_direction_arbitrary_lambda():
    sys_, Q, m1, m2 = _benenti()
    x1d, y1d, x2d, y2d = sys_.Y.qdot
    F = [[m1 * x1d, m1 * y1d, m2 * x1d, m2 * y1d]]  # (f1, f2) = (ẋ1, ẏ1)
    P = NonholonomicProblem(sys_, Q, forces=F)
    comp = P.compatibility()
    # M = ẋ1 (ẏ2 − ẏ1) − ẏ1 (ẋ2 − ẋ1) = ẋ1 ẏ2 − ẏ1 ẋ2 = Ψ ≡ 0 on C: (4.16) fails, Theorem 2 does not apply
    assert not comp.compatible and comp.rank_condition and not comp.nondegenerate
    rep = P.integrability()
    # the adapted algorithm: no secondary constraint, one free parameter (λ): the paper's "solution for arbitrary λ"
    assert rep.consistent and rep.steps == 1 and rep.secondary_constraints == [] and rep.free_parameters == 1
    sol = rep.solution()
    lam = P.multiplier_symbols[0]
    q1dd = sys_.Y.qddot[0]
    assert is_zero(rep.on_C(sol[q1dd] - lam * x1d)) or sol[q1dd] == q1dd  # ẍ1 = λ f1 with λ free
    # The paper's claim "for arbitrary λ" (x¨_i = λ f) holds exactly under the hypothesis f ∥ v1 − v2 on C, i.e.
    # M^{BC} = 0: (v1 + λ f t) × (v2 + λ f t) = v1 × v2 + λ t f × (v2 − v1).  For (f1, f2) = (ẋ1, ẏ1) this holds on
    # all of C (v1 ∥ v2 ⇒ v1 ∥ v1 − v2); for constant (f1, f2) only on the singular locus f × (v1 − v2) = 0 of the
    # previous test, where the solution is otherwise unique (λ = 0).
    f = sp.Matrix([x1d, y1d])
    dv = sp.Matrix([x2d - x1d, y2d - y1d])
    assert is_zero(_on(Q, f[0] * dv[1] - f[1] * dv[0]))


def test_6_3_benenti_hamiltonian_picture_Cstar_and_one_step():
    # E = α⁻¹(dL + F) ⊂ T(T*Q) with the nonlinear constraint: τ(E) = C* = F_L(C); by hand p_i = m_i v_i, so
    # Ψ∘F_L⁻¹ = (p_x1 p_y2 − p_x2 p_y1)/(m1 m2); the algorithm stops at the first step (Theorem 2 holds, λ = 0)
    sys_, Q, m1, m2 = _benenti()
    rep = NonholonomicProblem(sys_, Q).integrability(picture="hamiltonian")
    px1, py1, px2, py2 = sp.symbols("p_x1 p_y1 p_x2 p_y2")
    assert rep.consistent and rep.steps == 1 and rep.free_parameters == 0 and rep.secondary_constraints == []
    assert len(rep.primary_constraints) == 1
    assert sp.cancel(rep.primary_constraints[0] / (px1 * py2 - px2 * py1)).is_number
    # the multiplier vanishes on C* as well
    lam = [s for s in rep.solution() if s.name.startswith("lambda")][0]
    assert is_zero(rep.on_C(rep.solution()[lam]))
