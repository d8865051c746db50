"""The exceptions jetgeo raises.

Every error says what was given, what is wrong and where.  They form one small
hierarchy so that callers can catch :class:`JetgeoError` for all of them.
"""

from __future__ import annotations

import sympy as sp

__all__ = [
    "CompilerUnavailableError",
    "NotApplicableError",
    "JetgeoError",
    "ChartError",
    "DegreeError",
    "NotAFunctionError",
    "RankDeficientError",
    "NotRegularError",
    "IncompatibleError",
    "BranchError",
    "OffManifoldError",
    "InputError",
    "SpecError",
    "InitialDataError",
    "MethodUnavailableError",
    "ResourceLimitError",
    "UndecidedError",
    "NotRationalError",
    "NoRootAtPointError",
    "StepFailedError",
]


class JetgeoError(Exception):
    """Base class of every jetgeo error."""


class ChartError(JetgeoError, ValueError):
    """Objects live on different charts, or a symbol is not a coordinate of the chart."""


class DegreeError(JetgeoError, ValueError):
    """A form has the wrong degree for the operation asked of it."""


class NotAFunctionError(DegreeError, sp.SympifyError):
    """A form of degree > 0 where a function (a sympy expression) is expected.

    Also a ``SympifyError``, so that sympy's operators hand over to the form's own
    (``x * η`` is the form x·η; ``x == η`` is False) instead of failing.

    Parameters
    ----------
    message : str
        What was expected and which form was given.
    """

    def __init__(self, message: str) -> None:
        DegreeError.__init__(self, message)
        self.expr = None
        self.base_exc = None

    def __str__(self) -> str:
        return str(self.args[0])


class RankDeficientError(JetgeoError, ValueError):
    """A matrix, distribution or constraint Jacobian has lower rank than required."""


class NotRegularError(JetgeoError):
    """A Lagrangian or constrained system is not regular where regularity is needed."""


class IncompatibleError(JetgeoError):
    """A non-holonomic problem (L, C, D, F) has no unique solution [Ibort et al. 1996, Theorem 2]."""


class BranchError(JetgeoError, ValueError):
    """A nonlinear constraint has several branches and none (or a wrong one) was chosen."""


class OffManifoldError(JetgeoError, ValueError):
    """Data that must lie on a constraint manifold do not."""


class InputError(JetgeoError, ValueError):
    """An argument given to a jetgeo function is malformed: wrong type, wrong shape, a name
    that is not a coordinate, a non-finite number, text where an expression is expected.
    The message names the argument and what is wrong with it."""


class SpecError(InputError):
    """A system specification file is malformed; the message starts with the file and key.

    Raised only where a spec file is read or written (:mod:`jetgeo.io.spec`, :mod:`jetgeo.io.parse`,
    :mod:`jetgeo.io.specs`) and where the command line resolves its SPEC argument or asks of the spec
    what it does not hold (:mod:`jetgeo.cli`); a bad argument anywhere else, the command line's other
    options included, is an :class:`InputError` (checked by ``tests/test_architecture.py``)."""


class InitialDataError(SpecError, OffManifoldError):
    """The initial data of a spec file do not lie on the constraint submanifold Q."""


class MethodUnavailableError(InputError):
    """The command line was asked for something this installation cannot do (e.g. ``--plot``
    without matplotlib); the message says what to install."""


class ResourceLimitError(JetgeoError):
    """A computation exceeded a limit the caller set (time, memory, expression size).

    ``stage`` names the part of the computation that ran out (e.g. ``"normal form"``,
    ``"accelerations"``) and ``limit`` the limit that was reached, so the caller knows
    which route or option to change.  ``token`` identifies the :func:`jetgeo.limits.time_limit` that
    ran out (limits nest) and ``option`` the command-line option that set it, when known.

    Parameters
    ----------
    message : str
        What ran out, in words.
    stage : str, optional
        The stage running when it ran out (:func:`jetgeo.limits.stage`).
    limit : object, optional
        The limit reached (seconds, megabytes, nodes).
    """

    def __init__(self, message: str, stage: str | None = None, limit: object = None) -> None:
        super().__init__(message)
        self.stage = stage
        self.limit = limit
        self.token: object = None
        self.option: str | None = None


class UndecidedError(JetgeoError):
    """A question could not be decided by the available exact methods."""


class NotRationalError(JetgeoError):
    """An expression the exact field arithmetic (shadow values in F_p, :mod:`jetgeo.geometry.exact`)
    cannot evaluate: a function other than sin, cos of an integer combination of symbols, or a
    non-integer power.  Raised to the caller, which treats the atom as an independent generator
    or uses another method; never a statement about the mathematics."""


class NoRootAtPointError(JetgeoError, ZeroDivisionError):
    """A radicand has no square root in F_p at a sample point of the shadows
    (:mod:`jetgeo.geometry.exact.shadow`: its value is a quadratic non-residue).  The point is
    outside the shadow's domain, like a pole (hence a ``ZeroDivisionError``), and the caller
    samples another; never a statement about the mathematics."""


class StepFailedError(JetgeoError):
    """An implicit step of a time-stepping scheme found no solution: Newton's method met a singular
    Jacobian, did not converge within its iteration limit, or met a non-finite value.  ``step`` is
    the index k of the step w_k → w_{k+1} that failed and ``reason`` one of ``"singular"``,
    ``"no-convergence"``, ``"non-finite"`` (no result: the CLI's exit 1).

    Parameters
    ----------
    message : str
        The explanation shown to the user.
    step : int, optional
        The index k of the failing step w_k → w_{k+1}; kept as the attribute ``step``.
    reason : str, optional
        ``"singular"``, ``"no-convergence"`` or ``"non-finite"``; kept as ``reason``.
    """

    def __init__(self, message: str, step: int | None = None, reason: str | None = None) -> None:
        super().__init__(message)
        self.step = step
        self.reason = reason


class NotApplicableError(JetgeoError, ValueError):
    """A classical recipe's hypotheses fail for the given system (e.g. Chaplygin's
    equations for a system that is not of Chaplygin type); the message says which."""


class CompilerUnavailableError(JetgeoError, RuntimeError):
    """No working C compiler or no Python/NumPy headers: the C backend cannot be used.

    The message names the compiler command tried and what failed; callers fall back to the
    Python backend (``backend="auto"``)."""


#: Deprecated alias of :class:`MethodUnavailableError` (the name jetgeo.cli exported before every error
#: class took the ``Error`` suffix); not in ``__all__``.
MethodUnavailable = MethodUnavailableError
