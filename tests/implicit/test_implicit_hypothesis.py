"""Property: for a positive-definite metric and full-rank affine constraints with Chetaev's forces, Theorem 2
of [Ibort et al. 1996] holds (rank F = corank D, det M^{BC} ≢ 0 — M = A W⁻¹ Aᵀ is positive definite, 4.17/4.19) and the
integrability algorithm stops at the first step with E_1 the graph of a vector field."""

import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from jetgeo import ConstraintSubmanifold, FibredManifold, LagrangianSystem, NonholonomicProblem

small = st.integers(min_value=-3, max_value=3)


@st.composite
def problems(draw):
    m = draw(st.integers(min_value=2, max_value=3))
    k = draw(st.integers(min_value=1, max_value=m - 1))
    Y = FibredManifold([f"q{i}" for i in range(m)])
    # W = BᵀB + diag(1 + q0²): positive definite, depending on q0 (a non-flat metric)
    B = sp.Matrix(m, m, lambda i, j: draw(small))
    W = B.T * B + (1 + Y.q[0] ** 2) * sp.eye(m)
    qd = sp.Matrix(Y.qdot)
    L = (qd.T * W * qd)[0] / 2 + draw(small) * Y.q[-1]
    # affine constraints A(q) q̇ + b(q) = 0 with A of full rank k: identity block plus random couplings
    rows = []
    for i in range(k):
        row = [sp.Integer(1) if j == i else (0 if j < k else draw(small) + draw(small) * Y.q[1]) for j in range(m)]
        rows.append(sp.Add(*[c * v for c, v in zip(row, Y.qdot)]) + draw(small) * Y.q[0])
    return LagrangianSystem(Y, L), ConstraintSubmanifold(Y, rows), k


@settings(max_examples=5, deadline=None)
@given(problems())
def test_theorem2_holds_and_algorithm_stops_at_first_step(data):
    sys_, Q, k = data
    P = NonholonomicProblem(sys_, Q)
    comp = P.compatibility()
    assert comp.rank_F == comp.corank_D == k
    assert comp.compatible and comp.determinant != 0
    rep = P.integrability()
    assert rep.consistent and rep.steps == 1 and rep.secondary_constraints == [] and rep.free_parameters == 0
