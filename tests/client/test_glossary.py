"""The glossary in place (client-web/src/glossary.js): a term of Einauge's board explains
itself on hover, on keyboard focus and on a tap, with a link to its rules section, in the
page's language; Escape and a tap elsewhere close it; one copy of each term is in the Tab
order."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from tests.client.conftest import api, bot_table, seated_page
from tests.conftest import ServerProcess


def test_einauge_terms_explain_themselves(browser: Browser, web: ServerProcess) -> None:
    tid, seat = bot_table(web, "einauge", bots=2, kind="random")
    ctx, page = seated_page(browser, web, tid, seat)
    expect(page.get_by_test_id("sabres-0")).to_be_visible()
    tip = page.get_by_test_id("term-tip")
    try:
        page.get_by_test_id("sabres-0").hover()
        expect(tip).to_be_visible()
        expect(tip.get_by_test_id("term-text")).to_contain_text("Sabres win cards")
        expect(tip.get_by_test_id("term-rules")).to_have_attribute("href", "/rules/einauge#fight")
        expect(page.get_by_test_id("sabres-0")).to_have_attribute("aria-describedby", "term-tip")
        page.get_by_test_id("jewels-0").hover()  # another term: its own text
        expect(tip.get_by_test_id("term-text")).to_contain_text("Jewels decide the game")
        page.mouse.move(1, 1)
        expect(tip).to_be_hidden()

        # The keyboard: a term takes the focus and shows its text; Escape closes it.
        page.get_by_test_id("ducats-0").focus()
        expect(tip).to_be_visible()
        expect(tip.get_by_test_id("term-text")).to_contain_text("Ducats pay for the cards")
        page.keyboard.press("Escape")
        expect(tip).to_be_hidden()
        # One copy of a term in the Tab order: the own seat's, not the bots'.
        assert page.get_by_test_id("sabres-0").get_attribute("tabindex") == "0"
        assert page.get_by_test_id("sabres-1").get_attribute("tabindex") is None

        # In German, the same term explains itself in German.
        page.get_by_test_id("lang-de").click()
        page.get_by_test_id("pirate-table").locator("xpath=..").locator(
            "[data-term=pirate_table]").hover()
        expect(tip.get_by_test_id("term-text")).to_contain_text("mit Säbeln")
        expect(tip.get_by_test_id("term-rules")).to_have_text("Regeln")
    finally:
        ctx.close()


def test_a_term_opens_on_a_tap_and_closes_on_a_tap_elsewhere(browser: Browser,
                                                            web: ServerProcess) -> None:
    tid, seat = bot_table(web, "einauge", bots=1, kind="random")
    ctx, page = seated_page(browser, web, tid, seat, viewport={"width": 390, "height": 844},
                            is_mobile=True, has_touch=True)
    expect(page.get_by_test_id("deck-count")).to_be_visible()
    tip = page.get_by_test_id("term-tip")
    try:
        page.get_by_test_id("deck-count").tap()
        expect(tip).to_be_visible()
        expect(tip.get_by_test_id("term-text")).to_contain_text("face-down island cards")
        box = tip.bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390  # fits the phone
        page.get_by_test_id("deck-count").tap()  # the same term again: closed
        expect(tip).to_be_hidden()
        page.get_by_test_id("deck-count").tap()
        expect(tip).to_be_visible()
        page.get_by_test_id("turn-banner").tap()  # elsewhere
        expect(tip).to_be_hidden()
    finally:
        ctx.close()


def test_keltis_terms_explain_themselves(browser: Browser, web: ServerProcess) -> None:
    tid, seat = bot_table(web, "keltis", bots=1, kind="random")
    ctx, page = seated_page(browser, web, tid, seat)
    expect(page.get_by_test_id("hand-count-0")).to_be_visible()
    tip = page.get_by_test_id("term-tip")
    try:
        page.get_by_test_id("hand-count-1").hover()
        expect(tip.get_by_test_id("term-text")).to_contain_text("Cards in this player's hand")
        expect(tip.get_by_test_id("term-rules")).to_have_attribute("href", "/rules/keltis#public")
        page.get_by_test_id("closed-rows").focus()
        expect(tip.get_by_test_id("term-text")).to_contain_text("At 5 the end of the game")
        expect(tip.get_by_test_id("term-rules")).to_have_attribute("href", "/rules/keltis#end")
        page.keyboard.press("Escape")
        expect(tip).to_be_hidden()
        page.get_by_test_id("lang-de").click()
        page.get_by_test_id("stones").locator("[data-term=stones]").hover()
        expect(tip.get_by_test_id("term-text")).to_contain_text("Wunschsteine")
    finally:
        ctx.close()


def test_loot_island_terms_explain_themselves(browser: Browser, web: ServerProcess) -> None:
    catalogue = api(web, "GET", "/api/games/loot-island/cards")
    numbers = catalogue["numbers"]
    tid, seat = bot_table(web, "loot-island", bots=2, kind="greedy")
    ctx, page = seated_page(browser, web, tid, seat)
    expect(page.get_by_test_id("minimum")).to_be_visible()
    tip = page.get_by_test_id("term-tip")
    try:
        page.get_by_test_id("minimum").hover()
        expect(tip.get_by_test_id("term-text")).to_contain_text("yields loot only")
        expect(tip.get_by_test_id("term-rules")).to_have_attribute("href",
                                                                   "/rules/loot-island#loot")
        page.get_by_test_id("cubes-0").focus()
        expect(tip.get_by_test_id("term-text")).to_contain_text(
            f"A player with {numbers['elimination_cubes']} or more")
        # Every marked card of the hand has its mark as a term, which explains itself.
        hand = page.locator("[data-testid=my-hand] [data-card]")
        expect(hand.first).to_be_visible()
        ids = hand.evaluate_all("els => els.map((e) => e.dataset.card)")
        marked = [i for i in ids if catalogue["map"][i]["action"] != "none"]
        marks = page.locator("[data-testid=my-hand] [data-term^=mark_]")
        expect(marks).to_have_count(len(marked))
        for i in marked[:2]:
            mark = page.locator(f"[data-testid=my-hand] [data-card='{i}'] [data-term]")
            mark.hover()
            expect(tip).to_have_attribute("data-explains", f"mark_{catalogue['map'][i]['action']}")
        page.get_by_test_id("lang-de").click()
        page.get_by_test_id("event").hover()
        expect(tip.get_by_test_id("term-text")).to_contain_text("In jeder Runde gilt ein Ereignis")
    finally:
        ctx.close()


# Terms of the list that each game's table shows from the first turn on (Einauge's
# "final round" warning and Keltis' end cards come later; Loot Island's islets are not
# terms: each islet's effect is written beside it).
SHOWN_FROM_THE_START = {
    "einauge": {"sabres", "jewels", "ducats", "pirate_table", "display", "deck"},
    "keltis": {"stones", "hand_count", "closed_rows", "row_count"},
    "loot-island": {"minimum", "event", "cubes"},
}


@pytest.mark.parametrize("game", sorted(SHOWN_FROM_THE_START))
def test_every_term_on_the_table_explains_itself_with_its_rules_section(
        browser: Browser, web: ServerProcess, game: str) -> None:
    """Every ``data-term`` the table shows on the seated player's turn has its text and a
    link into the game's rules page (a term the game module does not know would show
    nothing), in English and German."""
    tid, seat = bot_table(web, game, bots=1, kind="random")
    ctx, page = seated_page(browser, web, tid, seat)
    try:
        expect(page.get_by_test_id("turn-banner")).to_have_attribute("data-my-turn", "1")
        keys = set(page.locator("[data-term]").evaluate_all(
            "els => els.map((e) => e.dataset.term)"))
        assert SHOWN_FROM_THE_START[game] <= keys, SHOWN_FROM_THE_START[game] - keys
        tip = page.get_by_test_id("term-tip")
        for lang, rules in (("en", "Rules"), ("de", "Regeln")):
            page.get_by_test_id(f"lang-{lang}").click()
            for key in sorted(keys):
                el = page.locator(f"[data-term='{key}']").first
                el.dispatch_event("focusin")  # as a keyboard focus shows it: no pointer
                expect(tip).to_have_attribute("data-explains", key)
                expect(tip).to_be_visible()
                expect(tip.get_by_test_id("term-text")).not_to_be_empty()
                link = tip.get_by_test_id("term-rules")
                expect(link).to_have_attribute("href", re.compile(rf"^/rules/{game}#\w"))
                expect(link).to_have_text(rules)
                page.keyboard.press("Escape")
                expect(tip).to_be_hidden()
    finally:
        ctx.close()
