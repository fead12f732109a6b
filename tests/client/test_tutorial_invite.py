"""A tutorial table never shows its invite link, not even for a moment before the page
has the table's summary (client-web/src/table.js ``renderTop``): the page records every
insertion of the link from its first script on."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.client.conftest import bot_table, seed_storage
from tests.conftest import ServerProcess

# Counts every insertion of the invite link into the document, however briefly it stays.
WATCH_LINK = """
window.__shareShown = 0;
new MutationObserver((records) => {
  for (const r of records) for (const n of r.addedNodes) {
    if (n.nodeType !== 1) continue;
    if (n.matches('[data-testid="share-link"]') || n.querySelector('[data-testid="share-link"]'))
      window.__shareShown += 1;
  }
}).observe(document, { childList: true, subtree: true });
"""


@pytest.fixture
def watched(browser: Browser) -> Iterator[tuple[BrowserContext, Page]]:
    ctx = browser.new_context(viewport={"width": 1366, "height": 900})
    seed_storage(ctx, {"cardtable.pace": json.dumps("off"), "cardtable.lang": json.dumps("en")})
    ctx.add_init_script(WATCH_LINK)
    yield ctx, ctx.new_page()
    ctx.close()


def test_a_tutorial_table_never_shows_its_invite_link(watched: tuple[BrowserContext, Page],
                                                       web: ServerProcess) -> None:
    _, page = watched
    page.goto(f"{web.url}/learn/einauge")
    expect(page.get_by_test_id("tutorial-badge")).to_be_visible()
    expect(page.locator(".coach-target")).to_have_count(1)
    page.reload()  # the table page opened directly, as from a bookmark
    expect(page.get_by_test_id("tutorial-badge")).to_be_visible()
    expect(page.locator(".coach-target")).to_have_count(1)
    assert page.evaluate("window.__shareShown") == 0
    expect(page.get_by_test_id("share-link")).to_have_count(0)


def test_the_watch_sees_the_link_of_an_ordinary_table(watched: tuple[BrowserContext, Page],
                                                       web: ServerProcess) -> None:
    """The other side: the same watch counts the link of a table that is no tutorial."""
    _, page = watched
    tid, _ = bot_table(web, "einauge", bots=1)
    page.goto(f"{web.url}/table/{tid}")
    expect(page.get_by_test_id("share-link")).to_be_visible()
    assert page.evaluate("window.__shareShown") >= 1
