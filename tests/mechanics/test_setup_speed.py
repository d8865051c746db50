"""The set-up a user waits for before any route (issue 28): ``constrain`` on the Whipple bicycle.

The branch of the bicycle's five velocity constraints records, as its domain, det ∂f/∂q̇^D ≠ 0.
That 5 × 5 block holds √(1 − (…)²) of the front-contact geometry: converting it to a polynomial ring
expanded every entry and then failed (sympy's EX domain), and ``factor_terms`` then walked the
2 700-node determinant twice: 1.1 s of CPU time in all.  Now the determinant is the product of
the DAG elimination's pivots at once; the conditions keep their values.
"""

from __future__ import annotations

import time

import numpy as np
import pytest
import sympy as sp

import jetgeo.geometry.exact.affine as affine
from jetgeo.geometry.exact import det_exact, det_sized


def test_det_sized_does_not_expand_radicals_of_functions(monkeypatch):
    """A 4 × 4 determinant (above Berkowitz's size) whose entries hold square roots of trigonometric
    expressions is taken on the DAG, never through the polynomial ring, and has the right value."""
    a, b, c = sp.symbols("a b c")
    s = sp.sqrt(1 - (sp.sin(a) * sp.cos(b) + sp.sin(c)) ** 2 / 4)
    M = sp.Matrix([[s, sp.cos(a), 0, 1], [sp.sin(b), s * sp.cos(c), 2, 0],
                   [1, 0, sp.cos(b) / s, sp.sin(a)], [0, 3, sp.sin(c), s + 1]])

    def no_ring(*args, **kw):
        raise AssertionError("the polynomial ring was tried on a radical of functions")

    monkeypatch.setattr(affine, "_to_ring", no_ring)
    det = det_sized(M)
    rng = np.random.default_rng(5)
    for _ in range(3):
        pt = {x: sp.Rational(int(rng.integers(-90, 90)), 61) for x in (a, b, c)}
        assert abs(sp.N((det - det_exact(M)).xreplace(pt), 30)) < 1e-25


def test_whipple_constrain_is_quick_and_keeps_its_condition():
    """``constrain`` on the catalogue's Whipple bicycle takes a few hundredths of a second of CPU time
    (it took 1.1 s of CPU, 4–5 s of wall time on a loaded machine: the ring conversion and two
    ``factor_terms`` of the block determinant), and the branch's domain condition is still
    det ∂f/∂q̇^D, compared with a numeric determinant at a point."""
    from jetgeo.systems import load

    entry = load("whipple_bicycle")
    t0 = time.process_time()
    cs = entry.system.constrain(entry.Q)
    spent = time.process_time() - t0
    assert spent < 0.4, f"constrain took {spent:.2f} s of CPU time"
    Q = entry.Q
    cols = [Q.Y.qdot.index(d) for d in Q.dependent]
    block = Q._jacobian.extract(list(range(Q.k)), cols)
    (cond,) = cs.nf.branch.nonzero
    syms = sorted(block.free_symbols | cond.free_symbols, key=str)
    pt = {s: sp.Float(sp.Rational(k + 3, 17), 30) for k, s in enumerate(syms)}
    want = complex(np.linalg.det(np.array(block.xreplace(pt).evalf(30), dtype=complex)))
    got = complex(cond.xreplace(pt).evalf(30))
    assert abs(want) > 1e-6  # a generic point: the comparison is not 0 = 0
    assert abs(got - want) < 1e-9 * abs(want)


if __name__ == "__main__":  # pragma: no cover
    pytest.main([__file__, "-q"])
