"""An account that is banned, deleted or renamed by force, in its tournaments and its
seeks (server/accounts/leaving.py, server/tournaments/entries.py,
SeekPool.cancel_all): a ban withdraws it from every open tournament (off the list
before the start, marked withdrawn and paired no more during one) and cancels its
waiting seeks; a deletion does that and shows it as ``deleted player`` in every
tournament; a forced rename shows the new name in the standings and
the boards. A real server process and Redis; the role is granted with the command."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from protocol.lobby import Member
from server.store.embedded import EmbeddedRedis, free_port
from tests.conftest import ServerProcess
from tests.server.client import unique
from tests.server.test_admin import Cli
from tests.server.tournament_play import boards_of, swiss_body


async def member(server: ServerProcess, prefix: str = "lv") -> tuple[str, Member]:
    m = Member(server.url)
    name = unique(prefix)
    await m.sign_up(name)
    return name, m


@pytest.fixture(scope="module")
def own(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, str]]:
    """A server on a Redis of its own, and that Redis's URL: the seeks per address the
    session's other tests made on the shared server (all from 127.0.0.1) count against
    the hourly limit there."""
    redis = EmbeddedRedis(tmp_path_factory.mktemp("leaving-redis"), port=free_port())
    url = redis.start()
    server = ServerProcess(url, env={"CARDTABLE_SEEKS_PER_HOUR": "100000"}).start()
    yield server, url
    server.stop()
    redis.stop()


def rows(t: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["player"]: r for r in t["standings"]}


async def test_ban_delete_and_rename_reach_tournaments_and_seeks(
        own: tuple[ServerProcess, str], capsys: pytest.CaptureFixture) -> None:
    server, redis_url = own
    admin_name, admin = await member(server, "ad")
    await Cli(redis_url, capsys).ok("grant", admin_name, "admin")
    people = dict([await member(server) for _ in range(5)])
    names = list(people)
    banned, deleted, renamed = names[0], names[1], names[2]
    creator = people[names[3]]

    # A scheduled tournament everyone joined, and a running one of four.
    later = (await creator.create_tournament(   # an hour ahead: scheduled throughout
        **swiss_body(name="Later", starts_at=time.time() + 3600)))["id"]
    running = (await creator.create_tournament(**swiss_body(name="Now")))["id"]
    for n, m in people.items():
        assert (await m.tournament_call(later, "join")).status_code == 200
        if n != names[4]:
            assert (await m.tournament_call(running, "join")).status_code == 200
    assert (await creator.tournament_call(running, "start")).json()["status"] == "running"
    round1 = await boards_of(creator, running, 1)
    assert sorted(p for b in round1 for p in b["players"]) == sorted(names[:4])
    seek = await people[banned].seek("einauge", 4)
    assert seek["status"] == "waiting"
    other_seek = await people[names[4]].seek("einauge", 4)

    # The ban: off the scheduled list, withdrawn from the running one, seek cancelled.
    r = await admin.http.post(f"/api/admin/accounts/{banned}/ban", json={"reason": "spam"})
    assert r.status_code == 200, r.text
    got = await admin.tournament(later)
    assert banned not in rows(got) and got["players"] == 4
    got = await admin.tournament(running)
    assert rows(got)[banned]["withdrawn"] and got["players"] == 3
    looked = await people[names[4]].seek_call("GET", seek["id"], seek["seek_token"])
    assert looked.json()["status"] == "cancelled", looked.text
    # Someone else's seek is untouched.
    looked = await people[names[4]].seek_call("GET", other_seek["id"],
                                              other_seek["seek_token"])
    assert looked.json()["status"] == "waiting"

    # The forced rename: the new name in the standings and on its board.
    new_name = unique("nn")
    r = await admin.http.post(f"/api/admin/accounts/{renamed}/rename",
                              json={"username": new_name})
    assert r.status_code == 200, r.text
    for tid in (later, running):
        got = await admin.tournament(tid)
        assert new_name in rows(got) and renamed not in rows(got), tid
    boards = (await admin.tournament(running))["boards"]
    seated = [p for b in boards for p in b["players"]]
    assert new_name in seated and renamed not in seated

    # The deletion (by the account itself): "deleted player", withdrawn, everywhere.
    r = await people[deleted].http.request("DELETE", "/api/me",
                                           json={"password": "correct horse 1"})
    assert r.status_code in (200, 204), r.text
    got = await admin.tournament(later)
    assert deleted not in rows(got) and "deleted player" not in rows(got)
    assert got["players"] == 3
    got = await admin.tournament(running)
    assert deleted not in rows(got) and rows(got)["deleted player"]["withdrawn"]
    assert deleted not in [p for b in got["boards"] for p in b["players"]]
    assert got["players"] == 2

    # The creator's name follows a rename too.
    creator_new = unique("cn")
    r = await admin.http.post(f"/api/admin/accounts/{names[3]}/rename",
                              json={"username": creator_new})
    assert r.status_code == 200, r.text
    assert (await admin.tournament(later))["creator"] == creator_new
    for m in (admin, *people.values()):
        await m.close()


async def test_a_suspension_withdraws_and_cancels_seeks(
        own: tuple[ServerProcess, str], capsys: pytest.CaptureFixture) -> None:
    """Break test finding: a suspended account stayed in its open tournaments and its
    seeks kept waiting. A suspension withdraws it (off the list of a scheduled one) and
    cancels its waiting seek, as a ban does; while suspended it can neither join again
    nor seek (403 ``suspended``)."""
    server, redis_url = own
    mod_name, mod = await member(server, "sm")
    await Cli(redis_url, capsys).ok("grant", mod_name, "moderator")
    tom_name, tom = await member(server, "st")
    _, creator = await member(server, "sc")
    later = (await creator.create_tournament(
        **swiss_body(name="Later", starts_at=time.time() + 3600)))["id"]
    assert (await tom.tournament_call(later, "join")).status_code == 200
    assert (await creator.tournament_call(later, "join")).status_code == 200
    seek = await tom.seek("einauge", 4)
    assert seek["status"] == "waiting"
    r = await mod.http.post(f"/api/admin/accounts/{tom_name}/suspend", json={"minutes": 60})
    assert r.status_code == 200, r.text
    assert r.json()["audit"]["detail"]["tournaments_withdrawn"] == 1
    got = await creator.tournament(later)
    assert tom_name not in rows(got) and got["players"] == 1
    looked = await creator.seek_call("GET", seek["id"], seek["seek_token"])
    assert looked.json()["status"] == "cancelled", looked.text
    r = await tom.tournament_call(later, "join")
    assert (r.status_code, r.json()["error"]["code"]) == (403, "suspended")
    r = await tom.http.post("/api/seeks", json={"game": "einauge", "seats": 4})
    assert (r.status_code, r.json()["error"]["code"]) == (403, "suspended")
    for m in (mod, tom, creator):
        await m.close()
