"""Notification mails (server/accounts/notify.py, server/accounts/mail.py) through a real
local SMTP server
(aiosmtpd): an async table sends one mail to the right address when the turn changes and
when the game ends; a live table, an opted-out account and a service without SMTP send
none."""

from __future__ import annotations

import email
import email.utils
import re
import threading
from collections.abc import Iterator

import jsonpatch
import pytest
from aiosmtpd.controller import Controller

from server.accounts.mail import Mailer
from server.config import Settings
from server.store.embedded import free_port
from tests.conftest import ServerProcess
from tests.server.client import Member, Seats, Socket, ended, unique
from tests.waiting import logged, until


class Inbox:
    """aiosmtpd handler keeping every message that arrives."""

    def __init__(self) -> None:
        self.mails: list[tuple[list[str], email.message.Message]] = []
        self.lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope):
        with self.lock:
            self.mails.append((list(envelope.rcpt_tos),
                               email.message_from_bytes(envelope.original_content)))
        return "250 OK"

    def to(self, address: str) -> list[email.message.Message]:
        """The game mails (turn, end) to ``address``: not its confirmation mails."""
        with self.lock:
            return [m for rcpt, m in self.mails
                    if address in rcpt and m["Subject"] != CONFIRM_SUBJECT]

    def confirmations(self, address: str) -> list[email.message.Message]:
        with self.lock:
            return [m for rcpt, m in self.mails
                    if address in rcpt and m["Subject"] == CONFIRM_SUBJECT]


CONFIRM_SUBJECT = "Confirm your e-mail address"


async def confirm(inbox: Inbox, m: Member, address: str) -> None:
    """Open the link of the confirmation mail sent to ``address`` (as its owner would)."""
    await until(lambda: inbox.confirmations(address), what=f"a confirmation to {address}")
    text = inbox.confirmations(address)[-1].get_payload(decode=True).decode()
    link = re.search(r"https://einauge\.example(/api/account/verify\?token=\S+)", text)
    assert link, text
    r = await m.http.get(link.group(1))
    assert r.status_code == 200 and r.json() == {"verified": address}, r.text


@pytest.fixture(scope="module")
def smtp() -> Iterator[tuple[Inbox, int]]:
    inbox = Inbox()
    port = free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    yield inbox, port
    controller.stop()


@pytest.fixture(scope="module")
def mailing(redis_url, smtp) -> Iterator[ServerProcess]:
    s = ServerProcess(redis_url, env={"CARDTABLE_SMTP_HOST": "127.0.0.1",
                                      "CARDTABLE_SMTP_PORT": str(smtp[1]),
                                      "CARDTABLE_PUBLIC_URL": "https://einauge.example",
                                      # the notifier's "mail not wanted" lines
                                      "CARDTABLE_LOG_LEVEL": "info"}).start()
    yield s
    s.stop()


async def _table(server: ServerProcess, inbox: Inbox, kind: str,
                 opt_out: tuple[dict[str, bool], dict[str, bool]] = ({}, {})):
    """A two-seat table of two accounts with addresses, with time control ``kind``
    (``async``: a day per move; ``live``: the slow preset); ``opt_out``: the settings
    each of the two accounts changes before the game."""
    anna, ben = Member(server.url), Member(server.url)
    a_mail, b_mail = f"{unique('a')}@example.org", f"{unique('b')}@example.org"
    await anna.sign_up(unique("anna"), email=a_mail)
    await ben.sign_up(unique("ben"), email=b_mail)
    await confirm(inbox, anna, a_mail)
    await confirm(inbox, ben, b_mail)
    for m, changes in zip((anna, ben), opt_out, strict=True):
        if changes:
            r = await m.http.patch("/api/me/settings", json=changes)
            assert r.status_code == 200, r.text
    control = {"kind": "async", "days": 1} if kind == "async" else {"kind": kind,
                                                                     "preset": "slow"}
    table = await anna.create(2, time_control=control)
    assert table["time_control"]["kind"] == kind
    tid = table["id"]
    tokens = [(await anna.join(tid, "x", token=table["owner_token"]))["token"],
              (await ben.join(tid, "x"))["token"]]
    await anna.start(tid)
    return tid, tokens, (a_mail, b_mail), (anna, ben)


async def test_an_async_turn_change_sends_one_mail_to_the_player_to_move(mailing, smtp):
    inbox, _ = smtp
    tid, tokens, (a_mail, b_mail), members = await _table(mailing, inbox, "async")
    view = (await members[0].get(f"/api/tables/{tid}/view")).json()
    first = view["current_seat"]
    addresses = (a_mail, b_mail)
    await until(lambda: len(inbox.to(addresses[first])) == 1)
    mail = inbox.to(addresses[first])[0]
    assert mail["Subject"] == f"Your turn at {tid}"
    assert f"https://einauge.example/table/{tid}" in mail.get_payload()
    assert inbox.to(addresses[1 - first]) == []
    # The player to move plays until the turn passes to the other seat.
    # Only the player to move is at the table: a connected seat gets no turn mail.
    mover = await Socket(mailing.ws_url, tid).connect(token=tokens[first])
    seats = Seats([mover], seed=3)
    while (await members[0].get(f"/api/tables/{tid}/view")).json()["current_seat"] == first:
        await seats.step()
    other = addresses[1 - first]
    await until(lambda: len(inbox.to(other)) == 1, what=f"the turn mail to {other}")
    assert inbox.to(other)[0]["To"] == other
    # Each mail has its own Message-ID (the From is noreply@localhost here) and a Date.
    turn_mails = [inbox.to(a)[0] for a in addresses]
    assert len({m["Message-ID"] for m in turn_mails}) == 2
    assert all(re.fullmatch(r"<[^<>@\s]+@localhost>", m["Message-ID"]) for m in turn_mails)
    assert all(email.utils.parsedate_to_datetime(m["Date"]).utcoffset() is not None
               for m in turn_mails)
    # Play on to the end: each player gets one "ended" mail, sent seat by seat after
    # every turn mail (a second turn mail within the hour is not sent: the mail pause).
    await mover.close()
    sockets = [await Socket(mailing.ws_url, tid).connect(token=t) for t in tokens]
    seats = Seats(sockets, seed=4, prefix="e")  # the mover's ids s1, s2, … are taken
    while not any(ended(f) for s in sockets for f in s.frames):
        await seats.step(10)
    for address in addresses:
        await until(lambda a=address: any("ended" in m["Subject"] for m in inbox.to(a)),
                    what=f"the end mail to {address}")
    # The end mails came after every turn mail of the game: one turn mail each, no more.
    for address in addresses:
        assert [m["Subject"] for m in inbox.to(address)] == [
            f"Your turn at {tid}", f"The game at {tid} has ended"]
    for s in sockets:
        await s.close()
    for m in members:
        await m.close()


async def test_a_live_table_and_an_opted_out_account_get_no_mail(mailing, smtp):
    """Anna opted out of the end mail, Ben of the turn mails. Each of them comes to move
    while away from the table whoever the deal lets start (the one to move first is away
    at the start; that one then plays until the other, away, is to move), so every run
    sends Anna a turn mail and asks for Ben's, and at the end asks for Anna's end mail
    and sends Ben's. Each opt-out is seen being applied (its log line), then the inbox
    checked."""
    inbox, _ = smtp
    _, _, (a_mail, b_mail), members = await _table(mailing, inbox, "live")
    # The live table's first turn was dealt with at its start, before the requests below.
    tid, tokens, (c_mail, d_mail), more = await _table(
        mailing, inbox, "async", opt_out=({"email_end": False}, {"email_turn": False}))
    first = (await more[0].get(f"/api/tables/{tid}/view")).json()["current_seat"]
    # The first to move is dealt with while away, before connecting.
    if first == 0:
        await until(lambda: inbox.to(c_mail), what="Anna's turn mail at the start")
    else:
        await until(logged(mailing, rf"mail not wanted.*table={tid}.*what=turn:\d+:1"),
                    what="Ben's first turn, opted out")
    mover = await Socket(mailing.ws_url, tid).connect(token=tokens[first])
    seats = Seats([mover], seed=2)
    while (await more[0].get(f"/api/tables/{tid}/view")).json()["current_seat"] == first:
        await seats.step()
    await mover.close()
    # Anna's turn mail came, and Ben's turn, while he was away, was not mailed.
    await until(lambda: len(inbox.to(c_mail)) == 1, what="Anna's turn mail")
    assert inbox.to(c_mail)[0]["Subject"] == f"Your turn at {tid}"
    await until(logged(mailing, rf"mail not wanted.*table={tid}.*what=turn:\d+:1"),
                what="Ben's turn, opted out")
    # Both at the table now (no turn mails while there): the game to its end.
    sockets = [await Socket(mailing.ws_url, tid).connect(token=t) for t in tokens]
    seats = Seats(sockets, seed=5, prefix="e")
    while not any(ended(f) for s in sockets for f in s.frames):
        await seats.step(10)
    # The end mails go seat by seat: Anna's (seat 0) is refused before Ben's is sent.
    await until(lambda: inbox.to(d_mail), what="Ben's end mail")
    assert logged_once(mailing, rf"mail not wanted.*table={tid}.*what=end:0")
    assert [m["Subject"] for m in inbox.to(d_mail)] == [f"The game at {tid} has ended"]
    assert [m["Subject"] for m in inbox.to(c_mail)] == [f"Your turn at {tid}"]
    assert inbox.to(a_mail) == [] and inbox.to(b_mail) == []
    for s in sockets:
        await s.close()
    for m in (*members, *more):
        await m.close()


def logged_once(server: ServerProcess, pattern: str) -> bool:
    """``server`` logged exactly one line matching ``pattern``."""
    rx = re.compile(pattern)
    return sum(bool(rx.search(line)) for line in server.read_log().splitlines()) == 1


async def test_without_an_smtp_server_nothing_is_sent(smtp):
    inbox, port = smtp
    before = len(inbox.mails)
    mailer = Mailer(Settings(smtp_port=port))  # no CARDTABLE_SMTP_HOST
    assert not mailer.enabled
    assert await mailer.send("someone@example.org", "s", "t") is False
    configured = Mailer(Settings(smtp_host="127.0.0.1", smtp_port=port))
    assert await configured.send("someone@example.org", "s", "t") is True
    assert len(inbox.mails) == before + 1


# The attack these tests guard against (found in a security review):
# B2 findings on notification mails (server/accounts/notify.py, server/accounts/mail.py)
# through a real
# local SMTP server: the address of an account is never verified, so anyone can have the
# service mail a stranger on every turn of an async game against a bot; and a table name
# with a line break makes every mail of that table fail (``EmailMessage`` refuses the
# Subject header) after its once-only mark was set, so its players are never told.


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
                                      "CARDTABLE_PUBLIC_URL": "https://einauge.example",
                                      "CARDTABLE_LOG_LEVEL": "info"}).start()
    yield s
    s.stop()


def turns_begun(sock: Socket, seat: int) -> int:
    """How often ``seat`` became the seat to move in the views ``sock`` was sent (its
    welcome, then each append's patch): the server asks for one turn mail each time."""
    view: dict = {}
    begun = 0
    for f in sock.frames:
        if f["t"] == "welcome":
            view = f["view"] or {}
        elif f["t"] == "deltas":
            before = view.get("current_seat")
            view = jsonpatch.apply_patch(view, f["patch"])
            begun += view.get("current_seat") == seat and before != seat
    return begun


def _log_count(server: ServerProcess, event: str, table_id: str) -> int:
    """Lines of ``server``'s log with ``event`` for table ``table_id``."""
    return sum(event in line and f"table={table_id}" in line
               for line in server.read_log().splitlines())


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
    tid, _ = await _async_table_with_a_bot(b2_mailing, mallory)
    # The barrier: the service decided on that turn's mail (and sends none afterwards).
    await until(lambda: _log_count(b2_mailing, "mail not sent: address not confirmed", tid),
                what="the decision on the turn mail")
    got = len(inbox.to(stranger))
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
    got = await until(lambda: len(inbox.to(address)), what="the mail")
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
    # The bot has answered the last action: the seat is prompted again (or the game is
    # over), so no turn begins until it moves and the count below is final.
    await seats.prompted()
    # The barrier: the service decided on the mail of every turn the seat began (one
    # decision each, none sent later), counted from the views the socket was sent.
    begun = turns_begun(sock, 0)
    assert begun >= 2
    await until(lambda: _log_count(b2_mailing, "no turn mail: at the table", tid) == begun,
                timeout=30.0, what=f"the decisions on {begun} turn mails")
    got = len(inbox.to(address))
    await sock.close()
    await busy.close()
    assert got == 0, f"{got} turn mails in {turns} actions while connected to the table"


async def test_an_invitation_by_name_is_mailed_only_to_who_opted_in(mailing, smtp):
    """``email_invite`` is off by default: Cara, who left it so, gets no mail; Ben, who
    turned it on, gets one with the link that seats him (server/http/invitations.py)."""
    inbox, _ = smtp
    anna, ben, cara = Member(mailing.url), Member(mailing.url), Member(mailing.url)
    names = [unique("ianna"), unique("iben"), unique("icara")]
    b_mail, c_mail = f"{unique('ib')}@example.org", f"{unique('ic')}@example.org"
    try:
        await anna.sign_up(names[0])
        await ben.sign_up(names[1], email=b_mail)
        await cara.sign_up(names[2], email=c_mail)
        await confirm(inbox, ben, b_mail)
        await confirm(inbox, cara, c_mail)
        me = (await cara.get("/api/me")).json()["account"]
        assert me["settings"]["email_invite"] is False
        r = await ben.http.patch("/api/me/settings", json={"email_invite": True})
        assert r.status_code == 200, r.text
        r = await anna.http.post("/api/tables", json={"seats": 3, "name": "Friday game"})
        assert r.status_code == 201, r.text
        table = r.json()
        tid = table["id"]
        await anna.join(tid, "x", token=table["owner_token"])
        for who in (names[2], names[1]):
            r = await anna.http.post(f"/api/tables/{tid}/invitations", json={"name": who})
            assert r.status_code == 201, r.text
        # Each answer came after its mail was handed to the SMTP server (or not at all).
        assert inbox.to(c_mail) == []
        (mail,) = inbox.to(b_mail)
        assert mail["Subject"] == f"{names[0]} invites you to Friday game"
        assert f"https://einauge.example/table/{tid}#invited" in mail.get_payload()
    finally:
        for m in (anna, ben, cara):
            await m.close()
