"""The ``jetgeo`` command.

``jetgeo demo`` runs a built-in example end to end.  Exit codes: 0 success,
1 the mathematics says no (incompatible, not regular), 2 bad input.
"""

from __future__ import annotations

import argparse
import sys

from . import __version__
from .errors import JetgeoError, SpecError

__all__ = ["main", "build_parser"]


def _demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    run_demo(out=sys.stdout)
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="jetgeo",
        description="Geometry and dynamics of non-holonomic mechanical systems.",
    )
    p.add_argument("--version", action="version", version=f"jetgeo {__version__}")
    p.add_argument("--debug", action="store_true", help="show Python tracebacks on errors")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    d = sub.add_parser("demo", help="run a built-in example end to end")
    d.set_defaults(func=_demo)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.func(args) or 0)
    except SpecError as exc:
        if args.debug:
            raise
        print(f"jetgeo: error: {exc}", file=sys.stderr)
        return 2
    except JetgeoError as exc:
        if args.debug:
            raise
        print(f"jetgeo: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
