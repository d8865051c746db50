"""Fuzzing the command line's numeric options (reliability audit 3, findings 8 and 10).

The spec fuzzers (``benchmarks/fuzz_spec.py``, ``tests/io/test_spec.py::test_fuzz_cli_never_crashes``)
vary the spec; this one varies the value of one numeric option of ``derive``, ``check``,
``simulate`` or ``sweep`` — ``nan``, ``inf``, negative, huge, tiny, garbage text, any float or
integer — on a spec that is quick to derive and integrate.  Every command must end with exit 0
(success), 1 (a limit reached) or 2 (a bad option, one line of jetgeo's own on stderr), never 3,
and within seconds: ``--timeout 1e10`` once overflowed the interval timer (exit 3) and
``--connect-timeout nan`` went to the Dask client.  Each run of a command is bounded by
``--timeout 2`` unless the option fuzzed is a time limit itself; ``sweep`` is only parsed
(an accepted value would start an ensemble).  Deterministic: the ``ci`` hypothesis profile of
``tests/conftest.py``.
"""

from __future__ import annotations

import contextlib
import io
import signal
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jetgeo.cli import build_parser, main

SPEC = '[coordinates]\nq = ["x"]\n[lagrangian]\nL = "xdot**2/2 - 2*x**2"\n[initial]\nx = 1\nxdot = 0\n'
GUARD = ["--timeout", "2"]

#: (command, option, the other arguments the command needs)
OPTIONS = [
    ("derive", "--timeout", []),
    ("derive", "--memory-limit", GUARD),
    ("check", "--compat-timeout", GUARD),
    ("check", "--timeout", ["--compat-timeout", "20"]),
    ("simulate", "--t-end", GUARD),
    ("simulate", "--points", ["--t-end", "1", *GUARD]),
    ("simulate", "--rtol", ["--t-end", "1", *GUARD]),
    ("simulate", "--atol", ["--t-end", "1", *GUARD]),
    ("simulate", "--max-step", ["--t-end", "1", *GUARD]),
    ("simulate", "--timeout", ["--t-end", "1"]),
]
SWEEP = ["--connect-timeout", "--t-end", "--points"]

HOSTILE = ["nan", "-nan", "inf", "-inf", "Infinity", "-1", "0", "-0", "1e10", "9.3e9", "1e300", "1e400", "1e-300",
           "5e-324", "1e7", "10000001", "abc", "", " ", "1_0", "0x10", "1e", "--", "NaN", "3"]
VALUES = st.one_of(
    st.sampled_from(HOSTILE),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(-(10**30), 10**30).map(str),
    st.text(alphabet="0123456789.e+-_ naif", max_size=8),
)


def _watchdog(seconds: float):
    def boom(signum, frame):
        raise AssertionError(f"the command did not end within {seconds} s")

    old = signal.signal(signal.SIGALRM, boom)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    return old


@pytest.fixture
def spec(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "osc.toml"
    path.write_text(SPEC, encoding="utf-8")
    return path


def test_fuzz_numeric_options_never_exit_3(spec: Path):
    seen: dict = {}

    @given(st.sampled_from(OPTIONS), VALUES)
    def fuzz(option, value):
        command, name, rest = option
        out, errs = io.StringIO(), io.StringIO()
        t0 = time.perf_counter()
        old = _watchdog(60)
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(errs):
                code = main([command, str(spec), *rest, f"{name}={value}"])
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
        elapsed = time.perf_counter() - t0
        err = errs.getvalue()
        seen[code] = seen.get(code, 0) + 1
        assert code in (0, 1, 2), f"{command} {name}={value!r}: exit {code}: {err}"
        assert "Traceback" not in err and "internal error" not in err, err
        if code:
            assert err.startswith("jetgeo") and err.count("\n") == 1, f"{command} {name}={value!r}: {err!r}"
        assert elapsed < 15, f"{command} {name}={value!r}: {elapsed:.1f} s"

    fuzz()
    print(f"\nCLI option fuzz: exit codes {seen}")
    assert seen.get(2), seen  # the hostile values were refused, not only accepted


@given(st.sampled_from(SWEEP), VALUES)
def test_fuzz_sweep_options_are_checked_by_their_type(name, value):
    """``sweep``'s numeric options: parsed (exit 2 for a bad value) or accepted as a number, never passed on
    as nan; --connect-timeout must be finite and > 0."""
    argv = ["sweep", "osc.toml", "--t-end", "1", "--param", "x=0:1:2", "--scheduler", "tcp://127.0.0.1:1",
            f"{name}={value}"]
    errs = io.StringIO()
    try:
        with contextlib.redirect_stderr(errs):
            args = build_parser().parse_args(argv)
    except SystemExit as exc:
        assert exc.code == 2 and errs.getvalue().count("\n") == 1, errs.getvalue()
        return
    if name == "--connect-timeout":
        assert 0 < args.connect_timeout <= 1e7
