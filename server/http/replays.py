"""Replay answers (``POST /api/replay``, ``GET /api/tables/{id}/deltas``, and a
websocket reconnect's missed deltas beyond the ring): cached, computed off the event
loop, rate limited per client address.

Replaying a game to its deltas takes 10-20 ms of pure Python; done on the event loop for
every request it stalled every table of the process (docs/reliability.md, "Replays"). A
replay of a given record, or of a table's stream up to a given seq and head, never changes,
so ``Replays`` keeps the encoded answer (bytes, in an LRU bounded by their total size) and
computes a missing one once, in the process pool of ``server.bots.pool`` (or its thread),
however many requests ask for it meanwhile. ``allow`` is the per-address token bucket
(429 ``rate_limited`` past it); at most ``MAX_PENDING`` answers are computed at a time.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any

from engine import get_game, seat_control
from server import metrics
from server.table.core import replay_deltas, viewer_keys
from server.table.records import RecordError, replay

CACHE_BYTES = 32 * 1024 * 1024
"""Bound on the encoded answers kept (bytes)."""
MAX_PENDING = 16
"""Answers computed at the same time at most; more are refused (429) rather than queued."""
DECODED_KEPT = 32
"""Decoded answers kept (``Replays.decoded``)."""
MAX_ADDRESSES = 10_000
"""Rate buckets kept; beyond, full (idle) buckets are forgotten."""

Answer = tuple[int, bytes]
"""An HTTP status and its JSON body."""


def _json(status: int, content: Any) -> Answer:
    # As Starlette's JSONResponse renders it.
    body = json.dumps(content, ensure_ascii=False, allow_nan=False, indent=None,
                      separators=(",", ":")).encode("utf-8")
    return status, body


def replay_record(raw: bytes) -> Answer:
    """The answer to ``POST /api/replay`` with body ``raw`` (a record as JSON): ``200
    {"seq", "deltas"}`` (heads empty: a record file's chain is checked by ``cardtable
    verify``, not here), ``400 bad_message`` (not JSON) or ``400 bad_record`` (with the
    failing action's ``index``). Pure; runs in a worker."""

    try:
        data = json.loads(raw) if raw.strip() else {}
    except (ValueError, UnicodeDecodeError):
        return _json(400, {"error": {"code": "bad_message", "message": "the body is not JSON"}})
    except RecursionError:
        return _json(400, {"error": {"code": "bad_message",
                                     "message": "the body is nested too deeply"}})
    try:
        name, events = replay(data)
    except RecordError as e:
        return _json(400, {"error": {"code": "bad_record", "message": str(e),
                                     "index": e.index}})
    # The replay viewer shows a spectator's view (hands only once the game reveals them).
    built = replay_deltas(get_game(name), [None], events, [""] * len(events))
    return _json(200, {"seq": len(events), "deltas": [m for d in built
                                                      if (m := d.message(None)) is not None]})


def stored_deltas(game_name: str, seats: int, entries: list[dict[str, Any]],
                  after: int, viewer: int | None = None) -> Answer:
    """The answer to ``GET /api/tables/{id}/deltas?from=after`` for the stored ``entries``
    (from seq 1): ``200 {"seq", "deltas"}``, the deltas after ``after`` that ``viewer``
    (a seat, ``None``: the spectators) was sent live, identical to them. Pure; runs in a
    worker."""
    game = get_game(game_name)
    # As TableCore.decode: the game's events and the seat-control ones.
    events = [seat_control.decode(game.events, e["e"]) for e in entries]
    built = replay_deltas(game, viewer_keys(game, seats), events, [e["h"] for e in entries],
                          min(after, len(entries)))
    return _json(200, {"seq": len(entries), "deltas": [m for d in built
                                                       if (m := d.message(viewer)) is not None]})


def catch_up(game_name: str, seats: int, entries: list[dict[str, Any]], after: int,
             viewer: int | None) -> Answer:
    """What ``viewer`` (a seat, ``None``: a spectator) missed after seq ``after`` of the
    stored ``entries`` (from seq 1) as one ``deltas`` message (all the events, as live,
    and one patch from its view at ``after``), as ``(200, msgpack of the list of
    messages)`` (empty: nothing missed, or nothing it may see): a reconnect's catch-up
    beyond the ring (server/ws/endpoint.py ``welcome``). Pure; runs in a worker."""
    import msgpack

    game = get_game(game_name)
    keys = [k for k in viewer_keys(game, seats) if k is None or k == viewer]
    events = [seat_control.decode(game.events, e["e"]) for e in entries]
    built = replay_deltas(game, keys, events, [e["h"] for e in entries],
                          min(after, len(entries)), ends=())
    return 200, msgpack.packb([m for d in built if (m := d.message(viewer)) is not None],
                              use_bin_type=True)


class Busy(Exception):
    """``MAX_PENDING`` answers are being computed already: refuse (429), do not queue."""


class Replays:
    """The cache, the computations under way and the rate buckets of one process.
    ``pool`` runs a function in a worker: ``await pool.run(fn, *args)``."""

    def __init__(self, pool: Any, rate_per_s: float, burst: int,
                 max_bytes: int = CACHE_BYTES) -> None:
        self.pool = pool
        self.rate = rate_per_s
        self.burst = burst
        self.max_bytes = max_bytes
        self.size = 0
        self.cache: OrderedDict[Hashable, Answer] = OrderedDict()
        self.pending: dict[Hashable, asyncio.Future[Answer]] = {}
        self.buckets: dict[str, tuple[float, float]] = {}
        self.decoded: OrderedDict[Hashable, Any] = OrderedDict()
        """Answers decoded for the event loop (a reconnect's ``Delta`` objects, whose
        frames are encoded once for every socket that asks), the ``DECODED_KEPT`` newest."""

    def remember(self, key: Hashable, value: Any) -> Any:
        """Keep ``value`` as the decoded answer of ``key`` (``recall`` finds it)."""
        self.decoded[key] = value
        self.decoded.move_to_end(key)
        while len(self.decoded) > DECODED_KEPT:
            self.decoded.popitem(last=False)
        return value

    def recall(self, key: Hashable) -> Any:
        """The decoded answer kept for ``key``, or ``None``."""
        found = self.decoded.get(key)
        if found is not None:
            self.decoded.move_to_end(key)
            metrics.REPLAYS.labels("cached").inc()
        return found

    def allow(self, address: str) -> bool:
        """Take one request from ``address``'s bucket; False when it is over its rate."""
        now = time.monotonic()
        tokens, since = self.buckets.get(address, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - since) * self.rate)
        if tokens < 1.0:
            self.buckets[address] = (tokens, now)
            metrics.REPLAYS.labels("rate_limited").inc()
            return False
        self.buckets[address] = (tokens - 1.0, now)
        if len(self.buckets) > MAX_ADDRESSES:
            self._forget_idle(now)
        return True

    def _forget_idle(self, now: float) -> None:
        full = [a for a, (t, s) in self.buckets.items()
                if t + (now - s) * self.rate >= self.burst]
        for address in full:
            del self.buckets[address]

    def cached(self, key: Hashable) -> Answer | None:
        """The answer kept for ``key``, if any (counted as served from the cache)."""
        found = self.cache.get(key)
        if found is not None:
            self.cache.move_to_end(key)
            metrics.REPLAYS.labels("cached").inc()
        return found

    async def answer(self, key: Hashable, fn: Any, *args: Any, keep: bool = True) -> Answer:
        """The answer for ``key``: kept, being computed (awaited), or ``fn(*args)`` run in
        the pool and kept (``keep``). Raises ``Busy`` when too many are being computed."""
        found = self.cached(key)
        if found is not None:
            return found
        running = self.pending.get(key)
        if running is not None:
            metrics.REPLAYS.labels("cached").inc()
            return await asyncio.shield(running)
        if len(self.pending) >= MAX_PENDING:
            metrics.REPLAYS.labels("rate_limited").inc()
            raise Busy
        future: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        self.pending[key] = future
        try:
            result = await self.pool.run(fn, *args)
        except BaseException as e:
            future.set_exception(e)
            future.exception()  # retrieved: the waiters re-raise it
            raise
        finally:
            self.pending.pop(key, None)
        future.set_result(result)
        metrics.REPLAYS.labels("computed").inc()
        if keep:
            self._keep(key, result)
        return result

    def _keep(self, key: Hashable, answer: Answer) -> None:
        size = len(answer[1])
        if size > self.max_bytes // 4:
            return  # one answer must not flush the whole cache
        old = self.cache.pop(key, None)
        if old is not None:
            self.size -= len(old[1])
        self.cache[key] = answer
        self.size += size
        while self.size > self.max_bytes:
            _, (_, body) = self.cache.popitem(last=False)
            self.size -= len(body)
