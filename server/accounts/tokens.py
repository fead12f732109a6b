"""Personal API tokens (docs/bot-api.md; docs/protocol.md §1, "Bot accounts and API
tokens").

Any account may hold up to ``api_tokens_max`` tokens, each named (1–40 characters, no
control character) and scoped ``play`` (everything the account may do at tables: create,
join, play over the websocket, resign, rematch; and read) or ``read`` (``GET`` requests
only). A token is ``ctk_`` + 32 random bytes (``secrets.token_urlsafe``, 43 characters):
the prefix tells it apart from a seat token in the same ``Authorization: Bearer`` header
and in the websocket ``hello``. It is shown once, in the answer that creates it; Redis
keeps only its SHA-256 (server/store/api_tokens.py), which is enough for a secret of 256
random bits (no dictionary to try: a keyed or slow hash would add nothing). Listing gives
id, name, scope, created and last used, never the token.

Refusals (``LobbyError``): 400 ``bad_message`` (name or scope), 409 ``too_many_tokens``,
429 ``rate_limited`` (``api_tokens_per_hour`` creations per account), 404 ``no_token``.
"""

from __future__ import annotations

import secrets
import time
import unicodedata
from dataclasses import dataclass
from typing import Any

from server.errors import LobbyError
from server.store.api_tokens import TokenStore, secret_hash

PREFIX = "ctk_"
SCOPES = ("play", "read")
NAME_MAX = 40
TOKEN_MAX = 64
"""Longest text taken as a token (the websocket ``hello``'s ``token`` limit)."""


def looks_like(token: str | None) -> bool:
    """True for the text of an API token (by its prefix), not a seat token."""
    return bool(token) and token.startswith(PREFIX)  # type: ignore[union-attr]


@dataclass(frozen=True)
class ApiToken:
    """A stored token (never its text): ``created_at``/``last_used`` in seconds
    (``last_used`` 0: never used)."""

    id: str
    uid: str
    name: str
    scope: str
    created_at: float
    last_used: float
    hashed: str

    @property
    def plays(self) -> bool:
        """True for a ``play`` token (a ``read`` token may only read)."""
        return self.scope == "play"

    def listed(self) -> dict[str, Any]:
        """What ``GET /api/account/tokens`` shows of it."""
        return {"id": self.id, "name": self.name, "scope": self.scope,
                "created_at": self.created_at,
                "last_used": self.last_used or None}


def _row(row: dict[str, str], hashed: str = "") -> ApiToken:
    """A stored row as an ``ApiToken`` (``hashed``: its key's hash, when known)."""
    return ApiToken(id=row["id"], uid=row["uid"], name=row.get("name", ""),
                    scope=row.get("scope", "read"),
                    created_at=float(row.get("created_at") or 0),
                    last_used=float(row.get("last_used") or 0), hashed=hashed)


def check_name(name: Any) -> str:
    """The stripped name; 400 ``bad_message`` unless 1–40 characters without control
    or format characters."""
    if not isinstance(name, str):
        raise LobbyError(400, "bad_message", "name must be a string")
    text: str = name.strip()
    if not 1 <= len(text) <= NAME_MAX or any(
            unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") for c in text):
        raise LobbyError(400, "bad_message",
                         f"a token's name has 1-{NAME_MAX} characters, no control characters")
    return text


def check_scope(scope: Any) -> str:
    """``play`` or ``read``; 400 ``bad_message`` otherwise."""
    if not isinstance(scope, str) or scope not in SCOPES:
        raise LobbyError(400, "bad_message", "scope must be \"play\" or \"read\"")
    return scope


class Tokens:
    """Token operations on a ``TokenStore``: ``per_hour`` creations per account in an
    hour that opens with the first (shared by all processes), ``most`` tokens per
    account."""

    def __init__(self, store: TokenStore, per_hour: int, most: int) -> None:
        self.store = store
        self.per_hour = per_hour
        self.most = most

    async def create(self, uid: str, name: Any, scope: Any) -> tuple[str, ApiToken]:
        """A new token of account ``uid``: (its text, shown once; the stored token).
        Raises as the module docstring says; a refusal stores nothing."""
        name, scope = check_name(name), check_scope(scope)
        if await self.store.count(uid) >= self.most:
            raise LobbyError(409, "too_many_tokens",
                             f"an account holds at most {self.most} tokens: revoke one first")
        if await self.store.created(uid, 3600) > self.per_hour:
            raise LobbyError(429, "rate_limited",
                             f"at most {self.per_hour} new tokens per hour")
        text = PREFIX + secrets.token_urlsafe(32)
        token_id = secrets.token_urlsafe(9)
        hashed = secret_hash(text)
        now = time.time()
        await self.store.create(uid, token_id, hashed, {
            "name": name, "scope": scope, "created_at": repr(now)})
        return text, ApiToken(id=token_id, uid=uid, name=name, scope=scope, created_at=now,
                              last_used=0.0, hashed=hashed)

    async def resolve(self, text: str) -> ApiToken | None:
        """The live token ``text`` is, or ``None`` (unknown, revoked, malformed)."""
        if not looks_like(text) or len(text) > TOKEN_MAX:
            return None
        hashed = secret_hash(text)
        row = await self.store.lookup(hashed)
        return None if row is None else _row(row, hashed)

    async def used(self, token: ApiToken, at: float) -> None:
        """Note a use; written at most once a minute per token (one request after
        another would otherwise each write)."""
        if at - token.last_used >= 60:
            await self.store.touch(token.hashed, at)

    async def listing(self, uid: str) -> list[dict[str, Any]]:
        """The account's tokens as ``ApiToken.listed``, oldest first."""
        rows = [_row(r) for r in await self.store.tokens(uid)]
        return [t.listed() for t in sorted(rows, key=lambda t: (t.created_at, t.id))]

    async def placed(self, token: ApiToken, table_id: str, given: list[str]) -> None:
        """Note that ``token`` was given the seat or owner tokens ``given`` (their text)
        at ``table_id``, or (none given) opened a socket there: its revocation withdraws
        them (``revoke``)."""
        await self.store.placed(token.uid, token.id, table_id, [secret_hash(t) for t in given])

    async def revoke(self, uid: str, token_id: str) -> dict[str, set[str]]:
        """Revoke the account's token; returns where it was used (table id → hashes of
        the seat and owner tokens it was given there) for the caller to withdraw; 404
        ``no_token`` when the account has none of that id."""
        places = await self.store.revoke(uid, token_id)
        if places is None:
            raise LobbyError(404, "no_token", "your account has no token of that id")
        return places
