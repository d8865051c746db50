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

    ``T``/``V`` (mechanical systems) or ``L`` (general Lagrangian); ``forces`` the
    generalised forces A_σ (Newton's sign); ``f`` the implicit constraints f^i = 0;
    ``psi``/``z`` a parametrisation q̇ = ψ(t, q, z) of the same constraints;
    ``guess`` values of t, q and of the velocities (the dependent velocities are
    recomputed from the normal form, so the initial state lies on Q exactly);
    ``params`` sample numeric values of the parameters; ``quasi`` the same system stated in
    quasi-velocities (a rigid body in its body-frame Ω), whose frame holds no parameter.
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
    one-line ``summary`` and whether its symbolic equations are ``heavy``."""

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
