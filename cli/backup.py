"""``cardtable backup`` and ``cardtable void-rewound``: a consistent Redis snapshot with a
manifest, and, after a restore from such a snapshot, voiding the games it rewound.

``backup --out DIR`` asks Redis for a snapshot of its whole data set at one instant
(``redis-cli --rdb``: the server forks, as for ``BGSAVE``, and streams the RDB file; it
works as well on a Redis on another machine) and writes ``DIR/dump.rdb`` and
``DIR/manifest.json``: when it was taken (the service's clock, ``taken_at`` seconds), the
Redis version, the file's size and SHA-256, and the running tables then (``running``: id
→ seq, as read right after the snapshot). The seed key file is not copied: back it up
separately (docs/operations.md, "Seed keys").

``void-rewound --manifest DIR/manifest.json`` (or ``--since SECONDS``) voids every game
that is running in the restored Redis and started no later than the snapshot: its players
may have seen cards after the snapshot's state that the restored game would deal again
differently, so it cannot go on fairly (docs/operations.md, "Backup and restore").

Exit codes of both, as ``cardtable admin``'s: 0 done; 1 Redis answered but the work
failed (the snapshot was refused, a game was not voided: run it again); 2 bad usage,
settings or files (``--out`` not a writable directory, an unreadable manifest or key
file, no ``redis-cli``); 3 Redis did not answer. ``backup`` leaves no ``dump.rdb`` or
``manifest.json`` behind unless it exits 0 (both are written under temporary names and
renamed at the end).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server import config
from server.errors import LobbyError, Unavailable
from server.store.sealing import SeedSeal
from server.store.streams import Store
from server.table.tables import Tables
from server.table.void import running_tables, void_table

REASON = "restored from a backup older than the game's last moves"


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``backup`` and ``void-rewound``."""
    p = sub.add_parser("backup", help="write a consistent Redis snapshot and its manifest",
                       description="Write DIR/dump.rdb (one instant of Redis's data, by "
                                   "redis-cli --rdb) and DIR/manifest.json.")
    p.add_argument("--out", required=True, help="directory to write (made if absent)")
    p.add_argument("--redis-url", default=None, help="Redis to back up (default: settings)")
    p.set_defaults(func=run_backup)
    v = sub.add_parser("void-rewound", help="after a restore: void the games it rewound",
                       description="Void every game running in Redis that started no later "
                                   "than the backup's time.")
    when = v.add_mutually_exclusive_group(required=True)
    when.add_argument("--manifest", help="the backup's manifest.json (its taken_at)")
    when.add_argument("--since", type=float, help="the backup's time, seconds since the epoch")
    v.add_argument("--reason", default=REASON, help="the reason the players read")
    v.add_argument("--dry-run", action="store_true", help="list the games, void none")
    v.add_argument("--redis-url", default=None, help="the restored Redis (default: settings)")
    v.set_defaults(func=run_void)


def _settings(redis_url: str | None) -> tuple[config.Settings, str]:
    settings = config.from_env(redis_url=redis_url)
    url = settings.redis_url or f"unix://{Path(settings.redis_dir).resolve() / 'redis.sock'}"
    return settings, url


def redis_cli_args(url: str) -> list[str]:
    """``redis-cli``'s connection arguments for a ``redis://``, ``rediss://`` or
    ``unix://`` URL."""
    parts = urlsplit(url)
    if parts.scheme == "unix":
        return ["-s", parts.path]
    return ["-u", url, *(["--tls"] if parts.scheme == "rediss" else [])]


UNREACHABLE = (RedisConnectionError, RedisTimeoutError, OSError)
"""What a Redis that does not answer raises (exit 3)."""


async def _answers(url: str) -> None:
    """Raise (``UNREACHABLE``) unless the Redis at ``url`` answers a PING."""
    store = Store.from_url(url)
    try:
        await store.redis.ping()
    finally:
        await store.close()


def run_backup(args: argparse.Namespace) -> int:
    """Write the snapshot and its manifest; the exit codes are the module docstring's."""
    try:
        settings, url = _settings(args.redis_url)
    except ValueError as e:
        print(f"cardtable backup: {e}", file=sys.stderr)
        return 2
    cli = shutil.which("redis-cli")
    if cli is None:
        print("cardtable backup: redis-cli is not installed", file=sys.stderr)
        return 2
    out = Path(args.out)
    rdb, part = out / "dump.rdb", out / "dump.rdb.part"
    try:
        out.mkdir(parents=True, exist_ok=True)
        part.unlink(missing_ok=True)
    except OSError as e:
        print(f"cardtable backup: --out {out}: {e}", file=sys.stderr)
        return 2
    try:
        asyncio.run(_answers(url))
    except UNREACHABLE as e:
        print(f"cardtable backup: Redis at {_shown(url)} did not answer: {e}",
              file=sys.stderr)
        return 3
    done = subprocess.run([cli, *redis_cli_args(url), "--rdb", str(part)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0 or not part.exists():
        print(f"cardtable backup: redis-cli --rdb failed: {done.stderr.strip()}",
              file=sys.stderr)
        part.unlink(missing_ok=True)
        return 1
    # The snapshot's instant lies before this: a game started after it is not in it.
    taken_at = settings.now_ms() / 1000
    try:
        manifest = asyncio.run(_manifest(url, part, taken_at))
    except UNREACHABLE as e:
        part.unlink(missing_ok=True)
        print(f"cardtable backup: Redis at {_shown(url)} stopped answering: {e}",
              file=sys.stderr)
        return 3
    except RedisError as e:
        part.unlink(missing_ok=True)
        print(f"cardtable backup: the running tables could not be read: {e}",
              file=sys.stderr)
        return 1
    listed = out / "manifest.json.part"
    try:
        listed.write_text(json.dumps(manifest, indent=2) + "\n")
        part.replace(rdb)
        listed.replace(out / "manifest.json")
    except OSError as e:
        for left in (part, listed):
            with contextlib.suppress(OSError):
                left.unlink(missing_ok=True)
        print(f"cardtable backup: --out {out}: {e}", file=sys.stderr)
        return 2
    print(f"backup {rdb} ({manifest['rdb_bytes']} bytes) taken at {manifest['taken_at_utc']}; "
          f"{len(manifest['running'])} running tables; back up {settings.seed_keys} "
          "separately")
    return 0


def _shown(url: str) -> str:
    """``url`` without its password (an error line is no place for it)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    return parts._replace(netloc=f"{parts.username or ''}:***@{parts.hostname}"
                          + (f":{parts.port}" if parts.port else "")).geturl()


async def _manifest(url: str, rdb: Path, taken_at: float) -> dict[str, Any]:
    store = Store.from_url(url)
    try:
        info = await store.redis.info("server")
        running = {t: int((await store.load_meta(t)).get("seq") or 0)
                   for t in await running_tables(store)}
    finally:
        await store.close()
    data = rdb.read_bytes()
    return {"taken_at": taken_at,
            "taken_at_utc": datetime.datetime.fromtimestamp(taken_at, datetime.UTC).isoformat(),
            "redis_version": str(info.get("redis_version", "")),
            "rdb_bytes": len(data), "rdb_sha256": hashlib.sha256(data).hexdigest(),
            "running": running}


def run_void(args: argparse.Namespace) -> int:
    """Void the rewound games; the exit codes are the module docstring's (1: a game could
    not be voided; 3: Redis did not answer at the start)."""
    try:
        settings, url = _settings(args.redis_url)
        since = args.since
        if args.manifest is not None:
            since = float(json.loads(Path(args.manifest).read_text())["taken_at"])
        seal = SeedSeal(Path(settings.seed_keys))
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"cardtable void-rewound: {e}", file=sys.stderr)
        return 2
    try:
        asyncio.run(_answers(url))
    except UNREACHABLE as e:
        print(f"cardtable void-rewound: Redis at {_shown(url)} did not answer: {e}",
              file=sys.stderr)
        return 3
    return asyncio.run(_void(settings, Store.from_url(url, seal=seal), since, args.reason,
                             args.dry_run))


async def _void(settings: config.Settings, store: Store, since: float, reason: str,
                dry_run: bool) -> int:
    tables = Tables(settings, store)
    failed = voided = 0
    try:
        ids = await running_tables(store, started_by=since)
        for table_id in ids:
            if dry_run:
                print(f"would void {table_id}")
                continue
            try:
                seq = await void_table(tables, table_id, reason)
            except LobbyError as e:
                print(f"{table_id}: not voided: {e.code}", file=sys.stderr)
                failed += e.code not in ("ended", "not_started", "no_table")
                continue
            except Unavailable as e:
                print(f"{table_id}: not voided: Redis did not answer: {e}", file=sys.stderr)
                failed += 1
                continue
            voided += 1
            print(f"voided {table_id} at seq {seq}")
    finally:
        tables.closing = True
        await store.close()
    print(f"{len(ids)} running tables started by {since}: {voided} voided, {failed} failed")
    return 1 if failed else 0
