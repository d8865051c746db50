# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
# ---

# %% [markdown]
# # A coin rolling on a table, modelled with sympy.mechanics and imported
#
# The kinematics are written with `sympy.physics.mechanics` (frames, points, a rigid body); the
# rolling enters as velocity constraints — the material point at the contact has velocity zero —
# and `jetgeo.io.sympy_import.from_mechanics` brings the model over (theory/rolling_bodies.md).
# Then: the steady circles (`steady_motions`), the upright coin's stability threshold
# Ω² = A m g r/(C(C + m r²)) from the linearisation about a steady motion [Routh 1884, §244], and a
# wobbling simulation.

# %%
import matplotlib.pyplot as plt
import numpy as np
import sympy as sp
from sympy.physics.mechanics import Point, ReferenceFrame, RigidBody, dynamicsymbols, inertia

from jetgeo.io.sympy_import import from_mechanics
from jetgeo.mechanics import linearise, steady_motions
from jetgeo.numerics import simulate

psi, th, phi, x, y = dynamicsymbols("psi theta phi x y")
m, A, C, r, g = sp.symbols("m A C r g", positive=True)
N = ReferenceFrame("N")
H = N.orientnew("H", "Axis", [psi, N.z])
Lf = H.orientnew("L", "Axis", [th, H.x])
R = Lf.orientnew("R", "Axis", [phi, Lf.y])
O = Point("O")
O.set_vel(N, 0)
P = O.locatenew("P", x * N.x + y * N.y)
G = P.locatenew("G", r * Lf.z)
G.set_vel(N, G.pos_from(O).dt(N))
coin = RigidBody("coin", G, R, m, (inertia(Lf, A, C, A), G))
slip = G.vel(N) + R.ang_vel_in(N).cross(P.pos_from(G))
model = from_mechanics([psi, th, phi, x, y], [coin], N, potential=m * g * G.pos_from(O).dot(N.z),
                       velocity_constraints=[slip.dot(H.x), slip.dot(H.y)])
cs = model.constrain()
ps_, th_, ph_, x_, y_ = model.Y.q
psd, thd, phd, xd, yd = model.Y.qdot

# %% Steady circles at the lean θ₀ with yaw rate Ω: the spin rate ω they need
th0, W, w = sp.symbols("theta0 Omega omega")
[circle] = steady_motions(cs, {th_: th0, psd: W, phd: w}, unknowns=[w])
print(circle)

# %% Rolling upright at spin rate Ω: the eigenvalues of the lean/yaw perturbations against Ω
[upright] = steady_motions(cs, {th_: 0, psd: 0, phd: W})
lin = linearise(cs, upright)
coin_values = {m: 0.01, r: 0.012, g: 9.81, A: 0.01 * 0.012**2 / 4, C: 0.01 * 0.012**2 / 2}
critical = np.sqrt(float((A * m * g * r / (C * (C + m * r**2))).xreplace(coin_values)))
omegas = np.linspace(0.2 * critical, 2.0 * critical, 60)
growth = [max(lin.eigenvalues({**coin_values, W: om}).real) for om in omegas]
assert max(growth[omegas.searchsorted(1.05 * critical):]) < 1e-9 < min(growth[:omegas.searchsorted(0.95 * critical)])
print(f"the upright coin is stable for spin rates above {critical:.1f} rad/s")

# %% A wobbling coin: launched leaning, spinning and turning
T = np.linspace(0, 3, 601)
res = simulate(cs, (0, 3), {ps_: 0, th_: 0.3, ph_: 0, x_: 0, y_: 0, psd: 20.0, thd: 0, phd: 60.0},
               {str(k): float(v) for k, v in coin_values.items()}, complete=True, t_eval=T)
print(res.summary())
assert res.status == "finished" and res.relative_energy_drift < 1e-7

fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
a1.plot(omegas / critical, growth)
a1.axvline(1.0, ls=":")
a1.set_xlabel("spin rate / Routh threshold")
a1.set_ylabel("largest real part of the eigenvalues")
a2.plot(res.column("x"), res.column("y"))
a2.set_aspect("equal")
a2.set_title("path of the contact point")
fig.tight_layout()

# %%
from _figures import save  # noqa: E402

save(fig, "rolling_disc_import")
