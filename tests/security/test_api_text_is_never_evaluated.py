"""Text given to the Python API is never evaluated (``sympify`` of a string runs ``eval``).

Every public entry point that takes an expression goes through
:func:`jetgeo.geometry.coerce.as_expr` / ``as_matrix``, which refuse text with an
:class:`~jetgeo.errors.InputError`; a canary proves that nothing ran.
"""

from __future__ import annotations

import ast
import builtins
import pathlib

import pytest
import sympy as sp

import jetgeo
from jetgeo import ConstraintSubmanifold, FibredManifold, LagrangianSystem, NonholonomicProblem
from jetgeo.errors import InputError
from jetgeo.geometry import Chart, Form, VectorField, det_exact, generic_rank
from jetgeo.geometry.coerce import as_expr, as_matrix, as_symbol
from jetgeo.geometry.exact import lu_solve_dag, solve_square

PAYLOAD = "__import__('builtins').__setattr__('JETGEO_CANARY', 1) or x"


@pytest.fixture(autouse=True)
def _no_canary():
    if hasattr(builtins, "JETGEO_CANARY"):
        delattr(builtins, "JETGEO_CANARY")
    yield
    assert not hasattr(builtins, "JETGEO_CANARY"), "text given to the API was executed"


def _skate():
    Y = FibredManifold(["x", "y", "theta"])
    xd, yd, _ = Y.qdot
    return Y, LagrangianSystem(Y, (xd**2 + yd**2) / 2 + Y.qdot[2] ** 2 / 2)


def _calls():
    Y, S = _skate()
    x, y, th = Y.q
    xd, yd, thd = Y.qdot
    Q = ConstraintSubmanifold(Y, [xd * sp.sin(th) - yd * sp.cos(th)])
    C = Chart(["x", "y"])
    return {
        "LagrangianSystem L": lambda: LagrangianSystem(Y, PAYLOAD),
        "LagrangianSystem forces": lambda: LagrangianSystem(Y, xd**2, forces=[PAYLOAD, 0, 0]),
        "LagrangianSystem forces dict": lambda: LagrangianSystem(Y, xd**2, forces={x: PAYLOAD}),
        "ConstraintSubmanifold": lambda: ConstraintSubmanifold(Y, [PAYLOAD]),
        "from_normal_form value": lambda: ConstraintSubmanifold.from_normal_form(Y, {yd: PAYLOAD}),
        "parametric psi": lambda: ConstraintSubmanifold.parametric(Y, [PAYLOAD, 0, 0], [sp.Symbol("z1")]),
        "NonholonomicProblem forces": lambda: NonholonomicProblem(S, Q, forces=[[PAYLOAD] * 6]),
        "NonholonomicProblem permitted": lambda: NonholonomicProblem(S, Q, permitted=[[PAYLOAD] * 6]),
        "total derivative": lambda: Y.total_derivative(PAYLOAD),
        "VectorField components": lambda: VectorField(C, [PAYLOAD, 0]),
        "VectorField applied": lambda: VectorField(C, [1, 0])(PAYLOAD),
        "Form.function": lambda: Form.function(C, PAYLOAD),
        "Chart.d": lambda: C.d(PAYLOAD),
        "form times text": lambda: C.d(C.coords[0]) * PAYLOAD,
        "Form.subs": lambda: C.d(C.coords[0] * C.coords[1]).subs(C.coords[0], PAYLOAD),
        "VectorField.subs": lambda: VectorField(C, [C.coords[1], 0]).subs({"y": PAYLOAD}),
        "generic_rank": lambda: generic_rank([[PAYLOAD, 1], [0, 1]]),
        "det_exact": lambda: det_exact([[PAYLOAD]]),
        "solve_square": lambda: solve_square([[PAYLOAD]], [1], "payload"),
        "lu_solve_dag": lambda: lu_solve_dag([[PAYLOAD]], [[1]]),
        "zero_test": lambda: jetgeo.geometry.zero_test(PAYLOAD),
        "normalise": lambda: jetgeo.geometry.normalise(PAYLOAD),
    }


@pytest.mark.parametrize("name", sorted(_calls()))
def test_text_in_an_expression_slot_is_refused_and_not_run(name):
    with pytest.raises(InputError, match="never evaluates text"):
        _calls()[name]()


def test_coercion_keeps_numbers_and_expressions_and_refuses_the_rest():
    x = sp.Symbol("x")
    assert as_expr(3) == 3 and as_expr(0.25) == sp.Float(0.25) and as_expr(x + 1) == x + 1
    assert as_matrix([[1, x], [0, 2]]) == sp.Matrix([[1, x], [0, 2]])
    assert as_symbol("x", [x]) is x
    for bad in (float("nan"), float("inf"), 1j, True, None, object()):
        with pytest.raises(InputError):
            as_expr(bad)
    with pytest.raises(InputError, match="unknown name 'zzz'"):
        as_symbol("zzz", [x])
    with pytest.raises(InputError, match="not a name"):
        as_symbol("a b")


def test_names_are_still_accepted_where_a_name_is_meant():
    """``dependent=["xdot"]``: a string that is a name is looked up, not evaluated."""
    Y, S = _skate()
    th = Y.q[2]
    xd, yd, _ = Y.qdot
    Q = ConstraintSubmanifold(Y, [xd * sp.sin(th) - yd * sp.cos(th)], dependent=["ydot"])
    assert Q.dependent == (yd,)
    with pytest.raises(InputError, match="unknown name"):
        _ = ConstraintSubmanifold(Y, [xd * sp.sin(th) - yd * sp.cos(th)], dependent=["zzz"]).dependent


def test_the_library_never_calls_sympify_outside_the_coercion_module():
    """One door: ``sympify`` (and ``S(...)``/``parse_expr``) appear only in geometry/coerce.py."""
    root = pathlib.Path(jetgeo.__file__).parent
    offenders = []
    for path in root.rglob("*.py"):
        if path.name == "coerce.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                f = node.func
                name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
                if name in {"sympify", "parse_expr", "S"}:
                    offenders.append(f"{path.relative_to(root)}:{node.lineno} {name}(...)")
    assert offenders == []
