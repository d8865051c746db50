"""The docstring examples of every jetgeo module run (they are the networkx-style examples users copy)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import jetgeo

MODULES = sorted(m.name for m in pkgutil.walk_packages(jetgeo.__path__, "jetgeo."))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} docstring examples failed"


def test_there_are_docstring_examples():
    total = 0
    for name in MODULES:
        finder = doctest.DocTestFinder()
        total += sum(len(t.examples) for t in finder.find(importlib.import_module(name)))
    assert total >= 20
