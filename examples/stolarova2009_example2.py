# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
# ---

# %% [markdown]
# # [Stolařová 2009, Example 2]: the nonlinear constraint ẋ² + ẏ² − a²ż² = 0 under gravity
#
# Stolařová/Krupková, eq. (14), branch ż = +√(ẋ² + ẏ²)/a, L = m/2|v|² − mGz, a = 2, G = 10,
# from the origin with ẋ(0) = ẏ(0) = 2.
#
# **The paper's normal form is misprinted** (it is not symmetric in x ↔ y, although (14) and L
# are), and so are its Figs. 5–8.  Derived: the heading of the horizontal velocity is constant
# and its size decreases linearly, v̇ = −Ga/(1 + a²); the particle moves on a straight line and
# reaches the singular state v = 0 (the zero section, where rank ∂f/∂q̇ drops) at
# t* = v₀(1 + a²)/(Ga) ≈ 0.707.  The integration stops there and says why.

# %%
import numpy as np
import sympy as sp

from jetgeo import ConstraintSubmanifold, FibredManifold, LagrangianSystem
from jetgeo.mechanics import ConstrainedSystem
from jetgeo.numerics import simulate

Y = FibredManifold(["x", "y", "z"])
x, y, z = Y.q
xd, yd, zd = Y.qdot
a, G, m = sp.symbols("a G m", positive=True)
S = LagrangianSystem.mechanical(Y, m / 2 * (xd**2 + yd**2 + zd**2), m * G * z)
cs = ConstrainedSystem(S, ConstraintSubmanifold(Y, [xd**2 + yd**2 - a**2 * zd**2]), branch=0)
print(cs.accelerations())

# %%
res = simulate(cs, (0, 2), {x: 0, y: 0, z: 0, xd: 2, yd: 2}, {a: 2, G: 10, m: 1}, complete=True,
               t_eval=np.linspace(0, 2, 201))
print(res)
assert res.status == "singular" and abs(res.event.t - 2 * np.sqrt(2) * 5 / 20) < 2e-3

# %% Figs. 5–8 (corrected): a straight line, y = x
fig = res.plot(["x", "y", "z"], title="[Stolařová 2009, Example 2] (corrected)")
assert np.allclose(res.column("x"), res.column("y"))

# %%
from _figures import save  # noqa: E402

save(fig, "stolarova2009_example2_trajectory")
