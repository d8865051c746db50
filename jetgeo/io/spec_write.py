r"""Writing a :class:`~jetgeo.io.spec_model.Spec` as canonical TOML (:func:`to_toml`, :func:`dump`): every
expression as text that :func:`~jetgeo.io.parse.parse_expression` reads back (:func:`expr_text`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import sympy as sp

from ..geometry.coerce import as_expr

if TYPE_CHECKING:
    from .spec_model import Spec

__all__ = ["to_toml", "dump", "expr_text"]


class _SpecPrinter(sp.printing.str.StrPrinter):
    """sympy's str printer, with output that :func:`parse_expression` reads back."""

    def _print_Exp1(self, expr):
        return "exp(1)"

    def _print_Float(self, expr):  # pragma: no cover - specs hold exact numbers
        return str(sp.Rational(str(expr)))


def expr_text(e) -> str:
    """A spec-file string for ``e`` that parses back to the same expression.

    Parameters
    ----------
    e : sympy expression or number
        The expression.

    Returns
    -------
    str
        Its text in the spec-file language (:func:`~jetgeo.io.parse.parse_expression`).
    """
    return _SpecPrinter({"order": None}).doprint(as_expr(e))


def _q(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)


def _key(k: str) -> str:
    return k if k.replace("_", "").isalnum() and k.isascii() else _q(k)


def _val(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, sp.Integer):
        return str(int(v))
    if isinstance(v, list):
        return "[" + ", ".join(_val(x) for x in v) + "]"
    if isinstance(v, str):
        return _q(v)
    return _q(expr_text(v))


def to_toml(spec: Spec) -> str:
    """The spec as canonical TOML text; ``load_spec(to_toml(s))`` rebuilds the same objects.

    Parameters
    ----------
    spec : Spec
        The spec.

    Returns
    -------
    str
        The TOML text.
    """
    Y = spec.Y
    lines = []
    for k, v in (("name", spec.name), ("title", spec.title), ("source", spec.reference),
                 ("description", spec.description)):
        if v:
            lines.append(f"{k} = {_q(v)}")
    lines += ["", "[coordinates]", f"q = {_val([str(s) for s in Y.q])}", f"time = {_q(str(Y.t))}"]
    if Y.autonomous:
        lines.append("autonomous = true")
    if spec.parameters:
        lines += ["", "[parameters]"]
        for s in spec.parameters:
            lines.append(f"{_key(s.name)} = {_val(list(spec.assumptions.get(s.name, [])))}")
    lines += ["", "[lagrangian]"]
    S = spec.system
    if S.kinetic_energy is not None:
        lines.append(f"T = {_val(S.kinetic_energy)}")
        if S.potential_energy != 0:
            lines.append(f"V = {_val(S.potential_energy)}")
    else:
        lines.append(f"L = {_val(S.L)}")
    if any(a != 0 for a in S.forces):
        lines.append("forces = [" + ", ".join(_val(a) for a in S.forces) + "]")
    if spec.Q is not None:
        lines += ["", "[constraints]"]
        if spec.constraint_form not in ("normal", "parametric"):
            lines.append("implicit = [" + ", ".join(_val(f) for f in spec.Q.f) + "]")
        if spec.dependent is not None and spec.constraint_form == "implicit":
            lines.append(f"dependent = {_val([str(d) for d in spec.dependent])}")
        if spec.branch is not None:
            lines.append(f"branch = {spec.branch}")
        if spec.constraint_form == "normal":
            lines += ["", "[constraints.normal]"]
            for d, g in spec.normal.items():
                lines.append(f"{_key(str(d))} = {_val(g)}")
        if spec.psi is not None:
            lines += ["", "[constraints.parametric]", f"z = {_val([str(s) for s in spec.z])}",
                      "psi = [" + ", ".join(_val(p) for p in spec.psi) + "]"]
    if spec.forces_bundle or spec.directions:
        lines += ["", "[problem]"]
        if spec.forces_bundle:
            lines.append("reaction_forces = [" + ", ".join(
                "[" + ", ".join(_val(c) for c in r) + "]" for r in spec.forces_bundle) + "]")
        if spec.directions:
            lines.append("directions_annihilator = [" + ", ".join(
                "[" + ", ".join(_val(c) for c in r) + "]" for r in spec.directions) + "]")
    if spec.initial:
        lines += ["", "[initial]"]
        for s, v in spec.initial.items():
            lines.append(f"{_key(str(s))} = {_val(v)}")
    if spec.params:
        lines += ["", "[values]"]
        for s, v in spec.params.items():
            lines.append(f"{_key(str(s))} = {_val(v)}")
    return "\n".join(lines) + "\n"


def dump(spec: Spec, path: str | Path) -> None:
    """Write :func:`to_toml` of ``spec`` to ``path``.

    Parameters
    ----------
    spec : Spec
        The spec.
    path : str or Path
        The file written (replaced if it exists).
    """
    Path(path).write_text(to_toml(spec), encoding="utf-8")
