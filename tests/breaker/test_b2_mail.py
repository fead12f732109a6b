"""B2 findings on notification mails (server/accounts/notify.py, server/accounts/mail.py)
through a real
local SMTP server: the address of an account is never verified, so anyone can have the
service mail a stranger on every turn of an async game against a bot; and a table name
with a line break makes every mail of that table fail (``EmailMessage`` refuses the
Subject header) after its once-only mark was set, so its players are never told."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from aiosmtpd.controller import Controller

from server.accounts.mail import Mailer
from server.config import Settings
from server.store.embedded import free_port
from tests.conftest import ServerProcess
from tests.server.client import Member, Seats, Socket, unique
from tests.server.test_notify import Inbox, confirm


@pytest.fixture(scope="module")
def b2_smtp() -> Iterator[tuple[Inbox, int]]:
    inbox = Inbox()
    port = free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    yield inbox, port
    controller.stop()


@pytest.fixture(scope="module")
def b2_mailing(redis_url, b2_smtp) -> Iterator[ServerProcess]:
    s = ServerProcess(redis_url, env={"CARDTABLE_SMTP_HOST": "127.0.0.1",
                                      "CARDTABLE_SMTP_PORT": str(b2_smtp[1]),
                                      "CARDTABLE_PUBLIC_URL": "https://einauge.example"}).start()
    yield s
    s.stop()


async def _arrived(inbox: Inbox, address: str, timeout: float = 5.0) -> int:
    for _ in range(int(timeout / 0.05)):  # bounded
        if inbox.to(address):
            break
        await asyncio.sleep(0.05)
    return len(inbox.to(address))


async def _async_table_with_a_bot(server: ServerProcess, m: Member, name: str = "",
                                  start: bool = True) -> tuple[str, str]:
    r = await m.http.post("/api/tables", json={"seats": 2, "name": name, "options": {},
                                               "time_control": {"kind": "async", "days": 1}})
    assert r.status_code == 201, r.text
    table = r.json()
    m.owners[table["id"]] = table["owner_token"]
    token = (await m.join(table["id"], "x", token=table["owner_token"]))["token"]
    await m.bot(table["id"], 1)
    if start:
        await m.start(table["id"])
    return table["id"], token


async def test_no_mail_goes_to_an_address_that_was_never_verified(b2_mailing, b2_smtp):
    inbox, _ = b2_smtp
    stranger = f"{unique('stranger')}@example.org"
    mallory = Member(b2_mailing.url)
    await mallory.sign_up(unique("mallory"), email=stranger)
    await _async_table_with_a_bot(b2_mailing, mallory)
    got = await _arrived(inbox, stranger)
    await mallory.close()
    # Only the confirmation mail may go to it (``Inbox.to`` counts the game mails).
    assert len(inbox.confirmations(stranger)) == 1
    assert got == 0, f"{got} mail(s) sent to {stranger}, an address nobody confirmed"


async def test_a_line_break_in_the_table_name_does_not_lose_the_turn_mail(b2_mailing,
                                                                         b2_smtp):
    # Table names with control characters are refused at creation now (server/ws/protocol.py),
    # so the mailer is tested on its own with such a subject, and the refusal end to end.
    inbox, port = b2_smtp
    address = f"{unique('anna')}@example.org"
    anna = Member(b2_mailing.url)
    await anna.sign_up(unique("anna"), email=address)
    r = await anna.http.post("/api/tables", json={
        "seats": 2, "name": "Sunday\nBcc: x@evil.example", "options": {},
        "time_control": {"kind": "async", "days": 1}})
    await anna.close()
    assert r.status_code == 400, r.text
    mailer = Mailer(Settings(smtp_host="127.0.0.1", smtp_port=port))
    assert await mailer.send(address, "Your turn at Sunday\nBcc: x@evil.example\u2028!",
                             "text")
    got = await _arrived(inbox, address)
    assert got == 1, "the mail with a line break in its subject was lost"
    mail = inbox.to(address)[0]
    assert mail["Bcc"] is None and mail["Subject"] == "Your turn at Sunday Bcc: x@evil.example !"


async def test_a_connected_player_is_not_mailed_on_every_turn(b2_mailing, b2_smtp):
    inbox, _ = b2_smtp
    address = f"{unique('busy')}@example.org"
    busy = Member(b2_mailing.url)
    await busy.sign_up(unique("busy"), email=address)
    await confirm(inbox, busy, address)
    tid, token = await _async_table_with_a_bot(b2_mailing, busy, start=False)
    # Connected before the start: every turn of the seat comes while it is online.
    sock = await Socket(b2_mailing.ws_url, tid).connect(token=token)
    await sock.wait(lambda f: f["t"] == "presence" and f["seats"][0]["state"] == "online")
    await busy.start(tid)
    seats = Seats([sock], seed=5)
    turns = 0
    for _ in range(8):  # bounded: 8 of its own actions, the bot moving in between
        await seats.step()
        turns += 1
    # No event marks a mail not sent: a mail of those turns would have arrived within 1 s.
    got = await _arrived(inbox, address, timeout=1.0)
    await sock.close()
    await busy.close()
    assert got == 0, f"{got} turn mails in {turns} actions while connected to the table"
