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
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

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


def run_backup(args: argparse.Namespace) -> int:
    """Write the snapshot and its manifest; 0 when both are written, 1 when Redis refused,
    2 for bad settings or no ``redis-cli``."""
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
    out.mkdir(parents=True, exist_ok=True)
    rdb = out / "dump.rdb"
    done = subprocess.run([cli, *redis_cli_args(url), "--rdb", str(rdb)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0 or not rdb.exists():
        print(f"cardtable backup: redis-cli --rdb failed: {done.stderr.strip()}",
              file=sys.stderr)
        return 1
    # The snapshot's instant lies before this: a game started after it is not in it.
    taken_at = settings.now_ms() / 1000
    manifest = asyncio.run(_manifest(url, rdb, taken_at))
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    print(f"backup {rdb} ({manifest['rdb_bytes']} bytes) taken at {manifest['taken_at_utc']}; "
          f"{len(manifest['running'])} running tables; back up {settings.seed_keys} "
          "separately")
    return 0


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
    """Void the rewound games; 0 when every one is voided (or none was running), 1 when
    one could not be, 2 for bad settings or an unreadable manifest or key file."""
    try:
        settings, url = _settings(args.redis_url)
        since = args.since
        if args.manifest is not None:
            since = float(json.loads(Path(args.manifest).read_text())["taken_at"])
        seal = SeedSeal(Path(settings.seed_keys))
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"cardtable void-rewound: {e}", file=sys.stderr)
        return 2
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
