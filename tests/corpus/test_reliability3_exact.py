"""Issue 25 (reliability 3), findings 5 and 8: exact points and the remaining paths to exit 3.

Each case must end within seconds (a watchdog per test) with its documented outcome: a result, a
failed run that says where and why, or a :mod:`jetgeo.errors` exception naming the argument — never
a bare ``ValueError`` / ``OverflowError`` / ``MemoryError`` from deep inside (exit 3 on the command
line).

Independent truths:
* the motion of L = ẋ²/2 − √x from x = 1/2, ẋ = −3 reaches the edge x = 0 of the real domain at
  t* = ∫₀^{1/2} dx / √(2(E − √x)), E = 9/2 + √(1/2) (energy conservation; the quadrature is scipy's);
  for L = ẋ²/2 − acos x the edge is x = −1 and t* = ∫_{−1}^{1/2} dx / √(2(E − acos x)), E = 9/2 + π/3;
* L = |ẋ|³ + ẋ²/2 − x²/2 by hand: ∂L/∂ẋ = 3|ẋ|ẋ + ẋ, so (1 + 6|ẋ|)ẍ = −x (ẋ ≠ 0), and with the dry
  friction A = −sign ẋ, (1 + 6|ẋ|)ẍ = −x − sign ẋ.
"""

from __future__ import annotations

import math
import re
import signal
import time
import warnings

import numpy as np
import pytest
import sympy as sp
from scipy.integrate import quad

from jetgeo import ConstraintSubmanifold, FibredManifold, LagrangianSystem
from jetgeo.cli import main
from jetgeo.errors import InputError
from jetgeo.geometry import is_zero
from jetgeo.numerics import SimulationStoppedWarning, simulate
from jetgeo.numerics.ensembles import sample


@pytest.fixture(autouse=True)
def watchdog():
    def boom(signum, frame):
        raise AssertionError("the call did not end within 20 s")

    old = signal.signal(signal.SIGALRM, boom)
    signal.setitimer(signal.ITIMER_REAL, 20)
    t0 = time.perf_counter()
    yield
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, old)
    assert time.perf_counter() - t0 < 10


def _line():
    Y = FibredManifold(["x"])
    return Y, Y.q[0], Y.qdot[0]


E_SQRT = 4.5 + math.sqrt(0.5)
T_SQRT = quad(lambda x: 1 / math.sqrt(2 * (E_SQRT - math.sqrt(x))), 0, 0.5, epsabs=1e-13, epsrel=1e-13)[0]
E_ACOS = 4.5 + math.pi / 3
T_ACOS = quad(lambda x: 1 / math.sqrt(2 * (E_ACOS - math.acos(x))), -1, 0.5, epsabs=1e-13, epsrel=1e-13)[0]


@pytest.mark.parametrize("potential,edge,t_star", [(sp.sqrt, 0.0, T_SQRT), (sp.acos, -1.0, T_ACOS)])
@pytest.mark.parametrize("method", ["DOP853", "RK45", "Radau", "LSODA"])
def test_simulate_leaving_the_real_domain_is_a_failed_run_at_the_edge(potential, edge, t_star, method):
    """main: ValueError "math domain error" out of the compiled right-hand side (CLI exit 3)."""
    Y, x, xd = _line()
    with pytest.warns(SimulationStoppedWarning, match=re.escape(f"ended at t = {t_star:.6g} before t = 2")):
        res = simulate(LagrangianSystem(Y, xd**2 / 2 - potential(x)), (0, 2), {x: 0.5, xd: -3}, method=method)
    assert res.status == "failed" and not res.success
    assert "the state left the real domain of the equations at t = " in res.message
    assert abs(res.t_stop - t_star) < 1e-6
    assert abs(res.q[-1, 0] - edge) < 1e-6 and res.t[-1] <= res.t_stop  # the data up to the edge are kept


def test_the_stop_message_names_the_stop_time_not_the_last_sample():
    """main: "the run ended at t = 0.1" — the last output sample before the stop at t* = 0.1625."""
    Y, x, xd = _line()
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        res = simulate(LagrangianSystem(Y, xd**2 / 2 - sp.sqrt(x)), (0, 2), {x: 0.5, xd: -3},
                       t_eval=[0, 0.1, 1, 2])
    assert list(res.t) == [0, 0.1]
    assert abs(res.t_stop - T_SQRT) < 1e-6
    [w] = [w for w in got if issubclass(w.category, SimulationStoppedWarning)]
    assert f"ended at t = {T_SQRT:.6g} before t = 2" in str(w.message)


def test_an_initial_state_outside_the_real_domain_is_bad_input():
    Y, x, xd = _line()
    with pytest.raises(InputError, match=r"not defined \(real\) at the initial state, t = 0 \(math domain error\)"):
        simulate(LagrangianSystem(Y, xd**2 / 2 - sp.sqrt(x)), (0, 1), {x: -1, xd: 0})


@pytest.mark.parametrize("formulation", ["full", "reduced", "multipliers"])
def test_constraints_not_real_at_the_initial_state_are_bad_input(formulation):
    """main: ValueError "math domain error" out of the completion of the initial velocities (f = ẏ − √x ẋ)."""
    Y = FibredManifold(["x", "y"])
    x, y = Y.q
    xd, yd = Y.qdot
    S = LagrangianSystem(Y, (xd**2 + yd**2) / 2 + x)
    Q = ConstraintSubmanifold(Y, [yd - sp.sqrt(x) * xd], dependent=[yd])
    model = (S, Q) if formulation == "multipliers" else S.constrain(Q)
    with pytest.raises(InputError, match=r"not defined \(real\) at the initial state, t = 0"):
        simulate(model, (0, 1), {x: -1, y: 0, xd: 1}, formulation=formulation, complete=True)


def test_cli_simulate_leaving_the_domain_exits_1_naming_the_stop_time(tmp_path, monkeypatch, capsys):
    spec = tmp_path / "sqrt_edge.toml"
    spec.write_text('[coordinates]\nq = ["x"]\n[lagrangian]\nL = "xdot**2/2 - sqrt(x)"\n'
                    "[initial]\nx = 0.5\nxdot = -3\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["simulate", "sqrt_edge.toml", "--t-end", "2", "--points", "5"]) == 1
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    assert f"the run stopped at t = {T_SQRT:.6g} before --t-end 2: the state left the real domain" in err


def test_abs_of_a_velocity_in_a_python_lagrangian_differentiates_as_a_real_function():
    """main: ValueError "Can't calculate derivative wrt -99229/405" (sympy's Abs of a complex symbol)."""
    Y, x, xd = _line()
    acc = LagrangianSystem(Y, sp.Abs(xd) ** 3 + xd**2 / 2 - x**2 / 2).accelerations()[Y.qddot[0]]
    assert is_zero(acc * (1 + 6 * sp.Abs(xd)) + x * sp.sign(xd) ** 2)  # sign² = 1 where ẋ ≠ 0
    at = {x: sp.Rational(1, 3), xd: sp.Rational(-2, 5)}
    assert acc.xreplace(at) == sp.Rational(-1, 3) / (1 + 6 * sp.Rational(2, 5))
    friction = LagrangianSystem(Y, sp.Abs(xd) ** 3 + xd**2 / 2 - x**2 / 2, forces=[-sp.sign(xd)])
    acc_f = friction.accelerations()[Y.qddot[0]]
    assert acc_f.xreplace(at) == (sp.Rational(-1, 3) + 1) / (1 + 6 * sp.Rational(2, 5))


@pytest.mark.parametrize("n,dist,message", [
    (10**12, (0, 1), r"n = 1000000000000 members is more than 1e\+08"),
    (3, (0, math.inf), r"x=\(low, high\) needs finite ends, got \(0, inf\)"),
    (3, (-math.inf, 0), r"needs finite ends"),
    (3, (math.nan, 1), r"needs finite ends"),
    (3, ("a", 1), r"the low end of sample\(x=\.\.\.\) must be a number"),
    (True, (0, 1), r"n must be a positive integer, got True"),
])
def test_sample_refuses_what_it_cannot_draw(n, dist, message):
    """main: MemoryError (7.28 TiB) and OverflowError "high - low range exceeds valid bounds"."""
    with pytest.raises(InputError, match=message):
        sample(n, x=dist)
    assert np.all(np.isfinite(sample(3, x=(0, 1))["x"]))
