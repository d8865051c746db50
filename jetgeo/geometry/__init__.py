"""The geometry kernel: charts, differential forms, vector fields, (co)distributions
and the symbolic linear algebra (generic ranks with stated singular loci) behind them; the
exact-algebra core (determinants, solves, ranks, trigonometric reduction, sizes) is
:mod:`jetgeo.geometry.exact`.

This layer imports nothing else of jetgeo except :mod:`jetgeo.errors` and :mod:`jetgeo.progress`.
"""

from .chart import Chart
from .distributions import Codistribution, Distribution, InvolutivityReport
from .exact import (
    NORMALISE_MAX_NODES,
    RankInfo,
    SizeEstimate,
    det_exact,
    generic_rank,
    generic_rank_dag,
    lu_solve_dag,
    size_estimate,
    solve_exact,
    solve_rational,
    tree_size,
    trig_normal_form,
    trig_reduce,
)
from .forms import Form
from .linalg import nullspace, singular_locus
from .readable import ReadableForm, readable
from .vectorfields import VectorField
from .zero import ZeroTest, canonical_forms, is_zero, normalise, zero_test, zero_tests

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
    "size_estimate",
    "SizeEstimate",
    "NORMALISE_MAX_NODES",
    "trig_reduce",
    "det_exact",
    "nullspace",
    "singular_locus",
    "solve_rational",
    "ZeroTest",
    "zero_test",
    "zero_tests",
    "is_zero",
    "normalise",
    "canonical_forms",
    "trig_normal_form",
    "readable",
    "ReadableForm",
]
