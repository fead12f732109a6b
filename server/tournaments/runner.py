"""The loop every process runs over the scheduled and running tournaments: record the
results of ended boards, claim the next round (or arena wave) when it is due, make its
tables, and push new versions to the local sockets.

Each change is a compare-and-set of the tournament's state (``store.change``), so of
several processes passing at once exactly one claims a round; the plan it stored names
every table, and any process makes those still missing (``boards.ensure``, idempotent).
A process killed between the claim and the last table leaves boards ``planned``: the
next pass of any process finishes them. Nothing here keeps state between passes but
what it pushed.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping, Set
from typing import TYPE_CHECKING, Any

from redis.exceptions import RedisError

from server import metrics
from server.errors import LobbyError, Unavailable, confirmed
from server.logging import get_logger
from server.tournaments.boards import Boards
from server.tournaments.live import Watchers
from server.tournaments.model import OPEN, Tournament
from server.tournaments.pairing import NOBODY
from server.tournaments.store import GRACE_MS, Stale, TournamentStore

if TYPE_CHECKING:  # the service type only: server.app builds the runner
    from server.app import Service

log = get_logger("tournaments")


class Runner:
    """Advances the tournaments of ``store`` every ``scan`` s (sooner when ``nudge``d)."""

    def __init__(self, svc: Service, store: TournamentStore, scan: float) -> None:
        self.svc = svc
        self.store = store
        self.boards = Boards(svc)
        self.watchers = Watchers()
        self.scan = scan
        self._nudged: asyncio.Future[None] | None = None
        self._task: asyncio.Task[None] | None = None
        self._stopping = False

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._loop())

    async def stop(self) -> None:
        """Stop passing. The flag ends the loop even if a cancellation met in a pass
        became another exception on its way out (a table's load turns it into one)."""
        self._stopping = True
        if self._task is not None:
            self._task.cancel()
            await asyncio.wait([self._task], timeout=5)

    def nudge(self) -> None:
        """Pass now (a table ended, a tournament changed here)."""
        if self._nudged is not None and not self._nudged.done():
            self._nudged.set_result(None)

    async def _loop(self) -> None:
        while not self._stopping:
            try:
                await self.pass_once()
            except (RedisError, Unavailable) as e:
                metrics.REDIS_ERRORS.inc()
                log.warning("tournament pass failed", error=str(e))
            except Exception:  # a bug: said loudly; the loop goes on
                log.exception("tournament pass failed")
            # A plain future and ``asyncio.wait``, which cancels nothing: a pass is due at
            # ``scan`` s or at a nudge, whichever comes first.
            self._nudged = asyncio.get_running_loop().create_future()
            await asyncio.wait([self._nudged], timeout=self.scan)

    async def pass_once(self) -> None:
        """One pass: every active tournament stepped, every watched one pushed."""
        for tid, created in await self.store.active():
            if self._stopping:
                return
            try:
                await self.step(tid, created)
            except (LobbyError, Stale) as e:  # the next pass tries again
                log.warning("tournament step failed", tournament=tid, error=str(e))
            except (RedisError, Unavailable):
                raise
            except Exception:  # a bug: said loudly, and the other tournaments go on
                log.exception("tournament step failed", tournament=tid)
        for tid in self.watchers.ids():
            got = await self.store.load(tid)
            if got is not None:
                self.watchers.publish(*got)  # offered: each socket's task writes

    async def step(self, tid: str, created: int = 0) -> None:
        """Results, the next round, its tables (module docstring). ``created``: when the
        id was listed (ms), for one whose state is not stored yet."""
        got = await self.store.load(tid)
        if got is None:
            if self.svc.tables.now() - created > GRACE_MS:
                await self.store.forget_active(tid)
            return
        t, _ = got
        if t.status not in OPEN:
            await self.store.reindex(t)
            return
        for board in [b for b in t.boards if b.table and b.status != "done"]:
            places = await self.boards.result(board.table)
            if places is not None:
                done = await self.store.change(tid, recording(board.table, places))
                if done is not None:
                    t = done[0]
                if done is not None and done[1]:
                    metrics.TOURNAMENT_RESULTS.inc()
                    log.info("tournament board ended", tournament=tid, table=board.table,
                             places=places)
        now = self.svc.tables.now()
        # Whom the players blocked, read only when a plan may come of this step (one call
        # per player: server/store/social.py): the pairing keeps them apart where it can.
        avoid: dict[str, set[str]] | None = None
        if t.may_plan(now):
            uids = t.active()
            avoid = dict(zip(uids, await confirmed(self.svc.social.avoided_many(uids)),
                             strict=True))
        changed = await self.store.change(tid, lambda s: advanced(s, now, avoid))
        if changed is None:
            return
        t, answer = changed
        if answer and answer["planned"]:
            metrics.TOURNAMENT_ROUNDS.labels(t.kind).inc()
            log.info("tournament round started", tournament=tid, round=t.round,
                     tables=[b.table for b in answer["planned"]])
        if answer and answer["status"] != t.status:
            log.info("tournament status", tournament=tid, status=t.status)
        names = {e.uid: e.name for e in t.players}
        for board in [b for b in t.boards if b.status == "planned"]:
            await self.boards.ensure(t, board, names)
            await self.store.change(tid, playing(board.table))


def recording(table: str, places: list[int]) -> Callable[[Tournament], bool]:
    """The change that records a board's result (``Tournament.record``)."""
    return lambda t: t.record(table, places)


def playing(table: str) -> Callable[[Tournament], bool]:
    """The change that marks a board's table made and started."""
    return lambda t: t.mark_playing(table)


def advanced(t: Tournament, now: int, avoid: Mapping[str, Set[str]] | None
             ) -> dict[str, Any] | None:
    """``t.advance(now, avoid)`` as a change for ``store.change``: ``None`` when nothing
    changed, else the boards it planned and the status before. ``avoid`` read for
    another state (``None``: none read, the state was not due to pair; or a player it
    lacks): a state due to pair now is left as it is, for the next pass to read the
    blocks of (a start, a result or a join came between the read and the change)."""
    if t.may_plan(now) and (avoid is None or not set(t.active()) <= set(avoid)):
        return None
    before = json.dumps(t.to_json(), sort_keys=True)
    status = t.status
    planned = t.advance(now, avoid or NOBODY)
    if json.dumps(t.to_json(), sort_keys=True) == before:
        return None
    return {"planned": planned, "status": status}
