"""Progress bars for long derivations and integrations (tqdm, optional), and the warning that
announces a large computation before it starts.

``progress=None`` (the default everywhere) shows a bar only when stderr is a terminal and
tqdm is installed — never in notebooks' captured output, CI logs or pipes; ``True`` asks for
one (with a warning if tqdm is missing), ``False`` never shows one.  This module imports
nothing of jetgeo, so every layer may use it.
"""

from __future__ import annotations

import sys
import warnings

__all__ = ["progress_bar", "tracked", "LargeComputationWarning"]


class LargeComputationWarning(UserWarning):
    """A computation the caller asked for is about to work on a very large expression (the
    canonical form of an unexpanded DAG result): the message gives the size estimate
    (:func:`jetgeo.geometry.exact.size_estimate`) before it starts, and a progress bar follows,
    so that a long silence is never a surprise.  A warning, not an error: the work proceeds."""


def progress_bar(total: int, desc: str, progress: bool | None = None, unit: str = "step"):
    """A tqdm bar with ``total`` steps, or ``None`` when not wanted or not possible.

    Parameters
    ----------
    total : int
        The number of steps.
    desc : str
        The bar's label.
    progress : bool or None
        True: a bar (tqdm needed); False: none; None: only when stderr is a terminal and tqdm is installed.
    unit : str
        What a step is called.

    Returns
    -------
    tqdm.tqdm or None
        The bar, or None.
    """
    if progress is False:
        return None
    # sys.stderr may be replaced by any writable object (a notebook's stream), which need not have isatty
    if progress is None and not (hasattr(sys.stderr, "isatty") and sys.stderr.isatty()):
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        if progress:
            warnings.warn("progress=True needs tqdm (pip install tqdm); continuing without a progress bar",
                          stacklevel=3)
        return None
    return tqdm(total=total, desc=desc, unit=unit, leave=False)


def tracked(items, desc: str, progress: bool | None = None, unit: str = "step", label=None):
    """Yield the items of a sequence, counting them on a :func:`progress_bar` (same rules for
    ``progress``); ``label(item)``, if given, is shown beside the bar while the item is worked on.
    The bar is closed however the loop ends.

    Parameters
    ----------
    items : sequence
        The items.
    desc : str
        The bar's label.
    progress : bool or None
        As for :func:`progress_bar`.
    unit : str
        What an item is called.
    label : callable, optional
        item ↦ text shown beside the bar.

    Returns
    -------
    iterator
        The items, in order.
    """
    items = list(items)
    bar = progress_bar(len(items), desc, progress, unit)
    try:
        for item in items:
            if bar is not None and label is not None:
                bar.set_postfix_str(label(item))
            yield item
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
