"""Keltis engine benchmark: complete random games and replayed events per second, one core.

Run from the repository root: ``.venv/bin/python -m bench.keltis_engine [--games N]
[--json FILE] [--profile]``. For each player count 2-4 it plays ``--games`` complete games:
setup by ``Keltis.start`` (the SHA-256 shuffle of CONTRACT-keltis §2 and the deal), then
every seat picks uniformly among its legal actions (``engine.selfplay.random_playout``,
the choice a ``RandomBot`` makes) until final scoring. It then replays the event logs: the
fold of ``evolve`` over the event objects, and from the wire dicts (``EVENTS.decode`` +
``evolve``). It also times ``observation`` + ``sample`` (a bot's determinization) and the
per-viewer ``view`` and ``project`` a server computes for each event.

Timing: CPU time of this process, best of ``--repeat`` runs (as ``bench/engine.py``).
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
from engine.keltis import KELTIS
from engine.keltis.events import EVENTS
from engine.keltis.evolve import evolve
from engine.keltis.state import State
from engine.selfplay import random_playout


def play_games(n: int, games: int, seed: str = "bench") -> tuple[int, list[list[Any]]]:
    """Play ``games`` complete random games of ``n`` players; (actions, event logs)."""
    names = [f"p{i}" for i in range(n)]
    start, replay = KELTIS.start, KELTIS.replay
    rng = random.Random(f"{seed}-{n}")
    total = 0
    logs = []
    for i in range(games):
        events = start(names, None, f"{seed}-{n}-{i}")
        state = replay(events)
        total += random_playout(KELTIS, state, rng, None, events)
        logs.append(events)
    return total, logs


def replay_objects(logs: list[list[Any]]) -> int:
    """Fold ``evolve`` over every log from an empty state; returns the events applied."""
    count = 0
    for events in logs:
        state = State()
        for e in events:
            evolve(state, e)
        count += len(events)
    return count


def replay_wire(wire: list[list[dict[str, Any]]]) -> int:
    """Decode every wire dict and fold ``evolve`` over the events; returns the events."""
    decode = EVENTS.decode
    count = 0
    for log in wire:
        state = State()
        for d in log:
            evolve(state, decode(d))
        count += len(log)
    return count


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
    all_logs: list[list[Any]] = []
    for n in players:
        cpu, wall, (actions, logs) = _best(lambda n=n: play_games(n, games), repeat)
        events = sum(len(log) for log in logs)
        setup_cpu, _, _ = _best(
            lambda n=n: [KELTIS.replay(KELTIS.start([f"p{i}" for i in range(n)], None,
                                                    f"bench-{n}-{i}")) for i in range(games)],
            repeat)
        out["games"][str(n)] = {
            "games_per_s": games / cpu, "games_per_s_wall": games / wall,
            "actions_per_s": actions / cpu, "events_per_s": events / cpu,
            "actions_per_game": actions / games, "events_per_game": events / games,
            "us_per_game": cpu / games * 1e6, "setup_us_per_game": setup_cpu / games * 1e6,
        }
        all_logs.extend(logs)
    events = sum(len(log) for log in all_logs)
    cpu, wall, _ = _best(lambda: replay_objects(all_logs), repeat)
    wire = [[e.to_dict() for e in log] for log in all_logs]
    wcpu, _, _ = _best(lambda: replay_wire(wire), repeat)
    scpu, _, n_samples = _best(lambda: samples(all_logs), repeat)
    few = all_logs[: max(1, len(all_logs) // 10)]
    vcpu, _, pairs = _best(lambda: server_work(few), repeat)
    out["replay"] = {"games": len(all_logs), "events": events, "events_per_s": events / cpu,
                     "events_per_s_wall": events / wall, "wire_events_per_s": events / wcpu}
    out["bots"] = {"samples": n_samples, "observe_and_sample_us": scpu / n_samples * 1e6}
    out["server"] = {"pairs": pairs, "project_and_view_us": vcpu / pairs * 1e6}
    return out


def table(r: dict[str, Any]) -> str:
    """The figures as a plain-text table."""
    m = r["machine"]
    lines = [f"Keltis engine benchmark, {m['date']}",
             f"CPU: {m['cpu']} ({m['cores']} cores), Python {m['python']} "
             f"({m['implementation']}), load at start {m['loadavg_at_start']}",
             f"{r['games_per_count']} games per player count, {r['timing']}", "",
             "players  games/s  (wall)  actions/s  events/s  actions/game  us/game  setup us"]
    for n, g in r["games"].items():
        lines.append(f"{n:>7}  {g['games_per_s']:>7,.0f}  {g['games_per_s_wall']:>6,.0f}  "
                     f"{g['actions_per_s']:>9,.0f}  {g['events_per_s']:>8,.0f}  "
                     f"{g['actions_per_game']:>12.1f}  {g['us_per_game']:>7.0f}  "
                     f"{g['setup_us_per_game']:>8.0f}")
    rp, b, s = r["replay"], r["bots"], r["server"]
    lines += ["", f"replay in memory ({rp['games']} games, {rp['events']:,} events): "
              f"{rp['events_per_s']:,.0f} events/s (wall {rp['events_per_s_wall']:,.0f}); "
              f"from wire dicts (decode + evolve): {rp['wire_events_per_s']:,.0f} events/s",
              f"observation + sample: {b['observe_and_sample_us']:.0f} us "
              f"({b['samples']:,} samples)",
              f"project + client view per (event, viewer): {s['project_and_view_us']:.1f} us "
              f"({s['pairs']:,} pairs)"]
    return "\n".join(lines)


def profile_top(n: int, games: int, lines: int = 18) -> str:
    """cProfile of ``games`` complete ``n``-player games, sorted by own time."""
    prof = cProfile.Profile()
    prof.runcall(play_games, n, games, "profile")
    out = io.StringIO()
    pstats.Stats(prof, stream=out).strip_dirs().sort_stats("tottime").print_stats(lines)
    return out.getvalue()


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
    try:
        players = [int(x) for x in args.players.split(",")]
    except ValueError:
        players = []
    if not players or not set(players) <= {2, 3, 4}:
        p.error("--players: counts from 2 to 4")
    result = run(args.games, args.repeat, players)
    print(table(result))
    if args.profile:
        result["profile_3p"] = profile_top(3, min(args.games, 300))
        print("\n" + result["profile_3p"])
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
