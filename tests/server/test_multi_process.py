"""Two server processes on one Redis: the same deltas everywhere, and conflicting actions
from the two processes on one table store exactly one."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from tests.conftest import ServerProcess, stored_entries
from tests.server.client import Lobby, Seats, Socket, current_seq, ended
from tests.waiting import until


@pytest.fixture(scope="module")
def server_b(redis_url):
    s = ServerProcess(redis_url).start()
    yield s
    s.stop()


async def test_player_on_one_process_spectator_on_the_other(server, server_b):
    lobby = Lobby(server.url)
    table = await lobby.create(2)
    tid = table["id"]
    tokens = [(await lobby.join(tid, n))["token"] for n in ("Anna", "Ben")]
    watch_a = await Socket(server.ws_url, tid).connect()
    watch_b = await Socket(server_b.ws_url, tid, binary=False).connect()
    for w in (watch_a, watch_b):
        await w.wait(lambda f: f["t"] == "welcome")
    # The start goes through process B; both processes see it.
    r = await Lobby(server_b.url).http.post(f"/api/tables/{tid}/start", headers={
        "Authorization": f"Bearer {table['owner_token']}"})
    assert r.status_code == 200
    players = [await Socket(server.ws_url, tid).connect(token=tokens[0]),
               await Socket(server_b.ws_url, tid).connect(token=tokens[1])]
    seats = Seats(players, seed=11)
    while not any(ended(f) for f in players[0].frames):
        await seats.step()
    for w in (watch_a, watch_b):
        await w.wait(ended)
    a, b = watch_a.deltas(), watch_b.deltas()
    seqs = [e["seq"] for e in watch_a.events()]
    assert seqs == list(range(1, len(seqs) + 1))
    assert a == b
    for s in (*players, watch_a, watch_b):
        await s.close()
    await lobby.close()


async def test_conflicting_actions_from_two_processes_store_exactly_one(server, server_b):
    lobby = Lobby(server.url)
    table = await lobby.create(2)
    tid = table["id"]
    tokens = [(await lobby.join(tid, n))["token"] for n in ("Anna", "Ben")]
    await lobby.start(tid)  # the owner (host) starts
    view = (await lobby.get(f"/api/tables/{tid}/view")).json()
    spectator = await Socket(server_b.ws_url, tid).connect()
    # Welcomed before the first round: a welcome sent after it already covers its delta.
    await spectator.wait(lambda f: f["t"] == "welcome")
    for round_ in range(6):
        seat = view["current_seat"]
        here = await Socket(server.ws_url, tid).connect(token=tokens[seat])
        there = await Socket(server_b.ws_url, tid).connect(token=tokens[seat])
        prompts = [await s.wait(lambda f: f["t"] == "prompt") for s in (here, there)]
        legal = prompts[0]["legal_actions"]
        assert prompts[0] == prompts[1]
        first, second = legal[0], legal[-1]
        # Both decided at the prompt's seq: whichever process stores first wins.
        at = prompts[0]["seq"]
        await asyncio.gather(
            here.send({"t": "action", "id": f"h{round_}", "action": first, "seq": at}),
            there.send({"t": "action", "id": f"t{round_}", "action": second, "seq": at}))
        answers = [await s.wait(lambda f: f["t"] in ("ack", "error") and "id" in f)
                   for s in (here, there)]
        acks = [a for a in answers if a["t"] == "ack"]
        errors = [a for a in answers if a["t"] == "error"]
        assert len(acks) == 1 and len(errors) == 1, answers
        assert errors[0]["code"] == "stale"
        view = (await lobby.get(f"/api/tables/{tid}/view")).json()
        entries = (await lobby.get(f"/api/tables/{tid}/events")).json()
        assert entries["seq"] == view["seq"] == acks[0]["seq"]
        await spectator.wait(lambda f, s=view["seq"]: f["t"] == "deltas" and f["seq"] == s)
        assert current_seq(spectator) == view["seq"]
        for s in (here, there):
            await s.close()
    # The stored events replay to the served view: no second action slipped in.
    seqs = [e["seq"] for e in spectator.events()]
    assert seqs == list(range(seqs[0], seqs[-1] + 1))
    await spectator.close()
    await lobby.close()


async def test_bots_driven_by_two_processes_move_once_per_turn(server, server_b, redis_url):
    from server.play import roles
    from server.store import streams as store
    from server.store.client import connect_sync

    lobby = Lobby(server.url)
    table = await lobby.create(3)
    tid = table["id"]
    for seat in range(3):
        await lobby.bot(tid, seat)
    watchers = [await Socket(base, tid).connect() for base in (server.ws_url, server_b.ws_url)]
    for w in watchers:
        await w.wait(lambda f: f["t"] == "welcome")
    await lobby.start(tid, table["owner_token"])
    for w in watchers:
        await w.wait(ended, timeout=60)
    assert watchers[0].deltas() == watchers[1].deltas()
    r = connect_sync(redis_url)
    entries = stored_entries(r, tid)
    acts = {k.decode(): int(v) for k, v in r.hgetall(store.acts_key(tid)).items()}
    r.close()
    # One stored action per bot turn: each under the id of the seq it was decided at.
    assert len(acts) == sum(1 for e in entries if "a" in e)
    for key, seq_after in acts.items():
        sender, seat, _, at = key.split(":")  # b:<seat>:bot:<seq>, a bot's key
        assert sender == "b" and key == roles.act_key(int(seat), f"bot:{at}", by_bot=True)
        assert entries[int(at)]["a"]["seat"] == int(seat) and seq_after > int(at)
    record = (await lobby.get(f"/api/tables/{tid}/record")).json()
    assert len(record["actions"]) == len(acts)
    for w in watchers:
        await w.close()
    await lobby.close()


async def test_a_seat_taken_on_one_process_is_honoured_at_once_on_the_other(server, server_b):
    lobby = Lobby(server.url)
    for _ in range(3):
        table = await lobby.create(2)
        watcher = await Socket(server_b.ws_url, table["id"]).connect()  # B caches the table
        await watcher.wait(lambda f: f["t"] == "welcome")
        token = (await lobby.join(table["id"], "Anna"))["token"]
        player = await Socket(server_b.ws_url, table["id"]).connect(token=token)
        welcome = await player.wait(lambda f: f["t"] == "welcome")
        assert welcome["seat"] == 0 and welcome["table"]["seats"][0]["name"] == "Anna"
        for s in (watcher, player):
            await s.close()
    await lobby.close()


def _bot_moves(base: str) -> float:
    """The ``cardtable_bot_moves_total`` of one server process (``/metrics``)."""
    text = httpx.get(base + "/metrics", timeout=5).text
    return sum(float(line.split()[-1]) for line in text.splitlines()
               if line.startswith("cardtable_bot_moves_total "))


async def test_two_processes_started_together_drive_a_bot_table_once(own_redis):
    """Every starting process resumes the listed bot tables; only the one holding a
    table's lease (server/bots/leases.py) drives its bots: after a crash and two fresh
    processes, each bot turn is decided once in all (not once per process) and stored
    once."""
    from server.store import streams as store
    from server.store.client import connect_sync

    env = {"CARDTABLE_BOT_DELAY": "0.05", "CARDTABLE_BOT_LEASE": "3"}
    r = connect_sync(own_redis.url)  # a cluster under --redis=cluster

    def stored() -> tuple[str, int]:
        meta = r.hgetall(store.meta_key(tid))
        return meta[b"status"].decode(), int(meta[b"seq"])

    first = ServerProcess(own_redis.url, env=env).start()
    lobby = Lobby(first.url)
    pair = [ServerProcess(own_redis.url, env=env) for _ in range(2)]
    try:
        table = await lobby.create(3)
        tid = table["id"]
        for seat in range(3):
            await lobby.bot(tid, seat)
        await lobby.start(tid, table["owner_token"])
        await until(lambda: stored()[1] >= 5, what="five entries stored")
        first.kill()  # its lease stays until it expires
        status, at_kill = stored()
        assert status == "running"
        await asyncio.gather(*(asyncio.to_thread(p.start) for p in pair))
        await until(lambda: stored()[0] == "ended", timeout=90, what="the game ended")
        entries = stored_entries(r, tid)
        acts = {k.decode(): int(v) for k, v in r.hgetall(store.acts_key(tid)).items()}
        moves = [i for i, e in enumerate(entries) if "a" in e]
        # One stored action per turn, each a bot's under the seq it was decided at.
        assert len(acts) == len(moves)
        assert sorted(int(k.split(":")[-1]) for k in acts) == moves
        after = [i for i in moves if i >= at_kill]
        decided = [_bot_moves(p.url) for p in pair]
        assert after and sum(decided) == len(after), (decided, len(after))
    finally:
        await lobby.close()
        for p in pair:
            p.stop()
        r.close()
