r"""The compiled implicit stepper (jetgeo.numerics.stepper): 10⁶ steps in C, per-step cost in Python.

    python -m benchmarks.stepper [--steps 1000000] [--python-steps 10000] [--out benchmarks/results/stepper.txt]

Three implicit-midpoint schemes, each F(z; w, p) = 0 solved by Newton's method at every step
(dense LU with partial pivoting, tol 1e-13 on ‖Δz‖∞/(1+‖z‖∞), ftol 1e-12 on ‖F‖∞/(1+‖(z, w)‖∞)):

* ``pendulum``      — q'' = −sin q; z = (q₁, v₁), 2 unknowns, h = 0.01;
* ``particle``      — a particle in the plane with the non-holonomic constraint ẏ = x ẋ, the
  reaction λ(−x, 1) at the midpoint and the constraint at the new node; z = (x₁, y₁, u₁, w₁, λ),
  5 unknowns, h = 0.01;
* ``rolling_disc``  — the catalogue's heavy rolling disc (Euler angles and contact point, two
  velocity constraints): q₁ = q₀ + h(v₀ + v₁)/2 substituted, W(q_m)(v₁ − v₀) = h(ℓ(q_m, v_m) +
  Jᵀλ) with W the metric and ℓ the free-motion functions [Benenti 2007, eq. (7.3)], the
  constraints at the new node; z = (v₁, λ), 7 unknowns, h = 0.01.  This is the bordered midpoint
  rule, not the discrete Lagrange–d'Alembert scheme of issue 30 (derived elsewhere): it measures
  the stepper on the disc's expressions.

Columns: the first build (C: generation and compilation into a fresh cache), the wall time of the
run (C: ``--steps`` steps in one call, every 1000th node kept; Python: ``--python-steps`` steps),
µs per step, the largest Newton iteration count and final ‖F‖∞ over all steps (the constraint is a
row of F: its residual at every node is at most this), and the relative energy error over the run
(max |E − E₀|/|E₀| over the kept nodes) with the largest error over the first and the second
half of the run (bounded: no trend).  The 1-minute load average is printed before each row.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import sympy as sp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.provenance import provenance_lines  # noqa: E402
from jetgeo import systems  # noqa: E402
from jetgeo.numerics import compile_rhs  # noqa: E402
from jetgeo.numerics.stepper import compile_stepper  # noqa: E402

H = 0.01


def pendulum():
    q0, v0, q1, v1, h = sp.symbols("q0 v0 q1 v1 h")
    F = [q1 - q0 - h * (v0 + v1) / 2, v1 - v0 + h * sp.sin((q0 + q1) / 2)]
    spec = dict(residual=F, unknowns=[q1, v1], known=[q0, v0], parameters=[h], advance=[q1, v1],
                predictor=[q0 + h * v0, v0 - h * sp.sin(q0)])
    energy = compile_rhs([v0**2 / 2 - sp.cos(q0)], [q0, v0], vectorized=True)
    return spec, [2.0, 0.0], [H], lambda nodes: energy(0.0, nodes.T)[0]


def particle():
    x0, y0, u0, w0, x1, y1, u1, w1, lam, h = sp.symbols("x0 y0 u0 w0 x1 y1 u1 w1 lam h")
    xm = (x0 + x1) / 2
    F = [x1 - x0 - h * (u0 + u1) / 2, y1 - y0 - h * (w0 + w1) / 2, u1 - u0 + h * lam * xm, w1 - w0 - h * lam,
         w1 - x1 * u1]
    spec = dict(residual=F, unknowns=[x1, y1, u1, w1, lam], known=[x0, y0, u0, w0], parameters=[h],
                advance=[x1, y1, u1, w1], predictor=[x0 + h * u0, y0 + h * w0, u0, w0, 0])
    energy = compile_rhs([(u0**2 + w0**2) / 2], [x0, y0, u0, w0], vectorized=True)
    return spec, [0.3, 0.0, 1.0, 0.3], [H], lambda nodes: energy(0.0, nodes.T)[0]


def rolling_disc():
    e = systems.load("rolling_disc")
    Y, L, Q = e.Y, e.system, e.Q
    n, k = len(Y.q), len(Q.f)
    h = sp.Symbol("h_step")
    q0, v0 = list(Y.q), list(Y.qdot)
    v1 = list(sp.symbols(f"v1_0:{n}"))
    lam = list(sp.symbols(f"lam0:{k}"))
    q1 = [a + h * (b + c) / 2 for a, b, c in zip(q0, v0, v1)]
    qm = [(a + b) / 2 for a, b in zip(q0, q1)]
    vm = [(a + b) / 2 for a, b in zip(v0, v1)]
    at_mid = dict(zip([*Y.q, *Y.qdot], [*qm, *vm]))
    W = L.metric().xreplace(at_mid)
    ell = sp.Matrix(L.free_motion_functions()).xreplace(at_mid)
    JT = Q.jacobian().T.xreplace(at_mid)
    dv = sp.Matrix([b - a for a, b in zip(v0, v1)])
    F = [*(W * dv - h * (ell + JT * sp.Matrix(lam))), *(f.xreplace(dict(zip([*Y.q, *Y.qdot], [*q1, *v1])))
                                                        for f in Q.f)]
    num = e.numeric()
    P = list(e.parameters)
    spec = dict(residual=F, unknowns=[*v1, *lam], known=[*q0, *v0], parameters=[*P, h], advance=[*q1, *v1],
                predictor=[*v0, *([0] * k)])
    energy = compile_rhs([L.energy()], [*Y.q, *Y.qdot], P, Y.t, vectorized=True)
    p_num = [num[s] for s in P]
    w0 = [num[s] for s in [*Y.q, *Y.qdot]]
    return spec, w0, [*p_num, H], lambda nodes: energy(0.0, nodes.T, p_num)[0]


def measure(name: str, build, backend: str, n_steps: int) -> str:
    load = os.getloadavg()[0]
    spec, w0, p, energy = build()
    t0 = time.perf_counter()
    st = compile_stepper(spec.pop("residual"), spec.pop("unknowns"), spec.pop("known"), backend=backend, **spec)
    t_build = time.perf_counter() - t0
    t0 = time.perf_counter()
    run = st.run(w0, n_steps, p, every=max(1, n_steps // 1000))
    t_run = time.perf_counter() - t0
    E = energy(run.nodes)
    rel = np.abs(E - E[0]) / abs(E[0])
    half = rel.size // 2
    m = len(st.unknowns)
    return (f"[load {load:4.2f}] {name:<13} {m:>2} {backend:>6} {n_steps:>8} {t_build:>8.2f} {t_run:>9.3f} "
            f"{1e6 * t_run / n_steps:>9.3f} {int(run.iterations.max()):>5} {run.residual_norms.max():>9.2e} "
            f"{rel.max():>9.2e} {rel[:half].max():>9.2e} {rel[half:].max():>9.2e}  {run.status}")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=1_000_000, help="steps of the C runs")
    ap.add_argument("--python-steps", type=int, default=10_000, help="steps of the Python runs")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    os.environ["JETGEO_CACHE"] = tempfile.mkdtemp(prefix="jetgeo-bench-")  # the C builds are timed, not cached
    lines = ["The compiled implicit stepper: implicit midpoint schemes (benchmarks/stepper.py)",
             *provenance_lines("python -m benchmarks.stepper " + shlex.join(sys.argv[1:] if argv is None else argv)),
             "", f"h = {H}; build s: compile_stepper (C: generation + compiler run, fresh cache)",
             f"{'':13}{'system':<13} {'m':>2} {'backend':>6} {'steps':>8} {'build s':>8} {'run s':>9} "
             f"{'µs/step':>9} {'iters':>5} {'max|F|':>9} {'rel dE':>9} {'1st half':>9} {'2nd half':>9}  status"]
    print("\n".join(lines), flush=True)
    for name, build in (("pendulum", pendulum), ("particle", particle), ("rolling_disc", rolling_disc)):
        for backend, n in (("c", args.steps), ("python", args.python_steps)):
            row = measure(name, build, backend, n)
            print(row, flush=True)
            lines.append(row)
    if args.out:
        args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
