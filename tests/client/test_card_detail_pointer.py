"""A card's detail does not open under the pointer after a click (Einauge's
games/einauge/carddetail.js): the pointer rests where it clicked, the board redraws under
it (a move, a bot's move, a language switch) and the browser reports the card now under
it as hovered. Only a hover the person makes by moving the pointer opens a detail."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.client.conftest import bot_table, seated_page
from tests.conftest import ServerProcess

# Counts the pointer's arrivals on a card element; a listener on the window runs after the
# page's own (on the document), so a timer it sets fires after any timer those set with a
# delay no longer than its own (timers of equal or shorter delay run in the order set).
RECORD_OVERS = """() => { window.__overs = 0;
  window.addEventListener('pointerover', (e) => {
    if (e.target.closest && e.target.closest('.card[data-card]')) {
      window.__overs += 1;
      window.__settled = new Promise((r) => setTimeout(r, 1000));
    } }); }"""


@pytest.fixture
def page(browser: Browser, web: ServerProcess) -> Iterator[Page]:
    tid, seat = bot_table(web, "einauge", bots=2)
    ctx, p = seated_page(browser, web, tid, seat)
    yield p
    ctx.close()


def test_a_redraw_under_the_resting_pointer_opens_no_detail(page: Page) -> None:
    expect(page.get_by_test_id("turn-banner")).to_have_attribute("data-my-turn", "1",
                                                                 timeout=60_000)
    box = page.get_by_test_id("card-detail")
    card = page.locator("[data-testid=display] .card[data-card]").first
    shown = card.get_attribute("data-card")
    # A click opens the card's detail, a second click closes it; the pointer stays.
    card.click(position={"x": 10, "y": 10})
    expect(box).to_be_visible()
    card.click(position={"x": 10, "y": 10})
    expect(box).to_be_hidden()
    page.evaluate(RECORD_OVERS)
    # The board redraws twice (here by switching the language to German and back; a move
    # redraws it the same way): a new element of the card lies under the pointer, which
    # has not moved.
    for lang, turn in (("de", "Du bist am Zug"), ("en", "Your turn")):
        page.evaluate(f"() => document.querySelector('[data-testid=lang-{lang}]').click()")
        expect(page.get_by_test_id("turn-banner")).to_contain_text(turn)
    page.wait_for_function("() => window.__overs > 0")
    page.evaluate("() => window.__settled")
    expect(box).to_be_hidden()
    # Moving the pointer is a hover: off the card and back onto it opens its detail.
    page.mouse.move(2, 2)
    page.locator(f"[data-testid=display] .card[data-card='{shown}']").hover(
        position={"x": 12, "y": 12})
    expect(box).to_be_visible()
    expect(box).to_have_attribute("data-card", shown or "")
