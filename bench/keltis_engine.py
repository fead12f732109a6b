"""Keltis engine benchmark: complete random games and replayed events per second, one core.

Run from the repository root: ``.venv/bin/python -m bench.keltis_engine [--games N]
[--json FILE] [--profile]``. For each player count 2-4 it plays ``--games`` complete games:
setup by ``Keltis.start`` (the SHA-256 shuffle of CONTRACT-keltis §2 and the deal), then
every seat picks uniformly among its legal actions (``engine.selfplay.random_playout``,
the choice a ``RandomBot`` makes) until final scoring. It then replays the event logs: the
fold of ``evolve`` over the event objects, and from the wire dicts (``EVENTS.decode`` +
``evolve``). It also times ``observation`` + ``sample`` (a bot's determinization) and the
per-viewer ``view`` and ``project`` a server computes for each event.

Timing: CPU time of this process, best of ``--repeat`` runs; the game loop, replay and
table head are ``bench/engine.py``'s, given the Keltis game.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: import the project, not this file
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench.engine import (
    _best,
    game_figures,
    machine,
    player_counts,
    profile_top,
    replay_figures,
    table_head,
)
from engine.keltis import KELTIS
from engine.keltis.events import EVENTS
from engine.keltis.evolve import evolve
from engine.keltis.state import State


def samples(logs: list[list[Any]], per_game: int = 20) -> int:
    """``observation`` + ``sample`` at ``per_game`` points of each game; returns the count."""
    rng = random.Random(0)
    count = 0
    for events in logs:
        state = State()
        marks = set(range(0, len(events), max(1, len(events) // per_game)))
        for i, e in enumerate(events):
            evolve(state, e)
            if i in marks and state.step in ("play", "draw", "final"):
                KELTIS.sample(KELTIS.observation(state, state.current_seat), rng)
                count += 1
    return count


def server_work(logs: list[list[Any]]) -> int:
    """Per event, what a server computes for every seat and one spectator: the projection
    and the client view. Returns the number of (event, viewer) pairs."""
    count = 0
    for events in logs:
        n = len(events[0].players)
        viewers = [None, *range(n)]
        state = State()
        for e in events:
            evolve(state, e)
            for v in viewers:
                KELTIS.project(e, v)
                KELTIS.view(state, v)
            count += len(viewers)
    return count


def run(games: int, repeat: int, players: list[int]) -> dict[str, Any]:
    """All figures as a dict (the ``--json`` layout)."""
    out: dict[str, Any] = {"machine": machine(), "games_per_count": games, "repeat": repeat,
                           "timing": "CPU time of one process, best of repeat", "games": {}}
    out["games"], all_logs = game_figures(KELTIS, players, games, repeat)
    out["replay"] = replay_figures(all_logs, repeat, State, evolve, EVENTS)
    scpu, _, n_samples = _best(lambda: samples(all_logs), repeat)
    few = all_logs[: max(1, len(all_logs) // 10)]
    vcpu, _, pairs = _best(lambda: server_work(few), repeat)
    out["bots"] = {"samples": n_samples, "observe_and_sample_us": scpu / n_samples * 1e6}
    out["server"] = {"pairs": pairs, "project_and_view_us": vcpu / pairs * 1e6}
    return out


def table(r: dict[str, Any]) -> str:
    """The figures as a plain-text table."""
    b, s = r["bots"], r["server"]
    return "\n".join([*table_head("Keltis", r),
                      f"observation + sample: {b['observe_and_sample_us']:.0f} us "
                      f"({b['samples']:,} samples)",
                      f"project + client view per (event, viewer): "
                      f"{s['project_and_view_us']:.1f} us ({s['pairs']:,} pairs)"])


def main(argv: list[str] | None = None) -> int:
    """Command line: print the table; ``--json FILE`` also writes the figures."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--games", type=int, default=1000, help="games per player count (1000)")
    p.add_argument("--repeat", type=int, default=3, help="runs per figure, best kept (3)")
    p.add_argument("--players", default="2,3,4", help="player counts (2,3,4)")
    p.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    p.add_argument("--profile", action="store_true",
                   help="also print a cProfile of 3-player games (where the time goes)")
    args = p.parse_args(argv)
    if args.games < 1 or args.repeat < 1:
        p.error("--games and --repeat must be at least 1")
    players = player_counts(p, args.players, range(2, 5))
    result = run(args.games, args.repeat, players)
    print(table(result))
    if args.profile:
        result["profile_3p"] = profile_top(3, min(args.games, 300), game=KELTIS)
        print("\n" + result["profile_3p"])
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
