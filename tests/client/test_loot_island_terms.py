"""Loot Island's log and islets explain their marks in place (glossary.js) as the board's
other terms do: an islet's name in "… used Wreck", a loot card's "(gold/curse)" and an
islet's "face up"/"used" badge show their text with a link to the rules section, on hover,
on keyboard focus and on a tap, in English and in German."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Browser, Page, expect

from tests.client.conftest import api, finished_table
from tests.conftest import ServerProcess


def test_islets_and_loot_values_explain_themselves(page: Page, browser: Browser,
                                                   web: ServerProcess) -> None:
    tid = finished_table(web, "loot-island", 3)
    deltas: Any = api(web, "GET", f"/api/tables/{tid}/deltas")
    events = [e["event"] for d in deltas["deltas"] for e in d["events"]]
    used = sum(e["type"] == "islet_used" for e in events)
    # Each loot card the log names: the offers' and each kept or discarded one.
    loot = sum(len(e["cards"]) if e["type"] == "loot_offered" else 1 for e in events
               if e["type"] in ("loot_offered", "loot_taken", "loot_discarded"))
    page.goto(f"{web.url}/table/{tid}")
    log = page.get_by_test_id("log")
    expect(log.locator("li").first).to_be_visible()
    # Every islet named in the log and every loot card's brackets is a term.
    expect(log.locator("[data-term=islet]")).to_have_count(used)
    expect(log.locator("[data-term=loot_values]")).to_have_count(loot)
    tip = page.get_by_test_id("term-tip")
    # The islets' badges (always on the board): explained on hover, and the first is in
    # the Tab order and explains itself on focus.
    badge = page.locator("[data-term=islet_state]").first
    badge.hover()
    expect(tip).to_be_visible()
    expect(tip.get_by_test_id("term-text")).to_contain_text("the next preparation")
    expect(tip.get_by_test_id("term-rules")).to_have_attribute("href", "/rules/loot-island#islets")
    page.mouse.move(1, 1)
    expect(tip).to_be_hidden()
    expect(badge).to_have_attribute("tabindex", "0")
    badge.focus()
    expect(tip.get_by_test_id("term-text")).to_contain_text("the next preparation")
    page.keyboard.press("Escape")
    expect(tip).to_be_hidden()
    # The log's terms (which the bots' game holds, as counted above): on hover.
    for key, words, section in (("islet", "An islet", "islets"),
                                ("loot_values", "(gold/curse)", "scoring")):
        if log.locator(f"[data-term={key}]").count():
            word = log.locator(f"[data-term={key}]").first
            word.hover()  # scrolled to by the action itself, again if the page redrew it
            expect(tip.get_by_test_id("term-text")).to_contain_text(words)
            expect(tip.get_by_test_id("term-rules")).to_have_attribute(
                "href", f"/rules/loot-island#{section}")
            page.mouse.move(1, 1)
            expect(tip).to_be_hidden()
    page.get_by_test_id("lang-de").click()
    page.locator("[data-term=islet_state]").first.focus()
    expect(tip.get_by_test_id("term-text")).to_contain_text("nächsten Vorbereitung")
    expect(log.locator("[data-term=loot_values]")).to_have_count(loot)

    # A phone: a tap opens the explanation.
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US",
                              is_mobile=True, has_touch=True)
    try:
        phone = ctx.new_page()
        phone.goto(f"{web.url}/table/{tid}")
        # The whole log shown (the page has taken in the game), then a tap on a badge.
        expect(phone.get_by_test_id("log").locator("[data-term=loot_values]")).to_have_count(loot)
        phone.locator("[data-term=islet_state]").first.tap()
        expect(phone.get_by_test_id("term-tip")).to_be_visible()
        expect(phone.get_by_test_id("term-text")).to_contain_text("the next preparation")
    finally:
        ctx.close()
