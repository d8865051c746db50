# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
# ---

# %% [markdown]
# # Stability maps: Routh's rolling disc and the Whipple bicycle
#
# `jetgeo.numerics.stability_map` linearises a constrained system about a steady motion once,
# with the swept parameters kept as symbols, compiles the Jacobian and evaluates its
# eigenvalues over a grid.  Two classics:
#
# * the upright rolling disc (catalogue `rolling_disc`, lean measured from the vertical):
#   stable for Ω² > A m g a / (C (C + m a²)) [Routh 1884];
# * the Whipple bicycle: weave and capsize speeds against the trail c, through the benchmark
#   values 4.29238253634111 and 6.02426201538837 m/s at c = 0.08 m [Meijaard et al. 2007, §5].

# %%
import numpy as np
import sympy as sp
from _figures import save

from jetgeo import ConstraintSubmanifold, FibredManifold, LagrangianSystem, systems
from jetgeo.numerics import stability_map

# %% [markdown]
# ## The upright disc
# The catalogue's disc uses θ, the angle between the disc plane and the ground (upright:
# θ = π/2); with the lean χ = π/2 − θ the upright state is χ = 0 and every quantity at it is
# exact (no π/2 to round).

# %%
entry = systems.load("rolling_disc")
S, Q = entry
Y = FibredManifold(["x", "y", "chi", "psi", "phi"])
x, y, chi, psi, phi = Y.q
xd, yd, chid, psid, phid = Y.qdot
rename = dict(zip((*entry.Y.q, *entry.Y.qdot), (*Y.q, *Y.qdot)))
theta, thetadot = entry.Y.q[2], entry.Y.qdot[2]


def lean(e):
    return sp.sympify(e).xreplace({theta: sp.pi / 2 - chi, thetadot: -chid}).xreplace(rename)


disc = LagrangianSystem.mechanical(Y, lean(S.kinetic_energy), lean(S.potential_energy))
Qd = ConstraintSubmanifold(Y, [lean(f) for f in Q.f], dependent=[xd, yd])
Omega = sp.Symbol("Omega")
m, a, A, C, g = (entry.params[s] for s in entry.parameters)  # m = a = 1, A = 1/4, C = 1/2, g = 10
ratios = np.linspace(0.2, 1.0, 9)                 # A / C
dmap = stability_map((disc, Qd), {x: 0, y: 0, chi: 0, psi: 0, phi: 0, chid: 0, psid: 0, phid: Omega},
                     {"A": ratios * float(C), "Omega": np.linspace(0.0, 6.0, 61)}, keep=[chi, chid, psid, phid],
                     params=entry.params)
crit = dmap.critical("Omega")["value"].values[:, 0]
routh = np.sqrt(ratios * float(C * m * g * a) / float(C * (C + m * a**2)))
assert np.max(np.abs(crit - routh)) < 1e-10, (crit, routh)
print("upright disc, critical spin rate against A/C:")
for r, c_, c0 in zip(ratios, crit, routh):
    print(f"  A/C = {r:.2f}: Omega_c = {c_:.12f}   Routh: {c0:.12f}")
fig = dmap.plot("Omega")
fig.axes[0].plot(routh, ratios * float(C), "r:", lw=2, label="Routh")
fig.axes[0].legend()
save(fig, "stability_disc")

# %% [markdown]
# ## The Whipple bicycle against its trail
# Symbolic in the trail c and the speed v, all other parameters from [Meijaard et al. 2007],
# Table 1.  The benchmark geometry c = 0.08 m is one point of the sweep.

# %%
from jetgeo.systems.whipple import benchmark_parameters, whipple_bicycle  # noqa: E402

bike = whipple_bicycle(numeric=False)
q = bike.Y.q
qd = bike.Y.qdot
v = sp.Symbol("v")
fixed = {bike.symbols[k]: val for k, val in benchmark_parameters().items() if k != "c"}
upright = {k: sp.sympify(val).xreplace(fixed) for k, val in bike.upright(v).items() if k in (*q, qd[3], qd[5], qd[6])}
bmap = stability_map(bike, upright, {"c": [0.02, 0.04, 0.06, 0.08, 0.10, 0.12], "v": np.linspace(0.0, 10.0, 41)},
                     keep=[q[3], q[5], qd[3], qd[5]], params=fixed, independent=[qd[3], qd[5], qd[6]])
speeds = bmap.critical("v")
weave, capsize = speeds["value"].sel(c=0.08).values
assert abs(weave - 4.29238253634111) < 1e-8 and abs(capsize - 6.02426201538837) < 1e-8, (weave, capsize)
print("Whipple bicycle, weave and capsize speeds against the trail c:")
for c_, (w, cap) in zip(speeds["c"].values, speeds["value"].values):
    print(f"  c = {c_:.2f} m: weave {w:.11f} m/s, capsize {cap:.11f} m/s")
save(bmap.plot("v"), "stability_whipple")
