"""Redis layout of docs/protocol.md §3: keys, the append and meta scripts, loads.

Every key of a table carries the hash tag ``{<table id>}`` so a Redis Cluster keeps it in
one slot. Appending an action's events is one round trip (``APPEND``): it checks the
expected seq (and, for the start, the lobby version), the action id for idempotency,
pushes the entries, sets ``seq``/``head``, and ``SPUBLISH``es them on the table channel.
Only this module knows key names; everything else calls these functions.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import msgpack
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import NoScriptError, RedisError

from server import metrics
from server.store import client as redis_client
from server.store.client import bounded, bounded_off_lane
from server.store.deadlines import DEADLINES, DeadlineIndex
from server.store.lane import Lane
from server.store.lobby_index import LobbyIndex
from server.store.route import Route, hash_reply
from server.store.scripts import (
    APPEND_LUA,
    ARCHIVE_LUA,
    BOT_LEASE_LUA,
    BOT_RELEASE_LUA,
    CHAT_LUA,
    CREATE_LUA,
    CREATE_NEW_LUA,
    LSET_IF_LUA,
    REPACK_LUA,
    SET_IF_LUA,
    UPDATE_META_LUA,
)
from server.store.sealing import SeedSeal
from server.table.meta import PACKED, PLAIN, compact, expand

SEED_FIELD = "server_seed"
"""The meta field that holds the table's server seed, sealed (server/store/sealing.py)."""

BOT_TABLES = "tables:bots"
"""Set of the running tables that have a bot seat: a process resumes their bots when it
starts (an index, like the lobby lists: a gone id is dropped when found)."""

CALL_TIMEOUT = 2.0
"""Default bound (seconds) on the whole of one store call: waiting for a pooled
connection, every retry and every reply (``CARDTABLE_REDIS_TIMEOUT``). A frozen or
unreachable Redis makes the call fail with ``redis.TimeoutError`` after at most this long,
instead of after the retries of several socket timeouts."""

def meta_key(table_id: str) -> str:
    """The table's metadata hash."""
    return f"t:{{{table_id}}}:meta"


def events_key(table_id: str) -> str:
    """The table's event list (index ``seq - 1``)."""
    return f"t:{{{table_id}}}:events"


def acts_key(table_id: str) -> str:
    """The table's action-id hash (idempotency)."""
    return f"t:{{{table_id}}}:acts"


def archive_key(table_id: str) -> str:
    """An ended table's archive (server/table/archive.py), which replaced its events."""
    return f"t:{{{table_id}}}:archive"


def channel(table_id: str) -> str:
    """The table's sharded pub/sub channel."""
    return f"t:{{{table_id}}}:deltas"


def bot_lease_key(table_id: str) -> str:
    """The process that drives the table's bots (``Store.lease_bots``), with a TTL."""
    return f"t:{{{table_id}}}:bots"


def chat_bucket_key(table_id: str, who: str) -> str:
    """Hash ``{tokens, at}``: the chat token bucket of ``who`` (a sender key, or ``a:`` and
    a client address) at the table, in the table's slot."""
    return f"t:{{{table_id}}}:chatrate:{who}"


def analysis_key(table_id: str) -> str:
    """An ended table's post-game analysis (JSON bytes, ``server/http/analysis.py``)."""
    return f"t:{{{table_id}}}:analysis"


def chat_key(table_id: str, chat_channel: str) -> str:
    """The table's capped chat history of one chat channel (``players``/``spectators``)."""
    return f"t:{{{table_id}}}:chat:{chat_channel}"


pack: Callable[[Any], bytes] = msgpack.Packer(use_bin_type=True, autoreset=True).pack
"""msgpack bytes of a plain value (one packer for every call; ``packb`` makes one a call)."""


def unpack(data: bytes) -> Any:
    """The value of msgpack ``data`` (strings as ``str``)."""
    return msgpack.unpackb(data, raw=False)


class NotReplicated(RedisError):
    """``WAIT`` saw fewer replicas than ``wait_replicas`` (or than the master has connected,
    if fewer) in time: the write may be on the master only, so it is not acknowledged (a
    resend of the same action id is safe)."""


@dataclass(frozen=True)
class AppendResult:
    """``status``: ``ok`` (stored; ``seq`` is the new seq), ``dup`` (the action id was
    stored before; ``seq`` is the seq after it), ``stale`` (``seq`` is the stored seq, not
    the expected one, or the lobby changed), ``missing`` (no such table)."""

    status: str
    seq: int


class Store:
    """Typed access to one Redis or a Redis Cluster (bytes responses). ``wait_replicas``
    > 0: an append returns only once that many replicas have it (``WAIT``), else raises
    ``NotReplicated``. ``lobby``: the lobby lists (server/store/lobby_index.py)."""

    def __init__(self, client: redis_client.Client, timeout: float = CALL_TIMEOUT,
                 wait_replicas: int = 0, wait_ms: int = 1000, lane: Lane | None = None,
                 seal: SeedSeal | None = None) -> None:
        if lane is not None and wait_replicas > 0:  # WAIT counts one connection's writes
            raise ValueError("a store waiting for replicas has no lane (Lane.serving)")
        self.redis = client
        self.lane = lane  # the hot commands' held connection (server/store/lane.py), if any
        self.route = Route(client, lane, timeout)  # the commands that go on it when it is
        self.seal = seal
        """Seals the server seed of every meta this store writes and opens it in every
        meta it reads, and the events and actions of every entry it appends or loads
        (server/store/sealing.py); ``None``: as they are."""
        self.timeout = timeout
        self.cluster = isinstance(client, RedisCluster)
        self.wait_replicas = wait_replicas
        self.wait_ms = wait_ms
        self.origin = secrets.token_hex(8)  # this store's name in the appends it publishes
        self.own_echo = pack({"by": self.origin})[1:]
        """The bytes after the map header of this store's published appends (not those
        that change the meta): its process's ``Subscriber`` drops them unread, since the
        appender applies its own entries (and syncs when unsure they were stored)."""
        # node name ('' on one Redis) -> (replicas connected, until when that is believed)
        self._degraded: dict[str, tuple[int, float]] = {}
        self._append = client.register_script(APPEND_LUA)
        self._update = client.register_script(UPDATE_META_LUA)
        self._chat = client.register_script(CHAT_LUA)
        self._create_new = client.register_script(CREATE_NEW_LUA)
        self._create = client.register_script(CREATE_LUA)
        self._archive = client.register_script(ARCHIVE_LUA)
        self._lset_if = client.register_script(LSET_IF_LUA)
        self._set_if = client.register_script(SET_IF_LUA)
        self._repack = client.register_script(REPACK_LUA)
        self._lease = client.register_script(BOT_LEASE_LUA)
        self._release = client.register_script(BOT_RELEASE_LUA)
        self.lobby = LobbyIndex(client)
        self.deadlines = DeadlineIndex(client, timeout, lane)

    @classmethod
    def from_url(cls, url: str, timeout: float = CALL_TIMEOUT, wait_replicas: int = 0,
                 wait_ms: int = 1000, seal: SeedSeal | None = None) -> Store:
        """A store on ``url`` (``redis://``, ``rediss://`` or ``unix://``; a cluster node
        is detected: server/store/client.py) whose calls each fail within ``timeout``
        seconds (``bounded``)."""
        client = redis_client.connect(url, timeout=timeout)
        lane = Lane.serving(url, client, wait_replicas, timeout)
        return cls(client, timeout, wait_replicas, wait_ms, lane, seal)

    async def close(self) -> None:
        """Close the connection pool (and the appends' connection)."""
        if self.lane is not None:
            await self.lane.close()
        await self.redis.aclose()

    @bounded
    async def ping(self) -> bool:
        """True when Redis answers."""
        return bool(await self.redis.ping())

    @bounded
    async def eviction_policies(self) -> set[str]:
        """The ``maxmemory-policy`` of the Redis, or of every node of a cluster."""
        info = await self.redis.info("memory")
        nodes = [info] if "maxmemory_policy" in info else list(info.values())
        return {str(node["maxmemory_policy"]) for node in nodes}

    @bounded_off_lane
    async def create(self, table_id: str, fields: dict[str, str], ttl: int) -> None:
        """Store a new table's meta expiring after ``ttl`` s (one script: a meta never
        exists without its expiry). The caller lists it (``lobby.put``)."""
        args: list[Any] = [ttl]
        for k, v in self._sealed(table_id, fields).items():
            args += [k, v]
        await self.route.script(self._create, [meta_key(table_id)], args)

    @bounded_off_lane
    async def create_new(self, table_id: str, fields: dict[str, str], ttl: int) -> bool:
        """``create``, but only if no table ``table_id`` exists (one script: of two
        concurrent calls exactly one creates it). Returns True when this call created it;
        the caller lists it (``TableLobby.index``)."""
        args: list[Any] = [ttl]
        for k, v in self._sealed(table_id, fields).items():
            args += [k, v]
        return bool(int(await self.route.script(self._create_new, [meta_key(table_id)], args)))

    @bounded
    async def append_chat(self, table_id: str, chat_channel: str, msg: dict[str, Any],
                          cap: int, ttl: int, buckets: tuple[str, ...] = (),
                          now: float = 0.0, burst: int = 1, refill: float = 1.0) -> float:
        """Spend one token of each rate bucket in ``buckets`` (names in the table's slot:
        ``chat_bucket_key``; ``burst`` tokens, one more per ``refill`` s, at ``now``
        seconds), then push the chat message onto its channel's list (trimmed to the last
        ``cap``, expiring ``ttl`` s after this message) and publish ``{"table", "chat":
        msg}`` on the table channel, all in one script (one round trip). Returns 0.0 when
        stored, the seconds to wait (> 0, nothing stored or spent) when a bucket is empty;
        raises ``LookupError`` (nothing stored) when the table is gone."""
        payload = pack({"table": table_id, "chat": msg})
        keys = [meta_key(table_id), chat_key(table_id, chat_channel), channel(table_id),
                *(chat_bucket_key(table_id, b) for b in buckets)]
        code, wait_ms = await self._chat(keys=keys, args=[pack(msg), cap, ttl, payload,
                                                          repr(now), burst, repr(refill)])
        if int(code) == 0:
            raise LookupError(table_id)
        return int(wait_ms) / 1000.0 if int(code) == 2 else 0.0

    @bounded
    async def publish_chat_removed(self, table_id: str, note: dict[str, Any]) -> None:
        """Tell every process's sockets of the table that a stored chat message was
        removed: ``{"table", "chat_removed": note}`` on the table's channel."""
        await self.redis.spublish(channel(table_id),
                                  pack({"table": table_id, "chat_removed": note}))

    @bounded
    async def publish_token_revoked(self, table_id: str, token_id: str) -> None:
        """Tell every process holding the table that the API token ``token_id`` was
        revoked (its sockets there close): ``{"table", "token_revoked": id}`` on the
        table's channel."""
        await self.redis.spublish(channel(table_id),
                                  pack({"table": table_id, "token_revoked": token_id}))

    @bounded_off_lane
    async def load_chat(self, table_id: str, chat_channels: tuple[str, ...]
                        ) -> list[list[dict[str, Any]]]:
        """The stored chat messages of each channel, oldest first, in one round trip."""
        rows = await self.route.commands(*(("LRANGE", chat_key(table_id, ch), 0, -1)
                                           for ch in chat_channels))
        return [[unpack(b) for b in row] for row in rows]

    async def rewrite_list(self, key: str, change: Callable[[int, Any], Any | None]) -> None:
        """Rewrite entries of the msgpack list ``key`` in place: ``change(index, value)``
        returns the new value or ``None`` (kept). Compare-and-set per entry in one script,
        read again while another writer moved them (bounded: 5 rounds)."""
        for _ in range(5):
            raw = await self.redis.lrange(key, 0, -1)
            args: list[Any] = []
            for i, b in enumerate(raw):
                new = change(i, unpack(b))
                if new is not None:
                    args += [i, b, pack(new)]
            if not args or int(await self._lset_if(keys=[key], args=args)) == 0:
                return
        raise RedisError(f"{key} kept changing while it was rewritten")

    async def rewrite_first_entry(self, table_id: str,
                                  change: Callable[[dict[str, Any]], dict[str, Any] | None],
                                  change_archive: Callable[[bytes], bytes]) -> None:
        """Rewrite the first stored entry of a table (``change(entry)``), or, once the
        game is archived, its archive (``change_archive(blob)``), compare-and-set."""
        def first(i: int, stored: dict[str, Any]) -> dict[str, Any] | None:
            if i != 0:
                return None
            new = change(self.opened(table_id, [stored])[0])
            if new is None or self.seal is None:
                return new
            return self.seal.seal_entry(new, table_id)

        await self.rewrite_list(events_key(table_id), first)
        for _ in range(5):
            blob = await self.redis.get(archive_key(table_id))
            if blob is None:
                return
            new = change_archive(blob)
            if new == blob or int(await self._set_if(keys=[archive_key(table_id)],
                                                     args=[blob, new])):
                return
        raise RedisError(f"the archive of {table_id} kept changing while it was rewritten")

    @bounded
    async def repack_meta(self, table_id: str) -> None:
        """Fold the fields written plainly beside a compacted meta's packed one
        (``server.table.meta.expand``: they win) into it, so the packed one no longer holds
        their old values (a deleted account's name). Nothing for a meta that is not
        compacted; compare-and-set (bounded: 5 rounds)."""
        for _ in range(5):
            raw = await self.redis.hgetall(meta_key(table_id))
            old = raw.get(PACKED.encode())
            if old is None:
                return
            fields = expand(raw)
            plain = [x for k, v in raw.items() if k.decode() not in PLAIN
                     and k != PACKED.encode() for x in (k, v)]
            if not plain:
                return
            if int(await self._repack(keys=[meta_key(table_id)],
                                      args=[old, compact(fields), *plain])):
                return
        raise RedisError(f"the meta of {table_id} kept changing while it was repacked")

    def chat_keys(self, table_id: str, chat_channels: tuple[str, ...]) -> list[str]:
        """The chat list keys of a table's channels."""
        return [chat_key(table_id, ch) for ch in chat_channels]

    async def table_ids(self) -> list[str]:
        """The ids of every table Redis holds a meta of, sorted: a ``SCAN`` of the metas,
        the truth rather than the lobby's read model, for the operator's commands (never
        on a request's path)."""
        prefix, suffix = meta_key("")[:-len("}:meta")], "}:meta"
        ids = set()
        async for key in self.redis.scan_iter(match=meta_key("*"), count=1000):
            name = key.decode() if isinstance(key, bytes) else key
            ids.add(name[len(prefix):-len(suffix)])
        return sorted(ids)

    @bounded_off_lane
    async def load_meta(self, table_id: str) -> dict[str, str]:
        """The meta hash as ``str → str`` (empty when the table does not exist; an
        archived game's expanded: ``server.table.meta.expand``)."""
        raw = await self.route.command("HGETALL", meta_key(table_id))
        return self._opened(table_id, expand(hash_reply(raw)))

    @bounded_off_lane
    async def load_entries(self, table_id: str, after: int = 0) -> list[dict[str, Any]]:
        """Stored entries ``{"e", "h", "a"?}`` for seqs ``after+1 …`` in order (none once
        the game is archived: ``Tables.entries`` rebuilds them), opened (``opened``)."""
        return self.opened(table_id, [unpack(b) for b in await self.load_raw(table_id, after)])

    @bounded_off_lane
    async def load_raw(self, table_id: str, after: int = 0) -> list[bytes]:
        """The stored entries after ``after`` as stored (msgpack bytes, sealed)."""
        return list(await self.route.command("LRANGE", events_key(table_id), after, -1))

    @bounded_off_lane
    async def load_archive(self, table_id: str) -> bytes | None:
        """The archive of an archived game (``None``: not archived)."""
        return await self.route.command("GET", archive_key(table_id))

    @bounded
    async def archive(self, table_id: str, seq: int, blob: bytes,
                      meta_fields: Mapping[str, str]) -> bool:
        """Replace an ended game's events (exactly ``seq`` of them) and action ids with
        ``blob``, and compact its meta hash (``meta_fields``: as loaded, the seed as
        stored, sealed; every field but ``server.table.meta.PLAIN`` goes into one
        compressed field, unless it changed since it was loaded), in one script; False
        (nothing changed) when the table is not ended, has another seq, or is archived
        already."""
        keys = [meta_key(table_id), events_key(table_id), acts_key(table_id),
                archive_key(table_id)]
        if self.seal is not None and meta_fields.get(SEED_FIELD):
            # The seed as stored (sealed), as ``load_meta`` opened it.
            stored = await self.redis.hget(meta_key(table_id), SEED_FIELD)
            if stored is not None:
                meta_fields = {**meta_fields, SEED_FIELD: stored.decode()}
        moved = [x for k, v in meta_fields.items() if k not in PLAIN for x in (k, v)]
        return bool(await self._archive(keys=keys,
                                        args=[seq, blob, compact(meta_fields), *moved]))

    async def append(self, table_id: str, expected_seq: int, entries: list[dict[str, Any]],
                     head: str, act_key: str = "", expected_version: str = "",
                     meta_fields: dict[str, str] | None = None,
                     meta_changed: bool = False, prev: str = "") -> AppendResult:
        """Append ``entries`` after ``expected_seq`` in one round trip (the APPEND script).

        ``prev`` (hex): the chain head the entries were built on; the append is ``stale``
        unless the stored head is still that one too (so a process whose cache holds
        another stream with the same seq, after Redis lost writes, never appends to it).
        Publishes ``{"by"?, "table", "from", "prev", "entries", "meta"}`` on the table
        channel when stored (``by``: ``origin``, when the meta is not changed). With
        ``wait_replicas``, the script and a ``WAIT`` go in one pipeline on one connection,
        and the entries are published only once replicated (a second round trip), so no
        process shows an event a failover could still lose. Raises
        ``redis.RedisError`` when Redis fails and ``NotReplicated`` when too few replicas
        confirmed (either way nothing is acknowledged; a retry with the same ``act_key``
        is safe). Bounded by ``self.timeout`` (``redis.TimeoutError``); on the lane by its
        timer."""
        if self.seal is not None:
            entries = self.seal.seal_entries(entries, table_id)
        body = {"table": table_id, "from": expected_seq + 1, "prev": prev, "entries": entries,
                "meta": meta_changed}
        payload = pack(body if meta_changed else {"by": self.origin, **body})
        waiting = self.wait_replicas > 0
        args: list[Any] = [expected_seq, expected_version, act_key, head,
                           b"" if waiting else payload, len(entries), prev, *map(pack, entries)]
        for k, v in (meta_fields or {}).items():
            args += [k, v]
        keys = [meta_key(table_id), events_key(table_id), acts_key(table_id), channel(table_id)]
        if self.lane is not None and not waiting:  # one round trip, bounded by the lane
            status, seq = await self.lane.script(self._append.sha, APPEND_LUA, keys, args,
                                                 within=self.timeout)
            return AppendResult(status.decode() if isinstance(status, bytes) else status, int(seq))
        return await self._append_pooled(table_id, keys, args, payload, waiting)

    @bounded
    async def _append_pooled(self, table_id: str, keys: list[str], args: list[Any],
                             payload: bytes, waiting: bool) -> AppendResult:
        """``append``'s round trips on the pooled client (a cluster, TLS, replica waits)."""
        status, seq = await (self._waited(self._append, keys, args) if waiting
                             else self._append(keys=keys, args=args))
        result = AppendResult(status.decode() if isinstance(status, bytes) else status, int(seq))
        if waiting and result.status == "ok":
            await self.redis.spublish(channel(table_id), payload)
        return result

    async def _waited(self, script: Any, keys: list[str], args: list[Any]) -> Any:
        """``script(keys, args)`` followed by ``WAIT`` on the same connection (WAIT counts
        the replicas that have this connection's last write). It waits for
        ``wait_replicas``, or for as many as the key's master has connected when that is
        fewer (after a failover the promoted replica has none until one joins it: then
        the master alone holds the write, counted in ``cardtable_redis_unreplicated_total``;
        the count is looked up at most once a second while it lasts). Raises
        ``NotReplicated`` when fewer confirmed within ``wait_ms``."""
        node = self.redis.get_node_from_key(keys[0]) if self.cluster else None
        name = node.name if node is not None else ""
        want = await self._replicas_to_wait_for(name, keys[0])
        for attempt in range(2):
            pipe = self.redis.pipeline(transaction=False)
            pipe.execute_command("EVALSHA", script.sha, len(keys), *keys, *args)
            if node is not None:
                pipe.execute_command("WAIT", want, self.wait_ms, target_nodes=node)
            else:
                pipe.wait(want, self.wait_ms)
            result, replicas = await pipe.execute(raise_on_error=False)
            if isinstance(result, NoScriptError) and attempt == 0:
                # A promoted replica (or a restarted Redis) has no script cache.
                await self.redis.script_load(script.script)
                continue
            for value in (result, replicas):
                if isinstance(value, Exception):
                    raise value
            if int(replicas) < want:
                connected = await self._connected_replicas(keys[0])
                self._degraded[name] = (connected, time.monotonic() + 1.0)
                if int(replicas) < min(want, connected):
                    raise NotReplicated(f"{replicas} of {want} replicas confirmed "
                                        f"within {self.wait_ms} ms")
            if int(replicas) < self.wait_replicas:
                metrics.UNREPLICATED.inc()
            return result
        raise NotReplicated("the script was not loaded")  # pragma: no cover

    async def _replicas_to_wait_for(self, name: str, key: str) -> int:
        known = self._degraded.get(name)
        if known is None:
            return self.wait_replicas
        connected, until = known
        if time.monotonic() >= until:
            connected = await self._connected_replicas(key)
            if connected >= self.wait_replicas:
                del self._degraded[name]
                return self.wait_replicas
            self._degraded[name] = (connected, time.monotonic() + 1.0)
        return min(self.wait_replicas, connected)

    async def _connected_replicas(self, key: str) -> int:
        """The replicas connected to the master of ``key`` now (``INFO replication``)."""
        if self.cluster:
            info = await self.redis.info("replication",
                                         target_nodes=self.redis.get_node_from_key(key))
        else:
            info = await self.redis.info("replication")
        if "connected_slaves" not in info and len(info) == 1:  # keyed by node name
            info = next(iter(info.values()))
        return int(info.get("connected_slaves", 0))

    @bounded_off_lane
    async def update_meta(self, table_id: str, fields: dict[str, str],
                          expected_version: str = "", ttl: int = 0) -> int | None:
        """Set meta ``fields`` if the version is still ``expected_version`` ('' = any),
        bump the version, set the expiry (``ttl`` > 0; < 0 removes it), and publish a
        meta notice. Returns the new version, or ``None`` when the table is gone or changed.
        With ``wait_replicas`` it returns once replicated (else ``NotReplicated``).
        """
        args: list[Any] = [expected_version, ttl,
                           pack({"table": table_id, "from": 0, "entries": [], "meta": True})]
        for k, v in fields.items():
            args += [k, v]
        keys = [meta_key(table_id), channel(table_id)]
        if self.wait_replicas > 0:  # never on a lane (``__init__``)
            result = await self._waited(self._update, keys, args)
        else:
            result = await self.route.script(self._update, keys, args)
        return None if int(result) < 0 else int(result)

    @bounded_off_lane
    async def act_seq(self, table_id: str, act_key: str) -> int | None:
        """The seq stored for an action id, if that action was applied."""
        raw = await self.route.command("HGET", acts_key(table_id), act_key)
        return None if raw is None else int(raw)

    @bounded
    async def metas(self, table_ids: list[str]) -> list[dict[str, str]]:
        """The meta hashes of several tables (empty for gone ones): one pipeline, which a
        cluster client splits by node (not atomic; for repairs, not for requests)."""
        pipe = self.redis.pipeline(transaction=False)
        for t in table_ids:
            pipe.hgetall(meta_key(t))
        rows = await pipe.execute()
        return [self._opened(t, expand(r)) for t, r in zip(table_ids, rows, strict=True)]

    def _sealed(self, table_id: str, fields: dict[str, str]) -> dict[str, str]:
        if self.seal is None or not fields.get(SEED_FIELD):
            return fields
        return {**fields, SEED_FIELD: self.seal.seal(fields[SEED_FIELD], table_id)}

    def _opened(self, table_id: str, fields: dict[str, str]) -> dict[str, str]:
        if self.seal is None or not fields.get(SEED_FIELD):
            return fields
        return {**fields, SEED_FIELD: self.seal.open(fields[SEED_FIELD], table_id)}

    def opened(self, table_id: str, entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Stored (or published) entries of ``table_id`` with their events and actions
        opened (server/store/sealing.py). Raises ``SealError``."""
        if self.seal is None:
            return entries
        seal = self.seal
        return [seal.open_entry(e, table_id) for e in entries]

    @bounded
    async def load_analysis(self, table_id: str) -> bytes | None:
        """The kept analysis of an ended table (JSON bytes), or ``None``."""
        found = await self.redis.get(analysis_key(table_id))
        return None if found is None else bytes(found)

    @bounded
    async def save_analysis(self, table_id: str, data: bytes, ttl: int) -> None:
        """Keep the analysis of an ended table for ``ttl`` seconds."""
        await self.redis.set(analysis_key(table_id), data, ex=ttl)

    @bounded_off_lane
    async def hit(self, key: str, window: int, now: float | None = None) -> int:
        """Count one event in the fixed window of ``window`` seconds that holds ``now`` (s
        since the epoch: the service's clock; the system clock when None); returns the count."""
        bucket = f"rl:{key}:{int(time.time() if now is None else now) // window}"
        count, _ = await self.route.commands(("INCRBY", bucket, 1), ("EXPIRE", bucket, window))
        return int(count)

    @bounded
    async def mark_bot_table(self, table_id: str, running: bool) -> None:
        """Add the table to (``running``) or remove it from the set of bot tables."""
        if running:
            await self.redis.sadd(BOT_TABLES, table_id)
        else:
            await self.redis.srem(BOT_TABLES, table_id)

    @bounded
    async def lease_bots(self, table_id: str, owner: str, ms: int) -> bool:
        """Take or renew the lease on driving the table's bots for ``ms`` milliseconds:
        True when ``owner`` (a process) holds it now (it was free, expired or already
        its own: ``SET NX PX``, or ``PEXPIRE`` of its own), False while another holds it."""
        return bool(int(await self._lease(keys=[bot_lease_key(table_id)], args=[owner, ms])))

    @bounded
    async def release_bots(self, table_id: str, owner: str) -> None:
        """Give the lease up, if ``owner`` still holds it (compare and delete)."""
        await self._release(keys=[bot_lease_key(table_id)], args=[owner])

    @bounded
    async def bot_tables(self, limit: int) -> list[str]:
        """Up to ``limit`` ids of running tables with bot seats (any order)."""
        raw = await self.redis.srandmember(BOT_TABLES, limit)
        return [r.decode() for r in raw or ()]

    @bounded_off_lane
    async def settle_deadline(self, table_id: str, at_ms: int | None) -> int | None:
        """``deadlines.set``, then ``stored_seq``: one round trip on the lane, two without."""
        if self.lane is None:
            await self.deadlines.set(table_id, at_ms)
            return await self.stored_seq(table_id)
        change = (("ZREM", DEADLINES, table_id) if at_ms is None
                  else ("ZADD", DEADLINES, at_ms, table_id))
        _, raw = await self.lane.pipeline(change, ("HGET", meta_key(table_id), "seq"),
                                          within=self.timeout)
        return None if raw is None else int(raw)

    @bounded_off_lane
    async def stored_seq(self, table_id: str) -> int | None:
        """The table's stored seq (``None``: no table)."""
        raw = await self.route.command("HGET", meta_key(table_id), "seq")
        return None if raw is None else int(raw)
