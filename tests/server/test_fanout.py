"""Rooms deliver deltas in seq order, each socket from the one after what it has seen."""

from __future__ import annotations

import asyncio

from server.fanout.delta import Delta
from server.fanout.room import Connection, Room
from server.ws import protocol


def make_conn(seat: int | None, seq: int, got: list) -> Connection:
    async def send(frame: protocol.Frame) -> None:
        got.append(protocol.decode_frame(frame)["seq"])

    async def close(code: int, reason: str) -> None:
        pass

    conn = Connection(send, close, "test", True, rate_burst=10, outbox_limit=100)
    conn.seat, conn.seq = seat, seq
    return conn


async def drained(room: Room) -> None:
    """Until the room's broadcaster (if it needed one) has delivered everything."""
    if room.task is not None:
        await room.task
    assert not room.pending


def delta(seq: int, first: int | None = None) -> Delta:
    first = seq if first is None else first
    return Delta(first, seq, {None: {"t": "deltas", "seq": seq, "prev": first - 1, "patch": [],
                                     "events": [{"seq": n, "event": {}, "head": ""}
                                                for n in range(first, seq + 1)]}})


async def test_a_burst_of_deltas_reaches_each_socket_from_its_own_seq():
    room = Room("t")
    got: dict[str, list[int]] = {"player": [], "early": [], "late": [], "ahead": []}
    conns = {"player": make_conn(0, 4, got["player"]), "early": make_conn(None, 4, got["early"]),
             "late": make_conn(None, 6, got["late"]),  # welcomed at 6: has seen 5 and 6
             "ahead": make_conn(None, 9, got["ahead"])}  # welcomed after the burst
    for c in conns.values():
        room.add(c)
    for seq in range(5, 9):
        room.publish("delta", delta(seq))
    await drained(room)
    assert got == {"player": [5, 6, 7, 8], "early": [5, 6, 7, 8], "late": [7, 8], "ahead": []}
    assert [c.seq for c in conns.values()] == [8, 8, 8, 9]
    room.publish("delta", delta(9))
    room.publish("delta", delta(10))
    await drained(room)
    assert got["late"] == [7, 8, 9, 10] and got["ahead"] == [10]


async def test_spectators_beyond_a_chunk_all_get_every_delta():
    room = Room("t")
    lists = [[] for _ in range(600)]
    for i, got in enumerate(lists):
        room.add(make_conn(None if i else 1, 0, got))
    for seq in (1, 2, 3):
        room.publish("delta", delta(seq))
        await asyncio.sleep(0)  # the broadcaster may be part-way through a batch
    await drained(room)
    assert all(got == [1, 2, 3] for got in lists)
    assert room.task is not None  # beyond one chunk: a broadcaster task delivers


async def test_a_small_room_gets_its_deltas_at_once_without_a_task():
    room = Room("t")
    got: list[int] = []
    room.add(make_conn(None, 0, got))
    room.publish("delta", delta(1))
    assert got == [1] and room.task is None


async def test_an_append_of_several_events_is_one_frame_per_socket():
    room = Room("t")
    got: dict[str, list[int]] = {"player": [], "spectator": [], "inside": []}
    room.add(make_conn(0, 4, got["player"]))
    room.add(make_conn(None, 4, got["spectator"]))
    room.add(make_conn(None, 5, got["inside"]))  # holds a seq inside the append: a gap
    room.publish("delta", delta(7, first=5))  # events 5, 6, 7
    room.publish("delta", delta(8))
    await drained(room)
    assert got["player"] == got["spectator"] == [7, 8]  # two frames, not four
    assert got["inside"] == []
