"""``cardtable`` entry point: argparse sub-commands, each defined in its own module.

A sub-command module exposes ``register(subparsers)``, which adds its parser and sets
``func`` (``args -> exit code``) as the parser default.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from engine import GAMES

COMMANDS = ("cli.selfplay", "cli.record", "cli.verify", "cli.tournament", "cli.serve",
            "cli.balance", "cli.keys", "cli.admin", "cli.backup", "cli.prune", "cli.analyse")
"""Modules that register a sub-command; a module that fails to import is a bug, not hidden."""


def build_parser() -> argparse.ArgumentParser:
    """The full parser with every sub-command registered."""
    titles = [game.title for game in GAMES.values()]
    parser = argparse.ArgumentParser(
        prog="cardtable",
        description=f"Cardtable, online card games ({', '.join(titles)}): engine tools and "
                    "the service.")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in COMMANDS:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the process exit code."""
    args = build_parser().parse_args(argv)
    try:
        code = int(args.func(args) or 0)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (``| head``): as other Unix tools, stop quietly. Python
        # would flush stdout again at exit and print a second traceback: point it at
        # /dev/null first (the recipe of the Python docs, "Note on SIGPIPE").
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, what a shell reports for a tool killed by it
    return code


def legacy_main() -> int:
    """``einauge``, the command's former name (kept for one release): a note on stderr,
    then ``main``."""
    print("einauge: the command is called cardtable now; einauge will be removed in the "
          "next release", file=sys.stderr)
    return main()


if __name__ == "__main__":
    sys.exit(main())
