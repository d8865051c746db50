# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
# ---

# %% [markdown]
# # [Stolařová 2009, Example 3]: pursuit of a thrown particle (time-dependent constraint)
#
# Stolařová/Krupková, eq. (17): f = ẏ(x − k₁t) − ẋ(y − k₂t + ½Gt²) = 0, L = m/2|v|² − mGy,
# |v₀| = 20 at 45°, the pursuer starts at [40, 20] with speed 1 aimed at the first particle.
# (The paper prints the normal form g with numerator and denominator exchanged, and swaps k₁/k₂
# in A′₁; solving (17) for ẏ gives ẏ = ẋ(y − η)/(x − ξ).)
#
# The constraint depends on t but is homogeneous in the velocities, so the Chetaev reaction does
# no work (R·q̇ = λf = 0): the energy is conserved.  The normal form ẏ = g breaks where the
# pursuer is straight below/above the target (x = k₁t); there the run stops, and the multiplier
# formulation (no normal form) continues.

# %%
import numpy as np
import sympy as sp

from jetgeo import ConstraintSubmanifold, FibredManifold, LagrangianSystem
from jetgeo.mechanics import ConstrainedSystem
from jetgeo.numerics import simulate

Y = FibredManifold(["x", "y"])
t = Y.t
x, y = Y.q
xd, yd = Y.qdot
k1, k2, G, m = sp.symbols("k1 k2 G m", positive=True)
S = LagrangianSystem.mechanical(Y, m / 2 * (xd**2 + yd**2), m * G * y)
f = yd * (x - k1 * t) - xd * (y - k2 * t + G * t**2 / 2)
cs = ConstrainedSystem(S, ConstraintSubmanifold(Y, [f], dependent=[yd]))

# %%
d = np.array([-40.0, -20.0]) / np.hypot(40, 20)
par = {k1: 20 / np.sqrt(2), k2: 20 / np.sqrt(2), G: 10, m: 1}
ini = {x: 40, y: 20, xd: d[0], yd: d[1]}
res = simulate(cs, (0, 3), ini, par, t_eval=np.linspace(0, 3, 301))
print(res)
res2 = simulate(cs, (0, 3), ini, par, t_eval=np.linspace(0, 3, 301), formulation="multipliers")
print(res2)
assert res.relative_energy_drift < 1e-8

# %% [markdown]
# Why the energy is conserved although f depends on t: dE/dt = −∂L/∂t + A·q̇ + R·q̇ with ∂L/∂t = 0, no
# non-potential force, and R·q̇ = λ(∂f/∂q̇)·q̇ = λf = 0 (Euler's identity, f homogeneous of degree 1 in
# q̇).  The reaction is not small — it keeps the pursuer aimed at the target — but it is orthogonal
# to the velocity.  (An affine time-dependent constraint, e.g. a skate on a moving belt, does work:
# see theory/numerics.md.)

# %%
dEdt = np.gradient(res2.energy, res2.t)
assert np.max(np.abs(res2.reactions)) > 1.0
assert np.max(np.abs(res2.reaction_power)) < 1e-6 * np.max(np.abs(res2.reactions))
assert np.max(np.abs(dEdt[1:-1] - res2.reaction_power[1:-1])) < 1e-5
print(f"max |R| = {np.max(np.abs(res2.reactions)):.3g}, max |R·q̇| = {np.max(np.abs(res2.reaction_power)):.3g}, "
      f"max |dE/dt| = {np.max(np.abs(dEdt)):.3g}")

# %% Fig. 10: the trajectory of the second particle, with the first one's throw
fig = res2.plot(["x", "y"], title="[Stolařová 2009, Fig. 10]")
ax = fig.axes[0]
T = np.linspace(0, 3, 100)
ax.plot(par[k1] * T, par[k2] * T - 5 * T**2, "--", label="first particle")
ax.legend()
fig2 = res2.plot_reactions()
fig3 = res2.plot_monitor()

# %%
from _figures import save  # noqa: E402

save(fig, "stolarova2009_example3_trajectory")
save(fig2, "stolarova2009_example3_reactions")
save(fig3, "stolarova2009_example3_monitor")
