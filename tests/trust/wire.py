"""Wire-level helpers of the trust tests: a server process whose log is kept, starting a
table on a chosen deck, and the copying of a table to a second Redis for byte comparisons.
The clients are the wire's (``protocol/``), re-exported under their old names: ``Client``
(a ``Connection``), ``Lobby``, ``pack``, ``unpack``."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from engine import get_game
from engine.shuffle import combine_seed
from protocol.connection import Connection
from protocol.frames import pack as pack
from protocol.frames import unpack as unpack
from protocol.lobby import Lobby as Lobby
from server.config import Settings
from server.store.sealing import SeedSeal
from server.store.streams import Store
from server.table.meta import TableMeta
from server.table.tables import Tables
from tests.conftest import SEED_KEYS, ServerProcess

Client = Connection  # the trust tests' old name of the recording websocket client


class LoggedServer(ServerProcess):
    """``cardtable serve`` with its stderr written to ``log_path`` (read it any time)."""

    def __init__(self, redis_url: str, log_path: Path, env: dict[str, str] | None = None,
                 port: int | None = None) -> None:
        super().__init__(redis_url, {"CARDTABLE_LOG_LEVEL": "info", **(env or {})}, port)
        self.log_path = log_path

    def open_log(self) -> Any:
        """Append to ``log_path``, which outlives restarts of the process."""
        return open(self.log_path, "ab")

    def read_log(self) -> str:
        """Everything the process (and its predecessors on this path) wrote."""
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    log_text = read_log


CRASH_MARKERS = ("Traceback", "Exception in ASGI", "Unhandled", "exception=", " 500 ")


def crashes(log: str) -> list[str]:
    """Log lines that show an unhandled exception or a 500."""
    return [line for line in log.splitlines() if any(m in line for m in CRASH_MARKERS)]


def body_value(body: bytes) -> Any:
    """A response body as JSON, or its text when it is not JSON (a plain 404 page)."""
    try:
        return json.loads(body)
    except ValueError:
        return body.decode(errors="replace")


def frame_seq(frame: dict[str, Any]) -> int | None:
    """The seq a frame speaks for (``None`` for frames that carry no game state)."""
    return frame.get("seq") if frame.get("t") in ("welcome", "deltas", "prompt", "ack") else None


async def start_with_deck(server: ServerProcess, table_id: str, deck: Any,
                          token: str) -> list[Any]:
    """Start an open, fully seated table of ``server`` on ``deck`` (the game's
    ``deck_field`` shape) instead of its seed's shuffle, through the service's own start
    (``TableLobby.start_game`` with ``token``, the host's, on the server's Redis and
    clock file): name commitments, clock and deadline, bot-table note and lobby entry are
    what any start stores. Returns the engine events; raises ``LobbyError`` as the start
    does."""
    store = Store.from_url(server.redis_url, seal=SeedSeal.at(SEED_KEYS))
    tables = Tables(Settings(redis_url=server.redis_url,
                             clock_file=server.env.get("CARDTABLE_CLOCK_FILE", "")), store)
    try:
        meta = await tables.lobby.start_game(table_id, token, deck=deck)
        seed = combine_seed(meta.server_seed, meta.contributions)
        return get_game(meta.game).start(meta.players(), meta.options, seed, deck)
    finally:
        await store.close()


async def seen_started(clients: Any) -> None:
    """Every client has the start's ``table`` frame (status ``running``). The server sends
    it once it has reloaded the meta after the start's notice, a Redis round trip after
    the start's deltas, and it carries the seq the table had then: a pair of tables that
    moved on before it came would send it with different seqs, a matter of timing."""
    for c in clients:
        await c.wait(lambda f: f["t"] == "table" and f["table"]["status"] == "running",
                     timeout=30)


async def secrets_of(redis_url: str, table_id: str) -> dict[str, str]:
    """The table's ``server_seed`` and game ``seed`` straight from Redis (test only),
    opened with the test servers' seed keys (``SEED_KEYS``)."""
    store = Store.from_url(redis_url, seal=SeedSeal.at(SEED_KEYS))
    try:
        meta = TableMeta.from_fields(table_id, await store.load_meta(table_id))
    finally:
        await store.close()
    return {"server_seed": meta.server_seed,
            "seed": ":".join([meta.server_seed, *meta.contributions])}


async def twin_table(from_url: str, to_url: str, table_id: str) -> None:
    """Copy an open table's meta (id, commitment, server seed, seats, seat token hashes,
    version, timestamps: every field) from one Redis to another, listed as open there.

    The twin tables of the wire leak test live on two Redis servers, one server process
    each, so that they can share the table id and the commitment: then nothing at all
    may differ between their frames, chain heads included, until a differing reveal."""
    source, target = Store.from_url(from_url), Store.from_url(to_url)
    try:
        fields = await source.load_meta(table_id)
        assert fields.get("status") == "open", fields
        await target.create(table_id, fields, 3600)
        meta = TableMeta.from_fields(table_id, fields)
        await target.lobby.put(meta.summary(), int(meta.version), time.time() + 3600)
    finally:
        await source.close()
        await target.close()
