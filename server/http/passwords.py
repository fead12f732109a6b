"""Password change and password reset by e-mail (docs/protocol.md §1, "Accounts").

- ``POST /api/me/password {current, password}`` (session): the new password, if the
  current one is right; every other session of the account ends.
- ``POST /api/account/password-reset {username}``: if the account has a confirmed
  address, a one-use link valid ``password_reset_ttl`` s goes to it through the
  configured SMTP server (at most one per ``password_reset_period`` s per account). The
  answer is the same whether or not the name exists or a mail went (202), and the mail is
  sent after the answer, so neither tells who has an account. 503 ``no_mail`` when no SMTP
  server is configured (nothing is ever sent then), 429 ``rate_limited`` beyond
  ``password_resets_per_hour`` per address.
- ``POST /api/account/password-reset/confirm {token, password, seats?}``: the new
  password; the token is spent, every session of the account ends, and this browser is
  logged in (as after a login).

Errors as in ``server.http.lobby``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from server.accounts import audit
from server.errors import LobbyError
from server.http import rate
from server.http.accounts import _logged_in, _same_site, from_store, need_session
from server.http.common import body, guarded, svc_of
from server.logging import get_logger

if TYPE_CHECKING:  # the service type only: server.app imports this module
    from server.app import Service

log = get_logger("passwords")


def _address(request: Request) -> str:
    return request.client.host if request.client else "?"


async def _object(request: Request) -> dict[str, Any]:
    data = await body(request)
    if not isinstance(data, dict):
        raise LobbyError(400, "bad_message", "the body must be an object")
    return data


@guarded
async def change(request: Request) -> Response:
    """``POST /api/me/password``: see the module docstring. ``{"ended": n}``: the other
    sessions that ended. Refusals: ``Accounts.change_password``."""
    session = need_session(request)
    svc = svc_of(request)
    data = await _object(request)
    await from_store(svc.accounts.change_password(session.account, data.get("current"),
                                                  data.get("password"), _address(request)))
    ended = await from_store(svc.account_store.end_sessions(session.account.uid,
                                                            keep=session.key))
    # The ended sessions' /ws/me sockets close on every process (server/accounts/inbox.py).
    await from_store(svc.inbox.sessions_changed(session.account.uid))
    audit.password_changed(session.account.uid, _address(request), ended)
    return JSONResponse({"ended": ended})


async def _send_reset(svc: Service, username: str) -> None:
    """Mail a reset link to ``username``'s confirmed address, if it has one and no reset
    mail went to it in the period. Runs after the answer; failures are logged."""
    try:
        account = await svc.accounts.by_name(username)
        if account is None or account.bot or not account.verified:
            log.info("no reset mail", reason="no confirmed address")
            return
        if account.banned:
            log.info("no reset mail", reason="banned")
            return
        s = svc.settings
        if not await svc.account_store.reset_mail_allowed(account.uid, s.password_reset_period):
            log.info("no reset mail", reason="one went in the period")
            return
        token = await svc.account_store.new_reset(account.uid, s.password_reset_ttl)
        minutes = max(1, s.password_reset_ttl // 60)
        sent = await svc.notifier.mailer.send(
            account.email, "Reset your password",
            f"Someone (you, we hope) asked to reset the password of the account "
            f"{account.username}.\n\nChoose a new password here: {s.public_url}/account"
            f"?reset={token}\n\nThe link works once, for {minutes} minutes. If you did not "
            f"ask, ignore this mail: your password stays as it is.\n")
        if sent:
            audit.reset_mailed(account.uid)
    except Exception as e:  # a best-effort mail after the answer: logged, never raised
        log.warning("reset mail not sent", error=repr(e))


@guarded
async def request_reset(request: Request) -> Response:
    """``POST /api/account/password-reset``: see the module docstring."""
    _same_site(request)
    svc = svc_of(request)
    data = await _object(request)
    username = data.get("username")
    if not isinstance(username, str) or not 0 < len(username) <= 64:
        raise LobbyError(400, "bad_username", "give the account's username")
    if not svc.notifier.mailer.enabled:
        raise LobbyError(503, "no_mail", "this service sends no e-mail, so it cannot reset "
                                         "a password")
    await rate.per_hour(svc, request, "reset", svc.settings.password_resets_per_hour,
                        "password resets")
    svc.tables.spawn(_send_reset(svc, username))
    return JSONResponse({"requested": True}, status_code=202)


@guarded
async def confirm_reset(request: Request) -> Response:
    """``POST /api/account/password-reset/confirm``: see the module docstring. A wrong
    token counts as a failed login from the address (429 ``locked_out`` as for logins)."""
    _same_site(request)
    svc = svc_of(request)
    data = await _object(request)
    accounts, addr = svc.accounts, _address(request)
    if await from_store(accounts.store.failures(f"ip:{addr}", accounts.window)) >= \
            accounts.per_address:
        raise LobbyError(429, "locked_out", "too many failed attempts from your address")
    try:
        account = await from_store(accounts.reset_password(data.get("token"),
                                                           data.get("password")))
    except LobbyError as e:
        if e.code == "bad_token":
            await from_store(accounts.count_failure(addr))
        raise
    ended = await from_store(svc.account_store.end_sessions(account.uid))
    await from_store(svc.inbox.sessions_changed(account.uid))
    audit.password_reset(account.uid, addr, ended)
    return await _logged_in(request, account, 200, data.get("seats"))


ROUTES = [
    Route("/api/me/password", change, methods=["POST"]),
    Route("/api/account/password-reset", request_reset, methods=["POST"]),
    Route("/api/account/password-reset/confirm", confirm_reset, methods=["POST"]),
]
