"""Loot Island balance check: self-play of the bots over 2-5 players, as a markdown report.

Run from the repository root::

    .venv/bin/python -m bench.loot_island_balance --games 1000 --workers 2 \\
        --out docs/balance-loot-island.md

For each player count and each line-up (``--lineups``: ``greedy`` = every seat greedy,
``random``, ``greedy-vs-random`` = one greedy seat, the others random, rotated so that the
greedy seat is game ``i``'s seat ``i mod n``) it plays ``--games`` complete games with
seed ``<seed>-<lineup>-<n>-<i>`` and reports, from the games' events:

- per healer: how often set aside (*available*), taken, taken by a real choice (two or
  more left) and *picked when offered* (taken / real choices it was open in); the win rate
  of its takers; *decisive*: the taker won and would not have with the best other healer
  open at its choice (its total minus the saving below the runner-up's total);
- per islet: rounds it could be used (phase 2 without ``event-b07``), uses (and ``skip``
  uses), the share of seat-games that used it, their win rate, and the *lift*: that win
  rate over the player count's fair share 1/n;
- per event: rounds in force, and in those rounds per player: net cubes, loot cards
  offered, map cards played, islets used, against the mean of all rounds of the same kind
  (round 1 for A events, rounds 2-5 for B events);
- the spread of totals (mean, sd, quantiles of the non-eliminated), the winning margin,
  the share of seat-games eliminated (curses, cannot pay) and of games without a winner;
  the scoring parts' means; the win rate by seat with its 95 % Wilson interval (seat 0
  holds the start marker first: the first-player advantage).

A shared win counts 1/k for k winners. Policies are ``POLICIES``: a name and a factory
``(seat, seed) -> choose(state, seat) -> action`` (``register``): ``random``, ``greedy``
and ``mcts`` (``engine/loot_island/mcts.py`` at ``MCTS_ITERATIONS`` a move; line-ups such
as ``mcts-vs-greedy``). ``--workers`` (1 or 2:
the machine is shared) spreads games over processes; results do not depend on it.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import random
import statistics
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: import the project, not this file
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench.engine import machine
from cli.progress import bar
from cli.tournament import wilson
from engine.game import Message
from engine.loot_island import LOOT_ISLAND as G
from engine.loot_island import events as ev
from engine.loot_island import greedy
from engine.loot_island.data import EVENTS, HEALER_IDS, HEALERS, ISLETS
from engine.loot_island.state import State
from engine.selfplay import play_game

Choose = Callable[[State, int], Message]
POLICIES: dict[str, Callable[[int, str], Choose]] = {}


def register(name: str, factory: Callable[[int, str], Choose]) -> None:
    """Make policy ``name`` available to ``--lineups``: ``factory(seat, seed)`` returns a
    ``choose(state, seat)`` for one seat of one game (the hook for the generic MCTS)."""
    POLICIES[name] = factory


def _random(seat: int, seed: str) -> Choose:
    rng = random.Random(f"{seed}/random/{seat}")

    def choose(state: State, s: int) -> Message:
        legal = G.legal_actions(state, s)
        return legal[rng.randrange(len(legal))]
    return choose


def _greedy(seat: int, seed: str) -> Choose:
    rng = random.Random(f"{seed}/greedy/{seat}")
    return lambda state, s: greedy.choose(state, s, rng)


MCTS_ITERATIONS = 25
"""``mcts``'s budget here: level 1, iterations (not time) so that a run does not depend
on the machine's load; at 200 ms a move a report of thousands of games takes hours."""


def _mcts(seat: int, seed: str) -> Choose:
    from engine.bots import make_bot

    bot = make_bot("mcts", f"{seed}/mcts/{seat}", game=G, iterations=MCTS_ITERATIONS)
    return lambda state, s: bot.choose(G, state, s)


register("random", _random)
register("greedy", _greedy)
register("mcts", _mcts)


def seats_for(lineup: str, n: int, i: int) -> list[str]:
    """The policy of each seat of game ``i`` with ``n`` players: ``a-vs-b`` puts ``a`` at
    seat ``i mod n`` and ``b`` everywhere else; a plain name fills every seat."""
    if "-vs-" in lineup:
        one, rest = lineup.split("-vs-")
        return [one if s == i % n else rest for s in range(n)]
    return [lineup] * n


class _Seat:
    def __init__(self, choose: Choose) -> None:
        self._choose = choose

    def choose(self, game: Any, state: State, seat: int) -> Message:
        return self._choose(state, seat)


def play(lineup: str, n: int, i: int, seed: str,
         options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Play game ``i`` of ``lineup`` with ``n`` players and the game ``options``
    (CONTRACT §1); its ``game_stats``."""
    game_seed = f"{seed}-{lineup}-{n}-{i}"
    policies = seats_for(lineup, n, i)
    bots = [_Seat(POLICIES[p](s, game_seed)) for s, p in enumerate(policies)]
    played = play_game(G, [f"P{s}" for s in range(n)], options or {}, game_seed, bots)
    return game_stats(played.events, policies)


def game_stats(events: Sequence[Message], policies: Sequence[str]) -> dict[str, Any]:
    """What the report needs from one finished game's ``events`` (seat ``s`` played
    ``policies[s]``). Raises ``ValueError`` if the game has not ended."""
    end = events[-1]
    if not isinstance(end, ev.GameEnded):
        raise ValueError("the game has not ended")
    n = len(policies)
    scores = end.result["scores"]
    winners = end.result["winners"]
    totals = {e["seat"]: e["total"] for e in scores if e["eliminated"] is None}
    rounds: list[dict[str, Any]] = []
    islets_used: list[set[str]] = [set() for _ in range(n)]
    uses: Counter[tuple[str, bool]] = Counter()
    available: Counter[str] = Counter()
    healer_left: list[str] = []
    cubes_at_end: dict[int, int] = {}
    healer_choices: list[dict[str, Any]] = []
    event = None
    current: dict[str, Any] | None = None
    offered = kept = 0
    for e in events:
        if isinstance(e, ev.LootOffered):
            offered += len(e.cards)
        elif isinstance(e, ev.LootTaken):
            kept += 1
        if isinstance(e, ev.GameStarted):
            if e.options["events"]:
                event = e.orders["events_a"][0]
            current = {"round": 1, "event": event, "cubes": 0, "loot": 0, "plays": 0,
                       "islets": 0}
            rounds.append(current)
        elif isinstance(e, ev.RoundStarted):
            current = {"round": e.round, "event": None, "cubes": 0, "loot": 0, "plays": 0,
                       "islets": 0}
            rounds.append(current)
        elif isinstance(e, ev.EventRevealed) and current is not None:
            current["event"] = e.event
        elif isinstance(e, ev.ActionsStarted):
            if current is None or current["event"] is None \
                    or not EVENTS[current["event"]].get("no_islets"):
                available.update(ISLETS)
        elif isinstance(e, ev.FinalExplorationStarted):
            current = None
        elif isinstance(e, ev.IsletUsed):
            uses[(e.islet, e.skip)] += 1
            islets_used[e.seat].add(e.islet)
            if current is not None:
                current["islets"] += 1
        elif current is not None and isinstance(e, ev.MapCardsPlayed):
            current["plays"] += len(e.cards)
        elif current is not None and isinstance(e, ev.LootOffered):
            current["loot"] += len(e.cards)
        elif current is not None and isinstance(e, ev.CubesTaken | ev.LootTaken):
            current["cubes"] += e.cubes
        elif current is not None and isinstance(e, ev.CubesShed | ev.LootDiscarded):
            current["cubes"] -= e.cubes
        elif isinstance(e, ev.HealersRevealed):
            healer_left = list(e.healers)
        elif isinstance(e, ev.HealerChosen):
            healer_choices.append({"seat": e.seat, "healer": e.healer,
                                   "open": list(healer_left), "automatic": e.automatic})
            healer_left.remove(e.healer)
    for entry in scores:
        cubes_at_end[entry["seat"]] = entry["cubes"]
    aside = next(e.healers for e in events if isinstance(e, ev.HealersRevealed))
    for c in healer_choices:
        seat, cubes = c["seat"], cubes_at_end[c["seat"]]

        def cost(h: str, cubes: int = cubes) -> int:
            return HEALERS[h].multiplier * cubes + HEALERS[h].fixed
        others = [cost(h) for h in c["open"] if h != c["healer"]]
        c["saving"] = (min(others) - cost(c["healer"])) if others else 0
        c["won"] = seat in winners
        rival = max((t for s, t in totals.items() if s != seat), default=None)
        c["decisive"] = bool(c["won"] and others and rival is not None
                             and seat in totals and totals[seat] - c["saving"] < rival)
    return {"n": n, "policies": list(policies), "winners": list(winners), "scores": scores,
            "offered": offered, "kept": kept,
            "rounds": rounds, "islets_used": [sorted(x) for x in islets_used],
            "uses": [[k, skip, v] for (k, skip), v in sorted(uses.items())],
            "available": dict(available), "aside": list(aside), "healers": healer_choices}


def _run_chunk(job: tuple[str, int, Sequence[int], str, dict[str, Any]]
               ) -> list[dict[str, Any]]:
    lineup, n, indices, seed, options = job
    return [play(lineup, n, i, seed, options) for i in indices]


def run(lineup: str, n: int, games: int, seed: str, workers: int,
        options: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """``games`` games of ``lineup`` with ``n`` players and ``options``, over ``workers``
    processes (1: in this process); the list of ``game_stats`` in game order."""
    chunks = [range(k, games, max(1, workers * 4)) for k in range(max(1, workers * 4))]
    jobs = [(lineup, n, list(c), seed, dict(options or {})) for c in chunks if len(c)]
    # A progress bar of games on a terminal (cli/progress.py), a chunk at a time.
    with bar(games, f"{lineup}, {n} players", unit="game") as progress:
        parts = []
        if workers <= 1:
            for j in jobs:
                parts.append(_run_chunk(j))
                progress.update(len(j[2]))
        else:
            with concurrent.futures.ProcessPoolExecutor(workers) as pool:
                for j, part in zip(jobs, pool.map(_run_chunk, jobs), strict=True):
                    parts.append(part)
                    progress.update(len(j[2]))
    out: list[dict[str, Any]] = [{}] * games
    for job, part in zip(jobs, parts, strict=True):
        for i, g in zip(job[2], part, strict=True):
            out[i] = g
    return out


# --- the report ------------------------------------------------------------------------

def _pct(x: float) -> str:
    return f"{100 * x:.1f} %"


def _ci(wins: float, n: int) -> str:
    lo, hi = wilson(wins, n)
    return f"{_pct(wins / n)} ({100 * lo:.1f}-{100 * hi:.1f} %)"


def _quantiles(xs: Sequence[float]) -> list[float]:
    if len(xs) < 2:
        return [float(xs[0]) if xs else 0.0] * 5
    q = statistics.quantiles(xs, n=20, method="inclusive")
    return [min(xs), q[1], q[9], q[17], max(xs)]


def _win(g: dict[str, Any], seat: int) -> float:
    return 1 / len(g["winners"]) if seat in g["winners"] else 0.0


def summary(games: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The aggregates of one line-up and player count (see the module docstring)."""
    n = games[0]["n"]
    count = len(games)
    totals = [e["total"] for g in games for e in g["scores"] if e["eliminated"] is None]
    margins = []
    for g in games:
        ts = sorted((e["total"] for e in g["scores"] if e["eliminated"] is None),
                    reverse=True)
        if len(ts) >= 2:
            margins.append(ts[0] - ts[1])
    elim = Counter(e["eliminated"] for g in games for e in g["scores"])
    parts = {k: statistics.fmean(e[k] for g in games for e in g["scores"]
                                 if e["eliminated"] is None) if totals else 0.0
             for k in ("gold", "jewels", "crowns", "skulls", "books", "amulets",
                       "start_marker", "healer_cost")}
    by_seat = [sum(_win(g, s) for g in games) for s in range(n)]
    by_policy: dict[str, list[float]] = defaultdict(lambda: [0.0, 0])
    for g in games:
        for s, p in enumerate(g["policies"]):
            by_policy[p][0] += _win(g, s)
            by_policy[p][1] += 1
    healers = {h: Counter() for h in HEALER_IDS}
    for g in games:
        for h in g["aside"]:
            healers[h]["available"] += 1
        for c in g["healers"]:
            row = healers[c["healer"]]
            row["taken"] += 1
            row["won"] += c["won"]
            row["decisive"] += c["decisive"]
            if not c["automatic"]:
                row["chosen"] += 1
                for h in c["open"]:
                    healers[h]["offered"] += 1
    islets = {i: Counter() for i in ISLETS}
    for g in games:
        for k, v in g["available"].items():
            islets[k]["available"] += v
        for k, skip, v in g["uses"]:
            islets[k]["uses"] += v
            islets[k]["skips"] += v if skip else 0
        for s, used in enumerate(g["islets_used"]):
            for k in used:
                islets[k]["seat_games"] += 1
                islets[k]["wins"] += _win(g, s)
    rounds = [r for g in games for r in g["rounds"]]
    events: dict[str, dict[str, float]] = {}
    base: dict[str, dict[str, float]] = {}
    keys = ("cubes", "loot", "plays", "islets")
    for kind, pick in (("A", lambda r: r["round"] == 1), ("B", lambda r: r["round"] > 1)):
        rs = [r for r in rounds if pick(r)]
        if rs:
            base[kind] = {k: statistics.fmean(r[k] for r in rs) / n for k in keys}
    for e in EVENTS:
        rs = [r for r in rounds if r["event"] == e]
        events[e] = {"rounds": len(rs), **({k: statistics.fmean(r[k] for r in rs) / n
                                            for k in keys} if rs else {})}
    return {"n": n, "games": count, "totals": totals, "margins": margins,
            "offered": statistics.fmean(g["offered"] for g in games),
            "kept": statistics.fmean(g["kept"] for g in games),
            "elim": dict(elim), "no_winner": sum(1 for g in games if not g["winners"]),
            "parts": parts, "by_seat": by_seat, "by_policy": dict(by_policy),
            "healers": healers, "islets": islets, "events": events, "base": base}


def _tables(lineup: str, summaries: Sequence[dict[str, Any]]) -> Iterable[str]:
    yield f"### Line-up `{lineup}`\n"
    yield "Totals (players not eliminated), margins and eliminations:\n"
    yield ("| players | games | mean total | sd | min / p10 / median / p90 / max | mean margin "
           "| eliminated (curses) | eliminated (cannot pay) | games without winner "
           "| loot offered / game | loot kept / game |")
    yield "|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|"
    for m in summaries:
        t, seats = m["totals"], m["games"] * m["n"]
        q = "/".join(f"{x:.0f}" for x in _quantiles(t))
        sd = statistics.pstdev(t) if t else 0.0
        mean = statistics.fmean(t) if t else 0.0
        mm = statistics.fmean(m["margins"]) if m["margins"] else 0.0
        yield (f"| {m['n']} | {m['games']} | {mean:.1f} | {sd:.1f} | {q} | {mm:.1f} | "
               f"{_pct(m['elim'].get('curses', 0) / seats)} | "
               f"{_pct(m['elim'].get('cannot_pay', 0) / seats)} | "
               f"{_pct(m['no_winner'] / m['games'])} | {m['offered']:.1f} | {m['kept']:.1f} |")
    yield "\nMean scoring parts per player not eliminated:\n"
    names = ("gold", "jewels", "crowns", "skulls", "books", "amulets", "start_marker",
             "healer_cost")
    yield "| players | " + " | ".join(names) + " |"
    yield "|---:|" + "---:|" * len(names)
    for m in summaries:
        yield f"| {m['n']} | " + " | ".join(f"{m['parts'][k]:.1f}" for k in names) + " |"
    yield "\nWin rate by seat (seat 0 holds the start marker in round 1), 95 % Wilson interval:\n"
    yield "| players | " + " | ".join(f"seat {s}" for s in range(5)) + " | fair share |"
    yield "|---:|" + "---|" * 5 + "---:|"
    for m in summaries:
        cells = [_ci(m["by_seat"][s], m["games"]) if s < m["n"] else "" for s in range(5)]
        yield f"| {m['n']} | " + " | ".join(cells) + f" | {_pct(1 / m['n'])} |"
    if any(len(m["by_policy"]) > 1 for m in summaries):
        yield "\nWin rate by policy (seat-games, 95 % Wilson interval):\n"
        yield "| players | policy | seat-games | win rate (95 % CI) |"
        yield "|---:|---|---:|---|"
        for m in summaries:
            for p, (w, k) in sorted(m["by_policy"].items()):
                yield f"| {m['n']} | {p} | {k} | {_ci(w, k)} |"
    yield ("\nHealers (all player counts; *picked when offered* = taken by a real choice / "
           "real choices it was open in):\n")
    yield ("| healer | × | + | available | taken | by real choice | picked when offered "
           "| takers' win rate | decisive |")
    yield "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    for h in HEALER_IDS:
        c = Counter()
        for m in summaries:
            c.update(m["healers"][h])
        taken = c["taken"]
        picked = _pct(c["chosen"] / c["offered"]) if c["offered"] else "-"
        wr = _pct(c["won"] / taken) if taken else "-"
        yield (f"| `{h}` | {HEALERS[h].multiplier} | {HEALERS[h].fixed} | {c['available']} | "
               f"{taken} | {c['chosen']} | {picked} | {wr} | {c['decisive']} |")
    yield ("\nIslets (*lift* = win rate of the seat-games that used it over the fair share "
           "1/n, averaged over the player counts, weighted by games):\n")
    yield ("| islet | rounds available | uses | of them `skip` | uses per available round "
           "| seat-games using it | their win rate | lift |")
    yield "|---|---:|---:|---:|---:|---:|---:|---:|"
    for k in ISLETS:
        c, lift_num, lift_den = Counter(), 0.0, 0
        for m in summaries:
            c.update(m["islets"][k])
            x = m["islets"][k]
            if x["seat_games"]:
                lift_num += x["wins"] / x["seat_games"] * m["n"] * m["games"]
                lift_den += m["games"]
        per = c["uses"] / c["available"] if c["available"] else 0.0
        seat_games = sum(m["games"] * m["n"] for m in summaries)
        wr = _pct(c["wins"] / c["seat_games"]) if c["seat_games"] else "-"
        lift = f"{lift_num / lift_den:.2f}" if lift_den else "-"
        yield (f"| `{k}` | {c['available']} | {c['uses']} | {c['skips']} | {per:.2f} | "
               f"{_pct(c['seat_games'] / seat_games)} | {wr} | {lift} |")
    yield ("\nEvents (all player counts; per player in the rounds it was in force; *base* = "
           "all round-1 rounds for A events, all rounds 2-5 for B events):\n")
    yield "| event | effect | rounds | net cubes | loot offered | map cards played | islets used |"
    yield "|---|---|---:|---:|---:|---:|---:|"

    def pooled(key: str, kind: str | None, event: str | None) -> str:
        num = den = 0.0
        for m in summaries:
            if kind is not None:
                rounds = sum(x["rounds"] for e, x in m["events"].items()
                             if e.startswith(f"event-{kind.lower()}"))
                value = m["base"].get(kind, {}).get(key)
            else:
                rounds = m["events"][event]["rounds"]
                value = m["events"][event].get(key)
            if value is not None and rounds:
                num += value * rounds
                den += rounds
        return f"{num / den:+.2f}" if key == "cubes" and den else (
            f"{num / den:.2f}" if den else "-")
    for kind in ("A", "B"):
        rounds = sum(x["rounds"] for m in summaries for e, x in m["events"].items()
                     if e.startswith(f"event-{kind.lower()}"))
        yield (f"| *base {kind}* | | {rounds} | " + " | ".join(
            pooled(k, kind, None) for k in ("cubes", "loot", "plays", "islets")) + " |")
    for e, mods in EVENTS.items():
        rounds = sum(m["events"][e]["rounds"] for m in summaries)
        effect = ", ".join(f"{k} {v}" for k, v in mods.items()) or "none"
        yield (f"| `{e}` | {effect} | {rounds} | " + " | ".join(
            pooled(k, None, e) for k in ("cubes", "loot", "plays", "islets")) + " |")
    yield ""


HEAD = "# Loot Island: balance check (self-play)\n\n"


def report(results: dict[str, list[dict[str, Any]]], command: str, info: dict[str, Any],
           seconds: float) -> str:
    """The ``## Figures`` section of the report: ``results`` maps a line-up to its
    ``summary`` per player count. ``main`` keeps whatever the output file holds above
    that heading (the findings) and replaces the rest."""
    lines = [
        "## Figures", "",
        "Generated by `bench/loot_island_balance.py` (its docstring defines every column).", "",
        f"- Command: `{command}`",
        f"- Machine: {info['cpu']}, {info['cores']} cores, {info['implementation']} "
        f"{info['python']}, {info['platform']}.",
        f"- Date: {info['date']}; load average at the start "
        f"{', '.join(f'{x:.1f}' for x in info['loadavg_at_start'] or [])}; "
        f"wall time {seconds:.0f} s.", ""]
    for lineup, summaries in results.items():
        lines.extend(_tables(lineup, summaries))
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (see the module docstring)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=1000, help="games per line-up and count")
    p.add_argument("--players", type=int, nargs="+", default=[2, 3, 4, 5])
    p.add_argument("--lineups", default="greedy,greedy-vs-random,random",
                   help="comma-separated: a policy name, or a-vs-b (one a, the rest b)")
    p.add_argument("--seed", default="balance")
    p.add_argument("--workers", type=int, default=1, choices=(1, 2))
    p.add_argument("--min-cards", type=int, default=None,
                   help="the game option min_cards (CONTRACT §1): replaces the minimum")
    p.add_argument("--out", type=Path, help="write the markdown report here (else stdout)")
    args = p.parse_args(argv)
    for lineup in args.lineups.split(","):
        for name in lineup.split("-vs-"):
            if name not in POLICIES:
                p.error(f"unknown policy {name!r} (known: {', '.join(sorted(POLICIES))})")
    if any(not 2 <= n <= 5 for n in args.players) or args.games < 1:
        p.error("players are 2 to 5, games at least 1")
    options = {} if args.min_cards is None else {"min_cards": args.min_cards}
    info = machine()
    t0 = time.perf_counter()
    results: dict[str, list[dict[str, Any]]] = {}
    for lineup in args.lineups.split(","):
        results[lineup] = []
        for n in args.players:
            results[lineup].append(summary(run(lineup, n, args.games, args.seed,
                                               args.workers, options)))
            print(f"{lineup}, {n} players: {args.games} games, "
                  f"{time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    command = ".venv/bin/python -m bench.loot_island_balance " + " ".join(
        sys.argv[1:] if argv is None else argv)
    text = report(results, command, info, time.perf_counter() - t0)
    if args.out:
        # Keep what is written above the figures (the findings), replace the figures.
        head = HEAD
        if args.out.exists():
            old = args.out.read_text(encoding="utf-8")
            if "\n## Figures\n" in old:
                head = old[:old.index("\n## Figures\n") + 1]
        args.out.write_text(head + text, encoding="utf-8")
    else:
        sys.stdout.write(HEAD + text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
