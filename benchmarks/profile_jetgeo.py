"""Profile jetgeo's derivation (cProfile) on benchmark systems and list the hot spots.

    python -m benchmarks.profile_jetgeo heavy_disc n_trailer_3 [--top 30]

For each system: the derivation L, f → ``cs.accelerations()`` under cProfile, the
time split by pipeline stage (LagrangianSystem, ConstraintSubmanifold, constrain
(normal form), reduced equations, solve), and the functions with the largest
cumulative and own time, restricted to jetgeo's code and to the sympy entry
points it calls.  Writes ``benchmarks/results/profile_<system>.txt``.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import shlex
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import systems as S  # noqa: E402
from benchmarks.provenance import provenance_lines  # noqa: E402
from benchmarks.run import RESULTS, clear_caches, warm_up  # noqa: E402


def stages(name: str) -> dict:
    """Wall time of each stage of jetgeo's pipeline."""
    from jetgeo import ConstraintSubmanifold, LagrangianSystem

    model = S.build(name)
    Y, L, fs = S.jetgeo_inputs(model)
    out = {}
    t0 = time.perf_counter()
    system = LagrangianSystem(Y, L)
    out["LagrangianSystem"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    Q = ConstraintSubmanifold(Y, fs)
    out["ConstraintSubmanifold"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    cs = system.constrain(Q)
    out["constrain (dependent + normal form)"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    cs.reduced_equations()
    out["reduced equations (E_l + E_D dg/dq̇^l on Q)"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    cs.reduced_coefficients()
    out["reduced_coefficients (A', B')"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    cs.accelerations()
    out["accelerations (rank, LUsolve, normalise, dependent q̈)"] = time.perf_counter() - t0
    return out


def profile(name: str, top: int) -> str:
    model = S.build(name)
    Y, L, fs = S.jetgeo_inputs(model)
    pr = cProfile.Profile()
    t0 = time.perf_counter()
    pr.enable()
    S.jetgeo_derive(Y, L, fs)
    pr.disable()
    total = time.perf_counter() - t0
    buf = io.StringIO()
    buf.write(f"# jetgeo derivation of {name}: {total:.2f} s under cProfile\n\n")
    st = pstats.Stats(pr, stream=buf)
    buf.write("## cumulative, jetgeo functions\n")
    st.sort_stats("cumulative").print_stats(r"jetgeo/", top)
    buf.write("## cumulative, all (sympy entry points)\n")
    st.sort_stats("cumulative").print_stats(top)
    buf.write("## own time\n")
    st.sort_stats("tottime").print_stats(top)
    return buf.getvalue()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("systems", nargs="*", default=["heavy_disc", "n_trailer_2"])
    ap.add_argument("--top", type=int, default=30)
    opts = ap.parse_args(argv)
    prov = provenance_lines("python -m benchmarks.profile_jetgeo " + shlex.join(sys.argv[1:] if argv is None else argv),
                            prefix="# ")
    warm_up()
    for name in opts.systems:
        clear_caches()
        st = stages(name)
        clear_caches()
        text = profile(name, opts.top)
        head = "\n".join(f"  {k:55s} {v:8.3f} s" for k, v in st.items())
        text = "\n".join(prov) + f"\n# stages of {name} (fresh caches, no profiler)\n{head}\n\n" + text
        RESULTS.mkdir(parents=True, exist_ok=True)
        (RESULTS / f"profile_{name}.txt").write_text(text)
        print(text[:6000])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
