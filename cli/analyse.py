"""``cardtable analyse RECORD… [--json] [--budget-ms N]``: judge every decision of finished
games and measure each seat's luck, offline (``engine.analysis``; docs/bots.md,
"Post-game analysis").

``--json`` prints, per record, one JSON object on one line: ``{"decisions": [{"index",
"seat", "action", "best", "loss"}], "luck": [per seat]}`` (``loss`` ≥ 0 in the game's
points; ``best`` equals ``action`` where ``loss`` is 0). Without it, a table per record:
every decision with its mark, then a summary per seat. ``--budget-ms`` is the search's
budget per decision, turned into a fixed amount of work (the same output on every
machine). A progress bar (actions, or records when there are several) goes to stderr
when it is a terminal. Exit 0 when every record was analysed, 1 when one does not
replay, 2 when one cannot be read.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from cli.progress import bar
from engine import record_game
from engine.analysis import DEFAULT_BUDGET_MS, Analysis, analyse, mark, merge, summary
from engine.game import RecordError


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``analyse``."""
    p = sub.add_parser("analyse", help="judge every decision of game records by the bots' "
                                       "search, and each seat's luck",
                       description="Replay each record and judge every action by the mcts "
                                   "search from what its seat knew then: the expected "
                                   "points of the move played against the best found, and "
                                   "each seat's luck from the draws (docs/bots.md).")
    p.add_argument("files", nargs="+", metavar="RECORD",
                   help="record file (JSON); - reads standard input")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object per record instead of a table")
    p.add_argument("--budget-ms", type=_budget, default=DEFAULT_BUDGET_MS,
                   help=f"search budget per decision in ms (default {DEFAULT_BUDGET_MS:g}), "
                        "as a fixed amount of work")
    p.set_defaults(func=run)


def _budget(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < value <= 600_000:
        raise argparse.ArgumentTypeError("the budget must be above 0 and at most 600000 ms")
    return value


def run(args: argparse.Namespace) -> int:
    """Analyse each of ``args.files``; returns 0, 1 (a record does not replay) or 2
    (a file cannot be read or is not JSON)."""
    code = 0
    many = len(args.files) > 1
    with bar(len(args.files) if many else None, "records" if many else "actions",
             unit="record" if many else "action") as outer:
        for path in args.files:
            record = _read(path)
            if record is None:
                code = max(code, 2)
                continue
            try:
                if many:
                    result = merge([analyse(record, args.budget_ms)])
                    outer.update(1)
                else:
                    def tick(done: int, total: int) -> None:
                        outer.total = total
                        outer.update(done - outer.n)
                    result = merge([analyse(record, args.budget_ms, progress=tick)])
            except RecordError as e:
                print(f"cardtable analyse: {path}: {e}", file=sys.stderr)
                code = max(code, 1)
                continue
            if args.json:
                print(json.dumps(result.to_dict(), ensure_ascii=False))
            else:
                _table(path, record, result)
            sys.stdout.flush()
    return code


def _read(path: str) -> Any:
    try:
        if path == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as f:
                data = f.read()
        return json.loads(data)
    except OSError as e:
        print(f"cardtable analyse: cannot read {path}: {e.strerror or e}", file=sys.stderr)
    except ValueError as e:
        print(f"cardtable analyse: {path}: not JSON: {e}", file=sys.stderr)
    return None


def _short(action: dict[str, Any]) -> str:
    return " ".join(f"{k}={v}" for k, v in action.items() if k != "seat")


def _table(path: str, record: dict[str, Any], result: Analysis) -> None:
    game = record_game(record).name
    players = record["players"]
    print(f"{path} ({game}, {len(players)} players)")
    print(f"{'#':>4} {'seat':<12} {'loss':>6}  {'mark':<10} move played -> best found")
    for d in result.decisions:
        label = "forced" if d.forced else (mark(game, d.loss) or "")
        best = "" if d.best == d.action else f" -> {_short(d.best)}"
        print(f"{d.index:>4} {str(players[d.seat])[:12]:<12} {d.loss:>6.2f}  {label:<10} "
              f"{_short(d.action)}{best}")
    print(f"{'seat':<12} {'judged':>6} {'inacc.':>6} {'mist.':>6} {'blund.':>6} "
          f"{'avg loss':>8} {'luck':>7}")
    for s in summary(game, result):
        print(f"{str(players[s['seat']])[:12]:<12} {s['decisions']:>6} "
              f"{s['inaccuracies']:>6} {s['mistakes']:>6} {s['blunders']:>6} "
              f"{s['average_loss']:>8.2f} {s['luck']:>+7.2f}")
