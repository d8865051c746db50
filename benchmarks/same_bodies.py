r"""Equal input: the n-trailer's frames and rigid bodies given to KanesMethod and to jetgeo (issue 28).

Both tools start from the same ``sympy.physics.mechanics`` description of the n-trailer (n rigid
bodies in the plane, each hitched to the previous one, a knife edge under each: the frames, points
and :class:`~sympy.physics.mechanics.RigidBody` objects built by :func:`chain`):

* **KanesMethod** (:func:`kane`) gets the bodies with generalised speeds u (the body-frame
  velocity of the first hitch, the angular velocities), the kinematic differential equations and
  the knife-edge conditions as velocity constraints, then ``kanes_equations`` and the ``LUsolve``
  of (mass matrix, forcing) — the accelerations, as the other Kane cells of the route table;
* **jetgeo** (:func:`jet`) gets the same bodies with the coordinate velocities, through
  :func:`jetgeo.io.sympy_import.from_mechanics` (kinetic energy, velocity check, translation to
  jet coordinates), then the route: ``accelerations_on_TQ`` (``"TQ"``) or ``cs.accelerations()``
  (``"acc"``).

The same for the heavy rolling disc (:func:`disc`: one rigid body, gravity as a load, the two
no-slip components as velocity constraints; the very same frames and body go to both tools, Kane
through the kinematic equations u = q̇) and, for the Whipple bicycle, the user's two paths
(:func:`whipple`): KanesMethod on the ``sympy.physics.mechanics`` bicycle of
benchmarks/whipple_kane.py (model built, ``kanes_equations``, ``LUsolve``) against jetgeo from
``load("whipple_bicycle")`` through ``constrain`` to ``cs.accelerations()`` (``"acc"``) or
``accelerations_on_TQ`` (``"TQ"``).

Every timed call builds its bodies itself: Kane's kinematics are in Kane's time, the conversion
is in jetgeo's.  The libraries are imported when this module is (``sympy.physics.mechanics`` and
jetgeo's modules alike), not in a timed call.  The hitch velocities are the derivatives of the
positions (``v2pt_theory`` from the first hitch, whose velocity is ẋ N.x + ẏ N.y), which
:func:`from_mechanics` verifies.

    PYTHONPATH=. python -m benchmarks.same_bodies 6        # medians of 3, alternating, one process
    PYTHONPATH=. python -m benchmarks.same_bodies disc     # the rolling disc; ``whipple``: the bicycle
    PYTHONPATH=. python -m benchmarks.same_bodies 4 split  # where the time goes (:func:`split`)

The n-trailer's floor: building the bodies (:func:`chain`, sympy's ``orientnew`` and ``v2pt_theory``)
is paid by both tools and is about a fifth of Kane's time at n = 4, so jetgeo's own part (conversion
and route) has to fit in the rest of the target; :func:`split` times the pieces separately.  At
495fe9e (load 4.1, medians of 5) the 4-trailer's chain took 0.19 × Kane, ``from_mechanics`` 0.074
(30 ms) and the TQ route 0.034 (14 ms): 0.30 in one process, 0.32 in the route table's fresh forked
children, where the chain alone is about 0.21.  At edb15f6 (load 0.8, medians of 5) the chain takes
0.19 × Kane, ``from_mechanics`` 0.053 (22 ms) and the TQ route 0.023 (9 ms): 0.27 in one process,
0.29–0.31 in the route table's children (routes.txt 0.293 at edb15f6; routes_same_bodies.txt 0.307 at
edb15f6, 0.291 at 6074e9a).
What went: the constraints' polynomial ring (∂f/∂q̇ and d̄f on the DAG), the re-flattening of every
node renamed to jet coordinates, sympy's Vector sums along the paths of points and frames, the
F_p values of right-hand sides nobody reads, the random draws of each evaluation point.  Most of
what is left is building sympy nodes that the result needs — the q̈-free accelerations d̄(m w) of the
mass centres (a third of the Euler–Lagrange form), the mass matrix Σ m Jᵀ J, the conversion of the
bodies' velocities and positions to jet coordinates, the LU solves.
"""

from __future__ import annotations

import os
import statistics
import sys
import time

import sympy as sm
import sympy.physics.mechanics as me

from benchmarks import whipple_kane as W
from benchmarks.run import clear_caches
from benchmarks.systems import _rolling_constraints, _vel
from jetgeo.io.sympy_import import from_mechanics
from jetgeo.mechanics import accelerations_on_TQ
from jetgeo.systems import load

__all__ = ["chain", "kane", "jet", "disc", "whipple", "timed_cell", "compare", "split"]


def _params(n: int):
    m = sm.symbols(f"m1:{n + 1}")
    inertia = sm.symbols(f"I1:{n + 1}")
    a = sm.symbols(f"a1:{n + 1}")
    lengths = sm.symbols(f"L2:{n + 1}") if n > 1 else ()
    return m, inertia, a, lengths


def chain(n: int, kane: bool):
    """(N, q, u, bodies, constraints) of the n-trailer; ``kane``: velocities through the speeds u
    (KanesMethod's form), else through the coordinates' derivatives (a Lagrangian's)."""
    t = me.dynamicsymbols._t
    x, y, th = me.dynamicsymbols("x y theta")
    phi = [me.dynamicsymbols(f"phi{i}") for i in range(2, n + 1)]
    m, inertia, a, lengths = _params(n)
    q = [x, y, th, *phi]
    u = [me.dynamicsymbols(f"u{k}") for k in range(1, n + 3)]
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    frames = [N.orientnew("B1", "Axis", (th, N.z))]
    for i in range(2, n + 1):
        frames.append(frames[-1].orientnew(f"B{i}", "Axis", (phi[i - 2], N.z)))
    P = [O.locatenew("P1", x * N.x + y * N.y)]
    if kane:
        frames[0].set_ang_vel(N, u[2] * N.z)
        for i in range(2, n + 1):
            frames[i - 1].set_ang_vel(frames[i - 2], u[i + 1] * N.z)
        P[0].set_vel(N, u[0] * frames[0].x + u[1] * frames[0].y)
    else:
        P[0].set_vel(N, x.diff(t) * N.x + y.diff(t) * N.y)
    for i in range(2, n + 1):
        Pi = P[-1].locatenew(f"P{i}", -lengths[i - 2] * frames[i - 1].x)
        Pi.v2pt_theory(P[-1], N, frames[i - 1])
        P.append(Pi)
    bodies = []
    for i in range(n):
        G = P[i].locatenew(f"G{i + 1}", a[i] * frames[i].x)
        G.v2pt_theory(P[i], N, frames[i])
        bodies.append(me.RigidBody(f"body{i + 1}", G, frames[i], m[i], (me.inertia(frames[i], 0, 0, inertia[i]), G)))
    cons = [me.dot(P[i].vel(N), frames[i].y) for i in range(n)]
    return N, q, u, bodies, cons


def kane(n: int):
    """KanesMethod on the n-trailer's bodies; the accelerations ``LUsolve(mass matrix, forcing)``."""
    t = me.dynamicsymbols._t
    N, q, u, bodies, cons = chain(n, kane=True)
    c, s = sm.cos(q[2]), sm.sin(q[2])
    kd = [q[0].diff(t) - (u[0] * c - u[1] * s), q[1].diff(t) - (u[0] * s + u[1] * c), q[2].diff(t) - u[2]]
    kd += [q[k].diff(t) - u[k] for k in range(3, n + 2)]
    km = me.KanesMethod(N, q_ind=q, u_ind=[u[0], u[2]], u_dependent=[u[1], *u[3:]], kd_eqs=kd,
                        velocity_constraints=cons)
    km.kanes_equations(bodies, [])
    return km.mass_matrix.LUsolve(km.forcing)


def imported(n: int):
    """The n-trailer's bodies through :func:`jetgeo.io.sympy_import.from_mechanics`."""
    N, q, _, bodies, cons = chain(n, kane=False)
    return from_mechanics(q, bodies, N, velocity_constraints=cons)


def jet(n: int, route: str):
    """jetgeo from the bodies: ``"TQ"`` (``accelerations_on_TQ``) or ``"acc"`` (``cs.accelerations()``)."""
    model = imported(n)
    if route == "TQ":
        return accelerations_on_TQ(model.system, model.Q)
    if route == "acc":
        return model.constrain().accelerations()
    raise ValueError(f"route {route!r}: 'TQ' or 'acc'")


def _disc_bodies():
    """The heavy rolling disc of benchmarks/systems.py (``heavy_disc``) as a user hands it over:
    (N, q, body, gravity load, no-slip constraints), velocities the derivatives of positions."""
    ps, th, ph, x, y = me.dynamicsymbols("psi th ph x y")
    m, A, C, r, g = sm.symbols("m A C r g", positive=True)
    N = me.ReferenceFrame("N")
    H = N.orientnew("H", "Axis", [ps, N.z])
    Lf = H.orientnew("L", "Axis", [th, H.x])
    R = Lf.orientnew("R", "Axis", [ph, Lf.y])
    O = me.Point("O")
    O.set_vel(N, 0)
    Cg = O.locatenew("Cg", x * N.x + y * N.y)
    G = Cg.locatenew("G", r * Lf.z)
    _vel(G, O, N)
    body = me.RigidBody("disc", G, R, m, (me.inertia(Lf, A, C, A), G))
    return N, [ps, th, ph, x, y], [body], [(G, -m * g * N.z)], _rolling_constraints(Cg, G, R, N, H)


def disc(route: str):
    """The rolling disc: ``"Kane"`` (KanesMethod with u = q̇, ẋ, ẏ dependent, ``LUsolve``) or jetgeo's
    ``"TQ"`` / ``"acc"`` through :func:`jetgeo.io.sympy_import.from_mechanics`."""
    N, q, bodies, loads, cons = _disc_bodies()
    if route == "Kane":
        t = me.dynamicsymbols._t
        u = [me.dynamicsymbols(f"u_{c.func.__name__}") for c in q]
        qd_u = {c.diff(t): v for c, v in zip(q, u)}
        km = me.KanesMethod(N, q_ind=q, u_ind=u[:3], u_dependent=u[3:], kd_eqs=[v - c.diff(t) for c, v in zip(q, u)],
                            velocity_constraints=[f.xreplace(qd_u) for f in cons])
        km.kanes_equations(bodies, loads)
        return km.mass_matrix.LUsolve(km.forcing)
    model = from_mechanics(q, bodies, N, loads=loads, velocity_constraints=cons)
    if route == "TQ":
        return accelerations_on_TQ(model.system, model.Q)
    if route == "acc":
        return model.constrain().accelerations()
    raise ValueError(f"route {route!r}: 'Kane', 'TQ' or 'acc'")


def whipple(route: str):
    """The Whipple bicycle: ``"Kane"`` (benchmarks/whipple_kane.py: the model built, ``kanes_equations``,
    ``LUsolve``) or jetgeo from ``load("whipple_bicycle")``: ``"acc"`` (``constrain`` and
    ``cs.accelerations()``), ``"TQ"`` (``accelerations_on_TQ``)."""
    if route == "Kane":
        km, _, _ = W.derive(W.model())
        return km.mass_matrix.LUsolve(km.forcing)
    entry = load("whipple_bicycle")
    if route == "TQ":
        return accelerations_on_TQ(entry.system, entry.Q)
    if route == "acc":
        return entry.system.constrain(entry.Q).accelerations()
    raise ValueError(f"route {route!r}: 'Kane', 'TQ' or 'acc'")


def timed_cell(model: str, route: str):
    """The zero-argument callable a same-bodies cell times: ``model`` is ``"n_trailer_<n>"``,
    ``"rolling_disc"`` or ``"whipple_bicycle"``; ``route`` ``"Kane"``, ``"TQ"`` or ``"acc"``."""
    if model == "rolling_disc":
        return lambda: disc(route)
    if model == "whipple_bicycle":
        return lambda: whipple(route)
    n = int(model.rsplit("_", 1)[1])
    return (lambda: kane(n)) if route == "Kane" else (lambda: jet(n, route))


def _timed(fn) -> float:
    clear_caches()  # sympy's cache and jetgeo's memo tables: no run profits from the previous one
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def compare(model: str, repeats: int = 3) -> dict:
    """Medians of ``repeats`` alternating runs in this process: {"Kane", "TQ", "acc": seconds}
    (``model`` as for :func:`timed_cell`)."""
    runs: dict = {"Kane": [], "TQ": [], "acc": []}
    for _ in range(repeats):
        for route in runs:
            runs[route].append(_timed(timed_cell(model, route)))
    return {k: statistics.median(v) for k, v in runs.items()}


def split(n: int, repeats: int = 5) -> dict:
    """Medians of ``repeats`` alternating runs of the n-trailer's pieces, each after
    ``clear_caches()`` and timed in one run: ``"chain"`` (the bodies, as jetgeo gets them),
    ``"from_mechanics"``, ``"TQ route"`` and ``"acc route"`` (each on its own import), ``"Kane chain"``
    (the bodies with speeds) and ``"Kane"`` (its whole cell, the chain included), in seconds."""
    runs: dict = {k: [] for k in ("chain", "from_mechanics", "TQ route", "acc route", "Kane chain", "Kane")}
    for _ in range(repeats):
        clear_caches()
        t0 = time.perf_counter()
        chain(n, kane=True)
        runs["Kane chain"].append(time.perf_counter() - t0)
        runs["Kane"].append(_timed(lambda: kane(n)))
        for route in ("TQ", "acc"):
            clear_caches()
            t0 = time.perf_counter()
            N, q, _, bodies, cons = chain(n, kane=False)
            t1 = time.perf_counter()
            model = from_mechanics(q, bodies, N, velocity_constraints=cons)
            t2 = time.perf_counter()
            if route == "TQ":
                accelerations_on_TQ(model.system, model.Q)
            else:
                model.constrain().accelerations()
            t3 = time.perf_counter()
            runs["chain"].append(t1 - t0)
            runs["from_mechanics"].append(t2 - t1)
            runs[f"{route} route"].append(t3 - t2)
    return {k: statistics.median(v) for k, v in runs.items()}


if __name__ == "__main__":
    arg = sys.argv[1] if len(sys.argv) > 1 else "6"
    if len(sys.argv) > 2 and sys.argv[2] == "split":
        load = os.getloadavg()[0]
        parts = split(int(arg))
        print(f"n_trailer_{arg} (medians of 5, load {load:.2f}): "
              + ", ".join(f"{k} {v:.3g} s ({v / parts['Kane']:.3g} x Kane)" for k, v in parts.items()))
        sys.exit(0)
    name = {"disc": "rolling_disc", "whipple": "whipple_bicycle"}.get(arg, f"n_trailer_{arg}")
    med = compare(name)
    print(f"{name}: Kane {med['Kane']:.3g} s, jetgeo TQ {med['TQ']:.3g} s ({med['TQ'] / med['Kane']:.3g} x), "
          f"acc {med['acc']:.3g} s ({med['acc'] / med['Kane']:.3g} x)")
