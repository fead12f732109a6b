"""Names that cannot impersonate (server/accounts/names.py): the pure rules, then seat names
at one table and account names at sign-up and rename over the real API and Redis."""

from __future__ import annotations

from typing import Any

import pytest
import redis.asyncio as aioredis

from server.accounts import names
from server.store.accounts import lookalike_key
from tests.conftest import ServerProcess
from tests.server.client import Lobby, Member, unique
from tests.server.test_admin import Cli


@pytest.mark.parametrize("name", ["An\u200bna", "Anna\u2060", "A\u202enna", "An\u00adna",
                                  "Anna\ufeff", "An\u034fna", "\u3164Anna", "An\x07na"])
def test_invisible_control_and_bidi_characters_are_refused(name: str) -> None:
    with pytest.raises(ValueError, match=r"U\+[0-9A-F]{4}"):
        names.normalise(name)


def test_names_are_stored_in_nfkc_with_one_space_between_words() -> None:
    assert names.normalise("  \uff21nna  \u00a0 Lee ") == "Anna Lee"  # fullwidth A, NBSP


@pytest.mark.parametrize(("a", "b"), [("Anna", "ANNA"), ("Anna", "\u0410nna"),  # Cyrillic А
                                      ("Anna", "\u0391nna"),  # Greek Alpha
                                      ("Bob", "B0b"), ("Ill", "lll"), ("mary", "rnary"),
                                      ("Anna", "\uff21\uff4e\uff4e\uff41")])
def test_look_alikes_share_a_skeleton(a: str, b: str) -> None:
    assert names.skeleton(a) == names.skeleton(b)


@pytest.mark.parametrize(("a", "b"), [("Anna", "Anne"), ("Anna", "An na"), ("Bob", "Rob")])
def test_different_names_keep_different_skeletons(a: str, b: str) -> None:
    assert names.skeleton(a) != names.skeleton(b)


def test_reserved_names_match_by_skeleton() -> None:
    reserved = names.Reserved(["MCTS level 3"])
    for name in ("admin", "ADMIN", "\u0410dmin", "Moderator", "mcts level 3"):
        assert name in reserved, name
    assert "Anna" not in reserved


async def join_error(lobby: Lobby, table_id: str, name: str) -> tuple[int, str]:
    r = await lobby.http.post(f"/api/tables/{table_id}/join", json={"name": name})
    return r.status_code, r.json()["error"]["code"] if r.status_code != 200 else ""


async def test_three_annas_at_one_table_the_look_alikes_are_refused(
        server: ServerProcess) -> None:
    lobby = Lobby(server.url)
    table = await lobby.create(seats=4)
    await lobby.join(table["id"], "Anna")
    # The outside break test's names: a zero-width space, a word joiner.
    assert await join_error(lobby, table["id"], "An\u200bna") == (400, "bad_message")
    assert await join_error(lobby, table["id"], "Anna\u2060") == (400, "bad_message")
    # Look-alikes once normalised: Cyrillic А, another case, fullwidth letters.
    for other in ("\u0410nna", "ANNA", "\uff21\uff4e\uff4e\uff41"):
        assert await join_error(lobby, table["id"], other) == (409, "name_lookalike"), other
    # A reserved name, and a bot's, are nobody's seat name.
    assert await join_error(lobby, table["id"], "Admin") == (400, "bad_message")
    assert await join_error(lobby, table["id"], "Random bot 2") == (400, "bad_message")
    # Nothing changed: one seat held, by Anna; another name still sits.
    seats = (await lobby.get(f"/api/tables/{table['id']}")).json()["seats"]
    assert [s["name"] for s in seats if s["kind"]] == ["Anna"]
    await lobby.join(table["id"], "Anne")
    # The same look-alike may sit at another table.
    other = await lobby.create(seats=2)
    await lobby.join(other["id"], "\u0410nna")
    await lobby.close()


async def test_a_seat_name_is_stored_normalised(server: ServerProcess) -> None:
    lobby = Lobby(server.url)
    table = await lobby.create(seats=2)
    await lobby.join(table["id"], " \uff21nna\u00a0\u00a0Lee ")
    seats = (await lobby.get(f"/api/tables/{table['id']}")).json()["seats"]
    assert seats[0]["name"] == "Anna Lee"
    await lobby.close()


async def sign_up(server: ServerProcess, name: str) -> tuple[int, str, Any]:
    m = Member(server.url)
    r = await m.http.post("/api/account/signup",
                          json={"username": name, "password": "correct horse 1"})
    await m.close()
    body = r.json()
    return r.status_code, body["error"]["code"] if "error" in body else "", body


async def test_sign_up_refuses_look_alikes_reserved_names_and_invisible_characters(
        server: ServerProcess) -> None:
    base = unique("bob")  # hex digits: make a look-alike by swapping o for 0
    assert (await sign_up(server, base))[0] == 201
    assert (await sign_up(server, base.replace("o", "0", 1)))[:2] == (409, "name_lookalike")
    assert (await sign_up(server, base.upper()))[:2] == (409, "name_taken")
    # A fullwidth b normalises (NFKC) to the very name.
    assert (await sign_up(server, "\uff42" + base[1:]))[:2] == (409, "name_taken")
    # An account name is ASCII after NFKC: Cyrillic В is no letter of it.
    assert (await sign_up(server, "\u0412" + base[1:]))[:2] == (400, "bad_username")
    status, code, body = await sign_up(server, base + "\u200b")
    assert (status, code) == (400, "bad_username") and "U+200B" in body["error"]["message"]
    for reserved in ("admin", "Moderator", "m0derator", "Random", "greedy", "Greedy"):
        assert (await sign_up(server, reserved))[:2] == (409, "name_reserved"), reserved
    # Fullwidth letters are the ASCII name after NFKC: a new name signs up as ASCII.
    wide = unique("w")
    status, _, body = await sign_up(server, "".join(chr(ord(c) + 0xFEE0) for c in wide))
    assert status == 201 and body["account"]["username"] == wide


async def test_rename_refuses_a_look_alike_and_moves_the_look_alike_key(
        server: ServerProcess, redis_url: str, capsys: pytest.CaptureFixture) -> None:
    cli = Cli(redis_url, capsys)
    first, second = unique("rno"), unique("rno")
    assert (await sign_up(server, first))[0] == 201
    assert (await sign_up(server, second))[0] == 201
    code, out = await cli.run("rename", second, first.replace("o", "0", 1))
    assert code != 0 and "looks like" in out
    code, out = await cli.run("rename", second, "m0derator")
    assert code != 0 and "service's" in out
    new = unique("ren")
    await cli.ok("rename", second, new)
    client = aioredis.from_url(redis_url, decode_responses=True)
    try:
        uid = await client.get(f"name:{{n:{new.lower()}}}")
        assert await client.get(lookalike_key(names.skeleton(new))) == uid
        assert await client.get(lookalike_key(names.skeleton(second))) is None
    finally:
        await client.aclose()
    # The old name is free again, look-alikes of it too.
    assert (await sign_up(server, second.upper()))[0] == 201


async def test_existing_look_alike_accounts_keep_their_names(
        server: ServerProcess, redis_url: str) -> None:
    """Accounts made before the index: the first indexed holds the key, the other keeps
    its name and logs in; a third look-alike is refused."""
    client = aioredis.from_url(redis_url, decode_responses=True)
    try:
        base = unique("old")
        a = Member(server.url)
        await a.sign_up(base)
        # As before the index: a look-alike account whose name holds no key (its own key
        # dropped, as an account made by an older version has none).
        twin = base.replace("o", "0", 1)
        await client.delete(lookalike_key(names.skeleton(base)))
        b = Member(server.url)
        await b.sign_up(twin)
        await b.log_in(twin)
        await a.log_in(base)
        assert (await sign_up(server, base.replace("l", "1", 1)))[:2] == (409, "name_lookalike")
        await a.close()
        await b.close()
    finally:
        await client.aclose()


def test_a_seated_name_is_not_skeletonised_again_at_each_join() -> None:
    names.skeleton.cache_clear()
    seated = ["Anna", "Bob", "Carla"]
    for i in range(len(seated)):  # the joins, one after another
        assert names.lookalike(seated[i], seated[:i]) is None
    info = names.skeleton.cache_info()
    assert (info.misses, info.hits) == (3, 3)  # each name computed once, at its own join
    assert names.lookalike("АNNA", seated) == "Anna"  # Cyrillic А: still found
    assert names.skeleton("Anna") == names.skeleton.__wrapped__("Anna")


def test_a_refused_name_is_refused_every_time() -> None:
    for _ in range(2):
        with pytest.raises(ValueError):
            names.skeleton("An\u200bna")
