"""``cardtable verify RECORD.json``: prove a game record fair and untampered, offline.

Prints one line per check (``engine.verify.CHECKS``): ``pass``, ``FAIL`` or ``not run``
with what was compared or what differed, then a summary line: ``verified`` only when every
check passed, ``replayed, not fully verified`` when some could not run (a self-play record
has no commitment, seed or chain), ``NOT verified`` when one failed. Exit 0 when the record
verifies (no check failed and the replay ran), 1 when a check failed, 2 when the file
cannot be read. ``--json`` prints the report as one JSON object instead.
"""

from __future__ import annotations

import argparse
import json
import sys

from engine.verify import FAIL, NOT_RUN, verify_bytes


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``verify``."""
    p = sub.add_parser("verify", help="check a game record's shuffle, replay and hash chain",
                       description="Check offline that a record's deck comes from the "
                                   "committed seed, that its actions replay legally to its "
                                   "result and that its hash chain ends at its head "
                                   "(docs/fairness.md).")
    p.add_argument("file", help="record file (JSON); - reads standard input")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Verify ``args.file``; returns 0 (verified), 1 (a check failed) or 2 (unreadable)."""
    try:
        if args.file == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(args.file, "rb") as f:
                data = f.read()
    except OSError as e:
        print(f"cardtable verify: cannot read {args.file}: {e.strerror or e}", file=sys.stderr)
        return 2
    report = verify_bytes(data)
    if args.json:
        print(json.dumps(report.to_dict(), ensure_ascii=False))
    else:
        width = max(len(c.name) for c in report.checks)
        for c in report.checks:
            label = {FAIL: "FAIL", NOT_RUN: "not run"}.get(c.status, c.status)
            print(f"{label:<8} {c.name:<{width}}  {c.detail}")
        failed = [c.name for c in report.failed()]
        not_run = [c.name for c in report.checks if c.status == NOT_RUN]
        if report.ok and not not_run:
            print(f"verified: {args.file}")
        elif report.ok:
            # A record without a commitment or chain (a self-play record) replays legally,
            # but nothing in it proves the shuffle fair: say so rather than "verified".
            print(f"replayed, not fully verified: {args.file}: not run: {', '.join(not_run)} "
                  "(the record carries nothing to check them against)")
        else:
            why = f"failed: {', '.join(failed)}" if failed else "the replay did not run"
            print(f"NOT verified: {args.file}: {why}")
    return 0 if report.ok else 1
