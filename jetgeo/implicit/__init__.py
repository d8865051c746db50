"""Implicit differential equations, Tulczyjew's triple and the non-holonomic problem
(L, C, D, F) of [Ibort et al. 1996].  Imports geometry, jets and mechanics only.
"""

from .ide import ImplicitDifferentialEquation, IntegrabilityReport
from .nonholonomic import CompatibilityReport, HamiltonianPicture, NonholonomicMotion, NonholonomicProblem
from .tulczyjew import (
    alpha,
    alpha_inverse_equations,
    beta,
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
    "alpha",
    "beta",
    "alpha_inverse_equations",
    "beta_inverse_equations",
    "hamiltonian",
    "inverse_legendre",
    "legendre_map",
    "momenta_symbols",
]
