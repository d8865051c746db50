"""Importer from sympy.physics.mechanics models (jetgeo.io.sympy_import).

Round trip of the sympy documentation's rolling disc (Euler angles, no-slip contact; the
``heavy_disc`` benchmark model, gravity given as a *load*, not a potential): the imported
system's accelerations on Q equal those of LagrangesMethod and KanesMethod (numeric solves of
their mass matrix and forcing, an independent method) at random points of Q.  Loads: a torque
on a frame becomes the generalised force of the partial angular velocities.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import sympy as sp
from sympy.physics.mechanics import (
    Particle,
    Point,
    ReferenceFrame,
    RigidBody,
    Vector,
    dynamicsymbols,
    inertia,
    kinetic_energy,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import jetgeo.mechanics.tq as tq  # noqa: E402
from benchmarks import same_bodies as SB  # noqa: E402
from benchmarks import systems as S  # noqa: E402
from jetgeo import ConstraintSubmanifold, FibredManifold, LagrangianSystem  # noqa: E402
from jetgeo.errors import InputError  # noqa: E402
from jetgeo.io import sympy_import as SI  # noqa: E402
from jetgeo.io.sympy_import import from_mechanics  # noqa: E402
from jetgeo.mechanics import accelerations_on_TQ  # noqa: E402
from jetgeo.systems import load  # noqa: E402
from jetgeo.testing.checks import vanishes_on_points  # noqa: E402


def test_rolling_disc_round_trip_matches_kane_and_lagrange():
    model = S.build("heavy_disc")
    imp = from_mechanics(model.q, model.bodies, model.N, loads=model.loads,
                         velocity_constraints=model.constraints)
    system, Q = imp
    Y = imp.Y
    assert [s.name for s in Y.q] == ["psi", "th", "ph", "x", "y"]
    g_sym = [p for p in model.params if p.name == "g"][0]
    assert imp.forces[1] != 0 and all(f.has(g_sym) or f == 0 for f in imp.forces)  # gravity only on the lean
    cs = system.constrain(Q)
    # reduced equations A′ + B′ q̈^I = 0 [Stolařová 2009, eq. (8)], solved numerically below
    A, B = cs.reduced_coefficients()
    ind = [Y.qdot.index(v) for v in cs.independent]
    lm, _, _, _ = S.lagrange_derive(model, explicit=False)
    km, _, _, _ = S.kane_derive(model, [Y.qdot.index(d) for d in cs.dependent], explicit=False)
    rng = np.random.default_rng(17)
    for _ in range(2):
        pt = S.random_state(model, Y, cs.nf, rng)
        mine = np.linalg.solve(np.array(B.xreplace(pt), dtype=float), -np.array(A.xreplace(pt), dtype=float)).ravel()
        np.testing.assert_allclose(mine, S.lagrange_numeric(lm, model, Y, pt)[ind], rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(mine, S.kane_numeric(km, model, Y, pt)[ind], rtol=1e-9, atol=1e-9)


def test_torque_load_is_the_generalised_force():
    th, x, y = dynamicsymbols("th x y")
    m, Ii, c = sp.symbols("m I c", positive=True)
    N = ReferenceFrame("N")
    B = N.orientnew("B", "Axis", [th, N.z])
    O = Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", x * N.x + y * N.y)
    P.set_vel(N, x.diff() * N.x + y.diff() * N.y)
    body = RigidBody("b", P, B, m, (inertia(B, 0, 0, Ii), P))
    drag = (P, -c * (x.diff() * N.x + y.diff() * N.y))
    spin = (B, -c * th.diff() * N.z)
    imp = from_mechanics([th, x, y], [body], N, loads=[drag, spin],
                         velocity_constraints=[-sp.sin(th) * x.diff() + sp.cos(th) * y.diff()])
    Y = imp.Y
    thd, xd, yd = Y.qdot
    assert [sp.expand(f) for f in imp.forces] == [-c * thd, -c * xd, -c * yd]
    # the same system typed by hand gives the same accelerations
    hand = LagrangianSystem(Y, m / 2 * (xd**2 + yd**2) + Ii / 2 * thd**2, forces=[-c * thd, -c * xd, -c * yd])
    Qh = ConstraintSubmanifold(Y, [-sp.sin(Y.q[0]) * xd + sp.cos(Y.q[0]) * yd])
    a1, a2 = imp.constrain().accelerations(), hand.constrain(Qh).accelerations()
    assert all(sp.cancel(a1[k] - a2[k]) == 0 for k in Y.qddot)


def test_unknown_time_functions_and_bad_input_are_reported():
    x, u = dynamicsymbols("x u")
    N = ReferenceFrame("N")
    O = Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", x * N.x)
    P.set_vel(N, u * N.x)  # an auxiliary speed u(t) the importer cannot translate
    with pytest.raises(InputError, match=r"not coordinates: \['u\(t\)'\]"):
        from_mechanics([x], [Particle("p", P, 1)], N)
    with pytest.raises(InputError, match="dynamicsymbols"):
        from_mechanics([sp.Symbol("x")], [], N)
    P.set_vel(N, x.diff() * N.x)
    with pytest.raises(InputError, match="no velocity constraints"):
        from_mechanics([x], [Particle("p", P, 1)], N).constrain()
    assert isinstance(from_mechanics([x], [Particle("p", P, 1)], N).Y, FibredManifold)


def test_rolling_embedded_in_the_kinematics_is_refused():
    """The sympy documentation's rolling disc for KanesMethod sets the contact point's velocity
    to zero and the centre's by v2pt_theory from it: the rolling constraint is inside the
    kinematics, and its kinetic energy is not that of the free disc (a Lagrangian built from
    it gives wrong equations).  The importer refuses it, naming the point; the same disc with
    its centre located from a fixed origin and the rolling as velocity constraints is accepted
    (test_rolling_disc_round_trip_matches_kane_and_lagrange)."""
    q1, q2, q3 = dynamicsymbols("q1 q2 q3")
    r, m, g = sp.symbols("r m g", positive=True)
    N = ReferenceFrame("N")
    Yf = N.orientnew("Y", "Axis", [q1, N.z])
    L = Yf.orientnew("L", "Axis", [q2, Yf.x])
    R = L.orientnew("R", "Axis", [q3, L.y])
    C = Point("C")
    C.set_vel(N, 0)                      # the contact point "at rest": rolling without slipping
    Dmc = C.locatenew("Dmc", r * L.z)
    Dmc.v2pt_theory(C, N, R)             # v = ω_R × r L.z: the rolling constraint, embedded
    disc = RigidBody("disc", Dmc, R, m, (inertia(L, m / 4 * r**2, m / 2 * r**2, m / 4 * r**2), Dmc))
    with pytest.raises(InputError, match="Dmc.*not the time derivative of its position from C"):
        from_mechanics([q1, q2, q3], [disc], N, loads=[(Dmc, -m * g * Yf.z)])


def _planar_body_in_body_speeds():
    """A planar rigid body (skate) written the KanesMethod way: body-frame speeds u1, u2 and
    spin u3, velocities given in the speeds, kd_eqs linking them to the coordinates."""
    th, x, y = dynamicsymbols("th x y")
    u1, u2, u3 = dynamicsymbols("u1 u2 u3")
    m, Ii, c = sp.symbols("m I c", positive=True)
    N = ReferenceFrame("N")
    B = N.orientnew("B", "Axis", [th, N.z])
    B.set_ang_vel(N, u3 * N.z)
    O = Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", x * N.x + y * N.y)
    P.set_vel(N, u1 * B.x + u2 * B.y)
    body = RigidBody("b", P, B, m, (inertia(B, 0, 0, Ii), P))
    kd = [u1 - (sp.cos(th) * x.diff() + sp.sin(th) * y.diff()),
          u2 - (-sp.sin(th) * x.diff() + sp.cos(th) * y.diff()), u3 - th.diff()]
    return (th, x, y), (u1, u2, u3), (m, Ii, c), N, B, P, body, kd


def test_auxiliary_speeds_by_kinematic_equations():
    """kd_eqs solved for the speeds and substituted: the skate written in body-frame speeds,
    with its knife edge u2 = 0 and a drag −c u1 along the blade, gives the accelerations of the
    same system typed by hand in (x, y, θ) (compared symbolically)."""
    (th, x, y), (u1, u2, u3), (m, Ii, c), N, B, P, body, kd = _planar_body_in_body_speeds()
    imp = from_mechanics([th, x, y], [body], N, loads=[(P, -c * u1 * B.x)], velocity_constraints=[u2],
                         kinematic_equations=kd)
    Y = imp.Y
    t_, x_, y_ = Y.q
    thd, xd, yd = Y.qdot
    assert sp.simplify(imp.speeds[u2] - (-sp.sin(t_) * xd + sp.cos(t_) * yd)) == 0
    u1_ = sp.cos(t_) * xd + sp.sin(t_) * yd
    hand = LagrangianSystem(Y, m / 2 * (xd**2 + yd**2) + Ii / 2 * thd**2,
                            forces=[0, -c * u1_ * sp.cos(t_), -c * u1_ * sp.sin(t_)])
    Qh = ConstraintSubmanifold(Y, [-sp.sin(t_) * xd + sp.cos(t_) * yd])
    a1, a2 = imp.constrain().accelerations(), hand.constrain(Qh).accelerations()
    assert all(sp.simplify(a1[k] - a2[k]) == 0 for k in Y.qddot)


def test_kinematic_equations_that_cannot_define_the_speeds_are_reported():
    (th, x, y), (u1, u2, u3), _, N, B, P, body, kd = _planar_body_in_body_speeds()
    with pytest.raises(InputError, match="4 equations for the 3 speeds"):
        from_mechanics([th, x, y], [body], N, kinematic_equations=[*kd, u1 - u2])
    with pytest.raises(InputError, match="linear in the speeds"):
        from_mechanics([th, x, y], [body], N, kinematic_equations=[kd[0], kd[1], u3**2 - th.diff()])
    with pytest.raises(InputError, match="cannot be solved"):
        from_mechanics([th, x, y], [body], N,
                       kinematic_equations=[u1 + u2 - x.diff(), 2 * u1 + 2 * u2 - y.diff(), u3 - th.diff()])
    with pytest.raises(InputError, match=r"not coordinates: \['u3\(t\)'\]"):   # u3 left without its equation
        from_mechanics([th, x, y], [body], N, kinematic_equations=kd[:2])


def test_bodies_lagrangian_is_differentiated_on_its_dag():
    """The 4-trailer's L from its rigid bodies (the 8-trailer's expansion has 15 835 terms, issue 28) is
    never expanded into the polynomial ring: the Hessian and e_σ = ∂L/∂q^σ − d̄/dt ∂L/∂q̇^σ come from
    the bodies' partial velocities (jetgeo.mechanics.bodies_el) and equal sympy's derivatives of L at a
    rational point."""
    from benchmarks import same_bodies as SB

    system = SB.imported(4).system
    Y, L = system.Y, system.L
    e = system.euler_lagrange_without_accelerations()
    W = system.hessian()
    assert "_L_poly" not in system.__dict__ and "_momenta_poly" not in system.__dict__
    rng = np.random.default_rng(11)
    pt = {s: sp.Rational(int(rng.integers(1, 90)), 37) for s in L.free_symbols | {Y.t}}

    def value(x):
        # each function atom (sin, cos of an angle) evaluated once, at 60 digits, then the tree in Float
        # arithmetic: sympy's N of the substituted tree evaluates cos(37/90) at each of its thousands of
        # occurrences (12 s of the test's 12.5 s)
        rep = {a: sp.N(a.xreplace(pt), 60) for a in x.atoms(sp.Function)}
        return sp.N(x.xreplace(rep).xreplace(pt), 40)

    for s, (q, v) in enumerate(zip(Y.q, Y.qdot)):
        p = sp.diff(L, v)
        want = sp.diff(L, q) - sp.diff(p, Y.t) - sp.Add(*[sp.diff(p, c) * cd for c, cd in zip(Y.q, Y.qdot)])
        assert abs(value(e[s] - want)) < 1e-30
        for j, w in enumerate(Y.qdot):
            assert abs(value(W[s, j] - sp.diff(p, w))) < 1e-30


def test_velocity_check_differentiates_in_jet_coordinates_not_sympy_vectors(monkeypatch):
    """The velocity check of a chain of bodies (the 4-trailer's frames and rigid bodies) compares the
    velocity's components w with d̄r of the position's, both in jet coordinates, by exact values in
    F_p: sympy's frame-aware ``Vector.dt`` of the positions (0.36 of the 0.46 s the 6-trailer's check
    took) is never called, and the model is accepted with every mass centre's velocity marked as the
    derivative of its position."""
    from sympy.physics.vector import Vector

    N, q, _, bodies, cons = SB.chain(4, kane=False)
    calls = []
    real_dt = Vector.dt

    def counting_dt(self, frame):
        calls.append(frame)
        return real_dt(self, frame)

    monkeypatch.setattr(Vector, "dt", counting_dt)
    model = from_mechanics(q, bodies, N, velocity_constraints=cons)
    assert calls == []
    Y = model.Y
    t = dynamicsymbols._t
    rep = {}
    for c, s0, s1 in zip(q, Y.q, Y.qdot):
        rep.update({c.diff(t): s1, c: s0})
    jet = SI._ToJets(rep, {})
    parts, translations = SI._velocity_parts(bodies, N, jet)
    assert SI._check_velocities(Y, translations, N, jet) == {k for k, *_ in translations}


def test_velocity_check_accepts_components_that_cancel_between_frames():
    """A velocity written in the body frame, v = ẋ cos θ B.x − ẋ sin θ B.y, is the derivative ẋ N.x of
    the position x N.x although neither frame's measure numbers vanish on their own: the check then
    decides along the inertial axes and accepts it; a wrong one is still refused."""
    th, x = dynamicsymbols("th x")
    m = sp.Symbol("m", positive=True)
    N = ReferenceFrame("N")
    B = N.orientnew("B", "Axis", [th, N.z])
    O = Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", x * N.x)
    P.set_vel(N, x.diff() * sp.cos(th) * B.x - x.diff() * sp.sin(th) * B.y)
    model = from_mechanics([th, x], [Particle("p", P, m)], N)
    assert sp.simplify(model.T - m * model.Y.qdot[1] ** 2 / 2) == 0
    P.set_vel(N, x.diff() * B.x)
    with pytest.raises(InputError, match="not the time derivative of its position from O"):
        from_mechanics([th, x], [Particle("p", P, m)], N)


def test_translation_is_sympys_energy_and_constraints_in_jet_coordinates():
    """The conversion to jet coordinates (derivatives of q(t) built unevaluated, substituted on the DAG
    with one memo for every expression) gives what sympy's own ``kinetic_energy`` and the constraints
    become under the plain map {q(t).diff(t, 2): q̈, q(t).diff(t): q̇, q(t): q, t: t} with ``xreplace``:
    equal at random exact points, and the constraints the very same expressions."""
    N, q, _, bodies, cons = SB.chain(3, kane=False)
    imp = from_mechanics(q, bodies, N, velocity_constraints=cons)
    t = dynamicsymbols._t
    Y = imp.Y
    old = {t: Y.t}
    for c, s0, s1, s2 in zip(q, Y.q, Y.qdot, Y.qddot):
        old.update({c.diff(t, 2): s2, c.diff(t): s1, c: s0})
    T = kinetic_energy(N, *bodies).xreplace(old)
    assert not T.atoms(sp.core.function.AppliedUndef)
    assert vanishes_on_points(imp.T - T).zero
    assert list(imp.Q.f) == [f.xreplace(old) for f in cons]


def test_accepted_velocity_check_builds_no_derivative(monkeypatch):
    """The 4-trailer's velocities are shown to be the derivatives of the positions by their values in
    F_p (w and d̄r, d̄r by forward differentiation): no symbolic derivative is built on the way;
    the refusal of a wrong velocity still builds it and names the difference."""
    built = []
    real = SI.diff_dag

    def counting(*args, **kw):
        built.append(args[0])
        return real(*args, **kw)

    monkeypatch.setattr(SI, "diff_dag", counting)
    N, q, _, bodies, cons = SB.chain(4, kane=False)
    model = from_mechanics(q, bodies, N, velocity_constraints=cons)
    assert model.system._el_given
    assert built == []  # the Euler–Lagrange form differentiates in bodies_el, not here
    th, x = dynamicsymbols("th x")
    N = ReferenceFrame("N")
    B = N.orientnew("B", "Axis", [th, N.z])
    O = Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", x * B.x)
    P.set_vel(N, x.diff() * B.x)  # the rotation's part x θ̇ B.y is missing
    with pytest.raises(InputError, match="not the time derivative of its position from O"):
        from_mechanics([th, x], [Particle("p", P, 1)], N)
    assert built


def test_same_bodies_split_times_every_piece():
    """benchmarks/same_bodies.py's ``split`` (the floor of the same-bodies ratios): every piece timed,
    Kane's cell containing its chain."""
    parts = SB.split(2, repeats=1)
    assert set(parts) == {"chain", "from_mechanics", "TQ route", "acc route", "Kane chain", "Kane"}
    assert all(v > 0 for v in parts.values())
    assert parts["Kane"] > parts["Kane chain"]


def test_import_and_tq_route_build_no_polynomial_ring_for_the_constraints(call_log):
    """From the 4-trailer's bodies to its TQ accelerations, and on the catalogue's 8-trailer and
    Whipple bicycle, the constraints' Jacobian and d̄f are taken on their DAG: ``polys_of`` (the ring's
    conversion and monomial code generation) never runs, and every d̄f^i comes from ``diff_dag`` — while
    the DAG Jacobian is the ring's (the zero test on every entry) and the accelerations are Kane's
    (test_routes.py::test_same_bodies_give_kane_accelerations)."""
    from jetgeo.geometry.zero import is_zero
    from jetgeo.mechanics import constraints as C

    rings = call_log(C, "polys_of")
    derivatives = call_log(tq, "diff_dag")
    model = SB.imported(4)
    accelerations_on_TQ(model.system, model.Q)
    assert rings == []
    assert [args[0] for args in derivatives] == list(model.Q.f)
    for name, kw in (("n_trailer", {"n": 8}), ("whipple_bicycle", {})):
        entry = load(name, **kw)
        derivatives.clear()
        accelerations_on_TQ(entry.system, entry.Q)
        assert rings == [] and len(derivatives) == entry.Q.k
    Q = model.Q
    assert all(is_zero(a - b) for a, b in zip(Q._jacobian_dag, Q._jacobian))
    assert len(rings) == 1  # the expanded Jacobian: built only when asked for


def test_angular_velocity_from_the_path_is_sympys_ang_vel_in():
    """A frame's angular velocity is read off the path of frames with angular velocities set, the
    measure numbers of each frame summed: the Vector sympy's ``ang_vel_in`` builds step by step (equal
    Vectors: the same measure numbers in the same frames), on the 5-trailer's chain (relative
    rotations about one axis), the rolling disc's three successive rotations, a body-fixed orientation
    with an angular velocity set by hand, and the frame itself; no path is a ValueError as sympy's."""
    N, q, _, bodies, _ = SB.chain(5, kane=False)
    frames = [b.frame for b in bodies]
    Nd, _, disc_bodies, _, _ = SB._disc_bodies()
    th, ph, u = dynamicsymbols("th_a ph_a u_a")
    A = ReferenceFrame("A")
    B = A.orientnew("B", "Body", (th, ph, 0), "123")
    C = B.orientnew("C", "Axis", (ph, B.x))
    C.set_ang_vel(B, u * B.x + ph.diff() * B.y)
    cases = [(F, N) for F in frames] + [(disc_bodies[0].frame, Nd), (C, A), (B, A), (A, C), (A, A)]
    for F, frame in cases:
        assert Vector([(sp.Matrix(m), X) for m, X in SI._angular_velocity(F, frame).args]) == F.ang_vel_in(frame)
    with pytest.raises(ValueError):
        SI._angular_velocity(ReferenceFrame("lonely"), N)


def test_inertia_matrix_entry_by_entry_is_the_dyadics_symmetric_part(monkeypatch):
    """A central inertia written in one frame is read off the dyadic entry by entry — no sympy matrix
    product or scalar multiple (each asks about the products with zeros) — and is the symmetric part of
    sympy's ``to_matrix`` in that frame, entry for entry the same expression; a dyadic over two frames is
    written in the body's frame."""
    from sympy.matrices.repmatrix import RepMatrix

    a, b, c, d, th = sp.symbols("a b c d theta")
    N = ReferenceFrame("N")
    B = N.orientnew("B", "Axis", (th, N.z))
    one_frame = [inertia(B, 0, 0, c), inertia(N, a, b, c, d, 0, a), inertia(N, a, b, c) + d * N.x.outer(N.y),
                 inertia(B, a + b, a * b, c, d, sp.sin(th), 0)]
    expected = []
    for dy in one_frame:
        M = dy.to_matrix(dy.args[0][1].args[0][1])
        expected.append((M + M.T) / 2)
    monkeypatch.setattr(RepMatrix, "_eval_matrix_mul", lambda *a: pytest.fail("a matrix product"))
    monkeypatch.setattr(RepMatrix, "_eval_scalar_mul", lambda *a: pytest.fail("a scalar multiple"))
    for dy, M in zip(one_frame, expected):
        F, got = SI._inertia_matrix(dy, B)
        assert F is dy.args[0][1].args[0][1]
        assert got == M and got == got.T
    monkeypatch.undo()
    mixed = inertia(B, a, b, c) + d * N.x.outer(B.y)
    F, got = SI._inertia_matrix(mixed, B)
    M = mixed.to_matrix(B)
    assert F is B and got == (M + M.T) / 2
