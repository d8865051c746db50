"""The Euler–Lagrange form assembled from the bodies' partial velocities (issue 28, item 2).

``from_mechanics`` hands (g, e) — the mass matrix Σ Jᵀ M J and the q̈-free Euler–Lagrange expressions
[Kane–Levinson 1985] — to the :class:`~jetgeo.LagrangianSystem`; they must equal, as functions, what
differentiating its L gives.  Equality is decided at random exact points (rationals, angles on rational
points of the unit circle: ``jetgeo.testing.checks.vanishes_on_points``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sympy.physics.mechanics import Particle, Point, ReferenceFrame, RigidBody, dynamicsymbols, inertia

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import jetgeo.mechanics.bodies_el as BE  # noqa: E402
from benchmarks import same_bodies as SB  # noqa: E402
from jetgeo import FibredManifold, LagrangianSystem  # noqa: E402
from jetgeo.errors import InputError  # noqa: E402
from jetgeo.io.sympy_import import from_mechanics  # noqa: E402
from jetgeo.mechanics.bodies_el import (  # noqa: E402
    VelocityPart,
    energy_and_euler_lagrange,
    euler_lagrange_of_bodies,
    kinetic_energy_of,
)
from jetgeo.testing.checks import vanishes_on_points  # noqa: E402


def _same_as_from_L(system: LagrangianSystem) -> None:
    """The handed-over (W, e) of ``system`` equal W and e of a fresh system with the same L and forces:
    E_σ = e_σ − W_σν q̈^ν compared, the q̈ free (so every entry of W and e is compared at once)."""
    assert system._el_given
    fresh = LagrangianSystem(system.Y, system.L, system.forces)
    assert not fresh._el_given
    for s, (a, b) in enumerate(zip(system.euler_lagrange(), fresh.euler_lagrange())):
        assert vanishes_on_points(a - b).zero, f"E_{s}"


def test_n_trailer_bodies_el_equals_the_lagrangians():
    """The 4-trailer's frames and rigid bodies (benchmarks/same_bodies.py): E from the partial
    velocities equals E from L; L itself is never differentiated (no momenta, no ring)."""
    system = SB.imported(4).system
    _same_as_from_L(system)
    assert not {"_momenta_dag", "_L_poly", "_momenta_poly"} & set(system.__dict__)


def test_rolling_disc_bodies_el_equals_the_lagrangians():
    """The heavy rolling disc (one rigid body, inertia written in the lean frame, gravity as a load):
    the forces enter e as they enter E from L."""
    N, q, bodies, loads, cons = SB._disc_bodies()
    model = from_mechanics(q, bodies, N, loads=loads, velocity_constraints=cons)
    assert any(a != 0 for a in model.system.forces)
    _same_as_from_L(model.system)


def test_whipple_bodies_el_equals_the_lagrangians():
    """The Whipple bicycle's four rigid bodies of benchmarks/whipple_kane.py (products of inertia, the
    wheels' frames rotating in the frames their inertia is written in)."""
    from benchmarks import whipple_kane as W

    m = W.model()
    model = from_mechanics(m.q, m.bodies, m.N, loads=m.loads, velocity_constraints=m.velocity_constraints)
    _same_as_from_L(model.system)



def test_a_mass_that_depends_on_the_coordinates_is_differentiated_with_the_velocity():
    """−d̄(m w) is taken as (−m)·d̄w only for a mass that is a symbol free of (t, q): a mass that is a
    coordinate (x), a product with a coordinate, a parameter (m) and a number all give the E of L."""
    Y = FibredManifold(["x", "th"])
    (x, th), (xd, thd) = Y.q, Y.qdot
    m = sp.Symbol("m")
    w = (xd + sp.cos(th) * thd, sp.sin(th) * thd)
    for mass in (x, m * th, m, sp.Rational(3, 2)):
        parts = [VelocityPart(w, mass * sp.eye(2)), VelocityPart((xd, thd), m * sp.eye(2), derivative=True)]
        T, el = energy_and_euler_lagrange(Y, parts, potential=m * sp.cos(th))
        _same_as_from_L(LagrangianSystem.mechanical(Y, T, m * sp.cos(th), euler_lagrange=el))

def test_speeds_nonlinear_in_the_velocities_fall_back_to_L():
    """A velocity that is not affine in q̇ has partial velocities depending on q̇: no (g, e) is
    assembled (None) and the system differentiates its L."""
    Y = FibredManifold(["x"])
    xd = Y.qdot[0]
    assert euler_lagrange_of_bodies(Y, [VelocityPart((xd**2,), sp.eye(1))]) is None
    T = kinetic_energy_of(Y, [VelocityPart((xd**2,), sp.eye(1))])
    assert T == xd**4 / 2


def test_bad_parts_and_bad_handed_over_forms_are_refused():
    Y = FibredManifold(["x", "y"])
    xd, yd = Y.qdot
    with pytest.raises(InputError, match="symmetric 2 × 2"):
        euler_lagrange_of_bodies(Y, [VelocityPart((xd, yd), sp.Matrix([[1, 2], [0, 1]]))])
    with pytest.raises(InputError, match="VelocityPart"):
        euler_lagrange_of_bodies(Y, [(xd, yd)])
    with pytest.raises(InputError, match="forces: 2 components"):
        euler_lagrange_of_bodies(Y, [VelocityPart((xd, yd), sp.eye(2))], forces=[1])
    with pytest.raises(InputError, match="a 2 × 2 Hessian and 2 expressions"):
        LagrangianSystem(Y, (xd**2 + yd**2) / 2, euler_lagrange=(sp.eye(3), [0, 0]))
    with pytest.raises(InputError, match="depend on"):
        LagrangianSystem(Y, (xd**2 + yd**2) / 2, euler_lagrange=(sp.eye(2), [Y.qddot[0], 0]))
    with pytest.raises(InputError, match="a pair"):
        LagrangianSystem(Y, (xd**2 + yd**2) / 2, euler_lagrange=sp.eye(2))
    # the jet orders of all the parts are checked in one walk; the wrong part is named
    good = VelocityPart((xd, yd), sp.eye(2))
    with pytest.raises(InputError, match="velocity part 1: w must depend on"):
        euler_lagrange_of_bodies(Y, [good, VelocityPart((xd, Y.qddot[1]), sp.eye(2))])
    with pytest.raises(InputError, match="velocity part 2: w must depend on .* and M on"):
        euler_lagrange_of_bodies(Y, [good, good, VelocityPart((xd, yd), sp.eye(2) * xd)])


_AXES = ("x", "y", "z")


@st.composite
def _bodies_systems(draw):
    """1–2 bodies, each turned about an axis of the previous frame by a coordinate, its mass centre
    offset along a drawn axis and moved by a coordinate; a particle on the last body; rational masses and
    symmetric rational inertias (products of inertia included), written in the body's frame or in the
    frame it turns in."""
    rat = st.fractions(min_value=-3, max_value=3, max_denominator=4).map(sp.Rational)
    pos = st.fractions(min_value=sp.Rational(1, 4), max_value=3, max_denominator=4).map(sp.Rational)
    n = draw(st.integers(1, 2))
    angles = list(dynamicsymbols(f"a1:{n + 1}"))
    slides = list(dynamicsymbols(f"s1:{n + 1}"))
    N = ReferenceFrame("N")
    O = Point("O")
    O.set_vel(N, 0)
    prev_frame, prev_point, bodies = N, O, []
    for k in range(n):
        axis = getattr(prev_frame, draw(st.sampled_from(_AXES)))
        B = prev_frame.orientnew(f"B{k}", "Axis", (angles[k], axis))
        G = prev_point.locatenew(f"G{k}", slides[k] * getattr(B, draw(st.sampled_from(_AXES)))
                                 + draw(rat) * B.x + draw(rat) * B.y)
        G.set_vel(N, G.pos_from(O).dt(N))
        ixx, iyy, izz = draw(pos), draw(pos), draw(pos)
        ixy, iyz, izx = draw(rat) / 8, draw(rat) / 8, draw(rat) / 8
        inertia_frame = B if draw(st.booleans()) else prev_frame
        bodies.append(RigidBody(f"b{k}", G, B, draw(pos), (inertia(inertia_frame, ixx, iyy, izz, ixy, iyz, izx), G)))
        prev_frame, prev_point = B, G
    P = prev_point.locatenew("P", draw(rat) * prev_frame.z + sp.Rational(1, 2) * prev_frame.y)
    P.set_vel(N, P.pos_from(O).dt(N))
    bodies.append(Particle("p", P, draw(pos)))
    g = sp.Rational(981, 100)
    loads = [(b.masscenter, -b.mass * g * N.z) for b in bodies]
    return [*angles, *slides], bodies, N, loads


@settings(max_examples=12)  # the suite's profile otherwise (derandomized)
@given(_bodies_systems())
def test_random_bodies_systems_el_equals_the_lagrangians(data):
    """Random small systems of rigid bodies and a particle (hypothesis, the suite's deterministic
    profile): E from the partial velocities equals E from L at random exact points."""
    q, bodies, N, loads = data
    model = from_mechanics(q, bodies, N, loads=loads)
    _same_as_from_L(model.system)


def test_energy_and_euler_lagrange_checks_the_parts_once(monkeypatch):
    """``from_mechanics`` needs T and (g, e) of the same parts: one check of the parts (each check
    copies every M and walks every w), the same T and (g, e) as the two functions give."""
    Y = FibredManifold(["x", "th"])
    th, (xd, thd) = Y.q[1], Y.qdot
    parts = [VelocityPart((xd + sp.cos(th) * thd, sp.sin(th) * thd), sp.eye(2), derivative=True),
             VelocityPart((thd,), sp.Matrix([[2 + sp.sin(th)]]))]
    T0, (g0, e0) = kinetic_energy_of(Y, parts), euler_lagrange_of_bodies(Y, parts, potential=-sp.cos(th))
    calls = []
    checked = BE._checked
    monkeypatch.setattr(BE, "_checked", lambda *a: calls.append(1) or checked(*a))
    T, (g, e) = energy_and_euler_lagrange(Y, parts, potential=-sp.cos(th))
    assert len(calls) == 1
    assert T == T0 and g == g0 and e == e0
    with pytest.raises(InputError, match="potential"):
        energy_and_euler_lagrange(Y, parts, potential=thd)


def test_velocity_gradient_is_diff_dag_velocity_by_velocity(monkeypatch):
    """The partial velocities J = ∂w/∂q̇ of every part come from one walk per component
    (``gradient_dag``): the very expressions ``diff_dag`` gives velocity by velocity (so g and e
    are unchanged), zeros left out; on the 4-trailer's and the rolling disc's parts, and on powers,
    functions of velocities and a node sympy differentiates itself."""
    from jetgeo.geometry.exact import diff_dag, gradient_dag
    from jetgeo.io import sympy_import as SI

    cases = []
    combined = BE.energy_and_euler_lagrange

    def capture(Y, parts, *a):
        cases.append((Y, [c for part in parts for c in part.w]))
        return combined(Y, parts, *a)

    monkeypatch.setattr(SI, "energy_and_euler_lagrange", capture)
    SB.imported(4)
    SB.disc("TQ")
    assert len(cases) == 2
    Y = FibredManifold(["x", "th"])
    (x, th), (xd, thd) = Y.q, Y.qdot
    cases.append((Y, [xd**2 * sp.sin(thd * x), sp.exp(th) * (xd + x) ** -2, x**xd,
                      sp.Derivative(sp.Function("u")(xd), xd), sp.Integer(3), thd]))
    for Y_, exprs in cases:
        memo: dict = {}
        vel = frozenset(Y_.qdot)
        for c in exprs:
            grad = gradient_dag(c, vel, memo)
            for v in Y_.qdot:
                d = diff_dag(c, v)
                assert grad.get(v, sp.S.Zero) == d
                assert (v in grad) == (d != 0)
