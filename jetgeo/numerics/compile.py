r"""Compiled numeric right-hand sides: one Python function of (t, state, params).

:func:`compile_rhs` turns a list (or matrix) of sympy expressions
:math:`F(t, y; p)` into a single function ``f(t, y, p) -> ndarray``:

1. every state symbol, parameter and the time are renamed to safe identifiers
   (``t``, ``y[i]`` unpacked to ``_y0, _y1, …``, ``_p0, …``); any other free symbol is
   reported (:class:`~jetgeo.errors.InputError`) instead of failing at run time;
2. common subexpressions are eliminated once (``sympy.cse``), so a quantity such as
   :math:`1 + x^2y^2` [Stolařová 2009, Example 1] or ``sin θ`` is computed once per call;
3. the straight-line code is printed with sympy's Python printer (``math`` functions on
   scalars: the fast path for ``scipy.integrate.solve_ivp``) or its NumPy printer
   (``vectorized=True``: each state component is an array of points, used to evaluate
   residuals, energy and reactions along a whole solution at once), compiled, checked
   against a whitelist on its code object (:func:`_check_generated`: the names, constants and
   instructions it can use) and run with ``exec`` in a namespace holding only
   ``math``/``numpy``.

The optional Jacobian :math:`\partial F/\partial y` is differentiated symbolically and
compiled the same way (for implicit integrators: ``solve_ivp(..., jac=...)``).
The generated source is kept on the result (``.source``) so it can be read.

``backend="c"`` prints the same straight-line code as C and compiles it into a cached extension
module (:mod:`jetgeo.numerics.codegen`): the call overhead drops from tens of microseconds to
well under one; ``backend="auto"`` tries C and keeps the Python function when no compiler is
available (or the expressions contain something the C printer cannot print).
"""

from __future__ import annotations

import builtins
import collections
import dis
import functools
import inspect
import itertools
import keyword
import math
import re
import types
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
import sympy as sp
from sympy.core.function import AppliedUndef
from sympy.printing.codeprinter import PrintMethodNotImplementedError
from sympy.printing.numpy import NumPyPrinter
from sympy.printing.pycode import PythonCodePrinter

from ..errors import InputError, JetgeoError
from ..geometry.coerce import as_expr
from ..geometry.exact import CSE_PREPROCESS_MAX_NODES, free_symbols_dag, xreplace_dag
from . import codegen
from .cse import _rebuilt, _tree_nodes, common_subexpressions

__all__ = ["CompiledFunction", "compile_rhs", "count_ops", "Backend", "PythonBackend", "CBackend", "AutoBackend",
           "BACKENDS"]


def count_ops(exprs) -> int:
    """Number of operations of a list of expressions (sympy's ``count_ops``), for reports.

    Parameters
    ----------
    exprs : iterable of sympy expressions
        The expressions (a matrix is read entry by entry).

    Returns
    -------
    int
        The total of sympy's ``count_ops``.
    """
    return int(sum(sp.count_ops(e) for e in exprs))


class CompiledFunction:
    """A compiled function ``f(t, y, p)`` of the time, the state vector and the parameters.

    Attributes: ``state`` and ``params`` (the symbols, in the order of ``y`` and ``p``),
    ``shape`` of the output, ``source`` (the generated code), ``ops`` and ``ops_cse``
    (operation counts before and after common-subexpression elimination), ``jacobian``
    (a :class:`CompiledFunction` for ∂F/∂y, or None), ``vectorized``, ``backend`` ("python" or
    "c": which code runs; ``source`` is Python or C accordingly), ``bordered_rhs`` and
    ``bordered_solve`` (the C functions (q̇, q̈) and ((q̈, λ), det K) of a bordered system compiled
    with ``compile_rhs(..., bordered=(m, k))``, or None).

    Built by :func:`compile_rhs`; calling it, ``f(t, y, p)``, evaluates the expressions.

    Parameters
    ----------
    func : callable
        The generated function ``(t, y, p) -> ndarray``.
    source : str
        Its source (Python or C).
    state : tuple of Symbol
        The symbols of y, in order.
    params : tuple of Symbol
        The symbols of p, in order.
    shape : tuple
        The shape of the output at one point (a vectorized call returns ``shape + (N,)``).
    exprs : list of sympy.Expr
        The expressions compiled (for :attr:`ops`).
    cse_parts : tuple or callable
        ``(replacements, reduced)`` of the common-subexpression elimination (for :attr:`ops_cse`),
        or a callable computing them on first use.
    vectorized : bool
        Whether y holds one state per column (evaluation along a run).
    jacobian : CompiledFunction, optional
        ∂F/∂y compiled alongside (for the implicit integrators).
    backend : str, default "python"
        ``"python"`` or ``"c"``.
    bordered_rhs, bordered_solve : callable, optional
        The C bordered-system functions, or None.
    """

    def __init__(self, func, source: str, state: tuple, params: tuple, shape: tuple, exprs: list, cse_parts: tuple,
                 vectorized: bool, jacobian: CompiledFunction | None = None, backend: str = "python",
                 bordered_rhs=None, bordered_solve=None) -> None:
        self._func = func
        self.bordered_rhs = bordered_rhs
        self.bordered_solve = bordered_solve
        self.backend = backend
        self.source = source
        self.state = state
        self.params = params
        self.shape = shape
        self._exprs = exprs
        self._cse_parts = cse_parts
        self.vectorized = vectorized
        self.jacobian = jacobian

    @property
    def ops(self) -> int:
        """Operation count of the expressions before common-subexpression elimination."""
        return count_ops(self._exprs)

    @property
    def ops_cse(self) -> int:
        """Operation count of the generated code (the replacements plus the reduced expressions)."""
        if callable(self._cse_parts):  # the C backend found its module without recomputing them
            self._cse_parts = self._cse_parts()
        repl, reduced = self._cse_parts
        return count_ops([r for _, r in repl]) + count_ops(reduced)

    def __call__(self, t, y, p=()):
        return self._func(t, y, p)

    def param_vector(self, values: dict) -> np.ndarray:
        """The parameter vector p in the order of ``params`` from {symbol or name: value}."""
        by_name = {str(k): v for k, v in values.items()}
        missing = [s for s in self.params if s not in values and str(s) not in by_name]
        if missing:
            raise InputError(f"no numerical value given for the parameter(s) {missing}")
        return np.array([float(values[s]) if s in values else float(by_name[str(s)]) for s in self.params])

    def __repr__(self) -> str:
        kind = ("vectorized " if self.vectorized else "") + ("C, " if self.backend == "c" else "")
        return (f"CompiledFunction({kind}shape={self.shape}, state={list(self.state)}, params={list(self.params)}, "
                f"ops {self.ops} -> {self.ops_cse} after cse)")


def _printer(vectorized: bool):
    # order="none": sums in the order of their arguments — the default sorts every sum's terms
    # for printing (2.4 of the 4.6 s printing the Whipple bicycle's bordered system)
    settings = {"fully_qualified_modules": True, "order": "none"}
    return NumPyPrinter(settings) if vectorized else PythonCodePrinter(settings)


def compile_rhs(
    exprs,
    state: Sequence,
    params: Sequence = (),
    t: sp.Symbol | None = None,
    jacobian: bool = False,
    vectorized: bool = False,
    cse: bool = True,
    name: str = "rhs",
    optimizations: str | None = "basic",
    factor: bool = False,
    backend: str = "python",
    bordered: tuple | None = None,
) -> CompiledFunction:
    r"""Compile expressions F(t, y; p) into one function ``f(t, y, p) -> ndarray``.

    Parameters
    ----------
    exprs : list or sympy Matrix
        The components of F (a matrix keeps its shape in the output).
    state : sequence of Symbols
        The state vector y (order = order of ``y``).
    params : sequence of Symbols
        The parameter vector p; every other free symbol except ``t`` is an error.
    t : Symbol or None
        The time symbol (may be absent from the expressions).
    jacobian : bool
        Also compile ∂F/∂y (available as ``.jacobian``); F must be a flat list.
    vectorized : bool
        Components of ``y`` are arrays of equal length N (numpy functions); the output has
        shape ``shape + (N,)``.  Otherwise ``y`` holds scalars (``math`` functions: fastest
        for single calls inside an integrator).
    cse : bool
        Eliminate common subexpressions (default) — the generated code computes each
        repeated subexpression once.
    optimizations : "basic" or None
        Passed to ``sympy.cse`` ("basic": its cheap pre-/post-processing, e.g. pulling out
        common factors and negations; skipped for expressions of more than
        :data:`~jetgeo.geometry.exact.CSE_PREPROCESS_MAX_NODES` tree nodes, where it walks the
        tree of an unexpanded DAG).
    factor : bool
        Factor each rational expression (``sympy.factor``, exact) before the elimination: the
        normalised accelerations of a constrained system are expanded rational functions, and
        factoring the numerator and the denominator often halves the operation count ([Stolařová 2009,
        Example 3]: 285 → 87 operations with cse).  Costs a symbolic factorisation per component.
    backend : "python", "c" or "auto" (a key of :data:`BACKENDS`, one :class:`Backend` class each)
        "python" (default): the generated Python function above.  "c": the same code printed as C and
        compiled with the system C compiler into a cached extension module (:mod:`jetgeo.numerics.codegen`;
        scalar calls only); :class:`~jetgeo.numerics.codegen.CompilerUnavailableError` without a compiler.
        "auto": "c" when it works, otherwise (no compiler, ``vectorized``, an expression the C printer does
        not support) "python", silently.  ``.backend`` tells which one was used.
    bordered : (m, k) or None
        The expressions are the blocks [W, ℓ, J, b] of a bordered system
        (:meth:`~jetgeo.mechanics.bordered.BorderedSystem.flat`) and the state is (q, q̇), 2m
        symbols: with the C backend the module also solves K (q̈, λ) = (ℓ, −b) per call
        (``.bordered_rhs(t, y, p)`` → (q̇, q̈), ``.bordered_solve(t, y, p)`` → ((q̈, λ), det K));
        with the Python backend both stay None.

    Returns
    -------
    CompiledFunction
        ``f(t, y, p) -> ndarray`` with the symbols, the generated source and the operation counts.

    Raises
    ------
    InputError
        A symbol listed twice or in two roles (state, parameter, time), a state or parameter
        that is not a Symbol, a free symbol in none of the roles, or an expression without a real
        numeric value: a relation, an undefined function (``Function('sin')(x)`` is not sympy's
        ``sin``), an unevaluated derivative or integral, the imaginary unit, a function the
        printer cannot print.

    Examples
    --------
    >>> import sympy as sp
    >>> x, k = sp.symbols("x k")
    >>> f = compile_rhs([k * sp.sin(x)], [x], [k])
    >>> f(0.0, [0.0], [2.0]).tolist()
    [0.0]
    """
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise InputError(f"compile_rhs: backend must be one of {tuple(BACKENDS)}, not {backend!r}")
    coder = BACKENDS[backend]()
    _check_flags(name, jacobian, vectorized, cse, factor, optimizations)
    coder.check(vectorized)
    _check_bordered(bordered)
    flat, shape = _flattened(exprs)
    state, params = _symbols_of(state, "state"), _symbols_of(params, "params")
    _check_roles(state, params, t)
    _check_compilable(flat)
    known = set(state) | set(params) | ({t} if t is not None else set())
    extra = free_symbols_dag(flat) - known  # on the DAG (large results are not walked as trees)
    if extra:
        raise InputError(
            f"compile_rhs: the expressions contain symbols that are neither state, parameters nor time: "
            f"{sorted(map(str, extra))}; pass them as params (with values) or as state"
        )
    job = _Job(flat, tuple(shape), state, params, t, jacobian, vectorized, cse, name, optimizations, bordered)
    job.rename(factor)
    return coder.build(job)


def _check_flags(name, jacobian, vectorized, cse, factor, optimizations) -> None:
    """InputError for a bad ``name``, flag or ``optimizations`` of :func:`compile_rhs`."""
    if not (isinstance(name, str) and name.isidentifier() and name.isascii() and not keyword.iskeyword(name)):
        raise InputError(f"compile_rhs: name must be a Python identifier, got {name!r}")
    for flag, value in (("jacobian", jacobian), ("vectorized", vectorized), ("cse", cse), ("factor", factor)):
        if not isinstance(value, (bool, np.bool_)):
            raise InputError(f"compile_rhs: {flag} must be True or False, got {value!r:.60}")
    if optimizations not in ("basic", None):
        raise InputError(f"compile_rhs: optimizations must be 'basic' or None, got {optimizations!r:.60}")


def _check_bordered(bordered) -> None:
    """InputError unless ``bordered`` is None or a pair (m, k) of integers >= 0."""
    if bordered is not None and not (isinstance(bordered, tuple) and len(bordered) == 2
                                     and all(isinstance(v, int) and v >= 0 for v in bordered)):
        raise InputError(f"compile_rhs: bordered must be a pair (m, k) of integers >= 0, got {bordered!r:.60}")


def _flattened(exprs) -> tuple:
    """(the expressions as a flat list, the shape of the output) of :func:`compile_rhs`'s ``exprs``."""
    if isinstance(exprs, sp.MatrixBase):
        return [as_expr(e, f"compile_rhs: entry {i + 1} of the matrix") for i, e in enumerate(exprs)], exprs.shape
    if isinstance(exprs, _UNORDERED) or not isinstance(exprs, Iterable):
        raise InputError(f"compile_rhs: exprs must be a list or a matrix of expressions, got {type(exprs).__name__}")
    flat = [as_expr(e, f"compile_rhs: expression {i + 1}") for i, e in enumerate(exprs)]
    return flat, (len(flat),)


@dataclass
class _Job:
    """What a :class:`Backend` compiles: the checked arguments of :func:`compile_rhs`, and (after
    :meth:`rename`) the expressions ``flat_r`` in the safe names ``_t``, ``_y0, …``, ``_p0, …``."""

    flat: list
    shape: tuple
    state: tuple
    params: tuple
    t: sp.Symbol | None
    jacobian: bool
    vectorized: bool
    cse: bool
    name: str
    optimizations: str | None
    bordered: tuple | None
    flat_r: list = field(default_factory=list)

    @property
    def ys(self) -> list:
        return [sp.Symbol(f"_y{i}") for i in range(len(self.state))]

    @property
    def ps(self) -> list:
        return [sp.Symbol(f"_p{i}") for i in range(len(self.params))]

    def rename(self, factor: bool) -> None:
        """Set ``flat_r`` (factored with ``factor``); large expressions skip cse's pre-processing."""
        ren = {self.t: sp.Symbol("_t")} if self.t is not None else {}
        ren.update(zip(self.state, self.ys))
        ren.update(zip(self.params, self.ps))
        memo: dict = {}
        flat_r = [xreplace_dag(e, ren, memo, renaming=True) for e in self.flat]
        if _tree_nodes(flat_r) > CSE_PREPROCESS_MAX_NODES:
            self.optimizations = None  # see common_subexpressions
        if factor:
            flat_r = [sp.factor(e) if e.free_symbols else e for e in flat_r]
        self.flat_r = flat_r

    def jacobian_with(self, backend: str) -> CompiledFunction | None:
        """∂F/∂y compiled with ``backend`` (None unless asked for)."""
        return _jacobian(self.flat, self.shape, self.state, self.params, self.t, self.jacobian, self.vectorized,
                         self.cse, self.name, self.optimizations, backend)


class Backend(ABC):
    """A code generator of :func:`compile_rhs` (one class per generator, looked up in :data:`BACKENDS`).

    Examples
    --------
    >>> sorted(BACKENDS), BACKENDS["python"].name
    (['auto', 'c', 'python'], 'python')
    """

    #: the key of the backend in :data:`BACKENDS` (``compile_rhs(..., backend=name)``)
    name: ClassVar[str]

    def check(self, vectorized: bool) -> None:  # noqa: B027 - most generators take every input
        """Raise :class:`~jetgeo.errors.InputError` if this generator cannot compile for ``vectorized``.

        Parameters
        ----------
        vectorized : bool
            Whether the state components are arrays of points.
        """

    @abstractmethod
    def build(self, job: _Job) -> CompiledFunction:
        """The compiled function of ``job`` (its ``flat_r`` in the safe names).

        Parameters
        ----------
        job : _Job
            The checked arguments of :func:`compile_rhs`.

        Returns
        -------
        CompiledFunction
            The function, with the Jacobian if ``job.jacobian``.
        """


class PythonBackend(Backend):
    """Straight-line Python printed by sympy's Python (scalars, ``math``) or NumPy (``vectorized``) printer,
    checked on its code object (:func:`_check_generated`) and run with ``exec`` in a namespace holding only
    the numeric modules."""

    name = "python"

    def build(self, job: _Job) -> CompiledFunction:
        """The Python function of ``job`` (:meth:`Backend.build`).

        Parameters
        ----------
        job : _Job
            The checked arguments of :func:`compile_rhs`.

        Returns
        -------
        CompiledFunction
            ``backend == "python"``.
        """
        source, code, repl, reduced = _python_code(job.name, tuple(job.flat_r), len(job.state), len(job.params),
                                                   job.shape, job.vectorized, job.cse, job.optimizations)
        namespace = {"math": math, "numpy": np, "_np": np, "functools": functools}
        exec(code, namespace)  # noqa: S102 - generated code, checked above
        return CompiledFunction(namespace[job.name], source, job.state, job.params, job.shape, job.flat_r,
                                (list(repl), list(reduced)), job.vectorized, job.jacobian_with(self.name))


class CBackend(Backend):
    """The same straight-line code printed as C and compiled into a cached extension module
    (:mod:`jetgeo.numerics.codegen`): one point per call; a bordered system is also solved in C."""

    name = "c"

    def check(self, vectorized: bool) -> None:
        """InputError for ``vectorized`` (:meth:`Backend.check`): C evaluates one point per call.

        Parameters
        ----------
        vectorized : bool
            Whether the state components are arrays of points.
        """
        if vectorized:
            raise InputError("compile_rhs: the C backend evaluates one point per call; use vectorized=True with "
                             "backend='python' (or 'auto')")

    def build(self, job: _Job) -> CompiledFunction:
        """The C function of ``job`` (:meth:`Backend.build`); :class:`~jetgeo.numerics.codegen.
        CompilerUnavailableError` (a :class:`~jetgeo.errors.JetgeoError`) without a compiler.

        Parameters
        ----------
        job : _Job
            The checked arguments of :func:`compile_rhs`.

        Returns
        -------
        CompiledFunction
            ``backend == "c"``.
        """
        flat_r, cse = job.flat_r, job.cse
        mod, csource, parts = codegen.c_rhs_module(flat_r, len(job.state), len(job.params), job.shape, cse=cse,
                                                   optimizations=job.optimizations, bordered=job.bordered)
        if parts is None:
            def parts(flat_r=flat_r, optimizations=job.optimizations):
                if not cse:
                    return [], flat_r
                return common_subexpressions(flat_r, optimizations)
        return CompiledFunction(mod.f, csource, job.state, job.params, job.shape, flat_r, parts, job.vectorized,
                                job.jacobian_with(self.name), backend="c",
                                bordered_rhs=mod.rhs if job.bordered else None,
                                bordered_solve=mod.solve if job.bordered else None)


class AutoBackend(CBackend):
    """C where it works; the Python function, silently, where it does not (no compiler, ``vectorized``, an
    expression the C printer cannot print)."""

    name = "auto"

    def check(self, vectorized: bool) -> None:
        """Nothing to refuse (:meth:`Backend.check`): a vectorized function is Python's.

        Parameters
        ----------
        vectorized : bool
            Whether the state components are arrays of points.
        """

    def build(self, job: _Job) -> CompiledFunction:
        """The C function of ``job``, or the Python one (:meth:`Backend.build`).

        Parameters
        ----------
        job : _Job
            The checked arguments of :func:`compile_rhs`.

        Returns
        -------
        CompiledFunction
            ``backend`` says which one was built.
        """
        if not job.vectorized:
            try:
                return super().build(job)
            except JetgeoError:
                pass
        return PythonBackend().build(job)


#: the code generators of :func:`compile_rhs` by name (as scipy's ``METHODS`` of ``solve_ivp``)
BACKENDS: dict[str, type[Backend]] = {"python": PythonBackend, "c": CBackend, "auto": AutoBackend}


#: generated Python kept per process (:func:`_python_code`): the same system compiled again (another run,
#: method or test of the same model) is not eliminated, printed and checked again
PYTHON_CODE_MEMO = 128


@functools.lru_cache(maxsize=PYTHON_CODE_MEMO)
def _python_code(name: str, flat_r: tuple, n_state: int, n_params: int, shape: tuple, vectorized: bool, cse: bool,
                 optimizations: str | None) -> tuple:
    """(source, checked code object, replacements, reduced expressions) of the Python function ``name``
    computing ``flat_r`` (renamed to ``_t``, ``_y0, …``, ``_p0, …``), kept per process (an ``lru_cache``:
    ``benchmarks.run.clear_caches`` empties it); the caller execs the code in a fresh namespace, so every
    build returns a new function.  Printing and checking were a third of a small system's compile time."""
    if cse:
        repl, reduced = common_subexpressions(list(flat_r), optimizations)
    else:
        repl, reduced = [], list(flat_r)
    repl, reduced = _split_long_sums(repl, reduced)
    ys = [sp.Symbol(f"_y{i}") for i in range(n_state)]
    ps = [sp.Symbol(f"_p{i}") for i in range(n_params)]
    source = _python_source(name, ys, ps, shape, vectorized, repl, reduced)
    return source, _check_generated(source, name), repl, reduced


def _python_source(name: str, ys: list, ps: list, shape: tuple, vectorized: bool, repl: list, reduced: list) -> str:
    """The source of the Python function ``name(_t, _y, _p)`` computing ``reduced`` after ``repl``."""
    pr = _printer(vectorized)
    lines = [f"def {name}(_t, _y, _p):"]
    if ys:
        lines.append(f"    ({', '.join(map(str, ys))},) = _y")
    if ps:
        lines.append(f"    ({', '.join(map(str, ps))},) = _p")
    for s, r in repl:
        lines.append(f"    {s} = {_doprint(pr, r)}")
    n = len(reduced)
    if vectorized:
        lines.append("    _n = _np.shape(_np.asarray(_y[0]))[0] if len(_y) else _np.size(_t)")
        lines.append(f"    _out = _np.empty(({n}, _n))")
        for i, r in enumerate(reduced):
            lines.append(f"    _out[{i}] = {_doprint(pr, r)}")
        if len(shape) == 2:
            lines.append(f"    return _out.reshape(({shape[0]}, {shape[1]}, _n))")
        else:
            lines.append("    return _out")
    else:
        body = ", ".join(_doprint(pr, r) for r in reduced)
        if len(shape) == 2:
            lines.append(f"    return _np.array([{body}], dtype=float).reshape({shape})")
        else:
            lines.append(f"    return _np.array([{body}], dtype=float)")
    return "\n".join(lines) + "\n"


#: what is not an ordered list of items: text, and collections without an order or of keys
_UNORDERED = (str, bytes, set, frozenset, Mapping)


def _symbols_of(values, what: str) -> tuple:
    """``values`` (the state or the parameters of :func:`compile_rhs`) as a tuple of Symbols."""
    try:
        out = None if isinstance(values, _UNORDERED) else tuple(values)
    except TypeError:  # not iterable
        out = None
    if out is None:
        raise InputError(f"compile_rhs: {what} must be a sequence of sympy Symbols (a list or a tuple: the order "
                         f"is the order of the vector), got {type(values).__name__} {values!r:.60}")
    for i, s in enumerate(out):
        if not isinstance(s, sp.Symbol):
            raise InputError(f"compile_rhs: {what} entry {i + 1} is {s!r:.60} ({type(s).__name__}), not a sympy Symbol")
    return out


def _check_roles(state: tuple, params: tuple, t) -> None:
    """Each symbol has one role: listed once, as a state variable, a parameter or the time."""
    if t is not None and not isinstance(t, sp.Symbol):
        raise InputError(f"compile_rhs: t must be a sympy Symbol or None, got {t!r:.60} ({type(t).__name__})")
    for what, symbols in (("state", state), ("params", params)):
        twice = sorted(str(s) for s, n in collections.Counter(symbols).items() if n > 1)
        if twice:
            raise InputError(f"compile_rhs: {what} lists {', '.join(twice)} more than once; each symbol may "
                             "appear once")
    both = sorted(map(str, set(state) & set(params)))
    if both:
        raise InputError(f"compile_rhs: {', '.join(both)} is both a state variable and a parameter; give each "
                         "symbol one role")
    if t is not None and (t in state or t in params):
        role = "state variable" if t in state else "parameter"
        raise InputError(f"compile_rhs: the time {t} is also listed as a {role}")


#: objects that stand for an operation sympy has not carried out: no numeric code exists for them
_UNEVALUATED = (sp.Derivative, sp.Integral, sp.Subs, sp.Sum, sp.Product, sp.Limit, sp.Lambda, sp.Indexed,
                sp.IndexedBase, sp.Order, sp.MatrixBase, sp.MatrixExpr)


def _sympy_function_base(cls) -> bool:
    """True for sympy's own function classes and their subclasses defined elsewhere (jetgeo's real
    ``Abs`` and ``sign`` in :mod:`jetgeo.geometry.realfunctions`): the printers find sympy's base in
    the MRO.  False when the nearest sympy class is the bare ``Function`` (a user-defined class)."""
    for base in cls.__mro__:
        if base.__module__.startswith("sympy."):
            return base is not sp.Function and issubclass(base, sp.Function)
    return False


def _check_compilable(exprs: list) -> None:
    """Refuse what has no real numeric value (walked on the DAG, each shared node once): a relation
    or a truth value as a component, an undefined function such as ``Function('sin')(x)`` (it
    would otherwise be printed by its name, as ``math.sin``), a function class defined outside
    sympy, an unevaluated derivative, integral, sum or matrix, the imaginary unit and numbers too
    large for a double (``oo`` and ``nan`` are IEEE values and stay)."""
    for i, e in enumerate(exprs):
        if not isinstance(e, sp.Expr) or isinstance(e, (sp.MatrixBase, sp.MatrixExpr)):
            raise InputError(f"compile_rhs: expression {i + 1} is {e!s:.60} ({type(e).__name__}), not a scalar "
                             "expression")
    seen: set = set()
    stack = list(exprs)
    while stack:
        e = stack.pop()
        if e in seen:
            continue
        seen.add(e)
        if isinstance(e, AppliedUndef):
            name = e.func.__name__
            hint = f" (sympy.{name} is sympy's own)" if isinstance(getattr(sp, name, None), sp.FunctionClass) else ""
            raise InputError(f"compile_rhs: {e!s:.60} is the undefined function {name!r} (sympy.Function({name!r})): "
                             f"it has no numeric value{hint}; replace it by an expression, or make it a state "
                             "variable or a parameter")
        if isinstance(e, sp.Function) and not _sympy_function_base(type(e)):
            raise InputError(f"compile_rhs: {e!s:.60} uses the function class {type(e).__name__!r} defined in "
                             f"{type(e).__module__}, not one of sympy's functions: it cannot be compiled")
        if isinstance(e, _UNEVALUATED):
            raise InputError(f"compile_rhs: the expressions contain {e!s:.60} ({type(e).__name__}), which has no "
                             "numeric code: evaluate it (e.g. .doit()) or replace it by symbols before compiling")
        if e.is_Number and e.is_finite and math.isinf(float(e)):
            raise InputError(f"compile_rhs: the number {sp.Float(e, 3)} is too large for a double (at most "
                             "about 1.8e308)")
        if e is sp.I:
            raise InputError("compile_rhs: the expressions contain the imaginary unit I; the compiled functions "
                             "work over the real numbers")
        stack.extend(e.args)


def _doprint(pr, expr) -> str:
    """Python code of one expression; what the printer cannot print is an InputError naming it."""
    try:
        return pr.doprint(expr)
    except PrintMethodNotImplementedError as exc:
        raise InputError(f"compile_rhs: cannot compile {expr!s:.60}: {str(exc).splitlines()[0]}") from exc


#: Sums and products with more arguments are printed in chunks of this many, each assigned to a
#: local: Python's parser nests ``a + b + c + …`` one level per operand and overflows its stack
#: near a thousand (the Whipple bicycle's expanded Euler–Lagrange expressions have 11 000 terms).
MAX_PRINTED_ARGS = 200


def _split_long_sums(repl: list, reduced: list) -> tuple:
    """(repl, reduced) of a cse with every Add/Mul of more than :data:`MAX_PRINTED_ARGS`
    arguments replaced by the sum/product of new locals ``_cK`` (K past cse's numbers), each a
    chunk of at most that many arguments, assigned before use.  The same function, exactly."""
    start = len(repl) + 1_000_000  # cse numbers its symbols from 0: no collision
    names = (sp.Symbol(f"_c{k}") for k in itertools.count(start))
    out: list = []
    memo: dict = {}

    def visit(e):
        got = memo.get(id(e))  # by identity: the nodes are kept alive by repl and reduced
        if got is not None:
            return got
        if not e.args or not isinstance(e, sp.Expr):
            memo[id(e)] = e
            return e
        args = [visit(a) for a in e.args]
        if (e.is_Add or e.is_Mul) and len(args) > MAX_PRINTED_ARGS:
            while len(args) > MAX_PRINTED_ARGS:
                chunks = []
                for i in range(0, len(args), MAX_PRINTED_ARGS):
                    name = next(names)
                    out.append((name, e.func(*args[i:i + MAX_PRINTED_ARGS], evaluate=False)))
                    chunks.append(name)
                args = chunks
            new = e.func(*args, evaluate=False)
        else:
            new = _rebuilt(e, args) if any(a is not b for a, b in zip(args, e.args)) else e
        memo[id(e)] = new
        return new

    new_repl = []
    for sym, r in repl:
        r2 = visit(r)
        new_repl += out
        out.clear()
        new_repl.append((sym, r2))
    new_reduced = []
    for r in reduced:
        new_reduced.append(visit(r))
    return new_repl + out, new_reduced


#: names the generated code may use: renamed symbols, its own locals, and the numeric modules
_GENERATED_LOCAL = re.compile(r"_(?:y|p|c)\d+|_t|_y|_p|_out|_n")
_GENERATED_GLOBALS = frozenset({"math", "numpy", "_np", "functools", "abs", "min", "max", "len", "float"})
#: attribute names the generated code may use: the public names of the modules it calls
#: (``numpy.sin``, ``math.pi``, ``functools.reduce``) and ``reshape`` of its result
_GENERATED_ATTRIBUTES = frozenset(
    {a for mod in (math, np, functools) for a in dir(mod) if not a.startswith("_")} | {"reshape"}
) - (frozenset(dir(builtins)) - _GENERATED_GLOBALS)
#: string constants the printers emit (``float('nan')``); keyword-argument names are identifiers
_GENERATED_STRINGS = frozenset({"nan", "inf", "-inf", "+inf"})
#: instructions that import, define, or change anything outside the function's own locals
_FORBIDDEN_OPCODES = frozenset(
    dis.opmap[op] for op in ("IMPORT_NAME", "IMPORT_FROM", "IMPORT_STAR", "STORE_GLOBAL", "DELETE_GLOBAL",
                             "STORE_ATTR", "DELETE_ATTR", "LOAD_BUILD_CLASS", "MAKE_FUNCTION", "STORE_NAME",
                             "DELETE_NAME", "LOAD_NAME", "LOAD_DEREF", "STORE_DEREF", "LOAD_CLASSDEREF",
                             "LOAD_CLOSURE", "YIELD_VALUE", "CALL_INTRINSIC_1", "CALL_INTRINSIC_2")
    if op in dis.opmap
)


def _check_generated(source: str, name: str):
    """The code object of the generated ``source``, after a whitelist check of what it can touch:
    one function ``name(_t, _y, _p)`` (no defaults, decorators or annotations) whose code
    object names only the renamed state/parameter symbols and its own locals
    (``co_varnames``), a few builtins, the numeric modules and their public attributes
    (``co_names``), holds no nested code (lambda, class, comprehension), no closure, no string
    constant but ``'nan'``/``'inf'`` and keyword-argument names, and no instruction that
    imports, defines or stores outside its locals.  The printer should guarantee this; the
    check makes sure no symbol or function name of a user's expression can become code.

    It inspects what the interpreter would run — the compiled code object — rather than the
    syntax tree: building Python's ``ast`` for the 2 MB of code of the Whipple bicycle's
    bordered system took 3.4 s and walking it 3.4 s more; compiling takes 0.4 s."""
    try:
        code = compile(source, f"<jetgeo.numerics {name}>", "exec")
    except SyntaxError as exc:  # pragma: no cover - a printer problem, not a user error
        raise InputError(f"compile_rhs: could not compile the generated code:\n{source[:2000]}") from exc
    inner = [c for c in code.co_consts if isinstance(c, types.CodeType)]
    if code.co_names != (name,) or len(inner) != 1 or inner[0].co_name != name or any(
            not (c is None or c == name or c is inner[0]) for c in code.co_consts):
        raise InputError(f"compile_rhs: generated code is not a single function {name!r}")
    fn = inner[0]
    if (fn.co_argcount != 3 or fn.co_varnames[:3] != ("_t", "_y", "_p") or fn.co_kwonlyargcount
            or fn.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS) or fn.co_freevars or fn.co_cellvars):
        raise InputError(f"compile_rhs: generated code is not a function {name}(_t, _y, _p)")
    for local in fn.co_varnames:
        if not _GENERATED_LOCAL.fullmatch(local):
            raise InputError(f"compile_rhs: generated code uses the name {local!r}")
    for used in fn.co_names:
        if used not in _GENERATED_GLOBALS and used not in _GENERATED_ATTRIBUTES:
            raise InputError(f"compile_rhs: generated code uses the name or attribute {used!r}")
    for c in fn.co_consts:
        if not _allowed_constant(c):
            raise InputError(f"compile_rhs: generated code contains the constant {c!r:.80}")
    bad = _FORBIDDEN_OPCODES.intersection(fn.co_code[::2])
    if bad:
        raise InputError(f"compile_rhs: generated code contains the instruction(s) "
                         f"{sorted(dis.opname[op] for op in bad)}")
    return code


def _allowed_constant(c, in_tuple: bool = False) -> bool:
    """Numbers, None, ``'nan'``/``'inf'``; in a tuple also keyword-argument names (``('dtype',)``)
    and further such tuples (a folded shape ``(3, 4)``)."""
    if c is None or isinstance(c, (bool, int, float, complex)):
        return True
    if isinstance(c, str):
        return c in _GENERATED_STRINGS or (in_tuple and c.isidentifier() and not c.startswith("_"))
    if isinstance(c, tuple):
        return all(_allowed_constant(k, True) for k in c)
    return False


def _jacobian(flat, shape, state, params, t, jacobian, vectorized, cse, name, optimizations, backend):
    if not jacobian:
        return None
    if len(shape) != 1:
        raise InputError("compile_rhs: a Jacobian needs a flat list of expressions")
    J = sp.Matrix(len(flat), len(state), lambda i, j: sp.diff(flat[i], state[j]))
    return compile_rhs(J, state, params, t, jacobian=False, vectorized=vectorized, cse=cse, name=f"{name}_jac",
                       optimizations=optimizations, backend=backend)
