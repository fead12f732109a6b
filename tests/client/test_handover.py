"""The table's creator hands the seats of players who left to bots, during the game."""

from __future__ import annotations

from playwright.sync_api import Browser, Dialog, Page, expect

from tests.client.conftest import api, shot
from tests.conftest import ServerProcess


def sit(browser: Browser, url: str, name: str, seat: int) -> Page:
    """A friend's browser that opens the shared link and takes ``seat``."""
    page = browser.new_context(locale="en-US").new_page()
    page.goto(url)
    page.get_by_test_id("name-input").fill(name)
    page.get_by_test_id(f"take-seat-{seat}").click()
    expect(page.get_by_test_id("leave-seat")).to_be_visible()
    return page


def test_the_owner_hands_the_seats_of_players_who_left_to_bots(browser: Browser,
                                                               web: ServerProcess) -> None:
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

    # Only the creator's browser offers the handover; both seats are people's.
    expect(owner.get_by_test_id("owner-panel")).to_be_visible()
    expect(owner.get_by_test_id("owner-seat-0")).to_contain_text("Anna")
    expect(owner.get_by_test_id("owner-seat-1")).to_contain_text("Ben")
    expect(ben.get_by_test_id("owner-panel")).to_have_count(0)
    shot(owner, "owner-handover-panel")

    anna.context.close()  # Anna left the game
    asked: list[str] = []

    def answer(dialog: Dialog) -> None:
        asked.append(dialog.message)
        dialog.accept()

    owner.on("dialog", answer)
    owner.get_by_test_id("hand-to-bot-0").click()
    expect(owner.get_by_test_id("owner-seat-0")).to_have_count(0)
    assert asked == ["Hand Anna's seat to a bot for the rest of the game?"]
    seats = api(web, "GET", f"/api/tables/{table_id}")["seats"]
    assert [s["kind"] for s in seats] == ["bot", "human"]

    # Ben's seat still plays by his own clicks until he goes too; then a bot ends the game.
    ben.context.close()
    owner.get_by_test_id("hand-to-bot-1").click()
    expect(owner.get_by_test_id("owner-panel")).to_have_count(0)
    expect(owner.get_by_test_id("turn-banner")).to_have_attribute("data-phase", "ended",
                                                                  timeout=60_000)
    summary = api(web, "GET", f"/api/tables/{table_id}")
    assert summary["status"] == "ended"
    assert [s["kind"] for s in summary["seats"]] == ["bot", "bot"]
    owner.context.close()
