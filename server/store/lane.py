"""One held Redis connection for the store's hot commands, pipelined by whoever calls.

redis-py's asyncio client takes a pooled connection per command (an ``asyncio.Condition``
with its own timeout, an event dispatch, a lock), bounds its write with ``asyncio.wait_for``
(a task per command) and its read with another timeout, and retries through a wrapper:
about 230 Python calls and three timeouts per command (docs/benchmarks.md, "CPU per
action", parts 3 and 4). A ``Lane`` is one connection that every caller writes its packed
command to at once (in the order the calls come: Redis answers in that order) and a
reader that hands each reply to the future of its command: no pool, no lock, no task per
command, and no timeout per command: a caller gives its bound (``within``; the store's
calls give theirs, server/store/route.py) and one timer keeps all of them. A caller that
gave up leaves its future behind, whose reply is read and dropped, so the connection
stays in step and is kept.

Losing the connection fails every command in flight with ``redis.ConnectionError``; the
next call connects again. A command found no longer sendable is retried on a fresh
connection a few times with a short backoff, as the pooled client's retry did (the append
script is safe to retry: it checks the expected seq and the action id). One Redis over
TCP (``redis://``) or a Unix socket (``unix://``) only; TLS and a Redis Cluster keep the
pooled client (``Lane.supports``).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from typing import Any
from urllib.parse import urlsplit

import hiredis
from redis._parsers.base import BaseParser
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.connection import parse_url
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import InvalidResponse, NoScriptError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.logging import get_logger

log = get_logger("redis")

RETRIES = 4
"""Attempts of a command whose connection was lost before its reply (backoff between)."""

READ_CHUNK = 65536

SWEEP = 0.1
"""Seconds between two looks for commands past their bound (``Lane.pipeline``'s
``within``): how late such a command may fail."""


def _reply_error(message: str) -> Exception:
    # The exception classes redis-py raises for an error reply (NOSCRIPT, WRONGTYPE …).
    error: Exception = BaseParser.parse_error(message)  # type: ignore[no-untyped-call]
    return error


def new_parser() -> Any:
    """A hiredis reply reader raising error replies as redis-py's exceptions."""
    return hiredis.Reader(protocolError=InvalidResponse, replyError=_reply_error)


async def _read_one(reader: asyncio.StreamReader, parser: Any) -> Any:
    while True:
        reply = parser.gets()
        if reply is not False:
            return reply
        data = await reader.read(READ_CHUNK)
        if not data:
            raise ConnectionResetError("Redis closed the connection")
        parser.feed(data)


async def open_raw(params: dict[str, Any], timeout: float
                   ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, Any]:
    """A connection to the Redis of ``params`` (``redis.asyncio.connection.parse_url``),
    authenticated and on the URL's database, with a reply parser (``new_parser``);
    within ``timeout`` seconds (else ``TimeoutError``). Raises ``OSError`` when it
    cannot connect and ``redis.ConnectionError`` when AUTH or SELECT is refused."""
    async with asyncio.timeout(timeout):
        if "path" in params:
            reader, writer = await asyncio.open_unix_connection(params["path"])
        else:
            reader, writer = await asyncio.open_connection(
                params.get("host", "localhost"), int(params.get("port", 6379)))
        parser = new_parser()
        hello: list[tuple[Any, ...]] = []
        if params.get("password"):
            hello.append(("AUTH", *((params["username"],) if params.get("username") else ()),
                          params["password"]))
        if int(params.get("db") or 0):
            hello.append(("SELECT", int(params["db"])))
        for cmd in hello:  # before anything else is written
            writer.write(hiredis.pack_command(cmd))
            reply = await _read_one(reader, parser)
            if isinstance(reply, Exception):
                writer.close()
                raise RedisConnectionError(f"{cmd[0]} refused: {reply}")
    return reader, writer, parser


class Lane:
    """Commands on one held connection to the Redis at ``url`` (see the module
    docstring). ``connect_timeout``: seconds a connect may take."""

    def __init__(self, url: str, connect_timeout: float = 2.0) -> None:
        self.url = url
        self.params: dict[str, Any] = dict(parse_url(url))
        self.connect_timeout = connect_timeout
        self._writer: asyncio.StreamWriter | None = None
        self._waiting: deque[asyncio.Future[Any]] = deque()
        """The futures of the commands in flight on ``_writer``'s connection, oldest first
        (each connection has its own: a late reader never answers another's command)."""
        self._readers: set[asyncio.Task[None]] = set()
        self._connecting: asyncio.Lock | None = None
        self.closed = False
        self._out: list[bytes] = []
        """Packed commands written to ``_out_writer`` at the end of this turn of the loop."""
        self._out_writer: asyncio.StreamWriter | None = None
        self._bounds: deque[tuple[float, asyncio.Future[Any]]] = deque()
        """``(deadline, future)`` of the commands sent ``within`` a time, in sending order
        (every such caller gives the same bound: the order is the deadlines' order)."""
        self._sweep: asyncio.TimerHandle | None = None

    @staticmethod
    def supports(url: str) -> bool:
        """True for one Redis at ``redis://`` or ``unix://`` (no TLS)."""
        return urlsplit(url).scheme in ("redis", "unix")

    @classmethod
    def serving(cls, url: str, client: Any, wait_replicas: int, timeout: float) -> Lane | None:
        """A lane for a ``Store`` on ``url`` whose pooled client is ``client``: for one
        Redis (not a ``RedisCluster``) without replica waits, at a URL it ``supports``."""
        if not cls.supports(url) or wait_replicas > 0 or isinstance(client, RedisCluster):
            return None
        return cls(url, min(timeout, 2.0))

    async def call(self, *args: Any) -> Any:
        """Send one command (its arguments as for redis-py) and return its reply; an error
        reply is raised as redis-py raises it, a lost connection as
        ``redis.ConnectionError`` (after ``RETRIES`` attempts)."""
        (reply,) = await self.pipeline(args)  # one command: the same retries
        return reply

    async def script(self, sha: str, source: str, keys: list[Any], args: list[Any],
                     within: float | None = None) -> Any:
        """``EVALSHA`` of the script ``source`` (SHA-1 ``sha``); ``EVAL`` when Redis does
        not have it cached (a restarted Redis), which caches it again. ``within``: as for
        ``pipeline``, for each of the two."""
        # ``pipeline`` directly, not through ``call``: one coroutine frame less to resume
        # on each append's write and reply.
        try:
            (reply,) = await self.pipeline(("EVALSHA", sha, len(keys), *keys, *args),
                                           within=within)
        except NoScriptError:
            (reply,) = await self.pipeline(("EVAL", source, len(keys), *keys, *args),
                                           within=within)
        return reply

    async def pipeline(self, *commands: tuple[Any, ...], within: float | None = None
                       ) -> list[Any]:
        """Send ``commands`` in one write and return their replies in order (one round
        trip); the first error reply is raised once every reply has arrived (the
        commands after it still ran). A lost connection raises ``redis.ConnectionError``
        (after ``RETRIES`` attempts of the whole pipeline). ``within`` (seconds): the
        call's bound, connects and retries included; past it ``redis.TimeoutError`` is
        raised (up to ``SWEEP`` s late), and a reply that comes later is read and dropped.
        The bound is kept by one timer for all calls (``_swept``), not one per call: the
        append's ``asyncio.timeout`` cost about 5 % of an action's CPU
        (docs/benchmarks.md, "CPU per action, part 6")."""
        packed = (hiredis.pack_command(commands[0]) if len(commands) == 1  # an append
                  else b"".join(map(hiredis.pack_command, commands)))
        loop = asyncio.get_running_loop()
        deadline = None if within is None else loop.time() + within
        for attempt in range(RETRIES):
            writer, waiting = self._writer, self._waiting
            if writer is None or writer.is_closing():
                try:
                    writer, waiting = await self._connect(deadline)
                except (OSError, TimeoutError) as e:
                    if attempt == RETRIES - 1:
                        raise RedisConnectionError(f"cannot connect to Redis: {e}") from None
                    await self._backoff(attempt, deadline)
                    continue
            futures = [loop.create_future() for _ in commands]
            waiting.extend(futures)
            self._write(writer, packed)
            if deadline is not None:
                self._bound(deadline, futures)
            replies: list[Any] = []
            error: Exception | None = None
            try:
                for fut in futures:
                    try:
                        replies.append(await fut)
                    except (RedisConnectionError, RedisTimeoutError):
                        raise
                    except Exception as e:  # an error reply: the others still arrive
                        error = error or e
                        replies.append(e)
            except RedisConnectionError:
                if attempt == RETRIES - 1:
                    raise
                await self._backoff(attempt, deadline)
                continue
            finally:
                _abandon(futures)
            if error is not None:
                raise error
            return replies
        raise AssertionError("unreachable")  # pragma: no cover

    @staticmethod
    async def _backoff(attempt: int, deadline: float | None) -> None:
        """The pause before another attempt; ``redis.TimeoutError`` if it would end past
        ``deadline``."""
        pause = min(0.5, 0.05 * 2 ** attempt)
        if deadline is not None and asyncio.get_running_loop().time() + pause >= deadline:
            raise RedisTimeoutError("Redis did not answer in time (reconnecting)")
        await asyncio.sleep(pause)

    def _write(self, writer: asyncio.StreamWriter, packed: bytes) -> None:
        """Write ``packed`` with every other command of this turn of the loop, in order,
        in one write at the turn's end (one system call for the appends of many tables)."""
        if self._out_writer is not writer:
            self._flush()  # another connection's commands (a reconnect): theirs first
            self._out_writer = writer
            asyncio.get_running_loop().call_soon(self._flush)
        self._out.append(packed)

    def _flush(self) -> None:
        writer, out = self._out_writer, self._out
        if writer is None:
            return
        self._out_writer, self._out = None, []
        if not writer.is_closing():  # else its reader fails the commands: they retry
            writer.write(out[0] if len(out) == 1 else b"".join(out))

    def _bound(self, deadline: float, futures: list[asyncio.Future[Any]]) -> None:
        bounds = self._bounds
        while bounds and bounds[0][1].done():  # answered: replies come in order
            bounds.popleft()
        bounds.extend((deadline, fut) for fut in futures)
        if self._sweep is None:
            self._sweep = asyncio.get_running_loop().call_at(deadline, self._swept)

    def _swept(self) -> None:
        """Fail the bounded commands past their deadline with ``redis.TimeoutError``;
        look again at the next deadline (not before ``SWEEP`` s)."""
        self._sweep = None
        bounds = self._bounds
        now = asyncio.get_running_loop().time()
        while bounds and (bounds[0][1].done() or bounds[0][0] <= now):
            _, fut = bounds.popleft()
            if not fut.done():
                fut.set_exception(RedisTimeoutError("Redis did not answer in time"))
        if bounds:
            self._sweep = asyncio.get_running_loop().call_at(
                max(bounds[0][0], now + SWEEP), self._swept)

    async def _connect(self, deadline: float | None = None
                       ) -> tuple[asyncio.StreamWriter, deque[asyncio.Future[Any]]]:
        if self.closed:
            raise RedisConnectionError("the lane is closed")
        if self._connecting is None:
            self._connecting = asyncio.Lock()
        timeout = self.connect_timeout
        if deadline is not None:
            timeout = min(timeout, deadline - asyncio.get_running_loop().time())
            if timeout <= 0:
                raise RedisTimeoutError("Redis did not answer in time (connecting)")
        async with asyncio.timeout(timeout), self._connecting:
            if self._writer is not None and not self._writer.is_closing():
                return self._writer, self._waiting  # another caller connected meanwhile
            reader, writer, parser = await open_raw(self.params, timeout)
            waiting: deque[asyncio.Future[Any]] = deque()
            self._writer, self._waiting = writer, waiting
            task = asyncio.get_running_loop().create_task(
                self._read(reader, writer, parser, waiting))
            self._readers.add(task)
            task.add_done_callback(self._readers.discard)
            return writer, waiting

    async def _read(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                    parser: Any, waiting: deque[asyncio.Future[Any]]) -> None:
        """Hand every reply to the oldest waiting future, until the connection ends."""
        error: BaseException | None = None
        try:
            while True:
                data = await reader.read(READ_CHUNK)
                if not data:
                    break
                parser.feed(data)
                while (reply := parser.gets()) is not False:
                    fut = waiting.popleft()
                    if fut.done():
                        continue  # its caller gave up (timed out or was cancelled)
                    if isinstance(reply, Exception):
                        fut.set_exception(reply)
                    else:
                        fut.set_result(reply)
        except asyncio.CancelledError:
            error = RedisConnectionError("the lane was closed")
            raise
        except Exception as e:  # a reset, a protocol error, a reply nobody waited for
            error = e
        finally:
            if self._writer is writer:
                self._writer = None
            writer.close()
            lost = RedisConnectionError(f"connection to Redis lost: {error or 'closed'}")
            while waiting:
                fut = waiting.popleft()
                if not fut.done():
                    fut.set_exception(lost)

    async def close(self) -> None:
        """Close the connection; commands in flight fail with ``ConnectionError``."""
        self.closed = True
        if self._writer is not None:
            self._writer.close()
        for task in list(self._readers):
            task.cancel()
            with contextlib.suppress(BaseException):
                await task


def _abandon(futures: list[asyncio.Future[Any]]) -> None:
    """The futures of a pipeline whose caller stopped reading them (a lost connection, a
    cancel): the pending ones are cancelled (the reader skips a done future, so the order
    of the replies holds), the failed ones marked retrieved; otherwise each would be
    logged as an exception nobody retrieved."""
    for fut in futures:
        if not fut.done():
            fut.cancel()
        elif not fut.cancelled():
            fut.exception()
