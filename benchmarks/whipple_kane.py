r"""The Whipple bicycle with ``sympy.physics.mechanics`` (KanesMethod): the peer of ``jetgeo.systems.whipple``.

Written the way a sympy user would: reference frames, points, four rigid bodies, gravity
loads, the front-contact holonomic constraint and the no-slip rolling constraints, then
``KanesMethod`` with a configuration constraint and velocity constraints, and
``KanesMethod.linearize`` about upright straight-ahead motion at speed v.  The same
objects are imported into jetgeo by ``tests/benchmarks/test_whipple_import.py``.

Model ([Meijaard et al. 2007, §2 and Appendix]; axes: x forward, y right, z **down**):

* coordinates: rear contact (x, y) on the ground, yaw ψ about N.z, roll φ (lean) about
  the heading's x, pitch θ of the rear frame about the lean frame's y, steer δ about the
  steer axis, rear wheel angle θ_R and front wheel angle θ_F about the wheel axles;
* frames: A = yaw, B = lean, C = rear frame (pitch; C = B in the reference
  configuration), D = C tilted by λ about C.y (D.z is the steer axis, pointing down and
  forward), E = front frame (steer about D.z), R and F the wheels (spin about C.y, E.y);
* geometry of the reference configuration (upright, zero steer, pitch 0): rear wheel
  centre at (0, −r_R), front wheel centre at (w, −r_F), steer axis through the ground
  point (w + c, 0) with tilt λ.  In D coordinates: the steer axis passes at
  d₁ = (w + c) cos λ − r_R sin λ from the rear centre; the front centre lies
  d₂ = w sin λ + (r_R − r_F) cos λ along the axis and d₃ = r_F sin λ − c cos λ in front
  of it;
* holonomic constraint: the front wheel touches the ground, h = (F_o − P)·N.z
  + r_F √(1 − (N.z·E.y)²) = 0 (the lowest rim point lies r_F √(1 − (N.z·E.y)²) below
  the centre);
* rolling: the material points of both wheels at the contacts have zero horizontal
  velocity (A.x, A.y components; four non-holonomic constraints); the fifth velocity
  constraint is ḣ = 0 (``h.diff(t)``; it equals the vertical velocity of the front
  wheel's material contact point);
* velocities are written with q̇ (``q.diff(t)``; KanesMethod's speeds are u_i = q̇_i through
  the kinematic differential equations), so the very same points, frames and bodies can
  be handed to jetgeo's importer, which takes coordinate derivatives only.

``python -m benchmarks.whipple_kane [--quick] [--reps N]`` times derive and linearise and
compares the lean/steer eigenvalues for v = 0…10 m/s with the published values.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import sympy as sp
from sympy.physics.mechanics import (
    KanesMethod,
    Point,
    ReferenceFrame,
    RigidBody,
    dynamicsymbols,
    inertia,
    msubs,
)

from benchmarks.provenance import provenance, provenance_lines

__all__ = [
    "BENCHMARK",
    "PUBLISHED_EIGENVALUES",
    "PUBLISHED_MATRICES",
    "WhippleModel",
    "benchmark_values",
    "derive",
    "eigenvalues_from_published",
    "kane_eigenvalues",
    "linearise",
    "main",
    "model",
]

RESULTS = Path(__file__).resolve().parent / "results"
_t = dynamicsymbols._t

# --- published values [Meijaard et al. 2007, Table 1, eqs. (A1)–(A4), Table 2] --------------

#: Table 1: the benchmark bicycle's parameters (SI units; λ = π/10 exactly).
BENCHMARK = {
    "w": "1.02", "c": "0.08", "lam": sp.pi / 10, "g": "9.81",
    "rR": "0.3", "mR": "2", "IRxx": "0.0603", "IRyy": "0.12",
    "xB": "0.3", "zB": "-0.9", "mB": "85", "IBxx": "9.2", "IByy": "11", "IBzz": "2.8", "IBxz": "2.4",
    "xH": "0.9", "zH": "-0.7", "mH": "4", "IHxx": "0.05892", "IHyy": "0.06", "IHzz": "0.00708", "IHxz": "-0.00756",
    "rF": "0.35", "mF": "3", "IFxx": "0.1405", "IFyy": "0.28",
}

#: The linearised equations M q̈ + v C₁ q̇ + [g K₀ + v² K₂] q = 0, q = (φ, δ), at the benchmark values
#: ([Meijaard et al. 2007, eqs. (A1)–(A4)] with Table 1; 14 significant digits as printed).
PUBLISHED_MATRICES = {
    "M": [[80.81722, 2.31941332208709], [2.31941332208709, 0.29784188199686]],
    "C1": [[0.0, 33.86641391492494], [-0.85035641456978, 1.68540397397560]],
    "K0": [[-80.95, -2.59951685249872], [-2.59951685249872, -0.80329488458618]],
    "K2": [[0.0, 76.59734589573222], [0.0, 2.65431523794604]],
}

#: Table 2: eigenvalues of the lean/steer system at the speeds given (the rows quoted here).
PUBLISHED_EIGENVALUES = {
    0: [-5.53094371765393, -3.13164324790656, 3.13164324790656, 5.53094371765393],
    5: [-14.07838969279820, -0.77534188219585 - 4.46486771378823j, -0.77534188219585 + 4.46486771378823j,
        -0.32286642900409],
}

#: Weave and capsize speeds [Meijaard et al. 2007, §4, Table 2].
WEAVE_SPEED = 4.29238253634111
CAPSIZE_SPEED = 6.02426201538837


def _sorted(ev) -> np.ndarray:
    ev = np.asarray(ev, dtype=complex)
    return ev[np.lexsort((ev.imag, ev.real))]


def eigenvalues_from_published(v: float) -> np.ndarray:
    """Eigenvalues of M s² + v C₁ s + g K₀ + v² K₂ from the published matrices (g = 9.81)."""
    M, C1, K0, K2 = (np.array(PUBLISHED_MATRICES[k]) for k in ("M", "C1", "K0", "K2"))
    K = 9.81 * K0 + v * v * K2
    Minv = np.linalg.inv(M)
    A = np.block([[np.zeros((2, 2)), np.eye(2)], [-Minv @ K, -v * Minv @ C1]])
    return _sorted(np.linalg.eigvals(A))


# --- the model ------------------------------------------------------------------------------------------------------


@dataclass
class WhippleModel:
    """The sympy.physics.mechanics objects of the Whipple bicycle.

    ``q`` = [x, y, ψ, φ, θ, δ, θ_R, θ_F] (dynamicsymbols), ``qd`` their derivatives;
    ``u`` generalised speeds u_i (KanesMethod uses u_i = q̇_i, ``kde``); points and
    frames carry velocities written with q̇ (so the same objects serve the importer);
    ``holonomic`` is h(q) = 0; ``rolling`` the four no-slip constraints (in q̇);
    ``velocity_constraints`` = rolling with ḣ inserted before the front longitudinal one;
    ``loads`` gravity at the mass centres;
    ``potential`` V = −Σ m g (r·N.z) (z down); ``params`` the parameter symbols by name.
    """

    N: ReferenceFrame
    frames: dict
    points: dict
    bodies: list
    q: list
    qd: list
    u: list
    kde: list
    holonomic: sp.Expr
    rolling: list
    velocity_constraints: list
    loads: list
    potential: sp.Expr
    params: dict
    values: dict = field(default_factory=dict)
    symbolic: bool = True

    @property
    def lean(self):
        return self.q[3]

    @property
    def steer(self):
        return self.q[5]


def benchmark_values(params: dict) -> dict:
    """{symbol: exact value} of Table 1 for the parameter symbols ``params`` (by name)."""
    return {params[k]: (v if isinstance(v, sp.Basic) else sp.Rational(v)) for k, v in BENCHMARK.items()}


def model(symbolic_params: bool = True) -> WhippleModel:
    """Build the bicycle; with ``symbolic_params=False`` the Table 1 values are used (exact rationals, λ = π/10)."""
    names = list(BENCHMARK)
    syms = dict(zip(names, sp.symbols(names, real=True)))
    vals = benchmark_values(syms)
    p = syms if symbolic_params else vals_by_name(vals, syms)
    w, c, lam, g = p["w"], p["c"], p["lam"], p["g"]
    rR, rF = p["rR"], p["rF"]

    q = dynamicsymbols("x y psi phi theta delta thetaR thetaF")
    x, y, psi, phi, theta, delta, thR, thF = q
    qd = [qi.diff(_t) for qi in q]
    u = dynamicsymbols("u1:9")
    kde = [qdi - ui for qdi, ui in zip(qd, u)]

    N = ReferenceFrame("N")
    A = N.orientnew("A", "Axis", [psi, N.z])        # yaw
    B = A.orientnew("B", "Axis", [phi, A.x])        # lean (roll)
    C = B.orientnew("C", "Axis", [theta, B.y])      # rear frame (pitch)
    D = C.orientnew("D", "Axis", [lam, C.y])        # D.z = steer axis (down, forward)
    E = D.orientnew("E", "Axis", [delta, D.z])      # front frame (steer)
    R = C.orientnew("R", "Axis", [thR, C.y])        # rear wheel
    F = E.orientnew("F", "Axis", [thF, E.y])        # front wheel

    d1 = (w + c) * sp.cos(lam) - rR * sp.sin(lam)
    d2 = w * sp.sin(lam) + (rR - rF) * sp.cos(lam)
    d3 = rF * sp.sin(lam) - c * sp.cos(lam)

    O = Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", x * N.x + y * N.y)          # rear contact (geometric point on the ground)
    P.set_vel(N, qd[0] * N.x + qd[1] * N.y)
    Ro = P.locatenew("Ro", -rR * B.z)                # rear wheel centre (B.z: towards the contact)
    Ro.v2pt_theory(P, N, B)
    Bo = Ro.locatenew("Bo", p["xB"] * C.x + (p["zB"] + rR) * C.z)    # rear frame + rider mass centre
    Bo.v2pt_theory(Ro, N, C)
    Sa = Ro.locatenew("Sa", d1 * D.x)                # point of the steer axis (fixed in C and E)
    Sa.v2pt_theory(Ro, N, C)
    Fo = Sa.locatenew("Fo", d2 * E.z + d3 * E.x)     # front wheel centre
    Fo.v2pt_theory(Sa, N, E)
    # front frame mass centre: Table 1 gives it relative to the rear contact in the reference configuration
    hx = p["xH"] * sp.cos(lam) - (p["zH"] + rR) * sp.sin(lam) - d1
    hz = p["xH"] * sp.sin(lam) + (p["zH"] + rR) * sp.cos(lam)
    Ho = Sa.locatenew("Ho", hx * E.x + hz * E.z)
    Ho.v2pt_theory(Sa, N, E)

    # contacts: the material points of the wheels touching the ground
    Rc = Ro.locatenew("Rc", rR * B.z)
    Rc.v2pt_theory(Ro, N, R)
    ez = N.z.dot(E.y)
    s = sp.sqrt(1 - ez**2)
    down = (N.z - ez * E.y) / s                      # unit vector in the front wheel plane nearest to N.z
    Fc = Fo.locatenew("Fc", rF * down)
    Fc.v2pt_theory(Fo, N, F)
    holonomic = Fo.pos_from(P).dot(N.z) + rF * s

    # order: KanesMethod's Linearizer LU-solves these (general q) for the dependent speeds ẋ, ẏ, ψ̇, θ̇, θ̇_F in
    # turn; each pivot must not vanish at the upright operating point (ψ̇ from the front lateral slip, θ̇ from ḣ)
    hdot = holonomic.diff(_t)
    rolling = [Rc.vel(N).dot(A.x), Rc.vel(N).dot(A.y), Fc.vel(N).dot(A.y), Fc.vel(N).dot(A.x)]

    # bodies: inertia of the front frame (Table 1 gives it in reference axes) converted to E axes
    IH = inertia(C, p["IHxx"], p["IHyy"], p["IHzz"], 0, 0, p["IHxz"])
    eD = (D.x, D.y, D.z)
    IE = [[eD[i].dot(IH.dot(eD[j])) for j in range(3)] for i in range(3)]
    rear_wheel = RigidBody("rear_wheel", Ro, R, p["mR"], (inertia(C, p["IRxx"], p["IRyy"], p["IRxx"]), Ro))
    rear_frame = RigidBody("rear_frame", Bo, C, p["mB"],
                           (inertia(C, p["IBxx"], p["IByy"], p["IBzz"], 0, 0, p["IBxz"]), Bo))
    front_frame = RigidBody("front_frame", Ho, E, p["mH"],
                            (inertia(E, IE[0][0], IE[1][1], IE[2][2], IE[0][1], IE[1][2], IE[2][0]), Ho))
    front_wheel = RigidBody("front_wheel", Fo, F, p["mF"], (inertia(E, p["IFxx"], p["IFyy"], p["IFxx"]), Fo))
    bodies = [rear_wheel, rear_frame, front_frame, front_wheel]
    loads = [(b.masscenter, b.mass * g * N.z) for b in bodies]
    potential = -sum(b.mass * g * b.masscenter.pos_from(O).dot(N.z) for b in bodies)

    frames = {"N": N, "A": A, "B": B, "C": C, "D": D, "E": E, "R": R, "F": F}
    points = {"O": O, "P": P, "Ro": Ro, "Bo": Bo, "Sa": Sa, "Fo": Fo, "Ho": Ho, "Rc": Rc, "Fc": Fc}
    return WhippleModel(N, frames, points, bodies, list(q), qd, list(u), kde, holonomic, rolling,
                        rolling[:3] + [hdot, rolling[3]], loads, potential, syms, vals, symbolic_params)


def vals_by_name(vals: dict, syms: dict) -> dict:
    return {k: vals[s] for k, s in syms.items()}


# --- KanesMethod ----------------------------------------------------------------------------------------------------

#: independent coordinates/speeds: the pitch θ is dependent (holonomic constraint); the independent speeds are
#: lean rate, steer rate and rear wheel rate (the rolling constraints give ẋ, ẏ, ψ̇, θ̇_F, ḣ = 0 gives θ̇).
_Q_DEP = 4
_U_IND = (3, 5, 6)


def derive(m: WhippleModel | None = None):
    """KanesMethod with u_i = q̇_i: returns (KanesMethod, fr, frstar)."""
    m = m or model()
    qdu = dict(zip(m.qd, m.u))
    u_ind = [m.u[i] for i in _U_IND]
    u_dep = [ui for i, ui in enumerate(m.u) if i not in _U_IND]
    q_ind = [qi for i, qi in enumerate(m.q) if i != _Q_DEP]
    vc = [msubs(f, qdu) for f in m.velocity_constraints]
    km = KanesMethod(m.N, q_ind=q_ind, u_ind=u_ind, kd_eqs=m.kde, q_dependent=[m.q[_Q_DEP]],
                     configuration_constraints=[m.holonomic], u_dependent=u_dep, velocity_constraints=vc,
                     bodies=m.bodies, forcelist=m.loads)
    fr, frstar = km.kanes_equations(m.bodies, m.loads)
    return km, fr, frstar


def operating_point(m: WhippleModel, v, params: dict | None = None) -> list:
    """Upright straight-ahead motion at speed v: all angles 0, ẋ = v, θ̇_R = −v/r_R, θ̇_F = −v/r_F, u̇ = 0.

    The wheel radii take their values from ``params`` when given (and always for a numeric model).
    """
    rR, rF = m.params["rR"], m.params["rF"]
    vals = m.values if not m.symbolic else (params or {})
    rR, rF = vals.get(rR, rR), vals.get(rF, rF)
    qop = {qi: 0 for qi in m.q}
    uop = {ui: 0 for ui in m.u}
    uop[m.u[0]] = v
    uop[m.u[6]] = -v / rR
    uop[m.u[7]] = -v / rF
    udop = {ui.diff(_t): 0 for ui in m.u}
    return [qop, uop, udop]


def linearise(km: KanesMethod, m: WhippleModel, v=None, params: dict | None = None) -> tuple:
    """``KanesMethod.linearize`` about upright straight-ahead motion (the documented implicit route).

    ``v``: the speed (default: a Symbol, so one linearisation serves every speed);
    ``params``: values substituted at the operating point (default: Table 1, exact).
    Returns (M, A, P, states): M [q̇, u̇]ᵀ = A [q, u]ᵀ at the operating point, P the
    Linearizer's permutation matrix; the state-space matrix of x = [q_ind, u_ind] = ``states``
    is Pᵀ M⁻¹ A (``KanesMethod.linearize`` docstring), formed numerically per speed by
    :func:`state_matrix` (``A_and_B=True`` would LU-solve with pivots that vanish at the
    upright point without sympy noticing, and return nan).
    """
    v = sp.Symbol("v", real=True) if v is None else v
    params = (m.values if m.symbolic else {}) if params is None else params
    op = operating_point(m, v, params) + ([params] if params else [])
    lz = km.to_linearizer()
    M, A, _ = lz.linearize(op_point=op, A_and_B=False)
    P = lz.perm_mat
    states = [qi for qi in km.q[: len(km.q) - 1]] + [ui for ui in km.u[: len(_U_IND)]]
    return M, A, P, states


def state_matrix(M: sp.Matrix, A: sp.Matrix, P: sp.Matrix, subs: dict) -> np.ndarray:
    """Pᵀ M⁻¹ A evaluated numerically (30 digits, then float64) after ``subs``."""
    Mn = np.array(M.xreplace(subs).evalf(30), dtype=float)
    An = np.array(A.xreplace(subs).evalf(30), dtype=float)
    return np.array(P, dtype=float).T @ np.linalg.solve(Mn, An)


def lean_steer_block(Ass: np.ndarray, m: WhippleModel, states: list) -> np.ndarray:
    """The 4×4 block of (φ, δ, φ̇, δ̇) of a state-space matrix with states [q_ind, u_ind]."""
    idx = [states.index(m.q[3]), states.index(m.q[5]), states.index(m.u[3]), states.index(m.u[5])]
    return Ass[np.ix_(idx, idx)]


def kane_eigenvalues(lin: tuple, m: WhippleModel, v_sym, speeds) -> dict:
    """{v: sorted lean/steer eigenvalues} from the output of :func:`linearise`."""
    M, A, P, states = lin
    return {v: _sorted(np.linalg.eigvals(lean_steer_block(state_matrix(M, A, P, {v_sym: sp.Integer(v)}), m,
                                                             states)))
            for v in speeds}


def deviations(eigs: dict) -> dict:
    """Max |Δλ| against Table 2 (rows quoted) and against the eigenvalues of the published matrices (all v)."""
    table = max(float(np.max(np.abs(eigs[v] - _sorted(PUBLISHED_EIGENVALUES[v])))) for v in PUBLISHED_EIGENVALUES
                if v in eigs)
    mats = max(float(np.max(np.abs(eigs[v] - eigenvalues_from_published(v)))) for v in eigs)
    return {"table2": table, "published_matrices": mats}


def jetgeo_route(m: WhippleModel, v=None):
    """The import route: ``from_mechanics`` on this model's objects, then jetgeo's ``linearise``.

    Returns (imported model, lean/steer Linearisation, import seconds, linearise seconds).
    The holonomic constraint enters as ḣ among the velocity constraints (the importer takes
    velocity constraints only).  See ``tests/benchmarks/test_whipple_import.py``.
    """
    from jetgeo.io.sympy_import import from_mechanics
    from jetgeo.mechanics import linearise as jg_linearise

    v = sp.Symbol("v", real=True) if v is None else v
    t0 = time.perf_counter()
    imp = from_mechanics(m.q, m.bodies, m.N, loads=m.loads, velocity_constraints=m.velocity_constraints)
    t_import = time.perf_counter() - t0
    Y = imp.Y
    phi, delta = Y.q[3], Y.q[5]
    phid, deltad, thRd = Y.qdot[3], Y.qdot[5], Y.qdot[6]
    rR = m.values[m.params["rR"]]
    point = {**{s: 0 for s in Y.q}, phid: 0, deltad: 0, thRd: -v / rR}
    t0 = time.perf_counter()
    lin = jg_linearise((imp.system, imp.Q), point, params=m.values if m.symbolic else None,
                       route="multipliers", independent=[phid, deltad, thRd])
    r = lin.restrict([phi, delta, phid, deltad])
    return imp, r, t_import, time.perf_counter() - t0


def _median_time(fn, reps: int):
    times, out = [], None
    for _ in range(reps):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times)), times, out


_NATIVE = """
import json, time
t0 = time.perf_counter()
from jetgeo.systems import whipple
t1 = time.perf_counter()
bike = whipple.whipple_bicycle()
t2 = time.perf_counter()
lin = bike.linearise()
t3 = time.perf_counter()
M, C1, K0, K2 = whipple.benchmark_matrices()
print(json.dumps({"import": t1 - t0, "build": t2 - t1, "linearise": t3 - t2}))
"""


def jetgeo_native_timing() -> dict:
    """jetgeo's own bicycle (jetgeo.systems.whipple) in a fresh interpreter: build L and the
    constraints, then the exact linearisation with v and g symbolic (seconds)."""
    import os
    import subprocess

    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    out = subprocess.run([sys.executable, "-c", _NATIVE], capture_output=True, text=True, env=env, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="time derive only (skip the linearisation)")
    ap.add_argument("--reps", type=int, default=1, help="repetitions (medians are reported)")
    ap.add_argument("--output", default=str(RESULTS / "whipple_kane.json"))
    ap.add_argument("--no-jetgeo", action="store_true", help="skip the import route (jetgeo)")
    a = ap.parse_args(argv)
    prov = provenance("python -m benchmarks.whipple_kane " + shlex.join(sys.argv[1:] if argv is None else argv))
    print("\n".join(provenance_lines(prefix="# ", fields=prov)), flush=True)
    result = {"system": "whipple", "tool": "sympy.physics.mechanics.KanesMethod", "sympy": sp.__version__,
              "provenance": prov}
    t_model, _, m = _median_time(model, a.reps)
    result["model_seconds"] = t_model

    def _derive():
        return derive(model())

    t_derive, times, (km, _, _) = _median_time(_derive, a.reps)
    result["derive_seconds"] = t_derive
    result["derive_times"] = times
    print(f"KanesMethod derive (incl. model build): {t_derive:.2f} s  (runs: {', '.join(f'{x:.2f}' for x in times)})")
    if not a.quick:
        def _lin():
            mm = model()
            k, _, _ = derive(mm)
            t0 = time.perf_counter()
            lin = linearise(k, mm)
            return time.perf_counter() - t0, lin, mm

        lin_times = []
        for _ in range(a.reps):
            dt, lin, mm = _lin()
            lin_times.append(dt)
        result["linearise_seconds"] = float(np.median(lin_times))
        result["linearise_times"] = lin_times
        print(f"KanesMethod linearize (Table 1 values and symbolic v at the op point): "
              f"{result['linearise_seconds']:.2f} s")
        eigs = kane_eigenvalues(lin, mm, sp.Symbol("v", real=True), range(11))
        dev = deviations(eigs)
        result["eigenvalues"] = {str(v): [[z.real, z.imag] for z in e] for v, e in eigs.items()}
        result["max_abs_deviation"] = dev
        print(f"max |Δλ| vs Table 2 (v = {sorted(PUBLISHED_EIGENVALUES)}): {dev['table2']:.3e}; "
              f"vs the published M, C1, K0, K2 (v = 0..10): {dev['published_matrices']:.3e}")
    if not a.no_jetgeo:
        runs = [jetgeo_route(model()) for _ in range(a.reps)]
        result["jetgeo_import_seconds"] = float(np.median([x[2] for x in runs]))
        result["jetgeo_linearise_seconds"] = float(np.median([x[3] for x in runs]))
        vs = sp.Symbol("v", real=True)
        r = runs[-1][1]
        jeigs = {v: _sorted(np.linalg.eigvals(np.array(r.A.xreplace({vs: sp.Integer(v)}).evalf(30), dtype=float)))
                 for v in range(11)}
        result["jetgeo_max_abs_deviation"] = deviations(jeigs)
        print(f"jetgeo import (from_mechanics): {result['jetgeo_import_seconds']:.2f} s; linearise (multipliers, "
              f"symbolic v): {result['jetgeo_linearise_seconds']:.2f} s; max |Δλ| vs Table 2 "
              f"{result['jetgeo_max_abs_deviation']['table2']:.3e}, vs the published matrices "
              f"{result['jetgeo_max_abs_deviation']['published_matrices']:.3e}")
    if not a.no_jetgeo:
        nat = [jetgeo_native_timing() for _ in range(a.reps)]
        build = float(np.median([x["build"] for x in nat]))
        lin_t = float(np.median([x["linearise"] for x in nat]))
        result["jetgeo_native_build_seconds"], result["jetgeo_native_linearise_seconds"] = build, lin_t
        line = f"jetgeo native (jetgeo.systems.whipple): build {build:.2f} s + linearise {lin_t:.2f} s"
        if "linearise_seconds" in result:
            kane = result["derive_seconds"] + result["linearise_seconds"]
            result["ratio_native_vs_kane"] = (build + lin_t) / kane
            line += f" = {build + lin_t:.2f} s against KanesMethod's {kane:.1f} s: ratio {(build + lin_t) / kane:.4f}"
        print(line)
    RESULTS.mkdir(exist_ok=True)
    Path(a.output).write_text(json.dumps(result, indent=1))
    print(f"wrote {a.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
