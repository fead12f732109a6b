"""Moderation (docs/protocol.md, "Moderation"; docs/operations.md, "Moderation"):
accounts report players; moderators work the queue of reports and fair-play flags and
mute, suspend, rename or dismiss. Every action checks the actor's roles
(``server.admin.ops.Actor``), resolves its report, and writes an audit entry (the log's
and the durable stream's, ``Admin.record``).

The rules:

- **Who reports**: a signed-in account (a guest cannot: a report names its reporter, so a
  moderator can weigh it and a flood has a name). Not itself, not a bot's account. One
  open report per reporter and target (409 ``already_reported``); at most
  ``REPORTS_PER_WINDOW`` reports in ``REPORT_WINDOW_MS`` (429 ``rate_limited``).
- **Context**: a table id, and a seat of it or a chat message at it. The seat must be the
  target's, the message must be the target's seat's; the report keeps the table's game
  and the chat lines around the message (``CONTEXT_LINES`` either side, its channel) as
  they were when it was filed. A private table is known only to an account seated there
  (404 ``no_table`` otherwise, as for an unknown id).
- **Mute**: the account's chat is refused (``chat_muted``) until the end. **Suspend**: no
  play, no chat, no change through its session or tokens but logging out (403
  ``suspended``) until the end; its seat sockets at every table it holds a seat at are
  closed on every process (close 4403) and refused until the end, so its seats are
  handled as absent by each table's rules (presence, clock, handover); it is withdrawn
  from its open tournaments and its waiting seeks are cancelled, as at a ban
  (``server.accounts.leaving``); a token of a seat it holds, whenever handed out,
  changes nothing at the table (403 ``suspended``, ``seat_refusal``). Both end by
  themselves: the end time is stored, every check compares it with now.
- **Who moderates**: the moderator or admin role; a moderator does not mute or suspend an
  account with a role (an admin does); nobody sanctions itself.

Pure core: ``check_report``, ``chat_context``, ``check_minutes``, ``until_text``. Shell:
``Moderation``.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from server.accounts.accounts import DELETED_NAME, Account
from server.admin.ops import Actor, Admin
from server.errors import LobbyError, confirmed, refuse_unknown, unknown_fields
from server.play import chat
from server.store.moderation import ModerationStore

if TYPE_CHECKING:  # the service type only: server.app imports this module's users
    from server.app import Service

REASONS = ("abuse", "cheating", "spam", "name", "stalling", "other")
"""Why a player is reported (the client shows each in its language)."""
MAX_TEXT = 500
"""Characters of a report's free text."""
REPORT_WINDOW_MS = 3_600_000
REPORTS_PER_WINDOW = 5
"""At most this many reports per account in ``REPORT_WINDOW_MS`` (an hour)."""
CONTEXT_LINES = 5
"""Chat lines kept either side of a reported message."""
MAX_MINUTES = 30 * 24 * 60
"""The longest mute or suspension: 30 days (longer is a ban)."""
SUSPENDED_CLOSE = 4403
"""The close code of a suspended account's seat sockets."""
SANCTIONS = {"mute": "muted_until", "suspend": "suspended_until"}


@dataclass(frozen=True)
class ReportRequest:
    """A report's checked input: the ``target`` name, ``reason`` (of ``REASONS``),
    ``text``, and its context: ``table`` id, ``seat`` and/or chat ``message`` id."""

    target: str
    reason: str
    text: str
    table: str | None
    seat: int | None
    message: str | None


REPORT_FIELDS = frozenset({"target", "reason", "text", "table", "seat", "message"})
"""The fields of a report's body; any other is refused."""


def only_fields(data: Any, allowed: frozenset[str]) -> dict[str, Any]:
    """``data`` when it is an object with no field outside ``allowed``; raises 400
    ``bad_message`` otherwise (``errors.unknown_fields``)."""
    refuse_unknown(unknown_fields(data, allowed))
    assert isinstance(data, dict)
    return data


def check_report(data: Any) -> ReportRequest:
    """The report body ``{target, reason, text?, table?, seat?, message?}`` checked; raises
    400 ``bad_message`` (``bad_reason`` for a reason not in ``REASONS``; also for any
    other field). A seat or a message needs a table. The text is kept without its
    control, bidi and invisible characters (``chat.strip_hidden``: a moderator reads it
    as written)."""
    data = only_fields(data, REPORT_FIELDS)
    target, reason, text = data.get("target"), data.get("reason"), data.get("text", "")
    table, seat, message = data.get("table"), data.get("seat"), data.get("message")
    if not isinstance(target, str) or not 0 < len(target) <= 64:
        raise LobbyError(400, "bad_message", "target: the reported account's name")
    if reason not in REASONS:
        raise LobbyError(400, "bad_reason", f"reason: one of {', '.join(REASONS)}")
    if text is None:
        text = ""
    if not isinstance(text, str) or len(text) > MAX_TEXT:
        raise LobbyError(400, "bad_message", f"text: at most {MAX_TEXT} characters")
    if table is not None and (not isinstance(table, str) or not 0 < len(table) <= 64):
        raise LobbyError(400, "bad_message", "table: a table id")
    if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int)
                             or not 0 <= seat < 64):
        raise LobbyError(400, "bad_message", "seat: a seat number")
    if message is not None and (not isinstance(message, str) or not 0 < len(message) <= 64):
        raise LobbyError(400, "bad_message", "message: a chat message id")
    if (seat is not None or message is not None) and table is None:
        raise LobbyError(400, "bad_message", "a seat or a chat message needs its table")
    return ReportRequest(target, reason, chat.strip_hidden(text), table, seat, message)


def chat_context(channels: dict[str, list[dict[str, Any]]], message: str
                 ) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
    """The message of id ``message`` and the lines around it in its channel
    (``CONTEXT_LINES`` either side, oldest first, the message among them), or ``None``."""
    for lines in channels.values():
        for i, line in enumerate(lines):
            if line.get("id") == message:
                return line, lines[max(0, i - CONTEXT_LINES):i + CONTEXT_LINES + 1]
    return None


def check_minutes(raw: Any) -> int:
    """A sanction's duration in minutes, 1 to ``MAX_MINUTES``; raises 400 ``bad_message``."""
    if isinstance(raw, bool) or not isinstance(raw, int) or not 0 < raw <= MAX_MINUTES:
        raise LobbyError(400, "bad_message", f"minutes: 1 to {MAX_MINUTES}")
    return raw


def until_text(until: float) -> str:
    """The end of a sanction for a message (UTC, to the minute)."""
    return datetime.fromtimestamp(until, UTC).strftime("%Y-%m-%d %H:%M UTC")


def muted(account: Account, now: float) -> bool:
    """True while the account may not chat (muted or suspended at ``now``, seconds)."""
    return account.muted_until > now or account.suspended_until > now


def suspended(account: Account, now: float) -> bool:
    """True while the account is suspended at ``now`` (seconds)."""
    return account.suspended_until > now


SUSPENDED_MAY = frozenset({("POST", "/api/account/logout"), ("DELETE", "/api/me"),
                           ("PATCH", "/api/me/settings")})
"""What a suspended account may still change through its session: log out, delete
itself, change its settings."""


def change_refused(account: Account, now: float, method: str, path: str) -> LobbyError | None:
    """The refusal of a change (``method`` not GET/HEAD/OPTIONS) a suspended account asks
    for through its session or a token: 403 ``suspended``; ``None`` when allowed."""
    if not suspended(account, now) or (method, path) in SUSPENDED_MAY:
        return None
    return LobbyError(403, "suspended", "this account is suspended until "
                                        f"{until_text(account.suspended_until)}")


def flag_report(entry: dict[str, Any], names: dict[str, str], now_ms: int
                ) -> dict[str, Any]:
    """The queue entry (``kind`` ``fairplay``) of a fair-play audit entry ``entry``
    (``rating_capped``: ``target`` the table, ``detail.pairs`` account ids), ``names``
    the accounts' names by id."""
    detail = entry.get("detail") or {}
    return {"id": secrets.token_hex(8), "kind": "fairplay", "reporter": "system",
            "target": f"table:{entry.get('target')}", "reason": entry.get("action"),
            "table": entry.get("target"), "game": detail.get("game"),
            "accounts": [{"id": uid, "username": name} for uid, name in names.items()],
            "detail": detail, "at": round(now_ms / 1000, 3), "status": "open"}


def redacted(report: dict[str, Any], uid: str) -> dict[str, Any] | None:
    """``report`` with the deleted account ``uid``'s name replaced by ``DELETED_NAME``
    wherever it names it (``reporter_name``, ``target_name``, ``accounts``, the sender
    of its chat lines, found by their private ``by``); ``None`` when it names it nowhere."""
    out = json.loads(json.dumps(report))
    if out.get("reporter") == uid:
        out["reporter_name"] = DELETED_NAME
    if out.get("target") == uid:
        out["target_name"] = DELETED_NAME
    for a in out.get("accounts") or ():
        if isinstance(a, dict) and a.get("id") == uid:
            a["username"] = DELETED_NAME
    for line in out.get("chat") or ():
        sender = line.get("from")
        if line.get("by") == uid and isinstance(sender, dict) and "name" in sender:
            sender["name"] = DELETED_NAME
    return None if out == report else out


def _pair(report: dict[str, Any]) -> str:
    return f"{report.get('reporter', '')}:{report.get('target', '')}"


class Moderation:
    """Reports, the queue and the sanctions, on one process's service."""

    def __init__(self, svc: Service, admin: Admin) -> None:
        self.svc = svc
        self.admin = admin
        self.store = ModerationStore(svc.store.redis)

    def now(self) -> float:
        """The service's clock, seconds."""
        return self.svc.settings.now_ms() / 1000

    # ---- reporting -------------------------------------------------------------------------

    async def report(self, reporter: Account, data: Any) -> dict[str, Any]:
        """File a report of ``reporter`` (``check_report``'s body); returns it. Raises 400
        (input, ``not_seated``: the seat is not the target's, ``not_sender``: the message
        is not the target's), 404 ``no_account``/``no_table``/``no_message``, 409
        ``self``/``bot``/``already_reported``, 429 ``rate_limited``."""
        req = check_report(data)
        target = await self.admin.account(req.target)
        if target.uid == reporter.uid:
            raise LobbyError(409, "self", "an account cannot report itself")
        if target.bot:
            raise LobbyError(409, "bot", "a bot's account is not reported")
        now_ms = self.svc.settings.now_ms()
        report: dict[str, Any] = {
            "id": secrets.token_hex(8), "kind": "report", "reporter": reporter.uid,
            "reporter_name": reporter.username, "target": target.uid,
            "target_name": target.username, "reason": req.reason, "text": req.text,
            "at": round(now_ms / 1000, 3), "status": "open"}
        if req.table is not None:
            report |= await self._context(reporter, target, req)
        done = await confirmed(self.store.file(report, _pair(report), reporter.uid, now_ms,
                                               REPORT_WINDOW_MS, REPORTS_PER_WINDOW))
        if done == "open":
            raise LobbyError(409, "already_reported",
                             "your report of this player is still open")
        if done == "rate":
            raise LobbyError(429, "rate_limited", f"at most {REPORTS_PER_WINDOW} reports "
                                                  "an hour")
        return report

    async def _context(self, reporter: Account, target: Account, req: ReportRequest
                       ) -> dict[str, Any]:
        """The table context of a report: ``table``, ``game``, ``seat``, ``message`` and
        ``chat`` (the lines around it)."""
        assert req.table is not None
        meta = await self.svc.tables.peek(req.table, fresh=True)
        if meta is None or (meta.invite and meta.account_seat(reporter.uid) is None):
            raise LobbyError(404, "no_table", f"no table {req.table!r}")
        out: dict[str, Any] = {"table": meta.id, "game": meta.game}
        seat = req.seat
        if req.message is not None:
            stored = await confirmed(self.svc.store.load_chat(meta.id, chat.CHANNELS))
            found = chat_context(dict(zip(chat.CHANNELS, stored, strict=True)), req.message)
            if found is None:
                raise LobbyError(404, "no_message", "no such chat message at that table")
            line, around = found
            sender = line.get("from") or {}
            if sender.get("role") != "player" or not isinstance(sender.get("seat"), int):
                raise LobbyError(400, "not_sender", "that message is not the player's")
            if seat is not None and seat != sender["seat"]:
                raise LobbyError(400, "not_sender", "that message is not that seat's")
            # Its author is the account that sent it (the line's ``by``), whoever holds
            # the seat now: a sender who left is still reported, a newcomer is not.
            if line.get("by") != target.uid:
                raise LobbyError(400, "not_sender", "that message is not the player's")
            out |= {"message": req.message, "chat": around, "seat": sender["seat"]}
        elif seat is not None:
            if seat >= len(meta.seats) or meta.seats[seat].account != target.uid:
                raise LobbyError(400, "not_seated", "the reported account does not hold "
                                                    "that seat")
            out["seat"] = seat
        return out

    async def flag(self, entry: dict[str, Any]) -> None:
        """A fair-play flag (``server.accounts.fairplay.rate_finished``'s audit entry
        ``rating_capped``): written to the audit stream and queued for the moderators
        (``flag_report``). Raises ``redis.RedisError`` (the settle is retried; the
        queue's pair field keeps one open entry per table)."""
        await self.admin.store.audit_add(entry)
        detail = entry.get("detail") or {}
        names = {}
        for uid in sorted({uid for pair in detail.get("pairs", []) for uid in pair}):
            account = await self.svc.accounts.get(uid)
            names[uid] = account.username if account is not None else uid
        report = flag_report(entry, names, self.svc.settings.now_ms())
        await self.store.file(report, _pair(report), "system", self.svc.settings.now_ms(),
                              1, 1 << 30)

    # ---- the queue -------------------------------------------------------------------------

    async def queue(self, actor: Actor, limit: int = 100) -> list[dict[str, Any]]:
        """The open reports and flags, oldest first, each with the target account's
        current name and sanctions (``target_now``)."""
        self.admin.allow(actor, "reports")
        reports = await confirmed(self.store.open_reports(max(1, min(limit, 500))))
        now = self.now()
        names: dict[str, str] = {}
        for r in reports:
            for line in r.get("chat") or ():
                # The private ``by`` (an account id) goes; the moderator reads its name.
                uid = line.pop("by", None)
                if isinstance(uid, str):
                    if uid not in names:
                        account = await confirmed(self.svc.accounts.get(uid))
                        names[uid] = account.username if account is not None else DELETED_NAME
                    line["by_name"] = names[uid]
            if r.get("kind") == "report":
                account = await confirmed(self.svc.accounts.get(r["target"]))
                r["target_now"] = None if account is None else {
                    "username": account.username,
                    "muted_until": account.muted_until if account.muted_until > now else None,
                    "suspended_until": (account.suspended_until
                                        if account.suspended_until > now else None)}
        return reports

    async def _open(self, report_id: Any) -> dict[str, Any]:
        if not isinstance(report_id, str) or not 0 < len(report_id) <= 32:
            raise LobbyError(400, "bad_message", "report: a report id")
        found = await confirmed(self.store.report(report_id))
        if found is None:
            raise LobbyError(404, "no_report", "no such report")
        if found.get("status") != "open":
            raise LobbyError(409, "resolved", "the report was resolved already")
        return found

    async def forget(self, uid: str) -> int:
        """The account ``uid`` is deleted: its name leaves every report, open or resolved
        and kept (as reporter, target, flagged account or a chat line's sender:
        ``redacted``). Returns how many changed. Raises ``Unavailable``."""
        return await confirmed(self.store.rewrite(lambda r: redacted(r, uid)))

    async def resolve(self, actor: Actor, report: dict[str, Any], action: str,
                      note: str = "") -> None:
        """Mark ``report`` resolved by ``action``; 409 ``resolved`` when another
        moderator resolved it meanwhile."""
        done = {**report, "status": "resolved",
                "resolution": {"action": action, "by": actor.name, "at": round(self.now(), 3),
                               "note": note}}
        if not await confirmed(self.store.resolve(done, _pair(report), self.now())):
            raise LobbyError(409, "resolved", "the report was resolved already")

    async def dismiss(self, actor: Actor, report_id: Any, note: Any = "") -> dict[str, Any]:
        """Resolve a report with no action."""
        self.admin.allow(actor, "dismiss")
        if not isinstance(note, str) or len(note) > MAX_TEXT:
            raise LobbyError(400, "bad_message", f"note: at most {MAX_TEXT} characters")
        report = await self._open(report_id)
        await self.resolve(actor, report, "dismiss", note)
        return await self.admin.record(actor, "dismiss", f"report:{report['id']}",
                                       about=report.get("target"), kind=report.get("kind"),
                                       note=note)

    async def about(self, report_id: Any, account: Account) -> dict[str, Any]:
        """The open report ``report_id`` about ``account``; 400 ``bad_message`` when it is
        about another account, 404 ``no_report``, 409 ``resolved``."""
        report = await self._open(report_id)
        named = {report.get("target")} | {a.get("id") for a in report.get("accounts", [])}
        if account.uid not in named:
            raise LobbyError(400, "bad_message", "the report is about another account")
        return report

    async def resolve_by(self, actor: Actor, report_id: Any, account: Account,
                         action: str) -> str | None:
        """Resolve the report ``report_id`` (if given) by ``action`` done to ``account``
        (``about``). Returns its id."""
        if report_id is None:
            return None
        report = await self.about(report_id, account)
        await self.resolve(actor, report, action)
        return str(report["id"])

    async def rename(self, actor: Actor, name: Any, new: Any, report_id: Any
                     ) -> dict[str, Any]:
        """Force a rename (``Admin.rename``, the admin's) that resolves the open report
        ``report_id`` about the account (checked before the rename)."""
        self.admin.allow(actor, "rename")
        report = await self.about(report_id, await self.admin.account(name))
        done = await self.admin.rename(actor, name, new)
        await self.resolve(actor, report, "rename")
        return done

    # ---- sanctions -------------------------------------------------------------------------

    async def sanction(self, actor: Actor, name: Any, action: str, minutes: Any,
                       report_id: Any = None, unknown: Sequence[str] = ()) -> dict[str, Any]:
        """Mute (``action`` ``mute``) or suspend (``suspend``) an account for ``minutes``;
        a suspension closes its seat sockets on every process. Resolves ``report_id``.
        ``unknown``: the body's fields it does not take, refused (400 ``bad_message``)
        with its other input, after the checks of who may do it."""
        self.admin.allow(actor, action)
        account = await self.admin.account(name)
        self.admin.not_self(actor, account, action)
        if account.roles and "admin" not in actor.roles:
            raise LobbyError(403, "forbidden", f"only an admin may {action} an account "
                                               "with a role")
        if account.bot:
            raise LobbyError(409, "bot", "a bot's account is not sanctioned")
        refuse_unknown(unknown)
        until = round(self.now() + check_minutes(minutes) * 60, 3)
        resolved = await self.resolve_by(actor, report_id, account, action)
        await confirmed(self.store.sanction(account.uid, SANCTIONS[action], until))
        extra: dict[str, Any] = {}
        if action == "suspend":
            extra["tables"] = await self.close_seats(account.uid)
            # Its /ws/me sockets close on every process (server/accounts/inbox.py).
            await confirmed(self.svc.inbox.sessions_changed(account.uid))
            extra |= await self.svc.leaving.suspended(account.uid)  # tournaments, seeks
        return await self.admin.record(actor, action, account.uid, username=account.username,
                                       until=until, minutes=minutes, report=resolved, **extra)

    async def lift(self, actor: Actor, name: Any, action: str) -> dict[str, Any]:
        """End an account's mute or suspension now."""
        self.admin.allow(actor, action)
        account = await self.admin.account(name)
        field = SANCTIONS[action]
        if getattr(account, field) <= self.now():
            raise LobbyError(409, "unchanged", f"the account is not under a {action}")
        if account.roles and "admin" not in actor.roles:
            raise LobbyError(403, "forbidden", f"only an admin lifts a {action} of an "
                                               "account with a role")
        await confirmed(self.store.sanction(account.uid, field, 0))
        return await self.admin.record(actor, f"un{action}", account.uid,
                                       username=account.username)

    async def close_seats(self, uid: str) -> int:
        """Tell the processes of every open or running table where ``uid`` holds a seat
        to close that seat's sockets; returns how many tables."""
        told = 0
        for table_id in await confirmed(self.svc.account_store.game_ids(uid, 1000)):
            meta = await self.svc.tables.peek(table_id, fresh=True)
            if meta is None or meta.status not in ("open", "running"):
                continue
            seats = [i for i, s in enumerate(meta.seats) if s.account == uid]
            if seats:
                await confirmed(self.store.close_seats(table_id, seats))
                told += 1
        return told

    # ---- checks of the other parts -----------------------------------------------------------

    async def chat_refusal(self, uid: str | None) -> chat.ChatRefused | None:
        """Why the account ``uid`` may not chat now (``chat_muted``), or ``None``. Raises
        ``Unavailable``."""
        if not uid:
            return None
        account = await confirmed(self.svc.accounts.get(uid))
        if account is None or not muted(account, self.now()):
            return None
        until = max(account.muted_until, account.suspended_until)
        return chat.ChatRefused("chat_muted", f"your account may not chat until "
                                              f"{until_text(until)}")

    async def play_refusal(self, uid: str | None) -> str | None:
        """Why the account ``uid`` may not use its seat now (a suspension), or ``None``.
        Raises ``Unavailable``."""
        refused = await self.seat_refusal(uid)
        return None if refused is None else refused.message

    async def seat_refusal(self, uid: str | None) -> LobbyError | None:
        """The refusal of a table change asked for with a token of a seat the account
        ``uid`` holds: 403 ``banned`` while it is banned, 403 ``suspended`` while it is
        suspended; ``None`` for a guest's seat (``uid`` ``None``) or an account in good
        standing. A token handed out before the sanction is the account's all the same.
        Raises ``Unavailable``."""
        if not uid:
            return None
        account = await confirmed(self.svc.accounts.get(uid))
        if account is None:
            return None
        if account.banned:
            return LobbyError(403, "banned", "this account is banned")
        if not suspended(account, self.now()):
            return None
        return LobbyError(403, "suspended", "this account is suspended until "
                                            f"{until_text(account.suspended_until)}")
