"""Implicit differential equations, Tulczyjew's triple and the non-holonomic problem
(L, C, D, F) of [Ibort et al. 1996].  Imports geometry, jets and mechanics only.

The maps α and β of Tulczyjew's triple keep their short names in their module
(:func:`jetgeo.implicit.tulczyjew.alpha`, :func:`jetgeo.implicit.tulczyjew.beta`): exported here,
bare one-letter names would shadow a notebook's own.
"""

from .ide import ImplicitDifferentialEquation, IntegrabilityReport
from .nonholonomic import CompatibilityReport, HamiltonianPicture, NonholonomicMotion, NonholonomicProblem
from .tulczyjew import (
    alpha_inverse_equations,
    beta_inverse_equations,
    hamiltonian,
    inverse_legendre,
    legendre_map,
    momenta_symbols,
)

__all__ = [
    "ImplicitDifferentialEquation",
    "IntegrabilityReport",
    "NonholonomicProblem",
    "CompatibilityReport",
    "HamiltonianPicture",
    "NonholonomicMotion",
    "alpha_inverse_equations",
    "beta_inverse_equations",
    "hamiltonian",
    "inverse_legendre",
    "legendre_map",
    "momenta_symbols",
]
