"""Ghori's forms [Ghori 1960]: symmetric forms with S (2.2.19) and with Tzenoff's R (§2.3, (2.3.14)),
and Appell's equations in Novoselov's nonlinear nonholonomic coordinates (ch. 4, (4.3.12)–(4.3.14)),
each cross-checked against Krupková's reduced equations [Stolařová 2009, eqs. (7)–(12)] on several systems."""

from __future__ import annotations

import pytest
import sympy as sp

from jetgeo import FibredManifold, LagrangianSystem, recipes, systems
from jetgeo.errors import InputError
from jetgeo.geometry.zero import is_zero

GHORI_SYSTEMS = ["skate", "vertical_disc", "stolarova_example2", "stolarova_example3"]


@pytest.mark.parametrize("function", ["R", "S"])
@pytest.mark.parametrize("name", GHORI_SYSTEMS)
def test_ghori_symmetric_form_agrees_with_krupkova(name, function):
    """[Ghori 1960, eq. (2.3.14)] / (2.2.19): affine (skate, disc), nonlinear [Stolařová 2009, Example 2] and
    rheonomic [Stolařová 2009, Example 3]."""
    S, Q = systems.load(name)
    rep = recipes.equivalent(recipes.krupkova(S, Q), recipes.ghori_symmetric(S, Q, function), reactions=False)
    assert rep, str(rep)


def test_tzenoff_function_gradient_is_m_a_dot_dx_dq():
    """[Ghori 1960, §2.3]: ∂R/∂q̈^σ = m ẍ·∂x/∂q^σ, checked on a particle in rotating polar coordinates, where
    x(t, r, φ) = r (cos(φ + ωt), sin(φ + ωt)) is differentiated directly (an independent truth)."""
    Y = FibredManifold(["r", "phi"])
    t = Y.t
    r, ph = Y.q
    rd, phd = Y.qdot
    m, w = sp.symbols("m omega", positive=True)
    X = sp.Matrix([r * sp.cos(ph + w * t), r * sp.sin(ph + w * t)])
    V = X.applyfunc(Y.total_derivative)
    A = V.applyfunc(Y.total_derivative)
    T = sp.expand(m / 2 * (V.T * V)[0])
    R = recipes.tzenoff_function(LagrangianSystem.mechanical(Y, T))
    assert any(s in R.free_symbols for s in Y.jet_symbols(3))  # R really lives on J³Y
    for s, q in enumerate(Y.q):
        expected = m * (A.T * X.diff(q))[0]
        assert is_zero(sp.diff(R, Y.qddot[s]) - expected)


def test_ghori_symmetric_rejects_unknown_function():
    S, Q = systems.load("skate")
    with pytest.raises(InputError, match="2.3.14"):
        recipes.ghori_symmetric(S, Q, "K")


def test_novoselov_linear_characteristics_skate():
    """[Ghori 1960, ch. 4] with ω = (v, θ̇), v = ẋ cos θ + ẏ sin θ: v̇ = ẇ = 0 for the free skate [Benenti 2007,
    §9.1, eq. (9.1)]."""
    S, Q = systems.load("skate", forces=[0, 0, 0])
    x, y, th = S.Y.q
    xd, yd, thd = S.Y.qdot
    M = recipes.novoselov(S, Q, [xd * sp.cos(th) + yd * sp.sin(th), thd], symbols=["v", "w"])
    assert M.extras["zdot"] == {sp.Symbol("vdot"): 0, sp.Symbol("wdot"): 0}
    assert recipes.equivalent(recipes.krupkova(S, Q), M, reactions=False)


def test_novoselov_nonlinear_characteristics_parallel_velocities():
    """[Benenti 2007, §9.4] (ẋ₁ẏ₂ − ẋ₂ẏ₁ = 0) in the nonlinear coordinates ω = (ẋ₁, ẏ₁, ẋ₂ẏ₁): on Q,
    ẋ₂ = ω₃/ω₂ and ẏ₂ = ω₃/ω₁ [Ghori 1960, eq. (4.3.12)]; Appell's equations (4.3.14) agree with the core."""
    S, Q = systems.load("parallel_velocities")
    x1d, y1d, x2d, y2d = S.Y.qdot
    M = recipes.novoselov(S, Q, [x1d, y1d, x2d * y1d])
    w1, w2, w3 = sp.symbols("w1 w2 w3")
    phi = M.extras["phi"]
    assert is_zero(phi[x2d] - w3 / w2) and is_zero(phi[y2d] - w3 / w1)
    assert recipes.equivalent(recipes.krupkova(S, Q), M, reactions=False)


def test_novoselov_needs_n_minus_r_characteristics():
    S, Q = systems.load("skate")
    with pytest.raises(InputError, match="n − r = 2"):
        recipes.novoselov(S, Q, [S.Y.qdot[2]])
