"""Finding 7: an action frame with a valid ``id`` whose other fields do not validate gets
``{"t": "error", "code": "bad_message", "id": null}``. docs/protocol.md §2: ``id`` is the
action's id "whenever the refused frame was an action with a valid id"; a client waiting
for the ack of that id never learns it was refused."""

from __future__ import annotations

import pytest

from tests.server.client import Lobby, Socket


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
