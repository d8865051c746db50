r"""Krupková's reduced equations [Stolařová 2009, §2] as a :class:`Motion` — the reference result.

The reduced equations J¹γ* i_ξ α_Q = 0 for ξ in the canonical distribution [Stolařová 2009, eq. (7)],
in coordinates A′_l + B′_ls q̈^s = 0 [Stolařová 2009, eq. (8)], solved for the independent
accelerations where det B′ ≠ 0 [Stolařová 2009, eq. (12)]; the dependent ones follow from
q̈^D = d g^D/dt on the prolongation of Q.  Everything is computed by
:class:`jetgeo.mechanics.ConstrainedSystem`; this function only packages it.
"""

from __future__ import annotations

from ..geometry.exact import solve_affine
from ..mechanics import ConstraintSubmanifold, LagrangianSystem, QuasiVelocitySystem
from ._common import Motion, accelerations_on_Q, constrained, coordinate_form

__all__ = ["krupkova", "voronets"]


class _CoreMotion(Motion):
    """A Motion whose multipliers and reactions are the core's, computed on first use.

    (``ConstrainedSystem.multipliers`` can take long on large systems — the co-axial discs of
    [Benenti 2007, §9.3] — and the accelerations alone are often all that is wanted.)
    """

    def _fill(self) -> None:
        if self._multipliers is None:
            cs = self.extras["constrained_system"]
            self._multipliers = cs.multipliers()
            self._reactions = cs.reaction_forces()

    def multipliers(self) -> list:
        """Chetaev's multipliers λ_i of the core (:meth:`ConstrainedSystem.multipliers`), computed on first use.

        Returns
        -------
        list
            λ_i with R_σ = λ_i ∂f^i/∂q̇^σ [Benenti 2007, eq. (3.14)].
        """
        self._fill()
        return list(self._multipliers)

    def reactions(self) -> list:
        """The reaction forces R_σ of the core (:meth:`ConstrainedSystem.reaction_forces`), computed on first use.

        Returns
        -------
        list
            R_σ, covariant components.
        """
        self._fill()
        return list(self._reactions)


def _motion(cs, recipe: str, acc: dict, extras: dict) -> Motion:
    return _CoreMotion(
        recipe=recipe,
        system=cs.system,
        Q=cs.Q,
        accelerations=acc,
        coordinates=tuple(cs.chart.coords),
        substitution=dict(cs.g),
        conditions=[c for c in (cs.regularity_condition(), cs.nf.condition) if c != 1],
        extras={"constrained_system": cs, **extras},
        branch=cs.nf.branch.index,
    )


def krupkova(system: LagrangianSystem | QuasiVelocitySystem,
             Q: ConstraintSubmanifold | None = None, branch: int | None = None,
             dependent=None) -> Motion:
    """Equations of motion on Q by Krupková's constrained system [Stolařová 2009, eqs. (7)–(12)].

    Parameters
    ----------
    system : LagrangianSystem
        L and the forces A_σ on J¹Y.
    Q : ConstraintSubmanifold
        The constraints f^i(t, q, q̇) = 0.
    branch : int or None
        The branch of a nonlinear constraint's normal form (None: Q's own).
    dependent : sequence of Symbols, optional
        The dependent velocities q̇^D of the normal form (default: Q's choice).

    Returns
    -------
    Motion
        Accelerations in (t, q, q̇^I) on Q; multipliers and reactions of the core, computed on first use;
        ``extras["constrained_system"]`` the :class:`~jetgeo.mechanics.ConstrainedSystem`.

    Examples
    --------
    >>> import sympy as sp
    >>> from jetgeo import FibredManifold, LagrangianSystem, ConstraintSubmanifold
    >>> Y = FibredManifold(["x", "y", "theta"]); x, y, th = Y.q; xd, yd, thd = Y.qdot
    >>> S = LagrangianSystem(Y, (xd**2 + yd**2 + thd**2) / 2)
    >>> M = krupkova(S, ConstraintSubmanifold(Y, [xd*sp.sin(th) - yd*sp.cos(th)]))
    >>> sorted(M.accelerations(), key=str)[0]
    thetaddot
    """
    system, Q = coordinate_form(system, Q, "krupkova")
    cs = constrained(system, Q, branch=branch, dependent=dependent)
    return _motion(cs, "krupkova", cs.accelerations(),
                   {"constrained_system": cs, "reduced_equations": cs.reduced_equations()})


def voronets(system: LagrangianSystem | QuasiVelocitySystem,
             Q: ConstraintSubmanifold | None = None, branch: int | None = None,
             dependent=None) -> Motion:
    r"""Voronets' equations (affine constraints), and their Chetaev generalisation.

    With L̄ = L∘ι the constrained Lagrangian, a^D_l = ∂g^D/∂q̇^l and d̄/dt the total
    derivative on Q, the equations for l ∈ I read

    .. math:: \frac{d}{dt}\frac{\partial \bar L}{\partial \dot q^l} - \frac{\partial \bar L}{\partial q^l}
              - a^D_l\frac{\partial \bar L}{\partial q^D}
              - \overline{\frac{\partial L}{\partial\dot q^D}}\Big(\frac{d}{dt}a^D_l - \frac{\partial g^D}{\partial q^l}
              - a^E_l\frac{\partial g^D}{\partial q^E}\Big) = \bar A_l + a^D_l \bar A_D,

    which is Krupková's coordinate form ([Stolařová 2009, eqs. (9)–(11)], with the index misprints of (9)
    corrected) — so this recipe *is* that formula, evaluated through L̄ rather than
    through the projection of the Euler–Lagrange expressions used by :func:`krupkova`.
    For affine g these are Voronets' equations.

    Parameters
    ----------
    system : LagrangianSystem
        L and the forces A_σ on J¹Y.
    Q : ConstraintSubmanifold
        The constraints f^i(t, q, q̇) = 0.
    branch : int or None
        The branch of a nonlinear constraint's normal form (None: Q's own).
    dependent : sequence of Symbols, optional
        The dependent velocities q̇^D of the normal form (default: Q's choice).

    Returns
    -------
    Motion
        Accelerations in (t, q, q̇^I) on Q.
    """
    system, Q = coordinate_form(system, Q, "voronets")
    cs = constrained(system, Q, branch=branch, dependent=dependent)
    A, B = cs.krupkova_coefficients()
    qdd = [cs.Y.qddot[i] for i in cs.independent_indices]
    eqs = [A[r] + sum((B[r, s] * qdd[s] for s in range(len(qdd))), 0) for r in range(len(qdd))]
    sol, det = solve_affine(eqs, qdd, "Voronets' equations")
    acc = accelerations_on_Q(cs, sol)
    m = _motion(cs, "voronets", acc, {"equations": eqs, "A": A, "B": B})
    m.conditions = [c for c in (det, cs.nf.condition) if c != 1]
    return m
