"""The geometry kernel: charts, differential forms, vector fields, (co)distributions
and the symbolic linear algebra (generic ranks with stated singular loci) behind them; the
exact-algebra core (determinants, solves, ranks, trigonometric reduction, sizes) is
:mod:`jetgeo.geometry.exact`.

This layer imports nothing else of jetgeo except :mod:`jetgeo.errors`.
"""

from .chart import Chart
from .distributions import Codistribution, Distribution, InvolutivityReport
from .exact import (
    NORMALISE_MAX_NODES,
    RankInfo,
    det_exact,
    generic_rank,
    generic_rank_dag,
    lu_solve_dag,
    solve_exact,
    solve_rational,
    tree_size,
    trig_normal_form,
    trig_reduce,
)
from .forms import Form
from .linalg import nullspace, singular_locus, solve_linear
from .vectorfields import VectorField
from .zero import ZeroTest, is_zero, normalise, zero_test

__all__ = [
    "Chart",
    "Form",
    "VectorField",
    "Distribution",
    "Codistribution",
    "InvolutivityReport",
    "RankInfo",
    "generic_rank",
    "generic_rank_dag",
    "lu_solve_dag",
    "solve_exact",
    "tree_size",
    "NORMALISE_MAX_NODES",
    "trig_reduce",
    "det_exact",
    "nullspace",
    "singular_locus",
    "solve_linear",
    "solve_rational",
    "ZeroTest",
    "zero_test",
    "is_zero",
    "normalise",
    "trig_normal_form",
]
