"""Loot Island's island and its buttons in reach: the ship's empty corners beside the North
and South coasts show no stray mark; on a phone (390×844) a landing's "Play here" offered
by a click on a hand card is scrolled above the pinned hand bar, and focusing one that lies
under the bar brings it above it (a scroll margin of the bar's height)."""

from __future__ import annotations

from playwright.sync_api import Browser, Page, expect

from tests.client.conftest import bot_table, seated_page
from tests.conftest import ServerProcess
from tests.waiting import until_sync

CHOOSABLE = "[data-testid=my-hand] button.lcard:not([disabled]):not(.unselectable)"
BANNER = "[data-testid=turn-banner]"
# A button's box against the pinned hand's top and the pinned header and banner's bottom.
CLEAR = """(b) => { const r = b.getBoundingClientRect();
  const hand = document.querySelector('[data-testid=my-hand]').getBoundingClientRect();
  const top = Math.max(...[...document.querySelectorAll('.site-header, .table-page > .turn-banner')]
    .map((e) => e.getBoundingClientRect().bottom));
  return r.top >= top && r.bottom <= hand.top; }"""


def my_step(page: Page) -> str:
    """Wait until it is this seat's turn; its step ("discard", "act", …)."""
    page.wait_for_function(f"() => document.querySelector('{BANNER}')?.dataset.myTurn === '1'")
    return page.locator(BANNER).get_attribute("data-step") or ""


def offer_plays(page: Page) -> None:
    """Play on (keep the whole hand; pass an act turn where no lone card plays) until a
    click on a hand card in the act step offers "Play here"."""
    for _ in range(20):
        seq = page.evaluate("() => window.__cardtable.seq()")
        step = my_step(page)
        if step == "discard":
            page.get_by_test_id("discard").click()
        elif step == "act":
            for card in page.locator(CHOOSABLE).all():
                card.click()
                if page.locator("[data-testid^=play-]").count():
                    return
                card.click()  # no landing takes it alone: unchosen again
            page.get_by_test_id("pass").click()
        else:
            page.evaluate("() => window.__cardtable.conn.act("
                          "window.__cardtable.conn.prompt.legal_actions[0])")
        page.wait_for_function(f"() => window.__cardtable.seq() > {seq}")
    raise AssertionError("no hand card offered a landing in 20 turns")


def test_the_ships_empty_corners_show_no_mark(browser: Browser, web: ServerProcess) -> None:
    tid, seat = bot_table(web, "loot-island", bots=2, kind="greedy")
    ctx, page = seated_page(browser, web, tid, seat)
    try:
        corners = page.locator("[data-testid^=ship-space-]")
        expect(corners).to_have_count(4)
        expect(page.locator("[data-testid^=ship-space-].here")).to_have_count(1)
        for text in page.locator("[data-testid^=ship-space-]:not(.here)").all_inner_texts():
            assert text.strip() == "", text
    finally:
        ctx.close()


def test_play_here_is_in_reach_above_the_hand_on_a_phone(browser: Browser,
                                                        web: ServerProcess) -> None:
    tid, seat = bot_table(web, "loot-island", bots=2, kind="greedy")
    ctx, page = seated_page(browser, web, tid, seat, "loot-island",
                            viewport={"width": 390, "height": 844}, is_mobile=True,
                            has_touch=True)
    try:
        offer_plays(page)
        plays = page.locator("[data-testid^=play-]")
        # Offered by the click: one of them is in the clear part of the window.
        until_sync(lambda: any(b.evaluate(CLEAR) for b in plays.all()), 30,
                   "a Play here button in view above the hand")
        # Each one put under the hand (where the page lets it lie there) and focused, as
        # the keyboard does, comes out above the hand.
        checked = 0
        for b in plays.all():
            placed = b.evaluate("""(b) => {
                const hand = document.querySelector('[data-testid=my-hand]');
                const under = hand.getBoundingClientRect().top + 2;
                window.scrollBy(0, b.getBoundingClientRect().top - under);
                const r = b.getBoundingClientRect();
                return r.top >= under - 1 && r.bottom <= window.innerHeight; }""")
            if not placed:
                continue  # too near the page's top to lie under the hand
            checked += 1
            b.focus()
            assert b.evaluate(CLEAR), b.get_attribute("data-testid")
        assert checked, "no Play here button could lie under the hand"
    finally:
        ctx.close()
