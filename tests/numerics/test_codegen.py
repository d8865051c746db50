"""The C backend of compile_rhs (jetgeo.numerics.codegen): the same values as the Python backend
(a second, independent code path: Python's ``math`` on the sympy Python printer's output), the
disk cache, renaming safety and the error when there is no compiler."""

from __future__ import annotations

import multiprocessing
import os
import shutil

import numpy as np
import pytest
import sympy as sp

from jetgeo import systems
from jetgeo.errors import InputError, JetgeoError
from jetgeo.numerics import codegen, compile_rhs, prepare, simulate
from jetgeo.numerics.codegen import CompilerUnavailableError

if shutil.which(codegen.compiler_command()[0]) is None:  # the only skip: CI has gcc
    pytest.skip(f"no C compiler on this machine ({codegen.compiler_command()[0]!r} not found): the C backend "
                "cannot be tested", allow_module_level=True)


@pytest.fixture(autouse=True)
def fresh_cache(tmp_path_factory, monkeypatch):
    """Every test compiles into a private cache directory (shared within this module)."""
    monkeypatch.setenv("JETGEO_CACHE", str(tmp_path_factory.getbasetemp() / "jetgeo-cache"))


def _rhs_inputs(name):
    e = systems.load(name)
    cs = e.constrained()
    Y = e.Y
    acc = cs.accelerations()
    state = [*Y.q, *Y.qdot]
    exprs = [*Y.qdot, *(acc[a] for a in Y.qddot)]
    num = e.numeric()
    P = list(e.parameters)
    return Y, state, exprs, P, num


@pytest.mark.parametrize("name", ["rolling_disc", "appell_machine", "parallel_velocities", "stolarova_example3"])
def test_c_backend_matches_python_backend_on_catalogue_accelerations(name):
    Y, state, exprs, P, num = _rhs_inputs(name)
    jac = name == "stolarova_example3"            # time-dependent: t reaches the C code
    fp = compile_rhs(exprs, state, P, Y.t, jacobian=jac)
    fc = compile_rhs(exprs, state, P, Y.t, jacobian=jac, backend="c")
    assert fc.backend == "c" and fp.backend == "python" and "kernel" in fc.source
    assert fc.ops_cse == fp.ops_cse                # the same cse, printed twice
    rng = np.random.default_rng(7)
    y0 = np.array([num.get(s, 0.0) for s in state])
    p = np.array([num[s] for s in P])
    for _ in range(5):
        y = y0 + rng.uniform(-0.05, 0.05, y0.size)  # near the catalogue's state: inside every sqrt's domain
        t = float(rng.uniform(0.0, 0.5))
        want = fp(t, y, p)
        got = fc(t, y, p)
        assert got.dtype == np.float64 and got.shape == want.shape
        assert np.allclose(got, want, rtol=1e-12, atol=1e-12), (name, got - want)
        if jac:
            assert fc.jacobian.backend == "c"
            assert np.allclose(fc.jacobian(t, y, p), fp.jacobian(t, y, p), rtol=1e-12, atol=1e-12)


def test_inputs_lists_strided_arrays_and_wrong_lengths():
    x, y, k = sp.symbols("x y k")
    f = compile_rhs([x * y + k, sp.exp(x) / (1 + y**2)], [x, y], [k], backend="c")
    want = np.array([0.5 * 2.0 + 3.0, np.exp(0.5) / 5.0])
    big = np.array([[0.5, 9.0], [2.0, 9.0]])
    for yy, pp in (([0.5, 2], [3]), ((0.5, 2.0), np.array([3.0])), (big[:, 0], np.array([3.0], dtype=np.float32))):
        assert np.allclose(f(0.0, yy, pp), want, rtol=1e-14)
    with pytest.raises(ValueError, match="state y must have length 2"):
        f(0.0, [1.0, 2.0, 3.0], [3.0])
    with pytest.raises(ValueError, match="parameters p must have length 1"):
        f(0.0, [1.0, 2.0], [])
    with pytest.raises(TypeError):
        f("now", [1.0, 2.0], [3.0])


def test_matrix_shape_and_constant_output():
    x, y = sp.symbols("x y")
    M = sp.Matrix([[x, 2], [sp.cos(y), x * y]])
    fm = compile_rhs(M, [x, y], backend="c")
    assert fm(0.0, [1.5, 0.2]).shape == (2, 2)
    assert np.allclose(fm(0.0, [1.5, 0.2]), [[1.5, 2.0], [np.cos(0.2), 0.3]], rtol=1e-14)
    fc = compile_rhs([sp.Integer(3), sp.Rational(1, 3)], [x], backend="c")   # 1/3 must not be integer division
    assert np.allclose(fc(0.0, [1.0]), [3.0, 1 / 3], rtol=1e-15)
    # no integer arithmetic in C: integer-valued pieces divide as reals
    xx, yy = sp.symbols("xx yy")
    ratio = [sp.Piecewise((1, xx > 0), (3, True)) / sp.Piecewise((2, yy > 0), (4, True)),
             sp.sign(xx) / (2 * sp.sign(yy)), sp.Abs(xx) + sp.Integer(7) / 2]
    fr = compile_rhs(ratio, [xx, yy], backend="c")
    assert np.allclose(fr(0.0, [1.0, 1.0]), [0.5, 0.5, 4.5], rtol=1e-15)
    assert np.allclose(fr(0.0, [-2.5, -1.0]), [0.75, 0.5, 6.0], rtol=1e-15)
    assert np.allclose(fr(0.0, [0.0, -1.0]), [0.75, 0.0, 3.5], rtol=1e-15)
    # sympy's Mod takes the sign of the divisor (Python's %), C's fmod that of the dividend
    fmod = compile_rhs([sp.Mod(x, 2), sp.Mod(x, -2)], [x], backend="c")
    for v in (-3.5, -0.25, 1.75):
        assert np.allclose(fmod(0.0, [v]), [v % 2, v % -2], rtol=1e-15)


def test_second_compile_loads_from_the_disk_cache_without_compiling():
    x, k = sp.symbols("x k")
    expr = [sp.sin(x) * k + x**5 - 17 * sp.sqrt(1 + x**2)]   # an expression no other test compiles
    want = np.sin(0.7) * 2 + 0.7**5 - 17 * np.sqrt(1.49)
    before = dict(codegen.stats)
    f1 = compile_rhs(expr, [x], [k], backend="c")
    assert codegen.stats["compiled"] == before["compiled"] + 1
    cache = codegen.cache_dir()
    modules = [p for p in cache.glob("jetgeo_rhs_*.c") if p.read_text() == f1.source]
    assert len(modules) == 1 and not list(cache.glob("build-*")) and not list(cache.glob("**/*.tmp"))
    f2 = compile_rhs(expr, [x], [k], backend="c")                      # same process: in memory
    assert codegen.stats["reused"] == before["reused"] + 1
    codegen.clear_memory_cache()                                      # as a new process would
    f3 = compile_rhs(expr, [x], [k], backend="c")                      # through the expression index
    assert codegen.stats["loaded"] == before["loaded"] + 1 and f3.source == f1.source
    assert f3.ops_cse == f1.ops_cse                                   # recomputed on demand
    for p in (cache / "index").iterdir():                             # without the index: by the source's hash
        p.unlink()
    codegen.clear_memory_cache()
    f4 = compile_rhs(expr, [x], [k], backend="c")
    assert codegen.stats["loaded"] == before["loaded"] + 2
    assert codegen.stats["compiled"] == before["compiled"] + 1       # never a second compiler run
    for f in (f1, f2, f3, f4):
        assert f(0.0, [0.7], [2.0])[0] == pytest.approx(want, rel=1e-14)


def _compile_in_child(cache, barrier, queue):
    os.environ["JETGEO_CACHE"] = cache
    codegen.clear_memory_cache()
    x = sp.Symbol("x")
    barrier.wait(timeout=60)                       # both children reach the compiler together
    f = compile_rhs([x**3 + sp.atan(x) + 12345], [x], backend="c")
    queue.put((float(f(0.0, [2.0])[0]), codegen.stats["compiled"] + codegen.stats["loaded"]))


def test_concurrent_processes_share_the_cache(tmp_path):
    """Two processes compile the same new expression at once into one cache: both succeed (atomic rename)."""
    ctx = multiprocessing.get_context("fork")      # children start with jetgeo imported
    barrier, queue = ctx.Barrier(2), ctx.Queue()
    procs = [ctx.Process(target=_compile_in_child, args=(str(tmp_path), barrier, queue)) for _ in range(2)]
    for p in procs:
        p.start()
    results = [queue.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    for value, _ in results:
        assert value == pytest.approx(8 + np.arctan(2.0) + 12345, rel=1e-15)
    assert len(list(tmp_path.glob("jetgeo_rhs_*.c"))) == 1 and not list(tmp_path.glob("build-*"))


def test_user_symbol_names_never_reach_the_c_source():
    """Parameters named like C keywords, a unicode name, a LaTeX name, and names of the generated code."""
    x = sp.Symbol("x")
    th = sp.Symbol("θ")
    names = ["int", "double", "return", r"\alpha_{1}", "jg_y0", "_y1", "out", "kernel", "M_PI", "y"]
    ps = sp.symbols(names)
    e1 = sum((i + 1) * s for i, s in enumerate(ps)) * sp.cos(th) + x
    e2 = ps[0] / ps[1] + ps[3] ** 2 - ps[4] * ps[5] + sp.pi
    fc = compile_rhs([e1, e2], [x, th], ps, backend="c")
    fp = compile_rhs([e1, e2], [x, th], ps)
    src = fc.source
    for bad in ("θ", "alpha", "\\", "{1}", " int ", "return ", "jg_y0 ="):
        if bad == "jg_y0 =":   # the state's own safe name is declared once, from y[0]
            assert src.count(bad) == 1
        else:
            assert bad not in src.split("static void kernel", 1)[1].split("as_vector", 1)[0]
    vals = np.linspace(0.5, 1.4, len(ps))
    y = np.array([0.3, 0.8])
    sub = {x: 0.3, th: 0.8, **dict(zip(ps, vals))}
    want = [float(e.evalf(subs=sub)) for e in (e1, e2)]
    assert np.allclose(fc(0.0, y, vals), want, rtol=1e-13)
    assert np.allclose(fp(0.0, y, vals), want, rtol=1e-13)


def test_missing_compiler_is_a_clear_error_and_auto_falls_back(monkeypatch):
    x, k = sp.symbols("x k")
    expr = [k * sp.sinh(x) + 31]
    monkeypatch.setenv("JETGEO_CC", "/nonexistent/bin/cc-jetgeo")
    codegen.clear_memory_cache()
    with pytest.raises(CompilerUnavailableError, match="/nonexistent/bin/cc-jetgeo.*not found") as info:
        compile_rhs(expr, [x], [k], backend="c")
    assert isinstance(info.value, JetgeoError)
    f = compile_rhs(expr, [x], [k], backend="auto")
    assert f.backend == "python" and f(0.0, [0.5], [2.0])[0] == pytest.approx(2 * np.sinh(0.5) + 31)
    monkeypatch.setenv("JETGEO_CC", "false")                          # a compiler that fails
    with pytest.raises(CompilerUnavailableError, match="failed"):
        compile_rhs([k * sp.sinh(x) + 32], [x], [k], backend="c")


def test_backend_arguments_and_unprintable_expressions():
    x = sp.Symbol("x")
    with pytest.raises(InputError, match="backend"):
        compile_rhs([x], [x], backend="fortran")
    with pytest.raises(InputError, match="one point per call"):
        compile_rhs([x], [x], vectorized=True, backend="c")
    assert compile_rhs([x], [x], vectorized=True, backend="auto").backend == "python"
    kd = sp.KroneckerDelta(x, 1)                  # printed by sympy's Python printer, not by its C printer
    with pytest.raises(InputError, match="does not support"):
        compile_rhs([kd + x], [x], backend="c")
    f = compile_rhs([kd + x], [x], backend="auto")
    assert f.backend == "python" and f(0.0, [1.0])[0] == 2.0


def test_simulation_with_the_c_backend_matches_the_python_backend():
    e = systems.load("rolling_disc")
    cs = e.constrained()
    kw = dict(initial=e.numeric(), params=e.numeric(), rtol=1e-10, atol=1e-12)
    r_py = simulate(cs, (0, 2), **kw)
    r_c = simulate(cs, (0, 2), backend="c", **kw)
    assert r_c.status == r_py.status and r_c.success
    assert np.allclose(r_c.q[-1], r_py.q[-1], rtol=1e-9, atol=1e-10)
    assert np.allclose(r_c.qdot[-1], r_py.qdot[-1], rtol=1e-9, atol=1e-10)
    assert r_c.max_residual < 1e-8
    with pytest.raises(InputError, match="prepared system was compiled with backend='python'"):
        simulate(prepare(cs), (0, 1), backend="c", **kw)


def test_bordered_system_solved_in_c_matches_numpy_and_refuses_a_singular_matrix():
    """compile_rhs(..., bordered=(m, k)) with the C backend: one call evaluates the blocks [W, ℓ, J, b]
    and eliminates; (q̈, λ) and det K equal numpy's solve of the same blocks."""
    from jetgeo.mechanics.bordered import bordered_system

    e = systems.load("n_trailer", n=2)
    Y = e.Y
    B = bordered_system(e.system, e.Q)
    state, P = [*Y.q, *Y.qdot], list(e.parameters)
    m, k = Y.m, len(e.Q.f)
    fc = compile_rhs(B.flat(), state, P, Y.t, backend="c", bordered=(m, k))
    fp = compile_rhs(B.flat(), state, P, Y.t, bordered=(m, k))
    assert fp.bordered_rhs is None and fp.bordered_solve is None   # the Python backend solves with numpy
    num = e.numeric()
    p = np.array([num[s] for s in P])
    rng = np.random.default_rng(3)
    for _ in range(4):
        y = np.array([num.get(s, 0.0) for s in state]) + rng.uniform(-0.3, 0.3, 2 * m)
        v = fp(0.0, y, p)
        W, L = v[: m * m].reshape(m, m), v[m * m: m * m + m]
        J, b = v[m * m + m: m * m + m + k * m].reshape(k, m), v[m * m + m + k * m:]
        K = np.block([[W, -J.T], [J, np.zeros((k, k))]])
        want = np.linalg.solve(K, np.concatenate([L, -b]))
        x, det = fc.bordered_solve(0.0, y, p)
        assert np.allclose(x, want, rtol=1e-10, atol=1e-12)
        assert det == pytest.approx(np.linalg.det(K), rel=1e-10)
        assert np.allclose(fc.bordered_rhs(0.0, y, p), np.concatenate([y[m:], want[:m]]), rtol=1e-10, atol=1e-12)
    # K singular (J = 0): ZeroDivisionError from the right-hand side, (None, 0.0) from solve
    q, qd = sp.symbols("q qd")
    fz = compile_rhs([sp.Integer(1), -q, sp.Integer(0), sp.Integer(0)], [q, qd], backend="c", bordered=(1, 1))
    with pytest.raises(ZeroDivisionError, match="singular"):
        fz.bordered_rhs(0.0, [1.0, 0.0])
    assert fz.bordered_solve(0.0, [1.0, 0.0]) == (None, 0.0)
    with pytest.raises(InputError, match="needs 4 blocks"):
        compile_rhs([q, qd], [q, qd], backend="c", bordered=(1, 1))
    with pytest.raises(InputError, match="pair"):
        compile_rhs([q], [q, qd], bordered=(1,))


def test_multipliers_formulation_with_the_c_backend_solves_in_c_and_matches_python():
    """prepare(..., "multipliers", backend="c"): the integrator calls the C bordered solve directly and the
    constraint-rank monitor reads J from the same module; the motion equals the Python backend's."""
    e = systems.load("n_trailer", n=2)
    num = e.numeric()
    prep = prepare(e, "multipliers", backend="c")
    assert prep.rhs._func is prep.bordered.dae.bordered_rhs
    y = np.array([num.get(s, 0.0) for s in prep.full_state])
    p = np.array([num[s] for s in prep.params])
    py = prepare(e, "multipliers")
    assert np.allclose(prep.jacobian_of_constraints(0.0, y, p), py.jacobian_of_constraints(0.0, y, p), atol=1e-14)
    assert prep.rhs.det(0.0, y, p) == pytest.approx(py.rhs.det(0.0, y, p), rel=1e-10)
    # the metric is the W block, the scales Σ|terms of f^j| are summed numerically: both as from sympy
    pt = dict(zip(prep.full_state, y)) | dict(zip(prep.params, p))
    W = e.system.hessian().xreplace(pt)
    assert np.allclose(prep.metric(0.0, y, p), np.array(W, dtype=float), rtol=1e-12, atol=1e-14)
    scales = [float(sum(abs(a.xreplace(pt)) for a in sp.Add.make_args(f))) for f in e.Q.f]
    assert np.allclose(prep.constraint_scales(0.0, y, p), scales, rtol=1e-12)
    along = prep.constraint_scales_along(0.0, np.stack([y, y], axis=1), p)
    assert along.shape == (len(scales), 2) and np.allclose(along[:, 1], scales, rtol=1e-12)
    kw = dict(initial=num, params=num, rtol=1e-10, atol=1e-12)
    r_c, r_py = simulate(prep, (0, 2), **kw), simulate(py, (0, 2), **kw)
    assert r_c.success and r_c.status == r_py.status == "finished"
    assert np.allclose(r_c.q[-1], r_py.q[-1], rtol=1e-9, atol=1e-10)
    assert np.allclose(r_c.multipliers[-1], r_py.multipliers[-1], rtol=1e-8, atol=1e-10)


def test_long_sources_are_compiled_without_optimisation():
    """gcc's optimisers are superlinear in the length of one function: sources above
    OPTIMISE_MAX_CHARS are built with -O0 (the same values)."""
    assert codegen._optimisation("x" * codegen.OPTIMISE_MAX_CHARS) == "-O2"
    assert codegen._optimisation("x" * (codegen.OPTIMISE_MAX_CHARS + 1)) == "-O0"
    x = sp.Symbol("x")
    f = compile_rhs([x * k + sp.sin(x) for k in range(1, 2000)], [x], backend="c", cse=False)
    assert len(f.source) > codegen.OPTIMISE_MAX_CHARS
    assert np.allclose(f(0.0, [0.3]), 0.3 * np.arange(1, 2000) + np.sin(0.3), rtol=1e-14)
