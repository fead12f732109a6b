"""The bot ladder (docs/bots.md, "Ladder"): rated bot-vs-bot games on a real server.

Starts a private ``redis-server`` and one server process (bots think without delay),
signs up an organiser account, and plays ``--rounds`` rounds of a round robin of
two-player rated tables between the entrants (every bot kind, mcts at each level of
``--levels``), ``--parallel`` tables at a time, seats alternating. Ratings are the
service's own (server/accounts/ratings.py), read from the leaderboard at the end. Prints the
ladder as a markdown table (rating, games behind it, provisional) and the run's time::

    .venv/bin/python -m bench.ladder --rounds 4 --levels 1,2,3
"""

from __future__ import annotations

import argparse
import itertools
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cli.progress import bar  # noqa: E402
from server.store.embedded import EmbeddedRedis, free_port  # noqa: E402
from tests.conftest import ServerProcess  # noqa: E402


def entrants(levels: list[int]) -> list[tuple[str, int | None]]:
    """(kind, level) of every rated bot in the run."""
    return [("random", None), ("greedy", None), *(("mcts", lv) for lv in levels)]


def play(base: str, pairs: list[tuple[tuple[str, int | None], tuple[str, int | None]]],
         parallel: int) -> int:
    """Play every pair as one rated table; returns the games finished."""
    http = httpx.Client(base_url=base, timeout=30)
    r = http.post("/api/account/signup", json={"username": "ladder-organiser",
                                               "password": "ladder organiser"})
    r.raise_for_status()
    http.headers["X-CSRF-Token"] = r.json()["csrf"]
    todo, running, done = list(pairs), {}, 0
    progress = bar(len(pairs), "rated games", unit="game")  # stderr, on a terminal only
    while todo or running:
        while todo and len(running) < parallel:
            line_up = todo.pop(0)
            t = http.post("/api/tables", json={"seats": 2, "rated": True})
            t.raise_for_status()
            tid, owner = t.json()["id"], t.json()["owner_token"]
            for seat, (kind, level) in enumerate(line_up):
                body = {"kind": kind, **({"level": level} if level else {})}
                http.post(f"/api/tables/{tid}/seats/{seat}/bot", json=body,
                          headers={"Authorization": f"Bearer {owner}"}).raise_for_status()
            http.post(f"/api/tables/{tid}/start",
                      headers={"Authorization": f"Bearer {owner}"}).raise_for_status()
            running[tid] = line_up
        time.sleep(0.5)
        for tid in list(running):
            if http.get(f"/api/tables/{tid}").json()["status"] == "ended":
                del running[tid]
                done += 1
                progress.update(1)
    progress.close()
    return done


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=4, help="round robins (seats alternate)")
    p.add_argument("--levels", default="1,2,3", help="mcts levels to rate")
    p.add_argument("--parallel", type=int, default=2, help="tables at a time")
    args = p.parse_args(argv)
    field = entrants([int(x) for x in args.levels.split(",") if x])
    pairs = []
    for r in range(args.rounds):
        for a, b in itertools.combinations(field, 2):
            pairs.append((a, b) if r % 2 == 0 else (b, a))
    started = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        redis = EmbeddedRedis(Path(tmp), port=free_port())
        server = ServerProcess(redis.start(), env={"CARDTABLE_LOG_LEVEL": "warning"}).start()
        try:
            games = play(server.url, pairs, args.parallel)
            board = httpx.get(server.url + "/api/leaderboard/einauge").json()["players"]
        finally:
            server.stop()
            redis.stop()
    minutes = (time.time() - started) / 60
    print(f"{games} rated games, {minutes:.1f} min\n")
    print("| rank | bot | rating | deviation | rated games | provisional |")
    print("|---:|---|---:|---:|---:|---|")
    for row in board:
        print(f"| {row['rank']} | {row['username']} | {row['rating']} | {row['deviation']} | "
              f"{row['games']} | {'yes' if row['provisional'] else 'no'} |")


if __name__ == "__main__":
    main()
