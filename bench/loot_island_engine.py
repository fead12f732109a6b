"""Loot Island engine benchmark: complete random games and replayed events per second.

Run from the repository root: ``.venv/bin/python -m bench.loot_island_engine [--games N]
[--players 2 3 4 5] [--repeat R] [--profile] [--json FILE]``. For each player count it
plays ``--games`` complete games: setup by ``LootIsland.start`` (the eight SHA-256
shuffles of CONTRACT §2) and a uniform random playout over ``legal_actions``
(``engine.selfplay.random_playout``) to final scoring, reshuffles included. It then
replays the event logs: the fold of ``evolve`` over the event objects, and over the wire
dicts (``EVENTS.decode`` + ``evolve``). Timing: CPU time of this process, best of
``--repeat`` (``bench.engine``'s helpers); one core.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import random
import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: import the project, not this file
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench.engine import _best, machine
from engine.loot_island import LOOT_ISLAND as G
from engine.loot_island.events import EVENTS
from engine.loot_island.evolve import evolve
from engine.loot_island.state import State
from engine.selfplay import random_playout


def play_games(n: int, games: int, seed: str = "bench") -> tuple[int, list[list[Any]]]:
    """Play ``games`` complete random games of ``n`` players; (actions, event logs)."""
    names = [f"p{i}" for i in range(n)]
    rng = random.Random(f"{seed}-{n}")
    total = 0
    logs = []
    for i in range(games):
        events = G.start(names, None, f"{seed}-{n}-{i}")
        state = G.replay(events)
        total += random_playout(G, state, rng, None, events)
        logs.append(events)
    return total, logs


def replay_objects(logs: list[list[Any]]) -> int:
    """Fold ``evolve`` over every log from an empty state; the number of events."""
    for events in logs:
        state = State()
        for e in events:
            evolve(state, e)
    return sum(map(len, logs))


def replay_wire(wire: list[list[dict[str, Any]]]) -> int:
    """Decode every wire dict and fold ``evolve``; the number of events."""
    decode = EVENTS.decode
    for log in wire:
        state = State()
        for d in log:
            evolve(state, decode(d))
    return sum(map(len, wire))


def run(games: int, repeat: int, players: list[int]) -> dict[str, Any]:
    """All figures as a dict (the ``--json`` layout)."""
    out: dict[str, Any] = {"machine": machine(), "games_per_count": games, "repeat": repeat,
                           "timing": "CPU time of one process, best of repeat", "games": {}}
    all_logs: list[list[Any]] = []
    for n in players:
        cpu, wall, (actions, logs) = _best(lambda n=n: play_games(n, games), repeat)
        events = sum(map(len, logs))
        out["games"][str(n)] = {
            "games_per_s": games / cpu, "games_per_s_wall": games / wall,
            "actions_per_s": actions / cpu, "actions_per_game": actions / games,
            "events_per_game": events / games}
        all_logs += logs
    wire = [[e.to_dict() for e in log] for log in all_logs]
    cpu, _, count = _best(lambda: replay_objects(all_logs), repeat)
    out["replay_objects_events_per_s"] = count / cpu
    cpu, _, count = _best(lambda: replay_wire(wire), repeat)
    out["replay_wire_events_per_s"] = count / cpu
    return out


def main(argv: list[str] | None = None) -> int:
    """Command line entry: print a table, optionally write JSON and a profile."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4, 5])
    parser.add_argument("--profile", action="store_true", help="cProfile 4-player games")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    result = run(args.games, args.repeat, args.players)
    print(f"machine: {result['machine']}")
    print("| players | games/s | actions/s | actions/game | events/game |")
    print("|---:|---:|---:|---:|---:|")
    for n, g in result["games"].items():
        print(f"| {n} | {g['games_per_s']:,.1f} | {g['actions_per_s']:,.0f} | "
              f"{g['actions_per_game']:.1f} | {g['events_per_game']:.1f} |")
    print(f"replay (objects): {result['replay_objects_events_per_s']:,.0f} events/s")
    print(f"replay (wire dicts): {result['replay_wire_events_per_s']:,.0f} events/s")
    if args.profile:
        prof = cProfile.Profile()
        prof.runcall(play_games, 4, max(1, args.games // 2), "profile")
        text = io.StringIO()
        pstats.Stats(prof, stream=text).strip_dirs().sort_stats("tottime").print_stats(15)
        print(text.getvalue())
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
