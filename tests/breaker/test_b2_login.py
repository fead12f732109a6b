"""B2 findings on login (server/accounts/accounts.py): the per-account lockout answers differently
for a name that exists than for one that does not (username enumeration, despite the
"one answer for both" of ``bad_login``), and anyone anywhere can lock any account out,
its owner included, with five wrong passwords."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import RedisProcess, ServerProcess
from tests.server.client import Member, unique


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
