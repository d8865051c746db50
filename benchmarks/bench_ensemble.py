r"""Ensemble throughput: the heavy rolling disc, 5 s of motion per member, members per second.

    python -m benchmarks.bench_ensemble                 # 10 000 members, loop measured on 200
    python -m benchmarks.bench_ensemble --members 2000 --loop-members 100

Three ways to integrate the same members (catalogue ``rolling_disc``, Ghori's heavy disc;
members differ in the initial θ̇, ψ̇, φ̇; dependent velocities from the normal form; DOP853,
rtol 1e-10, atol 1e-12, 51 output times):

* **loop**: a plain Python loop over :func:`jetgeo.numerics.simulate` (compiled once: the
  prepared system is cached), measured on ``--loop-members`` members and given as members/s
  (the 10 000-member loop would take about 15 minutes; its rate does not depend on the count);
* **local**: :func:`jetgeo.numerics.ensemble` with the default scheduler (a process pool on all
  cores, batched DOP853 over members);
* **dask**: the same call with ``client=`` a ``distributed.LocalCluster`` of two worker
  processes (one thread each); the cluster's start-up is reported apart.

Observed (not yet acted on): a chunk computes about 3 × slower inside a Dask worker than in
the local pool.  Part of it is glibc's allocator: Dask's nanny sets ``MALLOC_TRIM_THRESHOLD_``,
which fixes the mmap threshold at 128 KiB, and a batch of 2500 members allocates ~200 KiB
temporaries at every stage (``MALLOC_MMAP_THRESHOLD_=33554432`` in
``distributed.nanny.pre-spawn-environ``: 27 s → 17 s for the 10 000 members); the rest is not
explained yet.

The three agree member by member: local and dask exactly (same chunks, a member's numbers do
not depend on its neighbours), the loop to round-off (max |Δ(q, q̇)| printed).  The results
are appended to ``benchmarks/results/ensemble.txt`` with the commit, sympy version and machine.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.provenance import provenance_lines  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results" / "ensemble.txt"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--members", type=int, default=10_000)
    ap.add_argument("--loop-members", type=int, default=200)
    ap.add_argument("--t-end", type=float, default=5.0)
    ap.add_argument("--no-dask", action="store_true")
    args = ap.parse_args(argv)

    import xarray as xr

    from jetgeo import systems
    from jetgeo.numerics import ensemble, sample, simulate

    entry = systems.load("rolling_disc")
    cs = entry.constrained()
    num = entry.numeric()
    params = {str(k): v for k, v in num.items() if k in entry.params}
    initial = {str(k): v for k, v in num.items() if k in entry.initial and str(k) not in ("t", "xdot", "ydot")}
    members = sample(args.members, seed=2026, thetadot=(-0.3, 0.3), psidot=(0.0, 1.0), phidot=(2.0, 4.0))
    t_eval = np.linspace(0.0, args.t_end, 51)
    span = (0.0, args.t_end)
    kw = dict(params=params, initial=initial, complete=True, t_eval=t_eval, progress=False)
    command = (f"python -m benchmarks.bench_ensemble --members {args.members} --loop-members {args.loop_members}"
               + (f" --t-end {args.t_end:g}" if args.t_end != 5.0 else "") + (" --no-dask" if args.no_dask else ""))
    lines = [*provenance_lines(command, prefix="# "),
             "# shared with other jobs: ratios from the same run are the figures to read",
             f"# heavy rolling disc (catalogue rolling_disc), {args.t_end:g} s per member, DOP853 rtol 1e-10 "
             "atol 1e-12, 51 output times"]

    # --- plain loop over simulate (compiled once: prepare() caches per system object)
    simulate(cs, span, {**initial, "thetadot": 0.1}, params, complete=True, t_eval=t_eval)  # compile
    n_loop = min(args.loop_members, args.members)
    loop_traj = []
    t0 = time.perf_counter()
    for i in range(n_loop):
        row = members.iloc[i]
        ini = {**initial, "thetadot": row.thetadot, "psidot": row.psidot, "phidot": row.phidot}
        r = simulate(cs, span, ini, params, complete=True, t_eval=t_eval, progress=False)
        loop_traj.append(np.hstack([r.q, r.qdot]))
    t_loop = time.perf_counter() - t0
    rate_loop = n_loop / t_loop
    lines.append(f"loop over simulate: {n_loop} members in {t_loop:.2f} s = {rate_loop:.1f} members/s "
                 f"(measured on {n_loop}, extrapolated: {args.members} members would take "
                 f"{args.members / rate_loop:.0f} s)")
    print(lines[-1], flush=True)

    # --- ensemble, local default
    t0 = time.perf_counter()
    local = ensemble(cs, members, span, **kw)
    t_local = time.perf_counter() - t0
    rate_local = args.members / t_local
    diff = max(float(np.max(np.abs(local.trajectory.isel(member=i).values - loop_traj[i]))) for i in range(n_loop))
    counts = {s: int((local.status.values == s).sum()) for s in ("ok", "singular", "failed", "invalid")}
    lines.append(f"ensemble, local default ({os.cpu_count()} processes, chunk {local.attrs['chunk_size']}): "
                 f"{args.members} members in {t_local:.2f} s = {rate_local:.1f} members/s = "
                 f"{rate_local / rate_loop:.1f} x the loop; statuses {counts}; max |Δ(q, q̇)| vs the loop "
                 f"{diff:.2e}")
    print(lines[-1], flush=True)

    # --- ensemble on a two-worker LocalCluster
    if not args.no_dask:
        from distributed import Client, LocalCluster

        t0 = time.perf_counter()
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
                Client(cluster) as client:
            t_start = time.perf_counter() - t0
            t0 = time.perf_counter()
            remote = ensemble(cs, members, span, client=client, chunk_size=local.attrs["chunk_size"], **kw)
            t_dask = time.perf_counter() - t0
        rate_dask = args.members / t_dask
        xr.testing.assert_identical(remote, local)
        lines.append(f"ensemble, distributed.LocalCluster (2 worker processes, start-up {t_start:.1f} s not "
                     f"counted): {args.members} members in {t_dask:.2f} s = {rate_dask:.1f} members/s = "
                     f"{rate_dask / rate_loop:.1f} x the loop; dataset identical to the local default's")
        print(lines[-1], flush=True)
    RESULTS.parent.mkdir(exist_ok=True)
    with RESULTS.open("a", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n\n")
    print(f"appended to {RESULTS}")


if __name__ == "__main__":
    main()
