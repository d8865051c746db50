"""Rich display of the implicit layer's reports (issue 7: reports render in Jupyter)."""

from __future__ import annotations

import sympy as sp

from jetgeo import ConstraintSubmanifold, FibredManifold, LagrangianSystem, NonholonomicProblem


def test_compatibility_and_integrability_reports_render():
    Y = FibredManifold(["x", "y", "theta"])
    _x, _y, th = Y.q
    xd, yd, thd = Y.qdot
    m, I = sp.symbols("m I", positive=True)
    P = NonholonomicProblem(LagrangianSystem(Y, m / 2 * (xd**2 + yd**2) + I / 2 * thd**2),
                            ConstraintSubmanifold(Y, [xd * sp.sin(th) - yd * sp.cos(th)]))
    rep = P.compatibility()
    tex = rep._repr_latex_()
    assert tex.startswith("$") and tex.endswith("$") and r"\det M" in tex and "compatible" in tex
    assert sp.latex(rep.determinant) in tex
    html = P.integrability()._repr_html_()
    assert html.startswith("<pre") and "step" in html and "green" in html
