"""``record play FILE [--seat N]``: replay a game record, print its view.

The game is the record's ``game`` field (``engine.record_game``; absent: Einauge).
CONTRACT §3: one JSON object on stdout and exit 0 (the view of seat N with ``--seat``,
else a spectator's); an illegal or malformed action prints nothing on stdout, names the
action's index and the reason on stderr, exits 1.
"""

from __future__ import annotations

import argparse
import json
import sys

from engine import record_game
from engine.game import RecordError


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``record play``."""
    record = sub.add_parser("record", help="work with game records (CONTRACT section 1)")
    rsub = record.add_subparsers(dest="record_command", required=True)
    play = rsub.add_parser("play", help="replay a record and print its view as JSON")
    play.add_argument("file", help="record file (JSON); - reads standard input")
    play.add_argument("--seat", type=int, metavar="N",
                      help="print what seat N sees (its own hand too); default: a spectator")
    play.set_defaults(func=run_play)


def run_play(args: argparse.Namespace) -> int:
    """Replay ``args.file``; returns 0, or 1 for an illegal or malformed record."""
    prog = sys.argv[0].rsplit("/", 1)[-1] or "cardtable"
    try:
        if args.file == "-":
            text = sys.stdin.read()
        else:
            with open(args.file, encoding="utf-8") as f:
                text = f.read()
        record = json.loads(text)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        print(f"{prog}: cannot read record {args.file}: {e}", file=sys.stderr)
        return 1
    try:
        view = record_game(record).record_view(record, getattr(args, "seat", None))
    except RecordError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 1
    print(json.dumps(view))
    return 0
