r"""Implicit differential equations E ⊂ TP and the integrability algorithm [Ibort et al. 1996, §3, §4.2].

An implicit differential equation on a manifold P with coordinates x^i is a submanifold
E ⊂ TP, given here by equations F^a(t, x, ẋ, λ) = 0 in which auxiliary unknowns λ
(multipliers) may occur; E is their projection to TP.  A solution is a curve whose tangent
lies in E.  The integrability algorithm of [Ibort et al. 1996, eqs. (3.9)–(3.10)],

.. math:: E_0 = E,\; C_0 = \tau_P(E),\qquad E_k = E_{k-1}\cap TC_{k-1},\; C_k = \tau_P(E_k),

extracts the integrable part; with a field of permitted directions D̂ ([Ibort et al. 1996, Fig. 2] and
eqs. 4.13–4.14) the first intersection is E_1 = E_0 ∩ D̂_0 and D̂_k = D̂_{k−1}|_{C_k} ∩ TC_k,
i.e. the annihilators of D̂ are imposed on ẋ together with the tangency conditions.

Exact computation (fibres affine in the unknowns w = (ẋ, λ)):

* on C_{k} the equations read A(x) w = b(x); a basis ν of the left null space of A (generic
  rank on C_k, :func:`jetgeo.geometry.generic_rank`) gives the conditions νᵀb = 0 that define
  τ_P(E_k) — new ones are the *secondary constraints*;
* TC is imposed by the total derivative D φ = ∂_t φ + ẋ^i ∂_{x^i} φ of every constraint φ;
* each constraint is solved for one variable (preferring one that occurs linearly), so that
  "vanishes on C_k" is a substitution followed by a zero test (:mod:`jetgeo.geometry.zero`);
  the coefficients divided by are recorded as conditions, branch choices as notes;
* the algorithm stops when C_k = C_{k−1}; then E_{k+1} = E_k = E_∞.  ``steps`` is that k
  ([Ibort et al. 1996] "the algorithm stops at the first step" is ``steps == 1``).  The fibre of E_∞ has
  dimension ``free_parameters`` (0: E_∞ is the graph of a vector field on C_∞).
* a constraint that reduces to a non-zero constant (or to an expression in the parameters
  alone, which vanishes only for special parameter values) makes E_∞ empty.

Block-triangular fibres (some equations affine in w, the others affine once their pivot unknowns are
substituted — α⁻¹(dL) for any q-dependent metric) are reduced to the affine case first.
Fibres polynomial but not affine in w are treated by Gröbner bases (lex order, unknowns
first): the elements free of w define τ_P(E) exactly (over ℂ); a zero-dimensional fibre gives
finitely many solutions.  Everything else (non-polynomial fibres, positive-dimensional
nonlinear fibres) is reported as *undecided* with the reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import sympy as sp

from ..errors import InputError, UndecidedError
from ..geometry import generic_rank, is_zero, normalise
from ..geometry.coerce import as_expr, as_symbol
from ..geometry.exact import (
    affine_system,
    diff_dag,
    free_symbols_dag,
    solve_affine,
    solve_exact,
    trig_reduce,
    trig_reduce_if_small,
    within_ops,
    xreplace_dag,
)
from ..geometry.linalg import nullspace

__all__ = ["ImplicitDifferentialEquation", "IntegrabilityReport"]


# --------------------------------------------------------------------------------------------
# the constraint variety C_k in solved form
# --------------------------------------------------------------------------------------------


def _clean(expr: sp.Expr) -> sp.Expr:
    """Numerator of a constraint with its constant content removed (the constraint φ = 0)."""
    expr = trig_reduce(expr)
    num, _den = sp.fraction(sp.together(expr))
    num = sp.expand(num)
    if num == 0:
        return num
    _c, prim = num.as_content_primitive()
    prim = sp.expand(prim)
    if prim.could_extract_minus_sign():
        prim = sp.expand(-prim)
    return prim


def _degrees(expr: sp.Expr, var: sp.Symbol):
    """The set of exponents of ``var`` in ``expr`` if it is polynomial in it, else None."""
    expr = sp.expand(expr)
    if not expr.has(var):
        return {0}
    if not expr.is_polynomial(var):
        return None
    try:
        return {m[0] for m in sp.Poly(expr, var).monoms()}
    except sp.PolynomialError:
        return None


class _Variety:
    """C given by a closed substitution ``sol`` {variable: expression in the others}."""

    def __init__(self, coords: Sequence, params: Sequence) -> None:
        self.coords = list(coords)
        self.params = list(params)
        self.sol: dict = {}
        self.exprs: list = []  # the constraint functions φ defining C (for tangency)
        self.conditions: list = []
        self.minors: list = []  # pivot minors of the rank decisions (all of them)
        self.notes: list = []

    def reduce(self, e) -> sp.Expr:
        e = as_expr(e)
        if not self.sol:
            return e
        return xreplace_dag(e, self.sol)

    def seed(self, solved: dict, cond=None) -> None:
        for var, val in solved.items():
            val = self.reduce(val)
            self._insert(var, val)
            self.exprs.append(var - val)
        if cond is not None and not (as_expr(cond).is_number and cond != 0):
            self.conditions.append(cond)

    def _insert(self, var, val) -> None:
        self.sol = {k: trig_reduce_if_small(xreplace_dag(v, {var: val})) for k, v in self.sol.items()}
        self.sol[var] = val

    def add(self, phi: sp.Expr, context: Sequence) -> tuple:
        """Add φ = 0.  Returns (status, cleaned φ); status ∈ redundant/new/inconsistent/undecided."""
        phi = self.reduce(phi)
        if phi.has(sp.nan, sp.zoo, sp.oo, -sp.oo):
            return "singular", phi
        if phi == 0 or is_zero(phi):
            return "redundant", sp.Integer(0)
        phi = _clean(phi)
        if phi == 0 or is_zero(phi):
            return "redundant", sp.Integer(0)
        syms = phi.free_symbols
        coords_in = [c for c in self.coords if c in syms]
        if not coords_in:
            return "inconsistent", phi
        var, val = self._solve(phi, coords_in, context)
        if var is None:
            return "undecided", phi
        self._insert(var, val)
        # tangency is imposed on var − val, not on φ: φ may vanish to higher order on C (e.g. φ = x³
        # solved as x = 0, where Dφ ≡ 0 on C would miss the condition ẋ = 0)
        self.exprs.append(var - val)
        return "new", phi

    def _solve(self, phi, coords_in, context):
        order = list(reversed(coords_in)) + [p for p in self.params if p in phi.free_symbols]
        # 1-2: linear occurrence, constant coefficient first
        lin = []
        for var in order[: len(coords_in)]:
            degs = _degrees(phi, var)
            if degs == {0, 1} or degs == {1}:
                coef = sp.expand(sp.diff(phi, var))
                if coef.has(var) or is_zero(coef):
                    continue
                lin.append((0 if coef.is_number else 1 + sp.count_ops(coef), var, coef))
        if lin:
            lin.sort(key=lambda t: t[0])
            _, var, coef = lin[0]
            rest = sp.expand(phi - coef * var)
            if not coef.is_number:
                self.conditions.append(coef)
            return var, normalise(-rest / coef)
        # 3: a variable occurring only in even powers everywhere: solve for its square (no new branches
        #    appear in the equations, which contain only its even powers)
        for var in order:
            degs = _degrees(phi, var)
            if degs is None or degs != {0, 2}:
                continue
            if not all((d := _degrees(e, var)) is not None and all(k % 2 == 0 for k in d) for e in context):
                continue
            if not all((d := _degrees(v, var)) is not None and all(k % 2 == 0 for k in d)
                       for v in self.sol.values()):
                continue
            p = sp.Poly(sp.expand(phi), var)
            a2, a0 = p.coeff_monomial(var**2), p.coeff_monomial(1)
            val = sp.sqrt(normalise(-a0 / a2))
            self.notes.append(f"{var} = +√({normalise(-a0 / a2)}) (only {var}² occurs: the sign is immaterial)")
            if not a2.is_number:
                self.conditions.append(a2)
            return var, val
        # 4: anything sympy can solve; first branch
        for var in order:
            try:
                sols = sp.solve(phi, var, dict=False)
            except (NotImplementedError, ValueError):
                continue
            sols = [s for s in sols if not s.has(var)]
            if sols:
                if len(sols) > 1:
                    self.notes.append(f"{var} = {sols[0]}: branch 0 of {len(sols)} ({sols})")
                return var, sols[0]
        return None, None


# --------------------------------------------------------------------------------------------
# the report
# --------------------------------------------------------------------------------------------


@dataclass
class IntegrabilityReport:
    """Outcome of the integrability algorithm ([Ibort et al. 1996, eqs. (3.9)–(3.10)]; adapted: 4.13–4.14).

    Attributes
    ----------
    steps : int
        The k at which the algorithm stabilised (C_k = C_{k−1}, so E_k = E_∞); 1 means
        "stops at the first step" [Ibort et al. 1996, eq. (4.13)].
    primary_constraints : list
        Equations of C_0 = τ(E): the given velocity-free equations and the conditions for the
        fibre equations of E to be solvable.
    secondary_constraints : list
        Every further constraint found at steps k ≥ 1 (expressions φ, meaning φ = 0).
    history : list
        ``(k, φ)`` for every constraint, k the step that found it.
    free_parameters : int
        Dimension of the fibres of E_∞ ⊂ TP (multipliers eliminated): 0 means E_∞ is the graph
        of a vector field on C_∞ (unique solutions); ``None`` if undecided or inconsistent.
    free_multipliers : int
        Multipliers left undetermined on top of that (they do not affect the motion).
    consistent : bool or None
        False: E_∞ is empty (a constraint reduced to a non-zero constant, or to an expression in
        the parameters alone — the ``obstruction``); None: undecided.
    conditions : list
        Expressions that must not vanish on C_∞ for the result (divisors of the solved
        constraints, and the pivot minors of the rank decisions when they are small).
    pivot_minors : list
        Every pivot minor of a rank decision (the generic ranks hold where they do not vanish).
    notes : list
        Branch choices made while solving nonlinear constraints.
    undecided : list
        Reasons why something could not be decided (empty when everything was decided).
    obstruction : sympy.Expr or None
        When inconsistent: the expression in the parameters alone that would have to vanish.
    solved_form : dict
        {coordinate: expression}: the constraints of C_∞ solved for some coordinates, the
        substitution :meth:`on_C` applies.
    finite_solutions : int or None
        When the fibre equations are polynomial with finitely many solutions over a generic
        point of C_∞: how many (several vector fields, one per branch); else ``None``.
    _linear : tuple or None
        Internal: ``(A, b, unknowns, pivots)`` of the fibre equations A w = b when they are
        affine, from which :meth:`solution` solves on first use.
    _ide : object
        Internal: the implicit differential equation that produced the report.
    _solution : dict or None
        Internal: the cached result of :meth:`solution`.
    """

    steps: int
    primary_constraints: list
    secondary_constraints: list
    history: list
    free_parameters: int | None
    free_multipliers: int | None
    consistent: bool | None
    conditions: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    undecided: list = field(default_factory=list)
    obstruction: sp.Expr | None = None
    pivot_minors: list = field(default_factory=list)
    solved_form: dict = field(default_factory=dict)
    _linear: tuple | None = field(default=None, repr=False)
    _ide: object = field(default=None, repr=False)
    _solution: dict | None = field(default=None, repr=False)
    finite_solutions: int | None = None

    @property
    def constraints(self) -> list:
        """All constraints defining C_∞ (primary, then secondary)."""
        return list(self.primary_constraints) + list(self.secondary_constraints)

    @property
    def graph(self) -> bool:
        """E_∞ is the graph of a vector field on C_∞ (consistent, affine, no free parameter)."""
        return bool(self.consistent) and self.free_parameters == 0 and self._linear is not None

    def on_C(self, expr) -> sp.Expr:
        """``expr`` restricted to C_∞ (the solved form substituted)."""
        return normalise(as_expr(expr).xreplace(self.solved_form))

    def solution(self) -> dict:
        """{unknown: expression on C_∞} solving the fibre equations of E_∞ (affine case).

        Unknowns left free (``free_parameters`` + ``free_multipliers`` of them) appear as
        themselves on the right-hand sides: they are the parameters of the family.
        """
        if self._solution is None:
            if self._linear is None or not self.consistent:
                raise UndecidedError("no affine solution: the report is inconsistent, nonlinear or undecided")
            self._solution = _fibre_solution(*self._linear)
        return dict(self._solution)

    def _repr_html_(self) -> str:
        import html

        colour = "green" if self.consistent and not self.undecided else "darkorange"
        return f'<pre style="color:{colour}">{html.escape(str(self))}</pre>'

    def __str__(self) -> str:
        lines = [f"integrability algorithm: stopped at step {self.steps}"]
        if self.consistent is False:
            lines.append(f"  E_∞ is EMPTY (inconsistent): obstruction {self.obstruction} = 0 would be needed")
        for k, phi in self.history:
            lines.append(f"  step {k}: constraint {phi} = 0")
        if self.consistent:
            if self.finite_solutions is not None:
                lines.append(f"  the fibres of E_∞ are finite: {self.finite_solutions} solution(s) over a generic "
                             "point (several vector fields, one per branch)")
            elif self.free_parameters == 0:
                lines.append("  E_∞ is the graph of a vector field on C_∞ (unique solutions)")
            elif self.free_parameters is not None:
                lines.append(f"  E_∞ has {self.free_parameters} free parameter(s): solutions are not unique")
            if self.free_multipliers:
                lines.append(f"  {self.free_multipliers} multiplier(s) undetermined")
        if self.conditions:
            lines.append("  valid where these do not vanish: " + ", ".join(map(str, self.conditions)))
        for n in self.notes:
            lines.append("  branch: " + n)
        for u in self.undecided:
            lines.append("  UNDECIDED: " + u)
        return "\n".join(lines)


def _fibre_solution(A: sp.Matrix, b: sp.Matrix, w: list, pivots: list) -> dict:
    """Solve A w = b for the pivot unknowns ``pivots`` by the core's :func:`solve_affine` (the
    others are free and stay as themselves on the right-hand sides)."""
    info = generic_rank(A.extract(list(range(A.rows)), pivots))
    rows = list(info.rows)
    free = [j for j in range(len(w)) if j not in pivots]
    eqs = [sp.Add(*[A[r, j] * w[j] for j in range(len(w))]) - b[r] for r in rows]
    values = solve_affine(eqs, [w[j] for j in pivots], "the fibre of E_∞").values
    out = {w[j]: w[j] for j in free}
    for j in pivots:
        out[w[j]] = trig_reduce_if_small(values[w[j]])
    return {s: out[s] for s in w}


def _affine(eqs, w):
    """(A, b) with eqs ≡ A w − b, or None if some equation is not affine in w (the core's
    :func:`~jetgeo.geometry.exact.affine_system`)."""
    return affine_system(eqs, w)


# --------------------------------------------------------------------------------------------
# the equation
# --------------------------------------------------------------------------------------------


class ImplicitDifferentialEquation:
    r"""An implicit differential equation E ⊂ TP [Ibort et al. 1996, §3].

    Parameters
    ----------
    x : coordinates x^i of P.
    xdot : their velocities, one per coordinate.  An entry that is a fresh symbol is an unknown
        of the fibre; an entry that is an expression in the coordinates prescribes that velocity
        (e.g. on P = TQ with x = (q, q̇), ``xdot = (q̇, q̈)``: the second-order condition of
        α⁻¹(dL + F), [Ibort et al. 1996, §6.1], is built in).
    equations : expressions F^a(t, x, ẋ, λ), meaning F^a = 0.
    unknowns : auxiliary unknowns λ (multipliers) to be determined or left free.
    time : optional time symbol t (ṫ = 1): time-dependent equations, d/dt = ∂_t + ẋ^i ∂_{x^i}.
    permitted : optional annihilators β of a field of permitted directions D̂ [Ibort et al. 1996, Fig. 2]:
        each a list of components on dx^1..dx^n (or n + 1 components, the first on dt);
        the adapted algorithm imposes ⟨β, (1, ẋ)⟩ = 0 from the first step on.

    >>> import sympy as sp
    >>> x, y, u, v, lam, ud, vd = sp.symbols("x y u v lam udot vdot")
    >>> m, g, l = sp.symbols("m g l", positive=True)
    >>> pend = ImplicitDifferentialEquation(
    ...     x=[x, y, u, v], xdot=[u, v, ud, vd],
    ...     equations=[m*ud - 2*lam*x, m*vd - 2*lam*y + m*g, x**2 + y**2 - l**2], unknowns=[lam])
    >>> rep = pend.integrability()
    >>> rep.steps, rep.secondary_constraints, rep.free_parameters
    (2, [u*x + v*y], 0)
    """

    def __init__(self, x: Sequence, xdot: Sequence, equations: Sequence, unknowns: Sequence = (),
                 time: sp.Symbol | None = None, permitted: Sequence | None = None,
                 solved_form: dict | None = None, solved_condition=None) -> None:
        self.x = tuple(as_symbol(s, what="coordinate") for s in x)
        self.xdot = tuple(as_symbol(s, what="velocity") for s in xdot)
        if len(self.x) != len(self.xdot):
            raise InputError(f"{len(self.x)} coordinates but {len(self.xdot)} velocities")
        if not all(s.is_Symbol for s in self.x):
            raise InputError(f"coordinates must be symbols, got {list(self.x)}")
        if len(set(self.x)) != len(self.x):
            raise InputError(f"repeated coordinates in {list(self.x)}")
        self.unknowns = tuple(as_symbol(s, what="unknown") for s in unknowns)
        self.time = as_expr(time) if time is not None else None
        self.equations = [as_expr(e) for e in equations]
        for e in self.equations:
            if isinstance(e, sp.Equality):
                raise InputError(f"give equations as expressions F (meaning F = 0), not {e}")
        xs = set(self.x)
        self.velocity_unknowns = tuple(
            s for s in self.xdot if s.is_Symbol and s not in xs and s != self.time
        )
        if len(set(self.velocity_unknowns)) != len(self.velocity_unknowns):
            raise InputError("a velocity symbol is repeated")
        clash = set(self.velocity_unknowns) & set(self.unknowns)
        if clash:
            raise InputError(f"{sorted(map(str, clash))} are both velocities and multipliers")
        self.w = list(self.velocity_unknowns) + list(self.unknowns)
        n = len(self.x)
        self.permitted = []
        for beta in permitted or []:
            beta = [as_expr(c) for c in beta]
            if len(beta) == n:
                beta = [sp.Integer(0)] + beta
            if len(beta) != n + 1:
                raise InputError(f"a permitted-direction annihilator needs {n} (or {n + 1}) components, got {beta}")
            self.permitted.append(beta)
        self.solved_form = dict(solved_form or {})
        self.solved_condition = solved_condition
        known = xs | set(self.w) | ({self.time} if self.time is not None else set())
        syms: set = set()
        for e in self.equations + list(self.xdot) + [c for b in self.permitted for c in b]:
            syms |= e.free_symbols
        self.parameters = tuple(sorted(syms - known, key=sp.default_sort_key))

    # --- calculus -------------------------------------------------------------------------
    def total_derivative(self, f) -> sp.Expr:
        """D f = ∂_t f + ẋ^i ∂f/∂x^i (linear in the unknown velocities)."""
        f = as_expr(f)  # on the DAG (the constraints found may be unexpanded results of a solve)
        present = free_symbols_dag([f])
        terms = [diff_dag(f, self.time)] if self.time is not None and self.time in present else []
        terms += [v * diff_dag(f, s) for s, v in zip(self.x, self.xdot) if s in present]
        return sp.Add(*[t for t in terms if t != 0])

    def _permitted_equations(self) -> list:
        vel = [sp.Integer(1)] + list(self.xdot)
        return [sp.Add(*[c * v for c, v in zip(beta, vel)]) for beta in self.permitted]

    # --- the algorithm ----------------------------------------------------------------------
    def integrability(self, max_steps: int = 12) -> IntegrabilityReport:
        """Run the (adapted) integrability algorithm; see the module docstring."""
        V = _Variety(self.x, self.parameters)
        history: list = []
        if self.solved_form:
            V.seed(self.solved_form, self.solved_condition)
            history.extend((0, var - val) for var, val in self.solved_form.items())
        undecided: list = []
        state = {"linear": None, "finite": None, "fibre": None}

        def project(eqs, k) -> str:
            """τ of the equations on the current variety, inner fixpoint; adds constraints."""
            for _ in range(4 * len(self.x) + 8):
                red = [V.reduce(e) for e in eqs]
                red = [e for e in red if e != 0]
                conds, status = self._conditions(red, V, state, undecided)
                if status != "ok":
                    return status
                new = False
                for c in conds:
                    st, phi = V.add(c, red)
                    if st == "inconsistent":
                        state["obstruction"] = phi
                        history.append((k, phi))
                        return "inconsistent"
                    if st == "singular":
                        undecided.append(f"a constraint became singular ({phi}) on the solved form of C: a branch "
                                         f"chosen earlier ({'; '.join(V.notes) or 'a solved divisor'}) lies in the "
                                         "locus where a divisor vanishes")
                        return "undecided"
                    if st == "undecided":
                        undecided.append(f"cannot solve the constraint {phi} = 0 for any variable")
                        history.append((k, phi))
                        return "undecided"
                    if st == "new":
                        history.append((k, phi))
                        new = True
                        break  # re-reduce with the new constraint before using further conditions
                if not new:
                    return "ok"
            undecided.append("the projection did not stabilise")
            return "undecided"

        status = project(self.equations, 0)
        steps = 0
        if status == "ok":
            for k in range(1, max_steps + 1):
                before = len(history)
                eqs = list(self.equations) + self._permitted_equations()
                eqs += [self.total_derivative(phi) for phi in V.exprs]
                status = project(eqs, k)
                if status != "ok":
                    steps = k
                    break
                if len(history) == before:
                    steps = k
                    break
            else:
                undecided.append(f"no stabilisation after {max_steps} steps")
                status = "undecided"
                steps = max_steps
        primary = [phi for k, phi in history if k == 0]
        secondary = [phi for k, phi in history if k > 0]
        consistent = {"ok": True, "inconsistent": False}.get(status)
        free = fm = None
        linear = None
        if status == "ok" and state["linear"] is not None:
            A, b = state["linear"]
            free, fm, pivots = self._freedom(A)
            linear = (A, b, self.w, pivots)
        elif status == "ok" and state.get("finite") is not None:
            free, fm = 0, 0
        if status == "ok" and state["linear"] is None and state.get("finite") is None:
            consistent = None
        rep = IntegrabilityReport(
            steps=steps,
            primary_constraints=primary,
            secondary_constraints=secondary,
            history=history,
            free_parameters=free,
            free_multipliers=fm,
            consistent=consistent,
            conditions=_dedupe(V.conditions),
            notes=list(V.notes),
            undecided=undecided,
            obstruction=state.get("obstruction"),
            pivot_minors=list(V.minors),
            solved_form=dict(V.sol),
            _linear=linear,
            _ide=self,
            finite_solutions=state.get("finite"),
        )
        return rep

    def _conditions(self, red, V, state, undecided):
        """Conditions for the fibre equations ``red`` (reduced on C) to be solvable."""
        w = self.w
        aff = _affine(red, w)
        if aff is None:
            tri = self._triangularise(red, V)
            if tri is not None:
                red = tri
                aff = _affine(red, w)
        if aff is not None:
            A, b = aff
            state["linear"] = (A, b)
            state["finite"] = None
            if A.rows == 0:
                return [], "ok"
            info = generic_rank(A)
            if info.rank == A.rows:
                return [], "ok"
            left, cond = nullspace(A.T)
            if not as_expr(cond).is_number:
                V.minors.append(cond)
                if within_ops(cond, 40):
                    V.conditions.append(cond)
            out = []
            for nu in left:
                out.append(trig_reduce_if_small(sp.Add(*[nu[i] * b[i] for i in range(A.rows)])))
            return out, "ok"
        state["linear"] = None
        return self._nonlinear_conditions(red, V, state, undecided)

    def _triangularise(self, red, V):
        """Block-triangular fibres: solve the equations affine in w for their pivot unknowns and substitute
        into the others, until all are affine (e.g. α⁻¹(dL) for a metric depending on q: p = W q̇ is affine
        in q̇, ṗ = ∂L/∂q is quadratic in q̇ but affine in ṗ once q̇ is eliminated).  The system returned is
        equivalent to ``red`` where the pivot minors (recorded as conditions) do not vanish; None if the
        substitution does not make every equation affine."""
        w = self.w
        red = list(red)
        for _ in range(len(w) + 1):
            aff_idx = [i for i, e in enumerate(red) if _affine([e], w) is not None]
            if len(aff_idx) == len(red):
                return red
            if not aff_idx:
                return None
            A, b = _affine([red[i] for i in aff_idx], w)
            info = generic_rank(A)
            if info.rank == 0:
                return None
            rows, cols = list(info.rows), list(info.cols)
            free = [j for j in range(len(w)) if j not in cols]
            rhs = b.extract(rows, [0])
            if free:
                rhs = rhs - A.extract(rows, free) * sp.Matrix([w[j] for j in free])
            x = solve_exact(A.extract(rows, cols), rhs)
            sub = {w[c]: trig_reduce(x[k]) for k, c in enumerate(cols)}
            cond = info.condition
            if not as_expr(cond).is_number:
                V.minors.append(cond)
            changed = [trig_reduce(red[i].xreplace(sub)) for i in range(len(red)) if i not in aff_idx]
            red = [red[i] for i in aff_idx] + [sp.fraction(sp.together(e))[0] for e in changed]
        return None

    def _nonlinear_conditions(self, red, V, state, undecided):
        w = self.w
        base = [s for s in self.x if s not in V.sol] + [p for p in self.parameters if p not in V.sol]
        if self.time is not None:
            base.append(self.time)
        polys = [sp.expand(sp.fraction(sp.together(e))[0]) for e in red]
        if not all(p.is_polynomial(*w, *base) for p in polys):
            undecided.append(
                "the fibre equations are neither affine nor polynomial in the unknowns "
                f"{list(map(str, w))}: {polys}; τ(E) cannot be computed exactly"
            )
            return [], "undecided"
        try:
            G = sp.groebner(polys, *w, *base, order="lex")
        except (sp.PolynomialError, sp.CoercionFailed) as exc:  # pragma: no cover - defensive
            undecided.append(f"Gröbner basis failed: {exc}")
            return [], "undecided"
        conds = [g for g in G.exprs if not any(g.has(s) for s in w)]
        fib = [g for g in G.exprs if any(g.has(s) for s in w)]
        if conds:
            return conds, "ok"
        # fibre over a generic point of C: count solutions when zero-dimensional
        try:
            Gf = sp.groebner(fib, *w, order="lex", domain=sp.QQ.frac_field(*base) if base else sp.QQ)
        except (sp.polys.polyerrors.BasePolynomialError, NotImplementedError) as exc:  # sympy's own failures
            undecided.append(f"fibre Gröbner basis failed: {exc}")
            return [], "undecided"
        if not Gf.is_zero_dimensional:
            undecided.append(
                "the fibres of E are nonlinear and positive-dimensional; their dimension "
                "(the number of free parameters) is not computed"
            )
            return [], "undecided"
        # number of solutions: product of leading degrees in a triangular lex basis (generic fibre)
        n_sol = 1
        for s in w:
            degs = [sp.Poly(g, *w).degree(s) for g in Gf.exprs
                    if g.has(s) and not any(g.has(u) for u in w[w.index(s) + 1:])]
            n_sol *= min(degs) if degs else 1
        state["finite"] = n_sol
        return [], "ok"

    def _freedom(self, A):
        """(velocity freedom, multiplier freedom, pivot columns) of A w = b on C_∞."""
        n = len(self.w)
        order = list(range(n))  # velocities first: they become pivots, multipliers stay free
        pivots: list = []
        for j in order:
            cand = pivots + [j]
            if generic_rank(A.extract(list(range(A.rows)), cand)).rank > len(pivots):
                pivots = cand
        r = len(pivots)
        if r == n:
            return 0, 0, pivots
        kernel, _ = nullspace(A)
        nv = len(self.velocity_unknowns)
        if nv == 0 or not kernel:
            return 0, n - r, pivots
        K = sp.Matrix.hstack(*kernel)
        vel_rank = generic_rank(K.extract(list(range(nv)), list(range(K.cols)))).rank
        return vel_rank, (n - r) - vel_rank, pivots

    # --- display ----------------------------------------------------------------------------
    def __repr__(self) -> str:
        return (f"ImplicitDifferentialEquation(x={list(self.x)}, xdot={list(self.xdot)}, "
                f"equations={self.equations}, unknowns={list(self.unknowns)})")


def _dedupe(exprs) -> list:
    out, seen = [], set()
    for e in exprs:
        e = sp.factor_terms(as_expr(e))
        if e.is_number:
            continue
        key = sp.srepr(e)
        if key not in seen:
            seen.add(key)
            out.append(e)
    return out
