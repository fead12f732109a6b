"""The seek pool's asyncio shell: seeks made, looked at and cancelled for the HTTP API
(server/http/seeks.py), and the pairing passes every process runs.

A pass over one game's pool (``pass_once``), on any process, at any time:

1. Pairings claimed more than ``seek_grace`` seconds ago and still pending (their process
   died between the claim and the table's start) are finished here.
2. Seeks whose seeker was not seen (a poll of ``GET /api/seeks/{id}`` or an open seek
   socket) for ``seek_idle`` seconds expire.
3. ``match.decide`` groups the rest; each group is claimed in one script (all its seeks
   still waiting, or nothing), with the new table's id decided in that claim.
4. The claimed table is created (``Store.create_new``: once, whoever comes first) and
   started; then the seeks are ``paired``.

Every step after the claim may be repeated by any process with the same result, so a
process killed anywhere in 3–4 loses nothing and seats no seek twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import secrets
import time
from typing import TYPE_CHECKING, Any

from redis.exceptions import RedisError

from engine import GAMES
from server import metrics
from server.accounts import ratings
from server.config import Settings
from server.errors import LobbyError, Unavailable, confirmed
from server.logging import get_logger
from server.pairing import seating
from server.pairing.match import Seek, Window, decide
from server.store.accounts import AccountStore
from server.store.seeks import Pending, SeekStore
from server.store.social import SocialStore
from server.table.meta import token_hash

if TYPE_CHECKING:  # the hub that creates and starts the tables (no import at run time)
    from server.table.tables import Tables

log = get_logger("pairing")

POOL_READ = 500
"""The oldest waiting seeks one pass reads per game (the rest wait for the next pass)."""

DONE_TTL = 3600
"""Seconds a seek that is no longer waiting stays readable (its status, its table)."""

WAITING_TTL = 86400
"""Seconds a waiting seek's key lives past its last touch (it expires long before)."""

FINAL = ("paired", "cancelled", "expired")


def public_status(stored: str) -> str:
    """The status the API shows: a claimed seek whose table is being created still
    ``waiting`` (its table does not exist yet)."""
    return "waiting" if stored == "claimed" else stored


class SeekPool:
    """The seeks of every game: ``tables`` creates and starts the pairings' tables,
    ``accounts`` records an account's seat at them (its games list), ``social`` tells
    whom a seeker's account blocked or was blocked by (never paired with it)."""

    def __init__(self, settings: Settings, store: SeekStore, tables: Tables,
                 accounts: AccountStore, social: SocialStore) -> None:
        self.settings = settings
        self.store = store
        self.tables = tables
        self.accounts = accounts
        self.social = social
        self.window = Window(settings.seek_window, settings.seek_window_growth,
                             settings.seek_window_max)
        self._wake = asyncio.Event()
        self._paired: dict[str, asyncio.Event] = {}
        self._task: asyncio.Task[None] | None = None
        self._closing = False

    # -- the API's calls --------------------------------------------------------------

    async def create(self, game: str, seats: int, time_control: dict[str, Any], rated: bool,
                     bots_after: int | None, name: str, uid: str | None,
                     bot_account: bool = False) -> dict[str, Any]:
        """A waiting seek of ``game``; returns its public form with ``seek_token`` (the
        credential of ``GET``/``DELETE`` and of its socket). ``bot_account``: the account
        ``uid`` is a bot account (its seat will say so). Raises ``LobbyError`` 409
        ``seek_open`` when the account ``uid`` already waits in this game's pool,
        ``Unavailable``."""
        sid = f"{game}.{secrets.token_urlsafe(12)}"
        token = secrets.token_urlsafe(16)
        now = self.settings.now_ms()
        rating = 0
        if rated and uid is not None:
            found = await confirmed(self.accounts.rating(uid, game))
            rating = int(ratings.shown(found)["rating"])
        fields = {
            "game": game, "seats": str(seats), "tc": seating.canonical(time_control),
            "rated": "1" if rated else "0", "rating": str(rating),
            "bots_after": "" if bots_after is None else str(bots_after),
            "owner": f"a:{uid}" if uid else "", "owner_uid": uid or "", "name": name,
            "owner_bot": "1" if uid and bot_account else "",
            "secret": token_hash(token),
            "seat_hash": token_hash(seating.seat_token(token, sid)),
            "created": str(now), "seen": str(now), "status": "waiting"}
        held = await confirmed(self.store.add(game, sid, fields["owner"], fields, now,
                                              WAITING_TTL))
        if held is not None:
            raise LobbyError(409, "seek_open",
                             f"your account already waits for a game of {game} (seek "
                             f"{held}); cancel it first")
        metrics.SEEKS.labels("created").inc()
        log.info("seek created", game=game, seats=seats, rated=rated)
        self._wake.set()
        return {"id": sid, "seek_token": token, **self._public(sid, token, fields)}

    async def look(self, sid: str, token: str | None) -> dict[str, Any]:
        """The seek as its owner sees it (a waiting one counts as seen now). Raises
        ``LobbyError`` 404 ``no_seek`` for an unknown seek or another's token."""
        game = self._game_of(sid)
        self._owner(await confirmed(self.store.seek(game, sid)), sid, token)
        # Touched only for its owner: nobody else keeps another's seek alive.
        fields = await confirmed(self.store.touch(game, sid, self.settings.now_ms(),
                                                  WAITING_TTL))
        return self._public(sid, self._owner(fields, sid, token), fields)

    async def cancel(self, sid: str, token: str | None) -> dict[str, Any]:
        """Cancel a waiting seek. Raises ``LobbyError`` 404 ``no_seek`` (as ``look``),
        409 ``seek_paired`` once it was seated at a table (even one still being
        created), 409 ``seek_ended`` when it was cancelled or expired before."""
        game = self._game_of(sid)
        fields = await confirmed(self.store.seek(game, sid))
        self._owner(fields, sid, token)
        done, status = await confirmed(self.store.end(game, sid, "cancelled", DONE_TTL))
        if done:
            metrics.SEEKS.labels("cancelled").inc()
            log.info("seek cancelled", game=game)
            return {"id": sid, "status": "cancelled"}
        if status in ("claimed", "paired"):
            raise LobbyError(409, "seek_paired", "the seek was already seated at a table; "
                                                  "GET it for the table and seat")
        raise LobbyError(409, "seek_ended", f"the seek is already {status}")

    async def cancel_all(self, uid: str) -> int:
        """Cancel the waiting seeks of the account ``uid`` in every game (it was banned
        or deleted: ``server.accounts.leaving.OpenSeeks``); a seek already seated at a
        table is that table's. Returns how many. Raises ``Unavailable``."""
        cancelled = 0
        for game in GAMES:
            sid = await confirmed(self.store.held(game, f"a:{uid}"))
            if sid is None:
                continue
            done, _ = await confirmed(self.store.end(game, sid, "cancelled", DONE_TTL))
            if done:
                cancelled += 1
                metrics.SEEKS.labels("cancelled").inc()
                log.info("seek cancelled", game=game, reason="account left")
                waiting = self._paired.pop(sid, None)
                if waiting is not None:
                    waiting.set()  # its socket here reads the seek again at once
        return cancelled

    async def sizes(self) -> dict[str, int]:
        """Waiting seeks per game."""
        out = {}
        for game in GAMES:
            out[game] = await confirmed(self.store.pool_size(game))
            metrics.SEEK_POOL.labels(game).set(out[game])
        return out

    async def changed(self, sid: str, timeout: float) -> None:
        """Return when this process paired ``sid``, or after ``timeout`` seconds (another
        process may have paired it: the caller reads the seek again)."""
        await _wait(self._paired.setdefault(sid, asyncio.Event()), timeout)

    def forget(self, sid: str) -> None:
        """Nobody here waits for ``sid`` any more (its socket closed)."""
        self._paired.pop(sid, None)

    def _game_of(self, sid: str) -> str:
        game = sid.split(".", 1)[0]
        if game not in GAMES or len(sid) > 100:
            raise LobbyError(404, "no_seek", f"no seek {sid[:100]!r}")
        return game

    @staticmethod
    def _owner(fields: dict[str, str], sid: str, token: str | None) -> str:
        """The seek token, when ``token`` is the seek's; else 404 ``no_seek`` (an unknown
        seek and another's answer alike: a seek id alone tells nothing)."""
        if not fields or not token or not hmac.compare_digest(
                fields.get("secret", ""), token_hash(token)):
            raise LobbyError(404, "no_seek", f"no seek {sid!r} of this token")
        return token

    @staticmethod
    def _public(sid: str, token: str, fields: dict[str, str]) -> dict[str, Any]:
        status = public_status(fields["status"])
        out: dict[str, Any] = {
            "id": sid, "status": status, "game": fields["game"], "seats": int(fields["seats"]),
            "time_control": json.loads(fields["tc"]), "rated": fields["rated"] == "1",
            "bots_after": int(fields["bots_after"]) if fields["bots_after"] else None}
        if status == "paired":
            out.update(table=fields["table"], seat=int(fields["seat"]),
                       token=seating.seat_token(token, sid))
        return out

    # -- the passes ---------------------------------------------------------------------

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        # The flag too: a cancel that lands as the pass's wait times out is swallowed by
        # ``asyncio.timeout`` (it raises TimeoutError then); the loop still sees the flag.
        self._closing = True
        self._wake.set()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _run(self) -> None:
        while not self._closing:
            self._wake.clear()
            for game in GAMES:
                try:
                    await self.pass_once(game)
                except (RedisError, Unavailable) as e:
                    metrics.REDIS_ERRORS.inc()
                    log.warning("pairing pass failed", game=game, error=str(e))
                except Exception as e:
                    # Whatever one pass met (a closing connection pool as the process
                    # stops, say), the passes go on: every step is repeatable.
                    log.warning("pairing pass failed", game=game, error=repr(e))
            await _wait(self._wake, self.settings.seek_scan)

    async def pass_once(self, game: str) -> None:
        """One pass over ``game``'s pool (the module docstring). Raises ``RedisError``."""
        now = self.settings.now_ms()
        for stale in await self.store.pending(game, now - int(self.settings.seek_grace * 1000)):
            log.info("pairing finished for another process", game=game, table=stale.table_id)
            if await self.finish(game, stale):
                metrics.SEEK_PAIRINGS.labels("recovered").inc()
        rows = await self.store.waiting(game, POOL_READ)
        metrics.SEEK_POOL.labels(game).set(len(rows))
        cutoff = now - self.settings.seek_idle * 1000
        # Read at every pass: a block made while a seek waits counts from the next one.
        uids = sorted({row["owner_uid"] for row in rows if row.get("owner_uid")})
        avoid = dict(zip(uids, await self.social.avoided_many(uids), strict=True))
        seeks = []
        for row in rows:
            if int(row["seen"]) < cutoff:
                done, _ = await self.store.end(game, row["id"], "expired", DONE_TTL,
                                               seen_before=cutoff)
                if done:
                    metrics.SEEKS.labels("expired").inc()
                    log.info("seek expired", game=game)
                continue
            seeks.append(_seek(row, frozenset(avoid.get(row.get("owner_uid") or "", ()))))
        for group in decide(seeks, now, self.window):
            table_id, starter = secrets.token_urlsafe(9), secrets.token_urlsafe(16)
            if not await self.store.claim(game, table_id, group.ids, group.bots, starter, now):
                continue  # one of them changed meanwhile: decided again at the next pass
            for s in group.seeks:
                metrics.SEEK_WAIT.observe(max(now - s.created, 0) / 1000)
            if self.settings.seek_finish_pause:  # tests only: a process killed right here
                await asyncio.sleep(self.settings.seek_finish_pause)
            if await self.finish(game, Pending(table_id, list(group.ids), group.bots,
                                               starter, now)):
                metrics.SEEK_PAIRINGS.labels("bots" if group.bots else "full").inc()

    async def finish(self, game: str, pending: Pending) -> bool:
        """Create and start the claimed table (idempotent: whoever comes first), then mark
        its seeks ``paired``. True when this call marked them. Raises ``RedisError``,
        ``Unavailable``."""
        fields = [await self.store.seek(game, sid) for sid in pending.seeks]
        if not all(fields):
            # Their keys expired (a day untouched): nothing is left to seat; the record goes.
            log.error("pairing lost its seeks", game=game, table=pending.table_id)
            await self.store.finish(game, pending, DONE_TTL)
            return False
        meta = seating.table_meta(pending.table_id, game,
                                  [seating.Seeker.of(f) for f in fields], pending.bots,
                                  json.loads(fields[0]["tc"]), fields[0]["rated"] == "1",
                                  pending.starter)
        if await self.tables.store.create_new(meta.id, meta.to_fields(),
                                              self.settings.idle_expiry):
            await self.tables.lobby.index(meta)
        try:
            await self.tables.lobby.start_game(meta.id, pending.starter)
        except LobbyError as e:
            if e.code != "started":  # another process started it: finished all the same
                raise
        for seat, f in enumerate(fields):
            if f.get("owner_uid"):
                await self.accounts.hold(f["owner_uid"], meta.id, {"seat": seat}, time.time())
        moved = await self.store.finish(game, pending, DONE_TTL)
        for sid in pending.seeks:
            event = self._paired.pop(sid, None)
            if event is not None:
                event.set()
        if moved:
            metrics.SEEKS.labels("paired").inc(moved)
            log.info("seeks paired", game=game, table=meta.id, seeks=len(pending.seeks),
                     bots=pending.bots)
        return moved > 0


def _seek(row: dict[str, str], avoid: frozenset[str]) -> Seek:
    return Seek(id=row["id"], seats=int(row["seats"]), time_control=row["tc"],
                rated=row["rated"] == "1", created=int(row["created"]),
                rating=int(row.get("rating") or 0),
                bots_after=int(row["bots_after"]) if row.get("bots_after") else None,
                account=row.get("owner_uid") or None, avoid=avoid)


async def _wait(event: asyncio.Event, timeout: float) -> None:
    """Until ``event`` is set or ``timeout`` seconds passed. ``asyncio.wait``, not
    ``asyncio.timeout``: on Python 3.11 the latter turns a cancel that lands as it
    expires into its TimeoutError, and a stopping process would wait on."""
    waiter = asyncio.ensure_future(event.wait())
    try:
        await asyncio.wait({waiter}, timeout=timeout)
    finally:
        waiter.cancel()
