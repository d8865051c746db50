r"""The determinant, exact and without intermediate simplification.

sympy's ``Matrix.det`` (every method) runs its products through ``dotprodsimp``, which cancels
each intermediate product — minutes on the reduced mass matrix of a 3-trailer for a 2 × 2
determinant, more than half an hour for the Gauss matrix of Benenti's recipe on Appell's
machine.  Here a determinant is either

* Berkowitz's division-free algorithm with ``dotprodsimp`` switched off (matrices up to 3 × 3:
  a handful of products, result unexpanded), or
* the determinant in the polynomial ring (or its fraction field) of the entries' symbols and
  frozen atoms (:mod:`.freeze`, sympy's ``DomainMatrix``): the Leibniz polynomial of the entries
  is an identity there, so the result is exact wherever the entries are defined, expanded and,
  for rational entries, in lowest terms.

Matrices whose entries do not fit a polynomial domain use Berkowitz without simplification too.
"""

from __future__ import annotations

import sympy as sp

from ...errors import InputError
from ..coerce import as_matrix
from .freeze import fits_polynomial_domain, freeze

__all__ = ["det_exact", "berkowitz", "BERKOWITZ_MAX_SIZE"]

#: up to this size a determinant is expanded by Berkowitz (no simplification); above it in the
#: polynomial ring of the frozen atoms.
BERKOWITZ_MAX_SIZE = 3


def det_exact(M) -> sp.Expr:
    """det M, exact and unsimplified (see the module docstring).  Normalise the result if a
    canonical form is needed.

    Parameters
    ----------
    M : sympy.Matrix
        A square matrix.

    Returns
    -------
    sympy.Expr
        det M.

    Examples
    --------
    >>> th = sp.Symbol("theta")
    >>> sp.expand(det_exact(sp.Matrix([[sp.cos(th), -sp.sin(th)], [sp.sin(th), sp.cos(th)]])))
    sin(theta)**2 + cos(theta)**2
    """
    from sympy.polys.matrices import DomainMatrix

    M = as_matrix(M, "M")
    if M.rows != M.cols:
        raise InputError(f"det_exact: the matrix is {M.rows} × {M.cols}, not square")
    if M.rows == 0:
        return sp.Integer(1)
    if M.rows > BERKOWITZ_MAX_SIZE and fits_polynomial_domain(M):
        Mx, back = freeze(M)
        try:
            dM = DomainMatrix.from_Matrix(Mx)
        except (sp.PolynomialError, sp.CoercionFailed, NotImplementedError):
            dM = None  # not a rational-function matrix after all: Berkowitz below
        if dM is not None and not (dM.domain.is_EX or dM.domain.is_EXRAW):
            return dM.domain.to_sympy(dM.det()).xreplace(back)
    return berkowitz(M)


def berkowitz(M: sp.Matrix) -> sp.Expr:
    """Berkowitz's division-free determinant with sympy's intermediate simplification off.

    The characteristic-polynomial recursion of [Berkowitz 1984]: only ring operations, no division
    and no zero test, so it is exact on any commutative ring and needs no pivot choice.  sympy's
    ``dotprodsimp`` (which would try to simplify every intermediate dot product) is switched off
    for the call.

    Parameters
    ----------
    M : sympy.Matrix
        A square matrix with symbolic entries.

    Returns
    -------
    sympy.Expr
        det M, exact, not simplified (products and sums of the entries as the recursion forms them).

    Examples
    --------
    >>> a, b = sp.symbols("a b")
    >>> sp.expand(berkowitz(sp.Matrix([[a, b], [b, a]])))
    a**2 - b**2
    """
    from sympy.matrices.utilities import dotprodsimp

    with dotprodsimp(False):
        return sp.Matrix(M).det(method="berkowitz")
