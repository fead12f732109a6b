"""``einauge balance`` (cli/balance.py): three server processes behind a real HAProxy on one
port. Games are played through the balancer while one process is SIGKILLed: its clients
reconnect through the balancer to a live process and continue from their last seq with
no gap and no duplicate, and every acknowledged action is in the stored game."""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest

from cli.balance import TABLE_PATH, find_haproxy, haproxy_config
from server import roles
from server import store as st
from server.redis_client import connect_sync
from server.redis_embedded import free_port
from tests import watch
from tests.conftest import ROOT, TEST_ENV
from tests.server.client import Lobby, Player, events_of
from tests.trust.chaos import Spectator, check_against_record, verify_record

PROCESSES = 3
TABLES = 3


@pytest.fixture(autouse=True, scope="module")
def _haproxy() -> None:
    """haproxy is part of the set-up (scripts/setup.sh installs it): missing, these tests
    fail rather than pass unseen as skips."""
    if find_haproxy() is None:
        pytest.fail("haproxy is not installed: run scripts/setup.sh", pytrace=False)


def free_run(n: int) -> int:
    """The first of ``n`` consecutive free ports."""
    for _ in range(100):
        first = free_port()
        if first + n > 65535:
            continue
        socks = []
        try:
            for p in range(first, first + n):
                s = socket.socket()
                socks.append(s)
                s.bind(("127.0.0.1", p))
            return first
        except OSError:
            continue
        finally:
            for s in socks:
                s.close()
    raise RuntimeError("no run of free ports")


@pytest.mark.parametrize("leastconn", [False, True])
def test_the_config_checks_every_process_and_tunnels_websockets(tmp_path: Path,
                                                                leastconn: bool) -> None:
    text = haproxy_config("127.0.0.1", 8000, [8001, 8002], leastconn=leastconn)
    assert text.count("check inter 500") == 2 and "timeout tunnel 1h" in text
    assert "option httpchk GET /healthz" in text and "option redispatch" in text
    # by table (the default): the table's servers follow the checked ones, none of their own
    assert text.count("track serve/serve") == (0 if leastconn else 2)
    assert ("balance hash path,field(4,/)" in text) is not leastconn
    path = tmp_path / "haproxy.cfg"
    path.write_text(text)
    checked = subprocess.run([str(find_haproxy()), "-c", "-f", str(path)], capture_output=True,
                             text=True, check=False)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_table_paths_are_the_ones_that_name_a_table() -> None:
    named = ["/ws/tables/abc", "/api/tables/abc", "/api/tables/abc/join",
             "/api/tables/abc/seats/1/bot"]
    others = ["/api/tables", "/api/tables/", "/api/me/tables/abc", "/table/abc", "/healthz"]
    assert all(re.match(TABLE_PATH, p) for p in named)
    assert not any(re.match(TABLE_PATH, p) for p in others)
    # the 4th /-field (HAProxy's field(4,/)) is the id in both kinds of path
    assert {p.split("/")[3] for p in named} == {"abc"}


class Balanced:
    """``python -m cli balance`` on free ports, its stderr in a file."""

    def __init__(self, redis_url: str, log: Path) -> None:
        self.port = free_port()
        self.first = free_run(PROCESSES)
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}"
        env = {**os.environ, **TEST_ENV}
        env.pop("REDIS_URL", None)
        with log.open("wb") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "cli", "balance", "-n", str(PROCESSES),
                 "--port", str(self.port), "--first-port", str(self.first),
                 "--redis-url", redis_url], cwd=ROOT, env=env, stdout=out, stderr=out)
        # Watched as a ServerProcess is (tests/watch.py): the balancer's log holds its
        # processes' logs too.
        self.watcher = watch.ServerWatch(self)
        self.watcher.started(log)
        watch.watch(self.watcher)

    def pids(self) -> dict[int, int]:
        """Backend port → pid of the process serving it now."""
        found: dict[int, int] = {}
        for port, pid in re.findall(r"serve (\d+) pid (\d+)", self.log.read_text()):
            found[int(port)] = int(pid)
        return found

    def wait_ready(self, timeout: float = 90.0) -> None:
        deadline = time.monotonic() + timeout
        urls = [self.url] + [f"http://127.0.0.1:{self.first + i}" for i in range(PROCESSES)]
        while time.monotonic() < deadline:
            assert self.proc is not None and self.proc.poll() is None, \
                self.log.read_text()[-3000:]
            try:
                if all(httpx.get(u + "/healthz", timeout=1).status_code == 200 for u in urls):
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError("the balanced service did not come up: "
                           + self.log.read_text()[-3000:])

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        self.watcher.ending(proc)
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                self.watcher.stopped(proc, proc.wait(30), killed_after_timeout=False)
            except subprocess.TimeoutExpired:
                proc.kill()
                self.watcher.stopped(proc, proc.wait(), killed_after_timeout=True)
        for pid in self.pids().values():  # nothing left behind, even after a failure
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


@pytest.fixture
def balanced(redis_url: str, tmp_path: Path) -> Iterator[Balanced]:
    b = Balanced(redis_url, tmp_path / "balance.log")
    try:
        b.wait_ready()
        yield b
    finally:
        b.stop()


def processes_of(r, table_id: str) -> set[str]:
    """The processes that vouch for a socket of the table (its presence hash's claims)."""
    fields = [f.decode() for f in r.hgetall(st.presence_key(table_id))]
    return {f.rsplit(":", 1)[1] for f in fields if f.startswith(("on:", "spec:"))}


def sockets_of(port: int) -> int:
    text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=5).text
    match = re.search(r"^einauge_sockets (\S+)$", text, re.M)
    return int(float(match.group(1))) if match else 0


@pytest.mark.timeout(240)
async def test_clients_of_a_killed_process_continue_through_the_balancer(
        balanced: Balanced, redis_url: str, tmp_path: Path) -> None:
    lobby = Lobby(balanced.url)
    players: list[tuple[str, int, Player]] = []
    spectators: list[Spectator] = []
    via = [SimpleNamespace(ws_url=balanced.ws_url)]
    for t in range(TABLES):
        table = await lobby.create(2)
        tid = table["id"]
        tokens = [(await lobby.join(tid, f"P{i}"))["token"] for i in range(2)]
        spectators.append(Spectator(tid, via, random.Random(t)))
        for seat, token in enumerate(tokens):
            players.append((tid, seat, Player(lambda: balanced.ws_url, tid, token,
                                              seed=10 * t + seat, delay=0.05)))
        await lobby.start(tid, table["owner_token"])
    watching = [asyncio.create_task(s.run(timeout=180)) for s in spectators]
    running = [asyncio.create_task(p.run(timeout=180)) for _, _, p in players]
    while sum(len(p.acks) for _, _, p in players) < 3 * TABLES:
        await asyncio.sleep(0.02)

    # Every socket of a table is on one process (HAProxy hashes the table id), whichever
    # process its lobby requests went to.
    r = connect_sync(redis_url)
    try:
        for s in spectators:
            deadline = time.monotonic() + 10
            while len(r.hgetall(st.presence_key(s.table_id))) < 5:  # on:0, on:1, spec, seen×2
                assert time.monotonic() < deadline, r.hgetall(st.presence_key(s.table_id))
                await asyncio.sleep(0.05)
            assert len(processes_of(r, s.table_id)) == 1, r.hgetall(st.presence_key(s.table_id))
    finally:
        r.close()

    pids = balanced.pids()
    load = {port: await asyncio.to_thread(sockets_of, port) for port in pids}
    victim = max(load, key=lambda p: load[p])
    assert load[victim] > 0, load
    os.kill(pids[victim], signal.SIGKILL)
    for task in running + watching:
        await task

    reconnects = sum(p.reconnects for _, _, p in players) + sum(s.reconnects for s in spectators)
    assert reconnects >= load[victim], (reconnects, load)  # each socket there came back
    r = connect_sync(redis_url)
    try:
        for i, spectator in enumerate(spectators):
            tid = spectator.table_id
            record = (await lobby.get(f"/api/tables/{tid}/record")).json()
            assert verify_record(record, tmp_path / f"{i}.json").returncode == 0
            assert spectator.problems == [] and check_against_record(spectator, record) == []
            acts = {k.decode(): int(v) for k, v in r.hgetall(st.acts_key(tid)).items()}
            for table_id, seat, player in players:
                if table_id != tid:
                    continue
                for ack in player.acks:  # every acknowledged action is stored, once
                    key = roles.act_key(seat, ack["id"], by_bot=False)
                    assert acts.get(key) == ack["seq"], (seat, ack)
                # the player's deltas: consecutive, and the spectator's at each seq
                mine = events_of(player.deltas)
                seqs = [e["seq"] for e in mine]
                assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
                seen = {e["seq"]: e for e in spectator.deltas}  # its events
                assert all(seen.get(e["seq"], e) == e for e in mine)
                assert seqs[-1] == max(seen)  # both saw the game to its end
    finally:
        r.close()
    # the balancer started the killed process again
    assert balanced.pids()[victim] != pids[victim]
    await lobby.close()
    print(f"\nbalancer: sockets per process before the kill {load}; {reconnects} "
          f"reconnects after killing the process on {victim}")
