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

import warnings

from ..errors import InputError, JetgeoError
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
    "RECIPES",
    "OLD_NAMES",
    "recipe_name",
    "all_recipes",
]

#: the old spellings of recipe names, still accepted with a DeprecationWarning: {old: name}.  The names are the
#: recipes' function names, from the mathematics (Lagrange's multipliers, Benenti's second kind, ...); the old
#: words were abbreviations of the command line and of :func:`all_recipes`.
OLD_NAMES = {
    "multipliers": "lagrange_multipliers",
    "gibbs-appell": "gibbs_appell",
    "benenti2": "benenti_second_kind",
    "benenti1": "benenti_first_kind",
    "gibbs-appell(z)": "gibbs_appell(z)",
}


def recipe_name(name: str, known=None, old: dict | None = None) -> str:
    """The name of a recipe: ``name`` itself when it is one of ``known``, the new name (with a
    :class:`DeprecationWarning`) when it is an old spelling, else an :class:`~jetgeo.errors.InputError`.

    Parameters
    ----------
    name : str
        A recipe's name, or an old spelling of it (:data:`OLD_NAMES`).
    known : iterable of str, optional
        The names accepted (default: those of :data:`RECIPES`).
    old : dict, optional
        The old spellings {old: name} (default :data:`OLD_NAMES`).

    Returns
    -------
    str
        The name in ``known``.

    Examples
    --------
    >>> recipe_name("maggi")
    'maggi'
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     recipe_name("benenti2")
    'benenti_second_kind'
    """
    known = list(RECIPES if known is None else known)
    old = OLD_NAMES if old is None else old
    if name in known:
        return name
    if name in old and old[name] in known:
        warnings.warn(f"the recipe name {name!r} is deprecated: use {old[name]!r}", DeprecationWarning, stacklevel=3)
        return old[name]
    raise InputError(f"unknown recipe {name!r}; known recipes: {', '.join(known)}")


class _Names(dict):
    """A dict keyed by recipe names in which an old spelling (:data:`OLD_NAMES`) still finds its entry, with a
    DeprecationWarning; iteration and ``in`` see the names only."""

    def __missing__(self, key):
        if key in OLD_NAMES and OLD_NAMES[key] in self:
            return self[recipe_name(key, self)]
        raise KeyError(key)


#: The one table of the recipes taking (system, Q): {name: callable}; the name is the function's.  The parametric
#: recipes need psi, z (see :func:`all_recipes`).  An old spelling (:data:`OLD_NAMES`) still finds its recipe, with a
#: DeprecationWarning.
RECIPES = _Names({fn.__name__: fn for fn in (krupkova, voronets, lagrange_multipliers, gibbs_appell,
                                             benenti_second_kind, maggi, chaplygin, hamel)})


def all_recipes(system, Q, psi=None, z=None, progress: bool | None = None) -> dict:
    """Run every applicable recipe: {name: Motion or the exception that says why it does not apply}.

    ``psi, z`` (a parametrisation of Q) add Benenti's first kind and the parametric
    Gibbs–Appell equations (``"gibbs_appell(z)"``).  ``progress``: a tqdm bar over the recipes (None: only in a
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
        {recipe name: Motion, or the exception saying why it does not apply}; an old spelling of a name
        (:data:`OLD_NAMES`) still finds its entry, with a DeprecationWarning.
    """
    jobs = [(name, (lambda fn=fn: fn(system, Q))) for name, fn in RECIPES.items()]
    if psi is not None:
        jobs += [("benenti_first_kind", lambda: benenti_first_kind(system, psi, z)),
                 ("gibbs_appell(z)", lambda: gibbs_appell(system, psi=psi, z=z))]
    out = _Names()
    for name, job in tracked(jobs, "deriving", progress, unit="recipe", label=lambda j: j[0]):
        try:
            out[name] = job()
        except JetgeoError as exc:
            out[name] = exc
    return out


#: the deprecated names of this module: {old: (new, object)}
_DEPRECATED = {"METHODS": ("RECIPES", RECIPES), "all_methods": ("all_recipes", all_recipes)}


def __getattr__(name: str):
    """The old names ``METHODS`` and ``all_methods``, with a DeprecationWarning."""
    if name in _DEPRECATED:
        new, obj = _DEPRECATED[name]
        warnings.warn(f"jetgeo.recipes.{name} is deprecated: use jetgeo.recipes.{new}", DeprecationWarning,
                      stacklevel=2)
        return obj
    raise AttributeError(f"module 'jetgeo.recipes' has no attribute {name!r}")
