"""Ratings of rated tables: openskill's Plackett–Luce model (2–5 players, ties), one rating
per account per game, applied exactly once per table (docs/protocol.md §3, "Ratings").

Pure core: ``ranks`` (a finished game's places from its result), ``outcome`` (the new
ratings of every seat, computed from the ratings before). Shell: ``settle`` freezes the
outcome in the table's slot with ``SET NX`` (the first process to get there wins; any
other process, or the same one after a crash, applies that very outcome), then applies
each account's change with the script ``APPLY_RATING``, which skips an account the table
was already applied to. So however many processes finish the game, and wherever one of
them is killed, every account's rating changes exactly once; a crash leaves the rest to
whichever process finishes the table next (``Tables`` retries while the table is not
marked ended). A change is added to the rating as it is when applied (``mu += Δmu``,
``sigma += Δsigma``), so two games ending at once both count.

Bots are rated players too: each kind and level has its own account ``bot-<kind>-<level>``
(``level`` 0 for kinds without levels), named e.g. ``MCTS level 3``. An account on several
seats of one table (two copies of a bot) is rated once for it: the mean of its seats'
changes.
"""

from __future__ import annotations

import time
from collections.abc import Collection, Sequence
from typing import Any

from openskill.models import PlackettLuce

from engine import GAMES
from engine.bots import MCTS_LEVELS, SEARCH_KINDS
from server.store.accounts import AccountStore

MODEL = PlackettLuce()
MU0, SIGMA0 = MODEL.mu, MODEL.sigma
SIGMA_FLOOR = 0.01
SCALE = 60.0
"""Displayed rating = round(SCALE · mu): a new player shows 1500."""
PROVISIONAL_GAMES = 10
"""Fewer rated games than this: the rating is marked provisional."""


def aborted(accounts: Sequence[str], act_keys: Collection[str]) -> bool:
    """True when a rated game is *aborted* and so not rated (as on Lichess): some seat
    whose frozen account is a person's (not ``bot-…``) made no move of its own, i.e. the
    table's stored action ids (``act_keys``: ``server.play.roles.act_key``, ``p:<seat>:<id>``
    for a person's action, ``b:…`` for a bot's, also a bot playing a person's seat after
    a handover, a timeout or a resignation) hold no ``p:<seat>:`` key. A resignation is
    no move. Stops two accounts of one person farming rating (one resigns at once)."""
    moved = {k.split(":", 2)[1] for k in act_keys if k.startswith("p:")}
    return any(not uid.startswith("bot-") and str(i) not in moved
               for i, uid in enumerate(accounts))


def bot_uid(kind: str, level: int | None) -> str:
    """The rated account of a bot kind and level."""
    return f"bot-{kind}-{level or 0}"


def bot_name(kind: str, level: int | None) -> str:
    """The display name of a bot's rated account (``MCTS level 3``, ``Greedy``)."""
    return f"{kind.upper() if kind == 'mcts' else kind.capitalize()}" + \
        (f" level {level}" if level else "")


def bot_names() -> frozenset[str]:
    """The names of every bot kind's (of every game) and mcts level's rated account."""
    kinds = {k for game in GAMES.values() for k in game.bots()}
    return frozenset(bot_name(k, lv) for k in kinds
                     for lv in (sorted(MCTS_LEVELS) if k in SEARCH_KINDS else [None]))


def display(mu: float) -> int:
    """The rating shown for ``mu``."""
    return round(SCALE * mu)


def shown(rating: dict[str, Any] | None) -> dict[str, Any]:
    """The public form of a stored ``{mu, sigma, games}`` (``None``: never rated):
    ``rating`` and ``deviation`` (sigma on the same scale) as shown, ``games``,
    ``provisional``."""
    r = rating or {"mu": MU0, "sigma": SIGMA0, "games": 0}
    return {"rating": display(r["mu"]), "deviation": round(SCALE * r["sigma"]),
            "games": int(r["games"]), "provisional": int(r["games"]) < PROVISIONAL_GAMES}


def ranks(result: Any) -> list[int] | None:
    """Places (1 = best, equal totals share a place) from a result with
    ``scores[].total`` in seat order (CONTRACT §3); ``None`` without one."""
    if not isinstance(result, dict) or not isinstance(result.get("scores"), list):
        return None
    totals = [s.get("total") for s in result["scores"]]
    if not totals or not all(isinstance(t, int | float) for t in totals):
        return None
    return [1 + sum(1 for o in totals if o > t) for t in totals]


def resigned_last(places: Sequence[int], resigned: Collection[int]) -> list[int]:
    """``places`` with every seat in ``resigned`` behind all the others (resigning loses,
    whatever the bot that played on scored; the resigned share the last place)."""
    if not resigned:
        return list(places)
    kept = [p for i, p in enumerate(places) if i not in resigned]
    # Re-rank the others among themselves, then put the resigned after them.
    out = [1 + sum(1 for q in kept if q < p) if i not in resigned else 0
           for i, p in enumerate(places)]
    last = len(kept) + 1
    return [last if i in resigned else p for i, p in enumerate(out)]


def outcome(before: Sequence[dict[str, Any] | None], places: Sequence[int]
            ) -> list[dict[str, Any]]:
    """Per seat ``{mu0, sigma0, mu1, sigma1, rank}``: the Plackett–Luce update of the
    ratings ``before`` (``None``: a new player) for the finishing ``places``."""
    start = [MODEL.rating(mu=b["mu"], sigma=b["sigma"]) if b else MODEL.rating()
             for b in before]
    after = MODEL.rate([[r] for r in start], ranks=list(places))
    return [{"mu0": s.mu, "sigma0": s.sigma, "mu1": a[0].mu, "sigma1": a[0].sigma, "rank": p}
            for s, a, p in zip(start, after, places, strict=True)]


async def settle(store: AccountStore, table_id: str, game: str, accounts: Sequence[str],
                 names: Sequence[str], result: Any, skip: Collection[str] = (),
                 resigned: Collection[int] = ()) -> bool:
    """Apply a rated table's result to its accounts (one uid per seat) exactly once (see
    the module docstring); accounts in ``skip`` (deleted ones) count for the others but
    get nothing; seats in ``resigned`` place last (``resigned_last``). Returns False when
    the result has no places. Raises ``redis.RedisError`` (then call again: what was
    applied stays applied)."""
    places = ranks(result)
    if places is None or len(places) != len(accounts):
        return False
    places = resigned_last(places, resigned)
    frozen = await store.outcome(table_id)
    if frozen is None:
        before = [await store.rating(uid, game) for uid in accounts]
        computed = outcome(before, places)
        for seat, row in enumerate(computed):
            row.update(seat=seat, account=accounts[seat])
        frozen = await store.freeze_outcome(table_id, computed)
    now = time.time()
    # An account on several seats (two copies of one bot) is rated once: the mean of its
    # seats' changes, at its best place.
    by_account: dict[str, list[dict[str, Any]]] = {}
    for row in frozen:
        by_account.setdefault(row["account"], []).append(row)
    for uid, rows in by_account.items():
        if uid in skip:
            continue
        seats = {r["seat"] for r in rows}
        dmu = sum(r["mu1"] - r["mu0"] for r in rows) / len(rows)
        dsigma = sum(r["sigma1"] - r["sigma0"] for r in rows) / len(rows)
        note = {"game": game, "rank": min(r["rank"] for r in rows), "players": len(frozen),
                "at": now, "before": display(rows[0]["mu0"]),
                "after": display(rows[0]["mu0"] + dmu),
                "opponents": [n for i, n in enumerate(names) if i not in seats]}
        await store.apply_rating(uid, game, table_id, (MU0, SIGMA0), dmu, dsigma,
                                 SIGMA_FLOOR, note)
        rating = await store.rating(uid, game)
        if rating is not None:
            await store.set_leaderboard(game, uid, display(rating["mu"]))
    return True
