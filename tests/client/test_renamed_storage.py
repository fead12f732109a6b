"""The service's rename in the browser: what a browser saved under the former `einauge.*`
localStorage keys (seats, creator tokens, name, settings) is moved to `cardtable.*` on the
first page load, so a player keeps the seat they held before; the page is titled Cardtable;
and the lobby's first game is the server's default game (`GET /api/games`), not a game the
client assumes."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Browser, expect

from tests.client.conftest import api, bot_table, failed_load
from tests.conftest import ServerProcess

STORAGE = ("() => Object.fromEntries(Object.keys(localStorage)"
           ".map((k) => [k, localStorage.getItem(k)]))")


# The bare /healthz document has no icon link: the browser asks for /favicon.ico (none).
@pytest.mark.page_errors(failed_load(404, "/favicon.ico"))
def test_a_seat_saved_under_the_former_keys_is_moved_and_still_held(
        browser: Browser, web: ServerProcess) -> None:
    tid, seat = bot_table(web, "einauge", bots=1, kind="random", name="Old Anna")
    made = api(web, "POST", "/api/tables", json={"game": "keltis", "seats": 2})
    ctx = browser.new_context(viewport={"width": 1366, "height": 900}, locale="en-US")
    page = ctx.new_page()
    page.goto(web.url + "/healthz")  # the site's origin, before any page script has run
    old = {f"einauge.seat.{tid}": json.dumps(seat), f"einauge.owner.{made['id']}":
           json.dumps(made["owner_token"]), "einauge.name": json.dumps("Old Anna"),
           "einauge.pace": json.dumps("off"),
           # Saved under both names (the new one wins): the old one only disappears.
           "einauge.lang": json.dumps("de"), "cardtable.lang": json.dumps("en")}
    page.evaluate("(entries) => { for (const [k, v] of Object.entries(entries)) "
                  "localStorage.setItem(k, v); }", old)

    page.goto(f"{web.url}/table/{tid}")
    expect(page.get_by_test_id("board")).to_be_visible()
    page.wait_for_function("() => window.__cardtable?.seat() === 0")
    expect(page.get_by_test_id("player-0").locator(".pname")).to_have_text("Old Anna (you)")
    stored = page.evaluate(STORAGE)
    assert not [k for k in stored if k.startswith("einauge.")], stored
    assert json.loads(stored[f"cardtable.seat.{tid}"]) == seat
    assert json.loads(stored[f"cardtable.owner.{made['id']}"]) == made["owner_token"]
    assert json.loads(stored["cardtable.name"]) == "Old Anna"
    assert json.loads(stored["cardtable.pace"]) == "off"
    assert json.loads(stored["cardtable.lang"]) == "en"

    # Another load finds nothing left to move and keeps the seat.
    page.reload()
    page.wait_for_function("() => window.__cardtable?.seat() === 0")
    assert page.evaluate(STORAGE) == stored
    ctx.close()


def test_the_page_is_cardtable_and_the_lobby_starts_at_the_server_s_default_game(
        browser: Browser, web: ServerProcess) -> None:
    default = api(web, "GET", "/api/games")["default"]
    ctx = browser.new_context(viewport={"width": 1366, "height": 900}, locale="en-US")
    page = ctx.new_page()
    page.goto(web.url + "/")
    expect(page).to_have_title("Cardtable")
    expect(page.get_by_test_id("game-select")).to_have_value(default)
    expect(page.get_by_test_id("howto-steps")).to_have_attribute("data-game", default)
    page.goto(web.url + "/rules")
    expect(page.get_by_test_id("rules-page")).to_have_attribute("data-game", default)
    ctx.close()
