"""Moderation in the browser (client-web/src/report.js, moderation.js): three Chromium
contexts on a real server and Redis. Rea reports a chat line of Tom's at their table; the
moderator (made one with ``cardtable admin grant``) sees the report with the chat around
it and mutes Tom, whose next chat line is refused; Rea reports Tom's seat, the moderator
suspends him: Tom's socket is closed (his page says so and stays closed) and Rea sees his
seat away, as the table's absence rules show a player who left. A third account reports
Tom from his profile."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.client.conftest import TABLE_ID, failed_load
from tests.client.test_accounts import new_page, sign_up
from tests.client.test_admin_page import cardtable_admin
from tests.client.test_axe import violations
from tests.conftest import ServerProcess
from tests.server.client import unique


@pytest.fixture(scope="module")
def graced(redis_url: str, client_dist: Path) -> Iterator[ServerProcess]:
    """A server serving the client with a reload grace of 1 s (a closed seat shows away
    one second after its socket closed)."""
    s = ServerProcess(redis_url, env={"CARDTABLE_STATIC_DIR": str(client_dist),
                                      "CARDTABLE_PRESENCE_GRACE": "1"}).start()
    yield s
    s.stop()


def say(page: Page, text: str) -> None:
    page.get_by_test_id("chat-input").fill(text)
    page.get_by_test_id("chat-input").press("Enter")


# Tom opens the table before he sits: his account holds no seat there yet (404); the
# profile's second report is refused while the first is open (409).
@pytest.mark.page_errors(failed_load(404, f"/api/me/tables/{TABLE_ID}"),
                         failed_load(409, "/api/reports"))
def test_a_report_reaches_the_moderator_who_mutes_then_suspends(
        browser: Browser, graced: ServerProcess, redis_url: str) -> None:
    web = graced
    rea_name, tom_name, mod_name = unique("rea"), unique("tom"), unique("mod")
    rea, tom, mod = new_page(browser), new_page(browser), new_page(browser)
    for page, name in ((rea, rea_name), (tom, tom_name), (mod, mod_name)):
        sign_up(page, web, name)
    cardtable_admin(redis_url, "grant", mod_name, "moderator")

    rea.goto(web.url + "/")
    rea.get_by_test_id("seats-select").select_option("2")
    rea.get_by_test_id("time-control-select").select_option("slow")
    rea.get_by_test_id("create-table").click()
    rea.wait_for_url("**/table/*")
    tid = rea.url.rstrip("/").rsplit("/", 1)[1]
    rea.get_by_test_id("take-seat-0").click()
    tom.goto(f"{web.url}/table/{tid}")
    tom.get_by_test_id("take-seat-1").click()
    expect(rea.get_by_test_id("seat-name-1")).to_have_text(tom_name)
    rea.get_by_test_id("start").click()
    for page in (rea, tom):
        expect(page.get_by_test_id("board")).to_be_visible()

    # Tom says something rude; Rea reports that very line.
    say(tom, "you all play like bots")
    line = rea.get_by_test_id("chat-msg").filter(has_text="you all play like bots")
    expect(line).to_be_visible()
    expect(tom.get_by_test_id("chat-msg").filter(has_text="you all play like bots")
           .locator("[data-testid^=report-msg-]")).to_have_count(0)  # not one's own line
    line.locator("[data-testid^=report-msg-]").click()
    expect(rea.get_by_test_id("report-dialog")).to_contain_text(f"Report {tom_name}")
    expect(rea.get_by_test_id("report-quote")).to_have_text("you all play like bots")
    assert violations(rea) == []  # the dialog over the table passes axe
    rea.get_by_test_id("report-reason").select_option("abuse")
    rea.get_by_test_id("report-text").fill("rude in the chat")
    rea.get_by_test_id("report-send").click()
    expect(rea.get_by_test_id("report-done")).to_contain_text(tom_name)
    rea.get_by_test_id("report-close").click()

    # The moderator sees it with the chat around the line, and mutes Tom.
    mod.goto(web.url + "/")
    mod.get_by_test_id("nav-moderation").click()
    mod.wait_for_url("**/moderation")
    item = mod.locator(f"[data-testid^=mod-report-][data-target='{tom_name}']")
    expect(item).to_have_count(1)
    expect(item).to_contain_text(f"{rea_name} reported {tom_name}")
    expect(item).to_contain_text("Reason: Abusive or offensive — rude in the chat")
    expect(item.get_by_test_id("mod-chat-reported")).to_contain_text("you all play like bots")
    expect(item.locator("[data-testid^=mod-table-]")).to_have_text(tid)
    assert violations(mod) == []  # the moderation page with its queue passes axe
    item.locator(f"[data-testid$='-{tom_name}'][data-testid^=mod-mute-]").click()
    expect(mod.get_by_test_id("mod-done")).to_contain_text(f"mute · {tom_name}")
    expect(item).to_have_count(0)  # resolved: off the queue

    # Tom's chat is refused now; Rea never sees the line.
    say(tom, "can I still talk")
    expect(tom.get_by_test_id("chat-error")).to_have_text("Your account may not chat for now.")
    say(rea, "the game goes on")
    expect(tom.get_by_test_id("chat-msg").filter(has_text="the game goes on")).to_be_visible()
    expect(rea.get_by_test_id("chat-msg").filter(has_text="can I still talk")).to_have_count(0)

    # From the profile: Rea's report is resolved, so a new one may go; she reports the
    # seat instead, and the profile's dialog then says the report is still open.
    rea.get_by_test_id("report-seat-1").click()
    rea.get_by_test_id("report-reason").select_option("stalling")
    rea.get_by_test_id("report-send").click()
    expect(rea.get_by_test_id("report-done")).to_be_visible()
    rea.get_by_test_id("report-close").click()
    profile = new_page(browser)
    sign_up(profile, web, unique("fan"))
    profile.goto(f"{web.url}/players/{tom_name}")
    profile.get_by_test_id("report-profile").click()
    profile.get_by_test_id("report-send").click()
    expect(profile.get_by_test_id("report-done")).to_be_visible()
    profile.get_by_test_id("report-close").click()
    profile.get_by_test_id("report-profile").click()
    profile.get_by_test_id("report-send").click()
    expect(profile.get_by_test_id("report-error")).to_have_text(
        "Your earlier report of this player is still open.")
    profile.context.close()

    # The moderator suspends Tom from the seat's report: his socket closes for good,
    # and Rea sees his seat away.
    mod.reload()
    item = mod.locator(f"[data-testid^=mod-report-][data-target='{tom_name}']").filter(
        has_text="Stalling or leaving games")
    expect(item).to_contain_text("seat 2")
    expect(item.locator("[data-testid^=mod-muted-]")).to_be_visible()
    item.locator(f"[data-testid$='-{tom_name}'][data-testid^=mod-suspend-]").click()
    expect(mod.get_by_test_id("mod-done")).to_contain_text(f"suspend · {tom_name}")
    expect(tom.get_by_test_id("conn-status")).to_have_attribute("data-state", "suspended")
    expect(tom.get_by_test_id("conn-status")).to_contain_text("Your account is suspended")
    expect(rea.get_by_test_id("presence-text-1")).to_contain_text("away")
    expect(rea.get_by_test_id("presence-text-0")).to_have_text("online")
    # Tom reloads: the seat stays closed to him.
    tom.reload()
    expect(tom.get_by_test_id("conn-status")).to_have_attribute("data-state", "suspended")
    audit = mod.request.get(web.url + "/api/admin/audit?count=200").json()["entries"]
    mine = [e["action"] for e in audit if e["detail"].get("username") == tom_name]
    assert mine[:2] == ["suspend", "mute"]
    for page in (rea, tom, mod):
        page.context.close()
