"""Server-side sessions in Redis (docs/protocol.md §1, "Sessions").

The browser holds only a random session id in the cookie ``cardtable_session``
(``HttpOnly``, ``SameSite=Lax``, ``Path=/``, ``Secure`` when the request came over TLS);
Redis holds the session under the SHA-256 of that id (so a copy of Redis holds no
usable cookie), with the account id and the session's CSRF token (``server.http.csrf``), and
expires it after ``session_ttl`` seconds. The cookie's former name, ``einauge_session``, is
still read for one release when the new one is absent; ``server.http.csrf`` then moves the
browser to the new name (sets it, clears the old), so nobody is logged out by the rename.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass

from starlette.requests import HTTPConnection
from starlette.responses import Response

from server.accounts.accounts import Account, Accounts
from server.store.accounts import AccountStore

COOKIE = "cardtable_session"
LEGACY_COOKIE = "einauge_session"
"""The cookie's name before the service was called Cardtable (read for one release)."""


def cookie_sid(conn: HTTPConnection) -> tuple[str | None, bool]:
    """The session id the request's cookies carry and whether it came from
    ``LEGACY_COOKIE`` (only read when ``COOKIE`` is absent)."""
    sid = conn.cookies.get(COOKIE)
    if sid:
        return sid, False
    sid = conn.cookies.get(LEGACY_COOKIE)
    return (sid, True) if sid else (None, False)


def sid_hash(sid: str) -> str:
    """The stored form of a session id (SHA-256 hex)."""
    return hashlib.sha256(sid.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Session:
    """A live session: its key hash, CSRF token and account."""

    key: str
    csrf: str
    account: Account


async def start(store: AccountStore, account: Account, ttl: int) -> tuple[str, str]:
    """A new session for ``account``; returns (session id for the cookie, CSRF token)."""
    sid, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    await store.create_session(sid_hash(sid), account.uid, csrf, ttl)
    return sid, csrf


async def load(accounts: Accounts, sid: str | None) -> Session | None:
    """The session of cookie value ``sid``; ``None`` when absent, unknown, expired, or
    its account is gone. Raises ``redis.RedisError``."""
    if not sid or len(sid) > 128:
        return None
    key = sid_hash(sid)
    row = await accounts.store.session(key)
    if row is None:
        return None
    account = await accounts.get(row.uid)
    return None if account is None else Session(key=key, csrf=row.csrf, account=account)


def set_cookie(response: Response, conn: HTTPConnection, sid: str, ttl: int) -> None:
    """Put the session cookie on ``response`` (``Secure`` over https); a cookie of the
    former name is cleared."""
    secure = conn.url.scheme in ("https", "wss")
    response.set_cookie(COOKIE, sid, max_age=ttl, path="/", httponly=True, samesite="lax",
                        secure=secure)
    if conn.cookies.get(LEGACY_COOKIE):
        response.delete_cookie(LEGACY_COOKIE, path="/", httponly=True, samesite="lax",
                               secure=secure)


def clear_cookie(response: Response, conn: HTTPConnection) -> None:
    """Remove the session cookie (and one of the former name)."""
    for name in (COOKIE, LEGACY_COOKIE):
        response.delete_cookie(name, path="/", httponly=True, samesite="lax",
                               secure=conn.url.scheme in ("https", "wss"))
