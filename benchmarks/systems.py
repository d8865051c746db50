r"""Benchmark systems, each defined once for jetgeo and for sympy.physics.mechanics.

Every system is built from one kinematic description written with
``sympy.physics.mechanics`` (frames, points, rigid bodies, dynamicsymbols).  From it
:func:`build` produces both tools' inputs, so the benchmark compares like with like:

* **jetgeo** (public API only): the Lagrangian L = T − V and the constraints f^i,
  translated to jet coordinates (plain Symbols ``x``, ``xdot``) — then
  ``LagrangianSystem(Y, L)``, ``ConstraintSubmanifold(Y, f)``, ``sys.constrain(Q)``,
  ``cs.accelerations()``;
* **KanesMethod** with generalised speeds u^σ = q̇^σ (the same coordinates, the same
  dependent velocities as jetgeo's normal form), the bodies and the gravity loads,
  and the velocity constraints; explicit accelerations by ``LUsolve`` of
  (mass_matrix, forcing);
* **LagrangesMethod** with the same L and the constraints as ``nonhol_coneqs``
  (Chetaev multipliers); explicit accelerations by ``LUsolve`` of the dynamic block
  [[M, −Jᵀ], [J, 0]] (q̈, λ) = (f, f_cd).

Preprocessing shared by both tools (not timed): T and f are expanded and reduced
modulo sin²θ + cos²θ − 1 (sin² → 1 − cos²), the form in which a careful user would
type them.

Systems: Chaplygin sleigh (skate for a = 0; [Benenti 2007, Example 9.1]), vertical rolling disc
[Benenti 2007, Example 9.2], heavy rolling disc in Euler angles [Ghori 1960, Application 3.3], chain of
n knife-edge bodies (n-trailer), two points with parallel velocities ([Benenti 2007, Example 9.4],
nonlinear: KanesMethod rejects it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import sympy as sp
from sympy.physics.mechanics import (
    KanesMethod,
    LagrangesMethod,
    Particle,
    Point,
    ReferenceFrame,
    RigidBody,
    dynamicsymbols,
    inertia,
)

__all__ = [
    "Model",
    "SYSTEMS",
    "build",
    "jetgeo_derive",
    "kane_derive",
    "lagrange_derive",
    "jet_symbols",
    "trig_clean",
]

_t = dynamicsymbols._t


@dataclass
class Model:
    """One system, as sympy.physics.mechanics objects plus L and f in dynamicsymbols.

    ``q`` are the coordinates (dynamicsymbols, in the order used for both tools),
    ``L`` = T − V, ``constraints`` the velocity constraints f^i(q, q̇) = 0,
    ``bodies``/``loads`` the peer's inputs, ``params`` numeric values for the
    parameters (used by the correctness test and the RHS timings).
    """

    name: str
    N: ReferenceFrame
    q: list
    bodies: list
    loads: list
    L: sp.Expr
    constraints: list
    params: dict
    linear: bool = True
    notes: str = ""
    extra: dict = field(default_factory=dict)


def trig_clean(expr: sp.Expr) -> sp.Expr:
    """expand, then sin(θ)² → 1 − cos(θ)² for every angle θ, expand again (no simplify)."""
    expr = sp.expand(expr)
    sq = {p for p in expr.atoms(sp.Pow) if p.base.func == sp.sin and p.exp.is_Integer and p.exp >= 2}
    if not sq:
        return expr
    for _ in range(4):
        new = sp.expand(expr.replace(
            lambda e: e.is_Pow and e.base.func == sp.sin and e.exp.is_Integer and e.exp >= 2,
            lambda e: e.base ** (e.exp - 2) * (1 - sp.cos(e.base.args[0]) ** 2),
        ))
        if new == expr:
            break
        expr = new
    return expr


def _vel(P: Point, O: Point, N: ReferenceFrame):
    """Velocity of P in N as the time derivative of its position (sets it on P)."""
    v = P.pos_from(O).dt(N)
    P.set_vel(N, v)
    return v


def _finish(name, N, q, bodies, loads, V, fs, params, linear=True, notes=""):
    T = sum((b.kinetic_energy(N) for b in bodies), sp.Integer(0))
    L = trig_clean(T - V)
    fs = [trig_clean(f) for f in fs]
    return Model(name, N, list(q), bodies, loads, L, fs, params, linear, notes)


# --- the systems ----------------------------------------------------------------------------------


def chaplygin_sleigh() -> Model:
    """Chaplygin sleigh: knife edge at P = (x, y), heading θ, centre of mass at G = P + a e_θ.

    T = m/2 |v_G|² + I/2 θ̇², constraint (no lateral slip at P): −sin θ ẋ + cos θ ẏ = 0.
    With a = 0 this is Benenti's skate [Benenti 2007, Example 9.1].
    """
    th, x, y = dynamicsymbols("th x y")
    m, I_, a = sp.symbols("m I a", positive=True)
    N = ReferenceFrame("N")
    B = N.orientnew("B", "Axis", [th, N.z])
    O = Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", x * N.x + y * N.y)
    G = P.locatenew("G", a * B.x)
    vP = _vel(P, O, N)
    _vel(G, O, N)
    body = RigidBody("sleigh", G, B, m, (inertia(B, 0, 0, I_), G))
    f = vP.dot(B.y)
    return _finish("chaplygin_sleigh", N, [th, x, y], [body], [], 0, [f], {m: 2.0, I_: 0.7, a: 0.4})


def _rolling_constraints(Cg: Point, G: Point, R: ReferenceFrame, N: ReferenceFrame, H: ReferenceFrame) -> list:
    """No slip: the material point of the body R at the contact Cg has zero velocity.

    v = v_G + ω_R × (Cg − G); the two horizontal components (along the heading frame H).
    """
    v = G.vel(N) + R.ang_vel_in(N).cross(Cg.pos_from(G))
    return [v.dot(H.x), v.dot(H.y)]


def vertical_disc() -> Model:
    """Vertical rolling disc [Benenti 2007, Example 9.2]: heading θ, spin φ, centre above (x, y).

    T = m/2(ẋ² + ẏ²) + A/2 θ̇² + C/2 φ̇²; constraints ẋ = r φ̇ cos θ, ẏ = r φ̇ sin θ.
    """
    th, ph, x, y = dynamicsymbols("th ph x y")
    m, A, C, r = sp.symbols("m A C r", positive=True)
    N = ReferenceFrame("N")
    H = N.orientnew("H", "Axis", [th, N.z])
    R = H.orientnew("R", "Axis", [ph, H.y])
    O = Point("O")
    O.set_vel(N, 0)
    G = O.locatenew("G", x * N.x + y * N.y + r * N.z)
    _vel(G, O, N)
    Cg = G.locatenew("Cg", -r * N.z)
    body = RigidBody("disc", G, R, m, (inertia(H, A, C, A), G))
    fs = [-f for f in _rolling_constraints(Cg, G, R, N, H)]
    return _finish("vertical_disc", N, [th, ph, x, y], [body], [], 0, fs, {m: 1.5, A: 0.3, C: 0.5, r: 0.6})


def heavy_disc() -> Model:
    """Heavy rolling disc in Euler angles ([Ghori 1960, Application 3.3]; the sympy docs' rolling disc).

    Yaw ψ about N.z, lean θ about the heading's x, spin φ about the lean frame's y (the
    disc axis); contact point (x, y); centre G = C + r L.z.  Diametral/axial moments
    A, C; gravity g.  Constraints: the disc's material point at the contact does not
    slip (two horizontal components, affine in (ẋ, ẏ)).
    """
    ps, th, ph, x, y = dynamicsymbols("psi th ph x y")
    m, A, C, r, g = sp.symbols("m A C r g", positive=True)
    N = ReferenceFrame("N")
    H = N.orientnew("H", "Axis", [ps, N.z])
    Lf = H.orientnew("L", "Axis", [th, H.x])
    R = Lf.orientnew("R", "Axis", [ph, Lf.y])
    O = Point("O")
    O.set_vel(N, 0)
    Cg = O.locatenew("Cg", x * N.x + y * N.y)
    G = Cg.locatenew("G", r * Lf.z)
    _vel(G, O, N)
    body = RigidBody("disc", G, R, m, (inertia(Lf, A, C, A), G))
    V = m * g * G.pos_from(O).dot(N.z)
    fs = _rolling_constraints(Cg, G, R, N, H)
    loads = [(G, -m * g * N.z)]
    return _finish("heavy_disc", N, [ps, th, ph, x, y], [body], loads, V, fs,
                   {m: 1.3, A: 0.25, C: 0.45, r: 0.5, g: 9.81})


def n_trailer(n: int) -> Model:
    """Chain of n knife-edge bodies (a car pulling n − 1 trailers, on-axle hitching).

    Body i has heading θ_i and knife edge at P_i; P_1 = (x, y), P_{i+1} = P_i − d e_{i+1}
    (e_i = (cos θ_i, sin θ_i)); its centre of mass is G_i = P_i + a e_i, mass m, moment
    I about G_i (identical bodies).  Constraints: no lateral slip at each P_i,
    v_{P_i} · e_i^⊥ = 0 — n constraints on n + 2 coordinates, 2 degrees of freedom.
    """
    if n < 1:
        raise ValueError("n ≥ 1")
    ths = list(dynamicsymbols(f"th1:{n + 1}"))
    x, y = dynamicsymbols("x y")
    m, I_, a, d = sp.symbols("m I a d", positive=True)
    N = ReferenceFrame("N")
    O = Point("O")
    O.set_vel(N, 0)
    frames, bodies, fs = [], [], []
    P = O.locatenew("P1", x * N.x + y * N.y)
    for i, th in enumerate(ths, start=1):
        B = N.orientnew(f"B{i}", "Axis", [th, N.z])
        frames.append(B)
        if i > 1:
            P = P.locatenew(f"P{i}", -d * B.x)
        vP = _vel(P, O, N)
        G = P.locatenew(f"G{i}", a * B.x)
        _vel(G, O, N)
        bodies.append(RigidBody(f"body{i}", G, B, m, (inertia(B, 0, 0, I_), G)))
        fs.append(vP.dot(B.y))
    model = _finish(f"n_trailer_{n}", N, [*ths, x, y], bodies, [], 0, fs, {m: 1.0, I_: 0.2, a: 0.3, d: 1.1})
    model.extra["n"] = n
    # the hand choice: ẏ and the trailers' θ̇_2..θ̇_n dependent (ẋ, θ̇_1 free), singular only at cos θ_1 = 0
    model.extra["natural_dependent"] = [n + 1, *range(1, n)]
    return model


def parallel_points() -> Model:
    """Two points with parallel velocities [Benenti 2007, Example 9.4]: ẋ₁ẏ₂ − ẋ₂ẏ₁ = 0 (nonlinear).

    T = m₁/2(ẋ₁² + ẏ₁²) + m₂/2(ẋ₂² + ẏ₂²).  KanesMethod rejects the constraint (not
    linear in the speeds); LagrangesMethod applies Chetaev's rule silently.
    """
    x1, y1, x2, y2 = dynamicsymbols("x1 y1 x2 y2")
    m1, m2 = sp.symbols("m1 m2", positive=True)
    N = ReferenceFrame("N")
    O = Point("O")
    O.set_vel(N, 0)
    P1 = O.locatenew("P1", x1 * N.x + y1 * N.y)
    P2 = O.locatenew("P2", x2 * N.x + y2 * N.y)
    _vel(P1, O, N)
    _vel(P2, O, N)
    bodies = [Particle("p1", P1, m1), Particle("p2", P2, m2)]
    f = x1.diff() * y2.diff() - x2.diff() * y1.diff()
    return _finish("parallel_points", N, [x1, y1, x2, y2], bodies, [], 0, [f], {m1: 1.0, m2: 2.5},
                   linear=False, notes="nonlinear constraint [Benenti 2007, Example 9.4]")


SYSTEMS: dict[str, Callable[[], Model]] = {
    "chaplygin_sleigh": chaplygin_sleigh,
    "vertical_disc": vertical_disc,
    "heavy_disc": heavy_disc,
    "parallel_points": parallel_points,
}
for _n in range(1, 13):
    SYSTEMS[f"n_trailer_{_n}"] = (lambda n=_n: n_trailer(n))


def build(name: str) -> Model:
    """The model of a named system (``n_trailer_K`` for K = 1..12)."""
    if name.startswith("n_trailer_") and name not in SYSTEMS:
        return n_trailer(int(name.rsplit("_", 1)[1]))
    return SYSTEMS[name]()


# --- translation to jet coordinates ------------------------------------------------------------------------


def jet_symbols(model: Model):
    """(FibredManifold, {dynamicsymbol expr: jet symbol}) for the model's coordinates."""
    from jetgeo import FibredManifold

    Y = FibredManifold([q.func.__name__ for q in model.q], time="t")
    rep = {}
    for q, s0, s1, s2 in zip(model.q, Y.q, Y.qdot, Y.qddot):
        rep[q.diff(_t, 2)] = s2
        rep[q.diff(_t)] = s1
        rep[q] = s0
    return Y, rep


def to_jet(expr, rep: dict) -> sp.Expr:
    """Dynamicsymbols → jet symbols (derivatives are replaced before the functions)."""
    return sp.sympify(expr).xreplace(rep)


def jetgeo_inputs(model: Model):
    """(Y, L, [f]) in jet coordinates: what a jetgeo user types."""
    Y, rep = jet_symbols(model)
    return Y, to_jet(model.L, rep), [to_jet(f, rep) for f in model.constraints]


# --- the derivations that are timed ---------------------------------------------------------------------------


def jetgeo_derive(Y, L, fs, dependent=None):
    """jetgeo's public API from (L, f) to explicit accelerations on Q; returns (cs, {q̈: expr})."""
    from jetgeo import ConstraintSubmanifold, LagrangianSystem

    system = LagrangianSystem(Y, L)
    Q = ConstraintSubmanifold(Y, fs, dependent=dependent)
    cs = system.constrain(Q)
    return cs, cs.accelerations()


def _speeds(model: Model):
    return [dynamicsymbols(f"u_{q.func.__name__}") for q in model.q]


def kane_derive(model: Model, dependent_idx: list, explicit: bool = True):
    """KanesMethod with u^σ = q̇^σ, dependent speeds at ``dependent_idx``.

    Returns (km, u, udot_solution or None, seconds spent in kanes_equations).
    Raises whatever KanesMethod raises (e.g. for nonlinear velocity constraints).
    """
    import time

    q = model.q
    u = _speeds(model)
    kd = [ui - qi.diff(_t) for ui, qi in zip(u, q)]
    qd_u = {qi.diff(_t): ui for qi, ui in zip(q, u)}
    vel = [f.xreplace(qd_u) for f in model.constraints]
    dep = [u[i] for i in dependent_idx]
    ind = [u[i] for i in range(len(u)) if i not in dependent_idx]
    t0 = time.perf_counter()
    km = KanesMethod(model.N, q_ind=q, u_ind=ind, u_dependent=dep, kd_eqs=kd, velocity_constraints=vel)
    km.kanes_equations(model.bodies, model.loads)
    t_eq = time.perf_counter() - t0
    sol = None
    if explicit:
        sol = km.mass_matrix.LUsolve(km.forcing)
    # km orders its speeds as [ind, dep]
    return km, list(km.u), sol, t_eq


def lagrange_derive(model: Model, explicit: bool = True):
    """LagrangesMethod with nonhol_coneqs; returns (lm, q̈ solution or None, lam or None, seconds in equations)."""
    import time

    t0 = time.perf_counter()
    lm = LagrangesMethod(model.L, model.q, nonhol_coneqs=model.constraints, frame=model.N)
    lm.form_lagranges_equations()
    t_eq = time.perf_counter() - t0
    qdd = lam = None
    if explicit:
        k = len(model.constraints)
        M = lm.mass_matrix.col_join(lm._m_cd.row_join(sp.zeros(k, k)))
        F = lm.forcing.col_join(lm._f_cd)
        x = M.LUsolve(F)
        n = len(model.q)
        qdd, lam = x[:n, 0], x[n:, 0]
    return lm, qdd, lam, t_eq


def kane_to_jet(expr, model: Model, Y) -> sp.Expr:
    """Kane output (q, u) → jet symbols (u^σ → q̇^σ)."""
    rep = {}
    for q, u, s0, s1 in zip(model.q, _speeds(model), Y.q, Y.qdot):
        rep[u] = s1
        rep[q] = s0
    return sp.sympify(expr).xreplace(rep)


# --- numeric evaluation (correctness checks and RHS timings) ----------------------------------------------


def random_state(model: Model, Y, nf, rng) -> dict:
    """A random point of Q: {jet symbol or parameter: float}, q and q̇^I random, q̇^D = g(q, q̇^I).

    ``nf`` is jetgeo's normal form (``cs.nf`` or ``Q.normal_form()``).
    """
    pt = {p: float(v) for p, v in model.params.items()}
    for s in Y.q:
        pt[s] = float(rng.uniform(-1.2, 1.2))
    for v in nf.independent:
        pt[v] = float(rng.uniform(-1.5, 1.5))
    for d, g in nf.g.items():
        pt[d] = float(sp.N(g.xreplace(pt)))
    return pt


def random_state_affine(model: Model, Y, fs: list, dependent: list, rng) -> dict:
    """Like :func:`random_state` without a normal form: for constraints affine in the velocities
    the dependent q̇^D solve the numeric linear system f(q, q̇^I, q̇^D) = 0 (same random draws)."""
    import numpy as np

    pt = {p: float(v) for p, v in model.params.items()}
    for s in Y.q:
        pt[s] = float(rng.uniform(-1.2, 1.2))
    for v in Y.qdot:
        if v not in dependent:
            pt[v] = float(rng.uniform(-1.5, 1.5))
    rows = [f.xreplace(pt) for f in fs]
    A, b = sp.linear_eq_to_matrix(rows, dependent)
    sol = np.linalg.solve(np.array(A.evalf(), dtype=float), np.array(b.evalf(), dtype=float).ravel())
    pt.update({d: float(x) for d, x in zip(dependent, sol)})
    return pt


def _float_matrix(M: sp.Matrix, rep: dict):
    import numpy as np

    return np.array(M.xreplace(rep).evalf(), dtype=float)


def dynamic_values(model: Model, Y, pt: dict) -> dict:
    """The point in dynamicsymbols (q(t), q̇(t), u(t)) for the peer's expressions."""
    rep = {p: v for p, v in pt.items() if p in model.params}
    for q, u, s0, s1 in zip(model.q, _speeds(model), Y.q, Y.qdot):
        rep[q.diff(_t)] = pt[s1]
        rep[u] = pt[s1]
        rep[q] = pt[s0]
    return rep


def jetgeo_numeric(acc: dict, Y, pt: dict):
    import numpy as np

    return np.array([float(sp.N(acc[a].xreplace(pt))) for a in Y.qddot])


def kane_numeric(km, model: Model, Y, pt: dict):
    """u̇ at the point from KanesMethod's mass matrix and forcing (numeric solve), in model.q order."""
    import numpy as np

    rep = dynamic_values(model, Y, pt)
    M, F = _float_matrix(km.mass_matrix, rep), _float_matrix(km.forcing, rep)
    x = np.linalg.solve(M, F).ravel()
    order = [list(km.u).index(u) for u in _speeds(model)]
    return x[order]


def lagrange_numeric(lm, model: Model, Y, pt: dict):
    """q̈ at the point from LagrangesMethod's augmented system (numeric solve)."""
    import numpy as np

    rep = dynamic_values(model, Y, pt)
    k = len(model.constraints)
    M = lm.mass_matrix.col_join(lm._m_cd.row_join(sp.zeros(k, k)))
    F = lm.forcing.col_join(lm._f_cd)
    x = np.linalg.solve(_float_matrix(M, rep), _float_matrix(F, rep)).ravel()
    return x[: len(model.q)]
