"""The table on a phone (390×844 and 360×740): the header takes one line, the cards' colour
names fit the cards, a tapped card's detail covers none of the buttons, nothing sticks out
sideways, and when the game ends the result with its rematch button is scrolled into view,
once."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Browser, expect

from tests.client.conftest import (
    api,
    assert_header_one_line,
    autoplay,
    page_seed,
    seed_storage,
    shot,
)
from tests.client.test_loot_island import STICKING_OUT
from tests.client.test_result_ui import AUTOPLAY
from tests.conftest import ServerProcess

ENDED = "() => { const v = window.__cardtable.view(); return v && v.phase === 'ended'; }"
# Every shown colour name on a card whose text is cut (wider than its box), with its widths.
CUT_NAMES = """() => [...document.querySelectorAll('.card .cname')]
    .filter((e) => e.offsetParent !== null && e.scrollWidth > e.clientWidth)
    .map((e) => e.textContent + " " + e.scrollWidth + "/" + e.clientWidth)"""
# The action buttons (the board's buttons and choices) that the open card detail covers, or
# null when it is not open.
DETAIL_COVERS = """() => { const d = document.querySelector('[data-testid=card-detail]');
  if (!d || d.hidden) return null;
  const r = d.getBoundingClientRect();
  return [...document.querySelectorAll('[data-testid=board] button, [data-testid=board] select')]
    .filter((b) => { const q = b.getBoundingClientRect();
      return q.width > 0 && q.left < r.right && q.right > r.left
             && q.top < r.bottom && q.bottom > r.top; })
    .map((b) => b.dataset.testid || b.textContent); }"""


def test_on_a_phone_the_cards_read_and_the_result_comes_into_view_once(
        browser: Browser, web: ServerProcess, request: pytest.FixtureRequest) -> None:
    table = api(web, "POST", "/api/tables", json={"seats": 3, "name": "Phone table"})
    tid = table["id"]
    anna = api(web, "POST", f"/api/tables/{tid}/join", json={"name": "Anna"})
    owner = {"Authorization": f"Bearer {table['owner_token']}"}
    for seat in (1, 2):
        api(web, "POST", f"/api/tables/{tid}/seats/{seat}/bot", json={"kind": "random"},
            headers=owner)
    api(web, "POST", f"/api/tables/{tid}/start", headers=owner)
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US",
                              is_mobile=True, has_touch=True)
    seat = json.dumps({**anna, "name": "Anna"})
    seed_storage(ctx, {f"cardtable.seat.{tid}": seat})
    page = ctx.new_page()
    page.goto(f"{web.url}/table/{tid}")
    expect(page.get_by_test_id("board")).to_be_visible()
    assert page.locator(".card .cname").count() > 0
    assert page.evaluate(CUT_NAMES) == []
    # On her turn each card of the display, tapped, tells about itself next to its buy
    # buttons, never over them nor over any other action, in both languages and sizes.
    expect(page.get_by_test_id("turn-banner")).to_have_attribute("data-my-turn", "1",
                                                                 timeout=60_000)
    display = page.get_by_test_id("display")
    expect(display.locator("button").first).to_be_visible()
    for width, height in ((390, 844), (360, 740)):
        page.set_viewport_size({"width": width, "height": height})
        for lang in ("de", "en"):
            page.get_by_test_id(f"lang-{lang}").click()
            assert page.evaluate(CUT_NAMES) == [], (width, lang)
            assert page.evaluate(STICKING_OUT) == [], (width, lang)
            assert_header_one_line(page)
            for card in display.locator(".card[data-card]").all():
                card.click()
                expect(page.get_by_test_id("card-detail")).to_be_visible()
                expect(page.get_by_test_id("card-detail")).to_be_in_viewport()
                covered = page.evaluate(DETAIL_COVERS)
                assert covered == [], (width, lang, card.get_attribute("data-card"), covered)
                card.click()
                expect(page.get_by_test_id("card-detail")).to_be_hidden()
    display.locator(".card[data-card]").first.click()
    shot(page, "phone-card-detail", full_page=False)
    page.keyboard.press("Escape")
    page.set_viewport_size({"width": 390, "height": 844})
    # Anna reads her rows at the bottom of the page while the game ends.
    page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
    autoplay(page, AUTOPLAY, page_seed(request))
    page.wait_for_function(ENDED, timeout=120_000)
    page.evaluate("() => clearInterval(window.__auto)")
    expect(page.get_by_test_id("result")).to_be_in_viewport()
    expect(page.get_by_test_id("rematch")).to_be_in_viewport()
    # Once: scrolled down again, a redraw of the page leaves her where she is.
    page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
    page.evaluate("() => document.querySelector('[data-testid=lang-de]').click()")
    expect(page.get_by_test_id("result-winners")).to_contain_text("♛")
    expect(page.get_by_test_id("turn-banner")).to_have_attribute("data-phase", "ended")
    # The redraw is painted (two animation frames on), then the place is read.
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => "
                  "requestAnimationFrame(r)))")
    expect(page.get_by_test_id("result")).not_to_be_in_viewport()
    ctx.close()
