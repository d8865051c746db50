"""Every ```python block of every page in theory/ is executed, page by page.

Blocks of one page share a namespace, so a page reads as one script. A page whose
examples raise (or whose ``assert`` lines fail) fails this test.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

THEORY = Path(__file__).resolve().parent.parent / "theory"
#: the bibliography is the one page without mathematics to execute (tests/test_references.py checks it)
PAGES = sorted(p for p in THEORY.glob("*.md") if p.name != "references.md")
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def test_theory_pages_exist():
    assert PAGES, "theory/ has no pages"


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_theory_page_examples_run(page):
    blocks = BLOCK.findall(page.read_text(encoding="utf-8"))
    assert blocks, f"{page.name} has no executable example"
    namespace: dict = {"__name__": f"theory_{page.stem}"}
    for k, code in enumerate(blocks):
        try:
            exec(compile(code, f"{page.name}[block {k + 1}]", "exec"), namespace)
        except Exception as exc:  # re-raise with the page and block named
            raise AssertionError(f"{page.name}, block {k + 1} failed: {exc!r}") from exc
