"""HTTP API of accounts (docs/protocol.md §1, "Accounts"): sign-up, login (password or
passkey), logout, the session's account and settings, deletion, guest seats kept, and the
seat tokens an account holds. Games, profiles and leaderboards: ``server.http.profiles``.
Errors as in ``server.http.lobby``.
"""

from __future__ import annotations

import dataclasses
import html
import secrets
from typing import Any

from redis.exceptions import RedisError
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from server.accounts import audit, bot_accounts, erase, sessions
from server.accounts.accounts import Account
from server.accounts.sessions import Session
from server.admin import moderation
from server.errors import LobbyError, Unavailable
from server.http import csrf, rate, token_auth
from server.http.common import body, guarded, svc_of
from server.table.meta import TableMeta, token_hash

MAX_CLAIMS = 50


def need_session(request: Request) -> Session:
    """The request's session; raises 401 ``no_session``."""
    session = csrf.session_of(request)
    if session is None:
        raise LobbyError(401, "no_session", "log in first")
    return session


async def from_store(coro: Any) -> Any:
    """Await a store call; a Redis failure becomes ``Unavailable`` (503)."""
    try:
        return await coro
    except RedisError as e:
        raise Unavailable(str(e)) from None


def _same_site(request: Request) -> None:
    if not csrf.same_site(request, svc_of(request).settings.allowed_origins):
        raise LobbyError(403, "csrf", "sign-up and login are refused from another site")


async def _logged_in(request: Request, account: Account, status: int,
                     claims: Any) -> Response:
    svc = svc_of(request)
    claimed = await claim_seats(request, account, claims)
    sid, token = await from_store(sessions.start(svc.account_store, account,
                                             svc.settings.session_ttl))
    response = JSONResponse({"account": account.private(), "csrf": token, "claimed": claimed},
                            status_code=status)
    sessions.set_cookie(response, request, sid, svc.settings.session_ttl)
    return response


@guarded
async def sign_up(request: Request) -> Response:
    """``{username, password, email?, seats?}`` → 201 and a session cookie. ``seats``:
    the guest's ``[{table, token}]`` (and ``owner``: creator tokens), kept by the new
    account (``claim_seats``)."""
    _same_site(request)
    svc = svc_of(request)
    data = await body(request)
    if not isinstance(data, dict):
        raise LobbyError(400, "bad_message", "the body must be an object")
    addr = request.client.host if request.client else "?"
    signups = await from_store(svc.store.hit(f"signup:{addr}", 3600,
                                             svc.settings.now_ms() / 1000))
    if signups > svc.settings.signups_per_hour:
        raise LobbyError(429, "rate_limited",
                         f"at most {svc.settings.signups_per_hour} new accounts per hour per "
                         "address")
    account = await from_store(svc.accounts.sign_up(
        data.get("username"), data.get("password"), data.get("email", "")))
    audit.signed_up(account.uid, addr)
    await from_store(svc.notifier.verification(account, svc.settings.email_verify_ttl))
    return await _logged_in(request, account, 201, data.get("seats"))


@guarded
async def log_in(request: Request) -> Response:
    """``{username, password, seats?}`` → 200 and a session cookie."""
    _same_site(request)
    data = await body(request)
    if not isinstance(data, dict):
        raise LobbyError(400, "bad_message", "the body must be an object")
    addr = request.client.host if request.client else "?"
    account = await from_store(svc_of(request).accounts.log_in(
        data.get("username"), data.get("password"), addr))
    return await _logged_in(request, account, 200, data.get("seats"))


@guarded
async def log_out(request: Request) -> Response:
    """End this session (cookie and Redis)."""
    session = csrf.session_of(request)
    if session is not None:
        svc = svc_of(request)
        await from_store(svc.account_store.delete_session(session.key, session.account.uid))
        # Its /ws/me sockets close on every process (server/accounts/inbox.py).
        await from_store(svc.inbox.sessions_changed(session.account.uid))
    response = JSONResponse({"ok": True})
    sessions.clear_cookie(response, request)
    return response


@guarded
async def me(request: Request) -> Response:
    """The session's account and its CSRF token; a guest (no session) gets the same shape
    with ``null`` in both. Every page asks this on load: a 401 there was logged by each
    guest's browser as a failed request, on every page, for what is no error."""
    session = csrf.session_of(request)
    if session is None:
        return JSONResponse({"account": None, "csrf": None})
    return JSONResponse({"account": session.account.private(), "csrf": session.csrf})


@guarded
async def settings(request: Request) -> Response:
    """``PATCH /api/me/settings``: ``email`` and the boolean notification settings."""
    session = need_session(request)
    svc = svc_of(request)
    before = session.account.email
    account = await from_store(svc.accounts.update_settings(session.account,
                                                            await body(request)))
    if account.email != before:  # only a new address gets a link (no mail bombing)
        await from_store(svc.notifier.verification(account, svc.settings.email_verify_ttl))
    return JSONResponse({"account": account.private()})


_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} - Cardtable</title></head>
<body style="font-family: sans-serif; max-width: 36em; margin: 4em auto; padding: 0 1em">
<h1>{title}</h1><p>{text}</p><p><a href="/account">Your account</a> ·
<a href="/">Cardtable</a></p></body></html>
"""


def _wants_page(request: Request) -> bool:
    """True when a browser opened the link (it asks for HTML): it gets a page, any other
    client JSON."""
    return "text/html" in request.headers.get("accept", "")


def _verify_page(status: int, title: str, text: str) -> HTMLResponse:
    return HTMLResponse(_PAGE.format(title=html.escape(title), text=html.escape(text)),
                        status_code=status, headers={"Cache-Control": "no-store"})


@guarded
async def verify_email(request: Request) -> Response:
    """``GET /api/account/verify?token=`` (the link of the confirmation mail): confirms
    the address the token was made for, if the account still has it; 400 ``bad_token``
    for an unknown, used or expired token. A browser (``Accept`` with ``text/html``) gets
    a small page saying so instead of the JSON, with the same status."""
    try:
        email = await _verify(request)
    except LobbyError as e:
        if not _wants_page(request) or e.code != "bad_token":
            raise
        return _verify_page(e.status, "Link expired",
                            f"{e.message[:1].upper()}{e.message[1:]}: the address is not "
                            "confirmed. A new address given on your account page gets a "
                            "new link.")
    if _wants_page(request):
        return _verify_page(200, "Address confirmed",
                            f"Your e-mail address {email} is confirmed.")
    return JSONResponse({"verified": email})


async def _verify(request: Request) -> str:
    """The address the request's token confirms (see ``verify_email``)."""
    store = svc_of(request).account_store
    token = request.query_params.get("token", "")
    got = await from_store(store.use_verification(token)) if 0 < len(token) <= 64 else None
    if got is None:
        raise LobbyError(400, "bad_token", "this confirmation link is unknown, used or expired")
    uid, email = got
    fields = await from_store(store.account(uid))
    if fields.get("email") != email:
        raise LobbyError(400, "bad_token", "the account has another address now")
    await from_store(store.update_account(uid, {"email_ok": email}))
    return str(email)


@guarded
async def claim(request: Request) -> Response:
    """``POST /api/me/claim {seats: [{table, token?, owner?}]}``: a guest's seats (and
    tables it created) kept by the session's account."""
    session = need_session(request)
    data = await body(request)
    seats = data.get("seats") if isinstance(data, dict) else None
    return JSONResponse({"claimed": await claim_seats(request, session.account, seats)})


async def claim_seats(request: Request, account: Account, given: Any) -> list[dict[str, Any]]:
    """Keep for ``account`` each ``{table, token?, owner?}`` whose token holds a seat of
    that table (a seat no other account holds) or is its creator's token. Returns
    ``[{table, seat?, owner?, refused?}]``; a seat held for another account is refused
    (``seat_owned``), an unknown token ``bad_token``, a missing table ``no_table``."""
    if given is None:
        return []
    if not isinstance(given, list) or len(given) > MAX_CLAIMS or \
            not all(isinstance(g, dict) and isinstance(g.get("table"), str) for g in given):
        raise LobbyError(400, "bad_message",
                         f"seats must be a list of at most {MAX_CLAIMS} {{table, token}}")
    svc = svc_of(request)
    out = []
    for g in given:
        table_id, token, owner = g["table"], g.get("token"), g.get("owner")
        token = token if isinstance(token, str) and token else None
        owner = owner if isinstance(owner, str) and owner else None
        found: dict[str, Any] = {"table": table_id}

        def change(meta: TableMeta, token: str | None = token, owner: str | None = owner,
                   found: dict[str, Any] = found) -> dict[str, str]:
            if owner and meta.is_owner(owner):
                found["owner"] = owner
            seat = meta.seat_of(token)
            if seat is None:
                if "owner" not in found:
                    raise LobbyError(401, "bad_token", "no seat of this table")
                return {}
            held = meta.seats[seat].account
            if held and held != account.uid:
                raise LobbyError(409, "seat_owned", "that seat is held for another account")
            if any(s.account == account.uid for i, s in enumerate(meta.seats) if i != seat):
                raise LobbyError(409, "seated", "your account already holds a seat there")
            found["seat"], found["token"] = seat, token
            meta.seats[seat] = dataclasses.replace(meta.seats[seat], account=account.uid)
            return {"seats": meta.seats_json()}

        try:
            await svc.tables.lobby.change(table_id, change,
                                          statuses=("open", "running", "ended"))
        except LobbyError as e:
            out.append({"table": table_id, "refused": e.code})
            continue
        await svc.hold(account.uid, table_id,
                       {k: found[k] for k in ("seat", "token", "owner") if k in found})
        out.append({k: v for k, v in found.items() if k != "token"})
    return out


@guarded
async def held(request: Request) -> Response:
    """``GET /api/me/tables/{id}``: ``{table, seat, token, owner_token}`` to continue at
    that table on this device: the seat the session's account holds there (also while a
    bot plays it: the account can ``return``) and the creator's role if it has it; 404
    ``no_seat`` when none. Tokens are kept only as hashes, so each call gives the seat
    (and the role) a fresh token: the one used before stops working, and a socket of
    another device is closed (1008, the client's ``seat_lost``); the seat moves to the
    device that asked. By API token: 403 ``read_only`` (server/http/token_auth.py) and,
    at a rated table, 403 ``bot_account_needed`` for a person's account; 403 ``suspended``
    for a suspended account."""
    session = need_session(request)
    svc = svc_of(request)
    uid = session.account.uid
    # Fresh seat tokens are a change of the table: none for a suspended account (its
    # tokens handed out before change nothing either: server.http.common.by_seat).
    refusal = moderation.change_refused(session.account, svc.settings.now_ms() / 1000,
                                        "POST", request.url.path)
    if refusal is not None:
        raise refusal
    table_id = request.path_params["id"]
    got = await from_store(svc.account_store.held(uid, table_id))
    if not got:
        raise LobbyError(404, "no_seat", "your account holds nothing at this table")
    out: dict[str, Any] = {"table": table_id, "seat": None, "token": None,
                           "owner_token": None}

    by_token = token_auth.by_token(request)

    def change(meta: TableMeta) -> dict[str, str]:
        # The seat's token is the seat at a rated table: refused to a person's account's
        # API token, as its join and its socket are.
        bot_accounts.require_bot(session.account, meta.rated, by_token)
        seat = got.get("seat")
        if seat is not None and (seat >= len(meta.seats) or meta.seats[seat].account != uid
                                 or not meta.tokens[seat]):
            seat = None  # left or removed since
        owner = bool(got.get("owner")) and bool(meta.owner)
        if seat is None and not owner:
            raise LobbyError(404, "no_seat", "your account holds nothing at this table")
        fresh: dict[str, str] = {}  # old hash -> new token (the creator may sit with its own)

        def renew(old: str) -> str:
            if old not in fresh:
                fresh[old] = secrets.token_urlsafe(16)
            return fresh[old]

        fields: dict[str, str] = {}
        if seat is not None:
            out["seat"], out["token"] = seat, renew(meta.tokens[seat])
        if owner:
            out["owner_token"] = renew(meta.owner)
        for i, h in enumerate(meta.tokens):
            if h in fresh:
                meta.tokens[i] = fields[f"tok:{i}"] = token_hash(fresh[h])
        if meta.owner in fresh:
            meta.owner = fields["owner"] = token_hash(fresh[meta.owner])
        if meta.host in fresh:
            meta.host = fields["host"] = token_hash(fresh[meta.host])
        return fields

    await svc.tables.lobby.change(table_id, change, statuses=("open", "running", "ended"))
    await token_auth.placed(svc, request, table_id,
                            *(t for t in (out["token"], out["owner_token"]) if t))
    return JSONResponse(out)


@guarded
async def delete_account(request: Request) -> Response:
    """``DELETE /api/me {password}``: the account's personal data goes (name, password
    hash, e-mail, settings, sessions, seat tokens, ratings); its game records stay, each
    seat it held (also one a bot plays now, and a seat kept for it at a rematch) renamed
    ``deleted player`` everywhere the table stored the name: the seats, the game's first
    event (or archive), its chat messages; the seat's name salt goes, so the record
    keeps only the name's commitment, which the chain links (docs/fairness.md §5)."""
    session = need_session(request)
    svc = svc_of(request)
    data = await body(request)
    account = session.account
    await svc.accounts.check_password_of(account, data.get("password")
                                         if isinstance(data, dict) else None)
    await from_store(erase.erase_account(svc, account))
    audit.deleted(account.uid, request.client.host if request.client else "?")
    response = JSONResponse({"deleted": True})
    sessions.clear_cookie(response, request)
    return response


@guarded
async def passkey_register_begin(request: Request) -> Response:
    """``POST /api/me/passkeys/begin``: options and a ticket to create a passkey."""
    session = need_session(request)
    return JSONResponse(await from_store(svc_of(request).passkeys.begin_registration(
        session.account)))


@guarded
async def passkey_register(request: Request) -> Response:
    """``POST /api/me/passkeys {ticket, credential}``: store the new passkey."""
    session = need_session(request)
    data = await body(request)
    if not isinstance(data, dict):
        raise LobbyError(400, "bad_message", "the body must be an object")
    count = await from_store(svc_of(request).passkeys.finish_registration(
        session.account, data.get("ticket"), data.get("credential")))
    return JSONResponse({"passkeys": count}, status_code=201)


@guarded
async def passkey_list(request: Request) -> Response:
    """``GET /api/me/passkeys``: ``{"passkeys": [{"id", "created_at"}]}``."""
    session = need_session(request)
    rows = await from_store(svc_of(request).account_store.passkeys(session.account.uid))
    return JSONResponse({"passkeys": [{"id": k, "created_at": v["created_at"]}
                                      for k, v in rows.items()]})


@guarded
async def passkey_login_begin(request: Request) -> Response:
    """``POST /api/account/passkey/begin``: options and a ticket to log in; 429
    ``rate_limited`` beyond ``passkey_logins_per_hour`` ceremonies per address."""
    _same_site(request)
    svc = svc_of(request)
    await rate.per_hour(svc, request, "passkey", svc.settings.passkey_logins_per_hour,
                        "passkey logins")
    return JSONResponse(await from_store(svc.passkeys.begin_login()))


@guarded
async def passkey_login(request: Request) -> Response:
    """``POST /api/account/passkey/login {ticket, credential, seats?}`` → a session, as
    a password login. Failures count for the address (``locked_out`` as for passwords)."""
    _same_site(request)
    svc = svc_of(request)
    data = await body(request)
    if not isinstance(data, dict):
        raise LobbyError(400, "bad_message", "the body must be an object")
    addr = request.client.host if request.client else "?"
    accounts = svc.accounts
    try:
        if await from_store(accounts.store.failures(f"ip:{addr}", accounts.window)) >= \
                accounts.per_address:
            raise LobbyError(429, "locked_out", "too many failed logins from your address")
        try:
            uid = await from_store(svc.passkeys.finish_login(data.get("ticket"),
                                                             data.get("credential")))
        except LobbyError:
            await from_store(accounts.count_failure(addr))
            raise
        account = await from_store(accounts.get(uid))
        if account is None:
            raise LobbyError(400, "bad_passkey", "this passkey belongs to no account here")
        if account.banned:
            raise LobbyError(403, "banned", "this account is banned")
    except LobbyError as e:
        audit.login_refused(e.code, addr, "passkey")
        raise
    audit.logged_in(account.uid, addr, "passkey")
    return await _logged_in(request, account, 200, data.get("seats"))


ROUTES = [
    Route("/api/account/signup", sign_up, methods=["POST"]),
    Route("/api/account/login", log_in, methods=["POST"]),
    Route("/api/account/verify", verify_email, methods=["GET"]),
    Route("/api/account/logout", log_out, methods=["POST"]),
    Route("/api/me", me, methods=["GET"]),
    Route("/api/me", delete_account, methods=["DELETE"]),
    Route("/api/me/settings", settings, methods=["PATCH"]),
    Route("/api/me/claim", claim, methods=["POST"]),
    Route("/api/me/tables/{id}", held, methods=["GET"]),
    Route("/api/me/passkeys/begin", passkey_register_begin, methods=["POST"]),
    Route("/api/me/passkeys", passkey_register, methods=["POST"]),
    Route("/api/me/passkeys", passkey_list, methods=["GET"]),
    Route("/api/account/passkey/begin", passkey_login_begin, methods=["POST"]),
    Route("/api/account/passkey/login", passkey_login, methods=["POST"]),
]
