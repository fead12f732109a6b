"""Action latency while replays are requested (docs/reliability.md, issue 13 finding 6).

One server process on its own Redis; two players play games back to back over websockets
and time each action from send to ack, first alone, then while another client posts
``--rate`` replay requests per second (``POST /api/replay``, each body a finished game's
record with a different amount of trailing space, so no answer is cached: the worst case).
The replay rate limit is raised for the run (``--limit``), or left at its default.

    .venv/bin/python -m bench.replay_load --seconds 10 --rate 100
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import httpx

from protocol.connection import dial
from protocol.frames import pack, unpack
from server.store.embedded import EmbeddedRedis, free_port

ROOT = Path(__file__).resolve().parent.parent


async def finished_record(http: httpx.AsyncClient, ws_url: str) -> dict:
    t = (await http.post("/api/tables", json={"seats": 5})).json()
    for seat in range(5):
        await http.post(f"/api/tables/{t['id']}/seats/{seat}/bot", json={"kind": "random"},
                        headers={"Authorization": f"Bearer {t['owner_token']}"})
    async with dial(f"{ws_url}/ws/tables/{t['id']}") as ws:
        await ws.send(pack({"t": "hello", "token": None, "last_seq": None}))
        await http.post(f"/api/tables/{t['id']}/start",
                        headers={"Authorization": f"Bearer {t['owner_token']}"})
        async for data in ws:
            m = unpack(data)
            if m["t"] == "deltas" and any(e["event"]["type"] == "game_ended"
                                          for e in m["events"]):
                break
    return (await http.get(f"/api/tables/{t['id']}/record")).json()


async def play(http: httpx.AsyncClient, ws_url: str, until: float, phase: list[str],
               samples: dict[str, list[float]]) -> None:
    rng = random.Random(1)
    while time.monotonic() < until:
        t = (await http.post("/api/tables", json={"seats": 2})).json()
        tid = t["id"]
        tokens = [(await http.post(f"/api/tables/{tid}/join", json={"name": n})).json()["token"]
                  for n in ("A", "B")]
        await http.post(f"/api/tables/{tid}/start",
                        headers={"Authorization": f"Bearer {t['owner_token']}"})
        socks = [await dial(f"{ws_url}/ws/tables/{tid}") for _ in tokens]
        prompts: asyncio.Queue = asyncio.Queue()
        acks: dict[str, asyncio.Future] = {}
        done = asyncio.Event()

        async def read(ws: object, i: int, prompts: asyncio.Queue = prompts,
                       acks: dict = acks, done: asyncio.Event = done) -> None:
            async for data in ws:  # type: ignore[attr-defined]
                m = unpack(data)
                if m["t"] == "prompt":
                    prompts.put_nowait((i, m))
                elif m["t"] in ("ack", "error") and m.get("id") in acks:
                    acks.pop(m["id"]).set_result(m)
                elif m["t"] == "deltas" and any(e["event"]["type"] == "game_ended"
                                                for e in m["events"]):
                    done.set()

        for ws, tok in zip(socks, tokens, strict=True):
            await ws.send(pack({"t": "hello", "token": tok, "last_seq": None}))
        readers = [asyncio.create_task(read(ws, i)) for i, ws in enumerate(socks)]
        n = 0
        while not done.is_set() and time.monotonic() < until:
            try:
                i, prompt = await asyncio.wait_for(prompts.get(), 0.5)
            except TimeoutError:
                for ws in socks:  # a refused action leaves no prompt: ask again
                    await ws.send(pack({"t": "sync"}))
                continue
            n += 1
            aid = f"a{n}"
            fut = asyncio.get_running_loop().create_future()
            acks[aid] = fut
            sent = time.perf_counter()
            await socks[i].send(pack({"t": "action", "id": aid, "seq": prompt["seq"],
                                      "action": rng.choice(prompt["legal_actions"])}))
            try:
                reply = await asyncio.wait_for(fut, 30)
            except TimeoutError:
                samples[phase[0]].append(30.0)
                continue
            if reply["t"] == "ack":
                samples[phase[0]].append(time.perf_counter() - sent)
        for ws in socks:
            await ws.close()
        for r in readers:
            r.cancel()


async def replays(base: str, body: bytes, rate: float, start: float, until: float,
                  statuses: Counter) -> None:
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        i = 0
        tasks = set()

        async def one(n: int) -> None:
            r = await http.post("/api/replay", content=body + b" " * n)
            statuses[r.status_code] += 1

        while time.monotonic() < until:
            target = start + i / rate
            await asyncio.sleep(max(0.0, target - time.monotonic()))
            i += 1
            t = asyncio.create_task(one(i))
            tasks.add(t)
            t.add_done_callback(tasks.discard)
        for t in tasks:  # answers still outstanding at the end are not waited for
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))] * 1000


async def main(args: argparse.Namespace) -> None:
    work = Path(tempfile.mkdtemp(prefix="replay-load-"))
    redis = EmbeddedRedis(work / "redis", port=free_port(), tie_to_parent=True)
    url = redis.start()
    port = free_port()
    env = {**os.environ, "CARDTABLE_LOG_LEVEL": "warning", "CARDTABLE_BOT_DELAY": "0",
           "CARDTABLE_TABLES_PER_HOUR": "100000", "CARDTABLE_STATIC_DIR": "/nonexistent"}
    if args.limit:
        env.update({"CARDTABLE_REPLAY_RATE_PER_S": str(args.limit),
                    "CARDTABLE_REPLAY_BURST": str(args.limit)})
    proc = subprocess.Popen([sys.executable, "-m", "cli", "serve", "--port", str(port),
                             "--redis-url", url], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base, ws_url = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
    try:
        async with httpx.AsyncClient(base_url=base, timeout=30) as http:
            for _ in range(200):
                try:
                    if (await http.get("/healthz")).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                await asyncio.sleep(0.05)
            body = json.dumps(await finished_record(http, ws_url)).encode()
            samples: dict[str, list[float]] = {"alone": [], "with replays": []}
            phase = ["alone"]
            half = args.seconds / 2
            t0 = time.monotonic()
            player = asyncio.create_task(play(http, ws_url, t0 + args.seconds, phase, samples))
            await asyncio.sleep(half)
            phase[0] = "with replays"
            statuses: Counter = Counter()
            await replays(base, body, args.rate, time.monotonic(), t0 + args.seconds, statuses)
            await player
        for name, xs in samples.items():
            if xs:
                print(f"{name}: {len(xs)} actions, ack latency p50 {pct(xs, 0.5):.1f} ms, "
                      f"p99 {pct(xs, 0.99):.1f} ms, max {max(xs) * 1000:.1f} ms, "
                      f"mean {statistics.mean(xs) * 1000:.1f} ms")
        print(f"replay requests ({args.rate:g}/s for {half:g} s): {dict(statuses)}")
    finally:
        proc.terminate()
        proc.wait(10)
        redis.stop()


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--rate", type=float, default=100.0)
    p.add_argument("--limit", type=float, default=0.0,
                   help="replay rate limit per address for the run (0: the default)")
    asyncio.run(main(p.parse_args()))
