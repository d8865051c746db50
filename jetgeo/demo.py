"""The built-in demonstration behind ``jetgeo demo``.

It grows with the library: each section shows one layer on a classical system.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

import sympy as sp

from . import recipes, systems
from .errors import JetgeoError
from .geometry import Chart, Distribution, VectorField
from .geometry.zero import is_zero
from .implicit import NonholonomicProblem
from .jets import FibredManifold
from .mechanics import ConstraintSubmanifold, LagrangianSystem

__all__ = ["run_demo", "main", "derive_all", "agreement_table", "rolling_disc_distribution", "rolling_disc_system"]


def rolling_disc_distribution() -> Distribution:
    r"""The vertical rolling disc's constraint distribution on R² × T².

    Coordinates (x, y, θ, ψ): contact point, rolling angle θ, heading ψ.  Rolling
    without slipping, ẋ = R cos ψ θ̇, ẏ = R sin ψ θ̇, leaves the directions
    ∂_θ + R cos ψ ∂_x + R sin ψ ∂_y and ∂_ψ [Benenti 2007, §9.2].

    Returns
    -------
    Distribution
        The rank-2 distribution on the chart (x, y, θ, ψ); R is a positive symbol.  It is not
        involutive and its derived flag fills the tangent space: the rolling constraint is
        completely non-holonomic.

    Examples
    --------
    >>> D = rolling_disc_distribution()
    >>> D.rank, D.growth_vector(), D.is_involutive().involutive
    (2, (2, 3, 4), False)
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
    """Print the demonstration to ``out``.

    Geometry of the vertical rolling disc (its distribution, Frobenius, the derived flag, the
    annihilator), then its equations of motion by every method and whether they agree.

    Parameters
    ----------
    out : TextIO, default sys.stdout
        Where to write.
    """
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
    _dynamics(out)
    out.write(f"\ndone in {time.perf_counter() - t0:.2f} s\n")


def rolling_disc_system():
    """(system, Q) of the vertical rolling disc: K of [Benenti 2007, eq. (9.3)], constraints (9.2).

    Returns
    -------
    tuple
        ``(system, Q)``: the :class:`~jetgeo.mechanics.LagrangianSystem` with
        T = m(ẋ² + ẏ²)/2 + (A θ̇² + B ψ̇²)/2 and the :class:`~jetgeo.mechanics.ConstraintSubmanifold`
        ẋ = R cos ψ θ̇, ẏ = R sin ψ θ̇ with ẋ, ẏ dependent.

    Examples
    --------
    >>> S, Q = rolling_disc_system()
    >>> Q.classify().kind
    'chaplygin'
    """
    Y = FibredManifold(["x", "y", "theta", "psi"], time="t")
    _x, _y, _th, ps = Y.q
    xd, yd, thd, psd = Y.qdot
    m, A, B, R = sp.symbols("m A B R", positive=True)
    S = LagrangianSystem.mechanical(Y, m / 2 * (xd**2 + yd**2) + (A * thd**2 + B * psd**2) / 2)
    Q = ConstraintSubmanifold(Y, [xd - R * sp.cos(ps) * thd, yd - R * sp.sin(ps) * thd], dependent=[xd, yd])
    return S, Q


def derive_all(S, Q, psi=None, z=None) -> dict:
    """{method: Motion or the exception saying why it does not apply}: every recipe, Ghori's
    forms, Novoselov's coordinates (the natural quasi-velocities of the parametrisation) and
    the unique SODE of the non-holonomic problem [Ibort et al. 1996, Theorem 2].

    Parameters
    ----------
    S : LagrangianSystem
        The system.
    Q : ConstraintSubmanifold
        The constraint submanifold Q ⊂ J¹Y.
    psi : sequence of sympy.Expr, optional
        A parametrisation q̇ = ψ(t, q, z) for the recipes of the first kind [Benenti 2007, §7].
    z : sequence of Symbol, optional
        The parameters of ``psi``.

    Returns
    -------
    dict
        {method name: Motion}, or the :class:`~jetgeo.errors.JetgeoError` raised when a method's
        hypotheses fail.
    """
    out = recipes.all_recipes(S, Q, psi=psi, z=z)
    for name, make in (("ghori R [Ghori 1960, eq. (2.3.14)]", lambda: recipes.ghori_symmetric(S, Q, "R")),
                       ("ghori S [Ghori 1960, eq. (2.2.19)]", lambda: recipes.ghori_symmetric(S, Q, "S")),
                       ("ibort SODE [Ibort et al. 1996]", lambda: NonholonomicProblem(S, Q).solve())):
        try:
            out[name] = make()
        except JetgeoError as exc:
            out[name] = exc
    return out


def agreement_table(results: dict, reference: str = "krupkova") -> tuple[list, bool]:
    """Rows (method, verdict, decided by) of ``equivalent(reference, method)``; and whether all agree.

    Parameters
    ----------
    results : dict
        {method name: Motion or exception}, as :func:`derive_all` returns.
    reference : str, default "krupkova"
        The method every other one is compared with (it must be a Motion in ``results``).

    Returns
    -------
    tuple
        ``(rows, all_agree)``: rows (method, "agrees" / "DISAGREES" / "not applicable", how it
        was decided), and whether every applicable method agrees with the reference.
    """
    ref = results[reference]
    rows, ok = [], True
    for name, res in results.items():
        if name == reference:
            continue
        if isinstance(res, Exception):
            rows.append((name, "not applicable", f"{type(res).__name__}: {res}"))
            continue
        rep = recipes.equivalent(ref, res)
        ok = ok and bool(rep)
        kind = "symbolically" if rep.method in ("structural", "normal form", "trig normal form") else "at random points"
        how = f"{kind}: {rep.method}" + (f" (failure probability <= {rep.bound:.0e})" if rep.bound else "")
        rows.append((name, "agrees" if rep else "DISAGREES", how))
    return rows, ok


def _dynamics(out: TextIO) -> None:
    e = systems.load("vertical_disc")
    S, Q = e
    _section(out, "Mechanics: Krupková's constrained system on Q [Stolařová 2009, eqs. (6)–(12)]")
    out.write(f"  catalogue entry 'vertical_disc' [{e.reference}]\n")
    out.write(f"  Lagrangian regular: {S.is_regular()} (det W = {S.regularity_condition()})\n")
    out.write(f"  constraints: {'; '.join(f'{f} = 0' for f in Q.f)}\n")
    out.write(f"  classification: {Q.classify()}\n")
    cs = S.constrain(Q)
    out.write(f"  normal form: {cs.nf}\n")
    out.write(f"  regularity (12): {cs.regularity_condition()} != 0  -> regular: {cs.is_regular()}\n")
    acc = cs.accelerations()
    out.write("  equations of motion on Q:\n")
    for a, ex in acc.items():
        out.write(f"    {a} = {ex}\n")
    out.write("  Chetaev multipliers: " + ", ".join(map(str, cs.multipliers())) + "\n")
    dE = cs.on_Q(S.Y.total_derivative(S.energy())).xreplace(acc)
    out.write(f"  energy conserved along the motion (dE/dt = 0 on Q): {is_zero(dE)}\n")

    _section(out, "Compatibility of the problem (L, C, D, F) [Ibort et al. 1996, Theorem 2]")
    P = NonholonomicProblem(S, Q)
    out.write("  " + str(P.compatibility()).replace("\n", "\n  ") + "\n")
    _section(out, "Integrability algorithm [Ibort et al. 1996, eqs. (3.9)–(3.10)]")
    out.write("  " + str(P.integrability()).replace("\n", "\n  ") + "\n")

    _section(out, "Every method, compared with Krupková's reduced equations by recipes.equivalent")
    results = derive_all(S, Q, e.psi, e.z)
    rows, ok = agreement_table(results)
    w = max(len(r[0]) for r in rows)
    for name, verdict, how in rows:
        out.write(f"  {name:{w}s}  {verdict:14s}  {how}\n")
    n_ok = sum(1 for r in rows if r[1] == "agrees")
    n_na = sum(1 for r in rows if r[1] == "not applicable")
    out.write(f"  {n_ok} methods agree with krupkova, {n_na} not applicable, "
              f"{len(rows) - n_ok - n_na} disagree\n")
    out.write("  ALL METHODS AGREE\n" if ok else "  SOME METHODS DISAGREE\n")


def main() -> int:
    """Entry point of ``jetgeo demo`` (and ``python -m jetgeo.demo``).

    Returns
    -------
    int
        The exit code, 0.
    """
    run_demo()
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
