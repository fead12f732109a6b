"""B2 findings on table chat (server/play/chat.py): the per-sender token bucket is keyed by an
identity the sender picks (a spectator's ``viewer`` secret) and lives in one process's
memory, so a flooder gets a fresh bucket by reconnecting with a new viewer key, or by
talking through a second server process."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.conftest import ServerProcess
from tests.server.client import Lobby, Socket

BURST = 3
CHAT_ENV = {"CARDTABLE_CHAT_HISTORY": "20", "CARDTABLE_CHAT_BURST": str(BURST),
            "CARDTABLE_CHAT_REFILL": "600"}


@pytest.fixture(scope="module")
def chat_procs(redis_url: str) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    a = ServerProcess(redis_url, env=CHAT_ENV).start()
    b = ServerProcess(redis_url, env=CHAT_ENV).start()
    yield a, b
    a.stop()
    b.stop()


async def _running_table(url: str) -> tuple[str, list[str]]:
    lobby = Lobby(url)
    tid = (await lobby.create(2))["id"]
    tokens = [(await lobby.join(tid, n))["token"] for n in ("Anna", "Ben")]
    await lobby.start(tid)
    await lobby.close()
    return tid, tokens


async def _outcome(sock: Socket, text: str) -> str:
    """``sent`` when ``text`` came back as a chat message, else the error code."""
    f = await sock.wait(lambda f: (f["t"] == "chat" and f.get("text") == text)
                        or f["t"] == "error")
    return "sent" if f["t"] == "chat" else f["code"]


async def test_a_spectator_cannot_flood_by_rotating_its_viewer_key(chat_procs):
    a, _ = chat_procs
    tid, _ = await _running_table(a.url)
    watcher = await Socket(a.ws_url, tid).connect(hello={"viewer": "w" * 32})
    await watcher.wait(lambda f: f["t"] == "chat_history")
    outcomes = []
    rounds = 4  # bounded: 4 reconnects x (BURST + 1) messages
    for r in range(rounds):
        s = await Socket(a.ws_url, tid).connect(hello={"viewer": f"flood{r:02d}" + "x" * 26,
                                                       "name": "Flooder"})
        await s.wait(lambda f: f["t"] == "chat_history")
        for i in range(BURST + 1):
            text = f"spam {r}.{i}"
            await s.send({"t": "chat", "text": text})
            outcomes.append(await _outcome(s, text))
        await s.close()
    await watcher.close()
    # One client, one address, one table: it should get one burst (plus nothing: the
    # refill is 10 minutes), not a new burst per reconnect: the rest is refused.
    assert outcomes == ["sent"] * BURST + ["chat_rate_limited"] * (rounds * (BURST + 1) - BURST)


async def test_a_players_chat_burst_is_shared_by_all_processes(chat_procs):
    a, b = chat_procs
    tid, tokens = await _running_table(a.url)
    outcomes = []
    for proc in (a, b):
        s = await Socket(proc.ws_url, tid).connect(token=tokens[0])
        await s.wait(lambda f: f["t"] == "chat_history")
        for i in range(BURST + 1):
            text = f"{proc.url} line {i}"
            await s.send({"t": "chat", "text": text})
            outcomes.append(await _outcome(s, text))
        await s.close()
    # docs: "Every sender has a token bucket" -- the seat is one sender.
    assert outcomes == ["sent"] * BURST + ["chat_rate_limited"] * (2 * (BURST + 1) - BURST)


@pytest.mark.parametrize("blank", ["\u200d" * 5, "\u3164\u3164", "\u2800", "\u115f\u1160"])
async def test_an_invisible_chat_message_is_refused_as_empty(chat_procs, blank):
    a, _ = chat_procs
    tid, tokens = await _running_table(a.url)
    s = await Socket(a.ws_url, tid).connect(token=tokens[0])
    await s.wait(lambda f: f["t"] == "chat_history")
    await s.send({"t": "chat", "text": blank})
    f = await s.wait(lambda f: f["t"] in ("chat", "error"))
    await s.close()
    assert f["t"] == "error" and f["code"] == "chat_empty", f
