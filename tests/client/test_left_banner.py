"""At a table without a clock nothing moves on for a player who left: the turn banner says
that the player to move has left and since when, and once that player is gone
(``claim_after``, server/play/seat_rules.py) offers the handover to the host and the claim
to the other players right there, confirmed in the page's own dialog. The servers' clock
is moved through ``CARDTABLE_CLOCK_FILE``, never slept."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Dialog, expect

from tests.client.conftest import api, shot
from tests.client.test_handover import sit
from tests.conftest import ServerProcess
from tests.server.client import ClockFile


@pytest.fixture
def clock(tmp_path: Path) -> ClockFile:
    return ClockFile(tmp_path / "clock")


@pytest.fixture
def web(redis_url: str, client_dist: Path, clock: ClockFile) -> Iterator[ServerProcess]:
    s = ServerProcess(redis_url, env={**clock.env, "CARDTABLE_STATIC_DIR": str(client_dist),
                                      "CARDTABLE_BOT_DELAY": "0.2"}).start()
    yield s
    s.stop()


def test_the_banner_says_the_player_to_move_left_and_offers_the_handover(
        browser: Browser, web: ServerProcess, clock: ClockFile) -> None:
    owner = browser.new_context(locale="en-US", viewport={"width": 1366, "height": 900}).new_page()
    browser_dialogs: list[str] = []

    def refuse(dialog: Dialog) -> None:  # the browser's own dialog: never expected
        browser_dialogs.append(dialog.message)
        dialog.dismiss()

    owner.on("dialog", refuse)
    owner.goto(web.url + "/")
    owner.get_by_test_id("table-name").fill("Left table")
    owner.get_by_test_id("seats-select").select_option("2")
    # Only a private table may be without a clock (a public one always has one).
    owner.get_by_test_id("private-table").check()
    owner.get_by_test_id("create-table").click()
    owner.wait_for_url("**/table/**")
    link = owner.get_by_test_id("share-link").input_value()
    table_id = owner.url.split("/table/", 1)[1].split("#", 1)[0]
    key = {"X-Table-Key": link.split("#k=", 1)[1]}
    anna = sit(browser, link, "Anna", 0)
    ben = sit(browser, link, "Ben", 1)
    ben.on("dialog", refuse)
    owner.get_by_test_id("start").click()
    # Einauge's first turn is seat 0's (engine/einauge/evolve.py): Anna's.
    for page in (owner, ben):
        expect(page.get_by_test_id("turn-text")).to_contain_text("Anna")
        expect(page.get_by_test_id("presence-0")).to_have_attribute("data-state", "online")
        expect(page.get_by_test_id("left-notice")).to_have_count(0)

    anna.context.close()  # Anna leaves on her turn
    for page in (owner, ben):
        expect(page.get_by_test_id("left-text")).to_contain_text("Anna has left the table (")
        expect(page.get_by_test_id("left-notice")).to_have_attribute("data-state", "away")
        expect(page.get_by_test_id("left-handover-later")).to_have_text(
            "Once 1 min away, the seat can be handed to a bot here.")
    expect(owner.get_by_test_id("banner-hand-to-bot")).to_have_count(0)
    expect(ben.get_by_test_id("banner-claim")).to_have_count(0)

    clock.set(61)  # gone after the 60 s of "none"
    expect(owner.get_by_test_id("left-notice")).to_have_attribute("data-state", "gone")
    expect(ben.get_by_test_id("left-notice")).to_have_attribute("data-state", "gone")
    # The host is offered the handover, Ben (a player) the claim, both in the banner.
    expect(owner.get_by_test_id("turn-banner").get_by_test_id("banner-hand-to-bot")).to_be_visible()
    expect(ben.get_by_test_id("turn-banner").get_by_test_id("banner-claim")).to_be_visible()
    expect(ben.get_by_test_id("banner-hand-to-bot")).to_have_count(0)
    shot(owner, "table-left-banner", full_page=False)

    # Cancelled: nothing changes, the offer stays.
    owner.get_by_test_id("banner-hand-to-bot").click()
    expect(owner.get_by_test_id("confirm-text")).to_have_text(
        "Hand Anna's seat to a bot for the rest of the game?")
    expect(owner.get_by_test_id("confirm-cancel")).to_be_focused()
    owner.get_by_test_id("confirm-cancel").click()
    expect(owner.get_by_test_id("confirm-dialog")).to_have_count(0)
    seats = api(web, "GET", f"/api/tables/{table_id}", headers=key)["seats"]
    assert [s["kind"] for s in seats] == ["human", "human"]
    expect(owner.get_by_test_id("banner-hand-to-bot")).to_be_visible()

    owner.get_by_test_id("banner-hand-to-bot").click()
    shot(owner, "table-confirm-dialog", full_page=False)
    owner.get_by_test_id("confirm-yes").click()
    for page in (owner, ben):
        expect(page.get_by_test_id("player-0")).to_contain_text("Anna (now Random bot)")
        expect(page.get_by_test_id("left-notice")).to_have_count(0)
    seats = api(web, "GET", f"/api/tables/{table_id}", headers=key)["seats"]
    assert [(s["name"], s["kind"]) for s in seats] == [("Anna", "bot"), ("Ben", "human")]
    assert browser_dialogs == []
    owner.context.close()
    ben.context.close()
