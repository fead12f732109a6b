"""Loot Island's hand: a chosen card looks chosen (outlined and raised, in its own colour
at full strength, also under the pointer that chose it), never pale like a card that
cannot be chosen; on a phone (390×844) its order badge shows whole, inside the card."""

from __future__ import annotations

from playwright.sync_api import Browser, Page, expect

from tests.client.conftest import bot_table, seated_page
from tests.conftest import ServerProcess

CHOOSABLE = "[data-testid=my-hand] button.lcard:not([disabled]):not(.unselectable)"
LOOK = """(el) => { const s = getComputedStyle(el), r = el.getBoundingClientRect();
  const b = el.querySelector('.lorder'); const q = b ? b.getBoundingClientRect() : null;
  const hit = q ? document.elementFromPoint(q.left + q.width / 2, q.top + q.height / 2) : null;
  return {opacity: s.opacity, bg: s.backgroundColor, outline: s.outlineStyle,
          transform: s.transform, badge: q && {left: q.left - r.left, top: q.top - r.top,
          right: r.right - q.right, bottom: r.bottom - q.bottom,
          hit: !!hit && b.contains(hit)}}; }"""


def chosen_look(page: Page) -> tuple[dict, dict]:
    """Choose the first choosable hand card by a click (a tap on a phone), the pointer left
    on it; its look then, and before."""
    card = page.locator(CHOOSABLE).first
    expect(card).to_be_visible()
    testid = card.get_attribute("data-testid")
    target = page.get_by_test_id(testid)
    before = target.evaluate(LOOK)
    target.click()
    expect(target).to_have_attribute("aria-pressed", "true")
    return before, target.evaluate(LOOK)


def test_a_chosen_card_looks_chosen(browser: Browser, web: ServerProcess) -> None:
    tid, seat = bot_table(web, "loot-island", bots=2, kind="greedy")
    ctx, page = seated_page(browser, web, tid, seat)
    try:
        before, after = chosen_look(page)
        assert after["opacity"] == "1" and after["bg"] == before["bg"], (before, after)
        assert after["outline"] == "solid" and after["transform"] != "none", after
    finally:
        ctx.close()


def test_a_chosen_cards_badge_shows_whole_on_a_phone(browser: Browser,
                                                    web: ServerProcess) -> None:
    tid, seat = bot_table(web, "loot-island", bots=2, kind="greedy")
    ctx, page = seated_page(browser, web, tid, seat, viewport={"width": 390, "height": 844},
                            is_mobile=True, has_touch=True)
    try:
        before, after = chosen_look(page)
        assert after["opacity"] == "1" and after["bg"] == before["bg"], (before, after)
        badge = after["badge"]
        assert badge is not None and badge["hit"], after
        assert min(badge["left"], badge["top"], badge["right"], badge["bottom"]) >= 0, badge
    finally:
        ctx.close()
