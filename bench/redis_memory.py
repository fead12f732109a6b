"""Redis memory per game: what one running and one finished (archived) game holds.

::

    .venv/bin/python -m bench.redis_memory --games 5 --json redis-memory.json

With its own redis-server and ``cardtable serve`` (random bots, no delay), for each game
and seat count it plays ``--games`` tables to their end through the service, then reads
Redis's own ``MEMORY USAGE`` of every key of each table:

- **at its end, not archived**: the meta, one stored entry per event, the action ids,
  presence: a running game near its end holds this much (the upper bound of a running
  game; it grows with every move);
- **archived**: the same tables after ``Store.archive`` (what the service does
  ``CARDTABLE_ARCHIVE_AFTER`` seconds after a finished game's last watcher left, with the
  service's own ``archive.pack``): the compacted meta and the compressed actions.

It also reports ``used_memory`` growth per table (including the lobby rows and Redis's
own overhead). docs/operations.md, "Sizing", quotes a run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from protocol.lobby import Lobby
from server.store.embedded import EmbeddedRedis, free_port
from server.store.sealing import SeedSeal
from server.store.streams import Store
from server.store.streams import unpack as unpack_entry
from server.table import archive
from server.table.meta import TableMeta

ROOT = Path(__file__).resolve().parent.parent
CASES = (("einauge", 4), ("keltis", 2), ("keltis", 4), ("loot-island", 4))


async def play(url: str, game: str, seats: int, n: int) -> list[str]:
    """``n`` tables of random bots played to their end; their ids."""
    lobby = Lobby(url)
    try:
        ids = []
        for _ in range(n):
            table = await lobby.create_game(game, seats)
            for seat in range(seats):
                await lobby.bot(table["id"], seat)
            await lobby.start(table["id"])
            ids.append(table["id"])
        for tid in ids:
            while (await lobby.get(f"/api/tables/{tid}")).json()["status"] != "ended":
                await asyncio.sleep(0.05)  # polling the games' ends
        return ids
    finally:
        await lobby.close()


async def usage(store: Store, table_id: str) -> int:
    """Bytes Redis accounts for every key of the table."""
    total = 0
    async for key in store.redis.scan_iter(match=f"t:{{{table_id}}}:*", count=1000):
        total += int(await store.redis.memory_usage(key, samples=0) or 0)
    return total


async def archive_all(store: Store, ids: list[str]) -> None:
    """Archive each ended table as ``Ending.archive`` does."""
    for tid in ids:
        raw = await store.load_raw(tid)
        fields = await store.load_meta(tid)
        meta = TableMeta.from_fields(tid, fields)
        entries = store.opened(tid, [unpack_entry(b) for b in raw])
        assert await store.archive(tid, len(raw), archive.pack(meta, entries), fields)


async def measure(redis_url: str, server_url: str, keys: Path, games: int
                  ) -> list[dict[str, Any]]:
    store = Store.from_url(redis_url, seal=SeedSeal(keys))
    rows = []
    try:
        for game, seats in CASES:
            before = int((await store.redis.info("memory"))["used_memory"])
            ids = await play(server_url, game, seats, games)
            after = int((await store.redis.info("memory"))["used_memory"])
            events = [await store.redis.llen(f"t:{{{t}}}:events") for t in ids]
            ended = [await usage(store, t) for t in ids]
            await archive_all(store, ids)
            archived = [await usage(store, t) for t in ids]
            rows.append({"game": game, "seats": seats, "tables": len(ids),
                         "events_mean": sum(events) / len(ids),
                         "ended_bytes_mean": sum(ended) / len(ids),
                         "archived_bytes_mean": sum(archived) / len(ids),
                         "used_memory_per_table": (after - before) / len(ids)})
    finally:
        await store.close()
    return rows


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--games", type=int, default=5, help="tables per game and seat count")
    p.add_argument("--json", help="write the rows to this file")
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="cardtable-redis-memory-") as tmp:
        redis = EmbeddedRedis(Path(tmp) / "redis", port=free_port())
        redis_url = redis.start()
        keys = Path(tmp) / "seed-keys"
        port = free_port()
        env = {**os.environ, "CARDTABLE_SEED_KEYS": str(keys), "CARDTABLE_BOT_DELAY": "0",
               "CARDTABLE_ARCHIVE_AFTER": "86400", "CARDTABLE_TABLES_PER_HOUR": "100000",
               "CARDTABLE_STATIC_DIR": "/nonexistent", "CARDTABLE_LOG_LEVEL": "warning"}
        env.pop("REDIS_URL", None)
        server = subprocess.Popen([sys.executable, "-m", "cli", "serve", "--port", str(port),
                                   "--redis-url", redis_url], cwd=ROOT, env=env)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline or server.poll() is not None:
                    print("the server did not start", file=sys.stderr)
                    return 1
                time.sleep(0.1)  # polling a starting server
            rows = asyncio.run(measure(redis_url, url, keys, args.games))
        finally:
            server.terminate()
            server.wait(30)
            redis.stop()
    print(f"{'game':<12} {'seats':>5} {'events':>7} {'at end, KiB':>12} {'archived, KiB':>14} "
          f"{'used_memory/table, KiB':>23}")
    for r in rows:
        print(f"{r['game']:<12} {r['seats']:>5} {r['events_mean']:>7.0f} "
              f"{r['ended_bytes_mean'] / 1024:>12.1f} {r['archived_bytes_mean'] / 1024:>14.1f} "
              f"{r['used_memory_per_table'] / 1024:>23.1f}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
