"""Chat over the table websocket, on two real server processes sharing one real Redis:
two players and three spectators; order, bounds, rate, channel separation, quick
messages, history on (re)connect, after the end."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
import redis

from server.store.streams import chat_key, meta_key
from tests.conftest import ServerProcess
from tests.server.client import Lobby, Seats, Socket, ended
from tests.waiting import until

# The spectators come from three addresses (they share one bucket per address); the test
# client is the proxy that names them.
CHAT_ENV = {"CARDTABLE_TRUSTED_PROXIES": "127.0.0.1",
            "CARDTABLE_CHAT_HISTORY": "8", "CARDTABLE_CHAT_BURST": "6",
            "CARDTABLE_CHAT_REFILL": "60"}


@pytest.fixture(scope="module")
def procs(redis_url: str) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    a = ServerProcess(redis_url, env=CHAT_ENV).start()
    b = ServerProcess(redis_url, env=CHAT_ENV).start()
    yield a, b
    a.stop()
    b.stop()


async def said(sock: Socket, text: str) -> dict:
    return await sock.wait(lambda f: f["t"] == "chat" and f.get("text") == text)


async def refused(sock: Socket, code: str) -> dict:
    return await sock.wait(lambda f: f["t"] == "error" and f["code"] == code)


async def test_two_players_three_spectators_on_two_processes(procs) -> None:
    a, b = procs
    lobby = Lobby(a.url)
    tid = (await lobby.create(2))["id"]
    tokens = [(await lobby.join(tid, n))["token"] for n in ("Anna", "Ben")]
    await lobby.start(tid)
    anna = await Socket(a.ws_url, tid).connect(token=tokens[0])
    ben = await Socket(b.ws_url, tid, binary=False).connect(token=tokens[1])
    zoe = await Socket(a.ws_url, tid).connect(hello={"viewer": "z" * 32, "name": "Zoe"},
                                               **{"X-Forwarded-For": "10.0.0.1"})
    sam = await Socket(b.ws_url, tid).connect(hello={"viewer": "s" * 32},
                                               **{"X-Forwarded-For": "10.0.0.2"})
    kim = await Socket(a.ws_url, tid, binary=False).connect(hello={"viewer": "k" * 40},
                                                            **{"X-Forwarded-For": "10.0.0.3"})
    everyone = [anna, ben, zoe, sam, kim]
    players, spectators = [anna, ben], [zoe, sam, kim]
    for s in everyone:
        hist = await s.wait(lambda f: f["t"] == "chat_history")
        assert all(msgs == [] for msgs in hist["channels"].values())
        assert set(hist["channels"]) == ({"players"} if s in players else
                                         {"players", "spectators"})

    # Players talk: everyone reads it, in the same order, on both processes.
    lines = [(anna if i % 2 == 0 else ben, f"line {i}") for i in range(6)]
    for sock, text in lines:
        await sock.send({"t": "chat", "text": text})
    for s in everyone:
        for _, text in lines:
            await said(s, text)
    # Sent at once from two processes: Redis orders them; every reader sees that order,
    # and each sender's own messages in the order it sent them.
    order = [m["text"] for m in anna.chats("players")]
    assert sorted(order) == sorted(t for _, t in lines)
    for s in everyone:
        assert [m["text"] for m in s.chats("players")] == order
    for sock in (anna, ben):
        mine = [t for who, t in lines if who is sock]
        assert [t for t in order if t in mine] == mine
    first = next(m for m in anna.chats() if m["text"] == "line 0")
    assert first["from"] == {"role": "player", "seat": 0, "name": "Anna", "key": "p0"}
    assert next(m for m in ben.chats() if m["text"] == "line 1")["from"]["seat"] == 1

    # Spectators talk among themselves: players never get it during the game.
    await zoe.send({"t": "chat", "text": "go Anna!"})
    await said(sam, "go Anna!")  # sam is on the other process: one after the other
    await sam.send({"t": "chat", "text": "<img src=x onerror=alert(1)>"})
    for s in spectators:
        await said(s, "<img src=x onerror=alert(1)>")
        assert [m["text"] for m in s.chats("spectators")] == [
            "go Anna!", "<img src=x onerror=alert(1)>"]
    z = zoe.chats("spectators")[0]["from"]
    assert z["role"] == "spectator" and z["name"] == "Zoe" and len(z["id"]) == 8
    assert sam.chats("spectators")[1]["from"]["name"] is None
    await anna.send({"t": "chat", "text": "marker"})  # published after the spectators'
    for p in players:
        await said(p, "marker")
        assert p.chats("spectators") == []

    # Quick messages travel as codes; an unknown one is refused.
    await ben.send({"t": "chat", "quick": "gg"})
    for s in everyone:
        got = await s.wait(lambda f: f["t"] == "chat" and f.get("quick") == "gg")
        assert "text" not in got
    await ben.send({"t": "chat", "quick": "<script>"})
    await refused(ben, "bad_message")

    # A spectator without a viewer key reads, but cannot chat.
    keyless = await Socket(b.ws_url, tid).connect()
    assert (await keyless.wait(lambda f: f["t"] == "chat_history"))["you"] is None
    await keyless.send({"t": "chat", "text": "who am I?"})
    await refused(keyless, "chat_no_viewer")
    await keyless.close()

    # Bounds: too long, empty; nothing of them is delivered or stored.
    await anna.send({"t": "chat", "text": "x" * 201})
    err = await refused(anna, "chat_too_long")
    assert "200" in err["message"]
    await anna.send({"t": "chat", "text": "   "})
    await refused(anna, "chat_empty")

    # Rate: a sender gets 6 at once (test setting), then waits a minute per message.
    for i in range(7):
        await kim.send({"t": "chat", "text": f"spam {i}"})
    err = await refused(kim, "chat_rate_limited")
    assert "wait" in err["message"]
    await said(zoe, "spam 5")
    await anna.send({"t": "chat", "text": "after spam"})
    await said(zoe, "after spam")
    assert "spam 6" not in [m.get("text") for m in zoe.chats()]

    # History: a spectator joining on the other process gets the last 8 of each channel.
    late = await Socket(b.ws_url, tid).connect()
    hist = (await late.wait(lambda f: f["t"] == "chat_history"))["channels"]
    want_players = [m["id"] for m in zoe.chats("players")][-8:]
    want_specs = [m["id"] for m in zoe.chats("spectators")][-8:]
    assert [m["id"] for m in hist["players"]] == want_players
    assert [m["id"] for m in hist["spectators"]] == want_specs
    assert [m.get("text") for m in hist["spectators"]][-1] == "spam 5"
    assert hist["players"][-1]["text"] == "after spam"
    assert not any(m.get("text", "").startswith("x" * 10) for m in hist["players"])
    # A player reconnecting (to the other process) gets the players' channel only.
    await anna.close()
    anna = await Socket(b.ws_url, tid).connect(token=tokens[0])
    hist = (await anna.wait(lambda f: f["t"] == "chat_history"))["channels"]
    assert list(hist) == ["players"] and [m["id"] for m in hist["players"]] == want_players

    # No token ever reaches a spectator, whatever was said.
    for s in spectators:
        for raw in s.raw:
            text = raw if isinstance(raw, str) else raw.decode("latin-1")
            assert tokens[0] not in text and tokens[1] not in text

    # After the end players read the spectators' channel too (history and live).
    seats = Seats([anna, ben], seed=3)
    while not any(ended(f) for f in anna.frames):
        await seats.step()
    for s in (zoe, sam):
        await s.wait(ended)
    # (No wait needed: every process applies the end before it sees a later chat message
    # of the same table channel.)
    await sam.send({"t": "chat", "text": "well played both"})
    for p in (anna, ben):
        await said(p, "well played both")
    # A player's socket from before the end asks for the history again: both channels.
    await ben.send({"t": "chat_history"})
    hist = (await ben.wait(lambda f: f["t"] == "chat_history" and "spectators" in f["channels"]))
    assert hist["you"] == "p1"
    assert hist["channels"]["spectators"][-1]["text"] == "well played both"
    again = await Socket(a.ws_url, tid).connect(token=tokens[1])
    hist = (await again.wait(lambda f: f["t"] == "chat_history"))["channels"]
    assert hist["spectators"][-1]["text"] == "well played both"
    for s in (*everyone[1:], anna, late, again):
        await s.close()
    await lobby.close()


async def test_chat_before_the_start_and_on_a_gone_table(procs, redis_url: str) -> None:
    a, _ = procs
    lobby = Lobby(a.url)
    tid = (await lobby.create(2))["id"]
    token = (await lobby.join(tid, "Anna"))["token"]
    anna = await Socket(a.ws_url, tid).connect(token=token)
    spec = await Socket(a.ws_url, tid).connect(hello={"viewer": "v" * 32})
    # Live chat reaches a socket from its welcome on; what came before is in the history
    # that follows it. Both are connected live once their history has come.
    for s in (anna, spec):
        hist = await s.wait(lambda f: f["t"] == "chat_history")
        assert all(msgs == [] for msgs in hist["channels"].values())
    await anna.send({"t": "chat", "text": "anyone?"})
    await said(anna, "anyone?")
    await said(spec, "anyone?")

    # The table expires (an unstarted table's keys time out) while both are connected: a
    # message is refused, nothing is stored, nobody reads it.
    r = redis.Redis.from_url(redis_url)
    try:
        assert r.pexpire(meta_key(tid), 1)
        await until(lambda: not r.exists(meta_key(tid)), interval=0.01, what="the meta expired")
        for s in (anna, spec):
            await s.send({"t": "chat", "text": "still there?"})
            err = await refused(s, "no_table")
            assert "no longer exists" in err["message"]
        assert r.llen(chat_key(tid, "players")) == 1
        assert not r.exists(chat_key(tid, "spectators"))
    finally:
        r.close()
    assert [m["text"] for m in anna.chats()] == [m["text"] for m in spec.chats()] == ["anyone?"]
    await anna.close()
    await spec.close()
    await lobby.close()


async def test_sockets_connecting_together_each_get_the_history_and_miss_nothing(procs):
    """The history read is shared by the sockets of a table that connect in one turn of
    the event loop (server/play/chat.py ``ChatService._stored``): each still gets what
    was stored before it connected, and a message sent while they connect reaches each
    one, live or in its history."""
    a, _ = procs
    lobby = Lobby(a.url)
    tid = (await lobby.create(4))["id"]
    tokens = [(await lobby.join(tid, n))["token"] for n in ("Anna", "Ben", "Cas", "Dee")]
    anna = await Socket(a.ws_url, tid).connect(token=tokens[0])
    await anna.wait(lambda f: f["t"] == "chat_history")
    await anna.send({"t": "chat", "text": "before"})
    await said(anna, "before")
    others = [Socket(a.ws_url, tid) for _ in tokens[1:]]
    await asyncio.gather(*(s.connect(token=t) for s, t in zip(others, tokens[1:], strict=True)),
                         anna.send({"t": "chat", "text": "meanwhile"}))
    await said(anna, "meanwhile")
    for s in others:
        hist = (await s.wait(lambda f: f["t"] == "chat_history"))["channels"]
        texts = [m["text"] for m in hist["players"]]
        assert texts[0] == "before"
        if "meanwhile" not in texts:  # stored after its history was read: it came live
            await said(s, "meanwhile")
    for s in (anna, *others):
        await s.close()
    await lobby.close()


# The attack these tests guard against (found in a security review):
# B2 findings on table chat (server/play/chat.py): the per-sender token bucket is keyed by an
# identity the sender picks (a spectator's ``viewer`` secret) and lives in one process's
# memory, so a flooder gets a fresh bucket by reconnecting with a new viewer key, or by
# talking through a second server process.


BURST = 3
BURST_CHAT_ENV = {"CARDTABLE_CHAT_HISTORY": "20", "CARDTABLE_CHAT_BURST": str(BURST),
            "CARDTABLE_CHAT_REFILL": "600"}


@pytest.fixture(scope="module")
def chat_procs(redis_url: str) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    a = ServerProcess(redis_url, env=BURST_CHAT_ENV).start()
    b = ServerProcess(redis_url, env=BURST_CHAT_ENV).start()
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
