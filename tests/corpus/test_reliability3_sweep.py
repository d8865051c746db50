"""Reliability audit 3 through ``jetgeo sweep``: hostile members, absurd sizes, values against a
parameter's assumptions, members that cross chart boundaries of Q, and the exit code of a sweep
whose members did not all reach the end.

Each case runs the command in-process (``jetgeo.cli.main``) under a watchdog, on a shipped spec or
one of ``tests/corpus/specs``, and checks the documented exit code (0 every member reached
``--t-end``, 1 some did not, 2 bad input), the one line on stderr, and what stdout says about the
members.  Every case failed on the code before the fix: findings 1 and 10 ran for ever or exited 3,
finding 4 integrated m = −1 with status ok, finding 7 stopped members at θ = π/2 and exited 0.
"""

from __future__ import annotations

import re
import signal
import time
from pathlib import Path

import pytest

from jetgeo.cli import main

SPECS = Path(__file__).resolve().parent / "specs"
LIMIT = 30.0  # seconds per case (each takes 1-3 s; the hostile ones used to run for ever)

# (id, argv, exit code, regular expression of the stderr line (None: empty), of stdout (None: not checked))
CASES = [
    # finding 1: a member whose first step overflows fails alone; the healthy member is kept
    ("thetadot 1e200 on the skate", ["skate", "--t-end", "1", "--points", "3", "--param", "thetadot=1:1e200:2"], 1,
     r"skate: 1 of 2 members did not reach t = 1 \(failed 1;", r"ok 1, failed 1[\s\S]*member 1 \(thetadot = "
     r"1e\+200\): failed: integration failed at t = 0: the state or the right-hand side is not finite"),
    ("exp(x**2) at x = 25", ["sweep_exp_x2.toml", "--t-end", "1", "--points", "3", "--param", "x=0.5:25:2"], 1,
     r"1 of 2 members did not reach t = 1 \(failed 1;", r"ok 1, failed 1"),
    ("x**4 at x = 1e80", ["sweep_x4.toml", "--t-end", "1", "--points", "3", "--param", "x=0.5:1e80:2"], 1,
     r"1 of 2 members did not reach t = 1 \(failed 1;", r"ok 1, failed 1"),
    ("xdot = 1e308", ["oscillator.toml", "--t-end", "1", "--points", "3", "--param", "xdot=0:1e308:2"], 1,
     r"1 of 2 members did not reach t = 1 \(failed 1;", r"ok 1, failed 1"),
    # findings 8 and 10: sizes refused before anything is allocated
    ("1e23 values of a parameter", ["skate", "--t-end", "1", "--points", "3", "--param",
                                    "thetadot=0:1:100000000000000000000000"], 2,
     r"^jetgeo: error: sweep: 100000000000000000000000 members; at most 10000000 in one study", None),
    ("a grid of 1e8 members", ["skate", "--t-end", "1", "--param", "thetadot=0:1:10000", "--param",
                               "x=0:1:10000"], 2, r"sweep: 100000000 members; at most 10000000", None),
    ("2e6 points", ["skate", "--t-end", "1", "--points", "2000000", "--param", "thetadot=0:1:2"], 2,
     r"sweep: 2000000 output times; at most 1000000", None),
    ("1e9 samples", ["skate", "--t-end", "1", "--points", "1000000", "--param", "thetadot=0:1:2000"], 2,
     r"sweep: 2000 members × 1000000 output times = 2000000000 states; at most 1000000000", None),
    # finding 4: --param is checked against the declared assumptions, as [values] is
    ("m = -1 against m positive", ["skate", "--t-end", "1", "--points", "3", "--param", "m=-1:1:2"], 2,
     r"skate: --param 'm=-1:1:2': the value -1 contradicts the assumption 'positive' of m", None),
    # finding 7: members are simulations: they cross θ = π/2 in another chart of Q
    ("skate members cross theta = pi/2", ["skate", "--t-end", "3", "--points", "7", "--param", "thetadot=1:2:2"],
     0, None, r"2 members to t = 3 .*; ok 2\n"),
    ("--formulation multipliers", ["skate", "--t-end", "3", "--points", "7", "--param", "thetadot=1:2:2",
                                   "--formulation", "multipliers"], 0, None, r"ok 2\n"),
    ("every member singular exits 1", ["krupkova_example2", "--t-end", "2", "--points", "3", "--param",
                                       "G=10:20:2"], 1,
     r"krupkova_example2: 2 of 2 members did not reach t = 2 \(singular 2;", r"member 1 \(G = 20\): singular: "
     r"integration stopped at t = 0\.3532"),
]


def _watchdog(seconds: float):
    def boom(signum, frame):
        raise AssertionError(f"the command did not end within {seconds} s")

    old = signal.signal(signal.SIGALRM, boom)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    return old


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_sweep_case(case, capsys, monkeypatch):
    name, argv, code, err_pattern, out_pattern = case
    monkeypatch.chdir(SPECS)
    t0 = time.perf_counter()
    old = _watchdog(LIMIT)  # a hang fails the test instead of the suite
    try:
        got = main(["sweep", *argv])
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    elapsed = time.perf_counter() - t0
    out, err = capsys.readouterr()
    assert got == code, f"exit {got}, expected {code}; stderr: {err[:500]}"
    assert elapsed < LIMIT
    assert "Traceback" not in err
    if err_pattern is None:
        assert err == "", err
    else:
        assert err.count("\n") == 1 and err.startswith("jetgeo: "), err
        assert re.search(err_pattern, err), err
    if out_pattern is not None:
        assert re.search(out_pattern, out), out
