"""Plot helpers: the figures hold the computed data; a clear error without matplotlib."""

from __future__ import annotations

import sys

import matplotlib
import numpy as np
import pytest
from numerics_systems import rolling_disc

from jetgeo.numerics import plots, simulate

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def disc_result():
    cs, (m, A, B, R) = rolling_disc()
    x, y, th, ps = cs.Y.q
    return simulate(cs, (0, 10), {x: 0, y: 0, th: 0, ps: 0.1, "thetadot": 2.0, "psidot": 0.3},
                    {m: 1.0, A: 0.125, B: 0.0625, R: 0.5}, complete=True, t_eval=np.linspace(0, 10, 51))


def test_trajectory_and_projections_carry_the_data(disc_result):
    import matplotlib.pyplot as plt

    fig = plots.plot_trajectory(disc_result, ["x", "y", "psi"])
    assert len(fig.axes) == 4                           # 3-D trajectory + xy, xψ, yψ projections
    line = fig.axes[1].lines[0]
    assert np.allclose(line.get_xdata(), disc_result.column("x"))
    assert np.allclose(line.get_ydata(), disc_result.column("y"))
    fig2 = disc_result.plot_monitor()
    assert len(fig2.axes) == 2 and len(fig2.axes[0].lines) == 2   # two constraints, then energy
    # the plotted values are |f| and |E − E0|, the exact zeros (t = 0) left out as gaps
    for line, data in ((fig2.axes[0].lines[1], disc_result.residuals[:, 1]),
                       (fig2.axes[1].lines[0], disc_result.energy_drift)):
        y, pos = line.get_ydata(), np.abs(data) > 0
        assert np.array_equal(y[pos], np.abs(data)[pos]) and np.all(np.isnan(y[~pos]))
    assert disc_result.energy_drift[0] == 0 and not np.isfinite(fig2.axes[1].lines[0].get_ydata()[0])
    # the log axis spans the data (drift ≈ 1e-12 … 1e-10), not 1e-308 … 1 as with finfo.tiny added to zeros
    lo, hi = fig2.axes[1].get_ylim()
    positive = np.abs(disc_result.energy_drift)[np.abs(disc_result.energy_drift) > 0]
    assert positive.min() / 10 <= lo <= positive.min() and np.log10(hi / lo) < 8
    fig3 = disc_result.plot_reactions()
    assert np.allclose(fig3.axes[0].lines[0].get_ydata(), disc_result.reactions[:, 0])
    fig4 = plots.plot_series(disc_result, ["thetadot"])
    assert np.allclose(fig4.axes[0].lines[0].get_ydata(), 2.0)
    plt.close("all")


def test_monitor_of_a_reduced_run_has_exactly_zero_residuals():
    import matplotlib.pyplot as plt

    cs, (m, A, B, R) = rolling_disc()
    x, y, th, ps = cs.Y.q
    r = simulate(cs, (0, 2), {x: 0, y: 0, th: 0, ps: 0.1, "thetadot": 2.0, "psidot": 0.3},
                 {m: 1.0, A: 0.125, B: 0.0625, R: 0.5}, complete=True, formulation="reduced")
    assert r.max_residual == 0.0
    fig = r.plot_monitor()
    assert any("exactly 0" in t.get_text() for t in fig.axes[0].texts)
    assert fig.axes[0].get_ylim()[0] >= 1e-17
    plt.close("all")


def test_missing_matplotlib_gives_a_clear_error(disc_result, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match="pip install"):
        plots.plot_trajectory(disc_result)


def test_reactions_plot_needs_reactions():
    class R:
        reactions = None

    with pytest.raises(ValueError, match="no reaction forces"):
        plots.plot_reactions(R())
