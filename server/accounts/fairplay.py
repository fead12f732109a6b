"""Fair play at rated tables (docs/protocol.md §3, "Fair play"): whether a finished rated
game counts, who lost by leaving it, and each account's record of games left.

The rules:

- **Enough play**: a rated game changes ratings only when every person (an account not
  ``bot-…``) made at least the game's ``rated_min_decisions`` actions of their own (the
  table's stored action ids ``p:<seat>:<id>``; a bot playing the seat after a timeout,
  handover or resignation acts as ``b:…``). Fewer: the game is *aborted* and counts for
  nobody.
- **Leaving loses**: in a game that counts, a person's seat that a bot plays at the end
  because its player resigned, timed out or was gone (handover, abandoned) places last,
  whatever the bot scored for it.
- **Repeated pairs**: between the same two accounts at most ``PAIR_CAP`` rated results
  count in ``PAIR_WINDOW_MS`` (a day, the service's clock); a game beyond that counts for
  nobody and is flagged to the moderators (an audit entry ``rating_capped``).
- **The record**: each account's finished games that it left by timing out
  (``timed_out``) or by being gone (``abandoned``) are kept per account and shown on its
  profile.

Pure core: ``decisions``, ``too_few``, ``left_seats``, ``pairs``. Shell: ``judge`` (the
pair counts in Redis), ``record_left``, and ``rate_finished``, what a finished table does.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from engine.seat_control import Control
from server.accounts import ratings
from server.store.accounts import AccountStore
from server.store.fairplay import FairPlayStore
from server.table.meta import DELETED, TableMeta

PAIR_WINDOW_MS = 86_400_000
"""The window of the repeated-pairs rule: a day."""
PAIR_CAP = 3
"""Rated results between the same two accounts that count in one window."""

LEFT_BY_REASON = {"timeout": "timed_out", "handover": "abandoned", "abandoned": "abandoned",
                  "resigned": "resigned"}
"""How a person left a seat, from the reason of the change that gave it to a bot."""


def is_person(uid: str) -> bool:
    """True for a person's account (bots' accounts are ``bot-<kind>-<level>``)."""
    return not uid.startswith("bot-")


def decisions(act_keys: Collection[str]) -> Counter[int]:
    """Per seat the actions its person made (``p:<seat>:<id>`` keys of ``act_keys``)."""
    return Counter(int(k.split(":", 2)[1]) for k in act_keys if k.startswith("p:"))


def too_few(accounts: Sequence[str], act_keys: Collection[str], minimum: int) -> list[int]:
    """The person seats (by their frozen ``accounts``) that made fewer than ``minimum``
    actions of their own: the game is aborted unless this is empty."""
    made = decisions(act_keys)
    return [i for i, uid in enumerate(accounts) if is_person(uid) and made[i] < minimum]


def left_seats(control: Control, people: Collection[int]) -> dict[int, str]:
    """The seats of ``people`` (a person's seats) that a bot plays at the end of the game,
    with how their player left (``resigned``, ``timed_out`` or ``abandoned``:
    ``LEFT_BY_REASON``)."""
    out: dict[int, str] = {}
    for seat, state in control.seats.items():
        if seat in people and state.by == "bot":
            out[seat] = LEFT_BY_REASON.get(state.reason or "", "abandoned")
    return out


def pairs(accounts: Sequence[str]) -> list[tuple[str, str]]:
    """Every pair of distinct person accounts at the table, each once, sorted."""
    people = sorted({uid for uid in accounts if is_person(uid)})
    return list(combinations(people, 2))


@dataclass
class Verdict:
    """Whether a finished rated game counts: ``counts``; else ``reason`` (``aborted``:
    too little play, ``capped``: a repeated pair) and, for ``capped``, the ``pairs`` over
    the cap."""

    counts: bool
    reason: str = ""
    pairs: list[tuple[str, str]] = field(default_factory=list)


async def judge(fair: FairPlayStore, table_id: str, accounts: Sequence[str],
                act_keys: Collection[str], minimum: int, now_ms: int) -> Verdict:
    """The verdict on a finished rated table: aborted (``too_few``), else each pair of its
    people is counted (``FairPlayStore.count_pair``; repeating this for the same table
    counts nothing twice), and the game is capped when any pair was over the cap.
    Raises ``redis.RedisError``."""
    if too_few(accounts, act_keys, minimum):
        return Verdict(False, "aborted")
    over = [p for p in pairs(accounts)
            if not await fair.count_pair(*p, table_id, now_ms, PAIR_WINDOW_MS, PAIR_CAP)]
    return Verdict(False, "capped", over) if over else Verdict(True)


async def record_left(fair: FairPlayStore, table_id: str, accounts: Sequence[str],
                      left: dict[int, str], now_ms: int) -> None:
    """Add the game to the record of each account that left it timed out or abandoned (a
    resignation is no leaving: the player said so). Safe to repeat."""
    for seat, how in left.items():
        uid = accounts[seat] if seat < len(accounts) else ""
        if how in ("timed_out", "abandoned") and uid and uid != DELETED:
            await fair.record_left(uid, how, table_id, now_ms)


async def rate_finished(accounts: AccountStore, fair: FairPlayStore,
                        flag: Callable[[dict[str, Any]], Awaitable[Any]], table_id: str,
                        game: str, minimum: int, meta: TableMeta, control: Control,
                        result: Any, act_keys: Collection[str], now_ms: int) -> str:
    """What a finished table does for its accounts: the record of who left it (every
    table), and for a rated one the verdict (``judge``) and, when it counts, the ratings
    (``ratings.settle``, the seats left placed last; bots' accounts made on first use).
    A capped game is flagged once (``flag`` gets the audit entry). Returns the verdict
    stored for the table (``counted``, ``aborted``, ``capped``; ``""`` unrated). Safe to
    repeat; raises ``redis.RedisError`` (then call again)."""
    seated = (list(meta.accounts) if meta.rated and meta.accounts
              else [s.account or "" for s in meta.seats])
    people = [i for i, uid in enumerate(seated) if uid and is_person(uid)]
    left = left_seats(control, people)
    await record_left(fair, table_id, seated, left, now_ms)
    if not (meta.rated and meta.accounts):
        return ""
    verdict = await judge(fair, table_id, meta.accounts, act_keys, minimum, now_ms)
    if verdict.reason == "capped" and await fair.flag_once(table_id):
        await flag({"actor": "system", "action": "rating_capped", "target": table_id,
                    "detail": {"game": game, "pairs": [list(p) for p in verdict.pairs],
                               "cap": PAIR_CAP, "window_ms": PAIR_WINDOW_MS},
                    "at": repr(round(now_ms / 1000, 3))})
    if verdict.counts:
        for s in meta.seats:
            if s.kind == "bot":
                uid = ratings.bot_uid(s.bot or "random", s.level)
                name = ratings.bot_name(s.bot or "random", s.level)
                await accounts.ensure_bot(uid, name)
                await accounts.reserve_name(name, uid)
        gone = {uid for uid in meta.accounts if not await accounts.account(uid)}
        await ratings.settle(accounts, table_id, game, meta.accounts, meta.players(),
                             result, skip=gone, resigned=list(left))
    shown = "counted" if verdict.counts else verdict.reason
    await fair.set_verdict(table_id, shown)
    return shown
