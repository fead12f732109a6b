"""The chaos run shared by the CI test (tests/trust/test_chaos.py) and the soak run
(bench/soak.py): bot tables watched by spectators on two or more server processes of one
Redis, while processes are killed with SIGKILL and restarted.

A spectator follows one table across reconnects: it always reconnects with the last seq
it applied, to whichever process answers, and records every delta; ``problems`` lists
any gap, duplicate or out-of-order delta it saw.
"""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from engine.chain import heads, public_events
from engine.einauge.game import EINAUGE
from protocol.connection import ConnectionClosed, InvalidHandshake, InvalidStatus, dial
from protocol.frames import pack, unpack
from tests.conftest import ROOT
from tests.trust.wire import LoggedServer
from tests.waiting import until


@dataclass
class Spectator:
    """Follows table ``table_id`` until ``game_ended``, across reconnects."""

    table_id: str
    servers: list[LoggedServer]
    rng: random.Random
    seq: int | None = None
    deltas: list[dict[str, Any]] = field(default_factory=list)
    """The events of every ``deltas`` frame applied: ``{"seq", "event", "head"}``."""
    problems: list[str] = field(default_factory=list)
    reconnects: int = 0
    resyncs: int = 0
    welcomed: bool = False
    """A first welcome came (the spectator is following the table)."""
    done: bool = False

    async def run(self, timeout: float) -> None:
        await asyncio.wait_for(self._run(), timeout)

    async def _run(self) -> None:
        while not self.done:
            server = self.rng.choice(self.servers)
            try:
                async with dial(f"{server.ws_url}/ws/tables/{self.table_id}",
                                open_timeout=2, max_size=2**22) as ws:
                    await ws.send(pack({"t": "hello", "token": None, "last_seq": self.seq}))
                    await self._session(ws)
            except (ConnectionClosed, OSError, InvalidHandshake, InvalidStatus, TimeoutError):
                pass
            if not self.done:
                self.reconnects += 1
                await asyncio.sleep(0.05)  # a client's pause before it reconnects

    async def _session(self, ws: Any) -> None:
        async for data in ws:
            m = unpack(data)
            if m["t"] == "welcome":
                self.welcomed = True
                if m["view"] is not None:
                    if self.seq is not None and m["seq"] < self.seq:
                        self.problems.append(f"welcome at {m['seq']} after {self.seq}")
                    if self.seq is not None and m["seq"] > self.seq:
                        self.resyncs += 1  # a full view instead of the missed deltas
                    self.seq = m["seq"]  # deltas continue from the view
                    if m["view"].get("phase") == "ended":
                        self.done = True
                        return
            elif m["t"] == "deltas":
                if self.seq is None or m["prev"] != self.seq:
                    self.problems.append(f"deltas {m['prev']}+ after {self.seq}")
                if [e["seq"] for e in m["events"]] != list(range(m["prev"] + 1, m["seq"] + 1)):
                    self.problems.append(f"deltas {m['prev']}+ not consecutive")
                self.seq = m["seq"]
                self.deltas.extend(m["events"])  # each {"seq", "event", "head"}
                if m["events"][-1]["event"]["type"] == "game_ended":
                    self.done = True
                    return


async def create_bot_table(http: httpx.AsyncClient, seats: int) -> str:
    """An all-bot table, started; returns its id."""
    r = await http.post("/api/tables", json={"seats": seats, "options": {}})
    assert r.status_code == 201, r.text
    table = r.json()
    for seat in range(seats):
        r = await http.post(f"/api/tables/{table['id']}/seats/{seat}/bot",
                            json={"kind": "random"},
                            headers={"Authorization": f"Bearer {table['owner_token']}"})
        assert r.status_code == 200, r.text
    return table["id"], table["owner_token"]


async def start_table(http: httpx.AsyncClient, table_id: str, owner: str) -> None:
    r = await http.post(f"/api/tables/{table_id}/start",
                        headers={"Authorization": f"Bearer {owner}"})
    assert r.status_code == 200, r.text


async def killer(servers: list[LoggedServer], every: float, stop: asyncio.Event,
                 rng: random.Random, kills: list[float]) -> None:
    """Every ``every`` seconds SIGKILL one running process and restart it (same port)."""
    while not stop.is_set():
        try:
            await asyncio.wait_for(stop.wait(), every)
            return
        except TimeoutError:
            pass
        victim = rng.choice([s for s in servers if s.proc is not None])
        victim.kill()
        kills.append(time.monotonic())
        await asyncio.sleep(0.2)  # the chaos: the process stays down a moment, clients fail over
        # A loaded machine can take long to import and start a server: wait, don't fail.
        await asyncio.to_thread(victim.start, 120.0)


async def kill_at(servers: list[LoggedServer], marks: list[int],
                  progress: Callable[[], int], rng: random.Random,
                  kills: list[float]) -> None:
    """SIGKILL one live process as ``progress()`` (say, the events the spectators applied)
    reaches each of ``marks``, and restart it (same port) in the background: with more
    processes than marks one always stays up, so every kill happens at its mark, in the
    middle of the games, however long a restart takes on a loaded machine. Returns once
    every killed process is back. Raises ``AssertionError`` when a mark is never reached
    (the games ended first) or no process is left to kill."""
    down: set[int] = set()

    async def restart(victim: LoggedServer) -> None:
        await asyncio.sleep(0.2)  # the chaos: the process stays down a moment, clients fail over
        await asyncio.to_thread(victim.start, 120.0)
        down.discard(id(victim))

    restarts = []
    for mark in marks:
        await until(lambda mark=mark: progress() >= mark, timeout=120,
                    what=f"{mark} events seen by the spectators")
        live = [s for s in servers if id(s) not in down]
        assert len(live) >= 2, "a kill would leave no process up"
        victim = rng.choice(live)
        down.add(id(victim))
        victim.kill()
        kills.append(time.monotonic())
        restarts.append(asyncio.create_task(restart(victim)))
    await asyncio.gather(*restarts)


async def poke(servers: list[LoggedServer], table_id: str, http: httpx.AsyncClient) -> None:
    """Load the table in a live process (what any client's visit does) so its bots run.
    ``http`` is a shared client: making one per call costs tens of ms of CPU (its TLS
    context), which at soak rates stalled the generator's loop for seconds."""
    for s in servers:
        if s.proc is None:
            continue
        try:
            await http.get(f"{s.url}/api/tables/{table_id}/view", timeout=5)
            return
        except httpx.HTTPError:
            continue


def verify_record(record: dict[str, Any], path: Path) -> subprocess.CompletedProcess[str]:
    """Run ``cardtable verify`` on the record (as a file, in a subprocess)."""
    path.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
    return subprocess.run([sys.executable, "-m", "cli", "verify", str(path)], cwd=ROOT,
                          capture_output=True, text=True, check=False)


def check_against_record(spectator: Spectator, record: dict[str, Any]) -> list[str]:
    """Every event the spectator applied has the event and the chain head the record's
    replay gives for its seq: nobody saw another history than the one recorded."""
    events = list(EINAUGE.start(record["players"], record["options"], "", record["deck"]))
    state = EINAUGE.replay(events)
    for action in record["actions"]:
        events += EINAUGE.play(state, EINAUGE.actions.decode(action))
    chain = [h.hex() for h in heads(record["table_id"], record["commitment"],
                                    public_events(EINAUGE, events,
                                                  record.get("name_commitments")))]
    out = []
    for d in spectator.deltas:
        s = d["seq"]
        if d["head"] != chain[s - 1]:
            out.append(f"seq {s}: head differs from the record's chain")
        if d["event"] != EINAUGE.project(events[s - 1], None):
            out.append(f"seq {s}: event differs from the record's replay")
    if spectator.deltas and spectator.deltas[-1]["seq"] != len(events):
        out.append("the spectator did not see the last event")
    return out
