"""Server CPU per action of the pure action path, without sockets or Redis: what the
server does between a decoded ``action`` message and the frames it writes, for seeded
4-seat games of one game.

Per accepted action, in order: the action decoded (``Codec.decode``), decided
(``Game.decide``), chained (``TableCore.chain``: projections, hash chain), sealed
(``SeedSeal.seal_entries``, a key file in a temporary folder), folded with its delta and
the prompts of the seats to move (``TableCore.take``, every seat seated), and its frames
encoded (the delta of every viewer class and the prompts, msgpack). The games are played
first (random legal actions, ``--games`` seeds); each round replays all their actions on
fresh tables and takes ``process_time`` over them, so a round's figure is CPU time.

    .venv/bin/python -m bench.core_path [--game einauge] [--games 15] [--rounds 7]

Prints each round's µs per action, their minimum and median, and the median split by
step. Pin it to one core (``taskset -c 1``) for steadier figures.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from engine import GAMES, get_game
from server.store.sealing import SeedSeal
from server.table.live import LiveTable
from server.table.meta import Seat, TableMeta
from server.ws.protocol import encode

STEPS = ("decode", "decide", "chain", "seal", "take", "encode")

Played = tuple[list[Any], list[tuple[int, dict[str, Any]]]]


def _meta(game: str, seats: int) -> TableMeta:
    return TableMeta(id="bench", game=game, status="running", name="", options={},
                     seats=[Seat(name=f"p{i}", kind="human") for i in range(seats)],
                     contributions=[""] * seats, commitment="c" * 64, server_seed="s" * 64,
                     created_at=0.0, tokens=[""] * seats, owner="", host="", invite="")


def play(game_name: str, games: int, seats: int = 4) -> list[Played]:
    """Seeded games of random legal actions: per game its start events and each action's
    ``(seat, wire form)``."""
    game = get_game(game_name)
    out = []
    for g in range(games):
        rng = random.Random(g)
        start = list(game.start([f"p{i}" for i in range(seats)], {}, f"bench-{g}"))
        state = game.replay(start)
        actions = []
        while not game.is_over(state):
            seat = game.to_move(state)[0]
            action = rng.choice(game.legal_actions(state, seat))
            actions.append((seat, action.to_dict()))
            game.play(state, action)
        out.append((start, actions))
    return out


def one_round(game_name: str, played: list[Played], seal: SeedSeal, seats: int = 4
              ) -> tuple[float, dict[str, float]]:
    """µs of CPU per action over every action of ``played``, and per step."""
    game = get_game(game_name)
    everyone = set(range(seats))
    steps = dict.fromkeys(STEPS, 0.0)
    clock = time.process_time
    n = 0
    total = 0.0
    for start, actions in played:
        table = LiveTable(_meta(game_name, seats), ring_size=8)
        entries, _ = table.chain(start, None)
        table.take(entries, 1, everyone, 0)
        for seat, body in actions:
            t0 = clock()
            data = dict(body)
            data.setdefault("seat", seat)
            action = game.actions.decode(data)
            t1 = clock()
            events = list(game.decide(table.state, action))
            t2 = clock()
            entries, _ = table.chain(events, action, 0)
            t3 = clock()
            seal.seal_entries(entries, table.id)
            t4 = clock()
            out = table.take(entries, table.seq + 1, everyone, 0)
            t5 = clock()
            assert out is not None and out.delta is not None
            for key in table.keys:
                out.delta.prepared(key, True)
            for _, _, prompt in out.prompts:
                encode(prompt, True)
            t6 = clock()
            for step, (a, b) in zip(STEPS, ((t0, t1), (t1, t2), (t2, t3), (t3, t4), (t4, t5),
                                            (t5, t6)), strict=True):
                steps[step] += b - a
            total += t6 - t0
            n += 1
    return total / n * 1e6, {k: v / n * 1e6 for k, v in steps.items()}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", choices=sorted(GAMES), default="einauge")
    p.add_argument("--games", type=int, default=15)
    p.add_argument("--rounds", type=int, default=7)
    args = p.parse_args()
    played = play(args.game, args.games)
    with tempfile.TemporaryDirectory() as tmp:
        seal = SeedSeal.at(Path(tmp) / "seed-keys")
        rounds = [one_round(args.game, played, seal) for _ in range(args.rounds)]
    totals = [r[0] for r in rounds]
    actions = sum(len(a) for _, a in played)
    print(f"{args.game}: {actions} actions of {args.games} games; µs per action, rounds: "
          + ", ".join(f"{t:.1f}" for t in totals)
          + f"; min {min(totals):.1f}, median {statistics.median(totals):.1f}")
    print("median per step: " + ", ".join(
        f"{s} {statistics.median(r[1][s] for r in rounds):.1f}" for s in STEPS))


if __name__ == "__main__":
    main()
