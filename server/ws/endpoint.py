"""The websocket endpoint ``/ws/tables/{id}`` (docs/protocol.md §2).

Order of a connection: Origin check (1008), per-address limit (4029), accept, ``hello``
within ``hello_timeout`` (1008), a private table's secret or token on its meta alone,
before the table is loaded (4004, as for an unknown table), token → seat (1008 for a token
that is no seat's; a personal API token, ``ctk_…``, stands for the seat its account holds:
refused with an ``error`` frame and 1008, docs/bot-api.md),
``welcome`` (full view, or the missed deltas after ``last_seq``), then frames both ways.
Every inbound frame is decoded (1003 if it cannot be), validated (error ``bad_message``),
rate limited (error ``rate_limited``; a flood closes with 1008) and then handled.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import time
from typing import TYPE_CHECKING, Any

import msgpack
from redis.exceptions import RedisError
from starlette.applications import Starlette
from starlette.websockets import WebSocket, WebSocketDisconnect

from engine.game import IllegalAction
from server import metrics
from server.accounts import bot_accounts, sessions, tokens
from server.admin.moderation import SUSPENDED_CLOSE
from server.errors import LobbyError, Unavailable
from server.fanout.delta import Delta
from server.fanout.frames import SCOPE_KEY, DirectSocket, keep_send
from server.fanout.room import Connection
from server.http import replays
from server.logging import get_logger
from server.play import chat, roles
from server.table.live import LiveTable
from server.table.meta import TableMeta, token_hash
from server.ws import protocol
from server.ws.admission import admitted

if TYPE_CHECKING:  # the service type only: server.app imports this module
    from server.app import Service

log = get_logger("ws")
CLOSE_TIMEOUT = 15.0  # seconds a closing socket gets to take its close frame


async def endpoint(ws: WebSocket) -> None:
    """Serve one client socket of one table (admitted first: server/ws/admission.py)."""
    svc = ws.app.state.svc
    async with admitted(ws, svc) as addr:
        if addr is None:
            return
        try:
            await ws.accept()
            # Found once per socket (its seams checked: about 4 us), used by what follows.
            direct = DirectSocket.of(ws.scope.get(SCOPE_KEY))
            if direct is not None:
                direct.release_handshake()
            await _serve(ws, svc, addr, direct)
        except WebSocketDisconnect:
            pass


async def _receive(ws: WebSocket) -> bytes | str | None:
    msg = await ws.receive()
    if msg["type"] == "websocket.disconnect":
        return None
    data = msg.get("bytes")
    return data if data is not None else msg.get("text", "")


async def _serve(ws: WebSocket, svc: Service, addr: str, direct: DirectSocket | None) -> None:
    settings = svc.settings
    table_id = ws.path_params["id"]
    try:
        first = await asyncio.wait_for(_receive(ws), settings.hello_timeout)
    except TimeoutError:
        await ws.close(1008, "no hello in time")
        return
    if first is None:
        return
    if direct is not None:
        # A client that wrote part of its hello before the 101 answer had half a frame in
        # the parser at the accept, where the parser is not swapped (``fresh_parser``):
        # it is now, between frames, or the opening request stays for the socket's life.
        direct.release_handshake()
    binary = isinstance(first, bytes)
    try:
        hello = protocol.parse_message(protocol.decode_frame(first, settings.max_frame))
    except protocol.Undecodable:
        await ws.close(1003, "undecodable frame")
        return
    except protocol.BadMessage as e:
        await ws.send(_frame({"t": "error", "id": None, "code": "bad_message",
                              "message": str(e)}, binary))
        await ws.close(1008, "the first frame must be a valid hello")
        return
    if not isinstance(hello, protocol.Hello):
        await ws.close(1008, "the first frame must be hello")
        return
    seat_hash: str | None = None
    api_token = ""
    if tokens.looks_like(hello.token):
        # A program's API token in place of a seat token: the seat its account holds.
        try:
            found = await _api_seat(svc, table_id, hello.token or "")
        except Unavailable:
            await ws.close(1013, "store unavailable, try again")
            return
        if isinstance(found, LobbyError):
            metrics.REJECTED_SOCKETS.labels("token").inc()
            if found.status == 404:
                await ws.close(4004, "no such table")
                return
            await ws.send(_frame({"t": "error", "id": None, "code": found.code,
                                  "message": found.message}, binary))
            await ws.close(1008, found.message[:120])
            return
        (seat_hash, api_token), hello = found, hello.model_copy(update={"token": None})
    try:
        seen = None if seat_hash is not None else await _may_see(svc, table_id, hello)
        if seat_hash is None and seen is None:
            await ws.close(4004, "no such table")
            return
        # The meta just read starts the table's load, if it is not cached (its follow
        # reads it again after subscribing); not kept for the socket's life.
        table, seen = await svc.tables.get(table_id, watch=True, seen=seen), None
    except Unavailable:
        await ws.close(1013, "store unavailable, try again")
        return
    if table is None:
        await ws.close(4004, "no such table")
        return
    try:
        await _attend(ws, svc, addr, table, hello, binary, direct, seat_hash, api_token)
    finally:
        # Whatever happened (a refused token too), the table must not stay cached and
        # subscribed for a socket that is gone.
        svc.tables.spawn(svc.tables.unwatch(table))


async def _api_seat(svc: Service, table_id: str, text: str
                    ) -> tuple[str, str] | LobbyError:
    """The stored token hash of the seat that API token ``text``'s account holds at the
    table and the token's id, or why not (docs/bot-api.md): ``bad_token`` (unknown,
    revoked, its account gone), ``banned``, ``read_only`` (a ``read`` token),
    ``not_your_seat`` (the account holds no seat at a public table),
    ``bot_account_needed`` (a rated table and a person's account), 404 ``no_table`` (no
    such table, or a private one where the account holds no seat: the same answer, so a
    token learns nothing of a private table it has no seat at). Raises ``Unavailable``.
    A socket admitted is noted among the token's places (its revocation closes it)."""
    try:
        token = await svc.api_tokens.resolve(text)
        account = await svc.accounts.get(token.uid) if token is not None else None
        meta = await svc.tables.peek(table_id, fresh=True)
        if token is not None and account is not None:
            await svc.api_tokens.used(token, time.time())
    except RedisError as e:
        raise Unavailable(str(e)) from None
    if token is None or account is None:
        return LobbyError(401, "bad_token", "unknown or revoked API token")
    if account.banned:
        return LobbyError(403, "banned", "this account is banned")
    if not token.plays:
        return LobbyError(403, "read_only", "this token may only read (scope \"read\")")
    if meta is None:
        return LobbyError(404, "no_table", "no such table")
    seat = meta.account_seat(account.uid)
    if seat is None and meta.private:
        return LobbyError(404, "no_table", "no such table")
    if seat is None:
        return LobbyError(403, "not_your_seat",
                          "this token's account holds no seat at this table: join first")
    try:
        bot_accounts.require_bot(account, meta.rated, by_token=True)
    except LobbyError as e:
        return e
    try:
        await svc.api_tokens.placed(token, table_id, [])
    except RedisError as e:
        raise Unavailable(str(e)) from None
    return meta.tokens[seat], token.id


def _hash_seat(meta: TableMeta, hashed: str) -> int | None:
    """The seat whose stored token hash is ``hashed``."""
    for i, stored in enumerate(meta.tokens):
        if stored and hmac.compare_digest(stored, hashed):
            return i
    return None


async def _may_see(svc: Service, table_id: str, hello: protocol.Hello) -> TableMeta | None:
    """The private table's secret on its fresh meta (one HGETALL) before any replay: a
    refusal takes as long as an unknown id's. Returns the meta it was seen on (shared
    with other peeks: read it only), ``None`` when refused."""
    meta = await svc.tables.peek(table_id, fresh=True)
    if meta is not None and roles.may_see(meta, hello.token, hello.key):
        return meta  # ``_attend`` checks the token again on the table's own meta
    # The read may have been one in flight before a token was issued: refuse only on
    # a read of our own.
    meta = await svc.tables.peek(table_id, fresh=True)
    return meta if meta is not None and roles.may_see(meta, hello.token, hello.key) else None


async def _attend(ws: WebSocket, svc: Service, addr: str, table: LiveTable, hello: protocol.Hello,
                  binary: bool, direct: DirectSocket | None, seat_hash: str | None = None,
                  api_token: str = "") -> None:
    """The seat check, the welcome, then the socket's frames until it closes. ``direct``:
    the socket's direct writer (``DirectSocket.of``), if it has one.
    ``seat_hash``: the seat's stored token hash when an API token (of id ``api_token``)
    stands for the seat (``_api_seat``; ``hello.token`` is then ``None``)."""
    settings = svc.settings
    asked = hello.token is not None or seat_hash is not None

    def find() -> int | None:
        return (table.meta.seat_of(hello.token) if seat_hash is None
                else _hash_seat(table.meta, seat_hash))

    def visible() -> bool:
        return seat_hash is not None or roles.may_see(table.meta, hello.token, hello.key)

    seat = find()
    if (asked and seat is None) or not visible():
        # The seat may have been taken a moment ago (the meta notice is still on its way).
        with contextlib.suppress(Exception):
            await svc.tables.streams.sync(table)
        seat = find()
    if not visible():
        # A private table without its secret: the same answer as an unknown id.
        await ws.close(4004, "no such table")
        return
    if asked and seat is None:
        metrics.REJECTED_SOCKETS.labels("token").inc()
        await ws.close(1008, "this token holds no seat at this table")
        return
    if seat is not None and (refused := await _suspended(svc, table, seat)) is not None:
        # A suspended account's seat: refused until the suspension ends (the table's
        # absence rules handle the seat meanwhile).
        await ws.send(_frame({"t": "error", "id": None, "code": "suspended",
                              "message": refused}, binary))
        await ws.close(SUSPENDED_CLOSE, "account suspended")
        return

    async def send(frame: protocol.Frame) -> None:
        await ws.send(_raw(frame))

    async def close(code: int, reason: str) -> None:
        await ws.close(code, reason)

    conn = Connection(send, close, addr, binary, settings.rate_burst, settings.outbox_limit,
                      direct, svc.cork)
    conn.seat = seat
    conn.token_hash = seat_hash or (token_hash(hello.token) if hello.token else "")
    conn.api_token = api_token
    try:
        conn.account, conn.hidden = await _viewer(svc, ws, table, seat)
    except RedisError:
        # Without the viewer's blocks its chat filter is unknown: nothing is sent.
        metrics.REDIS_ERRORS.inc()
        await ws.close(1013, "store unavailable, try again")
        return
    sender = chat.sender_of(seat, hello.viewer, hello.name)
    svc.connections.add(conn)
    try:
        await welcome(svc, table, conn, hello.last_seq)
        svc.attendance.changed(table, conn)
        await svc.chat.send_history(table.id, conn, sender, table.game_over())
        await _loop(ws, svc, table, conn, sender)
    finally:
        svc.connections.discard(conn)
        table.room.remove(conn)
        svc.attendance.changed(table)
        if conn.closing is not None:
            await _finish_close(ws, conn)
        conn.closed = True


async def _suspended(svc: Service, table: LiveTable, seat: int) -> str | None:
    """Why the account sitting at ``seat`` may not use it now (server/admin/moderation.py),
    or ``None``; a guest's seat is never refused. Without Redis: not refused (the seat's
    actions need Redis anyway)."""
    uid = table.meta.seats[seat].account if seat < len(table.meta.seats) else None
    try:
        return await svc.moderation.play_refusal(uid)
    except Unavailable:
        return None
async def _viewer(svc: Service, ws: WebSocket, table: LiveTable,
                  seat: int | None) -> tuple[str | None, frozenset[str]]:
    """The socket's account (its seat's; a spectator's: its session cookie's) and the
    accounts it blocked, whose chat it does not get. Raises ``RedisError``."""
    account = table.meta.seats[seat].account if seat is not None else None
    if seat is None:
        sid, _ = sessions.cookie_sid(ws)
        session = await sessions.load(svc.accounts, sid) if sid else None
        account = session.account.uid if session is not None else None
    if not account:
        return None, frozenset()
    return account, frozenset(await svc.social.blocks(account))


async def _finish_close(ws: WebSocket, conn: Connection) -> None:
    """Wait for our close to complete while discarding what the client still sends: the
    websockets library finishes the closing handshake only once its incoming queue (full,
    after a flood) has room again. A client that does not read for ``CLOSE_TIMEOUT`` s
    never gets the close frame: its connection is aborted."""

    async def discard() -> None:
        with contextlib.suppress(Exception):
            while True:
                msg = await ws._receive()  # raw ASGI receive: Starlette's refuses after close
                if msg["type"] == "websocket.disconnect":
                    return

    drain = asyncio.get_running_loop().create_task(discard())
    try:
        await asyncio.wait_for(asyncio.shield(conn.closing), CLOSE_TIMEOUT)
    except TimeoutError:
        if conn.direct is not None:
            conn.direct.abort()
    except Exception:  # the socket went away meanwhile: nothing left to close
        pass
    drain.cancel()


class TableSockets(Starlette):
    """The service's Starlette application, except that a websocket of
    ``/ws/tables/{id}`` goes straight to ``endpoint`` (its server's ``send`` kept as
    ``RawSend`` keeps it), past the middleware stack, the router and the exception layers:
    their coroutine frames would be kept by each idle socket for its whole life (about 5
    KB, docs/benchmarks.md) and resumed twice per action. None of those middlewares does
    anything to a websocket (the error and observe layers pass them through, the session
    layer is for the other routes). The endpoint catches what it expects itself; an
    exception escaping it closes the socket with 1011 (uvicorn), as under the router."""

    PREFIX = "/ws/tables/"

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "websocket":
            path = scope.get("path", "")
            if path.startswith(self.PREFIX):
                table_id = path[len(self.PREFIX):]
                if table_id and "/" not in table_id:
                    scope["app"] = self
                    keep_send(scope, send)
                    scope["path_params"] = {"id": table_id}
                    await endpoint(WebSocket(scope, receive, send))
                    return
        await super().__call__(scope, receive, send)


def _raw(frame: protocol.Frame) -> dict[str, Any]:
    if isinstance(frame, bytes):
        return {"type": "websocket.send", "bytes": frame}
    return {"type": "websocket.send", "text": frame}


def _frame(msg: dict[str, Any], binary: bool) -> dict[str, Any]:
    return _raw(protocol.encode(msg, binary))


REBUILD_TRIES = 3
"""Attempts to rebuild a reconnect's missed deltas while the table moves on meanwhile."""


async def welcome(svc: Service, table: LiveTable, conn: Connection, last_seq: int | None) -> None:
    """Send ``welcome`` and the deltas ``conn`` misses, then deliver to it live.

    Missed deltas older than the table's ring (or a ``last_seq`` inside one of its
    deltas) are rebuilt as one delta (one frame) from the stored entries, if
    those are still the stream the table cached, through ``svc.replays`` (in the process
    pool, cached by table, seq, head, ``last_seq`` and seat, and rate limited per
    address like ``GET …/deltas``): a few dozen stale ``hello`` frames used to replay the
    game on the event loop each and stall every table for seconds. Past the rate, or
    with too many replays under way, the welcome carries the full view instead (a full
    resync, as Lichess does). If the entries are not the cached stream (Redis lost
    writes) the table syncs, which rebuilds it or finds it gone (then ``conn`` is closed
    with 4004), and the welcome carries the full view. The last step runs without
    awaiting, so no delta can slip between the welcome and the live ones."""
    table.room.remove(conn)
    deltas = None
    rebuilt: list[Delta] = []
    viewer = table.viewer_class(conn.seat)
    if conn.seat is not None and viewer is None and last_seq is not None and (
            last_seq < table.resigned_at[conn.seat]):
        # The client holds its seat's view from before the resignation: the spectators'
        # deltas do not patch it, and the seat's own would show what it may no longer see.
        last_seq = None
    if last_seq is not None and last_seq <= table.seq:
        deltas = table.recent(last_seq)
        for _ in range(REBUILD_TRIES if deltas is None else 0):
            seq, head = table.seq, table.head.hex()
            key = ("catch_up", table.id, seq, head, last_seq, viewer)
            known = svc.replays.recall(key)  # rebuilt for this stream and head already
            if known is not None and (rest := table.recent(seq)) is not None:
                rebuilt, deltas = known, rest
                break
            try:
                entries = await svc.tables.entries(table.id, table.meta)
            except Exception:
                break  # cannot rebuild now: fall back to the full view
            if len(entries) >= seq and (seq == 0 or entries[seq - 1]["h"] == head):
                if not svc.replays.allow(conn.addr):
                    break  # over the replay rate: a full resync
                try:
                    _, packed = await svc.replays.answer(
                        key, replays.catch_up, table.meta.game, len(table.meta.seats),
                        entries[:seq], last_seq, viewer, keep=False)
                except Exception:  # Busy, or the worker failed: a full resync
                    break
                rest = table.recent(seq)  # what the table applied while the worker ran
                if rest is None:
                    continue
                rebuilt = svc.replays.recall(key) or svc.replays.remember(key, [
                    Delta(last_seq + 1, seq, {viewer: m}) for m in
                    msgpack.unpackb(packed, raw=False, strict_map_key=False)])
                deltas = rest
                break
            # Redis holds less than the table cached, or another stream.
            try:
                if not await svc.tables.streams.sync(table):
                    conn.shut(4004, "the table no longer exists")
                    return
            except Exception:
                pass
            break
    _welcome_now(table, conn, deltas, rebuilt)


def resync(table: LiveTable) -> None:
    """Send every local socket of ``table`` a fresh welcome with the full view (after the
    table was rebuilt from Redis): clients replace their view and seq with it."""
    for conn in tuple(table.room.connections()):
        if not conn.closed:
            _welcome_now(table, conn, None)


def _welcome_now(table: LiveTable, conn: Connection, deltas: list[Any] | None,
                 rebuilt: list[Delta] | None = None) -> None:
    """``rebuilt``: the missed deltas before ``deltas`` (from ``replays.catch_up``)."""
    table.room.remove(conn)
    # A resigned seat's socket keeps its seat (it is still that player's) but reads what
    # a spectator reads (``TableCore.viewer_class``).
    key = table.viewer_class(conn.seat)
    msg = {"t": "welcome", "table": table.meta.summary(), "seat": conn.seat, "seq": table.seq,
           "head": table.head.hex(), "view": None if deltas is not None else table.view(key)}
    conn.message(msg)
    for d in (*(rebuilt or ()), *(deltas or ())):
        prepared = d.prepared(key, conn.binary)
        if prepared is not None:  # None: this viewer is sent nothing for that event
            conn.push(*prepared)
    conn.seq = table.seq
    table.room.add(conn)
    if (conn.seat is not None and conn.seat in table.to_move()
            and not table.by_bot(conn.seat)):  # handed over: the bot plays
        conn.message(table.prompt(conn.seat))
    if table.clock_state() is not None:
        conn.message(table.clock_now())  # after the welcome: the clock of a clocked table


async def _loop(ws: WebSocket, svc: Service, table: LiveTable, conn: Connection,
                sender: chat.Sender) -> None:
    settings = svc.settings
    while not conn.closed:
        data = await _receive(ws)
        if data is None:
            return
        if not conn.allow(settings.rate_per_s, settings.rate_burst):
            if conn.refused >= settings.flood_close:
                metrics.REJECTED_SOCKETS.labels("flood").inc()
                conn.shut(1008, "flooding")
                return
            conn.message({"t": "error", "id": protocol.action_id(data, settings.max_frame),
                          "code": "rate_limited",
                          "message": f"more than {settings.rate_per_s:g} messages per second"})
            continue
        try:
            msg = protocol.parse_message(protocol.decode_frame(data, settings.max_frame))
        except protocol.Undecodable:
            conn.shut(1003, "undecodable frame")
            return
        except protocol.BadMessage as e:
            # The id of an action frame, as for rate_limited: its sender awaits that ack.
            conn.message({"t": "error", "id": protocol.action_id(data, settings.max_frame),
                          "code": "bad_message", "message": str(e)})
            continue
        if type(msg) is protocol.ActionMsg:  # nearly every message: no isinstance chain
            await _act(svc, table, conn, msg)
        elif isinstance(msg, protocol.Sync):
            await welcome(svc, table, conn, None)
        elif isinstance(msg, protocol.ChatMsg):
            seat_name = table.meta.seats[seat].name if (seat := sender.seat) is not None else None
            if (muted := await _muted(svc, table, seat, conn.account)) is not None:
                conn.message({"t": "error", "id": None, "code": muted.code,
                              "message": muted.message})
                continue
            await svc.chat.receive(table.id, conn, sender, seat_name, msg.text, msg.quick)
        elif isinstance(msg, protocol.ChatHistory):
            await svc.chat.send_history(table.id, conn, sender, table.game_over())
        elif isinstance(msg, protocol.Hello):
            conn.message({"t": "error", "id": None, "code": "bad_message",
                          "message": "hello was already received; send sync for a new view"})
        else:  # an ActionMsg of a subclass (none today)
            await _act(svc, table, conn, msg)


async def _muted(svc: Service, table: LiveTable, seat: int | None, account: str | None
                 ) -> chat.ChatRefused | None:
    """The refusal of the chat of the account sitting at ``seat`` or, for a spectator,
    of the socket's ``account`` (its session cookie's: a muted account is not let chat
    as an anonymous spectator in the same browser) while it is muted or suspended
    (server/admin/moderation.py); ``None`` for a guest's seat or a spectator without a
    session."""
    if seat is None:
        uid = account
    else:
        uid = table.meta.seats[seat].account if seat < len(table.meta.seats) else None
    try:
        return await svc.moderation.chat_refusal(uid)
    except Unavailable:
        return chat.ChatRefused("unavailable",
                                "the chat message was not stored; send it again")


async def _act(svc: Service, table: LiveTable, conn: Connection, msg: protocol.ActionMsg) -> None:
    started = time.perf_counter()
    if conn.seat is None:
        conn.message({"t": "error", "id": msg.id, "code": "spectator",
                      "message": "spectators cannot act; join a seat to play"})
        metrics.ACTIONS.labels("refused").inc()
        return
    try:
        seq = await svc.tables.actions.act(table, conn.seat, msg.id, dict(msg.action), msg.seq)
    except IllegalAction as e:
        metrics.ACTIONS.labels("refused").inc()
        conn.message({"t": "error", "id": msg.id, "code": e.code, "message": e.message})
        return
    except Unavailable:
        metrics.ACTIONS.labels("unavailable").inc()
        conn.message({"t": "error", "id": msg.id, "code": "unavailable",
                      "message": "the store did not confirm; the action may be resent"})
        return
    except Exception:
        log.exception("action failed", table=table.id, seq=table.seq, seat=conn.seat)
        metrics.ACTIONS.labels("failed").inc()
        conn.message({"t": "error", "id": msg.id, "code": "internal",
                      "message": "the server failed on this action; nothing was acknowledged"})
        return
    metrics.ACCEPTED.inc()
    conn.message({"t": "ack", "id": msg.id, "seq": seq})
    metrics.ACTION_LATENCY.observe(time.perf_counter() - started)
