"""The keyboard after each action (client-web/src/table.js ``restoreFocus``, Keltis's
board redraw): a card chosen with Enter puts the focus on its first action, so the action
is at most two Tab presses from the card (it took 13: the redraw dropped the focus to the
page's start); after the action the focus is back in the hand, on the first card that
takes a key at the next prompt. The game log is a polite live region of its additions."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.client.conftest import bot_table, seated_page
from tests.conftest import ServerProcess

MY_STEP = """() => { const c = window.__cardtable?.conn, v = c && c.view;
  const b = document.querySelector('[data-testid=board]');
  return !!(c && c.prompt && c.prompt.seq === c.seq && !c.pending && v && v.phase !== 'ended'
    && v.current_seat === c.seat && window.__cardtable.shown() === c.seq && b
    && b.dataset.seq === String(c.seq) && b.dataset.prompt === '1') && v.step; }"""
FOCUSED = "() => document.activeElement ? document.activeElement.dataset.testid || '' : ''"
IN_HAND = """() => { const h = document.querySelector('[data-testid=my-hand]');
  return !!h && h.contains(document.activeElement); }"""


@pytest.fixture
def page(browser: Browser, web: ServerProcess) -> Iterator[Page]:
    tid, seat = bot_table(web, "keltis")
    ctx, p = seated_page(browser, web, tid, seat, "keltis")
    yield p
    ctx.close()


def step(page: Page) -> str:
    page.wait_for_function(MY_STEP, timeout=60_000)
    return str(page.evaluate(MY_STEP))


def tabs_to_action(page: Page, card: str) -> int:
    """Tab presses from where the focus is to an action of ``card`` (at most 20 tried)."""
    for tabs in range(21):
        focused = page.evaluate(FOCUSED)
        if focused.startswith(("act-lay-" + card, "act-discard-" + card, "act-stone-" + card)):
            return tabs
        page.keyboard.press("Tab")
    return 99


def test_keltis_a_card_to_its_action_and_back_to_the_hand_by_keyboard(page: Page) -> None:
    log = page.get_by_test_id("log")
    expect(log).to_have_attribute("aria-live", "polite")
    expect(log).to_have_attribute("aria-relevant", "additions")
    plays = 0
    while plays < 3:
        now = step(page)
        seq = page.evaluate("() => window.__cardtable.seq()")
        if now != "play":
            # Any other prompt (a draw): its first action, by keyboard from the hand.
            assert page.evaluate(IN_HAND), page.evaluate(FOCUSED)
            page.locator("[data-testid=actions] button:not([disabled])").first.focus()
            page.keyboard.press("Enter")
            page.wait_for_function("(s) => window.__cardtable.seq() > s", arg=seq)
            continue
        card = page.locator("[data-testid=hand-cards] [data-hand].can").first
        name = str(card.get_attribute("data-hand"))
        if plays == 0:
            card.focus()  # the first time from the card itself; later from where it came
        else:
            assert page.evaluate(FOCUSED).startswith("hand-"), page.evaluate(FOCUSED)
            name = page.evaluate("() => document.activeElement.dataset.hand")
        page.keyboard.press("Enter")
        tabs = tabs_to_action(page, name)
        assert tabs <= 2, (plays, tabs)
        page.keyboard.press("Enter")
        page.wait_for_function("(s) => window.__cardtable.seq() > s", arg=seq)
        plays += 1
        # After the action the focus is in the hand, not at the page's start.
        page.wait_for_function(IN_HAND)
    expect(log.locator("li").last).to_be_visible()


@pytest.mark.parametrize("game", ["einauge", "loot-island"])
def test_the_log_is_a_polite_live_region_of_every_game(browser: Browser, web: ServerProcess,
                                                        game: str) -> None:
    tid, seat = bot_table(web, game)
    ctx, p = seated_page(browser, web, tid, seat, game if game != "einauge" else None)
    try:
        log = p.get_by_test_id("log")
        expect(log).to_have_attribute("aria-live", "polite")
        expect(log).to_have_attribute("aria-relevant", "additions")
    finally:
        ctx.close()

