"""Accounts over the real API (server/accounts/accounts.py, sessions.py, csrf.py, account_api.py):
sign-up, login, the session cookie, every refusal (wrong password, lockout per account and
per address, a cross-site change without the CSRF token, another account's seat), a guest
keeping its seats, and deletion."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import RedisProcess, ServerProcess
from tests.server.client import Member, Socket, auth, one_hour, unique
from tests.waiting import until


async def test_sign_up_sets_an_http_only_session_cookie_and_me_answers(server):
    m = Member(server.url)
    name = unique()
    r = await m.http.post("/api/account/signup",
                          json={"username": name, "password": "correct horse 1"})
    assert r.status_code == 201
    cookie = r.headers["set-cookie"]
    assert "cardtable_session=" in cookie and "HttpOnly" in cookie
    assert "SameSite=lax" in cookie or "samesite=lax" in cookie.lower()
    assert "Secure" not in cookie  # plain http here; https adds it
    m._logged_in(r)
    me = (await m.http.get("/api/me")).json()
    assert me["account"]["username"] == name and me["csrf"] == m.csrf
    assert "pw" not in me["account"]
    # Another client without the cookie is nobody.
    other = Member(server.url)
    assert (await other.http.get("/api/me")).json() == {"account": None, "csrf": None}
    # Taken names (any case) are refused.
    r = await other.http.post("/api/account/signup",
                              json={"username": name.upper(), "password": "whatever 123"})
    assert (r.status_code, r.json()["error"]["code"]) == (409, "name_taken")
    # The bots' rated accounts' names are nobody else's.
    for bot in ("Random", "greedy"):
        r = await other.http.post("/api/account/signup",
                                  json={"username": bot, "password": "whatever 123"})
        assert (r.status_code, r.json()["error"]["code"]) == (409, "name_reserved")
    for bad, code in (({"username": "a", "password": "long enough"}, "bad_username"),
                      ({"username": unique(), "password": "short"}, "bad_password")):
        r = await other.http.post("/api/account/signup", json=bad)
        assert (r.status_code, r.json()["error"]["code"]) == (400, code)
    await m.close()
    await other.close()


async def test_login_from_another_device_and_logout(server):
    a = Member(server.url)
    name = unique()
    await a.sign_up(name)
    b = Member(server.url)
    await b.log_in(name.upper())  # names are case-insensitive
    assert b.account["username"] == name
    assert b.csrf != a.csrf
    r = await b.http.post("/api/account/logout")
    assert r.status_code == 200
    assert (await b.http.get("/api/me")).json()["account"] is None  # a guest now
    assert (await a.http.get("/api/me")).json()["account"]["username"] == name  # lives on
    await a.close()
    await b.close()


async def test_wrong_password_and_unknown_name_get_the_same_refusal(server):
    m = Member(server.url)
    name = unique()
    await m.sign_up(name)
    other = Member(server.url)
    wrong = await other.try_log_in(name, "not the password")
    unknown = await other.try_log_in(unique(), "not the password")
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.json() == unknown.json()
    assert wrong.json()["error"]["code"] == "bad_login"
    assert "set-cookie" not in wrong.headers
    await m.close()
    await other.close()


async def test_an_account_is_locked_out_after_five_failures_even_with_the_right_password(
        server):
    m = Member(server.url)
    name = unique()
    await m.sign_up(name)
    other = Member(server.url)
    codes = [(await other.try_log_in(name, f"wrong {i} password")).json()["error"]["code"]
             for i in range(5)]
    assert codes == ["bad_login"] * 5
    r = await other.try_log_in(name, "correct horse 1")
    assert (r.status_code, r.json()["error"]["code"]) == (429, "locked_out")
    assert "set-cookie" not in r.headers
    # Another account from the same address still logs in (the address limit is higher).
    m2 = Member(server.url)
    await m2.sign_up(unique())
    await Member(server.url).log_in(m2.account["username"])
    for c in (m, other, m2):
        await c.close()


@pytest.fixture
def strict_server(tmp_path):
    # Its own Redis: the address counter of the session's Redis holds the other tests'
    # failures (every test client is 127.0.0.1).
    # Its clock stopped within one hour: the hourly sign-up count does not start again.
    r = RedisProcess(tmp_path / "redis")
    s = ServerProcess(r.start(), env={"CARDTABLE_LOGIN_FAILURES_PER_ADDRESS": "3",
                                      "CARDTABLE_SIGNUPS_PER_HOUR": "2",
                                      **one_hour(tmp_path / "clock")}).start()
    yield s
    s.stop()
    r.stop()


async def test_an_address_is_locked_out_across_accounts(strict_server):
    m = Member(strict_server.url)
    await m.sign_up(unique())
    probe = Member(strict_server.url)
    for _ in range(3):
        r = await probe.try_log_in(unique(), "guessing 1234")
        assert r.json()["error"]["code"] == "bad_login"
    r = await probe.try_log_in(m.account["username"], "correct horse 1")
    assert (r.status_code, r.json()["error"]["code"]) == (429, "locked_out")
    await m.close()
    await probe.close()


async def test_sign_ups_are_limited_per_address(strict_server):
    clients = [Member(strict_server.url) for _ in range(3)]
    for c in clients[:2]:
        await c.sign_up(unique())
    r = await clients[2].http.post("/api/account/signup",
                                   json={"username": unique(), "password": "long enough"})
    assert (r.status_code, r.json()["error"]["code"]) == (429, "rate_limited")
    for c in clients:
        await c.close()


async def test_a_change_with_the_cookie_but_without_the_csrf_token_is_refused(server):
    m = Member(server.url)
    await m.sign_up(unique())
    cookies = m.http.cookies
    import httpx
    forged = httpx.AsyncClient(base_url=server.url, cookies=cookies)
    # A form post from another site carries the cookie but cannot know the token.
    r = await forged.post("/api/tables", json={"seats": 2},
                          headers={"Origin": "https://evil.example"})
    assert (r.status_code, r.json()["error"]["code"]) == (403, "csrf")
    r = await forged.patch("/api/me/settings", json={"email": "x@evil.example"})
    assert (r.status_code, r.json()["error"]["code"]) == (403, "csrf")
    r = await forged.request("DELETE", "/api/me", json={"password": "correct horse 1"},
                             headers={"X-CSRF-Token": "guessed"})
    assert (r.status_code, r.json()["error"]["code"]) == (403, "csrf")
    # Nothing changed: the account is there, with no e-mail.
    me = (await m.http.get("/api/me")).json()["account"]
    assert me["email"] == ""
    # With the token the same change goes through.
    r = await m.http.patch("/api/me/settings", json={"email": "me@example.org"})
    assert r.status_code == 200 and r.json()["account"]["email"] == "me@example.org"
    # A login posted from another site is refused too (login CSRF).
    r = await forged.post("/api/account/login",
                          json={"username": m.account["username"], "password": "correct horse 1"},
                          headers={"Origin": "https://evil.example"})
    assert (r.status_code, r.json()["error"]["code"]) == (403, "csrf")
    await forged.aclose()
    await m.close()


async def test_an_account_sees_and_uses_only_its_own_seats(server):
    anna, ben = Member(server.url), Member(server.url)
    await anna.sign_up(unique("anna"))
    await ben.sign_up(unique("ben"))
    table = await anna.create(2)
    tid = table["id"]
    joined = await anna.join(tid, "ignored", token=table["owner_token"])
    # The seat carries the account's name, not the one typed.
    summary = (await anna.get(f"/api/tables/{tid}")).json()
    assert summary["seats"][0]["name"] == anna.account["username"]
    assert summary["seats"][0]["account"] is True
    held = (await anna.http.get(f"/api/me/tables/{tid}")).json()
    # Redis keeps token hashes only: this device gets fresh tokens for the seat and the
    # creator's role (one token: the creator sat with its own), the old ones stop working.
    assert held["seat"] == 0 and held["token"] == held["owner_token"]
    assert held["token"] not in (joined["token"], table["owner_token"])
    r = await anna.seat_call(tid, "seed", joined["token"], {"player_seed": "x"})
    assert (r.status_code, r.json()["error"]["code"]) == (401, "bad_token")
    joined = {"token": held["token"]}
    # Ben's session holds nothing there and gets no token.
    r = await ben.http.get(f"/api/me/tables/{tid}")
    assert (r.status_code, r.json()["error"]["code"]) == (404, "no_seat")
    # Ben cannot leave Anna's seat with his cookie, nor claim it with a guessed token.
    r = await ben.http.post(f"/api/tables/{tid}/leave")
    assert (r.status_code, r.json()["error"]["code"]) == (401, "bad_token")
    r = await ben.http.post("/api/me/claim", json={"seats": [{"table": tid, "token": "x" * 22}]})
    assert r.json()["claimed"] == [{"table": tid, "refused": "bad_token"}]
    # Even with Anna's real token (stolen), Ben's account cannot take her seat over.
    r = await ben.http.post("/api/me/claim",
                            json={"seats": [{"table": tid, "token": joined["token"]}]})
    assert r.json()["claimed"] == [{"table": tid, "refused": "seat_owned"}]
    # Anna's account may not take a second seat at the same table.
    r = await anna.http.post(f"/api/tables/{tid}/join", json={"name": "again"})
    assert (r.status_code, r.json()["error"]["code"]) == (409, "seated")
    await anna.close()
    await ben.close()


async def test_a_guest_who_signs_up_keeps_the_seats_it_holds(server):
    guest = Member(server.url)
    table = await guest.create(2)
    tid = table["id"]
    seat = await guest.join(tid, "Guest Gabi", token=table["owner_token"])
    await guest.bot(tid, 1)
    await guest.start(tid)
    data = await guest.sign_up(unique("gabi"), seats=[
        {"table": tid, "token": seat["token"], "owner": table["owner_token"]}])
    assert data["claimed"] == [{"table": tid, "seat": 0, "owner": table["owner_token"]}]
    # On a fresh device the account finds the running game and its seat token.
    other = Member(server.url)
    await other.log_in(guest.account["username"])
    games = (await other.http.get("/api/me/games")).json()
    assert [g["id"] for g in games["running"]] == [tid]
    assert games["running"][0]["my_seat"] == 0 and "to_move" in games["running"][0]
    held = (await other.http.get(f"/api/me/tables/{tid}")).json()
    assert held["seat"] == 0 and held["token"] != seat["token"]
    sock = await Socket(server.ws_url, tid).connect(token=held["token"])
    welcome = await sock.wait(lambda f: f.get("t") == "welcome")
    assert welcome["seat"] == 0
    await sock.close()
    # The guest's typed name stays on the seat.
    assert (await other.get(f"/api/tables/{tid}")).json()["seats"][0]["name"] == "Guest Gabi"
    await guest.close()
    await other.close()


async def test_a_rated_table_seats_accounts_and_bots_only(server):
    anna = Member(server.url)
    guest = Member(server.url)
    r = await guest.http.post("/api/tables", json={"seats": 2, "rated": True})
    assert (r.status_code, r.json()["error"]["code"]) == (403, "account_needed")
    await anna.sign_up(unique("anna"))
    r = await anna.http.post("/api/tables", json={"seats": 3, "rated": True})
    assert r.status_code == 201 and r.json()["rated"] is True
    tid = r.json()["id"]
    r = await guest.http.post(f"/api/tables/{tid}/join", json={"name": "Guest"})
    assert (r.status_code, r.json()["error"]["code"]) == (403, "account_needed")
    await anna.close()
    await guest.close()


async def test_deleting_an_account_removes_its_data_and_renames_its_seats(server):
    m = Member(server.url)
    name = unique("del")
    await m.sign_up(name, email="del@example.org")
    table = await m.create(2)
    tid = table["id"]
    await m.join(tid, "x", token=table["owner_token"])
    r = await m.http.request("DELETE", "/api/me", json={"password": "wrong password"})
    assert (r.status_code, r.json()["error"]["code"]) == (401, "bad_login")
    r = await m.http.request("DELETE", "/api/me", json={"password": "correct horse 1"})
    assert r.status_code == 200
    assert (await m.http.get("/api/me")).json()["account"] is None
    assert (await m.get(f"/api/players/{name}")).status_code == 404
    seat = (await m.get(f"/api/tables/{tid}")).json()["seats"][0]
    assert seat["name"] == "deleted player" and "account" not in seat
    r = await Member(server.url).try_log_in(name, "correct horse 1")
    assert r.json()["error"]["code"] == "bad_login"
    # The name is free again.
    await Member(server.url).sign_up(name)
    await m.close()


async def test_bearer_requests_without_a_cookie_need_no_csrf_token(server):
    lobby = Member(server.url)
    table = await lobby.create(2)
    r = await lobby.http.post(f"/api/tables/{table['id']}/join", json={"name": "Anna"},
                              headers=auth(table["owner_token"]))
    assert r.status_code == 200
    await lobby.close()


async def test_a_profile_never_lists_a_private_table(server):
    m = Member(server.url)
    name = unique("priv")
    await m.sign_up(name)
    public, private = await m.create(2), await m.create(2, private=True)
    for t in (public, private):
        await m.join(t["id"], "x", token=t["owner_token"], key=t.get("invite_key"))
        await m.bot(t["id"], 1)
        await m.start(t["id"])
    games = (await m.http.get("/api/me/games")).json()
    assert {g["id"] for g in games["running"]} == {public["id"], private["id"]}
    profile = (await m.get(f"/api/players/{name}")).json()
    assert profile["running"] == 1
    await m.close()


async def test_a_seat_handed_to_a_bot_stays_in_its_accounts_games(server):
    anna, ben = Member(server.url), Member(server.url)
    await anna.sign_up(unique("anna"))
    await ben.sign_up(unique("ben"))
    table = await anna.create(2)
    tid = table["id"]
    await anna.join(tid, "x", token=table["owner_token"])
    ben_token = (await ben.join(tid, "x"))["token"]
    await anna.start(tid)
    # Ben resigns: a bot plays his seat (a host's handover needs him gone for 60 s).
    r = await ben.seat_call(tid, "resign", ben_token)
    assert r.status_code == 200, r.text
    seat = (await anna.get(f"/api/tables/{tid}")).json()["seats"][1]
    assert seat["kind"] == "bot" and "account" not in seat
    games = (await ben.http.get("/api/me/games")).json()
    rows = [g for g in games["running"] + games["finished"] if g["id"] == tid]
    assert len(rows) == 1 and rows[0]["my_seat"] == 1
    await anna.close()
    await ben.close()


async def test_my_games_tell_whose_turn_and_the_time_left(server):
    m = Member(server.url)
    await m.sign_up(unique("clock"))
    table = await m.create(2, time_control={"kind": "live", "preset": "slow"})
    tid = table["id"]
    await m.join(tid, "x", token=table["owner_token"])
    await m.bot(tid, 1)
    await m.start(tid)
    async def my_turn() -> dict | None:  # the bot may move first
        row = next(g for g in (await m.http.get("/api/me/games")).json()["running"]
                   if g["id"] == tid)
        return row if row.get("my_turn") else None

    row = await until(my_turn, what="my turn")
    assert row["to_move"] == [0] and row["my_turn"] is True
    assert row["deadline_seat"] == 0
    # The slow preset: 60 s a move, then a reserve of 10 minutes.
    assert 600_000 < row["deadline"] - row["now"] <= 660_000
    await m.close()


async def test_the_cookie_is_secure_when_the_request_came_over_tls(server, redis_url):
    # Behind a TLS proxy (CARDTABLE_TRUSTED_PROXIES), uvicorn takes the scheme from its
    # X-Forwarded-Proto; from anyone else the header is ignored.
    proxied = ServerProcess(redis_url, env={"CARDTABLE_TRUSTED_PROXIES": "127.0.0.1"}).start()
    try:
        for base, secure in ((proxied.url, True), (server.url, False)):
            m = Member(base)
            r = await m.http.post("/api/account/signup", headers={"X-Forwarded-Proto": "https"},
                                  json={"username": unique(), "password": "correct horse 1"})
            assert r.status_code == 201
            assert ("Secure" in r.headers["set-cookie"]) is secure
            assert "HttpOnly" in r.headers["set-cookie"]
            await m.close()
    finally:
        proxied.stop()


async def test_a_deleted_accounts_finished_game_keeps_its_record_with_the_name_replaced(server):
    from tests.server.client import Seats, ended

    m = Member(server.url)
    name = unique("gone")
    await m.sign_up(name)
    table = await m.create(2)
    tid = table["id"]
    token = (await m.join(tid, "x", token=table["owner_token"]))["token"]
    await m.bot(tid, 1)
    await m.start(tid)
    sock = await Socket(server.ws_url, tid).connect(token=token)
    seats = Seats([sock], seed=9)
    while not any(ended(f) for f in sock.frames):
        await seats.step(10)
    await sock.close()
    before = (await m.get(f"/api/tables/{tid}/record")).json()
    assert before["players"][0] == name and "redacted_seats" not in before
    r = await m.http.request("DELETE", "/api/me", json={"password": "correct horse 1"})
    assert r.status_code == 200
    after = (await m.get(f"/api/tables/{tid}/record")).json()
    assert after["players"] == ["deleted player", before["players"][1]]
    assert after["redacted_seats"] == [0]
    assert after["actions"] == before["actions"] and after["result"] == before["result"]
    await m.close()


async def test_a_rated_seat_played_by_a_bot_keeps_its_account_s_rating(server):
    anna, ben = Member(server.url), Member(server.url)
    await anna.sign_up(unique("anna"))
    ben_name = unique("ben")
    await ben.sign_up(ben_name)
    table = await anna.create(2, rated=True)
    tid = table["id"]
    await anna.join(tid, "x", token=table["owner_token"])
    ben_token = (await ben.join(tid, "x"))["token"]
    await anna.start(tid)
    r = await ben.seat_call(tid, "resign", ben_token)
    assert r.status_code == 200, r.text
    assert (await anna.get(f"/api/tables/{tid}")).json()["seats"][1]["kind"] == "bot"
    seat = (await anna.get(f"/api/tables/{tid}/ratings")).json()["seats"][1]
    assert seat["username"] == ben_name and seat["bot"] is False
    await anna.close()
    await ben.close()


async def test_a_seat_a_bot_claimed_is_its_account_s_on_a_second_device(redis_url, tmp_path):
    """Ben's seat is claimed for a bot while he is gone; logged in on another device,
    his games list it as his, the device gets the seat (not a spectator's view) and takes
    it back with ``return``."""
    from tests.server.client import ClockFile

    clock = ClockFile(tmp_path / "clock")
    s = ServerProcess(redis_url, env={**clock.env, "CARDTABLE_PRESENCE_GRACE": "1"}).start()
    try:
        anna, ben = Member(s.url), Member(s.url)
        await anna.sign_up(unique("anna"))
        await ben.sign_up(unique("ben"))
        table = await anna.create(2, time_control={"kind": "live", "preset": "slow"})
        tid = table["id"]
        await anna.join(tid, "x", token=table["owner_token"])
        ben_token = (await ben.join(tid, "x"))["token"]
        await anna.start(tid)
        sock = await Socket(s.ws_url, tid).connect(token=ben_token)
        await sock.wait(lambda f: f["t"] == "welcome")
        watch = await Socket(s.ws_url, tid).connect(token=table["owner_token"])
        await sock.close()  # Ben's device is gone
        await watch.wait(lambda f: f["t"] == "presence"
                         and f["seats"][1]["state"] == "away")
        await watch.close()
        clock.set(61)  # the slow preset: a seat away 60 s may be claimed
        async def claimed():  # once the servers' clock (a file they read) says 61 s
            r = await anna.seat_call(tid, "seats/1/claim", table["owner_token"])
            return r if r.status_code == 200 else None

        r = await until(claimed, what="the seat claimed")
        assert r.json()["seats"][1]["kind"] == "bot"
        phone = Member(s.url)
        await phone.log_in(ben.account["username"])
        games = (await phone.http.get("/api/me/games")).json()
        assert [(g["id"], g["my_seat"]) for g in games["running"]] == [(tid, 1)]
        held = (await phone.http.get(f"/api/me/tables/{tid}")).json()
        assert held["seat"] == 1 and held["token"]
        sock = await Socket(s.ws_url, tid).connect(token=held["token"])
        welcome = await sock.wait(lambda f: f["t"] == "welcome")
        assert welcome["seat"] == 1  # the seat's player, not a spectator
        await sock.close()
        r = await phone.seat_call(tid, "return", held["token"])
        assert r.status_code == 200, r.text
        seat = r.json()["seats"][1]
        assert seat["kind"] == "human" and seat["account"] is True
        # Anna's (the creator's) token holds nothing of Ben's seat: she cannot return it.
        r = await anna.seat_call(tid, "return", table["owner_token"])
        assert r.status_code == 409, r.text
        for c in (anna, ben, phone):
            await c.close()
    finally:
        s.stop()


async def test_my_games_list_only_tables_where_the_account_holds_a_seat(server):
    m = Member(server.url)
    await m.sign_up(unique("seatless"))
    table = await m.create(2)
    tid = table["id"]
    await m.bot(tid, 1)
    listed = lambda g: [r["id"] for k in ("open", "running", "finished") for r in g[k]]  # noqa: E731
    # Created (the account holds the creator's role) but not sat at: not its game.
    games = (await m.http.get("/api/me/games")).json()
    assert tid not in listed(games)
    seat = await m.join(tid, "x", token=table["owner_token"])
    games = (await m.http.get("/api/me/games")).json()
    assert [(r["id"], r["my_seat"]) for r in games["open"]] == [(tid, 0)]
    assert tid not in [r["id"] for r in games["running"]]
    # Left before the start: gone from the list again.
    assert (await m.seat_call(tid, "leave", seat["token"])).status_code == 200
    games = (await m.http.get("/api/me/games")).json()
    assert tid not in listed(games)
    await m.close()


async def test_a_session_cookie_of_the_former_name_stays_logged_in_and_moves(server):
    """A browser logged in before the rename holds ``einauge_session``: it is still read
    (the new name is absent), the response moves it to ``cardtable_session`` and clears
    the old one, and logout clears both."""
    import httpx

    m = Member(server.url)
    name = unique()
    await m.sign_up(name)
    sid = m.http.cookies.get("cardtable_session")
    assert sid
    await m.close()
    old = {"Cookie": f"einauge_session={sid}"}
    async with httpx.AsyncClient(base_url=server.url) as browser:
        r = await browser.get("/api/me", headers=old)
        assert r.json()["account"]["username"] == name
        csrf = r.json()["csrf"]
        moved = r.headers.get_list("set-cookie")
        assert len(moved) == 2, moved
        assert any(c.startswith(f"cardtable_session={sid};") and "HttpOnly" in c for c in moved)
        assert any(c.startswith("einauge_session=") and "Max-Age=0" in c for c in moved)
        # A change with the old cookie still needs (and passes with) the session's token.
        r = await browser.post("/api/account/logout", headers=old)
        assert (r.status_code, r.json()["error"]["code"]) == (403, "csrf")
        # The new name carries the session; nothing more to move.
        r = await browser.get("/api/me", headers={"Cookie": f"cardtable_session={sid}"})
        assert r.json()["account"]["username"] == name and "set-cookie" not in r.headers
        # Logout with the old cookie ends the session and clears both names.
        r = await browser.post("/api/account/logout", headers={**old, "X-CSRF-Token": csrf})
        assert r.status_code == 200, r.text
        cleared = r.headers.get_list("set-cookie")
        assert sorted(c.split("=")[0] for c in cleared) == ["cardtable_session",
                                                            "einauge_session"]
        assert all("Max-Age=0" in c for c in cleared)
        r = await browser.get("/api/me", headers={"Cookie": f"cardtable_session={sid}"})
        assert r.json()["account"] is None


# The attack these tests guard against (found in a security review):
# B2 findings on login (server/accounts/accounts.py): the per-account lockout answers differently
# for a name that exists than for one that does not (username enumeration, despite the
# "one answer for both" of ``bad_login``), and anyone anywhere can lock any account out,
# its owner included, with five wrong passwords.


@pytest.fixture
def login_server(tmp_path: Path) -> Iterator[ServerProcess]:
    # Its own Redis: the address counters of the session's Redis hold other tests'
    # failures. The test client is the proxy, so X-Forwarded-For names the client.
    r = RedisProcess(tmp_path / "redis")
    s = ServerProcess(r.start(), env={"CARDTABLE_TRUSTED_PROXIES": "127.0.0.1",
                                      "CARDTABLE_LOGIN_FAILURES_PER_ADDRESS": "1000"}).start()
    yield s
    s.stop()
    r.stop()


async def _login(m: Member, name: str, password: str, addr: str) -> tuple[int, str, str]:
    r = await m.http.post("/api/account/login", json={"username": name, "password": password},
                          headers={"X-Forwarded-For": addr})
    err = r.json().get("error", {})
    return r.status_code, err.get("code", ""), err.get("message", "")


async def test_the_lockout_does_not_tell_existing_names_from_unknown_ones(login_server):
    owner, attacker = Member(login_server.url), Member(login_server.url)
    real = unique("real")
    await owner.sign_up(real)
    ghost = unique("ghost")
    answers: dict[str, list[tuple[int, str, str]]] = {real: [], ghost: []}
    for name in (real, ghost):
        for i in range(6):  # bounded: one more than the per-account limit
            answers[name].append(await _login(attacker, name, f"wrong guess {i}", "10.9.9.9"))
    await owner.close()
    await attacker.close()
    # The same answers, word for word, for a name that exists and one that does not: five
    # 401 bad_login, then 429 locked_out (docs/protocol.md, login).
    assert [a[:2] for a in answers[real]] == [(401, "bad_login")] * 5 + [(429, "locked_out")]
    assert answers[real] == answers[ghost], answers


async def test_a_stranger_cannot_lock_the_owner_out(login_server):
    owner, attacker = Member(login_server.url), Member(login_server.url)
    name = unique("victim")
    await owner.sign_up(name)
    for i in range(5):
        status, code, _ = await _login(attacker, name, f"wrong guess {i}", "10.6.6.6")
        assert (status, code) == (401, "bad_login")
    status, code, message = await _login(owner, name, "correct horse 1", "10.1.2.3")
    await owner.close()
    await attacker.close()
    assert status == 200, (status, code, message)


# The attack these tests guard against (found in a security review):
# B2 finding on passkeys (server/accounts/passkeys.py, account_api.py): ``POST
# /api/account/passkey/begin`` needs no account and has no limit; every call stores a
# ceremony in Redis for five minutes, so one client fills Redis at the speed of its
# requests.


LIMIT = 60
"""The service's default ``CARDTABLE_PASSKEY_LOGINS_PER_HOUR``."""
CALLS = LIMIT + 3


async def test_passkey_login_ceremonies_are_limited_per_address(own_redis, tmp_path):
    # A server of its own at the service's default limit: the session's servers raise it
    # for the other tests, and the counter lives in Redis, so spending it on the shared
    # Redis would refuse every later passkey test from this address. Its clock stopped
    # within one hour: the hourly count does not start again mid-test.
    server = ServerProcess(own_redis.url,
                           env={"CARDTABLE_PASSKEY_LOGINS_PER_HOUR": str(LIMIT),
                                **one_hour(tmp_path / "clock")}).start()
    m = Member(server.url)
    answers = []
    tickets = set()
    try:
        for _ in range(CALLS):  # bounded
            r = await m.http.post("/api/account/passkey/begin", json={})
            answers.append((r.status_code, r.json().get("error", {}).get("code")))
            if r.status_code == 200:
                tickets.add(r.json()["ticket"])
    finally:
        await m.close()
        server.stop()
    # Exactly the limit's ceremonies begin (each its own ticket), every later one is
    # refused (docs/protocol.md: 429 rate_limited).
    assert answers == [(200, None)] * LIMIT + [(429, "rate_limited")] * (CALLS - LIMIT)
    assert len(tickets) == LIMIT
