"""benchmarks/provenance.py: every benchmark result records its commit, sympy version and machine.

Independent truths: ``git rev-parse --short HEAD`` and ``git status`` for the commit, the imported
modules' ``__version__`` for the versions, ``os.sched_getaffinity`` and /proc/cpuinfo for the machine.
The second test reads every result file in benchmarks/results/ (a future file that lacks a field fails).
"""

from __future__ import annotations

import os
import platform
import re
import subprocess
from pathlib import Path

import numpy
import pytest
import scipy
import sympy

import jetgeo
from benchmarks.provenance import provenance, provenance_lines

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()


def test_fields_match_the_sources():
    p = provenance("python -m benchmarks.something --flag 1")
    head = _git("rev-parse", "--short", "HEAD")
    dirty = bool(_git("status", "--porcelain", "--untracked-files=no"))
    assert p["commit"] == head + (" (with uncommitted changes)" if dirty else "")
    assert p["command"] == "python -m benchmarks.something --flag 1"
    assert p["sympy"] == sympy.__version__
    assert p["numpy"] == numpy.__version__
    assert p["scipy"] == scipy.__version__
    assert p["jetgeo"] == jetgeo.__version__
    assert p["python"] == platform.python_version()
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", p["date"])
    assert p["machine"].startswith(platform.machine() + ", ")
    if hasattr(os, "sched_getaffinity"):
        assert f"nproc {len(os.sched_getaffinity(0))}," in p["machine"]
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        models = [ln.split(":", 1)[1].strip() for ln in cpuinfo.read_text().splitlines()
                  if ln.startswith("model name")]
        if models:
            assert p["machine"].endswith("CPU " + models[0])
    float(p["load_1min"])


def test_lines_carry_every_field_with_the_prefix():
    p = provenance("cmd")
    lines = provenance_lines(prefix="# ", fields=p)
    assert all(ln.startswith("# ") for ln in lines)
    text = "\n".join(lines)
    for key in ("command", "commit", "date", "python", "sympy", "numpy", "scipy", "jetgeo", "machine", "load_1min"):
        assert p[key] in text, key
    assert _has_provenance(text) == []


def _has_provenance(text: str) -> list[str]:
    """The fields missing from a result file's text: commit, sympy version, machine."""
    missing = []
    if not re.search(r"\bcommit[:\s]\s*([0-9a-f]{7,40}\b|not recorded)", text):
        missing.append("commit")
    if not re.search(r"\bsympy[:\s]\s*(\d+\.\d+(\.\d+)?\b|not recorded)", text):
        missing.append("sympy")
    if not re.search(r"\bmachine:\s*\S", text):
        missing.append("machine")
    return missing


#: result files written before benchmarks/provenance.py existed: their provenance was inferred from git and added
#: afterwards, and says so in its first line.  No other file may do that (a new result records its own: rerun the
#: benchmark); one of these rerun drops out of the list (the test fails until it is removed here).
INFERRED = {"fuzz_spec.txt", "latest_quick.txt", "n_trailer_tq.txt", "whipple.txt"}
ADDED_AFTERWARDS = "# provenance added afterwards"


def _recorded_by_the_run(text: str) -> bool:
    """Whether the run itself recorded its provenance (commit, sympy, machine), not a header added afterwards."""
    return not text.startswith(ADDED_AFTERWARDS) and _has_provenance(text) == []


@pytest.mark.parametrize("path", sorted(RESULTS.glob("*.txt")), ids=lambda p: p.name)
def test_every_result_file_names_commit_sympy_and_machine(path):
    text = path.read_text(encoding="utf-8")
    assert _has_provenance(text) == []
    if path.name in INFERRED:
        assert text.startswith(ADDED_AFTERWARDS) and not _recorded_by_the_run(text), path.name
    else:
        assert _recorded_by_the_run(text), f"{path.name}: provenance not recorded by the run"


def test_the_recorded_check_rejects_a_header_added_afterwards():
    recorded = "\n".join(provenance_lines(prefix="", fields=provenance("cmd")))
    assert _recorded_by_the_run(recorded)
    assert not _recorded_by_the_run(ADDED_AFTERWARDS + ":\n" + recorded)
    assert not _recorded_by_the_run("# python -m benchmarks.run --quick (2026-11-23, 2 shared cores)")


def test_the_check_rejects_a_file_without_provenance():
    """The regexes are not vacuous: a header without the fields fails, one with them passes."""
    assert _has_provenance("# python -m benchmarks.run --quick (2026-11-23, 2 shared cores)\n| a | b |") == [
        "commit", "sympy", "machine"]
    assert _has_provenance("commit:  a484c0d\npython:  3.11.7   sympy: 1.14.0\nmachine: x86_64, nproc 2") == []
