"""Wire-level helpers of the trust tests: a server process whose log is kept, websocket
clients that keep every frame, a lobby client, starting a table on a chosen deck, and the
copying of a table to a second Redis for byte comparisons."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from pathlib import Path
from typing import Any

import httpx
import msgpack
import websockets
from websockets.exceptions import ConnectionClosed

from engine import get_game
from engine.shuffle import combine_seed
from server.config import Settings
from server.store.sealing import SeedSeal
from server.store.streams import Store
from server.table.meta import TableMeta
from server.table.tables import Tables
from tests.conftest import SEED_KEYS, ServerProcess


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


def pack(msg: Any) -> bytes:
    return msgpack.packb(msg, use_bin_type=True)


def unpack(data: bytes | str) -> Any:
    return msgpack.unpackb(data, raw=False) if isinstance(data, bytes) else json.loads(data)


def body_value(body: bytes) -> Any:
    """A response body as JSON, or its text when it is not JSON (a plain 404 page)."""
    try:
        return json.loads(body)
    except ValueError:
        return body.decode(errors="replace")


def frame_seq(frame: dict[str, Any]) -> int | None:
    """The seq a frame speaks for (``None`` for frames that carry no game state)."""
    return frame.get("seq") if frame.get("t") in ("welcome", "deltas", "prompt", "ack") else None


class Client:
    """One websocket client of one table; keeps every frame (raw and decoded)."""

    def __init__(self, ws_base: str, table_id: str, binary: bool = True) -> None:
        self.url = f"{ws_base}/ws/tables/{table_id}"
        self.binary = binary
        self.ws: Any = None
        self.raw: list[bytes | str] = []
        self.frames: list[dict[str, Any]] = []
        self.close_code: int | None = None
        self.closed = asyncio.Event()
        self.new = asyncio.Event()
        self._reader: asyncio.Task[None] | None = None

    async def connect(self, token: str | None = None, last_seq: int | None = None
                      ) -> Client:
        """Open the socket, say hello, and return once the socket is live: its welcome
        came, or the server closed it (a refusal: the test reads ``close_code``)."""
        mark = len(self.frames)  # a reconnect: the welcome of an earlier socket is no sign
        self.ws = await websockets.connect(self.url, max_size=2**22, compression=None,
                                           open_timeout=5)
        self.closed.clear()
        self.close_code = None
        self._reader = asyncio.create_task(self._read())
        with contextlib.suppress(ConnectionClosed):  # refused at once: the test reads the code
            await self.send({"t": "hello", "token": token, "last_seq": last_seq})
        # Live from its welcome on (the server puts it in the table's room as it sends the
        # welcome): an action of another socket before that is in the welcome's view, never
        # a live frame, so a test that went on at once could wait for a frame that never
        # comes (as tests/server/client.py's ``Socket.connect``).
        with contextlib.suppress(ConnectionError):
            await self.wait(lambda f: f["t"] == "welcome", start=mark)
        return self

    async def send(self, msg: Any) -> None:
        await self.ws.send(pack(msg) if self.binary else json.dumps(msg))

    async def send_raw(self, data: bytes | str) -> None:
        await self.ws.send(data)

    async def _read(self) -> None:
        ws = self.ws
        try:
            async for data in ws:
                self.raw.append(data)
                self.frames.append(unpack(data))
                self.new.set()
        except ConnectionClosed:
            pass
        finally:
            rcvd = ws.protocol.close_rcvd
            self.close_code = rcvd.code if rcvd is not None else 1006
            self.closed.set()
            self.new.set()

    async def wait(self, pred: Any, start: int = 0, timeout: float = 20.0) -> dict[str, Any]:
        """The first frame from index ``start`` on for which ``pred`` holds."""

        async def scan() -> dict[str, Any]:
            i = start
            while True:
                while i < len(self.frames):
                    if pred(self.frames[i]):
                        return self.frames[i]
                    i += 1
                if self.closed.is_set():
                    raise ConnectionError(f"closed with {self.close_code}")
                self.new.clear()
                await self.new.wait()

        return await asyncio.wait_for(scan(), timeout)

    def last_seq(self) -> int | None:
        """The seq of the last delta or full welcome seen."""
        seq = None
        for f in self.frames:
            if f.get("t") == "deltas" or (f.get("t") == "welcome" and f.get("view") is not None):
                seq = f["seq"]
        return seq

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self._reader is not None:
            await self._reader


class Lobby:
    """The HTTP API of one server process."""

    def __init__(self, base: str) -> None:
        # Generous: a whole Loot Island game's /deltas or /record took over 10 s on a
        # loaded 2-core machine (the answers are compared, not timed; speed is bench/'s).
        self.http = httpx.AsyncClient(base_url=base, timeout=60)
        self.owners: dict[str, str] = {}  # table id -> owner_token (the host's)

    async def close(self) -> None:
        await self.http.aclose()

    async def create(self, seats: int, game: str | None = None, **options: Any
                     ) -> dict[str, Any]:
        body: dict[str, Any] = {"seats": seats, "options": options}
        if game is not None:
            body["game"] = game
        r = await self.http.post("/api/tables", json=body)
        assert r.status_code == 201, r.text
        self.owners[r.json()["id"]] = r.json()["owner_token"]
        return r.json()

    async def join(self, table_id: str, name: str) -> dict[str, Any]:
        r = await self.http.post(f"/api/tables/{table_id}/join", json={"name": name})
        assert r.status_code == 200, r.text
        return r.json()

    async def bot(self, table_id: str, seat: int) -> None:
        r = await self.http.post(f"/api/tables/{table_id}/seats/{seat}/bot",
                                 json={"kind": "random"},
                                 headers={"Authorization": f"Bearer {self.owners[table_id]}"})
        assert r.status_code == 200, r.text

    async def start(self, table_id: str, token: str | None = None) -> dict[str, Any]:
        token = token or self.owners[table_id]
        r = await self.http.post(f"/api/tables/{table_id}/start",
                                 headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200, r.text
        return r.json()


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
