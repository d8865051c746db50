r"""Non-holonomic constraint submanifolds Q ⊂ J¹Y ([Stolařová 2009, eq. (2)–(5)]; [Benenti 2007, §2]).

A constraint submanifold of codimension k < m is given

* **implicitly**, f^i(t, q, q̇) = 0 with rank(∂f^i/∂q̇^σ) = k [Stolařová 2009, eq. (2)–(3)]; the
  states where the rank drops are the *singular states* (for a homogeneous
  quadratic constraint: the zero section, [Benenti 2007, Remark 7.5]);
* in **normal form**, q̇^{D_i} = g^i(t, q, q̇^I) [Stolařová 2009, eq. (4)], the dependent velocities
  q̇^D chosen by a structural bipartite matching (ranked linear assignments) between equations and
  velocities, made deterministic and verified to have a generically non-singular
  block ∂f/∂q̇^D; nonlinear constraints may have several branches;
* **parametrically**, q̇ = ψ(t, q, z) with rank(∂ψ/∂z) = m − k ([Benenti 2007, eq. (2.1)], (2.3)).

Classification [Stolařová 2009, §2]: *affine* ("simple", given by a distribution on Y);
*semiholonomic* (that distribution is integrable — the system is really
holonomic); *Chaplygin* [Stolařová 2009, eq. (5)]: q̇^{D_i} = b^i_s(t, q^I) q̇^s; otherwise
genuinely *nonlinear*.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import chain, combinations

import sympy as sp

from ..errors import BranchError, InputError, OffManifoldError, RankDeficientError, UndecidedError
from ..geometry import Codistribution, Form, generic_rank, generic_rank_dag, singular_locus
from ..geometry.coerce import as_expr, as_symbol
from ..geometry.display import tidy
from ..geometry.exact import (
    CANONICAL_MAX_NODES,
    NORMAL_FORM_MAX_NODES,
    affine_system,
    det_sized,
    diff_dag,
    free_symbols_dag,
    gradient_dag,
    is_small,
    lu_solve_dag,
    not_real_finite,
    solve_exact,
    xreplace_dag,
)
from ..geometry.polydiff import polys_of
from ..geometry.readable import readable
from ..geometry.zero import is_zero, normalise, normalise_if_small
from ..jets import FibredManifold
from ..limits import staged
from .branch_solve import solve_branches

__all__ = ["ConstraintSubmanifold", "NormalForm", "Branch", "Classification", "AdmissibleChoices"]


@dataclass
class Branch:
    """One solution branch of the constraints for the dependent velocities.

    ``solution`` maps each dependent velocity to g^i; ``domain`` lists the
    conditions under which the branch is defined and real: expressions that must
    be ≥ 0 (``nonnegative``, e.g. square-root arguments) and that must not vanish
    (``nonzero``, denominators).

    Parameters
    ----------
    index : int
        The branch's number in the value order of :meth:`ConstraintSubmanifold.branches`.
    solution : dict
        {q̇^D: g^D}.
    nonnegative : list
        Expressions that must be ≥ 0.
    nonzero : list
        Expressions that must not vanish.
    """

    index: int
    solution: dict
    nonnegative: list = field(default_factory=list)
    nonzero: list = field(default_factory=list)

    def __str__(self) -> str:
        sol = ", ".join(f"{k} = {v}" for k, v in self.solution.items())
        dom = []
        if self.nonnegative:
            dom.append("; ".join(f"{c} >= 0" for c in self.nonnegative))
        if self.nonzero:
            dom.append("; ".join(f"{c} != 0" for c in self.nonzero))
        return f"branch {self.index}: {sol}" + (f"  [domain: {'; '.join(dom)}]" if dom else "")


@dataclass
class NormalForm:
    """q̇^{D_i} = g^i(t, q, q̇^I): the normal form [Stolařová 2009, eq. (4)] on one branch.

    ``condition`` is det(∂f/∂q̇^D) on the branch (the normal form is valid where
    it does not vanish); ``branch`` records the branch and its domain.

    Parameters
    ----------
    dependent : tuple of Symbols
        q̇^D.
    independent : tuple of Symbols
        q̇^I.
    g : dict
        {q̇^D: g^D(t, q, q̇^I)}.
    branch : Branch
        The branch and its domain.
    condition : sympy.Expr
        det(∂f/∂q̇^D) on the branch.
    """

    dependent: tuple
    independent: tuple
    g: dict
    branch: Branch
    condition: sp.Expr

    @property
    def solution(self) -> dict:
        """Alias of :attr:`g`: {q̇^{D_i}: g^i} (the substitution that puts an expression on Q)."""
        return self.g

    def __str__(self) -> str:
        return ", ".join(f"{k} = {tidy(v)}" for k, v in self.g.items())

    def _repr_latex_(self) -> str:
        """q̇^D = g in readable form (:func:`~jetgeo.geometry.readable`), and where it is valid."""
        form = readable(self.g, velocities=self.independent)
        cond = readable([self.condition]).equations[0]
        rows = form.latex().removeprefix(r"\begin{aligned}").removesuffix(r"\end{aligned}")
        if as_expr(cond).free_symbols:
            rows += r"\\ &\text{valid where } " + sp.latex(cond) + r" \neq 0"
        return r"$\begin{aligned}" + rows + r"\end{aligned}$"


#: how many k-subsets of the velocities :meth:`ConstraintSubmanifold.admissible_choices` examines
ADMISSIBLE_CHOICES_LIMIT = 120


@dataclass(frozen=True)
class AdmissibleChoices:
    """The admissible choices of dependent velocities found (the choice in force first);
    ``complete`` is False when the enumeration was cut at the limit (``examined`` of ``total``
    k-subsets were looked at).

    A choice of k dependent velocities q̇^D is admissible when ∂f/∂q̇^D (k × k) is generically
    invertible, so that f = 0 can be solved for them: the rank condition and the normal form
    q̇^D = g(t, q, q̇^I) of [Stolařová 2009, eq. (3), (4)].  Iterating gives the choices; ``len`` counts them.

    Attributes
    ----------
    choices : tuple of tuple
        Each choice a tuple of dependent velocity symbols, the one in force first.
    complete : bool
        False when :data:`ADMISSIBLE_CHOICES_LIMIT` subsets were examined without exhausting them.
    total : int
        The number of k-subsets of the m velocities, C(m, k).
    """

    choices: tuple
    complete: bool
    total: int

    def __iter__(self):
        return iter(self.choices)

    def __len__(self) -> int:
        return len(self.choices)

    def __str__(self) -> str:
        text = ", ".join("[" + ", ".join(map(str, c)) + "]" for c in self.choices)
        return text + ("" if self.complete else f" (enumeration cut: {len(self.choices)} found "
                                                   f"among the first subsets of {self.total})")


@dataclass
class Classification:
    """What kind of constraint Q is; ``kind`` is the most specific name.

    kind ∈ {"semiholonomic", "chaplygin", "affine", "nonlinear"}; ``affine`` is
    [Stolařová 2009]'s "simple" (representable by a distribution on Y), ``homogeneous`` means
    linear (no velocity-free term), ``scleronomic`` time-independent.  Being affine,
    homogeneous or integrable does not depend on the choice of dependent velocities; being in
    Chaplygin's form does, so every admissible choice is examined: ``chaplygin`` (and the kind
    "chaplygin") means that some choice works, ``chaplygin_choices`` lists them.

    Attributes
    ----------
    kind : str
        ``"semiholonomic"``, ``"chaplygin"``, ``"affine"`` or ``"nonlinear"`` [Stolařová 2009, eq. (5)].
    affine : bool
        The constraint is affine in the velocities.
    homogeneous : bool
        Affine with no velocity-free term (linear in q̇).
    scleronomic : bool
        No explicit dependence on t.
    integrable : bool or None
        The canonical distribution is involutive (the constraint is holonomic, Frobenius); None
        when undecided (nonlinear constraints).
    chaplygin : bool
        Some admissible choice of dependent velocities puts Q in Chaplygin's form
        q̇^D = b(t, q^I) q̇^I: linear, the coefficients free of the dependent coordinates q^D.
    explanation : str
        One sentence saying why, for printing.
    dependent : tuple, default ()
        The dependent velocities of the normal form classified first (the choice in force).
    chaplygin_choices : tuple, default ()
        Every admissible choice that gives Chaplygin's form.
    choices_complete : bool, default True
        False when the enumeration of choices was cut (:class:`AdmissibleChoices`).
    """

    kind: str
    affine: bool
    homogeneous: bool
    scleronomic: bool
    integrable: bool | None
    chaplygin: bool
    explanation: str
    #: the dependent velocities of the normal form classified first (the choice in force)
    dependent: tuple = ()
    #: every admissible choice of dependent velocities that puts Q in Chaplygin's form [Stolařová 2009, eq. (5)]
    chaplygin_choices: tuple = ()
    #: False when the enumeration of choices was cut (see ConstraintSubmanifold.admissible_choices)
    choices_complete: bool = True

    def __str__(self) -> str:
        return f"{self.kind}: {self.explanation}"

    def _repr_html_(self) -> str:
        """The classification as a small HTML table (kind, properties, explanation)."""
        def yes(v) -> str:
            return "undecided" if v is None else ("yes" if v else "no")

        rows = [("kind", self.kind), ("affine in the velocities", yes(self.affine)),
                ("homogeneous (linear)", yes(self.homogeneous)), ("scleronomic", yes(self.scleronomic)),
                ("integrable", yes(self.integrable)), ("Chaplygin form", yes(self.chaplygin))]
        if self.chaplygin_choices:
            rows.append(("Chaplygin choices", "; ".join(", ".join(map(str, c)) for c in self.chaplygin_choices)))
        rows.append(("explanation", self.explanation))
        body = "".join(f"<tr><th style='text-align:left'>{html.escape(k)}</th><td>{html.escape(str(v))}</td></tr>"
                       for k, v in rows)
        return f"<table>{body}</table>"

    def _repr_latex_(self) -> str:
        """The kind and the explanation as LaTeX text."""
        return r"$\text{" + _latex_text(self.kind) + r": " + _latex_text(self.explanation) + r"}$"


class ConstraintSubmanifold:
    """A constraint submanifold Q ⊂ J¹Y of codimension k < m.

    Parameters
    ----------
    Y : FibredManifold
        The configuration bundle.
    constraints : sequence of expressions
        f^i(t, q, q̇), i = 1..k, k < m, independent in the velocities (rank ∂f/∂q̇ = k generically).
    dependent : sequence of Symbols, optional
        The dependent velocities q̇^D of the normal form q̇^D = g, k of them with ∂f/∂q̇^D of generic rank k
        (default: a structural matching of ∂f/∂q̇, verified to have that rank; see :attr:`dependent`).
    branch : int, optional
        For a nonlinear constraint, which solution branch of f = 0 the normal form takes.

    Examples
    --------
    >>> import sympy as sp
    >>> Y = FibredManifold(["x", "y", "z"])
    >>> x, y, z = Y.q; xd, yd, zd = Y.qdot
    >>> Q = ConstraintSubmanifold(Y, [zd - x*y*xd])        # [Stolařová 2009, Example 1]
    >>> Q.normal_form().g
    {zdot: x*xdot*y}
    >>> Q.classify().kind
    'chaplygin'
    """

    def __init__(
        self,
        Y: FibredManifold,
        constraints: Sequence,
        dependent: Sequence | None = None,
        branch: int | None = None,
    ) -> None:
        if not isinstance(Y, FibredManifold):
            raise InputError(f"ConstraintSubmanifold needs a FibredManifold, got {type(Y).__name__}")
        if isinstance(constraints, (sp.Basic, str)):
            constraints = [constraints]
        try:
            fs = tuple(as_expr(f) for f in constraints)
        except (sp.SympifyError, TypeError) as exc:
            raise InputError(f"constraints must be symbolic expressions: {exc}") from exc
        if not fs:
            raise InputError("a constraint submanifold needs at least one constraint f^i = 0")
        for i, f in enumerate(fs):
            if isinstance(f, sp.Equality):
                raise InputError(f"give constraints as expressions f (meaning f = 0), not equations: {f}")
            if not isinstance(f, sp.Expr):
                raise InputError(f"constraint {i + 1}: expected an expression, got {type(f).__name__} {f}")
            why = not_real_finite(f)
            if why == "not finite":
                raise InputError(f"constraint {i + 1}: {f} is not finite")
            if why:
                raise InputError(f"constraint {i + 1}: {f} is not real (it contains the imaginary unit); "
                                 "jetgeo works over the reals")
            if Y.jet_order(f) > 1:
                raise InputError(f"constraints must depend on (t, q, q̇) only; {f} contains accelerations")
            _refuse_empty(f, i)
        k = len(fs)
        if k >= Y.m:
            raise RankDeficientError(
                f"{k} constraints on {Y.m} velocities: codimension k must be < m = {Y.m}"
            )
        self.Y = Y
        self.f = fs
        self.k = k
        self.dependent_choice = tuple(dependent) if dependent is not None else None
        for d in self.dependent_choice or ():  # at once, not when the normal form is first asked for
            as_symbol(d, Y.qdot, "dependent velocity")
        self.branch_choice = branch
        self.psi: dict | None = None  # parametric data, when given that way
        self.z: tuple | None = None
        self.z_of_qdot: dict | None = None
        rank = generic_rank_dag(self._jacobian_dag)
        if rank < k:
            raise RankDeficientError(
                f"the constraint Jacobian ∂f/∂q̇ has generic rank {rank} < k = {k} "
                f"for constraints {list(fs)}; condition (3) of [Stolařová 2009] fails (are some constraints "
                "holonomic, or dependent on the others?)"
            )

    # --- alternative constructors -----------------------------------------------------
    @classmethod
    def from_normal_form(cls, Y: FibredManifold, g: Mapping) -> ConstraintSubmanifold:
        """Q given as q̇^{D_i} = g^i [Stolařová 2009, eq. (4)]."""
        g = {as_symbol(k, Y.qdot, "dependent velocity"): as_expr(v, f"normal form of {k}") for k, v in g.items()}
        for dv in g:
            if dv not in Y.qdot:
                raise InputError(f"normal form: {dv} is not a velocity of {Y!r}")
        Q = cls(Y, [dv - expr for dv, expr in g.items()], dependent=list(g))
        return Q

    @classmethod
    def parametric(cls, Y: FibredManifold, psi: Sequence, z: Sequence) -> ConstraintSubmanifold:
        """Q given as q̇ = ψ(t, q, z) with rank ∂ψ/∂z = dim z ([Benenti 2007, eq. (2.1)], (2.3)).

        The implicit equations are obtained by choosing m − k velocities q̇^I with
        ∂ψ^I/∂z invertible, solving z = z(t, q, q̇^I) and setting f = q̇^D − ψ^D(z).  A non-linear ψ^I is
        solved by :func:`~jetgeo.mechanics.branch_solve.solve_branches` (candidates verified by the zero test,
        not by sympy's ``simplify``-based check).
        """
        psi = [as_expr(p) for p in psi]
        z = tuple(as_symbol(s, what="parameter z") for s in z)
        if len(psi) != Y.m:
            raise InputError(f"parametric constraints: ψ needs {Y.m} components (one per q̇), got {len(psi)}")
        if not z or len(z) >= Y.m:
            raise InputError(f"parametric constraints: need 1 ≤ dim z < m = {Y.m}, got {len(z)}")
        z_user = z
        if set(z) & (set(Y.q) | set(Y.qdot) | {Y.t}):
            # parameters named like jet coordinates (e.g. z = q̇^I, [Benenti 2007, Remark 7.3]): rename
            fresh = tuple(sp.Dummy(f"z{i}") for i in range(len(z)))
            psi = [p.xreplace(dict(zip(z, fresh))) for p in psi]
            z = fresh
        J = sp.Matrix(Y.m, len(z), lambda i, a: sp.diff(psi[i], z[a]))
        info = generic_rank(J)
        if info.rank < len(z):
            raise RankDeficientError(
                f"parametric constraints: rank ∂ψ/∂z = {info.rank} < dim z = {len(z)} [Benenti 2007, eq. (2.3)]"
            )
        rows = list(info.rows)  # velocities whose ψ determine z
        sols = _solve_for(
            [Y.qdot[r] - psi[r] for r in rows], list(z), "parametric constraints", branches=True
        )
        if len(sols) != 1:
            raise UndecidedError(
                "parametric constraints: solving q̇^I = ψ^I(z) for z gives "
                f"{len(sols)} solutions; give the constraints implicitly instead"
            )
        zsol = sols[0]
        fs = [Y.qdot[i] - normalise(psi[i].xreplace(zsol)) for i in range(Y.m) if i not in rows]
        Q = cls(Y, fs, dependent=[Y.qdot[i] for i in range(Y.m) if i not in rows])
        back = dict(zip(z, z_user))
        Q.psi = {v: p.xreplace(back) for v, p in zip(Y.qdot, psi)}
        Q.z = z_user
        # z = z(t, q, q̇^I): the inverse of the parametrisation on Q
        Q.z_of_qdot = {back[k]: v for k, v in zsol.items()}
        return Q

    # --- Jacobian and singular states -------------------------------------------------
    def jacobian(self) -> sp.Matrix:
        """(∂f^i/∂q̇^σ), k × m (a copy; computed once)."""
        return self._jacobian.copy()

    @cached_property
    def _f_polys(self) -> tuple:
        """Each f^i as a sparse polynomial in (t, q, q̇, sin, cos of the angles), or None where
        it is not one (:mod:`jetgeo.geometry.polydiff`)."""
        Y = self.Y
        return tuple(polys_of(self.f, extra=(Y.t, *Y.q, *Y.qdot)))

    @cached_property
    def _jacobian(self) -> sp.Matrix:
        """∂f/∂q̇ expanded in the polynomial ring where f is a trigonometric polynomial (the collected
        forms the canonical routes start from), else by ``sp.diff``."""
        qd = self.Y.qdot
        P = self._f_polys
        return sp.Matrix(self.k, self.Y.m, lambda i, s: P[i].diff(qd[s]).expr if P[i] is not None
                         else sp.diff(self.f[i], qd[s]))

    @cached_property
    def _jacobian_dag(self) -> sp.Matrix:
        """∂f/∂q̇ on the expression DAG (:func:`~jetgeo.geometry.exact.gradient_dag`, one walk per
        constraint, unexpanded): what the rank check at construction, the choice of dependent velocities
        and the TQ route read, so that no polynomial ring is built for them (converting the 4-trailer's
        knife edges from its bodies and generating the ring's monomial code: 3.5 of the 5.9 ms of its
        construction, 680 → 370 page faults of the import in a fresh process)."""
        qd = self.Y.qdot
        velocities = frozenset(qd)
        memo: dict = {}
        grads = [gradient_dag(f, velocities, memo) for f in self.f]
        return sp.Matrix(self.k, self.Y.m, lambda i, s: grads[i].get(qd[s], sp.S.Zero))

    def singular_states(self) -> list:
        """Expressions whose common zeros (on Q) are where rank ∂f/∂q̇ < k [Stolařová 2009, eq. (3)].

        For ẋ² + ẏ² − a²ż² this is ẋ = ẏ = ż = 0: the zero section ([Benenti 2007, Remark 7.5]).
        """
        out = list(singular_locus(self.jacobian()))
        # where f itself is undefined (a denominator vanishes, e.g. det ∂ψ^I/∂z of a parametric
        # description solved for z): Q is not described there either — never silently divide
        for f in self.f:
            den = sp.fraction(sp.together(f))[1]
            for fac in sp.factor_list(den)[1] if not den.is_number else []:
                base = fac[0]
                if base.free_symbols and all(not is_zero(base - o) and not is_zero(base + o) for o in out):
                    out.append(base)
        return out

    # --- dependent velocities ------------------------------------------------------------
    @cached_property
    @staged("dependent velocities")
    def dependent(self) -> tuple:
        """The dependent velocities q̇^D (user's choice, else a verified structural matching)."""
        Y = self.Y
        J = self._jacobian_dag
        if self.dependent_choice is not None:
            dep = tuple(as_symbol(d, self.Y.qdot, "dependent velocity") for d in self.dependent_choice)
            if len(dep) != self.k or any(d not in Y.qdot for d in dep) or len(set(dep)) != self.k:
                raise InputError(
                    f"dependent velocities must be {self.k} distinct velocities of {Y!r}; got {list(dep)}"
                )
            cols = [Y.qdot.index(d) for d in dep]
            if generic_rank(J.extract(list(range(self.k)), cols)).rank < self.k:
                raise RankDeficientError(
                    f"cannot solve the constraints for {list(dep)}: ∂f/∂({', '.join(map(str, dep))}) "
                    "is generically singular"
                )
            return dep
        return tuple(Y.qdot[c] for c in _structural_choice(self.f, Y.qdot, J, (Y.t, *Y.q)))

    @property
    def independent(self) -> tuple:
        return tuple(v for v in self.Y.qdot if v not in self.dependent)

    def admissible_choices(self, limit: int = ADMISSIBLE_CHOICES_LIMIT) -> AdmissibleChoices:
        """The choices of dependent velocities q̇^D for which the constraints can be solved:
        the k-subsets D of the velocities with a generically non-singular block ∂f/∂q̇^D
        (each one a chart q̇^D = g_D(t, q, q̇^I) of Q, [Stolařová 2009, eq. (4)]).

        By the Cauchy–Binet formula, det(J Jᵀ) = Σ_D det(J_D)² for J = ∂f/∂q̇: wherever the rank
        condition [Stolařová 2009, eq. (3)] holds, some choice is regular — the charts of the admissible choices
        cover Q.  At most ``limit`` k-subsets are examined (in lexicographic order of the velocity
        indices, the choice in force first); ``complete`` says whether every subset was.
        """
        key = int(limit)
        cache = self.__dict__.setdefault("_admissible_cache", {})
        if key in cache:
            return cache[key]
        Y, k, m = self.Y, self.k, self.Y.m
        J = self._jacobian
        rows = list(range(k))
        current = tuple(Y.qdot.index(d) for d in self.dependent)
        # lazily: C(40, 20) = 1.4·10¹¹ subsets must never be listed, only the first ``limit`` examined
        others = (c for c in combinations(range(m), k) if c != tuple(sorted(current)) and c != current)
        subsets = chain([current], others)
        total = math.comb(m, k)
        found, examined = [], 0
        for cols in subsets:
            if examined >= limit:
                break
            examined += 1
            block = J.extract(rows, list(cols))
            if any(all(block[i, j] == 0 for i in rows) for j in range(k)):
                continue  # a structurally zero column: singular
            if cols == current or generic_rank(block).rank == k:
                found.append(tuple(Y.qdot[c] for c in cols))
        out = AdmissibleChoices(tuple(found), examined == total, total)
        cache[key] = out
        return out

    def with_dependent(self, dependent: Sequence, branch: int | None = None) -> ConstraintSubmanifold:
        """The same submanifold Q (the same f) with another choice of dependent velocities."""
        Q = ConstraintSubmanifold(self.Y, self.f, dependent=dependent,
                                  branch=self.branch_choice if branch is None else branch)
        Q.psi, Q.z, Q.z_of_qdot = self.psi, self.z, self.z_of_qdot
        return Q

    # --- branches and normal form ------------------------------------------------------
    @cached_property
    @staged("normal form")
    def _branches(self) -> list:
        dep = list(self.dependent)
        cols = [self.Y.qdot.index(d) for d in dep]
        jac = self._jacobian.extract(list(range(self.k)), cols)
        sols = _real_solutions(_solve_for(list(self.f), dep, "the constraints", check_degree=True, jacobian=jac,
                                          branches=True), self.f)
        out = []
        for i, sol in enumerate(sols):
            g = {d: sol[d] for d in dep}
            if all(is_small(v, NORMAL_FORM_MAX_NODES) for v in g.values()):
                nonneg, nonzero = _domain_of(list(g.values()))
            else:
                # a large linear solution, kept as solved (an expression DAG, see _solve_for): it is
                # defined where the coefficient matrix ∂f/∂q̇^D is invertible — the normal form's
                # condition, recorded here as the branch's domain
                det = self._block_det(tuple(dep))
                nonneg, nonzero = [], [] if det.is_number else [_tidy_condition(det)]
            out.append(Branch(i, g, nonneg, nonzero))
        return out

    def _block_det(self, dep: tuple) -> sp.Expr:
        """det ∂f/∂q̇^D (exact; expanded when small, the product of DAG pivots when large:
        :func:`~jetgeo.geometry.exact.det_sized`), computed once per choice of dependent velocities."""
        cache = self.__dict__.setdefault("_block_det_cache", {})
        if dep not in cache:
            cols = [self.Y.qdot.index(d) for d in dep]
            block = self._jacobian.extract(list(range(self.k)), cols)
            if block.is_lower or block.is_upper:  # structurally triangular: the diagonal's product
                cache[dep] = sp.Mul(*[block[i, i] for i in range(self.k)])
            else:
                cache[dep] = det_sized(block)
        return cache[dep]

    def branches(self) -> list:
        """All solution branches q̇^D = g(t, q, q̇^I), numbered by their values.

        Non-linear constraints are solved by :func:`~jetgeo.mechanics.branch_solve.solve_branches`
        (elimination and the quadratic formula where they apply, else ``sympy.solve`` without its
        ``simplify``-based check; every candidate verified by the zero test, a spurious one dropped).
        The order depends on the branches as functions, not on how they are written: they are sorted
        by their values at fixed rational sample points of the base
        (:func:`~jetgeo.mechanics.branch_solve.order_branches`) — the largest value of the first
        dependent velocity first (real parts, then imaginary parts), then the next dependent velocity,
        a tie broken at the next point — so ż = ±√(ẋ² + ẏ²)/a has the + branch as branch 0, and
        multiplying, expanding or factoring f keeps every number (theory/constraints.md, 'Branches').

        Returns
        -------
        list of Branch
            The branches, ``branch.index`` their position.

        Examples
        --------
        >>> from jetgeo import FibredManifold
        >>> Y = FibredManifold(["x", "y", "z"])
        >>> xd, yd, zd = Y.qdot
        >>> [b.solution for b in ConstraintSubmanifold(Y, [xd**2 + yd**2 - 4 * zd**2], dependent=[zd]).branches()]
        [{zdot: sqrt(xdot**2 + ydot**2)/2}, {zdot: -sqrt(xdot**2 + ydot**2)/2}]
        """
        return list(self._branches)

    @staged("normal form")
    def normal_form(self, dependent: Sequence | None = None, branch: int | None = None) -> NormalForm:
        """The normal form [Stolařová 2009, eq. (4)] for the chosen dependent velocities and branch.

        With several branches (e.g. ż = ±√(ẋ² + ẏ²)/a) ``branch`` must name one
        (an index into :meth:`branches`), else :class:`BranchError` lists them.
        """
        Q = self
        if dependent is not None and tuple(dependent) != self.dependent:
            Q = ConstraintSubmanifold(self.Y, self.f, dependent=dependent)
        brs = Q._branches
        b = self.branch_choice if branch is None else branch
        if b is None:
            if len(brs) > 1:
                listing = "\n  ".join(str(x) for x in brs)
                raise BranchError(
                    f"the constraints have {len(brs)} branches for {list(Q.dependent)}; "
                    f"choose one with branch=i:\n  {listing}"
                )
            b = 0
        if not isinstance(b, int) or not 0 <= b < len(brs):
            raise BranchError(f"branch {b!r} does not exist; there are {len(brs)} branch(es)")
        br = brs[b]
        cond = Q._block_det(tuple(Q.dependent))
        if cond.has(*Q.dependent):
            cond = xreplace_dag(cond, br.solution)
        return NormalForm(Q.dependent, Q.independent, dict(br.solution), br, _tidy_condition(cond))

    def branch_of(self, point: Mapping, tol: float = 1e-9) -> int:
        """Index of the branch (for the current dependent velocities) through a point of Q.

        ``point`` gives values of t (if it occurs), q, all q̇ and the parameters.  It must satisfy
        f = 0 and q̇^D = g^D of exactly one branch (numerically, relative tolerance
        ``tol``); otherwise :class:`OffManifoldError` or :class:`BranchError`.
        """
        pt = {as_symbol(k, what="point coordinate"): as_expr(v, f"value of {k}") for k, v in point.items()}
        missing = set().union(*(f.free_symbols for f in self.f)) | set(self.dependent)
        missing |= set().union(*(g.free_symbols for br in self._branches for g in br.solution.values()))
        missing = missing - set(pt)
        if missing:
            raise InputError(
                f"branch_of: the point must give values for {sorted(map(str, missing))} "
                "(parameters included)"
            )
        for f in self.f:
            val = complex(sp.N(f.xreplace(pt), 30))
            scale = 1.0 + sum(abs(complex(sp.N(sp.Abs(a).xreplace(pt), 30))) for a in sp.Add.make_args(f))
            if abs(val) > tol * scale:
                raise OffManifoldError(f"the point {point} is not on Q: {f} = {val} there")
        hits = []
        for br in self._branches:
            ok = True
            for d, g in br.solution.items():
                gv = complex(sp.N(g.xreplace(pt), 30))
                dv = complex(sp.N(pt[d], 30))
                if abs(gv - dv) > tol * (1.0 + abs(dv)):
                    ok = False
                    break
            if ok:
                hits.append(br.index)
        if len(hits) != 1:
            raise BranchError(
                f"the point {point} lies on {len(hits)} branches ({hits}) for {list(self.dependent)}; "
                "it is a branch point or outside every branch's domain"
            )
        return hits[0]

    def to_parametric(self, branch: int | None = None) -> tuple:
        """(ψ, z): the parametric form q̇ = ψ(t, q, z) of the chosen branch [Benenti 2007, eq. (2.1)].

        Following [Benenti 2007, Remark 7.3] the parameters are the independent velocities,
        z = q̇^I, ψ^I = z, ψ^D = g; rank ∂ψ/∂z = m − k holds trivially.
        """
        nf = self.normal_form(branch=branch)
        psi = [nf.g.get(v, v) for v in self.Y.qdot]
        return psi, tuple(nf.independent)

    # --- classification --------------------------------------------------------------------
    def classify(self, branch: int | None = None) -> Classification:
        """Affine/simple, semiholonomic, Chaplygin [Stolařová 2009, eq. (5)] or nonlinear.

        With the normal form q̇^D = g(t, q, q̇^I) [Stolařová 2009, eq. (4)]: Q is *affine* ("simple",
        a distribution on Y) iff ∂²g/∂q̇^I∂q̇^I ≡ 0; *semiholonomic* iff moreover the
        Pfaffian system dq^D − (∂g/∂q̇^s) dq^s − g|_{q̇=0} dt on Y is integrable
        (Frobenius; then Q is really holonomic); *Chaplygin* [Stolařová 2009, eq. (5)] iff g is linear
        homogeneous with coefficients b^i_s(t, q^I) free of the dependent coordinates.
        For a constraint with several branches and ``branch=None`` every branch is
        classified; if they disagree, :class:`BranchError` asks for one.
        """
        if branch is None and self.branch_choice is None and len(self._branches) > 1:
            kinds = [self.classify(branch=i) for i in range(len(self._branches))]
            if len({c.kind for c in kinds}) == 1:
                return kinds[0]
            raise BranchError(
                "the branches of the constraints are of different kinds ("
                + ", ".join(f"branch {i}: {c.kind}" for i, c in enumerate(kinds))
                + "); choose one with branch=i"
            )
        Y = self.Y
        nf = self.normal_form(branch=branch)
        ind = nf.independent
        affine = all(
            is_zero(sp.diff(g, a, b)) for g in nf.g.values() for a in ind for b in ind
        )
        scleronomic = all(not f.has(Y.t) for f in self.f)
        if not affine:
            return Classification(
                "nonlinear", False, False, scleronomic, None, False,
                "the constraint submanifold is not affine in the velocities (∂²g/∂q̇∂q̇ ≢ 0)",
            )
        zero_v = {v: 0 for v in Y.qdot}
        b0 = {d: normalise(g.xreplace(zero_v)) for d, g in nf.g.items()}
        homogeneous = all(is_zero(c) for c in b0.values())
        # the Pfaffian system on Y: dq^D − b^D_s dq^s − b^D_0 dt
        C = Y.Y
        forms = []
        for d, g in nf.g.items():
            qd = Y.q[Y.qdot.index(d)]
            w = C.dx(qd) - b0[d] * C.dx(Y.t)
            for a in ind:
                w = w - sp.diff(g, a) * C.dx(Y.q[Y.qdot.index(a)])
            forms.append(w)
        integrable = Codistribution(C, forms).is_integrable().involutive
        dep_coords = {Y.q[Y.qdot.index(d)] for d in nf.dependent}
        chaplygin = homogeneous and all(
            not (sp.diff(g, a).free_symbols & dep_coords) for g in nf.g.values() for a in ind
        )
        choices, complete = (), True
        if homogeneous and not integrable:
            adm = self.admissible_choices()
            complete = adm.complete
            choices = tuple(c for c in adm if (chaplygin if tuple(c) == tuple(nf.dependent)
                                               else self._chaplygin_form(c)))
        names = "; ".join("[" + ", ".join(map(str, c)) + "]" for c in choices)
        cut = "" if complete else " (not every choice was examined: the enumeration was cut)"
        if integrable:
            kind, why = "semiholonomic", (
                "affine and the distribution on Y it defines is integrable (Frobenius): "
                "the constraints are really holonomic"
            )
        elif chaplygin:
            kind, why = "chaplygin", (
                "linear, with coefficients independent of the dependent coordinates [Stolařová 2009, eq. (5)]"
                + (f"; Chaplygin choices of dependent velocities: {names}" if len(choices) > 1 else "")
            )
        elif choices:
            kind, why = "chaplygin", (
                f"linear; in Chaplygin's form [Stolařová 2009, eq. (5)] with the dependent velocities {names}, "
                "not with the "
                f"choice in force [{', '.join(map(str, nf.dependent))}] (its coefficients depend on the dependent "
                "coordinates)" + cut
            )
        else:
            kind, why = "affine", ("affine in the velocities (simple), not integrable"
                                   + ("; no choice of dependent velocities gives Chaplygin's form" if homogeneous
                                      else "") + cut)
        return Classification(kind, True, homogeneous, scleronomic, integrable, bool(chaplygin or choices), why,
                              tuple(nf.dependent), choices, complete)

    def _chaplygin_form(self, dependent) -> bool:
        """Whether q̇^D = b(t, q^I) q̇^I for the dependent velocities ``dependent`` (Q linear): the
        coefficients b = −(∂f/∂q̇^D)⁻¹ ∂f/∂q̇^I free of the dependent coordinates q^D [Stolařová 2009, eq. (5)]."""
        Y = self.Y
        cols_D = [Y.qdot.index(d) for d in dependent]
        cols_I = [j for j in range(Y.m) if j not in cols_D]
        qD = {Y.q[j] for j in cols_D}
        J = self._jacobian
        if not any(e.free_symbols & qD for e in J):
            return True
        rows = list(range(self.k))
        JD, JI = J.extract(rows, cols_D), J.extract(rows, cols_I)
        b = solve_exact(JD, -JI)
        return all(is_zero(diff_dag(e, q)) for e in b for q in qD if e.has(q))

    # --- embedding ------------------------------------------------------------------------------
    def __repr__(self) -> str:
        return f"ConstraintSubmanifold({self.Y!r}, {list(self.f)})"

    def _repr_latex_(self) -> str:
        return r"$\left\{" + r",\ ".join(sp.latex(f) + " = 0" for f in self.f) + r"\right\}$"


# --- helpers ------------------------------------------------------------------------------------


_LATEX_TEXT = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "_": r"\_", "&": r"\&", "%": r"\%", "#": r"\#",
               "$": r"\$", "^": r"\^{}", "~": r"\~{}"}


def _latex_text(text: str) -> str:
    """``text`` escaped for LaTeX's ``\\text{…}`` (every special character in one pass)."""
    return re.sub(r"[\\{}_&%#$^~]", lambda m: _LATEX_TEXT[m.group()], text)


def _structural_choice(fs, qdot, J, reference: Sequence = ()) -> list:
    """Deterministic dependent-velocity columns with a generically non-singular block.

    A bipartite graph joins equation i to velocity σ when ∂f^i/∂q̇^σ ≢ 0 (structurally
    non-zero).  Edge costs prefer (1) equations linear in the velocity, (2) a
    constant coefficient, (3) later velocities ([Stolařová 2009]'s convention q̇^{m−k+i}).  Full matchings
    are generated in order of increasing cost (Murty's ranking of assignments [Murty 1968]) —
    never the C(m, k) column sets, which for 13 constraints on 26 velocities are 10⁷ — and the
    first whose block is generically non-singular is a candidate (a pure structural matching can
    pick a singular block, e.g. when two equations have proportional rows).  At most
    :data:`_MAX_MATCHINGS` matchings are examined; then the pivot columns of the Jacobian's
    generic rank decide.

    Among generically non-singular blocks, one that is also non-singular at the reference
    configuration, the symbols ``reference`` set to 0 (t = 0, q = 0: angles zero, bodies aligned;
    :func:`~jetgeo.geometry.exact.generic_rank_dag` with ``at_zero``), is preferred:
    otherwise the normal form is singular on an everyday set of states (for a car with
    trailers, choosing θ̇ of a trailer puts sin(θ_i − θ_{i+1}) in the denominators —
    singular when driving straight; measured 116 s vs 11.9 s to derive n = 3).
    """
    k, m = J.shape
    cost = {}
    for i in range(k):
        for s in range(m):
            e = J[i, s]
            if e == 0:
                continue
            # e free of q̇^σ: linear without sympy's diff (its derivative would be 0)
            linear = qdot[s] not in free_symbols_dag([e]) or sp.diff(e, qdot[s]) == 0
            const = e.is_number
            cost[(i, s)] = (0 if linear else 100) + (0 if const else 10) + (m - 1 - s)
    first = None
    for n_tried, cols in enumerate(_ranked_matchings(cost, k, m, _MAX_MATCHINGS)):
        block = J.extract(list(range(k)), list(cols))
        if generic_rank_dag(block) < k:
            continue
        if first is None:
            first = list(cols)
        if not reference or generic_rank_dag(block, at_zero=reference) == k:
            return list(cols)
        if n_tried > 60:
            break
    if first is not None:
        return first
    info = generic_rank(J)
    return list(info.cols)


#: matchings examined by :func:`_structural_choice` before it falls back to the Jacobian's pivots
_MAX_MATCHINGS = 64


def _ranked_matchings(cost: dict, k: int, m: int, limit: int):
    """Column sets of full matchings (every equation i to a distinct velocity s with an edge
    (i, s) in ``cost``), in order of increasing total cost, each set once, at most ``limit``.

    Murty's partition [Murty 1968]: the best assignment under (forced, forbidden) edge sets is
    split, for its j-th free edge e_j, into the subproblem forcing e_1 … e_{j−1} and forbidding
    e_j; a heap of subproblems yields the assignments in order.  Each subproblem is one linear
    assignment (:func:`_min_cost_assignment`), so the work is polynomial in k and m."""
    import heapq

    big = 1 + 2 * sum(cost.values())

    def best(forced: frozenset, forbidden: frozenset):
        C = [[big] * m for _ in range(k)]
        for (i, s), c in cost.items():
            if (i, s) not in forbidden:
                C[i][s] = c
        for i, s in forced:
            keep = C[i][s]
            C[i] = [big] * m
            for row in C:
                row[s] = big
            C[i][s] = keep
        cols = _min_cost_assignment(C)
        if any(C[i][s] >= big for i, s in enumerate(cols)):
            return None
        return sum(C[i][s] for i, s in enumerate(cols)), tuple(enumerate(cols))

    first = best(frozenset(), frozenset())
    if first is None:
        return
    heap = [(first[0], first[1], frozenset(), frozenset())]
    seen: set = set()
    solves = 1
    while heap and len(seen) < limit and solves < 8 * limit:
        total, assign, forced, forbidden = heapq.heappop(heap)
        cols = tuple(sorted(s for _, s in assign))
        if cols not in seen:
            seen.add(cols)
            yield list(cols)
        free = [e for e in assign if e not in forced]
        fixed = set(forced)
        for e in free:
            sub = best(frozenset(fixed), forbidden | {e})
            solves += 1
            if sub is not None:
                heapq.heappush(heap, (sub[0], sub[1], frozenset(fixed), forbidden | {e}))
            fixed.add(e)


def _min_cost_assignment(C: list) -> list:
    """The columns of a minimum-cost assignment of the k rows of the k × m cost table ``C`` (k ≤ m,
    integer costs) to distinct columns: ``cols[i]`` for row i.  The Hungarian method with row and
    column potentials and shortest augmenting paths [Kuhn 1955], O(k²m) — in pure Python: scipy's
    ``linear_sum_assignment`` did the same, but importing ``scipy.optimize`` took 0.5–1.2 s, more than
    all of the 4-trailer's equations (issue 28).

    >>> _min_cost_assignment([[4, 1, 3], [2, 0, 5]])
    [1, 0]
    """
    k, m = len(C), len(C[0])
    inf = float("inf")
    u = [0] * (k + 1)  # row potentials (1-based; 0 is the virtual start)
    v = [0] * (m + 1)  # column potentials
    row_of = [0] * (m + 1)  # row_of[j]: the row assigned to column j (0: none)
    way = [0] * (m + 1)
    for i in range(1, k + 1):
        row_of[0] = i
        j0 = 0
        minv = [inf] * (m + 1)
        used = [False] * (m + 1)
        while True:
            used[j0] = True
            i0, delta, j1 = row_of[j0], inf, 0
            for j in range(1, m + 1):
                if not used[j]:
                    cur = C[i0 - 1][j - 1] - u[i0] - v[j]
                    if cur < minv[j]:
                        minv[j], way[j] = cur, j0
                    if minv[j] < delta:
                        delta, j1 = minv[j], j
            for j in range(m + 1):
                if used[j]:
                    u[row_of[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if row_of[j0] == 0:
                break
        while j0:  # augment along the path
            j1 = way[j0]
            row_of[j0] = row_of[j1]
            j0 = j1
    cols = [0] * k
    for j in range(1, m + 1):
        if row_of[j]:
            cols[row_of[j] - 1] = j - 1
    return cols


#: highest degree in a dependent velocity for which the branches are sought in closed form
MAX_SOLVE_DEGREE = 4


def _check_solvable_degree(fs, dep) -> None:
    """UndecidedError before solving when a constraint is a polynomial of degree > 4 in a dependent
    velocity: its roots have no closed form in general (Abel–Ruffini), and sympy's attempt
    (factoring over algebraic extensions) runs for minutes — ``ydot**100 - xdot**2 - 1`` > 90 s."""
    for i, f in enumerate(fs):
        for d in dep:
            if not f.has(d):
                continue
            try:
                deg = sp.degree(f, d) if f.is_polynomial(d) else None
            except sp.PolynomialError:
                deg = None
            if deg is not None and deg > MAX_SOLVE_DEGREE:
                raise UndecidedError(
                    f"constraint {i + 1} has degree {deg} in {d}: its {deg} branches have no closed form "
                    f"(degree > {MAX_SOLVE_DEGREE}); give the normal form q̇^D = g, or another dependent velocity"
                )


def _real_solutions(sols: list, fs) -> list:
    """The solutions that are real somewhere: a branch written with the imaginary unit (the two
    complex cube roots of ẏ³ = ẋ² + 1) is kept only if it is real at one of 12 random real points
    (a real root of a cubic with three real roots is written with I too, casus irreducibilis).
    InputError when no branch is real at any of them."""
    import random

    rng = random.Random(20240515)
    out = []
    for sol in sols:
        vals = [v for v in sol.values() if v.has(sp.I)]
        if not vals:
            out.append(sol)
            continue
        syms = sorted(set().union(*(v.free_symbols for v in vals)), key=lambda x: x.name)
        for _ in range(12):
            pt = {x: sp.Float(rng.uniform(0.1, 3.0) if x.is_positive or x.is_nonnegative else rng.uniform(-3, 3))
                  for x in syms}
            nums = [complex(v.xreplace(pt).evalf(20)) for v in vals]
            if all(abs(z.imag) <= 1e-9 * (1 + abs(z.real)) for z in nums):
                out.append(sol)
                break
    if not out:
        listing = "; ".join(", ".join(f"{k} = {v}" for k, v in sol.items()) for sol in sols)
        raise InputError(f"the constraints {list(fs)} have no real solution branch (every branch is complex "
                         f"at every point tried: {listing[:300]})")
    return out


def _refuse_empty(f: sp.Expr, i: int) -> None:
    """InputError when f = 0 has no real solution because f is a positive (or negative) constant plus
    a sum of even powers with coefficients of that sign, e.g. ẋ² + ẏ² + 1 (a sufficient test,
    exact: Q would be empty, and its 'normal form' ẏ = √(−ẋ² − 1) is not real anywhere)."""
    syms = sorted(f.free_symbols, key=lambda s: s.name)
    if not syms or not f.is_polynomial(*syms):
        return
    try:
        p = sp.Poly(f, *syms)
    except sp.PolynomialError:
        return
    if p.length() > 200:
        return
    const = p.coeff_monomial(1)
    coeffs = p.coeffs()
    if not const.is_number or const == 0 or not all(c.is_number and c.is_real for c in coeffs):
        return
    sgn = 1 if const > 0 else -1
    if all(all(e % 2 == 0 for e in mon) for mon in p.monoms()) and all(sgn * c > 0 for c in coeffs):
        raise InputError(f"constraint {i + 1}: {f} = 0 has no real solution ({f} is "
                         f"{'positive' if sgn > 0 else 'negative'} everywhere: a constant plus even powers with "
                         "coefficients of its sign); the constraint submanifold would be empty")


def _tidy_condition(det: sp.Expr) -> sp.Expr:
    """A block determinant as a domain condition: normalised when small, common factors pulled out
    when it has at most :data:`~jetgeo.geometry.exact.size.CANONICAL_MAX_NODES` tree nodes, else
    as it is (``factor_terms`` walks the tree: 0.6 s on the Whipple bicycle's 2 700-node
    determinant, twice per ``constrain``, for a condition that is only evaluated)."""
    if not is_small(det, CANONICAL_MAX_NODES):
        return det
    return sp.factor_terms(normalise_if_small(det, NORMAL_FORM_MAX_NODES))


def _solve_for(eqs, unknowns, what: str, check_degree: bool = False, jacobian: sp.Matrix | None = None,
               branches: bool = False) -> list:
    """Solve eqs = 0 for unknowns: linear systems by LU, otherwise sympy.solve (with
    ``check_degree``, after :func:`_check_solvable_degree`), or with ``branches`` by
    :func:`~jetgeo.mechanics.branch_solve.solve_branches` (exact elimination, candidates verified by the
    zero test, the order of the values).  ``jacobian``: ∂eqs/∂unknowns if already known (then the affine
    case is recognised without expanding the equations).

    Returns a list of solution dicts in a deterministic order.
    """
    system = affine_system(eqs, unknowns, jacobian)
    if system is not None:
        A, b = system
        if generic_rank_dag(A) < len(unknowns):
            raise RankDeficientError(f"{what}: the linear system for {unknowns} is singular")
        # LU on the expression DAG (pivots proven non-zero); canonical form only for small solutions:
        # along a chain of bodies each solution nests the previous ones, and cancelling the nest
        # costs seconds per body (the canonical forms grow faster than the DAGs)
        sol = lu_solve_dag(A, b)
        return [{u: normalise_if_small(s, NORMAL_FORM_MAX_NODES) for u, s in zip(unknowns, sol)}]
    if check_degree:
        _check_solvable_degree(eqs, unknowns)
    if branches:
        return solve_branches(list(eqs), list(unknowns), what)
    try:
        sols = sp.solve(list(eqs), list(unknowns), dict=True)
    except NotImplementedError as exc:
        raise UndecidedError(
            f"{what}: sympy cannot solve {list(eqs)} for {list(unknowns)}; "
            "give the normal form q̇^D = g or a parametrisation instead"
        ) from exc
    sols = [s for s in sols if all(u in s for u in unknowns)]
    if not sols:
        raise UndecidedError(f"{what}: no explicit solution for {list(unknowns)} was found")
    sols.sort(key=lambda s: tuple(sp.default_sort_key(s[u]) for u in unknowns))
    # put the branch whose first dependent velocity is "positive" first (e.g. +sqrt)
    sols.sort(key=lambda s: 0 if not as_expr(s[unknowns[0]]).could_extract_minus_sign() else 1)
    return sols


def _domain_of(exprs) -> tuple:
    nonneg, nonzero = [], []
    seen = set()
    for e in exprs:
        for p in sp.preorder_traversal(e):
            if isinstance(p, sp.Pow) and p.exp.is_Rational and not p.exp.is_Integer and p.exp.q % 2 == 0:
                if p.base.is_nonnegative or _is_sum_of_even_powers(p.base):
                    continue
                key = ("nn", sp.srepr(p.base))
                if key not in seen:
                    seen.add(key)
                    nonneg.append(p.base)
        for fct in sp.Mul.make_args(_denominator(e)):
            if fct.is_number:
                continue
            base = fct.base if fct.is_Pow else fct
            if base.is_nonzero:
                continue
            key = ("nz", sp.srepr(base))
            if key not in seen:
                seen.add(key)
                nonzero.append(base)
    return nonneg, nonzero


def _denominator(e) -> sp.Expr:
    """The denominator of e as one fraction; ``together`` (0.5 s on a 6-trailer's normal form)
    only when numerator or denominator still hold a negative power."""
    num, den = sp.fraction(e)
    if any(p.is_Pow and p.exp.is_negative for part in (num, den) for p in sp.preorder_traversal(part)):
        num, den = sp.fraction(sp.together(e))
    return den


def _is_sum_of_even_powers(e) -> bool:
    """True if e is a sum of positive multiples of products of even powers (so e ≥ 0 for real values)."""
    e = sp.expand(e)
    for term in sp.Add.make_args(e):
        c, rest = term.as_coeff_Mul()
        if not (c.is_positive or False):
            return False
        for fct in sp.Mul.make_args(rest):
            if fct == 1:
                continue
            if fct.is_positive:
                continue
            if not (fct.is_Pow and fct.exp.is_Integer and fct.exp % 2 == 0):
                return False
    return True


def constraint_forms_on_J1(Y: FibredManifold, fs) -> list:
    """The Chetaev 1-forms ∂f^i/∂q̇^σ ω^σ on J¹Y."""
    out = []
    for f in fs:
        w = Form.zero(Y.J1, 1)
        for v, om in zip(Y.qdot, Y.contact_forms):
            c = sp.diff(f, v)
            if c != 0:
                w = w + c * om
        out.append(w)
    return out
