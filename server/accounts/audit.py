"""The audit log (``component=audit``) and the account metrics: one line per sign-up,
login (success or failure), lockout, password change or reset, account deletion, API
token creation and revocation and the turn of an account into a bot account, with
the client's address (as the per-address limits count it) and the account's id.

A line carries ids, the result and the address only: never a password, a token, a link,
a mail's body, nor a name a client typed (a password typed in the name field would land in
the log); a failed login names the account only by the id of the name tried, when an
account has it. Every line is at level info (a lockout: warning): none is an error of the
service. The administration's lines (``admin``) are the exception that names what the
action was about (an account's name, a removed chat message's text): an operator wrote
those, and the audit stream keeps the same (docs/operations.md, "Administration").
"""

from __future__ import annotations

from typing import Any

from server import metrics
from server.logging import get_logger

log = get_logger("audit")


def signed_up(uid: str, client: str) -> None:
    """An account was created."""
    metrics.SIGNUPS.inc()
    log.info("signup", uid=uid, client=client)


def logged_in(uid: str, client: str, method: str) -> None:
    """A login (``method``: ``password`` or ``passkey``) succeeded."""
    metrics.LOGINS.labels("ok").inc()
    log.info("login", result="ok", uid=uid, client=client, method=method)


def login_refused(code: str, client: str, method: str, uid: str | None = None) -> None:
    """A login was refused: ``code`` ``locked_out``, or any other (a wrong name, password
    or passkey: ``failed``)."""
    result = "locked_out" if code == "locked_out" else "failed"
    metrics.LOGINS.labels(result).inc()
    log.info("login", result=result, uid=uid, client=client, method=method)


def locked_out(scope: str, client: str, uid: str | None = None) -> None:
    """A failure reached the limit of its window: logins from ``client`` (``scope``
    ``address``), or of one name from it (``name``), are refused from now on."""
    metrics.LOCKOUTS.labels(scope).inc()
    log.warning("lockout", scope=scope, uid=uid, client=client)


def password_changed(uid: str, client: str, sessions_ended: int) -> None:
    """An account's password was changed with its current one."""
    log.info("password_change", uid=uid, client=client, sessions_ended=sessions_ended)


def reset_mailed(uid: str) -> None:
    """A password reset link was mailed to the account's confirmed address."""
    log.info("password_reset_mail", uid=uid)


def password_reset(uid: str, client: str, sessions_ended: int) -> None:
    """An account's password was set through a reset link."""
    log.info("password_reset", uid=uid, client=client, sessions_ended=sessions_ended)


def deleted(uid: str, client: str) -> None:
    """An account was deleted (its id only: its name is gone with it)."""
    log.info("account_deleted", uid=uid, client=client)


def admin(actor: str, action: str, target: str, detail: dict[str, Any]) -> None:
    """An administrative action (server/admin/ops.py; also kept in the audit stream):
    ``actor`` (``cli:<os user>`` or ``account:<username>``), ``action``, ``target`` (an
    account id, ``table:<id>``, ``name:<name>`` or ``address:<address>``) and its details."""
    log.info("admin", actor=actor, action=action, target=target, **detail)


def token_created(uid: str, token_id: str, scope: str, client: str) -> None:
    """A personal API token was created (its id and scope: never its text or name)."""
    log.info("api_token_created", uid=uid, token=token_id, scope=scope, client=client)


def token_revoked(uid: str, token_id: str, client: str) -> None:
    """A personal API token was revoked."""
    log.info("api_token_revoked", uid=uid, token=token_id, client=client)


def bot_converted(uid: str, client: str) -> None:
    """An account was turned into a bot account (for good)."""
    log.info("bot_account", uid=uid, client=client)
