"""``cardtable balance`` (cli/balance.py): three server processes behind a real HAProxy on one
port. Games are played through the balancer while one process is SIGKILLed: its clients
reconnect through the balancer to a live process and continue from their last seq with
no gap and no duplicate, and every acknowledged action is in the stored game.

Client addresses: clients bound to different loopback addresses (127.0.0.x, Linux) reach
the balancer; each has login, sign-up and socket limits of its own, a client's
``X-Forwarded-For`` counts for nothing, and a configured front proxy's names the client."""

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

from cli.balance import (
    BALANCER_SOURCE,
    TABLE_PATH,
    find_haproxy,
    front_proxies,
    haproxy_config,
    process_trust,
)
from server.play import roles
from server.store import streams as st
from server.store.client import connect_sync
from server.store.embedded import free_port
from server.store.presence import presence_key
from tests import watch
from tests.conftest import ROOT, TEST_ENV, RedisProcess
from tests.server.client import Lobby, Member, Player, Socket, events_of, one_hour, unique
from tests.trust.chaos import Spectator, check_against_record, verify_record
from tests.waiting import until

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


@pytest.mark.parametrize("trusted", [(), ("10.0.0.0/8", "192.0.2.7", "2001:db8::/32"),
                                     ("*",)])
def test_forwarded_headers_pass_only_from_the_front_proxies(tmp_path: Path,
                                                            trusted: tuple[str, ...]) -> None:
    text = haproxy_config("127.0.0.1", 8000, [8001, 8002], trusted=front_proxies(trusted))
    assert "option forwardfor" in text and f"source {BALANCER_SOURCE}" in text
    if trusted == ("*",):
        assert "del-header" not in text
    elif trusted:
        assert f"acl front_proxy src {' '.join(trusted)}" in text
        assert "http-request del-header X-Forwarded-For unless front_proxy" in text
        assert "http-request del-header X-Forwarded-Proto unless front_proxy" in text
    else:
        assert "front_proxy" not in text
        assert "http-request del-header X-Forwarded-For\n" in text
    path = tmp_path / "haproxy.cfg"
    path.write_text(text)
    checked = subprocess.run([str(find_haproxy()), "-c", "-f", str(path)], capture_output=True,
                             text=True, check=False)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    # the processes trust the balancer and the front proxies, nothing else
    assert process_trust(trusted) == ("*" if trusted == ("*",)
                                      else ",".join((BALANCER_SOURCE, *trusted)))


@pytest.mark.parametrize("entry", ["localhost", "10.0.0.1/8", "10.0.0.0/33", ""])
def test_a_front_proxy_is_an_address_or_a_network(entry: str) -> None:
    with pytest.raises(ValueError, match="CARDTABLE_TRUSTED_PROXIES"):
        front_proxies(("127.0.0.1", entry))


def test_the_balancer_refuses_a_front_proxy_it_cannot_match() -> None:
    env = {**os.environ, **TEST_ENV, "CARDTABLE_TRUSTED_PROXIES": "127.0.0.1,localhost"}
    done = subprocess.run([sys.executable, "-m", "cli", "balance", "--port", str(free_port())],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.returncode == 2 and "'localhost' is no IP address" in done.stderr, done.stderr


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

    def __init__(self, redis_url: str, log: Path, processes: int = PROCESSES,
                 env: dict[str, str] | None = None, extra: tuple[str, ...] = ()) -> None:
        self.redis_url = redis_url
        self.port = free_port()
        self.processes = processes
        self.first = free_run(processes)
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}"
        environ = {**os.environ, **TEST_ENV, **(env or {})}
        environ.pop("REDIS_URL", None)
        with log.open("wb") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "cli", "balance", "-n", str(processes),
                 "--port", str(self.port), "--first-port", str(self.first),
                 "--redis-url", redis_url, *extra], cwd=ROOT, env=environ, stdout=out,
                stderr=out)
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
        urls = [self.url] + [f"http://127.0.0.1:{self.first + i}"
                             for i in range(self.processes)]
        while time.monotonic() < deadline:
            assert self.proc is not None and self.proc.poll() is None, \
                self.log.read_text()[-3000:]
            try:
                if all(httpx.get(u + "/healthz", timeout=1).status_code == 200 for u in urls):
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)  # polling /healthz: the pause between two asks
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
    fields = [f.decode() for f in r.hgetall(presence_key(table_id))]
    return {f.rsplit(":", 1)[1] for f in fields if f.startswith(("on:", "spec:"))}


def sockets_of(port: int) -> int:
    text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=5).text
    match = re.search(r"^cardtable_sockets (\S+)$", text, re.M)
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
            # The killed process drops its sockets; they come back through the balancer.
            players.append((tid, seat, Player(lambda: balanced.ws_url, tid, token,
                                              seed=10 * t + seat, delay=0.05,
                                              allow_drops=True)))
        await lobby.start(tid, table["owner_token"])
    watching = [asyncio.create_task(s.run(timeout=180)) for s in spectators]
    running = [asyncio.create_task(p.run(timeout=180)) for _, _, p in players]
    await until(lambda: sum(len(p.acks) for _, _, p in players) >= 3 * TABLES, timeout=120,
                interval=0.02, what="three acks a table")

    # Every socket of a table is on one process (HAProxy hashes the table id), whichever
    # process its lobby requests went to.
    r = connect_sync(redis_url)
    try:
        for s in spectators:
            await until(lambda s=s: len(r.hgetall(presence_key(s.table_id))) >= 5,
                        what="on:0, on:1, spec, seen×2 in the presence hash")
            assert len(processes_of(r, s.table_id)) == 1, r.hgetall(presence_key(s.table_id))
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


FRONT_PROXY = "127.0.0.9"
"""A front proxy in the balancer's CARDTABLE_TRUSTED_PROXIES (the tests' clients are
127.0.0.2-127.0.0.8; any 127.0.0.x is this machine's loopback on Linux)."""

ADDRESS_LIMITS = {
    "CARDTABLE_TRUSTED_PROXIES": FRONT_PROXY,
    "CARDTABLE_CONNS_PER_ADDR": "2",
    "CARDTABLE_SIGNUPS_PER_HOUR": "2",
    "CARDTABLE_LOGIN_FAILURES_PER_ADDRESS": "3",
    "CARDTABLE_LOGIN_FAILURES_PER_ACCOUNT": "10",
}


@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Balanced]:
    """Two processes behind the balancer with small per-address limits, on a Redis of
    their own (the sign-up and login counters are kept there for an hour), their clock
    stopped within one hour (the hourly sign-up counts do not start again mid-test).
    Each test below uses client addresses of its own."""
    folder = tmp_path_factory.mktemp("addresses")
    r = RedisProcess(folder / "redis")
    b = Balanced(r.start(), folder / "balance.log", processes=2,
                 env={**ADDRESS_LIMITS, **one_hour(folder / "clock")})
    try:
        b.wait_ready()
        yield b
    finally:
        b.stop()
        r.stop()


async def sign_up(url: str, address: str, **headers: str) -> httpx.Response:
    """A sign-up from ``address`` with a new name."""
    async with httpx.AsyncClient(base_url=url, timeout=10, transport=httpx.AsyncHTTPTransport(
            local_address=address)) as http:
        return await http.post("/api/account/signup", headers=headers,
                               json={"username": unique("s"), "password": "correct horse 1"})


async def sockets_from(url: str, table_id: str, address: str, count: int,
                       forwarded: list[str] | None = None) -> list[Socket]:
    """``count`` sockets of the table from ``address``, connected one after the other
    (``connect`` returns once each is welcomed or closed); ``forwarded``: each one's
    ``X-Forwarded-For``."""
    sockets = []
    for i in range(count):
        headers = {"X-Forwarded-For": forwarded[i]} if forwarded else {}
        sockets.append(await Socket(url, table_id, local_address=address).connect(**headers))
    return sockets


def welcomed(s: Socket) -> bool:
    return any(f["t"] == "welcome" for f in s.frames)


@pytest.mark.timeout(120)
async def test_failed_logins_lock_out_only_their_own_address(limited: Balanced) -> None:
    name = unique("a")
    owner = Member(limited.url, "127.0.0.2")
    await owner.sign_up(name)
    guesser = Member(limited.url, "127.0.0.3")
    for _ in range(3):  # CARDTABLE_LOGIN_FAILURES_PER_ADDRESS, each for another name
        r = await guesser.try_log_in(unique("n"), "wrong password")
        assert r.status_code == 401, r.text
    r = await guesser.try_log_in(name, "correct horse 1")
    assert r.status_code == 429 and r.json()["error"]["code"] == "locked_out", r.text
    # the owner's address has no failure: the correct password logs in
    await owner.log_in(name)
    # and its own failures lock out only itself
    for _ in range(3):
        r = await owner.try_log_in(name, "wrong password")
        assert r.status_code == 401, r.text
    r = await owner.try_log_in(name, "correct horse 1")
    assert r.status_code == 429 and r.json()["error"]["code"] == "locked_out", r.text
    other = Member(limited.url, "127.0.0.4")
    await other.log_in(name)
    for m in (owner, guesser, other):
        await m.close()


def test_no_process_has_the_redis_url_on_its_command_line(limited: Balanced) -> None:
    pids = limited.pids()
    assert len(pids) == 2, pids
    for pid in pids.values():
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        assert b"serve" in argv and limited.redis_url.encode() not in b" ".join(argv), argv
        assert b"REDIS_URL=" + limited.redis_url.encode() in environ  # where it is instead


@pytest.mark.timeout(120)
async def test_each_address_has_its_own_sign_ups(limited: Balanced) -> None:
    first = [await sign_up(limited.url, "127.0.0.5") for _ in range(3)]
    assert [r.status_code for r in first] == [201, 201, 429], [r.text for r in first]
    assert first[2].json()["error"]["code"] == "rate_limited"
    second = [await sign_up(limited.url, "127.0.0.6") for _ in range(2)]
    assert [r.status_code for r in second] == [201, 201], [r.text for r in second]


@pytest.mark.timeout(120)
async def test_each_address_has_its_own_sockets(limited: Balanced) -> None:
    lobby = Lobby(limited.url)
    tid = (await lobby.create(2))["id"]  # all its sockets on one process (the hash)
    await lobby.close()
    first = await sockets_from(limited.ws_url, tid, "127.0.0.2", 3)
    assert [welcomed(s) for s in first] == [True, True, False]
    assert await first[2].wait_closed() == 4029
    second = await sockets_from(limited.ws_url, tid, "127.0.0.3", 2)
    assert all(welcomed(s) for s in second)
    for s in first + second:
        await s.close()


@pytest.mark.timeout(120)
async def test_a_clients_forwarded_header_is_ignored_a_front_proxys_is_used(
        limited: Balanced) -> None:
    url, forged = limited.url, {"X-Forwarded-For": "1.2.3.4", "X-Forwarded-Proto": "https"}
    # A client's X-Forwarded-For: its sign-ups count against its own address, also from
    # the balancer's own address (which the processes trust: HAProxy drops the header) ...
    for client in ("127.0.0.7", BALANCER_SOURCE):
        mine = [await sign_up(url, client, **forged) for _ in range(2)]
        assert [r.status_code for r in mine] == [201, 201], [r.text for r in mine]
        # its X-Forwarded-Proto is no more believed: no Secure cookie over plain http
        assert "secure" not in mine[0].headers["set-cookie"].lower()
        assert (await sign_up(url, client)).status_code == 429, client
    # ... and not against 1.2.3.4's, which a front proxy forwards with its full allowance
    proxied = [await sign_up(url, FRONT_PROXY, **forged) for _ in range(3)]
    assert [r.status_code for r in proxied] == [201, 201, 429], [r.text for r in proxied]
    assert "secure" in proxied[0].headers["set-cookie"].lower()
    # (the front proxy's own address is not what counts: another client of it signs up)
    assert (await sign_up(url, FRONT_PROXY, **{"X-Forwarded-For": "5.6.7.8"})).status_code == 201

    lobby = Lobby(url)
    tid = (await lobby.create(2))["id"]
    await lobby.close()
    names = ["10.0.0.1", "10.0.0.2", "10.0.0.3"]
    opened = []
    for client in ("127.0.0.8", BALANCER_SOURCE):
        spoofed = await sockets_from(limited.ws_url, tid, client, 3, forwarded=names)
        assert [welcomed(s) for s in spoofed] == [True, True, False], client
        assert await spoofed[2].wait_closed() == 4029
        opened += spoofed
    through_proxy = await sockets_from(limited.ws_url, tid, FRONT_PROXY, 3, forwarded=names)
    assert all(welcomed(s) for s in through_proxy)
    for s in opened + through_proxy:
        await s.close()
