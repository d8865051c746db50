"""The spec files shipped with jetgeo (copies of ``examples/specs/*.toml``, installed as package data)."""

from __future__ import annotations

from pathlib import Path

from ...errors import SpecError

__all__ = ["SPEC_DIR", "catalogue", "spec_path"]

SPEC_DIR = Path(__file__).resolve().parent


def catalogue() -> dict:
    """{name: path} of the shipped spec files, sorted by name.

    Returns
    -------
    dict
        {name: Path} of every ``*.toml`` shipped with jetgeo.
    """
    return {p.stem: p for p in sorted(SPEC_DIR.glob("*.toml"))}


def spec_path(name: str) -> Path:
    """The path of a shipped spec by name (``"skate"`` or ``"skate.toml"``).

    Parameters
    ----------
    name : str
        The spec's name, with or without ``.toml``.

    Returns
    -------
    Path
        The shipped file.
    """
    cat = catalogue()
    key = name[:-5] if name.endswith(".toml") else name
    if key not in cat:
        raise SpecError(f"no shipped spec named {name!r}; available: {', '.join(cat) or 'none'}")
    return cat[key]
