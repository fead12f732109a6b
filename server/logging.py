"""Structured logs (structlog): one line per event, table id and seq as fields.

Every line names its process: ``pid`` and ``process`` (``serve:<port>`` under ``cardtable
serve``). The standard library's loggers (uvicorn's) go through the same processors and
renderer, so with ``CARDTABLE_LOG_JSON`` every line of the service is one JSON object.

Never pass a token, a password, a seed, the deck or a mail's body to a logger: callers log
ids, names, seats, seqs and addresses only.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import MutableMapping
from typing import Any

import structlog

_PROCESS = {"name": ""}


def _add_process(logger: Any, method: str, event: MutableMapping[str, Any]
                 ) -> MutableMapping[str, Any]:
    """Every line's ``pid`` and ``process`` (its name, when the process was given one)."""
    event.setdefault("pid", os.getpid())
    if _PROCESS["name"]:
        event.setdefault("process", _PROCESS["name"])
    return event


def _stdlib_name(logger: Any, method: str, event: MutableMapping[str, Any]
                 ) -> MutableMapping[str, Any]:
    """A standard library record's logger name as its ``component`` (``uvicorn.error``)."""
    record = event.get("_record")
    if record is not None:
        event.setdefault("component", record.name)
    return event


BARE_SOCKET_LINES = frozenset({"connection open", "connection closed"})
"""What the websockets library logs at level info through uvicorn's logger for every socket
opened and closed, with no address, path or table: kept at level debug only. The line per
accepted socket, with its address and path, stays (``ACCEPTED_LINE``)."""

ACCEPTED_LINE = '%s - "WebSocket %s" [accepted]'
"""uvicorn's line per accepted socket (its protocols' ``send``; arguments ``host:port`` and
the path with its query). ``_SocketLog`` writes it as the service's own line instead:
``component=ws`` ``websocket accepted`` with ``client`` (the host, as the access log's)
and ``path`` (no query string). Through the standard library it cost a walk of the stack
and a record per socket (docs/benchmarks.md, "CPU per action, part 9")."""

REFUSED_LINE = '%s - "WebSocket %s" 403'
"""uvicorn's line per refused socket (arguments ``host:port`` and the path with its query):
kept, its path written without the query (``_SocketLog``)."""

REQUEST_LINES = ("< %s %s %s", "< %s: %s")
"""The websockets library's lines at level debug for a socket's request: its request line
(method, path with its query, protocol) and each of its headers (name, value). Written
without the query and without the value of a ``HIDDEN_HEADERS`` header (``_SocketLog``)."""

HIDDEN_HEADERS = frozenset({"cookie", "authorization", "proxy-authorization"})
"""Request headers whose values (a session, a token) no log line holds."""


def _no_query(path: object) -> str:
    # A query string may carry a token a client put there: no log line holds one.
    return str(path).partition("?")[0]


class _BareSocketLines(logging.Filter):
    """Drops ``BARE_SOCKET_LINES`` before they are rendered: two rendered lines per
    socket that tell an operator nothing uvicorn's line does not (their cost:
    docs/benchmarks.md, "Table set-up")."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.levelno == logging.INFO and record.msg in BARE_SOCKET_LINES)


class _SocketLog(logging.LoggerAdapter):  # type: ignore[type-arg]
    """uvicorn's logger as a socket's protocol and the websockets library's protocol in it
    hold it (``socket_log``): a line of ``BARE_SOCKET_LINES`` that ``_BareSocketLines``
    drops is not built at all, and ``ACCEPTED_LINE`` is the service's own line. Lines that
    would hold a query string or a secret header (``REFUSED_LINE``, ``REQUEST_LINES``) are
    written without it. Every other line is the same, from the same logger."""

    @property
    def level(self) -> int:
        """The logger's own level (uvicorn's protocol reads it before its trace lines)."""
        return int(self.logger.level)

    def info(self, msg: object, *args: Any, **kwargs: Any) -> None:
        if msg == ACCEPTED_LINE and len(args) == 2:
            _WS_LOG.info("websocket accepted", client=str(args[0]).rpartition(":")[0] or "?",
                         path=_no_query(args[1]))
            return
        if msg in BARE_SOCKET_LINES and any(
                isinstance(f, _BareSocketLines) for f in self.logger.filters):
            return  # its record (a walk of the stack for the caller: ~4 us) is not made
        if msg == REFUSED_LINE and len(args) == 2:
            args = (args[0], _no_query(args[1]))
        # The library's frame as the line's caller, not this one.
        super().info(msg, *args, stacklevel=kwargs.pop("stacklevel", 1) + 1, **kwargs)

    def debug(self, msg: object, *args: Any, **kwargs: Any) -> None:
        if msg == REQUEST_LINES[0] and len(args) == 3:
            args = (args[0], _no_query(args[1]), args[2])
        elif (msg == REQUEST_LINES[1] and len(args) == 2
              and str(args[0]).lower() in HIDDEN_HEADERS):
            args = (args[0], "(not logged)")
        super().debug(msg, *args, stacklevel=kwargs.pop("stacklevel", 1) + 1, **kwargs)


def socket_log() -> logging.LoggerAdapter:  # type: ignore[type-arg]
    """The logger for a socket's protocol and the websockets library's protocol in it:
    uvicorn's (``uvicorn.error``) without building the lines it drops, its line per
    accepted socket the service's own (``_SocketLog``)."""
    return _SOCKET_LOG


_SOCKET_LOG = _SocketLog(logging.getLogger("uvicorn.error"), None)


def configure(level: str = "info", json_lines: bool = False, process: str = "") -> None:
    """Set up structlog and the standard library logging (uvicorn's) once per process;
    ``process`` names it in every line (``serve:8001``)."""
    _PROCESS["name"] = process
    lvl = getattr(logging, level.upper(), logging.INFO)
    renderer: Any = (structlog.processors.JSONRenderer() if json_lines
                     else structlog.dev.ConsoleRenderer(colors=False))
    shared: list[Any] = [structlog.processors.add_log_level,
                         structlog.processors.TimeStamper(fmt="iso", utc=True),
                         _add_process]
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[*shared, _stdlib_name],
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                    structlog.processors.format_exc_info, renderer]))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(lvl)
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "uvicorn.asgi"):
        # uvicorn's own handlers would print its lines in its format, past the renderer
        logging.getLogger(name).handlers[:] = []
        logging.getLogger(name).propagate = True
    sockets = logging.getLogger("uvicorn.error")
    sockets.filters[:] = [f for f in sockets.filters if not isinstance(f, _BareSocketLines)]
    if lvl > logging.DEBUG:
        sockets.addFilter(_BareSocketLines())
    structlog.configure(
        processors=[*shared, structlog.processors.format_exc_info, renderer],
        wrapper_class=structlog.make_filtering_bound_logger(lvl),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
        cache_logger_on_first_use=True)


def get_logger(name: str, **bound: Any) -> Any:
    """A logger with ``component=name`` and ``bound`` fields (e.g. ``table=…``).

    Lazy: it takes the configuration when it first logs. A module logger is made at import,
    and ``einauge serve`` imports some modules (server/supervise.py) before ``configure``:
    bound at once, theirs kept structlog's defaults and wrote to stdout, past the log."""
    return structlog.get_logger(component=name, **bound)


_WS_LOG = get_logger("ws")
