"""Redis layout of accounts, sessions, game lists and ratings (docs/protocol.md §3,
"Accounts").

Every key carries a hash tag so that it works on Redis Cluster, and every command touches
one key or keys of one slot (one account's keys share ``{u:<uid>}``; a table's keys share
``{<table id>}`` as in ``server.store.streams``). Operations that span accounts are sequences of
one-slot commands, each safe to repeat: the rating of one account changes in one script
that also marks the table as applied to it (``APPLY_RATING``), so a repeat changes nothing.
Only this module knows these key names.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from dataclasses import dataclass
from typing import Any

import redis.asyncio as aioredis

from server.store.streams import meta_key
from server.table.meta import expand

APPLY_RATING_LUA = """
local ratings, rated = KEYS[1], KEYS[2]
local game, table_id, mu0, sigma0 = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local dmu, dsigma, floor, note = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), ARGV[8]
if redis.call('HEXISTS', rated, table_id) == 1 then return 0 end
local raw = redis.call('HGET', ratings, game)
local r
if raw then r = cjson.decode(raw) else r = {mu = mu0, sigma = sigma0, games = 0} end
r.mu = r.mu + dmu
r.sigma = math.max(floor, r.sigma + dsigma)
r.games = r.games + 1
redis.call('HSET', ratings, game, cjson.encode(r))
redis.call('HSET', rated, table_id, note)
return 1
"""


def account_key(uid: str) -> str:
    """The account hash: ``username``, ``pw`` (argon2id), ``created_at``, ``email``,
    ``settings`` (JSON), ``bot`` (``1`` for a bot's account)."""
    return f"u:{{u:{uid}}}"


def tables_key(uid: str) -> str:
    """Hash table id → JSON ``{seat?, owner?}``: the seat the account holds there and
    ``owner: true`` when it holds the creator's role. No token is stored: a device asks
    ``GET /api/me/tables/{id}``, which gives the seat (and creator role) a fresh token
    (``server.http.accounts.held``). Rows written before kept the clear ``token`` and
    ``owner`` tokens; ``held``/``all_held`` drop them and rewrite the row."""
    return f"u:{{u:{uid}}}:tables"


def games_key(uid: str) -> str:
    """Sorted set of the table ids the account sat at, by the time it sat down."""
    return f"u:{{u:{uid}}}:games"


def ratings_key(uid: str) -> str:
    """Hash game → JSON ``{mu, sigma, games}``."""
    return f"u:{{u:{uid}}}:ratings"


def rated_key(uid: str) -> str:
    """Hash table id → JSON of the rating change that table applied (the exactly-once
    mark, and the profile's history)."""
    return f"u:{{u:{uid}}}:rated"


def sessions_of_key(uid: str) -> str:
    """Set of the session key hashes of the account (logout everywhere, deletion)."""
    return f"u:{{u:{uid}}}:sessions"


def name_key(username: str) -> str:
    """String: the uid of a username (case-insensitive)."""
    return f"name:{{n:{username.lower()}}}"


def lookalike_key(skel: str) -> str:
    """String: the uid of the account whose name has the skeleton ``skel``
    (``server.accounts.names.skeleton``), keyed by the skeleton's SHA-256 so that the key
    does not spell the name. Claimed before the name (``reserve_name``): every name of one
    skeleton is claimed through this one key, so no two accounts created or renamed since
    it exists share a skeleton."""
    return f"lookalike:{{k:{hashlib.sha256(skel.encode()).hexdigest()[:32]}}}"


RELEASE_LUA = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


def session_key(sid_hash: str) -> str:
    """The session hash ``uid``, ``csrf``, ``created_at``; expires."""
    return f"s:{{s:{sid_hash}}}"


def leaderboard_key(game: str) -> str:
    """Sorted set uid → displayed rating of ``game``."""
    return f"lb:{{lb:{game}}}"


def outcome_key(table_id: str) -> str:
    """The rated result of a table, frozen once (JSON), in the table's slot."""
    return f"t:{{{table_id}}}:rating"


def failures_key(who: str) -> str:
    """The failed-login counter of ``who`` (``n:<name lowercased>:<address>`` or
    ``ip:<address>``); it lives for the window from its first failure."""
    return f"lf:{{{who}}}"


def passkeys_key(uid: str) -> str:
    """Hash credential id (base64url) → JSON ``{key, count, created_at}``: the account's
    passkeys (``key``: the COSE public key, base64url)."""
    return f"u:{{u:{uid}}}:passkeys"


def credential_key(credential_id: str) -> str:
    """String: the uid a passkey (credential id, base64url) belongs to."""
    return f"pk:{{p:{credential_id}}}"


def ceremony_key(ticket: str) -> str:
    """A WebAuthn ceremony in progress (JSON ``{challenge, uid?}``), used once; expires.
    Keyed by the SHA-256 of the ticket (``secret_hash``)."""
    return f"wa:{{c:{secret_hash(ticket)}}}"


def verification_key(token: str) -> str:
    """String ``<uid> <email>``: an e-mail confirmation link's token, keyed by its
    SHA-256 (``secret_hash``); used once; expires."""
    return confirmation_key(secret_hash(token))


def confirmation_key(token_hash: str) -> str:
    """``verification_key`` of a token known by its ``secret_hash``."""
    return f"ev:{{{token_hash}}}"


def confirmations_key(uid: str) -> str:
    """Set of the ``secret_hash`` of every confirmation token of the account that may
    still be live (``verification_key``), so a deletion removes them with the address
    they hold; expires with the newest of them."""
    return f"u:{{u:{uid}}}:confirm"


def reset_key(uid: str) -> str:
    """String: the SHA-256 (``secret_hash``) of the account's one live password reset
    token; used once; expires (a new request replaces it)."""
    return f"u:{{u:{uid}}}:reset"


def reset_mail_key(uid: str) -> str:
    """Present while the account may get no further reset mail (``SET NX EX``)."""
    return f"u:{{u:{uid}}}:resetmail"


def secret_hash(secret: str) -> str:
    """The only stored form of a high-entropy secret the service hands out (session id,
    seat token, confirmation, reset and ceremony tokens): SHA-256 hex. A copy of Redis
    then holds nothing that works as a credential."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


RESET_USE_LUA = """
local stored = redis.call('GET', KEYS[1])
if stored and stored == ARGV[1] then redis.call('DEL', KEYS[1]) return 1 end
return 0
"""


def _s(raw: Any) -> str:
    return raw.decode() if isinstance(raw, bytes) else str(raw)


def _fields(raw: dict[Any, Any]) -> dict[str, str]:
    return {_s(k): _s(v) for k, v in raw.items()}


def _no_tokens(held: dict[str, Any]) -> dict[str, Any]:
    """A held row as stored: ``seat`` and ``owner: true``, never a token."""
    out: dict[str, Any] = {}
    if isinstance(held.get("seat"), int):
        out["seat"] = held["seat"]
    if held.get("owner"):
        out["owner"] = True
    return out


@dataclass(frozen=True)
class SessionRow:
    """A stored session."""

    uid: str
    csrf: str


class AccountStore:
    """Typed access to the account keys of one Redis (the ``Store``'s client)."""

    def __init__(self, client: aioredis.Redis) -> None:
        self.redis = client
        self._apply = client.register_script(APPLY_RATING_LUA)
        self._reset_use = client.register_script(RESET_USE_LUA)
        self._release = client.register_script(RELEASE_LUA)

    # ---- accounts ----------------------------------------------------------------------

    async def reserve_name(self, username: str, uid: str, skel: str | None = None) -> str:
        """Claim ``username`` for ``uid``, and with ``skel`` first its look-alike key
        (``lookalike_key``; the claim is the ``SET NX`` of that one key, so two sign-ups of
        look-alike names cannot both pass). Returns ``""``, ``"lookalike"`` (another
        account holds the skeleton) or ``"taken"`` (the name itself; the skeleton claimed
        here is released again)."""
        if await self.redis.exists(name_key(username)):
            return "taken"  # the very name (any case): say so rather than "looks like"
        claimed = False
        if skel is not None:
            key = lookalike_key(skel)
            claimed = bool(await self.redis.set(key, uid, nx=True))
            if not claimed and _s(await self.redis.get(key) or b"") != uid:
                return "lookalike"
        if await self.redis.set(name_key(username), uid, nx=True):
            return ""
        if claimed:
            await self.release_lookalike(skel, uid)  # type: ignore[arg-type]
        return "taken"

    async def release_lookalike(self, skel: str, uid: str) -> None:
        """Drop the look-alike key of ``skel`` if ``uid`` holds it."""
        await self._release(keys=[lookalike_key(skel)], args=[uid])

    async def claim_lookalike(self, skel: str, uid: str) -> bool:
        """Claim the look-alike key of ``skel`` for ``uid`` unless another account holds
        it (an existing account's name, indexed after the fact); True when ``uid`` holds
        it now."""
        key = lookalike_key(skel)
        return bool(await self.redis.set(key, uid, nx=True)) or \
            _s(await self.redis.get(key) or b"") == uid

    async def begin_lookalike_index(self) -> bool:
        """True the first time only (the marker ``lookalike:{k:indexed}``): the caller
        indexes the existing names."""
        return bool(await self.redis.set("lookalike:{k:indexed}", "1", nx=True))

    async def names(self) -> list[tuple[str, str]]:
        """(lowercased name, uid) of every account name (a scan of the name keys)."""
        out = []
        async for key in self.redis.scan_iter(match="name:{n:*", count=1000):
            raw = await self.redis.get(key)
            if raw is not None:
                out.append((_s(key)[len("name:{n:"):-1], _s(raw)))
        return out

    async def uid_of(self, username: str) -> str | None:
        """The uid of ``username`` (any case), or ``None``."""
        raw = await self.redis.get(name_key(username))
        return None if raw is None else _s(raw)

    async def create_account(self, uid: str, fields: dict[str, str]) -> None:
        """Store a new account's hash."""
        await self.redis.hset(account_key(uid), mapping=fields)

    async def account(self, uid: str) -> dict[str, str]:
        """The account hash (empty when there is none)."""
        return _fields(await self.redis.hgetall(account_key(uid)))

    async def accounts(self, uids: list[str]) -> list[dict[str, str]]:
        """Several account hashes in one round trip (one key per command)."""
        pipe = self.redis.pipeline(transaction=False)
        for uid in uids:
            pipe.hgetall(account_key(uid))
        return [_fields(r) for r in await pipe.execute()]

    async def new_verification(self, uid: str, email: str, ttl: int) -> str:
        """A one-use token (base64url) that confirms ``email`` for ``uid`` within ``ttl``
        s (``ev:{<token>}`` → ``<uid> <email>``)."""
        token = secrets.token_urlsafe(24)
        # The index first: no token key exists that a deletion could not find.
        pipe = self.redis.pipeline(transaction=True)  # one slot: the account's
        pipe.sadd(confirmations_key(uid), secret_hash(token))
        pipe.expire(confirmations_key(uid), ttl)
        await pipe.execute()
        await self.redis.set(verification_key(token), f"{uid} {email}", ex=ttl)
        return token

    async def use_verification(self, token: str) -> tuple[str, str] | None:
        """``(uid, email)`` of a live token, which is spent (``GETDEL``); else None."""
        raw = await self.redis.getdel(verification_key(token))
        if raw is None:
            return None
        uid, _, email = raw.decode().partition(" ")
        await self.redis.srem(confirmations_key(uid), secret_hash(token))
        return uid, email

    async def update_account(self, uid: str, fields: dict[str, str]) -> None:
        """Set fields of an existing account."""
        await self.redis.hset(account_key(uid), mapping=fields)

    async def ensure_bot(self, uid: str, username: str) -> None:
        """Create a bot's account the first time it is rated."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.hsetnx(account_key(uid), "username", username)
        pipe.hsetnx(account_key(uid), "bot", "1")
        pipe.hsetnx(account_key(uid), "created_at", repr(time.time()))
        await pipe.execute()

    async def delete_account(self, uid: str, username: str, skel: str | None = None
                             ) -> list[str]:
        """Remove every key of the account, its name (and the look-alike key of ``skel``)
        and its sessions, and its entries in the leaderboards; returns the games it was
        rated in (already cleaned)."""
        ratings = _fields(await self.redis.hgetall(ratings_key(uid)))
        sessions = [_s(s) for s in await self.redis.smembers(sessions_of_key(uid))]
        for sid_hash in sessions:
            await self.redis.delete(session_key(sid_hash))
        for credential_id in _fields(await self.redis.hgetall(passkeys_key(uid))):
            await self.redis.delete(credential_key(credential_id))
        for game in ratings:
            await self.redis.zrem(leaderboard_key(game), uid)
        for token_hash in await self.redis.smembers(confirmations_key(uid)):
            # ``ev:{<hash>}``: a pending confirmation link's key holds the address.
            await self.redis.delete(confirmation_key(_s(token_hash)))
        # One slot: the account's own keys go in one command.
        await self.redis.delete(account_key(uid), tables_key(uid), games_key(uid),
                                ratings_key(uid), rated_key(uid), sessions_of_key(uid),
                                passkeys_key(uid), reset_key(uid), reset_mail_key(uid),
                                confirmations_key(uid))
        if await self.uid_of(username) == uid:
            await self.redis.delete(name_key(username))
        # The failed-login counters of the name (``n:<name>:<address>``, one key per
        # address: found by a scan) carry the name in their key.
        prefix = failures_key(f"n:{username.lower()}:")[:-1]
        async for key in self.redis.scan_iter(match=prefix + "*", count=1000):
            await self.redis.delete(key)
        if skel is not None:
            await self.release_lookalike(skel, uid)
        return list(ratings)

    async def set_password(self, uid: str, pw_hash: str) -> None:
        """Store a new password hash; any live reset token goes with the old password."""
        pipe = self.redis.pipeline(transaction=True)  # one slot: the account's keys
        pipe.hset(account_key(uid), "pw", pw_hash)
        pipe.delete(reset_key(uid))
        await pipe.execute()

    # ---- password reset ----------------------------------------------------------------

    async def reset_mail_allowed(self, uid: str, period: int) -> bool:
        """True (then send) unless a reset mail went to the account in the last
        ``period`` s; starts that period."""
        return bool(await self.redis.set(reset_mail_key(uid), "1", nx=True, ex=period))

    async def new_reset(self, uid: str, ttl: int) -> str:
        """A password reset token ``<uid>.<secret>`` valid for ``ttl`` s; replaces the
        account's previous one. Only the secret's hash is stored, in the account's slot."""
        secret = secrets.token_urlsafe(32)
        await self.redis.set(reset_key(uid), secret_hash(secret), ex=ttl)
        return f"{uid}.{secret}"

    async def use_reset(self, token: str) -> str | None:
        """The uid of a live reset token, which is spent (compare and delete in one
        script); ``None`` for an unknown, used, replaced or expired one."""
        uid, _, secret = token.partition(".")
        if not uid or not secret:
            return None
        done = await self._reset_use(keys=[reset_key(uid)], args=[secret_hash(secret)])
        return uid if int(done) == 1 else None

    async def reset_pending(self, token: str) -> bool:
        """True while the reset token is live (not spent)."""
        uid, _, secret = token.partition(".")
        if not uid or not secret:
            return False
        raw = await self.redis.get(reset_key(uid))
        return raw is not None and _s(raw) == secret_hash(secret)

    # ---- sessions ----------------------------------------------------------------------

    async def end_sessions(self, uid: str, keep: str | None = None) -> int:
        """End every session of the account but ``keep`` (a session key hash); returns
        how many ended."""
        ended = 0
        for sid_hash in [_s(s) for s in await self.redis.smembers(sessions_of_key(uid))]:
            if sid_hash == keep:
                continue
            await self.redis.delete(session_key(sid_hash))
            await self.redis.srem(sessions_of_key(uid), sid_hash)
            ended += 1
        return ended

    async def create_session(self, sid_hash: str, uid: str, csrf: str, ttl: int) -> None:
        """Store a session for ``ttl`` seconds and list it under its account."""
        key = session_key(sid_hash)
        pipe = self.redis.pipeline(transaction=False)
        pipe.hset(key, mapping={"uid": uid, "csrf": csrf, "created_at": repr(time.time())})
        pipe.expire(key, ttl)
        await pipe.execute()
        await self.redis.sadd(sessions_of_key(uid), sid_hash)

    async def session(self, sid_hash: str) -> SessionRow | None:
        """The session, or ``None`` when unknown or expired."""
        f = _fields(await self.redis.hgetall(session_key(sid_hash)))
        if not f.get("uid") or not f.get("csrf"):
            return None
        return SessionRow(uid=f["uid"], csrf=f["csrf"])

    async def delete_session(self, sid_hash: str, uid: str) -> None:
        """End one session."""
        await self.redis.delete(session_key(sid_hash))
        await self.redis.srem(sessions_of_key(uid), sid_hash)

    # ---- failed logins -----------------------------------------------------------------

    async def failures(self, who: str, window: int) -> int:
        """Failed logins of ``who`` in its window (``window`` seconds from its first
        failure)."""
        raw = await self.redis.get(failures_key(who))
        return 0 if raw is None else int(raw)

    async def fail(self, who: str, window: int) -> int:
        """Count one failed login of ``who``; returns the count in its window. The window
        opens with the first failure and is not extended by later ones (``EXPIRE NX``):
        calendar buckets would let a burst across a bucket's edge count twice the limit,
        and end a lockout moments after it began."""
        key = failures_key(who)
        pipe = self.redis.pipeline(transaction=False)
        pipe.incr(key)
        pipe.expire(key, window, nx=True)
        count, _ = await pipe.execute()
        return int(count)

    # ---- seats and games ---------------------------------------------------------------

    async def hold(self, uid: str, table_id: str, held: dict[str, Any], at: float) -> None:
        """Record what the account holds at ``table_id``: ``held`` is ``{seat?, token?,
        owner?}`` as a join or claim knows it; only ``seat`` and ``owner: true`` are
        stored, never a token (``tables_key``). Merged with what it held there before;
        the table is listed among its games."""
        old = await self.held(uid, table_id) or {}
        row = {**old, **_no_tokens(held)}
        pipe = self.redis.pipeline(transaction=True)  # one slot: both keys are the account's
        pipe.hset(tables_key(uid), table_id, json.dumps(row))
        pipe.zadd(games_key(uid), {table_id: at}, nx=True)
        await pipe.execute()

    async def release(self, uid: str, table_id: str) -> None:
        """The account no longer holds a seat at ``table_id`` (it left before the start)."""
        pipe = self.redis.pipeline(transaction=True)
        pipe.hdel(tables_key(uid), table_id)
        pipe.zrem(games_key(uid), table_id)
        await pipe.execute()

    async def held(self, uid: str, table_id: str) -> dict[str, Any] | None:
        """``{seat?, owner?}`` the account holds at ``table_id``, or ``None``."""
        raw = await self.redis.hget(tables_key(uid), table_id)
        if raw is None:
            return None
        return await self._scrubbed(uid, table_id, json.loads(raw))

    async def all_held(self, uid: str) -> dict[str, dict[str, Any]]:
        """Table id → what the account holds there."""
        return {t: await self._scrubbed(uid, t, json.loads(v)) for t, v in
                _fields(await self.redis.hgetall(tables_key(uid))).items()}

    async def _scrubbed(self, uid: str, table_id: str, row: dict[str, Any]
                        ) -> dict[str, Any]:
        """``row`` without clear tokens; a row stored before tokens were dropped
        (``tables_key``) is rewritten so (repeatable)."""
        clean = _no_tokens(row)
        if clean != row:
            await self.redis.hset(tables_key(uid), table_id, json.dumps(clean))
        return clean

    async def game_ids(self, uid: str, limit: int = 200) -> list[str]:
        """The account's tables, newest first."""
        return [_s(r) for r in await self.redis.zrevrange(games_key(uid), 0, limit - 1)]

    async def table_metas(self, table_ids: list[str]) -> list[dict[str, str]]:
        """Table meta hashes of several tables (one key per command)."""
        pipe = self.redis.pipeline(transaction=False)
        for t in table_ids:
            pipe.hgetall(meta_key(t))
        return [expand(r) for r in await pipe.execute()]

    # ---- ratings -----------------------------------------------------------------------

    async def ratings(self, uid: str) -> dict[str, dict[str, Any]]:
        """Game → ``{mu, sigma, games}`` of one account."""
        return {g: json.loads(v) for g, v in
                _fields(await self.redis.hgetall(ratings_key(uid))).items()}

    async def rating(self, uid: str, game: str) -> dict[str, Any] | None:
        """``{mu, sigma, games}`` of one account in ``game``, or ``None`` (unrated)."""
        raw = await self.redis.hget(ratings_key(uid), game)
        return None if raw is None else json.loads(raw)

    async def rated_history(self, uid: str) -> dict[str, dict[str, Any]]:
        """Table id → the rating change it applied to the account."""
        return {t: json.loads(v) for t, v in
                _fields(await self.redis.hgetall(rated_key(uid))).items()}

    async def outcome(self, table_id: str) -> list[dict[str, Any]] | None:
        """The frozen rated result of a table, or ``None``."""
        raw = await self.redis.get(outcome_key(table_id))
        return None if raw is None else json.loads(raw)

    async def freeze_outcome(self, table_id: str, outcome: list[dict[str, Any]]
                             ) -> list[dict[str, Any]]:
        """Store ``outcome`` unless one is stored already; returns the stored one (so
        every process applies the same changes)."""
        await self.redis.set(outcome_key(table_id), json.dumps(outcome), nx=True)
        stored = await self.outcome(table_id)
        assert stored is not None
        return stored

    async def apply_rating(self, uid: str, game: str, table_id: str, start: tuple[float, float],
                           dmu: float, dsigma: float, floor: float, note: dict[str, Any]
                           ) -> bool:
        """Add ``dmu``/``dsigma`` to the account's rating in ``game`` (from ``start`` =
        (mu, sigma) when it has none; sigma not below ``floor``) unless ``table_id``
        applied it already; True when applied now."""
        done = await self._apply(keys=[ratings_key(uid), rated_key(uid)],
                                 args=[game, table_id, start[0], start[1], dmu, dsigma, floor,
                                       json.dumps(note)])
        return bool(int(done))

    async def rename_opponent(self, uid: str, table_id: str, old: set[str], new: str) -> None:
        """In the rating note ``table_id`` left ``uid``, name the opponents in ``old``
        ``new`` (a deleted account's name leaves the others' histories too)."""
        raw = await self.redis.hget(rated_key(uid), table_id)
        if raw is None:
            return
        note = json.loads(raw)
        names = note.get("opponents")
        if isinstance(names, list) and old & set(names):
            note["opponents"] = [new if n in old else n for n in names]
            await self.redis.hset(rated_key(uid), table_id, json.dumps(note))

    async def set_leaderboard(self, game: str, uid: str, score: float) -> None:
        """Place the account on ``game``'s leaderboard (repeatable)."""
        await self.redis.zadd(leaderboard_key(game), {uid: score})

    async def leaderboard(self, game: str, limit: int) -> list[tuple[str, float]]:
        """(uid, displayed rating), best first."""
        rows = await self.redis.zrevrange(leaderboard_key(game), 0, limit - 1, withscores=True)
        return [(_s(u), float(s)) for u, s in rows]

    # ---- passkeys ----------------------------------------------------------------------

    async def begin_ceremony(self, ticket: str, state: dict[str, Any], ttl: int) -> None:
        """Remember a ceremony's challenge for ``ttl`` seconds."""
        await self.redis.set(ceremony_key(ticket), json.dumps(state), ex=ttl)

    async def end_ceremony(self, ticket: str) -> dict[str, Any] | None:
        """The ceremony's state, removed (a ticket works once); ``None`` if unknown."""
        raw = await self.redis.getdel(ceremony_key(ticket))
        return None if raw is None else json.loads(raw)

    async def add_passkey(self, uid: str, credential_id: str, row: dict[str, Any]) -> bool:
        """Store a passkey of ``uid``; False when that credential is registered already."""
        if not await self.redis.set(credential_key(credential_id), uid, nx=True):
            return False
        await self.redis.hset(passkeys_key(uid), credential_id, json.dumps(row))
        return True

    async def passkey_owner(self, credential_id: str) -> str | None:
        """The uid of a credential id, or ``None``."""
        raw = await self.redis.get(credential_key(credential_id))
        return None if raw is None else _s(raw)

    async def passkeys(self, uid: str) -> dict[str, dict[str, Any]]:
        """Credential id → stored row of the account's passkeys."""
        return {k: json.loads(v) for k, v in
                _fields(await self.redis.hgetall(passkeys_key(uid))).items()}

    async def set_passkey_count(self, uid: str, credential_id: str, count: int) -> None:
        """Record a passkey's new signature counter."""
        raw = await self.redis.hget(passkeys_key(uid), credential_id)
        if raw is not None:
            row = json.loads(raw)
            row["count"] = count
            await self.redis.hset(passkeys_key(uid), credential_id, json.dumps(row))
