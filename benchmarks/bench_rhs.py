r"""Compiled right-hand sides against hand-written numpy (not part of pytest).

    python benchmarks/bench_rhs.py [--number 20000] [--repeat 7]

For each system, the right-hand side of the full first-order system y = (q, q̇),
y' = (q̇, F(t, q, q̇)) with F the constrained accelerations, is evaluated at one point of Q:

* ``jetgeo``   — :func:`jetgeo.numerics.compile_rhs` of ``cs.accelerations()`` (cse, one
  straight-line Python function with ``math`` functions, called as f(t, y, p));
  ``+factor`` the same with ``factor=True`` (numerator and denominator factored first);
* ``lambdify`` — ``sympy.lambdify((t, y, p), ..., "numpy", cse=True)`` of the same
  expressions, for reference;
* ``numpy``    — a right-hand side written by hand with numpy, as a researcher would
  (intermediate variables, np.sin/np.cos, np.array), derived independently (on paper);
* ``bordered`` — jetgeo's multiplier formulation (W q̈ = L + Jᵀλ, J q̈ = −d̄f, solved with
  numpy per call), which needs no symbolic accelerations.

* ``jetgeo-C`` — the same with ``backend="c"`` (generated C compiled into an extension module,
  :mod:`jetgeo.numerics.codegen`).

All are checked to agree at the point before timing.  Times are medians of
``--repeat`` runs of ``--number`` calls, in µs per call; the ratio column is
jetgeo / hand-written numpy (below 1: the compiled function is faster).

**Against PyDy** (second table; systems of benchmarks/systems.py, each defined once for both
tools: the heavy rolling disc in Euler angles and the n-trailer, n = 4): the full first-order
right-hand side at one random point of Q, per call, in the same run — jetgeo's Python and C
backends of ``cs.accelerations()``, ``sympy.lambdify`` of the same expressions, and PyDy's
``generate_ode_function(generator="cython")`` of the KanesMethod model (u = q̇, the same dependent
velocities as jetgeo's normal form) with the numeric linear solve (``linear_sys_solver="numpy"``)
and with the symbolic LU (``linear_sys_solver="sympy"``).  PyDy and Cython are not jetgeo
dependencies: without them the PyDy columns are skipped with a note.  The ratio column is
jetgeo-C / PyDy-cython-symbolic-LU (the target is ≤ 1.5).
"""

from __future__ import annotations

import argparse
import json
import shlex
import statistics
import sys
import timeit
from pathlib import Path

import numpy as np
import sympy as sp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import systems as S  # noqa: E402 - the shared definitions of the PyDy comparison
from benchmarks.provenance import provenance, provenance_lines  # noqa: E402
from jetgeo import ConstraintSubmanifold, FibredManifold, LagrangianSystem  # noqa: E402
from jetgeo.mechanics import ConstrainedSystem  # noqa: E402
from jetgeo.numerics import (
    compile_rhs,  # noqa: E402
    prepare,  # noqa: E402
)


# --- the systems and their hand-written right-hand sides ---------------------------------------
def vertical_disc():
    """[Benenti 2007, §9.2]: ẋ = R cos ψ θ̇, ẏ = R sin ψ θ̇; θ̈ = ψ̈ = 0, ẍ = −R sin ψ ψ̇ θ̇, ÿ = R cos ψ ψ̇ θ̇."""
    Y = FibredManifold(["x", "y", "theta", "psi"])
    x, y, th, ps = Y.q
    xd, yd, thd, psd = Y.qdot
    m, A, B, R = sp.symbols("m A B R", positive=True)
    S = LagrangianSystem.mechanical(Y, m / 2 * (xd**2 + yd**2) + (A * thd**2 + B * psd**2) / 2)
    cs = S.constrain(ConstraintSubmanifold(Y, [xd - R * sp.cos(ps) * thd, yd - R * sp.sin(ps) * thd]))
    params = {m: 1.0, A: 0.125, B: 0.0625, R: 0.5}
    point = [0.1, 0.2, 0.3, 0.4, 0.5 * np.cos(0.4) * 2.0, 0.5 * np.sin(0.4) * 2.0, 2.0, 0.3]

    def hand(t, s, p):
        x, y, th, ps, xd, yd, thd, psd = s
        A, B, R, m = p          # parameters in sorted order of their names
        w = R * psd * thd
        return np.array([xd, yd, thd, psd, -w * np.sin(ps), w * np.cos(ps), 0.0, 0.0])

    return "vertical rolling disc [Benenti 2007, §9.2]", cs, params, point, hand


def example1():
    """[Stolařová 2009, Example 1]: ẍ = −xy(yẋ + xẏ)ẋ/(1 + x²y²), ÿ = 0, z̈ = d/dt(xyẋ)."""
    Y = FibredManifold(["x", "y", "z"])
    x, y, z = Y.q
    xd, yd, zd = Y.qdot
    cs = LagrangianSystem(Y, (xd**2 + yd**2 + zd**2) / 2).constrain(ConstraintSubmanifold(Y, [zd - x * y * xd]))
    point = [0.3, 0.7, 0.1, 1.0, 1.0, 0.21]

    def hand(t, s, p):
        x, y, z, xd, yd, zd = s
        xdd = -x * y * (y * xd + x * yd) * xd / (1.0 + (x * y) ** 2)
        zdd = (xd * y + x * yd) * xd + x * y * xdd
        return np.array([xd, yd, zd, xdd, 0.0, zdd])

    return "[Stolařová 2009, Example 1] (Chaplygin)", cs, {}, point, hand


def example3():
    """[Stolařová 2009, Example 3] (pursuit).  With d = (x − k₁t, y − η), η = k₂t − Gt²/2, J = (−d_y, d_x),
    d̄f = −k₁ẏ + (k₂ − Gt)ẋ and q̈ = (0, −G) + Jᵀλ/m, the constraint's derivative gives
    λ/m = (k₁ẏ − (k₂ − Gt)ẋ + G d_x)/|d|²."""
    Y = FibredManifold(["x", "y"])
    t = Y.t
    x, y = Y.q
    xd, yd = Y.qdot
    k1, k2, G, m = sp.symbols("k1 k2 G m", positive=True)
    S = LagrangianSystem.mechanical(Y, m / 2 * (xd**2 + yd**2), m * G * y)
    f = yd * (x - k1 * t) - xd * (y - k2 * t + G * t**2 / 2)
    cs = ConstrainedSystem(S, ConstraintSubmanifold(Y, [f], dependent=[yd]))
    params = {G: 10.0, k1: 14.142135623730951, k2: 14.142135623730951, m: 1.0}
    tt, X, Yv, XD = 0.5, 35.0, 17.0, -0.8
    dx, dy = X - 14.142135623730951 * tt, Yv - (14.142135623730951 * tt - 5 * tt**2)
    point = [X, Yv, XD, XD * dy / dx]

    def hand(t, s, p):
        x, y, xd, yd = s
        G, k1, k2, m = p
        dx = x - k1 * t
        dy = y - k2 * t + 0.5 * G * t * t
        lam = (k1 * yd - (k2 - G * t) * xd + G * dx) / (dx * dx + dy * dy)
        return np.array([xd, yd, -dy * lam, -G + dx * lam])

    return "[Stolařová 2009, Example 3] (pursuit, time-dependent)", cs, params, point, hand, tt


def two_points():
    """[Benenti 2007, §9.4] on an inclined plane: W q̈ = A + λ∇_q̇ C with C = ẋ₁ẏ₂ − ẋ₂ẏ₁; eliminating λ
    with Ċ = 0 by hand: λ = g(ẏ₁ − ẏ₂)/((ẋ₂² + ẏ₂²)/m₁ + (ẋ₁² + ẏ₁²)/m₂)."""
    Y = FibredManifold(["x1", "y1", "x2", "y2"])
    x1, y1, x2, y2 = Y.q
    x1d, y1d, x2d, y2d = Y.qdot
    m1, m2, g = sp.symbols("m1 m2 g", positive=True)
    S = LagrangianSystem.mechanical(Y, m1 / 2 * (x1d**2 + y1d**2) + m2 / 2 * (x2d**2 + y2d**2),
                                    -m1 * g * x1 - m2 * g * x2)
    cs = ConstrainedSystem(S, ConstraintSubmanifold(Y, [x1d * y2d - x2d * y1d], dependent=[y2d]))
    params = {g: 2.9, m1: 1.0, m2: 2.0}
    th = 1.0
    point = [0.0, 0.0, 1.0, 0.0, np.cos(th), np.sin(th), 0.5 * np.cos(th), 0.5 * np.sin(th)]

    def hand(t, s, p):
        x1, y1, x2, y2, a, b, c, d = s          # a = ẋ1, b = ẏ1, c = ẋ2, d = ẏ2
        g, m1, m2 = p
        # ∇C = (d, −c, −b, a); q̈ = A/m + λ∇C/m; Ċ = ẍ1 d + a ÿ2 − ẍ2 b − c ÿ1 = 0
        # with A/m = (g, 0, g, 0): g d − g b + λ(d²/m1 + c²/m1 + b²/m2 + a²/m2) = 0
        lam = g * (b - d) / ((d * d + c * c) / m1 + (b * b + a * a) / m2)
        return np.array([a, b, c, d, g + lam * d / m1, -lam * c / m1, g - lam * b / m2, lam * a / m2])

    return "two points with parallel velocities [Benenti 2007, §9.4]", cs, params, point, hand


# --- timing ------------------------------------------------------------------------------------
def per_call(fn, number: int, repeat: int) -> float:
    return statistics.median(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e6


def per_call_auto(fn, repeat: int, seconds: float = 0.15) -> float:
    """Median µs per call, the number of calls per repeat chosen so that a repeat lasts ~``seconds``."""
    one = timeit.timeit(fn, number=20) / 20
    return per_call(fn, max(20, int(seconds / max(one, 1e-9))), repeat)


def bench(entry, number: int, repeat: int) -> dict:
    name, cs, params, point, hand, *rest = entry
    t0 = rest[0] if rest else 0.0
    Y = cs.Y
    acc = cs.accelerations()
    state = list(Y.q) + list(Y.qdot)
    exprs = list(Y.qdot) + [acc[a] for a in Y.qddot]
    P = sorted(params, key=str)
    p = np.array([params[s] for s in P])
    y = np.array(point, dtype=float)
    f = compile_rhs(exprs, state, P, Y.t)
    fc = compile_rhs(exprs, state, P, Y.t, backend="c")
    ff = compile_rhs(exprs, state, P, Y.t, factor=True)
    lam = sp.lambdify((Y.t, state, P), exprs, "numpy", cse=True)
    bordered = prepare(cs, "multipliers").rhs._func
    pv = np.array([params[s] for s in prepare(cs, "multipliers").params])
    ref = hand(t0, y, p)
    for other in (f(t0, y, p), fc(t0, y, p), ff(t0, y, p), np.array(lam(t0, y, p), dtype=float), bordered(t0, y, pv)):
        assert np.allclose(other, ref, rtol=1e-9, atol=1e-12), (name, other, ref)
    return {
        "system": name,
        "jetgeo": per_call(lambda: f(t0, y, p), number, repeat),
        "jetgeo_factor": per_call(lambda: ff(t0, y, p), number, repeat),
        "jetgeo_c": per_call(lambda: fc(t0, y, p), number, repeat),
        "lambdify": per_call(lambda: lam(t0, y, p), number, repeat),
        "numpy": per_call(lambda: hand(t0, y, p), number, repeat),
        "bordered": per_call(lambda: bordered(t0, y, pv), number, repeat),
        "ops": f.ops,
        "ops_cse": f.ops_cse,
        "ops_factor": ff.ops_cse,
    }


def bench_pydy(name: str, repeat: int, seed: int = 2026) -> dict:
    """One system of benchmarks/systems.py: jetgeo (python, C), lambdify, PyDy cython (numeric / symbolic LU)."""
    import time

    model = S.build(name)
    Y, L, fs = S.jetgeo_inputs(model)
    t1 = time.perf_counter()
    cs, acc = S.jetgeo_derive(Y, L, fs)
    derive = time.perf_counter() - t1
    dep = [Y.qdot.index(d) for d in cs.dependent]
    P = sorted(model.params, key=str)
    p = np.array([model.params[s] for s in P])
    pt = S.random_state(model, Y, cs.nf, np.random.default_rng(seed))
    state = list(Y.q) + list(Y.qdot)
    y = np.array([pt[s] for s in state])
    exprs = list(Y.qdot) + [acc[a] for a in Y.qddot]
    t0 = 0.0
    t1 = time.perf_counter()
    fp = compile_rhs(exprs, state, P, Y.t)
    t_py = time.perf_counter() - t1
    t1 = time.perf_counter()
    fc = compile_rhs(exprs, state, P, Y.t, backend="c")
    t_c = time.perf_counter() - t1
    lam = sp.lambdify((Y.t, state, P), exprs, "numpy", cse=True)
    ref = fp(t0, y, p)
    variants = {"jetgeo": lambda: fp(t0, y, p), "jetgeo_c": lambda: fc(t0, y, p),
                "lambdify": lambda: lam(t0, y, p)}
    row = {"system": name, "n_state": len(state), "dependent": [str(Y.qdot[i]) for i in dep], "derive_s": derive,
           "compile_python_s": t_py, "compile_c_s": t_c, "ops": fp.ops, "ops_cse": fp.ops_cse}
    for key, fn in variants.items():
        assert np.allclose(np.asarray(fn(), dtype=float), ref, rtol=1e-10, atol=1e-12), (name, key)
    try:
        from pydy.codegen.ode_function_generators import generate_ode_function
    except ImportError:
        row["pydy"] = "not installed (pip install pydy cython): PyDy columns skipped"
    else:
        km, u, _, _ = S.kane_derive(model, dep, explicit=False)
        speeds = S._speeds(model)
        # PyDy's state x = (q, u) with u in KanesMethod's order [independent, dependent]
        x = np.array([pt[s] for s in Y.q] + [pt[Y.qdot[speeds.index(ui)]] for ui in km.u])
        back = [list(km.u).index(ui) for ui in speeds]         # u̇ in model order
        n = len(Y.q)
        for solver, key in (("numpy", "pydy_cython"), ("sympy", "pydy_cython_lu")):
            t1 = time.perf_counter()
            g = generate_ode_function(km.forcing_full, km.q, km.u, P, mass_matrix=km.mass_matrix_full,
                                      generator="cython", linear_sys_solver=solver, constants_arg_type="array")
            row[f"{key}_generate_s"] = time.perf_counter() - t1
            xd = g(x, t0, p)
            got = np.concatenate([xd[:n], xd[n:][back]])
            assert np.allclose(got, ref, rtol=1e-9, atol=1e-10), (name, key, got, ref)
            variants[key] = (lambda g=g: g(x, t0, p))
    for key, fn in variants.items():
        row[key] = per_call_auto(fn, repeat)
    return row


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--number", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--pydy-only", action="store_true", help="only the PyDy comparison")
    args = ap.parse_args(argv)
    prov = provenance("python benchmarks/bench_rhs.py " + shlex.join(sys.argv[1:] if argv is None else argv))
    print("\n".join(provenance_lines(prefix="# ", fields=prov)), flush=True)
    rows = [] if args.pydy_only else [bench(e(), args.number, args.repeat)
                                      for e in (vertical_disc, example1, example3, two_points)]
    head = (f"{'system':46s} {'jetgeo':>7s} {'+factor':>7s} {'C':>6s} {'numpy':>7s} {'ratio':>6s} {'ratio_f':>7s} "
            f"{'lambdify':>8s} {'bordered':>8s} {'ops (cse, factor+cse)':>22s}")
    print("µs per call of the right-hand side (median); ratio = jetgeo / hand-written numpy,"
          " ratio_f = jetgeo(factor=True) / hand-written numpy")
    print(head)
    for r in rows:
        print(f"{r['system']:46s} {r['jetgeo']:7.2f} {r['jetgeo_factor']:7.2f} {r['jetgeo_c']:6.2f} {r['numpy']:7.2f} "
              f"{r['jetgeo'] / r['numpy']:6.2f} {r['jetgeo_factor'] / r['numpy']:7.2f} {r['lambdify']:8.2f} "
              f"{r['bordered']:8.2f} {r['ops']:>8d} {r['ops_cse']:>5d} {r['ops_factor']:>6d}")
    versus = [bench_pydy(name, args.repeat) for name in ("heavy_disc", "n_trailer_4")]
    print("\nµs per call of the full right-hand side (q̇, q̈) (median, same run); ratio = jetgeo-C / PyDy cython "
          "with symbolic LU")
    cols = ("jetgeo", "jetgeo_c", "lambdify", "pydy_cython", "pydy_cython_lu")
    print(f"{'system':14s} {'jetgeo-py':>9s} {'jetgeo-C':>9s} {'lambdify':>9s} {'PyDy-cy':>9s} {'PyDy-cy-LU':>10s} "
          f"{'ratio':>6s} {'C/PyDy-cy':>9s}")
    for r in versus:
        vals = " ".join(f"{r[c]:9.2f}" if c in r else f"{'—':>9s}" for c in cols)
        lu = r.get("pydy_cython_lu")
        ratio = f"{r['jetgeo_c'] / lu:6.2f}" if lu else f"{'—':>6s}"
        ratio2 = f"{r['jetgeo_c'] / r['pydy_cython']:9.2f}" if "pydy_cython" in r else f"{'—':>9s}"
        print(f"{r['system']:14s} {vals} {ratio} {ratio2}")
        if "pydy" in r:
            print(f"  note: PyDy {r['pydy']}")
    out = Path(__file__).resolve().parent / "results"
    result = {"provenance": prov, "hand_written": rows, "vs_pydy": versus}
    if out.is_dir():
        (out / "bench_rhs.json").write_text(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    main()
