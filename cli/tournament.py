"""``tournament``: bots of one game (``--game``) against each other, with seat rotation and
a strength table.

Game ``i`` is played with seed ``<seed>-<i>``; the line-up (``--bots``, repeated to fill
``--players`` seats) is rotated by ``i`` seats, so every bot plays every seat equally
often over a multiple of ``--players`` games. Per bot kind it reports the win rate (a
shared win counts as 1/k for k winners) with a 95 % Wilson score interval, the mean final
score (Einauge: jewels), the mean margin (own total minus the best other seat's total) and the mean
thinking time per move; a total the game leaves empty (a Loot Island player eliminated by
curses) counts as 0. ``--jobs`` plays games in parallel processes; the results do not
depend on it when the budget is iterations (a time budget depends on the machine anyway).
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from cli.gameopts import add_game_arguments, chosen, named_game
from cli.progress import bar
from engine import get_game
from engine.bots import SEARCH_KINDS, kinds, make_bot
from engine.selfplay import play_game

Z95 = 1.959963984540054


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a proportion ``successes / n`` (95 % by default).

    Raises ``ValueError`` for ``n < 1`` or ``successes`` outside ``0..n``.
    """
    if n < 1 or not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n and n >= 1, got {successes}/{n}")
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def lineup(bots: Sequence[str], players: int) -> list[str]:
    """``bots`` repeated to fill ``players`` seats; raises ``ValueError`` when too many."""
    if len(bots) > players:
        raise ValueError(f"{len(bots)} bots do not fit {players} seats")
    return [bots[i % len(bots)] for i in range(players)]


def seating(line: Sequence[str], game_index: int) -> list[str]:
    """Seat ``s`` of game ``i`` gets ``line[(s + i) % n]`` (the rotation)."""
    n = len(line)
    return [line[(s + game_index) % n] for s in range(n)]


@dataclass
class _Timed:
    """Wraps a bot to add up its thinking time (the clock lives here, not in the engine)."""

    bot: Any
    seconds: float = 0.0
    moves: int = 0
    searches: int = 0
    iterations: int = 0

    def choose(self, game: Any, state: Any, seat: int) -> Any:
        t0 = time.perf_counter()
        action = self.bot.choose(game, state, seat)
        self.seconds += time.perf_counter() - t0
        self.moves += 1
        done = getattr(self.bot, "last_iterations", 0)
        if done:
            self.searches += 1
            self.iterations += done
        return action


@dataclass
class GameResult:
    """One game: per seat its bot kind, final total, win share, margin and thinking time."""

    kinds: list[str]
    totals: list[int]
    shares: list[float]
    margins: list[int]
    seconds: list[float]
    moves: list[int]
    searches: list[int]
    iterations: list[int]


def play_one(job: tuple[int, str, list[str], int | None, float | None, dict[str, Any], str]
             ) -> GameResult:
    """Play game ``index`` of a tournament (a top-level function, for process pools)."""
    index, seed, line, iterations, budget_ms, options, game_name = job
    game = get_game(game_name)
    kinds = seating(line, index)
    game_seed = f"{seed}-{index}"
    bots = []
    for seat, kind in enumerate(kinds):
        params: dict[str, Any] = {}
        if kind in SEARCH_KINDS:
            params = {"iterations": iterations, "ms": budget_ms,
                      "clock": time.perf_counter if budget_ms else None}
            if iterations is None and budget_ms is None:
                params = {}
        bots.append(_Timed(make_bot(kind, f"{game_seed}/{seat}", game=game, **params)))
    names = [f"{k}{s}" for s, k in enumerate(kinds)]
    played = play_game(game, names, options, game_seed, bots)
    result = game.result(played.state)
    assert result is not None  # play_game returns only once the game has ended
    # A player eliminated by curses has no total (Loot Island: ``null``): it scored nothing.
    totals = [sc["total"] if sc["total"] is not None else 0 for sc in result["scores"]]
    winners = result["winners"]
    shares = [1 / len(winners) if s in winners else 0.0 for s in range(len(kinds))]
    margins = [t - max(o for j, o in enumerate(totals) if j != s) for s, t in enumerate(totals)]
    return GameResult(kinds, totals, shares, margins, [b.seconds for b in bots],
                      [b.moves for b in bots], [b.searches for b in bots],
                      [b.iterations for b in bots])


@dataclass
class KindStats:
    """Totals for one bot kind over a tournament."""

    seats: int = 0
    wins: float = 0.0
    jewels: int = 0
    margin: int = 0
    seconds: float = 0.0
    moves: int = 0
    searches: int = 0
    iterations: int = 0
    totals: list[int] = field(default_factory=list)


def summarize(results: Sequence[GameResult]) -> dict[str, KindStats]:
    """Per kind: seats played, win shares, jewels, margins and thinking time."""
    stats: dict[str, KindStats] = {}
    for r in results:
        for s, kind in enumerate(r.kinds):
            k = stats.setdefault(kind, KindStats())
            k.seats += 1
            k.wins += r.shares[s]
            k.jewels += r.totals[s]
            k.margin += r.margins[s]
            k.seconds += r.seconds[s]
            k.moves += r.moves[s]
            k.searches += r.searches[s]
            k.iterations += r.iterations[s]
            k.totals.append(r.totals[s])
    return stats


def table(stats: dict[str, KindStats]) -> str:
    """The results as a Markdown table."""
    lines = ["| bot | seat-games | win rate | 95% CI (Wilson) | mean total | mean margin "
             "| ms/move | iterations/search |", "|---|---:|---:|---|---:|---:|---:|---:|"]
    for kind, k in stats.items():
        lo, hi = wilson(k.wins, k.seats)
        ms = 1000 * k.seconds / k.moves if k.moves else 0.0
        its = f"{k.iterations / k.searches:.0f}" if k.searches else "-"
        lines.append(f"| {kind} | {k.seats} | {k.wins / k.seats:.1%} | {lo:.1%} to {hi:.1%} "
                     f"| {k.jewels / k.seats:.2f} | {k.margin / k.seats:+.2f} | {ms:.1f} "
                     f"| {its} |")
    return "\n".join(lines)


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``tournament``."""
    p = sub.add_parser("tournament", help="play bots against each other, with seat rotation")
    p.add_argument("--bots", required=True,
                   help="comma-separated line-up of bot kinds of the game (e.g. random, "
                        "greedy, mcts), repeated to fill the seats, e.g. greedy,mcts")
    p.add_argument("--players", type=int, default=2, metavar="N",
                   help="players per game, within the game's range (default 2)")
    p.add_argument("--games", type=int, default=100, help="number of games (default 100)")
    p.add_argument("--seed", default="1", help="base seed; game i uses '<seed>-<i>'")
    p.add_argument("--budget-ms", type=float, help="mcts time limit per move, milliseconds")
    p.add_argument("--iterations", type=int,
                   help="mcts iterations per move (default: level 3 unless --budget-ms)")
    p.add_argument("--jobs", type=int, default=1, help="games played in parallel (processes)")
    add_game_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Play the tournament and print the table; returns 0."""
    known = kinds(named_game(args, "tournament"))
    line_kinds = [k.strip() for k in args.bots.split(",") if k.strip()]
    bad = [k for k in line_kinds if k not in known]
    if not line_kinds or bad:
        raise SystemExit(f"tournament: unknown {args.game} bot kind(s) {bad}; "
                         f"expected: {', '.join(known)}")
    if args.games < 1 or args.jobs < 1:
        raise SystemExit("tournament: --games and --jobs must be at least 1")
    if args.budget_ms is not None and args.budget_ms <= 0:
        raise SystemExit("tournament: --budget-ms must be positive")
    if args.iterations is not None and args.iterations < 1:
        raise SystemExit("tournament: --iterations must be at least 1")
    try:
        line = lineup(line_kinds, args.players)
    except ValueError as e:
        raise SystemExit(f"tournament: {e}") from None
    game, options = chosen(args, args.players, "tournament")
    jobs = [(i, args.seed, line, args.iterations, args.budget_ms, options, game.name)
            for i in range(args.games)]
    t0 = time.perf_counter()
    # A progress bar on a terminal (cli/progress.py); results keep the games' order.
    with bar(len(jobs), "games", unit="game") as progress:
        if args.jobs == 1:
            results = []
            for j in jobs:
                results.append(play_one(j))
                progress.update(1)
        else:
            with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
                results = []
                for r in pool.imap(play_one, jobs, chunksize=1):
                    results.append(r)
                    progress.update(1)
    elapsed = time.perf_counter() - t0
    budget = (f"mcts budget: {args.budget_ms:g} ms/move" if args.budget_ms else "")
    if args.iterations:
        budget += (", " if budget else "mcts budget: ") + f"{args.iterations} iterations/move"
    print(f"game: {game.name}  games: {args.games}  players: {args.players}  "
          f"line-up: {','.join(line)}  seed: {args.seed}  {budget}  options: {options}")
    print(f"wall time: {elapsed:.1f} s with {args.jobs} job(s)")
    print(table(summarize(results)))
    return 0
