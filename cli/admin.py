"""``cardtable admin``: the administration from the command line (docs/operations.md,
"Administration"), on the service's Redis directly (``--redis-url``, else ``REDIS_URL``,
else the embedded Redis's socket under the ``redis_dir`` setting). It acts as an admin
named ``cli:<os user>`` in the audit log; every change has its audit entry, as through
``/api/admin`` (server/admin/ops.py).

Each verb prints its result as JSON on stdout; a refusal prints ``cardtable admin:
<code>: <message>`` on stderr and exits with 1 (2: bad usage or settings, 3: Redis
unavailable).
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import json
import sys
from pathlib import Path
from typing import Any

from server import config
from server.admin.ops import ROLES, Actor, Admin
from server.errors import LobbyError, Unavailable
from server.logging import configure
from server.store.sealing import SealError


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``admin`` and its verbs."""
    p = sub.add_parser("admin", help="administration: accounts, roles, chat, tables, audit",
                       description="Find and change accounts, roles, chat messages and "
                                   "tables; every change is written to the audit log "
                                   "(docs/operations.md, \"Administration\").")
    p.add_argument("--redis-url", default=None,
                   help="the service's Redis (default: REDIS_URL, else the embedded Redis's "
                        "socket under the redis_dir setting)")
    verbs = p.add_subparsers(dest="verb", required=True)
    v = verbs.add_parser("find", help="accounts whose name contains QUERY")
    v.add_argument("query", nargs="?", default="")
    v.add_argument("--limit", type=int, default=50)
    verbs.add_parser("show", help="one account").add_argument("name")
    v = verbs.add_parser("ban", help="ban an account (its sessions end)")
    v.add_argument("name")
    v.add_argument("--reason", default="")
    verbs.add_parser("unban", help="lift an account's ban").add_argument("name")
    v = verbs.add_parser("rename", help="give an account another name")
    v.add_argument("name")
    v.add_argument("new")
    verbs.add_parser("delete", help="delete an account as its owner could").add_argument(
        "name")
    for verb in ("grant", "revoke"):
        v = verbs.add_parser(verb, help=f"{verb} a role")
        v.add_argument("name")
        v.add_argument("role", choices=ROLES)
    v = verbs.add_parser("unlock", help="clear a login lockout")
    v.add_argument("--name", default=None, help="of this username (from every address)")
    v.add_argument("--address", default=None, help="of this client address")
    v = verbs.add_parser("remove-chat", help="remove a chat message of a table")
    v.add_argument("table")
    v.add_argument("message", help="the message's id")
    verbs.add_parser("abort", help="close an open table").add_argument("table")
    verbs.add_parser("void", help="end a running game without a result").add_argument(
        "table")
    v = verbs.add_parser("audit", help="the audit log, newest first")
    v.add_argument("--count", type=int, default=50)
    v.add_argument("--before", default=None, help="entries older than this entry id")
    p.set_defaults(func=run)


def actor() -> Actor:
    """The command line's actor: an admin named after the OS user."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no name for the uid (a container)
        user = "unknown"
    return Actor(f"cli:{user}", frozenset({"admin"}))


def run(args: argparse.Namespace) -> int:
    """Run one verb; returns the exit code."""
    try:
        settings = config.from_env(redis_url=args.redis_url)
    except ValueError as e:
        print(f"cardtable admin: {e}", file=sys.stderr)
        return 2
    keys = Path(settings.seed_keys)
    if not keys.is_file():
        # Made anew here, it would open none of the stored seeds: a verb that loads a
        # running table (rename, delete, void) would fail halfway.
        print(f"cardtable admin: no seed key file at {keys.resolve()} (the seed_keys "
              "setting, relative to the working directory): run the command where the "
              "service runs, or set CARDTABLE_SEED_KEYS", file=sys.stderr)
        return 2
    # Log lines (the audit's among them) go to stderr, the result alone to stdout.
    configure(settings.log_level, settings.log_json, process="admin")
    if not settings.redis_url:
        sock = Path(settings.redis_dir).resolve() / "redis.sock"
        settings = settings.replace(redis_url=f"unix://{sock}")
    return asyncio.run(_run(settings, args))


async def _run(settings: config.Settings, args: argparse.Namespace) -> int:
    # Here, not at the top: every ``cardtable`` command imports this module, and the web
    # application's imports take a third of a second.
    from server.app import Service

    svc = Service(settings)
    svc.drives_bots = False  # a table it loads (to void it) plays no bot in this process
    try:
        out = await perform(Admin(svc), actor(), args)
        await svc.aof.drain()  # a deletion's rewrite started before the command exits
    except LobbyError as e:
        print(f"cardtable admin: {e.code}: {e.message}", file=sys.stderr)
        return 1
    except Unavailable as e:
        print(f"cardtable admin: Redis unavailable: {e}", file=sys.stderr)
        return 3
    except SealError as e:
        print(f"cardtable admin: {e} (is CARDTABLE_SEED_KEYS the service's key file?)",
              file=sys.stderr)
        return 2
    finally:
        await svc.store.close()
    print(json.dumps(out, indent=2, ensure_ascii=False))
    return 0


async def perform(admin: Admin, who: Actor, args: argparse.Namespace) -> Any:
    """The verb's result (what is printed)."""
    verb = args.verb
    if verb == "find":
        return await admin.find(who, args.query, args.limit)
    if verb == "show":
        return await admin.show(who, args.name)
    if verb == "ban":
        return await admin.ban(who, args.name, args.reason)
    if verb == "unban":
        return await admin.unban(who, args.name)
    if verb == "rename":
        return await admin.rename(who, args.name, args.new)
    if verb == "delete":
        return await admin.delete(who, args.name)
    if verb in ("grant", "revoke"):
        return await admin.set_role(who, args.name, args.role, verb == "grant")
    if verb == "unlock":
        return await admin.unlock(who, args.name, args.address)
    if verb == "remove-chat":
        return await admin.remove_chat(who, args.table, args.message)
    if verb == "abort":
        return await admin.abort(who, args.table)
    if verb == "void":
        return await admin.void(who, args.table)
    assert verb == "audit"
    return await admin.audit_log(who, args.count, args.before)
