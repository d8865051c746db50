r"""The rarely changed choices of a run, in one object: :class:`SimulationOptions` (what
:func:`~jetgeo.numerics.simulate`, :func:`~jetgeo.numerics.simulation.orientation.simulate_orientation` and
:func:`~jetgeo.numerics.ensemble` share) and :class:`EnsembleOptions` (with how the members of a study are run).

A notebook keeps writing ``simulate(sys, t_span, initial, rtol=1e-8, singular_tol=1e-9)``: the keywords that
are fields of the options object are gathered into it (:meth:`SimulationOptions.merged`), as ``solve_ivp``
hands its ``**options`` to the ``OdeSolver``.  A study that repeats the same choices builds the object once
and passes ``options=``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from ...errors import InputError

__all__ = ["SimulationOptions", "EnsembleOptions", "DEFAULT_TOLERANCES"]

#: the integrator options a run uses unless given (scipy's own defaults are rtol=1e-3, atol=1e-6)
DEFAULT_TOLERANCES = {"rtol": 1e-10, "atol": 1e-12, "max_step": math.inf}

#: the fields that are options of the integrator itself (passed on to the scipy solver when given)
_INTEGRATOR_FIELDS = ("rtol", "atol", "max_step", "first_step", "step")


@dataclass(frozen=True)
class SimulationOptions:
    r"""The rarely changed choices of a simulation (the tolerances, the monitors' thresholds, the atlas,
    the compiler).

    Attributes
    ----------
    rtol : float or None
        The integrator's relative tolerance (None: 1e-10).
    atol : float, sequence of float or None
        Its absolute tolerance (None: 1e-12; one value per state component in :func:`~jetgeo.numerics.simulate`).
    max_step : float or None
        Its largest step (None: inf).
    first_step : float or None
        The integrator's first step (None: its own choice).
    step : float or None
        The fixed step h of a discrete Lagrange–d'Alembert method (``method="dla-…"``; refused otherwise).
    singular_tol : float
        A watched quantity vanishes where |c| falls below ``singular_tol`` times its initial size.
    manifold_tol : float
        Initial data with |f^j| > ``manifold_tol``·(1 + Σ|terms of f^j|) are off Q.
    atlas : bool
        Continue across the boundaries of the normal form's chart of Q (the module docstring of
        :mod:`jetgeo.numerics.simulation.run`).
    backend : str or None
        How the right-hand side is compiled, a name of :data:`~jetgeo.numerics.compile.BACKENDS` or
        ``"auto"`` (None: "python", or the backend of a prepared system; "auto" in an ensemble).
    progress : bool or None
        A progress bar (None: only in a terminal and if tqdm is installed).
    first_integrals : {name: expression in (t, q, q̇)} or None
        Extra quantities evaluated along the solution (``result.integrals``; simulate only).
    extra : {name: value}
        Any other option of the integrator, passed on as given (scipy's solvers: ``vectorized``,
        ``min_step``, …; the discrete methods: ``tol``, ``ftol``, ``max_iter``).

    Examples
    --------
    >>> opts = SimulationOptions(rtol=1e-8, singular_tol=1e-9)
    >>> opts.integrator_options()
    {'rtol': 1e-08, 'atol': 1e-12, 'max_step': inf}
    >>> SimulationOptions.merged(opts, {"atlas": False, "vectorized": True}).given()
    {'rtol': 1e-08, 'vectorized': True}
    """

    rtol: float | None = None
    atol: float | Sequence | None = None
    max_step: float | None = None
    first_step: float | None = None
    step: float | None = None
    singular_tol: float = 1e-6
    manifold_tol: float = 1e-9
    atlas: bool = True
    backend: str | None = None
    progress: bool | None = None
    first_integrals: Mapping | None = None
    extra: Mapping = field(default_factory=dict)

    @classmethod
    def merged(cls, options: SimulationOptions | None, keywords: Mapping, caller: str = "simulate",
               strict: bool = False) -> SimulationOptions:
        """``options`` (None: the defaults of ``cls``) with the keyword arguments of a call put into their fields.

        Parameters
        ----------
        options : SimulationOptions or None
            The ``options=`` argument of the call.
        keywords : {name: value}
            The call's other keyword arguments: a field's name sets the field, any other name goes to
            ``extra`` (unless ``strict``).
        caller : str
            The name the messages start with.
        strict : bool
            Refuse a keyword that is no field (an ensemble's batched integrator takes no other option).

        Returns
        -------
        SimulationOptions
            A new object of the class of ``options`` (or ``cls``).

        Examples
        --------
        >>> SimulationOptions.merged(None, {"rtol": 1e-6}).rtol
        1e-06
        """
        if options is None:
            options = cls()
        elif not isinstance(options, cls):
            raise InputError(f"{caller}: options must be a {cls.__name__}, got {type(options).__name__}")
        names = {f.name for f in dataclasses.fields(options)} - {"extra"}
        unknown = sorted(k for k in keywords if k not in names)
        if strict and unknown:
            raise InputError(f"{caller}: unknown option(s) {unknown}; the options are {sorted(names)}")
        extra = {**options.extra, **{k: v for k, v in keywords.items() if k not in names}}
        return dataclasses.replace(options, extra=extra, **{k: v for k, v in keywords.items() if k in names})

    def given(self) -> dict:
        """The integrator options given (the tolerances and steps not None, and ``extra``), as a call's
        ``**options``.

        Returns
        -------
        dict
            {name: value}, in the order rtol, atol, max_step, first_step, step, extra.

        Examples
        --------
        >>> SimulationOptions(step=0.1).given()
        {'step': 0.1}
        """
        out = {k: vars(self)[k] for k in _INTEGRATOR_FIELDS if vars(self)[k] is not None}
        return {**out, **self.extra}

    def integrator_options(self) -> dict:
        """The options of a scipy solver: :data:`DEFAULT_TOLERANCES` overridden by those given.

        Returns
        -------
        dict
            {name: value} with at least rtol, atol and max_step.

        Examples
        --------
        >>> SimulationOptions(max_step=0.5).integrator_options()["max_step"]
        0.5
        """
        return {**DEFAULT_TOLERANCES, **self.given()}


@dataclass(frozen=True)
class EnsembleOptions(SimulationOptions):
    r"""The options of a study (:func:`~jetgeo.numerics.ensemble`): those of a simulation and how the members
    are run.

    Attributes
    ----------
    rtol : float or None
        As in :class:`SimulationOptions` (so are the fields not named here).
    atol : float or None
        One number (the batch has one tolerance for all states).
    max_step : float or None
        As in :class:`SimulationOptions`.
    first_step : None
        Does not apply to a study (the batch chooses its first steps).
    step : float or None
        The fixed step of a discrete method: the output times must be nodes t0 + k·step.
    singular_tol : float
        As in :class:`SimulationOptions`.
    manifold_tol : float
        As in :class:`SimulationOptions`: a member off Q is ``invalid``.
    atlas : bool
        A member that reaches the boundary of the normal form's chart of Q is integrated again by
        :func:`~jetgeo.numerics.simulate`, which switches charts there; ``False`` stops it (``singular``).
    progress : bool or None
        A progress bar over the members (None: only in a terminal).
    first_integrals : None
        Does not apply to a study.
    extra : {}
        Must stay empty: the batched integrator takes no other option.
    backend : str
        Where a discrete method's Newton and step loops run: "auto" (default), "c" or "python".
    events : bool
        Stop a member at a singular state (as ``simulate(events=True)``).
    chunk_size : int or None
        Members per task (None: N / workers, between 256 and 2500 members).
    scheduler : str
        "local" (a process pool on all cores, or ``workers``) or "serial" (in this process).
    client : distributed.Client or None
        A Dask client: the chunks run on its cluster (takes precedence over ``scheduler``).
    workers : int or None
        The size of the local process pool (None: the number of cores).
    callback : callable or None
        Called in this process after each chunk with {"chunk", "members", "done", "total"}.

    Examples
    --------
    >>> EnsembleOptions(scheduler="serial", rtol=1e-8).backend
    'auto'
    """

    backend: str | None = "auto"
    events: bool = True
    chunk_size: int | None = None
    scheduler: str = "local"
    client: object = None
    workers: int | None = None
    callback: Callable | None = None
