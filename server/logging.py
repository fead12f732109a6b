"""Structured logs (structlog): one line per event, table id and seq as fields.

Never pass a token, a seed or the deck to a logger: callers log ids, seats and seqs only.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

import structlog


def configure(level: str = "info", json_lines: bool = False) -> None:
    """Set up structlog and the standard library logging (uvicorn's) once per process."""
    lvl = getattr(logging, level.upper(), logging.INFO)
    logging.basicConfig(stream=sys.stderr, level=lvl, format="%(message)s")
    renderer: Any = (structlog.processors.JSONRenderer() if json_lines
                     else structlog.dev.ConsoleRenderer(colors=False))
    structlog.configure(
        processors=[structlog.processors.add_log_level,
                    structlog.processors.TimeStamper(fmt="iso", utc=True),
                    structlog.processors.format_exc_info, renderer],
        wrapper_class=structlog.make_filtering_bound_logger(lvl),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
        cache_logger_on_first_use=True)


def get_logger(name: str, **bound: Any) -> Any:
    """A logger with ``component=name`` and ``bound`` fields (e.g. ``table=…``).

    Lazy: it takes the configuration when it first logs. A module logger is made at import,
    and ``einauge serve`` imports some modules (server/supervise.py) before ``configure``:
    bound at once, theirs kept structlog's defaults and wrote to stdout, past the log."""
    return structlog.get_logger(component=name, **bound)
