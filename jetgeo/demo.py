"""The built-in demonstration behind ``jetgeo demo``.

It grows with the library: each section shows one layer on a classical system.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

import sympy as sp

from .geometry import Chart, Distribution, VectorField

__all__ = ["run_demo", "rolling_disc_distribution"]


def rolling_disc_distribution() -> Distribution:
    r"""The vertical rolling disc's constraint distribution on R² × T².

    Coordinates (x, y, θ, ψ): contact point, rolling angle θ, heading ψ.  Rolling
    without slipping, ẋ = R cos ψ θ̇, ẏ = R sin ψ θ̇, leaves the directions
    ∂_θ + R cos ψ ∂_x + R sin ψ ∂_y and ∂_ψ (seed 001, §9.2).
    """
    C = Chart(["x", "y", "theta", "psi"])
    _x, _y, _th, ps = C
    R = sp.Symbol("R", positive=True)
    return Distribution(
        C,
        [VectorField(C, [R * sp.cos(ps), R * sp.sin(ps), 1, 0]), VectorField(C, [0, 0, 0, 1])],
    )


def _section(out: TextIO, title: str) -> None:
    out.write("\n" + title + "\n" + "-" * len(title) + "\n")


def run_demo(out: TextIO = sys.stdout) -> None:
    """Print the demonstration to ``out``."""
    t0 = time.perf_counter()
    out.write("jetgeo demo — the vertical rolling disc (Benenti 2007, §9.2)\n")
    _section(out, "Geometry: the constraint distribution on R^2 x T^2")
    D = rolling_disc_distribution()
    for X in D.generators:
        out.write(f"  {X}\n")
    inv = D.is_involutive()
    out.write(f"  generic rank: {D.rank}; singular locus: {D.singular_locus() or 'none'}\n")
    out.write(f"  involutive (Frobenius): {inv.involutive}\n")
    for i, j, br in inv.offending:
        out.write(f"    [X{i + 1}, X{j + 1}] = {br}  is not in the span\n")
    flag = D.derived_flag()
    out.write(f"  derived flag growth vector: {D.growth_vector()}\n")
    if flag[-1].rank == D.chart.dim:
        out.write("  the flag fills the tangent space: the constraints are completely non-holonomic\n")
    ann = D.annihilator()
    out.write("  annihilator (the constraint 1-forms):\n")
    for a in ann.generators:
        out.write(f"    {a}\n")
    out.write(f"\ndone in {time.perf_counter() - t0:.2f} s\n")
