r"""What a spec argument of the command line names: a file, a shipped spec, or a system of the catalogue.

:func:`open_spec` is the one loader of both command-line modules (``jetgeo derive/check/simulate``
in :mod:`jetgeo.cli`, ``jetgeo sweep`` in :mod:`jetgeo.cli_sweep`), and usable from a notebook.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

from .. import systems
from ..errors import SpecError
from ..limits import stage
from .spec import Spec, load_spec, spec_from_catalogue
from .specs import catalogue

__all__ = ["resolve_spec_path", "open_spec"]


def resolve_spec_path(name: str) -> Path:
    """The spec file ``name`` stands for: an existing path, else a shipped spec of that name.

    Parameters
    ----------
    name : str
        A path, or the name of a shipped spec (``"skate"`` or ``"skate.toml"``).

    Returns
    -------
    pathlib.Path
        The file (not necessarily a regular one: :func:`~jetgeo.io.load_spec` says what it is).

    Raises
    ------
    SpecError
        When there is no such file and no shipped spec of that name (with the nearest name).

    Examples
    --------
    >>> resolve_spec_path("skate").name
    'skate.toml'
    """
    p = Path(name)
    if p.is_file() or os.path.lexists(name):  # not a regular file: load_spec says what it is
        return p
    cat = catalogue()
    key = name[:-5] if name.endswith(".toml") else name
    if key in cat and not (p.suffix and p.parent != Path(".")):
        return cat[key]
    if p.parent != Path("."):  # a path, not a name
        raise SpecError(f"{name}: no such file")
    near = difflib.get_close_matches(key, [*cat, *systems.names()], n=1)
    hint = f"did you mean {near[0]!r}?" if near else "see `jetgeo examples`"
    raise SpecError(f"{name}: no such file, and no shipped spec of that name ({hint})")


def open_spec(name: str) -> Spec:
    """The spec ``name`` stands for: a file by path, a shipped spec by name, or a system of the Python
    catalogue :mod:`jetgeo.systems` by name (in the stage "loading the spec" of :mod:`jetgeo.limits`).

    Parameters
    ----------
    name : str
        A path, the name of a shipped spec, or the name of a catalogue system.

    Returns
    -------
    Spec
        The loaded spec.

    Raises
    ------
    SpecError
        When ``name`` names none of these, or the file is not a valid spec.

    Examples
    --------
    >>> open_spec("skate").Y.q
    (x, y, theta)
    >>> open_spec("rolling_disc").name
    'rolling_disc'
    """
    with stage("loading the spec"):
        try:
            path = resolve_spec_path(name)
        except SpecError:
            if name in systems.names():
                return spec_from_catalogue(name)
            raise
        return load_spec(path, source=name)
