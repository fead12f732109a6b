"""Friends and blocking in the browser (client-web/src/friends.js, docs/protocol.md §1,
"Invitations by name"; several Chromium contexts, a real server and Redis): a friend
invited by name is told in the page it has open, clicks and is seated; an account blocked
on its profile page is kept from the blocker's table and is not paired with it by "Play
now"; its chat line never shows in the blocker's page, live or after a reload."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.client.conftest import TABLE_ID, failed_load
from tests.conftest import ServerProcess
from tests.server.client import unique

PASSWORD = "correct horse 1"
SEATED = ("() => window.__cardtable && window.__cardtable.page === 'table' && "
          "window.__cardtable.seat() !== null")


@pytest.fixture(scope="module")
def friends_web(redis_url: str, client_dist: Path) -> Iterator[ServerProcess]:
    """A server of the client whose pairing passes run often."""
    s = ServerProcess(redis_url, env={"CARDTABLE_STATIC_DIR": str(client_dist),
                                      "CARDTABLE_SEEK_SCAN": "0.2"}).start()
    yield s
    s.stop()


def signed_up(browser: Browser, web: ServerProcess, prefix: str) -> tuple[Page, str]:
    """A new browser context with a new account signed up through the account page."""
    ctx = browser.new_context(viewport={"width": 1366, "height": 900}, locale="en-US")
    page = ctx.new_page()
    name = unique(prefix)
    page.goto(web.url + "/account")
    page.get_by_test_id("to-signup").click()
    page.get_by_test_id("username").fill(name)
    page.get_by_test_id("password").fill(PASSWORD)
    page.get_by_test_id("sign-up").click()
    page.wait_for_url("**/my-games")
    expect(page.get_by_test_id("nav-account")).to_have_text(name)
    return page, name


def account_call(page: Page, method: str, path: str, body: object = None) -> dict:
    """A call with the page's session (its cookie and CSRF token), as the client makes."""
    return page.evaluate("""async ([method, path, body]) => {
        const me = await (await fetch("/api/me")).json();
        const r = await fetch(path, { method, headers: { "Content-Type": "application/json",
            "X-CSRF-Token": me.csrf }, body: body === null ? undefined : JSON.stringify(body) });
        return { status: r.status, body: await r.json() };
    }""", [method, path, body])


def own_table(page: Page, web: ServerProcess, seats: int, name: str) -> str:
    """A public table the page's account creates (the browser keeps its owner token, as
    after the lobby's form) and sits at, at seat 0."""
    made = account_call(page, "POST", "/api/tables", {"seats": seats, "name": name})
    assert made["status"] == 201, made
    tid = made["body"]["id"]
    page.evaluate("([k, v]) => localStorage.setItem(k, v)",
                  [f"cardtable.owner.{tid}", json.dumps(made["body"]["owner_token"])])
    page.goto(f"{web.url}/table/{tid}")
    page.get_by_test_id("take-seat-0").click()
    page.wait_for_function(SEATED)
    expect(page.get_by_test_id("host-badge-0")).to_be_visible()
    return str(tid)


def chat_texts(page: Page) -> list[str]:
    return page.get_by_test_id("chat-log").get_by_test_id("chat-text").all_inner_texts()


@pytest.mark.page_errors(
    # Cara's and Ben's pages ask for a seat their account keeps there: none.
    failed_load(404, f"/api/me/tables/{TABLE_ID}"),
    failed_load(409, f"/api/tables/{TABLE_ID}/join"),  # Ben refused: blocked
    failed_load(404, f"/api/tables/{TABLE_ID}/invitations"))  # a name nobody has
def test_a_friend_invited_by_name_is_told_and_seated_a_blocked_one_kept_out(
        browser: Browser, friends_web: ServerProcess) -> None:
    anna, anna_name = signed_up(browser, friends_web, "uia")
    ben, ben_name = signed_up(browser, friends_web, "uib")
    cara, cara_name = signed_up(browser, friends_web, "uic")
    try:
        # Anna blocks Ben on his profile page.
        anna.goto(f"{friends_web.url}/players/{ben_name}")
        expect(anna.get_by_test_id("block")).to_have_text("Block")
        anna.get_by_test_id("block").click()
        expect(anna.get_by_test_id("block")).to_have_text("Unblock")
        tid = own_table(anna, friends_web, 3, "Friends only")
        # Cara is on the lobby; Anna invites her by name.
        cara.goto(friends_web.url + "/")
        anna.get_by_test_id("invite-name").fill(cara_name)
        anna.get_by_test_id("invite-send").click()
        expect(anna.get_by_test_id("invite-status")).to_have_text(f"{cara_name} is invited.")
        note = cara.get_by_test_id(f"invitation-{tid}")
        expect(note).to_contain_text(f"{anna_name} invites you to the table “Friends only”")
        cara.get_by_test_id(f"accept-invitation-{tid}").click()
        cara.wait_for_url(f"**/table/{tid}")
        cara.wait_for_function(SEATED)
        expect(cara.get_by_test_id("seat-name-1")).to_have_text(cara_name)
        expect(anna.get_by_test_id("seat-name-1")).to_have_text(cara_name)
        expect(cara.get_by_test_id(f"invitation-{tid}")).to_have_count(0)
        # Ben, blocked by Anna, is refused the free seat as a taken one (nothing tells him
        # of the block): it stays free.
        ben.goto(f"{friends_web.url}/table/{tid}")
        ben.get_by_test_id("take-seat-2").click()
        expect(ben.locator(".toast")).to_have_text("Seat is already taken.")
        expect(anna.get_by_test_id("take-seat-2")).to_have_count(0)  # Anna sits: no button
        expect(ben.get_by_test_id("take-seat-2")).to_be_visible()
        assert ben.evaluate("() => window.__cardtable.seat()") is None
        # An invitation to Ben from Anna is answered as for a name nobody has.
        anna.get_by_test_id("invite-name").fill(unique("nobody"))
        anna.get_by_test_id("invite-send").click()
        expect(anna.get_by_test_id("invite-status")).to_have_text(
            "There is no player of that name.")
        # Cara follows Anna: her "My games" shows Anna online, at the table, a link to it.
        cara.goto(f"{friends_web.url}/players/{anna_name}")
        cara.get_by_test_id("follow").click()
        expect(cara.get_by_test_id("follow")).to_have_text("Stop following")
        cara.goto(f"{friends_web.url}/my-games")
        expect(cara.get_by_test_id(f"friend-online-{anna_name}")).to_have_attribute(
            "data-online", "1")
        link = cara.get_by_test_id(f"friend-table-{tid}")
        expect(link).to_contain_text("Friends only")
        link.click()
        cara.wait_for_url(f"**/table/{tid}")
    finally:
        for p in (anna, ben, cara):
            p.context.close()


@pytest.mark.page_errors(failed_load(404, f"/api/me/tables/{TABLE_ID}"))  # Anna's, at Ben's
def test_a_blocked_account_is_not_paired_and_its_chat_is_hidden(
        browser: Browser, friends_web: ServerProcess) -> None:
    anna, _ = signed_up(browser, friends_web, "upa")
    ben, ben_name = signed_up(browser, friends_web, "upb")
    cara, cara_name = signed_up(browser, friends_web, "upc")
    try:
        anna.goto(f"{friends_web.url}/players/{ben_name}")
        anna.get_by_test_id("block").click()
        expect(anna.get_by_test_id("block")).to_have_text("Unblock")
        # Play now: Anna and Ben both wait for Loot Island with two seats, never together.
        for p in (anna, ben):
            p.goto(friends_web.url + "/")
            p.get_by_test_id("seek-seats-loot-island").select_option("2")
            p.get_by_test_id("play-now-loot-island").click()
            expect(p.get_by_test_id("seek-status")).to_contain_text("Looking for players")
        # Cara presses it too: she sits with Anna (the oldest seek); Ben goes on waiting.
        cara.goto(friends_web.url + "/")
        cara.get_by_test_id("seek-seats-loot-island").select_option("2")
        cara.get_by_test_id("play-now-loot-island").click()
        for p in (anna, cara):
            p.wait_for_url("**/table/*")
            p.wait_for_function(SEATED)
        assert anna.url == cara.url
        expect(ben.get_by_test_id("seek-status")).to_contain_text("Looking for players")
        assert "/table/" not in ben.url
        ben.get_by_test_id("seek-cancel").click()
        # Ben's own table: Anna sits there (a block keeps the blocked one out, not the
        # blocker), and she never reads Ben's chat.
        tid = own_table(ben, friends_web, 2, "Ben's table")
        anna.goto(f"{friends_web.url}/table/{tid}")
        anna.get_by_test_id("take-seat-1").click()
        anna.wait_for_function(SEATED)
        ben.get_by_test_id("chat-input").fill("hello from ben")
        ben.get_by_test_id("chat-input").press("Enter")
        # Shown in Ben's page: the server published it; Anna's next line comes after it.
        expect(ben.get_by_test_id("chat-log")).to_contain_text("hello from ben")
        anna.get_by_test_id("chat-input").fill("anna here")
        anna.get_by_test_id("chat-input").press("Enter")
        expect(ben.get_by_test_id("chat-log")).to_contain_text("anna here")
        expect(anna.get_by_test_id("chat-log")).to_contain_text("anna here")
        assert chat_texts(anna) == ["anna here"]
        assert chat_texts(ben) == ["hello from ben", "anna here"]
        # The history after a reload holds it neither.
        anna.reload()
        anna.wait_for_function(SEATED)
        expect(anna.get_by_test_id("chat-log")).to_contain_text("anna here")
        assert chat_texts(anna) == ["anna here"]
        assert cara_name  # Cara played no part here
    finally:
        for p in (anna, ben, cara):
            p.context.close()
