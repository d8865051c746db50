r"""Horizontalisation and the contact decomposition of forms on jet charts [Stolařová 2009, §2].

On J^{r+1}Y the 1-forms ``dt`` and the contact forms
:math:`\omega^\sigma_{(j)} = dq^\sigma_{(j)} - q^\sigma_{(j+1)}dt` (j ≤ r) together
with :math:`dq^\sigma_{(r+1)}` form a coframe.  A form η on J^rY, pulled back to
J^{r+1}Y, is rewritten by :math:`dq^\sigma_{(j)} = \omega^\sigma_{(j)} + q^\sigma_{(j+1)}dt`;
collecting the terms with exactly k contact factors gives its k-contact part
:math:`p_k\eta`, and

.. math:: \pi^*\eta = h\eta + p_1\eta + \dots + p_q\eta,

where the horizontal part hη = p₀η is obtained from
:math:`h(dt) = dt,\ h(dq^\sigma_{(j)}) = q^\sigma_{(j+1)}dt`.
A q-form is k-contact iff i_ξ of it is (k−1)-contact for every vertical ξ [Stolařová 2009],
and horizontal iff all its contractions with vertical fields vanish.
"""

from __future__ import annotations

from itertools import product

import sympy as sp

from ..errors import ChartError
from ..geometry import Form

__all__ = ["horizontal", "decompose"]


def _source_order(Y, eta: Form) -> int:
    """Jet order r of the chart η lives on (checked to be a jet chart of Y)."""
    for r in range(0, 8):
        if eta.chart == Y.jet_chart(r):
            return r
    raise ChartError(f"the form lives on {eta.chart!r}, which is not a jet chart of {Y!r}")


def decompose(Y, eta: Form) -> dict:
    """Contact decomposition {k: p_k η} on J^{r+1}Y (k = 0 is the horizontal part).

    Every degree k from 0 to deg η appears as a key (possibly with a zero form);
    the parts sum to the pullback of η to J^{r+1}Y.

    Parameters
    ----------
    Y : FibredManifold
        The bundle.
    eta : Form
        A form on J^r Y.

    Returns
    -------
    dict
        {k: p_k η}, the k-contact parts.
    """
    r = _source_order(Y, eta)
    C = Y.jet_chart(r + 1)
    src = eta.chart
    dt = C.dx(Y.t)
    # for each source coordinate: (contact part, horizontal coefficient)
    pieces = []
    for s in src.coords:
        if s == Y.t:
            pieces.append((None, sp.Integer(1)))
        else:
            k, sigma = Y.order_of(s)
            pieces.append((Y.contact_form(sigma, k, C), Y.jet_symbols(k + 1)[sigma]))
    parts = {k: Form.zero(C, eta.degree) for k in range(eta.degree + 1)}
    for idx, f in eta.components.items():
        # choose, for every factor, its contact part (c) or its dt part (h); at most one dt
        for choice in product((0, 1), repeat=len(idx)):
            if sum(choice) > 1:
                continue
            term = Form.function(C, f)
            ncontact = 0
            ok = True
            for i, use_dt in zip(idx, choice):
                contact, hcoef = pieces[i]
                if use_dt:
                    term = term ^ (hcoef * dt)
                else:
                    if contact is None:  # dt has no contact part
                        ok = False
                        break
                    term = term ^ contact
                    ncontact += 1
            if ok:
                parts[ncontact] = parts[ncontact] + term
    return parts


def horizontal(Y, eta: Form) -> Form:
    """The horizontal part hη on J^{r+1}Y (h dt = dt, h dq^σ_(j) = q^σ_(j+1) dt).

    Parameters
    ----------
    Y : FibredManifold
        The bundle.
    eta : Form
        A form on J^r Y.

    Returns
    -------
    Form
        hη = p_0 η on J^{r+1} Y.
    """
    return decompose(Y, eta)[0]
