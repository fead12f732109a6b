"""``cardtable prune [--export DIR]``: delete the finished games kept longer than
``keep_finished_days`` (``CARDTABLE_KEEP_FINISHED_DAYS``), each one's record written to
``DIR/<table id>.json`` first when ``--export`` is given (docs/operations.md, "Retention";
server/table/retention.py). Run it daily (a cron job or a systemd timer).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from server import config
from server.errors import LobbyError, Unavailable
from server.store.sealing import SeedSeal
from server.store.streams import Store
from server.table.retention import DAY, finished_before, prune_table
from server.table.tables import Tables


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``prune``."""
    p = sub.add_parser("prune", help="export and delete finished games older than the "
                                     "retention setting",
                       description="Delete the games that ended more than "
                                   "CARDTABLE_KEEP_FINISHED_DAYS days ago, each record "
                                   "written to --export DIR first.")
    p.add_argument("--export", default=None, help="directory for the records (made if "
                                                 "absent); without it the games are deleted")
    p.add_argument("--days", type=int, default=None,
                   help="days to keep (default: the keep_finished_days setting; 0: forever)")
    p.add_argument("--dry-run", action="store_true", help="list the games, prune none")
    p.add_argument("--redis-url", default=None, help="Redis (default: the settings')")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Prune; 0 when every game due is pruned, 1 when one was not, 2 for bad settings."""
    try:
        settings = config.from_env(redis_url=args.redis_url)
        seal = SeedSeal(Path(settings.seed_keys))
    except (OSError, ValueError) as e:
        print(f"cardtable prune: {e}", file=sys.stderr)
        return 2
    days = settings.keep_finished_days if args.days is None else args.days
    if days <= 0:
        print("keep_finished_days is 0: finished games are kept forever, nothing pruned")
        return 0
    url = settings.redis_url or f"unix://{Path(settings.redis_dir).resolve() / 'redis.sock'}"
    export = Path(args.export) if args.export else None
    if export is not None:
        export.mkdir(parents=True, exist_ok=True)
    cutoff = settings.now_ms() / 1000 - days * DAY
    return asyncio.run(_prune(settings, Store.from_url(url, seal=seal), cutoff, export,
                              args.dry_run))


def write_record(directory: Path) -> Any:
    """An ``export`` for ``prune_table``: the record as ``directory/<id>.json``, written
    whole (a temporary file, flushed to disk, renamed) before anything is deleted."""
    async def export(table_id: str, record: dict[str, Any]) -> None:
        path = directory / f"{table_id}.json"
        tmp = path.with_name(path.name + ".tmp")
        with open(tmp, "w") as f:
            json.dump(record, f, ensure_ascii=False)
            f.flush()
            os.fsync(f.fileno())
        tmp.replace(path)
    return export


async def _prune(settings: config.Settings, store: Store, cutoff: float,
                 export: Path | None, dry_run: bool) -> int:
    tables = Tables(settings, store)
    pruned = failed = 0
    try:
        ids = await finished_before(store, cutoff)
        for table_id in ids:
            if dry_run:
                print(f"would prune {table_id}")
                continue
            try:
                if await prune_table(tables, table_id,
                                     write_record(export) if export is not None else None):
                    pruned += 1
                    print(f"pruned {table_id}" + (f" (record in {export})" if export else ""))
            except (LobbyError, Unavailable, OSError) as e:
                failed += 1
                print(f"{table_id}: not pruned: {e}", file=sys.stderr)
    finally:
        tables.closing = True
        await store.close()
    print(f"{len(ids)} games ended by {cutoff:.0f}: {pruned} pruned, {failed} failed")
    return 1 if failed else 0
