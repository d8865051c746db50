r"""|a| and sign(a) of a *real* argument.

Jet coordinates are real, but their sympy symbols carry no assumption (a user's
``sympy.Symbol("x")`` must be the same symbol).  sympy's ``Abs`` of an argument not known to be
real differentiates through ``re`` and ``im``:
:math:`\partial_x|x| = (\operatorname{re}x\,\partial_x\operatorname{re}x
+ \operatorname{im}x\,\partial_x\operatorname{im}x)/|x|`, which no numerical evaluation can use
("Can't calculate derivative wrt …"), and ``sign`` does not differentiate at all.

These subclasses are the functions of real analysis:

.. math:: \frac{d}{dx}|a| = \operatorname{sign}(a)\,a',\qquad \frac{d}{dx}\operatorname{sign}(a) = 0
          \quad (a \ne 0),

(the distributional part 2δ(a)a' of the second at a = 0 is dropped: equations of motion with dry
friction are smooth away from the switching surface, and the integrator meets a = 0 only as an
event).  They keep sympy's names, so that every printer (text, LaTeX, Python and C code) and the
spec writer treat them as ``Abs`` and ``sign``.  The spec parser builds ``abs``/``Abs``/``sign``
with them.

>>> import sympy as sp
>>> x = sp.Symbol("x")
>>> Abs(x**2 - 1).diff(x), sign(x).diff(x)
(2*x*sign(x**2 - 1), 0)
"""

from __future__ import annotations

import sympy as sp

from .exact.size import atoms_dag

__all__ = ["Abs", "sign", "real_functions"]


class Abs(sp.Abs):
    """|a| for a real argument a (derivative sign(a)·a')."""

    def _eval_derivative(self, x):
        a = self.args[0]
        return sign(a) * sp.diff(a, x)

    def _eval_conjugate(self):
        return self


class sign(sp.sign):  # noqa: N801 - sympy's name, so that printers treat it as sign
    """sign(a) for a real argument a (derivative 0 away from a = 0)."""

    def _eval_derivative(self, x):
        return sp.Integer(0)

    def _eval_conjugate(self):
        return self


_REAL = {sp.Abs: Abs, sp.sign: sign}


def real_functions(expr: sp.Expr) -> sp.Expr:
    """``expr`` with sympy's ``Abs`` and ``sign`` replaced by the real-argument ones of this module.

    An expression built in Python (``sympy.Abs(xdot)**3``) carries sympy's functions, whose
    derivatives for an argument not known to be real are not evaluable (``re``, ``im`` and an
    unevaluated derivative of ``sign``); the spec parser builds the real ones directly.

    Parameters
    ----------
    expr : sympy.Expr
        An expression in jet coordinates and parameters (all real).

    Returns
    -------
    sympy.Expr
        The same expression, its ``Abs`` and ``sign`` differentiable for real arguments (``expr``
        itself when it holds neither).

    Examples
    --------
    >>> x = sp.Symbol("x")
    >>> real_functions(sp.Abs(x) ** 3).diff(x)
    3*Abs(x)**2*sign(x)
    """
    if not any(type(a) in _REAL for a in atoms_dag(expr, sp.Abs, sp.sign)):  # each shared node once
        return expr
    return expr.replace(lambda a: type(a) in _REAL, lambda a: _REAL[type(a)](*a.args))
