"""jetgeo — jet-bundle geometry and dynamics of non-holonomic mechanical systems.

Layers (imports point down this list, never up): ``errors`` / ``version`` ← ``limits`` /
``progress`` ← ``geometry`` ← ``jets`` ← ``mechanics`` ← ``implicit`` ← ``recipes`` ←
``numerics`` / ``systems`` / ``testing`` ← ``io`` / ``demo`` ← ``cli``; the contract is
``[tool.importlinter]`` in ``pyproject.toml``.  This root imports from several layers, so no
module of a layer imports it (the version is in :mod:`jetgeo.version`).
See ``theory/architecture.md`` (the design), ``theory/references.md`` (the
bibliography) and the other pages in ``theory/``.
"""

import importlib

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

#: names a notebook reaches for, imported on first use (PEP 562) so that ``import jetgeo`` stays cheap
#: and loads neither numpy nor scipy: {name: (module, attribute or None for the module itself)}
_LAZY = {
    "systems": ("jetgeo.systems", None),
    "recipes": ("jetgeo.recipes", None),
    "numerics": ("jetgeo.numerics", None),
    "load": ("jetgeo.systems", "load"),
    "simulate": ("jetgeo.numerics", "simulate"),
    "equivalent": ("jetgeo.recipes", "equivalent"),
    "linearise": ("jetgeo.mechanics", "linearise"),
    "linearize": ("jetgeo.mechanics", "linearise"),  # the spelling of sympy.physics.mechanics users
}


def __getattr__(name: str):
    """The lazily imported names of :data:`_LAZY` (``jetgeo.simulate``, ``jetgeo.systems``, …)."""
    if name not in _LAZY:
        raise AttributeError(f"module 'jetgeo' has no attribute {name!r}")
    module, attr = _LAZY[name]
    mod = importlib.import_module(module)
    value = mod if attr is None else getattr(mod, attr)
    globals()[name] = value
    return value


def __dir__() -> list:
    return sorted([*globals(), *_LAZY])

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
    *_LAZY,
]
