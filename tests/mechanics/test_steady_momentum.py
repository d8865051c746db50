"""Steady motions (relative equilibria) and the nonholonomic momentum equation [Bloch et al. 1996].

Independent truths:
* the heavy rolling disc's steady circles from Newton–Euler, derived by hand in the disc's lean frame L
  (yaw ψ, lean θ about H.x, spin φ about the axle L.y; contact C, centre G = C + r L.z): with θ̇ = 0,
  ω_disc = (φ̇ + ψ̇ sin θ) L.y + ψ̇ cos θ L.z, H_G = C s L.y + A Ω cos θ L.z (s = φ̇ + Ω sin θ, Ω = ψ̇),
  v_G = r s L.x, a_G = r Ω s H.y, contact force F = m a_G + m g N.z, and dH_G/dt = (C − G) × F gives
  (C + m r²) Ω s cos θ − A Ω² sin θ cos θ + m g r sin θ = 0;
  upright (θ = 0, Ω = 0) the linearisation is Routh's [Routh 1884, §244];
* the snakeboard's momentum equation derived by hand (theory/momentum.md): for η = (l cos φ cos θ,
  l cos φ sin θ, sin φ, 0, 0), ṗ = J₀ ψ̇ φ̇ cos φ; for Bloch et al.'s body-frame normalisation
  η' = −η/(l cos φ), ṗ' = −(m l² θ̇ + J₀ ψ̇) φ̇ /(l cos² φ);
* the vertical rolling disc: the rotation about the contact point and the rolling direction carry the
  conserved momenta B ψ̇ and (A + m R²) θ̇ ([Benenti 2007, §9.2]'s uniform motion);
* numerical integration: p(t) − p(0) = ∫ ṗ dt along simulated motions (snakeboard across a chart
  boundary, heavy disc).
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks import systems as S  # noqa: E402
from jetgeo import ConstraintSubmanifold, FibredManifold, LagrangianSystem  # noqa: E402
from jetgeo.errors import InputError, NotApplicableError  # noqa: E402
from jetgeo.geometry import is_zero  # noqa: E402
from jetgeo.limits import time_limit  # noqa: E402
from jetgeo.mechanics import linearise, momentum_equation, steady_motions  # noqa: E402
from jetgeo.numerics import simulate  # noqa: E402
from jetgeo.systems.catalogue import load as load_system  # noqa: E402

m, A, C, r, g = sp.symbols("m A C r g", positive=True)


@functools.cache
def heavy_disc():
    model = S.build("heavy_disc")
    Y, L, fs = S.jetgeo_inputs(model)
    xd, yd = Y.qdot[3], Y.qdot[4]
    return model, Y, LagrangianSystem(Y, L).constrain(ConstraintSubmanifold(Y, fs, dependent=[xd, yd]))


@functools.cache
def snakeboard():
    """Board centre (x, y), heading θ, rotor ψ (relative), wheel angle φ (front +φ, back −φ), wheels at
    ±l; T with J + J₀ + 2J₁ = m l² [Bloch et al. 1996, §8]."""
    Y = FibredManifold(["x", "y", "theta", "psi", "phi"])
    x, y, th, ps, ph = Y.q
    xd, yd, thd, psd, phd = Y.qdot
    ml, l, J0, J1 = sp.symbols("m l J0 J1", positive=True)
    L = ml / 2 * (xd**2 + yd**2) + ml * l**2 / 2 * thd**2 + J0 * thd * psd + J0 / 2 * psd**2 + J1 * phd**2
    # no lateral slip at the front wheel (x + l cos θ, y + l sin θ), heading θ + φ, and at the back one
    f = [-sp.sin(th + ph) * xd + sp.cos(th + ph) * yd + l * sp.cos(ph) * thd,
         -sp.sin(th - ph) * xd + sp.cos(th - ph) * yd - l * sp.cos(ph) * thd]
    return Y, LagrangianSystem(Y, L).constrain(ConstraintSubmanifold(Y, f)), (ml, l, J0, J1)


def se2(Y):
    x, y, th = Y.q[:3]
    return [{x: 1}, {y: 1}, {x: -y, y: x, th: 1}]


# --- steady motions -------------------------------------------------------------------------------------
def test_heavy_disc_steady_circles_agree_with_newton_euler():
    model, Y, cs = heavy_disc()
    ps, th, ph, x, y = Y.q
    psd, thd, phd, xd, yd = Y.qdot
    th0, W, w = sp.symbols("theta0 Omega omega")
    sms = steady_motions(cs, {th: th0, psd: W, phd: w}, unknowns=[w])
    assert len(sms) == 1
    sm = sms[0]
    s_ = w + W * sp.sin(th0)
    hand = (C + m * r**2) * W * s_ * sp.cos(th0) - A * W**2 * sp.sin(th0) * sp.cos(th0) + m * g * r * sp.sin(th0)
    assert is_zero(hand.xreplace({w: sm.values[w]}))
    assert sm.kept_states == (th, psd, thd, phd)
    assert sm.point[th] == th0 and sm.point[thd] == 0 and sm.point[psd] == W
    assert is_zero(sm.rates[ps] - W)
    assert any(is_zero(c - W * sp.cos(th0) * (C + m * r**2)) or is_zero(c + W * sp.cos(th0) * (C + m * r**2))
               for c in sm.conditions)
    # it is a motion: simulated from the point, lean and rates stay put (multipliers formulation: no chart)
    vals = dict(model.params)
    num = {th0: 0.3, W: 1.7}
    pt = {k: float(sp.N(v.xreplace({**num, **vals}))) for k, v in sm.point.items()}
    par = {str(k): v for k, v in vals.items()}
    rr = simulate(cs, (0, 2), pt, par, formulation="multipliers")
    assert rr.status == "finished"
    assert np.max(np.abs(rr.column("th") - 0.3)) < 1e-9 and np.max(np.abs(rr.column("psidot") - 1.7)) < 1e-9
    # with a spin rate 1 % off the lean changes at once
    off = {**pt, phd: 1.01 * pt[phd]}
    off.pop(xd), off.pop(yd)
    ro = simulate(cs, (0, 2), off, par, complete=True, formulation="multipliers")
    assert np.max(np.abs(ro.column("th") - 0.3)) > 1e-3


def test_upright_disc_steady_motion_feeds_linearise_routh():
    model, Y, cs = heavy_disc()
    ps, th, ph, x, y = Y.q
    psd, thd, phd, xd, yd = Y.qdot
    W = sp.Symbol("Omega")
    [sm] = steady_motions(cs, {th: 0, psd: 0, phd: W})   # rolling straight upright: no unknowns
    lin = linearise(cs, sm)
    assert lin.state == (th, psd, thd, phd)
    lam = sp.Symbol("lam")
    expected = lam**2 * (A * (A + m * r**2) * lam**2 + C * (C + m * r**2) * W**2 - A * m * g * r)
    assert sp.cancel(lin.A.charpoly(lam).as_expr() * A * (A + m * r**2) - expected) == 0
    # a leaning disc with no yaw rate is no steady motion
    assert steady_motions(cs, {th: sp.Rational(1, 5), psd: 0, phd: W}) == []


def test_steady_motion_errors():
    model, Y, cs = heavy_disc()
    ps, th, ph, x, y = Y.q
    psd, thd, phd, xd, yd = Y.qdot
    with pytest.raises(InputError, match="every independent velocity"):
        steady_motions(cs, {th: 0, psd: 0})
    with pytest.raises(InputError, match="held fixed but its velocity"):
        steady_motions(cs, {th: 0, thd: 1, psd: 0, phd: 1})
    with pytest.raises(InputError, match="not a coordinate or velocity"):
        steady_motions(cs, {"zeta": 0})
    # the sleigh with a constant yaw rate and the position fixed is no relative equilibrium of that form
    Y3 = FibredManifold(["x", "y", "th"])
    x3, y3, t3 = Y3.q
    x3d, y3d, t3d = Y3.qdot
    cs3 = LagrangianSystem(Y3, (x3d**2 + y3d**2 + t3d**2) / 2).constrain(
        ConstraintSubmanifold(Y3, [-x3d * sp.sin(t3) + y3d * sp.cos(t3)], dependent=[y3d]))
    with pytest.raises(NotApplicableError, match="change along the motion"):
        steady_motions(cs3, {x3d: 1, t3d: 1})


# --- momentum equation ----------------------------------------------------------------------------------
def test_snakeboard_momentum_equation_bloch_et_al():
    Y, cs, (ml, l, J0, J1) = snakeboard()
    x, y, th, ps, ph = Y.q
    xd, yd, thd, psd, phd = Y.qdot
    # the paper's body-frame momentum: η' = −(cos θ ∂x + sin θ ∂y + (tan φ / l) ∂θ) = c^a X_a
    sec = [-sp.cos(th) - y * sp.tan(ph) / l, -sp.sin(th) + x * sp.tan(ph) / l, -sp.tan(ph) / l]
    [me] = momentum_equation(cs, se2(Y), section=[sec])
    assert is_zero(cs.on_Q(me.rhs + (ml * l**2 * thd + J0 * psd) * phd / (l * sp.cos(ph) ** 2)))
    assert is_zero(me.momentum + (ml * l * (xd * sp.cos(th) + yd * sp.sin(th))
                                  + (ml * l**2 * thd + J0 * psd) * sp.tan(ph)) / l)
    # the hand normalisation η = (l cos φ cos θ, l cos φ sin θ, sin φ): ṗ = J₀ ψ̇ φ̇ cos φ
    sec2 = [l * sp.cos(ph) * sp.cos(th) + y * sp.sin(ph), l * sp.cos(ph) * sp.sin(th) - x * sp.sin(ph), sp.sin(ph)]
    [me2] = momentum_equation(cs, se2(Y), section=[sec2])
    assert is_zero(cs.on_Q(me2.rhs - J0 * psd * phd * sp.cos(ph)))
    # the default section: D ∩ T(orbit) is a line; the null space's pivot solution (θ-component 1) has a
    # pole at φ = 0, cleared: it is the hand section
    [me0] = momentum_equation(cs, se2(Y))
    assert all(is_zero(a - b) for a, b in zip(me0.section, sec2))
    assert is_zero(me0.rhs - J0 * psd * phd * sp.cos(ph))
    with pytest.raises(InputError, match="not allowed by the constraints"):
        momentum_equation(cs, se2(Y), section=[[1, 0, 0]])
    with pytest.raises(NotApplicableError, match="not invariant"):
        momentum_equation(cs, [{x: x, y: y}])       # dilations change the kinetic energy
    assert "d/dt(" in str(me)


def test_snakeboard_momentum_along_a_simulated_motion():
    """p(t) − p(0) = ∫ṗ dt along a free motion.  The automatic normal form [ẏ, θ̇] is singular where
    det = −2 l cos²φ cos θ vanishes (θ = π/2): the atlas carries the run on.  (At φ = π/2 the two wheels
    are parallel and rank ∂f/∂q̇ drops: a true singular state, reached at t = (π/2 − 0.3)/0.4 = 3.18.)"""
    Y, cs, (ml, l, J0, J1) = snakeboard()
    x, y, th, ps, ph = Y.q
    xd, yd, thd, psd, phd = Y.qdot
    sec = [-sp.cos(th) - y * sp.tan(ph) / l, -sp.sin(th) + x * sp.tan(ph) / l, -sp.tan(ph) / l]
    [me] = momentum_equation(cs, se2(Y), section=[sec])
    par = {ml: 1.0, l: 0.4, J0: 0.05, J1: 0.02}
    T = np.linspace(0, 2.5, 5001)
    res = simulate(cs, (0, 2.5), {x: 0, y: 0, th: 0.2, ps: 0, ph: 0.3, xd: 0.5, psd: 1.0, phd: 0.4}, par,
                   complete=True, t_eval=T, first_integrals={"p": me.momentum, "pdot": me.rhs})
    assert res.status == "finished" and len(res.charts) >= 1
    p, pdot = res.integrals["p"], res.integrals["pdot"]
    from scipy.integrate import cumulative_trapezoid

    assert np.max(np.abs(p - p[0] - cumulative_trapezoid(pdot, T, initial=0))) < 1e-5
    assert np.ptp(p) > 0.1                                 # not trivially constant


def test_vertical_rolling_disc_momenta_are_conserved():
    Y = FibredManifold(["x", "y", "theta", "psi"])
    x, y, th, ps = Y.q
    xd, yd, thd, psd = Y.qdot
    mm, AA, BB, RR = sp.symbols("m A B R", positive=True)
    Sy = LagrangianSystem.mechanical(Y, mm / 2 * (xd**2 + yd**2) + (AA * thd**2 + BB * psd**2) / 2)
    cs = Sy.constrain(ConstraintSubmanifold(Y, [xd - RR * sp.cos(ps) * thd, yd - RR * sp.sin(ps) * thd]))
    action = [{x: 1}, {y: 1}, {x: -y, y: x, ps: 1}, {th: 1}]
    heading, rolling = momentum_equation(cs, action, section=[[y, -x, 1, 0], [RR * sp.cos(ps), RR * sp.sin(ps), 0, 1]])
    assert heading.eta == (0, 0, 0, 1) and is_zero(heading.momentum - BB * psd) and heading.rhs == 0
    assert is_zero(rolling.momentum_on_Q - (AA + mm * RR**2) * thd) and rolling.rhs == 0
    assert len(momentum_equation(cs, action)) == 2          # D ∩ T(orbit) has dimension 2


def test_heavy_disc_momentum_equations_along_a_simulation():
    model, Y, cs = heavy_disc()
    ps, th, ph, x, y = Y.q
    action = [{x: 1}, {y: 1}, {x: -y, y: x, ps: 1}, {ph: 1}]
    assert len(momentum_equation(cs, action)) == 2     # D ∩ T(orbit): rolling and turning about the contact
    # regular sections: roll along the heading (with the spin), turn about the contact point
    eqs = momentum_equation(cs, action, section=[[r * sp.cos(ps), r * sp.sin(ps), 0, 1], [y, -x, 1, 0]])
    vals = {str(k): v for k, v in model.params.items()}
    T = np.linspace(0, 3, 3001)
    ints = {f"p{i}": e.momentum for i, e in enumerate(eqs)} | {f"d{i}": e.rhs for i, e in enumerate(eqs)}
    ini = {"psi": 0, "th": 0.2, "ph": 0, "x": 0, "y": 0, "psidot": 1.0, "thdot": 0.1, "phdot": 4.0}
    res = simulate(cs, (0, 3), ini, vals, complete=True, t_eval=T, first_integrals=ints)
    from scipy.integrate import cumulative_trapezoid

    for i in range(2):
        p, d = res.integrals[f"p{i}"], res.integrals[f"d{i}"]
        assert np.max(np.abs(p - p[0] - cumulative_trapezoid(d, T, initial=0))) < 1e-5
        assert np.ptp(p) > 1e-3


# --- chart-independent classification ---------------------------------------------------------------------
def test_snakeboard_classification_and_chaplygin_recipe_name_the_working_choice():
    """The automatic choice [ẏ, θ̇] has coefficients depending on θ (a dependent coordinate); solved for
    [ẋ, ẏ] the constraints read ẋ, ẏ = b(θ, φ) θ̇ — Chaplygin's form, and L is free of x, y."""
    from jetgeo import recipes

    Y, cs, (ml, l, J0, J1) = snakeboard()
    x, y, th, ps, ph = Y.q
    xd, yd, thd, psd, phd = Y.qdot
    c = cs.Q.classify()
    assert c.dependent == (yd, thd)
    assert c.kind == "chaplygin" and c.chaplygin and c.choices_complete
    assert (xd, yd) in c.chaplygin_choices and (yd, thd) not in c.chaplygin_choices
    assert "with the dependent velocities [xdot, ydot]" in c.explanation and "[ydot, thetadot]" in c.explanation
    # admissible choices: the 2-subsets of velocities with a generically invertible block (ψ̇, φ̇ do not occur)
    adm = cs.Q.admissible_choices()
    assert set(adm) == {(xd, yd), (xd, thd), (yd, thd)} and adm.complete and adm.total == 10
    with pytest.raises(NotApplicableError, match=r"apply with the dependent velocities \[ydot, thetadot\].*"
                       r"they apply with dependent=\[xdot, ydot\]"):
        recipes.chaplygin(cs.system, cs.Q)
    assert recipes.chaplygin_choices(cs.system, cs.Q) == [(xd, yd)]
    mo = recipes.chaplygin(cs.system, cs.Q, dependent=[xd, yd])
    acc_core = cs.with_dependent([xd, yd]).accelerations()
    for a, e in mo.accelerations().items():
        assert is_zero(cs.with_dependent([xd, yd]).on_Q(e - acc_core[a])), a


# --- exact points: π/2, π/3 stay exact (issue 25, finding 5) --------------------------------------------
def _upright_catalogue_disc(**values):
    """Ghori's rolling disc of the catalogue (θ the angle of the disc plane with the ground: upright at
    θ = π/2), its steady motion rolling straight upright at spin Ω, and Routh's characteristic polynomial."""
    e = load_system("rolling_disc", **values)
    cs = e.constrained()
    x, y, th, ps, ph = e.Y.q
    xd, yd, thd, psd, phd = e.Y.qdot
    W, lam = sp.symbols("Omega lam")
    [sm] = steady_motions(cs, {th: sp.pi / 2, psd: 0, phd: W})
    mm, a, AA, CC, gg = sp.symbols("m a A C g", positive=True)  # the catalogue's parameters
    sub = {mm: values.get("m", mm), a: values.get("a", a), AA: values.get("A", AA), CC: values.get("C", CC),
           gg: values.get("g", gg)}
    # [Routh 1884, §244]: λ²(A(A + ma²)λ² + C(C + ma²)Ω² − Amga), with the catalogue's names
    routh = (lam**2 * (AA * (AA + mm * a**2) * lam**2 + CC * (CC + mm * a**2) * W**2 - AA * mm * gg * a)).xreplace(sub)
    return e, cs, sm, (th, thd, psd, phd), lam, routh, (AA * (AA + mm * a**2)).xreplace(sub)


def test_steady_motion_at_pi_over_2_linearises_exactly_with_numeric_moments():
    """cos(π/2) = 0 exactly: no 5e-52 in the matrix, Routh's polynomial exactly (the multiplier and the
    reduced routes); on main the matrix held 1.0e-51·Ω and the reduced route raised TypeError."""
    values = {"A": sp.Rational(1, 4), "C": sp.Rational(1, 2), "m": 1, "a": 1, "g": 10}
    e, cs, sm, kept, lam, routh, lead = _upright_catalogue_disc(**values)
    assert sm.point[kept[0]] == sp.pi / 2
    with time_limit(5):
        for route in ("multipliers", "reduced"):
            lin = linearise(cs, sm, route=route)
            assert lin.state == kept and not lin.A.has(sp.Float)
            assert sp.expand(lin.A.charpoly(lam).as_expr() * lead - routh) == 0


def test_steady_motion_at_pi_over_2_linearises_exactly_with_symbolic_parameters():
    """The same with m, a, A, C, g symbolic, in well under the test's 5 s (main: refused, the lean's row
    held 5.05e-52·a³gm, or minutes in ``expand``)."""
    e, cs, sm, kept, lam, routh, lead = _upright_catalogue_disc()
    with time_limit(5):
        lin = linearise(cs, sm)
    assert not lin.A.has(sp.Float)
    assert sp.cancel(lin.A.charpoly(lam).as_expr() * lead - routh) == 0


def test_steady_circle_at_pi_over_3_is_exact_and_agrees_with_the_generic_lean():
    """θ = π/3: sin θ = √3/2 stays exact (the steady motion, its linearisation), and equals the linearisation
    at a symbolic lean θ₀ evaluated at π/3 — an independent computation.  On main ``steady_motions`` said
    the conditions depend on ψ (sin²ψ + cos²ψ not reduced at θ = π/3)."""
    e = load_system("rolling_disc", A=sp.Rational(1, 4), C=sp.Rational(1, 2), m=1, a=1, g=10)
    cs = e.constrained()
    x, y, th, ps, ph = e.Y.q
    xd, yd, thd, psd, phd = e.Y.qdot
    W, w, th0 = sp.symbols("Omega omega theta0")
    with time_limit(10):
        [sm] = steady_motions(cs, {th: sp.pi / 3, psd: W, phd: w}, unknowns=[w])
        [sm0] = steady_motions(cs, {th: th0, psd: W, phd: w}, unknowns=[w])
        assert is_zero(sm.values[w] - sm0.values[w].xreplace({th0: sp.pi / 3}))
        lin, lin0 = linearise(cs, sm), linearise(cs, sm0)
    assert not lin.A.has(sp.Float) and lin.A.has(sp.sqrt(3))
    assert all(is_zero(u - v.xreplace({th0: sp.pi / 3})) for u, v in zip(lin.A, lin0.A))
