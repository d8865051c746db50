r"""Hypothesis strategies for random mechanical systems with constraints.

Everything drawn is small on purpose (2–3 degrees of freedom, coefficients in a
few integers, entries built from q, sin q, cos q) so that a property test runs in
seconds; the structure, not the size, is what exercises the code.

* :func:`positive_definite_metrics` — g(q) = LᵀL + D with L lower triangular
  (entries from small polynomials and trigonometric atoms in q) and D a positive
  constant diagonal: g(q) is positive definite **at every q**, since
  vᵀgv = |Lv|² + vᵀDv ≥ min D·|v|² > 0.
* :func:`potentials`, :func:`forces` — V(q) and generalised forces A_σ(t, q, q̇)
  (constant, position-dependent, linear damping).
* :func:`affine_constraints`, :func:`nonlinear_constraints` — k constraints
  f = M·(q̇^D − g(t, q, q̇^I)) with M a constant unimodular integer matrix (det ±1)
  and g affine resp. quadratic in q̇^I: ∂f/∂q̇^D = M is invertible everywhere, so
  the rank condition [Stolařová 2009, eq. (3)] holds **at every point**, and the constraints have
  exactly one branch.
* :func:`mechanical_systems` — (LagrangianSystem, ConstraintSubmanifold) pairs.
"""

from __future__ import annotations

import sympy as sp
from hypothesis import strategies as st

from ..jets import FibredManifold
from ..mechanics import ConstraintSubmanifold, LagrangianSystem

__all__ = [
    "fibred_manifolds",
    "positive_definite_metrics",
    "potentials",
    "forces",
    "affine_constraints",
    "nonlinear_constraints",
    "mechanical_systems",
]

_SMALL = st.integers(min_value=-2, max_value=2)


def fibred_manifolds(min_dim: int = 2, max_dim: int = 3) -> st.SearchStrategy:
    """Y with coordinates q1..qm (m in [min_dim, max_dim]), time t.

    Parameters
    ----------
    min_dim, max_dim : int, default 2, 3
        The range of the fibre dimension m.

    Returns
    -------
    hypothesis.strategies.SearchStrategy
        Draws :class:`~jetgeo.jets.FibredManifold` objects.
    """
    return st.integers(min_value=min_dim, max_value=max_dim).map(
        lambda m: FibredManifold([f"q{i + 1}" for i in range(m)])
    )


def _coords(n_or_coords):
    if isinstance(n_or_coords, int):
        return tuple(sp.Symbol(f"q{i + 1}") for i in range(n_or_coords))
    return tuple(n_or_coords)


def _atoms(q, trig: bool) -> list:
    out = [sp.Integer(1), *q]
    if trig:
        out += [sp.sin(s) for s in q] + [sp.cos(s) for s in q]
    return out


@st.composite
def _small_function(draw, q, trig: bool = True, terms: int = 2):
    """c₀ + Σ c_j a_j with atoms a ∈ {1, q, sin q, cos q} (at most ``terms`` atoms)."""
    atoms = _atoms(q, trig)
    idx = draw(st.lists(st.integers(0, len(atoms) - 1), min_size=0, max_size=terms, unique=True))
    return sp.Add(*[draw(_SMALL) * atoms[i] for i in idx])


@st.composite
def positive_definite_metrics(draw, n, trig: bool = True, terms: int = 1, density: float = 0.5):
    """A symmetric n × n matrix g(q), positive definite for every q: g = LᵀL + D.

    ``n``: an int (coordinates q1..qn) or a sequence of coordinate symbols.
    L is lower triangular with entries small functions of q (``terms`` atoms each,
    a fraction ``density`` of the off-diagonal entries non-zero); D = diag(d_i),
    d_i ∈ {1, 2, 3}.  The proof of definiteness is vᵀgv = |Lv|² + Σ d_i v_i² > 0.

    Parameters
    ----------
    n : int or sequence of Symbol
        The coordinates.
    trig : bool, default True
        Allow sin q, cos q among the atoms of the entries of L.
    terms : int, default 1
        Atoms per entry of L.
    density : float, default 0.5
        The probability that an off-diagonal entry of L is non-zero.

    Returns
    -------
    hypothesis.strategies.SearchStrategy
        Draws symmetric sympy matrices g(q), expanded.
    """
    q = _coords(n)
    m = len(q)
    L = sp.zeros(m, m)
    for i in range(m):
        for j in range(i + 1):
            if i == j:
                L[i, j] = draw(_small_function(q, trig, terms))
            elif draw(st.floats(0, 1)) < density:
                L[i, j] = draw(_small_function(q, trig, terms))
    D = sp.diag(*[draw(st.integers(1, 3)) for _ in range(m)])
    return (L.T * L + D).applyfunc(sp.expand)


@st.composite
def potentials(draw, Y: FibredManifold, trig: bool = True):
    """V(q): a small function of q (constants, linear, sin/cos terms).

    Parameters
    ----------
    Y : FibredManifold
        The configuration bundle; V depends on its coordinates q.
    trig : bool, default True
        Allow sin q, cos q terms.

    Returns
    -------
    hypothesis.strategies.SearchStrategy
        Draws expressions V(q) with at most two terms and coefficients in −2 … 2.
    """
    return draw(_small_function(Y.q, trig, terms=2))


@st.composite
def forces(draw, Y: FibredManifold, velocity_dependent: bool = True, time_dependent: bool = False):
    """Generalised forces A_σ(t, q, q̇): constants, small functions of q, damping −c q̇^σ (c ≥ 0).

    Parameters
    ----------
    Y : FibredManifold
        The configuration bundle.
    velocity_dependent : bool, default True
        Add a damping term −c q̇^σ, c ∈ {0, 1, 2} (dissipative: it never adds energy).
    time_dependent : bool, default False
        Add a term c t.

    Returns
    -------
    hypothesis.strategies.SearchStrategy
        Draws lists of m expressions A_σ(t, q, q̇).
    """
    out = []
    for s in range(Y.m):
        a = draw(_small_function(Y.q, True, terms=1)) + draw(_SMALL)
        if velocity_dependent:
            a += -draw(st.integers(0, 2)) * Y.qdot[s]
        if time_dependent:
            a += draw(_SMALL) * Y.t
        out.append(a)
    return out


@st.composite
def _unimodular(draw, k: int):
    """A k × k integer matrix with det = ±1 (product of elementary matrices)."""
    M = sp.eye(k)
    for _ in range(draw(st.integers(0, 2 * k))):
        i, j = draw(st.integers(0, k - 1)), draw(st.integers(0, k - 1))
        if i != j:
            E = sp.eye(k)
            E[i, j] = draw(st.sampled_from([-1, 1]))
            M = E * M
    if k > 1 and draw(st.booleans()):
        M = M.extract(list(reversed(range(k))), list(range(k)))
    return M


@st.composite
def _constraints(draw, Y: FibredManifold, k: int, degree: int, homogeneous: bool, time_dependent: bool):
    m = Y.m
    if not 1 <= k < m:
        raise ValueError(f"need 1 ≤ k < m = {m} constraints, got k = {k}")
    dep_idx = sorted(draw(st.lists(st.integers(0, m - 1), min_size=k, max_size=k, unique=True)))
    ind = [Y.qdot[i] for i in range(m) if i not in dep_idx]
    gs = []
    for _ in range(k):
        g = sp.Add(*[draw(_small_function(Y.q, True, terms=1)) * v for v in ind])
        if degree >= 2:
            a, b = draw(st.sampled_from(ind)), draw(st.sampled_from(ind))
            g += draw(st.integers(1, 2)) * draw(st.sampled_from([-1, 1])) * a * b
        if not homogeneous:
            g += draw(_SMALL) + (draw(_SMALL) * Y.t if time_dependent else 0)
        gs.append(g)
    raw = sp.Matrix([Y.qdot[d] - g for d, g in zip(dep_idx, gs)])
    M = draw(_unimodular(k))
    return [sp.expand(e) for e in (M * raw)]


def affine_constraints(Y: FibredManifold, k: int, homogeneous: bool = False,
                       time_dependent: bool = False) -> st.SearchStrategy:
    """k affine constraints a^i_σ(q) q̇^σ + b^i(t) = 0 of full rank everywhere.

    Parameters
    ----------
    Y : FibredManifold
        The configuration bundle, fibre dimension m.
    k : int
        The number of constraints, 1 ≤ k < m.
    homogeneous : bool, default False
        No velocity-free term (linear constraints).
    time_dependent : bool, default False
        Velocity-free terms may contain t (rheonomic constraints).

    Returns
    -------
    hypothesis.strategies.SearchStrategy
        Draws lists of k expanded expressions f^i (meaning f^i = 0), ∂f/∂q̇^D unimodular.

    Raises
    ------
    ValueError
        When drawn, if k is not in 1 … m − 1.
    """
    return _constraints(Y, k, 1, homogeneous, time_dependent)


def nonlinear_constraints(Y: FibredManifold, k: int, homogeneous: bool = False,
                          time_dependent: bool = False) -> st.SearchStrategy:
    """k constraints quadratic in the velocities, of full rank everywhere, one branch.

    ``homogeneous=True`` drops the velocity-free terms (the constraints are then
    still not homogeneous of one degree: they mix degrees 1 and 2).

    Parameters
    ----------
    Y : FibredManifold
        The configuration bundle, fibre dimension m.
    k : int
        The number of constraints, 1 ≤ k < m.
    homogeneous : bool, default False
        Drop the velocity-free terms.
    time_dependent : bool, default False
        Velocity-free terms may contain t.

    Returns
    -------
    hypothesis.strategies.SearchStrategy
        Draws lists of k expressions f^i = M (q̇^D − g(t, q, q̇^I)), g quadratic in q̇^I.

    Raises
    ------
    ValueError
        When drawn, if k is not in 1 … m − 1.
    """
    return _constraints(Y, k, 2, homogeneous, time_dependent)


@st.composite
def mechanical_systems(draw, dims=(2, 3), kind: str = "affine", with_forces: bool = False,
                       with_potential: bool = True, homogeneous: bool = False, time_dependent: bool = False,
                       trig: bool = True):
    """(LagrangianSystem, ConstraintSubmanifold): L = ½ q̇ᵀg(q)q̇ − V(q), random constraints.

    ``kind``: "affine", "nonlinear" or "any"; ``dims`` the allowed m; k is drawn in
    [1, m − 1].  With ``homogeneous=True`` (and no forces, no time dependence) the
    energy is conserved for affine constraints.

    Parameters
    ----------
    dims : sequence of int, default (2, 3)
        The allowed fibre dimensions m.
    kind : str, default "affine"
        ``"affine"``, ``"nonlinear"`` or ``"any"``.
    with_forces : bool, default False
        Add generalised forces (:func:`forces`).
    with_potential : bool, default True
        Add a potential (:func:`potentials`).
    homogeneous, time_dependent : bool, default False
        Passed to the constraint strategy.
    trig : bool, default True
        Allow trigonometric atoms in the metric.

    Returns
    -------
    hypothesis.strategies.SearchStrategy
        Draws pairs (LagrangianSystem, ConstraintSubmanifold) with k ∈ [1, m − 1] constraints.

    Raises
    ------
    ValueError
        When drawn, for an unknown ``kind``.
    """
    m = draw(st.sampled_from(list(dims)))
    Y = FibredManifold([f"q{i + 1}" for i in range(m)])
    g = draw(positive_definite_metrics(Y.q, trig=trig))
    v = sp.Matrix(Y.qdot)
    T = sp.expand((v.T * g * v)[0, 0] / 2)
    V = draw(potentials(Y, trig)) if with_potential else sp.Integer(0)
    A = draw(forces(Y, time_dependent=time_dependent)) if with_forces else None
    S = LagrangianSystem.mechanical(Y, T, V, forces=A)
    k = draw(st.integers(1, m - 1))
    if kind == "any":
        kind = draw(st.sampled_from(["affine", "nonlinear"]))
    if kind == "affine":
        fs = draw(affine_constraints(Y, k, homogeneous, time_dependent))
    elif kind == "nonlinear":
        fs = draw(nonlinear_constraints(Y, k, homogeneous, time_dependent))
    else:
        raise ValueError(f"kind must be 'affine', 'nonlinear' or 'any', got {kind!r}")
    return S, ConstraintSubmanifold(Y, fs)
