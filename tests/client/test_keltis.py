"""Keltis in the browser, only by clicking: a person creates a Keltis table in the lobby
(the form generated from the game's seat range and options schema), a second person takes
a seat through the link, a bot fills the third seat, both people play the whole game with
the action buttons of their prompts, a spectator watches without ever seeing a hand, and
the replay viewer shows the finished game."""

from __future__ import annotations

from playwright.sync_api import Browser, Page, expect

from tests.client.conftest import api, fold, shot
from tests.conftest import ServerProcess

ACT = "[data-testid^=act-]:not([disabled])"


def ended(page: Page) -> bool:
    return page.get_by_test_id("turn-banner").get_attribute("data-phase") == "ended"


def test_keltis_game_by_clicking(browser: Browser, web: ServerProcess) -> None:
    contexts = [browser.new_context(viewport={"width": 1366, "height": 900}, locale="en-US")
                for _ in range(3)]
    anna, ben, spec = (c.new_page() for c in contexts)
    anna.goto(web.url + "/")
    anna.get_by_test_id("game-select").select_option("keltis")
    # The seat choice is Keltis's range (2-4), and Keltis has no options to offer.
    expect(anna.get_by_test_id("seats-select").locator("option")).to_have_count(3)
    expect(anna.get_by_test_id("end-rule-select")).to_have_count(0)
    anna.get_by_test_id("seats-select").select_option("3")
    anna.get_by_test_id("table-name").fill("Keltis in the browser")
    anna.get_by_test_id("create-table").click()
    anna.wait_for_url("**/table/*")
    table_id = anna.url.rstrip("/").rsplit("/", 1)[1]
    anna.get_by_test_id("name-input").fill("Anna")
    anna.get_by_test_id("take-seat-0").click()
    expect(anna.get_by_test_id("leave-seat")).to_be_visible()
    anna.get_by_test_id("bot-kind-2").select_option("greedy")
    anna.get_by_test_id("add-bot-2").click()
    expect(anna.get_by_test_id("remove-bot-2")).to_be_visible()

    ben.goto(f"{web.url}/table/{table_id}")
    ben.get_by_test_id("name-input").fill("Ben")
    ben.get_by_test_id("take-seat-1").click()
    expect(ben.get_by_test_id("leave-seat")).to_be_visible()
    expect(anna.get_by_test_id("start")).to_be_enabled()
    anna.get_by_test_id("start").click()
    for p in (anna, ben):
        expect(p.get_by_test_id("board")).to_have_attribute("data-game", "keltis")
        expect(p.get_by_test_id("my-hand").locator(".kcard")).to_have_count(8)

    spec.goto(f"{web.url}/table/{table_id}")
    expect(spec.get_by_test_id("spectator-badge")).to_be_visible()
    expect(spec.get_by_test_id("board")).to_be_visible()

    clicks = 0
    checks = 0
    while not (ended(anna) and ended(ben)):
        acted = False
        for p in (anna, ben):
            buttons = p.locator(ACT)
            if not ended(p) and buttons.count():
                buttons.first.click()
                clicks += 1
                acted = True
        if not acted:
            anna.wait_for_timeout(30)
        if clicks % 20 == 0:
            # The spectator's view holds no hand before the end, and the page shows none.
            v = spec.evaluate("() => window.__einauge.view()")
            if v and v.get("players") and v["phase"] != "ended":
                assert all(p["hand"] is None for p in v["players"])
                assert spec.get_by_test_id("my-hand").count() == 0
                checks += 1
        assert clicks < 2000
    assert clicks > 40 and checks > 0
    expect(spec.get_by_test_id("turn-banner")).to_have_attribute("data-phase", "ended")
    expect(spec.get_by_test_id("score-table")).to_be_visible()
    expect(spec.locator("[data-testid^=final-hand-]")).to_have_count(3)  # revealed at the end
    # What each page shows is the server's view for it.
    server_view = api(web, "GET", f"/api/tables/{table_id}/view")
    assert spec.evaluate("() => window.__einauge.view()") == server_view
    deltas = api(web, "GET", f"/api/tables/{table_id}/deltas")["deltas"]
    assert fold(deltas, deltas[-1]["seq"]) == server_view
    shot(anna, "keltis-ended")

    spec.get_by_test_id("open-replay").click()
    spec.wait_for_url(f"**/replay/{table_id}")
    expect(spec.get_by_test_id("board")).to_have_attribute("data-game", "keltis")
    spec.get_by_test_id("replay-last").click()
    expect(spec.get_by_test_id("replay-winners")).to_be_visible()
    assert spec.evaluate("() => window.__einauge.view()") == server_view
    for c in contexts:
        c.close()
