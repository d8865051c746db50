"""jetgeo — jet-bundle geometry and dynamics of non-holonomic mechanical systems.

Layers (imports point down this list, never up): ``errors`` / ``version`` ← ``limits`` /
``progress`` ← ``geometry`` ← ``jets`` ← ``mechanics`` ← ``implicit`` ← ``recipes`` ←
``numerics`` / ``systems`` / ``testing`` ← ``io`` / ``demo`` ← ``cli``; the contract is
``[tool.importlinter]`` in ``pyproject.toml``.  This root imports from several layers, so no
module of a layer imports it (the version is in :mod:`jetgeo.version`).
See ``theory/architecture.md`` (the design), ``theory/references.md`` (the
bibliography) and the other pages in ``theory/``.
"""

from . import errors
from .geometry import Chart, Codistribution, Distribution, Form, VectorField
from .implicit import ImplicitDifferentialEquation, NonholonomicProblem
from .io.sympy_import import from_mechanics
from .jets import FibredManifold
from .mechanics import (
    ConstrainedSystem,
    ConstraintSubmanifold,
    LagrangianSystem,
    QuasiVelocities,
    QuasiVelocitySystem,
)
from .version import __version__

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
    "QuasiVelocities",
    "QuasiVelocitySystem",
    "ImplicitDifferentialEquation",
    "NonholonomicProblem",
    "from_mechanics",
    "__version__",
]
