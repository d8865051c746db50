"""Jet bundles over time: fibred manifolds Y → R, J¹Y, J²Y, contact forms,
horizontalisation, holonomic sections, prolongations [Stolařová 2009, §2].

Imports only :mod:`jetgeo.geometry` (and errors).
"""

from .contact import decompose, horizontal
from .fibred import FibredManifold
from .prolongation import prolong
from .sections import Section

__all__ = ["FibredManifold", "Section", "decompose", "horizontal", "prolong"]
