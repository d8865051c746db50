"""The ``jetgeo`` command.

::

    jetgeo demo                          a built-in system end to end
    jetgeo derive SPEC [--method M] [--format text|latex|json|python]
    jetgeo check SPEC                    regularity, classification, singular states, compatibility
    jetgeo simulate SPEC --t-end T [--formulation F] [--rtol R] [--atol A] [--max-step H]
                         [--plot out.png] [--csv out.csv]
    jetgeo sweep SPEC --t-end T --param NAME=START:STOP:N ... [--scheduler local|ADDRESS] [--out FILE.nc]
    jetgeo examples                      the shipped spec files (and the systems catalogue)
    jetgeo show NAME                     print a shipped spec

SPEC is a path to a TOML spec file or the name of a shipped one (``jetgeo examples``).
Exit codes: 0 success, 1 the mathematics says no (not regular, incompatible, the
chosen recipe's hypotheses fail, e.g. ``--method chaplygin`` on a nonlinear constraint, or
``simulate`` ended before ``--t-end`` at a singular state — the reason on stderr, one line),
2 bad input (malformed spec, unknown method, initial data off Q, ...), 3 an internal error (a bug).
Messages go to stderr, without a Python traceback unless ``--debug`` is given.

Layers above :mod:`jetgeo.mechanics` (implicit, recipes, numerics, systems) are
imported lazily: a method whose module is absent exits 2 with "method X is not
available".
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path

from . import __version__
from .errors import IncompatibleError, JetgeoError, NotApplicableError, NotRegularError, SpecError

__all__ = ["main", "build_parser", "METHODS", "MethodUnavailable", "derive_motion"]


class MethodUnavailable(SpecError):
    """A derivation method exists in jetgeo's list but its module is not installed/implemented."""


#: method name → (module, attribute names to try, calling convention); "core" = Krupková in mechanics.
#: The recipes are those of :data:`jetgeo.recipes.METHODS` plus Benenti's first kind (which needs a
#: parametrisation ψ, z: the spec's [constraints.parametric], else z = the independent velocities).
METHODS: dict = {
    "krupkova": ("core", (), "core"),
    "ibort": ("jetgeo.implicit", ("NonholonomicProblem",), "problem"),
    "multipliers": ("jetgeo.recipes", ("lagrange_multipliers",), "sysQ"),
    "gibbs-appell": ("jetgeo.recipes", ("gibbs_appell",), "sysQ"),
    "benenti1": ("jetgeo.recipes", ("benenti_first_kind",), "psi"),
    "benenti2": ("jetgeo.recipes", ("benenti_second_kind",), "sysQ"),
    "voronets": ("jetgeo.recipes", ("voronets",), "sysQ"),
    "maggi": ("jetgeo.recipes", ("maggi",), "sysQ"),
    "chaplygin": ("jetgeo.recipes", ("chaplygin",), "sysQ"),
    "hamel": ("jetgeo.recipes", ("hamel",), "sysQ"),
}
FORMATS = ("text", "latex", "json", "python")


# --- resolving specs ------------------------------------------------------------------------------


def _resolve(name: str) -> Path:
    p = Path(name)
    if p.is_file():
        return p
    from .io.specs import catalogue

    cat = catalogue()
    key = name[:-5] if name.endswith(".toml") else name
    if key in cat and not (p.suffix and p.parent != Path(".")):
        return cat[key]
    raise SpecError(f"{name}: no such file, and no shipped spec of that name (see `jetgeo examples`)")


def _catalogue_names() -> list:
    try:
        systems = importlib.import_module("jetgeo.systems")
        return list(systems.names())
    except Exception:  # the catalogue is optional (and written in parallel)
        return []


def _load(name: str):
    """A spec by path, shipped name, or name in the Python catalogue jetgeo.systems."""
    from .io import load_spec
    from .io.spec import spec_from_catalogue

    try:
        path = _resolve(name)
    except SpecError:
        if name in _catalogue_names():
            return spec_from_catalogue(name)
        raise
    return load_spec(path, source=name)


# --- derivation ---------------------------------------------------------------------------------------


def _import(modname: str, method: str):
    try:
        return importlib.import_module(modname)
    except ImportError:
        raise MethodUnavailable(
            f"method {method} is not available ({modname} is not part of this installation)"
        ) from None


def _parametrisation(spec):
    """(psi, z) for Benenti's first kind: the spec's own, else z = the independent velocities."""
    import sympy as sp

    if spec.psi is not None:
        return list(spec.psi), list(spec.z), {}
    cs = spec.constrained()
    z = {v: sp.Symbol(f"z_{v}") for v in cs.independent}
    psi = [z[v] if v in z else cs.g[v].xreplace(z) for v in spec.Y.qdot]
    back = {s: v for v, s in z.items()}
    return psi, list(z.values()), back


def derive_motion(spec, method: str = "krupkova"):
    """(accelerations dict, extra info dict) of ``spec`` by ``method``.

    Accelerations are {q̈: expression}; for Benenti's first kind on a spec given
    implicitly, the parameters z are mapped back to the independent velocities.
    """
    if method not in METHODS:
        raise SpecError(f"unknown method {method!r}; known methods: {', '.join(METHODS)}")
    modname, attrs, style = METHODS[method]
    info: dict = {"method": method, "conditions": []}
    if spec.Q is None:
        if method != "krupkova":
            raise SpecError(f"{spec.source}: method {method} needs constraints; the spec has none "
                            "(use --method krupkova)")
        return spec.accelerations(), info
    if style == "core":
        cs = spec.constrained()
        acc = spec.accelerations()
        info["conditions"] = [c for c in (cs.nf.condition, cs.regularity_condition()) if not c.is_number]
        info["normal_form"] = dict(cs.g)
        return acc, info
    try:
        return _derive_by(spec, method, modname, attrs, style, info)
    except (NotRegularError, IncompatibleError, NotApplicableError) as exc:
        if str(exc).startswith(f"{spec.source}:"):
            raise
        raise type(exc)(f"{spec.source}: method {method}: {exc}") from exc


def _derive_by(spec, method: str, modname: str, attrs: tuple, style: str, info: dict):
    mod = _import(modname, method)
    fn = next((getattr(mod, a) for a in attrs if hasattr(mod, a)), None)
    if fn is None:
        raise MethodUnavailable(f"method {method} is not available ({modname} has no {' or '.join(attrs)})")
    back: dict = {}
    if style == "problem":
        kw = _problem_kwargs(fn, spec)
        res = fn(spec.system, spec.Q, **kw).solve()
    elif style == "psi":
        psi, z, back = _parametrisation(spec)
        res = fn(spec.system, psi, z)
    else:
        res = fn(spec.system, spec.Q)
    acc = res.accelerations() if hasattr(res, "accelerations") else dict(res)
    to_jet = dict(getattr(res, "to_jet", None) or {})
    if to_jet:  # written in the method's own variables (z of q̇ = ψ(t,q,z), quasi-velocities u): back to jets
        info["native"] = (acc, to_jet)
        acc = {a: e.xreplace(to_jet) for a, e in acc.items()}
    if back:
        acc = {a: e.xreplace(back) for a, e in acc.items()}
    if back or to_jet:
        g = spec.constrained().g
        acc = {a: e.xreplace(g) for a, e in acc.items()}
    info["conditions"] = list(getattr(res, "conditions", []) or [])
    info["result"] = res
    return acc, info


def _problem_kwargs(cls, spec) -> dict:
    """Pass the spec's reaction-force bundle / permitted directions if NonholonomicProblem accepts them."""
    import inspect

    try:
        params = inspect.signature(cls).parameters
    except (TypeError, ValueError):  # pragma: no cover
        return {}
    kw = {}
    if spec.forces_bundle is not None:
        for name in ("F", "forces", "reaction_forces"):
            if name in params:
                kw[name] = spec.forces_bundle
                break
        else:
            raise MethodUnavailable("method ibort: this NonholonomicProblem does not accept a reaction-force bundle")
    if spec.directions is not None:
        for name in ("permitted", "D", "directions", "permitted_directions"):
            if name in params:
                kw[name] = spec.directions
                break
        else:
            raise MethodUnavailable("method ibort: this NonholonomicProblem does not accept permitted directions")
    if spec.branch is not None and "branch" in params:
        kw["branch"] = spec.branch
    return kw


# --- output formats -------------------------------------------------------------------------------------


def format_motion(spec, acc: dict, info: dict, fmt: str) -> str:
    import sympy as sp

    from .io import expr_text
    from .io.emit import one_line, python_module

    method = info["method"]
    if fmt == "text":
        lines = [f"# {one_line(spec.name)}: equations of motion by {method}"]
        if info.get("normal_form"):
            lines.append("# on Q: " + ", ".join(f"{k} = {v}" for k, v in info["normal_form"].items()))
        for a, e in acc.items():
            lines.append(f"{a} = {e}")
        if info.get("native"):
            native, to_jet = info["native"]
            lines.append(f"# {method} works in " + ", ".join(f"{u} = {v}" for u, v in to_jet.items())
                         + "; in those variables:")
            lines += [f"#   {a} = {e}" for a, e in native.items()]
        if info.get("conditions"):
            lines.append("# valid where these do not vanish: "
                         + ", ".join(str(_display(c)) for c in info["conditions"]))
        return "\n".join(lines) + "\n"
    if fmt == "latex":
        rows = [sp.latex(sp.Eq(a, e)) for a, e in acc.items()]
        return "\\begin{aligned}\n" + " \\\\\n".join(r.replace("=", "&=", 1) for r in rows) + "\n\\end{aligned}\n"
    if fmt == "json":
        out = {
            "system": spec.name,
            "method": method,
            "coordinates": [str(s) for s in spec.Y.q],
            "time": str(spec.Y.t),
            "accelerations": {str(a): expr_text(e) for a, e in acc.items()},
            "normal_form": {str(k): expr_text(v) for k, v in (info.get("normal_form") or {}).items()},
            "conditions": [expr_text(c) for c in info.get("conditions", [])],
        }
        return json.dumps(out, indent=2, ensure_ascii=False) + "\n"
    if fmt == "python":
        Y = spec.Y
        args = [Y.t, *Y.q, *Y.qdot, *sorted(spec.parameters.values(), key=lambda p: p.name)]
        title = f"Accelerations by the method stored in METHOD (generated by jetgeo {__version__})."
        return python_module(title, spec.name, method, args, acc)
    raise SpecError(f"unknown format {fmt!r}; known formats: {', '.join(FORMATS)}")


# --- commands -----------------------------------------------------------------------------------------------


def _demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    run_demo(out=sys.stdout)
    return 0


def _derive(args: argparse.Namespace) -> int:
    if args.format not in FORMATS:
        raise SpecError(f"unknown format {args.format!r}; known formats: {', '.join(FORMATS)}")
    if args.method not in METHODS:
        raise SpecError(f"unknown method {args.method!r}; known methods: {', '.join(METHODS)}")
    spec = _load(args.spec)
    acc, info = derive_motion(spec, args.method)
    if args.simplify:
        acc = {a: _tidy(e) for a, e in acc.items()}
    sys.stdout.write(format_motion(spec, acc, info, args.format))
    return 0


def _tidy(e):
    """The display step of ``--simplify`` (trigsimp, then factor, whatever the size; never in a
    computation path)."""
    from .geometry.display import tidy

    return tidy(e, max_ops=10**6)


def _display(e):
    """Conditions and singular states as printed: tidied when small (display only)."""
    from .geometry.display import tidy

    return tidy(e)


def _check(args: argparse.Namespace) -> int:
    spec = _load(args.spec)
    out = sys.stdout
    S, Q = spec.system, spec.Q
    ok = True
    out.write(f"{spec.name}: {spec.title or ''}\n".rstrip() + "\n")
    out.write(f"  coordinates: {', '.join(map(str, spec.Y.q))}; time {spec.Y.t}\n")
    show = _tidy if args.simplify else _display

    def where(cond, what: str = "valid") -> str:
        return f"{what} everywhere" if cond.is_number and cond != 0 else f"{what} where {show(cond)} != 0"

    reg = S.is_regular()
    out.write(f"Lagrangian: {'regular' if reg else 'NOT regular'}; det W = {show(S.regularity_condition())}\n")
    if Q is None:
        out.write("no constraints\n")
        if not reg:
            print(f"jetgeo: {spec.source}: the Lagrangian is not regular", file=sys.stderr)
            return 1
        return 0
    out.write(f"Constraints ({spec.constraint_form}): " + "; ".join(f"{f} = 0" for f in Q.f) + "\n")
    sing = Q.singular_states()
    out.write(f"  singular states (rank of df/dqdot drops where all vanish): {[show(s) for s in sing] or 'none'}\n")
    cs = spec.constrained()
    out.write(f"  normal form: {cs.nf}   ({where(cs.nf.condition)})\n")
    if len(Q.branches()) > 1:
        out.write(f"  branches: {len(Q.branches())}; using branch {spec.branch}\n")
    cl = Q.classify(branch=spec.branch)
    out.write(f"  classification: {cl}\n")
    creg = cs.is_regular()
    ok = ok and creg
    out.write(f"Constrained system (004 (12)): {'regular' if creg else 'NOT regular'}; "
              f"{where(cs.regularity_condition(), 'regular') if creg else 'its condition vanishes identically'}\n")
    try:
        imp = importlib.import_module("jetgeo.implicit")
    except ImportError:
        imp = None
        out.write("Compatibility (002 Theorem 2): skipped (jetgeo.implicit is not available)\n")
    if imp is not None and hasattr(imp, "NonholonomicProblem"):
        out.flush()
        try:
            with _time_limit(args.compat_timeout):
                P = imp.NonholonomicProblem(S, Q, **_problem_kwargs(imp.NonholonomicProblem, spec))
                comp = P.compatibility()
                compatible = bool(getattr(comp, "compatible", comp))
                ok = ok and compatible
                out.write(f"Compatibility: {comp}\n")
                out.flush()
                if hasattr(P, "integrability"):
                    report = str(P.integrability())
                    out.write("Integrability algorithm (002 (3.9)-(3.10)):\n")
                    for line in report.splitlines():
                        out.write(f"  {line}\n")
        except _Timeout:
            out.write(f"Compatibility / integrability: not decided within {args.compat_timeout:g} s "
                      "(use --compat-timeout 0 for no limit)\n")
        except (IncompatibleError, NotRegularError) as exc:
            ok = False
            out.write(f"Compatibility (002 Theorem 2): NOT compatible: {exc}\n")
        except MethodUnavailable as exc:
            out.write(f"Compatibility: skipped ({exc})\n")
    if not ok:
        print(f"jetgeo: {spec.source}: the constrained problem is not well posed (see the report above)",
              file=sys.stderr)
        return 1
    return 0


class _Timeout(Exception):
    pass


class _time_limit:
    """Raise _Timeout in the main thread after ``seconds`` (0 or no SIGALRM: no limit)."""

    def __init__(self, seconds: float) -> None:
        import signal
        import threading

        self.seconds = seconds
        self.active = (seconds > 0 and hasattr(signal, "setitimer")
                       and threading.current_thread() is threading.main_thread())

    def __enter__(self):
        if self.active:
            import signal

            def handler(signum, frame):
                raise _Timeout()

            self.old = signal.signal(signal.SIGALRM, handler)
            signal.setitimer(signal.ITIMER_REAL, self.seconds)
        return self

    def __exit__(self, *exc):
        if self.active:
            import signal

            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.old)
        return False


def _simulate(args: argparse.Namespace) -> int:
    spec = _load(args.spec)
    from .io.simulate import simulate_spec

    res = simulate_spec(spec, args.t_end, points=args.points, rtol=args.rtol, atol=args.atol,
                        formulation=args.formulation, max_step=args.max_step)
    names = res["names"]
    final = {n: res["y"][-1][i] for i, n in enumerate(names)}
    print(f"{spec.name}: integrated to t = {res['t'][-1]:g} with {res['engine']} ({args.formulation} formulation, "
          f"{len(res['t'])} samples, {res.get('nfev', 0)} right-hand-side evaluations)")
    print("final state: " + ", ".join(f"{k} = {v:.6g}" for k, v in final.items()))
    if res.get("drift") is not None:
        print(f"max constraint drift |f|: {res['drift']:.3g}")
    charts = res.get("charts") or []
    for c in charts[:5]:
        print(f"chart switch at {c}")
    if len(charts) > 5:
        print(f"... {len(charts) - 5} more chart switches ({len(charts)} in all)")
    if res.get("stopped"):
        print(f"note: {res.get('message') or res['stopped']}")
    if args.csv:
        with open(args.csv, "w", encoding="utf-8") as fh:
            fh.write(",".join(["t", *names]) + "\n")
            for t, row in zip(res["t"], res["y"]):
                fh.write(",".join(f"{v:.12g}" for v in (t, *row)) + "\n")
        print(f"wrote {args.csv}")
    if args.plot:
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            raise MethodUnavailable("--plot needs matplotlib (pip install jetgeo[plot])") from None
        m = spec.Y.m
        fig, ax = plt.subplots(figsize=(7, 4))
        for i in range(m):
            ax.plot(res["t"], [row[i] for row in res["y"]], label=names[i])
        ax.set_xlabel(str(spec.Y.t))
        ax.set_title(spec.title or spec.name)
        ax.legend()
        fig.tight_layout()
        fig.savefig(args.plot)
        plt.close(fig)
        print(f"wrote {args.plot}")
    if res.get("stopped"):
        print(f"jetgeo: {spec.source}: {res['stopped']}", file=sys.stderr)
        return 1
    return 0


def _examples(args: argparse.Namespace) -> int:
    from .io import load_spec
    from .io.specs import catalogue

    print("Shipped spec files (use the name or a path with derive/check/simulate/show):")
    for name, path in catalogue().items():
        title = ""
        try:
            title = load_spec(path).title if args.titles else _title_of(path)
        except JetgeoError:  # pragma: no cover - shipped specs load
            title = "(does not load)"
        print(f"  {name:24s} {title}")
    names = _catalogue_names()
    if names:
        print("Python catalogue jetgeo.systems (also usable by name; `jetgeo show NAME` writes its spec):")
        try:
            summaries = importlib.import_module("jetgeo.systems").describe()
        except Exception:  # the catalogue is optional (and written in parallel)
            summaries = {}
        for n in names:
            print(f"  {n:24s} {summaries.get(n, '')}".rstrip())
    return 0


def _title_of(path: Path) -> str:
    import tomllib

    try:
        return str(tomllib.loads(path.read_text(encoding="utf-8")).get("title", ""))
    except (OSError, tomllib.TOMLDecodeError):  # pragma: no cover
        return ""


def _show(args: argparse.Namespace) -> int:
    from .io import to_toml
    from .io.spec import spec_from_catalogue
    from .io.specs import spec_path

    try:
        text = spec_path(args.name).read_text(encoding="utf-8")
    except SpecError:
        if args.name not in _catalogue_names():
            raise
        text = "# generated from the Python catalogue jetgeo.systems\n" + to_toml(spec_from_catalogue(args.name))
    sys.stdout.write(text)
    return 0


# --- parser and entry point --------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="jetgeo",
        description="Geometry and dynamics of non-holonomic mechanical systems.",
        epilog="Exit codes: 0 success, 1 the mathematics says no (not regular, incompatible, the recipe does "
        "not apply, a simulation ended before --t-end at a singular state), 2 bad input, 3 internal error.",
    )
    p.add_argument("--version", action="version", version=f"jetgeo {__version__}")
    p.add_argument("--debug", action="store_true", help="show Python tracebacks on errors")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="show Python tracebacks on errors")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    d = sub.add_parser("demo", parents=[common], help="run a built-in example end to end")
    d.set_defaults(func=_demo)
    d = sub.add_parser("derive", parents=[common], help="the equations of motion of a spec")
    d.add_argument("spec", help="spec file, or the name of a shipped spec")
    d.add_argument("--method", default="krupkova", help=f"one of: {', '.join(METHODS)} (default krupkova)")
    d.add_argument("--format", default="text", help=f"one of: {', '.join(FORMATS)} (default text)")
    d.add_argument("--simplify", action="store_true",
                   help="tidy the expressions for display (factor + trigsimp; can be slow on large systems)")
    d.set_defaults(func=_derive)
    d = sub.add_parser("check", parents=[common],
                       help="regularity, classification, singular states, compatibility")
    d.add_argument("spec")
    d.add_argument("--compat-timeout", type=float, default=120.0,
                   help="seconds allowed for the compatibility and integrability analysis (0: no limit)")
    d.add_argument("--simplify", action="store_true", help="tidy the printed conditions (factor + trigsimp)")
    d.set_defaults(func=_check)
    d = sub.add_parser("simulate", parents=[common], help="integrate the equations of motion numerically",
                       epilog="Exit codes: 0 the run reached --t-end; 1 it ended earlier, at a singular state of the "
                       "problem (the reason on stderr, one line; the CSV and plot hold the part computed); "
                       "2 bad input; 3 internal error.")
    d.add_argument("spec")
    d.add_argument("--t-end", type=float, required=True, help="final time")
    d.add_argument("--points", type=int, default=201, help="number of output samples (default 201)")
    d.add_argument("--plot", help="write a plot of the coordinates (PNG, needs matplotlib)")
    d.add_argument("--csv", help="write the trajectory as CSV")
    d.add_argument("--formulation", default="full", choices=("full", "reduced", "multipliers"),
                   help="full: (q, q̇) with the reduced equations' accelerations; reduced: (q, q̇^I) on Q with the "
                   "normal form; multipliers: (q, q̇) with the bordered multiplier system, no normal form "
                   "(default full; full and reduced switch charts of Q where the normal form fails)")
    d.add_argument("--rtol", type=float, default=1e-9, help="relative tolerance of the integrator (default 1e-9)")
    d.add_argument("--atol", type=float, default=1e-11, help="absolute tolerance of the integrator (default 1e-11)")
    d.add_argument("--max-step", type=float, default=None, help="largest step of the integrator (default: none)")
    d.set_defaults(func=_simulate)
    d = sub.add_parser("examples", parents=[common], help="list the shipped spec files")
    d.add_argument("--titles", action="store_true", help="load each spec to show its title")
    d.set_defaults(func=_examples)
    d = sub.add_parser("show", parents=[common], help="print a shipped spec file")
    d.add_argument("name")
    d.set_defaults(func=_show)
    from .cli_sweep import add_parser as add_sweep

    add_sweep(sub, common)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    debug = getattr(args, "debug", False)
    try:
        return int(args.func(args) or 0)
    except SpecError as exc:
        if debug:
            raise
        print(f"jetgeo: error: {exc}", file=sys.stderr)
        return 2
    except (NotRegularError, IncompatibleError, NotApplicableError) as exc:
        if debug:
            raise
        print(f"jetgeo: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    except JetgeoError as exc:
        if debug:
            raise
        print(f"jetgeo: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2 if isinstance(exc, ValueError) else 1
    except BrokenPipeError:  # pragma: no cover - output piped into e.g. `head`
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except OSError as exc:
        if debug:
            raise
        print(f"jetgeo: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # pragma: no cover
        print("jetgeo: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug: say so, briefly, unless --debug
        if debug:
            raise
        print(f"jetgeo: internal error: {type(exc).__name__}: {exc} (run with --debug for the traceback, "
              "and please report it)", file=sys.stderr)
        return 3


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
