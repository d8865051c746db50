# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
# ---

# %% [markdown]
# # [Stolařová 2009, Example 1]: a free particle with the Chaplygin constraint ż = x y ẋ
#
# Stolařová/Krupková, eq. (13).  L = ½(ẋ² + ẏ² + ż²); from the origin with ẋ(0) = ẏ(0) = 1.
# Reproduces Figs. 1–4 (the trajectory and its projections on the xy, xz and yz planes).

# %%
import numpy as np
import sympy as sp

from jetgeo import ConstraintSubmanifold, FibredManifold, LagrangianSystem
from jetgeo.numerics import simulate

Y = FibredManifold(["x", "y", "z"])
x, y, z = Y.q
xd, yd, zd = Y.qdot
cs = LagrangianSystem(Y, (xd**2 + yd**2 + zd**2) / 2).constrain(ConstraintSubmanifold(Y, [zd - x * y * xd]))
cs.accelerations()

# %% the reduced equations, in normal form (the paper's ẍ and ÿ = 0)
acc = cs.accelerations()
assert sp.cancel(acc[Y.qddot[0]] + (x * y**2 * xd**2 + x**2 * y * xd * yd) / (1 + x**2 * y**2)) == 0

# %%
res = simulate(cs, (0, 2.5), {x: 0, y: 0, z: 0, xd: 1, yd: 1}, complete=True, t_eval=np.linspace(0, 2.5, 251))
print(res)

# %% Figs. 1–4: the trajectory and its projections
fig = res.plot(["x", "y", "z"], title="[Stolařová 2009, Fig. 1]")
fig2 = res.plot_monitor()

# %% the paper reads off: at x = 1.5, y = 2.25 and z = 1.4
i = np.argmin(np.abs(res.column("x") - 1.5))
print(f"x = {res.column('x')[i]:.3f}: y = {res.column('y')[i]:.3f}, z = {res.column('z')[i]:.3f}")
assert abs(res.column("y")[i] - 2.25) < 0.05 and abs(res.column("z")[i] - 1.4) < 0.06

# %%
from _figures import save  # noqa: E402

save(fig, "stolarova2009_example1_trajectory")
save(fig2, "stolarova2009_example1_monitor")
