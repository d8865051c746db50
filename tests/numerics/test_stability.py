"""jetgeo.numerics.stability_map: eigenvalues of a steady motion's linearisation over a parameter grid.

Independent truths: Routh's condition for the upright rolling disc, C(C + ma²)Ω² > Amga, and its
characteristic polynomial λ²(A(A + ma²)λ² + C(C + ma²)Ω² − Amga) [Routh 1884]; the Whipple
bicycle's weave and capsize speeds and eigenvalues [Meijaard et al. 2007, §5, Table 2] and
jetgeo.systems.whipple.eigenvalues (the benchmark matrices M, C₁, K₀, K₂: a second route).
"""

from __future__ import annotations

import functools

import matplotlib
import numpy as np
import pytest
import sympy as sp

from jetgeo import ConstraintSubmanifold, FibredManifold, LagrangianSystem, systems
from jetgeo.errors import InputError
from jetgeo.numerics import stability_map

matplotlib.use("Agg")


@functools.cache
def leaning_disc():
    """The catalogue's heavy disc with the lean χ = π/2 − θ from the vertical (upright: χ = 0)."""
    e = systems.load("rolling_disc")
    S, Q = e
    Y = FibredManifold(["x", "y", "chi", "psi", "phi"])
    rename = dict(zip((*e.Y.q, *e.Y.qdot), (*Y.q, *Y.qdot)))
    sub = {e.Y.q[2]: sp.pi / 2 - Y.q[2], e.Y.qdot[2]: -Y.qdot[2]}

    def lean(expr):
        return sp.sympify(expr).xreplace(sub).xreplace(rename)

    disc = LagrangianSystem.mechanical(Y, lean(S.kinetic_energy), lean(S.potential_energy))
    return e, disc, ConstraintSubmanifold(Y, [lean(f) for f in Q.f], dependent=list(Y.qdot[:2]))


def _disc_map(axes, params=None):
    e, disc, Q = leaning_disc()
    x, y, chi, psi, phi = disc.Y.q
    xd, yd, chid, psid, phid = disc.Y.qdot
    W = sp.Symbol("Omega")
    point = {x: 0, y: 0, chi: 0, psi: 0, phi: 0, chid: 0, psid: 0, phid: W}
    return stability_map((disc, Q), point, axes, keep=[chi, chid, psid, phid], params=params or e.params)


def test_disc_matrix_has_routh_characteristic_polynomial():
    e = leaning_disc()[0]
    m, a, A, C, g = e.parameters
    smap = _disc_map({"A": [0.2, 0.3], "Omega": [0.0, 1.0]}, params={m: 2, a: sp.Rational(1, 3), C: 1, g: 10})
    W, lam = sp.Symbol("Omega"), sp.Symbol("lam")
    vals = {m: 2, a: sp.Rational(1, 3), C: 1, g: 10}
    routh = (lam**2 * (A * (A + m * a**2) * lam**2 + C * (C + m * a**2) * W**2 - A * m * g * a)).xreplace(vals)
    got = smap.matrix.charpoly(lam).as_expr()
    assert sp.cancel(got * (A * (A + m * a**2)).xreplace(vals) - routh) == 0


def test_disc_critical_spin_rate_is_rouths():
    e = leaning_disc()[0]
    m, a, A, C, g = (float(e.params[s]) for s in e.parameters)
    As = np.linspace(0.05, 0.5, 10)
    smap = _disc_map({"A": As, "Omega": np.linspace(0.0, 6.0, 31)})
    crit = smap.critical("Omega")
    routh = np.sqrt(As * m * g * a / (C * (C + m * a**2)))
    np.testing.assert_allclose(crit["value"].values[:, 0], routh, rtol=1e-12)
    assert np.all(crit["becomes"].values[:, 0] == 1)             # stable above the critical rate
    stable = smap.data["stable"].values
    Om = smap.data["Omega"].values
    assert np.array_equal(stable, Om[None, :] > routh[:, None])  # no grid point on a boundary here
    # uniform thin disc A = C/2 = ma²/4: Ω² > g/(3a)
    assert smap.critical("Omega")["value"].sel(A=0.25).item() == pytest.approx(np.sqrt(g / (3 * a)), rel=1e-12)


@pytest.mark.slow
def test_whipple_weave_and_capsize_speeds_as_one_point_of_a_trail_sweep():
    from jetgeo.systems.whipple import benchmark_parameters, eigenvalues, whipple_bicycle

    bike = whipple_bicycle(numeric=False)
    q, qd = bike.Y.q, bike.Y.qdot
    v = sp.Symbol("v")
    fixed = {bike.symbols[k]: val for k, val in benchmark_parameters().items() if k != "c"}
    point = {k: sp.sympify(val).xreplace(fixed) for k, val in bike.upright(v).items() if k in (*q, qd[3], qd[5], qd[6])}
    smap = stability_map(bike, point, {"c": [0.06, 0.08, 0.10], "v": np.linspace(0.0, 10.0, 21)},
                         keep=[q[3], q[5], qd[3], qd[5]], params=fixed, independent=[qd[3], qd[5], qd[6]])
    weave, capsize = smap.critical("v")["value"].sel(c=0.08).values
    assert abs(weave - 4.29238253634111) < 1e-8 and abs(capsize - 6.02426201538837) < 1e-8
    assert list(smap.critical("v")["becomes"].sel(c=0.08).values) == [1, -1]
    # [Meijaard et al. 2007, Table 2] at v = 5 m/s, and the benchmark-matrix route
    ev = smap.eigenvalues(c=0.08, v=5.0)
    np.testing.assert_allclose(ev, eigenvalues(5.0), atol=1e-10)
    np.testing.assert_allclose(sorted(ev.real), [-14.0783896927982, -0.775341882569, -0.775341882569,
                                                 -0.322866429671], atol=1e-9)
    # more trail, wider self-stable range: both speeds grow with c (here)
    w_c = smap.critical("v")["value"].values
    assert np.all(np.diff(w_c[:, 0]) > 0) and np.all(np.diff(w_c[:, 1]) > 0)


def test_plots_and_errors():
    import matplotlib.pyplot as plt

    smap = _disc_map({"Omega": np.linspace(0.0, 6.0, 25)})
    fig = smap.plot()
    crit = smap.critical("Omega")["value"].values.ravel()
    ax = fig.axes[0]
    assert len(ax.lines) >= 4 and any(np.allclose(ln.get_xdata(), crit[0]) for ln in ax.lines)
    plt.close(fig)
    fig2 = _disc_map({"A": [0.1, 0.2, 0.3], "Omega": np.linspace(0.0, 6.0, 13)}).plot("Omega")
    assert fig2.axes[0].get_xlabel() == "Omega"
    plt.close(fig2)
    e, disc, Q = leaning_disc()
    x, y, chi, psi, phi = disc.Y.q
    xd, yd, chid, psid, phid = disc.Y.qdot
    W = sp.Symbol("Omega")
    point = {x: 0, y: 0, chi: 0, psi: 0, phi: 0, chid: 0, psid: 0, phid: W}
    with pytest.raises(InputError, match="not a steady motion"):
        stability_map((disc, Q), point, {"Omega": [1.0, 2.0]}, keep=[x, chi, chid, psid, phid], params=e.params)
    with pytest.raises(InputError, match="still contains"):
        stability_map((disc, Q), point, {"Omega": [1.0, 2.0]}, keep=[chi, chid, psid, phid])
    with pytest.raises(InputError, match="not a swept parameter"):
        smap.critical("A")


def test_what_stability_map_is_given():
    """A catalogue entry (a SampledSystem: its sample parameters are the defaults), equations of motion (the
    constrained system, in its own chart) and the pair give the same map; anything else is an InputError that
    says what is accepted."""
    e = systems.load("rolling_disc")
    x, y, th, psi, phi = e.Y.q
    xd, yd, thd, psid, phid = e.Y.qdot
    W = sp.Symbol("Omega")
    point = {x: 0, y: 0, th: sp.pi / 2, psi: 0, phi: 0, thd: 0, psid: 0, phid: W}
    axes, keep = {"Omega": [0.5, 3.0]}, [th, thd, psid, phid]
    cs = e.system.constrain(ConstraintSubmanifold(e.Y, e.Q.f, dependent=[xd, yd]))
    maps = [stability_map(e, point, axes, keep), stability_map(cs, point, axes, keep, params=e.params),
            stability_map((e.system, e.Q), point, axes, keep, params=e.params)]
    for m in maps[1:]:
        np.testing.assert_allclose(np.sort_complex(m.eigenvalues(Omega=3.0)),
                                   np.sort_complex(maps[0].eigenvalues(Omega=3.0)), atol=1e-12)
    assert list(maps[0].data["stable"].values) == [False, True]   # Routh: Ω² > g/(3a) for the uniform disc
    assert maps[0].critical("Omega")["value"].values.ravel()[0] == pytest.approx(np.sqrt(10 / 3), rel=1e-12)
    with pytest.raises(InputError, match="give equations of motion"):
        stability_map(e.system, point, axes, keep, params=e.params)
    with pytest.raises(InputError, match="LagrangianSystem on a ConstraintSubmanifold"):
        stability_map((e.Q, e.system), point, axes, keep, params=e.params)
