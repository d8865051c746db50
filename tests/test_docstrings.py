"""numpydoc sections on the public callables: every function and class a jetgeo module exports (``__all__``) says
what its parameters are (a ``Parameters`` section) and what it returns (``Returns``, functions only).

:data:`MISSING` lists the callables not yet documented so: it may only shrink — the test fails when a new callable
lacks a section and when a listed one gets them (then it is removed from the list).
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import re
from pathlib import Path
from typing import Protocol

import pytest

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "jetgeo"
#: modules not imported here: the command-line entry (``__main__`` runs the CLI on import)
SKIP = {"jetgeo.__main__"}


def _module_names() -> list:
    out = []
    for path in sorted(PKG.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        name = ".".join(parts)
        if name not in SKIP:
            out.append(name)
    return out


def _section(doc: str, title: str) -> bool:
    return re.search(rf"^\s*{title}\n\s*-{{{len(title)}}}\s*$", doc, re.M) is not None


def _takes_arguments(obj) -> bool:
    """Whether ``obj`` (a function, or a class through its own ``__init__``) has parameters to document; a class
    that keeps a builtin's ``__init__`` (an exception taking its message) has none of its own."""
    if inspect.isclass(obj) and Protocol in obj.__bases__:  # a protocol is not constructed: its members say it all
        return False
    target = obj.__init__ if inspect.isclass(obj) else obj
    if not inspect.isfunction(target):
        return False
    return any(p.name not in ("self", "cls") for p in inspect.signature(target).parameters.values())


def _fields_documented(obj, doc: str) -> bool:
    """A dataclass whose ``Attributes`` section names every field of its constructor: for a dataclass the
    attributes are the parameters (numpydoc's two sections coincide)."""
    if not (inspect.isclass(obj) and dataclasses.is_dataclass(obj) and _section(doc, "Attributes")):
        return False
    body = doc.split("Attributes", 1)[1]
    return all(re.search(rf"^\s*{re.escape(f.name)}\b", body, re.M) for f in dataclasses.fields(obj) if f.init)


def _returns_something(fn) -> bool:
    ann = inspect.signature(fn).return_annotation
    return ann not in (None, "None")


def missing_sections(modules: list) -> dict:
    """{"module.qualname": [missing section titles]} over the callables in the ``__all__`` of ``modules``, each
    counted once, at the module that defines it."""
    out: dict = {}
    for name in modules:
        mod = importlib.import_module(name)
        for attr in vars(mod).get("__all__", ()):  # a module without __all__ exports nothing
            obj = getattr(mod, attr)
            if not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue
            home = obj.__module__
            if not home.startswith("jetgeo"):
                continue
            key = f"{home}.{obj.__qualname__}"
            doc = inspect.getdoc(obj) or ""
            lacks = []
            if _takes_arguments(obj) and not (_section(doc, "Parameters") or _fields_documented(obj, doc)):
                lacks.append("Parameters")
            if inspect.isfunction(obj) and _returns_something(obj) and not _section(doc, "Returns"):
                lacks.append("Returns")
            if lacks:
                out[key] = lacks
    return out


#: the callables without the sections today (``module.qualname``, where each is defined)
MISSING: set = set()


@pytest.fixture(scope="module")
def found() -> dict:
    return missing_sections(_module_names())


def test_no_new_public_callable_lacks_numpydoc_sections(found):
    new = sorted(f"{k}: {', '.join(v)}" for k, v in found.items() if k not in MISSING)
    assert new == [], "public callables without numpydoc Parameters/Returns sections:\n" + "\n".join(new)


def test_the_list_of_undocumented_callables_only_shrinks(found):
    done = sorted(MISSING - set(found))
    assert done == [], "documented now: remove them from MISSING:\n" + "\n".join(done)


def test_the_section_check_sees_a_missing_section():
    def documented(x: int) -> int:
        """Double.

        Parameters
        ----------
        x : int
            A number.

        Returns
        -------
        int
            2 x.
        """
        return 2 * x

    def bare(x: int) -> int:
        """Double x."""
        return 2 * x

    doc_ok, doc_bare = inspect.getdoc(documented), inspect.getdoc(bare)
    assert _section(doc_ok, "Parameters") and _section(doc_ok, "Returns")
    assert not _section(doc_bare, "Parameters") and not _section(doc_bare, "Returns")
    assert not _section("Returns the value.\n", "Returns")
