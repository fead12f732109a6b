"""What a server process tells its operator (docs/operations.md, "Logs and metrics"): JSON
log lines that name their process (uvicorn's too), one access line per HTTP request with
the route's template, the audit lines of accounts, the HTTP, login, sign-up and mail
metrics, ``/metrics`` only to ``CARDTABLE_METRICS_FROM``, mails with ``Date`` and
``Message-ID``, the confirmation link's page, and the warning about a loopback public URL.

A real server process on its own Redis (its failed-login counters are this module's),
a real SMTP server (aiosmtpd); clients bound to loopback addresses of their own
(127.0.0.x) so that each test's lockouts and log lines are its own.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import re
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from aiosmtpd.controller import Controller

from server import metrics
from server.accounts.mail import Mailer
from server.config import Settings, public_url_note
from server.store.embedded import free_port
from tests.conftest import RedisProcess, ServerProcess
from tests.server.client import Member, unique
from tests.server.test_notify import CONFIRM_SUBJECT, Inbox
from tests.waiting import until

PW = "correct horse 1"
PUBLIC = "https://cards.example"


@pytest.fixture(scope="module")
def smtp() -> Iterator[tuple[Inbox, int]]:
    inbox = Inbox()
    port = free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    yield inbox, port
    controller.stop()


@pytest.fixture(scope="module")
def own_store(tmp_path_factory) -> Iterator[str]:
    r = RedisProcess(tmp_path_factory.mktemp("signals-redis"))
    yield r.start()
    r.stop()


@pytest.fixture(scope="module")
def observed(own_store, smtp) -> Iterator[ServerProcess]:
    """JSON lines at level info; two failed logins of a name lock it out, four of an
    address; the metrics for 127.0.0.1 alone."""
    s = ServerProcess(own_store, env={
        "CARDTABLE_LOG_JSON": "true", "CARDTABLE_LOG_LEVEL": "info",
        "CARDTABLE_SMTP_HOST": "127.0.0.1", "CARDTABLE_SMTP_PORT": str(smtp[1]),
        "CARDTABLE_SMTP_FROM": "Cardtable <noreply@cards.example>",
        "CARDTABLE_PUBLIC_URL": PUBLIC, "CARDTABLE_METRICS_FROM": "127.0.0.1",
        "CARDTABLE_LOGIN_FAILURES_PER_ACCOUNT": "2",
        "CARDTABLE_LOGIN_FAILURES_PER_ADDRESS": "4"}).start()
    yield s
    s.stop()


def records(server: ServerProcess) -> list[dict[str, Any]]:
    """Every JSON line of the server's log so far."""
    out = []
    for line in server.read_log().splitlines():
        if line.startswith("{"):
            out.append(json.loads(line))
    return out


async def logged(server: ServerProcess, count: int = 1, timeout: float = 10.0,
                 **fields: Any) -> list[dict[str, Any]]:
    """The log's records with all of ``fields``, once there are ``count`` of them (a line
    is written once its request is answered: it may come a moment after the answer)."""
    deadline = time.monotonic() + timeout
    while True:
        found = [r for r in records(server) if all(r.get(k) == v for k, v in fields.items())]
        if len(found) >= count or time.monotonic() > deadline:
            return found
        await asyncio.sleep(0.02)  # polling: the pause between two reads of the log


def metric(text: str, name: str, **labels: str) -> float:
    """The sample ``name{labels}`` of a metrics text (0 when absent)."""
    want = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
    for line in text.splitlines():
        sample, _, value = line.rpartition(" ")
        if not sample or sample.startswith("#"):
            continue
        base, _, rest = sample.partition("{")
        got = ",".join(sorted(rest.rstrip("}").split(","))) if rest else ""
        if base == name and got == want:
            return float(value)
    return 0.0


async def scrape(server: ServerProcess) -> str:
    async with httpx.AsyncClient(timeout=10) as http:
        r = await http.get(server.url + "/metrics")
    assert r.status_code == 200, r.text
    return r.text


def test_every_line_is_json_and_names_its_process(observed: ServerProcess) -> None:
    lines = [ln for ln in observed.read_log().splitlines()
             if ln and not ln.startswith("cardtable serve:")]  # the command's own notes
    parsed = [json.loads(ln) for ln in lines]  # fails on any line that is not JSON
    pid = observed.proc.pid if observed.proc else None
    assert {(r["pid"], r["process"]) for r in parsed} == {(pid, f"serve:{observed.port}")}
    uvicorn = [r for r in parsed if r["component"] == "uvicorn.error"]
    assert any(r["event"] == "Application startup complete." and r["level"] == "info"
               for r in uvicorn), uvicorn
    assert any(r["event"] == "service ready" for r in parsed)
    assert not [r for r in parsed if r["event"] == "public_url_is_local"]


async def test_each_request_has_an_access_line_and_counts_by_route(
        observed: ServerProcess) -> None:
    before = await scrape(observed)
    table_id = unique("t")
    async with httpx.AsyncClient(base_url=observed.url, timeout=10,
                                 transport=httpx.AsyncHTTPTransport(
                                     local_address="127.0.0.21")) as http:
        for _ in range(2):  # the second counted as the first (the metrics' children kept)
            r = await http.get(f"/api/tables/{table_id}?token=not-logged")
            assert r.status_code == 404, r.text
            r = await http.get("/no/such/page")
            assert r.status_code == 404
    lines = await logged(observed, component="access", client="127.0.0.21", count=4)
    assert [(r["method"], r["route"], r["status"]) for r in lines] == [
        ("GET", "/api/tables/{id}", 404), ("GET", "unmatched", 404)] * 2
    assert all(r["event"] == "request" and isinstance(r["duration_ms"], float)
               and r["duration_ms"] >= 0 for r in lines)
    assert table_id not in observed.read_log() and "not-logged" not in observed.read_log()
    after = await scrape(observed)
    for route in ("/api/tables/{id}", "unmatched"):
        labels = {"method": "GET", "route": route, "status": "404"}
        assert metric(after, "cardtable_http_requests_total", **labels) - metric(
            before, "cardtable_http_requests_total", **labels) == 2, route
    assert metric(after, "cardtable_http_request_seconds_count", route="/api/tables/{id}") \
        - metric(before, "cardtable_http_request_seconds_count", route="/api/tables/{id}") == 2


async def test_metrics_answer_only_the_configured_addresses(observed: ServerProcess) -> None:
    async with httpx.AsyncClient(timeout=10) as http:
        assert (await http.get(observed.url + "/metrics")).status_code == 200
    async with httpx.AsyncClient(timeout=10, transport=httpx.AsyncHTTPTransport(
            local_address="127.0.0.22")) as http:
        r = await http.get(observed.url + "/metrics")
        assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden", r.text
        assert (await http.get(observed.url + "/healthz")).status_code == 200


async def test_accounts_leave_audit_lines_and_metrics_but_no_secret(
        observed: ServerProcess) -> None:
    before = await scrape(observed)
    owner, guesser = Member(observed.url, "127.0.0.23"), Member(observed.url, "127.0.0.24")
    name = unique("au")
    await owner.sign_up(name, PW)
    signup = await logged(observed, component="audit", event="signup", client="127.0.0.23")
    assert len(signup) == 1 and signup[0]["level"] == "info"
    uid = signup[0]["uid"]
    for _ in range(2):  # CARDTABLE_LOGIN_FAILURES_PER_ACCOUNT
        assert (await guesser.try_log_in(name, "wrong password")).status_code == 401
    r = await guesser.try_log_in(name, PW)
    assert r.status_code == 429 and r.json()["error"]["code"] == "locked_out", r.text
    await owner.log_in(name, PW)  # another address: not locked out
    got = await logged(observed, component="audit", event="login", client="127.0.0.24",
                       count=3)
    assert [(r["result"], r["uid"], r["method"]) for r in got] == [
        ("failed", uid, "password"), ("failed", uid, "password"),
        ("locked_out", uid, "password")]
    lockout = await logged(observed, component="audit", event="lockout", client="127.0.0.24")
    assert [(r["scope"], r["uid"], r["level"]) for r in lockout] == [("name", uid, "warning")]
    ok = await logged(observed, component="audit", event="login", client="127.0.0.23")
    assert [(r["result"], r["uid"]) for r in ok] == [("ok", uid)]
    r = await owner.http.request("DELETE", "/api/me", json={"password": PW})
    assert r.status_code == 200, r.text
    gone = await logged(observed, component="audit", event="account_deleted", uid=uid)
    assert [g["client"] for g in gone] == ["127.0.0.23"]
    after = await scrape(observed)
    for result, n in (("ok", 1), ("failed", 2), ("locked_out", 1)):
        assert metric(after, "cardtable_logins_total", result=result) - metric(
            before, "cardtable_logins_total", result=result) == n, result
    assert metric(after, "cardtable_lockouts_total", scope="name") - metric(
        before, "cardtable_lockouts_total", scope="name") == 1
    assert metric(after, "cardtable_signups_total") - metric(
        before, "cardtable_signups_total") == 1
    log = observed.read_log()
    assert PW not in log and "wrong password" not in log and name not in log
    assert owner.csrf is not None and owner.csrf not in log
    for m in (owner, guesser):
        await m.close()


async def test_an_address_lockout_has_its_line(observed: ServerProcess) -> None:
    guesser = Member(observed.url, "127.0.0.25")
    for _ in range(4):  # CARDTABLE_LOGIN_FAILURES_PER_ADDRESS, each for another name
        assert (await guesser.try_log_in(unique("n"), "wrong password")).status_code == 401
    lockout = await logged(observed, component="audit", event="lockout", client="127.0.0.25")
    assert [(r["scope"], r["uid"]) for r in lockout] == [("address", None)]
    await guesser.close()


async def confirmation(inbox: Inbox, address: str) -> Any:
    await until(lambda: inbox.confirmations(address), 10, f"a confirmation mail to {address}")
    mails = inbox.confirmations(address)
    assert len(mails) == 1, mails
    return mails[0]


async def test_a_mail_has_date_and_message_id_and_its_link_a_page(
        observed: ServerProcess, smtp: tuple[Inbox, int]) -> None:
    inbox = smtp[0]
    before = await scrape(observed)
    m = Member(observed.url, "127.0.0.26")
    address = f"{unique('m')}@example.org"
    sent_at = time.time()
    await m.sign_up(unique("ml"), PW, email=address)
    mail = await confirmation(inbox, address)
    assert mail["Subject"] == CONFIRM_SUBJECT
    date = email.utils.parsedate_to_datetime(mail["Date"])
    assert date.utcoffset() is not None and abs(date.timestamp() - sent_at) < 60, mail["Date"]
    assert re.fullmatch(r"<[^<>@\s]+@cards\.example>", mail["Message-ID"]), mail["Message-ID"]
    text = mail.get_payload(decode=True).decode()
    link = re.search(re.escape(PUBLIC) + r"(/api/account/verify\?token=(\S+))", text)
    assert link, text
    page = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
    r = await m.http.get(link.group(1), headers=page)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html"), r.text
    assert "Address confirmed" in r.text and address in r.text
    r = await m.http.get(link.group(1), headers=page)  # used: the page says so
    assert r.status_code == 400 and r.headers["content-type"].startswith("text/html"), r.text
    assert "Link expired" in r.text and "unknown, used or expired" in r.text
    r = await m.http.get(link.group(1))  # a client that asks for no HTML: the API's JSON
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_token", r.text
    after = await scrape(observed)
    assert metric(after, "cardtable_mails_total", result="sent") - metric(
        before, "cardtable_mails_total", result="sent") == 1
    assert link.group(2) not in observed.read_log()  # the token is no log's business
    await m.close()


async def test_a_mail_the_server_refuses_counts_as_failed() -> None:
    port = free_port()  # nothing listens there: the connection is refused
    mailer = Mailer(Settings(smtp_host="127.0.0.1", smtp_port=port, smtp_timeout=5))
    before = metrics.MAILS_FAILED._value.get()
    assert await mailer.send("x@example.org", "subject", "text") is False
    assert metrics.MAILS_FAILED._value.get() - before == 1


def test_a_public_url_on_loopback_is_warned_of_when_listening_beyond(own_store) -> None:
    s = ServerProcess(own_store, env={"CARDTABLE_HOST": "0.0.0.0", "CARDTABLE_LOG_JSON": "1"})
    s.start()
    try:
        notes = [r for r in records(s) if r["event"] == "public_url_is_local"]
        assert [(r["level"], r["component"]) for r in notes] == [("warning", "config")]
        assert "http://localhost:8000" in notes[0]["detail"] and "0.0.0.0" in notes[0]["detail"]
    finally:
        s.stop()


@pytest.mark.parametrize(("host", "public", "warned"), [
    ("0.0.0.0", "http://localhost:8000", True),
    ("::", "http://127.0.0.1:8000", True),
    ("10.1.2.3", "http://[::1]:8000/", True),
    ("0.0.0.0", "http://cards.localhost", True),
    ("0.0.0.0", "https://cards.example", False),
    ("127.0.0.1", "http://localhost:8000", False),
    ("localhost", "http://localhost:8000", False),
    ("::1", "http://localhost:8000", False),
])
def test_the_public_url_note_names_a_loopback_url_served_beyond_loopback(
        host: str, public: str, warned: bool) -> None:
    note = public_url_note(Settings(host=host, public_url=public))
    assert (note is not None) == warned
    if note is not None:
        assert public in note and host in note
