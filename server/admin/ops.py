"""Administration (docs/operations.md, "Administration"): find accounts; ban, unban,
rename, delete one; grant and revoke roles; clear a login lockout; remove a chat message;
abort an open table; void a running game. Each action checks the actor's roles, acts,
and writes an audit entry: a log line (``component=audit``, ``event=admin``) and an
entry of the durable audit stream (``server.store.admin``). The ``cardtable admin``
command and the routes under ``/api/admin`` (server/http/admin.py) both call this module.

Roles (``ROLES``), stored on the account: ``admin`` may do everything; ``moderator`` may
find and show accounts, read the audit log, remove chat messages, ban or unban an
account that holds no role, and work the moderation queue (server/admin/moderation.py:
reports, mute, suspend, dismiss). Nobody bans, deletes or takes a role from the account it acts
as (an administration cannot lock itself out by a slip). The command line acts as an
admin (``cli:<os user>``: whoever can reach Redis owns the service anyway).
"""

from __future__ import annotations

import contextlib
import re
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine import seat_control
from engine.game import Message
from server.accounts import audit, erase, names
from server.accounts.accounts import Account, check_username, name_refused
from server.errors import LobbyError, confirmed, refuse_unknown
from server.play import chat
from server.store.admin import AdminStore
from server.table.meta import TableMeta, token_hash

AUDIT_ID = re.compile(r"[0-9]{1,19}(-[0-9]{1,19})?")
"""An audit stream entry id (Redis: milliseconds, then a counter), as ``before`` takes it."""

if TYPE_CHECKING:  # the service type only: server.app imports this module's users
    from server.app import Service

ROLES = ("admin", "moderator")
MODERATOR = frozenset({"find", "show", "audit", "remove_chat", "ban", "unban", "reports",
                       "dismiss", "mute", "suspend"})
"""What a moderator may do (an admin may do everything)."""
MAX_REASON = 200
REMOVED_TEXT = "(removed by a moderator)"


@dataclass(frozen=True)
class Actor:
    """Who acts: ``name`` as the audit log shows it (``cli:<os user>`` or
    ``account:<username>``), the account's ``uid`` (none for the command line) and its
    roles."""

    name: str
    roles: frozenset[str]
    uid: str | None = None

    @classmethod
    def of(cls, account: Account) -> Actor:
        """An account acting through the API."""
        return cls(f"account:{account.username}", account.roles, account.uid)

    def may(self, action: str) -> bool:
        """True when the actor's roles allow ``action``."""
        return "admin" in self.roles or ("moderator" in self.roles and action in MODERATOR)


def summary(account: Account, actor: Actor) -> dict[str, Any]:
    """What the administration sees of an account: an admin its e-mail address too
    (``email``, ``email_verified``), a moderator not (it needs none to moderate)."""
    out = {"id": account.uid, "username": account.username,
           "created_at": account.created_at, "bot": account.bot,
           "roles": sorted(account.roles), "banned": account.banned or None,
           "muted_until": account.muted_until or None,
           "suspended_until": account.suspended_until or None}
    if "admin" in actor.roles:
        out |= {"email": account.email, "email_verified": account.verified}
    return out


class Admin:
    """The operations, on one process's service (``server.app.Service``)."""

    def __init__(self, svc: Service) -> None:
        self.svc = svc
        self.store = AdminStore(svc.store.redis)

    # ---- helpers -------------------------------------------------------------------------

    @staticmethod
    def allow(actor: Actor, action: str) -> None:
        """Raise 403 ``forbidden`` unless ``actor`` may do ``action``."""
        if not actor.may(action):
            raise LobbyError(403, "forbidden", f"{action} needs the admin role"
                             if action not in MODERATOR else
                             f"{action} needs the admin or moderator role")

    async def account(self, name: Any) -> Account:
        """The account named ``name``; 404 ``no_account``."""
        found = await confirmed(self.svc.accounts.by_name(name)) \
            if isinstance(name, str) and 0 < len(name) <= 64 else None
        if found is None:
            raise LobbyError(404, "no_account", "no account of that name")
        return found

    @staticmethod
    def not_self(actor: Actor, account: Account, action: str) -> None:
        if actor.uid is not None and actor.uid == account.uid:
            raise LobbyError(409, "self", f"an account cannot {action} itself")

    async def record(self, actor: Actor, action: str, target: str,
                     **detail: Any) -> dict[str, Any]:
        """Write the audit entry of an action done; returns it."""
        at = round(time.time(), 3)
        entry: dict[str, Any] = {"actor": actor.name, "action": action, "target": target,
                                 "detail": detail, "at": repr(at)}
        entry["id"] = await confirmed(self.store.audit_add(entry))
        audit.admin(actor.name, action, target, detail)
        return {**entry, "at": at}

    # ---- reading -------------------------------------------------------------------------

    async def find(self, actor: Actor, query: str = "", limit: int = 50
                   ) -> list[dict[str, Any]]:
        """Accounts whose name contains ``query`` (any case), by name."""
        self.allow(actor, "find")
        rows = await confirmed(self.store.find(query, max(1, min(limit, 500))))
        out = []
        for _, uid in rows:
            account = await confirmed(self.svc.accounts.get(uid))
            if account is not None:
                out.append(summary(account, actor))
        return out

    async def show(self, actor: Actor, name: Any) -> dict[str, Any]:
        """One account's summary."""
        self.allow(actor, "show")
        return summary(await self.account(name), actor)

    async def audit_log(self, actor: Actor, count: int = 100, before: str | None = None
                        ) -> list[dict[str, Any]]:
        """The newest audit entries (older than the entry id ``before``, ``<ms>-<n>`` or
        ``<ms>``), newest first. Raises 400 ``bad_message`` for a malformed ``before``."""
        self.allow(actor, "audit")
        if before is not None:
            if not AUDIT_ID.fullmatch(before):
                raise LobbyError(400, "bad_message", "before is an audit entry id (ms-n)")
            if not any(int(part) for part in before.split("-")):
                return []  # nothing is older than the first possible id
        return await confirmed(self.store.audit(max(1, min(count, 1000)), before))

    # ---- accounts ------------------------------------------------------------------------

    async def ban(self, actor: Actor, name: Any, reason: Any = "",
                  unknown: Sequence[str] = ()) -> dict[str, Any]:
        """Ban an account: its sessions end, it can no longer log in (403 ``banned``);
        it is withdrawn from its open tournaments and its waiting seeks are cancelled
        (``server.accounts.leaving``). ``unknown``: the body's fields it does not take,
        refused (400 ``bad_message``) with the reason, after the checks of who may."""
        self.allow(actor, "ban")
        account = await self.account(name)
        self.not_self(actor, account, "ban")
        if account.roles and "admin" not in actor.roles:
            raise LobbyError(403, "forbidden", "only an admin bans an account with a role")
        if account.banned:  # the first ban's reason, time and author stay
            raise LobbyError(409, "already_banned",
                             f"the account is banned already ({account.banned})")
        refuse_unknown(unknown)
        if not isinstance(reason, str) or len(reason) > MAX_REASON:
            raise LobbyError(400, "bad_message", f"reason: at most {MAX_REASON} characters")
        text = reason.strip() or "banned"
        await confirmed(self.store.set_ban(account.uid, text, actor.name))
        ended = await confirmed(self.svc.account_store.end_sessions(account.uid))
        # Its /ws/me sockets close on every process (server/accounts/inbox.py).
        await confirmed(self.svc.inbox.sessions_changed(account.uid))
        seats = await self.revoke_seats(account.uid)
        await self.svc.leaving.banned(account.uid)  # its tournaments and seeks
        return await self.record(actor, "ban", account.uid, username=account.username,
                                 reason=text, sessions_ended=ended, seats_revoked=seats)

    async def revoke_seats(self, uid: str) -> int:
        """Give every seat ``uid`` holds a fresh token nobody knows, at ended tables too
        (an old token there would open a rematch): the sockets of its old token are closed
        (1008) and its actions refused; the seat's clock runs on (a timed-out seat goes to
        a bot). A seat whose token held the creator's or the host's role takes that role
        along, so the account keeps no table's host powers either. Returns how many."""
        revoked: dict[str, int] = {}
        for table_id in await confirmed(self.svc.account_store.game_ids(uid, 10_000)):
            def change(meta: TableMeta) -> dict[str, str]:
                fields = {}
                for i, s in enumerate(meta.seats):
                    if s.account == uid and i < len(meta.tokens) and meta.tokens[i]:
                        old = meta.tokens[i]
                        meta.tokens[i] = fields[f"tok:{i}"] = token_hash(
                            secrets.token_urlsafe(16))
                        if meta.owner == old:
                            meta.owner = fields["owner"] = meta.tokens[i]
                        if meta.host == old:
                            meta.host = fields["host"] = meta.tokens[i]
                if not fields:
                    raise LobbyError(409, "unchanged", "no seat of the account here")
                revoked[meta.id] = sum(k.startswith("tok:") for k in fields)
                return fields

            # Gone, or no seat held there: nothing to revoke.
            with contextlib.suppress(LobbyError):
                await self.svc.tables.lobby.change(table_id, change,
                                                   statuses=("open", "running", "ended"))
                # An archived game's compacted meta still packs the old tokens.
                await confirmed(self.svc.store.repack_meta(table_id))
        return sum(revoked.values())

    async def unban(self, actor: Actor, name: Any) -> dict[str, Any]:
        """Lift an account's ban."""
        self.allow(actor, "unban")
        account = await self.account(name)
        if not account.banned:
            raise LobbyError(409, "not_banned", "the account is not banned")
        if account.roles and "admin" not in actor.roles:
            raise LobbyError(403, "forbidden", "only an admin unbans an account with a role")
        await confirmed(self.store.lift_ban(account.uid))
        return await self.record(actor, "unban", account.uid, username=account.username)

    async def rename(self, actor: Actor, name: Any, new: Any) -> dict[str, Any]:
        """Give an account another name, at every table it sat at too (its seats lose
        their name salts: records keep the old name's commitment only, as after a
        deletion; docs/fairness.md §5, "Names")."""
        self.allow(actor, "rename")
        account = await self.account(name)
        new_name = check_username(new)
        if new_name in self.svc.accounts.reserved:
            raise LobbyError(409, "name_reserved", f"the username {new_name!r} is the "
                                                   "service's (a role's or a bot's)")
        if new_name == account.username:
            raise LobbyError(409, "name_taken", "the account has that name already")
        skels = (names.skeleton(account.username), names.skeleton(new_name))
        refused = await confirmed(self.store.rename(account.uid, account.username, new_name,
                                                    skels))
        if refused:
            raise name_refused(new_name, refused)
        await erase.rename_seats(self.svc, account.uid, new_name, account.uid)
        await self.svc.leaving.renamed(account.uid, new_name)  # tournament standings
        return await self.record(actor, "rename", account.uid, old=account.username,
                                 new=new_name)

    async def delete(self, actor: Actor, name: Any) -> dict[str, Any]:
        """Delete an account as ``DELETE /api/me`` does (``erase.erase_account``)."""
        self.allow(actor, "delete")
        account = await self.account(name)
        self.not_self(actor, account, "delete")
        await erase.erase_account(self.svc, account)
        audit.deleted(account.uid, actor.name)
        return await self.record(actor, "delete", account.uid)

    async def set_role(self, actor: Actor, name: Any, role: Any, grant: bool
                       ) -> dict[str, Any]:
        """Grant (``grant``) or revoke ``role``."""
        self.allow(actor, "roles")
        if role not in ROLES:
            raise LobbyError(400, "bad_role", f"a role is one of {', '.join(ROLES)}")
        account = await self.account(name)
        if not grant:
            self.not_self(actor, account, "revoke a role of")
        if account.bot:
            raise LobbyError(409, "bot", "a bot's account holds no role")
        roles = set(account.roles)
        if (role in roles) == grant:
            raise LobbyError(409, "unchanged", f"the account {'has' if grant else 'lacks'} "
                                               f"the {role} role already")
        roles = roles | {role} if grant else roles - {role}
        await confirmed(self.store.set_roles(account.uid, sorted(roles)))
        return await self.record(actor, "grant" if grant else "revoke", account.uid,
                                 username=account.username, role=role)

    async def unlock(self, actor: Actor, name: Any = None, address: Any = None
                     ) -> dict[str, Any]:
        """Clear the login lockout of a name (from every address) and/or an address."""
        self.allow(actor, "unlock")
        if not name and not address:
            raise LobbyError(400, "bad_message", "give a username, an address or both")
        if name is not None and (not isinstance(name, str) or len(name) > 64):
            raise LobbyError(400, "bad_message", "username: a string")
        if address is not None and (not isinstance(address, str) or len(address) > 64):
            raise LobbyError(400, "bad_message", "address: a string")
        cleared = await confirmed(self.store.clear_lockouts(name or None, address or None))
        target = f"name:{name.lower()}" if name else f"address:{address}"
        return await self.record(actor, "unlock", target, address=address or None,
                                 cleared=cleared)

    # ---- tables --------------------------------------------------------------------------

    async def remove_chat(self, actor: Actor, table_id: Any, message_id: Any
                          ) -> dict[str, Any]:
        """Replace a stored chat message's text by ``REMOVED_TEXT`` (``removed: true``)
        and tell the table's open sockets on every process (``chat_removed``), so the
        pages drop the text at once; a later history has it removed too."""
        self.allow(actor, "remove_chat")
        if not isinstance(table_id, str) or not isinstance(message_id, str):
            raise LobbyError(400, "bad_message", "table and message ids are strings")
        found: list[dict[str, Any]] = []

        def strike(_: int, msg: Any) -> Any:
            if isinstance(msg, dict) and msg.get("id") == message_id and not msg.get("removed"):
                found.append(msg)
                kept = {k: msg[k] for k in ("id", "channel", "at", "from") if k in msg}
                return {**kept, "text": REMOVED_TEXT, "removed": True}
            return None

        for key in self.svc.store.chat_keys(table_id, chat.CHANNELS):
            await confirmed(self.svc.store.rewrite_list(key, strike))
        if not found:
            raise LobbyError(404, "no_message", "no such chat message at that table")
        await confirmed(self.svc.store.publish_chat_removed(table_id, {
            "id": message_id, "channel": found[0].get("channel"), "text": REMOVED_TEXT}))
        said = found[0].get("text", found[0].get("quick"))
        return await self.record(actor, "remove_chat", f"table:{table_id}",
                                 message=message_id, sender=found[0].get("from"), text=said)

    async def abort(self, actor: Actor, table_id: Any) -> dict[str, Any]:
        """Close an open table (not started): it leaves the lobby and stops existing, as
        if it had expired."""
        self.allow(actor, "abort")
        if not isinstance(table_id, str) or not 0 < len(table_id) <= 64:
            raise LobbyError(400, "bad_message", "a table id is a string")
        meta = await self.svc.tables.lobby.fresh_meta(table_id)
        if meta.status != "open" or \
                not await confirmed(self.store.drop_open(table_id, chat.CHANNELS)):
            raise LobbyError(409, "started", "only an open table is aborted (a running "
                                             "one is voided)")
        # The lobby row as of a newer version, expired: the next listing drops it.
        await confirmed(self.svc.store.lobby.put(meta.summary(), int(meta.version) + 1,
                                                 time.time() - 1))
        return await self.record(actor, "abort", f"table:{table_id}", game=meta.game,
                                 seats=[s.name for s in meta.seats])

    async def void(self, actor: Actor, table_id: Any) -> dict[str, Any]:
        """End a running game without a result: a ``game_voided`` event appended as the
        seat-control events are (engine/seat_control.py), so every viewer is told and the
        record keeps it; nobody acts after it, nothing is rated, the table is marked
        ended (``voided``)."""
        self.allow(actor, "void")
        if not isinstance(table_id, str) or not 0 < len(table_id) <= 64:
            raise LobbyError(400, "bad_message", "a table id is a string")
        table = await self.svc.tables.get(table_id)
        if table is None:
            raise LobbyError(404, "no_table", f"no table {table_id!r}")
        if table.seq == 0:
            raise LobbyError(409, "not_started", "an open table is aborted, not voided")

        def build(t: Any) -> list[Message]:
            if t.game_over():
                raise LobbyError(409, "ended", "the game has ended")
            return [seat_control.GameVoided("admin")]

        seq = await self.svc.tables.actions.change_control(table, build)
        # Settled here too (repeatable): the command's process ends right after this.
        await self.svc.tables.ending.settle(table)
        return await self.record(actor, "void", f"table:{table_id}", game=table.meta.game,
                                 seq=seq)

