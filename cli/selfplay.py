"""``einauge selfplay``: seeded random-bot games, with speed and outcome statistics."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from engine import get_game
from engine.bots import RandomBot
from engine.einauge.record import make_record
from engine.selfplay import play_game


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``selfplay``."""
    p = sub.add_parser("selfplay", help="play seeded games between random bots")
    p.add_argument("--players", type=int, default=4, choices=range(2, 6), metavar="N",
                   help="players per game, 2-5 (default 4)")
    p.add_argument("--games", type=int, default=100, help="number of games (default 100)")
    p.add_argument("--seed", default="1", help="base seed; game i uses '<seed>-<i>'")
    p.add_argument("--records", type=Path, help="write every game as a record into this folder")
    p.add_argument("--end-rule", choices=("round", "one_more_turn"), default="round")
    p.add_argument("--color-bonus", action="store_true", help="play the color-bonus variant")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Play ``args.games`` games and print a summary; returns 0."""
    if args.games < 1:
        raise SystemExit("einauge selfplay: --games must be at least 1")
    game = get_game("einauge")
    options = {"end_rule": args.end_rule, "color_bonus": args.color_bonus}
    names = [f"bot{i}" for i in range(args.players)]
    if args.records:
        args.records.mkdir(parents=True, exist_ok=True)
    turns = 0
    actions = 0
    totals = [0] * args.players
    wins = [0.0] * args.players
    elapsed = 0.0
    for i in range(args.games):
        seed = f"{args.seed}-{i}"
        bots = [RandomBot(f"{seed}/{seat}") for seat in range(args.players)]
        t0 = time.perf_counter()
        played = play_game(game, names, options, seed, bots)
        elapsed += time.perf_counter() - t0
        result = played.state.result
        turns += sum(p.turns for p in played.state.players)
        actions += len(played.actions)
        for s in result["scores"]:
            totals[s["seat"]] += s["total"]
        for w in result["winners"]:
            wins[w] += 1 / len(result["winners"])
        if args.records:
            record = make_record(names, options, seed, game.setup_deck(played.events),
                                 played.actions)
            (args.records / f"game-{i:05d}.json").write_text(json.dumps(record, indent=1))
    g = args.games
    print(f"games: {g}  players: {args.players}  seed: {args.seed}  options: {options}")
    print(f"speed: {g / elapsed:,.0f} games/s, {actions / elapsed:,.0f} actions/s "
          f"(play only, one core)")
    print(f"mean turns per game: {turns / g:.1f}  mean actions per game: {actions / g:.1f}")
    print("seat  mean jewels  win share")
    for seat in range(args.players):
        print(f"{seat:>4}  {totals[seat] / g:>11.2f}  {wins[seat] / g:>9.1%}")
    return 0
