"""jetgeo — jet-bundle geometry and dynamics of non-holonomic mechanical systems.

Layers (imports point down this list, never up): ``geometry`` ← ``jets`` ←
``mechanics`` ← ``implicit`` ← ``recipes`` ← ``numerics`` / ``io`` / ``cli``.
See ``theory/architecture.md`` (the design), ``theory/references.md`` (the
bibliography) and the other pages in ``theory/``.
"""

from . import errors
from .geometry import Chart, Codistribution, Distribution, Form, VectorField
from .implicit import ImplicitDifferentialEquation, NonholonomicProblem
from .jets import FibredManifold
from .mechanics import ConstrainedSystem, ConstraintSubmanifold, LagrangianSystem

__version__ = "0.1.0"

__all__ = [
    "errors",
    "Chart",
    "Form",
    "VectorField",
    "Distribution",
    "Codistribution",
    "FibredManifold",
    "LagrangianSystem",
    "ConstraintSubmanifold",
    "ConstrainedSystem",
    "ImplicitDifferentialEquation",
    "NonholonomicProblem",
    "__version__",
]
