"""The safe expression parser: the whitelist, its limits, and a hostile corpus."""

from __future__ import annotations

import builtins
import os
import time
from pathlib import Path

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from jetgeo.errors import SpecError
from jetgeo.geometry.realfunctions import Abs as RealAbs
from jetgeo.io import parse_expression

x, y, th = sp.symbols("x y theta")
m = sp.Symbol("m", positive=True)
NAMES = {"x": x, "y": y, "theta": th, "m": m}


def P(text, names=NAMES, where="spec.toml: [lagrangian] L"):
    return parse_expression(text, names, where=where)


# --- what is accepted, checked against sympy objects built by hand -------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("m/2*(x**2 + y**2)", m / 2 * (x**2 + y**2)),
        ("-x + +y - -theta", -x + y + th),
        ("x**2**3", x**8),  # ** is right-associative, as in Python
        ("0.5*x + 1e-3*y", sp.Rational(1, 2) * x + sp.Rational(1, 1000) * y),  # floats read as exact decimals
        ("1_000*x", 1000 * x),
        ("atan2(y, x) + sqrt(x) + log(x, 2)", sp.atan2(y, x) + sp.sqrt(x) + sp.log(x) / sp.log(2)),
        ("sin(theta)**2 + cos(theta)**2", sp.sin(th) ** 2 + sp.cos(th) ** 2),
        ("pi*exp(x)*abs(y)", sp.pi * sp.exp(x) * RealAbs(y)),  # |y| of a real y (its derivative is sign)
        ("x**(1/2)", sp.sqrt(x)),
        ("2**100", sp.Integer(2) ** 100),
        (3, sp.Integer(3)),
        (0.25, sp.Rational(1, 4)),
    ],
)
def test_accepted_expressions_build_the_same_sympy_object(text, expected):
    assert sp.expand(P(text) - expected) == 0


def test_long_sums_are_not_nesting():
    # a left-associated chain is walked iteratively: 500 terms parse, the depth limit is 60
    e = P(" + ".join(f"{k}*x**{k % 7}" for k in range(1, 501)))
    assert e.subs(x, 1) == sum(range(1, 501))


# --- error messages (exact) ---------------------------------------------------------------------------------


def test_unknown_symbol_message():
    with pytest.raises(SpecError) as e:
        P("m/2*x**2 + k*x")
    assert str(e.value) == (
        "spec.toml: [lagrangian] L: unknown symbol 'k' in 'm/2*x**2 + k*x' (declared here: m, theta, x, y)"
    )


def test_wrong_arity_message():
    with pytest.raises(SpecError) as e:
        P("sin(x, y) + 1")
    assert str(e.value) == "spec.toml: [lagrangian] L: function 'sin' takes 1 argument, got 2 in 'sin(x, y)'"
    with pytest.raises(SpecError) as e:
        P("atan2(y)")
    assert str(e.value) == "spec.toml: [lagrangian] L: function 'atan2' takes 2 arguments, got 1 in 'atan2(y)'"


def test_hidden_symbol_message():
    with pytest.raises(SpecError) as e:
        parse_expression("x*xddot", {"x": x}, where="f: [lagrangian] L", hidden={"xddot": "accelerations may not "
                                                                                             "appear here"})
    assert str(e.value) == (
        "f: [lagrangian] L: the symbol 'xddot' is not allowed here (accelerations may not appear here) in 'x*xddot'"
    )


@pytest.mark.parametrize(
    "text, message",
    [
        ("x^2", "operator '^' (use ** for powers) is not allowed in 'x^2'"),
        ("1/0", "division by zero in '1/0'"),
        ("0**-1", "division by zero in '0**-1'"),
        ("foo(x)", "unknown function 'foo' (allowed: Abs, abs, acos, acosh, asin, asinh, atan, atan2, atanh, cbrt, "
                   "cos, cosh, cot, csc, exp, log, sec, sign, sin, sinh, sqrt, tan, tanh) in 'foo(x)'"),
        ("m(x)", "'m' is not a function in 'm(x)'"),
        ("sin", "the function 'sin' must be called, e.g. sin(x) in 'sin'"),
        ("sin(x=1)", "keyword arguments are not allowed in sin() in 'sin(x=1)'"),
        ("sqrt(-1)*x", "'sqrt(-1)*x' is not real (it contains the imaginary unit)"),
        ("", "empty expression"),
        ("x +", "syntax error in 'x +': invalid syntax"),
        ("True", "the literal True is not a number in 'True'"),
    ],
)
def test_rejections_with_exact_messages(text, message):
    with pytest.raises(SpecError) as e:
        P(text)
    assert str(e.value) == "spec.toml: [lagrangian] L: " + message


# --- hostile corpus ----------------------------------------------------------------------------------------------

CANARY = Path("/tmp/jetgeo_parse_canary")

HOSTILE = [
    f"__import__('os').system('touch {CANARY}')",
    f"__import__('pathlib').Path('{CANARY}').touch()",
    f"open('{CANARY}', 'w')",
    "exec('import os')",
    "eval('1')",
    "compile('1', 'x', 'eval')",
    "getattr(x, '__class__')",
    "x.__class__.__mro__",
    "().__class__.__base__.__subclasses__()",
    "__builtins__",
    "__import__",
    "_x",
    "x.real",
    "sin.__globals__",
    "lambda: 1",
    "(lambda q: q)(x)",
    "[c for c in 'abc']",
    "{c: 1 for c in 'ab'}",
    "sum(c for c in (1, 2))",
    "x[0]",
    "x if y else m",
    "x < y",
    "x and y",
    "(x := 1)",
    "'abc' * 10**9",
    "b'abc'",
    "f'{x}'",
    "*x",
    "10**10**10",
    "2**(2**(2**(2**(2**(2**(2**10))))))",
    "(10**100)**100",
    "((x + 1)**100)**100",
    "(x**-100)**100",
    "9**9**9**9",
    "x**(10**10*y)",
    "10**1000000",
    "1" * 5000,
    "(" * 100_000 + "x" + ")" * 100_000,
    "-" * 100_000 + "x",
    "x" + "**x" * 5_000,
    "x" + "+x" * 10_000,
    "sin(" * 500 + "x" + ")" * 500,
    "x" * 30_000,
    "1e999*x",
    "x\x00",
    "import os",
    "x; y",
    "x\ny",
]


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_corpus_rejected_quickly_and_nothing_executes(text, monkeypatch):
    calls = []
    real_import = builtins.__import__

    def spy(name, *args, **kwargs):  # any import triggered by the parse is recorded
        calls.append(name)
        return real_import(name, *args, **kwargs)

    CANARY.unlink(missing_ok=True)
    monkeypatch.setattr(builtins, "__import__", spy)
    real_exec, real_eval = builtins.exec, builtins.eval

    def spy_exec(src, *args, **kwargs):  # imports exec code objects; text given to exec would be the spec's
        if isinstance(src, (str, bytes)):
            calls.append("exec")
        return real_exec(src, *args, **kwargs)

    def spy_eval(src, *args, **kwargs):
        calls.append("eval")
        return real_eval(src, *args, **kwargs)

    monkeypatch.setattr(builtins, "exec", spy_exec)
    monkeypatch.setattr(builtins, "eval", spy_eval)
    t0 = time.perf_counter()
    with pytest.raises(SpecError) as e:
        P(text)
    elapsed = time.perf_counter() - t0
    monkeypatch.undo()
    assert str(e.value).startswith("spec.toml: [lagrangian] L: ")
    assert elapsed < 0.5, f"rejection took {elapsed:.3f} s"
    assert not CANARY.exists()
    assert "os" not in calls and "exec" not in calls and "eval" not in calls
    assert len(str(e.value)) < 600  # the message quotes a bounded snippet


def test_hostile_corpus_messages_name_the_offence():
    def msg(t):
        with pytest.raises(SpecError) as e:
            P(t)
        return str(e.value)

    assert "only named functions may be called (found attribute access)" in msg(HOSTILE[0])
    assert "unknown function 'open'" in msg(HOSTILE[2])
    assert "names may not start with '_'" in msg("__builtins__")
    assert "lambda is not allowed" in msg("lambda: 1")
    assert "comprehension is not allowed" in msg("[c for c in 'abc']")
    assert "exponent larger than 100 in absolute value in '10**10**10'" in msg("10**10**10")
    assert "brackets nested deeper than 60 levels" in msg("(" * 100 + "x" + ")" * 100)
    # sympy would combine this into (x + 1)**10000, whose expansion in a derivation never ends; the
    # static estimate refuses it on the syntax tree, at its inner power of degree 100 already
    assert msg("((x + 1)**100)**100") == (
        "spec.toml: [lagrangian] L: polynomial degree up to 100 (limit 32) in '(x + 1)**100'"
    )


# --- fuzzing: nothing but SpecError, ever ------------------------------------------------------------------------

ALPHABET = "xym01239.+-*/()_ ,eEjsincoqrtlgab*[]{}'\"=:\\\n#@^%~<>!&|;lambda__import__"
TOKENS = ["x", "y", "m", "theta", "1", "2.5", "1e3", "+", "-", "*", "/", "**", "(", ")", ",", "sin(", "sqrt(",
          "atan2(", "log(", "pi", "__", "import", ".", "lambda", ":", "[", "]", "10**", "'s'", " ", "j", "not ",
          "if", "else", "for", "in", "=", ";", "\\", "\x00", "é", "∂"]


#: JETGEO_FUZZ_EXAMPLES=5000 python -m pytest tests/io -k fuzz   for a long run
FUZZ_EXAMPLES = int(os.environ.get("JETGEO_FUZZ_EXAMPLES", "300"))


def test_fuzz_expression_parser_raises_only_spec_error():
    # the count is kept inside the test, so that it holds whatever subset of tests is run
    count = 0

    @settings(max_examples=FUZZ_EXAMPLES, deadline=None)
    @given(st.one_of(st.text(alphabet=ALPHABET, max_size=60),
                     st.lists(st.sampled_from(TOKENS), max_size=30).map("".join)))
    def fuzz(text):
        nonlocal count
        count += 1
        try:
            e = P(text)
        except SpecError:
            return
        assert isinstance(e, sp.Basic)
        assert e.free_symbols <= set(NAMES.values())

    fuzz()
    assert count >= min(100, FUZZ_EXAMPLES)
    print(f"\nexpression fuzz: {count} cases, 0 exceptions other than SpecError")


# --- number literals and log bases (reliability audit 3, findings 3 and 4) -----------------------------------


@pytest.mark.parametrize(
    "text, message",
    [
        # refused on the literal's text, before any number is built
        ("x*1e-5000", "number out of range: its decimal exponent -5000 is below -308 (the range of floating-point "
                      "numbers) in '1e-5000'"),
        ("x*0.001e-306", "number out of range: its decimal exponent -309 is below -308 (the range of floating-point "
                         "numbers) in '0.001e-306'"),
        ("x*1e400", "number is not finite in '1e400'"),
        # 61 and 71 digits passed the 60-digit limit (it was 4 bits a digit, 72 digits)
        ("x*" + "9" * 61, "number with more than 60 digits in '" + "9" * 37 + "...'"),
        ("x*" + "1" * 71, "number with more than 60 digits in '" + "1" * 37 + "...'"),
        ("x*1." + "0" * 60, "number with more than 60 digits in '1." + "0" * 35 + "...'"),
        # a 5000-digit integer: jetgeo's message, not Python's "Exceeds the limit (4300 digits)"
        ("x + " + "7" * 5000, "number with more than 60 digits in '" + "7" * 37 + "...'"),
        # sympy's log(x, 0) is log(x)/zoo = 0
        ("x + log(x, 0)", "the base 0 of log(x, base) is not a positive number other than 1 in 'log(x, 0)'"),
        ("log(x, 1)", "the base 1 of log(x, base) is not a positive number other than 1 in 'log(x, 1)'"),
        ("log(x, -2)", "the base -2 of log(x, base) is not a positive number other than 1 in 'log(x, -2)'"),
        ("log(x, cos(0))", "the base 1 of log(x, base) is not a positive number other than 1 in 'log(x, cos(0))'"),
    ],
)
def test_literals_and_log_bases_refused_with_exact_messages(text, message):
    t0 = time.perf_counter()
    with pytest.raises(SpecError) as e:
        P(text)
    assert time.perf_counter() - t0 < 1.0
    got = str(e.value)
    assert got.startswith("spec.toml: [lagrangian] L: " + message), got
    assert "Exceeds the limit" not in got


@pytest.mark.parametrize(
    "text, expected",
    [
        ("x*" + "9" * 60, x * (10**60 - 1)),  # 60 digits: the limit itself
        ("x*1.5e-308", x * sp.Rational(15, 10**309)),
        ("x*1.7e308", x * 17 * sp.Integer(10) ** 307),
        ("x*0.000000000000000000000000000000000000000000000000000000000000000000001", x / sp.Integer(10) ** 69),
        ("x*1_000.5e-3", x * sp.Rational(10005, 10000)),
        ("log(x, 2) + log(x, pi) + log(x, m)", sp.log(x) / sp.log(2) + sp.log(x) / sp.log(sp.pi)
         + sp.log(x) / sp.log(m)),
    ],
)
def test_literals_and_log_bases_within_the_limits(text, expected):
    assert sp.expand(P(text) - expected) == 0


_RANGE = "is below -308 (the range of floating-point numbers) in"


@pytest.mark.parametrize("literal, printed", [
    ("1.5e-999999999", f"SpecError f: number out of range: its decimal exponent -999999999 {_RANGE} '1.5e-999999999'"),
    ("1e-" + "9" * 30,
     f"SpecError f: number out of range: its decimal exponent -{'9' * 16}... {_RANGE} '1e-{'9' * 30}'"),
    ("0e-999999999", "0"),  # zero, whatever its exponent
])
def test_huge_exponent_costs_nothing(literal, printed):
    """Such a literal was built as an exact Rational of 10^999999999 in one C call that no signal interrupts
    (> 200 s): run in a process of its own, with a timeout."""
    import subprocess
    import sys

    code = ("from jetgeo.io import parse_expression\n"
            "try:\n"
            f"    print(parse_expression('x*{literal}', {{'x': 1}}, where='f'))\n"
            "except Exception as exc:\n"
            "    print(type(exc).__name__, exc)\n")
    root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")}
    try:
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
    except subprocess.TimeoutExpired:
        pytest.fail(f"x*{literal} did not parse within 60 s")
    assert r.stdout == printed + "\n", r.stderr


@pytest.mark.parametrize("name, what", [("I", "the imaginary unit"), ("oo", "infinity"), ("zoo", "complex infinity"),
                                        ("nan", "not a number"), ("inf", "infinity")])
def test_non_real_constants_are_named(name, what):
    """``I*L`` and ``oo*xdot + L`` (finding 4): refused with what sympy would have read them as; a spec may still
    declare a (real) symbol of that name."""
    with pytest.raises(SpecError) as e:
        P(f"{name}*(x**2/2) + y")
    assert str(e.value) == (f"spec.toml: [lagrangian] L: {name!r} ({what}) is not allowed: an expression must be "
                            f"real and finite in '{name}*(x**2/2) + y'")
    own = sp.Symbol(name, real=True)
    assert P(f"{name}*x", {**NAMES, name: own}) == own * x
