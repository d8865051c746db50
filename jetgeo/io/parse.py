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
4. limits: text length, node count, nesting depth, size of exponents (|n| ≤ 100
   for numeric exponents, every number inside a symbolic exponent likewise) and of
   numeric results (at most 1000 decimal digits), so ``10**10**10`` is refused
   in microseconds instead of running out of memory.

Errors are :class:`jetgeo.errors.SpecError` whose message names the place
(``where``, e.g. ``"skate.toml: [lagrangian] L"``) and the offending part.
"""

from __future__ import annotations

import ast
import math
import re
import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import sympy as sp

from ..errors import SpecError

__all__ = ["parse_expression", "FUNCTIONS", "CONSTANTS", "Limits", "check_name", "RESERVED"]


@dataclass(frozen=True)
class Limits:
    """Resource limits of the expression parser."""

    max_length: int = 20_000
    max_nodes: int = 5_000
    max_depth: int = 60
    max_exponent: int = 100
    max_digits: int = 1_000
    max_literal_digits: int = 60


DEFAULT_LIMITS = Limits()


def _abs(x):
    return sp.Abs(x)


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
    "sign": (sp.sign, (1,)),
}

#: constant names (usable unless the spec declares a symbol of that name, which is refused)
CONSTANTS: dict = {"pi": sp.pi}

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
    """Validate a name to be declared as a symbol: an identifier, not reserved, no leading '_'."""
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
    """
    if isinstance(text, bool):
        raise SpecError(f"{where}: expected an expression, got the boolean {text!r}")
    if isinstance(text, int):
        if len(str(abs(text))) > limits.max_literal_digits:
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
    if _bracket_depth(text) > limits.max_depth:
        raise SpecError(f"{where}: brackets nested deeper than {limits.max_depth} levels")
    if _SIGN_RUN.search(text):
        raise SpecError(f"{where}: more than {_MAX_SIGNS} consecutive signs in {_snippet(text)!r}")
    try:
        with warnings.catch_warnings():  # e.g. "invalid decimal literal" for 1e3x: the error below says it
            warnings.simplefilter("ignore")
            tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        msg = exc.msg if hasattr(exc, "msg") else str(exc)
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
        expr = builder.build(tree.body, 0)
    except RecursionError:
        raise SpecError(f"{where}: expression nested too deeply") from None
    if expr.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
        raise SpecError(f"{where}: {_snippet(text)!r} is not finite (division by zero?)")
    if expr.has(sp.I):
        raise SpecError(f"{where}: {_snippet(text)!r} is not real (it contains the imaginary unit)")
    return expr


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
            spine = []
            cur: ast.AST = node
            while isinstance(cur, ast.BinOp) and type(cur.op) in _CHAIN:
                spine.append(cur)
                cur = cur.left
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
            if v.bit_length() > self.limits.max_literal_digits * 4:
                raise self.fail(node, f"number with more than {self.limits.max_literal_digits} digits")
            return sp.Integer(v)
        if not math.isfinite(v):
            raise self.fail(node, "number is not finite")
        # the literal as written, as an exact decimal
        seg = ast.get_source_segment(self.text, node) or repr(v)
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
