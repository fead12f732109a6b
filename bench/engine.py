"""Engine benchmark: complete random games, actions and replayed events per second, one core.

Run from the repository root: ``.venv/bin/python -m bench.engine [--games N] [--json FILE]``
(see bench/README.md). For each player count 2-5 it plays ``--games`` complete games:
setup by ``Einauge.start`` (the SHA-256 shuffle of CONTRACT section 2), then every seat
picks uniformly among its legal actions (``engine.selfplay.random_playout``, the same
choice a ``RandomBot`` makes) until final scoring. It then replays the stored event logs
of those games in memory: the fold of ``evolve`` over the event objects, and the same fold
from the wire dicts (``EVENTS.decode`` + ``evolve``, what a cold server start does).

Timing: the CPU time of this process (``time.process_time``), best of ``--repeat`` runs, so
that other load on the machine disturbs the figures as little as possible; wall-clock
figures are reported too. Nothing runs in parallel: one core.
"""

from __future__ import annotations

import argparse
import cProfile
import datetime
import io
import json
import os
import platform
import pstats
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: import the project, not this file
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from engine.einauge.events import EVENTS
from engine.einauge.evolve import evolve
from engine.einauge.game import EINAUGE
from engine.einauge.state import State
from engine.selfplay import random_playout

GOALS = {"games_per_s_4p": 5000, "games_per_s_4p_stretch": 10000, "replay_events_per_s": 1_000_000}


def machine() -> dict[str, Any]:
    """CPU model (from /proc/cpuinfo), cores, Python, platform and load at the start."""
    model = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        load = list(os.getloadavg())
    except OSError:
        load = None
    return {"cpu": model, "cores": os.cpu_count(), "python": platform.python_version(),
            "implementation": platform.python_implementation(), "platform": platform.platform(),
            "loadavg_at_start": load,
            "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")}


def _best(fn: Callable[[], Any], repeat: int) -> tuple[float, float, Any]:
    """Run ``fn`` ``repeat`` times; the lowest CPU and wall seconds, and the last result."""
    cpu = wall = float("inf")
    result = None
    for _ in range(repeat):
        c0, w0 = time.process_time(), time.perf_counter()
        result = fn()
        cpu = min(cpu, time.process_time() - c0)
        wall = min(wall, time.perf_counter() - w0)
    return cpu, wall, result


def play_games(n: int, games: int, seed: str = "bench", game: Any = EINAUGE
               ) -> tuple[int, list[list[Any]]]:
    """Play ``games`` complete random games of ``n`` players of ``game`` (an
    ``engine.game.Game``, Einauge by default); (actions, event logs)."""
    names = [f"p{i}" for i in range(n)]
    start, replay = game.start, game.replay
    rng = random.Random(f"{seed}-{n}")  # one stream for all games, as a tree search has
    total = 0
    logs = []
    for i in range(games):
        events = start(names, None, f"{seed}-{n}-{i}")
        state = replay(events)
        total += random_playout(game, state, rng, None, events)
        logs.append(events)
    return total, logs


def replay_objects(logs: list[list[Any]], new_state: Callable[[], Any] = State,
                   fold: Callable[[Any, Any], Any] = evolve) -> int:
    """Fold ``fold`` (a game's ``evolve`` function, not a method: the hot path) over every
    log from ``new_state()``; returns the events applied."""
    count = 0
    for events in logs:
        state = new_state()
        for e in events:
            fold(state, e)
        count += len(events)
    return count


def replay_wire(wire: list[list[dict[str, Any]]], new_state: Callable[[], Any] = State,
                fold: Callable[[Any, Any], Any] = evolve, codec: Any = EVENTS) -> int:
    """Decode every wire dict with ``codec`` and fold ``fold`` over the events; returns
    the events."""
    decode = codec.decode
    count = 0
    for log in wire:
        state = new_state()
        for d in log:
            fold(state, decode(d))
        count += len(log)
    return count


def profile_top(n: int, games: int, lines: int = 18, game: Any = EINAUGE) -> str:
    """cProfile of ``games`` complete ``n``-player games of ``game``, sorted by own time."""
    prof = cProfile.Profile()
    prof.runcall(play_games, n, games, "profile", game)
    out = io.StringIO()
    pstats.Stats(prof, stream=out).strip_dirs().sort_stats("tottime").print_stats(lines)
    return out.getvalue()


def game_figures(game: Any, players: list[int], games: int, repeat: int
                 ) -> tuple[dict[str, Any], list[list[Any]]]:
    """Per player count of ``game``: games, actions and events per second (CPU and wall),
    per-game counts and setup cost (the ``games`` part of the ``--json`` layout); and
    every event log played."""
    figures: dict[str, Any] = {}
    all_logs: list[list[Any]] = []
    for n in players:
        cpu, wall, (actions, logs) = _best(lambda n=n: play_games(n, games, game=game), repeat)
        events = sum(len(log) for log in logs)
        setup_cpu, _, _ = _best(
            lambda n=n: [game.replay(game.start([f"p{i}" for i in range(n)], None,
                                                f"bench-{n}-{i}")) for i in range(games)],
            repeat)
        figures[str(n)] = {
            "games_per_s": games / cpu, "games_per_s_wall": games / wall,
            "actions_per_s": actions / cpu, "events_per_s": events / cpu,
            "actions_per_game": actions / games, "events_per_game": events / games,
            "us_per_game": cpu / games * 1e6, "setup_us_per_game": setup_cpu / games * 1e6,
        }
        all_logs.extend(logs)
    return figures, all_logs


def replay_figures(logs: list[list[Any]], repeat: int, new_state: Callable[[], Any] = State,
                   fold: Callable[[Any, Any], Any] = evolve, codec: Any = EVENTS
                   ) -> dict[str, Any]:
    """Replay events/s of ``logs`` in memory and from wire dicts (the ``replay`` part of
    the ``--json`` layout)."""
    events = sum(len(log) for log in logs)
    cpu, wall, _ = _best(lambda: replay_objects(logs, new_state, fold), repeat)
    wire = [[e.to_dict() for e in log] for log in logs]
    wcpu, wwall, _ = _best(lambda: replay_wire(wire, new_state, fold, codec), repeat)
    return {"games": len(logs), "events": events,
            "events_per_s": events / cpu, "events_per_s_wall": events / wall,
            "wire_events_per_s": events / wcpu, "wire_events_per_s_wall": events / wwall}


def run(games: int, repeat: int, players: list[int]) -> dict[str, Any]:
    """All figures as a dict (the ``--json`` layout)."""
    out: dict[str, Any] = {"machine": machine(), "games_per_count": games, "repeat": repeat,
                           "timing": "CPU time of one process, best of repeat", "games": {},
                           "goals": GOALS}
    out["games"], all_logs = game_figures(EINAUGE, players, games, repeat)
    out["replay"] = replay_figures(all_logs, repeat)
    return out


def table_head(title: str, r: dict[str, Any]) -> list[str]:
    """The machine lines and the per-player-count rows of a figures table."""
    m = r["machine"]
    lines = [f"{title} engine benchmark, {m['date']}",
             f"CPU: {m['cpu']} ({m['cores']} cores), Python {m['python']} "
             f"({m['implementation']}), load at start {m['loadavg_at_start']}",
             f"{r['games_per_count']} games per player count, {r['timing']}", "",
             "players  games/s  (wall)  actions/s  events/s  actions/game  us/game  setup us",
             ]
    for n, g in r["games"].items():
        lines.append(f"{n:>7}  {g['games_per_s']:>7,.0f}  {g['games_per_s_wall']:>6,.0f}  "
                     f"{g['actions_per_s']:>9,.0f}  {g['events_per_s']:>8,.0f}  "
                     f"{g['actions_per_game']:>12.1f}  {g['us_per_game']:>7.0f}  "
                     f"{g['setup_us_per_game']:>8.0f}")
    rp = r["replay"]
    lines += ["", f"replay in memory ({rp['games']} games, {rp['events']:,} events): "
              f"{rp['events_per_s']:,.0f} events/s (wall {rp['events_per_s_wall']:,.0f}); "
              f"from wire dicts (decode + evolve): {rp['wire_events_per_s']:,.0f} events/s"]
    return lines


def player_counts(p: argparse.ArgumentParser, text: str, allowed: range) -> list[int]:
    """The comma-separated ``--players`` counts; ``p.error`` unless all are in ``allowed``."""
    try:
        players = [int(x) for x in text.split(",")]
    except ValueError:
        players = []
    if not players or not set(players) <= set(allowed):
        p.error(f"--players: counts from {allowed[0]} to {allowed[-1]}")
    return players


def table(r: dict[str, Any]) -> str:
    """The figures as a plain-text table."""
    lines = table_head("Einauge", r)
    rp = r["replay"]
    if "4" in r["games"]:
        g4 = r["games"]["4"]["games_per_s"]
        lines.append(f"goal 4-player games/s >= {GOALS['games_per_s_4p']:,}: "
                     f"{'met' if g4 >= GOALS['games_per_s_4p'] else 'MISSED'} ({g4:,.0f})")
    ok = rp["events_per_s"] >= GOALS["replay_events_per_s"]
    lines.append(f"goal replay events/s >= {GOALS['replay_events_per_s']:,}: "
                 f"{'met' if ok else 'MISSED'} ({rp['events_per_s']:,.0f})")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Command line: print the table; ``--json FILE`` also writes the figures."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--games", type=int, default=1000, help="games per player count (1000)")
    p.add_argument("--repeat", type=int, default=3, help="runs per figure, best kept (3)")
    p.add_argument("--players", default="2,3,4,5", help="player counts (2,3,4,5)")
    p.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    p.add_argument("--profile", action="store_true",
                   help="also print a cProfile of 4-player games (where the time goes)")
    args = p.parse_args(argv)
    if args.games < 1 or args.repeat < 1:
        p.error("--games and --repeat must be at least 1")
    players = player_counts(p, args.players, range(2, 6))
    result = run(args.games, args.repeat, players)
    print(table(result))
    if args.profile:
        result["profile_4p"] = profile_top(4, min(args.games, 500))
        print("\n" + result["profile_4p"])
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
