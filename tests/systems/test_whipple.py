"""The Whipple bicycle against the benchmark of [Meijaard et al. 2007].

Independent truths:
* [Meijaard et al. 2007, §5]: the published M, C₁, K₀, K₂ of the
  benchmark (14 significant digits), Table 2: the eigenvalues for v = 0 … 10 m/s, the weave and
  capsize speeds; our matrices are *computed* from the parameters of their Table 1 by
  jetgeo.numerics.linearise (nothing is copied from their appendix formulas);
* statics: at the steady motion the front normal force (the multiplier of ḣ = 0) carries the
  moment of the weights about the rear contact, N_F = g Σ mᵢ xᵢ / w, and the rolling
  constraints carry nothing (straight, uniform motion needs no horizontal force);
* a second route: the Taylor-propagation derivatives against symbolic differentiation.
"""

from __future__ import annotations

import functools

import mpmath
import numpy as np
import pytest
import sympy as sp

from jetgeo.mechanics import linearise
from jetgeo.systems import whipple as W

# [Meijaard et al. 2007, §5] (the benchmark's coefficient matrices)
PUBLISHED = {
    "M": [[80.81722, 2.31941332208709], [2.31941332208709, 0.29784188199686]],
    "C1": [[0.0, 33.86641391492494], [-0.85035641456978, 1.68540397397560]],
    "K0": [[-80.95, -2.59951685249872], [-2.59951685249872, -0.80329488458618]],
    "K2": [[0.0, 76.59734589573222], [0.0, 2.65431523794604]],
}

# [Meijaard et al. 2007, Table 2]: eigenvalues (real parts; imaginary parts of the weave pair)
TABLE2 = {
    0: ([-5.53094371765393, -3.13164324790656, 3.13164324790656, 5.53094371765393], None),
    1: ([-3.13423125066578, -7.11008014637442], (3.52696170990070, 0.80774027519930)),
    2: ([-3.07158645641514, -8.67387984831735], (2.68234517512745, 1.68066296590675)),
    3: ([-2.63366137253667, -10.35101467245920], (1.70675605663975, 2.31582447384325)),
    4: ([-1.42944427361326, -12.15861426576447], (0.41325331521125, 3.07910818603206)),
    5: ([-0.32286642900409, -14.07838969279822], (-0.77534188219585, 4.46486771378823)),
    6: ([-0.00406690076970, -16.08537123098026], (-1.52644486584142, 5.87673060598709)),
    7: ([0.10268170574766, -18.15788466125262], (-2.13875644258362, 7.19525913329805)),
    8: ([0.14327879765713, -20.27940894394569], (-2.69348683581097, 8.46037971396931)),
    9: ([0.15790184030917, -22.43788559040858], (-3.21675402252485, 9.69377351531791)),
    10: ([0.16105338653172, -24.62459635017404], (-3.72016840437287, 10.90681139476287)),
}
WEAVE, CAPSIZE = 4.29238253634111, 6.02426201538837


@functools.cache
def matrices():
    return W.benchmark_matrices()


def _mp(m):
    return mpmath.matrix([[mpmath.mpf(str(sp.N(m[i, j], 40))) for j in range(m.cols)] for i in range(m.rows)])


def mp_eigenvalues(v):
    """Eigenvalues of the 4 × 4 first-order system at 40 digits (mpmath), from our matrices."""
    mpmath.mp.dps = 40
    M, C1, K0, K2 = (_mp(m) for m in matrices())
    g = mpmath.mpf("9.81")
    v = mpmath.mpf(v)
    Minv = mpmath.inverse(M)
    A = mpmath.zeros(4, 4)
    A[0, 2] = A[1, 3] = 1
    Kv = -Minv * (g * K0 + v**2 * K2)
    Cv = -Minv * (v * C1)
    for i in range(2):
        for j in range(2):
            A[2 + i, j] = Kv[i, j]
            A[2 + i, 2 + j] = Cv[i, j]
    return [complex(e) for e in mpmath.eig(A, left=False, right=False)]


def test_coefficient_matrices_match_the_published_benchmark():
    got = dict(zip(("M", "C1", "K0", "K2"), matrices()))
    for name, want in PUBLISHED.items():
        g = np.array(got[name].evalf(30), dtype=float)
        np.testing.assert_allclose(g, np.array(want), rtol=2e-14, atol=1e-14, err_msg=name)


@pytest.mark.parametrize("v", sorted(TABLE2))
def test_eigenvalues_match_table_2(v):
    ev = mp_eigenvalues(v)
    real_wanted, weave = TABLE2[v]
    if weave is None:
        got = sorted(e.real for e in ev)
        assert max(abs(e.imag) for e in ev) < 1e-30
        assert np.max(np.abs(np.array(got) - sorted(real_wanted))) < 1e-12
        return
    reals = sorted(e.real for e in ev if abs(e.imag) < 1e-25)
    pair = [e for e in ev if abs(e.imag) >= 1e-25]
    assert len(reals) == 2 and len(pair) == 2
    assert np.max(np.abs(np.array(reals) - sorted(real_wanted))) < 1e-12
    for e in pair:
        assert abs(e.real - weave[0]) < 1e-12 and abs(abs(e.imag) - weave[1]) < 1e-12


def test_weave_and_capsize_speeds():
    mpmath.mp.dps = 40

    def abscissa(v):
        return max(e.real for e in mp_eigenvalues(v))

    weave = mpmath.findroot(lambda v: abscissa(v), (4.2, 4.4), solver="anderson", tol=1e-30)
    capsize = mpmath.findroot(lambda v: abscissa(v), (6.0, 6.1), solver="anderson", tol=1e-30)
    assert abs(float(weave) - WEAVE) < 1e-12
    assert abs(float(capsize) - CAPSIZE) < 1e-12
    # the float route of the library agrees and the stable range is between them
    w, c = W.stability_speeds()
    assert abs(w - WEAVE) < 1e-11 and abs(c - CAPSIZE) < 1e-11
    assert max(W.eigenvalues(5.0).real) < 0 < max(W.eigenvalues(4.0).real)
    assert max(W.eigenvalues(7.0).real) > 0


@functools.cache
def _bike():
    return W.whipple_bicycle()


def test_steady_motion_reactions_are_the_static_loads():
    b = _bike()
    Y = b.Y
    phid, ded, thRd = Y.qdot[3], Y.qdot[5], Y.qdot[6]
    pt = {k: v for k, v in b.upright(sp.Rational(5)).items() if k in (*Y.q, phid, ded, thRd)}
    g = b.symbols["g"]
    lin = linearise(tuple(b), pt, params={g: sp.Rational(981, 100)}, independent=[phid, ded, thRd])
    lam = list(lin.multipliers.values())
    assert lam[:4] == [0, 0, 0, 0]  # rolling constraints: no horizontal force in uniform straight motion
    P = W.benchmark_parameters()
    moment = P["mB"] * P["xB"] + P["mH"] * P["xH"] + P["mF"] * P["w"]  # the rear wheel sits at x = 0
    assert abs(lam[4]) == sp.Rational(981, 100) * moment / P["w"]  # exact: −131454/425 N
    # the whole motion is steady: every coordinate rate is constant and θ̇_R = −v/r_R
    assert lin.f0[len(Y.q):, 0] == sp.zeros(3, 1)


def test_taylor_propagation_agrees_with_symbolic_differentiation():
    """The fast route (second-order Taylor expansions over the DAG) against diff, at an
    upright point of the bicycle with symbolic speed."""
    from jetgeo.mechanics import linearisation as lin_mod

    b = _bike()
    Y = b.Y
    phid, ded, thRd = Y.qdot[3], Y.qdot[5], Y.qdot[6]
    v = sp.Symbol("v")
    pt = {k: val for k, val in b.upright(v).items() if k in (*Y.q, phid, ded, thRd)}
    g = b.symbols["g"]
    params = {g: sp.Rational(981, 100)}
    fast = linearise(tuple(b), pt, params=params, independent=[phid, ded, thRd])
    assert fast.method == "multipliers"
    # only the terms that the lean and steer rows need, by diff (the full diff route takes ~30 s)
    L = b.system.L.xreplace(params)
    point = {**{s: 0 for s in Y.q}, phid: 0, ded: 0, thRd: -v / b.params[b.symbols["rR"]]}
    tay = lin_mod._Taylor2([*Y.q, *Y.qdot], {**point, Y.qdot[0]: v, Y.qdot[1]: 0, Y.qdot[2]: 0,
                                             Y.qdot[4]: 0, Y.qdot[7]: -v / b.params[b.symbols["rF"]]})
    TL = tay(L)
    phi, de = Y.q[3], Y.q[5]
    at = {**point, Y.qdot[0]: v, Y.qdot[1]: 0, Y.qdot[2]: 0, Y.qdot[4]: 0, Y.qdot[7]: -v / b.params[b.symbols["rF"]]}
    for a, c in ((phid, ded), (phi, de), (phid, phi), (ded, de)):  # mass, stiffness, gyroscopic entries
        # ∂²L/∂a∂c at the point is the same derivative of L restricted to the plane through the point in which
        # only a and c vary: the other coordinates are put in first (~15 × faster than diff of the whole L)
        on_plane = L.xreplace({k: val for k, val in at.items() if k not in (a, c)})
        by_diff = sp.diff(on_plane, a, c).xreplace(at)
        diff_val = sp.N(by_diff.xreplace({v: sp.Rational(3)}), 40)
        tay_val = sp.N(sp.sympify(tay.d2(TL, a, c)).xreplace({v: sp.Rational(3)}), 40)
        assert abs(diff_val - tay_val) < 1e-30 * (1 + abs(diff_val)), (a, c)


def test_linearisation_is_fast_enough_to_be_interactive():
    """Not a timing test (those live in benchmarks/): the multiplier route must not fall back to
    symbolic differentiation on the bicycle, which is what makes it take ~1 s instead of ~30 s."""
    b = _bike()
    from jetgeo.mechanics import linearisation as lin_mod

    calls = []
    orig = lin_mod._bordered_by_diff

    def spy(*a, **k):
        calls.append(1)
        return orig(*a, **k)

    lin_mod._bordered_by_diff = spy
    try:
        lin = b.linearise(v=sp.Rational(5), g=sp.Rational(981, 100))
    finally:
        lin_mod._bordered_by_diff = orig
    assert not calls
    ev = np.sort_complex(lin.eigenvalues())
    want = np.sort_complex(np.array([-14.07838969279822, -0.32286642900409,
                                     -0.77534188219585 + 4.46486771378823j, -0.77534188219585 - 4.46486771378823j]))
    np.testing.assert_allclose(ev, want, atol=1e-10)


def test_catalogue_entry_linearises_to_table_2():
    """The catalogue entry (symbolic parameters, values in ``params``; its sample state is upright
    straight-ahead motion at 4 m/s) gives Table 2's eigenvalues at v = 4 through the public API."""
    from jetgeo import systems

    assert "whipple_bicycle" in systems.names(heavy=True) and "whipple_bicycle" not in systems.names()
    e = systems.load("whipple_bicycle")
    Y = e.Y
    phi, de = Y.q[3], Y.q[5]
    phid, ded, thRd = Y.qdot[3], Y.qdot[5], Y.qdot[6]
    point = {k: v for k, v in e.initial.items() if k in (*Y.q, phid, ded, thRd)}
    lin = linearise((e.system, e.Q), point, params=e.params, independent=[phid, ded, thRd])
    ev = np.sort_complex(lin.restrict([phi, de, phid, ded]).eigenvalues())
    real, weave = TABLE2[4]
    want = np.sort_complex(np.array([*real, complex(*weave), complex(weave[0], -weave[1])]))
    np.testing.assert_allclose(ev, want, atol=1e-10)
