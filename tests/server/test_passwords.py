"""Password change and reset by e-mail over the real API (server/http/passwords.py,
server/accounts/accounts.py), with a real local SMTP server (aiosmtpd): every refusal, the
sessions that end, a single-use expiring link, no mail without SMTP, the rate limits, and
no usable secret in Redis."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest
import redis.asyncio as aioredis
from aiosmtpd.controller import Controller
from argon2 import PasswordHasher

from server.store.accounts import account_key, reset_key, secret_hash
from server.store.embedded import free_port
from tests.conftest import RedisProcess, ServerProcess
from tests.server.client import Member, unique
from tests.server.test_notify import Inbox, confirm
from tests.waiting import until

RESET_SUBJECT = "Reset your password"
PW = "correct horse 1"


@pytest.fixture(scope="module")
def smtp() -> Iterator[tuple[Inbox, int]]:
    inbox = Inbox()
    port = free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    yield inbox, port
    controller.stop()


def _mail_env(port: int) -> dict[str, str]:
    return {"CARDTABLE_SMTP_HOST": "127.0.0.1", "CARDTABLE_SMTP_PORT": str(port),
            "CARDTABLE_PUBLIC_URL": "https://einauge.example",
            "CARDTABLE_LOG_LEVEL": "info"}  # the "no reset mail" lines the tests await


@pytest.fixture(scope="module")
def mail_redis(tmp_path_factory) -> Iterator[str]:
    # Its own Redis: the per-address failure count of the shared one holds the other
    # tests' failed logins (every test client is 127.0.0.1).
    r = RedisProcess(tmp_path_factory.mktemp("mail-redis"))
    yield r.start()
    r.stop()


@pytest.fixture(scope="module")
def mailing(mail_redis, smtp) -> Iterator[ServerProcess]:
    s = ServerProcess(mail_redis, env={**_mail_env(smtp[1]),
                                       "CARDTABLE_PASSWORD_RESETS_PER_HOUR": "100000"}).start()
    yield s
    s.stop()


def resets(inbox: Inbox, address: str) -> list[str]:
    """The reset tokens mailed to ``address``, oldest first."""
    with inbox.lock:
        mails = [m for rcpt, m in inbox.mails
                 if address in rcpt and m["Subject"] == RESET_SUBJECT]
    out = []
    for m in mails:
        text = m.get_payload(decode=True).decode()
        link = re.search(r"https://einauge\.example/account\?reset=(\S+)", text)
        assert link, text
        out.append(link.group(1))
    return out


async def _reset_arrives(inbox: Inbox, address: str, count: int = 1) -> list[str]:
    await until(lambda: len(resets(inbox, address)) >= count, what=f"reset mail to {address}")
    return resets(inbox, address)


def refusals(server: ServerProcess, reason: str) -> int:
    """The reset mails ``server`` decided not to send for ``reason`` (its log lines)."""
    rx = re.compile(rf"no reset mail.*reason=['\"]?{re.escape(reason)}")
    return sum(bool(rx.search(line)) for line in server.read_log().splitlines())


async def _change(m: Member, current: str, new: str) -> httpx.Response:
    return await m.http.post("/api/me/password", json={"current": current, "password": new})


async def test_a_password_change_needs_the_current_password_and_ends_the_other_sessions(
        mailing):
    server = mailing  # its own Redis: no other test's failed logins count for 127.0.0.1
    a = Member(server.url)
    name = unique("pw")
    await a.sign_up(name)
    b = Member(server.url)
    await b.log_in(name)
    for current, new, status, code in ((f"not {PW}", "a new password", 401, "bad_login"),
                                       (PW, "short", 400, "bad_password"),
                                       (PW, PW, 400, "bad_password"),
                                       (None, "a new password", 401, "bad_login")):
        r = await _change(a, current, new)
        assert (r.status_code, r.json()["error"]["code"]) == (status, code), r.text
    # Nothing changed on a refusal: both sessions live, the old password works.
    assert (await b.http.get("/api/me")).status_code == 200
    await Member(server.url).log_in(name, PW)
    # Without a session, and with the cookie but without the CSRF token: refused.
    r = await Member(server.url).http.post("/api/me/password",
                                           json={"current": PW, "password": "a new password"})
    assert (r.status_code, r.json()["error"]["code"]) == (401, "no_session")
    forged = httpx.AsyncClient(base_url=server.url, cookies=a.http.cookies)
    r = await forged.post("/api/me/password", json={"current": PW, "password": "evil pass 1"})
    assert (r.status_code, r.json()["error"]["code"]) == (403, "csrf")
    await forged.aclose()
    r = await _change(a, PW, "a new password")
    assert r.status_code == 200 and r.json()["ended"] == 2, r.text  # b and the probe login
    assert (await a.http.get("/api/me")).status_code == 200  # this session lives on
    assert (await b.http.get("/api/me")).json()["account"] is None  # a guest now
    assert (await Member(server.url).try_log_in(name, PW)).json()["error"]["code"] == \
        "bad_login"
    await Member(server.url).log_in(name, "a new password")
    await a.close()
    await b.close()


async def test_wrong_current_passwords_lock_the_change_out(mailing, mail_redis):
    server, redis_url = mailing, mail_redis
    a = Member(server.url)
    name = unique("pwl")
    await a.sign_up(name)
    codes = [(await _change(a, f"guess {i} wrong", "a new password")).json()["error"]["code"]
             for i in range(5)]
    assert codes == ["bad_login"] * 5
    r = await _change(a, PW, "a new password")  # the right one, now refused too
    assert (r.status_code, r.json()["error"]["code"]) == (429, "locked_out")
    # The same count as logins: this address's logins to the account are locked out too.
    r = await Member(server.url).try_log_in(name, PW)
    assert (r.status_code, r.json()["error"]["code"]) == (429, "locked_out")
    client = aioredis.from_url(redis_url)
    stored = (await client.hget(account_key(a.account["id"]), "pw")).decode()
    await client.aclose()
    assert PasswordHasher().verify(stored, PW)  # unchanged
    await a.close()


async def test_a_service_without_smtp_sends_no_reset(server):
    m = Member(server.url)
    name = unique("nomail")
    await m.sign_up(name, email="nomail@example.org")
    r = await m.http.post("/api/account/password-reset", json={"username": name})
    assert (r.status_code, r.json()["error"]["code"]) == (503, "no_mail")
    await m.close()


async def test_a_reset_link_works_once_and_ends_every_session(mailing, smtp, mail_redis):
    inbox, _ = smtp
    a = Member(mailing.url)
    name, address = unique("rs"), f"{unique('rs')}@example.org"
    await a.sign_up(name, email=address)
    await confirm(inbox, a, address)
    other = Member(mailing.url)
    await other.log_in(name)
    guest = Member(mailing.url)
    # Refusals of the request: no username, another site's page.
    r = await guest.http.post("/api/account/password-reset", json={})
    assert (r.status_code, r.json()["error"]["code"]) == (400, "bad_username")
    r = await guest.http.post("/api/account/password-reset", json={"username": name},
                              headers={"Origin": "https://evil.example"})
    assert (r.status_code, r.json()["error"]["code"]) == (403, "csrf")
    r = await guest.http.post("/api/account/password-reset", json={"username": name})
    assert r.status_code == 202 and r.json() == {"requested": True}
    [token] = await _reset_arrives(inbox, address)
    # Redis holds the token's hash only, with an expiry of CARDTABLE_PASSWORD_RESET_TTL.
    uid = a.account["id"]
    client = aioredis.from_url(mail_redis)
    stored = await client.get(reset_key(uid))
    assert stored.decode() == secret_hash(token.partition(".")[2])
    assert 0 < await client.ttl(reset_key(uid)) <= 3600
    # Asked again within the period: the same answer, no second mail (the request's mail
    # is decided after the answer: the check waits for the decision's log line).
    before = refusals(mailing, "one went in the period")
    r = await guest.http.post("/api/account/password-reset", json={"username": name})
    assert r.status_code == 202
    await until(lambda: refusals(mailing, "one went in the period") == before + 1,
                what="the second reset refused")
    assert len(resets(inbox, address)) == 1
    confirm_url = "/api/account/password-reset/confirm"
    # A bad new password keeps the token; a forged or guessed token does nothing.
    r = await guest.http.post(confirm_url, json={"token": token, "password": "short"})
    assert (r.status_code, r.json()["error"]["code"]) == (400, "bad_password")
    for bad in (f"{uid}.{'x' * 43}", "nodot", f"{uid}.", token + "x", 7):
        r = await guest.http.post(confirm_url, json={"token": bad, "password": "new password 2"})
        assert (r.status_code, r.json()["error"]["code"]) == (400, "bad_token"), bad
    await Member(mailing.url).log_in(name, PW)  # still the old password
    r = await guest.http.post(confirm_url, json={"token": token, "password": "new password 2"})
    assert r.status_code == 200 and "cardtable_session=" in r.headers["set-cookie"], r.text
    guest._logged_in(r)
    assert (await guest.http.get("/api/me")).json()["account"]["username"] == name
    for old in (a, other):
        assert (await old.http.get("/api/me")).json()["account"] is None
    r = await Member(mailing.url).http.post(confirm_url,
                                            json={"token": token, "password": "third pass 3"})
    assert (r.status_code, r.json()["error"]["code"]) == (400, "bad_token")  # used once
    assert await client.get(reset_key(uid)) is None
    assert (await Member(mailing.url).try_log_in(name, PW)).status_code == 401
    await Member(mailing.url).log_in(name, "new password 2")
    await client.aclose()
    for c in (a, other, guest):
        await c.close()


async def test_no_reset_mail_for_an_unknown_name_or_an_unconfirmed_address(mailing, smtp):
    inbox, _ = smtp
    m = Member(mailing.url)
    name, address = unique("uc"), f"{unique('uc')}@example.org"
    await m.sign_up(name, email=address)  # never confirmed
    before = refusals(mailing, "no confirmed address")
    for who in (name, unique("nobody")):
        r = await Member(mailing.url).http.post("/api/account/password-reset",
                                                json={"username": who})
        assert r.status_code == 202 and r.json() == {"requested": True}
    await until(lambda: refusals(mailing, "no confirmed address") == before + 2,
                what="both resets refused")
    assert resets(inbox, address) == []
    assert len(inbox.confirmations(address)) == 1  # only the sign-up's confirmation
    await m.close()


async def test_a_new_password_spends_a_pending_reset_link(mailing, smtp):
    inbox, _ = smtp
    a = Member(mailing.url)
    name, address = unique("sp"), f"{unique('sp')}@example.org"
    await a.sign_up(name, email=address)
    await confirm(inbox, a, address)
    r = await a.http.post("/api/account/password-reset", json={"username": name})
    assert r.status_code == 202
    [token] = await _reset_arrives(inbox, address)
    assert (await _change(a, PW, "changed pass 4")).status_code == 200
    r = await Member(mailing.url).http.post("/api/account/password-reset/confirm",
                                            json={"token": token, "password": "evil pass 5"})
    assert (r.status_code, r.json()["error"]["code"]) == (400, "bad_token")
    await Member(mailing.url).log_in(name, "changed pass 4")
    await a.close()


@pytest.fixture
def limited(tmp_path, smtp):
    # Its own Redis: the per-address counter of the shared one holds other tests' calls.
    r = RedisProcess(tmp_path / "redis")
    s = ServerProcess(r.start(), env={**_mail_env(smtp[1]),
                                      "CARDTABLE_PASSWORD_RESETS_PER_HOUR": "2"}).start()
    yield s
    s.stop()
    r.stop()


async def test_reset_requests_are_limited_per_address(limited):
    m = Member(limited.url)
    for _ in range(2):
        r = await m.http.post("/api/account/password-reset", json={"username": unique()})
        assert r.status_code == 202
    r = await m.http.post("/api/account/password-reset", json={"username": unique()})
    assert (r.status_code, r.json()["error"]["code"]) == (429, "rate_limited")
    await m.close()


async def test_a_banned_account_gets_no_reset_and_its_link_changes_nothing(
        mailing, smtp, mail_redis):
    # Found by an attack on the ban: a banned account reset its password, got a session
    # cookie and claimed a guest's seat with the reset's ``seats``.
    inbox, _ = smtp
    a = Member(mailing.url)
    name, address = unique("bn"), f"{unique('bn')}@example.org"
    await a.sign_up(name, email=address)
    await confirm(inbox, a, address)
    guest = Member(mailing.url)
    r = await guest.http.post("/api/account/password-reset", json={"username": name})
    assert r.status_code == 202
    [token] = await _reset_arrives(inbox, address)  # mailed before the ban
    client = aioredis.from_url(mail_redis)
    try:
        await client.hset(account_key(a.account["id"]), "banned", "spam")
    finally:
        await client.aclose()
    r = await guest.http.post("/api/account/password-reset/confirm",
                              json={"token": token, "password": "new password 3"})
    assert (r.status_code, r.json()["error"]["code"]) == (403, "banned")
    assert "set-cookie" not in r.headers
    r = await Member(mailing.url).try_log_in(name, "new password 3")  # not set
    assert (r.status_code, r.json()["error"]["code"]) == (401, "bad_login")
    before = refusals(mailing, "banned")
    r = await guest.http.post("/api/account/password-reset", json={"username": name})
    assert r.status_code == 202  # the same answer as for anyone: it tells nothing
    await until(lambda: refusals(mailing, "banned") == before + 1,
                what="the reset of a banned account refused")
    assert len(resets(inbox, address)) == 1
    for m in (a, guest):
        await m.close()
