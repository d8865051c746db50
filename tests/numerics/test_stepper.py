"""The compiled implicit stepper (jetgeo.numerics.stepper): implicit midpoint on the harmonic
oscillator and the pendulum against hand-written NumPy implementations, a constrained system with
a Lagrange multiplier among the unknowns, the Python and C backends against each other, the
failures (singular Jacobian, no convergence, non-finite values) reported with their step, the C
source's safety and the build cache."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
import sympy as sp
from scipy.integrate import solve_ivp

from jetgeo.errors import InputError, StepFailedError
from jetgeo.numerics import codegen
from jetgeo.numerics import stepper as stepper_module
from jetgeo.numerics.stepper import ImplicitStepper, compile_stepper, periodic_indices

HAVE_CC = shutil.which(codegen.compiler_command()[0]) is not None
BACKENDS = ["python", pytest.param("c", marks=pytest.mark.skipif(not HAVE_CC, reason="no C compiler on this machine"))]


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory, monkeypatch):
    """Every test compiles into a private cache directory (shared within this module)."""
    monkeypatch.setenv("JETGEO_CACHE", str(tmp_path_factory.getbasetemp() / "jetgeo-stepper-cache"))


q0, v0, q1, v1, h, k = sp.symbols("q0 v0 q1 v1 h k")


def oscillator(backend: str) -> ImplicitStepper:
    """Implicit midpoint for q'' = -k q: unknowns (q1, v1), node (q0, v0)."""
    F = [q1 - q0 - h * (v0 + v1) / 2, v1 - v0 + h * k * (q0 + q1) / 2]
    return compile_stepper(F, [q1, v1], [q0, v0], [h, k], advance=[q1, v1], backend=backend)


def pendulum(backend: str, **options) -> ImplicitStepper:
    """Implicit midpoint for q'' = -sin q, with the explicit Euler step as predictor."""
    F = [q1 - q0 - h * (v0 + v1) / 2, v1 - v0 + h * sp.sin((q0 + q1) / 2)]
    return compile_stepper(F, [q1, v1], [q0, v0], [h], advance=[q1, v1],
                           predictor=[q0 + h * v0, v0 - h * sp.sin(q0)], backend=backend, **options)


def midpoint_pendulum_numpy(w, hh, n_steps):
    """A hand-written implicit midpoint for the pendulum: Newton with the hand-derived Jacobian."""
    out = [np.array(w, dtype=float)]
    for _ in range(n_steps):
        qa, va = out[-1]
        z = np.array([qa + hh * va, va - hh * np.sin(qa)])
        for _ in range(50):
            qm = (qa + z[0]) / 2
            F = np.array([z[0] - qa - hh * (va + z[1]) / 2, z[1] - va + hh * np.sin(qm)])
            J = np.array([[1.0, -hh / 2], [hh * np.cos(qm) / 2, 1.0]])
            dz = np.linalg.solve(J, F)
            z = z - dz
            if np.max(np.abs(dz)) <= 1e-15 * (1 + np.max(np.abs(z))):
                break
        out.append(z)
    return np.array(out)


@pytest.mark.parametrize("backend", BACKENDS)
def test_oscillator_is_the_cayley_map_and_conserves_the_energy(backend):
    st = oscillator(backend)
    hh, kk, n = 0.1, 4.0, 1000
    r = st.run([1.0, 0.5], n, [hh, kk])
    assert r.status == "ok" and r.nodes.shape == (n + 1, 2) and r.steps.tolist() == list(range(n + 1))
    A = np.array([[0.0, 1.0], [-kk, 0.0]])
    cayley = np.linalg.solve(np.eye(2) - hh * A / 2, np.eye(2) + hh * A / 2)   # the hand-written midpoint
    want = [np.array([1.0, 0.5])]
    for _ in range(n):
        want.append(cayley @ want[-1])
    assert np.allclose(r.nodes, want, rtol=0, atol=1e-12)
    energy = r.nodes[:, 1] ** 2 / 2 + kk * r.nodes[:, 0] ** 2 / 2                 # a quadratic invariant
    assert np.max(np.abs(energy - energy[0])) < 1e-12
    assert r.iterations.max() <= 2 and r.residual_norms.max() <= st.ftol          # linear: one update + check


@pytest.mark.parametrize("backend", BACKENDS)
def test_pendulum_matches_a_handwritten_midpoint_and_keeps_its_energy_bounded(backend):
    st = pendulum(backend)
    r = st.run([2.0, 0.0], 200, [0.1])
    assert r.ok
    assert np.allclose(r.nodes, midpoint_pendulum_numpy([2.0, 0.0], 0.1, 200), rtol=0, atol=1e-12)
    long = st.run([2.0, 0.0], 4000, [0.1], every=4)                                # t = 400, ~60 periods
    energy = long.nodes[:, 1] ** 2 / 2 - np.cos(long.nodes[:, 0])
    err = np.abs(energy - energy[0])
    half = err.size // 2
    assert err.max() < 1e-2                                                       # O(h²), bounded
    assert err[half:].max() < 1.5 * err[:half].max()                              # no trend over the second half


def _errors_at_one(st, w0, exact, ns, p_of_h):
    return [float(np.max(np.abs(st.run(w0, n, p_of_h(1.0 / n)).last[:len(exact)] - exact))) for n in ns]


@pytest.mark.parametrize("backend", BACKENDS)
def test_pendulum_is_second_order(backend):
    st = pendulum(backend)
    exact = solve_ivp(lambda t, s: [s[1], -np.sin(s[0])], (0, 1), [2.0, 0.0], method="DOP853", rtol=1e-13,
                      atol=1e-13).y[:, -1]
    errs = _errors_at_one(st, [2.0, 0.0], exact, (10, 20, 40), lambda hh: [hh])
    ratios = [errs[i] / errs[i + 1] for i in range(2)]
    assert all(3.8 < r < 4.2 for r in ratios), ratios


x0, y0, u0, w0, x1, y1, u1, w1, lam = sp.symbols("x0 y0 u0 w0 x1 y1 u1 w1 lam")


def constrained(backend: str) -> ImplicitStepper:
    """A particle in the plane with the non-holonomic constraint ẏ = x ẋ: the reaction λ(−x, 1) at the
    midpoint, the constraint imposed at the new node; unknowns (x1, y1, u1, w1, λ)."""
    xm = (x0 + x1) / 2
    F = [x1 - x0 - h * (u0 + u1) / 2, y1 - y0 - h * (w0 + w1) / 2, u1 - u0 + h * lam * xm, w1 - w0 - h * lam,
         w1 - x1 * u1]
    return compile_stepper(F, [x1, y1, u1, w1, lam], [x0, y0, u0, w0], [h], advance=[x1, y1, u1, w1],
                           predictor=[x0 + h * u0, y0 + h * w0, u0, w0, 0], backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_constrained_system_with_a_multiplier_keeps_the_constraint_and_is_second_order(backend):
    st = constrained(backend)
    start = [0.3, 0.0, 1.0, 0.3]                                                   # on the constraint
    r = st.run(start, 500, [0.02])
    assert r.ok and r.unknowns.shape == (500, 5)
    x, _, u, w = r.nodes.T
    assert np.max(np.abs(w - x * u)) <= 1e-12                                     # at every node
    # the multiplier approximates the continuous one, λ = u²/(1 + x²) (from d/dt(w − x u) = 0)
    xm, um = (x[:-1] + x[1:]) / 2, (u[:-1] + u[1:]) / 2
    assert np.max(np.abs(r.unknowns[:, 4] - um**2 / (1 + xm**2))) < 1e-3

    def reduced(t, s):
        return [s[2], s[0] * s[2], -s[0] * s[2] ** 2 / (1 + s[0] ** 2)]

    exact = solve_ivp(reduced, (0, 1), start[:3], method="DOP853", rtol=1e-13, atol=1e-13).y[:, -1]
    errs = _errors_at_one(st, start, exact, (10, 20, 40), lambda hh: [hh])
    assert all(3.8 < errs[i] / errs[i + 1] < 4.2 for i in range(2)), errs


@pytest.mark.skipif(not HAVE_CC, reason="no C compiler on this machine")
@pytest.mark.parametrize("make, start, p", [(oscillator, [1.0, 0.5], [0.05, 3.0]), (pendulum, [2.5, 0.3], [0.05]),
                                            (constrained, [0.3, 0.0, 1.0, 0.3], [0.05])])
def test_python_and_c_backends_agree(make, start, p):
    rp = make("python").run(start, 300, p, every=7)
    rc = make("c").run(start, 300, p, every=7)
    assert rp.ok and rc.ok and rc.steps.tolist() == rp.steps.tolist() == [*range(0, 300, 7), 300]
    for a, b in ((rp.nodes, rc.nodes), (rp.unknowns, rc.unknowns), (rp.last, rc.last),
                 (rp.last_unknowns, rc.last_unknowns)):
        assert np.allclose(a, b, rtol=0, atol=1e-12)
    assert rp.iterations.tolist() == rc.iterations.tolist()


@pytest.mark.parametrize("backend", BACKENDS)
def test_step_without_predictor_starts_from_the_guess_and_run_from_the_previous_solution(backend):
    z, w = sp.symbols("z w")
    st = compile_stepper([z**2 - w], [z], [w], advance=[w + 1], backend=backend)    # two roots: ±√w
    zp, wn = st.step([4.0], guess=[1.0])
    zm, _ = st.step([4.0], guess=[-1.0])
    assert zp.tolist() == [2.0] and zm.tolist() == [-2.0] and wn.tolist() == [5.0]
    r = st.run([4.0], 5, guess=[-1.0])                                             # stays on the − branch
    assert r.ok and np.allclose(r.unknowns[:, 0], -np.sqrt(np.arange(4.0, 9.0)), rtol=0, atol=1e-13)


@pytest.mark.parametrize("backend", BACKENDS)
def test_singular_jacobian_stops_the_run_at_its_step(backend):
    z, w = sp.symbols("z w")
    st = compile_stepper([w * z - 1], [z], [w], advance=[w - 1], backend=backend)   # J = w vanishes at w = 0
    r = st.run([2.0], 5)
    assert (r.status, r.failed_step, r.steps_done) == ("singular", 2, 2)
    assert r.nodes[:, 0].tolist() == [2.0, 1.0, 0.0] and r.last.tolist() == [0.0] and r.last_unknowns.tolist() == [1.0]
    assert "step 2" in r.message and "singular" in r.message
    with pytest.raises(StepFailedError, match="singular") as info:
        r.raise_for_status()
    assert (info.value.step, info.value.reason) == (2, "singular")
    with pytest.raises(StepFailedError) as info:
        st.step([0.0])
    assert (info.value.step, info.value.reason) == (0, "singular")
    # exactly singular columns and rows at any point (2 unknowns, the second never appears)
    a, b = sp.symbols("a b")
    st2 = compile_stepper([a - w, a + w], [a, b], [w], advance=[w], backend=backend)
    assert st2.run([1.0], 1).status == "singular"


@pytest.mark.parametrize("backend", BACKENDS)
def test_no_convergence_is_reported(backend):
    z, w = sp.symbols("z w")
    st = compile_stepper([z**2 + 1 + w], [z], [w], advance=[w], backend=backend, max_iter=25)  # no real root
    r = st.run([0.0], 10, guess=[0.3])
    assert (r.status, r.failed_step, r.nodes.shape) == ("no-convergence", 0, (1, 1))
    assert "25 iterations" in r.message
    slow = pendulum(backend, max_iter=1)                                           # needs 2–3 updates
    r = slow.run([2.0, 0.0], 10, [0.1])
    assert r.status == "no-convergence" and r.failed_step == 0
    tight = pendulum(backend, ftol=1e-300)                                         # below round-off
    assert tight.run([2.0, 0.0], 3, [0.1]).status == "no-convergence"


@pytest.mark.parametrize("backend", BACKENDS)
def test_non_finite_values_are_reported(backend):
    z, w = sp.symbols("z w")
    st = compile_stepper([z - sp.sqrt(w)], [z], [w], advance=[w - 1], backend=backend)  # sqrt(-0.5) at step 2
    r = st.run([1.5], 5)
    assert (r.status, r.failed_step) == ("non-finite", 2) and r.nodes[:, 0].tolist() == [1.5, 0.5, -0.5]
    st = compile_stepper([z - w], [z], [w], advance=[1 / (w - 1)], backend=backend)  # 1/0 in step 1's advance
    r = st.run([2.0], 5)
    assert (r.status, r.failed_step, r.nodes[:, 0].tolist(), r.last.tolist()) == ("non-finite", 1, [2.0, 1.0], [1.0])
    st = compile_stepper([z - w], [z], [w], advance=[w + 1], predictor=[sp.log(w)], backend=backend)
    assert st.run([1.0], 3).status == "ok"
    r = st.run([-1.0], 3)                                                          # log(-1): no real predictor
    assert (r.status, r.failed_step) == ("non-finite", 0)


@pytest.mark.skipif(not HAVE_CC, reason="no C compiler on this machine")
def test_generated_c_is_safe_and_the_cache_is_reused():
    z, w, n = sp.symbols("exit system printf")                                   # user names never reach the C
    F = [z**3 + sp.Rational(7, 5) * z - w * n]
    before = dict(codegen.stats)
    st = compile_stepper(F, [z], [w], [n], advance=[w + z], predictor=[w], backend="c")
    assert st.backend == "c" and codegen.stats["compiled"] == before["compiled"] + 1
    for name in ("exit", "system", "printf"):
        assert name not in st.source
    assert "jg_y0" in st.source and "lu_solve" in st.source and "newton" in st.source
    codegen.clear_memory_cache()
    again = compile_stepper(F, [z], [w], [n], advance=[w + z], predictor=[w], backend="c")
    assert codegen.stats["compiled"] == before["compiled"] + 1                     # no second compile
    assert codegen.stats["loaded"] == before["loaded"] + 1 and again.source == st.source
    third = compile_stepper(F, [z], [w], [n], advance=[w + z], predictor=[w], backend="c")
    assert codegen.stats["reused"] == before["reused"] + 1
    assert np.allclose(third.run([0.5], 4, [2.0]).nodes, st.run([0.5], 4, [2.0]).nodes, rtol=0, atol=0)
    with pytest.raises(InputError, match="undefined function"):
        compile_stepper([sp.Function("system")(z)], [z], [w], advance=[w], backend="c")


def test_bad_input_is_an_input_error():
    z, w, a = sp.symbols("z w a")
    with pytest.raises(InputError, match="advance is required"):
        compile_stepper([z - w], [z], [w])
    with pytest.raises(InputError, match="residual has 2 entries; it needs 1"):
        compile_stepper([z - w, z], [z], [w], advance=[w])
    with pytest.raises(InputError, match="advance has 1 entries; it needs 2"):
        compile_stepper([z - w], [z], [w, a], advance=[w])
    with pytest.raises(InputError, match=r"contains \['a'\]"):
        compile_stepper([z - a], [z], [w], advance=[w])
    with pytest.raises(InputError, match="predictor sees w and p, not z"):
        compile_stepper([z - w], [z], [w], advance=[w], predictor=[z])
    with pytest.raises(InputError, match="listed more than once"):
        compile_stepper([z - w], [z], [w], [z], advance=[w])
    with pytest.raises(InputError, match="at least one unknown"):
        compile_stepper([], [], [w], advance=[w])
    with pytest.raises(InputError, match="backend"):
        compile_stepper([z - w], [z], [w], advance=[w], backend="fortran")
    with pytest.raises(InputError, match="tol"):
        compile_stepper([z - w], [z], [w], advance=[w], tol=0.0)
    with pytest.raises(InputError, match="not a sympy Symbol"):
        compile_stepper([z - w], [z + 1], [w], advance=[w])
    many = sp.symbols("u0:257")                                                    # the C stack bound
    with pytest.raises(InputError, match="at most 256 unknowns"):
        compile_stepper([u - w for u in many], many, [w], advance=[w], backend="c")
    st = compile_stepper([z - w * a], [z], [w], [a], advance=[w])
    with pytest.raises(InputError, match="the known vector w must have 1 entries"):
        st.run([1.0, 2.0], 3, [1.0])
    with pytest.raises(InputError, match="parameters p must have 1 entries"):
        st.step([1.0])
    with pytest.raises(InputError, match="non-finite"):
        st.run([np.nan], 3, [1.0])
    with pytest.raises(InputError, match="every must be an integer"):
        st.run([1.0], 3, [1.0], every=0)
    for bad in (2.5, -1, 2**70):
        with pytest.raises(InputError, match="n_steps must be an integer"):
            st.run([1.0], bad, [1.0])


@pytest.mark.parametrize("backend", BACKENDS)
def test_newton_accepts_the_round_off_floor_only_when_the_residual_is_below_ftol(backend):
    # The multiplier λ enters F₁ with the coefficient 1e-3 beside terms 1000·λ·(sin²v + cos²v) − 1000·λ
    # whose round-off (~1e-13) changes with every bit of λ: λ is known only to ~1e-10, and Newton's
    # updates wander at that size, far above tol·(1 + ‖z‖∞) ≈ 1e-13, while ‖F‖∞ stays below ftol (the
    # rolling disc's bordered midpoint rule at h = 0.01 does the same near 1e-12, benchmarks/stepper.py).
    v, lam, w = sp.symbols("v lam w")
    F = [100 * (v - w) + 1000 * lam * (sp.sin(v) ** 2 + sp.cos(v) ** 2) - 1000 * lam - lam / 1000,
         v - w - sp.sin(w) / 10**6]
    args = ([v, lam], [w]), dict(advance=[w + sp.Rational(1, 7)], predictor=[w, 0], backend=backend)
    r = compile_stepper(F, *args[0], **args[1]).run([0.3], 10)
    assert r.ok and r.residual_norms.max() <= 1e-12
    ws = 0.3 + np.arange(10) / 7
    assert np.allclose(r.unknowns[:, 1], np.sin(ws) / 10, rtol=0, atol=1e-8)     # λ = 1e5·(v − w) = sin(w)/10
    strict = compile_stepper(F, *args[0], **args[1], ftol=1e-17)                    # below the residual's floor
    assert strict.run([0.3], 10).status == "no-convergence"



@pytest.mark.parametrize("backend", BACKENDS)
def test_residual_tolerance_scales_with_the_point_a_wound_up_angle_steps_like_an_unwound_one(backend):
    # a million turns carry an absolute error ε·|q| ≈ 1.4e-9 into F (ftol = 1e-12 absolute would stop
    # the first step); the residual is measured against 1 + ‖(z, w)‖∞
    st = pendulum(backend)
    turns = 2 * np.pi * 1e6
    wound = st.run([turns + 2.0, 0.0], 200, [0.1])
    plain = st.run([2.0, 0.0], 200, [0.1])
    assert wound.ok and plain.ok and wound.residual_norms.max() > 1e-12
    assert np.allclose(wound.nodes[:, 0] - turns, plain.nodes[:, 0], rtol=0, atol=1e-6)
    assert np.allclose(wound.nodes[:, 1], plain.nodes[:, 1], rtol=0, atol=1e-6)


@pytest.mark.parametrize("backend", BACKENDS)
def test_growing_updates_far_from_the_root_are_not_taken_for_the_round_off_floor(backend):
    # Newton on atan z from 1.5 overshoots with growing updates (3.2, 5.1, …); with a loose ftol the
    # residual test alone passes (|atan z| < π/2 ≤ 0.99·(1 + |z|) from |z| ≥ 0.6), so only the bound
    # √tol·(1 + ‖z‖∞) on a stalled update keeps the second iterate from being accepted as a root
    z, w = sp.symbols("z w")
    st = compile_stepper([sp.atan(z)], [z], [w], advance=[w], backend=backend, ftol=0.99, max_iter=8)
    r = st.run([0.0], 1, guess=[1.5])
    assert not r.ok and r.status in ("no-convergence", "non-finite") and r.failed_step == 0
    assert st.run([0.0], 1, guess=[0.5]).last_unknowns.tolist() == [0.0]           # inside: converges to 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_periodic_values_are_reduced_and_unwrapped(backend):
    """a' = ω with a carried modulo 2π: the nodes stay in [−π, π), the turns count what was taken out,
    and unwrapped() is the plain run's a (and b, not periodic, is untouched)."""
    a, b, v, h, om = sp.symbols("a b v h omega")
    F = [v - om * sp.cos(b) - sp.sin(a + h * v / 2) ** 2 / 1000]
    plain = compile_stepper(F, [v], [a, b], [h, om], advance=[a + h * v, b], predictor=[om], backend=backend)
    wrapped = compile_stepper(F, [v], [a, b], [h, om], advance=[a + h * v, b], predictor=[om], backend=backend,
                              periodic=[0])
    w0, p = [1e4, 0.1], [0.05, 3.0]
    r0, r1 = plain.run(w0, 1000, p, every=7), wrapped.run(w0, 1000, p, every=7)
    assert r1.ok and r1.periodic == (0,) and r1.turns.shape == (len(r1.nodes), 1)
    assert np.all((-np.pi <= r1.nodes[:, 0]) & (r1.nodes[:, 0] < np.pi)) and r1.turns[-1, 0] > 1590
    assert np.allclose(r1.unwrapped(), r0.nodes, rtol=0, atol=1e-8)
    assert np.array_equal(r1.nodes[:, 1], r0.nodes[:, 1])


def test_periodic_is_decided_exactly_and_bad_indices_are_named():
    a, b, v, h = sp.symbols("a b v h")
    F = [v - sp.sin(a) - sp.cos(b / 2)]
    assert periodic_indices(F, [a, b], [a + h * v, b + h * v], [sp.Integer(0)]) == [0]
    assert periodic_indices([v - a], [a], [a + h * v]) == []            # a enters F itself
    assert periodic_indices([v - sp.sin(a)], [a], [a + 2 * h * v + a]) == []  # advance not a shift by 2π
    with pytest.raises(InputError, match=r"\['b'\] are not seen modulo 2π"):
        compile_stepper(F, [v], [a, b], [h], advance=[a + h * v, b + h * v], periodic=[1])
    for bad, msg in ((5, "not an index"), ([0, 0], "twice"), ("0", "list or tuple")):
        with pytest.raises(InputError, match=msg):
            compile_stepper(F, [v], [a, b], [h], advance=[a + h * v, b + h * v],
                            periodic=bad if isinstance(bad, (list, str)) else [bad])


def test_python_kernels_are_compiled_with_plain_cse(monkeypatch):
    """The Python backend's kernels (residual, residual + Jacobian, advance, predictor) go through plain cse:
    sympy's "basic" pre-processing runs factor_terms on every expression, which was more than half of the CPU
    time of tests/numerics/test_discrete_simulate.py in a profile (43 s → 24 s without it).
    The stepper still steps the pendulum as the hand-written Newton iteration does."""
    seen = []
    real = stepper_module.compile_rhs

    def recording(*args, **kw):
        seen.append((kw.get("name"), kw.get("optimizations", "basic")))
        return real(*args, **kw)

    monkeypatch.setattr(stepper_module, "compile_rhs", recording)
    st = pendulum("python")
    assert sorted(name for name, _ in seen) == ["advance", "predictor", "res", "resjac"]
    assert all(opt is None for _, opt in seen), seen
    r = st.run([0.5, 0.0], 20, [0.05])
    want = midpoint_pendulum_numpy([0.5, 0.0], 0.05, 20)[-1]
    assert np.max(np.abs(np.asarray(r.last, dtype=float) - want)) < 1e-12
