"""``selfplay``: seeded random-bot games of any game (``--game``), with speed and outcome
statistics."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from cli.gameopts import add_game_arguments, chosen
from cli.progress import bar
from engine.bots import RandomBot
from engine.selfplay import play_game


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``selfplay``."""
    p = sub.add_parser("selfplay", help="play seeded games between random bots")
    p.add_argument("--players", type=int, default=4, metavar="N",
                   help="players per game, within the game's range (default 4)")
    p.add_argument("--games", type=int, default=100, help="number of games (default 100)")
    p.add_argument("--seed", default="1", help="base seed; game i uses '<seed>-<i>'")
    p.add_argument("--records", type=Path, help="write every game as a record into this folder")
    add_game_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Play ``args.games`` games and print a summary; returns 0."""
    if args.games < 1:
        raise SystemExit("selfplay: --games must be at least 1")
    game, options = chosen(args, args.players, "selfplay")
    names = [f"bot{i}" for i in range(args.players)]
    if args.records:
        args.records.mkdir(parents=True, exist_ok=True)
    actions = 0
    totals = [0] * args.players
    wins = [0.0] * args.players
    elapsed = 0.0
    with bar(args.games, "games", unit="game") as progress:  # stderr, on a terminal only
        for i in range(args.games):
            seed = f"{args.seed}-{i}"
            bots = [RandomBot(f"{seed}/{seat}") for seat in range(args.players)]
            t0 = time.perf_counter()
            played = play_game(game, names, options, seed, bots)
            elapsed += time.perf_counter() - t0
            result = game.result(played.state)
            assert result is not None  # play_game returns only once the game has ended
            actions += len(played.actions)
            for s in result["scores"]:
                totals[s["seat"]] += s["total"]
            for w in result["winners"]:
                wins[w] += 1 / len(result["winners"])
            if args.records:
                record = game.make_record(names, options, seed, game.setup_deck(played.events),
                                          played.actions)
                (args.records / f"game-{i:05d}.json").write_text(json.dumps(record, indent=1))
            progress.update(1)
    g = args.games
    print(f"game: {game.name}  games: {g}  players: {args.players}  seed: {args.seed}  "
          f"options: {options}")
    print(f"speed: {g / elapsed:,.0f} games/s, {actions / elapsed:,.0f} actions/s "
          f"(play only, one core)")
    print(f"mean actions per game: {actions / g:.1f}")
    print("seat  mean score  win share")
    for seat in range(args.players):
        print(f"{seat:>4}  {totals[seat] / g:>10.2f}  {wins[seat] / g:>9.1%}")
    return 0
