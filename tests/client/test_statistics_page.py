"""Statistics in the browser: a profile shows the games, wins and rating curve of the
account's public games and head-to-head; "My games" holds its searchable history with
its private games; the filters narrow it; the profile passes axe."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

from playwright.sync_api import Browser, Page, expect

from tests.client.test_accounts import log_in
from tests.client.test_axe import violations
from tests.conftest import ServerProcess
from tests.server.client import Member, unique
from tests.server.test_statistics import _game


def two_accounts_play(web: ServerProcess) -> dict[str, Any]:
    """Two new accounts play a rated public game and a private one (with a random bot), in
    a thread of its own (the sync browser API holds this thread's event loop)."""
    out: dict[str, Any] = {}

    async def setup() -> None:
        names = [unique("sa"), unique("sb")]
        first, second = Member(web.url), Member(web.url)
        await first.sign_up(names[0])
        await second.sign_up(names[1])
        out["public"] = await _game(web.ws_url, first, second, private=False, seed=11)
        out["private"] = await _game(web.ws_url, first, second, private=True, seed=12)
        out["names"] = names
        guest = Member(web.url)  # as a stranger sees them: the public game only
        out["stats"] = (await guest.get(f"/api/players/{names[0]}/statistics")).json()
        for m in (first, second, guest):
            await m.close()

    errors: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(setup())
        except BaseException as e:  # handed to the test's thread
            errors.append(e)

    worker = threading.Thread(target=run)
    worker.start()
    worker.join()
    assert not errors, errors
    return out


def new_page(browser: Browser) -> Page:
    return browser.new_context(viewport={"width": 1280, "height": 900},
                               locale="en-US").new_page()


def test_profile_statistics_and_the_history_on_my_games(browser: Browser,
                                                        web: ServerProcess) -> None:
    played = two_accounts_play(web)
    me, other = played["names"]
    h2h = {h["name"]: h for h in played["stats"]["head_to_head"]}[other]

    guest = new_page(browser)
    guest.goto(f"{web.url}/players/{me}")
    # A stranger sees the public game only.
    expect(guest.get_by_test_id("stats-played-einauge")).to_have_text("1")
    expect(guest.get_by_test_id("rating-chart-einauge").locator("circle")).to_have_count(1)
    expect(guest.get_by_test_id(f"h2h-ahead-{other}")).to_have_text(str(h2h["ahead"]))
    expect(guest.get_by_test_id("history-total")).to_have_text("1 game")
    expect(guest.get_by_test_id(f"finished-{played['public']}")).to_be_visible()
    found = violations(guest)
    assert found == [], json.dumps(found, indent=1)
    guest.context.close()
    # On a phone the tables scroll inside their panels: the page keeps the screen's width.
    phone = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US",
                                is_mobile=True, has_touch=True).new_page()
    phone.goto(f"{web.url}/players/{me}")
    expect(phone.get_by_test_id("stats-played-einauge")).to_have_text("1")
    expect(phone.get_by_test_id("history-total")).to_have_text("1 game")
    assert phone.evaluate("() => document.documentElement.scrollWidth") <= 390
    phone.context.close()

    page = new_page(browser)
    log_in(page, web, me)
    page.wait_for_url("**/my-games")
    history = page.get_by_test_id("history")
    expect(page.get_by_test_id("stats-played-einauge")).to_have_text("2")
    expect(history.get_by_test_id("history-total")).to_have_text("2 games")
    expect(history.get_by_test_id(f"finished-{played['private']}")).to_be_visible()
    # The filters narrow the list, and widen it again when cleared.
    page.get_by_test_id("history-opponent").fill(unique("nobody"))
    expect(history.get_by_test_id("history-total")).to_have_text("0 games")
    page.get_by_test_id("history-opponent").fill(other.upper())
    expect(history.get_by_test_id("history-total")).to_have_text("2 games")
    page.get_by_test_id("history-game").select_option("keltis")
    expect(history.get_by_test_id("history-total")).to_have_text("0 games")
    page.get_by_test_id("history-game").select_option("einauge")
    expect(history.get_by_test_id("history-total")).to_have_text("2 games")
    # German: the page speaks it, the numbers stay.
    page.get_by_test_id("lang-de").click()
    expect(page.get_by_test_id("history")).to_contain_text("Partienverlauf")
    expect(page.get_by_test_id("history-total")).to_have_text("2 Partien")
    page.context.close()
