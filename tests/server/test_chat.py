"""The pure chat core (server/play/chat.py): bounds, cleaning, separation, rate, delivery;
without sockets or Redis."""

from __future__ import annotations

import secrets
from typing import Any

import pytest

from server.play import chat
from server.store.streams import Store, meta_key
from server.ws import protocol


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class FakeConn:
    """What ``deliver`` needs of a connection: seat, encoding, push."""

    def __init__(self, seat: int | None, binary: bool = True) -> None:
        self.seat = seat
        self.binary = binary
        self.got: list[Any] = []

    def push(self, frame: Any) -> None:
        self.got.append(frame)


def test_text_is_trimmed_and_bounded() -> None:
    assert chat.clean_text("  hi there \n") == "hi there"
    assert chat.clean_text("x" * chat.MAX_TEXT) == "x" * chat.MAX_TEXT
    with pytest.raises(chat.ChatRefused) as e:
        chat.clean_text("x" * (chat.MAX_TEXT + 1))
    assert e.value.code == "chat_too_long" and str(chat.MAX_TEXT) in e.value.message
    for empty in ("", "   ", "\n\t", "\u202e\u200b"):
        with pytest.raises(chat.ChatRefused) as e:
            chat.clean_text(empty)
        assert e.value.code == "chat_empty"


def test_control_and_bidi_characters_are_removed_markup_stays_text() -> None:
    assert chat.clean_text("a\u202eb\u0007c") == "abc"
    assert chat.clean_text("line\nbreak") == "line break"
    assert chat.clean_text("👩\u200d💻") == "👩\u200d💻"  # an emoji sequence keeps its joiner
    markup = "<img src=x onerror=alert(1)>"
    assert chat.clean_text(markup) == markup


def test_spectator_ids_are_stable_per_secret_and_reveal_nothing_of_it() -> None:
    a = chat.spectator_id("s" * 32)
    assert a == chat.spectator_id("s" * 32) and len(a) == 8
    assert a != chat.spectator_id("t" * 32)
    assert "s" * 8 not in a
    assert chat.spectator_id(None) == ""


def test_a_spectator_without_a_viewer_key_cannot_chat() -> None:
    anonymous = chat.Sender(None, chat.spectator_id(None))
    assert anonymous.key is None
    with pytest.raises(chat.ChatRefused) as e:
        chat.build(anonymous, None, "hi", None, 1.0)
    assert e.value.code == "chat_no_viewer"


def test_players_read_only_their_channel_until_the_end() -> None:
    assert chat.readable(0, ended=False) == (chat.PLAYERS,)
    assert chat.readable(0, ended=True) == (chat.PLAYERS, chat.SPECTATORS)
    assert chat.readable(None, ended=False) == (chat.PLAYERS, chat.SPECTATORS)
    assert chat.Sender(2).channel == chat.PLAYERS
    assert chat.Sender(None, "abcd0123").channel == chat.SPECTATORS


def test_build_checks_text_or_quick() -> None:
    s = chat.Sender(1)
    m = chat.build(s, "Anna", None, "gg", 5.0)
    assert m["quick"] == "gg" and "text" not in m and m["channel"] == "players"
    assert m["from"] == {"role": "player", "seat": 1, "name": "Anna", "key": "p1"}
    spec = chat.build(chat.Sender(None, "0badc0de", "Zoe"), None, " hi ", None, 5.0)
    assert spec["text"] == "hi" and spec["from"]["key"] == "s0badc0de"
    assert "token" not in repr(spec)
    for text, quick in ((None, None), ("hi", "gg")):
        with pytest.raises(chat.ChatRefused) as e:
            chat.build(s, "Anna", text, quick, 5.0)
        assert e.value.code == "bad_message"
    with pytest.raises(chat.ChatRefused) as e:
        chat.build(s, "Anna", None, "<b>", 5.0)
    assert e.value.code == "bad_message"


async def test_rate_limit_burst_then_refill_per_sender_in_redis(redis_url: str) -> None:
    clock = Clock()
    store = Store.from_url(redis_url)
    tid = f"chatrate{secrets.token_hex(4)}"
    await store.redis.hset(meta_key(tid), "seq", "0")
    svc = chat.ChatService(store, history=5, burst=3, refill=2.0, clock=clock)
    p0, p1 = chat.Sender(0), chat.Sender(1)
    try:
        for _ in range(3):
            await svc.send(tid, p0, "Anna", "hi", None)
        with pytest.raises(chat.ChatRefused) as e:
            await svc.send(tid, p0, "Anna", "hi", None)
        assert e.value.code == "chat_rate_limited" and "wait 2.0 s" in e.value.message
        await svc.send(tid, p1, "Ben", "hi", None)  # another sender has its own bucket
        clock.now += 1.0
        with pytest.raises(chat.ChatRefused):
            await svc.send(tid, p0, "Anna", "hi", None)
        clock.now += 1.0  # 2 s after the burst: one token again
        await svc.send(tid, p0, "Anna", "hi", None)
        with pytest.raises(chat.ChatRefused):
            await svc.send(tid, p0, "Anna", "hi", None)
        clock.now += 100.0  # never more than the burst
        for _ in range(3):
            await svc.send(tid, p0, "Anna", "hi", None)
        with pytest.raises(chat.ChatRefused):
            await svc.send(tid, p0, "Anna", "hi", None)
        # Spectators share one bucket per address, whatever viewer key they pick.
        for i in range(3):
            await svc.send(tid, chat.Sender(None, f"{i:08x}"), None, "hi", None, "10.0.0.9")
        with pytest.raises(chat.ChatRefused):
            await svc.send(tid, chat.Sender(None, "ffffffff"), None, "hi", None, "10.0.0.9")
        await svc.send(tid, chat.Sender(None, "ffffffff"), None, "hi", None, "10.0.0.8")
        stored = await store.load_chat(tid, ("players", "spectators"))
        assert [len(c) for c in stored] == [5, 4]  # the refused ones are not stored
    finally:
        await store.redis.delete(meta_key(tid))
        await store.redis.aclose()


def test_delivery_keeps_the_channels_apart() -> None:
    players = [FakeConn(0), FakeConn(1, binary=False)]
    spectators = [FakeConn(None), FakeConn(None, binary=False)]
    conns = players + spectators
    spec_msg = chat.build(chat.Sender(None, "00aa00aa"), None, "go blue!", None, 1.0)
    assert chat.deliver(conns, spec_msg, ended=False) == 2
    assert [len(c.got) for c in conns] == [0, 0, 1, 1]
    player_msg = chat.build(chat.Sender(0), "Anna", "hello", None, 1.0)
    assert chat.deliver(conns, player_msg, ended=False) == 4
    assert chat.deliver(conns, spec_msg, ended=True) == 4  # after the end players read it
    assert protocol.decode_frame(spectators[1].got[0]) == {"t": "chat", **spec_msg}
    assert protocol.decode_frame(players[0].got[0]) == {"t": "chat", **player_msg}


def test_history_holds_only_the_readable_channels() -> None:
    stored = {"players": [{"id": "a"}], "spectators": [{"id": "b"}]}
    assert chat.history_for(stored, 0, ended=False) == {"players": [{"id": "a"}]}
    assert chat.history_for(stored, None, ended=False) == stored
    assert chat.history_for(stored, 1, ended=True) == stored


def test_chat_messages_validate() -> None:
    m = protocol.parse_message({"t": "chat", "text": "hi"})
    assert isinstance(m, protocol.ChatMsg) and m.text == "hi"
    with pytest.raises(protocol.BadMessage):
        protocol.parse_message({"t": "chat", "text": "hi", "html": "<b>"})
    with pytest.raises(protocol.BadMessage):
        protocol.parse_message({"t": "chat", "text": 5})
