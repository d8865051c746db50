r"""The ``[body]`` table of a spec file: a rigid body in its body-frame angular velocity.

A spec with a ``[body]`` table states a rigid body the way :mod:`jetgeo.mechanics.rigid` builds it
(``theory/rolling_contact.md``): an orientation chart (an Euler-angle sequence or unit quaternions),
the names of its coordinates and of the body-frame angular velocity Ω (the quasi-velocities), mass,
inertia, the offset of the centre of mass, gravity, constraints written in Ω (Suslov's ⟨Ω, e⟩ = 0),
and optionally a convex shape (``[body.shape]``: an ellipsoid, a sphere or a quadric) rolling on a
surface (``[body.contact]``: the plane, a sphere or a cylinder, inside or outside, rubber or not).
The result is a :class:`~jetgeo.mechanics.quasi.QuasiVelocitySystem`; the spec keeps it
(``Spec.quasi``) together with its coordinate route (``Spec.system``, ``Spec.Q``).  Nothing is
evaluated: every expression goes through :func:`jetgeo.io.parse.parse_expression`, every size is
bounded, and every error is a :class:`~jetgeo.errors.SpecError` naming the file, table and key.

::

    [body]
    chart = "ZXZ"                          # or "quaternion"
    angles = ["phi", "theta", "psi"]       # four names for a quaternion (scalar part first)
    omega = ["w1", "w2", "w3"]             # Ω in body axes
    inertia = ["A", "B", "C"]              # principal moments, or a symmetric 3 x 3 list
    constraints = ["w3"]                   # in Ω, the angles and the parameters (optional)

Without ``[body.contact]`` the body turns about the fixed point O (the inertia is about O, and gravity
acts on the centre of mass at ``offset`` from O); with it, the inertia is about the centre of mass
and ``position``/``speeds`` name the two surface coordinates and their rates
(:func:`~jetgeo.mechanics.rigid.rolling_contact`).
"""

from __future__ import annotations

import math

import sympy as sp

from ..errors import InputError, JetgeoError, SpecError
from ..geometry.coerce import as_expr
from ..jets import FibredManifold
from ..mechanics import QuasiVelocitySystem
from ..mechanics.rigid import (
    EULER_SEQUENCES,
    QUATERNION,
    SURFACES,
    ContactSurface,
    body_angular_velocity,
    body_angular_velocity_quaternion,
    ellipsoid_support,
    quadric_support,
    rolling_contact,
    rotation_matrix,
)
from .parse import check_name, evaluate_constant

__all__ = ["BODY_KEYS", "load_body"]

BODY_KEYS = ("chart", "angles", "omega", "radial", "mass", "inertia", "offset", "gravity", "constraints",
             "shape", "contact")
SHAPE_KEYS = ("ellipsoid", "sphere", "quadric", "variables")
CONTACT_KEYS = ("surface", "radius", "inside", "axis", "centre", "position", "speeds", "rubber")
#: most constraints in Ω a body may state (three would leave no motion of the orientation)
MAX_BODY_CONSTRAINTS = 2


def _kind(v) -> str:
    return {dict: "a table", list: "a list", str: "a string", bool: "a boolean", int: "an integer",
            float: "a number"}.get(type(v), type(v).__name__)


class _Body:
    """Reads [body] with the spec loader's helpers (``loader.err``, ``loader.expr``, parameters, values)."""

    def __init__(self, loader) -> None:
        self.L = loader
        self.fit = None
        self.initial_raw: dict = {}

    def err(self, table: str, key: str | None, msg: str) -> SpecError:
        return self.L.err(table, key, msg)

    def names(self, tab: dict, table: str, key: str, n: int) -> list:
        v = tab.get(key)
        if not isinstance(v, list) or len(v) != n:
            raise self.err(table, key, f"must be a list of {n} names, got "
                           f"{_kind(v) if not isinstance(v, list) else f'{len(v)} entries'}")
        for x in v:
            check_name(x, self.L.where(table, key), "name")
        return v

    def table(self, tab: dict, key: str, table: str, allowed: tuple) -> dict:
        v = tab.get(key, {})
        if not isinstance(v, dict):
            raise self.err(table, key, f"must be a table [{table}.{key}], got {_kind(v)}")
        bad = [k for k in v if k not in allowed]
        if bad:
            raise self.err(f"{table}.{key}", bad[0], f"unknown key (allowed: {', '.join(allowed)})")
        return v

    def flag(self, tab: dict, table: str, key: str) -> bool:
        v = tab.get(key, False)
        if not isinstance(v, bool):
            raise self.err(table, key, f"must be true or false, got {_kind(v)}")
        return v

    def word(self, tab: dict, table: str, key: str, allowed, default: str) -> str:
        v = tab.get(key, default)
        if not isinstance(v, str) or v not in allowed:
            raise self.err(table, key, f"must be one of {', '.join(allowed)}, got {v!r}")
        return v

    def vector(self, tab: dict, table: str, key: str, n: int, names: dict, default=None) -> list:
        v = tab.get(key, default)
        if not isinstance(v, list) or len(v) != n:
            raise self.err(table, key, f"must be a list of {n} expressions, got "
                           f"{_kind(v) if not isinstance(v, list) else f'{len(v)} entries'}")
        return [self.L.expr(x, names, table, f"{key}[{i}]") for i, x in enumerate(v)]

    # ------------------------------------------------------------------------------------------------
    def load(self) -> dict:
        L = self.L
        tab = L.table("body")
        bad = [k for k in tab if k not in BODY_KEYS]
        if bad:
            raise self.err("body", bad[0], f"unknown key (allowed: {', '.join(BODY_KEYS)})")
        chart = tab.get("chart")
        if not isinstance(chart, str) or (chart.upper() not in EULER_SEQUENCES and chart.lower() != QUATERNION):
            raise self.err("body", "chart", f"must be one of {', '.join(EULER_SEQUENCES)} or {QUATERNION!r}, "
                           f"got {chart!r}")
        quaternion = chart.lower() == QUATERNION
        angles = self.names(tab, "body", "angles", 4 if quaternion else 3)
        omega = self.names(tab, "body", "omega", 3)
        radial = []
        if quaternion:
            radial = [tab.get("radial", "s")]
            check_name(radial[0], L.where("body", "radial"), "name")
        elif "radial" in tab:
            raise self.err("body", "radial", "only a quaternion chart has a radial rate")
        shape = self.table(tab, "shape", "body", SHAPE_KEYS)
        contact = self.table(tab, "contact", "body", CONTACT_KEYS)
        if contact and not shape:
            raise self.err("body", "shape", "a body in contact needs its shape: [body.shape] ellipsoid, sphere or "
                           "quadric")
        position, speeds = [], []
        if contact:
            position = self.names(contact, "body.contact", "position", 2)
            speeds = self.names(contact, "body.contact", "speeds", 2)
        coords = [*angles, *position]
        quasi = [*omega, *radial, *speeds]
        everything = coords + quasi
        dup = next((n for n in everything if everything.count(n) > 1), None)
        if dup is not None:
            raise self.err("body", None, f"the name {dup!r} is given twice (angles, omega, position, speeds)")
        try:
            Y = FibredManifold(coords)
        except (InputError, JetgeoError) as exc:
            raise self.err("body", "angles", str(exc)) from None
        L.Y = Y
        L.jet_names = {str(s): s for s in (Y.t, *Y.q, *Y.qdot)}
        L.acc_names = {str(s): s for s in Y.qddot}
        clash = [n for n in quasi if n in L.jet_names or n in L.acc_names or f"{n}dot" in L.jet_names
                 or f"{n}dot" in L.acc_names]
        if clash:
            raise self.err("body", "omega", f"the quasi-velocity name {clash[0]!r} clashes with a coordinate, a "
                           "velocity or an acceleration (its derivative is named "
                           f"{clash[0]}dot)")
        L.load_parameters()
        bad = [n for n in L.params if n in quasi or f"{n}" in {f"{q}dot" for q in quasi}]
        if bad:
            raise self.err("parameters", bad[0], "clashes with a quasi-velocity name")
        pnames = dict(L.params)
        if quaternion:
            F = body_angular_velocity_quaternion(Y, quasi, quaternion=Y.q[:4])
        else:
            F = body_angular_velocity(Y, chart.upper(), quasi, angles=Y.q[:3])
        inertia = self.inertia(tab, pnames)
        with_q = {**pnames, **{str(q): q for q in Y.q}}
        mass = L.expr(tab["mass"], pnames, "body", "mass") if "mass" in tab else None
        gravity = L.expr(tab.get("gravity", 0), pnames, "body", "gravity")
        offset = self.vector(tab, "body", "offset", 3, pnames, default=[0, 0, 0])
        if mass is None and (contact or gravity != 0):
            raise self.err("body", "mass", "missing: a body in contact or under gravity needs its mass")
        names_v = {**with_q, **{str(v): v for v in F.v}}
        cons_raw = tab.get("constraints", [])
        if not isinstance(cons_raw, list) or len(cons_raw) > MAX_BODY_CONSTRAINTS:
            raise self.err("body", "constraints", f"must be a list of at most {MAX_BODY_CONSTRAINTS} expressions "
                           "in the angular velocity, got " + (_kind(cons_raw) if not isinstance(cons_raw, list)
                                                              else f"{len(cons_raw)}"))
        hidden = {str(s): "write the constraints in the quasi-velocities, not the jet velocities"
                  for s in Y.qdot}
        extra = [L.expr(c, names_v, "body", f"constraints[{i}]", hidden) for i, c in enumerate(cons_raw)]
        if contact:
            S = self.rolling(Y, chart, quasi, shape, contact, mass, inertia, offset, gravity, pnames)
            if extra:
                S = QuasiVelocitySystem(S.frame, S.ell, constraints=[*S.phi, *extra])
        else:
            if shape:
                raise self.err("body", "shape", "a shape matters only for a body in contact: add [body.contact]")
            W = sp.Matrix(F.v[:3])
            ell = (W.T * inertia * W)[0] / 2
            if gravity != 0:
                zG = (rotation_matrix(Y, QUATERNION if quaternion else chart.upper(), Y.q[:4 if quaternion else 3])
                      * sp.Matrix(offset))[2]
                ell -= mass * gravity * zG
            S = QuasiVelocitySystem(F, ell, constraints=[*([F.v[3]] if quaternion else []), *extra])
        return self.finish(S)

    def inertia(self, tab: dict, pnames: dict) -> sp.Matrix:
        v = tab.get("inertia")
        if isinstance(v, list) and len(v) == 3 and all(not isinstance(r, list) for r in v):
            return sp.diag(*[self.L.expr(x, pnames, "body", f"inertia[{i}]") for i, x in enumerate(v)])
        if isinstance(v, list) and len(v) == 3 and all(isinstance(r, list) and len(r) == 3 for r in v):
            I = sp.Matrix(3, 3, lambda i, j: self.L.expr(v[i][j], pnames, "body", f"inertia[{i}][{j}]"))
            if any(I[i, j] != I[j, i] for i in range(3) for j in range(i)):
                raise self.err("body", "inertia", "the inertia matrix must be symmetric")
            return I
        raise self.err("body", "inertia", "missing or malformed: three principal moments [A, B, C] or a symmetric "
                       "3 x 3 list of lists")

    def rolling(self, Y, chart, quasi, shape, contact, mass, inertia, offset, gravity, pnames):
        L = self.L
        given = [k for k in ("ellipsoid", "sphere", "quadric") if k in shape]
        if len(given) != 1:
            raise self.err("body.shape", None, "give exactly one of ellipsoid = [a, b, c], sphere = r, quadric = "
                           f"\"...\" (got {', '.join(given) or 'none'})")
        if given[0] != "quadric" and "variables" in shape:
            raise self.err("body.shape", "variables", "only a quadric has variables")
        if given[0] == "ellipsoid":
            axes = self.vector(shape, "body.shape", "ellipsoid", 3, pnames)
            support = ellipsoid_support(*axes)
        elif given[0] == "sphere":
            r = L.expr(shape["sphere"], pnames, "body.shape", "sphere")
            support = ellipsoid_support(r, r, r)
        else:
            variables = shape.get("variables", ["x1", "x2", "x3"])
            if not isinstance(variables, list) or len(variables) != 3:
                raise self.err("body.shape", "variables", "must be a list of 3 names")
            for n in variables:
                check_name(n, L.where("body.shape", "variables"), "variable")
                if n in pnames or n in L.jet_names:
                    raise self.err("body.shape", "variables", f"{n!r} clashes with another name of the spec")
            xs = [sp.Symbol(n) for n in variables]
            phi = L.expr(shape["quadric"], {**pnames, **dict(zip(variables, xs))}, "body.shape", "quadric")
            support = quadric_support(phi, xs)
        kind = self.word(contact, "body.contact", "surface", SURFACES, "plane")
        inside = self.flag(contact, "body.contact", "inside")
        rubber = self.flag(contact, "body.contact", "rubber")
        axis = self.word(contact, "body.contact", "axis", ("vertical", "horizontal"), "vertical")
        radius = L.expr(contact["radius"], pnames, "body.contact", "radius") if "radius" in contact else None
        centre = self.vector(contact, "body.contact", "centre", 3, pnames, default=[0, 0, 0])
        if kind == "plane" and (radius is not None or inside or "axis" in contact or "centre" in contact):
            raise self.err("body.contact", "surface", "the plane z = 0 takes no radius, inside, axis or centre")
        if kind != "cylinder" and "axis" in contact:
            raise self.err("body.contact", "axis", "only a cylinder has an axis")
        surface = ContactSurface(kind) if kind == "plane" else ContactSurface(kind, radius, inside, axis, tuple(centre))
        if inside and support.max_curvature_radius is not None:
            self.fit = (surface.radius - support.max_curvature_radius, support.shape, surface)
        return rolling_contact(Y, QUATERNION if chart.lower() == QUATERNION else chart.upper(), quasi, support, mass,
                               inertia, surface, offset=offset, gravity=gravity, rubber=rubber)

    def finish(self, S: QuasiVelocitySystem) -> dict:
        L, Y = self.L, S.frame.Y
        params = L.load_values()
        self.check_values(params)
        initial = self.initial(S, params)
        used = set().union(S.ell.free_symbols, *[e.free_symbols for e in S.phi],
                           *[as_expr(e, "[initial]").free_symbols for e in self.initial_raw.values()])
        for name, sym in L.params.items():
            if sym not in used:
                raise L.err("parameters", name, "declared but used in no expression of the body (its Lagrangian, "
                            "constraints or initial data)")
        system = S.lagrangian_system()
        Q = S.constraint_submanifold() if S.phi else None
        return dict(Y=Y, system=system, Q=Q, parameters=tuple(L.params.values()), params=params, initial=initial,
                    assumptions=L.assumptions, constraint_form="implicit" if Q is not None else None, quasi=S)

    def check_values(self, params: dict) -> None:
        """The mass positive and the inertia positive definite at the values of [values]."""
        tab = self.L.table("body")
        at = {s: v for s, v in params.items()}
        if "mass" in tab:
            mass = self.L.expr(tab["mass"], self.L.params, "body", "mass").xreplace(at)
            if mass.is_number and not evaluate_constant(mass, self.L.where("body", "mass")) > 0:
                raise self.err("body", "mass", f"must be positive, is {mass} at [values]")
        contact = tab.get("contact", {})
        if isinstance(contact, dict) and "radius" in contact:
            radius = self.L.expr(contact["radius"], self.L.params, "body.contact", "radius").xreplace(at)
            if radius.is_number and not evaluate_constant(radius, self.L.where("body.contact", "radius")) > 0:
                raise self.err("body.contact", "radius", f"must be positive, is {radius} at [values]")
        if self.fit is not None:  # inside a sphere or cylinder the body's radii of curvature stay below R
            gap, shape, surface = self.fit
            gap = gap.xreplace(at)
            if gap.is_number and not evaluate_constant(gap, self.L.where("body.contact", "radius")) > 0:
                raise self.err("body.contact", "radius", f"{shape} does not fit inside the {surface.kind} of radius "
                               f"{surface.radius} at [values]: its largest radius of curvature must be smaller")
        inertia = self.inertia(tab, self.L.params).xreplace(at)
        if all(e.is_number for e in inertia):
            minors = [evaluate_constant(inertia[:k, :k].det(), self.L.where("body", "inertia")) for k in (1, 2, 3)]
            if not all(math.isfinite(x) and x > 0 for x in minors):
                raise self.err("body", "inertia", f"must be positive definite, is {inertia.tolist()} at [values]")

    def initial(self, S: QuasiVelocitySystem, params: dict) -> dict:
        L, F = self.L, S.frame
        Y = F.Y
        tab = L.table("initial")
        self.initial_raw = {}
        if not tab:
            return {}
        allowed = {str(s): s for s in (Y.t, *Y.q, *S.independent)}
        values = {}
        for k, v in tab.items():
            if k not in allowed:
                raise L.err("initial", k, f"{k!r} is not the time, a coordinate or an independent quasi-velocity "
                            f"({', '.join(allowed)}); the dependent ones ({', '.join(map(str, S.dependent))}) "
                            "follow from the constraints")
            values[allowed[k]] = L.expr(v, dict(L.params), "initial", k)
        self.initial_raw = values
        missing = [str(s) for s in (*Y.q, *S.independent) if s not in values]
        if missing:
            raise L.err("initial", None, f"no initial value for {', '.join(missing)}")
        unvalued = [s.name for s in L.params.values() if s not in params]
        if unvalued:
            raise L.err("values", None, f"the initial data need values for {', '.join(unvalued)}")
        try:
            state = S.jet_state(values, params=params)
        except (InputError, ZeroDivisionError) as exc:
            raise L.err("initial", None, str(exc)) from None
        out = {Y.t: values.get(Y.t, sp.Integer(0))}
        out.update({s: state[s] for s in (*Y.q, *Y.qdot)})
        return out


def load_body(loader) -> dict:
    """The fields of a :class:`~jetgeo.io.spec.Spec` for a spec with a ``[body]`` table.

    Parameters
    ----------
    loader : jetgeo.io.spec._Loader
        The spec loader (its helpers read the tables, parameters and values and make the messages).

    Returns
    -------
    dict
        ``Y``, ``system``, ``Q``, ``parameters``, ``params``, ``initial``, ``assumptions``,
        ``constraint_form`` and ``quasi`` (the :class:`~jetgeo.mechanics.quasi.QuasiVelocitySystem`).

    Examples
    --------
    >>> from jetgeo.io import loads_spec
    >>> spec = loads_spec('''
    ... [parameters]
    ... A = "positive"
    ... B = "positive"
    ... C = "positive"
    ... [body]
    ... chart = "ZXZ"
    ... angles = ["phi", "theta", "psi"]
    ... omega = ["p", "q", "r"]
    ... inertia = ["A", "B", "C"]
    ... constraints = ["r"]
    ... ''')
    >>> spec.quasi.accelerations()[spec.quasi.frame.vdot[0]]
    0
    """
    return _Body(loader).load()
