"""``einauge record play FILE``: replay a game record, print its public view.

CONTRACT section 3: one JSON object on stdout and exit 0; an illegal or malformed action
prints nothing on stdout, names the action's index and the reason on stderr, exits 1.
"""

from __future__ import annotations

import argparse
import json
import sys

from engine.einauge.record import RecordError, replay_record
from engine.einauge.view import public_view


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``record play``."""
    record = sub.add_parser("record", help="work with game records (CONTRACT section 1)")
    rsub = record.add_subparsers(dest="record_command", required=True)
    play = rsub.add_parser("play", help="replay a record and print its public view as JSON")
    play.add_argument("file", help="record file (JSON); - reads standard input")
    play.set_defaults(func=run_play)


def run_play(args: argparse.Namespace) -> int:
    """Replay ``args.file``; returns 0, or 1 for an illegal or malformed record."""
    try:
        if args.file == "-":
            text = sys.stdin.read()
        else:
            with open(args.file, encoding="utf-8") as f:
                text = f.read()
        record = json.loads(text)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        print(f"einauge: cannot read record {args.file}: {e}", file=sys.stderr)
        return 1
    try:
        state, _ = replay_record(record)
    except RecordError as e:
        print(f"einauge: {e}", file=sys.stderr)
        return 1
    print(json.dumps(public_view(state)))
    return 0
