r"""Simulation with constraint monitoring: :func:`simulate` and :class:`SimulationResult`.

The package is split by concern: :mod:`.model` (objects → a model, through
:class:`~jetgeo.mechanics.eom.EquationsOfMotion`), :mod:`.prepare` (compilation into a
:class:`~.prepare.PreparedSystem`), :mod:`.events` (singular-state events), :mod:`.atlas` (chart
switches of the dependent velocities), :mod:`.integrate` (stepping, projection), :mod:`.initial`
(initial data), :mod:`.results` (the result object), :mod:`.run` (:func:`simulate`) and
:mod:`.orientation` (a rigid body across Euler-angle charts of SO(3): :func:`simulate_orientation`) and
:mod:`.options` (the rarely changed choices of a run: :class:`SimulationOptions`).

**Formulations.**  A constrained system gives the accelerations q̈^σ = F^σ(t, q, q̇^I) of
every coordinate on Q ([Stolařová 2009, eq. (8)–(12)]: the independent ones from the reduced equations,
the dependent ones as q̈^D = dg/dt).  jetgeo integrates either

* ``formulation="full"`` (default): the state (q, q̇) ∈ J¹Y with
  q̇' = F — Q is an invariant manifold of this ODE, so the constraint values
  f^i(t, q, q̇) along the numerical solution measure the integration error (they drift at
  the integrator's tolerance), or
* ``formulation="reduced"``: the state (q, q̇^I) on Q with q' = (q̇^I, g(t, q, q̇^I))
  (the normal form [Stolařová 2009, eq. (4)]): the constraints hold by construction.

**Projection** (``project=True``, full formulation).  After every accepted step of an
explicit Runge–Kutta method the velocities are projected back onto Q along the kinetic
metric W = ∂²L/∂q̇∂q̇ (Newton iteration for min ½ Δq̇ᵀWΔq̇ subject to f(t, q, q̇ + Δq̇) = 0,
Δq̇ = −W⁻¹Jᵀ(JW⁻¹Jᵀ)⁻¹ f with J = ∂f/∂q̇): the residuals stay at round-off.

**Energy balance.**  Along any motion of the constrained system
d/dt(∂L/∂q̇^σ) − ∂L/∂q^σ = A_σ + R_σ ([Benenti 2007, eq. (3.14)], R_σ = λ_i ∂f^i/∂q̇^σ the Chetaev
reaction), the energy E_L = q̇^σ ∂L/∂q̇^σ − L satisfies

.. math:: \frac{dE_L}{dt} = -\frac{\partial L}{\partial t} + A_\sigma\dot q^\sigma + R_\sigma\dot q^\sigma,
          \qquad R_\sigma\dot q^\sigma = \lambda_i\,\frac{\partial f^i}{\partial\dot q^\sigma}\dot q^\sigma .

If f^i is homogeneous of degree d_i in the velocities (even with t-dependent
coefficients), Euler's identity gives R·q̇ = d_i λ_i f^i = 0 on Q: the reaction does no
work.  The result object returns all three powers along the solution so that the
balance can be checked (``energy_balance``).

**Singular states.**  Integration stops (terminal events) where the problem stops being
well posed, with an explanation: the constraint rank drops ([Stolařová 2009, eq. (3)]; for a homogeneous
constraint the zero section, [Benenti 2007, Remark 7.5]), the regularity determinant ([Stolařová 2009, eq. (12)])
vanishes, the normal form's determinant det ∂f/∂q̇^D vanishes (another choice of
dependent velocities is needed), the branch of a nonlinear constraint leaves its
domain, or a condition carried by a result (``Motion.conditions``) vanishes.  A quantity
c "vanishes" when it changes sign or |c| falls below ``singular_tol`` times its initial size;
the integrator is stepped by hand so that a non-negative quantity that only *touches* zero
inside a step (det JJᵀ at a zero section, where the multiplier formulation stays smooth) is
caught too (a minimum search on the step's dense output).
"""

from __future__ import annotations

from .atlas import ChartSwitch
from .events import SingularEvent
from .options import EnsembleOptions, SimulationOptions
from .orientation import ChartConditioningWarning, OrientationSwitch, orientation_along, simulate_orientation
from .prepare import PreparedSystem, prepare
from .results import SimulationResult
from .run import SimulationStoppedWarning, simulate

__all__ = ["simulate", "prepare", "PreparedSystem", "SimulationResult", "SingularEvent", "ChartSwitch",
           "SimulationStoppedWarning", "simulate_orientation", "orientation_along", "OrientationSwitch",
           "ChartConditioningWarning", "SimulationOptions", "EnsembleOptions"]
