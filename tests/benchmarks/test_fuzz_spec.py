"""benchmarks/fuzz_spec.py runs the real atheris engine for a few seconds and reports its figures.

(The 10-minute run's figures are in benchmarks/results/fuzz_spec.txt; every crash a run finds
becomes a case of tests/corpus.)
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_fuzzer_runs_and_finds_no_crash(tmp_path):
    pytest.importorskip("atheris", reason="atheris ships wheels for Linux x86_64, CPython >= 3.11 only "
                                          "(pip install jetgeo[fuzz] elsewhere, with clang)")
    out = tmp_path / "report.txt"
    r = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "fuzz_spec.py"), "--budget", "8", "--work",
                        str(tmp_path / "work"), "--out", str(out)], capture_output=True, text=True, timeout=300)
    report = out.read_text(encoding="utf-8")
    assert r.returncode == 0, report + r.stderr[-2000:]
    runs = int(re.search(r"executions: (\d+) inputs run by libFuzzer", report).group(1))
    seeds = int(re.search(r"seed inputs: (\d+)", report).group(1))
    assert runs > seeds  # it mutated beyond the seeds
    assert "unique crashes (exceptions other than jetgeo.errors): 0" in report
    assert re.search(r"stopped at the 10 s limit: 0", report)
