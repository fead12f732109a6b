"""The table page tells cards by their readable names in the page's language ("brown 7" /
"braune 7"), never by their ids ("brown-7"), in the game log of each game, in English and
in German (the "Last move" line, told by the same words, is checked on a played Einauge
game in test_explains.py)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.client.conftest import finished_table
from tests.conftest import ServerProcess

SEATS = {"einauge": 2, "keltis": 2, "loot-island": 3}
# A card id of any of the games (docs/protocol.md: "<kind>-<n>"), in either language's
# capitalisation: "brown-7", "Braun-7", "ship-2", "loot-12", "stone-5".
CARD_ID = re.compile(r"\b[A-Za-zÄÖÜäöü]+-\d+\b")


def log_text(page: Page) -> str:
    return "\n".join(page.locator("[data-testid=log] li").all_inner_texts())


@pytest.mark.parametrize("game", sorted(SEATS))
def test_the_log_names_cards_by_their_names(page: Page, web: ServerProcess, game: str) -> None:
    tid = finished_table(web, game, SEATS[game])
    page.goto(f"{web.url}/table/{tid}")
    expect(page.locator("[data-testid=log] li").first).to_be_visible()
    english = log_text(page)
    assert not CARD_ID.search(english), CARD_ID.findall(english)[:5]
    page.get_by_test_id("lang-de").click()
    expect(page.get_by_test_id("log")).not_to_contain_text(english.splitlines()[0])
    german = log_text(page)
    assert not CARD_ID.search(german), CARD_ID.findall(german)[:5]
    if game == "einauge":  # a German island card: its color as an adjective, "braune 7"
        assert re.search(r"\b(blaue|grüne|rote|gelbe|lila|orange|braune|graue) \d\b", german)
