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
(``level`` 0 for kinds without levels), named e.g. ``MCTS level 3``, but *anchored*: its
rating is fixed (``ANCHORS``, from the ladder of docs/bots.md, with ``ANCHOR_SIGMA``) and
no game moves it; the people it plays are rated against that fixed rating. A person's
rating moves by at most ``MAX_CHANGE`` shown points in one game (``capped``: the whole
update, uncertainty too, scaled down), so a new account's first game against a bot
swings it by 75 points, not by 158. An account on several seats of one table is rated
once for it: the mean of its seats' changes.

Whether a finished game counts at all (enough play, repeated pairs) and who lost by
leaving it is server/accounts/fairplay.py's.
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
MAX_CHANGE = 75
"""Shown points a person's rating moves at most in one game (``capped``)."""
ANCHORS: dict[tuple[str, int], int] = {
    ("random", 0): 124, ("greedy", 0): 1382,
    ("mcts", 1): 1704, ("mcts", 2): 1703, ("mcts", 3): 2033, ("mcts", 4): 2082,
}
"""The fixed shown rating of each bot kind and level: the mean of the two ladder runs of
docs/bots.md ("Ladder": 180 rated Einauge games each, 60 per bot), used for every game
(no ladder of Keltis or Loot Island was run). A kind or level not listed shows 1500."""
ANCHOR_SIGMA = 100 / SCALE
"""The bots' fixed deviation (100 shown points): about half the ladder's after 60 games."""


def anchor(uid: str) -> tuple[float, float] | None:
    """The fixed ``(mu, sigma)`` of a bot's account ``bot-<kind>-<level>``, ``None`` for a
    person's."""
    if not uid.startswith("bot-"):
        return None
    kind, _, level = uid[len("bot-"):].rpartition("-")
    shown_rating = ANCHORS.get((kind, int(level) if level.isdigit() else 0), 1500)
    return shown_rating / SCALE, ANCHOR_SIGMA


def capped(dmu: float, dsigma: float) -> tuple[float, float]:
    """A person's change ``(dmu, dsigma)`` scaled down as a whole so that the shown rating
    moves by at most ``MAX_CHANGE``."""
    limit = MAX_CHANGE / SCALE
    if abs(dmu) <= limit:
        return dmu, dsigma
    f = limit / abs(dmu)
    return dmu * f, dsigma * f


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


def _anchored(uid: str) -> dict[str, Any] | None:
    fixed = anchor(uid)
    return None if fixed is None else {"mu": fixed[0], "sigma": fixed[1], "games": 0}


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
        before = [_anchored(uid) or await store.rating(uid, game) for uid in accounts]
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
        dmu, dsigma = capped(sum(r["mu1"] - r["mu0"] for r in rows) / len(rows),
                             sum(r["sigma1"] - r["sigma0"] for r in rows) / len(rows))
        start = (MU0, SIGMA0)
        fixed = anchor(uid)
        if fixed is not None:
            # Anchored: the stored rating is set back to the anchor (a rating a bot got
            # before anchoring is corrected by its next game), never moved by the game.
            start = fixed
            now_r = await store.rating(uid, game)
            dmu, dsigma = ((0.0, 0.0) if now_r is None
                           else (fixed[0] - now_r["mu"], fixed[1] - now_r["sigma"]))
        note = {"game": game, "rank": min(r["rank"] for r in rows), "players": len(frozen),
                "at": now, "before": display(rows[0]["mu0"]),
                "after": display(fixed[0] if fixed else rows[0]["mu0"] + dmu),
                "opponents": [n for i, n in enumerate(names) if i not in seats]}
        await store.apply_rating(uid, game, table_id, start, dmu, dsigma, SIGMA_FLOOR, note)
        rating = await store.rating(uid, game)
        if rating is not None:
            await store.set_leaderboard(game, uid, display(rating["mu"]))
    return True
