r"""System specification files (TOML) → jetgeo objects, and back.

A spec file describes a mechanical system as jetgeo's Python API does
(``theory/specfiles.md``): a fibred manifold Y → R (``[coordinates]``), parameters with
assumptions (``[parameters]``), a Lagrangian L or kinetic energy T, potential V
and generalised forces A_σ (``[lagrangian]``; Newton's sign, [Benenti 2007, eq. (3.14)]),
a constraint submanifold Q ⊂ J¹Y given implicitly f^i(t,q,q̇) = 0 [Stolařová 2009, eqs.
(2)–(3)], in normal form q̇^D = g [Stolařová 2009, eq. (4)] or parametrically q̇ = ψ(t,q,z)
[Benenti 2007, eq. (2.1)] (``[constraints]``), optionally a bundle of reaction forces and
permitted directions ([Ibort et al. 1996], the problem (L, C, D, F): ``[problem]``), initial
data and numerical parameter values (``[initial]``, ``[values]``).

Every expression goes through :func:`jetgeo.io.parse.parse_expression` (no
``eval``/``sympify`` of text); every error is a :class:`~jetgeo.errors.SpecError`
whose message starts with ``<file>: [<table>] <key>:``.  The format is documented
in ``theory/specfiles.md``.

The work is split by job: :mod:`jetgeo.io.spec_model` (the :class:`Spec` and the objects it builds, a Spec of
Python objects or of a catalogue system), :mod:`jetgeo.io.spec_read` (file and TOML → Spec),
:mod:`jetgeo.io.spec_write` (Spec → TOML), :mod:`jetgeo.io.spec_initial` (the initial data on Q); this module
keeps their public names where users import them.
"""

from __future__ import annotations

from .spec_model import ASSUMPTIONS, MAX_COORDINATES, MAX_SPEC_BYTES, Spec, spec_from_catalogue
from .spec_read import load_spec, loads_spec
from .spec_read import read_regular_file as read_regular_file
from .spec_write import dump, to_toml
from .spec_write import expr_text as expr_text

__all__ = [
    "Spec", "spec_from_catalogue", "load_spec", "loads_spec", "to_toml", "dump", "ASSUMPTIONS",
    "MAX_SPEC_BYTES",
    "MAX_COORDINATES",
]
