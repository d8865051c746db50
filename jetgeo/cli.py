"""The ``jetgeo`` command.

::

    jetgeo demo                          a built-in system end to end
    jetgeo derive SPEC [--recipe R] [--format text|latex|json|python]
    jetgeo check SPEC                    regularity, classification, singular states, compatibility
    jetgeo simulate SPEC --t-end T [--formulation F] [--rtol R] [--atol A] [--max-step H]
                         [--plot out.png] [--csv out.csv]
    jetgeo sweep SPEC --t-end T --param NAME=START:STOP:N ... [--scheduler local|ADDRESS] [--out FILE.nc]
    jetgeo examples                      the shipped spec files (and the systems catalogue)
    jetgeo show NAME                     print a shipped spec

SPEC is a path to a TOML spec file or the name of a shipped one (``jetgeo examples``).
Exit codes: 0 success; 1 no result: the mathematics says no (not regular, incompatible, the
chosen recipe's hypotheses fail, e.g. ``--recipe chaplygin`` on a nonlinear constraint, a question
that could not be decided) or a limit was reached (``--timeout``, ``--memory-limit``,
``check --compat-timeout`` before the compatibility analysis, memory exhausted), or
``simulate`` ended before ``--t-end`` (a singular state, no progress; the reason on stderr); 2 bad input
(malformed spec, unknown recipe, initial data off Q, an output file that would overwrite the
spec, ...); 3 an internal error (a bug).  Messages go to stderr on one line, without a Python
traceback unless ``--debug`` is given (which never changes the exit code).

Output files (``simulate --csv/--plot``) are written atomically: to a temporary file in the same
directory, renamed into place only when every output of the command has been written, so a
command that fails leaves no partial file and no earlier file changed.  An existing output file
is replaced; an output path that is the spec file itself, or the same path given twice, is refused.

The CLI is the top layer of jetgeo (see ``[tool.importlinter]`` in ``pyproject.toml``): it imports
every layer below it plainly, so a failing import of jetgeo's own code fails loudly; only
:mod:`jetgeo.numerics` (SciPy, about a second) is imported when a command needs it.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import warnings
from pathlib import Path

import sympy as sp

from . import systems
from .cli_sweep import add_parser as add_sweep
from .demo import run_demo
from .errors import (
    IncompatibleError,
    InputError,
    JetgeoError,
    MethodUnavailable,
    NotApplicableError,
    NotRegularError,
    ResourceLimitError,
    SpecError,
)
from .geometry import readable
from .geometry.display import TIDY_MAX_OPS, tidy
from .geometry.exact import size_estimate
from .implicit import NonholonomicProblem
from .io import expr_text, load_spec, to_toml
from .io.emit import one_line, python_module
from .io.resolve import open_spec
from .io.spec import spec_from_catalogue
from .io.specs import catalogue, spec_path
from .limits import MAX_MEGABYTES, MAX_SECONDS, check_seconds, memory_limit, stage, time_limit
from .mechanics.eom import EquationsOfMotion
from .progress import tracked
from .recipes import OLD_NAMES, RECIPES, benenti_first_kind, recipe_name
from .version import __version__

__all__ = ["main", "build_parser", "CLI_RECIPES", "MethodUnavailable", "derive_motion"]


#: ``derive --recipe`` word → (callable, calling convention); the words are the recipes' names
#: (:data:`jetgeo.recipes.RECIPES`, the functions' names).  "core": Krupková's reduced equations of the spec's
#: constrained system — what :func:`jetgeo.recipes.krupkova` packages, taken from the spec's own constrained
#: system (no callable); "problem": Ibort et al.'s ``NonholonomicProblem(system, Q, ...).solve()`` (its Motion's
#: name, ``ibort_sode``); "sysQ": a recipe of :data:`jetgeo.recipes.RECIPES`, called ``fn(system, Q)``; "psi":
#: Benenti's first kind, which needs a parametrisation ψ, z (the spec's [constraints.parametric], else z = the
#: independent velocities).
CLI_RECIPES: dict = {
    "krupkova": (None, "core"),
    "ibort_sode": (NonholonomicProblem, "problem"),
    **{name: (fn, "sysQ") for name, fn in RECIPES.items() if name != "krupkova"},
    "benenti_first_kind": (benenti_first_kind, "psi"),
}
#: ``--simplify``: the display tidying (:func:`jetgeo.geometry.display.tidy`) whatever the size (the user asked
#: for it and accepts the cost); without it, conditions are tidied only when small (``TIDY_MAX_OPS``)
SIMPLIFY_MAX_OPS = 10**6
#: ``derive --recipe`` word for a spec with a ``[body]`` table (its default there): Hamel's equations in the
#: body-frame angular velocity, ``Spec.quasi.accelerations()`` (jetgeo.mechanics.quasi; its Motion's name)
QUASI_RECIPE = "quasi_velocities"
#: the old words of ``derive --method``, still accepted (with a warning on stderr): {old: recipe}
CLI_OLD_NAMES = {**OLD_NAMES, "ibort": "ibort_sode", "quasi": QUASI_RECIPE}
#: the deprecated names of this module: {old: (new, object)}
_DEPRECATED = {"CLI_METHODS": ("CLI_RECIPES", CLI_RECIPES), "QUASI_METHOD": ("QUASI_RECIPE", QUASI_RECIPE)}
FORMATS = ("text", "latex", "json", "python")


# --- resolving specs ------------------------------------------------------------------------------


def _catalogue_names() -> list:
    return list(systems.names())


def _load(name: str):
    """A spec by path, shipped name, or name in the Python catalogue jetgeo.systems."""
    return open_spec(name)


# --- derivation ---------------------------------------------------------------------------------------


def _parametrisation(spec):
    """(psi, z) for Benenti's first kind: the spec's own, else z = the independent velocities."""

    if spec.psi is not None:
        return list(spec.psi), list(spec.z), {}
    cs = spec.constrained()
    z = {v: sp.Symbol(f"z_{v}") for v in cs.independent}
    psi = [z[v] if v in z else cs.g[v].xreplace(z) for v in spec.Y.qdot]
    back = {s: v for v, s in z.items()}
    return psi, list(z.values()), back


def derive_motion(spec, recipe: str = "krupkova", *, method: str | None = None):
    """(accelerations dict, extra info dict) of ``spec`` by ``recipe``.

    Accelerations are {q̈: expression}; for Benenti's first kind on a spec given
    implicitly, the parameters z are mapped back to the independent velocities.

    Parameters
    ----------
    spec : Spec
        The loaded spec (its system and constraints).
    recipe : str
        One of :data:`CLI_RECIPES` (a recipe, or ``krupkova``: the core's constrained system) or
        :data:`QUASI_RECIPE`; an old spelling (:data:`CLI_OLD_NAMES`) is accepted with a DeprecationWarning.
    method : str, optional
        The old keyword for ``recipe`` (deprecated: ``method=`` names an integrator elsewhere).

    Returns
    -------
    tuple of dict
        (accelerations {q̈: expression}, extra information for the report).
    """
    if method is not None:
        warnings.warn("derive_motion(method=...) is deprecated: use recipe=", DeprecationWarning, stacklevel=2)
        recipe = method
    recipe = recipe_name(recipe, [*CLI_RECIPES, QUASI_RECIPE], CLI_OLD_NAMES)
    if recipe == QUASI_RECIPE:
        return _derive_quasi(spec)
    fn, style = CLI_RECIPES[recipe]
    info: dict = {"method": recipe, "conditions": []}
    if spec.Q is None:
        if recipe != "krupkova":
            raise SpecError(f"{spec.source}: recipe {recipe} needs constraints; the spec has none "
                            "(use --recipe krupkova)")
        return spec.accelerations(), info
    if style == "core":
        cs = spec.constrained()
        acc = spec.accelerations()
        info["conditions"] = [c for c in (cs.nf.condition, cs.regularity_condition()) if not c.is_number]
        info["normal_form"] = dict(cs.g)
        return acc, info
    try:
        return _derive_by(spec, recipe, fn, style, info)
    except (NotRegularError, IncompatibleError, NotApplicableError) as exc:
        if str(exc).startswith(f"{spec.source}:"):
            raise
        raise type(exc)(f"{spec.source}: recipe {recipe}: {exc}") from exc


def _derive_quasi(spec):
    """Hamel's equations of a ``[body]`` spec in its quasi-velocities: {v̇: expression} in (t, q, v^I)."""
    if spec.quasi is None:
        raise SpecError(f"{spec.source}: recipe {QUASI_RECIPE} needs a spec with a [body] table (a rigid body in "
                        "its body-frame angular velocity)")
    S = spec.quasi
    info = {"method": QUASI_RECIPE, "normal_form": dict(S.normal_form),
            "conditions": [c for c in S.validity_conditions() if not c.is_number], "velocities": S.frame.v,
            "arguments": [spec.Y.t, *spec.Y.q, *S.independent]}
    return S.accelerations(), info


def _derive_by(spec, recipe: str, fn, style: str, info: dict):
    back: dict = {}
    if style == "problem":
        res = _problem(spec).solve()
    elif style == "psi":
        psi, z, back = _parametrisation(spec)
        res = fn(spec.system, psi, z)
    else:
        res = fn(spec.system, spec.Q)
    if not isinstance(res, EquationsOfMotion):  # every recipe of CLI_RECIPES returns a Motion
        raise TypeError(f"recipe {recipe}: {type(res).__name__} is not jetgeo.mechanics.EquationsOfMotion")
    acc = res.accelerations()
    to_jet = dict(res.to_jet or {})
    if to_jet:  # written in the method's own variables (z of q̇ = ψ(t,q,z), quasi-velocities u): back to jets
        info["native"] = (acc, to_jet)
        acc = {a: e.xreplace(to_jet) for a, e in acc.items()}
    if back:
        acc = {a: e.xreplace(back) for a, e in acc.items()}
    if back or to_jet:
        g = spec.constrained().g
        acc = {a: e.xreplace(g) for a, e in acc.items()}
    info["conditions"] = list(res.validity_conditions())
    info["result"] = res
    return acc, info


def _problem(spec) -> NonholonomicProblem:
    """Ibort et al.'s problem (L, C, D, F) of the spec: its reaction-force bundle F and the permitted
    directions D when it gives them (else Chetaev's F and D = TC), on the spec's branch."""
    return NonholonomicProblem(spec.system, spec.Q, permitted=spec.directions, forces=spec.forces_bundle,
                               branch=spec.branch)


# --- output formats -------------------------------------------------------------------------------------


def format_motion(spec, acc: dict, info: dict, fmt: str) -> str:


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
                         + ", ".join(str(tidy(c)) for c in info["conditions"]))
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
        args = [*info.get("arguments", [Y.t, *Y.q, *Y.qdot]), *sorted(spec.parameters, key=lambda p: p.name)]
        title = f"Accelerations by the method stored in METHOD (generated by jetgeo {__version__})."
        return python_module(title, spec.name, method, args, acc)
    raise InputError(f"unknown format {fmt!r}; known formats: {', '.join(FORMATS)}")


# --- commands -----------------------------------------------------------------------------------------------


def _demo(args: argparse.Namespace) -> int:

    run_demo(out=sys.stdout)
    return 0


def _recipe_argument(args: argparse.Namespace) -> str | None:
    """The recipe ``derive`` was asked for (None: the default), its old spellings (``--method``, the old words of
    :data:`CLI_OLD_NAMES`) accepted with one warning line each on stderr; an unknown word is an InputError."""
    if args.method is not None:
        print("jetgeo: warning: derive --method is deprecated: use --recipe (--method names the integrator of "
              "simulate and sweep)", file=sys.stderr)
        if args.recipe is not None:
            raise InputError("derive: give --recipe only (--method is its deprecated spelling)")
    word = args.recipe if args.recipe is not None else args.method
    if word is None:
        return None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DeprecationWarning)
        recipe = recipe_name(word, [*CLI_RECIPES, QUASI_RECIPE], CLI_OLD_NAMES)
    for w in caught:
        print(f"jetgeo: warning: {w.message}", file=sys.stderr)
    return recipe


def _derive(args: argparse.Namespace) -> int:
    if args.format not in FORMATS:
        raise InputError(f"unknown format {args.format!r}; known formats: {', '.join(FORMATS)}")
    recipe = _recipe_argument(args)
    spec = _load(args.spec)
    recipe = recipe or (QUASI_RECIPE if spec.quasi is not None else "krupkova")
    with stage(f"derivation by {recipe}"):
        acc, info = derive_motion(spec, recipe)
    if args.simplify:
        acc = _simplified(acc)
    with stage("formatting the equations"):
        text = format_readable(spec, acc, info, args.format) if args.readable else format_motion(
            spec, acc, info, args.format)
    sys.stdout.write(text)
    return 0


def format_readable(spec, acc: dict, info: dict, fmt: str) -> str:
    """``derive --readable``: the accelerations in readable form (:func:`jetgeo.geometry.readable`:
    exact zeros, sin² + cos² = 1 used, factored denominators, numerators collected in the velocities,
    shared subexpressions named once).  Text and LaTeX print the equations and the names; JSON keeps
    the exact accelerations and adds the readable equations and definitions; Python is unchanged."""

    if fmt == "python":
        return format_motion(spec, acc, info, fmt)
    form = readable(acc, velocities=info.get("velocities", spec.Y.qdot))
    if fmt == "text":
        return f"# {one_line(spec.name)}: equations of motion by {info['method']} (readable form)\n{form}\n"
    if fmt == "latex":
        return form.latex().replace(r"\\ ", "\\\\\n") + "\n"
    if fmt == "json":
        out = json.loads(format_motion(spec, acc, info, fmt))
        out["readable"] = {"equations": {str(a): expr_text(e) for a, e in form.equations.items()},
                           "definitions": [[str(n), expr_text(v)] for n, v in form.definitions]}
        return json.dumps(out, indent=2, ensure_ascii=False) + "\n"
    raise InputError(f"unknown format {fmt!r}; known formats: {', '.join(FORMATS)}")


def _simplified(acc: dict) -> dict:
    """``--simplify``: every expression tidied for display; when they are large (unexpanded
    DAGs: long chains of bodies) the size estimate goes to stderr before the work starts, and a
    progress bar (in a terminal) counts the expressions done."""

    est = size_estimate(list(acc.values()))
    if est.large:
        print(f"jetgeo: --simplify: {est}; simplifying them may take long", file=sys.stderr)
    with stage("simplification for display (--simplify)"):
        return {a: tidy(e, SIMPLIFY_MAX_OPS)
                for a, e in tracked(acc.items(), "simplifying", None if est.large else False, "expression")}


def _check(args: argparse.Namespace) -> int:

    spec = _load(args.spec)
    out = sys.stdout
    out.write(f"{spec.name}: {spec.title or ''}\n".rstrip() + "\n")
    out.write(f"  coordinates: {', '.join(map(str, spec.Y.q))}; time {spec.Y.t}\n")
    # --compat-timeout bounds the whole analysis: running out before the compatibility analysis ends
    # the command (exit 1, naming the stage); running out during it is reported as undecided
    state = {"ok": True}  # the verdicts so far, kept if the time runs out during the compatibility analysis
    with time_limit(args.compat_timeout) as budget:
        try:
            return _check_report(spec, args, out, stage, state)
        except ResourceLimitError as exc:
            if exc.token is not budget:
                raise
            if exc.stage not in ("compatibility", "integrability"):
                exc.option = f"--compat-timeout {args.compat_timeout:g} s"
                raise
            undecided = exc
    out.write(f"Compatibility / integrability: not decided within {args.compat_timeout:g} s, during the "
              f"{undecided.stage} analysis (use --compat-timeout 0 for no limit)\n")
    if not state["ok"]:
        print(f"jetgeo: {spec.source}: the constrained problem is not well posed (see the report above)",
              file=sys.stderr)
        return 1
    return 0


def _check_report(spec, args: argparse.Namespace, out, stage, state: dict) -> int:
    S, Q = spec.system, spec.Q
    ok = True
    show = functools.partial(tidy, max_ops=SIMPLIFY_MAX_OPS if args.simplify else TIDY_MAX_OPS)

    def where(cond, what: str = "valid") -> str:
        return f"{what} everywhere" if cond.is_number and cond != 0 else f"{what} where {show(cond)} != 0"

    with stage("regularity of the Lagrangian"):
        reg = S.is_regular()
        out.write(f"Lagrangian: {'regular' if reg else 'NOT regular'}; det W = {show(S.regularity_condition())}\n")
    if Q is None:
        out.write("no constraints\n")
        if not reg:
            print(f"jetgeo: {spec.source}: the Lagrangian is not regular", file=sys.stderr)
            return 1
        return 0
    out.write(f"Constraints ({spec.constraint_form}): " + "; ".join(f"{f} = 0" for f in Q.f) + "\n")
    with stage("singular states"):
        sing = Q.singular_states()
    out.write(f"  singular states (rank of df/dqdot drops where all vanish): {[show(s) for s in sing] or 'none'}\n")
    with stage("normal form"):
        cs = spec.constrained()
        out.write(f"  normal form: {cs.nf}   ({where(cs.nf.condition)})\n")
    if len(Q.branches()) > 1:
        out.write(f"  branches: {len(Q.branches())}; using branch {spec.branch}\n")
    with stage("classification"):
        cl = Q.classify(branch=spec.branch)
    out.write(f"  classification: {cl}\n")
    with stage("regularity of the constrained system"):
        creg = cs.is_regular()
        ok = state["ok"] = ok and creg
        out.write(f"Constrained system [Stolařová 2009, eq. (12)]: {'regular' if creg else 'NOT regular'}; "
                  f"{where(cs.regularity_condition(), 'regular') if creg else 'its condition vanishes identically'}\n")
    out.flush()
    try:
        with stage("compatibility"):
            P = _problem(spec)
            comp = P.compatibility()
            compatible = comp.compatible
            ok = state["ok"] = ok and compatible
            out.write(f"Compatibility: {comp}\n")
            out.flush()
        with stage("integrability"):
            report = str(P.integrability())
        out.write("Integrability algorithm [Ibort et al. 1996, eqs. (3.9)–(3.10)]:\n")
        for line in report.splitlines():
            out.write(f"  {line}\n")
    except (IncompatibleError, NotRegularError) as exc:
        ok = state["ok"] = False
        out.write(f"Compatibility [Ibort et al. 1996, Theorem 2]: NOT compatible: {exc}\n")
    if not ok:
        print(f"jetgeo: {spec.source}: the constrained problem is not well posed (see the report above)",
              file=sys.stderr)
        return 1
    return 0


def _numerics_bridge():
    """The module :mod:`jetgeo.io.simulate`, the bridge from a spec to :mod:`jetgeo.numerics`, imported on first
    use: the one place where the command line pays for NumPy and SciPy."""
    # cost: io.simulate imports jetgeo.numerics (NumPy, SciPy: about a second) that no command but simulate needs
    from .io import simulate as bridge

    return bridge


def _simulate(args: argparse.Namespace) -> int:
    spec = _load(args.spec)
    outputs = _check_outputs(args, spec)  # before integrating: a bad output path costs nothing
    with stage("simulation"):
        res = _numerics_bridge().simulate_spec(spec, args.t_end, points=args.points, rtol=args.rtol, atol=args.atol,
                            formulation=args.formulation, max_step=args.max_step, method=args.method,
                            step=args.step)
    names = res["names"]
    final = {n: res["y"][-1][i] for i, n in enumerate(names)}
    how = f"{args.method}, step {args.step:g}" if args.step is not None else f"{args.formulation} formulation"
    print(f"{spec.name}: integrated to t = {res['t'][-1]:g} with {res['engine']} ({how}, "
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
    writers = []
    if args.csv:
        writers.append((args.csv, lambda path: _write_csv(path, names, res)))
    if args.plot:
        writers.append((args.plot, lambda path: _write_plot(path, spec, names, res, outputs["plot_format"])))
    with stage("writing the outputs"):
        _write_atomically(writers)
    for path, _ in writers:
        print(f"wrote {path}")
    if res.get("stopped"):
        print(f"jetgeo: {spec.source}: {_one_line(res['stopped'])}", file=sys.stderr)
        return 1
    if len(res["t"]) < 2 or res["t"][-1] == res["t"][0]:  # e.g. x = 1e308: the first step overflowed
        print(f"jetgeo: {spec.source}: the integration made no progress from t = {res['t'][0]:g}"
              + (f": {_one_line(res['message'])}" if res.get("message") else ""), file=sys.stderr)
        return 1
    return 0


def _check_outputs(args: argparse.Namespace, spec) -> dict:
    """Refuse, before any work, outputs that would clobber the spec or each other, a plot format
    matplotlib cannot write, and directories that do not exist."""
    info: dict = {}
    given = [(opt, path) for opt, path in (("--csv", args.csv), ("--plot", args.plot)) if path]
    spec_path = Path(args.spec) if os.path.lexists(args.spec) else None
    for i, (opt, path) in enumerate(given):
        p = Path(path)
        if spec_path is not None and _same_file(p, spec_path):
            raise InputError(f"{opt} {path}: is the spec file itself; it would be overwritten")
        for opt2, path2 in given[:i]:
            if _same_file(p, Path(path2)):
                raise InputError(f"{opt} {path}: the same file as {opt2}; give two different files")
        if p.is_dir():
            raise InputError(f"{opt} {path}: is a directory")
        if os.path.lexists(p) and not p.is_file():
            raise InputError(f"{opt} {path}: exists and is not a regular file; it is not replaced")
        if not p.parent.is_dir():
            raise InputError(f"{opt} {path}: the directory {p.parent} does not exist")
    if args.plot:
        try:
            import matplotlib

            matplotlib.use("Agg")
            from matplotlib.backend_bases import FigureCanvasBase
        except ImportError:
            raise MethodUnavailable("--plot needs matplotlib (pip install jetgeo[plot])") from None
        formats = FigureCanvasBase.get_supported_filetypes()
        ext = Path(args.plot).suffix.lower().lstrip(".")
        if ext not in formats:
            shown = f".{ext}" if ext else "(no extension)"
            raise InputError(f"--plot {args.plot}: unknown plot format {shown}; give a file name ending in one of "
                            + ", ".join("." + f for f in sorted(formats)))
        info["plot_format"] = ext
    return info


def _same_file(a: Path, b: Path) -> bool:
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
    except OSError:
        pass
    return os.path.abspath(a) == os.path.abspath(b)


def _write_csv(path: str, names: list, res: dict) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(",".join(["t", *names]) + "\n")
        for t, row in zip(res["t"], res["y"]):
            fh.write(",".join(f"{v:.12g}" for v in (t, *row)) + "\n")


def _write_plot(path: str, spec, names: list, res: dict, fmt: str) -> None:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    try:
        for i in range(spec.Y.m):
            ax.plot(res["t"], [row[i] for row in res["y"]], label=names[i])
        ax.set_xlabel(str(spec.Y.t))
        # the title is text, not mathtext: an unbalanced or invalid $...$ made savefig raise
        ax.set_title((spec.title or spec.name).replace("$", r"\$"))
        ax.legend()
        fig.tight_layout()
        fig.savefig(path, format=fmt)
    finally:
        plt.close(fig)


def _write_atomically(writers: list) -> None:
    """Run each ``(path, write)`` on a temporary file next to ``path``; only when all have succeeded
    are they renamed into place (``os.replace``, atomic on POSIX).  On any failure every temporary
    file is removed and no target is touched."""
    import tempfile

    temps = []
    try:
        for path, write in writers:
            p = Path(path)
            fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=str(p.parent))
            os.close(fd)
            temps.append((tmp, p))
            write(tmp)
        for tmp, p in temps:  # a replaced file keeps its permissions, a new one gets the umask's
            mode = p.stat().st_mode & 0o7777 if p.exists() else 0o666 & ~_umask()
            os.chmod(tmp, mode)
        for tmp, p in temps:
            os.replace(tmp, p)
        temps = []
    finally:
        for tmp, _ in temps:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _examples(args: argparse.Namespace) -> int:

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
        summaries = systems.describe()
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

    try:
        text = spec_path(args.name).read_text(encoding="utf-8")
    except SpecError:
        if args.name not in _catalogue_names():
            raise
        text = "# generated from the Python catalogue jetgeo.systems\n" + to_toml(spec_from_catalogue(args.name))
    sys.stdout.write(text)
    return 0


# --- parser and entry point --------------------------------------------------------------------------------------


#: largest --points: 10⁶ samples of a 20-dimensional state are 160 MB in memory, 400 MB of CSV
MAX_POINTS = 1_000_000
#: ``jetgeo simulate --method``: scipy's solve_ivp methods and the discrete Lagrange–d'Alembert integrators
#: (jetgeo.numerics.simulation.discrete.DISCRETE_METHODS; spelt out so that the parser loads no numerics)
SIMULATE_METHODS = ("DOP853", "RK45", "RK23", "Radau", "BDF", "LSODA", "dla-midpoint", "dla-trapezoid", "dla-4")
#: default --timeout of ``derive``: the slowest system of the catalogue (the Whipple bicycle) derives in
#: about 17 s; a derivation that runs away (a large system on a costly route) ends with exit 1
DERIVE_TIMEOUT = 300.0


def _seconds(text: str, maximum: float = MAX_SECONDS, unit: str = "seconds") -> float:
    """A number of seconds ≥ 0, at most ``maximum`` (``inf`` allowed: no limit); argparse reports anything
    else (exit 2): ``nan``, ``1e10`` (the interval timer would overflow) and text included."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of {unit}, got {text!r}") from None
    try:
        return check_seconds(v, "", maximum, unit)
    except InputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _megabytes(text: str) -> float:
    v = _seconds(text, MAX_MEGABYTES, "megabytes")
    if 0 < v < 64:
        raise argparse.ArgumentTypeError(f"a memory limit below 64 MB cannot even start Python, got {text!r}")
    return v


def _finite_float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if v != v or v in (float("inf"), float("-inf")):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return v


def _points(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of samples, got {text!r}") from None
    if not 2 <= v <= MAX_POINTS:
        raise argparse.ArgumentTypeError(f"expected 2 to {MAX_POINTS} samples, got {v}")
    return v


class _Parser(argparse.ArgumentParser):
    """argparse with its errors on one line (exit 2), like every other message of the command."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {_one_line(message)} (see {self.prog} --help)\n")

    def _get_values(self, action, arg_strings):
        # argparse before Python 3.13 strips the value '--' of ``--t-end=--`` and gives the option an empty
        # list, past its type function (an exit 3 later): refuse it as the type would
        if action.option_strings and action.nargs is None and arg_strings == ["--"]:
            raise argparse.ArgumentError(action, "expected a value, got '--'")
        return super()._get_values(action, arg_strings)


def build_parser() -> argparse.ArgumentParser:
    """The ``jetgeo`` command line: its sub-commands, their options and the function each runs.

    Returns
    -------
    argparse.ArgumentParser
        The parser; ``parse_args`` gives a namespace whose ``func`` runs the sub-command.
    """
    p = _Parser(
        prog="jetgeo",
        description="Geometry and dynamics of non-holonomic mechanical systems.",
        epilog="Exit codes: 0 success, 1 no result (the mathematics says no: not regular, incompatible, the recipe "
        "does not apply, a simulation ended before --t-end at a singular state; or a time or memory limit was "
        "reached), 2 bad input, 3 internal error (a bug).",
    )
    p.add_argument("--version", action="version", version=f"jetgeo {__version__}")
    p.add_argument("--debug", action="store_true", help="show Python tracebacks on errors")
    common = _Parser(add_help=False)
    common.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="show Python tracebacks on errors")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    d = sub.add_parser("demo", parents=[common], help="run a built-in example end to end")
    d.set_defaults(func=_demo)
    limits = _Parser(add_help=False)
    limits.add_argument("--timeout", type=_seconds, default=None, metavar="SECONDS",
                        help="stop (exit 1, naming the stage that ran out) after this many seconds (0: no limit; "
                        f"default: none, for derive {DERIVE_TIMEOUT:g})")
    limits.add_argument("--memory-limit", type=_megabytes, default=0.0, metavar="MB",
                        help="bound the address space of the process to MB megabytes (0: no limit)")
    d = sub.add_parser("derive", parents=[common, limits], help="the equations of motion of a spec")
    d.add_argument("spec", help="spec file, or the name of a shipped spec")
    d.add_argument("--recipe", default=None, help=f"one of: {', '.join(CLI_RECIPES)}, {QUASI_RECIPE} (default "
                   f"krupkova; for a spec with a [body] table {QUASI_RECIPE}: the equations in its angular velocity)")
    d.add_argument("--method", default=None, help="deprecated spelling of --recipe")
    d.add_argument("--format", default="text", help=f"one of: {', '.join(FORMATS)} (default text)")
    d.add_argument("--simplify", action="store_true",
                   help="tidy the expressions for display (factor + trigsimp; can be slow on large systems)")
    d.add_argument("--readable", action="store_true",
                   help="print the readable form: exact zeros, sin²+cos²=1, factored denominators, named "
                        "subexpressions (JSON keeps the exact expressions and adds it)")
    d.set_defaults(func=_derive)
    d = sub.add_parser("check", parents=[common, limits],
                       help="regularity, classification, singular states, compatibility")
    d.add_argument("spec")
    d.add_argument("--compat-timeout", type=_seconds, default=120.0,
                   help="seconds allowed for the analysis: regularity, normal form and classification (if they "
                        "run out: exit 1), then compatibility and integrability (if they run out: reported "
                        "undecided); 0 or inf: no limit (default 120)")
    d.add_argument("--simplify", action="store_true", help="tidy the printed conditions (factor + trigsimp)")
    d.set_defaults(func=_check)
    d = sub.add_parser("simulate", parents=[common, limits], help="integrate the equations of motion numerically",
                       epilog="Exit codes: 0 the run reached --t-end; 1 it ended earlier, at a singular state of the "
                       "problem or without progress (the reason on stderr, one line; the CSV and plot hold the part "
                       "computed), or --timeout/--memory-limit was reached; 2 bad input; 3 internal error.")
    d.add_argument("spec")
    d.add_argument("--t-end", type=_finite_float, required=True, help="final time")
    d.add_argument("--points", type=_points, default=201,
                   help=f"number of output samples, 2 to {MAX_POINTS} (default 201)")
    d.add_argument("--plot", help="write a plot of the coordinates (PNG, PDF, SVG, ...; needs matplotlib); an "
                   "existing file is replaced")
    d.add_argument("--csv", help="write the trajectory as CSV; an existing file is replaced")
    d.add_argument("--formulation", default="full", choices=("full", "reduced", "multipliers"),
                   help="full: (q, q̇) with the reduced equations' accelerations; reduced: (q, q̇^I) on Q with the "
                   "normal form; multipliers: (q, q̇) with the bordered multiplier system, no normal form "
                   "(default full; full and reduced switch charts of Q where the normal form fails)")
    d.add_argument("--rtol", type=float, default=1e-9, help="relative tolerance of the integrator (default 1e-9)")
    d.add_argument("--atol", type=float, default=1e-11, help="absolute tolerance of the integrator (default 1e-11)")
    d.add_argument("--max-step", type=float, default=None, help="largest step of the integrator (default: none)")
    d.add_argument("--method", default="DOP853", choices=SIMULATE_METHODS,
                   help="the integrator: a scipy method, or a discrete Lagrange–d'Alembert integrator (dla-midpoint, "
                   "dla-trapezoid: order 2; dla-4: order 4; every node on Q) with --step (default DOP853)")
    d.add_argument("--step", type=_finite_float, default=None,
                   help="the fixed time step of the dla methods; --t-end must be a whole number of steps")
    d.set_defaults(func=_simulate)
    d = sub.add_parser("examples", parents=[common], help="list the shipped spec files")
    d.add_argument("--titles", action="store_true", help="load each spec to show its title")
    d.set_defaults(func=_examples)
    d = sub.add_parser("show", parents=[common], help="print a shipped spec file")
    d.add_argument("name")
    d.set_defaults(func=_show)
    add_sweep(sub, common, limits)
    return p


#: longest message printed on stderr (a product of 700 factors once gave a 731 KB line)
MAX_MESSAGE = 600


def _one_line(text: str) -> str:
    """A message on one line, bounded: lines joined by '; ', runs of blanks collapsed."""
    parts = [" ".join(line.split()) for line in str(text).splitlines()]
    out = "; ".join(p for p in parts if p)
    return out if len(out) <= MAX_MESSAGE else out[: MAX_MESSAGE - 5] + " ..."


def _exit_code(exc: BaseException) -> tuple:
    """(exit code, message) for an exception that ends a command."""

    if isinstance(exc, InputError):  # SpecError included
        return 2, f"jetgeo: error: {exc}"
    if isinstance(exc, (NotRegularError, IncompatibleError, NotApplicableError)):
        return 1, f"jetgeo: {type(exc).__name__}: {exc}"
    if isinstance(exc, ResourceLimitError):
        return 1, f"jetgeo: ResourceLimitError: {exc}{_limit_hint(exc)}"
    if isinstance(exc, MemoryError):
        where = getattr(exc, "jetgeo_stage", None)
        return 1, ("jetgeo: ResourceLimitError: out of memory" + (f" during {where}" if where else "")
                   + " (the system is too large for this route, or --memory-limit is too low)")
    if isinstance(exc, RecursionError):
        return 1, "jetgeo: ResourceLimitError: an expression is too deeply nested for this computation"
    if isinstance(exc, JetgeoError):
        return (2 if isinstance(exc, (ValueError, InputError)) else 1), f"jetgeo: {type(exc).__name__}: {exc}"
    if isinstance(exc, OSError):
        return 2, f"jetgeo: error: {exc}"
    return 3, (f"jetgeo: internal error: {type(exc).__name__}: {exc} (run with --debug for the traceback, "
               "and please report it)")


def _limit_hint(exc) -> str:
    src = exc.option
    return f" ({src}; raise it, or 0 for no limit)" if src else ""


def _preload_for_memory_limit(args: argparse.Namespace) -> None:
    """Import what the command needs before the address space is bounded (an import that fails for
    want of memory would read as "not available"), and refuse a limit below what is already used."""
    _numerics_bridge()  # numerics (SciPy, about a second) only when a memory limit is set; io is imported above
    if getattr(args, "plot", None):
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot  # noqa: F401
        except ImportError:  # pragma: no cover - reported by --plot itself
            pass
    used = _address_space_mb()
    if used is not None and args.memory_limit < used + 64:
        raise InputError(f"--memory-limit {args.memory_limit:g} MB: jetgeo already uses {used:.0f} MB of address "
                         f"space; give at least {used + 64:.0f} MB")


def _address_space_mb() -> float | None:
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def main(argv: list[str] | None = None) -> int:
    """Run the ``jetgeo`` command: errors become one line on stderr and an exit code (see the README).

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 success; 1 no result (not regular, incompatible, not applicable, a limit reached); 2 bad input;
        3 an internal error.
    """
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # a usage error (2, message printed), --help or --version (0)
        return exc.code if isinstance(exc.code, int) else 2
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    if "timeout" in args and args.timeout is None:  # not given: derive is bounded by default, the others not
        args.timeout = DERIVE_TIMEOUT if args.command == "derive" else 0.0
    debug = getattr(args, "debug", False)

    if not debug:  # overflow in a right-hand side is reported by the integrator's own message, on one line
        warnings.filterwarnings("ignore", category=RuntimeWarning)
    try:
        if getattr(args, "memory_limit", 0):
            _preload_for_memory_limit(args)
        with memory_limit(getattr(args, "memory_limit", None)), time_limit(getattr(args, "timeout", None)) as tok:
            try:
                return int(args.func(args) or 0)
            except JetgeoError as exc:
                if isinstance(exc, ResourceLimitError) and exc.token is tok:
                    exc.option = f"--timeout {args.timeout:g} s"
                raise
    except BrokenPipeError:  # pragma: no cover - output piped into e.g. `head`
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:  # pragma: no cover
        print("jetgeo: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # every failure ends with its documented code and one line
        code, message = _exit_code(exc)
        if debug:
            import traceback

            traceback.print_exc(file=sys.stderr)
        try:
            sys.stdout.flush()
        except OSError:  # pragma: no cover
            pass
        print(_one_line(message), file=sys.stderr)
        return code


def __getattr__(name: str):
    """The old names ``CLI_METHODS`` and ``QUASI_METHOD``, with a DeprecationWarning."""
    if name in _DEPRECATED:
        new, obj = _DEPRECATED[name]
        warnings.warn(f"jetgeo.cli.{name} is deprecated: use jetgeo.cli.{new}", DeprecationWarning, stacklevel=2)
        return obj
    raise AttributeError(f"module 'jetgeo.cli' has no attribute {name!r}")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
