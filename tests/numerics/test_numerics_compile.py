"""compile_rhs: values against sympy's own evaluation, Jacobian against finite differences."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.run import clear_caches
from jetgeo.errors import InputError
from jetgeo.numerics import compile as compile_module
from jetgeo.numerics import compile_rhs
from jetgeo.numerics import cse as cse_module

x, y, th, a, t = sp.symbols("x y theta a t")
EXPRS = [sp.sin(th) * x / (1 + x**2 * y**2) + a * t, sp.sqrt(1 + y**2) * sp.cos(th) - x * y / (1 + x**2 * y**2),
         sp.Integer(3)]
F = compile_rhs(EXPRS, [x, y, th], [a], t)


@settings(max_examples=20)
@given(st.floats(-2, 2), st.floats(-2, 2), st.floats(-3, 3), st.floats(0.1, 2), st.floats(0, 5))
def test_compiled_values_match_sympy_evalf(xv, yv, thv, av, tv):
    got = F(tv, np.array([xv, yv, thv]), np.array([av]))
    sub = {x: xv, y: yv, th: thv, a: av, t: tv}
    want = [float(e.evalf(subs=sub)) for e in EXPRS]
    assert np.allclose(got, want, rtol=1e-12, atol=1e-12)


def test_cse_shares_subexpressions_and_jacobian_matches_finite_differences():
    f = compile_rhs(EXPRS, [x, y, th], [a], t, jacobian=True)
    assert f.ops_cse < f.ops                       # 1 + x²y² is computed once
    assert f.source.count("x0") == 0 and "_c0" in f.source
    y0 = np.array([0.3, -0.7, 1.1])
    J = f.jacobian(0.5, y0, [1.5])
    h = 1e-6
    fd = np.column_stack([(f(0.5, y0 + h * e, [1.5]) - f(0.5, y0 - h * e, [1.5])) / (2 * h) for e in np.eye(3)])
    assert np.allclose(J, fd, atol=1e-8)


def test_vectorized_matches_scalar_and_broadcasts_constants():
    fs = compile_rhs(EXPRS, [x, y, th], [a], t)
    fv = compile_rhs(EXPRS, [x, y, th], [a], t, vectorized=True)
    Y = np.random.default_rng(0).normal(size=(3, 7))
    T = np.linspace(0, 1, 7)
    V = fv(T, Y, [0.4])
    assert V.shape == (3, 7)
    for i in range(7):
        assert np.allclose(V[:, i], fs(T[i], Y[:, i], [0.4]))


def test_matrix_shape_and_unknown_symbols():
    M = sp.Matrix([[x, y], [x * y, 1]])
    f = compile_rhs(M, [x, y])
    assert f(0, [2.0, 3.0]).tolist() == [[2.0, 3.0], [6.0, 1.0]]
    with pytest.raises(InputError, match="b"):
        compile_rhs([x + sp.Symbol("b")], [x])
    assert f.param_vector({}).size == 0


def test_long_sums_and_large_dags_compile_and_evaluate_exactly():
    """A sum of 3150 terms (Python's parser overflows near a thousand chained operands) and a
    DAG of 2⁴⁰ tree nodes (cse on the DAG, without sympy's tree-walking pre-processing) compile;
    the values agree with a direct evaluation (Horner loop in floats)."""
    from jetgeo.geometry.exact import CSE_PREPROCESS_MAX_NODES, tree_size
    from jetgeo.numerics.compile import MAX_PRINTED_ARGS

    mons = [(i, j, k) for i in range(15) for j in range(15) for k in range(14)]  # 3150 monomials
    long_sum = sp.Add(*[sp.Rational(i + 1, j + k + 1) * x**i * y**j * sp.cos(th) ** k for i, j, k in mons])
    assert len(long_sum.args) > 5 * MAX_PRINTED_ARGS
    e = x
    for _ in range(40):
        e = e * (e + y) / (1 + e**2)  # shared subexpressions: a small DAG of a huge tree
    assert tree_size(e, cap=CSE_PREPROCESS_MAX_NODES) > CSE_PREPROCESS_MAX_NODES
    f = compile_rhs([long_sum, e], [x, y, th])
    for xv, yv, thv in [(0.3, -0.7, 1.1), (1.2, 0.4, -0.5)]:
        want0 = sum((i + 1) / (j + k + 1) * xv**i * yv**j * np.cos(thv) ** k for i, j, k in mons)
        v = xv
        for _ in range(40):
            v = v * (v + yv) / (1 + v * v)
        got = f(0.0, np.array([xv, yv, thv]), np.array([]))
        assert np.allclose(got, [want0, v], rtol=1e-12, atol=1e-12)


def _dags(draw_ops):
    """Random expression DAGs over x, y, θ: each step combines two earlier nodes (sharing)."""
    nodes = [x, y, sp.sin(th), sp.cos(th), sp.Integer(2)]
    for op, i, j in draw_ops:
        u, v = nodes[i % len(nodes)], nodes[j % len(nodes)]
        nodes.append([u + v, u * v, u - v, u / (1 + v**2), sp.sin(u) * v, u**2 + v][op])
    return nodes[-3:]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 60), st.integers(0, 60)), min_size=3, max_size=25))
def test_dag_cse_rebuilds_the_expressions_and_shares_what_tree_cse_shares(ops):
    """The DAG elimination (used above CSE_PREPROCESS_MAX_NODES) against sympy's ``tree_cse``
    on the same inputs: substituting its locals back gives the expressions exactly, every local
    is used, and it introduces as many locals as tree_cse."""
    from sympy.simplify.cse_main import tree_cse

    from jetgeo.numerics.cse import _dag_cse

    exprs = _dags(ops)
    repl, reduced = _dag_cse(exprs, sp.numbered_symbols("_c"))
    back = {}
    for s, r in repl:
        back[s] = r.xreplace(back)
    assert [sp.expand(r.xreplace(back) - e) for r, e in zip(reduced, exprs)] == [0] * len(exprs)
    body = [r for _, r in repl] + list(reduced)
    assert all(any(b.has(s) for b in body) for s, _ in repl)
    t_repl, _ = tree_cse(exprs, sp.numbered_symbols("_c"), {}, "none")
    assert len(repl) == len(t_repl)


def test_each_symbol_has_one_role():
    """Duplicate states or parameters, a symbol both state and parameter, the time among them: a
    clear InputError naming the symbol (today: silently compiled with one of the two values)."""
    with pytest.raises(InputError, match="state lists x more than once"):
        compile_rhs([x], [x, x])
    with pytest.raises(InputError, match="params lists a more than once"):
        compile_rhs([a * x], [x], [a, a])
    with pytest.raises(InputError, match="x is both a state variable and a parameter"):
        compile_rhs([x], [x], [x])
    with pytest.raises(InputError, match="the time t is also listed as a parameter"):
        compile_rhs([x * t], [x], [t], t)
    with pytest.raises(InputError, match="state entry 2 is x \\+ 1 .*not a sympy Symbol"):
        compile_rhs([x], [y, x + 1])
    with pytest.raises(InputError, match="state must be a sequence of sympy Symbols .*got str"):
        compile_rhs([x], "x")
    with pytest.raises(InputError, match="t must be a sympy Symbol"):
        compile_rhs([x], [x], [], "t")
    with pytest.raises(InputError, match="exprs must be a list or a matrix"):
        compile_rhs(x + 1, [x])
    with pytest.raises(InputError, match="params must be a sequence of sympy Symbols .*got NoneType"):
        compile_rhs([x], [x], None)
    assert compile_rhs([x * a], sp.Matrix([x]), sp.Tuple(a))(0.0, [2.0], [3.0])[0] == 6.0  # ordered sympy containers


@pytest.mark.parametrize("backend", ["python", "c", "auto"])
def test_an_undefined_function_named_sin_is_not_compiled_as_math_sin(backend, tmp_path, monkeypatch):
    """``Function('sin')`` is an undefined function that happens to be called sin: the printers
    would print it by its name (``math.sin``, C's ``sin``) and the compiled function would return
    sin(x).  It is refused, named; so is a function class defined outside sympy."""
    monkeypatch.setenv("JETGEO_CACHE", str(tmp_path / "cache"))
    with pytest.raises(InputError, match="undefined function 'sin'.*no numeric value.*sympy.sin"):
        compile_rhs([sp.Function("sin")(x) + 1], [x], backend=backend)
    with pytest.raises(InputError, match="undefined function 'f'"):
        compile_rhs([x * sp.Function("f")(x, y)], [x, y], backend=backend)

    class cos(sp.Function):  # noqa: N801 - named like sympy's on purpose
        pass

    with pytest.raises(InputError, match="function class 'cos' defined in .*not one of sympy's functions"):
        compile_rhs([cos(x)], [x], backend=backend)
    assert compile_rhs([sp.sin(x)], [x], backend=backend)(0.0, [0.5])[0] == pytest.approx(np.sin(0.5), rel=1e-15)


@pytest.mark.parametrize(("expr", "match"), [
    (x > 1, "expression 1 is x > 1 .*not a scalar expression"),
    (sp.true, "expression 1 is True .*not a scalar expression"),
    (sp.Matrix([x]), "not a scalar expression"),
    (sp.Derivative(sp.Function("f")(x), x), "Derivative.*no numeric code"),
    (sp.Integral(x, (x, 0, y)), "Integral.*no numeric code"),
    (sp.IndexedBase("b")[0], "Indexed.*no numeric code"),
    (sp.I * x, "imaginary unit"),
    (sp.besselj(0, x), "cannot compile besselj"),
    (sp.Rational(10**400, 3) * x, "3.33E\\+399 is too large for a double"),
])
def test_expressions_without_a_real_numeric_value_are_input_errors(expr, match):
    """A relation, a truth value, a matrix entry, an unevaluated derivative or integral, an indexed
    object, a complex expression, a function the printer cannot print: InputError (today raw
    PrintMethodNotImplementedError, a TypeError at call time, or a relation compiled as 0/1)."""
    with pytest.raises(InputError, match=match):
        compile_rhs([expr], [x, y])


def test_options_and_collections_without_an_order_are_input_errors():
    """A set of parameters has no order (the vector p would be matched to them arbitrarily), a dict
    of expressions would compile its keys, a truthy string would switch vectorized on, an unknown
    optimizations value reached sympy's cse as a raw ValueError."""
    with pytest.raises(InputError, match="params must be a sequence .*got set"):
        compile_rhs([a * x], [x], {a, y})
    with pytest.raises(InputError, match="exprs must be a list or a matrix of expressions, got dict"):
        compile_rhs({x: 1}, [x])
    with pytest.raises(InputError, match="vectorized must be True or False, got 'no'"):
        compile_rhs([x], [x], vectorized="no")
    with pytest.raises(InputError, match="optimizations must be 'basic' or None, got 'bogus'"):
        compile_rhs([sp.sin(x) + sp.sin(x) ** 2], [x], optimizations="bogus")


def test_the_same_expressions_are_eliminated_once_per_process(call_log):
    """compile_rhs of expressions compiled before reuses sympy's cse result (the same system prepared again for
    another run, method or command: 65 s → 60 s of CPU on the theory pages, the orientation atlas and the
    catalogue runs); a changed expression is eliminated anew, and both compiled functions are right."""
    x, y, k = sp.symbols("x y k")
    calls = call_log(cse_module.sp, "cse")
    cse_module._sympy_cse.cache_clear()
    exprs = [k * sp.sin(x) * sp.cos(y) + sp.sin(x) ** 2, k * sp.sin(x) * sp.cos(y) - y]
    f1 = compile_rhs(exprs, [x, y], [k])
    f2 = compile_rhs(list(exprs), [x, y], [k])
    assert len(calls) == 1
    f3 = compile_rhs([exprs[0], exprs[1] + 1], [x, y], [k])
    assert len(calls) == 2
    want = [2 * np.sin(0.3) * np.cos(0.7) + np.sin(0.3) ** 2, 2 * np.sin(0.3) * np.cos(0.7) - 0.7]
    for f, shift in ((f1, 0), (f2, 0), (f3, 1)):
        got = f(0.0, np.array([0.3, 0.7]), np.array([2.0]))
        assert np.allclose(got, [want[0], want[1] + shift], rtol=0, atol=1e-15)


def test_the_kept_cse_results_are_emptied_with_jetgeos_caches():
    """The benchmarks empty sympy's and jetgeo's caches before every timed call
    (benchmarks.run.clear_caches): the kept cse results are one of them, so no timed compile
    profits from an earlier one."""
    x, y = sp.symbols("x y")
    compile_rhs([sp.sin(x) * sp.cos(y) + sp.sin(x) ** 2, x * y], [x, y])
    assert cse_module._sympy_cse.cache_info().currsize > 0
    clear_caches()
    assert cse_module._sympy_cse.cache_info().currsize == 0


def test_the_same_system_compiled_again_reuses_its_generated_code(call_log):
    """The Python backend keeps the generated, checked code per process: compiling the same expressions
    again prints nothing (a third of a small system's compile time went into printing and checking) and
    still returns a new function with the same values; other expressions, or the same ones for another
    state, are compiled on their own."""
    printed = call_log(compile_module, "_python_source")
    u, w, k = sp.symbols("u_reuse w_reuse k_reuse")  # fresh: no earlier test compiled these
    f1 = compile_rhs([w, -k * sp.sin(u)], [u, w], [k])
    f2 = compile_rhs([w, -k * sp.sin(u)], [u, w], [k])
    assert len(printed) == 1 and f1._func is not f2._func
    y, p = np.array([0.3, -0.2]), np.array([2.0])
    assert np.array_equal(f1(0.0, y, p), f2(0.0, y, p))
    assert np.allclose(f2(0.0, y, p), [-0.2, -2.0 * np.sin(0.3)], rtol=0, atol=1e-15)
    compile_rhs([w, -k * sp.cos(u)], [u, w], [k])
    compile_rhs([w, -k * sp.sin(u)], [w, u], [k])  # another order of the state: other code
    assert len(printed) == 3
    clear_caches()  # benchmarks empty it with jetgeo's other caches
    compile_rhs([w, -k * sp.sin(u)], [u, w], [k])
    assert len(printed) == 4


def test_cse_preprocessing_is_sympys_factor_terms_with_shared_subexpressions(call_log):
    """The pre-processing of ``common_subexpressions`` (``cse_module._SharedFactorTerms``) gives exactly what
    sympy's ``factor_terms`` gives on each expression, and the generated elimination is sympy's ``cse`` with
    its basic optimisations, on the catalogue's 1-trailer's accelerations and their Jacobian; a sum shared by the
    expressions is factored once (sympy factors it again in each expression that contains it)."""
    from sympy.simplify import cse_opts

    from jetgeo import systems

    e = systems.load("n_trailer")
    acc = e.constrained().accelerations()
    exprs = [acc[q] for q in e.Y.qddot]
    exprs += list(sp.Matrix(exprs).jacobian(list(e.Y.qdot)))
    pre = [cse_opts.sub_pre(v) for v in exprs]
    shared = cse_module._SharedFactorTerms()
    assert [sp.srepr(shared(v)) for v in pre] == [sp.srepr(sp.factor_terms(v)) for v in pre]
    cse_module._sympy_cse.cache_clear()
    got = cse_module.common_subexpressions(exprs)
    want = sp.cse(exprs, symbols=sp.numbered_symbols("_c"), optimizations="basic")
    assert sp.srepr(tuple(got[0])) == sp.srepr(tuple(want[0])) and sp.srepr(tuple(got[1])) == sp.srepr(
        tuple(want[1]))
    s = (x + 2 * y) * (x - y) + 1
    calls = call_log(cse_module, "gcd_terms")
    shared = cse_module._SharedFactorTerms()
    assert [shared(v) for v in (sp.sin(s), sp.cos(s), s)] == [sp.factor_terms(v) for v in (sp.sin(s), sp.cos(s), s)]
    assert len(calls) == 3  # the three sums x + 2y, x - y and s, once each (sympy: 9 times)
