"""The table's creator hands the seats of players who left to bots, during the game:
only seats whose player is gone (server/play/seat_rules.py; the servers' clock is moved
through ``CARDTABLE_CLOCK_FILE``, never slept)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from engine.verify import verify_record
from tests.client.conftest import api, shot
from tests.conftest import ServerProcess
from tests.server.client import ClockFile


@pytest.fixture
def clock(tmp_path: Path) -> ClockFile:
    return ClockFile(tmp_path / "clock")


@pytest.fixture
def web(redis_url: str, client_dist: Path, clock: ClockFile) -> Iterator[ServerProcess]:
    """A server serving the client with the test clock (a handover needs the seat's
    player gone for ``claim_after``, 60 s at a table without a clock)."""
    s = ServerProcess(redis_url, env={**clock.env, "CARDTABLE_STATIC_DIR": str(client_dist),
                                      "CARDTABLE_BOT_DELAY": "0.2"}).start()
    yield s
    s.stop()


def sit(browser: Browser, url: str, name: str, seat: int) -> Page:
    """A friend's browser that opens the shared link and takes ``seat``, after first
    trying without a name: the complaint goes once the seat is taken."""
    page = browser.new_context(locale="en-US").new_page()
    page.goto(url)
    page.get_by_test_id(f"take-seat-{seat}").click()
    expect(page.get_by_test_id("toast")).to_have_text("Please enter your name (1–32 characters).")
    page.get_by_test_id("name-input").fill(name)
    page.get_by_test_id(f"take-seat-{seat}").click()
    expect(page.get_by_test_id("leave-seat")).to_be_visible()
    expect(page.get_by_test_id("toast")).to_have_text("")
    return page


def test_the_owner_hands_the_seats_of_players_who_left_to_bots(
        browser: Browser, web: ServerProcess, clock: ClockFile) -> None:
    owner = browser.new_context(locale="en-US").new_page()
    owner.goto(web.url + "/")
    owner.get_by_test_id("table-name").fill("Handover table")
    owner.get_by_test_id("seats-select").select_option("2")
    owner.get_by_test_id("create-table").click()
    owner.wait_for_url("**/table/*")
    table_id = owner.url.rsplit("/", 1)[1]
    anna = sit(browser, owner.url, "Anna", 0)
    ben = sit(browser, owner.url, "Ben", 1)
    expect(owner.get_by_test_id("start")).to_be_enabled()
    owner.get_by_test_id("start").click()
    expect(owner.get_by_test_id("board")).to_be_visible()
    expect(ben.get_by_test_id("board")).to_be_visible()
    # Both players are here: nothing to hand over (a present rival's seat is not the
    # host's to give away).
    expect(owner.get_by_test_id("presence-1")).to_have_attribute("data-state", "online")
    expect(owner.get_by_test_id("owner-panel")).to_have_count(0)

    anna.context.close()  # Anna left the game, on her turn (Einauge's first is seat 0's)
    expect(owner.get_by_test_id("presence-0")).to_have_attribute("data-state", "away")
    clock.set(61)  # gone after the 60 s of "none"
    # Only the creator's (the host's) browser offers the handover, of the gone seat only.
    expect(owner.get_by_test_id("owner-panel")).to_be_visible()
    expect(owner.get_by_test_id("owner-seat-0")).to_contain_text("Anna")
    expect(owner.get_by_test_id("owner-seat-1")).to_have_count(0)
    expect(ben.get_by_test_id("owner-panel")).to_have_count(0)
    shot(owner, "owner-handover-panel")

    # Ben leaves too; once he is gone his seat is handed over, and when he comes back
    # he is told, may take it back, and watches on meanwhile. Anna's seat is handed over
    # only after that: until then her turn holds the game, which two bots would otherwise
    # play to its end (some 10 s) before a slow page of Ben's could show a running table.
    ben_ctx = ben.context
    ben.close()
    expect(owner.get_by_test_id("presence-1")).to_have_attribute("data-state", "away")
    clock.set(125)
    expect(owner.get_by_test_id("owner-seat-1")).to_contain_text("Ben")
    owner.get_by_test_id("hand-to-bot-1").click()
    owner.get_by_test_id("confirm-yes").click()
    expect(owner.get_by_test_id("owner-seat-1")).to_have_count(0)
    seats = api(web, "GET", f"/api/tables/{table_id}")["seats"]
    assert [(s["name"], s["kind"]) for s in seats] == [("Anna", "human"), ("Ben", "bot")]
    ben = ben_ctx.new_page()
    ben.goto(owner.url)
    expect(ben.get_by_test_id("toast")).to_have_text(
        "A bot plays your seat now; you can take it back.")
    expect(ben.get_by_test_id("take-back")).to_be_visible()  # issue 12: he may return
    # Still this seat's person, not a spectator (the newcomer's finding): a bot plays it.
    expect(ben.get_by_test_id("me-bot-badge")).to_be_visible()
    expect(ben.get_by_test_id("spectator-badge")).to_have_count(0)
    expect(ben.locator("[data-testid^=act-]:not([disabled])")).to_have_count(0)

    owner.get_by_test_id("hand-to-bot-0").click()  # asked in the page's own dialog
    expect(owner.get_by_test_id("confirm-text")).to_have_text(
        "Hand Anna's seat to a bot for the rest of the game?")
    owner.get_by_test_id("confirm-yes").click()
    expect(owner.get_by_test_id("owner-panel")).to_have_count(0)
    seats = api(web, "GET", f"/api/tables/{table_id}")["seats"]
    assert [(s["name"], s["kind"]) for s in seats] == [("Anna", "bot"), ("Ben", "bot")]
    # The seat keeps the name the game was dealt to, and says who plays it now.
    for page in (owner, ben):
        expect(page.get_by_test_id("player-0")).to_contain_text("Anna (now Random bot)")
    expect(ben.get_by_test_id("spectator-badge")).to_have_count(0)
    for page in (owner, ben):
        expect(page.get_by_test_id("turn-banner")).to_have_attribute("data-phase", "ended",
                                                                     timeout=60_000)
    summary = api(web, "GET", f"/api/tables/{table_id}")
    assert summary["status"] == "ended"
    assert [(s["name"], s["kind"]) for s in summary["seats"]] == [("Anna", "bot"),
                                                                  ("Ben", "bot")]
    # The record names the players the game was dealt to, and verifies (chain included).
    record = api(web, "GET", f"/api/tables/{table_id}/record")
    assert record["players"] == ["Anna", "Ben"]
    assert verify_record(record).ok
    # Ben's browser keeps the seat's token (a seat handed to a bot may be taken back).
    assert ben.evaluate("(id) => localStorage.getItem('cardtable.seat.' + id)", table_id)
    # The handovers are in the stream and the record.
    assert [(c["seat"], c["reason"]) for c in record["seat_changes"]] == [(1, "handover"),
                                                                         (0, "handover")]
    owner.context.close()
    ben_ctx.close()
