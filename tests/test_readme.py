"""The README's Python examples run as written (a newcomer copies them first)."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def test_readme_python_examples_run():
    blocks = BLOCK.findall(README.read_text(encoding="utf-8"))
    assert len(blocks) >= 2
    namespace: dict = {"__name__": "readme"}
    for k, code in enumerate(blocks):
        try:
            exec(compile(code, f"README.md[block {k + 1}]", "exec"), namespace)
        except Exception as exc:
            raise AssertionError(f"README.md, block {k + 1} failed: {exc!r}") from exc
    # the rolling-disc distribution of the first example: non-holonomic, flag fills TQ
    assert namespace["D"].growth_vector() == (2, 3, 4)
    assert namespace["P"].compatibility().compatible


def test_readme_has_exactly_two_quick_start_commands():
    text = README.read_text(encoding="utf-8")
    quick = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    cmds = re.findall(r"^```bash\n(.*?)^```", quick, re.S | re.M)
    assert len(cmds) == 2
    assert "jetgeo demo" in cmds[0] and "pytest" in cmds[1]
