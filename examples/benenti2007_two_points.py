# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
# ---

# %% [markdown]
# # [Benenti 2007, §9.4]: two points with parallel velocities on an inclined plane
#
# Benenti, eq. (9.14): ẋ₁ẏ₂ − ẋ₂ẏ₁ = 0, gravity along x (A₁ = m₁g, A₃ = m₂g, (9.18)).
# The velocities turn towards the slope's direction (θ → 0 in the paper's parameters).
# Simulated with the multiplier formulation (W q̈ = L + Jᵀλ, J q̈ = −d̄f): no normal form is
# needed, so the run does not stop where ẋ₁ = 0 (where ẏ₂ = ẋ₂ẏ₁/ẋ₁ breaks down).

# %%
import numpy as np
import sympy as sp

from jetgeo import ConstraintSubmanifold, FibredManifold, LagrangianSystem
from jetgeo.mechanics import ConstrainedSystem
from jetgeo.numerics import simulate

Y = FibredManifold(["x1", "y1", "x2", "y2"])
x1, y1, x2, y2 = Y.q
x1d, y1d, x2d, y2d = Y.qdot
m1, m2, g = sp.symbols("m1 m2 g", positive=True)
S = LagrangianSystem.mechanical(Y, m1 / 2 * (x1d**2 + y1d**2) + m2 / 2 * (x2d**2 + y2d**2),
                                -m1 * g * x1 - m2 * g * x2)
cs = ConstrainedSystem(S, ConstraintSubmanifold(Y, [x1d * y2d - x2d * y1d], dependent=[y2d]))

# %%
th0 = 1.0
ini = {x1: 0, y1: 0, x2: 0, y2: 1, x1d: np.cos(th0), y1d: np.sin(th0), x2d: 0.5 * np.cos(th0)}
res = simulate(cs, (0, 3), ini, {m1: 1, m2: 2, g: 2.9}, complete=True, t_eval=np.linspace(0, 3, 301),
               formulation="multipliers")
print(res)
heading = np.arctan2(res.column("y1dot"), res.column("x1dot"))
assert heading[-1] < heading[0]        # the common direction turns down the slope

# %%
import matplotlib.pyplot as plt  # noqa: E402

fig, ax = plt.subplots(figsize=(5, 4))
ax.plot(res.column("x1"), res.column("y1"), label="P1")
ax.plot(res.column("x2"), res.column("y2"), label="P2")
ax.set_xlabel("x (down the slope)")
ax.set_ylabel("y")
ax.legend()
fig2 = res.plot_monitor()

# %%
from _figures import save  # noqa: E402

save(fig, "benenti2007_two_points")
save(fig2, "benenti2007_two_points_monitor")
