r"""The :class:`Spec` of a system specification file: its objects and the data to rebuild the file, the
constants of the format, and the Spec of Python objects (:meth:`Spec.from_objects`) or of a catalogue system
(:func:`spec_from_catalogue`).  Reading a file is :mod:`jetgeo.io.spec_read`, writing one
:mod:`jetgeo.io.spec_write`, the initial data on Q :mod:`jetgeo.io.spec_initial`; :mod:`jetgeo.io.spec` gathers
the public names (theory/specfiles.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import sympy as sp

from .. import systems
from ..errors import BranchError, ChartError, InputError, NotRegularError, RankDeficientError, SpecError
from ..geometry.coerce import as_expr
from ..jets import FibredManifold
from ..mechanics import ConstrainedSystem, ConstraintSubmanifold, LagrangianSystem, QuasiVelocitySystem
from .spec_initial import _initial_state
from .spec_write import to_toml

__all__ = ["Spec", "spec_from_catalogue", "ASSUMPTIONS", "MAX_SPEC_BYTES", "MAX_COORDINATES"]

#: assumptions a parameter may carry (passed to sympy.Symbol)
ASSUMPTIONS = ("real", "positive", "negative", "nonnegative", "nonpositive", "nonzero", "integer")
MAX_SPEC_BYTES = 1_000_000
#: most coordinates a spec may declare: a free particle in R^100 derives in about 5 s, in R^300 in
#: about 170 s (the cost grows like m^3), 3000 coordinates ran out of 60 s and 400 MB; the largest
#: systems of the catalogue (the Whipple bicycle: 8, n_trailer with n = 8: 10) are far below
MAX_COORDINATES = 100
_TABLES = ("coordinates", "parameters", "lagrangian", "constraints", "problem", "initial", "values")
_TOP_STRINGS = ("name", "title", "source", "description")


@dataclass
class Spec:
    """A loaded specification: the jetgeo objects and the data to rebuild the file.

    Attributes
    ----------
    source : str
        The name error messages give the spec (its file, shipped name or ``<string>``).
    name : str
        The spec's name.
    Y : FibredManifold
        The coordinates.
    system : LagrangianSystem
        L (or T, V) and the forces.
    Q : ConstraintSubmanifold or None
        The constraints.
    parameters : tuple of Symbols
        In the order declared, as ``CatalogueEntry.parameters``; by name: :meth:`symbol`.
    params : {Symbol: value}
        The numerical values of the parameters.
    initial : {jet symbol: value}
        Initial data, t included when given.
    forces_bundle : list or None
        Covectors [F_1..F_m] spanning the reaction forces [Ibort et al. 1996] (None: Chetaev's).
    directions : list or None
        1-forms on TQ (components on (dq, dq̇)) that annihilate the permitted directions D in addition
        to the dφ^a (None: D = TC).
    branch : int or None
        The branch of a nonlinear constraint.
    dependent : tuple or None
        The dependent velocities.
    psi : tuple or None
        A parametric constraint q̇ = ψ(t, q, z).
    z : tuple or None
        The parameters z of ψ.
    title : str
        One line.
    description : str
        The text of ``description``.
    reference : str
        The ``source`` string of the file (the paper).
    assumptions : {name: [assumption]}
        Of each parameter (:data:`ASSUMPTIONS`).
    constraint_form : str or None
        "implicit", "normal", "parametric" or None.
    normal : dict or None
        {q̇^D: g} of constraints given in normal form.
    quasi : QuasiVelocitySystem or None
        A ``[body]`` spec: the system in its quasi-velocities (:mod:`jetgeo.io.bodies`).
    """

    source: str
    name: str
    Y: FibredManifold
    system: LagrangianSystem
    Q: ConstraintSubmanifold | None
    parameters: tuple
    params: dict = field(default_factory=dict)
    initial: dict = field(default_factory=dict)
    forces_bundle: list | None = None
    directions: list | None = None
    branch: int | None = None
    dependent: tuple | None = None
    psi: tuple | None = None
    z: tuple | None = None
    title: str = ""
    description: str = ""
    reference: str = ""
    assumptions: dict = field(default_factory=dict)
    constraint_form: str | None = None  # "implicit" | "normal" | "parametric" | None
    normal: dict | None = None
    quasi: QuasiVelocitySystem | None = None  # a [body] spec: the system in its quasi-velocities (io/bodies.py)

    # --- derived objects --------------------------------------------------------------
    @property
    def t(self) -> sp.Symbol:
        return self.Y.t

    def symbol(self, name: str) -> sp.Symbol:
        """The symbol of a coordinate, velocity, time or parameter by name."""
        table = {str(s): s for s in (self.Y.t, *self.Y.q, *self.Y.qdot, *self.Y.qddot)}
        table.update({s.name: s for s in self.parameters})
        if self.z:
            table.update({str(s): s for s in self.z})
        try:
            return table[name]
        except KeyError:
            raise SpecError(f"{self.source}: no symbol named {name!r}") from None

    def constrained(self):
        """Krupková's constrained system ``system.constrain(Q)`` with the spec's branch/dependent choice.

        Raises SpecError (naming the file and key) when the branch is missing or wrong.
        """
        if self.Q is None:
            raise SpecError(f"{self.source}: [constraints]: the spec has no constraints")
        cached = self.__dict__.get("_constrained")
        if cached is not None:
            return cached
        try:
            cs = ConstrainedSystem(self.system, self.Q, branch=self.branch, dependent=self.dependent)
            self.__dict__["_constrained"] = cs
            return cs
        except BranchError as exc:
            raise SpecError(f"{self.source}: [constraints] branch: {exc}") from exc
        except (RankDeficientError, ChartError) as exc:
            raise SpecError(f"{self.source}: [constraints] dependent: {exc}") from exc

    def accelerations(self) -> dict:
        """{q̈: expression}: Krupková's reduced equations solved on Q (or the free motion).

        A :class:`~jetgeo.errors.NotRegularError` of the mechanics layer is raised again with
        the file and table in front of its message: ``"<file>: [lagrangian]: ..."`` for the free
        Lagrangian, ``"<file>: [constraints]: ..."`` for the constrained system [Stolařová 2009, eq. (12)].
        """
        if self.Q is None:
            try:
                return self.system.accelerations()
            except NotRegularError as exc:
                raise NotRegularError(f"{self.source}: [lagrangian]: {exc}") from exc
        cs = self.constrained()
        try:
            return cs.accelerations()
        except NotRegularError as exc:
            raise NotRegularError(f"{self.source}: [constraints]: {exc}") from exc

    def numeric_params(self) -> dict:
        """{Symbol: float} for every parameter; SpecError naming the missing ones."""
        missing = [s.name for s in self.parameters if s not in self.params]
        if missing:
            raise SpecError(
                f"{self.source}: [values]: no numerical value for parameter(s) {', '.join(missing)}"
            )
        return {s: float(v) for s, v in self.params.items()}

    def initial_state(self) -> dict:
        """{symbol: float} for t, every q and every q̇, the dependent velocities completed on Q.

        Raises SpecError for missing entries, :class:`InitialDataError` when the data are off Q.
        """
        return _initial_state(self)

    def to_toml(self) -> str:
        return to_toml(self)

    @classmethod
    def from_objects(
        cls,
        system: LagrangianSystem,
        Q: ConstraintSubmanifold | None = None,
        *,
        name: str = "system",
        branch: int | None = None,
        dependent=None,
        psi=None,
        z=None,
        initial: Mapping | None = None,
        params: Mapping | None = None,
        forces_bundle: list | None = None,
        directions: list | None = None,
        **text: str,
    ) -> Spec:
        """A Spec for objects built with the Python API (so that :func:`~jetgeo.io.spec_write.to_toml` can write
        them).

        Every free symbol that is not a jet coordinate becomes a parameter, with the
        assumptions of :data:`ASSUMPTIONS` that the symbol carries.

        Parameters
        ----------
        system : LagrangianSystem
            The Lagrangian system.
        Q : ConstraintSubmanifold, optional
            The constraints (written as ``implicit``).
        name : str
            The spec's name (its source is ``<name>``).
        branch : int, optional
            The branch of a nonlinear constraint.
        dependent : sequence of velocity symbols, optional
            The dependent velocities of the normal form.
        psi, z : sequences, optional
            A parametric constraint q̇ = ψ(t, q, z) and its parameters z [Benenti 2007, eq. (2.1)].
        initial : {symbol: value}, optional
            Initial data of t, q, q̇ (other keys are dropped), kept exact (``nsimplify``).
        params : {symbol: value}, optional
            Values of the parameters (others dropped), kept exact.
        forces_bundle, directions : list of rows, optional
            The reaction forces and the annihilator of the permitted directions (``[problem]``).
        **text : str
            ``title``, ``reference``, ``description``: the strings at the head of the file.

        Returns
        -------
        Spec
            The spec of the objects.

        Examples
        --------
        >>> from jetgeo import FibredManifold, LagrangianSystem
        >>> Y = FibredManifold(["x"])
        >>> k = sp.Symbol("k", positive=True)
        >>> s = Spec.from_objects(LagrangianSystem(Y, Y.qdot[0]**2 / 2 - k * Y.q[0]**2 / 2), title="oscillator")
        >>> s.parameters, s.assumptions, s.title
        ((k,), {'k': ['positive']}, 'oscillator')
        """
        unknown = sorted(set(text) - {"title", "reference", "description"})
        if unknown:
            raise InputError(f"Spec.from_objects: unknown keyword(s) {unknown}; the text of a spec is title, "
                             "reference and description")
        Y = system.Y
        pars = _parameters_of(system, Q, psi, z)
        assumptions = {s.name: [a for a in ASSUMPTIONS if s.assumptions0.get(a) is True
                                and not _implied(a, s)] for s in pars}
        form = "implicit" if Q is not None else None
        return cls(
            source=f"<{name}>", name=name, Y=Y, system=system, Q=Q, parameters=tuple(pars),
            params={s: sp.nsimplify(v) for s, v in (params or {}).items() if s in pars},
            initial={s: sp.nsimplify(v) for s, v in (initial or {}).items() if s in (Y.t, *Y.q, *Y.qdot)},
            forces_bundle=forces_bundle, directions=directions, branch=branch,
            dependent=tuple(dependent) if dependent is not None else None,
            psi=tuple(as_expr(p) for p in psi) if psi is not None else None,
            z=tuple(z) if z is not None else None, title=text.get("title", ""),
            description=text.get("description", ""), reference=text.get("reference", ""),
            assumptions=assumptions, constraint_form=form,
        )

    def __repr__(self) -> str:
        return f"Spec({self.name!r}, q={[str(s) for s in self.Y.q]}, source={self.source!r})"


def _parameters_of(system: LagrangianSystem, Q: ConstraintSubmanifold | None, psi, z) -> list:
    """The free symbols of the system's L and forces, of Q's constraints and of ψ that are neither jet
    coordinates nor the z of a parametric constraint, sorted by name: the parameters of the spec."""
    jets = set(system.Y.J2.coords)
    syms = set(system.L.free_symbols)
    for A in system.forces:
        syms |= A.free_symbols
    if Q is not None:
        for f in Q.f:
            syms |= f.free_symbols
    if psi is not None:
        for p in psi:
            syms |= as_expr(p).free_symbols
    return sorted((s for s in syms - jets - set(z or ())), key=lambda s: s.name)


def _implied(a: str, s: sp.Symbol) -> bool:
    """Whether assumption ``a`` of ``s`` follows from a stronger one it also carries (positive ⇒ real, ...)."""
    a0 = s.assumptions0
    strong = {"real": ("positive", "negative", "nonnegative", "nonpositive", "integer"),
              "nonzero": ("positive", "negative"), "nonnegative": ("positive",), "nonpositive": ("negative",)}
    return any(a0.get(b) is True for b in strong.get(a, ()))


def spec_from_catalogue(name: str) -> Spec:
    """A Spec for a system of the catalogue :mod:`jetgeo.systems` (the layer below ``io``).

    Parameters
    ----------
    name : str
        The catalogue's name of the system.

    Returns
    -------
    Spec
        The system, Q, its parameters' sample values and its state on Q as a spec.
    """
    e = systems.load(name)
    description = " ".join(str(e.description).split())
    title = str(systems.describe().get(name, ""))
    if not title:
        title = description.split(". ")[0]
        if len(title) > 100:
            title = title[:100].rsplit(" ", 1)[0] + " ..."
    return Spec.from_objects(
        e.system, e.Q, name=name, title=title, description=description, reference=e.reference, branch=e.branch,
        psi=e.psi, z=e.z, initial=e.initial, params=e.params,
    )
