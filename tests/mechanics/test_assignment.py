"""The linear assignments inside the ranking of the choices of dependent velocities (issue 28).

``_min_cost_assignment`` (the Hungarian method [Kuhn 1955]) replaced scipy's ``linear_sum_assignment``,
whose import (``scipy.optimize``: 0.5–1.2 s) cost more than the 4-trailer's equations: optimal against
brute force, and the same-bodies route imports no scipy at all.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from jetgeo.mechanics.constraints import _min_cost_assignment

ROOT = Path(__file__).resolve().parents[2]


@st.composite
def _tables(draw):
    k = draw(st.integers(1, 4))
    m = draw(st.integers(k, 6))
    cell = st.one_of(st.integers(0, 40), st.just(10**6))  # 10⁶: a forbidden edge, as the ranking's "big"
    return [[draw(cell) for _ in range(m)] for _ in range(k)]


@given(_tables())
def test_assignment_is_optimal_against_brute_force(C):
    k, m = len(C), len(C[0])
    cols = _min_cost_assignment(C)
    assert len(cols) == k and len(set(cols)) == k and all(0 <= s < m for s in cols)
    best = min(sum(C[i][s] for i, s in enumerate(p)) for p in itertools.permutations(range(m), k))
    assert sum(C[i][s] for i, s in enumerate(cols)) == best


def test_same_bodies_route_imports_no_scipy():
    """From the 4-trailer's bodies to accelerations_on_TQ in a fresh interpreter: scipy is never imported
    (the structural choice of the dependent velocities ran scipy's assignment)."""
    code = ("import sys\n"
            "from benchmarks import same_bodies as SB\n"
            "SB.jet(4, 'TQ')\n"
            "print(sorted(m for m in sys.modules if m == 'scipy' or m.startswith('scipy.')))\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=120, check=True)
    assert out.stdout.strip() == "[]", out.stdout
