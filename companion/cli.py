"""Command line of the companion: run the app, simulate counters, scan, install their firmware,
replay, validate."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from companion import __version__

# Sub-command name -> module under companion.commands. Each module imports only
# the standard library at top level (so `--help` stays fast) and defines
#   HELP: str
#   configure(parser: argparse.ArgumentParser) -> None
#   run(args: argparse.Namespace) -> int
COMMANDS: dict[str, str] = {
    "app": "app",
    "cards": "cards",
    "install": "install",
    "export": "export",
    "people": "people",
    "replay": "replay",
    "scan": "scan",
    "sim": "sim",
    "serve": "serve",
    "screenshots": "screenshots",
    "stats": "stats",
}

# Started when `companion` is called with no sub-command, if registered.
DEFAULT_COMMAND = "app"


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser, one sub-parser per registered command."""
    parser = argparse.ArgumentParser(
        prog="companion",
        description=(
            "Unofficial table companion for the Munchkin card game: levels, combat and "
            "run-away math by the rules, mirrored onto LED level counters."
        ),
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module_name in COMMANDS.items():
        module = importlib.import_module(f"companion.commands.{module_name}")
        sub_parser = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.configure(sub_parser)
        sub_parser.set_defaults(_module=module)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `companion` console script; returns the exit code."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if not args_list and DEFAULT_COMMAND in COMMANDS:
        args_list = [DEFAULT_COMMAND]
    args = parser.parse_args(args_list)
    module = getattr(args, "_module", None)
    if module is None:
        parser.print_help()
        return 0
    try:
        return int(module.run(args) or 0)
    except KeyboardInterrupt:
        return 130
