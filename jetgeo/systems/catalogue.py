"""The catalogue machinery: :class:`CatalogueEntry`, :func:`names`, :func:`load`.

The systems are the builders registered in :mod:`jetgeo.systems.registry` by the modules of
builders (:mod:`~jetgeo.systems.entries`, :mod:`~jetgeo.systems.whipple`), which this module
imports.  An entry is built from a :class:`SystemSpec` (the raw data: coordinates, kinetic and
potential energy or Lagrangian, forces, implicit constraints, a parametrisation,
sample values) by :func:`load`, which first replaces parameters the caller gave
values for (``load("skate", m=1)``) and then constructs the
:class:`~jetgeo.mechanics.LagrangianSystem` and the
:class:`~jetgeo.mechanics.ConstraintSubmanifold`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import sympy as sp

from ..errors import InputError
from ..geometry import zero_test
from ..geometry.coerce import as_expr
from ..geometry.exact import EXACT_SAMPLE_MAX_NODES
from ..jets import FibredManifold
from ..mechanics import ConstrainedSystem, ConstraintSubmanifold, LagrangianSystem, QuasiVelocitySystem
from ..mechanics.eom import SampledSystem
from ..mechanics.states import complete_on_Q
from . import entries, rigid_bodies, whipple  # noqa: F401  (the modules of builders: importing them registers their systems)
from .registry import REGISTRY, SystemSpec, register

__all__ = ["SystemSpec", "CatalogueEntry", "names", "load", "describe", "register"]


@dataclass
class CatalogueEntry(SampledSystem):
    """A system of the catalogue: ``sys, Q = entry`` unpacks it.  It implements
    :class:`~jetgeo.mechanics.eom.SampledSystem` (declared by subclassing), which is how
    :mod:`jetgeo.numerics` recognises it without importing this package.

    Attributes
    ----------
    name : str
        The catalogue name (``jetgeo.systems.load(name)``).
    system : LagrangianSystem
        L (or T − V) and the applied forces, parameters as symbols.
    Q : ConstraintSubmanifold
        The constraint submanifold Q ⊂ J¹Y, carrying the branch of a nonlinear constraint.
    parameters : tuple of Symbol
        The parameter symbols, with their assumptions (positive masses, …).
    psi : list or None
        A parametrisation q̇ = ψ(t, q, z) of Q, aligned with ``Y.qdot`` (Benenti's recipe of the
        first kind [Benenti 2007, §7]), or None where none is natural.
    z : tuple of Symbol or None
        The parameters z of ``psi``.
    branch : int or None
        The branch index of a nonlinear constraint (None for one branch).
    reference : str
        The bibliography key with section and equation numbers (``theory/references.md``).
    description : str
        One paragraph on the physics.
    initial : dict
        {symbol: value} for t, every q and every q̇: a state on Q for the sample parameters
        ``params`` (dependent velocities from the normal form, so the state lies on Q exactly);
        completed on Q when first read (a k × k solve at the point: most uses of an entry never
        read it).
    params : dict
        {parameter symbol: sample value}.
    notes : list of str
        Misprints found in the paper and other remarks (with the sample state's, once completed).
    sample : tuple
        (point, heavy): t, q and the guessed velocities before the dependent ones are solved for, and
        whether the entry is heavy (its guess is then checked to lie on Q instead).
    remarks : list of str
        The notes as given by the entry's builder; ``notes`` adds the sample state's remark to them.
    quasi : QuasiVelocitySystem or None
        The same system in quasi-velocities (Hamel's equations [Hamel 1904]); ``system`` and
        ``Q`` are then its coordinate form ``quasi.lagrangian_system()``,
        ``quasi.constraint_submanifold()``.
    """

    name: str
    system: LagrangianSystem
    Q: ConstraintSubmanifold
    parameters: tuple
    psi: list | None
    z: tuple | None
    branch: int | None
    reference: str
    description: str
    #: the sample point before completion: (t, q and the guessed velocities, heavy entry?)
    sample: tuple = field(repr=False, compare=False)
    params: dict
    remarks: list = field(default_factory=list, repr=False)
    quasi: QuasiVelocitySystem | None = None
    _initial: dict | None = field(default=None, init=False, repr=False, compare=False)

    def __iter__(self) -> Iterator:
        yield self.system
        yield self.Q

    @property
    def initial(self) -> dict:
        """The sample state on Q (see the class), completed when first read."""
        if self._initial is None:
            point, heavy = self.sample
            self._initial, note = _initial_state(self.Q, point, self.params, heavy)
            if note:
                self.remarks.append(note)
        return self._initial

    @property
    def notes(self) -> list:
        """Misprints found in the paper and other remarks, with the sample state's (which is completed
        for it)."""
        _ = self.initial
        return self.remarks

    @property
    def Y(self) -> FibredManifold:
        return self.system.Y

    def constrained(self) -> ConstrainedSystem:
        """Krupková's constrained system ``system.constrain(Q)`` on the entry's branch."""
        return self.system.constrain(self.Q)

    def numeric(self) -> dict:
        """``params`` and ``initial`` as floats, for numerical work."""
        return {s: float(sp.N(v)) for s, v in {**self.params, **self.initial}.items()}

    def _repr_latex_(self) -> str:
        rows = [r"\text{" + self.name.replace("_", r"\_") + "}", "L = " + sp.latex(self.system.L)]
        rows += [sp.latex(f) + " = 0" for f in self.Q.f]
        return r"$\begin{gathered}" + r"\\".join(rows) + r"\end{gathered}$"

    def __str__(self) -> str:
        lines = [f"{self.name}  [{self.reference}]", f"  {self.description}",
                 f"  coordinates: {', '.join(map(str, self.Y.q))}",
                 f"  L = {self.system.L}",
                 "  constraints: " + "; ".join(f"{f} = 0" for f in self.Q.f)]
        if self.branch is not None:
            lines.append(f"  branch: {self.branch}")
        if self.psi is not None:
            lines.append(f"  parametrisation: q̇ = {self.psi}, z = {list(self.z)}")
        return "\n".join(lines)


# --- the registry (jetgeo.systems.registry) and the modules of builders ---------------------------


_SAMPLE_DIGITS = 50


def names(heavy: bool = False) -> list:
    """The names of the catalogue's systems, sorted; ``heavy=True`` includes the systems whose
    full symbolic equations are expensive (see :func:`register`).

    Parameters
    ----------
    heavy : bool
        Include the heavy systems.

    Returns
    -------
    list of str
        The names, sorted.
    """
    return sorted(n for n, r in REGISTRY.items() if heavy or not r.heavy)


def describe() -> dict:
    """{name: one-line summary (with its reference)}.

    Returns
    -------
    dict
        {name: one-line summary with its bibliography key}, every system of the catalogue.
    """
    return {n: REGISTRY[n].summary for n in sorted(REGISTRY)}


def _unknown(name) -> InputError:
    return InputError(f"unknown system {name!r}; the catalogue has: {', '.join(names(heavy=True))}")


def load(name: str, **params) -> CatalogueEntry:
    """Load the system ``name`` of the catalogue.

    Keyword arguments are either options of the entry (e.g. ``form="nonlinear"``,
    ``n=3``) or values for its parameters by name (``m=1``, ``R=sp.Rational(1, 2)``),
    which are substituted before the objects are built.  Unknown names or
    arguments raise :class:`~jetgeo.errors.SpecError` listing what is valid.

    Parameters
    ----------
    name : str
        The system's name (:func:`names`).
    **params
        Options of the entry or parameter values by name.

    Returns
    -------
    CatalogueEntry
        The system, Q, parameters, sample values and a state on Q (``sys, Q = entry`` unpacks it).
    """
    if not isinstance(name, str) or name not in REGISTRY:
        raise _unknown(name)
    reg = REGISTRY[name]
    options = dict(reg.options)
    values = {}
    forces = params.pop("forces", None)
    for k, v in params.items():
        if k in options:
            options[k] = v
        else:
            values[k] = v
    spec = reg.builder(**options)
    if forces is not None:
        _set_forces(name, spec, forces)
    by_name = {s.name: s for s in spec.parameters}
    bad = [k for k in values if k not in by_name]
    if bad:
        raise InputError(
            f"{name}: unknown argument(s) {bad}; options: {sorted(reg.options) or 'none'}; "
            f"parameters: {sorted(by_name)}"
        )
    try:
        subs = {by_name[k]: as_expr(v) for k, v in values.items()}
    except (sp.SympifyError, TypeError) as exc:
        raise InputError(f"{name}: parameter values must be numbers or expressions: {exc}") from exc
    return _build(name, spec, subs)


def _set_forces(name: str, spec: SystemSpec, forces) -> None:
    """The common option ``forces``: a list of A_σ, or ``"generic"`` for constant symbols A1..Am."""
    m = spec.Y.m
    if isinstance(forces, str):
        if forces != "generic":
            raise InputError(f"{name}: forces must be a list of {m} expressions or 'generic', got {forces!r}")
        syms = sp.symbols(f"A1:{m + 1}")
        spec.forces = list(syms)
        spec.parameters = tuple(p for p in spec.parameters if p not in syms) + tuple(syms)
        spec.params.update({A: sp.Rational(k + 1, 3) for k, A in enumerate(syms)})
        return
    forces = list(forces)
    if len(forces) != m:
        raise InputError(f"{name}: forces needs {m} components A_σ (one per coordinate), got {len(forces)}")
    spec.forces = [as_expr(a) for a in forces]
    known = set(spec.parameters) | set(spec.Y.J1.coords)
    new = set()
    for a in spec.forces:
        new |= a.free_symbols - known
    spec.parameters = spec.parameters + tuple(sorted(new, key=sp.default_sort_key))


def _build(name: str, spec: SystemSpec, subs: dict) -> CatalogueEntry:
    Y = spec.Y

    def s(e):
        return as_expr(e).xreplace(subs) if subs else as_expr(e)

    forces = None if spec.forces is None else [s(a) for a in spec.forces]
    if spec.L is not None:
        system = LagrangianSystem(Y, s(spec.L), forces=forces)
    else:
        system = LagrangianSystem.mechanical(Y, s(spec.T), s(spec.V), forces=forces)
    Q = ConstraintSubmanifold(Y, [s(f) for f in spec.f], dependent=spec.dependent, branch=spec.branch)
    parameters = tuple(p for p in spec.parameters if p not in subs)
    extra = set()
    for v in subs.values():
        extra |= v.free_symbols
    parameters += tuple(sorted(extra - set(parameters) - set(Y.J2.coords), key=sp.default_sort_key))
    params = {p: spec.params[p] for p in parameters if p in spec.params}
    psi = None if spec.psi is None else [s(p) for p in spec.psi]
    point = {Y.t: as_expr(spec.guess.get(Y.t, 0))}
    for c in (*Y.q, *Y.qdot):
        if c not in spec.guess:
            raise InputError(f"catalogue entry: no sample value for {c}")  # pragma: no cover - entries are complete
        point[c] = as_expr(spec.guess[c])
    quasi = spec.quasi if spec.forces is None else None  # forces given in the jets: no quasi form kept
    if quasi is not None and subs:  # the same values in the quasi-velocity form (its frame has no parameter)
        quasi = QuasiVelocitySystem(quasi.frame, s(quasi.ell), [s(c) for c in quasi.phi], [s(a) for a in quasi.forces],
                                    dependent=quasi.dependent)
    return CatalogueEntry(
        name=name, system=system, Q=Q, parameters=parameters, psi=psi, z=spec.z, branch=spec.branch,
        reference=spec.reference, description=spec.description, sample=(point, REGISTRY[name].heavy),
        params=params, remarks=list(spec.notes), quasi=quasi,
    )


def _initial_state(Q: ConstraintSubmanifold, point: dict, params: dict, heavy: bool = False) -> tuple:
    """(state, note): t, q and the independent velocities of the guess ``point``; dependent velocities
    solving f = 0 there: for constraints affine in q̇^D one k × k solve at the point (exact; to 50
    digits when the exact values are huge trees, with a note — else the note is None), else q̇^D = g of
    the normal form (heavy systems: the guess itself, checked to lie on Q, without forming the normal
    form)."""
    if heavy:
        bad = [f for f in Q.f if not zero_test(as_expr(f).xreplace({**params, **point})).zero]
        if bad:  # pragma: no cover - entries are checked by their tests
            raise InputError(f"catalogue entry: the sample state is not on Q ({bad[0]} ≠ 0)")
        return dict(point), None
    done = complete_on_Q(Q, {**params, **point}, max_nodes=EXACT_SAMPLE_MAX_NODES, digits=_SAMPLE_DIGITS)
    note = None
    if done.digits is not None:  # exact values of a long chain nest every link
        note = (f"sample state: the dependent velocities are given to {done.digits} digits "
                "(their exact values nest every constraint and would print as huge trees)")
    return {**point, **done.velocities}, note
