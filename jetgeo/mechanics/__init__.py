"""Lagrangian systems, constraint submanifolds and Krupková's constrained system
([Stolařová 2009, §2]; [Benenti 2007, §2–3]).  Imports jets and geometry only.

Every route's result implements :class:`~jetgeo.mechanics.eom.EquationsOfMotion`; the bordered
multiplier system has one builder, :func:`~jetgeo.mechanics.bordered.bordered_system`; exact
linearisation lives in :mod:`jetgeo.mechanics.linearisation` (:func:`linearise`).

:mod:`jetgeo.mechanics.rigid` (Euler-angle charts and body-frame angular velocities, built on
``sympy.physics.mechanics``) is imported on demand, so that ``import jetgeo`` does not load
sympy's mechanics package.
"""

from .constrained import ConstrainedSystem
from .constraints import Branch, Classification, ConstraintSubmanifold, NormalForm
from .eom import EquationsOfMotion, SecondOrderEquations
from .lagrangian import LagrangianSystem
from .linearisation import Linearisation, linearise
from .momentum import MomentumEquation, momentum_equation
from .motion import Motion
from .parametric import ParametricConstrainedSystem
from .quasi import QuasiVelocities, QuasiVelocitySystem
from .states import CompletedState, complete_on_Q
from .steady import SteadyMotion, steady_motions
from .tq import accelerations_on_TQ

__all__ = [
    "LagrangianSystem",
    "ConstraintSubmanifold",
    "ConstrainedSystem",
    "ParametricConstrainedSystem",
    "QuasiVelocities",
    "QuasiVelocitySystem",
    "Motion",
    "EquationsOfMotion",
    "SecondOrderEquations",
    "Linearisation",
    "linearise",
    "NormalForm",
    "Branch",
    "Classification",
    "accelerations_on_TQ",
    "SteadyMotion",
    "steady_motions",
    "MomentumEquation",
    "momentum_equation",
    "complete_on_Q",
    "CompletedState",
]
