r"""Frozen atoms: function atoms as independent polynomial generators.

sympy's domain constructor puts sin θ and cos θ of one angle (algebraically dependent) and
anything containing them in its slow expression domain EX.  Replaced by fresh symbols — *frozen*
— they become independent generators of a polynomial ring, where ``DomainMatrix`` arithmetic
(determinants, fraction-field elimination, cancellation by polynomial gcds) is fast and exact:
Appell's machine, a 5 × 5 determinant: 16 s in EX → 0.05 s frozen.  Every polynomial identity
in the frozen generators stays an identity after the atoms are substituted back; the relations
among them (sin² + cos² = 1, (√x)² = x) are simply not used — where that matters (a pivot or a
denominator that vanishes only *because* of such a relation) the callers decide with shadow
values (:mod:`.shadow`), which respect sin² + cos² = 1.
"""

from __future__ import annotations

import sympy as sp

__all__ = ["frozen_atoms", "freeze", "field_normal", "field_product", "fits_polynomial_domain", "polynomial_fractions"]


def frozen_atoms(exprs) -> set:
    """The atoms that are frozen: applied functions (sin θ, cos θ, exp x, …) and powers with a
    non-integer exponent (√x), collected over the DAG (each shared subexpression once).

    Parameters
    ----------
    exprs : iterable of sympy.Basic
        The expressions (e.g. the entries of a matrix); non-sympy items are ignored.

    Returns
    -------
    set
        The outermost applied functions and non-integer powers: the generators that
        :func:`freeze` replaces by fresh symbols (their arguments are not searched further).

    Examples
    --------
    >>> x, th = sp.symbols("x theta")
    >>> sorted(frozen_atoms([sp.sin(th) * x + sp.sqrt(x)]), key=str)
    [sin(theta), sqrt(x)]
    """
    out: set = set()
    seen: set = set()
    stack = [e for e in exprs if isinstance(e, sp.Basic)]
    while stack:
        e = stack.pop()
        if e in seen or e.is_Atom:
            continue
        seen.add(e)
        if isinstance(e, sp.Function) or (e.is_Pow and not e.exp.is_Integer):
            out.add(e)
            continue
        stack.extend(e.args)
    return out


def freeze(M: sp.Matrix) -> tuple[sp.Matrix, dict]:
    """``(M', back)``: M with every frozen atom (:func:`frozen_atoms`) replaced by a fresh symbol,
    and the substitution back (``M'.xreplace(back) == M``).

    Parameters
    ----------
    M : sympy.Matrix
        The matrix.

    Returns
    -------
    tuple
        (M with the frozen atoms replaced by fresh symbols, {fresh symbol: atom}).
    """
    M = sp.Matrix(M)
    atoms = frozen_atoms(list(M))
    if not atoms:
        return M, {}
    rep = {a: sp.Dummy(f"g{i}") for i, a in enumerate(sorted(atoms, key=sp.default_sort_key))}
    return M.xreplace(rep), {v: k for k, v in rep.items()}


def fits_polynomial_domain(M: sp.Matrix) -> bool:
    """Cheap pre-check (no expansion) that, once frozen, the entries are rational functions:
    no power with a symbolic exponent (x**y) outside a frozen atom.

    Parameters
    ----------
    M : sympy.Matrix
        The matrix whose entries are checked (walked as a DAG, each shared node once).

    Returns
    -------
    bool
        True when no power with a non-numeric exponent occurs outside a function atom — then sympy's
        ``DomainMatrix.from_Matrix`` of the frozen matrix lands in a polynomial or fraction domain
        (not EX).

    Examples
    --------
    >>> x, y = sp.symbols("x y")
    >>> fits_polynomial_domain(sp.Matrix([sp.sin(x) / y])), fits_polynomial_domain(sp.Matrix([x**y]))
    (True, False)
    """
    seen: set = set()
    stack = list(M)
    while stack:
        e = stack.pop()
        if e in seen or not isinstance(e, sp.Basic) or e.is_Atom:
            continue
        seen.add(e)
        if isinstance(e, sp.Function):
            continue  # frozen whole
        if e.is_Pow and not e.exp.is_Number:
            return False
        stack.extend(e.args)
    return True


def polynomial_fractions(M) -> bool:
    """Whether the entries of ``M`` are quotients of polynomials once function atoms are frozen
    *and* the denominators hold no function atom: no non-integer power, no function atom inside
    a negative power (a walk over the DAG).  Stricter than :func:`fits_polynomial_domain`: what
    Cramer's rule in a polynomial ring needs (converting functions in denominators expands them:
    8 s for an articulated vehicle's reduced equations).

    Parameters
    ----------
    M : sympy.Matrix or iterable of sympy.Basic
        The entries to check.

    Returns
    -------
    bool
        True when every entry is a quotient of polynomials in the symbols and function atoms, with
        no function atom in a denominator and no non-integer power anywhere.

    Examples
    --------
    >>> x, th = sp.symbols("x theta")
    >>> polynomial_fractions([sp.cos(th) / x]), polynomial_fractions([x / sp.cos(th)])
    (True, False)
    """
    seen: set = set()
    stack = list(M)
    while stack:
        e = stack.pop()
        if e in seen or e.is_Atom:
            continue
        seen.add(e)
        if e.is_Pow and (not e.exp.is_Integer or (e.exp.is_negative and e.base.has(sp.Function))):
            return False
        stack.extend(e.args)
    return True


def field_normal(M: sp.Matrix) -> sp.Matrix:
    """Entries of M in lowest terms over the rational function field of the frozen atoms
    (numerator and denominator expanded and cancelled; no trigonometric reduction).

    Parameters
    ----------
    M : sympy.Matrix
        Entries rational in the symbols and the frozen atoms (:func:`frozen_atoms`).

    Returns
    -------
    sympy.Matrix
        Same shape; each entry p/q with p, q expanded polynomials without common factor (sympy's
        ``DomainMatrix`` over the fraction field), the atoms thawed back.  sin² θ + cos² θ is *not*
        reduced to 1: sin θ and cos θ are independent generators here (:mod:`.trig` does that).

    Examples
    --------
    >>> x, th = sp.symbols("x theta")
    >>> field_normal(sp.Matrix([(x**2 - 1) / (x - 1) + sp.sin(th)]))
    Matrix([[x + sin(theta) + 1]])
    """
    from sympy.polys.matrices import DomainMatrix

    M = sp.Matrix(M)
    if M.rows == 0 or M.cols == 0:
        return M
    Mf, back = freeze(M)
    return DomainMatrix.from_Matrix(Mf).to_Matrix().xreplace(back)


def field_product(A: sp.Matrix, B: sp.Matrix) -> sp.Matrix:
    """A·B with the arithmetic done in the rational function field of the frozen atoms: the
    entries of A and B are converted one by one (each already a small fraction) and multiplied
    there, every sum kept in lowest terms — never the expanded sympy product of large fractions
    converted as a whole (minutes for the reactions Fᵀλ of the heavy disc in Ghori's non-linear
    form).  Entries in lowest terms, no trigonometric reduction.

    Parameters
    ----------
    A : sympy.Matrix
        m × k, entries rational in the symbols and frozen atoms.
    B : sympy.Matrix
        k × n, likewise.

    Returns
    -------
    sympy.Matrix
        The m × n product A·B, every entry one fraction in lowest terms.

    Raises
    ------
    ValueError
        If the shapes do not match (A.cols ≠ B.rows).
    """
    from sympy.polys.matrices import DomainMatrix

    A, B = sp.Matrix(A), sp.Matrix(B)
    if A.cols != B.rows:
        raise ValueError(f"field_product: shapes {A.shape} and {B.shape} do not match")
    if A.rows == 0 or B.cols == 0 or A.cols == 0:
        return sp.zeros(A.rows, B.cols)
    both = sp.Matrix([*A, *B])
    frozen, back = freeze(both)
    dm = DomainMatrix.from_Matrix(frozen).to_field()
    K = dm.domain
    flat = [dm[i, 0].element for i in range(both.rows)]
    na = A.rows * A.cols
    dA = DomainMatrix([flat[i * A.cols:(i + 1) * A.cols] for i in range(A.rows)], A.shape, K)
    dB = DomainMatrix([flat[na + i * B.cols: na + (i + 1) * B.cols] for i in range(B.rows)], B.shape, K)
    return (dA * dB).to_Matrix().xreplace(back)
