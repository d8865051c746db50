"""Reliability audit 3, the parser's findings: number literals, log bases, non-real or infinite
Lagrangians, the number of coordinates, and the command line's numeric options.

Each case runs the ``jetgeo`` command in-process under a watchdog (as ``test_cli_corpus.py``
does) and checks the documented exit code — 2 for bad input, 1 for a limit reached, never 3 —
and one line of jetgeo's own on stderr.  The spec that once hung in a single C call (a Rational of
10⁹ digits, which no signal interrupts) runs as a real process with a timeout.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import sympy as sp

from jetgeo import FibredManifold, LagrangianSystem, cli, limits
from jetgeo.cli import main
from jetgeo.errors import InputError

HERE = Path(__file__).resolve().parent
SPECS = HERE / "specs"
ROOT = HERE.parents[1]
LIMIT = 10.0  # seconds per input

CASES = [
    # finding 3: number literals bounded in digits and exponent, refused on their text
    ("1e-5000", ["derive", "literal_exponent_5000.toml"], 2,
     r"^jetgeo: error: literal_exponent_5000\.toml: \[lagrangian\] L: number out of range: its decimal exponent "
     r"-5000 is below -308 \(the range of floating-point numbers\) in '1e-5000'$"),
    ("61-digit integer", ["derive", "literal_digits61.toml"], 2,
     r"^jetgeo: error: literal_digits61\.toml: \[lagrangian\] L: number with more than 60 digits in '1234"),
    # finding 4: log(x, 0) is not 0
    ("log base 0", ["derive", "log_base0.toml"], 2,
     r"^jetgeo: error: log_base0\.toml: \[lagrangian\] L: the base 0 of log\(x, base\) is not a positive number "
     r"other than 1 in 'log\(x, 0\)'$"),
    # finding 10: the number of coordinates, refused before any symbol is made
    ("3000 coordinates", ["check", "coordinates3000.toml"], 2,
     r"^jetgeo: error: coordinates3000\.toml: \[coordinates\] q: 3000 coordinates; at most 100 are supported$"),
    # finding 8 (the option half): numeric options validated by their type, exit 2 instead of 3
    ("--timeout 1e10", ["derive", "oscillator.toml", "--timeout", "1e10"], 2,
     r"argument --timeout: 1e\+10 seconds is more than the largest finite limit, 1e\+07 \(0 or inf: no limit\)"),
    ("--timeout 1e300", ["simulate", "oscillator.toml", "--t-end", "1", "--timeout", "1e300"], 2,
     r"argument --timeout: 1e\+300 seconds is more than the largest finite limit"),
    ("--compat-timeout 1e10", ["check", "oscillator.toml", "--compat-timeout", "1e10"], 2,
     r"argument --compat-timeout: 1e\+10 seconds is more than the largest finite limit"),
    ("--memory-limit 1e30", ["derive", "oscillator.toml", "--memory-limit", "1e30"], 2,
     r"argument --memory-limit: 1e\+30 megabytes is more than the largest finite limit, 1e\+09"),
    ("--connect-timeout nan", ["sweep", "oscillator.toml", "--t-end", "1", "--param", "x=0:1:2", "--scheduler",
                               "tcp://127.0.0.1:1", "--connect-timeout", "nan"], 2,
     r"argument --connect-timeout: expected a number of seconds > 0 and at most 1e\+07, got 'nan'"),
    ("--connect-timeout inf", ["sweep", "oscillator.toml", "--t-end", "1", "--param", "x=0:1:2", "--scheduler",
                               "tcp://127.0.0.1:1", "--connect-timeout", "inf"], 2,
     r"argument --connect-timeout: expected a number of seconds > 0"),
    # still accepted: inf and 0 mean no limit, 10^7 s is the largest finite one
    ("--timeout inf", ["derive", "oscillator.toml", "--timeout", "inf"], 0, None),
    ("--timeout 1e7", ["derive", "oscillator.toml", "--timeout", "1e7"], 0, None),
]


@pytest.fixture
def corpus_dir(tmp_path, monkeypatch):
    for p in SPECS.glob("*.toml"):
        shutil.copy(p, tmp_path / p.name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _watchdog(seconds: float):
    def boom(signum, frame):
        raise AssertionError(f"the command did not end within {seconds} s")

    old = signal.signal(signal.SIGALRM, boom)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    return old


def _run_main(argv: list) -> tuple:
    t0 = time.perf_counter()
    old = _watchdog(60)  # a hang fails the test instead of the suite
    try:
        got = main(argv)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    return got, time.perf_counter() - t0


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_parser_corpus_input(case, corpus_dir, capsys):
    name, argv, code, pattern = case
    got, elapsed = _run_main(argv)
    out, err = capsys.readouterr()
    assert got == code, f"exit {got}, expected {code}; stderr: {err[:500]}"
    assert elapsed < LIMIT, f"{name}: {elapsed:.1f} s"
    assert "Traceback" not in err
    if pattern is None:
        assert err == "", err
    else:
        assert err.endswith("\n") and err.count("\n") == 1, f"not one line: {err!r}"
        assert re.search(pattern, err), err


def test_tiny_literal_is_refused_at_once_as_a_process(corpus_dir):
    """``1e-999999999`` built a Rational of 10⁹ digits in one C call (> 200 s, no signal interrupts it)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    t0 = time.perf_counter()
    try:
        r = subprocess.run([sys.executable, "-m", "jetgeo.cli", "derive", "literal_exponent_huge.toml"],
                           capture_output=True, text=True, cwd=corpus_dir, env=env, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("the spec with 1e-999999999 did not load within 60 s")
    assert time.perf_counter() - t0 < 30
    assert r.returncode == 2, r.stderr
    assert r.stderr == ("jetgeo: error: literal_exponent_huge.toml: [lagrangian] L: number out of range: its decimal "
                        "exponent -999999999 is below -308 (the range of floating-point numbers) in '1e-999999999'\n")


def test_derive_has_a_default_time_limit(corpus_dir, capsys, monkeypatch):
    """``derive`` is bounded by default (``cli.DERIVE_TIMEOUT``); ``--timeout 0`` still means no limit.

    The default is made small here so that a derivation of about 1 s (20 constraints on 40
    velocities) runs out of it: the message names the default as the option that ran out.
    """
    assert cli.DERIVE_TIMEOUT > 0
    monkeypatch.setattr(cli, "DERIVE_TIMEOUT", 0.2)
    got, elapsed = _run_main(["derive", "chain40.toml"])
    err = capsys.readouterr().err
    assert got == 1, err
    assert re.fullmatch(r"jetgeo: ResourceLimitError: time limit of 0\.2 s reached during \w.* \(--timeout 0\.2 s; "
                        r"raise it, or 0 for no limit\)\n", err), err
    assert elapsed < LIMIT
    got, _ = _run_main(["derive", "oscillator.toml", "--timeout", "0"])
    assert got == 0 and capsys.readouterr().err == ""
    monkeypatch.setattr(cli, "DERIVE_TIMEOUT", 1e-3)  # only derive has the default: simulate is not bounded
    got, _ = _run_main(["simulate", "oscillator.toml", "--t-end", "1"])
    assert got == 0 and capsys.readouterr().err == ""


def test_time_limit_api_refuses_what_the_timer_cannot_hold():
    """``time_limit(1e10)`` overflowed ``setitimer`` (OverflowError); now an InputError names it."""
    with pytest.raises(InputError, match=r"time limit: 1e\+10 seconds is more than the largest finite limit"):
        with limits.time_limit(1e10):
            pass
    with pytest.raises(InputError, match=r"time limit: an integer beyond the range of floats is more than"):
        with limits.time_limit(10**5000):  # float() of it overflows
            pass
    with pytest.raises(InputError, match=r"memory limit: 1e\+30 megabytes is more than the largest finite limit"):
        with limits.memory_limit(1e30):  # setrlimit overflowed
            pass
    assert limits.check_seconds(limits.MAX_SECONDS) == limits.MAX_SECONDS
    with limits.time_limit(float("inf")):  # inf: no limit
        pass


@pytest.mark.parametrize("L,message", [
    (lambda x, xd: sp.I * (xd**2 / 2 - x**2 / 2), "is not real (it contains the imaginary unit)"),
    (lambda x, xd: sp.oo * xd + xd**2 / 2, "is not finite"),
    (lambda x, xd: sp.zoo * x + xd**2 / 2, "is not finite"),
    (lambda x, xd: sp.nan * x + xd**2 / 2, "is not finite"),
])
def test_lagrangian_must_be_real_and_finite(L, message):
    """``I*L`` and ``oo*xdot + L`` were accepted and gave wrong accelerations, silently."""
    Y = FibredManifold(["x"])
    with pytest.raises(InputError, match=re.escape(message)) as e:
        LagrangianSystem(Y, L(Y.q[0], Y.qdot[0]))
    assert str(e.value).startswith("the Lagrangian ")


def test_generalised_forces_must_be_real_and_finite():
    Y = FibredManifold(["x"])
    x, xd = Y.q[0], Y.qdot[0]
    for force in (sp.I * x, sp.oo * xd, sp.zoo):
        with pytest.raises(InputError, match=r"^the generalised force .* is not real and finite$"):
            LagrangianSystem(Y, xd**2 / 2, forces=[force])
    assert LagrangianSystem(Y, xd**2 / 2, forces=[-x]).accelerations() == {Y.qddot[0]: -x}
