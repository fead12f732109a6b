"""Server time per event for building a table's deltas: every viewer class's view,
projection and RFC 6902 patch (``LiveTable._delta``) and the distinct frames encoded
(msgpack), for a 4-seat table of each game, without sockets. The number of spectators
does not enter: they share one frame (fan-out to sockets is ``bench.load``'s).

    .venv/bin/python -m bench.views [--games 20]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

from engine import GAMES
from server.meta import Seat, TableMeta
from server.tables import LiveTable


def _meta(game: str, seats: int) -> TableMeta:
    return TableMeta(id="bench", game=game, status="running", name="", options={},
                     seats=[Seat(name=f"p{i}", kind="human") for i in range(seats)],
                     contributions=[""] * seats, commitment="c" * 64, server_seed="s" * 64,
                     created_at=0.0, tokens=[""] * seats, owner="", host="", invite="")


def run(game_name: str, games: int, seats: int = 4) -> dict[str, Any]:
    """Per event: µs to apply (views, projections, patches), µs to encode the distinct
    frames, and the mean number of distinct frames."""
    game = GAMES[game_name]
    apply_us: list[float] = []
    encode_us: list[float] = []
    frames: list[int] = []
    for g in range(games):
        table = LiveTable(_meta(game_name, seats), ring_size=1)
        rng = random.Random(g)
        events = list(game.start([f"p{i}" for i in range(seats)], {}, f"b{g}"))
        state = game.replay(list(events))
        while True:
            for event in events:
                entries, _ = table.chain([event], None)
                t0 = time.perf_counter()
                table.apply(entries, table.seq + 1)
                t1 = time.perf_counter()
                delta = table.ring[-1]
                for key in table.keys:
                    delta.prepared(key, True)
                t2 = time.perf_counter()
                apply_us.append((t1 - t0) * 1e6)
                encode_us.append((t2 - t1) * 1e6)
                frames.append(sum(1 for m in delta.dicts.values() if m is not None))
            if game.is_over(state):
                break
            seat = game.to_move(state)[0]
            events = game.play(state, rng.choice(game.legal_actions(state, seat)))
    return {"game": game_name, "events": len(apply_us),
            "apply_us_p50": statistics.median(apply_us),
            "apply_us_p99": statistics.quantiles(apply_us, n=100)[98],
            "encode_us_p50": statistics.median(encode_us),
            "frames_mean": statistics.fmean(frames)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=20)
    args = p.parse_args()
    for name in GAMES:
        r = run(name, args.games)
        print(f"{name:8} 4 seats, {r['events']} events: apply (views+patches) p50 "
              f"{r['apply_us_p50']:.0f} us p99 {r['apply_us_p99']:.0f} us; encode "
              f"p50 {r['encode_us_p50']:.0f} us; distinct frames {r['frames_mean']:.2f}/event")


if __name__ == "__main__":
    main()
