"""The table's creator hands the seats of players who left to bots, during the game."""

from __future__ import annotations

from playwright.sync_api import Browser, Dialog, Page, expect

from engine.verify import verify_record
from tests.client.conftest import api, shot
from tests.conftest import ServerProcess


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

    # Only the creator's (the host's) browser offers the handover; both seats are people's.
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
    assert [(s["name"], s["kind"]) for s in seats] == [("Anna", "bot"), ("Ben", "human")]
    # The seat keeps the name the game was dealt to, and says who plays it now.
    for page in (owner, ben):
        expect(page.get_by_test_id("player-0")).to_contain_text("Anna (now Random bot)")
    expect(ben.get_by_test_id("spectator-badge")).to_have_count(0)

    # Ben is still there when his seat is handed over too: he is told, and watches on.
    owner.get_by_test_id("hand-to-bot-1").click()
    expect(owner.get_by_test_id("owner-panel")).to_have_count(0)
    expect(ben.get_by_test_id("toast")).to_have_text(
        "A bot plays your seat now; you can take it back.")
    expect(ben.get_by_test_id("take-back")).to_be_visible()  # issue 12: he may return
    expect(ben.get_by_test_id("spectator-badge")).to_be_visible()
    expect(ben.locator("[data-testid^=act-]:not([disabled])")).to_have_count(0)
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
    assert ben.evaluate("(id) => localStorage.getItem('einauge.seat.' + id)", table_id)
    # The handovers are in the stream and the record.
    assert [(c["seat"], c["reason"]) for c in record["seat_changes"]] == [(0, "handover"),
                                                                         (1, "handover")]
    owner.context.close()
    ben.context.close()
