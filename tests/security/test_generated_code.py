"""Generated code (``jetgeo derive --format python|text``, compiled right-hand sides) embeds user
names only as escaped literals: importing the generated module runs nothing else."""

from __future__ import annotations

import builtins
import math

import numpy as np
import pytest
import sympy as sp

from jetgeo.cli import main
from jetgeo.errors import InputError
from jetgeo.io.emit import one_line, python_module
from jetgeo.numerics.compile import _check_generated, compile_rhs

HOSTILE_NAME = 'x"""\n__import__("builtins").__setattr__("JETGEO_CANARY", 1)\n"""'

SPEC = '''
name = {name}
[coordinates]
q = [{coords}]
[parameters]
m = "positive"
[lagrangian]
L = "m/2*({q0}dot**2 + {q1}dot**2) - m*{q1}"
[constraints]
implicit = ["{q0}dot - {q1}dot*{q0}"]
'''


def _spec(tmp_path, name, q0="x", q1="y", file="s.toml"):
    import json

    p = tmp_path / file
    p.write_text(SPEC.format(name=json.dumps(name), coords=f'"{q0}", "{q1}"', q0=q0, q1=q1), encoding="utf-8")
    return p


@pytest.fixture(autouse=True)
def _no_canary():
    if hasattr(builtins, "JETGEO_CANARY"):
        delattr(builtins, "JETGEO_CANARY")
    yield
    assert not hasattr(builtins, "JETGEO_CANARY"), "generated code executed a user's text"


def test_python_output_with_a_hostile_name_defines_only_the_function(tmp_path, capsys):
    spec = _spec(tmp_path, HOSTILE_NAME)
    assert main(["derive", str(spec), "--format", "python"]) == 0
    code = capsys.readouterr().out
    ns: dict = {}
    exec(compile(code, "generated", "exec"), ns)  # the generated module, as a user would import it
    assert ns["SYSTEM"] == HOSTILE_NAME  # the name survives, as data
    assert sorted(k for k in ns if not k.startswith("__")) == ["METHOD", "SYSTEM", "_jetgeo_math", "accelerations"]


def test_text_output_keeps_a_name_on_one_line(tmp_path, capsys):
    spec = _spec(tmp_path, "a\nxddot = 0  # injected")
    assert main(["derive", str(spec), "--format", "text"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "# a\\nxddot = 0  # injected: equations of motion by krupkova"
    assert sum(line.startswith("xddot =") for line in out.splitlines()) == 1


def test_coordinates_named_like_modules_and_builtins_do_not_shadow_them(tmp_path, capsys):
    """A coordinate ``math`` (and one called ``max``) with a sine in the equations: the generated
    function still computes with the math module, and the values are right."""
    p = tmp_path / "m.toml"
    p.write_text('''
name = "shadow"
[coordinates]
q = ["math", "float"]
[parameters]
m = "positive"
[lagrangian]
L = "m/2*(mathdot**2 + floatdot**2) + m*cos(math)"
''', encoding="utf-8")
    assert main(["derive", str(p), "--format", "python"]) == 0
    code = capsys.readouterr().out
    ns: dict = {}
    exec(compile(code, "generated", "exec"), ns)
    acc = ns["accelerations"](0.0, 0.7, 2.0, 0.0, 0.0, 1.5)  # t, math, float, mathdot, floatdot, m
    assert acc["mathddot"] == pytest.approx(-math.sin(0.7))  # m ẍ = −m sin x
    assert acc["floatddot"] == 0


def test_python_module_refuses_non_symbol_arguments_and_checks_its_output():
    x = sp.Symbol("x")
    with pytest.raises(InputError):
        python_module("t", "s", "m", ["x"], {})
    src = python_module("t", "s", "m", [x], {"xddot": sp.sin(x) + abs(x)})
    ns: dict = {}
    exec(compile(src, "g", "exec"), ns)
    assert ns["accelerations"](-0.5)["xddot"] == pytest.approx(math.sin(-0.5) + 0.5)
    assert one_line("a\r\nb\x1b[2J") == "a\\r\\nb\\x1b[2J"


def test_compiled_rhs_name_and_source_are_checked():
    x = sp.Symbol("x")
    with pytest.raises(InputError):
        compile_rhs([x], [x], [], name="f(): pass\nimport os\ndef g")
    with pytest.raises(InputError):
        _check_generated("def rhs(_t, _y, _p):\n    return __import__('os')\n", "rhs")
    with pytest.raises(InputError):
        _check_generated("def rhs(_t, _y, _p):\n    return _np.__class__\n", "rhs")
    f = compile_rhs([sp.Max(x, 1) + sp.Abs(x)], [x], [], vectorized=True)  # functools.reduce in numpy code
    assert f(0, [np.array([-2.0, 3.0])], []).tolist() == [[3.0, 6.0]]


@pytest.mark.parametrize("body", [
    "import os\n    return 0",                             # an import
    "from numpy import load\n    return 0",
    "return (lambda: 0)()",                                 # nested code
    "return [_c for _c in _y]",
    "class _c0: pass\n    return 0",
    "def _c0(): pass\n    return 0",
    "return eval('1')",                                     # builtins outside the list
    "return open('/etc/passwd')",
    "return getattr(_np, 'load')",
    "return _y.tofile",                                     # an attribute no module has
    "return _np.__dict__",                                  # a private attribute
    "global _c0\n    _c0 = 1\n    return 0",                # a global store
    "_y.x = 1\n    return 0",                               # an attribute store
    "return _np.save(_t, _y)",                              # harmless name, but...
    "return numpy.array('data')",                           # a string constant
    "x = 1\n    return x",                                  # a local not of the generated kinds
])
def test_generated_code_check_refuses(body):
    """Every construct outside the generated code's whitelist is refused before ``exec``; the
    check reads the compiled code object (names, constants, instructions)."""
    src = f"def rhs(_t, _y, _p):\n    {body}\n"
    if body == "return _np.save(_t, _y)":  # a public numpy name on the module: allowed, like numpy.sin
        _check_generated(src, "rhs")
        return
    with pytest.raises(InputError):
        _check_generated(src, "rhs")


@pytest.mark.parametrize("src", [
    "import os\ndef rhs(_t, _y, _p):\n    return 0\n",      # module-level code besides the function
    "def rhs(_t, _y, _p=os.system('x')):\n    return 0\n",  # a default argument
    "@print\ndef rhs(_t, _y, _p):\n    return 0\n",          # a decorator
    "def rhs(_t, _y, _p, *a):\n    return 0\n",             # another signature
    "def other(_t, _y, _p):\n    return 0\n",               # another name
])
def test_generated_code_check_refuses_module_structure(src):
    with pytest.raises(InputError):
        _check_generated(src, "rhs")


def test_generated_code_check_accepts_the_printers_output():
    """What the printers produce passes: nan/inf, keyword arguments, a folded shape, numpy.select."""
    x, y = sp.symbols("x y")
    e = [sp.Piecewise((x, x > 0), (y, True)), sp.Max(x, y), -sp.oo * 0 + x, sp.exp(x) ** -3, x * sp.pi]
    f = compile_rhs(sp.Matrix(5, 1, e), [x, y], [], name="rhs")
    assert compile_rhs([x - sp.oo], [x], [])(0.0, [1.0], [])[0] == -math.inf
    v = f(0.0, [4.0, 1.0], [])
    assert v.shape == (5, 1) and v[0, 0] == 4.0 and v[1, 0] == 4.0 and math.isnan(v[2, 0])
    g = compile_rhs(e, [x, y], [], vectorized=True)
    assert g(0.0, [np.array([4.0, -0.25]), np.array([1.0, 2.0])], [])[0].tolist() == [4.0, 2.0]
