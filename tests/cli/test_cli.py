"""The ``jetgeo`` command, run in a subprocess as a user would (exit codes, stdout, stderr)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import sympy as sp

from jetgeo import ConstraintSubmanifold, FibredManifold, LagrangianSystem
from jetgeo.cli import main
from jetgeo.geometry.zero import is_zero
from jetgeo.io import catalogue, load_spec, parse_expression

ROOT = Path(__file__).resolve().parents[2]


def run(*args, cwd=None, timeout=120):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run(
        [sys.executable, "-m", "jetgeo.cli", *args], capture_output=True, text=True, cwd=cwd, env=env,
        timeout=timeout,
    )


def test_derive_json_equals_python_api(tmp_path):
    # run from an unrelated directory: the shipped spec is found by name (package data)
    r = run("derive", "krupkova_example1", "--format", "json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    out = json.loads(r.stdout)
    Y = FibredManifold(["x", "y", "z"])
    x, y, _ = Y.q
    xd, yd, zd = Y.qdot
    cs = LagrangianSystem(Y, (xd**2 + yd**2 + zd**2) / 2).constrain(ConstraintSubmanifold(Y, [zd - y * x * xd]))
    api = cs.accelerations()
    names = {str(s): s for s in (Y.t, *Y.q, *Y.qdot)}
    assert list(out["accelerations"]) == [str(a) for a in api]
    for a, e in api.items():
        got = parse_expression(out["accelerations"][str(a)], names, where="json")
        assert is_zero(cs.on_Q(got - e)), a


def test_spec_file_path_and_text_format(tmp_path, capsys):
    p = tmp_path / "osc.toml"
    p.write_text('[coordinates]\nq = ["x"]\n[parameters]\nk = "positive"\n[lagrangian]\nL = "xdot**2/2 - k*x**2/2"\n',
                 encoding="utf-8")
    assert main(["derive", str(p)]) == 0
    assert capsys.readouterr().out.splitlines()[1] == "xddot = -k*x"


def test_demo_runs_end_to_end(capsys):
    import time

    t0 = time.perf_counter()
    assert main(["demo"]) == 0  # `jetgeo demo` runs jetgeo.demo.run_demo
    elapsed = time.perf_counter() - t0
    out = capsys.readouterr().out
    assert "xddot = -R*psidot*thetadot*sin(psi)" in out  # [Benenti 2007, §9.2]: ẍ = −R ψ̇ θ̇ sin ψ
    assert "energy conserved along the motion (dE/dt = 0 on Q): True" in out
    # the summary computed by recipes.equivalent: no method disagrees, and the count of agreeing methods is the
    # number of "agrees" rows of the table above it ("0 disagree" is what "disagree" in out also matched)
    summary = re.search(r"(\d+) methods agree with krupkova, (\d+) not applicable, (\d+) disagree", out)
    assert summary is not None and summary.group(3) == "0", out
    assert int(summary.group(1)) == len(re.findall(r"^  \S.*?\s+agrees {2,}\S", out, re.M)) >= 5, out
    assert "DISAGREES" not in out and "ALL METHODS AGREE" in out
    assert re.search(r"ibort SODE \[Ibort et al\. 1996\]\s+agrees", out)
    assert "Theorem 2 [Ibort et al. 1996]: compatible" in out
    assert elapsed < 30  # generous on a loaded machine; ~2 s CPU when idle


def test_exit_code_2_unknown_recipe_without_traceback(capsys):
    assert main(["derive", "skate", "--recipe", "foo"]) == 2
    r = capsys.readouterr()
    assert r.out == ""
    assert r.err == (
        "jetgeo: error: unknown recipe 'foo'; known recipes: krupkova, ibort_sode, voronets, lagrange_multipliers, "
        "gibbs_appell, benenti_second_kind, maggi, chaplygin, hamel, benenti_first_kind, quasi_velocities\n"
    )


@pytest.mark.parametrize(("old", "new"), [("benenti2", "benenti_second_kind"), ("multipliers", "lagrange_multipliers"),
                                          ("gibbs-appell", "gibbs_appell"), ("benenti1", "benenti_first_kind")])
def test_derive_old_spellings_still_work_with_a_warning(capsys, old, new):
    """``derive --method OLD`` (the old option and the old word) gives what ``--recipe NEW`` gives, and says on stderr
    what to type instead; ``--recipe`` warns nothing."""
    assert main(["derive", "skate", "--recipe", new, "--format", "json"]) == 0
    r = capsys.readouterr()
    assert r.err == "" and f'"method": "{new}"' in r.out
    assert main(["derive", "skate", "--method", old, "--format", "json"]) == 0
    r2 = capsys.readouterr()
    assert r2.out == r.out
    assert r2.err.splitlines() == [
        "jetgeo: warning: derive --method is deprecated: use --recipe (--method names the integrator of simulate and "
        "sweep)", f"jetgeo: warning: the recipe name {old!r} is deprecated: use {new!r}"]
    assert main(["derive", "skate", "--recipe", new, "--method", new]) == 2
    assert capsys.readouterr().err.endswith("jetgeo: error: derive: give --recipe only (--method is its deprecated "
                                            "spelling)\n")


def test_exit_code_2_bad_spec_and_debug_traceback(tmp_path):
    p = tmp_path / "evil.toml"
    p.write_text('[coordinates]\nq = ["x"]\n[lagrangian]\nL = "__import__(\'os\').system(\'touch pwned\')"\n',
                 encoding="utf-8")
    r = run("derive", "evil.toml", cwd=tmp_path)
    assert r.returncode == 2
    assert r.stderr == (
        "jetgeo: error: evil.toml: [lagrangian] L: only named functions may be called (found attribute access) "
        "in \"__import__('os').system('touch pwned')\"\n"
    )
    assert "Traceback" not in r.stderr and not (tmp_path / "pwned").exists()


def test_debug_shows_the_traceback_and_keeps_the_exit_code(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.toml").write_text('[coordinates]\nq = ["x"]\n[lagrangian]\nL = "x.real"\n', encoding="utf-8")
    for argv in (["--debug", "derive", "bad.toml"], ["derive", "bad.toml", "--debug"]):
        assert main(argv) == 2  # --debug once turned exit 2 into 1 (the exception left main)
        err = capsys.readouterr().err
        assert "Traceback (most recent call last)" in err and "SpecError" in err
        assert err.splitlines()[-1] == ("jetgeo: error: bad.toml: [lagrangian] L: attribute access is not allowed "
                                        "(only numbers, declared names, + - * / ** and functions) in 'x.real'")


def test_exit_code_1_not_regular(tmp_path, capsys):
    from jetgeo import ConstrainedSystem
    from jetgeo.errors import NotRegularError

    p = tmp_path / "singular.toml"
    p.write_text('[coordinates]\nq = ["x", "y", "z"]\n[lagrangian]\nL = "(xdot + ydot)**2/2"\n'
                 '[constraints]\nimplicit = ["zdot - xdot"]\n', encoding="utf-8")
    spec = load_spec(p)
    with pytest.raises(NotRegularError) as e:  # the mechanics layer's own words, via the Python API
        ConstrainedSystem(spec.system, spec.Q).accelerations()
    assert main(["derive", str(p)]) == 1
    assert capsys.readouterr().err == f"jetgeo: NotRegularError: {p}: [constraints]: {e.value}\n"
    assert main(["check", str(p)]) == 1
    r = capsys.readouterr()
    assert "Lagrangian: NOT regular; det W = 0" in r.out
    assert "Constrained system [Stolařová 2009, eq. (12)]: NOT regular" in r.out
    assert r.err == f"jetgeo: {p}: the constrained problem is not well posed (see the report above)\n"
    free = tmp_path / "free.toml"
    free.write_text('[coordinates]\nq = ["x", "y"]\n[lagrangian]\nL = "(xdot + ydot)**2/2"\n', encoding="utf-8")
    with pytest.raises(NotRegularError) as e:
        load_spec(free).system.accelerations()
    assert main(["derive", str(free)]) == 1
    assert capsys.readouterr().err == f"jetgeo: NotRegularError: {free}: [lagrangian]: {e.value}\n"


def test_simulate_writes_csv_and_plot_and_stays_on_Q(tmp_path, capsys):
    csv, png = tmp_path / "out.csv", tmp_path / "out.png"
    assert main(["simulate", "krupkova_example1", "--t-end", "1", "--points", "11", "--csv", str(csv),
                 "--plot", str(png)]) == 0
    out = capsys.readouterr().out
    assert "max constraint drift" in out and f"wrote {png}" in out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000
    rows = [line.split(",") for line in csv.read_text().splitlines()]
    assert rows[0] == ["t", "x", "y", "z", "xdot", "ydot", "zdot"] and len(rows) == 12
    t, x, y, z, xd, yd, zd = map(float, rows[-1])
    assert abs(t - 1) < 1e-12 and abs(y - 1) < 1e-8  # ÿ = 0, y(0) = 0, ẏ(0) = 1
    assert abs(zd - x * y * xd) < 1e-7  # the constraint (13) of [Stolařová 2009] holds at the end


# in-process runs of main() for the cheaper commands -----------------------------------------------------------------


def test_examples_and_show(capsys):
    assert main(["examples"]) == 0
    out = capsys.readouterr().out
    for name in catalogue():
        assert name in out
    assert main(["show", "skate"]) == 0
    assert capsys.readouterr().out == catalogue()["skate"].read_text(encoding="utf-8")
    assert main(["show", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("jetgeo: error: no shipped spec named 'nope'; available: ")


def test_check_reports(capsys):
    assert main(["check", "krupkova_example2"]) == 0
    out = capsys.readouterr().out
    assert "classification: nonlinear" in out
    assert "singular states (rank of df/dqdot drops where all vanish): [2*xdot, 2*ydot, -2*a**2*zdot]" in out
    assert "Constrained system [Stolařová 2009, eq. (12)]: regular" in out
    assert "Compatibility: Theorem 2 [Ibort et al. 1996]: compatible; rank F = 1, corank D = 1" in out
    assert "Integrability algorithm [Ibort et al. 1996, eqs. (3.9)–(3.10)]:" in out
    assert "E_∞ is the graph of a vector field on C_∞ (unique solutions)" in out
    # the normal form ż = +√(ẋ² + ẏ²)/a (branch 0) and the regularity condition [Stolařová 2009, eq. (12)], tidied
    # for display
    assert "  normal form: zdot = sqrt(xdot**2 + ydot**2)/a   (valid where -2*a*sqrt(xdot**2 + ydot**2) != 0)" in out
    assert main(["check", "skate", "--simplify"]) == 0
    out = capsys.readouterr().out
    assert "Constrained system [Stolařová 2009, eq. (12)]: regular; regular where I*m/cos(theta)**2 != 0" in out


def test_incompatible_reaction_forces_exit_1(tmp_path, capsys):
    # [Ibort et al. 1996, Theorem 2]: with F spanned by dθ only,
    # M = W^{ij} f_i β_j = (sin θ, −cos θ, 0)·diag(1/m, 1/m, 1/I)·(0, 0, 1) vanishes identically:
    # D° ∩ F^⊥ ≠ 0, the problem (L, C, D, F) is not compatible
    from jetgeo import implicit as imp
    from jetgeo.errors import IncompatibleError

    p = tmp_path / "inc.toml"
    p.write_text(catalogue()["skate"].read_text(encoding="utf-8")
                 + '\n[problem]\nreaction_forces = [["0", "0", "1"]]\n', encoding="utf-8")
    assert main(["check", str(p)]) == 1
    r = capsys.readouterr()
    assert "Compatibility: Theorem 2 [Ibort et al. 1996]: NOT established; rank F = 1, corank D = 1, det M = 0" in r.out
    assert "step 1: constraint m*thetadot*xdot = 0" in r.out  # the secondary constraint the algorithm finds
    assert r.err == f"jetgeo: {p}: the constrained problem is not well posed (see the report above)\n"
    spec = load_spec(p)
    with pytest.raises(IncompatibleError) as e:
        imp.NonholonomicProblem(spec.system, spec.Q, forces=spec.forces_bundle).solve()
    assert main(["derive", str(p), "--recipe", "ibort_sode"]) == 1
    assert capsys.readouterr().err == f"jetgeo: IncompatibleError: {p}: recipe ibort_sode: {e.value}\n"


#: (spec, method) pairs where the recipe's hypotheses fail: nonlinear constraints (Chaplygin's equations [Stolařová
#: 2009, eq. (5)]
#: and Hamel's quasi-velocities need constraints affine in the velocities)
NOT_APPLICABLE = {("krupkova_example2", "chaplygin"), ("krupkova_example2", "hamel"),
                  ("two_points_parallel", "chaplygin"), ("two_points_parallel", "hamel")}


def test_cli_offers_every_recipe():
    # the CLI's table is built from recipes.RECIPES (one home), plus the core, Ibort et al. and Benenti's first kind
    from jetgeo import recipes
    from jetgeo.cli import CLI_RECIPES
    from jetgeo.implicit import NonholonomicProblem

    assert set(recipes.RECIPES) | {"ibort_sode", "benenti_first_kind"} == set(CLI_RECIPES)
    for name, fn in recipes.RECIPES.items():
        if name != "krupkova":  # the CLI's krupkova is the core's reduced equations (spec.accelerations)
            assert CLI_RECIPES[name] == (fn, "sysQ"), name
    assert CLI_RECIPES["ibort_sode"] == (NonholonomicProblem, "problem")
    assert CLI_RECIPES["benenti_first_kind"] == (recipes.benenti_first_kind, "psi")


@pytest.mark.parametrize("name", sorted(catalogue()))
def test_every_method_agrees_with_krupkova_on_every_shipped_spec(name):
    # theory/architecture.md, 'Cross-validation': every applicable recipe and the Ibort et al. SODE [Ibort et al.
    # 1996] agree with Krupková's reduced
    # equations [Stolařová 2009, eq. (8)] on Q; results in the method's own variables (z of [Benenti 2007, eq.
    # (2.1)], Hamel's u) are
    # mapped back to the jet coordinates by the CLI
    from jetgeo.cli import CLI_RECIPES, derive_motion
    from jetgeo.errors import NotApplicableError

    spec = load_spec(catalogue()[name])
    ref, _ = derive_motion(spec, "krupkova")
    cs = spec.constrained()
    jets = set(spec.Y.J1.coords) | set(spec.parameters)
    for method in CLI_RECIPES:
        if (name, method) in NOT_APPLICABLE:
            with pytest.raises(NotApplicableError) as e:
                derive_motion(spec, method)
            assert str(e.value).startswith(f"{spec.source}: recipe {method}: ")
            continue
        acc, _ = derive_motion(spec, method)
        assert list(acc) == list(ref), method
        for a in ref:
            assert set().union(*[e.free_symbols for e in acc.values()]) <= jets, method
            assert is_zero(cs.on_Q(acc[a] - ref[a])), (method, a)


def test_method_not_applicable_exit_1_and_native_variables(capsys):
    from jetgeo.recipes import hamel

    assert main(["derive", "two_points_parallel", "--recipe", "chaplygin"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("jetgeo: NotApplicableError: two_points_parallel: recipe chaplygin: "
                          "Chaplygin's equations do not apply")
    assert "Traceback" not in err
    # Hamel's equations are written in quasi-velocities u: the text output gives them and the jet form
    assert main(["derive", "skate", "--recipe", "hamel", "--simplify"]) == 0
    out = capsys.readouterr().out.splitlines()
    spec = load_spec("skate")
    u = hamel(spec.system, spec.Q).to_jet
    assert out[1:4] == ["xddot = -thetadot*xdot*tan(theta)", "yddot = thetadot*xdot", "thetaddot = 0"]
    assert out[4] == "# hamel works in " + ", ".join(f"{k} = {v}" for k, v in u.items()) + "; in those variables:"


def test_formats(capsys):
    assert main(["derive", "vertical_rolling_disc", "--format", "latex"]) == 0
    tex = capsys.readouterr().out
    assert tex.startswith("\\begin{aligned}") and "\\ddot{x} &=" in tex
    assert main(["derive", "vertical_rolling_disc", "--format", "python"]) == 0
    code = capsys.readouterr().out
    ns: dict = {}
    exec(compile(code, "generated", "exec"), ns)  # our own generated code, not spec text
    acc = ns["accelerations"](0, 0, 0, 0, 0.5, 0, 0, 2.0, 0.3, 0.5, 0.25, 1.0, 1.0)  # t,q,qdot,A,B,R,m
    # ẍ = −R ψ̇ θ̇ sin ψ, ÿ = R ψ̇ θ̇ cos ψ on the disc [Benenti 2007, §9.2]
    assert abs(acc["xddot"] + 1.0 * 0.3 * 2.0 * sp.sin(0.5)) < 1e-12
    assert abs(acc["yddot"] - 1.0 * 0.3 * 2.0 * sp.cos(0.5)) < 1e-12
    assert main(["derive", "skate", "--format", "pdf"]) == 2
    assert capsys.readouterr().err == "jetgeo: error: unknown format 'pdf'; known formats: text, latex, json, python\n"


def test_off_Q_initial_data_exit_2(tmp_path, capsys):
    text = catalogue()["krupkova_example1"].read_text(encoding="utf-8").replace("zdot = 0", "zdot = 1")
    p = tmp_path / "off.toml"
    p.write_text(text, encoding="utf-8")
    assert main(["simulate", str(p), "--t-end", "1"]) == 2
    assert capsys.readouterr().err == (
        f"jetgeo: error: {p}: [initial]: the initial data are off the constraint manifold Q: constraint 1, "
        "-x*xdot*y + zdot = 1 != 0 at x = 0, y = 0, z = 0, xdot = 1, ydot = 1, zdot = 1\n"
    )


def test_show_and_derive_catalogue_system(capsys):
    from jetgeo import systems

    assert "vertical_disc" in systems.names()
    assert main(["show", "vertical_disc"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("# generated from the Python catalogue jetgeo.systems\n")
    spec = load_spec(text)
    assert main(["derive", "vertical_disc", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    names = {str(s): s for s in (spec.Y.t, *spec.Y.q, *spec.Y.qdot, *spec.parameters)}
    acc = spec.accelerations()
    cs = spec.constrained()
    for a, e in acc.items():
        assert is_zero(cs.on_Q(parse_expression(out["accelerations"][str(a)], names) - e)), a


def test_specs_are_package_data():
    # `pip install .` users get the shipped specs: pyproject lists them as package data
    import tomllib

    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    globs = cfg["tool"]["setuptools"]["package-data"]["jetgeo"]
    assert "io/specs/*.toml" in globs
    pkg = ROOT / "jetgeo"
    assert sorted(p.name for p in pkg.glob("io/specs/*.toml")) == sorted(p.name for p in catalogue().values())
    assert load_spec("skate").name == "skate"  # a bare name loads the shipped spec


def test_ibort_with_the_spec_reaction_force_bundle():
    from jetgeo.cli import derive_motion

    base = catalogue()["skate"].read_text(encoding="utf-8")
    # F spanned by Chetaev's covector ∂f/∂q̇ = (sin θ, −cos θ, 0): the same motion as Krupková's [Ibort et al. 1996,
    # eq. (5.20)]
    chetaev = load_spec(base + '\n[problem]\nreaction_forces = [["sin(theta)", "-cos(theta)", "0"]]\n')
    ref, _ = derive_motion(chetaev, "krupkova")
    acc, info = derive_motion(chetaev, "ibort_sode")
    assert info["result"] is not None
    cs = chetaev.constrained()
    for a in ref:
        assert is_zero(cs.on_Q(acc[a] - ref[a])), a
    # a non-Chetaev bundle (a force along x only) changes the motion: ÿ picks up the reaction differently
    other = load_spec(base + '\n[problem]\nreaction_forces = [["1", "0", "0"]]\n')
    acc2, _ = derive_motion(other, "ibort_sode")
    assert not all(is_zero(cs.on_Q(acc2[a] - ref[a])) for a in ref)


def test_ibort_with_permitted_directions(capsys):
    # (L, C, D, F) of [Ibort et al. 1996] with D° spanned by dφ = d(xdot − y) and dydot, F = all of T*Q: the permitted
    # directions force ÿ = 0, and tangency to C (ẋ = y) gives ẍ = ẏ, whatever the potential
    spec = load_spec('[coordinates]\nq = ["x", "y"]\n[parameters]\nw = "positive"\n[lagrangian]\n'
                     'T = "(xdot**2 + ydot**2)/2"\nV = "w**2*(x**2 + y**2)/2"\n[constraints]\nimplicit = ["xdot - y"]\n'
                     '[problem]\nreaction_forces = [["1", "0"], ["0", "1"]]\n'
                     'directions_annihilator = [["0", "0", "0", "1"]]\n')
    from jetgeo.cli import derive_motion

    acc, _ = derive_motion(spec, "ibort_sode")
    xdd, ydd = spec.Y.qddot
    assert is_zero(acc[xdd] - spec.Y.qdot[1]) and is_zero(acc[ydd])
