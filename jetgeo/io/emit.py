"""Text and Python source emitted for users: every embedded string escaped, nothing injectable.

A system's name comes from a spec file (or its file name) and coordinate names from the user;
both end up in the output of ``jetgeo derive``.  Here

* :func:`one_line` makes a name safe for a line of text (no line breaks or control characters:
  a name cannot add lines to ``--format text`` output);
* :func:`python_module` writes the ``--format python`` module so that importing it defines one
  function and two string constants and runs nothing else: the name is a string *literal*
  (``repr``), never part of a docstring; the ``math`` module is imported under a private alias
  (a coordinate called ``math`` cannot shadow it); an argument that would shadow a builtin the
  code uses gets a trailing underscore; and the result is checked by a whitelist over its syntax
  tree before it is returned.
"""

from __future__ import annotations

import ast
import builtins
import keyword

import sympy as sp
from sympy.printing.pycode import PythonCodePrinter

from ..errors import InputError

__all__ = ["one_line", "python_module"]

_MATH_ALIAS = "_jetgeo_math"
_BUILTINS_USED = {"abs", "min", "max", "float"}


def one_line(text: object) -> str:
    """``text`` with every non-printable character (newline, carriage return, escape codes …)
    written as its Python escape, so that it stays on one line.

    Parameters
    ----------
    text : object
        The text (anything else through ``str``).

    Returns
    -------
    str
        One printable line.
    """
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in str(text))


class _Printer(PythonCodePrinter):
    """sympy's Python printer with ``math`` under a private alias."""

    def _module_format(self, fqn, register=True):
        out = super()._module_format(fqn, register)
        return _MATH_ALIAS + out[4:] if out.startswith("math.") else out


def _safe_arg(name: str) -> str:
    if not name.isidentifier() or keyword.iskeyword(name):
        raise InputError(f"generated code: {name!r} is not a valid Python name")
    if name.startswith("_") or name in dir(builtins) or name == _MATH_ALIAS:
        return name + "_"
    return name


def python_module(title: str, system: str, method: str, args: list, accelerations: dict) -> str:
    """Source of a module defining ``accelerations(*args)`` → {name: value}; ``args`` are the
    symbols the expressions depend on, in the order of the signature.

    ``title`` is static text for the docstring (no user data); ``system`` and ``method`` are
    stored as string literals ``SYSTEM`` and ``METHOD``.

    Parameters
    ----------
    title : str
        The module's docstring (static text).
    system : str
        The system's name (``SYSTEM``).
    method : str
        The route's name (``METHOD``).
    args : list of Symbols
        The arguments of ``accelerations``.
    accelerations : dict
        {q̈: expression}.

    Returns
    -------
    str
        The module's source; it imports only ``math``.
    """
    for a in args:
        if not isinstance(a, sp.Symbol):
            raise InputError(f"generated code: arguments must be symbols, got {a!r}")
    rename = {a: _safe_arg(a.name) for a in args}
    if len(set(rename.values())) != len(rename):
        raise InputError(f"generated code: argument names collide after renaming: {sorted(rename.values())}")
    syms = {a: sp.Symbol(n) for a, n in rename.items() if n != a.name}
    pr = _Printer({"fully_qualified_modules": True})
    lines = [
        f'"""{title}"""',
        "",
        f"import math as {_MATH_ALIAS}",
        "",
        f"SYSTEM = {str(system)!r}",
        f"METHOD = {str(method)!r}",
        "",
        "",
        f"def accelerations({', '.join(rename.values())}):",
        '    """Return {name: value} of every acceleration at the given state (arguments in the order of',
        "    the signature: time, coordinates, velocities, parameters).\"\"\"",
        "    return {",
    ]
    for a, e in accelerations.items():
        lines.append(f"        {str(a)!r}: {pr.doprint(e.xreplace(syms))},")
    lines.append("    }")
    source = "\n".join(lines) + "\n"
    _check(source, set(rename.values()))
    return source


def _check(source: str, args: set) -> None:
    """The module is: a docstring, ``import math as …``, two string constants, one function whose
    body returns a dict and uses only its arguments, a few builtins and ``math`` functions."""
    tree = ast.parse(source)
    kinds = [type(n).__name__ for n in tree.body]
    if kinds != ["Expr", "Import", "Assign", "Assign", "FunctionDef"]:
        raise InputError(f"generated code has an unexpected structure: {kinds}")
    for node in tree.body[2:4]:
        if not (isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):
            raise InputError("generated code: a constant is not a string literal")
    fn = tree.body[4]
    for node in ast.walk(fn):
        if isinstance(node, (ast.Import, ast.ImportFrom, ast.Lambda, ast.ClassDef, ast.Global, ast.Nonlocal)):
            raise InputError("generated code contains a forbidden statement")
        if isinstance(node, ast.Name) and node.id not in args | _BUILTINS_USED | {_MATH_ALIAS}:
            raise InputError(f"generated code uses the name {node.id!r}")
        if isinstance(node, ast.Attribute) and (node.attr.startswith("_")
                                                or not (isinstance(node.value, ast.Name)
                                                        and node.value.id == _MATH_ALIAS)):
            raise InputError(f"generated code uses the attribute {node.attr!r}")
