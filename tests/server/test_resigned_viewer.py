"""A resigned seat reads what a spectator reads, on every path (docs/protocol.md §5,
"Resigning"): its open socket from the resignation's frame on, a reconnect before or
after it, ``/view``, ``/events``, ``/deltas``, and a token minted for it by
``GET /api/me/tables/{id}``. The bot that plays the seat on draws cards its former
player (still at the table and in the players' chat) must not see."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.server.client import Lobby, Member, Socket, apply_deltas, auth, events_of, unique
from tests.waiting import until


def _bot_drew(s: Socket, seat: int) -> bool:
    return any(e["event"]["type"] == "card_drawn" and e["event"]["seat"] == seat
               and e["event"]["source"] == "deck" for e in s.events())


async def _play_until_bot_draws(player: Socket, bot_seat: int, seed: int) -> None:
    """Seat ``player`` plays random legal actions until the bot's seat drew from the deck."""
    rng, done = random.Random(seed), 0
    while not _bot_drew(player, bot_seat):
        seen = len(player.frames)
        prompts = [f for f in player.frames if f["t"] == "prompt"]
        if len(prompts) > done:
            done = len(prompts)
            await player.send({"t": "action", "id": f"a{done}", "seq": prompts[-1]["seq"],
                               "action": rng.choice(prompts[-1]["legal_actions"])})
        await player.wait(lambda _f: True, start=seen)  # the next frame


async def _settled(lobby: Lobby, tid: str, seat: int) -> int:
    """Wait until ``seat`` (whom nobody plays for now) is to move; returns the seq."""
    async def its_turn() -> int | None:
        view = (await lobby.http.get(f"/api/tables/{tid}/view")).json()
        return view["seq"] if view["current_seat"] == seat else None

    return await until(its_turn, interval=0.025, what=f"seat {seat} to move")


def _folded(s: Socket) -> dict[str, Any]:
    welcome = [f for f in s.frames if f["t"] == "welcome"][-1]
    at = s.frames.index(welcome)
    return apply_deltas(welcome["view"], [f for f in s.frames[at:] if f["t"] == "deltas"])


async def _reads(lobby: Lobby, tid: str, token: str | None) -> tuple[Any, Any, Any]:
    """What ``token`` reads over HTTP: ``/view``, ``/events``, ``/deltas``."""
    h = auth(token)
    return tuple([(await lobby.http.get(f"/api/tables/{tid}/{what}", headers=h)).json()
                  for what in ("view", "events", "deltas")])


async def test_a_resigned_seat_reads_a_spectators_view_live_on_reconnect_and_over_http(
        server) -> None:
    lobby = Lobby(server.url)
    table = await lobby.create_game("keltis", 2)
    tid = table["id"]
    tokens = [(await lobby.join(tid, f"P{s}"))["token"] for s in range(2)]
    player = await Socket(server.ws_url, tid).connect(token=tokens[0])
    resigner = await Socket(server.ws_url, tid).connect(token=tokens[1])
    spectator = await Socket(server.ws_url, tid).connect()
    for s in (player, resigner, spectator):
        await s.wait(lambda f: f["t"] == "welcome")
    await lobby.start(tid)
    start = (await lobby.http.get(f"/api/tables/{tid}")).json()["seq"]
    for s in (resigner, spectator):
        await s.wait(lambda f: f["t"] == "deltas" and f["seq"] >= start)
    # The control: before resigning, the seat's socket holds its hand.
    assert _folded(resigner)["players"][1]["hand"]
    before = len(resigner.frames)
    r = await lobby.seat_call(tid, "resign", tokens[1])
    assert r.status_code == 200, r.text
    switch = await resigner.wait(lambda f: f["t"] == "deltas" and any(
        e["event"]["type"] == "seat_controller_changed" for e in f["events"]), start=before)
    at = switch["seq"]
    await spectator.wait(lambda f: f["t"] == "deltas" and f["seq"] >= at)
    # The resignation's own frame replaces the whole document with the spectators' view.
    assert len(switch["patch"]) == 1 and switch["patch"][0]["path"] == ""
    assert switch["patch"][0]["value"] == _folded(spectator)
    assert switch["patch"][0]["value"]["players"][1]["hand"] is None
    assert events_of([switch]) == events_of([f for f in spectator.deltas() if f["seq"] == at])

    await _play_until_bot_draws(player, 1, seed=5)
    last = await _settled(lobby, tid, 0)
    for s in (resigner, spectator):
        await s.wait(lambda f: f["t"] == "deltas" and f["seq"] >= last)
    after = [f for f in resigner.deltas() if f["seq"] > at]
    assert after and after == [f for f in spectator.deltas() if f["seq"] > at]
    assert not any("card" in e["event"] for e in events_of(after)
                   if e["event"]["type"] == "card_drawn" and e["event"]["seat"] == 1
                   and e["event"]["source"] == "deck")
    # What the player itself sees of its draws: the card (the projection hides it from
    # the others only).
    assert any("card" in e["event"] for e in player.events()
               if e["event"]["type"] == "card_drawn" and e["event"]["seat"] == 0
               and e["event"]["source"] == "deck")
    assert _folded(resigner) == _folded(spectator)

    # Every HTTP read of the resigned token is the spectators' answer, to the byte.
    resigned, public = await _reads(lobby, tid, tokens[1]), await _reads(lobby, tid, None)
    assert resigned == public
    assert resigned[0]["players"][1]["hand"] is None
    assert resigned[0]["phase"] != "ended"
    # The player's own token still reads its own hand (the rule is about resigned seats).
    own = await _reads(lobby, tid, tokens[0])
    assert own[0]["players"][0]["hand"] and own[0] != public[0]

    # Reconnects: from before the resignation, a full view (the spectators'); from after
    # it, the spectators' deltas.
    old = await Socket(server.ws_url, tid).connect(token=tokens[1], last_seq=at - 1)
    welcome = await old.wait(lambda f: f["t"] == "welcome")
    assert welcome["seat"] == 1 and welcome["view"] == resigned[0]
    # The view is at the welcome's seq, seat-control events counted (docs/protocol.md).
    assert welcome["view"]["seq"] == welcome["seq"]
    newer = await Socket(server.ws_url, tid).connect(token=tokens[1], last_seq=at)
    welcome = await newer.wait(lambda f: f["t"] == "welcome")
    assert welcome["seat"] == 1 and welcome["view"] is None
    await newer.wait(lambda f: f["t"] == "deltas" and f["seq"] >= last)
    # The ring's deltas or one rebuilt by replay: the spectators' events, and folded onto
    # the spectators' view at the resignation, the spectators' view now.
    assert events_of(newer.deltas()) == events_of(after)
    assert apply_deltas(switch["patch"][0]["value"], newer.deltas()) == _folded(spectator)
    for s in (player, resigner, spectator, old, newer):
        await s.close()
    await lobby.close()


async def test_a_resigned_seats_catch_up_beyond_the_ring_is_a_spectators(server) -> None:
    """A reconnect whose missed deltas left the ring is rebuilt by replay (server/ws/endpoint.py
    ``welcome``): for a resigned seat, as the spectators'."""
    lobby = Lobby(server.url)
    table = await lobby.create_game("keltis", 2)
    tid = table["id"]
    tokens = [(await lobby.join(tid, f"P{s}"))["token"] for s in range(2)]
    player = await Socket(server.ws_url, tid).connect(token=tokens[0])
    await player.wait(lambda f: f["t"] == "welcome")
    await lobby.start(tid)
    r = await lobby.seat_call(tid, "resign", tokens[1])
    assert r.status_code == 200, r.text
    await _play_until_bot_draws(player, 1, seed=8)
    at = next(e["seq"] for e in player.events()
              if e["event"]["type"] == "seat_controller_changed")
    # More appends than the ring keeps (``recent_deltas``, 32): the resignation left it.
    rng, done = random.Random(9), 0
    while len([f for f in player.deltas() if f["seq"] > at]) < 40 and not any(
            e["event"]["type"] == "game_ended" for e in player.events()):
        seen = len(player.frames)
        prompts = [f for f in player.frames if f["t"] == "prompt"]
        if len(prompts) > done:
            done = len(prompts)
            await player.send({"t": "action", "id": f"b{done}", "seq": prompts[-1]["seq"],
                               "action": rng.choice(prompts[-1]["legal_actions"])})
        await player.wait(lambda _f: True, start=seen)  # the next frame
    last = max(f["seq"] for f in player.deltas())
    resigned = await Socket(server.ws_url, tid).connect(token=tokens[1], last_seq=at)
    spectator = await Socket(server.ws_url, tid).connect(last_seq=at)
    for s in (resigned, spectator):
        welcome = await s.wait(lambda f: f["t"] == "welcome")
        await s.wait(lambda f: f["t"] == "deltas" and f["seq"] >= last)
    # The bot may move on meanwhile, so the two sockets' frames may be cut differently
    # (one catch-up frame, or a catch-up and a live one): their events up to ``last`` are
    # compared, each event with its chain head.
    def upto(sock: Socket) -> list[dict]:
        return [e for e in sock.events() if e["seq"] <= last]
    assert upto(resigned) and upto(resigned) == upto(spectator)
    assert [e["seq"] for e in upto(resigned)] == list(range(at + 1, last + 1))
    assert resigned.deltas()[0]["prev"] == spectator.deltas()[0]["prev"] == at
    assert not any("card" in e["event"] for e in resigned.events()
                   if e["event"]["type"] == "card_drawn" and e["event"]["seat"] == 1
                   and e["event"]["source"] == "deck")
    assert welcome["view"] is None  # a catch-up, not a full resync
    for s in (player, resigned, spectator):
        await s.close()
    await lobby.close()


async def test_a_token_minted_for_a_resigned_seat_reads_no_hand(server) -> None:
    anna = Member(server.url)
    await anna.sign_up(unique("anna"))
    table = await anna.create_game("keltis", 2)
    tid = table["id"]
    await anna.join(tid, "ignored", token=table["owner_token"])
    guest = Lobby(server.url)
    await guest.join(tid, "Ben")
    await anna.start(tid, table["owner_token"])
    held = (await anna.http.get(f"/api/me/tables/{tid}")).json()
    assert held["seat"] == 0
    # The control: a seat's fresh token reads its hand.
    assert (await _reads(anna, tid, held["token"]))[0]["players"][0]["hand"]
    r = await anna.seat_call(tid, "resign", held["token"])
    assert r.status_code == 200, r.text
    again = (await anna.http.get(f"/api/me/tables/{tid}")).json()
    assert again["seat"] == 0 and again["token"] != held["token"]
    # The bot plays seat 0's turn; then Ben, who plays nothing here, is to move.
    async def bens_turn() -> list | None:
        public = await _reads(anna, tid, None)
        return public if public[0]["current_seat"] == 1 else None

    public = await until(bens_turn, interval=0.025, what="Ben to move")
    assert any(e and e["type"] == "card_drawn" and e["seat"] == 0 and e["source"] == "deck"
               for e in public[1]["events"][r.json()["seq"]:])  # the bot drew
    minted = await _reads(anna, tid, again["token"])
    assert minted == public
    assert minted[0]["players"][0]["hand"] is None
    sock = await Socket(server.ws_url, tid).connect(token=again["token"])
    welcome = await sock.wait(lambda f: f["t"] == "welcome")
    assert welcome["seat"] == 0 and welcome["view"] == minted[0]
    assert welcome["view"]["seq"] == welcome["seq"]
    await sock.close()
    await anna.close()
    await guest.close()


# The attack these tests guard against (found in a security review):
# Breaker b4: a resigned seat in Loot Island and Einauge (earlier tests cover Keltis)
# reads what a spectator reads on every path: ``/view``, ``/events``, ``/deltas``, its open
# socket's deltas, a reconnect from before and after the resignation, a ``sync``; it gets
# no prompt (no legal actions, which would list the bot's hand), and its token may no
# longer act (``seat_handed_over``) nor take the seat back.


GAMES = [("loot-island", 3, True), ("einauge", 3, False)]
"""(game, seats, whether a seat reads anything a spectator does not: Einauge's hands
are open)"""


async def _persons_turn(lobby: Lobby, tid: str, bot: int | None = None) -> int:
    """Wait until the running table waits for a person (its current seat is not ``bot``,
    the seat a bot plays); returns its seq then."""
    async def waiting() -> int | None:
        before = (await lobby.http.get(f"/api/tables/{tid}")).json()
        view = (await lobby.http.get(f"/api/tables/{tid}/view")).json()
        after = (await lobby.http.get(f"/api/tables/{tid}")).json()
        if (after["status"] == "running" and before["seq"] == after["seq"]
                and view.get("current_seat") != bot):
            return int(after["seq"])
        return None
    return await until(waiting, timeout=30, what="a person's turn")


async def _no_prompt_after(sock: Socket, mark: int) -> None:
    """Assert ``sock`` got no prompt from frame ``mark`` on: a ``sync`` answered is the
    barrier (a prompt goes out right after its welcome, on the same socket)."""
    barrier = len(sock.frames)
    await sock.send({"t": "sync"})
    await sock.wait(lambda f: f["t"] == "welcome", start=barrier)
    assert not [f for f in sock.frames[mark:] if f["t"] == "prompt"]


@pytest.mark.parametrize(("game", "seats", "hidden"), GAMES)
async def test_a_resigned_seat_reads_only_a_spectators_view(server, game, seats,
                                                            hidden) -> None:
    lobby = Lobby(server.url)
    table = (await lobby.create(seats) if game == "einauge"
             else await lobby.create_game(game, seats))
    tid = table["id"]
    tokens = [(await lobby.join(tid, f"P{s}"))["token"] for s in range(seats)]
    gone = seats - 1
    resigner = await Socket(server.ws_url, tid).connect(token=tokens[gone])
    spectator = await Socket(server.ws_url, tid).connect()
    for s in (resigner, spectator):
        await s.wait(lambda f: f["t"] == "welcome")
    await lobby.start(tid)
    start = await _persons_turn(lobby, tid)
    own = await _reads(lobby, tid, tokens[gone])
    public = await _reads(lobby, tid, None)
    assert (own[0] != public[0]) == hidden  # the control: before, the seat reads its own
    r = await lobby.seat_call(tid, "resign", tokens[gone])
    assert r.status_code == 200, r.text
    # The other seats' people keep the bot moving: let it play whenever it is to move.
    at = await _persons_turn(lobby, tid, bot=gone)
    assert at > start
    for s in (resigner, spectator):
        await s.wait(lambda f: f["t"] == "deltas" and f["seq"] >= at)
    resigned, public = await _reads(lobby, tid, tokens[gone]), await _reads(lobby, tid, None)
    assert resigned == public
    after = [f for f in resigner.deltas() if f["seq"] > start]
    assert events_of(after) == events_of([f for f in spectator.deltas() if f["seq"] > start])
    mark = len(resigner.frames)
    await resigner.send({"t": "sync"})
    fresh = await resigner.wait(lambda f: f["t"] == "welcome", start=mark)
    assert (fresh["seq"], fresh["view"]) == (at, public[0])
    await _no_prompt_after(resigner, mark)
    # A reconnect from before the resignation gets the full (spectators') view, one from
    # after it the (no) deltas since, one without last_seq the full view (docs/protocol.md
    # §5, "Resigning").
    for last, view in ((start, public[0]), (at, None), (None, public[0])):
        again = await Socket(server.ws_url, tid).connect(token=tokens[gone], last_seq=last)
        welcome = await again.wait(lambda f: f["t"] == "welcome")
        assert (welcome["seq"], welcome["view"]) == (at, view), last
        await _no_prompt_after(again, 0)
        assert again.deltas() == [], (last, again.deltas())
        await again.close()
    # The resigned token acts no more and takes nothing back.
    mark = len(resigner.frames)
    await resigner.send({"t": "action", "id": "late", "seq": at, "action": {"type": "pass"}})
    reply = await resigner.wait(lambda f: f.get("id") == "late", start=mark)
    assert reply["t"] == "error" and reply["code"] == "seat_handed_over", reply
    back = await lobby.seat_call(tid, "return", tokens[gone])
    assert (back.status_code, back.json()["error"]["code"]) == (409, "resigned"), back.text
    assert (await lobby.http.get(f"/api/tables/{tid}")).json()["seq"] == at
    for s in (resigner, spectator):
        await s.close()
    await lobby.close()
