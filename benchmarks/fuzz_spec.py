"""Coverage-guided fuzzing of the spec loader and the expression parser, with atheris (libFuzzer).

::

    python benchmarks/fuzz_spec.py --budget 600            # 10 minutes; figures to benchmarks/results/
    python benchmarks/fuzz_spec.py --budget 60 --out /tmp/fuzz.txt --work /tmp/fuzz

Every input is UTF-8 text given to :func:`jetgeo.io.loads_spec` (the whole loader: TOML, the safe
expression parser, the mechanics objects it builds) and, read as one expression, to
:func:`jetgeo.io.parse_expression`.  The seed corpus is the shipped spec files and the corpus of
``tests/corpus/specs``; a dictionary of spec tokens guides the mutations; the jetgeo and tomllib
modules are instrumented for coverage (sympy is not: it would slow every execution tenfold).

An input *crashes* when it raises anything but a :class:`jetgeo.errors.JetgeoError` (the
documented errors): the exception's type and innermost jetgeo frame identify it, the input is
saved under ``WORK/crashes/``, and fuzzing goes on (libFuzzer would stop at the first).  An input
is *slow* when it takes more than ``--slow`` seconds (default 1); each is saved under
``WORK/slow/``; a time limit of ``--hang`` seconds (default 10, :func:`jetgeo.limits.time_limit`)
ends an input that would run longer and counts it as a hang.  The report gives the executions,
the corpus size, the unique crashes, the slow inputs and the slowest one.

Every crash found becomes a case of ``tests/corpus`` (the corpus tests run in CI).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

DICTIONARY = [
    "[coordinates]", "[parameters]", "[lagrangian]", "[constraints]", "[constraints.normal]",
    "[constraints.parametric]", "[problem]", "[initial]", "[values]", "q = ", "time = ", "autonomous = true",
    "L = ", "T = ", "V = ", "forces = ", "implicit = ", "dependent = ", "branch = ", "z = ", "psi = ",
    "reaction_forces = ", "directions_annihilator = ", "name = ", "title = ", '"positive"', '"nonzero"',
    "xdot", "ydot", "zdot", "thetadot", "xddot", "theta", "**", "sin(", "cos(", "sqrt(", "exp(", "log(", "atan2(",
    "abs(", "sign(", "acos(", "pi", "1e308", "10**", "/0", "(", ")", "[", "]", '"', "\\n", "=", ",", "#", "__",
    "assume", "value",
]


# --- the target (runs in the child process) --------------------------------------------------------------


class _Stats:
    def __init__(self, path: Path, work: Path, slow: float, hang: float) -> None:
        self.path = path
        self.work = work
        self.slow = slow
        self.hang = hang
        self.executions = 0
        self.crashes: dict = {}
        self.slow_inputs: list = []
        self.hangs = 0
        self.slowest = (0.0, "")
        self.t0 = time.monotonic()
        self.last_write = 0.0

    def write(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self.last_write < 2.0:
            return
        self.last_write = now
        data = {"executions": self.executions, "elapsed": now - self.t0, "unique_crashes": len(self.crashes),
                "crashes": self.crashes, "slow_inputs": len(self.slow_inputs), "hangs": self.hangs,
                "slowest_seconds": self.slowest[0], "slowest_input": self.slowest[1][:400],
                "slow": self.slow_inputs[:50]}
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
        os.replace(tmp, self.path)

    def save(self, kind: str, data: bytes) -> str:
        import hashlib

        d = self.work / kind
        d.mkdir(parents=True, exist_ok=True)
        name = hashlib.sha1(data).hexdigest()[:16]
        (d / name).write_bytes(data)
        return str(d / name)


def _innermost_jetgeo_frame(tb) -> str:
    import traceback

    frames = traceback.extract_tb(tb)
    mine = [f for f in frames if "jetgeo" in f.filename.replace("\\", "/").split("/site-packages/")[-1]]
    f = (mine or frames)[-1]
    return f"{Path(f.filename).name}:{f.lineno}"


def _child(args: argparse.Namespace) -> None:
    import atheris

    with atheris.instrument_imports(include=["jetgeo", "tomllib"]):
        import sympy as sp

        from jetgeo.errors import JetgeoError, ResourceLimitError
        from jetgeo.io import loads_spec, parse_expression
        from jetgeo.limits import time_limit

    stats = _Stats(Path(args.stats), Path(args.work), args.slow, args.hang)
    names = {n: sp.Symbol(n) for n in ("x", "y", "z", "theta", "xdot", "ydot", "zdot", "thetadot", "t", "m", "k")}

    def one(text: str) -> None:
        try:
            loads_spec(text, source="fuzz.toml")
        except JetgeoError:
            pass
        if len(text) <= 2000:
            try:
                parse_expression(text, names, where="fuzz")
            except JetgeoError:
                pass

    def test_one_input(data: bytes) -> None:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return
        stats.executions += 1
        t = time.monotonic()
        try:
            with time_limit(stats.hang):
                one(text)
        except ResourceLimitError:
            stats.hangs += 1
        except Exception as exc:  # noqa: BLE001 - anything but a documented error is what we look for
            key = f"{type(exc).__name__} at {_innermost_jetgeo_frame(exc.__traceback__)}"
            if key not in stats.crashes:
                stats.crashes[key] = {"message": " ".join(str(exc).split())[:300], "input": stats.save("crashes", data)}
                stats.write(force=True)
        dt = time.monotonic() - t
        if dt > stats.slowest[0]:
            stats.slowest = (dt, text)
        if dt > stats.slow:
            stats.slow_inputs.append({"seconds": round(dt, 3), "input": stats.save("slow", data)})
            stats.write(force=True)
        stats.write()

    atheris.Setup([sys.argv[0], *args.libfuzzer], test_one_input)
    atheris.Fuzz()


# --- the driver ----------------------------------------------------------------------------------------------


def _seed(corpus: Path) -> int:
    corpus.mkdir(parents=True, exist_ok=True)
    n = 0
    sources = list((ROOT / "jetgeo" / "io" / "specs").glob("*.toml"))
    sources += list((ROOT / "examples" / "specs").rglob("*.toml"))
    sources += list((ROOT / "tests" / "corpus" / "specs").glob("*.toml"))
    for p in sources:
        if p.stat().st_size <= 20_000:
            shutil.copy(p, corpus / f"seed_{p.parent.name}_{p.name}")
            n += 1
    return n


def main(argv: list | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--budget", type=float, default=600.0, help="seconds of fuzzing (default 600)")
    ap.add_argument("--slow", type=float, default=1.0, help="an input slower than this is reported (s)")
    ap.add_argument("--hang", type=float, default=10.0, help="an input is stopped after this many seconds")
    ap.add_argument("--work", default=None, help="working directory (corpus, crashes, slow inputs)")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "fuzz_spec.txt"))
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--stats", help=argparse.SUPPRESS)
    ap.add_argument("libfuzzer", nargs="*", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        _child(args)
        return 0
    try:
        import atheris  # noqa: F401 - the child needs it; say so before spending the budget
    except ImportError:
        sys.stderr.write("fuzz_spec: atheris is not installed (pip install jetgeo[fuzz])\n")
        return 2
    work = Path(args.work or (ROOT / ".fuzz_spec"))
    work.mkdir(parents=True, exist_ok=True)
    corpus = work / "corpus"
    seeds = _seed(corpus)
    dict_file = work / "spec.dict"
    dict_file.write_text("".join(json.dumps(tok) + "\n" for tok in DICTIONARY), encoding="utf-8")
    stats_file = work / "stats.json"
    stats_file.unlink(missing_ok=True)
    lf = [f"-max_total_time={int(args.budget)}", "-rss_limit_mb=6000", "-timeout=120", f"-dict={dict_file}",
          "-max_len=4096", "-print_final_stats=1", f"-artifact_prefix={work}/", str(corpus)]
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", "--stats", str(stats_file), "--work", str(work),
           "--slow", str(args.slow), "--hang", str(args.hang), "--", *lf]
    sys.path.insert(0, str(ROOT))  # the parent only: the child imports nothing of benchmarks/
    from benchmarks.provenance import provenance_lines

    prov = provenance_lines("python benchmarks/fuzz_spec.py " + shlex.join(sys.argv[1:] if argv is None else argv))
    t0 = time.time()
    log = work / "libfuzzer.log"
    with open(log, "w", encoding="utf-8") as fh:
        proc = subprocess.run(cmd, stdout=fh, stderr=subprocess.STDOUT, timeout=args.budget + 600)
    wall = time.time() - t0
    stats = json.loads(stats_file.read_text(encoding="utf-8")) if stats_file.exists() else {}
    corpus_size = sum(1 for _ in corpus.iterdir())
    log_lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
    last = [ln for ln in log_lines if "cov:" in ln]
    units = next((ln.split(":")[-1].strip() for ln in log_lines if ln.startswith("stat::number_of_executed_units")),
                 "?")
    lines = [
        "Coverage-guided fuzzing of jetgeo.io.loads_spec + parse_expression (atheris / libFuzzer)",
        *prov,
        "the machine is shared with other jobs (the figures are lower than on an idle machine)",
        f"budget: {args.budget:g} s; wall time {wall:.0f} s; libFuzzer exit status {proc.returncode}",
        f"seed inputs: {seeds}; corpus size at the end: {corpus_size} inputs",
        f"executions: {units} inputs run by libFuzzer, {stats.get('executions', '?')} of them UTF-8 text given to "
        f"the loader and the parser ({stats.get('executions', 0) / max(stats.get('elapsed', wall), 1):.0f}/s)",
        f"last libFuzzer status: {last[-1].strip() if last else '?'}",
        f"unique crashes (exceptions other than jetgeo.errors): {stats.get('unique_crashes', '?')}",
    ]
    for key, c in (stats.get("crashes") or {}).items():
        lines.append(f"  {key}: {c['message']} [{c['input']}]")
    lines += [
        f"inputs slower than {args.slow:g} s: {stats.get('slow_inputs', '?')}; stopped at the {args.hang:g} s limit: "
        f"{stats.get('hangs', '?')}",
        f"slowest input: {stats.get('slowest_seconds', 0):.3f} s: {json.dumps(stats.get('slowest_input', ''))[:300]}",
    ]
    text = "\n".join(lines) + "\n"
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text, encoding="utf-8")
    sys.stdout.write(text)
    return 0 if stats.get("unique_crashes", 1) == 0 and stats.get("hangs", 1) == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
