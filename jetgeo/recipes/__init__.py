"""Classical recipes for the equations of motion, as special cases of the core ([Benenti 2007], [Ghori 1960]).

Each recipe takes the system objects of :mod:`jetgeo.mechanics` and returns a
:class:`jetgeo.mechanics.Motion` (accelerations of every coordinate, multipliers and
reactions when the method gives them, the conditions under which it holds), so that
:func:`equivalent` can prove that they agree on the constraint manifold.

========================  ==================================================  =====================
recipe                    input                                               reference
========================  ==================================================  =====================
``krupkova``              (system, Q)                                         [Stolařová 2009, eqs. (7)–(12)]
``voronets``              (system, Q)                                         [Stolařová 2009, eqs. (9)–(11)]
``lagrange_multipliers``  (system, Q)                                         [Ghori 1960, eqs. (2.2.20)–(2.2.23)]
``gibbs_appell``          (system, Q) or (system, psi=…, z=…)                 [Benenti 2007, eq. (5.2)]; [Ghori 1960,
eq. (2.2.11)]
``benenti_first_kind``    (system, psi, z)                                    [Benenti 2007, Theorem 7.1]
``benenti_second_kind``   (system, Q)                                         [Benenti 2007, Theorem 8.1, eq. (8.6)]
``chaplygin``             (system, Q), Chaplygin systems                      [Stolařová 2009, eq. (5)]
``maggi``                 (system, Q)                                         [Ghori 1960, ch. 2]
``hamel``                 (system, Q, quasi=…), affine constraints            [Ghori 1960, ch. 4]
``ghori_symmetric``       (system, Q, "R" or "S")                             [Ghori 1960, eqs. (2.3.14), (2.2.19)]
``novoselov``             (system, Q, characteristics)                        [Ghori 1960, eqs. (4.3.12)–(4.3.14)]
========================  ==================================================  =====================
"""

from ..errors import JetgeoError
from ..progress import tracked
from ._common import Motion
from .benenti import benenti_first_kind, benenti_second_kind
from .chaplygin import chaplygin, chaplygin_choices, is_chaplygin
from .equivalence import EquivalenceReport, equivalent
from .ghori import ghori_symmetric, novoselov, tzenoff_function
from .gibbs_appell import energy_of_accelerations, gibbs_appell
from .hamel import hamel
from .krupkova import krupkova, voronets
from .maggi import maggi
from .multipliers import lagrange_multipliers

__all__ = [
    "Motion",
    "krupkova",
    "voronets",
    "lagrange_multipliers",
    "gibbs_appell",
    "energy_of_accelerations",
    "benenti_first_kind",
    "benenti_second_kind",
    "chaplygin",
    "is_chaplygin",
    "chaplygin_choices",
    "maggi",
    "hamel",
    "ghori_symmetric",
    "tzenoff_function",
    "novoselov",
    "equivalent",
    "EquivalenceReport",
    "METHODS",
    "all_methods",
]

#: name → recipe taking (system, Q); the parametric recipes need psi, z (see :func:`all_methods`).
METHODS = {
    "krupkova": krupkova,
    "voronets": voronets,
    "multipliers": lagrange_multipliers,
    "gibbs-appell": gibbs_appell,
    "benenti2": benenti_second_kind,
    "maggi": maggi,
    "chaplygin": chaplygin,
    "hamel": hamel,
}


def all_methods(system, Q, psi=None, z=None, progress: bool | None = None) -> dict:
    """Run every applicable recipe: {name: Motion or the exception that says why it does not apply}.

    ``psi, z`` (a parametrisation of Q) add Benenti's first kind and the parametric
    Gibbs–Appell equations.  ``progress``: a tqdm bar over the recipes (None: only in a
    terminal; see :mod:`jetgeo.progress`).

    Parameters
    ----------
    system : LagrangianSystem
        L and the forces.
    Q : ConstraintSubmanifold
        The constraints.
    psi, z : sequences, optional
        A parametrisation q̇ = ψ(t, q, z) of Q.
    progress : bool or None
        Show a progress bar (None: only in a terminal).

    Returns
    -------
    dict
        {recipe name: Motion, or the exception saying why it does not apply}.
    """
    jobs = [(name, (lambda fn=fn: fn(system, Q))) for name, fn in METHODS.items()]
    if psi is not None:
        jobs += [("benenti1", lambda: benenti_first_kind(system, psi, z)),
                 ("gibbs-appell(z)", lambda: gibbs_appell(system, psi=psi, z=z))]
    out = {}
    for name, job in tracked(jobs, "deriving", progress, unit="recipe", label=lambda j: j[0]):
        try:
            out[name] = job()
        except JetgeoError as exc:
            out[name] = exc
    return out
