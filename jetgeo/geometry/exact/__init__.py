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
* :mod:`.affine` — equations affine in a set of unknowns (every recipe's final solve), and
  substitution on expression DAGs;
* :mod:`.trig` — the one reduction modulo sin² + cos² − 1;
* :mod:`.dag` — substitution and free symbols on expression DAGs (each distinct node once), and
  powers of sums built without sympy's assumption queries;
* :mod:`.zero` — the zero test in three tiers (public path :mod:`jetgeo.geometry.zero`), which the
  solves above ask about their pivots' denominators.
"""

from .affine import (
    AffineSolution,
    SquareSolution,
    affine_system,
    depends_on,
    det_sized,
    diff_dag,
    free_symbols_dag,
    gradient_dag,
    matmul_dag,
    solve_affine,
    solve_cramer,
    solve_exact,
    solve_square,
    xreplace_dag,
)
from .dag import power_dag, product_dag, rename_dag
from .det import berkowitz, det_exact
from .freeze import field_normal, field_product, fits_polynomial_domain, freeze, frozen_atoms, polynomial_fractions
from .rank import RankInfo, generic_rank, generic_rank_dag, matrix_at_point
from .shadow import PRIME, free_values, mod_derivative, mod_value, rank_mod, shadow_evaluable
from .size import (
    AFFINE_CANONICAL_MAX_NODES,
    BOUND_EXACT_MAX_NODES,
    CANONICAL_MAX_NODES,
    CRAMER_GCD_MAX_TERMS,
    CSE_PREPROCESS_MAX_NODES,
    EXACT_SAMPLE_MAX_NODES,
    EXPAND_MAX_NODES,
    FRACTION_FREE_MAX_TERMS,
    FRACTION_FREE_MAX_WORK,
    NORMAL_FORM_MAX_NODES,
    NORMALISE_MAX_NODES,
    PRINT_MAX_NODES,
    TIDY_MAX_NODES,
    SizeEstimate,
    atoms_dag,
    describe,
    is_small,
    not_real_finite,
    size_estimate,
    tree_size,
    within_ops,
)
from .solve import FieldSolution, det_dag, lu_solve_dag, solve_field, solve_rational, substitute_affine
from .trig import (
    pythagorean_forms,
    reduce_pythagorean,
    reduce_pythagorean_shortest,
    trig_cancel,
    trig_normal_form,
    trig_reduce,
    trig_reduce_if_small,
)

__all__ = [
    "affine_system",
    "AffineSolution",
    "solve_affine",
    "SquareSolution",
    "solve_square",
    "solve_exact",
    "solve_cramer",
    "xreplace_dag",
    "rename_dag",
    "diff_dag",
    "gradient_dag",
    "depends_on",
    "free_symbols_dag",
    "power_dag",
    "product_dag",
    "matmul_dag",
    "berkowitz",
    "det_exact",
    "det_sized",
    "det_dag",
    "field_normal",
    "field_product",
    "fits_polynomial_domain",
    "polynomial_fractions",
    "freeze",
    "frozen_atoms",
    "RankInfo",
    "generic_rank",
    "generic_rank_dag",
    "matrix_at_point",
    "PRIME",
    "free_values",
    "mod_value",
    "mod_derivative",
    "rank_mod",
    "shadow_evaluable",
    "AFFINE_CANONICAL_MAX_NODES",
    "BOUND_EXACT_MAX_NODES",
    "CANONICAL_MAX_NODES",
    "CRAMER_GCD_MAX_TERMS",
    "CSE_PREPROCESS_MAX_NODES",
    "EXACT_SAMPLE_MAX_NODES",
    "EXPAND_MAX_NODES",
    "FRACTION_FREE_MAX_TERMS",
    "FRACTION_FREE_MAX_WORK",
    "NORMALISE_MAX_NODES",
    "NORMAL_FORM_MAX_NODES",
    "TIDY_MAX_NODES",
    "is_small",
    "atoms_dag",
    "not_real_finite",
    "tree_size",
    "SizeEstimate",
    "size_estimate",
    "describe",
    "within_ops",
    "PRINT_MAX_NODES",
    "FieldSolution",
    "lu_solve_dag",
    "solve_field",
    "solve_rational",
    "substitute_affine",
    "reduce_pythagorean",
    "reduce_pythagorean_shortest",
    "trig_normal_form",
    "trig_reduce",
    "trig_reduce_if_small",
    "trig_cancel",
    "pythagorean_forms",
]
