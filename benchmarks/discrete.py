r"""Discrete Lagrange–d'Alembert integrators on long runs, against DOP853 at equal cost.

10⁶ steps of h = 10⁻² (t ∈ [0, 10⁴]) of the Chaplygin sleigh (the shipped spec ``chaplygin_sleigh``,
[Neimark–Fufaev 1972]) and of the rolling disc (the catalogue's ``rolling_disc``), each with
``dla-midpoint`` and ``dla-4`` (``simulate(..., method=..., step=0.01, backend="c")``: Newton's method
and the step loop in C, :mod:`jetgeo.numerics.stepper`).  For each run: the wall time of the
stepping and of the whole ``simulate`` call (the compilation is done first, in a 10-step run, and
reported apart), the Newton iterations (``nfev``, a bound: per node the stages times the most
iterations of a stage), the relative energy error max|E − E₀|/|E₀| over the whole run and over each
half, the trend of the last half (least-squares slope × 5000, relative to E₀), and the largest
constraint residual over all nodes.

Beside each: DOP853 (scipy, the same ``simulate``, compiled right-hand side) at the same number of
right-hand-side evaluations: a fixed step h_eq = 15·T/nfev (``first_step = max_step = h_eq``, the
error control switched off with rtol = 0.9, atol = 10⁶, so every step is accepted; 12 stages and 3
more for the interpolation at the samples make 15 evaluations a step), sampled at 10⁴ + 1 times.
One residual evaluation of a discrete map (F and ∂F/∂z together) is counted as one right-hand-side
evaluation, which favours DOP853.  The sleigh is integrated by DOP853 in the multipliers formulation
(its normal forms ẏ = ẋ tan θ and ẋ = ẏ cot θ each end where the heading crosses a multiple of π/2);
the disc in the full formulation (Krupková's accelerations, compiled).

Run:  python -m benchmarks.discrete --out benchmarks/results/discrete.txt   (``--steps`` to shorten)
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

from benchmarks.provenance import provenance_lines
from jetgeo import systems
from jetgeo.io import load_spec
from jetgeo.numerics import simulate

COMMAND = "python -m benchmarks.discrete --out benchmarks/results/discrete.txt"
H = 0.01


def _cases():
    sleigh = load_spec("chaplygin_sleigh")
    disc = systems.load("rolling_disc")
    return [("chaplygin_sleigh", (sleigh.system, sleigh.Q), sleigh.params, sleigh.initial, "multipliers"),
            ("rolling_disc", disc, disc.params, disc.initial, "full")]


def _energy_figures(t, E) -> tuple:
    E0 = abs(E[0])
    dE = E - E[0]
    half = len(t) // 2
    slope = np.polyfit(t[half:], dE[half:], 1)[0]
    return (float(np.max(np.abs(dE)) / E0), float(np.max(np.abs(dE[:half])) / E0),
            float(np.max(np.abs(dE[half:])) / E0), float(slope * (t[-1] - t[half]) / E0))


def run(n_steps: int) -> list[str]:
    T = n_steps * H
    rows = [f"{'system':<17} {'method':<13} {'compile s':>9} {'run s':>7} {'nfev':>9} {'rel dE max':>10} "
            f"{'1st half':>9} {'2nd half':>9} {'trend 2nd':>10} {'max |f|':>9} {'load':>5}"]
    for name, system, params, initial, formulation in _cases():
        for method in ("dla-midpoint", "dla-4"):
            t0 = time.perf_counter()
            simulate(system, (0, 10 * H), initial, params, method=method, step=H, backend="c", complete=True)
            compile_s = time.perf_counter() - t0
            load = os.getloadavg()[0]
            t0 = time.perf_counter()
            r = simulate(system, (0, T), initial, params, method=method, step=H, backend="c", complete=True)
            run_s = time.perf_counter() - t0
            assert r.status == "finished", r.message
            e_all, e1, e2, trend = _energy_figures(r.t, r.energy)
            rows.append(f"{name:<17} {method:<13} {compile_s:>9.2f} {run_s:>7.2f} {r.nfev:>9d} {e_all:>10.2e} "
                        f"{e1:>9.2e} {e2:>9.2e} {trend:>10.2e} {r.max_residual:>9.2e} {load:>5.2f}")
            nfev = r.nfev
            del r
            h_eq = 15 * T / nfev
            load = os.getloadavg()[0]
            t0 = time.perf_counter()
            d = simulate(system, (0, T), initial, params, "DOP853", np.linspace(0, T, 10001), False, False,
                         formulation=formulation, atlas=False, backend="c", first_step=h_eq, max_step=h_eq,
                         rtol=0.9, atol=1e6, complete=True)
            run_s = time.perf_counter() - t0
            e_all, e1, e2, trend = _energy_figures(d.t, d.energy)
            label = f"DOP853 h={h_eq:.3g}"
            rows.append(f"{'':<17} {label:<13} {'':>9} {run_s:>7.2f} {d.nfev:>9d} {e_all:>10.2e} "
                        f"{e1:>9.2e} {e2:>9.2e} {trend:>10.2e} {d.max_residual:>9.2e} {load:>5.2f}"
                        + ("" if d.status == "finished" else f"  ({d.status}: {d.message})"))
    return rows


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--steps", type=int, default=1_000_000)
    args = ap.parse_args(argv)
    lines = ["Discrete Lagrange–d'Alembert integrators vs DOP853 at equal cost (benchmarks/discrete.py)",
             *provenance_lines(COMMAND), "",
             f"{args.steps} steps of h = {H} (t in [0, {args.steps * H:g}]), backend='c'; run s = the whole simulate "
             "call (stepping, then energy/residuals/reactions at every node); rel dE = |E - E0|/|E0|; "
             "load = 1-minute load average before the run",
             *run(args.steps)]
    text = "\n".join(lines) + "\n"
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    print(text, end="")


if __name__ == "__main__":
    main()
