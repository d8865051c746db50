"""Property-testing toolkit: hypothesis strategies for random mechanical systems and
ready-made invariant checks for equations of motion on a constraint submanifold.

>>> from jetgeo import systems
>>> from jetgeo.testing import check_tangent
>>> sys, Q = systems.load("skate")
>>> check_tangent(sys.constrain(Q)).passed
True

The checks (:mod:`jetgeo.testing.checks`) need only jetgeo; the strategies
(:mod:`jetgeo.testing.strategies`) need ``hypothesis`` (``pip install jetgeo[test]``).
See ``theory/catalogue.md`` for a worked example.
"""

from .checks import (
    CheckReport,
    check_agree,
    check_energy_conserved,
    check_reactions_do_no_virtual_work,
    check_tangent,
    vanishes_on_points,
)

__all__ = [
    "CheckReport",
    "check_tangent",
    "check_reactions_do_no_virtual_work",
    "check_energy_conserved",
    "check_agree",
    "vanishes_on_points",
    "fibred_manifolds",
    "positive_definite_metrics",
    "potentials",
    "forces",
    "affine_constraints",
    "nonlinear_constraints",
    "mechanical_systems",
]

_STRATEGIES = {
    "fibred_manifolds",
    "positive_definite_metrics",
    "potentials",
    "forces",
    "affine_constraints",
    "nonlinear_constraints",
    "mechanical_systems",
}


def __getattr__(name: str):
    """The strategies are imported on first use, so that the checks work without hypothesis."""
    if name in _STRATEGIES:
        try:
            from . import strategies  # hypothesis, an optional dependency, only when a strategy is asked for
        except ImportError as exc:  # pragma: no cover - hypothesis is a test dependency
            raise ImportError(
                f"jetgeo.testing.{name} needs hypothesis: pip install hypothesis (or jetgeo[test])"
            ) from exc
        return getattr(strategies, name)
    raise AttributeError(f"module 'jetgeo.testing' has no attribute {name!r}")


def __dir__() -> list:
    """The checks, and the strategies (imported lazily, on first use) too."""
    return sorted(set(globals()) | _STRATEGIES)
