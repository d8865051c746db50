r"""A compiled implicit stepper: Newton's method on F(z; w, p) = 0 at every step, then w ← advance(w, z, p).

A one-step scheme written implicitly (implicit midpoint, the discrete Lagrange–d'Alembert equations of
discrete non-holonomic mechanics) solves at each step k a square system

.. math:: F(z;\, w_k, p) = 0, \qquad w_{k+1} = A(w_k, z, p)

for m unknowns z (e.g. q_{k+1} and the Lagrange multipliers), given the n known values w_k (the time,
q_k, p_k, …) and the parameters p.  :func:`compile_stepper` derives the Jacobian ∂F/∂z exactly
(:func:`~jetgeo.geometry.exact.diff_dag`), compiles F and ∂F/∂z together (one common-subexpression
elimination for both) and returns an :class:`ImplicitStepper`.

API (the shapes are fixed when the stepper is compiled)
-------------------------------------------------------
``compile_stepper(residual, unknowns, known, parameters=(), advance=..., predictor=None, *,
backend="python", tol=1e-13, ftol=1e-12, max_iter=30) -> ImplicitStepper``

* ``residual``: m sympy expressions F_i in the symbols ``unknowns`` (m of them: z), ``known``
  (n of them: w) and ``parameters`` (the vector p); no other free symbol.
* ``advance``: n expressions in w, z, p giving w_{k+1} (required: a stepper without it has no next
  node; ``None`` is an :class:`~jetgeo.errors.InputError`).
* ``predictor``: m expressions in w, p (z is not available to it) giving the first Newton iterate of
  every step.  Without a predictor the first iterate is the previous step's solution z_{k-1}; at the
  first step of a run it is ``guess`` if given, else zeros.  (Rule of ``step``: ``guess``, else the
  predictor, else zeros.)
* ``backend``: ``"python"`` (the compiled Python functions of :func:`~jetgeo.numerics.compile_rhs`,
  the Newton and step loops in Python/NumPy) or ``"c"`` (one C extension module holding F, ∂F/∂z,
  the predictor, the advance map, the LU solve, the Newton loop and the step loop, built through the
  cache of :mod:`jetgeo.numerics.codegen`; :class:`~jetgeo.errors.CompilerUnavailableError` without
  a compiler) or ``"auto"`` (C when it builds, else Python).

``ImplicitStepper.step(w, p=(), guess=None) -> (z, w_next)``: one step, two float64 arrays of
shapes (m,) and (n,); a failure raises :class:`~jetgeo.errors.StepFailedError` (``.step`` = 0,
``.reason``).

``ImplicitStepper.run(w0, n_steps, p=(), every=1, guess=None) -> StepperRun``: ``n_steps`` steps
from w0; :class:`StepperRun` holds ``nodes`` (K, n) — the nodes w_j at the indices ``steps`` (K,)
= 0, every, 2·every, … and the last index reached —, ``unknowns`` (K-1, m) — the z of the step
that produced each node after the first —, ``iterations`` (K-1,) and ``residual_norms`` (K-1,) —
the largest Newton iteration count and the largest final ‖F‖∞ over the steps since the previous
node —, ``status`` (``"ok"``, ``"singular"``, ``"no-convergence"``, ``"non-finite"``),
``failed_step`` (the k of the failed step w_k → w_{k+1}, or None), ``message``, ``steps_done``,
``last`` (n,) and ``last_unknowns`` (m,) (the last node reached and the z that produced it).  A
failed run stops at the failing step and keeps the nodes before it (``nodes`` then ends with
w_{failed_step}); ``raise_for_status()`` turns a failure into :class:`~jetgeo.errors.StepFailedError`.

Newton's method
---------------
Iterates z ← z − Δz with J Δz = F, J = ∂F/∂z(z; w, p), solved by a dense LU factorisation with
partial pivoting [Golub–Van Loan 2013, Algorithm 3.4.1].  F is evaluated after every update, and
the step has converged when

1. the residual at the current z satisfies ‖F‖∞ ≤ ftol·(1 + ‖(z, w)‖∞), and
2. the last update satisfied ‖Δz‖∞ ≤ tol·(1 + ‖z‖∞), or it was no smaller than the update before
   it while below √tol·(1 + ‖z‖∞).

The second alternative of 2 is the round-off floor of z: quadratic convergence shrinks every update
until no smaller one can be resolved.  A multiplier λ that enters F multiplied by h is known only to
about ε·|F's terms|/h: on the rolling disc's bordered midpoint rule at h = 0.01 the updates of λ
wander near 1e-12 while ‖F‖∞ ≈ 4e-14, and tol·(1 + ‖z‖∞) = 3e-13 is never met.  Far from a root
Newton's updates may grow before they shrink; the bound √tol keeps that from counting as the floor.
The residual is measured against the size of the point because the round-off of evaluating F
grows with it: an angle that winds up (the disc's spin angle reaches 8e3 rad in 1e6 steps) or a
position that drifts away carries an absolute error ε·|q| into every term it enters, and an
absolute ftol would eventually stop any long run.  The residual norms reached are recorded
(``StepperRun.residual_norms``).  The step fails

* ``"singular"``: a pivot |u_kk| ≤ m·ε·max|J_ij| (ε the double's machine epsilon; an exactly zero
  column included);
* ``"no-convergence"``: ``max_iter`` updates without meeting both tests;
* ``"non-finite"``: F, J, the predictor or the advance map gave a NaN or an infinity.

Periodic known values
---------------------
``periodic`` lists known values w_i (by index) that the scheme sees only modulo 2π: F and the
predictor are unchanged and advance_i grows by exactly 2π (the other entries of the advance map
unchanged) when w_i → w_i + 2π.  :func:`compile_stepper` decides this exactly (sympy's own
evaluation of sin(x + 2π) = sin(x) and of the sums, compared structurally; see
:func:`periodic_indices`) and refuses an index that fails.  Such a value is carried reduced to
[−π, π) plus a whole number of turns: a run reduces w0 and every new node, the reduction
w − 2πn is exact (Sterbenz's lemma for the one turn a step adds), and the residual sees an angle of
size ≤ π instead of one that winds up to 1e4 rad, where ulp(w)/h — the smallest change of the
node a step can make, divided by h — exceeds the constraint tolerance.  ``StepperRun.nodes`` are
the reduced nodes, ``StepperRun.turns`` the turns and ``StepperRun.unwrapped()`` the nodes with
2π·turns added back.

Both backends run the same algorithm in the same order of operations; they agree to round-off.

>>> import sympy as sp
>>> q1, q0, h = sp.symbols("q1 q0 h")
>>> st = compile_stepper([q1 - q0 - h * (q0 + q1) / 2], [q1], [q0], [h], advance=[q1])  # y' = y, midpoint
>>> z, w = st.step([1.0], [0.1])
>>> round(float(w[0]), 12) == round(1.05 / 0.95, 12)
True
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import sympy as sp

from ..errors import CompilerUnavailableError, InputError, StepFailedError
from ..geometry.coerce import as_expr
from ..geometry.exact import diff_dag, free_symbols_dag, xreplace_dag
from . import codegen
from .compile import _check_compilable, compile_rhs

__all__ = ["ImplicitStepper", "StepperRun", "compile_stepper", "periodic_indices"]

BACKENDS = ("python", "c", "auto")
#: status codes shared by both backends (the C module returns the integer)
STATUS = ("ok", "singular", "no-convergence", "non-finite")
_OK, _SINGULAR, _NOCONV, _NONFINITE = range(4)
_EPS = float(np.finfo(float).eps)
#: the C backend's bounds (its arrays live on the stack: (m + m²) doubles take 0.5 MB at m = 256)
C_MAX_UNKNOWNS = 256
C_MAX_KNOWN = 4096
_TWO_PI = 2.0 * math.pi


@dataclass(frozen=True)
class StepperRun:
    """The nodes of a run of :meth:`ImplicitStepper.run` and how each step's Newton iteration went.

    Attributes
    ----------
    nodes : ndarray, shape (K, n)
        The nodes w_j at the step indices ``steps``.
    steps : ndarray of int, shape (K,)
        0, every, 2·every, … and the last index reached.
    unknowns : ndarray, shape (K-1, m)
        The solution z of the step that produced each node after the first.
    iterations : ndarray of int, shape (K-1,)
        The largest number of Newton updates over the steps since the previous node.
    residual_norms : ndarray, shape (K-1,)
        The largest final ‖F‖∞ over the steps since the previous node.
    status : str
        ``"ok"``, ``"singular"``, ``"no-convergence"`` or ``"non-finite"``.
    failed_step : int or None
        The index k of the step w_k → w_{k+1} that failed.
    message : str
        What happened (empty when ``status == "ok"``).
    steps_done : int
        The number of completed steps (the index of ``last``).
    last : ndarray, shape (n,)
        The last node reached.
    last_unknowns : ndarray, shape (m,)
        The z of the step that produced ``last`` (zeros, or the guess, when no step was taken).
    periodic : tuple of int
        The indices of the known values carried modulo 2π (``compile_stepper(periodic=...)``).
    turns : ndarray or None, shape (K, len(periodic))
        The whole turns taken out of those values at each node (:meth:`run` always fills it; no
        columns without periodic values).
    last_turns : ndarray or None, shape (len(periodic),)
        The whole turns at ``last``.
    """

    nodes: np.ndarray
    steps: np.ndarray
    unknowns: np.ndarray
    iterations: np.ndarray
    residual_norms: np.ndarray
    status: str
    failed_step: int | None
    message: str
    steps_done: int
    last: np.ndarray
    last_unknowns: np.ndarray
    periodic: tuple = ()
    turns: np.ndarray | None = None
    last_turns: np.ndarray | None = None

    def unwrapped(self) -> np.ndarray:
        """The nodes with the turns of the periodic values added back: w_i + 2π·turns_i.

        Returns
        -------
        ndarray, shape (K, n)
            ``nodes`` when nothing is periodic.

        Examples
        --------
        >>> import sympy as sp
        >>> a, v, h = sp.symbols("a v h")
        >>> st = compile_stepper([v - 1], [v], [a], [h], advance=[a + h * v], periodic=[0])   # a' = 1
        >>> r = st.run([3.0], 2, [1.0])
        >>> r.nodes[:, 0].round(6).tolist(), r.turns[:, 0].tolist(), r.unwrapped()[:, 0].round(6).tolist()
        ([3.0, -2.283185, -1.283185], [0.0, 1.0, 1.0], [3.0, 4.0, 5.0])
        """
        out = self.nodes.copy()
        if self.periodic and self.turns is not None:
            out[:, list(self.periodic)] += _TWO_PI * self.turns
        return out

    @property
    def ok(self) -> bool:
        """True if every step converged."""
        return self.status == "ok"

    def raise_for_status(self) -> StepperRun:
        """This run if it is ok; otherwise raise :class:`~jetgeo.errors.StepFailedError`.

        Returns
        -------
        StepperRun
            ``self``.

        Raises
        ------
        StepFailedError
            With ``.step`` (the failed step's index) and ``.reason`` (the status).

        Examples
        --------
        >>> import sympy as sp
        >>> z, w = sp.symbols("z w")
        >>> st = compile_stepper([z**2 + 1], [z], [w], advance=[w])        # no real root
        >>> r = st.run([0.0], 3, guess=[0.3])
        >>> r.status, r.failed_step, r.steps_done
        ('no-convergence', 0, 0)
        >>> r.raise_for_status()
        Traceback (most recent call last):
        ...
        jetgeo.errors.StepFailedError: stepper: step 0 (w_0 → w_1): Newton's method did not converge in 30 ...
        """
        if not self.ok:
            raise StepFailedError(self.message, step=self.failed_step, reason=self.status)
        return self

    def __repr__(self) -> str:
        tail = "" if self.ok else f", failed_step={self.failed_step}"
        return (f"StepperRun(status={self.status!r}, steps_done={self.steps_done}, nodes={self.nodes.shape}"
                f"{tail}, max iterations={int(self.iterations.max(initial=0))}, "
                f"max residual={float(self.residual_norms.max(initial=0.0)):.2e})")


class ImplicitStepper:
    """A compiled one-step scheme F(z; w, p) = 0, w_next = advance(w, z, p) (see the module docstring).

    Attributes: ``unknowns``, ``known``, ``parameters`` (the symbols, in the order of z, w, p),
    ``backend`` ("python" or "c"), ``tol``, ``ftol``, ``max_iter``, ``source`` (the generated C
    source, or a dict of the Python sources of the compiled functions).

    Built by :func:`compile_stepper` (not directly); :meth:`step` takes one step, :meth:`run` many.

    Parameters
    ----------
    unknowns : tuple of Symbol
        z, the m unknowns solved for at each step.
    known : tuple of Symbol
        w, the n known values of a node.
    parameters : tuple of Symbol
        The parameters p.
    backend : str
        ``"python"`` or ``"c"``: where the Newton and step loops run.
    tol : float
        The update test ‖Δz‖∞ ≤ tol·(1 + ‖z‖∞) (or the round-off floor below √tol).
    ftol : float
        The residual test ‖F‖∞ ≤ ftol·(1 + ‖(z, w)‖∞).
    max_iter : int
        The most Newton updates per step.
    has_predictor : bool
        Whether a predictor gives each step's first iterate.
    kernels : dict, optional
        The Python backend's compiled functions (residual and Jacobian, advance, predictor).
    module : module, optional
        The C backend's extension module.
    source : str or dict, default ""
        The generated C source, or {name: Python source}.
    periodic : tuple of int, default ()
        The indices of the known values carried modulo 2π.
    """

    def __init__(self, unknowns: tuple, known: tuple, parameters: tuple, backend: str, tol: float, ftol: float,
                 max_iter: int, has_predictor: bool, kernels: dict | None = None, module=None,
                 source: str | dict = "", periodic: tuple = ()) -> None:
        self.unknowns = unknowns
        self.known = known
        self.parameters = parameters
        self.backend = backend
        self.tol = tol
        self.ftol = ftol
        self.max_iter = max_iter
        self.has_predictor = has_predictor
        self.periodic = tuple(periodic)
        self.source = source
        self._kernels = kernels
        self._module = module

    def __repr__(self) -> str:
        return (f"ImplicitStepper(backend={self.backend!r}, unknowns={list(self.unknowns)}, known={list(self.known)}, "
                f"parameters={list(self.parameters)}, tol={self.tol:g}, ftol={self.ftol:g}, max_iter={self.max_iter})")

    # -- inputs --------------------------------------------------------------------------------
    def _vector(self, values, size: int, what: str) -> np.ndarray:
        try:
            v = np.array(values, dtype=float).reshape(-1) if not np.isscalar(values) else None
        except (TypeError, ValueError) as exc:
            raise InputError(f"stepper: {what} must be a sequence of {size} numbers, got {values!r:.60}") from exc
        if v is None or v.size != size:
            raise InputError(f"stepper: {what} must have {size} entries (in the order of the symbols), got "
                             f"{values!r:.60}")
        if not np.all(np.isfinite(v)):
            raise InputError(f"stepper: {what} holds a non-finite value: {v.tolist()!r:.80}")
        return np.ascontiguousarray(v)

    def _inputs(self, w, p, guess) -> tuple:
        w = self._vector(w, len(self.known), "the known vector w")
        p = self._vector(p, len(self.parameters), "the parameters p")
        z0 = np.zeros(len(self.unknowns)) if guess is None else self._vector(guess, len(self.unknowns),
                                                                                "the guess of z")
        return w, p, z0

    # -- public --------------------------------------------------------------------------------
    def step(self, w, p=(), guess=None) -> tuple[np.ndarray, np.ndarray]:
        """One step from the node ``w``: the solution z of F(z; w, p) = 0 and the next node.

        Parameters
        ----------
        w : sequence of float, length n
            The known values, in the order of ``known``.
        p : sequence of float, length of ``parameters``
            The parameter values.
        guess : sequence of float, length m, optional
            The first Newton iterate; default the predictor's value, else zeros.

        Returns
        -------
        (ndarray, ndarray)
            z (shape (m,)) and w_next = advance(w, z, p) (shape (n,)).

        Raises
        ------
        StepFailedError
            Newton's method failed (``.reason``: singular, no-convergence, non-finite).
        InputError
            A vector of the wrong length or with a non-finite entry.

        Examples
        --------
        >>> import sympy as sp
        >>> z, w = sp.symbols("z w")
        >>> st = compile_stepper([z**2 - w], [z], [w], advance=[z], predictor=[w])   # w_next = sqrt(w)
        >>> z1, w1 = st.step([4.0])
        >>> float(z1[0]), float(w1[0])
        (2.0, 2.0)
        """
        w, p, z0 = self._inputs(w, p, guess)
        run = self._run(w, p, z0, 1, 1, use_predictor=guess is None)
        run.raise_for_status()
        return run.last_unknowns, run.last

    def run(self, w0, n_steps: int, p=(), every: int = 1, guess=None) -> StepperRun:
        """``n_steps`` steps from ``w0``, keeping every ``every``-th node (and the last).

        Parameters
        ----------
        w0 : sequence of float, length n
            The first node.
        n_steps : int
            The number of steps (≥ 0).
        p : sequence of float
            The parameter values, in the order of ``parameters``.
        every : int
            Keep the nodes w_j with j a multiple of ``every`` (and the last one reached).
        guess : sequence of float, length m, optional
            The first Newton iterate of the first step when there is no predictor (default zeros).

        Returns
        -------
        StepperRun
            The nodes, the unknowns, the iteration counts and the residual norms; on a failure the
            run stops at the failing step with ``status`` and ``failed_step`` set (no exception:
            call ``raise_for_status()`` for one).

        Raises
        ------
        InputError
            A vector of the wrong length or with a non-finite entry, ``n_steps`` or ``every`` not a
            non-negative (positive) integer.

        Examples
        --------
        >>> import sympy as sp
        >>> q1, q0, h = sp.symbols("q1 q0 h")
        >>> st = compile_stepper([q1 - q0 - h * (q0 + q1) / 2], [q1], [q0], [h], advance=[q1])
        >>> r = st.run([1.0], 10, [0.1], every=5)
        >>> r.status, r.steps.tolist(), r.nodes.shape
        ('ok', [0, 5, 10], (3, 1))
        """
        for name, value, low in (("n_steps", n_steps, 0), ("every", every, 1)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not low <= value < 2**62:
                raise InputError(f"stepper: {name} must be an integer in [{low}, 2**62), got {value!r:.40}")
        w, p, z0 = self._inputs(w0, p, guess)
        return self._run(w, p, z0, int(n_steps), int(every), use_predictor=True)

    # -- the two loops -------------------------------------------------------------------------
    def _run(self, w, p, z0, n_steps: int, every: int, use_predictor: bool) -> StepperRun:
        m, n = len(self.unknowns), len(self.known)
        n_saved = n_steps // every + 1 + (1 if n_steps % every else 0)
        nodes = np.empty((n_saved, n))
        zs = np.empty((n_saved - 1, m))
        its = np.zeros(n_saved - 1, dtype=np.int32)
        res = np.zeros(n_saved - 1)
        last = np.empty(n + m)
        predict = use_predictor and self.has_predictor
        per = self.periodic
        n_per = max(len(per), 1)  # the C module's arrays are never empty
        turns = np.zeros((n_saved, n_per))
        turns0 = np.zeros(n_per)
        w = w.copy()
        for j, i in enumerate(per):  # the first node reduced as every later one
            turns0[j] = math.floor((w[i] + math.pi) / _TWO_PI)
            w[i] -= turns0[j] * _TWO_PI
        if self._module is not None:
            status, k, saved, it, fn = self._module.run(w, p, z0, n_steps, every, self.tol, self.ftol, self.max_iter,
                                                          int(predict), nodes, zs, its, res, last, turns0, turns)
        else:
            status, k, saved, it, fn = self._run_python(w, p, z0, n_steps, every, predict, nodes, zs, its, res, last,
                                                        turns0, turns)
        steps = np.minimum(np.arange(saved) * every, n_steps)
        message = "" if status == _OK else self._message(status, k, it, fn)
        return StepperRun(nodes=nodes[:saved], steps=steps, unknowns=zs[:saved - 1], iterations=its[:saved - 1],
                          residual_norms=res[:saved - 1], status=STATUS[status],
                          failed_step=None if status == _OK else int(k), message=message, steps_done=int(k),
                          last=last[:n].copy(), last_unknowns=last[n:].copy(), periodic=per,
                          turns=turns[:saved, :len(per)].copy(), last_turns=turns0[:len(per)].copy())

    def _message(self, status: int, k: int, it: int, fn: float) -> str:
        where = f"stepper: step {k} (w_{k} → w_{k + 1})"
        if status == _SINGULAR:
            return (f"{where}: the Jacobian ∂F/∂z is singular at Newton iteration {it} (a pivot ≤ m·ε·max|J|); "
                    "the discrete equations do not determine z there")
        if status == _NOCONV:
            return (f"{where}: Newton's method did not converge in {self.max_iter} iterations (‖F‖∞ = {fn:.3g}, "
                    f"tol={self.tol:g}, ftol={self.ftol:g} relative to 1 + ‖(z, w)‖∞); try a smaller step or a better "
                    "predictor")
        return (f"{where}: a non-finite value (NaN or inf) in the residual, its Jacobian, the predictor or the "
                f"advance map at Newton iteration {it}")

    def _run_python(self, w, p, z0, n_steps, every, predict, nodes, zs, its, res, last, turns0, turns) -> tuple:
        """The step loop in Python; ``turns0`` (the turns of w, updated in place to those of the last
        node) and ``turns`` (filled at the saved nodes) as in the C template."""
        m, n = len(self.unknowns), len(self.known)
        kern = self._kernels
        per = [(j, m + i) for j, i in enumerate(self.periodic)]
        y = [*z0.tolist(), *w.tolist()]
        zgood = z0.tolist()
        nodes[0] = w
        turns[0] = turns0
        saved, acc_it, acc_res, status, it, fn, k = 1, 0, 0.0, _OK, 0, 0.0, 0
        for k in range(n_steps):  # noqa: B007 - k is the index reached, used after the loop
            if predict:
                zp = _finite(kern["predictor"], y, p)
                if zp is None:
                    status, it, fn = _NONFINITE, 0, math.nan
                    break
                y[:m] = zp
            status, it, fn = _newton(kern["resjac"], kern["res"], y, p, m, self.tol, self.ftol, self.max_iter)
            if status != _OK:
                break
            wn = _finite(kern["advance"], y, p)
            if wn is None:
                status = _NONFINITE
                break
            y[m:] = wn
            for j, i in per:
                if not -math.pi <= y[i] < math.pi:
                    r = math.floor((y[i] + math.pi) / _TWO_PI)
                    y[i] -= r * _TWO_PI
                    turns0[j] += r
            zgood = y[:m]
            acc_it, acc_res = max(acc_it, it), max(acc_res, fn)
            if (k + 1) % every == 0 or k + 1 == n_steps:
                nodes[saved] = y[m:]
                turns[saved] = turns0
                zs[saved - 1] = zgood
                its[saved - 1], res[saved - 1] = acc_it, acc_res
                saved += 1
                acc_it, acc_res = 0, 0.0
        else:
            k = n_steps
        last[:n], last[n:] = y[m:], zgood
        return status, k, saved, it, fn


def _finite(f, y: list, p: np.ndarray) -> list | None:
    """``f(0, y, p)`` as a list of floats, or None if a value is not finite (in C: NaN or inf; in
    Python ``math`` raises for a domain error, a division by zero or an overflow instead)."""
    try:
        out = f(0.0, y, p).tolist()
    except (ValueError, ZeroDivisionError, OverflowError):
        return None
    return out if all(map(math.isfinite, out)) else None


def _newton(resjac, res, y: list, p: np.ndarray, m: int, tol: float, ftol: float, max_iter: int) -> tuple:
    """Newton's method on the first m entries of the list ``y``, in place: (status, updates, final ‖F‖∞).

    After an update that meets the update test only F is evaluated (``res``), for the residual test;
    F and ∂F/∂z together (``resjac``) otherwise, and again when the residual test fails.  The same
    algorithm, in the same order of floating-point operations, as the C template's ``newton``
    (plain floats: for a few unknowns they are faster than NumPy's scalars)."""
    it, small, prev, stol = 0, False, math.inf, math.sqrt(tol)
    out = _finite(resjac, y, p)
    while True:
        if out is None:
            return _NONFINITE, it, math.nan
        fn = max(map(abs, out[:m]))
        if small and fn <= ftol * (1.0 + max(map(abs, y))):
            return _OK, it, fn
        if it >= max_iter:
            return _NOCONV, it, fn
        if len(out) == m:  # F only: the Jacobian at this z
            out = _finite(resjac, y, p)
            if out is None:
                return _NONFINITE, it, math.nan
        dz = _lu_solve(out[m:], out[:m], m)
        if dz is None:
            return _SINGULAR, it, fn
        for i in range(m):
            y[i] -= dz[i]
        it += 1
        dn = max(map(abs, dz))
        scale = 1.0 + max(abs(v) for v in y[:m])
        small = dn <= tol * scale or prev <= dn <= stol * scale
        prev = dn
        out = _finite(res if small else resjac, y, p)


def _lu_solve(J: list, b: list, m: int) -> list | None:
    """x with J x = b (J row-major, both lists, overwritten) by Gaussian elimination with partial
    pivoting; None if a pivot is ≤ m·ε·max|J| (singular to working precision)."""
    thresh = m * _EPS * max(map(abs, J))
    for c in range(m):
        r, best = c, abs(J[c * m + c])
        for i in range(c + 1, m):
            a = abs(J[i * m + c])
            if a > best:
                r, best = i, a
        if not best > thresh:
            return None
        if r != c:
            J[c * m:c * m + m], J[r * m:r * m + m] = J[r * m:r * m + m], J[c * m:c * m + m]
            b[c], b[r] = b[r], b[c]
        for i in range(c + 1, m):
            f = J[i * m + c] / J[c * m + c]
            for j in range(c + 1, m):
                J[i * m + j] -= f * J[c * m + j]
            b[i] -= f * b[c]
    x = [0.0] * m
    for i in range(m - 1, -1, -1):
        s = b[i]
        for j in range(i + 1, m):
            s -= J[i * m + j] * x[j]
        x[i] = s / J[i * m + i]
    return x


def _periodic_arg(periodic, n: int) -> tuple:
    if isinstance(periodic, (str, bytes, set, frozenset, dict)) or not isinstance(periodic, (list, tuple)):
        raise InputError(f"compile_stepper: periodic must be a list or tuple of indices into known, got "
                         f"{periodic!r:.60}")
    for i in periodic:
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= i < n:
            raise InputError(f"compile_stepper: periodic entry {i!r:.40} is not an index into known (0 … {n - 1})")
    if len(set(periodic)) != len(periodic):
        raise InputError(f"compile_stepper: periodic lists an index twice: {list(periodic)!r:.60}")
    return tuple(int(i) for i in periodic)


def periodic_indices(residual, known, advance, predictor=None, candidates=None) -> list[int]:
    """The indices i (among ``candidates``, default all) of the known values that the step sees
    only modulo 2π, decided exactly.

    Substitutes w_i → w_i + 2π (:func:`~jetgeo.geometry.exact.xreplace_dag`; sympy's constructors
    evaluate sin(x + 2π) → sin(x), cos likewise, and cancel ±2π in sums) and accepts i when every
    entry of F and of the predictor comes back structurally identical, and the advance map's entry i
    comes back as itself plus 2π, the others identical.  Structural identity is a sufficient test
    (an invariance sympy does not evaluate, e.g. sin(x/2)², is missed — the value is then carried
    unreduced, as before), never a wrong one.

    Parameters
    ----------
    residual, advance : list of sympy expressions
        F and the advance map (as for :func:`compile_stepper`).
    known : sequence of Symbols
        w.
    predictor : list of sympy expressions, optional
    candidates : iterable of int, optional
        The indices to test.

    Returns
    -------
    list of int

    Examples
    --------
    >>> import sympy as sp
    >>> a, b, v, h = sp.symbols("a b v h")
    >>> F = [v - sp.sin(a) - sp.sin(b / 2)]
    >>> periodic_indices(F, [a, b], [a + h * v, b + h * v])
    [0]
    """
    out = []
    exprs = [*residual, *(predictor or [])]
    for i in range(len(known)) if candidates is None else candidates:
        memo: dict = {}
        rule = {known[i]: known[i] + 2 * sp.pi}
        if not all(e2 is e or e2 == e for e, e2 in ((e, xreplace_dag(e, rule, memo)) for e in exprs)):
            continue
        shifted = [xreplace_dag(e, rule, memo) for e in advance]
        if all((e2 - e - 2 * sp.pi == 0) if j == i else (e2 is e or e2 == e)
               for j, (e, e2) in enumerate(zip(advance, shifted))):
            out.append(i)
    return out


def _symbols(values, what: str) -> tuple:
    if isinstance(values, (str, bytes, set, frozenset, dict)) or not isinstance(values, (list, tuple, sp.MatrixBase)):
        raise InputError(f"compile_stepper: {what} must be a list or tuple of sympy Symbols (its order is the order "
                         f"of the vector), got {type(values).__name__} {values!r:.60}")
    out = tuple(values)
    for i, s in enumerate(out):
        if not isinstance(s, sp.Symbol):
            raise InputError(f"compile_stepper: {what} entry {i + 1} is {s!r:.60} ({type(s).__name__}), not a sympy "
                             "Symbol")
    return out


def _expressions(values, what: str, size: int, size_name: str) -> list:
    if values is None:
        raise InputError(f"compile_stepper: {what} is required (a list of {size} expressions, one per {size_name})")
    if isinstance(values, (str, bytes, set, frozenset, dict)) or not isinstance(values, (list, tuple, sp.MatrixBase)):
        raise InputError(f"compile_stepper: {what} must be a list of sympy expressions, got {type(values).__name__}")
    out = [as_expr(e, f"compile_stepper: {what} entry {i + 1}") for i, e in enumerate(values)]
    if len(out) != size:
        raise InputError(f"compile_stepper: {what} has {len(out)} entries; it needs {size} (one per {size_name})")
    return out


def _check_options(backend: str, tol: float, ftol: float, max_iter: int) -> None:
    """Refuse an unknown backend, a tolerance outside (0, 1) or a bad iteration count (InputError)."""
    if backend not in BACKENDS:
        raise InputError(f"compile_stepper: backend must be one of {BACKENDS}, not {backend!r:.40}")
    for name, value in (("tol", tol), ("ftol", ftol)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not (0.0 < value < 1.0):
            raise InputError(f"compile_stepper: {name} must be a number in (0, 1), got {value!r:.40}")
    if isinstance(max_iter, bool) or not isinstance(max_iter, int) or not 1 <= max_iter <= 10_000:
        raise InputError(f"compile_stepper: max_iter must be an integer in [1, 10000], got {max_iter!r:.40}")


def _checked_roles(residual, unknowns, known, parameters, advance, predictor) -> tuple:
    """(z, w, p, F, advance, predictor or None) checked: symbols in one role each, expressions of the right
    number, free symbols among their roles, every expression compilable (InputError otherwise)."""
    z, w, p = _symbols(unknowns, "unknowns"), _symbols(known, "known"), _symbols(parameters, "parameters")
    if not z:
        raise InputError("compile_stepper: there must be at least one unknown")
    roles = [*z, *w, *p]
    if len(set(roles)) != len(roles):
        twice = sorted({str(s) for s in roles if roles.count(s) > 1})
        raise InputError(f"compile_stepper: {', '.join(twice)} listed more than once among the unknowns, the known "
                         "values and the parameters; each symbol has one role")
    F = _expressions(residual, "residual", len(z), "unknown")
    A = _expressions(advance, "advance", len(w), "known value")
    P = None if predictor is None else _expressions(predictor, "predictor", len(z), "unknown")
    allowed = set(roles)
    for what, exprs, ok in (("residual", F, allowed), ("advance", A, allowed),
                            ("predictor", P or [], set(w) | set(p))):
        extra = free_symbols_dag(exprs) - ok
        if extra:
            raise InputError(f"compile_stepper: the {what} contains {sorted(map(str, extra))}, which "
                             f"{'are' if len(extra) > 1 else 'is'} not among its symbols"
                             + (" (the predictor sees w and p, not z)" if what == "predictor" else
                                "; pass it as a parameter (with a value) or as a known value"))
    for what, exprs in (("residual", F), ("advance", A), ("predictor", P or [])):
        try:
            _check_compilable(exprs)
        except InputError as exc:
            raise InputError(f"compile_stepper: in the {what}: {exc}") from exc
    return z, w, p, F, A, P


def compile_stepper(residual, unknowns, known, parameters=(), advance=None, predictor=None, *,
                    backend: str = "python", tol: float = 1e-13, ftol: float = 1e-12,
                    max_iter: int = 30, periodic=()) -> ImplicitStepper:
    r"""Compile the implicit step F(z; w, p) = 0, w_next = advance(w, z, p) with its exact Jacobian ∂F/∂z.

    Parameters
    ----------
    residual : list of sympy expressions, length m
        F(z; w, p); square: as many equations as unknowns.
    unknowns : list of Symbols, length m ≥ 1
        z, solved for at every step.
    known : list of Symbols, length n
        w, the node (the time, q_k, p_k, …; the time is an entry like any other).
    parameters : list of Symbols
        p, fixed during a run.
    advance : list of sympy expressions, length n
        w_next in terms of w, z, p.  Required (``None`` is an error: without it there is no next node).
    predictor : list of sympy expressions, length m, optional
        The first Newton iterate of each step, in terms of w and p only.  Default: the previous step's
        solution (at a run's first step ``guess``, else zeros).
    backend : "python", "c" or "auto"
        Where the Newton and step loops run (see the module docstring).
    tol, ftol : float
        Converged when ‖F‖∞ ≤ ftol·(1 + ‖(z, w)‖∞) and ‖Δz‖∞ ≤ tol·(1 + ‖z‖∞) (or the update, below
        √tol·(1 + ‖z‖∞), stopped shrinking: the round-off floor; see the module docstring).
    max_iter : int
        Newton updates allowed per step.
    periodic : sequence of int
        Indices into ``known`` of the values carried modulo 2π (see "Periodic known values" in the
        module docstring); each is checked exactly.

    Returns
    -------
    ImplicitStepper
        ``step(w, p, guess) -> (z, w_next)`` and ``run(w0, n_steps, p, every) -> StepperRun``.

    Raises
    ------
    InputError
        A symbol that is not a Symbol, listed twice or in two roles; a free symbol in none of the
        roles (or z in the predictor); expressions of the wrong number; no ``advance``; a bad
        backend or tolerance; an expression without a numeric value; a ``periodic`` index out of
        range, repeated, or of a value that F, the predictor or the advance map do not see modulo 2π.
    CompilerUnavailableError
        ``backend="c"`` without a working C compiler.

    Notes
    -----
    The C backend takes at most :data:`C_MAX_UNKNOWNS` unknowns and :data:`C_MAX_KNOWN` known
    values (an :class:`~jetgeo.errors.InputError` beyond; ``backend="auto"`` then uses Python).

    Examples
    --------
    >>> import sympy as sp
    >>> q1, v1, q0, v0, h = sp.symbols("q1 v1 q0 v0 h")
    >>> F = [q1 - q0 - h * (v0 + v1) / 2, v1 - v0 + h * (q0 + q1) / 2]     # q'' = -q, implicit midpoint
    >>> st = compile_stepper(F, [q1, v1], [q0, v0], [h], advance=[q1, v1], predictor=[q0 + h * v0, v0 - h * q0])
    >>> r = st.run([1.0, 0.0], 100, [0.01])
    >>> r.status, abs(float(r.last[0]**2 + r.last[1]**2) - 1.0) < 1e-13          # the energy is conserved
    ('ok', True)
    """
    _check_options(backend, tol, ftol, max_iter)
    z, w, p, F, A, P = _checked_roles(residual, unknowns, known, parameters, advance, predictor)
    per = _periodic_arg(periodic, len(w))
    bad = [i for i in per if i not in periodic_indices(F, w, A, P, [i])]
    if bad:
        raise InputError(f"compile_stepper: the known value(s) {[str(w[i]) for i in bad]} are not seen modulo 2π: "
                         "F and the predictor must be unchanged and the advance map must add exactly 2π to the "
                         "value itself (nothing to the others) when it grows by 2π")
    m = len(z)
    if backend != "python" and (m > C_MAX_UNKNOWNS or len(w) > C_MAX_KNOWN):
        if backend == "c":
            raise InputError(f"compile_stepper: the C backend keeps F, ∂F/∂z and the node on the stack: at most "
                             f"{C_MAX_UNKNOWNS} unknowns and {C_MAX_KNOWN} known values, got {m} and {len(w)} "
                             "(backend='python' has no such limit)")
        backend = "python"
    memos: list[dict] = [{} for _ in range(m)]  # one per variable, shared by the m equations
    J = [diff_dag(F[i], z[j], memos[j]) for i in range(m) for j in range(m)]
    resjac = F + J
    parts = {"resjac": resjac, "res": F, "advance": A, **({"predictor": P} if P is not None else {})}
    options = {"tol": float(tol), "ftol": float(ftol), "max_iter": int(max_iter), "has_predictor": P is not None,
               "periodic": per}
    if backend in ("c", "auto"):
        try:
            return _compile_c(parts, z, w, p, **options)
        except (CompilerUnavailableError, InputError):
            if backend == "c":
                raise
    state = [*z, *w]
    # plain cse, as for the monitors of a run: sympy's "basic" pre-processing (factor_terms on every
    # expression) was 2/3 of the CPU time of the discrete integrators' tests and is not needed here
    kernels = {name: compile_rhs(exprs, state, p, name=name, optimizations=None) for name, exprs in parts.items()}
    return ImplicitStepper(z, w, p, "python", kernels=kernels, source={k: f.source for k, f in kernels.items()},
                           **options)


#: this file's digest: it shapes the C source (the template below), so it keys the build cache
_TEMPLATE_DIGEST = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()


def _compile_c(parts: dict, z: tuple, w: tuple, p: tuple, *, tol: float, ftol: float, max_iter: int,
               has_predictor: bool, periodic: tuple) -> ImplicitStepper:
    """The C backend: one extension module through :func:`jetgeo.numerics.codegen.c_module`."""
    m, n = len(z), len(w)
    ren = {s: sp.Symbol(f"_y{i}") for i, s in enumerate([*z, *w])}
    ren.update({s: sp.Symbol(f"_p{i}") for i, s in enumerate(p)})
    memo: dict = {}
    renamed = {k: [xreplace_dag(e, ren, memo, renaming=True) for e in v] for k, v in parts.items()}
    names = ["resjac", "res", "advance", "predictor"]
    exprs = [e for k in names for e in renamed.get(k, [])]

    def make_source(modname: str) -> tuple[str, tuple]:
        kernels, cse = {}, {}
        for k in names:
            body, cse[k] = codegen.c_statements(renamed[k], out="out") if k in renamed else ([], None)
            kernels[k] = "\n".join(body)
        src = _C_TEMPLATE.format(
            modname=modname, m=m, n=n, n_params=len(p), has_predictor=int(has_predictor),
            n_per=len(periodic), periodic=", ".join(map(str, periodic)) or "0",
            unpack="\n".join(f"    const double jg_y{i} = y[{i}];" for i in range(m + n))
            + "\n" + "\n".join(f"    const double jg_p{i} = p[{i}];" for i in range(len(p))),
            resjac=kernels["resjac"], res=kernels["res"], advance=kernels["advance"], predictor=kernels["predictor"])
        return src, cse

    layout = ["stepper", _TEMPLATE_DIGEST, str(m), str(n), str(len(p)), str(has_predictor), f"periodic:{periodic}",
              *(f"{k}:{len(renamed.get(k, []))}" for k in names)]
    module, source, _ = codegen.c_module(exprs, layout, make_source, optimise=True)
    return ImplicitStepper(z, w, p, "c", tol, ftol, max_iter, has_predictor, module=module, source=source,
                           periodic=periodic)


_C_TEMPLATE = r"""/* generated by jetgeo.numerics.stepper: do not edit */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>
#include <math.h>
#include <float.h>
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#ifndef M_E
#define M_E 2.7182818284590452354
#endif

#define M {m}
#define N {n}
#define NP {n_params}
#define HAS_PREDICTOR {has_predictor}
#define NPER {n_per}
#define NPER_ALLOC (NPER > 0 ? NPER : 1)
static const int PERIODIC[NPER_ALLOC] = {{{periodic}}};  /* the known values carried modulo 2 pi */
static const double TWO_PI = 6.283185307179586;  /* 2 pi rounded, as Python's 2.0 * math.pi */
static const double PI = 3.141592653589793;
enum {{ST_OK = 0, ST_SINGULAR = 1, ST_NOCONV = 2, ST_NONFINITE = 3}};

/* F (out[0..M-1]) and dF/dz row by row (out[M + i*M + j]) at y = (z, w) */
static void resjac(const double *restrict y, const double *restrict p, double *restrict out)
{{
{unpack}
{resjac}
}}

/* F alone (out[0..M-1]) at y = (z, w) */
static void res(const double *restrict y, const double *restrict p, double *restrict out)
{{
{unpack}
{res}
}}

/* w_next (out[0..N-1]) at y = (z, w) */
static void advance(const double *restrict y, const double *restrict p, double *restrict out)
{{
{unpack}
{advance}
}}

/* the first Newton iterate (out[0..M-1]) from w (y[M..M+N-1]) */
static void predictor(const double *restrict y, const double *restrict p, double *restrict out)
{{
{unpack}
{predictor}
}}

static int all_finite(const double *v, int k)
{{
    for (int i = 0; i < k; i++)
        if (!isfinite(v[i])) return 0;
    return 1;
}}

/* x = J^-1 b by Gaussian elimination with partial pivoting, J (row-major) and b overwritten;
   0 if a pivot is <= M*eps*max|J| (singular to working precision) */
static int lu_solve(double *restrict J, double *restrict b, double *restrict x)
{{
    double big = 0.0;
    for (int i = 0; i < M * M; i++) {{
        const double a = fabs(J[i]);
        if (a > big) big = a;
    }}
    const double thresh = M * DBL_EPSILON * big;
    for (int c = 0; c < M; c++) {{
        int r = c;
        double best = fabs(J[c * M + c]);
        for (int i = c + 1; i < M; i++) {{
            const double a = fabs(J[i * M + c]);
            if (a > best) {{ best = a; r = i; }}
        }}
        if (!(best > thresh)) return 0;
        if (r != c) {{
            for (int j = 0; j < M; j++) {{
                const double s = J[c * M + j]; J[c * M + j] = J[r * M + j]; J[r * M + j] = s;
            }}
            const double s = b[c]; b[c] = b[r]; b[r] = s;
        }}
        for (int i = c + 1; i < M; i++) {{
            const double f = J[i * M + c] / J[c * M + c];
            for (int j = c + 1; j < M; j++) J[i * M + j] -= f * J[c * M + j];
            b[i] -= f * b[c];
        }}
    }}
    for (int i = M - 1; i >= 0; i--) {{
        double s = b[i];
        for (int j = i + 1; j < M; j++) s -= J[i * M + j] * x[j];
        x[i] = s / J[i * M + i];
    }}
    return 1;
}}

/* Newton's method on y[0..M-1]: status; *iters updates, *fnorm the last max|F|.  After an update
   that meets the update test only F is evaluated (res); F and dF/dz (resjac) otherwise, and again
   when the residual test fails. */
static int newton(double *restrict y, const double *restrict p, const double tol, const double ftol,
                  const int max_iter, int *iters, double *fnorm)
{{
    double buf[M + M * M], dz[M];
    int it = 0, small = 0, have_j = 1;
    double prev = INFINITY;
    const double stol = sqrt(tol);
    resjac(y, p, buf);
    for (;;) {{
        *iters = it;
        if (!all_finite(buf, have_j ? M + M * M : M)) {{ *fnorm = NAN; return ST_NONFINITE; }}
        double fn = 0.0;
        for (int i = 0; i < M; i++) {{
            const double a = fabs(buf[i]);
            if (a > fn) fn = a;
        }}
        *fnorm = fn;
        double yn = 0.0;
        for (int i = 0; i < M + N; i++) {{
            const double a = fabs(y[i]);
            if (a > yn) yn = a;
        }}
        if (small && fn <= ftol * (1.0 + yn)) return ST_OK;
        if (it >= max_iter) return ST_NOCONV;
        if (!have_j) {{
            resjac(y, p, buf);
            if (!all_finite(buf, M + M * M)) {{ *fnorm = NAN; return ST_NONFINITE; }}
        }}
        if (!lu_solve(buf + M, buf, dz)) return ST_SINGULAR;
        double dn = 0.0, zn = 0.0;
        for (int i = 0; i < M; i++) {{
            y[i] -= dz[i];
            const double a = fabs(dz[i]), b = fabs(y[i]);
            if (a > dn) dn = a;
            if (b > zn) zn = b;
        }}
        it++;
        small = dn <= tol * (1.0 + zn) || (dn >= prev && dn <= stol * (1.0 + zn));
        prev = dn;
        have_j = !small;
        if (small) res(y, p, buf);
        else resjac(y, p, buf);
    }}
}}

/* a float64 (or int32) C-contiguous array of exactly n entries, writable if asked */
static void *data_of(PyObject *obj, int type, Py_ssize_t n, int writable, const char *what)
{{
    if (PyArray_Check(obj)) {{
        PyArrayObject *a = (PyArrayObject *)obj;
        if (PyArray_TYPE(a) == type && PyArray_IS_C_CONTIGUOUS(a) && PyArray_ISALIGNED(a) && PyArray_ISNOTSWAPPED(a)
            && PyArray_SIZE(a) == n && (!writable || PyArray_ISWRITEABLE(a)))
            return PyArray_DATA(a);
    }}
    PyErr_Format(PyExc_ValueError, "%s must be a C-contiguous %s%s array of %zd entries", what,
                 writable ? "writable " : "", type == NPY_INT32 ? "int32" : "float64", n);
    return NULL;
}}

/* run(w0, p, z0, n_steps, every, tol, ftol, max_iter, predict, nodes, zs, its, res, last, turns0, turns)
   -> (status, steps done, nodes saved, iterations, |F|); turns0 (the turns of w0) ends as those of the
   last node, turns (n_saved x NPER_ALLOC) holds those of the saved nodes */
static PyObject *run(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{{
    if (nargs != 16) {{
        PyErr_SetString(PyExc_TypeError, "run takes 16 positional arguments");
        return NULL;
    }}
    const long long n_steps = PyLong_AsLongLong(args[3]), every = PyLong_AsLongLong(args[4]);
    const double tol = PyFloat_AsDouble(args[5]), ftol = PyFloat_AsDouble(args[6]);
    const long max_iter = PyLong_AsLong(args[7]), predict = PyLong_AsLong(args[8]);
    if (PyErr_Occurred()) return NULL;
    if (n_steps < 0 || every < 1 || max_iter < 1 || max_iter > 1000000) {{
        PyErr_SetString(PyExc_ValueError, "run: n_steps >= 0, every >= 1 and 1 <= max_iter are required");
        return NULL;
    }}
    const long long n_saved = n_steps / every + 1 + (n_steps % every ? 1 : 0);
    const double *w0 = data_of(args[0], NPY_DOUBLE, N, 0, "w0");
    const double *p = w0 ? data_of(args[1], NPY_DOUBLE, NP, 0, "p") : NULL;
    const double *z0 = p ? data_of(args[2], NPY_DOUBLE, M, 0, "z0") : NULL;
    double *nodes = z0 ? data_of(args[9], NPY_DOUBLE, n_saved * N, 1, "nodes") : NULL;
    double *zs = nodes ? data_of(args[10], NPY_DOUBLE, (n_saved - 1) * M, 1, "zs") : NULL;
    int *its = zs ? data_of(args[11], NPY_INT32, n_saved - 1, 1, "its") : NULL;
    double *res = its ? data_of(args[12], NPY_DOUBLE, n_saved - 1, 1, "res") : NULL;
    double *last = res ? data_of(args[13], NPY_DOUBLE, N + M, 1, "last") : NULL;
    double *tr = last ? data_of(args[14], NPY_DOUBLE, NPER_ALLOC, 1, "turns0") : NULL;
    double *turns = tr ? data_of(args[15], NPY_DOUBLE, n_saved * NPER_ALLOC, 1, "turns") : NULL;
    if (turns == NULL) return NULL;
    double y[M + N], wn[N + 1], zp[M], zgood[M];
    int status = ST_OK, it = 0, acc_it = 0;
    double fn = 0.0, acc_res = 0.0;
    long long k = 0, saved = 1;
    Py_BEGIN_ALLOW_THREADS
    for (int i = 0; i < M; i++) y[i] = zgood[i] = z0[i];
    for (int i = 0; i < N; i++) y[M + i] = nodes[i] = w0[i];
    for (int j = 0; j < NPER_ALLOC; j++) turns[j] = tr[j];
    for (k = 0; k < n_steps; k++) {{
        if (HAS_PREDICTOR && predict) {{
            predictor(y, p, zp);
            if (!all_finite(zp, M)) {{ status = ST_NONFINITE; it = 0; fn = NAN; break; }}
            for (int i = 0; i < M; i++) y[i] = zp[i];
        }}
        status = newton(y, p, tol, ftol, (int)max_iter, &it, &fn);
        if (status != ST_OK) break;
        advance(y, p, wn);
        if (!all_finite(wn, N)) {{ status = ST_NONFINITE; break; }}
        for (int j = 0; j < NPER; j++) {{
            const double a = wn[PERIODIC[j]];
            if (!(a >= -PI && a < PI)) {{
                const double r = floor((a + PI) / TWO_PI);
                wn[PERIODIC[j]] = a - r * TWO_PI;
                tr[j] += r;
            }}
        }}
        for (int i = 0; i < N; i++) y[M + i] = wn[i];
        for (int i = 0; i < M; i++) zgood[i] = y[i];
        if (it > acc_it) acc_it = it;
        if (fn > acc_res) acc_res = fn;
        if ((k + 1) % every == 0 || k + 1 == n_steps) {{
            for (int i = 0; i < N; i++) nodes[saved * N + i] = wn[i];
            for (int j = 0; j < NPER_ALLOC; j++) turns[saved * NPER_ALLOC + j] = tr[j];
            for (int i = 0; i < M; i++) zs[(saved - 1) * M + i] = zgood[i];
            its[saved - 1] = acc_it;
            res[saved - 1] = acc_res;
            saved++;
            acc_it = 0;
            acc_res = 0.0;
        }}
    }}
    for (int i = 0; i < N; i++) last[i] = y[M + i];
    for (int i = 0; i < M; i++) last[N + i] = zgood[i];
    Py_END_ALLOW_THREADS
    return Py_BuildValue("(iLLid)", status, k, saved, it, fn);
}}

static PyMethodDef methods[] = {{
    {{"run", (PyCFunction)(void (*)(void))run, METH_FASTCALL, "the step loop (generated by jetgeo)"}},
    {{NULL, NULL, 0, NULL}}
}};

static struct PyModuleDef moduledef = {{PyModuleDef_HEAD_INIT, "{modname}", NULL, -1, methods}};

PyMODINIT_FUNC PyInit_{modname}(void)
{{
    import_array();
    return PyModule_Create(&moduledef);
}}
"""
