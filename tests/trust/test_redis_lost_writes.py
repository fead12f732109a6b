"""Redis lost acknowledged writes (issue 13, findings 2 and 3): it came back empty, from an
older append-only file, or (as after the promotion of a replica that lagged) holds an older
stream while the processes keep theirs cached. Every process must notice that the stored
stream is not the one it cached, drop what it cached, rebuild from Redis and tell its
clients (a fresh ``welcome``); a table Redis no longer has closes its sockets with 4004 and
stops its bots; nothing spins."""

from __future__ import annotations

import asyncio
import re
import shutil
from typing import Any

import redis

from engine.einauge.game import EINAUGE
from server.store import streams as store
from tests.conftest import stored_entries
from tests.server.client import Lobby, Seats, Socket, apply_deltas
from tests.trust.wire import crashes
from tests.waiting import until


def seen_view(sock: Socket) -> tuple[int, dict[str, Any]]:
    """The seq and view a thin client holds: its last full view, then the deltas after it."""
    last = max(i for i, f in enumerate(sock.frames) if f["t"] == "welcome" and f["view"])
    welcome = sock.frames[last]
    deltas = [f for f in sock.frames[last:] if f["t"] == "deltas"]
    seq = welcome["seq"]
    for d in deltas:
        assert d["prev"] == seq, (seq, d["prev"])  # no gap, no duplicate after the view
        seq = d["seq"]
    return seq, apply_deltas(welcome["view"], deltas)


def stored_view(redis_url: str, table_id: str) -> tuple[int, str, dict[str, Any]]:
    """Seq, head and spectator view of the stream Redis holds (replayed here)."""
    r = redis.Redis.from_url(redis_url)
    entries = stored_entries(r, table_id)
    head = r.hget(store.meta_key(table_id), "head").decode()
    r.close()
    state = EINAUGE.initial_state()
    for e in entries:
        state = EINAUGE.evolve(state, EINAUGE.events.decode(e["e"]))
    assert entries[-1]["h"] == head
    return len(entries), head, EINAUGE.view(state, None)


async def human_table(lobby: Lobby, ws_url: str) -> tuple[str, list[Socket]]:
    table = await lobby.create(2)
    tid = table["id"]
    tokens = [(await lobby.join(tid, n))["token"] for n in ("Anna", "Ben")]
    await lobby.start(tid)  # the owner (host) starts
    players = [await Socket(ws_url, tid).connect(token=t) for t in tokens]
    for p in players:
        await p.wait(lambda f: f["t"] == "welcome")
    return tid, players


async def wait_for(predicate: Any, timeout: float = 20.0) -> None:
    """Poll ``predicate()`` (every 50 ms) until it holds; fails after ``timeout`` s."""
    await until(predicate, timeout=timeout)


TIMED = {"zrange", "zrangebyscore", "srandmember", "info"}
"""The commands of the server's timers (the deadline, bot table, tournament and seek scans,
about 13 a second whatever the tables) and of the count itself: not what a spinning bot or
retry sends, and on their own close to the bound on a slow window."""


def untimed(r: redis.Redis) -> int:
    """The commands Redis ran so far, but for those of ``TIMED`` (``INFO commandstats``)."""
    return sum(v["calls"] for k, v in r.info("commandstats").items()
               if k.removeprefix("cmdstat_") not in TIMED)


def counter(metrics_text: str, name: str) -> float:
    found = re.search(rf"^{name} (\S+)$", metrics_text, re.M)
    return float(found.group(1)) if found else 0.0


async def test_redis_restarted_empty_closes_the_tables_it_lost_and_nothing_spins(
        own_redis, spawn) -> None:
    server = spawn(own_redis.url, "server", {"CARDTABLE_RECENT_DELTAS": "4",
                                            "CARDTABLE_BOT_DELAY": "0.2"})
    await asyncio.to_thread(server.start)
    lobby = Lobby(server.url)
    tid, players = await human_table(lobby, server.ws_url)
    spectator = await Socket(server.ws_url, tid, binary=False).connect()
    await spectator.wait(lambda f: f["t"] == "welcome")
    seq = await Seats(players, seed=1).step(8)
    await spectator.wait(lambda f: f["t"] == "deltas" and f["seq"] == seq)
    bots = await lobby.create(2)
    for seat in range(2):
        await lobby.bot(bots["id"], seat)
    await lobby.start(bots["id"], bots["owner_token"])

    # Redis comes back with nothing: its data folder is gone.
    await asyncio.to_thread(own_redis.stop)
    shutil.rmtree(own_redis.directory)
    await asyncio.to_thread(own_redis.start)

    # Every socket of the lost table is told that it no longer exists.
    for sock in (*players, spectator):
        assert await sock.wait_closed(timeout=20) == 4004
    # A reconnect with a seq older than the ring (the missed deltas would have to be
    # rebuilt from the stored events, which are gone) is refused at once, not left
    # waiting while the process asks Redis again and again.
    again = await Socket(server.ws_url, tid).connect(last_seq=1)
    assert await again.wait_closed(timeout=10) == 4004
    assert (await lobby.get(f"/api/tables/{tid}")).status_code == 404

    # Nothing spins: the lost bot table's bots stopped, Redis is quiet.
    r = redis.Redis.from_url(own_redis.url)
    # A rate over a window of real time: what spinning bots or retries would send in it.
    await asyncio.sleep(0.5)  # the closing sockets' last commands are not counted
    before = untimed(r)
    await asyncio.sleep(1.5)  # the window
    spent = untimed(r) - before
    r.close()
    assert spent < 30, f"{spent} Redis commands in 1.5 s with nothing to do"
    metrics = (await lobby.get("/metrics")).text
    assert counter(metrics, "cardtable_tables_cached") == 0
    assert counter(metrics, "cardtable_tables_vanished_total") >= 2
    refused = server.log_text().count("no_table")
    await asyncio.sleep(1.0)  # a window in which a retrying bot would be refused again
    assert server.log_text().count("no_table") == refused  # no bot retrying a gone table

    # The service goes on with new tables.
    _, players2 = await human_table(lobby, server.ws_url)
    assert await Seats(players2, seed=2).step(2) > 2
    for sock in (again, *players2):
        await sock.close()
    await lobby.close()
    assert not crashes(server.log_text()), crashes(server.log_text())[:5]


async def test_redis_restarted_from_an_older_append_only_file_rebuilds_and_resyncs(
        own_redis, spawn) -> None:
    # The late reconnect's deltas are rebuilt in a thread, not a first worker process: a
    # worker spawned on a busy machine can outlast the pool's stall bound, and the welcome
    # then carries the full view (a documented fallback, not what this test is about).
    server = spawn(own_redis.url, "server", {"CARDTABLE_RECENT_DELTAS": "4",
                                             "CARDTABLE_BOT_WORKERS": "0"})
    await asyncio.to_thread(server.start)
    lobby = Lobby(server.url)
    tid, players = await human_table(lobby, server.ws_url)
    spectator = await Socket(server.ws_url, tid, binary=False).connect()
    await spectator.wait(lambda f: f["t"] == "welcome")
    seats = Seats(players, seed=3)
    older = await seats.step(6)
    # A copy of the append-only file at ``older`` (taken while Redis is stopped).
    await asyncio.to_thread(own_redis.stop)
    backup = own_redis.directory.parent / "aof-backup"
    shutil.copytree(own_redis.directory / "appendonlydir", backup)
    await asyncio.to_thread(own_redis.start)
    newer = await seats.step(8)
    assert newer > older
    await spectator.wait(lambda f: f["t"] == "deltas" and f["seq"] == newer)
    marks = [len(s.frames) for s in (*players, spectator)]

    # Redis restarts from the older file: it lost every action after ``older``.
    await asyncio.to_thread(own_redis.stop)
    shutil.rmtree(own_redis.directory / "appendonlydir")
    shutil.copytree(backup, own_redis.directory / "appendonlydir")
    await asyncio.to_thread(own_redis.start)
    stored_seq, stored_head, view = stored_view(own_redis.url, tid)
    assert stored_seq == older < newer

    # Every socket gets a fresh welcome with the stored stream's seq, head and view.
    for sock, mark in zip((*players, spectator), marks, strict=True):
        welcome = await sock.wait(lambda f: f["t"] == "welcome", timeout=20, start=mark)
        assert (welcome["seq"], welcome["head"]) == (stored_seq, stored_head)
        assert welcome["view"] == view
    # A reconnect from before the lost part gets exactly the stored deltas.
    late = await Socket(server.ws_url, tid).connect(last_seq=1)
    welcome = await late.wait(lambda f: f["t"] == "welcome", timeout=60)
    assert welcome["seq"] == stored_seq and welcome["view"] is None
    await late.wait(lambda f: f["t"] == "deltas" and f["seq"] == stored_seq)

    # Play goes on from the stored stream; everyone ends with Redis's view.
    last = await seats.step(6)
    assert last > stored_seq
    final_seq, final_head, final = stored_view(own_redis.url, tid)
    assert final_seq == last
    for sock, mark in zip((*players, spectator), marks, strict=True):
        # By its head: the lost stream had a delta of that seq too (``last`` <= ``newer``).
        await sock.wait(lambda f: f["t"] == "deltas" and f["seq"] == last
                        and f["events"][-1]["head"] == final_head, start=mark)
        assert seen_view(sock) == (last, final)
    assert (await lobby.get(f"/api/tables/{tid}/view")).json() == final
    metrics = (await lobby.get("/metrics")).text
    assert counter(metrics, "cardtable_tables_rebuilt_total") == 1
    for sock in (*players, spectator, late):
        await sock.close()
    await lobby.close()
    assert not crashes(server.log_text()), crashes(server.log_text())[:5]


async def test_an_older_stream_without_a_restart_is_noticed_by_every_process(
        own_redis, spawn) -> None:
    """As after a failover to a replica that lagged: the connections stay up, Redis just
    holds an older stream. The process that appends next is refused (another head), the
    other one sees entries that do not continue its cache: both rebuild and resync."""
    servers = [spawn(own_redis.url, f"server{i}") for i in range(2)]
    for s in servers:
        await asyncio.to_thread(s.start)
    lobby = Lobby(servers[0].url)
    tid, players = await human_table(lobby, servers[0].ws_url)
    watchers = [await Socket(s.ws_url, tid, binary=b).connect()
                for s, b in ((servers[0], True), (servers[1], False))]
    for w in watchers:
        await w.wait(lambda f: f["t"] == "welcome")
    seats = Seats(players, seed=5)
    older = await seats.step(6)
    r = redis.Redis.from_url(own_redis.url)
    keys = [store.meta_key(tid), store.events_key(tid), store.acts_key(tid)]
    snapshot = {k: r.dump(k) for k in keys}
    newer = await seats.step(10)
    for w in watchers:
        await w.wait(lambda f: f["t"] == "deltas" and f["seq"] == newer)
    for k, dumped in snapshot.items():
        r.restore(k, 0, dumped, replace=True)
    r.close()
    marks = [len(s.frames) for s in (*players, *watchers)]

    # The next action goes through server 0 on its cached seq: the append is refused,
    # server 0 rebuilds from Redis and welcomes its sockets with the stored stream.
    view = (await lobby.get(f"/api/tables/{tid}/view")).json()  # cached: still the newer
    assert view["current_seat"] in (0, 1)
    mover = players[view["current_seat"]]
    # Its prompt for seq ``newer`` (it follows the deltas the watchers have seen, and may
    # come later on a loaded machine): an earlier prompt's action is refused by the cached
    # state itself, no append is tried, and nothing is noticed.
    prompt = await mover.wait(lambda f: f["t"] == "prompt" and f["seq"] == newer)
    await mover.send({"t": "action", "id": "after-the-loss",
                      "action": prompt["legal_actions"][0]})
    await mover.wait(lambda f: f.get("id") == "after-the-loss")
    for sock, mark in zip((*players, watchers[0]), marks[:3], strict=True):
        welcome = await sock.wait(lambda f: f["t"] == "welcome", timeout=20, start=mark)
        assert older <= welcome["seq"] <= older + 3 and welcome["view"]
    # Play on from there: server 1 sees entries that do not continue its cache and
    # resyncs its watcher too; no process applies them on top of its old state.
    last = await seats.step(6)
    final_seq, final_head, final = stored_view(own_redis.url, tid)
    assert final_seq == last < newer + 6
    def holds_the_stored_state(f: dict[str, Any]) -> bool:
        # The stored stream's last state, by its head (the older stream may have had a
        # delta of the same seq, when ``last`` <= ``newer``, already in the frames): its
        # last delta, or a welcome with the full view at it when the process rebuilt the
        # table only after the last append (a busy machine delays the background sync).
        if f["t"] == "deltas":
            return f["seq"] == last and f["events"][-1]["head"] == final_head
        return (f["t"] == "welcome" and f["view"] is not None and f["seq"] == last
                and f["head"] == final_head)

    for sock, mark in zip((*players, *watchers), marks, strict=True):
        await sock.wait(holds_the_stored_state, start=mark)
        assert seen_view(sock) == (last, final)
        state = [f for f in sock.frames if f["t"] == "deltas"
                 or (f["t"] == "welcome" and f["view"] is not None)][-1]
        assert holds_the_stored_state(state), state
    welcome = await watchers[1].wait(lambda f: f["t"] == "welcome", start=marks[3])
    assert welcome["seq"] < newer
    for s in servers:
        other = Lobby(s.url)
        assert (await other.get(f"/api/tables/{tid}/view")).json() == final
        await other.close()
    for sock in (*players, *watchers):
        await sock.close()
    await lobby.close()
    for s in servers:
        assert not crashes(s.log_text()), crashes(s.log_text())[:5]
