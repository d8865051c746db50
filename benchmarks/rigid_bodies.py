r"""Rigid bodies stated in quasi-velocities (``jetgeo.mechanics.quasi``) against the coordinate route.

Three bodies, each derived twice from the same kinematics: once in body-frame angular velocities
(Hamel's equations, :class:`~jetgeo.mechanics.quasi.QuasiVelocitySystem`), once in Euler-angle
rates (Krupková's constrained system of L = ℓ(Φ q̇), f = φ(Φ q̇), ``S.constrain()``).  Sizes are
tree nodes (``jetgeo.geometry.exact.size.tree_size``) of the accelerations; times are wall seconds
in one process, in this order.  Then simulations: Chaplygin's ball for 10 s and a rattleback for
20 s in the ``"multipliers"`` formulation (Hamel's bordered system solved numerically per step),
Python and C backends, with the energy drift; ``simulate`` is given the QuasiVelocitySystem itself
(its bordered system in v, no symbolic accelerations), and the time is what a user waits for from
the built system to the result: prepare (derivation, code generation, the C build in a fresh cache)
and the integration.  Last, the Whipple bicycle [Meijaard et al. 2007] from the loaded catalogue
entry: prepare + 5 s of motion (lean rate 0.5 rad/s at 4 m/s upright), in the same way.

Every timing row gives the wall seconds, the CPU seconds of this process and its compiler runs
(what the wall time would be on an idle machine, roughly) and the 1-minute load average at the
start of the row: the machine is shared.

The coordinate route is capped at 300 s per body.

Run:  python -m benchmarks.rigid_bodies --out benchmarks/results/rigid_bodies.txt
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import sympy as sp

from benchmarks.provenance import provenance_lines
from jetgeo import FibredManifold
from jetgeo.errors import ResourceLimitError
from jetgeo.geometry.exact.size import tree_size
from jetgeo.limits import time_limit
from jetgeo.mechanics.quasi import QuasiVelocitySystem
from jetgeo.mechanics.rigid import body_angular_velocity, ellipsoid_support, rolling_on_plane, rotation_matrix
from jetgeo.numerics import simulate

COMMAND = "python -m benchmarks.rigid_bodies --out benchmarks/results/rigid_bodies.txt"
CAP = 300.0  # seconds for the coordinate route's accelerations


def suslov():
    Y = FibredManifold(["a1", "a2", "a3"])
    F = body_angular_velocity(Y, "ZXZ", ["w1", "w2", "w3"])
    w = sp.Matrix(F.v)
    I = sp.Matrix(3, 3, lambda i, j: sp.Symbol(f"I{min(i, j) + 1}{max(i, j) + 1}"))
    return QuasiVelocitySystem(F, (w.T * I * w)[0] / 2, constraints=[w[2]]), None, None


def chaplygin_ball():
    Y = FibredManifold(["a1", "a2", "a3", "x", "y"])
    F = body_angular_velocity(Y, "ZXZ", ["w1", "w2", "w3", "u", "v"])
    R = rotation_matrix(Y, "ZXZ")
    m, r, A1, A2, A3 = sp.symbols("m r A1 A2 A3", positive=True)
    W = sp.Matrix(F.v[:3])
    u, v = F.v[3:]
    Om = R * W
    S = QuasiVelocitySystem(F, (A1 * W[0] ** 2 + A2 * W[1] ** 2 + A3 * W[2] ** 2) / 2 + m * (u**2 + v**2) / 2,
                            constraints=[u - r * Om[1], v + r * Om[0]])
    par = {m: 1.0, r: 1.0, A1: 0.3, A2: 0.4, A3: 0.5}
    ini = {Y.q[0]: 0.1, Y.q[1]: 1.0, Y.q[2]: 0.2, Y.q[3]: 0, Y.q[4]: 0, W[0]: 1.0, W[1]: -0.5, W[2]: 2.0}
    return S, par, ini


def rattleback():
    Y = FibredManifold(["phi", "theta", "psi", "x", "y"])
    a, b, c, m, g, d, A, B, C, dl = sp.symbols("a b c m g d A B C delta", positive=True)
    Rz = sp.Matrix([[sp.cos(dl), -sp.sin(dl), 0], [sp.sin(dl), sp.cos(dl), 0], [0, 0, 1]])
    S = rolling_on_plane(Y, "XYZ", ["w1", "w2", "w3", "u", "w"], ellipsoid_support(a, b, c), m,
                         Rz * sp.diag(A, B, C) * Rz.T, offset=(0, 0, -d), gravity=g)
    par = {a: 0.2, b: 0.03, c: 0.02, m: 1.0, g: 9.81, d: 0.01, A: 2e-4, B: 1.6e-3, C: 1.7e-3, dl: 0.1}
    w1, w2, w3 = S.frame.v[:3]
    ini = {Y.q[0]: 0.0, Y.q[1]: 0.05, Y.q[2]: 0.0, Y.q[3]: 0, Y.q[4]: 0, w1: 0, w2: 0, w3: 3.0}
    return S, par, ini


def _timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def _cpu() -> float:
    """CPU seconds of this process and of its finished children (the C compiler)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def whipple():
    """The Whipple bicycle from the catalogue, its parameters, and a state on Q: upright at 4 m/s with a
    lean rate of 0.5 rad/s (the dependent velocities completed by simulate)."""
    from jetgeo import systems

    b = systems.load("whipple_bicycle")
    qd = b.Y.qdot
    ini = {k: v for k, v in b.initial.items() if k not in (qd[0], qd[1], qd[2], qd[4], qd[7])}
    ini[qd[3]] = 0.5
    return b, b.params, ini


def derivations() -> list[str]:
    rows = [f"{'system':<16} {'quasi: derive s':>15} {'nodes':>8} {'coordinate route: derive s':>27} {'nodes':>8}"]
    for name, build in (("suslov", suslov), ("chaplygin_ball", chaplygin_ball), ("rattleback", rattleback)):
        S = build()[0]
        acc, tq = _timed(S.accelerations)
        nq = sum(tree_size(e) for e in acc.values())
        t0 = time.perf_counter()
        try:
            with time_limit(CAP):
                acc_c = S.constrain().accelerations()
            tc = f"{time.perf_counter() - t0:.3g}"
            nc = str(sum(tree_size(e) for e in acc_c.values()))
        except ResourceLimitError:
            tc, nc = f"> {CAP:g}", "—"
        rows.append(f"{name:<16} {tq:>15.3g} {nq:>8} {tc:>27} {nc:>8}")
    return rows


SIMULATIONS = {"chaplygin_ball": (chaplygin_ball, 10.0), "rattleback": (rattleback, 20.0),
               "whipple_bicycle": (whipple, 5.0)}


def simulation_row(name: str, backend: str, rtol: float = 1e-11) -> str:
    """One row of :func:`simulations`, timed in this process from the built system to the result."""
    build, t_end = SIMULATIONS[name]
    S, par, ini = build()
    initial, kw = (ini, {"complete": True}) if name == "whipple_bicycle" else (S.jet_state(ini, params=par), {})
    load = os.getloadavg()[0]
    c0, t0 = _cpu(), time.perf_counter()
    res = simulate(S, (0, t_end), initial, par, formulation="multipliers", backend=backend, rtol=rtol, atol=1e-12,
                   **kw)
    dt, dc = time.perf_counter() - t0, _cpu() - c0
    return (f"{name:<16} {backend:>7} {rtol:>6.0e} {t_end:>6g} {dt:>19.3g} {dc:>6.3g} {load:>5.2f} "
            f"{res.relative_energy_drift:>13.2e} {res.max_residual:>13.2e} {len(res.t) - 1:>6}")


def simulations() -> list[str]:
    """Each row in a fresh process (nothing derived or compiled by an earlier row is reused; the C build
    goes into this run's fresh cache directory).  The last row: the rattleback at simulate's default
    tolerances (rtol 1e-10), which keep its energy to the 1e-9 asked for."""
    rows = [f"{'system':<16} {'backend':>7} {'rtol':>6} {'t_end':>6} {'prepare+simulate s':>19} {'cpu s':>6} "
            f"{'load':>5} {'energy drift':>13} {'max residual':>13} {'steps':>6}"]
    runs = [(name, backend, "1e-11") for name in SIMULATIONS for backend in ("python", "c")]
    for name, backend, rtol in runs + [("rattleback", "c", "1e-10")]:
        out = subprocess.run([sys.executable, "-m", "benchmarks.rigid_bodies", "--row", name, backend, rtol],
                             capture_output=True, text=True, check=True, cwd=Path(__file__).resolve().parents[1])
        rows.append(out.stdout.strip().splitlines()[-1])
    return rows


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--row", nargs=3, metavar=("SYSTEM", "BACKEND", "RTOL"), default=None,
                    help="print one simulation row (run by the full benchmark in a fresh process)")
    args = ap.parse_args(argv)
    if args.row:
        name, backend, rtol = args.row
        print(simulation_row(name, backend, float(rtol)))
        return
    os.environ["JETGEO_CACHE"] = tempfile.mkdtemp(prefix="jetgeo-bench-")  # the C builds are timed, not cached
    lines = ["Rigid bodies in quasi-velocities vs the coordinate route (benchmarks/rigid_bodies.py)",
             *provenance_lines(COMMAND), "",
             "derivations (accelerations on the constraint set; one process, in this order)",
             *derivations(), "",
             "simulations (formulation='multipliers': the bordered system solved per step — Hamel's for the "
             "quasi-velocity bodies, L's for the bicycle; atol 1e-12; from the built system to the "
             "result: derivation, code generation and the C build in a fresh cache included)",
             *simulations()]
    text = "\n".join(lines) + "\n"
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    print(text, end="")


if __name__ == "__main__":
    main()
