"""Limits with clear errors, on a server started with small limits."""

from __future__ import annotations

import asyncio
import re
import select
import socket
import time

import pytest

from protocol.connection import ConnectionClosed, dial
from server.ws.endpoint import CLOSE_TIMEOUT
from tests.conftest import RedisProcess, ServerProcess
from tests.server.client import Lobby, Socket, ended, one_hour, pack, unpack
from tests.waiting import until


@pytest.fixture
def strict(tmp_path_factory):
    # Its own Redis and server for each test: the hourly table counter is shared by every
    # process on a Redis, and the connection count by address is the server's, so what one
    # test made or left open never counts in another (in whatever order they run).
    r = RedisProcess(tmp_path_factory.mktemp("limits") / "redis")
    r.start()
    # A refill of one message per 1000 s: no token comes back while a test runs, however
    # slowly the server handles the frames, so the counts below are exact. The clock is
    # stopped within one hour: the hourly table count does not start again mid-test.
    s = ServerProcess(r.url, env={
        "CARDTABLE_RATE_PER_S": "0.001", "CARDTABLE_RATE_BURST": "5", "CARDTABLE_FLOOD_CLOSE": "20",
        "CARDTABLE_CONNS_PER_ADDR": "4", "CARDTABLE_TABLES_PER_HOUR": "3",
        **one_hour(tmp_path_factory.mktemp("limits") / "clock")}).start()
    yield s
    s.stop()
    r.stop()


async def test_flooding_gets_rate_limited_then_closed_others_unaffected(strict):
    lobby = Lobby(strict.url)
    table = await lobby.create(2)
    tid = table["id"]
    watcher = await Socket(strict.ws_url, tid).connect()
    flooder = await Socket(strict.ws_url, tid).connect()
    await flooder.wait(lambda f: f["t"] == "welcome")
    for _ in range(60):
        await flooder.send({"t": "sync"})
    assert await flooder.wait_closed() == 1008
    limited = [f for f in flooder.frames if f["t"] == "error"]
    assert {f["code"] for f in limited} == {"rate_limited"}
    assert len(limited) == 19  # the 20th refusal in a row (CARDTABLE_FLOOD_CLOSE) closes
    welcomes = [f for f in flooder.frames if f["t"] == "welcome"]
    assert len(welcomes) == 6  # the hello (no token) and the burst of 5 syncs were served

    # The watcher still gets the lobby changes of its table.
    await lobby.join(tid, "Anna")
    frame = await watcher.wait(lambda f: f["t"] == "table")
    assert frame["table"]["seats"][0]["name"] == "Anna"
    await watcher.close()
    await lobby.close()


async def test_connections_per_address_and_tables_per_hour(strict):
    lobby = Lobby(strict.url)
    r = await lobby.http.post("/api/tables", json={"seats": 2})
    tid = r.json()["id"]
    sockets = [await Socket(strict.ws_url, tid).connect() for _ in range(4)]
    for s in sockets:
        await s.wait(lambda f: f["t"] == "welcome")
    extra = await Socket(strict.ws_url, tid).connect()
    assert await extra.wait_closed() == 4029
    await sockets[0].close()

    async def welcomed() -> Socket | None:
        """A new socket, once the server has counted the closed one out (until then it is
        refused with 4029, which is no answer to this wait: try again)."""
        s = await Socket(strict.ws_url, tid).connect()
        try:
            await s.wait(lambda f: f["t"] == "welcome")
        except ConnectionError:
            assert s.close_code == 4029, s.close_code
            return None
        return s

    again = await until(welcomed, what="a socket in the freed slot")
    for s in (*sockets[1:], again):
        await s.close()

    statuses = [(await lobby.http.post("/api/tables", json={"seats": 2})).status_code
                for _ in range(3)]
    # One was made above: the hourly limit of 3 is reached with the third.
    assert statuses == [201, 201, 429]
    r = await lobby.http.post("/api/tables", json={"seats": 2})
    assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited"
    # A tutorial is a new table of the address: the same count, the same answer.
    t = await lobby.http.post("/api/tutorials", json={"game": "einauge"})
    assert t.status_code == 429 and t.json() == r.json()
    await lobby.close()


TCP_ESTABLISHED = 1  # linux/tcp_states.h


def tcp_state(sock: socket.socket) -> int:
    """The kernel's TCP state of ``sock`` (``tcpi_state``, the first byte of TCP_INFO)."""
    return sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 1)[0]


async def test_a_socket_that_stops_reading_is_closed_then_dropped(redis_url):
    """Its queue fills (1008 "too slow"); since it does not read, the close frame cannot go
    out either, and after the close timeout the connection is aborted: no buffers kept."""
    srv = ServerProcess(redis_url, env={
        "CARDTABLE_OUTBOX_LIMIT": "16", "CARDTABLE_FLOOD_CLOSE": "1000000",
        "CARDTABLE_RATE_PER_S": "1000000", "CARDTABLE_RATE_BURST": "1000000"}).start()
    lobby = Lobby(srv.url)
    try:
        table = await lobby.create(2)
        tid = table["id"]
        for seat in range(2):
            await lobby.bot(tid, seat, "random")
        watcher = await Socket(srv.ws_url, tid).connect()
        await watcher.wait(lambda f: f["t"] == "welcome")
        await lobby.start(tid, table["owner_token"])
        await watcher.wait(ended, timeout=60)  # a finished game: a large view to ask for
        raw = socket.socket()
        raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
        raw.connect(("127.0.0.1", srv.port))
        slow = await dial(f"{srv.ws_url}/ws/tables/{tid}", sock=raw, max_size=2**22,
                          max_queue=1, ping_interval=None)
        await slow.send(pack({"t": "hello", "token": None, "last_seq": None}))
        assert unpack(await slow.recv())["t"] == "welcome"
        slow.transport.pause_reading()
        for _ in range(20_000):  # each answered with a full view: more megabytes than the
            await slow.send(pack({"t": "sync"}))  # socket buffers of both ends hold
        # Without reading a byte, the client sees its connection end (reset by the server).
        await until(lambda: tcp_state(raw) != TCP_ESTABLISHED, timeout=CLOSE_TIMEOUT + 15,
                    what="the unread connection reset")
        slow.transport.resume_reading()
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                await asyncio.wait_for(slow.recv(), 10)
        # Aborted: the connection ended without a close frame from the server.
        assert closed.value.rcvd is None
        # The other socket was not disturbed, and the server holds no socket of it.
        assert not watcher.closed.is_set()
        metrics = (await lobby.get("/metrics")).text
        assert re.search(r"^cardtable_sockets 1\.0$", metrics, re.M), metrics
        await watcher.close()
    finally:
        await lobby.close()
        srv.stop()


async def test_a_refused_action_names_its_id(redis_url):
    srv = ServerProcess(redis_url, env={"CARDTABLE_RATE_PER_S": "5", "CARDTABLE_RATE_BURST": "5",
                                        "CARDTABLE_FLOOD_CLOSE": "20"}).start()
    try:
        await refused_actions_name_their_ids(srv)
    finally:
        srv.stop()


async def refused_actions_name_their_ids(srv: ServerProcess) -> None:
    lobby = Lobby(srv.url)
    table = await lobby.create(2)
    await lobby.close()
    sock = await Socket(srv.ws_url, table["id"]).connect()
    await sock.wait(lambda f: f["t"] == "welcome")
    ids = [f"r{i}" for i in range(12)]
    for aid in ids:  # over the rate of 5 per second, bursts of 5
        await sock.send({"t": "action", "id": aid, "action": {"type": "pass"}})
    await sock.send({"t": "sync"})
    await sock.wait(lambda f: f["t"] == "error" and f["id"] is None)  # the sync: no id
    answers = [f for f in sock.frames if f["t"] == "error" and f["id"] is not None]
    assert sorted(f["id"] for f in answers) == sorted(ids)  # one answer per action
    limited = [f["id"] for f in answers if f["code"] == "rate_limited"]
    assert limited and set(limited) < set(ids)
    assert {f["code"] for f in answers} == {"rate_limited", "spectator"}
    await sock.close()


async def test_forwarded_addresses_count_only_from_a_trusted_proxy(own_redis, tmp_path):
    """``X-Forwarded-For`` from anyone (here loopback, which uvicorn trusts by default)
    changes nothing; from a proxy named in CARDTABLE_TRUSTED_PROXIES it names the client."""
    limits = {"CARDTABLE_CONNS_PER_ADDR": "2", "CARDTABLE_TABLES_PER_HOUR": "2",
              **one_hour(tmp_path / "clock")}  # the hourly counts do not start again
    open_to_all = ServerProcess(own_redis.url, env=limits).start()
    behind_proxy = ServerProcess(own_redis.url, env={
        **limits, "CARDTABLE_TRUSTED_PROXIES": "127.0.0.1"}).start()
    try:
        lobby = Lobby(open_to_all.url)
        created = [await lobby.http.post("/api/tables", json={"seats": 2},
                                         headers={"X-Forwarded-For": f"10.0.0.{i}"})
                   for i in range(4)]
        assert [r.status_code for r in created] == [201, 201, 429, 429]
        tid = created[0].json()["id"]
        forged = [await Socket(open_to_all.ws_url, tid).connect(
            **{"X-Forwarded-For": f"10.0.1.{i}"}) for i in range(3)]
        for s in forged[:2]:
            await s.wait(lambda f: f["t"] == "welcome")
        assert await forged[2].wait_closed() == 4029
        await lobby.close()

        proxied = Lobby(behind_proxy.url)
        created = [await proxied.http.post("/api/tables", json={"seats": 2},
                                           headers={"X-Forwarded-For": f"10.0.2.{i}"})
                   for i in range(4)]
        assert [r.status_code for r in created] == [201] * 4  # four clients
        same = [await proxied.http.post("/api/tables", json={"seats": 2},
                                        headers={"X-Forwarded-For": "10.0.3.1"})
                for _ in range(3)]
        assert [r.status_code for r in same] == [201, 201, 429]  # one client, its limit
        clients = [await Socket(behind_proxy.ws_url, tid).connect(
            **{"X-Forwarded-For": f"10.0.4.{i}"}) for i in range(3)]
        for s in clients:
            await s.wait(lambda f: f["t"] == "welcome")
        one = [await Socket(behind_proxy.ws_url, tid).connect(
            **{"X-Forwarded-For": "10.0.5.1"}) for _ in range(3)]
        assert await one[2].wait_closed() == 4029
        await proxied.close()
        for s in (*forged[:2], *clients, *one[:2]):
            await s.close()
    finally:
        open_to_all.stop()
        behind_proxy.stop()


# The attack these tests guard against (found in a security review):
# Finding 5: an HTTP connection that never finishes its request headers is kept open
# for ever (uvicorn has no header timeout; ``cardtable serve`` sets no
# ``limit_concurrency`` and there is no per-address cap on HTTP connections, only on
# websockets). A single client trickling header lines holds file descriptors without
# bound (the service raises its soft limit to the hard one, 20,000 here) until accept()
# fails for everyone.


HEADER_DEADLINE = 10.0
"""Seconds the server gives a client to send its request headers
(server/http/header_deadline.py; nginx's ``client_header_timeout`` defaults to 60 s)."""
CONNS = 20


def test_half_sent_requests_are_dropped(server):
    port = int(server.url.rsplit(":", 1)[1])
    conns: dict[socket.socket, float] = {}  # each connection and when it was opened
    closed: dict[socket.socket, float] = {}  # each connection the server closed, and when
    answered = []
    try:
        for _ in range(CONNS):
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")  # no blank line: unfinished
            conns[s] = time.monotonic()
        give_up = time.monotonic() + HEADER_DEADLINE + 5
        while len(closed) < CONNS and time.monotonic() < give_up:
            open_ = [s for s in conns if s not in closed]
            # Woken by a close (readable), else once a second to trickle one more header
            # line into each: a slowloris keeps its requests alive that way.
            readable, _, _ = select.select(open_, [], [], 1.0)
            for s in readable:
                try:
                    data = s.recv(1)
                except OSError:
                    data = b""
                if data:
                    answered.append(data)  # an answer: the request was taken as complete
                closed[s] = time.monotonic()
            for s in open_:
                if s not in closed:
                    try:
                        s.sendall(b"X-Still: here\r\n")
                    except OSError:
                        closed[s] = time.monotonic()
    finally:
        for s in conns:
            s.close()
    # Every unfinished request is dropped without an answer at its deadline: not before
    # it (the trickled lines do not count as progress, nor do they end it early).
    assert (len(closed), answered) == (CONNS, []), (
        f"{CONNS - len(closed)} of {CONNS} unfinished requests still open after "
        f"{HEADER_DEADLINE + 5:.0f} s; answers: {answered}")
    after = sorted(closed[s] - conns[s] for s in conns)
    assert after[0] >= HEADER_DEADLINE - 0.5 and after[-1] <= HEADER_DEADLINE + 5, after
