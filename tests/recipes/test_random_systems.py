"""Property: on random mechanical systems every recipe agrees with the core (theory/architecture.md,
'Cross-validation').

Random positive-definite metrics W = ΛᵀΛ + 1 with entries affine in a coordinate, random
quadratic potentials, a random damping force and a random affine (possibly time-dependent)
constraint of full rank (the ż coefficient is 1).
"""

from __future__ import annotations

import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from jetgeo import ConstraintSubmanifold, FibredManifold, LagrangianSystem, recipes
from jetgeo.geometry.zero import is_zero

Y = FibredManifold(["x", "y", "z"])
t = Y.t
x, y, z = Y.q
small = st.integers(-2, 2)


@st.composite
def systems(draw):
    lam = sp.zeros(3, 3)
    for i in range(3):
        for j in range(i + 1):
            lam[i, j] = draw(small) + (draw(small) * [x, y, z][draw(st.integers(0, 2))] if i != j else 0)
    W = lam.T * lam + sp.eye(3)
    v = sp.Matrix(Y.qdot)
    T = sp.expand((v.T * W * v)[0] / 2)
    V = sum((draw(small) * a * b for a in Y.q for b in Y.q), 0)
    c = sp.Rational(draw(st.integers(0, 3)), 2)
    S = LagrangianSystem.mechanical(Y, T, V=V, forces=[-c * d for d in Y.qdot])
    coeff = [draw(small) + draw(small) * y, draw(small) + draw(small) * x, sp.Integer(1)]
    f = sum((a * d for a, d in zip(coeff, Y.qdot)), 0) + draw(small) * t
    return S, ConstraintSubmanifold(Y, [f])


@settings(max_examples=6)
@given(systems())
def test_recipes_agree_on_random_systems(case):
    S, Q = case
    ref = recipes.krupkova(S, Q)
    for name in ("lagrange_multipliers", "benenti_second_kind", "maggi", "gibbs_appell", "hamel"):
        M = recipes.RECIPES[name](S, Q)
        assert recipes.equivalent(ref, M), name
    # tangency: d/dt f = 0 along the accelerations, on Q
    acc = ref.accelerations()
    g = ref.substitution
    f = Q.f[0]
    assert is_zero(Y.total_derivative(f).xreplace(acc).xreplace(g))
