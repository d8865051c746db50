r"""Safe parsing of mathematical expressions from specification files.

Text from a spec file is **never** given to ``eval``, ``exec`` or ``sympify``.
Instead:

1. cheap pre-checks on the raw text (type, length, bracket nesting depth), so
   that pathological input is rejected before Python's parser sees it;
2. ``ast.parse(text, mode="eval")`` builds a syntax tree (parsing executes
   nothing);
3. the tree is validated against a whitelist while the sympy expression is built
   from it node by node: numeric literals (int and float; floats are read as exact
   decimals, ``0.5`` → 1/2), declared names, ``+ - * / **``, unary ``-``/``+``,
   and calls ``f(a, ...)`` of a fixed table of mathematical functions with their
   arity.  Everything else — attribute access, subscripts, ``lambda``,
   comprehensions, keywords, strings, names starting with ``_`` — is refused.
4. limits: text length, node count, nesting depth, number literals (at most 60
   significant digits and a decimal exponent of at most 308 in absolute value, the range of
   floating-point numbers, checked on the literal's text before any number is built, so
   ``1e-999999999`` is refused at once instead of building a Rational of 10⁹ digits), size
   of exponents (|n| ≤ 100 for numeric exponents, every number inside a symbolic exponent
   likewise) and of numeric results (at most 1000 decimal digits), so ``10**10**10`` is
   refused in microseconds instead of running out of memory;
5. before any sympy object is built, a static estimate on the syntax tree of the size of the
   expression once expanded (the number of terms, at most 10 000: ``(a + b + … + g)**100``
   would have 1.6·10⁹) and of its polynomial degree (at most 32: ``ydot**100``), the
   quantities that decide what expanding, differentiating and solving will cost;
6. after building, every constant sub-expression is evaluated in floating point, bounded:
   ``exp(exp(exp(100)))`` is refused as too large instead of being evaluated to thousands of
   digits, ``acos(2)`` as not real.

Text may hold only ASCII characters (Python reads ``ｘ`` as ``x``, silently) and no ``#``
(Python would read the rest as a comment, silently).  ``abs``/``Abs``/``sign`` are the real
functions of :mod:`jetgeo.geometry.realfunctions` (their derivatives exist for real arguments).

Errors are :class:`jetgeo.errors.SpecError` whose message names the place
(``where``, e.g. ``"skate.toml: [lagrangian] L"``) and the offending part.
"""

from __future__ import annotations

import ast
import io
import math
import re
import tokenize
import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import sympy as sp

from ..errors import SpecError
from ..geometry.realfunctions import Abs as RealAbs
from ..geometry.realfunctions import sign as RealSign

__all__ = ["parse_expression", "FUNCTIONS", "CONSTANTS", "Limits", "check_name", "RESERVED", "evaluate_constant"]


@dataclass(frozen=True)
class Limits:
    """Resource limits of the expression parser.

    Every limit bounds the work a hostile or mistaken spec file can cause before any sympy object
    is built; exceeding one is a :class:`~jetgeo.errors.SpecError` naming it.

    Attributes
    ----------
    max_length : int, default 20000
        Characters of one expression.
    max_nodes : int, default 5000
        Nodes of its Python syntax tree.
    max_depth : int, default 60
        Nesting depth of brackets and of the syntax tree.
    max_exponent : int, default 100
        The largest integer exponent of a power (x**100).
    max_digits : int, default 1000
        Digits of the rational operands of one arithmetic step while parsing (numbers are
        folded exactly, so the size of a product is bounded before it is formed).
    max_literal_digits : int, default 60
        Significant digits of a number literal.
    max_literal_exponent : int, default 308
        The decimal exponent |e| of a literal d.dd…·10^e (the range of a double).
    max_terms : int, default 10000
        Terms an expanded polynomial may reach (estimated before expanding).
    max_degree : int, default 32
        Its total degree.
    """

    max_length: int = 20_000
    max_nodes: int = 5_000
    max_depth: int = 60
    max_exponent: int = 100
    max_digits: int = 1_000
    max_literal_digits: int = 60
    max_literal_exponent: int = 308
    max_terms: int = 10_000
    max_degree: int = 32


DEFAULT_LIMITS = Limits()


def _abs(x):
    return RealAbs(x)


#: name → (sympy constructor, allowed numbers of arguments)
FUNCTIONS: dict = {
    "sin": (sp.sin, (1,)),
    "cos": (sp.cos, (1,)),
    "tan": (sp.tan, (1,)),
    "cot": (sp.cot, (1,)),
    "sec": (sp.sec, (1,)),
    "csc": (sp.csc, (1,)),
    "asin": (sp.asin, (1,)),
    "acos": (sp.acos, (1,)),
    "atan": (sp.atan, (1,)),
    "atan2": (sp.atan2, (2,)),
    "sinh": (sp.sinh, (1,)),
    "cosh": (sp.cosh, (1,)),
    "tanh": (sp.tanh, (1,)),
    "asinh": (sp.asinh, (1,)),
    "acosh": (sp.acosh, (1,)),
    "atanh": (sp.atanh, (1,)),
    "exp": (sp.exp, (1,)),
    "log": (sp.log, (1, 2)),
    "sqrt": (sp.sqrt, (1,)),
    "cbrt": (sp.cbrt, (1,)),
    "abs": (_abs, (1,)),
    "Abs": (_abs, (1,)),
    "sign": (RealSign, (1,)),
}

#: constant names (usable unless the spec declares a symbol of that name, which is refused)
CONSTANTS: dict = {"pi": sp.pi}

#: undeclared names that sympy (or Python) would read as a non-real or infinite constant
_NOT_REAL = {"I": "the imaginary unit", "j": "the imaginary unit", "oo": "infinity", "inf": "infinity",
             "zoo": "complex infinity", "nan": "not a number"}

#: names a spec may not declare as symbols
RESERVED = frozenset(FUNCTIONS) | frozenset(CONSTANTS)

_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**"}
_CHAIN = (ast.Add, ast.Sub, ast.Mult, ast.Div)
_OP_HINT = {
    ast.BitXor: "'^' (use ** for powers)",
    ast.FloorDiv: "'//' (use /)",
    ast.Mod: "'%'",
    ast.MatMult: "'@'",
    ast.LShift: "'<<'",
    ast.RShift: "'>>'",
    ast.BitOr: "'|'",
    ast.BitAnd: "'&'",
}
_NODE_NAMES = {
    ast.Attribute: "attribute access",
    ast.Subscript: "subscript",
    ast.Lambda: "lambda",
    ast.ListComp: "comprehension",
    ast.SetComp: "comprehension",
    ast.DictComp: "comprehension",
    ast.GeneratorExp: "comprehension",
    ast.IfExp: "conditional expression",
    ast.Compare: "comparison",
    ast.BoolOp: "boolean operator",
    ast.List: "list",
    ast.Tuple: "tuple",
    ast.Set: "set",
    ast.Dict: "dict",
    ast.Starred: "starred expression",
    ast.JoinedStr: "f-string",
    ast.NamedExpr: "assignment expression",
    ast.Await: "await",
    ast.Yield: "yield",
    ast.YieldFrom: "yield",
}


def check_name(name: object, where: str, what: str = "name") -> str:
    """Validate a name to be declared as a symbol: an identifier, not reserved, no leading '_'.

    Parameters
    ----------
    name : object
        The candidate name.
    where : str
        The spec location, for the error message.
    what : str
        What the name is for, for the error message.

    Returns
    -------
    str
        The name.

    Raises
    ------
    SpecError
        Not a string, not an identifier, a reserved word or a leading underscore.
    """
    import keyword

    if not isinstance(name, str):
        raise SpecError(f"{where}: {what} must be a string, got {type(name).__name__} {name!r}")
    if not name.isidentifier() or not name.isascii():
        raise SpecError(f"{where}: {what} {name!r} is not a valid name (letters, digits and '_', not first a digit)")
    if name.startswith("_"):
        raise SpecError(f"{where}: {what} {name!r} may not start with '_'")
    if keyword.iskeyword(name):
        raise SpecError(f"{where}: {what} {name!r} is a Python keyword")
    if name in RESERVED:
        raise SpecError(f"{where}: {what} {name!r} is reserved (a function or constant name)")
    return name


def _snippet(text: str, node: ast.AST | None = None, limit: int = 60) -> str:
    if node is not None:
        try:
            seg = ast.get_source_segment(text, node)
        except Exception:  # pragma: no cover - defensive
            seg = None
        if seg:
            text = seg
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


_MAX_SIGNS = 20
_SIGN_RUN = re.compile(r"(?:[-+~]\s*){" + str(_MAX_SIGNS + 1) + ",}")


def _bracket_depth(text: str) -> int:
    depth = best = 0
    for ch in text:
        if ch in "([{":
            depth += 1
            best = max(best, depth)
        elif ch in ")]}":
            depth -= 1
    return best


#: a decimal number literal as Python writes it: digits, fraction, exponent (``_`` between digits)
_DECIMAL = re.compile(r"(?P<int>[0-9_]*)(?:\.(?P<frac>[0-9_]*))?(?:[eE](?P<exp>[+-]?[0-9_]+))?")


def _literal_problem(literal: str, limits: Limits = DEFAULT_LIMITS) -> str | None:
    """What is wrong with a decimal number literal, judged on its text alone (None: nothing).

    At most ``limits.max_literal_digits`` significant digits (leading zeros do not count) and,
    written d.dd…·10^e, a decimal exponent |e| ≤ ``limits.max_literal_exponent`` (308, the range
    of floating-point numbers; above it the literal is infinite as a float).  Nothing is
    converted first: ``1e-999999999`` costs microseconds (sympy would build a Rational of 10⁹
    digits), a 5000-digit integer gets this message rather than Python's conversion limit.
    Hexadecimal, octal, binary and imaginary literals are left to the builder.
    """
    m = _DECIMAL.fullmatch(literal)
    if m is None or not literal:
        return None
    whole = m["int"].replace("_", "")
    frac = (m["frac"] or "").replace("_", "")
    significant = (whole + frac).lstrip("0")
    if len(significant) > limits.max_literal_digits:
        return f"number with more than {limits.max_literal_digits} digits"
    if not significant:
        return None  # zero, whatever its exponent
    exp_text = (m["exp"] or "0").replace("_", "")
    bound = limits.max_literal_exponent
    if len(exp_text.lstrip("+-").lstrip("0")) > len(str(bound)) + 2:  # never convert a huge exponent
        order = None
        small = exp_text.startswith("-")
    else:
        order = len(significant) - 1 - len(frac) + int(exp_text)
        small = order < 0
    if order is not None and abs(order) <= bound:
        return None
    if not small:
        return "number is not finite"  # as the float it would be
    shown = f"{order}" if order is not None else _snippet(exp_text, limit=20)
    return (f"number out of range: its decimal exponent {shown} is below -{bound} (the range of "
            "floating-point numbers)")


def _check_literals(text: str, where: str, limits: Limits) -> None:
    """Every number literal of ``text`` within the limits (:func:`_literal_problem`), checked on the
    tokens before Python's parser converts them."""
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.NUMBER:
                problem = _literal_problem(tok.string, limits)
                if problem:
                    raise SpecError(f"{where}: {problem} in {_snippet(tok.string, limit=40)!r}")
    except (tokenize.TokenError, SyntaxError):
        return  # malformed text: Python's parser reports it


def parse_expression(
    text: object,
    names: Mapping,
    where: str = "<expression>",
    limits: Limits = DEFAULT_LIMITS,
    hidden: Mapping | None = None,
) -> sp.Expr:
    """Parse ``text`` into a sympy expression using only the symbols in ``names``.

    ``names`` maps allowed names to sympy objects.  ``hidden`` maps names that
    exist in the spec but are not allowed at this place to a reason (for a clearer
    message, e.g. accelerations in a Lagrangian).  Integers and floats given as
    TOML numbers are accepted too.  Raises :class:`SpecError`.

    Parameters
    ----------
    text : str, int or float
        The expression in the spec-file language.
    names : mapping
        {allowed name: sympy object}.
    where : str
        The spec location, for the error message.
    limits : Limits
        Bounds on the text's length, nodes, nesting, exponents and digits.
    hidden : mapping, optional
        {name not allowed here: reason}.

    Returns
    -------
    sympy.Expr
        The expression, built from the allowed names only (no text is evaluated).
    """
    if isinstance(text, bool):
        raise SpecError(f"{where}: expected an expression, got the boolean {text!r}")
    if isinstance(text, int):
        if abs(text) >= 10**limits.max_literal_digits:
            raise SpecError(f"{where}: number with more than {limits.max_literal_digits} digits")
        return sp.Integer(text)
    if isinstance(text, float):
        if not math.isfinite(text):
            raise SpecError(f"{where}: the number {text!r} is not finite")
        return sp.Rational(repr(text))
    if not isinstance(text, str):
        raise SpecError(f"{where}: expected an expression (a string or a number), got {type(text).__name__}")
    if len(text) > limits.max_length:
        raise SpecError(f"{where}: expression longer than {limits.max_length} characters")
    if not text.strip():
        raise SpecError(f"{where}: empty expression")
    if "\x00" in text:
        raise SpecError(f"{where}: the expression contains a NUL character")
    bad = next((c for c in text if not c.isascii()), None)
    if bad is not None:
        raise SpecError(f"{where}: non-ASCII character {bad!r} (U+{ord(bad):04X}) at position {text.index(bad)} "
                        f"in {_snippet(text)!r}; names and operators are ASCII")
    if "#" in text:
        raise SpecError(f"{where}: '#' in {_snippet(text)!r}: an expression holds no comment "
                        "(put comments outside the quotes)")
    if _bracket_depth(text) > limits.max_depth:
        raise SpecError(f"{where}: brackets nested deeper than {limits.max_depth} levels")
    if _SIGN_RUN.search(text):
        raise SpecError(f"{where}: more than {_MAX_SIGNS} consecutive signs in {_snippet(text)!r}")
    _check_literals(text.strip(), where, limits)
    try:
        with warnings.catch_warnings():  # e.g. "invalid decimal literal" for 1e3x: the error below says it
            warnings.simplefilter("ignore")
            tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        msg = exc.msg or str(exc)
        raise SpecError(f"{where}: syntax error in {_snippet(text)!r}: {msg}") from None
    except (RecursionError, MemoryError):
        raise SpecError(
            f"{where}: expression too large or too deeply nested for the parser: {_snippet(text)!r}"
        ) from None
    except (ValueError, OverflowError) as exc:
        raise SpecError(f"{where}: cannot parse {_snippet(text)!r}: {exc}") from None
    builder = _Builder(text.strip(), names, where, limits, hidden or {})
    count = 0
    for _ in ast.walk(tree):
        count += 1
        if count > limits.max_nodes:
            raise SpecError(f"{where}: expression too large (more than {limits.max_nodes} syntax nodes)")
    try:
        _Size(text.strip(), where, limits).of(tree.body, 0)
        expr = builder.build(tree.body, 0)
    except RecursionError:
        raise SpecError(f"{where}: expression nested too deeply") from None
    if expr.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
        raise SpecError(f"{where}: {_snippet(text)!r} is not finite (division by zero?)")
    if expr.has(sp.I):
        raise SpecError(f"{where}: {_snippet(text)!r} is not real (it contains the imaginary unit)")
    _check_constants(expr, where, text)
    return expr


# --- static size estimate ---------------------------------------------------------------------------


def _chain(node: ast.BinOp) -> tuple:
    """(first operand, [the BinOp nodes of the chain, outermost first]) of a left-associated chain
    a + b - c * d / e … (without powers)."""
    spine = []
    cur: ast.AST = node
    while isinstance(cur, ast.BinOp) and type(cur.op) in _CHAIN:
        spine.append(cur)
        cur = cur.left
    return cur, spine


class _Size:
    """Upper estimates, on the syntax tree, of the expanded size and polynomial degree.

    For each node: (terms, degree) of its expansion as a polynomial in its atoms (names;
    function calls and powers with a non-integer exponent count as one atom, their arguments
    being checked on their own): a sum adds terms, a product (or quotient, brought over a common
    denominator) multiplies them, and an integer power n of a sum of T terms has at most
    C(T + n − 1, n) terms (the monomials of degree n in T variables).  Every node is checked, so
    no intermediate estimate exceeds the limits either.
    """

    def __init__(self, text: str, where: str, limits: Limits) -> None:
        self.text = text
        self.where = where
        self.limits = limits

    def check(self, node: ast.AST, terms: int, degree: int) -> tuple:
        lim = self.limits
        if terms > lim.max_terms:
            big = f"{terms:.2g}" if terms < 10**300 else "more than 1e300"
            raise SpecError(f"{self.where}: expression too large: expanded it would have about {big} terms "
                            f"(limit {lim.max_terms}) in {_snippet(self.text, node)!r}")
        if degree > lim.max_degree:
            raise SpecError(f"{self.where}: polynomial degree up to {degree} (limit {lim.max_degree}) in "
                            f"{_snippet(self.text, node)!r}")
        return terms, degree

    def of(self, node: ast.AST, depth: int) -> tuple:
        if depth > self.limits.max_depth:
            return 1, 0  # the builder reports the nesting
        d = depth + 1
        if isinstance(node, ast.Constant):
            return 1, 0
        if isinstance(node, ast.Name):
            return 1, (0 if node.id in CONSTANTS else 1)
        if isinstance(node, ast.UnaryOp):
            return self.of(node.operand, d)
        if isinstance(node, ast.Call):
            for a in node.args:
                self.of(a, d)
            return 1, 1
        if isinstance(node, ast.BinOp):
            cur, spine = _chain(node)  # left-associated chains iteratively, as the builder walks them
            if spine:
                t, g = self.of(cur, d)
                for n in reversed(spine):
                    t2, g2 = self.of(n.right, d)
                    if isinstance(n.op, (ast.Add, ast.Sub)):
                        t, g = t + t2, max(g, g2)
                    else:
                        t, g = t * t2, g + g2
                    t, g = self.check(n, t, g)
                return t, g
            if isinstance(node.op, ast.Pow):
                t, g = self.of(node.left, d)
                self.of(node.right, d)
                n = _constant_value(node.right)
                if n is None or not math.isfinite(n) or n != int(n):
                    return 1, 1  # a symbolic or fractional power is an atom
                n = abs(int(n))
                if n > self.limits.max_exponent:
                    return 1, 1  # the builder refuses it with its own message
                return self.check(node, math.comb(t + n - 1, n) if n else 1, g * n)
            self.of(node.left, d)
            self.of(node.right, d)
            return 1, 1
        return 1, 0  # refused by the builder


def _constant_value(node: ast.AST) -> float | None:
    """The value of a small constant sub-tree (numbers, + - * / and unary signs), else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        v = node.value
        if isinstance(v, int) and abs(v) >= 10**15:
            return None
        return float(v) if math.isfinite(v) else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _constant_value(node.operand)
        return None if v is None else (-v if isinstance(node.op, ast.USub) else v)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
        a, b = _constant_value(node.left), _constant_value(node.right)
        if a is None or b is None:
            return None
        try:
            v = {ast.Add: a + b, ast.Sub: a - b, ast.Mult: a * b}.get(type(node.op)) if not isinstance(
                node.op, ast.Div) else a / b
        except ZeroDivisionError:
            return None
        return v if math.isfinite(v) else None
    return None


# --- bounded evaluation of constants -------------------------------------------------------------------


class _NotReal(Exception):
    pass


class _TooLarge(Exception):
    pass


_FLOAT_FUNCS = {
    "sin": math.sin, "cos": math.cos, "tan": math.tan, "asin": math.asin, "acos": math.acos, "atan": math.atan,
    "sinh": math.sinh, "cosh": math.cosh, "tanh": math.tanh, "asinh": math.asinh, "acosh": math.acosh,
    "atanh": math.atanh, "exp": math.exp, "log": math.log,
    "cot": lambda v: 1 / math.tan(v), "sec": lambda v: 1 / math.cos(v), "csc": lambda v: 1 / math.sin(v),
    "Abs": abs, "sign": lambda v: float((v > 0) - (v < 0)),
}


def float_value(e: sp.Basic) -> float:
    """The value of a constant expression in floating point, never more: every intermediate
    result must be a finite real float.  Raises ``_TooLarge`` (overflow) or ``_NotReal`` (a
    function outside its real domain, a fractional power of a negative number); returns
    ``nan`` for an expression of a kind it does not evaluate (no claim)."""
    if e.is_Integer or e.is_Rational:
        try:
            return e.p / e.q
        except OverflowError:
            raise _TooLarge() from None
    if e.is_NumberSymbol or e is sp.E:
        return float(e)
    if e.is_Float:
        return float(e)
    if e.is_Add or e.is_Mul:
        vals = [float_value(a) for a in e.args]
        out = math.fsum(vals) if e.is_Add else math.prod(vals)
    elif e.is_Pow:
        b, x = float_value(e.args[0]), float_value(e.args[1])
        if b < 0 and x != int(x):
            raise _NotReal()
        try:
            out = math.pow(b, x)
        except OverflowError:
            raise _TooLarge() from None
        except (ValueError, ZeroDivisionError):
            raise _NotReal() from None
    elif isinstance(e, sp.Function) and type(e).__name__ in _FLOAT_FUNCS and len(e.args) == 1:
        v = float_value(e.args[0])
        name = type(e).__name__
        if name in ("asin", "acos") and 1 < abs(v) <= 1 + 1e-12:  # rounding at the domain's edge
            v = math.copysign(1.0, v)
        try:
            out = _FLOAT_FUNCS[name](v)
        except OverflowError:
            raise _TooLarge() from None
        except (ValueError, ZeroDivisionError):
            raise _NotReal() from None
    elif isinstance(e, sp.atan2):
        out = math.atan2(float_value(e.args[0]), float_value(e.args[1]))
    else:
        return math.nan
    if isinstance(out, complex):
        raise _NotReal()
    if math.isinf(out):
        raise _TooLarge()
    return out


def evaluate_constant(e: sp.Basic, where: str) -> float:
    """The float value of a constant expression, refused (SpecError naming ``where``) when it
    or an intermediate result overflows a float or is not real.  The value returned is sympy's
    correctly rounded one, computed only once the bounded evaluation has shown it to be safe.

    Parameters
    ----------
    e : sympy.Basic
        An expression without free symbols.
    where : str
        The spec location, for the error message.

    Returns
    -------
    float
        The value.
    """
    try:
        quick = float_value(e)
    except _TooLarge:
        raise SpecError(f"{where}: the value {_snippet(str(e), limit=40)} is too large (it overflows a "
                        "floating-point number)") from None
    except _NotReal:
        raise SpecError(f"{where}: the value {_snippet(str(e), limit=40)} is not a real number") from None
    try:
        out = float(e)
    except (TypeError, ValueError):
        raise SpecError(f"{where}: {_snippet(str(e), limit=40)} is not a number") from None
    if not math.isfinite(out) or (math.isnan(quick) and abs(out) > 1e300):
        raise SpecError(f"{where}: the value {_snippet(str(e), limit=40)} is not finite")
    return out


def _check_constants(expr: sp.Basic, where: str, text: str) -> None:
    """Every constant sub-expression evaluates to a finite real float (``float_value``)."""
    stack = [expr]
    while stack:
        e = stack.pop()
        if e.is_Rational or e.is_Symbol:
            continue
        if not e.free_symbols:
            try:
                float_value(e)
            except _TooLarge:
                raise SpecError(f"{where}: the constant {_snippet(str(e), limit=40)} in {_snippet(text)!r} is too "
                                "large (it overflows a floating-point number)") from None
            except _NotReal:
                raise SpecError(f"{where}: the constant {_snippet(str(e), limit=40)} in {_snippet(text)!r} is "
                                "not a real number") from None
            continue
        stack.extend(e.args)


class _Builder:
    def __init__(self, text: str, names: Mapping, where: str, limits: Limits, hidden: Mapping) -> None:
        self.text = text
        self.names = names
        self.where = where
        self.limits = limits
        self.hidden = hidden

    def fail(self, node: ast.AST, problem: str) -> SpecError:
        # a bare name is shown in the context of the whole expression
        part = _snippet(self.text, None if isinstance(node, ast.Name) else node)
        return SpecError(f"{self.where}: {problem} in {part!r}")

    def build(self, node: ast.AST, depth: int) -> sp.Expr:
        if depth > self.limits.max_depth:
            raise SpecError(
                f"{self.where}: expression nested deeper than {self.limits.max_depth} levels in {_snippet(self.text)!r}"
            )
        d = depth + 1
        if isinstance(node, ast.Constant):
            return self.constant(node)
        if isinstance(node, ast.Name):
            return self.name(node)
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.USub):
                return -self.build(node.operand, d)
            if isinstance(node.op, ast.UAdd):
                return self.build(node.operand, d)
            raise self.fail(node, f"operator {type(node.op).__name__} is not allowed")
        if isinstance(node, ast.BinOp):
            # a left-associated chain a + b - c * d / e ... is walked iteratively, so long sums
            # and products do not count as nesting; powers (right-associated) do
            cur, spine = _chain(node)
            if spine:
                acc = self.build(cur, d)
                for n in reversed(spine):
                    acc = self.binop(n, acc, self.build(n.right, d))
                return acc
            a = self.build(node.left, d)
            return self.binop(node, a, self.build(node.right, d))
        if isinstance(node, ast.Call):
            return self.call(node, d)
        kind = _NODE_NAMES.get(type(node), type(node).__name__)
        raise self.fail(node, f"{kind} is not allowed (only numbers, declared names, + - * / ** and functions)")

    def binop(self, node: ast.BinOp, a: sp.Expr, b: sp.Expr) -> sp.Expr:
        op = type(node.op)
        if op not in _BINOPS:
            raise self.fail(node, f"operator {_OP_HINT.get(op, op.__name__)} is not allowed")
        if op is ast.Add:
            return a + b
        if op is ast.Sub:
            return a - b
        if op is ast.Mult:
            return self.sized(node, a, b, lambda: a * b)
        if op is ast.Div:
            if b == 0:
                raise self.fail(node, "division by zero")
            return self.sized(node, a, b, lambda: a / b)
        return self.power(node, a, b)

    def constant(self, node: ast.Constant) -> sp.Expr:
        v = node.value
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise self.fail(node, f"the literal {v!r} is not a number")
        if isinstance(v, int):
            # 10**60 exactly (a bound on bit_length, 4 bits a digit, let 61-72 digits through)
            if abs(v) >= 10**self.limits.max_literal_digits:
                raise self.fail(node, f"number with more than {self.limits.max_literal_digits} digits")
            return sp.Integer(v)
        if not math.isfinite(v):
            raise self.fail(node, "number is not finite")
        # the literal as written, as an exact decimal (its size checked on the text: _check_literals)
        seg = ast.get_source_segment(self.text, node) or repr(v)
        problem = _literal_problem(seg, self.limits)
        if problem:
            raise self.fail(node, problem)
        if v == 0:  # zero as written (an underflow was refused above): no Rational of '0e-999999999'
            return sp.Integer(0)
        try:
            return sp.Rational(seg.replace("_", ""))
        except (TypeError, ValueError):  # pragma: no cover - defensive
            return sp.Rational(repr(v))

    def name(self, node: ast.Name) -> sp.Expr:
        n = node.id
        if n.startswith("_"):
            raise self.fail(node, f"the name {n!r} is not allowed (names may not start with '_')")
        if n in self.names:
            return self.names[n]
        if n in CONSTANTS:
            return CONSTANTS[n]
        if n in FUNCTIONS:
            raise self.fail(node, f"the function {n!r} must be called, e.g. {n}(x)")
        if n in self.hidden:
            raise self.fail(node, f"the symbol {n!r} is not allowed here ({self.hidden[n]})")
        if n in _NOT_REAL:  # sympy's names for them: I*L or oo*xdot + L would give wrong equations silently
            raise self.fail(node, f"{n!r} ({_NOT_REAL[n]}) is not allowed: an expression must be real and finite")
        known = ", ".join(sorted(map(str, self.names)))
        raise SpecError(f"{self.where}: unknown symbol {n!r} in {_snippet(self.text)!r} (declared here: {known})")

    def call(self, node: ast.Call, depth: int) -> sp.Expr:
        if not isinstance(node.func, ast.Name):
            kind = _NODE_NAMES.get(type(node.func), type(node.func).__name__)
            raise self.fail(node, f"only named functions may be called (found {kind})")
        fname = node.func.id
        if fname.startswith("_"):
            raise self.fail(node, f"the name {fname!r} is not allowed (names may not start with '_')")
        if fname not in FUNCTIONS:
            if fname in self.names or fname in CONSTANTS:
                raise self.fail(node, f"{fname!r} is not a function")
            allowed = ", ".join(sorted(FUNCTIONS))
            raise self.fail(node, f"unknown function {fname!r} (allowed: {allowed})")
        if node.keywords:
            raise self.fail(node, f"keyword arguments are not allowed in {fname}()")
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise self.fail(node, "starred arguments are not allowed")
        fn, arities = FUNCTIONS[fname]
        if len(node.args) not in arities:
            want = " or ".join(str(a) for a in arities)
            plural = "" if arities == (1,) else "s"
            raise self.fail(
                node, f"function {fname!r} takes {want} argument{plural}, got {len(node.args)}"
            )
        args = [self.build(a, depth) for a in node.args]
        if fname == "log" and len(args) == 2:
            base = args[1]
            # sympy's log(x, 0) is log(x)/zoo = 0, silently: the base must be a positive number ≠ 1
            if base.is_number and (base.is_zero or base.is_positive is False or sp.Eq(base, 1) is sp.true):
                raise self.fail(node, f"the base {_snippet(str(base), limit=20)} of log(x, base) is not a "
                                "positive number other than 1")
        r = fn(*args)
        if isinstance(r, sp.Expr) and r.is_number and not r.is_finite and r.is_finite is not None:
            raise self.fail(node, "the value is not finite")
        return r

    # --- size control -------------------------------------------------------------------
    def _digits(self, x: sp.Expr) -> float:
        """Decimal digits of the numerator/denominator of a rational number (0 otherwise)."""
        if isinstance(x, sp.Rational):
            return max(len(str(abs(x.p))), len(str(x.q)))
        return 0

    def sized(self, node: ast.AST, a: sp.Expr, b: sp.Expr, op) -> sp.Expr:
        if self._digits(a) + self._digits(b) > self.limits.max_digits:
            raise self.fail(node, f"number with more than {self.limits.max_digits} digits")
        return op()

    def power(self, node: ast.AST, a: sp.Expr, b: sp.Expr) -> sp.Expr:
        lim = self.limits.max_exponent
        if b.is_number:
            if not b.is_real:
                raise self.fail(node, "exponent is not a real number")
            try:
                big = abs(float(b)) > lim
            except (TypeError, ValueError, OverflowError):
                big = True
            if big:
                raise self.fail(node, f"exponent larger than {lim} in absolute value")
            if isinstance(b, sp.Rational) and b.q > lim:
                raise self.fail(node, f"exponent with denominator larger than {lim}")
            if a == 0 and b.is_negative:
                raise self.fail(node, "division by zero")
            if isinstance(a, sp.Rational) and isinstance(b, sp.Rational):
                est = self._digits(a) * abs(float(b))
                if est > self.limits.max_digits:
                    raise self.fail(node, f"number with more than {self.limits.max_digits} digits")
        else:
            for atom in b.atoms(sp.Number):
                if abs(float(atom)) > lim or (isinstance(atom, sp.Rational) and atom.q > lim):
                    raise self.fail(node, f"number larger than {lim} inside an exponent")
            if isinstance(a, sp.Rational) and self._digits(a) > self.limits.max_literal_digits:
                raise self.fail(node, "base too large for a symbolic exponent")
            if a.free_symbols:
                # x**y at the random rational points of the exact zero and rank tests is a rational to a
                # rational power of ~10^5: sympy evaluates it for ever (found by fuzzing)
                raise self.fail(node, f"the exponent {_snippet(str(b), limit=30)} is not a number: a variable "
                                "base to a variable power is not supported (a constant base is: exp(y), 2**y)")
        r = a**b
        # sympy combines powers of powers, (x**100)**100 = x**10000: bound the combined exponent too
        if isinstance(r, sp.Pow) and r.exp.is_number and r.exp.is_real:
            try:
                big = abs(float(r.exp)) > lim
            except (TypeError, ValueError, OverflowError):
                big = True
            if big:
                raise self.fail(node, f"combined exponent {_snippet(str(r.exp), limit=20)} larger than {lim} "
                                      "in absolute value")
        return r
