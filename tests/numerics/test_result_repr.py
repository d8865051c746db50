"""repr(SimulationResult) is its one-line summary, not its arrays.

Independent truth: the summary's own lines (``SimulationResult.summary``) and the length of the
arrays the dataclass repr printed.
"""

from __future__ import annotations

from jetgeo.numerics import simulate
from jetgeo.systems import load


def test_repr_is_the_summary_not_the_arrays():
    cs = load("skate").constrained()
    x, y, th = cs.Y.q
    xd, yd, thd = cs.Y.qdot
    r = simulate(cs, (0, 5), {x: 0, y: 0, th: 0.1, xd: 1.0, thd: 0.2}, {"m": 2, "I": 0.5},
                 complete=True, max_step=0.01)
    text = repr(r)
    assert text.startswith("SimulationResult(simulation (") and "\n" not in text
    assert all(line.strip() in text for line in r.summary().splitlines())
    assert len(text) < 400 < len(repr(r.q)) + len(repr(r.qdot))  # the old repr printed these (and more)
