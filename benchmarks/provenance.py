"""Provenance of a benchmark result: what ran, on which commit, with which versions, on which machine.

One home for the header every script under ``benchmarks/`` writes into ``benchmarks/results/``:

    command: python -m benchmarks.routes --timeout 40
    commit:  a484c0d (with uncommitted changes)
    date:    2026-11-25 17:40:12 UTC
    python:  3.11.7   sympy: 1.14.0   numpy: 2.1.3   scipy: 1.14.1   jetgeo: 0.1.0
    machine: x86_64, nproc 2, CPU AMD EPYC
    load:    3.97 (1-minute average at the start)

``tests/benchmarks/test_provenance.py`` checks that every ``benchmarks/results/*.txt`` names a
commit, a sympy version and a machine.
"""

from __future__ import annotations

import importlib
import os
import platform
import shlex
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def git_commit() -> str:
    """Short hash of HEAD, with " (with uncommitted changes)" when tracked files differ from it."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "not recorded (git unavailable)"
    return head + (" (with uncommitted changes)" if dirty else "")


def cpu_model() -> str:
    """The CPU model from /proc/cpuinfo (Linux), else ``platform.processor()``."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def nproc() -> int:
    """CPUs this process may run on (``os.sched_getaffinity``), else ``os.cpu_count()``."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 0


def _version(module: str) -> str:
    try:
        return importlib.import_module(module).__version__
    except ImportError:
        return "not installed"


def provenance(command: str | None = None) -> dict:
    """The provenance fields as a dict (for JSON results); ``command`` defaults to ``sys.argv``."""
    if command is None:
        command = "python " + shlex.join(sys.argv)
    try:
        load = f"{os.getloadavg()[0]:.2f}"
    except OSError:
        load = "not available"
    return {
        "command": command,
        "commit": git_commit(),
        "date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "python": platform.python_version(),
        "sympy": _version("sympy"),
        "numpy": _version("numpy"),
        "scipy": _version("scipy"),
        "jetgeo": _version("jetgeo"),
        "machine": f"{platform.machine()}, nproc {nproc()}, CPU {cpu_model()}",
        "load_1min": load,
    }


def provenance_lines(command: str | None = None, prefix: str = "", fields: dict | None = None) -> list[str]:
    """The provenance as header lines (see the module docstring), each starting with ``prefix``.

    ``fields``: a dict from :func:`provenance` taken earlier (the same record in a JSON file and a
    text header); by default the fields are taken now.
    """
    p = fields if fields is not None else provenance(command)
    lines = [
        f"command: {p['command']}",
        f"commit:  {p['commit']}",
        f"date:    {p['date']}",
        f"python:  {p['python']}   sympy: {p['sympy']}   numpy: {p['numpy']}   scipy: {p['scipy']}   "
        f"jetgeo: {p['jetgeo']}",
        f"machine: {p['machine']}",
        f"load:    {p['load_1min']} (1-minute average at the start)",
    ]
    return [prefix + line for line in lines]
