r"""The exact-algebra core of jetgeo: one home for every exact computation on symbolic matrices.

Every layer above calls this package; nothing else in jetgeo computes a determinant, solves a
linear system over rational functions, decides a rank or reduces sin² + cos² by itself.

* :mod:`.size` — the one expression-size measure (:func:`tree_size`, counted on the DAG) and
  the named thresholds every "small enough to normalise / expand" decision uses;
* :mod:`.freeze` — function atoms (sin θ, cos θ, √x, …) frozen as independent polynomial
  generators, so that sympy's ``DomainMatrix`` works in a polynomial ring, never in EX;
* :mod:`.shadow` — exact values in F_p (p = 2⁶¹ − 1) at random points, sin and cos on the unit
  circle over F_p: a non-zero shadow *proves* an expression non-zero;
* :mod:`.det` — determinants without sympy's intermediate simplification;
* :mod:`.solve` — linear solves over rational functions whose pivots are proven non-zero by
  shadows (canonical fraction-field Gauss–Jordan, or unexpanded DAG elimination); a rank drop is
  reported only when no proven pivot exists at two random points;
* :mod:`.rank` — generic rank, pivot block and its condition;
* :mod:`.trig` — the one reduction modulo sin² + cos² − 1.
"""

from .det import det_exact
from .freeze import field_normal, field_product, fits_polynomial_domain, freeze, frozen_atoms
from .rank import RankInfo, generic_rank, generic_rank_dag, matrix_at_point
from .shadow import PRIME, free_values, mod_value, rank_mod, shadow_evaluable
from .size import (
    BOUND_EXACT_MAX_NODES,
    EXACT_SAMPLE_MAX_NODES,
    EXPAND_MAX_NODES,
    NORMALISE_MAX_NODES,
    TIDY_MAX_NODES,
    is_small,
    tree_size,
)
from .solve import FieldSolution, lu_solve_dag, solve_exact, solve_field, solve_rational, substitute_affine
from .trig import reduce_pythagorean, trig_normal_form, trig_reduce

__all__ = [
    "det_exact",
    "field_normal",
    "field_product",
    "fits_polynomial_domain",
    "freeze",
    "frozen_atoms",
    "RankInfo",
    "generic_rank",
    "generic_rank_dag",
    "matrix_at_point",
    "PRIME",
    "free_values",
    "mod_value",
    "rank_mod",
    "shadow_evaluable",
    "BOUND_EXACT_MAX_NODES",
    "EXACT_SAMPLE_MAX_NODES",
    "EXPAND_MAX_NODES",
    "NORMALISE_MAX_NODES",
    "TIDY_MAX_NODES",
    "is_small",
    "tree_size",
    "FieldSolution",
    "lu_solve_dag",
    "solve_exact",
    "solve_field",
    "solve_rational",
    "substitute_affine",
    "reduce_pythagorean",
    "trig_normal_form",
    "trig_reduce",
]
