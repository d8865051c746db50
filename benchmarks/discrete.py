r"""Discrete Lagrange–d'Alembert integrators on long runs, against DOP853 at equal cost.

10⁶ steps of h = 10⁻² (t ∈ [0, 10⁴]) of the Chaplygin sleigh (the shipped spec ``chaplygin_sleigh``,
[Neimark–Fufaev 1972]) and of the rolling disc (the catalogue's ``rolling_disc``), each with
``dla-midpoint`` and ``dla-4`` (``simulate(..., method=..., step=0.01, backend="c")``: Newton's method
and the step loop in C, :mod:`jetgeo.numerics.stepper`).  For each run: the wall time of the
stepping alone (the compiled stepper's ``run``, every node kept) and of the whole ``simulate`` call
(the stepping again, then the energy, residuals and reactions at every node; the compilation is
done first, in a 10-step run, and reported apart), the Newton iterations (``nfev``, a bound: per node
the stages times the most iterations of a stage), the relative energy error max|E − E₀|/|E₀| over
the whole run and over each half, the trend of the last half (least-squares slope × 5000, relative
to E₀), and the largest constraint residual over all nodes, absolute (max |f|) and relative to the
size of its terms (max |f|/(1 + Σ|terms of f|), ``SimulationResult.max_relative_residual``).  ``cpu s``
is the process time of the stepping: what it costs on an unshared core.

Beside each: DOP853 (``scipy.integrate.solve_ivp`` on the right-hand side compiled to C by
``prepare(motion, "full", backend="c")``, called directly: ``simulate`` steps scipy by hand for its
monitors, 1.8 ms a step here, too slow for 10⁶ steps) at the same number of
right-hand-side evaluations: a fixed step h_eq (``first_step = max_step = h_eq``, the error control
switched off with rtol = 0.9, atol = 10⁶, so every step is accepted) chosen so that 12 evaluations a
step plus 3 more on each step holding one of the 10⁴ + 1 samples (the interpolant) make nfev.
One residual evaluation of a discrete map (F and ∂F/∂z together) is counted as one right-hand-side
evaluation, which favours DOP853.  DOP853 integrates the accelerations of Benenti's recipe of the
second kind on TQ ([Benenti 2007, Theorem 8.1]: valid on all of Q, no chart of a normal form to leave —
the sleigh's heading crosses π/2), compiled to C.

**A rigid body on SO(3)** (``--rigid``): Chaplygin's ball (the ball of ``benchmarks/rigid_bodies.py``,
[Chaplygin 1903]) for 10⁵ steps of h = 10⁻² (t ∈ [0, 1000]) given as its QuasiVelocitySystem — stepped on
the rotation group (``jetgeo.mechanics.discrete_lie``: ``dla-midpoint`` and ``dla-4``) — and as the pair of its
coordinate form (L = ℓ(Φ q̇) in ZXZ Euler angles: ``dla-midpoint``), each with the C backend, and DOP853 on
Hamel's equations (compiled to C, ``prepare(S.motion(), "full", backend="c")``) at the number of
right-hand-side evaluations of the group scheme's ``dla-midpoint``, as above.  The columns as above (``run s``
the whole simulate call, the compilation apart), and ``|RᵀR−I|`` the largest departure of the stepped
orientation from a rotation (the group scheme carries a unit quaternion; the other two carry Euler angles,
whose R(angles) is orthogonal by construction: —).  This section is written by
``python -m benchmarks.discrete --rigid --out benchmarks/results/discrete.txt``, which replaces the section
(from its first line to the end of the file) and keeps the rows above it.

Run:  python -m benchmarks.discrete --out benchmarks/results/discrete.txt   (``--steps`` to shorten)
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
from scipy.integrate import solve_ivp
from scipy.spatial.transform import Rotation

from benchmarks.provenance import provenance_lines
from benchmarks.rigid_bodies import chaplygin_ball
from jetgeo import systems
from jetgeo.io import load_spec
from jetgeo.numerics import prepare, simulate
from jetgeo.numerics.simulation.discrete import discrete_stepper
from jetgeo.recipes import benenti_second_kind

COMMAND = "python -m benchmarks.discrete --out benchmarks/results/discrete.txt"
H = 0.01


def _cases():
    sleigh = load_spec("chaplygin_sleigh")
    disc = systems.load("rolling_disc")
    return [("chaplygin_sleigh", (sleigh.system, sleigh.Q), sleigh.params, sleigh.initial),
            ("rolling_disc", (disc.system, disc.Q), disc.params, disc.initial)]


def _energy_figures(t, E) -> tuple:
    E0 = abs(E[0])
    dE = E - E[0]
    half = len(t) // 2
    slope = np.polyfit(t[half:], dE[half:], 1)[0]
    return (float(np.max(np.abs(dE)) / E0), float(np.max(np.abs(dE[:half])) / E0),
            float(np.max(np.abs(dE[half:])) / E0), float(slope * (t[-1] - t[half]) / E0))


def run(n_steps: int) -> list[str]:
    """The table's rows (printed as they come)."""
    T = n_steps * H
    rows = [f"{'system':<17} {'method':<13} {'compile s':>9} {'step s':>7} {'cpu s':>7} {'run s':>7} {'nfev':>9} "
            f"{'rel dE max':>10} {'1st half':>9} {'2nd half':>9} {'trend 2nd':>10} {'max |f|':>9} {'max rel f':>9} "
            f"{'load':>5}"]
    _emit(rows[0])
    for name, system, params, initial in _cases():
        prep = prepare(benenti_second_kind(*system), "full", backend="c")
        fun = prep.rhs._func  # the compiled function itself, as simulate calls it
        pd = np.array([float(params[s]) if s in params else {str(k): v for k, v in params.items()}[str(s)]
                       for s in prep.params])
        for method in ("dla-midpoint", "dla-4"):
            t0 = time.perf_counter()
            r0 = simulate(system, (0, 10 * H), initial, params, method=method, step=H, backend="c", complete=True)
            compile_s = time.perf_counter() - t0
            stepper, osm = discrete_stepper(*system, method, "c")
            by_name = {str(k): float(v) for k, v in params.items()}
            ps = np.array([by_name[str(s)] for s in stepper.parameters[:-1]] + [H])
            k = system[1].k
            w0 = np.concatenate([[0.0], r0.q[0], r0.qdot[0], np.zeros(2 * k), [0.0] if osm.stages > 1 else []])
            load = os.getloadavg()[0]
            t0, c0 = time.perf_counter(), time.process_time()
            run = stepper.run(w0, n_steps * osm.stages, ps, every=osm.stages)
            step_s, cpu_s = time.perf_counter() - t0, time.process_time() - c0
            assert run.ok, run.message
            del run
            t0 = time.perf_counter()
            r = simulate(system, (0, T), initial, params, method=method, step=H, backend="c", complete=True)
            run_s = time.perf_counter() - t0
            assert r.status == "finished", r.message
            e_all, e1, e2, trend = _energy_figures(r.t, r.energy)
            rows.append(f"{name:<17} {method:<13} {compile_s:>9.2f} {step_s:>7.2f} {cpu_s:>7.2f} {run_s:>7.2f} "
                        f"{r.nfev:>9d} {e_all:>10.2e} {e1:>9.2e} {e2:>9.2e} {trend:>10.2e} {r.max_residual:>9.2e} "
                        f"{r.max_relative_residual:>9.2e} {load:>5.2f}")
            _emit(rows[-1])
            nfev = r.nfev
            del r
            # 12 stages a step, 3 more on the steps that hold one of the 10001 samples (the interpolant)
            h_eq = 12 * T / (nfev - 3 * 10001) if nfev > 12 * 10001 + 3 * 10001 else 15 * T / nfev
            load = os.getloadavg()[0]
            t0 = time.perf_counter()
            y0 = np.concatenate([r0.q[0], r0.qdot[0]])
            d = solve_ivp(lambda t, y, fun=fun, pd=pd: fun(t, y, pd), (0, T), y0, "DOP853",
                          t_eval=np.linspace(0, T, 10001), first_step=h_eq, max_step=h_eq, rtol=0.9, atol=1e6)
            run_s = time.perf_counter() - t0
            e_all, e1, e2, trend = _energy_figures(d.t, prep.energy_along(d.t, d.y, pd)[0])
            fv = np.abs(prep.constraint_residuals_along(d.t, d.y, pd))
            max_f = float(np.max(fv))
            max_rel = float(np.max(fv / (1.0 + np.abs(prep.constraint_scales_along(d.t, d.y, pd)))))
            label = f"DOP853 h={h_eq:.3g}"
            rows.append(f"{'':<17} {label:<13} {'':>9} {'':>7} {'':>7} {run_s:>7.2f} {d.nfev:>9d} {e_all:>10.2e} "
                        f"{e1:>9.2e} {e2:>9.2e} {trend:>10.2e} {max_f:>9.2e} {max_rel:>9.2e} {load:>5.2f}"
                        + ("" if d.status == 0 else f"  ({d.message})"))
            _emit(rows[-1])
    return rows


RIGID_TITLE = "A rigid body on SO(3): Chaplygin's ball, the group scheme vs its coordinate form vs DOP853"
RIGID_COMMAND = "python -m benchmarks.discrete --rigid --out benchmarks/results/discrete.txt"


def _dop853_equal_cost(fun, pd, y0, T, nfev):
    h_eq = 12 * T / (nfev - 3 * 10001) if nfev > 12 * 10001 + 3 * 10001 else 15 * T / nfev
    d = solve_ivp(lambda t, y, fun=fun, pd=pd: fun(t, y, pd), (0, T), y0, "DOP853",
                  t_eval=np.linspace(0, T, 10001), first_step=h_eq, max_step=h_eq, rtol=0.9, atol=1e6)
    return d, h_eq


def run_rigid(n_steps: int) -> list[str]:
    """The rigid-body section's rows (the module docstring)."""
    T = n_steps * H
    S, par, q0 = chaplygin_ball()
    ini = S.jet_state(q0, params=par)
    pair = (S.lagrangian_system(), S.constraint_submanifold())
    rows = [f"{'system':<17} {'method':<21} {'compile s':>9} {'run s':>7} {'nfev':>9} {'rel dE max':>10} "
            f"{'1st half':>9} {'2nd half':>9} {'trend 2nd':>10} {'max |f|':>9} {'max rel f':>9} {'|RtR-I|':>8} "
            f"{'load':>5}"]
    _emit(rows[0])
    nfev_group = None
    for label, system, method in (("dla-midpoint SO(3)", S, "dla-midpoint"), ("dla-4 SO(3)", S, "dla-4"),
                                  ("dla-midpoint coords", pair, "dla-midpoint")):
        t0 = time.perf_counter()
        simulate(system, (0, 10 * H), ini, par, method=method, step=H, backend="c")
        compile_s = time.perf_counter() - t0
        load = os.getloadavg()[0]
        t0 = time.perf_counter()
        r = simulate(system, (0, T), ini, par, method=method, step=H, backend="c")
        run_s = time.perf_counter() - t0
        assert r.status == "finished", r.message
        if label == "dla-midpoint SO(3)":
            nfev_group = r.nfev
        orth = "—"
        if r.orientation is not None:
            R = Rotation.from_quat(r.orientation[:, [1, 2, 3, 0]]).as_matrix()
            orth = f"{np.abs(np.einsum('nji,njk->nik', R, R) - np.eye(3)).max():.1e}"
        e_all, e1, e2, trend = _energy_figures(r.t, r.energy)
        rows.append(f"{'chaplygin_ball':<17} {label:<21} {compile_s:>9.2f} {run_s:>7.2f} {r.nfev:>9d} {e_all:>10.2e} "
                    f"{e1:>9.2e} {e2:>9.2e} {trend:>10.2e} {r.max_residual:>9.2e} {r.max_relative_residual:>9.2e} "
                    f"{orth:>8} {load:>5.2f}")
        _emit(rows[-1])
        del r
    t0 = time.perf_counter()
    prep = prepare(S.motion(), "full", backend="c")
    compile_s = time.perf_counter() - t0
    by_name = {str(k): float(v) for k, v in par.items()}
    pd = np.array([by_name[str(s)] for s in prep.params])
    y0 = np.array([float(ini[s]) for s in prep.state])
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    d, h_eq = _dop853_equal_cost(prep.rhs._func, pd, y0, T, nfev_group)
    run_s = time.perf_counter() - t0
    e_all, e1, e2, trend = _energy_figures(d.t, prep.energy_along(d.t, d.y, pd)[0])
    fv = np.abs(prep.constraint_residuals_along(d.t, d.y, pd))
    max_rel = float(np.max(fv / (1.0 + np.abs(prep.constraint_scales_along(d.t, d.y, pd)))))
    rows.append(f"{'':<17} {f'DOP853 h={h_eq:.3g}':<21} {compile_s:>9.2f} {run_s:>7.2f} {d.nfev:>9d} {e_all:>10.2e} "
                f"{e1:>9.2e} {e2:>9.2e} {trend:>10.2e} {float(np.max(fv)):>9.2e} {max_rel:>9.2e} {'—':>8} {load:>5.2f}"
                + ("" if d.status == 0 else f"  ({d.message})"))
    _emit(rows[-1])
    return rows


def _emit(row: str) -> None:
    print(row, flush=True)  # as the rows come: a run of 10⁶ steps on a shared machine takes a while


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--steps", type=int, default=None, help="default 10⁶, with --rigid 10⁵")
    ap.add_argument("--rigid", action="store_true", help="only the rigid-body section (replaces it in --out)")
    args = ap.parse_args(argv)
    if args.rigid:
        steps = args.steps or 100_000
        lines = [RIGID_TITLE, *provenance_lines(RIGID_COMMAND), "",
                 f"{steps} steps of h = {H} (t in [0, {steps * H:g}]), backend='c'; load = 1-minute load average "
                 "before the run"]
        print("\n".join(lines), flush=True)
        lines += run_rigid(steps)
        if args.out:
            old = args.out.read_text(encoding="utf-8").splitlines() if args.out.exists() else []
            keep = old[: old.index(RIGID_TITLE)] if RIGID_TITLE in old else [*old, ""]
            args.out.write_text("\n".join([*keep, *lines]) + "\n", encoding="utf-8")
        return
    args.steps = args.steps or 1_000_000
    lines = ["Discrete Lagrange–d'Alembert integrators vs DOP853 at equal cost (benchmarks/discrete.py)",
             *provenance_lines(COMMAND), "",
             f"{args.steps} steps of h = {H} (t in [0, {args.steps * H:g}]), backend='c'; run s = the whole simulate "
             "call (stepping, then energy/residuals/reactions at every node); rel dE = |E - E0|/|E0|; "
             "load = 1-minute load average before the run",
             ]
    print("\n".join(lines), flush=True)
    lines += run(args.steps)
    if args.out:
        args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
