r"""A catalogue of classical non-holonomic systems, loadable by name.

>>> from jetgeo import systems
>>> "skate" in systems.names()
True
>>> sys, Q = systems.load("skate")            # a LagrangianSystem and its ConstraintSubmanifold
>>> entry = systems.load("vertical_disc", R=1)  # parameters can be given values
>>> entry.reference
'[Benenti 2007, §9.2, eqs. (9.2)–(9.4)]'

Every entry is derived from the physics (kinetic energy by König's theorem, rolling
conditions v_contact = 0) and cross-checked with the paper it comes from; where a
paper's printed formula is wrong the entry's ``notes`` say so.  See
``theory/catalogue.md`` for the table of systems.

This package sits above :mod:`jetgeo.mechanics` and imports only it (and the layers
below).
"""

from __future__ import annotations

from .catalogue import CatalogueEntry, describe, load, names

__all__ = ["CatalogueEntry", "names", "load", "describe"]
