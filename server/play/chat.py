"""Table chat (docs/protocol.md §2 "Chat"): who talks where, bounds, rate, delivery.

Two channels per table, as on Lichess: ``players`` (the seated players) and
``spectators``. A player writes to ``players``, a spectator to ``spectators``; a player
reads only ``players`` until the game has ended (spectators do not talk into a running
game), a spectator reads both. A message is plain text (at most ``MAX_TEXT``
characters after trimming, control and format characters removed) or a quick message
code from ``QUICK`` that each reader's client shows in its own language. Every sender
has a token bucket (``burst`` messages at once, then one per ``refill`` seconds), and
so has every client address among a table's spectators; the buckets live in Redis in
the table's slot, spent by the same script that stores the message. Messages are
stored in one capped Redis list per channel (not in the game's hash chain) and
published on the table's pub/sub channel; every process delivers them to its local
sockets that may read the channel.

The pure parts (``Sender``, ``clean_text``, ``readable``) run without
sockets; ``ChatService`` is the thin shell over the store and the rooms.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import time
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from redis.exceptions import RedisError

from server import metrics
from server.logging import get_logger
from server.ws import protocol

log = get_logger("chat")

PLAYERS, SPECTATORS = "players", "spectators"
CHANNELS = (PLAYERS, SPECTATORS)
MAX_TEXT = 200
"""Characters (Unicode code points) of one chat message after trimming."""
MAX_NAME = 24
"""Characters of a spectator's chat name."""
QUICK = ("hello", "good_luck", "your_turn", "thanks", "well_played", "gg")
"""Quick message codes; the client has their English and German texts."""
CHAT_TTL = 7 * 24 * 3600
"""Seconds a channel's stored history lives after its last message."""
_KEEP_FORMAT = {"\u200d"}  # zero width joiner: emoji sequences


class ChatRefused(Exception):
    """A chat message that is not sent: ``code`` (``chat_empty``, ``chat_too_long``,
    ``chat_rate_limited``, ``chat_no_viewer``, ``bad_message``) and a ``message`` for the
    sender."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Sender:
    """Who sends: a seat (player) or a spectator with a public ``id`` (8 hex digits) and
    an optional ``name``. Never holds a token."""

    seat: int | None
    id: str = ""
    name: str | None = None

    @property
    def channel(self) -> str:
        """The channel this sender writes to."""
        return PLAYERS if self.seat is not None else SPECTATORS

    @property
    def key(self) -> str | None:
        """Stable key of the sender (rate limits, client-side mute): ``p<seat>`` or
        ``s<id>``; ``None`` for a spectator without an id."""
        if self.seat is not None:
            return f"p{self.seat}"
        return f"s{self.id}" if self.id else None

    def wire(self, seat_name: str | None = None) -> dict[str, Any]:
        """The ``from`` field of a chat message."""
        if self.seat is not None:
            return {"role": "player", "seat": self.seat, "name": seat_name, "key": self.key}
        return {"role": "spectator", "id": self.id, "name": self.name, "key": self.key}


def spectator_id(viewer: str | None) -> str:
    """A spectator's public id: the first 8 hex digits of SHA-256 of the client's private
    ``viewer`` secret (stable across its reconnects, unforgeable without the secret); ''
    without a secret (such a spectator reads but cannot chat: ``chat_no_viewer``)."""
    if not viewer:
        return ""
    return hashlib.sha256(b"einauge-viewer:" + viewer.encode("utf-8")).hexdigest()[:8]


def sender_of(seat: int | None, viewer: str | None, name: str | None) -> Sender:
    """The sender of a socket: its seat, else a spectator by its ``hello``'s viewer key
    and name."""
    if seat is not None:
        return Sender(seat)
    return Sender(None, spectator_id(viewer), clean_name(name))


_BLANK = frozenset("\u115f\u1160\u3164\uffa0\u2800")
"""Letters and symbols that draw nothing: Hangul fillers, the braille blank."""


def _visible(ch: str) -> bool:
    """True for a character that draws something: not a separator (Z*), control or
    format character (C*), nor one of ``_BLANK``."""
    return unicodedata.category(ch)[0] not in "ZC" and ch not in _BLANK


def _clean(raw: str) -> str:
    out = []
    for ch in raw:
        cat = unicodedata.category(ch)
        if cat == "Cc":
            out.append(" " if ch in "\t\n\r" else "")
        elif cat == "Cf" and ch not in _KEEP_FORMAT:
            continue  # bidi overrides and invisible characters cannot disguise a message
        else:
            out.append(ch)
    # A zero width joiner joins two drawn characters (emoji sequences) or goes.
    kept = [ch for i, ch in enumerate(out)
            if ch not in _KEEP_FORMAT
            or (0 < i < len(out) - 1 and _visible(out[i - 1]) and _visible(out[i + 1]))]
    return "".join(kept).strip()


def strip_hidden(raw: str) -> str:
    """``raw`` with its control and format characters removed as a message's are (line
    breaks become spaces, bidi controls and invisible characters go), trimmed; may be
    empty. For other free text shown to people (a report's)."""
    return _clean(raw)


def clean_text(raw: str) -> str:
    """The text as stored: control and format characters removed (line breaks become
    spaces; a zero width joiner kept only between two visible characters), trimmed; it
    must hold a visible character (``_visible``: not only spaces, fillers or blanks).
    Raises ``ChatRefused`` ``chat_empty`` or ``chat_too_long`` (more than ``MAX_TEXT``
    characters). Markup stays text: the client never parses it."""
    text = _clean(raw)
    if not any(_visible(ch) for ch in text):
        raise ChatRefused("chat_empty", "a chat message needs some visible text")
    if len(text) > MAX_TEXT:
        raise ChatRefused("chat_too_long",
                          f"a chat message holds at most {MAX_TEXT} characters, not {len(text)}")
    return text


def clean_name(raw: str | None) -> str | None:
    """A spectator's chat name, cleaned like a message and cut to ``MAX_NAME``; ``None``
    when nothing is left."""
    if not raw:
        return None
    name = _clean(raw)[:MAX_NAME].strip()
    return name or None


def readable(seat: int | None, ended: bool) -> tuple[str, ...]:
    """The channels a viewer reads: a spectator (``seat`` None) both; a player only
    ``players`` until the game has ended, then both."""
    if seat is None or ended:
        return CHANNELS
    return (PLAYERS,)


def build(sender: Sender, seat_name: str | None, text: str | None, quick: str | None,
          at: float, by: str | None = None) -> dict[str, Any]:
    """The stored chat message (without ``t``): ``id`` (random, for de-duplication),
    ``channel``, ``at`` (server time, s), ``from`` and ``text`` or ``quick``, and ``by``
    (the author's account, stored only: ``public`` drops it) when it has one. Raises
    ``ChatRefused`` for bad content (exactly one of text and quick)."""
    if sender.key is None:
        raise ChatRefused("chat_no_viewer", "a spectator chats with a viewer key in its hello")
    if (text is None) == (quick is None):
        raise ChatRefused("bad_message", "a chat message has either text or quick")
    msg: dict[str, Any] = {"id": secrets.token_hex(8), "channel": sender.channel,
                           "at": round(at, 3), "from": sender.wire(seat_name)}
    if by:
        msg["by"] = by
    if quick is not None:
        if quick not in QUICK:
            raise ChatRefused("bad_message", f"quick must be one of {', '.join(QUICK)}")
        msg["quick"] = quick
    else:
        msg["text"] = clean_text(text or "")
    return msg


def public(msg: dict[str, Any]) -> dict[str, Any]:
    """A stored message as readers get it: without ``by`` (its author's account, kept for
    the blocks of ``hidden_from``)."""
    return {k: v for k, v in msg.items() if k != "by"}


def hidden_from(msg: dict[str, Any], hidden: frozenset[str]) -> bool:
    """True when ``msg``'s author is an account in ``hidden`` (one the reader blocked):
    the reader never gets it, live or in the history."""
    by = msg.get("by")
    return by is not None and by in hidden


def deliver(conns: Iterable[Any], msg: dict[str, Any], ended: bool) -> int:
    """Push ``{"t": "chat", **msg}`` (without ``by``) to each connection that may read its
    channel and did not block its author (``conn.hidden``); one encoding per format;
    returns how many got it."""
    frames: dict[bool, bytes | str] = {}
    n = 0
    for conn in conns:
        if msg["channel"] not in readable(conn.seat, ended):
            continue
        if hidden_from(msg, getattr(conn, "hidden", frozenset())):
            continue
        if conn.binary not in frames:
            frames[conn.binary] = protocol.encode({"t": "chat", **public(msg)}, conn.binary)
        conn.push(frames[conn.binary])
        n += 1
    return n


def deliver_removed(conns: Iterable[Any], note: dict[str, Any], ended: bool) -> int:
    """Push ``{"t": "chat_removed", "id", "channel", "text"}`` (a stored message the
    administration removed, ``text`` its replacement) to each connection that may read
    its channel; returns how many got it."""
    frames: dict[bool, bytes | str] = {}
    n = 0
    for conn in conns:
        if note.get("channel") not in readable(conn.seat, ended):
            continue
        if conn.binary not in frames:
            frames[conn.binary] = protocol.encode(
                {"t": "chat_removed", "id": note.get("id"), "channel": note.get("channel"),
                 "text": note.get("text")}, conn.binary)
        conn.push(frames[conn.binary])
        n += 1
    return n


def history_for(stored: dict[str, list[dict[str, Any]]], seat: int | None,
                ended: bool, hidden: frozenset[str] = frozenset()
                ) -> dict[str, list[dict[str, Any]]]:
    """The stored history of the channels ``seat`` may read (oldest first), without the
    messages of the accounts in ``hidden`` and without ``by``."""
    return {ch: [public(m) for m in stored.get(ch, []) if not hidden_from(m, hidden)]
            for ch in readable(seat, ended)}


def _retrieved(task: asyncio.Task[Any]) -> None:
    """Mark a finished task's exception as retrieved (its callers got it, or left)."""
    if not task.cancelled():
        task.exception()


class ChatService:
    """The shell: validates, rate limits, stores and publishes (one Redis script), loads
    the history. ``store`` is ``server.store.streams.Store``."""

    def __init__(self, store: Any, history: int, burst: int, refill: float,
                 clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.history = history
        self.burst = burst
        self.refill = refill
        self.clock = clock
        self._reads: dict[tuple[str, tuple[str, ...]],
                          asyncio.Task[list[list[dict[str, Any]]]]] = {}
        """The history reads not started yet, by table and channels (``_stored``)."""

    async def send(self, table_id: str, sender: Sender, seat_name: str | None,
                   text: str | None, quick: str | None, addr: str = "",
                   by: str | None = None) -> dict[str, Any]:
        """Store and publish one message; returns it. Rate limited in Redis (shared by
        every process) per sender and, for a spectator (whose id comes from a secret it
        chooses, so a new one is free), per client address ``addr`` too. Raises
        ``ChatRefused`` (nothing stored), ``LookupError`` for a table that no longer
        exists, or ``redis.RedisError``."""
        now = self.clock()
        msg = build(sender, seat_name, text, quick, now, by)
        buckets: tuple[str, ...] = (sender.key or "",)
        if sender.seat is None and addr:
            buckets += (f"a:{addr}",)
        wait = await self.store.append_chat(table_id, msg["channel"], msg, self.history,
                                            CHAT_TTL, buckets, now, self.burst, self.refill)
        if wait > 0:
            raise ChatRefused("chat_rate_limited",
                              f"at most {self.burst} chat messages at once, then one every "
                              f"{self.refill:g} s; wait {wait:.1f} s")
        return msg

    async def history_of(self, table_id: str, seat: int | None, ended: bool,
                         hidden: frozenset[str] = frozenset()
                         ) -> dict[str, list[dict[str, Any]]]:
        """The last ``history`` messages of each channel ``seat`` may read, but those of
        the accounts in ``hidden``."""
        channels = readable(seat, ended)
        loaded = await self._stored(table_id, channels)
        return history_for(dict(zip(channels, loaded, strict=True)), seat, ended, hidden)

    async def _stored(self, table_id: str, channels: tuple[str, ...]
                      ) -> list[list[dict[str, Any]]]:
        """``Store.load_chat``, one read shared by the callers of one turn of the event
        loop (the sockets of a table that connect together: one LRANGE per channel
        instead of one per socket). The read starts after that turn, so each caller's
        socket already receives live chat by then and misses nothing stored before it
        asked. Raises ``RedisError``."""
        key = (table_id, channels)
        read = self._reads.get(key)
        if read is None:
            read = asyncio.get_running_loop().create_task(self._read(key))
            read.add_done_callback(_retrieved)  # a read all its callers left: no warning
            self._reads[key] = read
        return await asyncio.shield(read)

    async def _read(self, key: tuple[str, tuple[str, ...]]) -> list[list[dict[str, Any]]]:
        try:
            await asyncio.sleep(0)  # the other callers of this turn join
        finally:
            self._reads.pop(key, None)  # a caller from now on gets a read of its own
        rows: list[list[dict[str, Any]]] = await self.store.load_chat(*key)
        return rows

    # ---- the websocket side (``conn``: server.fanout.Connection) ------------------------

    async def send_history(self, table_id: str, conn: Any, sender: Sender,
                           ended: bool) -> None:
        """Queue ``chat_history`` to ``conn``. Sent after the welcome, with the socket
        already receiving live chat: a message may come twice (clients drop repeated
        ids), none is missed. Without Redis now nothing is sent; the next reconnect
        brings the history."""
        try:
            history = await self.history_of(table_id, conn.seat, ended,
                                            getattr(conn, "hidden", frozenset()))
        except RedisError as e:
            metrics.REDIS_ERRORS.inc()
            log.warning("chat history failed", table=table_id, error=repr(e))
            return
        conn.message({"t": "chat_history", "channels": history, "you": sender.key})

    async def receive(self, table_id: str, conn: Any, sender: Sender, seat_name: str | None,
                      text: str | None, quick: str | None) -> None:
        """A ``chat`` frame of ``conn``: sent, or answered with an ``error`` frame."""
        try:
            await self.send(table_id, sender, seat_name, text, quick,
                            getattr(conn, "addr", ""), getattr(conn, "account", None))
        except ChatRefused as e:
            conn.message({"t": "error", "id": None, "code": e.code, "message": e.message})
        except LookupError:
            conn.message({"t": "error", "id": None, "code": "no_table",
                          "message": "the table no longer exists"})
        except RedisError as e:
            metrics.REDIS_ERRORS.inc()
            log.warning("chat failed", table=table_id, error=repr(e))
            conn.message({"t": "error", "id": None, "code": "unavailable",
                          "message": "the chat message was not stored; send it again"})
