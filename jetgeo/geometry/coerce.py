r"""The one door through which outside values become sympy objects.

Every public function of jetgeo that takes an expression or a name calls :func:`as_expr` or
:func:`as_symbol` instead of ``sympy.sympify``.  ``sympify`` of a *string* runs Python's
``eval`` (sympy's ``parse_expr``), so ``LagrangianSystem(Y, "__import__('os').system(...)")``
would execute the text.  Here:

* sympy objects, and objects that define ``_sympy_`` (a 0-form, say), pass unchanged;
* Python and NumPy numbers become sympy numbers (a non-finite float is refused);
* **text is never evaluated**: :func:`as_expr` refuses it and names the safe alternative
  (build the expression from the chart's symbols, or parse text with
  :func:`jetgeo.io.parse_expression`, the whitelisting parser of the spec files);
  :func:`as_symbol` accepts a string only as a *name* — an identifier, looked up among the
  symbols the caller knows;
* anything else is refused with :class:`~jetgeo.errors.InputError` (``sympify`` in strict mode:
  no conversion through ``str``).

>>> import sympy as sp
>>> x = sp.Symbol("x")
>>> as_expr(2 * x), as_expr(0.5), as_symbol("x", [x]) is x
(2*x, 0.500000000000000, True)
>>> as_expr("x + 1")
Traceback (most recent call last):
...
jetgeo.errors.InputError: expression: got the text 'x + 1'; jetgeo never evaluates text. ...
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

import sympy as sp

from ..errors import DegreeError, InputError

__all__ = ["as_expr", "as_exprs", "as_matrix", "as_substitution", "as_symbol", "check_assumptions",
           "respects_assumptions", "SIGN_ASSUMPTIONS"]

#: the assumptions of a symbol that a number can contradict, and the test of each
SIGN_ASSUMPTIONS = {
    "positive": lambda v: v > 0, "negative": lambda v: v < 0, "nonnegative": lambda v: v >= 0,
    "nonpositive": lambda v: v <= 0, "nonzero": lambda v: v != 0, "integer": lambda v: v % 1 == 0,
}

_TEXT_ADVICE = (
    "jetgeo never evaluates text. Build the expression from sympy symbols (e.g. Y.q, Y.qdot, "
    "sympy.symbols('m g')), or parse text safely with jetgeo.io.parse_expression(text, names)"
)


def _short(value: object, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def as_expr(value: object, what: str = "expression") -> sp.Basic:
    """``value`` as a sympy object, without ever evaluating text.

    Parameters
    ----------
    value : object
        A sympy object (returned as it is), a Python int, Fraction or finite float, or anything
        ``sympify(strict=True)`` converts exactly.
    what : str
        Names the argument in the error message (e.g. ``"constraint 2"``).

    Returns
    -------
    sympy.Basic
        The value as a sympy object.

    Raises
    ------
    InputError
        For strings, booleans, non-finite or complex Python numbers and objects sympy has no exact
        conversion for.
    """
    if isinstance(value, sp.Basic):
        return value
    if isinstance(value, (str, bytes)):
        raise InputError(f"{what}: got the text {_short(value)}; {_TEXT_ADVICE}")
    if isinstance(value, bool):
        raise InputError(f"{what}: got the boolean {value!r}, expected an expression or a number")
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"{what}: the number {value!r} is not finite")
    if isinstance(value, complex):
        raise InputError(f"{what}: got the complex number {value!r}; jetgeo works over the reals")
    try:
        out = sp.sympify(value, strict=True)
    except DegreeError:  # a k-form (k > 0) where a function is expected: its own words say so
        raise
    except (sp.SympifyError, TypeError, ValueError) as exc:
        raise InputError(
            f"{what}: expected a sympy expression or a number, got {type(value).__name__} {_short(value)}"
        ) from exc
    if out.is_Number and not out.is_finite:
        raise InputError(f"{what}: the number {_short(value)} is not finite")
    return out


def as_exprs(values: Iterable, what: str = "expression") -> tuple:
    """:func:`as_expr` of each item; the error names the item's position (``what 2``).

    Parameters
    ----------
    values : iterable
        The items (not a string).
    what : str
        Names the items in the error message, numbered from 1.

    Returns
    -------
    tuple of sympy.Basic
        The items as sympy objects, in order.
    """
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise InputError(f"{what}: expected a list of expressions, got {type(values).__name__} {_short(values)}")
    return tuple(as_expr(v, f"{what} {i + 1}") for i, v in enumerate(values))


def as_symbol(value: object, among: Iterable | None = None, what: str = "name") -> sp.Symbol:
    """A symbol given as a sympy ``Symbol`` or by its name.

    A string must be an identifier; with ``among`` it is looked up by name among those symbols
    (an unknown name is an error that lists the known ones), without ``among`` it becomes a plain
    ``Symbol``.  A ``Symbol`` given with ``among`` must be one of them.

    Parameters
    ----------
    value : str or sympy.Symbol
        The symbol or its name (an ASCII identifier).
    among : iterable of Symbol, optional
        The symbols a name is looked up among.
    what : str
        Names the argument in the error message.

    Returns
    -------
    sympy.Symbol
        The symbol of ``among`` with that name, or a plain ``Symbol`` without ``among``.
    """
    known = None if among is None else {s.name: s for s in among if isinstance(s, sp.Symbol)}
    if isinstance(value, str):
        if not value.isidentifier() or not value.isascii():
            raise InputError(f"{what}: {_short(value)} is not a name (letters, digits and '_', not first a digit)")
        if known is None:
            return sp.Symbol(value)
        if value not in known:
            raise InputError(f"{what}: unknown name {value!r}; known names: {', '.join(sorted(known)) or 'none'}")
        return known[value]
    if isinstance(value, sp.Symbol):
        if known is not None and known.get(value.name) != value:
            raise InputError(f"{what}: {value} is not one of {', '.join(sorted(known)) or 'no symbols'}")
        return value
    raise InputError(f"{what}: expected a symbol or its name, got {type(value).__name__} {_short(value)}")


def as_matrix(value: object, what: str = "matrix") -> sp.Matrix:
    """A sympy ``Matrix`` from a sympy matrix, a NumPy array or nested lists, every entry through
    :func:`as_expr` (``sympy.Matrix`` itself would ``sympify`` — evaluate — text entries).

    Parameters
    ----------
    value : sympy matrix, NumPy array or nested lists
        The rows (a flat list gives a column).
    what : str
        Names the argument in the error message; an entry is named ``what[i, j]``.

    Returns
    -------
    sympy.Matrix
        A new mutable matrix of the entries.
    """
    if isinstance(value, sp.MatrixBase):
        return sp.Matrix(value)
    if hasattr(value, "tolist") and not isinstance(value, sp.Basic):  # NumPy arrays
        value = value.tolist()
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise InputError(f"{what}: expected a matrix (nested lists or a sympy Matrix), got {type(value).__name__} "
                         f"{_short(value)}")
    rows = list(value)
    if rows and all(isinstance(r, Iterable) and not isinstance(r, (str, bytes, sp.Basic)) for r in rows):
        out = [[as_expr(e, f"{what}[{i}, {j}]") for j, e in enumerate(r)] for i, r in enumerate(rows)]
        if len({len(r) for r in out}) > 1:
            raise InputError(f"{what}: rows of different lengths {[len(r) for r in out]}")
        return sp.Matrix(out)
    return sp.Matrix([as_expr(e, f"{what}[{i}]") for i, e in enumerate(rows)])


def as_substitution(*args: object) -> list:
    """The arguments of a ``subs`` call — ``(old, new)``, a mapping or pairs — as a list of
    ``(old, new)`` pairs of sympy objects; an ``old`` given as a string is a name
    (:func:`as_symbol`), a ``new`` given as text is refused (:func:`as_expr`).

    Parameters
    ----------
    *args : object
        ``(old, new)``, one mapping {old: new} or one iterable of pairs.

    Returns
    -------
    list of (sympy.Basic, sympy.Basic)
        The pairs, in the order given.
    """
    from collections.abc import Mapping

    if len(args) == 2:
        pairs = [tuple(args)]
    elif len(args) == 1 and isinstance(args[0], Mapping):
        pairs = list(args[0].items())
    elif len(args) == 1 and isinstance(args[0], Iterable) and not isinstance(args[0], (str, bytes)):
        pairs = [tuple(p) for p in args[0]]
    else:
        raise InputError(f"subs: give (old, new), a mapping or a list of pairs; got {_short(args)}")
    out = []
    for p in pairs:
        if len(p) != 2:
            raise InputError(f"subs: {_short(p)} is not an (old, new) pair")
        old, new = p
        old = as_symbol(old, what="subs") if isinstance(old, str) else as_expr(old, "subs: old")
        out.append((old, as_expr(new, f"subs: value for {old}")))
    return out


def check_assumptions(values: Mapping, who: str) -> None:
    """Refuse a numerical value that contradicts its symbol's declared sign assumptions (the check of
    :func:`respects_assumptions` for ``simulate`` and ``linearise``, which take values as a dict).

    Parameters
    ----------
    values : Mapping
        {Symbol: value}; symbolic values and keys that are not symbols are skipped.
    who : str
        The caller, named in the message.

    Returns
    -------
    None
        Raises :class:`~jetgeo.errors.InputError` naming the parameter, its value and the assumption.

    Examples
    --------
    >>> m = sp.Symbol("m", positive=True)
    >>> check_assumptions({m: 2.0}, "simulate")
    >>> check_assumptions({m: -1}, "simulate")
    Traceback (most recent call last):
    ...
    jetgeo.errors.InputError: simulate: the parameter m = -1 contradicts its assumption 'positive'
    """
    for sym, v in values.items():
        if not isinstance(sym, sp.Symbol):
            continue
        try:
            x = float(v)
        except (TypeError, ValueError):
            continue  # a symbolic value: nothing to check
        broken = [name for name, test in SIGN_ASSUMPTIONS.items() if sym.assumptions0.get(name) is True and not test(x)]
        if broken:
            raise InputError(f"{who}: the parameter {sym} = {x:g} contradicts its assumption {broken[0]!r}")


def respects_assumptions(sym: sp.Symbol, values):
    """Whether numerical values of ``sym`` satisfy the assumptions it carries (positive, negative,
    nonnegative, nonpositive, nonzero, integer): the one check of a value against a parameter's
    declaration, for a spec's ``[values]``, ``jetgeo sweep --param`` and
    :func:`~jetgeo.numerics.ensemble` alike (a mass m = −1 turns the cos of a motion into a cosh).

    Parameters
    ----------
    sym : sympy.Symbol
        The parameter, with its assumptions.
    values : float, or a NumPy array of floats (compared elementwise)
        The values; NaN satisfies no assumption.

    Returns
    -------
    bool, or a boolean array of the shape of ``values``.

    Examples
    --------
    >>> m = sp.Symbol("m", positive=True)
    >>> respects_assumptions(m, 2.0), respects_assumptions(m, -1.0)
    (True, False)
    """
    ok = True
    for name, test in SIGN_ASSUMPTIONS.items():
        if sym.assumptions0.get(name) is True:
            ok = ok & test(values)
    return ok
