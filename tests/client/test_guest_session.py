"""A guest's page asks ``GET /api/me`` on every load to learn whether it has a session:
the answer is 200 with ``account: null`` (docs/protocol.md, "Accounts"), so no guest's
browser logs a failed request on every page (it was ``401 no_session``)."""

from __future__ import annotations

import httpx
from playwright.sync_api import ConsoleMessage, Page, expect

from tests.conftest import ServerProcess


def test_a_guest_gets_no_error_from_api_me_on_any_page(page: Page, web: ServerProcess) -> None:
    errors: list[str] = []

    def note(m: ConsoleMessage) -> None:
        if m.type == "error":
            errors.append(m.text)

    page.on("console", note)
    for path, testid in (("/", "create-table"), ("/rules", "rules-page"),
                         ("/account", "to-signup"), ("/leaderboard", "nav-leaderboard")):
        with page.expect_response(lambda r: r.url.endswith("/api/me")) as answer:
            page.goto(web.url + path)
        assert answer.value.status == 200, path
        assert answer.value.json() == {"account": None, "csrf": None}
        expect(page.get_by_test_id(testid).first).to_be_visible()
        page.evaluate("() => 1")  # a round trip: the console messages before it are here
        assert errors == [], path
    # The page treats the answer as a guest: the account page offers to log in.
    page.goto(web.url + "/account")
    expect(page.get_by_test_id("to-signup")).to_be_visible()
    # The same for any client of the API; a session's answer is unchanged in shape.
    r = httpx.get(web.url + "/api/me")
    assert (r.status_code, r.json()) == (200, {"account": None, "csrf": None})
