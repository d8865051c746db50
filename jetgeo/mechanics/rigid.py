r"""A rigid body's orientation charts and its body-frame angular velocity as quasi-velocities.

The kinematics come from ``sympy.physics.mechanics`` (the kinematics engine; no frame algebra is
re-implemented here): a :class:`~sympy.physics.vector.ReferenceFrame` oriented by a body-fixed
sequence of three rotations (any of the twelve Euler/Tait–Bryan sequences, ``"ZXZ"``,
``"XYZ"``, …), its angular velocity Ω in the body's own axes, written in the Euler-angle rates
of the fibred manifold Y: Ω = Φ(q) q̇.  The result is a
:class:`~jetgeo.mechanics.quasi.QuasiVelocities` frame, whose fields X_α are the left-invariant
fields of SO(3) read in the chart, [X_α, X_β] = ε_{αβγ} X_γ for every sequence (tested).  Hamel's
equations in this frame are Euler's equations, and with a constraint in Ω the
Euler–Poincaré–Suslov equations [Bloch 2003].

The chart is singular where det Φ = 0 (the gimbal lock of the sequence: sin θ = 0 for a proper
Euler sequence such as ZXZ, cos θ = 0 for a Tait–Bryan sequence such as XYZ);
:func:`chart_singularity` returns that determinant.
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy as sp
from sympy.physics.mechanics import ReferenceFrame, dynamicsymbols

from ..errors import InputError
from ..geometry.exact import det_exact, trig_reduce_if_small
from ..jets.fibred import FibredManifold
from .quasi import QuasiVelocities

__all__ = ["EULER_SEQUENCES", "body_angular_velocity", "chart_singularity", "rotation_matrix"]

#: the twelve body-fixed rotation sequences: six proper Euler (first axis = last) and six Tait–Bryan
EULER_SEQUENCES = ("XYX", "XZX", "YXY", "YZY", "ZXZ", "ZYZ", "XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX")


def _oriented(Y: FibredManifold, sequence: str, angles: Sequence):
    """(N, B, {dynamicsymbol: jet symbol}) for the body frame B oriented in N by ``sequence``."""
    seq = sequence.upper()
    if seq not in EULER_SEQUENCES:
        raise InputError(f"unknown rotation sequence {sequence!r}; one of {', '.join(EULER_SEQUENCES)}")
    if Y.m < 3:
        raise InputError(f"a rigid body's orientation needs three coordinates; Y has {Y.m}")
    idx = [Y.q.index(a) if a in Y.q else -1 for a in angles]
    if -1 in idx or len(set(idx)) != 3:
        raise InputError(f"the three angles {[str(a) for a in angles]} must be distinct coordinates of Y")
    N = ReferenceFrame("N")
    qs = dynamicsymbols(" ".join(f"_jg_a{i}" for i in range(3)))
    B = N.orientnew("B", "Body", qs, seq)
    t = dynamicsymbols._t
    back = {}
    for qi, a, i in zip(qs, angles, idx):
        back[qi.diff(t)] = Y.qdot[i]
        back[qi] = a
    return N, B, back


def _angular_velocity_rows(Y: FibredManifold, sequence: str, angles: Sequence) -> list:
    N, B, back = _oriented(Y, sequence, angles)
    w = B.ang_vel_in(N)
    rows = []
    for e in (B.x, B.y, B.z):
        comp = w.dot(e).subs(back)  # derivatives first: xreplace would not see q(t) inside q'(t)
        rows.append(sp.expand(comp))
    return rows


def body_angular_velocity(Y: FibredManifold, sequence: str, names: Sequence, angles: Sequence | None = None,
                          others: Sequence | None = None) -> QuasiVelocities:
    r"""The body-frame angular velocity Ω of a rigid body as quasi-velocities.

    Parameters
    ----------
    Y : FibredManifold
        The configuration fibration; three of its coordinates are the rotation angles.
    sequence : str
        The body-fixed rotation sequence, one of :data:`EULER_SEQUENCES` (e.g. ``"ZXZ"``: precession,
        nutation, spin).
    names : sequence of str or Symbol
        Names for the three body components Ω₁, Ω₂, Ω₃ followed, when Y has more coordinates, by
        names for the remaining quasi-velocities (``others``).
    angles : sequence of Symbols, optional
        The three angle coordinates of Y, in the order of the sequence (default: the first three).
    others : sequence of expressions, optional
        For the other coordinates of Y (a position, say): their quasi-velocities as linear
        homogeneous expressions in q̇ (default: the rates of the remaining coordinates themselves).

    Returns
    -------
    QuasiVelocities
        v = (Ω₁, Ω₂, Ω₃, …) = Φ(q) q̇, Ω computed by ``sympy.physics.mechanics``.

    Examples
    --------
    >>> from jetgeo import FibredManifold
    >>> Y = FibredManifold(["phi", "theta", "psi"])
    >>> F = body_angular_velocity(Y, "ZXZ", ["w1", "w2", "w3"])
    >>> F.to_velocities()[F.v[2]]
    phidot*cos(theta) + psidot
    >>> chart_singularity(F)
    -sin(theta)
    """
    if not isinstance(Y, FibredManifold):
        raise InputError(f"body_angular_velocity needs a FibredManifold, got {type(Y).__name__}")
    angles = tuple(Y.q[:3]) if angles is None else tuple(angles)
    if len(angles) != 3:
        raise InputError(f"a rotation sequence takes three angles, got {len(angles)}")
    rows = _angular_velocity_rows(Y, sequence, angles)
    rest = [q for q in Y.q if q not in angles]
    if others is None:
        others = [Y.qdot[Y.q.index(q)] for q in rest]
    others = list(others)
    if len(others) != len(rest):
        raise InputError(f"need {len(rest)} further quasi-velocities for {[str(q) for q in rest]}, got {len(others)}")
    return QuasiVelocities(Y, names, velocities=[*rows, *others])


def rotation_matrix(Y: FibredManifold, sequence: str, angles: Sequence | None = None) -> sp.Matrix:
    """The rotation R(q) taking a body's components to the space components (x_space = R x_body), in
    the Euler-angle chart of ``sequence`` (``sympy.physics.mechanics``' direction cosine matrix).

    Parameters
    ----------
    Y : FibredManifold
    sequence : str
        One of :data:`EULER_SEQUENCES`.
    angles : sequence of Symbols, optional
        The three angle coordinates of Y (default: the first three).

    Returns
    -------
    sympy.Matrix
        3 × 3, orthogonal, in the angles.

    Examples
    --------
    >>> from jetgeo import FibredManifold
    >>> Y = FibredManifold(["phi", "theta", "psi"])
    >>> rotation_matrix(Y, "ZXZ")[2, 2]          # the body's third axis against the vertical
    cos(theta)
    """
    angles = tuple(Y.q[:3]) if angles is None else tuple(angles)
    N, B, back = _oriented(Y, sequence, angles)
    return N.dcm(B).subs(back)


def chart_singularity(frame: QuasiVelocities) -> sp.Expr:
    """det Φ(q) of a frame, trigonometrically reduced: the chart of the orientation fails where it
    vanishes (the pole, or gimbal lock, of an Euler-angle sequence).

    Parameters
    ----------
    frame : QuasiVelocities

    Returns
    -------
    sympy.Expr
        The determinant of v = Φ q̇.
    """
    return trig_reduce_if_small(det_exact(frame.Phi))
