"""The code generators of ``compile_rhs`` are classes (issue 29, item 5): one :class:`Backend` per generator, looked
up in the table :data:`BACKENDS` (as scipy's ``METHODS``), no branch on the backend's name elsewhere — a generator
added to the table is used without touching ``compile_rhs``.

Independent truth: k·sin(x) and its derivative k·cos(x) evaluated by ``math``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from jetgeo.errors import InputError
from jetgeo.numerics.compile import BACKENDS, AutoBackend, Backend, CBackend, PythonBackend, compile_rhs

x, k = sp.symbols("x k")


def test_the_table_holds_one_class_per_generator():
    assert BACKENDS == {"python": PythonBackend, "c": CBackend, "auto": AutoBackend}
    assert all(issubclass(cls, Backend) and cls.name == name for name, cls in BACKENDS.items())
    with pytest.raises(TypeError):
        Backend()  # abstract: a generator implements build


def test_an_unknown_backend_names_the_choices():
    with pytest.raises(InputError, match=r"backend must be one of \('python', 'c', 'auto'\), not 'fortran'"):
        compile_rhs([x], [x], backend="fortran")
    with pytest.raises(InputError, match="backend must be one of"):
        compile_rhs([x], [x], backend=["c"])  # not a name: no TypeError of the table lookup


def test_a_generator_added_to_the_table_is_used(monkeypatch):
    built = []

    class Recording(PythonBackend):
        name = "recording"

        def build(self, job):
            built.append((job.name, tuple(map(str, job.state)), job.jacobian))
            return super().build(job)

    monkeypatch.setitem(BACKENDS, "recording", Recording)
    f = compile_rhs([k * sp.sin(x)], [x], [k], jacobian=True, backend="recording", name="g")
    assert f(0.0, [0.3], [2.0]).tolist() == [2.0 * math.sin(0.3)]
    assert f.jacobian(0.0, [0.3], [2.0]).tolist() == [[2.0 * math.cos(0.3)]]
    # the Jacobian is compiled by the same generator
    assert built == [("g", ("x",), True), ("g_jac", ("x",), False)] and f.backend == "python"


def test_the_c_generator_refuses_vectorized_and_auto_falls_back():
    with pytest.raises(InputError, match="the C backend evaluates one point per call"):
        compile_rhs([x], [x], vectorized=True, backend="c")
    f = compile_rhs([k * sp.sin(x)], [x], [k], vectorized=True, backend="auto")
    assert f.backend == "python"
    np.testing.assert_allclose(f(0.0, [np.array([0.1, 0.2])], [2.0])[0], 2.0 * np.sin([0.1, 0.2]), rtol=1e-15)
