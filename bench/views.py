"""Server time per action for building a table's deltas (one per append, as live: every
viewer class's view, the projections and one RFC 6902 patch, ``core.build_delta``), the
distinct frames encoded (msgpack) and their sizes, for a 4-seat table of each game,
without sockets. The number of spectators does not enter: they share one frame (fan-out
to sockets is ``bench.load``'s).

    .venv/bin/python -m bench.views [--games 20]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

from engine import GAMES
from server.table.live import LiveTable
from server.table.meta import Seat, TableMeta


def _meta(game: str, seats: int) -> TableMeta:
    return TableMeta(id="bench", game=game, status="running", name="", options={},
                     seats=[Seat(name=f"p{i}", kind="human") for i in range(seats)],
                     contributions=[""] * seats, commitment="c" * 64, server_seed="s" * 64,
                     created_at=0.0, tokens=[""] * seats, owner="", host="", invite="")


def run(game_name: str, games: int, seats: int = 4) -> dict[str, Any]:
    """Per action (its events in one append, as live; the start's events excluded): µs
    to apply (views, projections, patches), µs to encode the distinct frames, the mean
    number of distinct frames, events per frame, and the bytes of the spectators'
    frame (msgpack)."""
    game = GAMES[game_name]
    apply_us: list[float] = []
    encode_us: list[float] = []
    frames: list[int] = []
    sizes: list[int] = []
    events_per: list[int] = []
    for g in range(games):
        table = LiveTable(_meta(game_name, seats), ring_size=1)
        rng = random.Random(g)
        events = list(game.start([f"p{i}" for i in range(seats)], {}, f"b{g}"))
        state = game.replay(list(events))
        first = True
        while True:
            entries, _ = table.chain(events, None)
            t0 = time.perf_counter()
            table.apply(entries, table.seq + 1)
            t1 = time.perf_counter()
            delta = table.ring[-1]
            for key in table.keys:
                delta.prepared(key, True)
            t2 = time.perf_counter()
            if not first:
                apply_us.append((t1 - t0) * 1e6)
                encode_us.append((t2 - t1) * 1e6)
                frames.append(sum(1 for m in delta.dicts.values() if m is not None))
                sizes.append(len(delta.frame(None, True) or b""))
                events_per.append(len(events))
            first = False
            if game.is_over(state):
                break
            seat = game.to_move(state)[0]
            events = game.play(state, rng.choice(game.legal_actions(state, seat)))
    ordered = sorted(sizes)
    return {"game": game_name, "actions": len(apply_us),
            "events_per_action": statistics.fmean(events_per),
            "apply_us_p50": statistics.median(apply_us),
            "apply_us_p99": statistics.quantiles(apply_us, n=100)[98],
            "encode_us_p50": statistics.median(encode_us),
            "frames_mean": statistics.fmean(frames),
            "bytes_p50": statistics.median(sizes), "bytes_mean": statistics.fmean(sizes),
            "bytes_p90": ordered[int(0.9 * len(ordered))], "bytes_max": ordered[-1]}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=20)
    args = p.parse_args()
    for name in GAMES:
        r = run(name, args.games)
        print(f"{name:8} 4 seats, {r['actions']} actions ({r['events_per_action']:.2f} events "
              f"each): apply p50 {r['apply_us_p50']:.0f} us p99 {r['apply_us_p99']:.0f} us; "
              f"encode p50 {r['encode_us_p50']:.0f} us; distinct frames "
              f"{r['frames_mean']:.2f}/action; spectators' frame bytes p50 "
              f"{r['bytes_p50']:.0f} mean {r['bytes_mean']:.0f} p90 {r['bytes_p90']} "
              f"max {r['bytes_max']}")


if __name__ == "__main__":
    main()
