"""Notifications of a table's players who have accounts (docs/protocol.md §1,
"Notifications"): the table code calls ``turn_changed`` after it stored an action that
changed whose turn it is, and ``game_ended`` when the game is over; both are one call.

E-mails go only for ``async`` tables (``meta.time_control["kind"] == "async"``), only to
accounts with a confirmed address (``Account.verified``) that did not opt out
(settings ``email_turn``/``email_end``),
a turn mail only while the seat is not online at the table (``Attendance.online``: the
table's presence hash) and at most one per table and seat per ``turn_mail_period`` s,
and each at most once per table, turn and seat across every process (a mark in the
table's slot, ``first_notice``, before sending: a process killed between the mark and the
send loses that mail rather than sending it twice). Live tables need no server
notification: the browser shows one itself when its seat gets a ``prompt``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from redis.exceptions import RedisError

from server.accounts.accounts import DELETED, Accounts
from server.accounts.mail import Mailer
from server.logging import get_logger
from server.store.accounts import AccountStore
from server.store.notices import NoticeStore

log = get_logger("notify")


def is_async(meta: Any) -> bool:
    """True for a table played by correspondence."""
    tc = getattr(meta, "time_control", None)
    return isinstance(tc, dict) and tc.get("kind") == "async"


class Notifier:
    """Sends the mails of ``server.accounts.notify``; ``public_url`` starts the links in them."""

    def __init__(self, accounts: Accounts, store: AccountStore, mailer: Mailer,
                 public_url: str, turn_period: int = 3600,
                 online: Callable[[Any, int], Awaitable[bool]] | None = None) -> None:
        self.accounts = accounts
        self.store = store
        self.notices = NoticeStore(store.redis)
        self.mailer = mailer
        self.public_url = public_url.rstrip("/")
        self.turn_period = turn_period
        self.online = online

    async def verification(self, account: Any, ttl: int) -> None:
        """Mail ``account``'s (new) address a one-use link that confirms it within
        ``ttl`` s (``GET /api/account/verify?token=``). Raises ``RedisError``."""
        if not self.mailer.enabled or not account.email or account.verified:
            return
        token = await self.store.new_verification(account.uid, account.email, ttl)
        await self.mailer.send(account.email, "Confirm your e-mail address",
                               f"Someone (you, we hope) gave this address to the account "
                               f"{account.username}.\n\nConfirm it here: {self.public_url}"
                               f"/api/account/verify?token={token}\n\nWithout a click no "
                               f"mail goes to it. The link works once, for {ttl // 3600} h.\n")

    async def invited(self, account: Any, inviter: str, table_name: str,
                      table_id: str) -> None:
        """Mail ``account`` that ``inviter`` (a username) invites it to the table, with the
        link that seats it, if it opted in (``email_invite``) and its address is
        confirmed. Never raises: an invitation stands without its mail."""
        if (not self.mailer.enabled or not account.verified
                or not account.settings.get("email_invite")):
            return
        if await self.mailer.send(account.email, f"{inviter} invites you to {table_name}",
                                  f"{inviter} invites you to a seat at the table "
                                  f"{table_name}.\n\nTake it here: {self._link(table_id)}"
                                  f"#invited\n\nThe invitation holds while the table "
                                  f"waits for its players.\n"):
            log.info("mail sent", table=table_id, what="invite")

    def _link(self, table_id: str) -> str:
        return f"{self.public_url}/table/{table_id}"

    async def turn_changed(self, table: Any, seats: tuple[int, ...]) -> None:
        """``seats`` are to move now at ``table`` (a ``LiveTable``) after seq
        ``table.seq``."""
        if not self.mailer.enabled or not is_async(table.meta):
            return
        name = table.meta.name or table.id
        for seat in seats:
            try:
                if self.online is not None and await self.online(table, seat):
                    # At the table now: its page tells it.
                    log.info("no turn mail: at the table", table=table.id, seat=seat)
                    continue
            except RedisError as e:
                log.warning("presence unknown: no turn mail", table=table.id, error=str(e))
                continue
            await self._mail(table, seat, f"turn:{table.seq}:{seat}", "email_turn",
                             f"Your turn at {name}",
                             f"It is your turn at the table {name}.\n\n"
                             f"Play it here: {self._link(table.id)}\n")

    async def game_ended(self, table: Any) -> None:
        """The game of ``table`` is over."""
        if not self.mailer.enabled or not is_async(table.meta):
            return
        name = table.meta.name or table.id
        for seat in range(len(table.meta.seats)):
            await self._mail(table, seat, f"end:{seat}", "email_end",
                             f"The game at {name} has ended",
                             f"The game at the table {name} has ended.\n\n"
                             f"The result and the replay: {self._link(table.id)}\n")

    async def _mail(self, table: Any, seat: int, what: str, setting: str, subject: str,
                    text: str) -> None:
        s = table.meta.seats[seat]
        if s.kind != "human" or not s.account or s.account == DELETED:
            return
        try:
            account = await self.accounts.get(s.account)
            if account is None or not account.verified:
                log.info("mail not sent: address not confirmed", table=table.id, what=what)
                return
            if not account.settings.get(setting):
                log.info("mail not wanted", table=table.id, what=what)
                return
            if not await self.notices.first_notice(table.id, what):
                return
            if what.startswith("turn:") and not await self.notices.mail_pause(
                    table.id, seat, self.turn_period):
                return
        except RedisError as e:
            log.warning("notification skipped", table=table.id, error=str(e))
            return
        if await self.mailer.send(account.email, subject, text):
            log.info("mail sent", table=table.id, what=what)
