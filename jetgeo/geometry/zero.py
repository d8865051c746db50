r"""Deciding whether a symbolic expression vanishes identically: the public path of the zero test.

The zero test lives in the exact core, :mod:`jetgeo.geometry.exact.zero` (three tiers: cheap exact
normalisation, exact evaluation at random points with the Schwartz–Zippel bound [Schwartz 1980],
[Zippel 1979], a proof modulo sin² + cos² − 1); the core's solves decide their pivots with it, so it
sits beside them rather than above them (no import cycle).  This module keeps the names where
callers and users import them from.

Examples
--------
>>> import sympy as sp
>>> from jetgeo.geometry.zero import is_zero
>>> t = sp.Symbol("t")
>>> is_zero(sp.sin(t)**2 + sp.cos(t)**2 - 1)
True
"""

from __future__ import annotations

from .exact.zero import PointSampler, ZeroTest, canonical_forms, is_zero, normalise, zero_test, zero_tests

# helpers of the zero test importable from here as before the move (the core's rank and tests use them)
from .exact.zero import angles_of as angles_of
from .exact.zero import evaluate as evaluate
from .exact.zero import normalise_if_small as normalise_if_small
from .exact.zero import substitute as substitute
from .exact.zero import substitution as substitution
from .exact.zero import to_fraction as to_fraction

__all__ = [
    "ZeroTest",
    "zero_test",
    "zero_tests",
    "is_zero",
    "normalise",
    "canonical_forms",
    "PointSampler",
]
