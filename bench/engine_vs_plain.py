"""The engine against a plain implementation of the same rules (issue 18), side by side.

Run from the repository root, pinned to one core:
``taskset -c 1 .venv/bin/python -m bench.engine_vs_plain [--games 300] [--rounds 5]``.

Each round times, in CPU time of this process (``time.process_time``), one batch of
``--games`` complete random games on the engine (``bench.engine.play_games``: setup by
``Einauge.start`` with its SHA-256 shuffle, then ``random_playout`` through ``play``, every
event kept) and the same batch on ``bench.plain_einauge`` (setup with the same shuffle,
then the same choice ``legal[rng.randrange(len(legal))]``, no event log). Both sides get
the same seeds (new ones each round) and list legal actions in the same order, so they
play exactly the same games; the benchmark checks that the action counts agree. The order
of the two alternates from round to round so that a change in the machine's load hits both
alike. Reported: per round games/s of each and their ratio; the median ratio is the figure
(goal: 7); and the engine's replay in memory (events/s, goal 1 M).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: import the project, not this file
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench.engine import machine, play_games, replay_objects
from bench.plain_einauge import random_game

GOAL_RATIO = 7.0
GOAL_REPLAY = 1_000_000


def plain_games(n: int, games: int, seed: str = "bench") -> int:
    """``games`` complete random ``n``-player plain games, seeded as ``play_games`` seeds
    the engine's (one ``random.Random(f"{seed}-{n}")`` for all; game ``i`` from
    ``f"{seed}-{n}-{i}"``); returns the actions played."""
    names = [f"p{i}" for i in range(n)]
    rng = random.Random(f"{seed}-{n}")
    total = 0
    for i in range(games):
        _, actions = random_game(names, f"{seed}-{n}-{i}", rng)
        total += actions
    return total


def oracle_games(n: int, games: int, seed: str = "bench") -> int:
    """The same batch on the test oracle (``tests/oracle/einauge_oracle.py``: written for
    obvious correctness, it checks each action by listing all legal ones again). Its legal
    actions come in another order, so these are other games of the same rules; for
    context only. Returns the actions played."""
    from tests.oracle.einauge_oracle import setup_from_record

    names = [f"p{i}" for i in range(n)]
    rng = random.Random(f"{seed}-{n}")
    total = 0
    for i in range(games):
        game = setup_from_record({"game": "einauge", "players": names,
                                  "seed": f"{seed}-{n}-{i}"})
        while game.phase != "ended":
            legal = game.legal_actions(game.seat)  # type: ignore[arg-type]
            game.apply(legal[rng.randrange(len(legal))])
            total += 1
    return total


def _cpu(fn: Callable[[], Any]) -> tuple[float, Any]:
    c0 = time.process_time()
    result = fn()
    return time.process_time() - c0, result


def run(players: int, games: int, rounds: int, oracle: bool = False) -> dict[str, Any]:
    """Interleaved rounds of engine and plain batches (then, with ``oracle``, the test
    oracle's); the ``--json`` layout."""
    out: dict[str, Any] = {"machine": machine(), "players": players, "games": games,
                           "rounds": [], "timing": "CPU time of one process per batch",
                           "affinity": sorted(os.sched_getaffinity(0))}
    logs: list[list[Any]] = []
    for r in range(rounds):
        sides: dict[str, tuple[float, int]] = {}
        order = ("engine", "plain") if r % 2 == 0 else ("plain", "engine")
        seed = f"bench{r}"  # fresh games each round (no memo of the engine is warm for them)
        for side in order:
            if side == "engine":
                cpu, (actions, logs) = _cpu(lambda seed=seed: play_games(players, games, seed))
            else:
                cpu, actions = _cpu(lambda seed=seed: plain_games(players, games, seed))
            sides[side] = (cpu, actions)
        if sides["engine"][1] != sides["plain"][1]:
            raise RuntimeError(f"the two sides played different games: {sides}")
        e, p = games / sides["engine"][0], games / sides["plain"][0]
        out["rounds"].append({"first": order[0], "engine_games_per_s": e,
                              "plain_games_per_s": p, "ratio": e / p,
                              "actions": sides["engine"][1]})
        if oracle:
            cpu, actions = _cpu(lambda seed=seed: oracle_games(players, games, seed))
            out["rounds"][-1].update(oracle_games_per_s=games / cpu, oracle_ratio=e * cpu / games,
                                     oracle_actions=actions)
    ratios = [x["ratio"] for x in out["rounds"]]
    out["ratio_median"] = statistics.median(ratios)
    out["ratio_min"], out["ratio_max"] = min(ratios), max(ratios)
    out["engine_games_per_s_median"] = statistics.median(
        x["engine_games_per_s"] for x in out["rounds"])
    out["plain_games_per_s_median"] = statistics.median(
        x["plain_games_per_s"] for x in out["rounds"])
    events = sum(len(log) for log in logs)
    best = min(_cpu(lambda: replay_objects(logs))[0] for _ in range(3))
    out["replay"] = {"events": events, "events_per_s": events / best}
    out["load_at_end"] = list(os.getloadavg())
    return out


def table(r: dict[str, Any]) -> str:
    """The figures as plain text."""
    m = r["machine"]
    lines = [f"Einauge engine vs plain implementation, {m['date']}",
             f"CPU: {m['cpu']} ({m['cores']} cores), Python {m['python']}, "
             f"affinity {r['affinity']}, load at start {m['loadavg_at_start']}, "
             f"at end {r['load_at_end']}",
             f"{r['players']} players, {r['games']} games per batch, {r['timing']}", "",
             "round  first   engine games/s  plain games/s  ratio"]
    for i, x in enumerate(r["rounds"]):
        lines.append(f"{i:>5}  {x['first']:<6}  {x['engine_games_per_s']:>14,.0f}  "
                     f"{x['plain_games_per_s']:>13,.0f}  {x['ratio']:>5.2f}"
                     + (f"   (test oracle {x['oracle_games_per_s']:,.0f} games/s, engine "
                        f"{x['oracle_ratio']:.2f} x)" if "oracle_ratio" in x else ""))
    ok = r["ratio_median"] >= GOAL_RATIO
    lines += ["", f"median ratio {r['ratio_median']:.2f} (min {r['ratio_min']:.2f}, max "
              f"{r['ratio_max']:.2f}); goal >= {GOAL_RATIO:g}: {'met' if ok else 'MISSED'}",
              f"replay in memory ({r['replay']['events']:,} events): "
              f"{r['replay']['events_per_s']:,.0f} events/s; goal >= {GOAL_REPLAY:,}: "
              f"{'met' if r['replay']['events_per_s'] >= GOAL_REPLAY else 'MISSED'}"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Command line: print the table; ``--json FILE`` also writes the figures."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--players", type=int, default=4, choices=range(2, 6))
    p.add_argument("--games", type=int, default=300, help="games per batch (300)")
    p.add_argument("--rounds", type=int, default=5, help="interleaved rounds (5)")
    p.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    p.add_argument("--oracle", action="store_true",
                   help="also time the test oracle (tests/oracle), for context")
    args = p.parse_args(argv)
    if args.games < 1 or args.rounds < 1:
        p.error("--games and --rounds must be at least 1")
    result = run(args.players, args.games, args.rounds, args.oracle)
    print(table(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
