"""The geometry kernel: charts, differential forms, vector fields, (co)distributions
and the symbolic linear algebra (generic ranks with stated singular loci) behind them.

This layer imports nothing else of jetgeo except :mod:`jetgeo.errors`.
"""

from .chart import Chart
from .dag import lu_solve_dag
from .distributions import Codistribution, Distribution, InvolutivityReport
from .forms import Form
from .linalg import (
    RankInfo,
    det_exact,
    generic_rank,
    generic_rank_dag,
    nullspace,
    singular_locus,
    solve_linear,
    solve_rational,
)
from .vectorfields import VectorField
from .zero import ZeroTest, is_zero, normalise, trig_normal_form, zero_test

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
