"""The geometry kernel: charts, differential forms, vector fields, (co)distributions
and the symbolic linear algebra (generic ranks with stated singular loci) behind them; the
exact-algebra core (determinants, solves, ranks, trigonometric reduction, sizes) is
:mod:`jetgeo.geometry.exact`; its solvers and its size measure and thresholds (the tuning knobs) are
imported from there, not from this namespace.

This layer imports nothing else of jetgeo except :mod:`jetgeo.errors` and :mod:`jetgeo.progress`.
"""

from .chart import Chart
from .distributions import Codistribution, Distribution, InvolutivityReport
from .exact import (
    RankInfo,
    det_exact,
    generic_rank,
    generic_rank_dag,
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
    "trig_reduce",
    "det_exact",
    "nullspace",
    "singular_locus",
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
