"""Plot helpers for :class:`~jetgeo.numerics.SimulationResult` (matplotlib, optional).

matplotlib is imported only when a plot is asked for; without it a clear
:class:`ImportError` says how to install it (``pip install jetgeo[plot]``).

* :func:`plot_trajectory` — the trajectory in 3 (or 2) coordinates and its projections on
  the coordinate planes (the layout of [Stolařová 2009, Figs. 1–4 and 5–8]);
* :func:`plot_monitor` — constraint residuals |f^i| and energy drift |E − E₀| against time
  (log scale);
* :func:`plot_reactions` — reaction forces R_σ (and multipliers) against time;
* :func:`plot_series` — chosen coordinates/velocities against time.

Every function returns the matplotlib ``Figure``.
"""

from __future__ import annotations

import numpy as np

__all__ = ["plot_trajectory", "plot_monitor", "plot_reactions", "plot_series", "require_matplotlib"]


def require_matplotlib():
    """Import and return ``matplotlib.pyplot``, or raise an ImportError that says what to install.

    Returns
    -------
    module
        ``matplotlib.pyplot``.
    """
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ImportError(
            "jetgeo's plot helpers need matplotlib, which is not installed: pip install 'jetgeo[plot]' "
            "(or pip install matplotlib)"
        ) from exc
    return plt


def _layout(fig) -> None:
    """Fixed spacing (``tight_layout`` measures every text and costs seconds per figure)."""
    fig.subplots_adjust(left=0.08, right=0.97, bottom=0.14, top=0.9, wspace=0.4)


def _coords(res, coords):
    if coords is None:
        coords = [str(s) for s in res.q_symbols[:3]]
    return [str(c) for c in coords]


def plot_trajectory(res, coords=None, projections: bool = True, title: str | None = None, fig=None):
    """Trajectory in the given coordinates (default: the first three) and, with
    ``projections``, its projections on the coordinate planes (one panel per pair).

    Parameters
    ----------
    res : SimulationResult
        The simulation.
    coords : sequence of names or Symbols, optional
        One (against t), two or three coordinates (default: the first three).
    projections : bool
        Add the projections on the coordinate planes.
    title : str, optional
        The figure's title.
    fig : matplotlib.figure.Figure, optional
        Draw into it (default: a new figure).

    Returns
    -------
    matplotlib.figure.Figure
        The figure.
    """
    plt = require_matplotlib()
    names = _coords(res, coords)
    data = [res.column(c) for c in names]
    pairs = [(i, j) for i in range(len(names)) for j in range(i + 1, len(names))] if projections else []
    ncols = 1 + len(pairs)
    fig = fig or plt.figure(figsize=(4.2 * ncols, 4.0))
    if len(names) >= 3:
        ax = fig.add_subplot(1, ncols, 1, projection="3d")
        ax.plot(data[0], data[1], data[2], lw=1.5)
        ax.set_xlabel(names[0])
        ax.set_ylabel(names[1])
        ax.set_zlabel(names[2])
    else:
        ax = fig.add_subplot(1, ncols, 1)
        if len(names) == 2:
            ax.plot(data[0], data[1], lw=1.5)
            ax.set_xlabel(names[0])
            ax.set_ylabel(names[1])
        else:
            ax.plot(res.t, data[0], lw=1.5)
            ax.set_xlabel("t")
            ax.set_ylabel(names[0])
    ax.set_title(title or "trajectory")
    if len(names) >= 3:
        for k, (i, j) in enumerate(pairs):
            a = fig.add_subplot(1, ncols, 2 + k)
            a.plot(data[i], data[j], lw=1.5)
            a.set_xlabel(names[i])
            a.set_ylabel(names[j])
            a.set_title(f"projection on the {names[i]}{names[j]} plane")
            a.grid(True, alpha=0.3)
    _layout(fig)
    return fig


def _log_series(ax, t, values, label=None) -> bool:
    """Plot |values| on a log axis, leaving out the exact zeros (a gap, not a point at 10⁻³⁰⁸ that would
    stretch the axis over 300 decades and flatten everything else).  False if every value is zero."""
    y = np.abs(np.asarray(values, dtype=float))
    pos = y > 0
    ax.semilogy(t, np.where(pos, y, np.nan), label=label)
    return bool(np.any(pos))


def _zero_note(ax) -> None:
    ax.text(0.5, 0.5, "exactly 0 throughout", transform=ax.transAxes, ha="center", va="center")
    ax.set_ylim(1e-17, 1.0)


def plot_monitor(res, fig=None):
    """|f^i| of every constraint and |E − E₀| (if there is an energy) against time, log scale; exact
    zeros (the initial point, a reduced formulation's residuals) are left out of the log axis.

    Parameters
    ----------
    res : SimulationResult
        The simulation.
    fig : matplotlib.figure.Figure, optional
        Draw into it (default: a new figure).

    Returns
    -------
    matplotlib.figure.Figure
        The figure.
    """
    plt = require_matplotlib()
    n = 1 + (res.energy is not None)
    fig = fig or plt.figure(figsize=(5.0 * n, 3.6))
    ax = fig.add_subplot(1, n, 1)
    if res.residuals.size:
        seen = [_log_series(ax, res.t, res.residuals[:, j], f"|f{j + 1}|") for j in range(len(res.constraints))]
        ax.legend(fontsize=8)
        if not any(seen):
            _zero_note(ax)
    ax.set_xlabel("t")
    ax.set_title("constraint residuals" + (" (projected)" if res.projected else ""))
    if res.energy is not None:
        a = fig.add_subplot(1, n, 2)
        if not _log_series(a, res.t, res.energy - res.energy[0]):
            _zero_note(a)
        a.set_xlabel("t")
        a.set_title("energy drift |E - E0|")
    _layout(fig)
    return fig


def plot_reactions(res, fig=None):
    """Reaction forces R_σ(t) (and the multipliers λ_i(t), when known).

    Parameters
    ----------
    res : SimulationResult
        The simulation.
    fig : matplotlib.figure.Figure, optional
        Draw into it (default: a new figure).

    Returns
    -------
    matplotlib.figure.Figure
        The figure.
    """
    plt = require_matplotlib()
    if res.reactions is None:
        raise ValueError("this result carries no reaction forces (the method did not give multipliers)")
    n = 1 + (res.multipliers is not None)
    fig = fig or plt.figure(figsize=(5.0 * n, 3.6))
    ax = fig.add_subplot(1, n, 1)
    for s, name in enumerate(res.q_symbols):
        ax.plot(res.t, res.reactions[:, s], label=f"R_{name}")
    ax.legend(fontsize=8)
    ax.set_xlabel("t")
    ax.set_title("reaction forces")
    if res.multipliers is not None:
        a = fig.add_subplot(1, n, 2)
        for i in range(res.multipliers.shape[1]):
            a.plot(res.t, res.multipliers[:, i], label=f"lambda_{i + 1}")
        a.legend(fontsize=8)
        a.set_xlabel("t")
        a.set_title("multipliers")
    _layout(fig)
    return fig


def plot_series(res, names, fig=None):
    """Chosen coordinates or velocities (names or symbols) against time, one panel.

    Parameters
    ----------
    res : SimulationResult
        The simulation.
    names : sequence of names or Symbols
        Coordinates or velocities.
    fig : matplotlib.figure.Figure, optional
        Draw into it (default: a new figure).

    Returns
    -------
    matplotlib.figure.Figure
        The figure.
    """
    plt = require_matplotlib()
    fig = fig or plt.figure(figsize=(5.0, 3.6))
    ax = fig.add_subplot(1, 1, 1)
    for c in names:
        ax.plot(res.t, res.column(c), label=str(c))
    ax.legend(fontsize=8)
    ax.set_xlabel("t")
    _layout(fig)
    return fig
