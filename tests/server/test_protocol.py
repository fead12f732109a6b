"""Inbound frame decoding and validation (server/ws/protocol.py)."""

from __future__ import annotations

import json

import msgpack
import pytest

from engine import get_game
from server.ws import protocol as p
from tests.server.client import Lobby, Socket


def test_decode_msgpack_and_json():
    hello = {"t": "hello", "token": None, "last_seq": 4}
    assert p.decode_frame(msgpack.packb(hello)) == hello
    assert p.decode_frame(json.dumps(hello)) == hello
    assert isinstance(p.parse_message(hello), p.Hello)


@pytest.mark.parametrize("frame", [
    b"\xc1", b"", b"\x93\x01\x02\x03", "[1, 2]", "{oops", "1" * 5000,
    msgpack.packb({1: 2}), msgpack.packb({"t": b"bytes"}), b"\x00" * 20000,
])
def test_undecodable_frames(frame):
    with pytest.raises(p.Undecodable):
        p.decode_frame(frame)


@pytest.mark.parametrize("message", [
    {}, {"t": "nope"}, {"t": "hello", "token": 5}, {"t": "hello", "last_seq": -1},
    {"t": "hello", "last_seq": 10**20}, {"t": "hello", "token": "x" * 65},
    {"t": "hello", "unknown": 1}, {"t": "action", "id": "", "action": {"type": "pass"}},
    {"t": "action", "id": "a"}, {"t": "action", "id": "a", "action": {"type": {"x": 1}}},
    {"t": "action", "id": "a", "action": {"type": 1.5}},
    {"t": "action", "id": "a", "action": {str(i): i for i in range(9)}},
    {"t": "action", "id": "a", "action": {"type": "pass"}, "seq": -1},
    # An object field is flat and small; a list is bounded.
    {"t": "action", "id": "a", "action": {"type": "play", "values": {"x": {"y": 1}}}},
    {"t": "action", "id": "a", "action": {"type": "play", "values": {"x": [1]}}},
    {"t": "action", "id": "a", "action": {"type": "play", "values": {"x": 1.5}}},
    {"t": "action", "id": "a", "action": {"type": "play",
                                          "values": {str(i): i for i in range(9)}}},
    {"t": "action", "id": "a", "action": {"type": "discard", "cards": ["c"] * 101}},
    {"t": "sync", "x": 1}, {"t": ["hello"]},
])
def test_invalid_messages_are_bad_messages(message):
    with pytest.raises(p.BadMessage):
        p.parse_message(message)


def test_valid_action_and_encode():
    msg = p.parse_message({"t": "action", "id": "a1", "seq": 3,
                           "action": {"type": "buy", "card": "blue-3", "row": None}})
    assert isinstance(msg, p.ActionMsg) and msg.seq == 3
    assert msg.action == {"type": "buy", "card": "blue-3", "row": None}
    # Loot Island: a play names each joker's value (a flat object); a discard may name
    # more cards than any other game's action (no hand limit).
    play = {"type": "play", "seat": 0, "landing": "north-2",
            "cards": ["map-blue-6b", "map-blue-star-b", "map-blue-8a"],
            "values": {"map-blue-star-b": 8}}
    assert p.parse_message({"t": "action", "id": "a2", "action": play}).action == play
    discard = {"type": "discard", "seat": 1, "cards": [f"map-red-{v}a" for v in range(1, 11)]}
    assert p.parse_message({"t": "action", "id": "a3", "action": discard}).action == discard
    out = {"t": "ack", "id": "a1", "seq": 3}
    assert msgpack.unpackb(p.encode(out, True)) == out
    assert json.loads(p.encode(out, False)) == out


def test_http_bodies():
    assert p.parse_body(p.CreateTable, {"seats": 3}).seats == 3
    with pytest.raises(p.BadMessage):
        p.parse_body(p.CreateTable, {"seats": 1})
    with pytest.raises(ValueError):  # the game checks its options (no model in server/)
        get_game("einauge").check_options({"color_bonus": "yes"}, 3)
    with pytest.raises(p.BadMessage):
        p.parse_body(p.PlayerSeed, {"player_seed": "x" * 65})


# The attack these tests guard against (found in a security review):
# Finding 7: an action frame with a valid ``id`` whose other fields do not validate gets
# ``{"t": "error", "code": "bad_message", "id": null}``. docs/protocol.md §2: ``id`` is the
# action's id "whenever the refused frame was an action with a valid id"; a client waiting
# for the ack of that id never learns it was refused.


@pytest.mark.parametrize("bad", [
    {"seq": 1.0},                      # a float where an int is due (msgpack keeps floats)
    {"seq": True},                     # a bool
    {"action": {"type": "x", "n": 1.5}},  # an action field that is no scalar of the schema
    {"extra": 1},                      # an unknown field
])
async def test_a_malformed_action_is_refused_with_its_id(server, bad):
    lobby = Lobby(server.url)
    table = await lobby.create(2)
    tid = table["id"]
    token = (await lobby.join(tid, "Anna"))["token"]
    await lobby.join(tid, "Ben")
    await lobby.start(tid)
    sock = await Socket(server.ws_url, tid).connect(token=token)
    try:
        await sock.wait(lambda f: f["t"] == "welcome")
        await sock.send({"t": "action", "id": "mine-1",
                         "action": {"type": "sell_jewel", "seat": 0}, **bad})
        err = await sock.wait(lambda f: f["t"] == "error")
    finally:
        await sock.close()
        await lobby.close()
    assert err["code"] == "bad_message"
    assert err["id"] == "mine-1", err
