r"""System specification files (TOML) → jetgeo objects, and back.

A spec file describes a mechanical system as jetgeo's Python API does
(``theory/specfiles.md``): a fibred manifold Y → R (``[coordinates]``), parameters with
assumptions (``[parameters]``), a Lagrangian L or kinetic energy T, potential V
and generalised forces A_σ (``[lagrangian]``; Newton's sign, [Benenti 2007, eq. (3.14)]),
a constraint submanifold Q ⊂ J¹Y given implicitly f^i(t,q,q̇) = 0 [Stolařová 2009, eqs.
(2)–(3)], in normal form q̇^D = g [Stolařová 2009, eq. (4)] or parametrically q̇ = ψ(t,q,z)
[Benenti 2007, eq. (2.1)] (``[constraints]``), optionally a bundle of reaction forces and
permitted directions ([Ibort et al. 1996], the problem (L, C, D, F): ``[problem]``), initial
data and numerical parameter values (``[initial]``, ``[values]``).

Every expression goes through :func:`jetgeo.io.parse.parse_expression` (no
``eval``/``sympify`` of text); every error is a :class:`~jetgeo.errors.SpecError`
whose message starts with ``<file>: [<table>] <key>:``.  The format is documented
in ``theory/specfiles.md``.
"""

from __future__ import annotations

import codecs
import difflib
import json
import math
import os
import re
import stat
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import sympy as sp

from .. import systems
from ..errors import (
    BranchError,
    ChartError,
    InitialDataError,
    InputError,
    JetgeoError,
    NotRegularError,
    RankDeficientError,
    ResourceLimitError,
    SpecError,
    UndecidedError,
)
from ..geometry.coerce import as_expr, respects_assumptions
from ..geometry.zero import is_zero, normalise
from ..jets import FibredManifold
from ..mechanics import ConstrainedSystem, ConstraintSubmanifold, LagrangianSystem, QuasiVelocitySystem, complete_on_Q
from .bodies import load_body
from .parse import check_name, evaluate_constant, parse_expression
from .specs import catalogue

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = [
    "Spec", "spec_from_catalogue", "load_spec", "loads_spec", "to_toml", "dump", "ASSUMPTIONS",
    "MAX_SPEC_BYTES",
    "MAX_COORDINATES",
]

#: assumptions a parameter may carry (passed to sympy.Symbol)
ASSUMPTIONS = ("real", "positive", "negative", "nonnegative", "nonpositive", "nonzero", "integer")
MAX_SPEC_BYTES = 1_000_000
#: most coordinates a spec may declare: a free particle in R^100 derives in about 5 s, in R^300 in
#: about 170 s (the cost grows like m^3), 3000 coordinates ran out of 60 s and 400 MB; the largest
#: systems of the catalogue (the Whipple bicycle: 8, n_trailer with n = 8: 10) are far below
MAX_COORDINATES = 100
_TABLES = ("coordinates", "parameters", "lagrangian", "constraints", "problem", "initial", "values")
_TOP_STRINGS = ("name", "title", "source", "description")
_OFF_Q_TOL = 1e-9


@dataclass
class Spec:
    """A loaded specification: the jetgeo objects and the data to rebuild the file.

    Attributes: ``Y`` (FibredManifold), ``system`` (LagrangianSystem), ``Q``
    (ConstraintSubmanifold or None), ``parameters`` (tuple of Symbols in the order declared, as
    ``CatalogueEntry.parameters``; by name: :meth:`symbol`), ``params``
    ({Symbol: numeric value}), ``initial`` ({jet symbol: value}, t included when
    given), ``forces_bundle`` (list of covectors [F_1..F_m] spanning the reaction
    forces, [Ibort et al. 1996], or None for Chetaev's), ``directions`` (list of 1-forms on TQ,
    components on (dq, dq̇), that annihilate the permitted directions D in addition to
    the dφ^a, or None for D = TC), ``branch``,
    ``dependent``, ``psi``/``z`` for parametric constraints.
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
        title: str = "",
        reference: str = "",
        description: str = "",
        branch: int | None = None,
        dependent=None,
        psi=None,
        z=None,
        initial: Mapping | None = None,
        params: Mapping | None = None,
        forces_bundle: list | None = None,
        directions: list | None = None,
    ) -> Spec:
        """A Spec for objects built with the Python API (so that :func:`to_toml` can write them).

        Every free symbol that is not a jet coordinate becomes a parameter, with the
        assumptions of :data:`ASSUMPTIONS` that the symbol carries.
        """
        Y = system.Y
        jets = set(Y.J2.coords)
        syms = set(system.L.free_symbols)
        for A in system.forces:
            syms |= A.free_symbols
        if Q is not None:
            for f in Q.f:
                syms |= f.free_symbols
        if psi is not None:
            for p in psi:
                syms |= as_expr(p).free_symbols
        zset = set(z or ())
        pars = sorted((s for s in syms - jets - zset), key=lambda s: s.name)
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
            z=tuple(z) if z is not None else None, title=title, description=description, reference=reference,
            assumptions=assumptions, constraint_form=form,
        )

    def __repr__(self) -> str:
        return f"Spec({self.name!r}, q={[str(s) for s in self.Y.q]}, source={self.source!r})"


# --- loading -------------------------------------------------------------------------------------


def load_spec(path_or_text: str | Path, *, source: str | None = None) -> Spec:
    """Load a spec from a file path, the name of a shipped spec, or TOML text.

    A ``Path``, or a string naming an existing file (or ending in ``.toml``), is read
    from disk; a bare name of a shipped spec (``"skate"``, see ``jetgeo examples``)
    loads that spec; any other string (recognised by a newline, ``=`` or ``[``) is
    parsed as TOML text.  A single word that is neither a file nor a shipped spec is an
    error naming both possibilities.

    Only regular files are read, and their size is checked before reading
    (:data:`MAX_SPEC_BYTES`): a directory, a FIFO or a device such as ``/dev/zero`` is
    refused at once.  A UTF-8 byte-order mark is accepted.

    Parameters
    ----------
    path_or_text : str or Path
        A file, a shipped spec's name or TOML text.
    source : str, optional
        The name error messages give the spec (default: the path, the name or ``<string>``).

    Returns
    -------
    Spec
        The spec, its objects built.
    """
    if isinstance(path_or_text, Path):
        return _load_path(path_or_text, source)
    if not isinstance(path_or_text, str):
        raise SpecError(f"load_spec needs a path or TOML text, got {type(path_or_text).__name__}")
    looks_like_text = "\n" in path_or_text or "=" in path_or_text or "[" in path_or_text
    if not looks_like_text:
        p = Path(path_or_text)
        if os.path.lexists(path_or_text) or path_or_text.endswith(".toml"):
            return _load_path(p, source)
        shipped = catalogue()
        if path_or_text in shipped:
            return _load_path(shipped[path_or_text], source or path_or_text)
        near = difflib.get_close_matches(path_or_text, list(shipped), n=1)
        hint = f" (did you mean {near[0]!r}?)" if near else " (see `jetgeo examples`)"
        raise SpecError(f"{source or _shown(path_or_text)}: no such file, and no shipped spec of that name{hint}; "
                        "TOML text is recognised by a newline, '=' or '['")
    return loads_spec(path_or_text, source=source or "<string>")


def _shown(name: str, limit: int = 80) -> str:
    """A file name as shown in a message: printable, bounded."""
    text = name.encode("unicode_escape", "backslashreplace").decode("ascii") if not name.isprintable() else name
    return text if len(text) <= limit else text[: limit - 3] + "..."


def read_regular_file(p: Path, src: str, limit: int = MAX_SPEC_BYTES) -> bytes:
    """The bytes of ``p``, a regular file of at most ``limit`` bytes (SpecError otherwise).

    The file is opened without blocking (a FIFO would wait for a writer for ever) and checked
    with ``fstat`` *before* anything is read: a directory, FIFO, socket or device is refused at
    once, and so is a file larger than ``limit``; at most ``limit + 1`` bytes are ever read (a
    file that grows meanwhile is caught too)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(p, flags)
    except FileNotFoundError:
        raise SpecError(f"{src}: no such file") from None
    except IsADirectoryError:
        raise SpecError(f"{src}: is a directory, not a spec file") from None
    except OSError as exc:
        raise SpecError(f"{src}: cannot read: {exc.strerror or exc}") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise SpecError(f"{src}: is a directory, not a spec file")
        if not stat.S_ISREG(st.st_mode):
            kind = ("a FIFO" if stat.S_ISFIFO(st.st_mode) else "a device" if stat.S_ISCHR(st.st_mode)
                    or stat.S_ISBLK(st.st_mode) else "a socket" if stat.S_ISSOCK(st.st_mode) else "not a file")
            raise SpecError(f"{src}: is {kind}, not a regular file; spec files are regular files")
        if st.st_size > limit:
            raise SpecError(f"{src}: file larger than {limit} bytes ({st.st_size} bytes)")
        chunks, total = [], 0
        while total <= limit:
            try:
                chunk = os.read(fd, min(1 << 16, limit + 1 - total))
            except OSError as exc:
                raise SpecError(f"{src}: cannot read: {exc.strerror or exc}") from None
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > limit:
            raise SpecError(f"{src}: file larger than {limit} bytes")
        return b"".join(chunks)
    finally:
        os.close(fd)


def _load_path(p: Path, source: str | None) -> Spec:
    src = source or _shown(str(p))
    data = read_regular_file(p, src)
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SpecError(f"{src}: not UTF-8 text (byte {exc.start})") from None
    return loads_spec(text, source=src)


#: a run of digits longer than this in the TOML text is refused before tomllib reads it (Python's
#: int() refuses 4300 digits with a ValueError that names no line)
_MAX_TOML_DIGITS = 1000
_DIGIT_RUN = re.compile(r"[0-9_]{" + str(_MAX_TOML_DIGITS + 1) + ",}")


def loads_spec(text: str, source: str = "<string>") -> Spec:
    """Load a spec from TOML text.

    Parameters
    ----------
    text : str
        The TOML text.
    source : str
        The name error messages give it.

    Returns
    -------
    Spec
        The spec, its objects built.
    """
    if not isinstance(text, str):
        raise SpecError(f"{source}: spec text must be a string, got {type(text).__name__}")
    if len(text) > MAX_SPEC_BYTES:
        raise SpecError(f"{source}: spec larger than {MAX_SPEC_BYTES} characters")
    if text.startswith("\ufeff"):
        text = text[1:]
    run = _DIGIT_RUN.search(text)
    if run:
        line = text.count("\n", 0, run.start()) + 1
        raise SpecError(f"{source}: line {line}: a number with more than {_MAX_TOML_DIGITS} digits")
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(f"{source}: malformed TOML: {exc}") from None
    except RecursionError:
        raise SpecError(f"{source}: malformed TOML: arrays or tables nested too deeply") from None
    except (MemoryError, ValueError) as exc:
        raise SpecError(f"{source}: malformed TOML: {type(exc).__name__}: {' '.join(str(exc).split())[:120]}") \
            from None
    try:
        return _Loader(doc, source).load()
    except (SpecError, NotRegularError, ResourceLimitError):  # a limit the caller set is no input error
        raise
    except (JetgeoError, ValueError, TypeError) as exc:  # a lower layer refused the data
        raise SpecError(f"{source}: {exc}") from exc
    except RecursionError:
        raise SpecError(f"{source}: an expression is too deeply nested") from None


class _Loader:
    def __init__(self, doc: dict, source: str) -> None:
        self.doc = doc
        self.src = source

    # helpers
    def where(self, table: str | None, key: str | None = None) -> str:
        out = self.src
        if table or key is not None:
            out += ":"
        if table:
            out += f" [{table}]"
        if key is not None:
            out += f" {key}"
        return out

    def err(self, table: str | None, key: str | None, msg: str) -> SpecError:
        return SpecError(f"{self.where(table, key)}: {msg}")

    def table(self, name: str, required: bool = False) -> dict:
        t = self.doc.get(name)
        if t is None:
            if required:
                raise self.err(None, None, f"the table [{name}] is missing")
            return {}
        if not isinstance(t, dict):
            raise self.err(None, name, f"must be a table [{name}], got {_kind(t)}")
        return t

    def expr(self, text, names: Mapping, table: str, key: str, hidden: Mapping | None = None) -> sp.Expr:
        return parse_expression(text, names, where=self.where(table, key), hidden=hidden)

    def string_list(self, value, table: str, key: str) -> list:
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list):
            raise self.err(table, key, f"must be a list, got {_kind(value)}")
        return value

    def unknown_keys(self, tab: dict, allowed, table: str) -> None:
        bad = [k for k in tab if k not in allowed]
        if bad:
            raise self.err(table, bad[0], f"unknown key (allowed: {', '.join(allowed)})")

    # main
    def load(self) -> Spec:
        doc = self.doc
        bad = [k for k in doc if k not in _TABLES and k not in _TOP_STRINGS and k != "body"]
        if bad:
            raise self.err(None, bad[0], f"unknown key (allowed: {', '.join(_TOP_STRINGS + _TABLES)})")
        meta = {}
        for k in _TOP_STRINGS:
            v = doc.get(k, "")
            if not isinstance(v, str):
                raise self.err(None, k, f"must be a string, got {_kind(v)}")
            meta[k] = v
        if "body" in doc:  # a rigid body in its quasi-velocities: jetgeo/io/bodies.py
            both = [k for k in ("coordinates", "lagrangian", "constraints", "problem") if k in doc]
            if both:
                raise self.err(None, both[0], "a spec with [body] states its coordinates, Lagrangian and "
                               "constraints in [body]; remove this table")
            return Spec(source=self.src, name=meta["name"] or Path(self.src).stem, title=meta["title"],
                        description=meta["description"], reference=meta["source"], **load_body(self))
        self.load_coordinates()
        self.load_parameters()
        self.load_lagrangian()
        self.load_constraints()
        self.load_problem()
        self.check_autonomous()
        params = self.load_values()
        initial = self.load_initial()
        self.check_parameters_used(initial)
        spec = Spec(
            source=self.src,
            name=meta["name"] or Path(self.src).stem,
            Y=self.Y,
            system=self.system,
            Q=self.Q,
            parameters=tuple(self.params.values()),
            params=params,
            initial=initial,
            forces_bundle=self.forces_bundle,
            directions=self.directions,
            branch=self.branch,
            dependent=self.dependent,
            psi=self.psi,
            z=self.z,
            title=meta["title"],
            description=meta["description"],
            reference=meta["source"],
            assumptions=self.assumptions,
            constraint_form=self.cform,
            normal=self.normal,
        )
        if spec.Q is not None and spec.initial:
            _check_initial_on_Q(spec)
        return spec

    def check_parameters_used(self, initial: dict) -> None:
        """A declared parameter that no expression uses is an error: most likely a misspelling (the
        expressions would fail on the undeclared spelling, but a second, unused declaration — or a
        value for it — would otherwise pass silently)."""
        used: set = set(self.system.L.free_symbols)
        for e in (*self.system.forces, *(self.Q.f if self.Q is not None else ()), *(self.psi or ()),
                  *initial.values()):
            used |= as_expr(e).free_symbols
        for extra in (self.forces_bundle, self.directions):
            for row in extra or ():
                for e in row:
                    used |= as_expr(e).free_symbols
        for name, sym in self.params.items():
            if sym not in used:
                names = sorted({str(s) for s in used if str(s) not in self.jet_names})
                near = difflib.get_close_matches(name, names, n=1)
                raise self.err("parameters", name, "declared but used in no expression of the spec (L, T, V, forces, "
                               "constraints, initial data)" + (f" — a misspelling of {near[0]!r}?" if near else ""))

    def check_autonomous(self) -> None:
        """With ``autonomous = true`` nothing may depend on the time ([Ibort et al. 1996]: the system lives on TQ)."""
        if not self.Y.autonomous:
            return
        t = self.Y.t
        S = self.system
        items = [("lagrangian", "L" if self.L is not None else "T", S.L)]
        items += [("lagrangian", f"forces[{i}]", a) for i, a in enumerate(S.forces)]
        if self.Q is not None:
            items += [("constraints", self.cform, f) for f in self.Q.f]
        items += [("constraints.parametric", "psi", p) for p in (self.psi or ())]
        for table, key, e in items:
            if as_expr(e).has(t):
                raise self.err(table, key, f"depends on the time {t}, but [coordinates] autonomous = true")

    def load_coordinates(self) -> None:
        tab = self.table("coordinates", required=True)
        self.unknown_keys(tab, ("q", "time", "autonomous"), "coordinates")
        if "q" not in tab:
            raise self.err("coordinates", "q", "missing: the list of coordinate names, e.g. q = [\"x\", \"y\"]")
        q = self.string_list(tab["q"], "coordinates", "q")
        if not q:
            raise self.err("coordinates", "q", "at least one coordinate is needed")
        if len(q) > MAX_COORDINATES:  # before any symbol is made: the cost grows like m^3
            raise self.err("coordinates", "q", f"{len(q)} coordinates; at most {MAX_COORDINATES} are supported")
        for n in q:
            check_name(n, self.where("coordinates", "q"), "coordinate")
        if len(set(q)) != len(q):
            dup = next(n for n in q if q.count(n) > 1)
            raise self.err("coordinates", "q", f"coordinate {dup!r} is given twice")
        time = tab.get("time", "t")
        check_name(time, self.where("coordinates", "time"), "time coordinate")
        autonomous = tab.get("autonomous", False)
        if not isinstance(autonomous, bool):
            raise self.err("coordinates", "autonomous", f"must be true or false, got {_kind(autonomous)}")
        try:
            self.Y = FibredManifold(q, time=time, autonomous=autonomous)
        except (ChartError, InputError) as exc:
            raise self.err("coordinates", "q", str(exc)) from None
        Y = self.Y
        self.jet_names = {str(s): s for s in (Y.t, *Y.q, *Y.qdot)}
        self.acc_names = {str(s): s for s in Y.qddot}

    def load_parameters(self) -> None:
        tab = self.table("parameters")
        self.params: dict = {}
        self.assumptions: dict = {}
        for name, val in tab.items():
            check_name(name, self.where("parameters", name), "parameter")
            if name in self.jet_names or name in self.acc_names:
                raise self.err("parameters", name, "clashes with a coordinate, velocity or time name")
            if isinstance(val, dict):
                extra = [k for k in val if k not in ("assume", "value")]
                if extra:
                    raise self.err("parameters", name, f"unknown key {extra[0]!r} (allowed: assume, value)")
                assume = val.get("assume", [])
            else:
                assume = val
            if isinstance(assume, str):
                assume = [a.strip() for a in assume.split(",") if a.strip()]
            if not isinstance(assume, list) or not all(isinstance(a, str) for a in assume):
                raise self.err("parameters", name, "assumptions must be a string or a list of strings, "
                               f"e.g. \"positive\"; got {_kind(assume)}")
            for a in assume:
                if a not in ASSUMPTIONS:
                    raise self.err("parameters", name, f"unknown assumption {a!r} (allowed: {', '.join(ASSUMPTIONS)})")
            try:
                sym = sp.Symbol(name, **{a: True for a in assume})
            except (ValueError, TypeError, sp.core.facts.InconsistentAssumptions):
                raise self.err("parameters", name, f"inconsistent assumptions {', '.join(assume)}: no number "
                               "satisfies all of them") from None
            self.params[name] = sym
            self.assumptions[name] = list(assume)
        self.names = {**self.jet_names, **self.params}
        self.values_inline = {
            n: v["value"] for n, v in tab.items() if isinstance(v, dict) and "value" in v
        }

    def load_lagrangian(self) -> None:
        tab = self.table("lagrangian", required=True)
        self.unknown_keys(tab, ("L", "T", "V", "forces"), "lagrangian")
        Y = self.Y
        acc_hint = {n: "accelerations may not appear here" for n in self.acc_names}
        self.L = self.T = self.V = None
        if "L" in tab and ("T" in tab or "V" in tab):
            raise self.err("lagrangian", "L", "give either L or T (and V), not both")
        if "L" in tab:
            self.L = self.expr(tab["L"], self.names, "lagrangian", "L", acc_hint)
        elif "T" in tab:
            self.T = self.expr(tab["T"], self.names, "lagrangian", "T", acc_hint)
            vel_hint = dict(acc_hint)
            vel_hint.update({str(v): "the potential depends on (t, q) only" for v in Y.qdot})
            names_v = {k: v for k, v in self.names.items() if k not in vel_hint}
            self.V = self.expr(tab.get("V", 0), names_v, "lagrangian", "V", vel_hint)
        else:
            raise self.err("lagrangian", None, "give the Lagrangian L, or the kinetic energy T (and potential V)")
        forces = tab.get("forces")
        self.forces_raw = forces
        if forces is None:
            self.forces = None
        elif isinstance(forces, list):
            if len(forces) != Y.m:
                raise self.err("lagrangian", "forces", f"{len(forces)} components given, {Y.m} expected "
                               f"(one per coordinate {', '.join(map(str, Y.q))})")
            self.forces = [self.expr(f, self.names, "lagrangian", f"forces[{i}]", acc_hint)
                           for i, f in enumerate(forces)]
        elif isinstance(forces, dict):
            qn = [str(s) for s in Y.q]
            out = [sp.Integer(0)] * Y.m
            for k, f in forces.items():
                if k not in qn:
                    raise self.err("lagrangian", f"forces.{k}", f"{k!r} is not a coordinate ({', '.join(qn)})")
                out[qn.index(k)] = self.expr(f, self.names, "lagrangian", f"forces.{k}", acc_hint)
            self.forces = out
        else:
            raise self.err("lagrangian", "forces",
                           f"must be a list (one per coordinate) or a table, got {_kind(forces)}")
        try:
            if self.L is not None:
                self.system = LagrangianSystem(Y, self.L, self.forces)
            else:
                self.system = LagrangianSystem.mechanical(Y, self.T, self.V, self.forces)
        except InputError as exc:
            raise self.err("lagrangian", None, str(exc)) from None

    def load_constraints(self) -> None:
        tab = self.table("constraints")
        self.Q = None
        self.cform = None
        self.branch = None
        self.dependent = None
        self.psi = self.z = None
        self.normal = None
        self.implicit = None
        if not tab:
            return
        self.unknown_keys(tab, ("implicit", "normal", "parametric", "dependent", "branch"), "constraints")
        Y = self.Y
        forms = [k for k in ("implicit", "normal") if k in tab]
        if len(forms) > 1 or not (forms or "parametric" in tab):
            raise self.err("constraints", None, "give one of implicit = [...] or [constraints.normal], and/or "
                           f"[constraints.parametric]; got {forms or 'none'}")
        self.cform = form = forms[0] if forms else "parametric"
        acc_hint = {n: "accelerations may not appear in constraints" for n in self.acc_names}
        if "branch" in tab:
            b = tab["branch"]
            if isinstance(b, bool) or not isinstance(b, int) or b < 0:
                raise self.err("constraints", "branch", f"must be a non-negative integer, got {b!r}")
            self.branch = b
        if "dependent" in tab:
            dep = self.string_list(tab["dependent"], "constraints", "dependent")
            vn = {str(v): v for v in Y.qdot}
            for d in dep:
                if d not in vn:
                    raise self.err("constraints", "dependent", f"{d!r} is not a velocity ({', '.join(vn)})")
            self.dependent = tuple(vn[d] for d in dep)
        try:
            if form == "implicit":
                fs = self.string_list(tab["implicit"], "constraints", "implicit")
                exprs = [self.expr(f, self.names, "constraints", f"implicit[{i}]", acc_hint) for i, f in enumerate(fs)]
                self._check_counts(len(exprs))
                for i, f in enumerate(exprs):
                    if not (f.free_symbols & set(Y.qdot)):
                        raise self.err("constraints", f"implicit[{i}]", f"{f} does not contain velocities: "
                                       "holonomic constraints must be eliminated by choosing coordinates")
                self.implicit = exprs
                self.Q = ConstraintSubmanifold(Y, exprs, dependent=self.dependent, branch=self.branch)
            elif form == "normal":
                nf = tab["normal"]
                if not isinstance(nf, dict) or not nf:
                    raise self.err("constraints", "normal", "must be a table {dependent velocity = expression}")
                vn = {str(v): v for v in Y.qdot}
                g = {}
                for k, e in nf.items():
                    if k not in vn:
                        raise self.err("constraints", f"normal.{k}", f"{k!r} is not a velocity ({', '.join(vn)})")
                    g[vn[k]] = self.expr(e, self.names, "constraints", f"normal.{k}", acc_hint)
                if self.dependent is not None and set(self.dependent) != set(g):
                    raise self.err("constraints", "dependent", "must be the velocities of [constraints.normal]")
                self._check_counts(len(g))
                for d, e in g.items():
                    if e.has(d):
                        raise self.err("constraints", f"normal.{d}", f"the right-hand side contains {d} itself")
                    others = set(g) - {d}
                    if e.free_symbols & others:
                        raise self.err("constraints", f"normal.{d}", "the right-hand side contains another "
                                       "dependent velocity (a normal form is solved for them)")
                self.normal = g
                self.dependent = tuple(g)
                self.Q = ConstraintSubmanifold(Y, [d - e for d, e in g.items()], dependent=list(g), branch=self.branch)
            if "parametric" in tab:
                psi, z = self._parametric(tab["parametric"], acc_hint)
                self.psi, self.z = tuple(psi), z
                if self.Q is None:
                    self.Q = ConstraintSubmanifold.parametric(Y, psi, z)
                else:  # a parametrisation of the same Q (for Benenti's first kind): f∘ψ ≡ 0
                    rep = dict(zip(Y.qdot, psi))
                    for i, f in enumerate(self.Q.f):
                        if not is_zero(f.xreplace(rep)):
                            raise self.err("constraints.parametric", "psi", f"does not parametrise Q: constraint "
                                           f"{i + 1} gives {f} = {normalise(f.xreplace(rep))} != 0 at qdot = psi")
        except RankDeficientError as exc:
            raise self.err("constraints", form, str(exc)) from None
        except (ChartError, UndecidedError, BranchError) as exc:
            raise self.err("constraints", form, str(exc)) from None
        except InputError as exc:  # SpecError included
            if str(exc).startswith(self.src + ":"):
                raise
            raise self.err("constraints", form, str(exc)) from None

    def _parametric(self, par, acc_hint: dict) -> tuple:
        Y = self.Y
        if not isinstance(par, dict):
            raise self.err("constraints", "parametric", f"must be a table with z and psi, got {_kind(par)}")
        self.unknown_keys(par, ("z", "psi"), "constraints.parametric")
        if "z" not in par or "psi" not in par:
            raise self.err("constraints.parametric", None, "needs z = [parameter names] and psi = [...]")
        zn = self.string_list(par["z"], "constraints.parametric", "z")
        for n in zn:
            check_name(n, self.where("constraints.parametric", "z"), "parameter z")
            if n in self.names or n in self.acc_names:
                raise self.err("constraints.parametric", "z", f"{n!r} clashes with another name of the spec")
        z = tuple(sp.Symbol(n) for n in zn)
        if not z or len(z) >= Y.m:
            raise self.err("constraints.parametric", "z", f"need 1 <= len(z) < m = {Y.m}, got {len(z)}")
        names = {k: v for k, v in self.names.items() if v not in Y.qdot}
        names.update({str(s): s for s in z})
        hint = dict(acc_hint)
        hint.update({str(v): "psi is a function of (t, q, z)" for v in Y.qdot})
        psi_raw = par["psi"]
        if isinstance(psi_raw, dict):
            vn = [str(v) for v in Y.qdot]
            for k in psi_raw:
                if k not in vn:
                    raise self.err("constraints.parametric", f"psi.{k}", f"{k!r} is not a velocity")
            missing = [v for v in vn if v not in psi_raw]
            if missing:
                raise self.err("constraints.parametric", "psi", f"no component for {', '.join(missing)}")
            psi_raw = [psi_raw[v] for v in vn]
        if not isinstance(psi_raw, list):
            raise self.err("constraints.parametric", "psi", f"must be a list, got {_kind(psi_raw)}")
        if len(psi_raw) != Y.m:
            raise self.err("constraints.parametric", "psi", f"{len(psi_raw)} components given, {Y.m} "
                           f"expected (one per velocity {', '.join(map(str, Y.qdot))})")
        psi = [self.expr(p, names, "constraints.parametric", f"psi[{i}]", hint) for i, p in enumerate(psi_raw)]
        return psi, z

    def _check_counts(self, k: int) -> None:
        m = self.Y.m
        if k == 0:
            raise self.err("constraints", self.cform, "no constraint given")
        if k >= m:
            raise self.err("constraints", self.cform, f"{k} constraints on {m} velocities: the constraint Jacobian "
                           f"would be {k} x {m}, but at most m - 1 = {m - 1} constraints are possible")
        if self.dependent is not None and len(self.dependent) != k:
            raise self.err("constraints", "dependent", f"{len(self.dependent)} dependent velocities for {k} "
                           "constraint(s): the block of the Jacobian to solve must be square")

    def load_problem(self) -> None:
        tab = self.table("problem")
        self.forces_bundle = None
        self.directions = None
        self.problem_raw = tab
        if not tab:
            return
        self.unknown_keys(tab, ("reaction_forces", "directions_annihilator"), "problem")
        Y = self.Y
        if "reaction_forces" in tab:
            rf = tab["reaction_forces"]
            if not isinstance(rf, list) or not rf or not all(isinstance(r, list) for r in rf):
                raise self.err("problem", "reaction_forces", "must be a list of covectors, each a list of "
                               f"{Y.m} components (on dq^1..dq^m)")
            if len(rf) > Y.m:
                raise self.err("problem", "reaction_forces", f"{len(rf)} covectors given; a bundle of reaction "
                               f"forces on dq^1..dq^{Y.m} has at most m = {Y.m} independent generators")
            out = []
            for i, r in enumerate(rf):
                if len(r) != Y.m:
                    raise self.err("problem", f"reaction_forces[{i}]", f"{len(r)} components given, {Y.m} expected")
                out.append([self.expr(c, self.names, "problem", f"reaction_forces[{i}][{j}]") for j, c in enumerate(r)])
                _no_repeat(self, "reaction_forces", out)
            self.forces_bundle = out
        if "directions_annihilator" in tab:
            da = tab["directions_annihilator"]
            if not isinstance(da, list) or not da or not all(isinstance(r, list) for r in da):
                raise self.err("problem", "directions_annihilator", "must be a list of 1-forms, each a list of "
                               f"{2 * Y.m} components (on dq^1..dq^m, dq̇^1..dq̇^m)")
            if len(da) > 2 * Y.m:
                raise self.err("problem", "directions_annihilator", f"{len(da)} 1-forms given; on (dq, dq̇) at "
                               f"most 2m = {2 * Y.m} are independent")
            out = []
            for i, r in enumerate(da):
                if len(r) != 2 * Y.m:
                    raise self.err("problem", f"directions_annihilator[{i}]",
                                   f"{len(r)} components given, {2 * Y.m} expected")
                out.append([self.expr(c, self.names, "problem", f"directions_annihilator[{i}][{j}]")
                            for j, c in enumerate(r)])
                _no_repeat(self, "directions_annihilator", out)
            self.directions = out

    def load_values(self) -> dict:
        tab = dict(self.values_inline)
        vt = self.table("values")
        for k in vt:
            if k in tab:
                raise self.err("values", k, "value given twice (also in [parameters])")
        tab.update(vt)
        out = {}
        consts = {}
        for k, v in tab.items():
            if k not in self.params:
                raise self.err("values", k, f"{k!r} is not a declared parameter "
                               f"({', '.join(self.params) or 'none declared'})")
            e = self.expr(v, consts, "values", k)
            fv = evaluate_constant(e, self.where("values", k))
            if not math.isfinite(fv):
                raise self.err("values", k, f"{v!r} is not finite")
            sym = self.params[k]
            if not respects_assumptions(sym, fv):
                raise self.err("values", k, f"value {fv} contradicts the assumptions {self.assumptions[k]}")
            out[sym] = e
        return out

    def load_initial(self) -> dict:
        tab = self.table("initial")
        out = {}
        Y = self.Y
        allowed = {str(s): s for s in (Y.t, *Y.q, *Y.qdot)}
        consts = dict(self.params)
        for k, v in tab.items():
            if k not in allowed:
                raise self.err("initial", k, f"{k!r} is not a coordinate, velocity or the time "
                               f"({', '.join(allowed)})")
            e = self.expr(v, consts, "initial", k)
            out[allowed[k]] = e
        return out


def _no_repeat(loader: _Loader, key: str, rows: list) -> None:
    """SpecError if the last generator repeats an earlier one (up to a constant factor): the
    generators of a bundle must be independent, and a repeated one says rank < count."""
    last = rows[-1]
    i = len(rows) - 1
    if all(c == 0 for c in last):
        raise loader.err("problem", f"{key}[{i}]", "is zero; a generator of a bundle must not vanish")
    for j, r in enumerate(rows[:-1]):
        ratios = {sp.cancel(a / b) for a, b in zip(last, r) if b != 0}
        zeros_match = all((a == 0) == (b == 0) for a, b in zip(last, r))
        if zeros_match and len(ratios) == 1 and next(iter(ratios)).is_number:
            same = "repeats" if next(iter(ratios)) == 1 else "is a constant multiple of"
            raise loader.err("problem", f"{key}[{i}]", f"{same} {key}[{j}]: the generators of the bundle must be "
                             "linearly independent")


def _implied(a: str, s: sp.Symbol) -> bool:
    """Whether assumption ``a`` of ``s`` follows from a stronger one it also carries (positive ⇒ real, ...)."""
    a0 = s.assumptions0
    strong = {"real": ("positive", "negative", "nonnegative", "nonpositive", "integer"),
              "nonzero": ("positive", "negative"), "nonnegative": ("positive",), "nonpositive": ("negative",)}
    return any(a0.get(b) is True for b in strong.get(a, ()))


def _kind(v) -> str:
    return {dict: "a table", list: "a list", str: "a string", bool: "a boolean", int: "an integer",
            float: "a number"}.get(type(v), type(v).__name__)


# --- initial data -----------------------------------------------------------------------------------


def _num(spec: Spec, e, vals: dict, key: str) -> float:
    v = as_expr(e).xreplace(vals)
    if v.free_symbols:
        free = ", ".join(sorted(map(str, v.free_symbols)))
        raise SpecError(f"{spec.source}: [initial] {key}: needs values for {free}")
    return evaluate_constant(v, f"{spec.source}: [initial] {key}")


def _check_initial_on_Q(spec: Spec) -> None:
    """If every velocity is given, check f^i = 0 at the initial state (relative tolerance 1e-9)."""
    Y = spec.Y
    if not all(v in spec.initial for v in Y.qdot) or not all(q in spec.initial for q in Y.q):
        return
    vals = dict(spec.params)
    vals.update(spec.initial)
    vals.setdefault(Y.t, sp.Integer(0))
    needed = set().union(*[f.free_symbols for f in spec.Q.f])
    if needed - set(vals):
        return  # parameter values missing: checked later by initial_state()
    _off_Q(spec, vals)


def _off_Q(spec: Spec, vals: dict) -> None:
    """InitialDataError unless |f^i| ≤ 1e-9 (1 + Σ|terms of f^i|) at ``vals`` for every constraint."""
    for i, f in enumerate(spec.Q.f):
        at = f.xreplace(vals)
        if at.free_symbols:
            continue
        where = f"{spec.source}: [initial]: constraint {i + 1} at the initial data"
        val = evaluate_constant(at, where)  # bounded: refuses overflow and non-real values
        scale = 1.0 + sum(abs(evaluate_constant(term.xreplace(vals), where))
                          for term in sp.Add.make_args(sp.expand(f)))
        if not math.isfinite(val) or abs(val) > _OFF_Q_TOL * scale:
            point = ", ".join(f"{s} = {vals[s]}" for s in (*spec.Y.q, *spec.Y.qdot) if s in vals)
            raise InitialDataError(
                f"{spec.source}: [initial]: the initial data are off the constraint manifold Q: "
                f"constraint {i + 1}, {f} = {val:.6g} != 0 at {point}"
            )


def _initial_state(spec: Spec) -> dict:
    Y = spec.Y
    if spec.parameters:
        spec.numeric_params()  # SpecError naming the parameters without a value
    pvals = {s: sp.nsimplify(v) if not isinstance(v, sp.Basic) else v for s, v in spec.params.items()}
    missing = [str(q) for q in Y.q if q not in spec.initial]
    if missing:
        raise SpecError(f"{spec.source}: [initial]: no initial value for {', '.join(missing)}")
    vals: dict = {Y.t: spec.initial.get(Y.t, sp.Integer(0))}
    vals.update(pvals)
    for s, e in spec.initial.items():
        vals[s] = as_expr(e).xreplace(pvals)
    given_v = [v for v in Y.qdot if v in spec.initial]
    if spec.Q is None:
        miss = [str(v) for v in Y.qdot if v not in spec.initial]
        if miss:
            raise SpecError(f"{spec.source}: [initial]: no initial value for {', '.join(miss)}")
    elif len(given_v) < Y.m:
        cs = spec.constrained()
        miss = [str(v) for v in cs.independent if v not in spec.initial]
        if miss:
            raise SpecError(f"{spec.source}: [initial]: no initial value for the independent velocit"
                            f"{'y' if len(miss) == 1 else 'ies'} {', '.join(miss)}")
        vals.update({d: v for d, v in complete_on_Q(spec.Q, vals, cs.g).velocities.items() if d not in spec.initial})
    if spec.Q is not None:
        _off_Q(spec, vals)
    return {s: _num(spec, vals[s], vals, str(s)) for s in (Y.t, *Y.q, *Y.qdot)}


# --- writing --------------------------------------------------------------------------------------


class _SpecPrinter(sp.printing.str.StrPrinter):
    """sympy's str printer, with output that :func:`parse_expression` reads back."""

    def _print_Exp1(self, expr):
        return "exp(1)"

    def _print_Float(self, expr):  # pragma: no cover - specs hold exact numbers
        return str(sp.Rational(str(expr)))


def expr_text(e) -> str:
    """A spec-file string for ``e`` that parses back to the same expression.

    Parameters
    ----------
    e : sympy expression or number
        The expression.

    Returns
    -------
    str
        Its text in the spec-file language (:func:`~jetgeo.io.parse.parse_expression`).
    """
    return _SpecPrinter({"order": None}).doprint(as_expr(e))


def _q(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)


def _key(k: str) -> str:
    return k if k.replace("_", "").isalnum() and k.isascii() else _q(k)


def _val(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, sp.Integer):
        return str(int(v))
    if isinstance(v, list):
        return "[" + ", ".join(_val(x) for x in v) + "]"
    if isinstance(v, str):
        return _q(v)
    return _q(expr_text(v))


def to_toml(spec: Spec) -> str:
    """The spec as canonical TOML text; ``load_spec(to_toml(s))`` rebuilds the same objects.

    Parameters
    ----------
    spec : Spec
        The spec.

    Returns
    -------
    str
        The TOML text.
    """
    Y = spec.Y
    lines = []
    for k, v in (("name", spec.name), ("title", spec.title), ("source", spec.reference),
                 ("description", spec.description)):
        if v:
            lines.append(f"{k} = {_q(v)}")
    lines += ["", "[coordinates]", f"q = {_val([str(s) for s in Y.q])}", f"time = {_q(str(Y.t))}"]
    if Y.autonomous:
        lines.append("autonomous = true")
    if spec.parameters:
        lines += ["", "[parameters]"]
        for s in spec.parameters:
            lines.append(f"{_key(s.name)} = {_val(list(spec.assumptions.get(s.name, [])))}")
    lines += ["", "[lagrangian]"]
    S = spec.system
    if S.kinetic_energy is not None:
        lines.append(f"T = {_val(S.kinetic_energy)}")
        if S.potential_energy != 0:
            lines.append(f"V = {_val(S.potential_energy)}")
    else:
        lines.append(f"L = {_val(S.L)}")
    if any(a != 0 for a in S.forces):
        lines.append("forces = [" + ", ".join(_val(a) for a in S.forces) + "]")
    if spec.Q is not None:
        lines += ["", "[constraints]"]
        if spec.constraint_form not in ("normal", "parametric"):
            lines.append("implicit = [" + ", ".join(_val(f) for f in spec.Q.f) + "]")
        if spec.dependent is not None and spec.constraint_form == "implicit":
            lines.append(f"dependent = {_val([str(d) for d in spec.dependent])}")
        if spec.branch is not None:
            lines.append(f"branch = {spec.branch}")
        if spec.constraint_form == "normal":
            lines += ["", "[constraints.normal]"]
            for d, g in spec.normal.items():
                lines.append(f"{_key(str(d))} = {_val(g)}")
        if spec.psi is not None:
            lines += ["", "[constraints.parametric]", f"z = {_val([str(s) for s in spec.z])}",
                      "psi = [" + ", ".join(_val(p) for p in spec.psi) + "]"]
    if spec.forces_bundle or spec.directions:
        lines += ["", "[problem]"]
        if spec.forces_bundle:
            lines.append("reaction_forces = [" + ", ".join(
                "[" + ", ".join(_val(c) for c in r) + "]" for r in spec.forces_bundle) + "]")
        if spec.directions:
            lines.append("directions_annihilator = [" + ", ".join(
                "[" + ", ".join(_val(c) for c in r) + "]" for r in spec.directions) + "]")
    if spec.initial:
        lines += ["", "[initial]"]
        for s, v in spec.initial.items():
            lines.append(f"{_key(str(s))} = {_val(v)}")
    if spec.params:
        lines += ["", "[values]"]
        for s, v in spec.params.items():
            lines.append(f"{_key(str(s))} = {_val(v)}")
    return "\n".join(lines) + "\n"


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


def dump(spec: Spec, path: str | Path) -> None:
    """Write :func:`to_toml` of ``spec`` to ``path``.

    Parameters
    ----------
    spec : Spec
        The spec.
    path : str or Path
        The file written (replaced if it exists).
    """
    Path(path).write_text(to_toml(spec), encoding="utf-8")
