"""The page's dialogs keep their buttons apart (style.css `.confirm-buttons`): the resign
dialog's "Resign" and "Cancel" touched; at 1366×900 and on a phone (390×844)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from tests.client.conftest import bot_table, seated_page
from tests.conftest import ServerProcess

GAP = """() => { const [a, b] = ['confirm-yes', 'confirm-cancel'].map((id) =>
    document.querySelector(`[data-testid=${id}]`).getBoundingClientRect());
  // Side by side: the space between them; one under the other: the vertical space.
  return a.bottom <= b.top || b.bottom <= a.top
    ? Math.max(b.top - a.bottom, a.top - b.bottom)
    : Math.max(b.left - a.right, a.left - b.right); }"""


@pytest.mark.parametrize("size", [(1366, 900), (390, 844)])
def test_the_resign_dialogs_buttons_are_apart(browser: Browser, web: ServerProcess,
                                               size: tuple[int, int]) -> None:
    tid, seat = bot_table(web, "keltis", bots=1)
    ctx, page = seated_page(browser, web, tid, seat, "keltis",
                            viewport={"width": size[0], "height": size[1]})
    try:
        page.get_by_test_id("resign").click()
        expect(page.get_by_test_id("confirm-dialog")).to_be_visible()
        gap = page.evaluate(GAP)
        assert gap >= 8, gap
        page.get_by_test_id("confirm-cancel").click()
        expect(page.get_by_test_id("confirm-dialog")).to_have_count(0)
    finally:
        ctx.close()
