"""Loot Island keeps what an action needs in view together (games/loot_island/): at
1366×900 the hand and every landing are inside the window, under the pinned header and
turn banner, at each decision of the action step, without scrolling; at 360×740 the islet
chooser a person opens is wholly visible between the pinned banner and the screen's
bottom, and its options take a tap."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.client.conftest import bot_table, seated_page, shot
from tests.conftest import ServerProcess

# What sticks over the page at its top (the site header, the turn banner): its bottom edge.
PINNED_TOP = """() => Math.max(0, ...[...document.querySelectorAll(
    '.site-header, .table-page > .turn-banner')].map((e) => e.getBoundingClientRect().bottom))"""
# The parts of the hand and the landings outside the free part of the window: above the
# pinned header and banner, or below the window's bottom (a landing: below the hand's top,
# which is pinned to the bottom when the page is taller).
OUT_OF_VIEW = """(top) => {
  const out = [];
  const hand = document.querySelector('[data-testid=my-hand]').getBoundingClientRect();
  if (hand.top < top - 0.5 || hand.bottom > window.innerHeight + 0.5)
    out.push(`my-hand ${Math.round(hand.top)}-${Math.round(hand.bottom)}`);
  for (const l of document.querySelectorAll('.landing[data-testid^=landing-]')) {
    const r = l.getBoundingClientRect();
    if (r.top < top - 0.5 || r.bottom > hand.top + 0.5)
      out.push(`${l.dataset.testid} ${Math.round(r.top)}-${Math.round(r.bottom)}`);
  }
  return out; }"""
# Every button of the open chooser whose middle is covered by something else (what a tap
# there would hit instead), or that lies outside the free part of the window.
CHOOSER_BLOCKED = """(top) => {
  const c = document.querySelector('[data-testid=chooser]');
  const r = c.getBoundingClientRect();
  const out = [];
  if (r.top < top - 0.5 || r.bottom > window.innerHeight + 0.5)
    out.push(`chooser ${Math.round(r.top)}-${Math.round(r.bottom)}`
             + ` of ${Math.round(top)}-${window.innerHeight}`);
  for (const b of c.querySelectorAll('button')) {
    const q = b.getBoundingClientRect();
    const hit = document.elementFromPoint(q.left + q.width / 2, q.top + q.height / 2);
    if (!hit || !b.contains(hit))
      out.push(`${b.dataset.testid} under ${hit ? hit.className || hit.tagName : 'nothing'}`);
  }
  return out; }"""
# The open chooser when it is not between the pinned top and the hand's top.
CHOOSER_ABOVE_HAND = """(top) => {
  const r = document.querySelector('[data-testid=chooser]').getBoundingClientRect();
  const hand = document.querySelector('[data-testid=my-hand]').getBoundingClientRect();
  return r.top < top - 0.5 || r.bottom > hand.top + 0.5
    ? [`chooser ${Math.round(r.top)}-${Math.round(r.bottom)}`
       + ` hand ${Math.round(hand.top)}`] : []; }"""
# Two animation frames on: what the page scheduled for the next frame (the board scrolls a
# chooser it opened into view then) has run.
FRAMES = "() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))"
MY_TURN_OR_END = """() => { const b = document.querySelector('[data-testid=turn-banner]');
  return b && (b.dataset.phase === 'ended' || b.dataset.myTurn === '1')
    && !!window.__cardtable?.conn?.prompt; }"""
STEP = ("() => { const v = window.__cardtable.view();"
        " return v.phase === 'ended' ? 'ended' : v.step; }")
ON = ":not([disabled])"


def table_page(browser: Browser, web: ServerProcess, **ctx_kw: Any
               ) -> tuple[BrowserContext, Page]:
    tid, seat = bot_table(web, "loot-island", bots=2)
    return seated_page(browser, web, tid, seat, game="loot-island", **ctx_kw)


@pytest.fixture
def desktop(browser: Browser, web: ServerProcess) -> Iterator[Page]:
    ctx, page = table_page(browser, web)
    yield page
    ctx.close()


@pytest.fixture
def phone(browser: Browser, web: ServerProcess) -> Iterator[Page]:
    ctx, page = table_page(browser, web, viewport={"width": 360, "height": 740},
                           is_mobile=True, has_touch=True)
    yield page
    ctx.close()


def wait_turn(page: Page) -> str:
    """Wait for Anna's prompt (or the end); the step it is in."""
    page.wait_for_function(MY_TURN_OR_END, timeout=90_000)
    return str(page.evaluate(STEP))


def assert_in_view(page: Page, what: str) -> None:
    top = page.evaluate(PINNED_TOP)
    out = page.evaluate(OUT_OF_VIEW, top)
    if out:
        shot(page, "loot-island-out-of-view", full_page=False)
    assert out == [], what


def play_a_card_or_pass(page: Page, turn: int) -> None:
    """Select cards one by one until a landing offers to take them, checking the view after
    each click, then play them there (or pass when none does, or a joker asks for its
    value)."""
    hand = page.locator(f"[data-testid=my-hand] button.lcard{ON}")
    for _ in range(8):
        plays = page.locator(f"[data-testid^=play-]{ON}")
        if plays.count():
            plays.first.click()
            if page.get_by_test_id("chooser").count():
                # A joker's value or a copy to choose: that landing's chooser is in view
                # above the hand.
                page.evaluate(FRAMES)
                top = page.evaluate(PINNED_TOP)
                assert page.evaluate(CHOOSER_ABOVE_HAND, top) == [], f"turn {turn}"
                page.get_by_test_id("chooser-cancel").click()
                break
            return
        free = page.locator(f"[data-testid=my-hand] button.lcard{ON}:not(.selected)")
        if not free.count():
            break
        free.first.click()
        assert_in_view(page, f"turn {turn}, {hand.count()} cards selectable")
    page.get_by_test_id("pass").click()


def test_at_1366x900_the_hand_and_the_landings_stay_in_view(desktop: Page) -> None:
    page = desktop
    acted = 0
    for turn in range(40):
        step = wait_turn(page)
        if step == "ended" or acted >= 6:
            break
        seq = page.evaluate("() => window.__cardtable.seq()")
        if step == "act":
            assert_in_view(page, f"turn {turn}, its start")
            play_a_card_or_pass(page, turn)
            acted += 1
        elif page.get_by_test_id("discard").count():
            page.get_by_test_id("discard").click()
        else:  # a loot pick or a healer: the first offered
            page.locator(f"[data-testid=board] button.act{ON}").first.click()
        page.wait_for_function("(s) => window.__cardtable.seq() > s", arg=seq)
    assert acted >= 3


def test_at_360x740_the_islet_chooser_is_in_view_and_takes_a_tap(phone: Page) -> None:
    page = phone
    while wait_turn(page) != "act":
        seq = page.evaluate("() => window.__cardtable.seq()")
        if page.get_by_test_id("discard").count():
            page.get_by_test_id("discard").click()
        else:
            page.locator(f"[data-testid=board] button.act{ON}").first.click()
        page.wait_for_function("(s) => window.__cardtable.seq() > s", arg=seq)
    form = page.evaluate("() => window.__cardtable.conn.prompt.legal_form")
    # An islet with a parameter (a landing, or where from and to): its use opens the
    # chooser. Seven cards of four colours always hold two of one colour to pay with.
    counts = Counter(u["islet"] for u in form["islets"]["uses"])
    islet = next(i for i, n in counts.items() if n > 1)
    for card in form["islets"]["pay"][0][:2]:
        page.get_by_test_id(f"hand-{card}").tap()
    # She scrolls down to the islet until its button shows just above her pinned hand.
    use = page.get_by_test_id(f"use-{islet}")
    page.evaluate("""(b) => { const hand = document.querySelector('[data-testid=my-hand]');
      const r = b.getBoundingClientRect();
      window.scrollBy(0, r.bottom - hand.getBoundingClientRect().top + 4); }""",
                  use.element_handle())
    use.tap()
    chooser = page.get_by_test_id("chooser")
    expect(chooser).to_be_visible()
    page.evaluate(FRAMES)
    top = page.evaluate(PINNED_TOP)
    assert page.evaluate(CHOOSER_BLOCKED, top) == []
    seq = page.evaluate("() => window.__cardtable.seq()")
    chooser.locator(f"[data-testid^=islet-opt-]{ON}").first.tap()
    page.wait_for_function("(s) => window.__cardtable.seq() > s", arg=seq)
    expect(chooser).to_have_count(0)
