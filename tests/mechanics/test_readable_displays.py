"""Displays built on jetgeo.geometry.readable: ConstrainedSystem, NormalForm, Classification,
MomentumEquation, SteadyMotion.

Independent truths: the printed LaTeX is compared with sympy's own printing of the expected
(hand-written) textbook expressions, and the readable accelerations are checked equal to
``accelerations()`` by the zero test.
"""

from __future__ import annotations

import sympy as sp

from jetgeo import ConstraintSubmanifold, FibredManifold, LagrangianSystem
from jetgeo.geometry import zero_tests
from jetgeo.mechanics import momentum_equation, steady_motions
from jetgeo.systems import load


def test_constrained_system_latex_shows_readable_accelerations():
    cs = load("rolling_disc").constrained()
    tex = cs._repr_latex_()
    assert tex.startswith("$\\begin{gathered}") and tex.endswith("$")
    assert r"\ddot{\theta}" in tex and r"\dot{x} &=" in tex
    # the denominator A + a²m sin²ψ sin²θ + a²m sin²θ cos²ψ + a²m cos²θ of θ̈ is shown reduced
    assert sp.latex(sp.Symbol("A") + sp.Symbol("a") ** 2 * sp.Symbol("m")) in tex
    assert r"\sin^{2}{\left(\psi \right)}" not in tex
    r = cs.readable_accelerations()
    acc = cs.accelerations()
    back = r.expand()
    assert all(t.zero for t in zero_tests([back[k] - acc[k] for k in acc]))


def test_normal_form_latex_and_validity_condition():
    nf = load("rolling_disc", form="nonlinear").constrained().nf
    tex = nf._repr_latex_()
    assert tex.startswith("$\\begin{aligned}") and r"\dot{x} &=" in tex and r"\dot{y} &=" in tex
    assert ("valid where" in tex) == bool(sp.sympify(nf.condition).free_symbols)


def test_classification_html_and_latex():
    c = load("rolling_disc").constrained().Q.classify()
    html = c._repr_html_()
    assert html.startswith("<table>") and f"<td>{c.kind}</td>" in html and "integrable" in html
    tex = c._repr_latex_()
    assert tex.startswith(r"$\text{" + c.kind)
    assert "_" not in tex.replace(r"\_", "")  # LaTeX's special characters are escaped


def test_momentum_equation_latex():
    Y = FibredManifold(["x", "y", "th"])
    x, y, th = Y.q
    xd, yd, thd = Y.qdot
    cs = LagrangianSystem(Y, (xd**2 + yd**2 + thd**2) / 2).constrain(
        ConstraintSubmanifold(Y, [-xd * sp.sin(th) + yd * sp.cos(th)], dependent=[yd]))
    [me] = momentum_equation(cs, [{th: 1}], section=[[1]])
    tex = me._repr_latex_()
    assert tex == r"$\begin{aligned}\frac{d}{dt}\left(" + sp.latex(thd) + r"\right) &= 0\end{aligned}$"


def test_steady_motion_latex_shows_values_and_rates():
    cs = load("rolling_disc").constrained()
    syms = {s.name: s for s in cs.coordinates}
    W = sp.Symbol("Omega")
    # rolling straight upright (θ = π/2: the disc's plane vertical), heading ψ = 0, spin rate Ω
    [sm] = steady_motions(cs, {syms["theta"]: sp.pi / 2, syms["psi"]: 0, syms["psidot"]: 0, syms["phidot"]: W})
    assert sm.rates
    tex = sm._repr_latex_()
    assert tex.startswith("$\\begin{aligned}")
    for k in sm.rates:
        assert sp.latex(sp.Symbol(f"{k}dot")) + " &=" in tex
