"""Accounts: sign-up, login (argon2id through argon2-cffi, limited per account and per
address), settings, and deletion (docs/protocol.md §1, "Accounts").

A username is 3–20 letters, digits, ``_`` or ``-`` after Unicode NFKC normalisation
(server/accounts/names.py), unique regardless of case and of look-alikes (one name per
skeleton; names the service keeps are refused); a password 8–256 characters. Refusals
(``LobbyError``): 409 ``name_taken``, 409 ``name_lookalike``, 409 ``name_reserved``, 401
``bad_login`` (unknown name or wrong password: one answer for both), 429 ``locked_out``
(too many failed logins for this name from this address, or from this address at all, in
the window; the right password is refused too until the window ends). A name that exists
and one that does not are locked out alike; failures from one address never lock the
owner out on another.
"""

from __future__ import annotations

import asyncio
import functools
import json
import re
import secrets
import time
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from engine.chain import REDACTED
from server.accounts import audit, names
from server.errors import LobbyError
from server.store.accounts import AccountStore
from server.table.meta import DELETED  # noqa: F401  (re-exported: callers import it here)

USERNAME = re.compile(r"^[A-Za-z0-9_-]{3,20}$")
DELETED_NAME = REDACTED
"""The name a deleted account's seats get (``engine.chain.REDACTED``)."""

_hasher = PasswordHasher()  # argon2id with the library's (RFC 9106 low-memory) parameters


@functools.cache
def _dummy() -> str:
    """A hash to verify against for unknown names, so an unknown name costs the same time
    (made on first use: hashing at import slowed every process start by a tenth of a
    second to half a second)."""
    return _hasher.hash(secrets.token_urlsafe(16))

DEFAULT_SETTINGS: dict[str, bool] = {
    "notify_browser": True,   # a browser notification when it becomes your turn
    "notify_sound": False,    # ... and a sound
    "email_turn": True,       # e-mail at your turn in async games
    "email_end": True,        # e-mail when an async game ends
    "email_invite": False,    # e-mail when a friend invites you to a table (opt-in)
}


@dataclass
class Account:
    """A loaded account. ``settings``: ``DEFAULT_SETTINGS`` keys → bool."""

    uid: str
    username: str
    created_at: float
    email: str = ""
    email_ok: str = ""
    """The address last confirmed through its verification link (mails go only when it
    is ``email``)."""
    bot: bool = False
    settings: dict[str, bool] = field(default_factory=dict)
    roles: frozenset[str] = frozenset()
    """``admin`` and/or ``moderator`` (server/admin/ops.py)."""
    banned: str = ""
    """The reason of a ban while the account is banned (it can neither log in nor use a
    session), else ''."""
    muted_until: float = 0.0
    """Seconds (the service's clock) until which the moderation refuses the account's chat
    (server/admin/moderation.py); past it, or 0, the account may chat."""
    suspended_until: float = 0.0
    """Seconds (the service's clock) until which the account is suspended: no play, no
    chat, no change through its session but logging out (server/admin/moderation.py)."""

    def public(self) -> dict[str, Any]:
        """What anyone may see."""
        return {"username": self.username, "created_at": self.created_at, "bot": self.bot}

    def private(self) -> dict[str, Any]:
        """What the account itself sees."""
        return {**self.public(), "id": self.uid, "email": self.email,
                "email_verified": self.verified, "settings": self.settings,
                "roles": sorted(self.roles), "muted_until": self.muted_until or None,
                "suspended_until": self.suspended_until or None}

    @property
    def verified(self) -> bool:
        """True when the account's address is set and confirmed."""
        return bool(self.email) and self.email == self.email_ok


def from_fields(uid: str, f: dict[str, str]) -> Account | None:
    """An account from its hash, ``None`` for an empty hash."""
    if not f.get("username"):
        return None
    return Account(uid=uid, username=f["username"], created_at=float(f.get("created_at", 0)),
                   email=f.get("email", ""), email_ok=f.get("email_ok", ""),
                   bot=f.get("bot") == "1",
                   settings={**DEFAULT_SETTINGS, **json.loads(f.get("settings") or "{}")},
                   roles=frozenset(r for r in f.get("roles", "").split(",") if r),
                   banned=f.get("banned", ""),
                   muted_until=float(f.get("muted_until") or 0),
                   suspended_until=float(f.get("suspended_until") or 0))


def check_username(name: Any) -> str:
    """``name`` normalised (NFKC, stripped: ``names.normalise``) if valid; raises 400
    ``bad_username`` (an invisible, control or bidi character named in the message)."""
    if not isinstance(name, str) or len(name) > 64:
        raise LobbyError(400, "bad_username", "a username is 3-20 letters, digits, _ or -")
    try:
        name = names.normalise(name)
    except ValueError as e:
        raise LobbyError(400, "bad_username", str(e)) from None
    if not USERNAME.match(name):
        raise LobbyError(400, "bad_username",
                         "a username is 3-20 letters, digits, _ or -")
    return name


def check_password(pw: Any) -> str:
    """``pw`` if valid; raises 400 ``bad_password``."""
    if not isinstance(pw, str) or not 8 <= len(pw) <= 256:
        raise LobbyError(400, "bad_password", "a password has 8-256 characters")
    return pw


def check_email(email: Any) -> str:
    """``email`` ('' allowed: none) if it looks like an address; raises 400 ``bad_email``,
    also for an address holding a control, format (invisible, direction-changing: U+200B,
    U+202E, …), private-use, unassigned or separator character other than the ASCII
    space, which is refused by the pattern: such an address shows as another one."""
    if email in (None, ""):
        return ""
    if isinstance(email, str):
        hidden = next((ch for ch in email if unicodedata.category(ch)[0] in "CZ"
                       and ch != " "), None)
        if hidden is not None:
            raise LobbyError(400, "bad_email", "an e-mail address may not hold invisible, "
                             f"control or direction-changing characters (U+{ord(hidden):04X})")
    if (not isinstance(email, str) or len(email) > 254
            or not re.match(r"^[^@\s<>,;\"]+@[^@\s<>,;\"]+\.[^@\s<>,;\"]+$", email)):
        raise LobbyError(400, "bad_email", "not an e-mail address")
    return email


def name_refused(name: str, why: str) -> LobbyError:
    """The 409 for a name ``AccountStore.reserve_name`` refused (``why``: ``taken`` or
    ``lookalike``)."""
    if why == "lookalike":
        return LobbyError(409, "name_lookalike",
                          f"the username {name!r} looks like another account's")
    return LobbyError(409, "name_taken", f"the username {name!r} is taken")


async def _hash(password: str) -> str:
    # argon2 takes tens of milliseconds of CPU: off the event loop.
    return await asyncio.to_thread(_hasher.hash, password)


async def _verify(stored: str, password: str) -> bool:
    def run() -> bool:
        try:
            return _hasher.verify(stored, password)
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return False
    return await asyncio.to_thread(run)


class Accounts:
    """Account operations on an ``AccountStore``. ``window``: seconds of the failed-login
    window; ``per_account``/``per_address``: failures allowed in it; ``reserved``: names
    nobody may sign up with (the bots' rated accounts), any case."""

    def __init__(self, store: AccountStore, window: int, per_account: int,
                 per_address: int, reserved: frozenset[str] = frozenset()) -> None:
        self.store = store
        self.reserved = names.Reserved(reserved)
        """Names nobody may take, matched by skeleton (``in``)."""
        self.window = window
        self.per_account = per_account
        self.per_address = per_address

    async def get(self, uid: str) -> Account | None:
        """The account of ``uid``, or ``None``."""
        return from_fields(uid, await self.store.account(uid))

    async def by_name(self, username: str) -> Account | None:
        """The account named ``username`` (any case), or ``None``."""
        uid = await self.store.uid_of(username)
        return None if uid is None else await self.get(uid)

    async def sign_up(self, username: Any, password: Any, email: Any = "") -> Account:
        """A new account; raises 400 ``bad_username``/``bad_password``/``bad_email`` or
        409 ``name_taken``."""
        name, pw, mail = check_username(username), check_password(password), check_email(email)
        if name in self.reserved:
            raise LobbyError(409, "name_reserved", f"the username {name!r} is the service's "
                                                   "(a role's or a bot's)")
        uid = secrets.token_urlsafe(9)
        hashed = await _hash(pw)
        refused = await self.store.reserve_name(name, uid, names.skeleton(name))
        if refused:
            raise name_refused(name, refused)
        now = time.time()
        await self.store.create_account(uid, {
            "username": name, "pw": hashed, "created_at": repr(now), "email": mail,
            "settings": json.dumps(DEFAULT_SETTINGS)})
        return Account(uid=uid, username=name, created_at=now, email=mail,
                       settings=dict(DEFAULT_SETTINGS))

    async def index_lookalikes(self) -> int:
        """Give each existing account's name its look-alike key (accounts made before the
        key existed), once per store (a marker key); returns how many were indexed. Where
        two existing names look alike, both accounts keep their names; the first one
        indexed holds the key, so no new account takes a third."""
        if not await self.store.begin_lookalike_index():
            return 0
        done = 0
        for _, uid in await self.store.names():
            account = await self.get(uid)
            if account is not None:
                try:
                    skel = names.skeleton(account.username)
                except ValueError:
                    continue
                done += await self.store.claim_lookalike(skel, uid)
        return done

    async def log_in(self, username: Any, password: Any, address: str) -> Account:
        """The account if the password is right; raises 401 ``bad_login`` or 429
        ``locked_out`` (see the module docstring). Each failure counts for the address
        and for the pair (name, address), whether or not the name exists: the lockout
        answers the same for a name nobody holds (no enumeration), and a stranger's
        failures from another address never lock the owner out. Every outcome has its
        audit line and metric (server/accounts/audit.py)."""
        uid: str | None = None
        try:
            if not isinstance(username, str) or not isinstance(password, str) \
                    or len(username) > 64 or len(password) > 256:
                raise LobbyError(401, "bad_login", "wrong username or password")
            valid = bool(USERNAME.match(username))
            uid = await self.store.uid_of(username) if valid else None
            pair = f"n:{username.lower()}:{address}"
            if await self.store.failures(f"ip:{address}", self.window) >= self.per_address:
                raise LobbyError(429, "locked_out", "too many failed logins from your "
                                                    f"address; try again within "
                                                    f"{self.window} s")
            if valid and await self.store.failures(pair, self.window) >= self.per_account:
                raise LobbyError(429, "locked_out", "too many failed logins for this name "
                                                    "from your address; try again within "
                                                    f"{self.window} s")
            fields = await self.store.account(uid) if uid is not None else {}
            stored = fields.get("pw") or await asyncio.to_thread(_dummy)
            if not await _verify(stored, password) or not fields.get("pw"):
                await self.count_failure(address, pair if valid else None, uid)
                raise LobbyError(401, "bad_login", "wrong username or password")
        except LobbyError as e:
            audit.login_refused(e.code, address, "password", uid)
            raise
        if _hasher.check_needs_rehash(stored):
            await self.store.update_account(uid, {"pw": await _hash(password)})  # type: ignore[arg-type]
        account = from_fields(uid, fields)  # type: ignore[arg-type]
        assert account is not None
        if account.banned:
            audit.login_refused("banned", address, "password", account.uid)
            raise LobbyError(403, "banned", "this account is banned")
        audit.logged_in(account.uid, address, "password")
        return account

    async def count_failure(self, address: str, pair: str | None = None,
                            uid: str | None = None) -> None:
        """Count a failed login (or password check) from ``address`` and, with ``pair``,
        of one name from it (``n:<name>:<address>``); the failure that reaches a limit
        begins a lockout, which gets its audit line."""
        if await self.store.fail(f"ip:{address}", self.window) == self.per_address:
            audit.locked_out("address", address)
        if pair is not None and await self.store.fail(pair, self.window) == self.per_account:
            audit.locked_out("name", address, uid)

    async def check_password_of(self, account: Account, password: Any) -> None:
        """Raise 401 ``bad_login`` unless ``password`` is the account's."""
        fields = await self.store.account(account.uid)
        if not isinstance(password, str) or not fields.get("pw") \
                or not await _verify(fields["pw"], password):
            raise LobbyError(401, "bad_login", "wrong password")

    async def change_password(self, account: Account, current: Any, new: Any,
                              address: str) -> None:
        """Set ``new`` as the password if ``current`` is the account's; raises 400
        ``bad_password`` (``new`` not 8-256 characters, or equal to ``current``), 401
        ``bad_login`` (wrong current password; counted as a failed login of the account
        from ``address``) or 429 ``locked_out`` (as ``log_in``: a stolen session cannot
        guess the password faster than a login could). Nothing changes on a refusal."""
        pair = f"n:{account.username.lower()}:{address}"
        if await self.store.failures(f"ip:{address}", self.window) >= self.per_address \
                or await self.store.failures(pair, self.window) >= self.per_account:
            raise LobbyError(429, "locked_out", "too many wrong passwords; try again within "
                                                f"{self.window} s")
        pw = check_password(new)
        fields = await self.store.account(account.uid)
        if not isinstance(current, str) or len(current) > 256 or not fields.get("pw") \
                or not await _verify(fields["pw"], current):
            await self.count_failure(address, pair, account.uid)
            raise LobbyError(401, "bad_login", "wrong current password")
        if pw == current:
            raise LobbyError(400, "bad_password", "the new password is the current one")
        await self.store.set_password(account.uid, await _hash(pw))

    async def reset_password(self, token: Any, new: Any) -> Account:
        """Set ``new`` as the password of the account a live reset token
        (``AccountStore.new_reset``) names, spending the token; raises 400
        ``bad_password`` (the token is kept then) or 400 ``bad_token`` (unknown, used,
        replaced or expired)."""
        bad = LobbyError(400, "bad_token", "this reset link is unknown, used or expired")
        if not isinstance(token, str) or not 0 < len(token) <= 128:
            raise bad
        pw = check_password(new)
        if not await self.store.reset_pending(token):
            raise bad
        hashed = await _hash(pw)  # before spending: a crash here leaves the link usable
        uid = await self.store.use_reset(token)
        account = await self.get(uid) if uid is not None else None
        if account is None:
            raise bad
        if account.banned:  # the link is spent, the password unchanged
            raise LobbyError(403, "banned", "this account is banned")
        await self.store.set_password(uid, hashed)  # type: ignore[arg-type]
        return account

    async def update_settings(self, account: Account, given: Any) -> Account:
        """Change ``email`` and the boolean ``settings`` keys given; raises 400
        ``bad_message``/``bad_email``; nothing changes on a refusal."""
        if not isinstance(given, dict):
            raise LobbyError(400, "bad_message", "the body must be an object")
        unknown = set(given) - {"email", *DEFAULT_SETTINGS}
        if unknown:
            raise LobbyError(400, "bad_message", f"unknown settings: {sorted(unknown)}")
        settings = dict(account.settings)
        for k in DEFAULT_SETTINGS:
            if k in given:
                if not isinstance(given[k], bool):
                    raise LobbyError(400, "bad_message", f"{k} must be true or false")
                settings[k] = given[k]
        email = check_email(given["email"]) if "email" in given else account.email
        await self.store.update_account(account.uid, {"settings": json.dumps(settings),
                                                      "email": email})
        account.settings, account.email = settings, email
        return account
