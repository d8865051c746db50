r"""The registry of the catalogue: :class:`SystemSpec` (the raw data of a system) and the decorator
:func:`register` that adds a builder of one to the catalogue.

A module of builders (:mod:`jetgeo.systems.entries`, :mod:`jetgeo.systems.whipple`) imports
this module and decorates its builders; :mod:`jetgeo.systems.catalogue` imports the modules of
builders (so registration happens when the catalogue is first used) and builds entries from
:data:`REGISTRY`.  This module imports no other module of :mod:`jetgeo.systems`, so neither
side imports the other in a cycle.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import sympy as sp

from ..jets import FibredManifold
from ..mechanics.quasi import QuasiVelocitySystem

__all__ = ["SystemSpec", "Registered", "REGISTRY", "register"]


@dataclass
class SystemSpec:
    """Raw data of a catalogue entry (before parameter substitution).

    A builder registered with :func:`register` returns one; the catalogue turns it into a
    :class:`~jetgeo.systems.catalogue.CatalogueEntry` (system, Q, a state on Q).

    Attributes
    ----------
    Y : FibredManifold
        The configuration bundle Y → R (time and coordinates q^σ).
    f : list of sympy.Expr
        The implicit constraints f^i(t, q, q̇) = 0 defining Q ⊂ J¹Y.
    reference : str
        The bibliography key with section and equation numbers.
    description : str
        One paragraph on the physics.
    parameters : tuple of Symbol
        The parameter symbols.
    params : dict
        {parameter symbol: sample numeric value}.
    guess : dict
        Values of t, q and of the velocities; the dependent velocities are recomputed from the
        normal form, so that the initial state lies on Q exactly.
    T : sympy.Expr or None, default None
        The kinetic energy (mechanical systems, with ``V``).
    V : sympy.Expr, default 0
        The potential energy.
    L : sympy.Expr or None, default None
        A general Lagrangian, instead of ``T``/``V``.
    forces : list or None, default None
        The generalised forces A_σ (Newton's sign: on the right of d/dt ∂L/∂q̇ − ∂L/∂q = A).
    dependent : list or None, default None
        The dependent velocities of the normal form (default: Q's structural choice).
    branch : int or None, default None
        The branch of a nonlinear constraint.
    psi : list or None, default None
        A parametrisation q̇ = ψ(t, q, z) of the same constraints.
    z : tuple or None, default None
        The parameters of ``psi``.
    notes : list, default []
        Misprints found in the paper and other remarks.
    quasi : QuasiVelocitySystem or None, default None
        The same system stated in quasi-velocities (a rigid body in its body-frame Ω), whose
        frame holds no parameter.
    """

    Y: FibredManifold
    f: list
    reference: str
    description: str
    parameters: tuple
    params: dict
    guess: dict
    T: sp.Expr | None = None
    V: sp.Expr = sp.Integer(0)
    L: sp.Expr | None = None
    forces: list | None = None
    dependent: list | None = None
    branch: int | None = None
    psi: list | None = None
    z: tuple | None = None
    notes: list = field(default_factory=list)
    quasi: QuasiVelocitySystem | None = None


@dataclass
class Registered:
    """A registered builder: ``builder(**options) -> SystemSpec``, its default ``options``, a
    one-line ``summary`` and whether its symbolic equations are ``heavy``.

    Attributes
    ----------
    builder : callable
        ``builder(**options) -> SystemSpec``.
    options : dict
        The default keyword arguments of ``builder`` (overridable when loading: ``n=3`` for a
        chain of three trailers).
    summary : str
        One line for ``jetgeo.systems.names()`` and the CLI's listing.
    heavy : bool, default False
        Whether the full symbolic equations of motion are expensive to derive (the Whipple
        bicycle); such systems load like any other but are listed apart.
    """

    builder: Callable[..., SystemSpec]
    options: dict
    summary: str
    heavy: bool = False


#: {name: Registered}, filled by :func:`register` when a module of builders is imported
REGISTRY: dict[str, Registered] = {}


def register(name: str, summary: str, heavy: bool = False, **options) -> Callable:
    """Decorator adding a builder ``f(**options) -> SystemSpec`` to the catalogue.

    ``heavy=True`` marks a system whose full symbolic equations of motion are expensive
    (the Whipple bicycle): it loads like any other, but :func:`jetgeo.systems.names` lists it
    only when asked, so that loops over the catalogue stay fast.

    Parameters
    ----------
    name : str
        The name of the system in the catalogue.
    summary : str
        One line with its reference.
    heavy : bool
        Whether its symbolic equations take more than a few seconds.
    **options
        The builder's keyword options and their defaults (``n=1`` for the n-trailer).

    Returns
    -------
    callable
        The decorator; it returns the builder unchanged.

    Examples
    --------
    >>> @register("example_particle", "a free particle on a line (an example)")
    ... def _particle() -> SystemSpec:
    ...     Y = FibredManifold(["x"])
    ...     return SystemSpec(Y=Y, f=[], reference="", description="", parameters=(), params={},
    ...                       guess={Y.q[0]: 0, Y.qdot[0]: 1}, T=Y.qdot[0] ** 2 / 2)
    >>> REGISTRY.pop("example_particle").summary
    'a free particle on a line (an example)'
    """

    def deco(fn: Callable[..., SystemSpec]) -> Callable[..., SystemSpec]:
        REGISTRY[name] = Registered(fn, dict(options), summary, heavy)
        return fn

    return deco
