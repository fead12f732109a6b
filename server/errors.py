"""The service's refusals: ``LobbyError`` carries the HTTP status and the stable code of
docs/protocol.md §1 (``server.http.common.guarded`` turns it into
``{"error": {"code", "message"}}``); ``Unavailable`` is a store that did not confirm."""

from __future__ import annotations


class LobbyError(Exception):
    """A lobby request that cannot be done: ``status`` (HTTP), ``code``, ``message``."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.status = status
        self.code = code
        self.message = message


class Unavailable(Exception):
    """Redis did not confirm: nothing is acknowledged (error ``unavailable``, HTTP 503)."""
