"""A chat message the administration removes (``cardtable admin remove-chat``, ``DELETE
/api/admin/tables/{id}/chat/{message}``; server/admin/ops.py) reaches the open sockets of
its table at once, on every process (the table's pub/sub channel): each reader of its
channel gets ``chat_removed`` with the replacement text, a socket that may not read the
channel gets nothing, and a later history has it removed. Two real server processes on
one Redis; the command runs in this process, the API through the first process."""

from __future__ import annotations

import pytest

from server.admin.ops import REMOVED_TEXT
from tests.conftest import ServerProcess
from tests.server.client import Lobby, Member, Socket, unique
from tests.server.test_admin import Cli


def _removed(sock: Socket, mid: str) -> list[dict]:
    return [f for f in sock.frames if f["t"] == "chat_removed" and f["id"] == mid]


async def test_a_removed_chat_message_leaves_every_open_socket_at_once(
        server: ServerProcess, redis_url: str, capsys: pytest.CaptureFixture) -> None:
    other = ServerProcess(redis_url).start()
    lobby = Lobby(server.url)
    admin = Member(server.url)
    try:
        table = await lobby.create(2)
        tid = table["id"]
        tokens = [(await lobby.join(tid, name))["token"] for name in ("Ann", "Bob")]
        await lobby.start(tid)
        ann = await Socket(server.ws_url, tid).connect(token=tokens[0])
        bob = await Socket(other.ws_url, tid).connect(token=tokens[1])
        zoe = await Socket(other.ws_url, tid).connect(hello={"viewer": "z" * 32})
        for s in (ann, bob, zoe):
            await s.wait(lambda f: f["t"] == "chat_history")

        await ann.send({"t": "chat", "text": "something rude"})
        said = await bob.wait(lambda f: f["t"] == "chat")
        await zoe.wait(lambda f: f["t"] == "chat" and f["id"] == said["id"])
        await zoe.send({"t": "chat", "text": "rude too"})
        spoken = await zoe.wait(lambda f: f["t"] == "chat" and f["channel"] == "spectators")

        # The spectators' message, by the command: only the spectator reads that channel.
        await Cli(redis_url, capsys).ok("remove-chat", "--", tid, spoken["id"])
        got = await zoe.wait(lambda f: f["t"] == "chat_removed" and f["id"] == spoken["id"])
        assert got == {"t": "chat_removed", "id": spoken["id"], "channel": "spectators",
                       "text": REMOVED_TEXT}

        # The players' message, through the API: both players (two processes) and the
        # spectator are told.
        name = unique("mod")
        await admin.sign_up(name)
        await Cli(redis_url, capsys).ok("grant", name, "moderator")
        r = await admin.http.delete(f"/api/admin/tables/{tid}/chat/{said['id']}")
        assert r.status_code == 200, r.text
        for s in (ann, bob, zoe):
            got = await s.wait(lambda f: f["t"] == "chat_removed" and f["id"] == said["id"])
            assert got == {"t": "chat_removed", "id": said["id"], "channel": "players",
                           "text": REMOVED_TEXT}
        # The same channel carried both notes in order: the players never got the first.
        assert _removed(ann, spoken["id"]) == [] and _removed(bob, spoken["id"]) == []

        late = await Socket(other.ws_url, tid).connect(hello={"viewer": "l" * 32})
        history = await late.wait(lambda f: f["t"] == "chat_history")
        lines = {m["id"]: m for ch in history["channels"].values() for m in ch}
        assert lines[said["id"]]["text"] == REMOVED_TEXT and lines[said["id"]]["removed"]
        assert lines[spoken["id"]]["text"] == REMOVED_TEXT
        for s in (ann, bob, zoe, late):
            await s.close()
    finally:
        await lobby.close()
        await admin.close()
        other.stop()
