"""The C backend's disk cache trusts nothing it did not write: a compiled module is loaded only from a
directory of this user that no one else can write (created 0700 whatever the umask), and only if the
library's hash matches the record its build wrote next to it; the expression index is keyed on
everything that shapes the generated code (issue 25, finding 9).

The planted libraries are real shared objects whose initialisation code (an ELF constructor, run
by the dynamic loader before Python sees the module) writes a marker file: the marker must never
appear."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

import jetgeo
from jetgeo.numerics import codegen, compile_rhs
from jetgeo.numerics.codegen import CompilerUnavailableError

CC = codegen.compiler_command()
if shutil.which(CC[0]) is None:  # the only skip: CI has gcc
    pytest.skip(f"no C compiler on this machine ({CC[0]!r} not found): the C backend cannot be tested",
                allow_module_level=True)

SUFFIX = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
x, k = sp.symbols("x k")
EXPR = [k * sp.cosh(x) - x**7 + 4242]  # compiled by no other test


def _value(xv: float, kv: float) -> float:
    return kv * np.cosh(xv) - xv**7 + 4242


def _planted_library(tmp_path: Path, marker: Path, modname: str) -> Path:
    """A working extension module ``modname`` (its ``f`` returns None) whose load-time constructor
    writes ``marker``: what an attacker with write access to the cache would plant."""
    src = tmp_path / "planted.c"
    src.write_text(textwrap.dedent(f"""\
        #define PY_SSIZE_T_CLEAN
        #include <Python.h>
        #include <stdio.h>
        __attribute__((constructor)) static void planted(void)
        {{
            FILE *f = fopen({json.dumps(str(marker))}, "w");
            if (f) {{ fputs("planted code ran\\n", f); fclose(f); }}
        }}
        static PyObject *call(PyObject *self, PyObject *args) {{ Py_RETURN_NONE; }}
        static PyMethodDef methods[] = {{{{"f", call, METH_VARARGS, NULL}}, {{NULL, NULL, 0, NULL}}}};
        static struct PyModuleDef moduledef = {{PyModuleDef_HEAD_INIT, "{modname}", NULL, -1, methods}};
        PyMODINIT_FUNC PyInit_{modname}(void) {{ return PyModule_Create(&moduledef); }}
        """))
    lib = tmp_path / "planted.so"
    subprocess.run([*CC, *codegen._flags(), str(src), "-o", str(lib)], check=True, capture_output=True, timeout=120)
    return lib


@pytest.fixture(scope="module")
def legit(tmp_path_factory):
    """A cache holding the module of EXPR, built by jetgeo: (directory, module name)."""
    directory = tmp_path_factory.mktemp("legit") / "cache"
    old = os.environ.get("JETGEO_CACHE")
    os.environ["JETGEO_CACHE"] = str(directory)
    try:
        codegen.clear_memory_cache()
        f = compile_rhs(EXPR, [x], [k], backend="c")
    finally:
        if old is None:
            del os.environ["JETGEO_CACHE"]
        else:
            os.environ["JETGEO_CACHE"] = old
        codegen.clear_memory_cache()
    modname = re.search(r"jetgeo_rhs_[0-9a-f]{24}", f.source).group(0)
    return directory, modname


def _plant(legit, target: Path, marker: Path, tmp_path: Path, index: bool, record: bool) -> str:
    """Copy the legit module's source (and its index entry, its build record) into ``target`` and put
    the planted library in the place of its library."""
    directory, modname = legit
    target.mkdir(mode=0o700, exist_ok=True)
    shutil.copy(directory / f"{modname}.c", target / f"{modname}.c")
    if index:
        shutil.copytree(directory / "index", target / "index")
    if record and (directory / f"{modname}.json").exists():  # (a jetgeo without records writes none)
        shutil.copy(directory / f"{modname}.json", target / f"{modname}.json")
    shutil.copy(_planted_library(tmp_path, marker, modname), target / f"{modname}{SUFFIX}")
    return modname


@pytest.mark.parametrize(("index", "record"), [(True, False), (False, False), (True, True), (False, True)])
def test_a_planted_library_with_a_sibling_source_is_never_imported(legit, tmp_path, monkeypatch, index, record):
    """In the user's own private cache: a planted ``jetgeo_rhs_<sha>.so`` next to the right ``.c``
    (found through the expression index, or by the source's hash), without a record or with the
    record of the real library: never opened; the module is compiled again and gives the right
    values (today the planted library is imported and its constructor runs)."""
    cache, marker = tmp_path / "cache", tmp_path / "MARKER"
    modname = _plant(legit, cache, marker, tmp_path, index, record)
    monkeypatch.setenv("JETGEO_CACHE", str(cache))
    codegen.clear_memory_cache()
    before = dict(codegen.stats)
    f = compile_rhs(EXPR, [x], [k], backend="c")
    assert not marker.exists(), "the planted library was loaded"
    assert codegen.stats["compiled"] == before["compiled"] + 1 and codegen.stats["loaded"] == before["loaded"]
    assert f(0.0, [0.3], [2.0])[0] == pytest.approx(_value(0.3, 2.0), rel=1e-15)
    rec = json.loads((cache / f"{modname}.json").read_text())
    library = (cache / f"{modname}{SUFFIX}").read_bytes()
    assert rec["module"] == modname and rec["library_sha256"] == hashlib.sha256(library).hexdigest()
    codegen.clear_memory_cache()                   # a new process: the rebuilt module is trusted and loaded
    compile_rhs(EXPR, [x], [k], backend="c")
    assert codegen.stats["loaded"] == before["loaded"] + 1 and codegen.stats["compiled"] == before["compiled"] + 1


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o702])
def test_a_cache_directory_others_can_write_is_refused(legit, tmp_path, monkeypatch, mode):
    """A shared ``$JETGEO_CACHE`` (group- or world-writable) with a planted module: backend='c' is
    refused with a CompilerUnavailableError naming the directory and its mode, 'auto' keeps the Python
    function; nothing is loaded from it (today the planted module runs)."""
    cache, marker = tmp_path / "shared", tmp_path / "MARKER"
    _plant(legit, cache, marker, tmp_path, index=True, record=True)
    os.chmod(cache, mode)
    monkeypatch.setenv("JETGEO_CACHE", str(cache))
    codegen.clear_memory_cache()
    with pytest.raises(CompilerUnavailableError, match=rf"{re.escape(str(cache))} is writable by its group or by "
                                                       rf"others \(mode {mode:#o}\)"):
        compile_rhs(EXPR, [x], [k], backend="c")
    f = compile_rhs(EXPR, [x], [k], backend="auto")
    assert f.backend == "python" and f(0.0, [0.3], [2.0])[0] == pytest.approx(_value(0.3, 2.0), rel=1e-14)
    assert not marker.exists(), "the planted library was loaded"
    assert stat.S_IMODE(cache.stat().st_mode) == mode  # left as it was: jetgeo does not change what it did not make


def test_a_cache_directory_of_another_user_is_refused(legit, tmp_path, monkeypatch):
    """The directory exists (mode 0700) but belongs to another user: refused, nothing loaded."""
    cache, marker = tmp_path / "theirs", tmp_path / "MARKER"
    _plant(legit, cache, marker, tmp_path, index=True, record=True)
    monkeypatch.setenv("JETGEO_CACHE", str(cache))
    codegen.clear_memory_cache()
    me = os.geteuid()
    monkeypatch.setattr(os, "geteuid", lambda: me + 4321)  # as if another user had made it
    with pytest.raises(CompilerUnavailableError, match=rf"belongs to the user id {me}, not to this user"):
        compile_rhs(EXPR, [x], [k], backend="c")
    assert not marker.exists()


def test_the_cache_is_private_under_umask_000(tmp_path, monkeypatch):
    """Under ``umask 000`` the cache (and its missing parents) are created 0700 and no file in it
    is writable by others; the files are then trusted by the next process (today: 0777)."""
    cache = tmp_path / "new" / "deeper" / "cache"
    monkeypatch.setenv("JETGEO_CACHE", str(cache))
    codegen.clear_memory_cache()
    old = os.umask(0)
    try:
        before = dict(codegen.stats)
        compile_rhs([x**3 * sp.atanh(k) + 77], [x], [k], backend="c")
    finally:
        os.umask(old)
    for d in (tmp_path / "new", tmp_path / "new" / "deeper", cache):
        assert stat.S_IMODE(d.stat().st_mode) == 0o700, d
    files = list(cache.rglob("*"))
    for end in (".c", ".json", SUFFIX):
        assert any(p.name.endswith(end) for p in files), end
    for p in files:
        assert not p.stat().st_mode & (stat.S_IWGRP | stat.S_IWOTH), (p, oct(p.stat().st_mode))
    codegen.clear_memory_cache()
    compile_rhs([x**3 * sp.atanh(k) + 77], [x], [k], backend="c")
    assert codegen.stats["compiled"] == before["compiled"] + 1 and codegen.stats["loaded"] == before["loaded"] + 1


def test_the_expression_index_is_keyed_on_cse_py(tmp_path, monkeypatch):
    """A jetgeo whose ``cse.py`` eliminates common subexpressions differently (here: not at all)
    must not be served the module indexed by this one: it compiles its own (today the index hands
    it the stale module, with this jetgeo's locals ``jg_c0, …``)."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("JETGEO_CACHE", str(cache))
    codegen.clear_memory_cache()
    expr = [sp.sin(x + k) ** 2 + sp.sin(x + k) * 31 + 5]   # sin(x + k) is a common subexpression
    assert "jg_c0" in compile_rhs(expr, [x], [k], backend="c").source
    package = tmp_path / "other" / "jetgeo"
    shutil.copytree(Path(jetgeo.__file__).parent, package, ignore=shutil.ignore_patterns("__pycache__"))
    with open(package / "numerics" / "cse.py", "a", encoding="utf-8") as fh:
        fh.write("\n\ndef common_subexpressions(exprs, optimizations='basic'):  # another elimination\n"
                 "    return [], list(exprs)\n")
    probe = ("import json, sympy as sp\nfrom jetgeo.numerics import codegen, compile_rhs\n"
             "x, k = sp.symbols('x k')\n"
             "f = compile_rhs([sp.sin(x + k)**2 + sp.sin(x + k)*31 + 5], [x], [k], backend='c')\n"
             "import jetgeo\n"
             "print(json.dumps({'stats': codegen.stats, 'cse': 'jg_c0' in f.source, 'file': jetgeo.__file__,\n"
             "                  'value': float(f(0, [0.2], [0.1])[0])}))")
    env = {**os.environ, "PYTHONPATH": str(package.parent), "JETGEO_CACHE": str(cache)}
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120,
                         cwd=tmp_path, check=True)  # not the checkout: "-c" puts the working directory first
    got = json.loads(out.stdout.splitlines()[-1])
    assert got["file"] == str(package / "__init__.py"), got
    assert got["stats"]["compiled"] == 1 and got["stats"]["loaded"] == 0 and not got["cse"], got
    assert got["value"] == pytest.approx(np.sin(0.3) ** 2 + 31 * np.sin(0.3) + 5, rel=1e-14)


def test_the_index_key_covers_the_jetgeo_version_and_the_compiler_flags(tmp_path, monkeypatch):
    """Another jetgeo version, or other compiler flags, never reuse a module found through the
    expression index: the module is compiled (and named) anew."""
    monkeypatch.setenv("JETGEO_CACHE", str(tmp_path / "cache"))
    expr = [sp.tanh(x) * k**3 + 919]
    codegen.clear_memory_cache()
    before = dict(codegen.stats)
    first = compile_rhs(expr, [x], [k], backend="c").source
    monkeypatch.setattr(codegen, "__version__", "999.0")
    monkeypatch.setattr(codegen, "_FORMAT", codegen._code_fingerprint())
    codegen.clear_memory_cache()
    assert compile_rhs(expr, [x], [k], backend="c").source == first   # same C source: found by its hash
    assert codegen.stats["loaded"] == before["loaded"] + 1 and codegen.stats["compiled"] == before["compiled"] + 1
    assert len(list((tmp_path / "cache" / "index").iterdir())) == 2   # under a new index key
    flags = codegen._flags()
    monkeypatch.setattr(codegen, "_flags", lambda: [*flags, "-DJETGEO_OTHER_FLAGS"])
    codegen.clear_memory_cache()
    f = compile_rhs(expr, [x], [k], backend="c")
    assert codegen.stats["compiled"] == before["compiled"] + 2
    assert f(0.0, [0.4], [1.5])[0] == pytest.approx(np.tanh(0.4) * 3.375 + 919, rel=1e-15)
    assert len(list((tmp_path / "cache").glob("jetgeo_rhs_*.json"))) == 2


def test_a_new_environment_with_the_same_numpy_reuses_the_cached_module(tmp_path, monkeypatch):
    """The keys name NumPy's headers by NumPy's version, not by the path of one installation: with the
    include directory seen at another path (a new virtual environment: here a link to the same headers)
    the module compiled before is found by the index and loaded, not compiled again; another NumPy
    version still compiles anew."""
    monkeypatch.setenv("JETGEO_CACHE", str(tmp_path / "cache"))
    expr = [sp.atan(x) * k**2 + 577]
    codegen.clear_memory_cache()
    before = dict(codegen.stats)
    compile_rhs(expr, [x], [k], backend="c")
    assert codegen.stats["compiled"] == before["compiled"] + 1
    elsewhere = tmp_path / "other-venv-numpy-include"
    elsewhere.symlink_to(np.get_include(), target_is_directory=True)
    monkeypatch.setattr(np, "get_include", lambda: str(elsewhere))
    codegen.clear_memory_cache()
    f = compile_rhs(expr, [x], [k], backend="c")
    assert codegen.stats["loaded"] == before["loaded"] + 1 and codegen.stats["compiled"] == before["compiled"] + 1
    assert f(0.0, [0.4], [1.5])[0] == pytest.approx(np.arctan(0.4) * 2.25 + 577, rel=1e-15)
    monkeypatch.setattr(np, "__version__", "0.0.1")
    codegen.clear_memory_cache()
    compile_rhs(expr, [x], [k], backend="c")
    assert codegen.stats["compiled"] == before["compiled"] + 2
