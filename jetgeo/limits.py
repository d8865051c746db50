"""Time and memory limits a caller can set, and the stage markers that name what ran out.

A symbolic derivation can run for ever on a system too large for its route (a normal form of
40 constraints, the expansion of a large power).  Instead of leaving that to the user's
patience, jetgeo lets the caller bound it:

>>> from jetgeo.limits import time_limit, stage
>>> with time_limit(5):                          # doctest: +SKIP
...     acc = system.constrain(Q).accelerations()

raises :class:`~jetgeo.errors.ResourceLimitError` after 5 s, with ``stage`` naming the part
of the computation that was running (``"normal form"``, ``"accelerations"``, ``"integration"``,
…) — the main routes of jetgeo mark their stages with ``with stage("…"):`` — and ``limit``
the number of seconds.

How it works.  On the main thread of a platform with ``SIGALRM`` (Linux, macOS) the limit is
a real-time interval timer whose signal handler raises the error, so it interrupts any Python
code.  It cannot interrupt one long call into C (a single huge integer multiplication): the
spec parser's size limits exist so that no such call is ever made on input.  Elsewhere (a
worker thread, Windows) the limit is *cooperative*: it is checked when a stage begins or ends
and at :func:`checkpoint` calls (the numerical integration checks at every step).  Limits nest:
an inner limit never extends an outer one, and leaving it restores the outer timer.

:func:`memory_limit` bounds the address space of the process (``RLIMIT_AS``); exceeding it
raises ``MemoryError``, which the ``jetgeo`` command reports as a resource limit with the
current stage.

This module imports nothing of jetgeo but :mod:`jetgeo.errors`, so every layer may use it.
"""

from __future__ import annotations

import functools
import math
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from .errors import InputError, ResourceLimitError

__all__ = ["time_limit", "memory_limit", "stage", "staged", "current_stage", "checkpoint", "check_seconds",
           "MAX_SECONDS", "MAX_MEGABYTES"]

_local = threading.local()


def _stages() -> list:
    if not hasattr(_local, "stages"):  # threading.local: a thread has the attribute only once it set it
        _local.stages = []
    return _local.stages


def _deadlines() -> list:
    """Active limits of this thread, innermost last: [(deadline, seconds, token), ...]."""
    if not hasattr(_local, "deadlines"):  # threading.local: a thread has the attribute only once it set it
        _local.deadlines = []
    return _local.deadlines


def current_stage() -> str | None:
    """The innermost stage now running on this thread (None outside every stage).

    Returns
    -------
    str or None
        The name given to the innermost :func:`stage`.
    """
    st = _stages()
    return st[-1] if st else None


#: the largest finite time limit, 10⁷ s (about 16 weeks); the interval timer overflows near 9.2·10⁹ s
MAX_SECONDS = 1e7
#: the largest finite memory limit, 10⁹ MB (a petabyte); ``setrlimit`` overflows near 8.8·10¹² MB
MAX_MEGABYTES = 1e9


def check_seconds(seconds: object, what: str = "time limit", maximum: float = MAX_SECONDS,
                  unit: str = "seconds") -> float:
    """``seconds`` as a float ≥ 0 and at most ``maximum`` (0 and ``inf`` mean no limit).

    Parameters
    ----------
    seconds : object
        The limit given by the caller.
    what : str
        What it is, in front of the message ("" for none: the command line names the option).
    maximum : float
        The largest finite value (:data:`MAX_SECONDS`, or :data:`MAX_MEGABYTES` for a memory limit):
        a larger one would overflow the interval timer or ``setrlimit``.
    unit : str
        The unit named in the message.

    Returns
    -------
    float
        The limit.

    Raises
    ------
    InputError
        For text, a boolean, ``nan``, a negative number or a finite number above ``maximum``.

    Examples
    --------
    >>> check_seconds(2), check_seconds(float("inf"))
    (2.0, inf)
    >>> check_seconds(1e10, "t")
    Traceback (most recent call last):
    ...
    jetgeo.errors.InputError: t: 1e+10 seconds is more than the largest finite limit, 1e+07 (0 or inf: no limit)
    """
    head = f"{what}: " if what else ""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
        raise InputError(f"{head}expected a number of {unit}, got {type(seconds).__name__} {seconds!r}")
    try:
        s = float(seconds)
    except OverflowError:  # an integer beyond every float: no timer holds it
        raise InputError(f"{head}an integer beyond the range of floats is more than the largest finite limit, "
                         f"{maximum:g} (0 or inf: no limit)") from None
    if math.isnan(s) or s < 0:
        raise InputError(f"{head}expected a number of {unit} >= 0 (0 or inf: no limit), got {seconds!r}")
    if math.isfinite(s) and s > maximum:
        raise InputError(f"{head}{s:g} {unit} is more than the largest finite limit, {maximum:g} "
                         "(0 or inf: no limit)")
    return s


def _expired(token: object, seconds: float) -> ResourceLimitError:
    where = current_stage()
    at = f" during {where}" if where else ""
    exc = ResourceLimitError(f"time limit of {seconds:g} s reached{at}", stage=where, limit=seconds)
    exc.token = token  # which time_limit ran out (limits nest)
    return exc


def checkpoint() -> None:
    """Raise :class:`ResourceLimitError` if a limit of this thread has run out (cooperative check)."""
    dl = _deadlines()
    if not dl:
        return
    now = time.monotonic()
    for deadline, seconds, token in dl:  # the outermost expired limit wins: it is the one the caller set first
        if now >= deadline:
            raise _expired(token, seconds)


def _signal_usable() -> bool:
    import signal

    # the standard library's signal module has no setitimer on Windows
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


def _arm(deadline: float | None) -> None:
    """Point the interval timer at ``deadline`` (None: disarm)."""
    import signal

    if deadline is None:
        signal.setitimer(signal.ITIMER_REAL, 0)
    else:
        signal.setitimer(signal.ITIMER_REAL, max(deadline - time.monotonic(), 1e-4))


def _handler(signum, frame) -> None:  # pragma: no cover - exercised through time_limit
    dl = _deadlines()
    now = time.monotonic()
    for deadline, seconds, token in dl:
        if now >= deadline - 1e-3:
            # fire again soon in case a broad ``except`` in the running code swallows this one:
            # the limit keeps firing until its block is left
            _arm(now + 0.25)
            raise _expired(token, seconds)
    # a stale alarm (the limit was left meanwhile): re-arm for the innermost active one
    if dl:
        _arm(min(d for d, _, _ in dl))


@contextmanager
def time_limit(seconds: float | None) -> Iterator[object]:
    """Bound the wall-clock time of the block; ``None``, 0 or ``inf``: no limit.

    Raises :class:`~jetgeo.errors.ResourceLimitError` (``stage``: the stage running when the
    time ran out, ``limit``: ``seconds``) inside the block.  Yields a token; the error's
    ``token`` attribute is the token of the limit that ran out, so that nested code can tell
    its own limit from an outer one.

    Parameters
    ----------
    seconds : float or None
        The time allowed (at most :data:`MAX_SECONDS`); ``None``, 0 or ``inf``: no limit.

    Returns
    -------
    contextmanager
        Yields the token of this limit.
    """
    s = 0.0 if seconds is None else check_seconds(seconds)
    token = object()
    if s == 0 or math.isinf(s):
        yield token
        return
    dl = _deadlines()
    deadline = time.monotonic() + s
    use_signal = _signal_usable()
    old_handler = None
    if use_signal:
        import signal

        old_handler = signal.signal(signal.SIGALRM, _handler)
    dl.append((deadline, s, token))
    if use_signal:
        _arm(min(d for d, _, _ in dl))
    try:
        yield token
    finally:
        dl.remove((deadline, s, token))
        if use_signal:
            import signal

            _arm(min(d for d, _, _ in dl) if dl else None)
            signal.signal(signal.SIGALRM, old_handler)


@contextmanager
def stage(name: str) -> Iterator[None]:
    """Mark a stage of a computation: a limit that runs out inside names it.

    Entering and leaving a stage are also cooperative checkpoints (:func:`checkpoint`).

    Parameters
    ----------
    name : str
        The stage's name, as error messages say it (``"compatibility"``, ``"simulation"``, …).

    Returns
    -------
    contextmanager
        Yields nothing; a ``MemoryError`` or :class:`~jetgeo.errors.ResourceLimitError` leaving the
        block carries ``name`` when no inner stage named it.
    """
    st = _stages()
    checkpoint()
    st.append(name)
    try:
        yield
    except MemoryError as exc:
        if not getattr(exc, "jetgeo_stage", None):
            try:
                exc.jetgeo_stage = name
            except AttributeError:  # pragma: no cover - MemoryError instances accept attributes
                pass
        raise
    finally:
        st.pop()
    checkpoint()


@contextmanager
def memory_limit(megabytes: float | None) -> Iterator[None]:
    """Bound the address space of the process to ``megabytes`` (None or 0: no limit).

    Exceeding it raises ``MemoryError`` where the allocation happens.  The previous limit is
    restored on exit.  Only where ``resource.RLIMIT_AS`` exists (Linux, macOS); elsewhere an
    :class:`~jetgeo.errors.InputError` says so.

    Parameters
    ----------
    megabytes : float or None
        The bound in MiB (checked as :func:`check_seconds` checks a budget: positive, finite, at
        most ``MAX_MEGABYTES``); None, 0 or inf: no limit.

    Returns
    -------
    contextlib.AbstractContextManager
        A context manager: the limit holds inside the ``with`` block.

    Raises
    ------
    jetgeo.errors.InputError
        For a negative or too large value, or on a platform without ``RLIMIT_AS``.

    Examples
    --------
    >>> with memory_limit(None):
    ...     sum(range(10))
    45
    """
    mb = 0.0 if megabytes is None else check_seconds(megabytes, "memory limit", MAX_MEGABYTES, "megabytes")
    if mb == 0 or math.isinf(mb):
        yield
        return
    try:
        import resource
    except ImportError:  # pragma: no cover - not POSIX
        raise InputError("memory limit: not supported on this platform (no resource.RLIMIT_AS)") from None
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    want = int(mb * 2**20)
    if hard != resource.RLIM_INFINITY and want > hard:
        want = hard
    resource.setrlimit(resource.RLIMIT_AS, (want, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def staged(name: str):
    """Decorator: the function runs as :func:`stage` ``name`` (one line above a ``def``).

    Parameters
    ----------
    name : str
        The stage's name.

    Returns
    -------
    callable
        The decorator: it wraps a function so that every call runs inside ``stage(name)``.
    """

    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with stage(name):
                return fn(*args, **kwargs)

        return wrapper

    return decorate
