"""Numerics: compiled right-hand sides, simulation with constraint monitoring, plots.

Layer rule: imports geometry, jets, mechanics (and implicit); never recipes, io or cli.
matplotlib (plots) and tqdm (progress bars) are optional and imported lazily.

>>> from jetgeo.numerics import simulate          # doctest: +SKIP
>>> res = simulate(cs, (0, 10), initial={...})    # doctest: +SKIP
>>> res.plot()                                    # doctest: +SKIP
>>> ds = ensemble(cs, grid(a=[1, 2]), (0, 10))      # doctest: +SKIP
"""

from ..mechanics.linearisation import Linearisation, linearise  # the same function (mechanics is its home)
from . import plots  # matplotlib itself is imported only when a plot is made
from .compile import CompiledFunction, compile_rhs
from .ensembles import ensemble, grid, sample
from .simulation import (
    ChartConditioningWarning,
    ChartSwitch,
    EnsembleOptions,
    OrientationSwitch,
    PreparedSystem,
    SimulationOptions,
    SimulationResult,
    SimulationStoppedWarning,
    SingularEvent,
    orientation_along,
    prepare,
    simulate,
    simulate_orientation,
)
from .stability import StabilityMap, stability_map

__all__ = ["simulate", "prepare", "PreparedSystem", "SimulationResult", "SingularEvent", "ChartSwitch",
           "SimulationStoppedWarning", "simulate_orientation", "orientation_along", "OrientationSwitch",
           "ChartConditioningWarning", "compile_rhs", "CompiledFunction", "linearise", "Linearisation", "plots",
           "ensemble", "grid", "sample", "stability_map", "StabilityMap", "SimulationOptions", "EnsembleOptions"]

