r"""Compiled right-hand sides in C: generated source, system compiler, cached extension modules.

:func:`c_function` turns expressions :math:`F(t, y; p)` — already renamed to the safe symbols
``_t``, ``_y0, _y1, …``, ``_p0, …`` by :func:`jetgeo.numerics.compile.compile_rhs` — into a
function ``f(t, y, p) -> ndarray`` implemented by a small CPython extension module:

1. common subexpressions are eliminated (``sympy.cse``) and small integer powers are
   written as products (``x**3 → x*x*x``, ``x**-2 → 1/(x*x)``: no ``pow`` call);
2. sympy's C99 printer prints the straight-line code; the only identifiers in it are
   ``jg_t``, ``jg_y<i>``, ``jg_p<i>``, ``jg_c<i>`` and the C math library's functions —
   symbol names given by the user never reach the C source (they are renamed before
   printing), so no user text is ever compiled;
3. the C source is wrapped in a module with one ``METH_FASTCALL`` function reading the
   state and the parameters directly from float64 arrays (any other sequence is converted
   once) and writing into a new NumPy array;
4. the module is compiled with the system C compiler (``$JETGEO_CC``, else ``$CC``, else the
   compiler Python was built with) into a cache directory (``$JETGEO_CACHE``, default
   ``~/.cache/jetgeo``) under a name derived from the SHA-256 of the source, the compiler
   command, its flags and the Python/NumPy ABI: the same expressions are compiled once per
   machine; concurrent processes each compile in a private temporary directory and
   ``os.replace`` the files into place (atomic), so a reader never sees a half-written module;
5. loading compiled code is running it, so the cache is trusted only as far as it is private
   (:func:`private_cache_dir`): it is created with mode 0700 whatever the umask, and an existing
   directory that belongs to another user or that its group or others can write is refused
   (:class:`CompilerUnavailableError`; no fallback directory is chosen silently).  Each build
   records the SHA-256 of the module's key, its source and its library in ``<module>.json``;
   a library is imported only if it is a private regular file whose hash matches that record,
   otherwise it is compiled again.  An expression index (``index/``) finds the module of
   already-seen expressions without recomputing the common subexpressions; its key covers the
   source of this file, ``compile.py`` and ``cse.py``, the jetgeo and sympy versions, the compiler
   command and flags and the ABI.

Other generated modules reuse the same printer and cache: :func:`c_statements` prints renamed
expressions as checked C statements, and :func:`c_module` builds (or finds) the module of a
caller's own template — the implicit stepper's Newton and step loops
(:mod:`jetgeo.numerics.stepper`).

If there is no compiler or no Python/NumPy headers, :class:`CompilerUnavailableError` is
raised; ``compile_rhs(..., backend="auto")`` catches it and keeps the Python path.

Semantics differ from the Python backend in one respect only: floating-point exceptions
follow IEEE 754 (a division by zero gives ``inf``/``nan`` instead of raising
``ZeroDivisionError``); the values are the same to round-off.

>>> import sympy as sp
>>> from jetgeo.numerics import compile_rhs
>>> x, k = sp.symbols("x k")
>>> f = compile_rhs([k * sp.sin(x), x**3], [x], [k], backend="auto")   # C if a compiler is found
>>> f.backend in ("c", "python")
True
>>> f(0.0, [2.0], [0.0]).tolist()
[0.0, 8.0]
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import shlex
import stat
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

import sympy as sp
from sympy.codegen.rewriting import create_expand_pow_optimization
from sympy.printing.c import C99CodePrinter
from sympy.printing.codeprinter import PrintMethodNotImplementedError

from ..errors import CompilerUnavailableError, InputError
from ..geometry.coerce import as_expr
from ..geometry.exact import CSE_PREPROCESS_MAX_NODES, free_symbols_dag
from ..version import __version__
from .cse import common_subexpressions

__all__ = ["CompilerUnavailableError", "c_function", "c_module", "c_rhs_module", "c_source", "c_statements",
           "cache_dir", "compiler_command", "stats", "clear_memory_cache", "private_cache_dir"]


#: counters of what :func:`c_function` did in this process: ``compiled`` (compiler runs),
#: ``loaded`` (modules imported from the disk cache without compiling), ``reused`` (served from
#: the in-process cache without touching the disk).
stats = {"compiled": 0, "loaded": 0, "reused": 0}

_MODULES: dict[str, tuple] = {}


def _code_fingerprint() -> str:
    """A digest of everything besides the expressions, the compiler and the ABI that shapes the
    generated code: this file (printing, template), ``compile.py`` and ``cse.py`` (the common subexpressions),
    the threshold of the DAG elimination, and the versions of jetgeo and sympy (its printer)."""
    here = Path(__file__)
    parts = [hashlib.sha256(here.read_bytes()).hexdigest(),
             hashlib.sha256(here.with_name("compile.py").read_bytes()).hexdigest(),
             hashlib.sha256(here.with_name("cse.py").read_bytes()).hexdigest(),
             f"cse-dag>{CSE_PREPROCESS_MAX_NODES}", f"jetgeo{__version__}", f"sympy{sp.__version__}"]
    return hashlib.sha256("|".join(parts).encode()).hexdigest()


#: the part of the expression index's key that does not depend on the call (see _code_fingerprint)
_FORMAT = _code_fingerprint()
_EXPAND_POW = create_expand_pow_optimization(8)
#: the name of a cached module: ``jetgeo_rhs_`` and 24 hex digits of :func:`_module_key`
_MODNAME = re.compile(r"jetgeo_rhs_[0-9a-f]{24}")
#: ownership and modes are POSIX notions; elsewhere only the recorded hashes are checked
_POSIX = os.name == "posix"


def clear_memory_cache() -> None:
    """Forget the modules loaded in this process (the disk cache is kept)."""
    _MODULES.clear()


def cache_dir() -> Path:
    """The directory of compiled modules: ``$JETGEO_CACHE`` or ``~/.cache/jetgeo``.

    Returns
    -------
    Path
        The directory named by the environment (not created or checked: :func:`private_cache_dir`
        does both).

    Examples
    --------
    >>> import os
    >>> saved = os.environ.get("JETGEO_CACHE")
    >>> os.environ["JETGEO_CACHE"] = "/tmp/my-jetgeo-cache"
    >>> str(cache_dir())
    '/tmp/my-jetgeo-cache'
    >>> _ = os.environ.pop("JETGEO_CACHE") if saved is None else os.environ.update(JETGEO_CACHE=saved)
    """
    env = os.environ.get("JETGEO_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "jetgeo"


def _refuse(directory: Path, what: str) -> CompilerUnavailableError:
    return CompilerUnavailableError(
        f"codegen: the cache directory {directory} {what}; compiled modules are loaded only from a directory of "
        "this user that no one else can write (chmod go-w it, or set $JETGEO_CACHE to a private directory)")


def _is_private(st: os.stat_result) -> bool:
    """Owned by this user and not writable by group or others (always true off POSIX)."""
    return not _POSIX or (st.st_uid == os.geteuid() and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH))


def private_cache_dir() -> Path:
    """The cache directory of :func:`cache_dir`, created if missing and checked.

    Missing directories (the cache and its missing parents) are created with mode 0700 whatever
    the umask.  An existing cache directory that belongs to another user, or that its group or
    others can write, is refused: nothing is loaded from it (a module planted there would run its
    initialisation code in this process).

    Returns
    -------
    Path
        The absolute path of the directory.

    Raises
    ------
    CompilerUnavailableError
        The directory cannot be created, is not a directory, belongs to another user or is
        writable by group or others (``backend="auto"`` then keeps the Python function).

    Examples
    --------
    >>> import os, stat, tempfile
    >>> saved = os.environ.get("JETGEO_CACHE")
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     os.environ["JETGEO_CACHE"] = os.path.join(tmp, "new", "cache")
    ...     oct(stat.S_IMODE(private_cache_dir().stat().st_mode))
    '0o700'
    >>> _ = os.environ.pop("JETGEO_CACHE") if saved is None else os.environ.update(JETGEO_CACHE=saved)
    """
    directory = Path(os.path.abspath(cache_dir()))
    missing = []
    p = directory
    while not os.path.lexists(p) and p != p.parent:
        missing.append(p)
        p = p.parent
    for d in reversed(missing):
        try:
            os.mkdir(d, 0o700)
        except FileExistsError:  # created meanwhile by someone else: the check below decides
            continue
        except OSError as exc:
            raise _refuse(directory, f"cannot be created ({exc})") from exc
        os.chmod(d, 0o700)  # mkdir's mode is masked by the umask (0o277 would leave it unwritable)
    try:
        st = os.stat(directory)
    except OSError as exc:
        raise _refuse(directory, f"cannot be read ({exc})") from exc
    if not stat.S_ISDIR(st.st_mode):
        raise _refuse(directory, "is not a directory")
    if _POSIX and st.st_uid != os.geteuid():
        raise _refuse(directory, f"belongs to the user id {st.st_uid}, not to this user (id {os.geteuid()})")
    if not _is_private(st):
        raise _refuse(directory, f"is writable by its group or by others (mode {stat.S_IMODE(st.st_mode):#o})")
    return directory


def _read_private(path: Path) -> bytes | None:
    """The bytes of ``path`` if it is a regular file (not a symbolic link) of this user that no
    one else can write; None otherwise (missing, foreign, a link, a pipe)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    with open(fd, "rb") as fh:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or not _is_private(st):
            return None
        return fh.read()


def _write_private(path: Path, data: bytes, mode: int = 0o600) -> None:
    """Write ``path`` atomically (a private temporary file renamed into place) with ``mode``."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), mode)
    with open(fd, "wb") as fh:
        if _POSIX:
            os.fchmod(fd, mode)  # the mode given to open is masked by the umask
        fh.write(data)
    os.replace(tmp, path)


def _sha256(data: bytes | str) -> str:
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


#: the module's name in the source whose hash names the module
_PLACEHOLDER = "jgmod"


def _module_key(source: str, cc: list[str], flags: list[str], abi: str) -> str:
    """SHA-256 of everything that shapes a module's library: its C source (with the module's name
    written as :data:`_PLACEHOLDER`), the compiler command, the flags and the Python/NumPy ABI.
    The module is named after its first 24 digits."""
    return _sha256("\0".join([source, shlex.join(cc), shlex.join(flags), abi]))


def _record(modname: str, key: str, source: str, library: bytes) -> dict:
    """What a build records next to its library (``<module>.json``) and a load checks."""
    return {"module": modname, "key": key, "source_sha256": _sha256(source), "library_sha256": _sha256(library)}


def _verified_library(directory: Path, modname: str, suffix: str, source: str, key: str) -> Path | None:
    """The path of the cached library of ``modname`` if it may be imported: the library and its
    record are private regular files, the record (written by the build) names this module and
    ``key``, and holds the hashes of ``source`` and of the library.  None if anything differs —
    the library is then never opened by the dynamic loader."""
    raw = _read_private(directory / f"{modname}.json")
    library = _read_private(directory / f"{modname}{suffix}")
    if raw is None or library is None or modname != f"jetgeo_rhs_{key[:24]}" or _PLACEHOLDER in source:
        return None
    try:
        rec = json.loads(raw)
    except ValueError:  # not JSON, not UTF-8
        return None
    if not isinstance(rec, dict) or any(rec.get(k) != v for k, v in _record(modname, key, source, library).items()):
        return None
    return directory / f"{modname}{suffix}"


def _load_cached(directory: Path, modname: str, suffix: str, source: str, key: str):
    """The cached module ``modname`` if its library is verified (:func:`_verified_library`) and
    imports; None otherwise (it is then compiled again)."""
    library = _verified_library(directory, modname, suffix, source, key)
    if library is None:
        return None
    try:
        return _load(modname, library)
    except ImportError:  # e.g. a library the dynamic loader refuses: compiled again
        return None


def compiler_command() -> list[str]:
    """The compiler command: ``$JETGEO_CC``, else ``$CC``, else Python's build compiler, else ``cc``.

    Returns
    -------
    list of str
        The command and its leading arguments, split as the shell would.
    """
    cmd = os.environ.get("JETGEO_CC") or os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    return shlex.split(cmd)


class _Printer(C99CodePrinter):
    """C99 printer that refuses what it cannot print (instead of emitting a comment)."""

    def _print_Symbol(self, expr):  # the renamed symbols only: _t, _y<i>, _p<i>, _c<i>
        name = expr.name
        if not (name[:2] in ("_y", "_p", "_c") and name[2:].isdigit() or name == "_t"):
            raise InputError(f"codegen: unexpected symbol {name!r} in the expressions (not renamed)")
        return "jg_" + name[1:]

    def _print_Integer(self, expr):  # every literal is a double: no integer division anywhere
        return f"{int(expr)}.0"

    def _print_sign(self, expr):  # sympy's sign as a double (the C99 printer's is an int expression)
        a = self._print(expr.args[0])
        return f"(({a}) > 0 ? 1.0 : (({a}) < 0 ? -1.0 : 0.0))"

    def _print_Mod(self, expr):  # sympy's Mod (sign of the divisor, as Python's %), not C's fmod
        a, b = (self._print(arg) for arg in expr.args)
        return f"(({a}) - ({b})*floor(({a})/({b})))"


def _allowed_identifiers() -> frozenset:
    names = {"M_PI", "M_E", "INFINITY", "NAN", "HUGE_VAL", "pow", "fmod", "fabs"}
    for v in C99CodePrinter().known_functions.values():
        if isinstance(v, str):
            names.add(v)
        else:
            names.update(name for _, name in v if isinstance(name, str) and name != "abs")  # int abs
    return frozenset(names)


_ALLOWED = _allowed_identifiers()
_NUMBER = re.compile(r"(?<![A-Za-z_0-9])\d+\.?\d*(?:[eE][-+]?\d+)?")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _print(pr: _Printer, expr) -> str:
    """C code of one expression; refuses anything but the safe names and the C math library."""
    try:
        code = pr.doprint(expr)
    except PrintMethodNotImplementedError as exc:
        raise InputError(f"codegen: the C printer does not support {exc}".split("\n")[0]) from exc
    # defence in depth: the only identifiers are ours and the C math library's (no user text)
    bad = {w for w in _IDENT.findall(_NUMBER.sub(" ", code)) if not w.startswith("jg_") and w not in _ALLOWED}
    if bad or "/*" in code or "//" in code or "#" in code or '"' in code:
        raise InputError(f"codegen: the C printer produced unexpected text {sorted(bad)} for {expr}")
    return code


def c_statements(exprs: list, cse: bool = True, optimizations: str | None = "basic",
                 out: str = "out") -> tuple[list[str], tuple]:
    """The C statements computing the renamed expressions into ``out[0], out[1], …``, and (repl, reduced).

    The common subexpressions become ``const double jg_c<k>`` locals; every line is checked by the
    printer's whitelist (:func:`_print`).  ``exprs`` contain only ``_t``, ``_y<i>`` and ``_p<i>``;
    ``out`` must be a C identifier of the caller's template.

    Parameters
    ----------
    exprs : list of sympy.Expr
        The renamed expressions.
    cse : bool, default True
        Eliminate common subexpressions first.
    optimizations : "basic" or None, default "basic"
        sympy's cse optimisations.
    out : str, default "out"
        The name of the output array (lower-case letters).

    Returns
    -------
    tuple
        ``(lines, (repl, reduced))``: the C lines (indented, one statement each), and the common
        subexpressions with the reduced expressions.

    Raises
    ------
    jetgeo.errors.InputError
        If ``out`` is not lower-case letters or the printer produces text outside its whitelist.

    Examples
    --------
    >>> import sympy as sp
    >>> y0 = sp.Symbol("_y0")
    >>> c_statements([y0**2 + 1], cse=False)[0]
    ['    out[0] = 1.0 + jg_y0*jg_y0;']
    """
    if not re.fullmatch(r"[a-z]+", out):
        raise InputError(f"codegen: the output array's name must be lower-case letters, not {out!r}")
    if cse:
        repl, reduced = common_subexpressions(exprs, optimizations)
    else:
        repl, reduced = [], list(exprs)
    # order="none": sums printed in the order of their arguments (sorting the terms of every sum for
    # printing took 3.4 of the 6.7 s of printing the Whipple bicycle's bordered system)
    pr = _Printer({"strict": True, "order": "none"})
    body = []
    for s, r in repl:
        body.append(f"    const double {_print(pr, s)} = {_print(pr, _EXPAND_POW(r))};")
    for i, r in enumerate(reduced):
        body.append(f"    {out}[{i}] = {_print(pr, _EXPAND_POW(as_expr(r)))};")
    return body, (repl, reduced)


def c_source(exprs: list, n_state: int, n_params: int, shape: tuple, modname: str, cse: bool = True,
             optimizations: str | None = "basic", bordered: tuple | None = None) -> tuple[str, tuple]:
    """The C source of the extension module for the renamed expressions, and (repl, reduced).

    ``exprs`` contain only ``_t``, ``_y<i>`` (i < n_state) and ``_p<i>`` (i < n_params).
    ``bordered`` = (m, k): the expressions are the blocks [W, ℓ, J, b] of a bordered system
    (:class:`~jetgeo.mechanics.bordered.BorderedSystem` ``.flat()``) and the state is (q, q̇)
    with n_state = 2m; the module then also has ``rhs(t, y, p)`` → (q̇, q̈) and
    ``solve(t, y, p)`` → (q̈, λ, det K), the bordered system solved in C (:data:`_BORDERED`).

    Parameters
    ----------
    exprs : list of sympy.Expr
        The renamed expressions.
    n_state, n_params : int
        The lengths of y and p.
    shape : tuple
        The shape of ``f``'s output.
    modname : str
        The module's name (its ``PyInit_<modname>``).
    cse : bool, default True
        Eliminate common subexpressions.
    optimizations : "basic" or None, default "basic"
        As in :func:`~jetgeo.numerics.compile_rhs`.
    bordered : tuple or None, optional
        (m, k): also generate the bordered ``rhs`` and ``solve``.

    Returns
    -------
    tuple
        ``(source, (repl, reduced))``: the C source text, and the common subexpressions
        [(symbol, expression)] with the expressions rewritten in them.

    Raises
    ------
    jetgeo.errors.InputError
        An expression the C printer cannot print, or blocks that do not fit (m, k).
    """
    body, (repl, reduced) = c_statements(exprs, cse, optimizations)
    used_t = sp.Symbol("_t") in free_symbols_dag(exprs)  # on the DAG: a tree walk took 2 s on the Whipple bicycle
    ndim = len(shape)
    dims = ", ".join(str(int(d)) for d in shape) or "0"
    extra, methods = "", ""
    if bordered is not None:
        m, k = (int(v) for v in bordered)
        if n_state != 2 * m or len(reduced) != m * m + m + k * m + k:
            raise InputError(f"codegen: a bordered system with m = {m}, k = {k} needs {m * m + m + k * m + k} "
                             f"blocks and a state of {2 * m}, got {len(reduced)} and {n_state}")
        extra = _BORDERED.format(m=m, k=k, n_out=len(reduced), n_state=n_state, n_params=n_params)
        methods = _BORDERED_METHODS
    src = _TEMPLATE.format(
        modname=modname, n_state=n_state, n_params=n_params, n_out=len(reduced), ndim=ndim, dims=dims,
        unpack_y="\n".join(f"    const double jg_y{i} = y[{i}];" for i in range(n_state)),
        unpack_p="\n".join(f"    const double jg_p{i} = p[{i}];" for i in range(n_params)),
        unpack_t="    const double jg_t = t;" if used_t else "    (void)t;",
        body="\n".join(body), bordered=extra, bordered_methods=methods,
    )
    return src, (repl, reduced)


_TEMPLATE = r"""/* generated by jetgeo.numerics.codegen: do not edit */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>
#include <math.h>
#include <string.h>
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#ifndef M_E
#define M_E 2.7182818284590452354
#endif

static void kernel(const double t, const double *restrict y, const double *restrict p, double *restrict out)
{{
{unpack_t}
{unpack_y}
{unpack_p}
{body}
}}

/* a float64 vector of length n: borrowed data of a contiguous float64 array, else a converted copy */
static const double *as_vector(PyObject *obj, Py_ssize_t n, PyObject **owner, const char *what)
{{
    *owner = NULL;
    if (PyArray_Check(obj)) {{
        PyArrayObject *a = (PyArrayObject *)obj;
        if (PyArray_TYPE(a) == NPY_DOUBLE && PyArray_NDIM(a) == 1 && PyArray_IS_C_CONTIGUOUS(a)
            && PyArray_ISALIGNED(a) && PyArray_ISNOTSWAPPED(a)) {{
            if (PyArray_DIM(a, 0) != n) goto bad_length;
            return (const double *)PyArray_DATA(a);
        }}
    }}
    *owner = PyArray_FROMANY(obj, NPY_DOUBLE, 1, 1, NPY_ARRAY_IN_ARRAY);
    if (*owner == NULL) return NULL;
    if (PyArray_DIM((PyArrayObject *)*owner, 0) != n) {{
        Py_CLEAR(*owner);
        goto bad_length;
    }}
    return (const double *)PyArray_DATA((PyArrayObject *)*owner);
bad_length:
    PyErr_Format(PyExc_ValueError, "%s must have length %zd", what, n);
    return NULL;
}}

/* the arguments (t, y, p=()) of every function of the module; 0 on success (release with the owners) */
static int read_args(PyObject *const *args, Py_ssize_t nargs, double *t, const double **y, const double **p,
                     PyObject **own_y, PyObject **own_p)
{{
    static const double nothing[1] = {{0.0}};
    *own_y = *own_p = NULL;
    *y = *p = nothing;
    if (nargs < 2 || nargs > 3) {{
        PyErr_SetString(PyExc_TypeError, "f(t, y, p=()) takes 2 or 3 positional arguments");
        return -1;
    }}
    *t = PyFloat_AsDouble(args[0]);
    if (*t == -1.0 && PyErr_Occurred()) return -1;
    if ({n_state} > 0) {{
        *y = as_vector(args[1], {n_state}, own_y, "the state y");
        if (*y == NULL) return -1;
    }}
    if ({n_params} > 0) {{
        if (nargs < 3) {{
            Py_CLEAR(*own_y);
            PyErr_SetString(PyExc_TypeError, "f(t, y, p): the parameters p are missing");
            return -1;
        }}
        *p = as_vector(args[2], {n_params}, own_p, "the parameters p");
        if (*p == NULL) {{
            Py_CLEAR(*own_y);
            return -1;
        }}
    }}
    return 0;
}}

static PyObject *call(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{{
    double t;
    const double *y, *p;
    PyObject *own_y, *own_p;
    if (read_args(args, nargs, &t, &y, &p, &own_y, &own_p) < 0) return NULL;
    npy_intp dims[] = {{{dims}}};
    PyObject *res = PyArray_SimpleNew({ndim}, dims, NPY_DOUBLE);
    if (res != NULL) kernel(t, y, p, (double *)PyArray_DATA((PyArrayObject *)res));
    Py_XDECREF(own_y);
    Py_XDECREF(own_p);
    return res;
}}
{bordered}
static PyMethodDef methods[] = {{
    {{"f", (PyCFunction)(void (*)(void))call, METH_FASTCALL, "f(t, y, p) -> ndarray (generated by jetgeo)"}},
{bordered_methods}    {{NULL, NULL, 0, NULL}}
}};

static struct PyModuleDef moduledef = {{PyModuleDef_HEAD_INIT, "{modname}", NULL, -1, methods}};

PyMODINIT_FUNC PyInit_{modname}(void)
{{
    import_array();
    return PyModule_Create(&moduledef);
}}
"""


#: the bordered system K (q̈, λ) = (ℓ, −b), K = [[W, −Jᵀ], [J, 0]], solved in C: Gaussian elimination with
#: partial pivoting (the LU factorisation LAPACK's dgesv computes), det K = ± the product of the pivots
_BORDERED = r"""
#define JG_M {m}
#define JG_K {k}
#define JG_N ({m} + {k})

/* (q̈, λ) and det K at (t, y); det = 0 (and no solution) where a pivot vanishes */
static void bordered_solve(const double t, const double *restrict y, const double *restrict p,
                           double *restrict x, double *restrict det)
{{
    double blk[{n_out}];
    double A[JG_N][JG_N + 1];
    int i, j, c, r;
    kernel(t, y, p, blk);
    const double *W = blk, *L = blk + JG_M * JG_M, *J = blk + JG_M * JG_M + JG_M;
    const double *b = blk + JG_M * JG_M + JG_M + JG_K * JG_M;
    for (i = 0; i < JG_M; i++) {{
        for (j = 0; j < JG_M; j++) A[i][j] = W[i * JG_M + j];
        for (j = 0; j < JG_K; j++) A[i][JG_M + j] = -J[j * JG_M + i];
        A[i][JG_N] = L[i];
    }}
    for (i = 0; i < JG_K; i++) {{
        for (j = 0; j < JG_M; j++) A[JG_M + i][j] = J[i * JG_M + j];
        for (j = 0; j < JG_K; j++) A[JG_M + i][JG_M + j] = 0.0;
        A[JG_M + i][JG_N] = -b[i];
    }}
    double d = 1.0;
    for (c = 0; c < JG_N; c++) {{
        int piv = c;
        double big = fabs(A[c][c]);
        for (r = c + 1; r < JG_N; r++) {{
            if (fabs(A[r][c]) > big) {{
                big = fabs(A[r][c]);
                piv = r;
            }}
        }}
        if (A[piv][c] == 0.0) {{
            *det = 0.0;
            return;
        }}
        if (piv != c) {{
            for (j = c; j <= JG_N; j++) {{
                double s = A[c][j];
                A[c][j] = A[piv][j];
                A[piv][j] = s;
            }}
            d = -d;
        }}
        d *= A[c][c];
        for (r = c + 1; r < JG_N; r++) {{
            double f = A[r][c] / A[c][c];
            if (f != 0.0) {{
                for (j = c + 1; j <= JG_N; j++) A[r][j] -= f * A[c][j];
            }}
        }}
    }}
    for (i = JG_N - 1; i >= 0; i--) {{
        double s = A[i][JG_N];
        for (j = i + 1; j < JG_N; j++) s -= A[i][j] * x[j];
        x[i] = s / A[i][i];
    }}
    *det = d;
}}

static PyObject *singular(double t)
{{
    PyErr_Format(PyExc_ZeroDivisionError, "the bordered matrix [[W, -J^T], [J, 0]] is singular at t = %g", t);
    return NULL;
}}

/* rhs(t, y, p) -> (q', q'') of the state y = (q, q'): what the integrator calls */
static PyObject *rhs(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{{
    double t, det, x[JG_N];
    const double *y, *p;
    PyObject *own_y, *own_p;
    if (read_args(args, nargs, &t, &y, &p, &own_y, &own_p) < 0) return NULL;
    bordered_solve(t, y, p, x, &det);
    PyObject *res = NULL;
    if (det == 0.0) {{
        singular(t);
    }} else {{
        npy_intp dims[] = {{2 * JG_M}};
        res = PyArray_SimpleNew(1, dims, NPY_DOUBLE);
        if (res != NULL) {{
            double *out = (double *)PyArray_DATA((PyArrayObject *)res);
            for (int i = 0; i < JG_M; i++) {{
                out[i] = y[JG_M + i];
                out[JG_M + i] = x[i];
            }}
        }}
    }}
    Py_XDECREF(own_y);
    Py_XDECREF(own_p);
    return res;
}}

/* solve(t, y, p) -> (x, det K) with x = (q'', lambda) (x is None where det K = 0) */
static PyObject *solve(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{{
    double t, det, x[JG_N];
    const double *y, *p;
    PyObject *own_y, *own_p;
    if (read_args(args, nargs, &t, &y, &p, &own_y, &own_p) < 0) return NULL;
    bordered_solve(t, y, p, x, &det);
    Py_XDECREF(own_y);
    Py_XDECREF(own_p);
    if (det == 0.0) return Py_BuildValue("(Od)", Py_None, det);
    npy_intp dims[] = {{JG_N}};
    PyObject *arr = PyArray_SimpleNew(1, dims, NPY_DOUBLE);
    if (arr == NULL) return NULL;
    memcpy(PyArray_DATA((PyArrayObject *)arr), x, sizeof(x));
    return Py_BuildValue("(Nd)", arr, det);
}}
"""

_BORDERED_METHODS = """\
    {"rhs", (PyCFunction)(void (*)(void))rhs, METH_FASTCALL, "rhs(t, y, p) -> (q', q'') (bordered system)"},
    {"solve", (PyCFunction)(void (*)(void))solve, METH_FASTCALL, "solve(t, y, p) -> (q'' and lambda, det K)"},
"""


#: C sources longer than this (characters) are compiled with -O0, shorter ones with -O2: gcc's optimisers
#: are superlinear in the length of one straight-line function (the Whipple bicycle's bordered system,
#: 75 kB: 1.55 s of CPU at -O2, 1.24 s at -O1, 0.19 s at -O0), while a large system is integrated over
#: few steps; a small one is called hundreds of thousands of times (the rattleback's 20 kB: 0.30 s at -O2)
OPTIMISE_MAX_CHARS = 40_000


def _optimisation(source: str) -> str:
    """The optimisation flag for ``source`` (:data:`OPTIMISE_MAX_CHARS`)."""
    return "-O2" if len(source) <= OPTIMISE_MAX_CHARS else "-O0"


def _flags() -> list[str]:
    import numpy as np

    inc = sysconfig.get_paths()["include"]
    if not (Path(inc) / "Python.h").is_file():
        raise CompilerUnavailableError(f"codegen: the Python headers are missing (no Python.h in {inc}); "
                                       "install the python development package")
    flags = ["-fno-math-errno", "-fPIC", "-shared", "-std=c99", "-w", f"-I{inc}", f"-I{np.get_include()}"]
    if sys.platform == "darwin":
        flags += ["-undefined", "dynamic_lookup"]
    return flags



def _flags_for_keys(flags: list[str], numpy_include: str) -> list[str]:
    """The flags as the cache keys see them: NumPy's include directory as ``-I<numpy>`` — its headers
    are named by NumPy's version, which the keys hold (the ABI string) — not as the path of one
    installation, so a new virtual environment with the same Python and NumPy loads the modules an
    earlier one built (the suite in a fresh venv rebuilt every module, 57 gcc runs)."""
    return ["-I<numpy>" if f == f"-I{numpy_include}" else f for f in flags]

def _load(modname: str, path: Path):
    spec = importlib.util.spec_from_file_location(modname, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _build(source: str, modname: str, key: str, directory: Path, suffix: str, cc: list[str],
           flags: list[str]) -> None:
    """Compile ``source`` in a private temporary directory, then rename the source, the library
    and the record of their hashes into ``directory`` (the record last: a library without a
    matching record is never loaded).  Relative file names keep the library byte-identical
    across builds, so concurrent builders of one key write the same files."""
    with tempfile.TemporaryDirectory(prefix="build-", dir=directory) as tmp:
        build = Path(tmp)
        c_name, so_name = f"{modname}.c", f"{modname}{suffix}"
        _write_private(build / c_name, source.encode())
        exe = os.path.abspath(cc[0]) if os.sep in cc[0] else cc[0]  # it runs in the build directory
        cmd = [exe, *cc[1:], *flags, c_name, "-o", so_name, "-lm"]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=build)
        except FileNotFoundError as exc:
            raise CompilerUnavailableError(f"codegen: the C compiler {cc[0]!r} was not found (set $JETGEO_CC or "
                                           f"$CC to a C compiler, or use backend='python')") from exc
        except (OSError, subprocess.SubprocessError) as exc:
            raise CompilerUnavailableError(f"codegen: running the C compiler {shlex.join(cc)!r} failed: {exc}") from exc
        if proc.returncode != 0:
            raise CompilerUnavailableError(f"codegen: the C compiler {shlex.join(cc)!r} failed "
                                           f"(exit {proc.returncode}):\n{proc.stderr[-2000:]}")
        if _POSIX:
            os.chmod(build / so_name, 0o700)  # the compiler's output mode follows the umask
        library = (build / so_name).read_bytes()
        _write_private(build / f"{modname}.json", json.dumps(_record(modname, key, source, library)
                                                              | {"jetgeo": __version__}).encode())
        for name in (c_name, so_name, f"{modname}.json"):
            os.replace(build / name, directory / name)


def _expression_key(exprs: list, context: str) -> str | None:
    """A stable digest of the expressions' structure (DAG-aware: each distinct node is hashed once).

    Used to find a compiled module without redoing ``cse`` and printing; None if the
    expressions are too deep to walk."""
    memo: dict = {}

    def node(e) -> str:
        v = memo.get(e)
        if v is None:
            payload = type(e).__name__ + "(" + ",".join(node(a) for a in e.args) + ")" if e.args else sp.srepr(e)
            v = memo[e] = hashlib.blake2b(payload.encode(), digest_size=16).hexdigest()
        return v

    try:
        return hashlib.sha256((context + "|" + "|".join(node(as_expr(e)) for e in exprs)).encode()).hexdigest()[:32]
    except RecursionError:  # pragma: no cover - absurdly deep expressions: skip the index
        return None


def c_function(exprs: list, n_state: int, n_params: int, shape: tuple, cse: bool = True,
               optimizations: str | None = "basic"):
    """Compile renamed expressions into ``f(t, y, p) -> ndarray``; returns (f, C source, (repl, reduced)).

    The third item is None when the module was found through the expression index (the
    common subexpressions were not recomputed).  Raises :class:`CompilerUnavailableError` if
    the module cannot be built, and :class:`~jetgeo.errors.InputError` if an expression cannot be
    printed as C.

    Parameters
    ----------
    exprs : list of sympy.Expr
        Expressions in ``_t``, ``_y<i>``, ``_p<i>`` only.
    n_state, n_params : int
        The lengths of y and p.
    shape : tuple
        The shape of ``f``'s output.
    cse : bool, default True
        Eliminate common subexpressions.
    optimizations : "basic" or None, default "basic"
        As in :func:`~jetgeo.numerics.compile_rhs`.

    Returns
    -------
    tuple
        ``(f, source, parts)``: the compiled function, its C source, and ``(repl, reduced)`` or None.

    Raises
    ------
    jetgeo.errors.CompilerUnavailableError
        No compiler, no headers, or an unusable cache directory.
    jetgeo.errors.InputError
        An expression the C printer cannot print.
    """
    mod, source, parts = c_rhs_module(exprs, n_state, n_params, shape, cse, optimizations)
    return mod.f, source, parts


def c_rhs_module(exprs: list, n_state: int, n_params: int, shape: tuple, cse: bool = True,
                 optimizations: str | None = "basic", bordered: tuple | None = None):
    """The compiled extension module of renamed expressions: (module, C source, (repl, reduced)).

    ``module.f(t, y, p)`` evaluates the expressions; with ``bordered`` = (m, k) (the expressions
    are a bordered system's blocks, :func:`c_source`) also ``module.rhs`` and ``module.solve``.
    The third item is None when the module was found through the expression index.

    Parameters
    ----------
    exprs : list
        Expressions in ``_t``, ``_y<i>``, ``_p<i>`` only (renamed by :func:`~jetgeo.numerics.compile_rhs`).
    n_state, n_params : int
        The lengths of y and p.
    shape : tuple
        The shape of ``f``'s output.
    cse : bool
        Eliminate common subexpressions.
    optimizations : "basic" or None
        As in :func:`~jetgeo.numerics.compile_rhs`.
    bordered : (m, k) or None
        Also generate the bordered solve (n_state = 2m, the blocks [W, ℓ, J, b] of
        :meth:`~jetgeo.mechanics.bordered.BorderedSystem.flat`).

    Returns
    -------
    (module, str, tuple or None)

    Raises
    ------
    CompilerUnavailableError
        No compiler, no headers, or an unusable cache directory.
    InputError
        An expression the C printer cannot print, or blocks that do not fit (m, k).

    Examples
    --------
    >>> import sympy as sp
    >>> y0, y1 = sp.symbols("_y0 _y1")
    >>> mod, src, _ = c_rhs_module([sp.Integer(2), -y0, sp.Integer(1), sp.Integer(0)], 2, 0, (4,), bordered=(1, 1))
    >>> mod.rhs(0.0, [3.0, 0.0]).tolist()     # W = 2, ℓ = −q, J = 1, b = 0: q̈ = 0, λ = 3
    [0.0, 0.0]
    >>> x, det = mod.solve(0.0, [3.0, 0.0]); x.tolist(), det
    ([0.0, 3.0], 1.0)
    """
    def make_source(modname: str) -> tuple[str, tuple]:
        return c_source(exprs, n_state, n_params, shape, modname, cse=cse, optimizations=optimizations,
                        bordered=bordered)

    layout = [str(n_state), str(n_params), repr(tuple(shape)), repr(cse), repr(optimizations), repr(bordered)]
    return c_module(exprs, layout, make_source)


def c_module(exprs: list, layout: list[str], make_source, optimise: bool | None = None):
    """The cached extension module of a generated C source; returns (module, C source, parts).

    The one home of the build cache: the in-process cache, the expression index, the verified disk
    cache and the compiler run.

    Parameters
    ----------
    exprs : list of sympy.Expr
        The renamed expressions (a key of the expression index).
    layout : list of str
        Everything else that shapes the source (sizes, options, the caller's template): the rest of the key.
    make_source : callable
        ``make_source(modname) -> (source, parts)``: the source of a module ``PyInit_<modname>``; called with
        the placeholder :data:`_PLACEHOLDER`, replaced by the hash-derived name afterwards.
    optimise : bool or None, optional
        -O2 (True), -O0 (False), or chosen by the source's length (None, :data:`OPTIMISE_MAX_CHARS`).

    Returns
    -------
    tuple
        ``(module, source, parts)``: the imported extension module, its C source, and ``parts``
        from ``make_source`` (None when found in a cache).

    Raises
    ------
    jetgeo.errors.CompilerUnavailableError
        No compiler command, no headers, a failing compilation or an unusable cache directory.
    """
    import numpy as np

    cc = compiler_command()
    if not cc:
        raise CompilerUnavailableError("codegen: the compiler command is empty ($JETGEO_CC / $CC)")
    flags = _flags()
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    abi = f"{sys.implementation.cache_tag}|{suffix}|numpy{np.__version__}"
    keyed = _flags_for_keys(flags, np.get_include())
    context = "\0".join([_FORMAT, *layout, repr(optimise), shlex.join(cc), shlex.join(keyed), abi])

    def level(source: str, flags: list[str] = flags) -> list[str]:
        if optimise is None:
            return [_optimisation(source), *flags]
        return ["-O2" if optimise else "-O0", *flags]

    ekey = _expression_key(exprs, context)
    hit = _MODULES.get(ekey) if ekey else None
    if hit is not None:
        stats["reused"] += 1
        return hit[0], hit[1], None
    directory = private_cache_dir()
    index = directory / "index" / ekey if ekey else None
    raw = _read_private(index) if index is not None else None
    modname = raw.decode("ascii", "replace").strip() if raw is not None else ""
    if _MODNAME.fullmatch(modname):  # compiled before, maybe by another process: its source is on disk
        c_raw = _read_private(directory / f"{modname}.c")
        if c_raw is not None:
            source = c_raw.decode("utf-8", "replace")
            generic = source.replace(modname, _PLACEHOLDER)
            key = _module_key(generic, cc, level(generic, keyed), abi)
            mod = _load_cached(directory, modname, suffix, source, key)
            if mod is not None:
                stats["loaded"] += 1
                _MODULES[ekey] = (mod, source)
                return mod, source, None
    src0, parts = make_source(_PLACEHOLDER)
    build_flags = level(src0)
    key = _module_key(src0, cc, level(src0, keyed), abi)
    modname = f"jetgeo_rhs_{key[:24]}"
    source = src0.replace(_PLACEHOLDER, modname)
    mod = _load_cached(directory, modname, suffix, source, key)
    if mod is not None:
        stats["loaded"] += 1
    else:
        try:
            _build(source, modname, key, directory, suffix, cc, build_flags)
        except OSError as exc:  # an unwritable cache directory, a full disk
            raise CompilerUnavailableError(f"codegen: cannot write the compiled module to {directory}: {exc} "
                                           "(set $JETGEO_CACHE to a writable directory)") from exc
        stats["compiled"] += 1
        library = _verified_library(directory, modname, suffix, source, key)
        if library is None:
            raise CompilerUnavailableError(f"codegen: the module {modname} just compiled in {directory} does not "
                                           "match its record (was it changed meanwhile?)")
        try:
            mod = _load(modname, library)
        except ImportError as exc:
            raise CompilerUnavailableError(f"codegen: the compiled module {library} cannot be imported: {exc}") from exc
    if index is not None:
        try:
            index.parent.mkdir(mode=0o700, exist_ok=True)
            _write_private(index, modname.encode())
        except OSError:  # the index only saves time
            pass
    if ekey:
        _MODULES[ekey] = (mod, source)
    return mod, source, parts
