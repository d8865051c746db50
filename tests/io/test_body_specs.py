"""Spec files with a [body] table (jetgeo.io.bodies): rigid bodies in their body-frame angular velocity.

Independent truths: Suslov's equations derived by hand from I Ω̇ = I Ω × Ω + λ e₃ [Bloch 2003]; the same
bodies built with the Python helpers (jetgeo.mechanics.rigid); the quaternion chart against the Euler
chart; every malformed table refused with a SpecError naming the file, table and key.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import sympy as sp

from jetgeo import FibredManifold
from jetgeo.errors import SpecError
from jetgeo.geometry import is_zero
from jetgeo.io import load_spec, loads_spec
from jetgeo.mechanics.rigid import ContactSurface, ellipsoid_support, rolling_contact

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

SUSLOV = """
[parameters]
I1 = "positive"
I2 = "positive"
I3 = "positive"
I13 = "real"
I23 = "real"

[body]
chart = "{chart}"
angles = {angles}
omega = ["w1", "w2", "w3"]
inertia = [["I1", 0, "I13"], [0, "I2", "I23"], ["I13", "I23", "I3"]]
constraints = ["w3"]
"""


def test_suslov_spec_gives_the_hand_derived_euler_suslov_equations():
    """I Ω̇ = I Ω × Ω + λ e₃, ⟨Ω, e₃⟩ = 0: Ω̇₁ = −Ω₂(I₁₃Ω₁ + I₂₃Ω₂)/I₁, Ω̇₂ = Ω₁(I₁₃Ω₁ + I₂₃Ω₂)/I₂
    [Bloch 2003]; in an Euler chart and in quaternions alike."""
    for chart, angles in (("ZXZ", '["phi", "theta", "psi"]'), ("quaternion", '["q0", "q1", "q2", "q3"]')):
        spec = loads_spec(SUSLOV.format(chart=chart, angles=angles), source="suslov.toml")
        S = spec.quasi
        I1, I2, I13, I23 = (spec.symbol(n) for n in ("I1", "I2", "I13", "I23"))
        w1, w2 = S.frame.v[:2]
        acc = S.accelerations()
        k = I13 * w1 + I23 * w2
        assert is_zero(acc[S.frame.vdot[0]] - (-w2 * k / I1))
        assert is_zero(acc[S.frame.vdot[1]] - (w1 * k / I2))
        assert acc[S.frame.vdot[2]] == 0
        assert spec.Q is not None and spec.system.Y is spec.Y  # the coordinate route is there too


def test_example_ball_in_cylinder_is_the_python_helper():
    spec = load_spec(EXAMPLES / "ball_in_cylinder.toml")
    m, r, R, g = (spec.symbol(n) for n in ("m", "r", "R", "g"))
    Y = FibredManifold(["phi", "theta", "psi", "alpha", "z"])
    S = rolling_contact(Y, "ZXZ", ["w1", "w2", "w3", "va", "vz"], ellipsoid_support(r, r, r), m,
                        sp.eye(3) * 2 * m * r**2 / 5, ContactSurface("cylinder", R, inside=True), gravity=g)
    assert spec.quasi.ell == S.ell and spec.quasi.phi == S.phi and spec.quasi.dependent == S.dependent
    # the initial data are on the constraint set, the dependent rates completed
    state = spec.initial_state()
    assert set(state) == {spec.Y.t, *spec.Y.q, *spec.Y.qdot}


def test_example_rattleback_loads_with_its_rolling_constraints():
    spec = load_spec(EXAMPLES / "rattleback.toml")
    S = spec.quasi
    assert [str(v) for v in S.dependent] == ["u", "v"] and S.k == 2
    assert spec.params[spec.symbol("a")] == sp.Rational(1, 5)


BALL = """
[parameters]
m = "positive"
r = "positive"

[body]
chart = "ZXZ"
angles = ["phi", "theta", "psi"]
omega = ["w1", "w2", "w3"]
mass = "m"
inertia = ["2*m*r**2/5", "2*m*r**2/5", "2*m*r**2/5"]
{extra}

[body.shape]
{shape}

[body.contact]
{contact}
position = ["x", "y"]
speeds = ["u", "v"]

[values]
m = {mass}
r = 1
"""


def _ball(extra="", shape='sphere = "r"', contact='surface = "plane"', mass="1"):
    return BALL.format(extra=extra, shape=shape, contact=contact, mass=mass)


@pytest.mark.parametrize("text, where, match", [
    (_ball().replace('"ZXZ"', '"ZZZ"'), "[body] chart", "must be one of"),
    (_ball().replace('["phi", "theta", "psi"]', '["phi", "theta"]'), "[body] angles", "list of 3 names"),
    (_ball(extra='colour = "red"'), "[body] colour", "unknown key"),
    (_ball(shape="ellipsoid = [1, 2]"), "[body.shape] ellipsoid", "list of 3 expressions"),
    (_ball(shape='sphere = "r"\nellipsoid = [1, 1, 1]'), "[body.shape]", "exactly one"),
    (_ball(contact='surface = "cone"'), "[body.contact] surface", "must be one of"),
    (_ball(contact='surface = "plane"\nradius = 2'), "[body.contact] surface", "takes no radius"),
    (_ball(contact='surface = "sphere"\nradius = -2'), "radius", "positive"),
    (_ball(contact='surface = "sphere"\ninside = "yes"\nradius = 2'), "[body.contact] inside", "true or false"),
    (_ball(mass="-1"), "[values] m", "contradicts the assumptions"),
    (_ball(extra='constraints = ["phidot"]'), "[body] constraints[0]", "quasi-velocities"),
    (_ball(extra='constraints = ["w1", "w2", "w3"]'), "[body] constraints", "at most 2"),
    (_ball().replace('omega = ["w1", "w2", "w3"]', 'omega = ["w1", "w2", "phi"]'), "[body]", "given twice"),
    (_ball().replace('speeds = ["u", "v"]', 'speeds = ["u", "x"]'), "[body]", "given twice"),
    (_ball() + "\n[lagrangian]\nL = 0\n", "lagrangian", "remove this table"),
    (_ball().replace('mass = "m"\n', ""), "[body] mass", "missing"),
    (_ball().replace("[body.shape]\n", "[body.other]\n"), "[body] other", "unknown key"),
    (_ball().replace('inertia = ["2*m*r**2/5", "2*m*r**2/5", "2*m*r**2/5"]', 'inertia = [1, 2]'),
     "[body] inertia", "principal moments"),
    (_ball().replace('inertia = ["2*m*r**2/5", "2*m*r**2/5", "2*m*r**2/5"]',
                     'inertia = [[1, 2, 0], [0, 1, 0], [0, 0, 1]]'), "[body] inertia", "symmetric"),
    (_ball().replace('inertia = ["2*m*r**2/5", "2*m*r**2/5", "2*m*r**2/5"]', 'inertia = [1, -2, 1]'),
     "inertia", "positive definite"),
    (_ball().replace('m = "positive"', 'm = "positive"\nk = "positive"'), "[parameters] k", "used in no expression"),
    (_ball() + "\n[initial]\nphi = 0\ntheta = 1\npsi = 0\nx = 0\ny = 0\nw1 = 1\nw2 = 0\nu = 1\n",
     "[initial] u", "dependent"),
    (_ball() + "\n[initial]\nphi = 0\n", "[initial]", "no initial value"),
    (_ball(shape='quadric = "x1**2 - x2**2 + x3**2 - 1"'), "", "not an ellipsoid"),
])
def test_bad_body_tables_are_named(text, where, match):
    with pytest.raises(SpecError, match=match) as exc:
        loads_spec(text, source="ball.toml")
    assert str(exc.value).startswith("ball.toml")
    assert where in str(exc.value)


def test_a_ball_too_large_for_its_bowl_is_refused():
    with pytest.raises(SpecError, match="does not fit"):
        loads_spec(_ball(contact='surface = "sphere"\ninside = true\nradius = "1/2"'), source="ball.toml")
