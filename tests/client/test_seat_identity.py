"""Who the table page says you are: an account's own ended table opened on a second
device is its seat (not a spectator's view), and a rated table shows each seat's rating as a
badge, never glued into a name in the banner or the result."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from tests.client.conftest import autoplay, page_seed
from tests.client.test_accounts import log_in, new_page, sign_up
from tests.client.test_result_ui import AUTOPLAY
from tests.conftest import ServerProcess
from tests.server.client import unique

ENDED = "() => { const v = window.__cardtable.view(); return v && v.phase === 'ended'; }"


def test_an_ended_table_opened_on_a_second_device_is_the_account_s_seat(
        browser: Browser, web: ServerProcess, request: pytest.FixtureRequest) -> None:
    name = unique("dev")
    first = new_page(browser)
    sign_up(first, web, name)
    first.goto(web.url + "/")
    first.get_by_test_id("seats-select").select_option("2")
    first.get_by_test_id("rated-table").check()
    first.get_by_test_id("create-table").click()
    first.wait_for_url("**/table/*")
    tid = first.url.rstrip("/").rsplit("/", 1)[1]
    first.get_by_test_id("take-seat-0").click()
    expect(first.get_by_test_id("leave-seat")).to_be_visible()
    first.get_by_test_id("bot-kind-1").select_option("greedy")
    first.get_by_test_id("add-bot-1").click()
    expect(first.get_by_test_id("remove-bot-1")).to_be_visible()
    first.get_by_test_id("start").click()
    expect(first.get_by_test_id("board")).to_be_visible()
    autoplay(first, AUTOPLAY, page_seed(request))
    first.wait_for_function(ENDED, timeout=120_000)
    first.evaluate("() => clearInterval(window.__auto)")

    # A second browser, logged in to the same account, opens the table by its address.
    second = new_page(browser)
    log_in(second, web, name)
    second.wait_for_url("**/my-games")
    second.goto(f"{web.url}/table/{tid}")
    expect(second.get_by_test_id("result")).to_be_visible()
    second.wait_for_function("() => window.__cardtable?.seat() === 0")
    expect(second.get_by_test_id("spectator-badge")).to_have_count(0)
    expect(second.get_by_test_id("player-0").locator(".pname")).to_have_text(f"{name} (you)")
    expect(second.get_by_test_id("rematch")).to_be_visible()
    expect(first.get_by_test_id("spectator-count")).to_have_text("0 spectators watching")

    # Rated: each seat's rating is a badge; names in the banner and result stay names.
    for page in (first, second):
        expect(page.get_by_test_id("seat-rating-0")).to_contain_text("?")
        expect(page.get_by_test_id("seat-rating-1")).to_be_visible()
        for where in ("turn-banner", "result-winners", "result"):
            expect(page.get_by_test_id(where)).not_to_contain_text("(1")
        expect(page.get_by_test_id("player-1").locator(".pname")).to_have_text("Greedy bot 2")
    first.context.close()
    second.context.close()
