"""How good the post-game analysis is, and what it costs (docs/bots.md, "Post-game
analysis").

For each game, one self-play record of greedy bots (two seats, seed ``--seed``) is cut to
its first ``--actions`` actions and analysed at ``--budget-ms`` and again at
``--long-ms`` (a longer search: more iterations and more samples). Printed per game: the
judged decisions (forced ones left out), how often the best move found at the budget is
the one found by the longer search, the mean loss each reports, and the seconds each took
(wall time, this machine), with the machine and its load::

    .venv/bin/python -m bench.analysis_quality --actions 30 --budget-ms 50 --long-ms 400
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: import the project, not this file
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench.engine import machine
from engine import get_game
from engine.analysis import analyse
from engine.bots.registry import make_bot
from engine.selfplay import play_game

GAMES = ("einauge", "keltis", "loot-island")


def record(name: str, seed: str, actions: int) -> dict:
    """A two-seat greedy game of ``name``, as a record of its first ``actions`` actions."""
    game = get_game(name)
    options = game.check_options({}, 2)
    bots = [make_bot("greedy", f"{seed}:{s}", game=game) for s in range(2)]
    played = play_game(game, ["A", "B"], options, seed, bots)
    return game.make_record(["A", "B"], options, seed, game.setup_deck(played.events),
                            played.actions[:actions])


def measure(name: str, seed: str, actions: int, budget: float, long: float) -> dict:
    """Agreement and cost of ``budget`` against ``long`` on one record of ``name``."""
    rec = record(name, seed, actions)
    t0 = time.perf_counter()
    short = analyse(rec, budget)
    t1 = time.perf_counter()
    longer = analyse(rec, long)
    t2 = time.perf_counter()
    judged = [(a, b) for a, b in zip(short.decisions, longer.decisions, strict=True)
              if not a.forced]
    agree = sum(a.best == b.best for a, b in judged)
    return {"game": name, "judged": len(judged), "agree": agree,
            "loss": sum(a.loss for a, _ in judged) / max(1, len(judged)),
            "long_loss": sum(b.loss for _, b in judged) / max(1, len(judged)),
            "seconds": t1 - t0, "long_seconds": t2 - t1, "actions": len(rec["actions"])}


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--actions", type=int, default=30, help="actions of each record judged")
    p.add_argument("--budget-ms", type=float, default=50.0, help="the budget measured")
    p.add_argument("--long-ms", type=float, default=400.0, help="the longer search")
    p.add_argument("--seed", default="quality", help="the self-play seed")
    p.add_argument("--games", default=",".join(GAMES), help="games to measure")
    args = p.parse_args(argv)
    print(f"machine: {machine()}; load average at start: {os.getloadavg()[0]:.1f}")
    print(f"budget {args.budget_ms:g} ms against {args.long_ms:g} ms, first {args.actions} "
          "actions of one 2-seat greedy game each\n")
    print("| game | judged | best agrees | mean loss (budget) | mean loss (longer) | "
          "s (budget) | s per action | s (longer) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name in args.games.split(","):
        m = measure(name, args.seed, args.actions, args.budget_ms, args.long_ms)
        share = m["agree"] / max(1, m["judged"])
        print(f"| {name} | {m['judged']} | {m['agree']} ({share:.0%}) | {m['loss']:.2f} | "
              f"{m['long_loss']:.2f} | {m['seconds']:.1f} | "
              f"{m['seconds'] / max(1, m['actions']):.2f} | {m['long_seconds']:.1f} |",
              flush=True)
    print(f"\nload average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
