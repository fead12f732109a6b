"""``cardtable keys new|rotate``: the keys that seal every table's server seed in Redis.

- ``keys new``: put a new key at the top of the key file (the settings' ``seed_keys``); the
  older keys stay below it, so the seeds they sealed still open. Processes read the file
  again when they meet a seed the keys they hold do not open.
- ``keys rotate``: seal every table's server seed and stored entries that the first key
  did not seal (including values stored before sealing existed) under it, compare-and-set
  per value. It first waits until every running process seals under the first key
  (``sealing.SETTLE``: a little over a second, whatever the file's stamps say).
  Afterwards the older keys may leave the file.

docs/operations.md, "Seed keys", gives the whole procedure. Exit 0 on success, 1 when a
seed opens with no key of the file (it is left as it is and named), 2 for bad settings or
an unreadable key file.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from server import config
from server.store.scripts import HSET_IF_LUA
from server.store.sealing import (
    SETTLE,
    SealError,
    SeedSeal,
    create_key_file,
    new_key,
    read_keys,
)
from server.store.streams import SEED_FIELD, Store, events_key, meta_key


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``keys``."""
    p = sub.add_parser("keys", help="the keys that seal the tables' server seeds",
                       description="Add a seed key, or seal every table's server seed under "
                                   "the newest key (docs/operations.md, \"Seed keys\").")
    p.add_argument("action", choices=("new", "rotate"))
    p.add_argument("--file", default=None,
                   help="the key file (default: the seed_keys setting)")
    p.add_argument("--redis-url", default=None,
                   help="the Redis of the tables to rotate (default: REDIS_URL, else the "
                        "embedded Redis's socket under the redis_dir setting)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """``keys new`` or ``keys rotate``; returns the exit code."""
    try:
        settings = config.from_env(redis_url=args.redis_url)
    except ValueError as e:
        print(f"cardtable keys: {e}", file=sys.stderr)
        return 2
    path = Path(args.file or settings.seed_keys)
    if args.action == "new":
        return add_key(path)
    url = settings.redis_url or f"unix://{Path(settings.redis_dir).resolve() / 'redis.sock'}"
    try:
        seal = settle(path)
    except (OSError, ValueError) as e:
        print(f"cardtable keys: cannot read the key file {path}: {e}", file=sys.stderr)
        return 2
    return asyncio.run(rotate(url, seal))


def settle(path: Path, sleep: Callable[[float], object] = time.sleep) -> SeedSeal:
    """The seal of the key file ``path`` (its first key seals), returned once every running
    process seals under that key too: ``SETTLE`` seconds from now, by ``sleep``. Raises
    ``OSError`` or ``ValueError`` for a key file it cannot read."""
    seal = SeedSeal(path)
    # Values a process seals meanwhile under the older key would stay behind. Counted from
    # now, not from the file's modification time: a file copied in keeps its source's, and
    # the wall clock may have been stepped since.
    sleep(SETTLE)
    return seal


def add_key(path: Path) -> int:
    """A new key at the top of ``path`` (made if absent); the others kept below it."""
    if create_key_file(path):
        print(f"new key file {path} (one key)")
        return 0
    try:
        keys = read_keys(path)
    except (OSError, ValueError) as e:
        print(f"cardtable keys: cannot read the key file {path}: {e}", file=sys.stderr)
        return 2
    lines = [line.strip() for line in path.read_text().splitlines() if line.strip()]
    comments = [line for line in lines if line.startswith("#")]
    older = [line for line in lines if not line.startswith("#")]
    tmp = path.with_name(path.name + ".new")
    tmp.write_text("\n".join([*comments, new_key(), *older]) + "\n")
    tmp.chmod(0o600)
    tmp.replace(path)
    print(f"{path}: a new first key; {len(keys)} older key(s) kept below it")
    return 0


async def rotate(url: str, seal: SeedSeal) -> int:
    """Reseal every table's server seed and entries on ``url`` under the first key of
    ``seal``."""
    store = Store.from_url(url, seal=seal)
    resealed = failed = 0
    try:
        ids = await table_ids(store)
        for table_id in ids:
            try:
                resealed += await reseal(store, seal, table_id)
            except SealError as e:
                failed += 1
                print(f"table {table_id}: {e}", file=sys.stderr)
    finally:
        await store.close()
    print(f"{len(ids)} tables, {resealed} sealed again under the first key, "
          f"{failed} left as they were")
    return 1 if failed else 0


async def table_ids(store: Store) -> list[str]:
    """Every table id with a meta in Redis (``SCAN`` of every master)."""
    ids = set()
    async for key in store.redis.scan_iter(match=meta_key("*"), count=1000):
        name = key.decode() if isinstance(key, bytes) else key
        ids.add(name[len("t:{"):-len("}:meta")])
    return sorted(ids)


async def reseal(store: Store, seal: SeedSeal, table_id: str) -> bool:
    """Seal a table's server seed and stored entries under the first key of ``seal``,
    compare-and-set per value; True when something was rewritten (False: an archived
    table, whose secrets are public, or one sealed under the first key already). Raises
    ``SealError`` when no key opens a value."""
    changed = False
    raw = await store.redis.hget(meta_key(table_id), SEED_FIELD)
    old = raw.decode() if isinstance(raw, bytes) else raw
    if old is not None and not seal.seed_current(old):
        new = seal.seal(seal.open(old, table_id), table_id)
        hset_if = store.redis.register_script(HSET_IF_LUA)
        changed = bool(int(await hset_if(keys=[meta_key(table_id)],
                                         args=[SEED_FIELD, old, new])))

    def again(_: int, stored: dict[str, Any]) -> dict[str, Any] | None:
        nonlocal changed
        if seal.entry_current(stored):
            return None
        changed = True
        return seal.seal_entry(seal.open_entry(stored, table_id), table_id)

    await store.rewrite_list(events_key(table_id), again)
    return changed
