"""Engine benchmark: complete random games, actions and replayed events per second, one core.

Run from the repository root: ``.venv/bin/python -m bench.engine [--game NAME] [--games N]
[--players N ...] [--json FILE] [--profile]`` (see bench/README.md). ``--game`` is a game of
the registry (``engine.GAMES``: einauge, keltis, loot-island; default the first, einauge).
For each player count from the game's ``min_players`` to its ``max_players`` (or those of
``--players``) it plays ``--games`` complete games: setup by the game's ``start`` (the
SHA-256 shuffles of its CONTRACT section 2), then every seat picks uniformly among its legal
actions (``engine.selfplay.random_playout``, the same choice a ``RandomBot`` makes) until
final scoring. It then replays the stored event logs of those games in memory: the fold of
``evolve`` over the event objects, and the same fold from the wire dicts (``EVENTS.decode``
+ ``evolve``, what a cold server start does).

Per game (``SPECS``): Einauge's figures are checked against the goals of issue 2; Keltis's
also time ``observation`` + ``sample`` (a bot's determinization) and the per-viewer
``project`` and ``view`` a server computes for each event.

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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: import the project, not this file
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from engine import GAMES, Game
from engine.einauge.events import EVENTS
from engine.einauge.evolve import evolve
from engine.einauge.game import EINAUGE
from engine.einauge.state import State
from engine.keltis import KELTIS
from engine.keltis.evolve import evolve as keltis_evolve
from engine.keltis.state import State as KeltisState
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


# --------------------------------------------------------------------------- per game


def einauge_lines(r: dict[str, Any]) -> list[str]:
    """Einauge's figures against the goals of issue 2."""
    lines = []
    rp = r["replay"]
    if "4" in r["games"]:
        g4 = r["games"]["4"]["games_per_s"]
        lines.append(f"goal 4-player games/s >= {GOALS['games_per_s_4p']:,}: "
                     f"{'met' if g4 >= GOALS['games_per_s_4p'] else 'MISSED'} ({g4:,.0f})")
    ok = rp["events_per_s"] >= GOALS["replay_events_per_s"]
    lines.append(f"goal replay events/s >= {GOALS['replay_events_per_s']:,}: "
                 f"{'met' if ok else 'MISSED'} ({rp['events_per_s']:,.0f})")
    return lines


def samples(logs: list[list[Any]], per_game: int = 20) -> int:
    """Keltis: ``observation`` + ``sample`` at ``per_game`` points of each game; returns
    the count."""
    rng = random.Random(0)
    count = 0
    for events in logs:
        state = KeltisState()
        marks = set(range(0, len(events), max(1, len(events) // per_game)))
        for i, e in enumerate(events):
            keltis_evolve(state, e)
            if i in marks and state.step in ("play", "draw", "final"):
                KELTIS.sample(KELTIS.observation(state, state.current_seat), rng)
                count += 1
    return count


def server_work(logs: list[list[Any]]) -> int:
    """Keltis: per event, what a server computes for every seat and one spectator: the
    projection and the client view. Returns the number of (event, viewer) pairs."""
    count = 0
    for events in logs:
        n = len(events[0].players)
        viewers = [None, *range(n)]
        state = KeltisState()
        for e in events:
            keltis_evolve(state, e)
            for v in viewers:
                KELTIS.project(e, v)
                KELTIS.view(state, v)
            count += len(viewers)
    return count


def keltis_figures(logs: list[list[Any]], repeat: int) -> dict[str, Any]:
    """Keltis's ``bots`` and ``server`` figures (their parts of the ``--json`` layout)."""
    scpu, _, n_samples = _best(lambda: samples(logs), repeat)
    few = logs[: max(1, len(logs) // 10)]
    vcpu, _, pairs = _best(lambda: server_work(few), repeat)
    return {"bots": {"samples": n_samples, "observe_and_sample_us": scpu / n_samples * 1e6},
            "server": {"pairs": pairs, "project_and_view_us": vcpu / pairs * 1e6}}


def keltis_lines(r: dict[str, Any]) -> list[str]:
    """The lines of Keltis's ``bots`` and ``server`` figures."""
    b, s = r["bots"], r["server"]
    return [f"observation + sample: {b['observe_and_sample_us']:.0f} us "
            f"({b['samples']:,} samples)",
            f"project + client view per (event, viewer): "
            f"{s['project_and_view_us']:.1f} us ({s['pairs']:,} pairs)"]


@dataclass(frozen=True)
class Spec:
    """What a game's benchmark adds to the common figures, and its defaults."""

    title: str
    """The game's name in the report's first line."""
    games: int = 1000
    """Games per player count unless ``--games`` says otherwise."""
    profile_players: int = 4
    """Players of the games ``--profile`` profiles."""
    profile_games: Callable[[int], int] = field(default=lambda games: min(games, 500))
    """How many games ``--profile`` profiles, from ``--games``."""
    profile_lines: int = 18
    goals: dict[str, Any] | None = None
    """Goals written to the JSON (``goals``)."""
    extra_figures: Callable[[list[list[Any]], int], dict[str, Any]] | None = None
    """More figures from every event log played and ``--repeat``, merged into the result."""
    extra_lines: Callable[[dict[str, Any]], list[str]] | None = None
    """More report lines from the result."""


SPECS: dict[str, Spec] = {
    "einauge": Spec("Einauge", goals=GOALS, extra_lines=einauge_lines),
    "keltis": Spec("Keltis", profile_players=3, profile_games=lambda games: min(games, 300),
                   extra_figures=keltis_figures, extra_lines=keltis_lines),
    "loot-island": Spec("Loot Island", games=50,
                        profile_games=lambda games: max(1, games // 2), profile_lines=15),
}
"""Per game of the registry; a game without an entry gets the common figures only."""


def spec_of(game: Game) -> Spec:
    """The game's ``Spec`` (the default one, titled with the game's title, when none)."""
    return SPECS.get(game.name) or Spec(game.title)


# --------------------------------------------------------------------------- the run


def run(games: int, repeat: int, players: list[int], game: Game = EINAUGE) -> dict[str, Any]:
    """All figures of ``game`` as a dict (the ``--json`` layout)."""
    spec = spec_of(game)
    out: dict[str, Any] = {"game": game.name, "machine": machine(), "games_per_count": games,
                           "repeat": repeat, "timing": "CPU time of one process, best of repeat",
                           "games": {}}
    if spec.goals is not None:
        out["goals"] = spec.goals
    out["games"], all_logs = game_figures(game, players, games, repeat)
    new_state = getattr(game, "state_type", game.initial_state)
    out["replay"] = replay_figures(all_logs, repeat, new_state, game.evolve, game.events)
    if spec.extra_figures is not None:
        out.update(spec.extra_figures(all_logs, repeat))
    return out


def table_head(title: str, r: dict[str, Any]) -> list[str]:
    """The machine lines and the per-player-count rows of a figures table."""
    m = r["machine"]
    lines = [f"{title} engine benchmark, {m['date']}",
             f"CPU: {m['cpu']} ({m['cores']} cores), Python {m['python']} "
             f"({m['implementation']}), load at start {m['loadavg_at_start']}",
             f"{r['games_per_count']} games per player count, {r['timing']}", "",
             "players  games/s  (wall)  actions/s  events/s  actions/game  events/game  "
             "us/game  setup us",
             ]
    for n, g in r["games"].items():
        lines.append(f"{n:>7}  {g['games_per_s']:>7,.0f}  {g['games_per_s_wall']:>6,.0f}  "
                     f"{g['actions_per_s']:>9,.0f}  {g['events_per_s']:>8,.0f}  "
                     f"{g['actions_per_game']:>12.1f}  {g['events_per_game']:>11.1f}  "
                     f"{g['us_per_game']:>7.0f}  {g['setup_us_per_game']:>8.0f}")
    rp = r["replay"]
    lines += ["", f"replay in memory ({rp['games']} games, {rp['events']:,} events): "
              f"{rp['events_per_s']:,.0f} events/s (wall {rp['events_per_s_wall']:,.0f}); "
              f"from wire dicts (decode + evolve): {rp['wire_events_per_s']:,.0f} events/s"]
    return lines


def table(r: dict[str, Any], game: Game = EINAUGE) -> str:
    """The figures of ``game`` as a plain-text table."""
    spec = spec_of(game)
    lines = table_head(spec.title, r)
    if spec.extra_lines is not None:
        lines += spec.extra_lines(r)
    return "\n".join(lines)


# --------------------------------------------------------------------------- CLI


def player_counts(p: argparse.ArgumentParser, texts: Sequence[str], allowed: range
                  ) -> list[int]:
    """The ``--players`` counts (``2,3,4`` or ``2 3 4``); ``p.error`` unless all are in
    ``allowed``."""
    try:
        players = [int(x) for text in texts for x in text.split(",") if x]
    except ValueError:
        players = []
    if not players or not set(players) <= set(allowed):
        p.error(f"--players: counts from {allowed[0]} to {allowed[-1]}")
    return players


def main(argv: list[str] | None = None) -> int:
    """Command line: print the table; ``--json FILE`` also writes the figures."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--game", choices=list(GAMES), default=next(iter(GAMES)),
                   help=f"the game (default {next(iter(GAMES))})")
    p.add_argument("--games", type=int,
                   help="games per player count (default 1000; loot-island 50)")
    p.add_argument("--repeat", type=int, default=3, help="runs per figure, best kept (3)")
    p.add_argument("--players", nargs="+", metavar="N",
                   help="player counts, as 2,3,4 or 2 3 4 (default: the game's "
                        "min_players to max_players)")
    p.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    p.add_argument("--profile", action="store_true",
                   help="also print a cProfile of the game's profiled player count "
                        "(4; keltis 3): where the time goes")
    args = p.parse_args(argv)
    game = GAMES[args.game]
    spec = spec_of(game)
    games = spec.games if args.games is None else args.games
    if games < 1 or args.repeat < 1:
        p.error("--games and --repeat must be at least 1")
    allowed = range(game.min_players, game.max_players + 1)
    players = list(allowed) if args.players is None else player_counts(p, args.players, allowed)
    result = run(games, args.repeat, players, game)
    print(table(result, game))
    if args.profile:
        n = spec.profile_players
        key = f"profile_{n}p"
        result[key] = profile_top(n, spec.profile_games(games), spec.profile_lines, game)
        print("\n" + result[key])
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
