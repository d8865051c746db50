r"""Geometry-kernel benchmark: jetgeo's plain forms vs sympy.diffgeom vs galgebra (and symengine).

Run as ``python benchmarks/bench_geometry.py`` (not part of pytest).  galgebra and
symengine are optional: a tool that is not installed is reported as such.

Workload on a chart of dimension n (n = 3, 5, 7: R³ and the J¹ charts of R×R² and
R×R³), every result computed *completely* (all components):

* ``d2``     — the exterior derivative of a 2-form with C(n,2) trigonometric/polynomial
               components (all C(n,3) components of dη);
* ``wedge``  — α ∧ η for a 1-form α and that 2-form (all components);
* ``bracket``— the Lie bracket of two vector fields (all n components);

and, once, the generic rank of the 3×3 mass matrix of a planar 3-link chain
(M_ij = (Σ_{k≥max(i,j)} m_k) l_i l_j cos(q_i − q_j)) and of a rank-deficient variant
(massless tip).  Results of the tools are cross-checked against each other.

How each tool gets "all components": jetgeo stores them; sympy.diffgeom evaluates the
form on every tuple of coordinate vectors (it has no component access, no interior
product on forms and no pullback); galgebra works with multivector fields in a
Euclidean geometric algebra (1-forms identified with vectors through the metric),
d = ∇∧, bracket (X·∇)Y − (Y·∇)X, and ``blade_coefs``; its set-up (``Ga.build``) is
timed separately because it grows like 2^n.  symengine: the same dict representation
as jetgeo with symengine coefficients (conversion from sympy included in the time).

Every timing is the median of 3 runs, each starting with an empty sympy cache.
"""

from __future__ import annotations

import statistics
import sys
import time
from itertools import combinations
from pathlib import Path

import sympy as sp
from sympy.core.cache import clear_cache

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.provenance import provenance_lines  # noqa: E402
from jetgeo.geometry import Chart, Form, VectorField, generic_rank  # noqa: E402

try:
    import galgebra  # noqa: F401
    from galgebra.ga import Ga
except ImportError:  # pragma: no cover - optional
    Ga = None
try:
    import symengine as se
except ImportError:  # pragma: no cover - optional
    se = None

REPEATS = 3


def median_time(fn, repeats: int = REPEATS):
    times, out = [], None
    for _ in range(repeats):
        clear_cache()
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


# --- the workload ------------------------------------------------------------------------------


def coordinates(n: int):
    return sp.symbols(f"c0:{n}", real=True)


def two_form_coeffs(c):
    n = len(c)
    return {
        (i, j): c[i] * c[j] * sp.sin(c[(i + j) % n]) + c[(i + 2 * j) % n] ** 2
        for i, j in combinations(range(n), 2)
    }


def one_form_coeffs(c):
    n = len(c)
    return [c[(i + 1) % n] * sp.cos(c[i]) for i in range(n)]


def field_components(c):
    n = len(c)
    X = [c[(i + 1) % n] * sp.sin(c[(i + 2) % n]) for i in range(n)]
    Y = [c[i] ** 2 + sp.cos(c[(i + 1) % n]) * c[(i + 2) % n] for i in range(n)]
    return X, Y


# --- jetgeo ------------------------------------------------------------------------------------------


def jetgeo_ops(c):
    C = Chart(c)
    eta = Form(C, two_form_coeffs(c), 2)
    alpha = Form.one_form(C, one_form_coeffs(c))
    X, Y = (VectorField(C, comps) for comps in field_components(c))
    return {
        "d2": lambda: dict(eta.d().components),
        "wedge": lambda: dict((alpha ^ eta).components),
        "bracket": lambda: list(X.bracket(Y).components),
    }


# --- sympy.diffgeom -----------------------------------------------------------------------------------


def diffgeom_ops(c):
    from sympy.diffgeom import CoordSystem, Differential, Manifold, Patch, WedgeProduct

    n = len(c)
    cs = CoordSystem("C", Patch("P", Manifold("M", n)), list(c))
    f, dx, e = cs.base_scalars(), cs.base_oneforms(), cs.base_vectors()
    rep = dict(zip(c, f))
    eta = sp.Add(*[v.xreplace(rep) * WedgeProduct(dx[i], dx[j]) for (i, j), v in two_form_coeffs(c).items()])
    alpha = sp.Add(*[v.xreplace(rep) * dx[i] for i, v in enumerate(one_form_coeffs(c))])
    Xc, Yc = field_components(c)
    X = sp.Add(*[v.xreplace(rep) * e[i] for i, v in enumerate(Xc)])
    Y = sp.Add(*[v.xreplace(rep) * e[i] for i, v in enumerate(Yc)])

    back = dict(zip(f, c))  # results come as expressions in the BaseScalars: map them to the symbols

    def d2():
        deta = Differential(eta)
        return {idx: deta(*[e[i] for i in idx]).xreplace(back) for idx in combinations(range(n), 3)}

    def wedge():
        w = WedgeProduct(alpha, eta)
        return {idx: w(*[e[i] for i in idx]).xreplace(back) for idx in combinations(range(n), 3)}

    def bracket():
        # the commutator of two vector fields, applied to the coordinate functions
        return [(X.rcall(Y.rcall(fi)) - Y.rcall(X.rcall(fi))).xreplace(back) for fi in f]

    return {"d2": d2, "wedge": wedge, "bracket": bracket}


# --- galgebra ---------------------------------------------------------------------------------------------


def galgebra_setup(c):
    names = " ".join(f"e_{i}" for i in range(len(c)))
    g, *e = Ga.build(names, g=[1] * len(c), coords=tuple(c))
    return g, e


def galgebra_ops(c, g, e):
    n = len(c)
    eta = sum(((v * (e[i] ^ e[j])) for (i, j), v in two_form_coeffs(c).items()), 0 * e[0])
    alpha = sum((v * e[i] for i, v in enumerate(one_form_coeffs(c))), 0 * e[0])
    Xc, Yc = field_components(c)
    X = sum((v * e[i] for i, v in enumerate(Xc)), 0 * e[0])
    Y = sum((v * e[i] for i, v in enumerate(Yc)), 0 * e[0])
    blades3 = list(combinations(range(n), 3))

    def coefs(mv, grade_blades):
        # blade_coefs() lists all 2^n coefficients, grade by grade, indices in lexicographic order
        allc = mv.blade_coefs()
        offset = sum(_binom(n, k) for k in range(len(grade_blades[0])))
        return {idx: allc[offset + k] for k, idx in enumerate(grade_blades)}

    return {
        "d2": lambda: coefs(g.grad ^ eta, blades3),
        "wedge": lambda: coefs(alpha ^ eta, blades3),
        "bracket": lambda: (lambda b: [b[1 + i] for i in range(n)])(
            ((X | g.grad) * Y - (Y | g.grad) * X).blade_coefs()
        ),
    }


def _binom(n, k):
    from math import comb

    return comb(n, k)


# --- symengine coefficients (same representation as jetgeo) ---------------------------------------------


def symengine_ops(c):
    def conv(expr):
        return se.sympify(expr)

    def d(form, xs):
        out: dict = {}
        for idx, f in form.items():
            for j, x in enumerate(xs):
                if j in idx:
                    continue
                df = f.diff(x)
                if df == 0:
                    continue
                sign = -1 if sum(1 for i in idx if i < j) % 2 else 1
                new = tuple(sorted(idx + (j,)))
                out[new] = out.get(new, 0) + sign * df
        return out

    def wedge(a, b):
        out: dict = {}
        for ia, u in a.items():
            for ib, v in b.items():
                if set(ia) & set(ib):
                    continue
                inv = sum(1 for i in ia for j in ib if i > j)
                new = tuple(sorted(ia + ib))
                out[new] = out.get(new, 0) + (-1 if inv % 2 else 1) * u * v
        return out

    def bracket(X, Y, xs):
        def act(V, f):
            return sum((V[i] * f.diff(x) for i, x in enumerate(xs)), se.Integer(0))

        return [act(X, b) - act(Y, a) for a, b in zip(X, Y)]

    def d2():
        xs = [conv(x) for x in c]
        eta = {k: conv(v) for k, v in two_form_coeffs(c).items()}
        return d(eta, xs)

    def wedge_():
        eta = {k: conv(v) for k, v in two_form_coeffs(c).items()}
        alpha = {(i,): conv(v) for i, v in enumerate(one_form_coeffs(c))}
        return wedge(alpha, eta)

    def bracket_():
        xs = [conv(x) for x in c]
        Xc, Yc = field_components(c)
        return bracket([conv(v) for v in Xc], [conv(v) for v in Yc], xs)

    return {"d2": d2, "wedge": wedge_, "bracket": bracket_}


# --- cross-checks ---------------------------------------------------------------------------------------------


def same(a, b) -> bool:
    """Results agree (dicts of components or lists), compared with sympy after expand."""
    def plain(e):  # symengine drops assumptions: compare symbols by name
        e = sp.sympify(e)
        return e.xreplace({v: sp.Symbol(v.name) for v in e.free_symbols})

    if isinstance(a, dict):
        keys = set(a) | set(b)
        return all(sp.expand(plain(a.get(k, 0)) - plain(b.get(k, 0))) == 0 for k in keys)
    return len(a) == len(b) and all(sp.expand(plain(u) - plain(v)) == 0 for u, v in zip(a, b))


# --- the chain mass matrix ------------------------------------------------------------------------------------


def chain_mass_matrix(n: int = 3, massless_tip: bool = False):
    q = sp.symbols(f"q1:{n + 1}")
    m = list(sp.symbols(f"m1:{n + 1}", positive=True))
    ell = sp.symbols(f"l1:{n + 1}", positive=True)
    if massless_tip:
        m[-1] = 0
    return sp.Matrix(n, n, lambda i, j: sum(m[max(i, j):]) * ell[i] * ell[j] * sp.cos(q[i] - q[j]))


def rank_benchmarks() -> list:
    rows = []
    for label, M in (("full rank", chain_mass_matrix()), ("massless tip", chain_mass_matrix(massless_tip=True))):
        t, r = median_time(lambda M=M: generic_rank(M).rank)
        rows.append((f"3-link chain M ({label})", "jetgeo generic_rank", t, r))
        t, r = median_time(lambda M=M: M.rank())
        rows.append((f"3-link chain M ({label})", "sympy Matrix.rank()", t, r))
        t, r = median_time(lambda M=M: M.rank(simplify=True), repeats=1)
        rows.append((f"3-link chain M ({label})", "sympy Matrix.rank(simplify=True)", t, r))
        t, dz = median_time(lambda M=M: M.det(method="berkowitz").is_zero)
        rows.append((f"3-link chain M ({label})", "sympy det().is_zero", t, dz))
        t, dz = median_time(lambda M=M: sp.simplify(M.det(method="berkowitz")) == 0, repeats=1)
        rows.append((f"3-link chain M ({label})", "sympy simplify(det) == 0", t, dz))
    return rows


def main() -> None:
    print("\n".join(provenance_lines("python benchmarks/bench_geometry.py", prefix="# ")))
    print(f"sympy {sp.__version__}; galgebra: {'yes' if Ga else 'not installed'}; "
          f"symengine: {'yes' if se else 'not installed'}; medians of {REPEATS} runs\n")
    header = f"{'n':>2}  {'operation':<8} {'jetgeo':>9} {'diffgeom':>9} {'galgebra':>9} {'symengine':>9}"
    print(header)
    print("-" * len(header))
    setups = {}
    for n in (3, 5, 7):
        c = coordinates(n)
        jet = jetgeo_ops(c)
        dg = diffgeom_ops(c)
        ga = None
        if Ga is not None:
            t_setup, (g, e) = median_time(lambda c=c: galgebra_setup(c), repeats=1)
            setups[n] = t_setup
            ga = galgebra_ops(c, g, e)
        sy = symengine_ops(c) if se is not None else None
        for op in ("d2", "wedge", "bracket"):
            tj, rj = median_time(jet[op])
            td, rd = median_time(dg[op])
            assert same(rj, rd), f"diffgeom disagrees on {op}, n={n}"
            cells = [f"{tj:9.4f}", f"{td:9.4f}"]
            if ga is not None:
                tg, rg = median_time(ga[op])
                assert same(rj, rg), f"galgebra disagrees on {op}, n={n}"
                cells.append(f"{tg:9.4f}")
            else:
                cells.append(f"{'-':>9}")
            if sy is not None:
                ts, rs = median_time(sy[op])
                assert same(rj, rs), f"symengine disagrees on {op}, n={n}"
                cells.append(f"{ts:9.4f}")
            else:
                cells.append(f"{'-':>9}")
            print(f"{n:>2}  {op:<8} " + " ".join(cells))
    if setups:
        print("\ngalgebra set-up (Ga.build with coordinates): "
              + ", ".join(f"n={n}: {t:.2f} s" for n, t in setups.items()))
    print("\ngeneric rank of the 3-link chain mass matrix (seconds, result)")
    for what, tool, t, r in rank_benchmarks():
        print(f"  {what:<30} {tool:<34} {t:8.4f}  {r}")


if __name__ == "__main__":
    main()
