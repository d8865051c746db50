"""Display-only tidying of printed conditions and equations (``jetgeo check``, ``derive --simplify``, results'
``__str__``/LaTeX): the sleigh's regularity determinant m(I sin²θ + I cos²θ + a²m sin⁴θ + …)/cos²θ is shown
as m(I + a²m)/cos²θ, while the computed expression is untouched."""

from __future__ import annotations

import sympy as sp

from jetgeo.cli import main
from jetgeo.geometry.display import tidy
from jetgeo.geometry.zero import is_zero
from jetgeo.io import load_spec
from jetgeo.io.specs import spec_path


def test_check_prints_tidied_conditions(capsys):
    assert main(["check", "chaplygin_sleigh", "--compat-timeout", "60"]) == 0
    out = capsys.readouterr().out
    assert "regular where m*(I + a**2*m)/cos(theta)**2 != 0" in out
    assert "sin(theta)**4" not in out


def test_derive_simplify_and_conditions(capsys):
    assert main(["derive", "chaplygin_sleigh", "--simplify"]) == 0
    out = capsys.readouterr().out
    assert "thetaddot = -a*m*thetadot*xdot/((I + a**2*m)*cos(theta))" in out
    assert "# valid where these do not vanish: cos(theta), m*(I + a**2*m)/cos(theta)**2" in out
    assert main(["derive", "chaplygin_sleigh"]) == 0                    # conditions tidied without --simplify too
    assert "m*(I + a**2*m)/cos(theta)**2" in capsys.readouterr().out


def test_tidy_is_display_only():
    spec = load_spec(spec_path("chaplygin_sleigh"))
    cs = spec.constrained()
    reg = cs.regularity_condition()
    shown = tidy(reg)
    assert str(shown) == "m*(I + a**2*m)/cos(theta)**2"
    assert is_zero(shown - reg) and shown != reg          # equal, and the computed result is not replaced
    assert cs.regularity_condition() == reg
    from jetgeo import recipes

    motion = recipes.chaplygin(spec.system, spec.Q)
    assert "valid where these do not vanish: -m*(I + a**2*m), cos(theta)" in str(motion)
    assert r"\cos{\left(\theta \right)}" in motion._repr_latex_()
    big = sp.Add(*[sp.Symbol(f"x{i}") * sp.sin(sp.Symbol("t")) ** 2 for i in range(200)])
    assert tidy(big) is big                                  # above the size limit: shown as it is


def test_simplify_announces_a_large_job_with_its_size_estimate(capsys):
    """``--simplify`` on large results: the size estimate on stderr before the work starts (the
    bar itself only in a terminal); the tidied values equal the inputs."""
    import sympy as sp

    from jetgeo.cli import _simplified
    from jetgeo.geometry.exact import size_estimate

    x, y = sp.symbols("x y")
    big = sp.Add(*[(x + k) ** 2 / (y + 1) for k in range(300)])
    out = _simplified({"a": big, "b": x * y / y})
    err = capsys.readouterr().err
    assert "--simplify" in err and str(size_estimate([big, x])) in err
    assert sp.cancel(out["a"] - big) == 0 and out["b"] == x
    _simplified({"b": x * y / y})  # small: silent
    assert capsys.readouterr().err == ""
