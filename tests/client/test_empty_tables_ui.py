"""The lobby page in Debian's Chromium lets an abandoned empty open table go within
minutes (``CARDTABLE_EMPTY_TABLE_EXPIRY``), while a table a person sits at stays; the
server's clock is a file the test moves (``ClockFile``), and the page's own refresh (every
5 s) shows the change without a reload."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.client.conftest import api
from tests.conftest import ServerProcess
from tests.server.client import ClockFile

EMPTY = 300  # seconds (CARDTABLE_EMPTY_TABLE_EXPIRY)


@pytest.fixture
def clock(tmp_path: Path) -> ClockFile:
    return ClockFile(tmp_path / "clock")


@pytest.fixture
def clocked_web(redis_url: str, client_dist: Path, clock: ClockFile
                ) -> Iterator[ServerProcess]:
    s = ServerProcess(redis_url, env={**clock.env, "CARDTABLE_STATIC_DIR": str(client_dist),
                                      "CARDTABLE_EMPTY_TABLE_EXPIRY": str(EMPTY)}).start()
    yield s
    s.stop()


def test_an_abandoned_empty_table_leaves_the_lobby_page(browser: Browser,
                                                        clocked_web: ServerProcess,
                                                        clock: ClockFile) -> None:
    empty = api(clocked_web, "POST", "/api/tables", json={"game": "einauge", "seats": 3,
                                                          "name": "Ghost ship"})
    seated = api(clocked_web, "POST", "/api/tables", json={"game": "einauge", "seats": 3,
                                                           "name": "Harbour"})
    api(clocked_web, "POST", f"/api/tables/{seated['id']}/join", json={"name": "Anna"})
    ctx = browser.new_context(viewport={"width": 1366, "height": 900}, locale="en-US")
    try:
        page = ctx.new_page()
        page.goto(clocked_web.url + "/")
        ghost = page.get_by_test_id(f"table-row-{empty['id']}")
        harbour = page.get_by_test_id(f"table-row-{seated['id']}")
        expect(ghost).to_contain_text("Ghost ship")
        expect(harbour).to_contain_text("Harbour")
        clock.set(EMPTY - 30)  # not yet
        listed = api(clocked_web, "GET", "/api/tables")
        assert empty["id"] in {t["id"] for t in listed["tables"]}  # type: ignore[index]
        clock.set(EMPTY + 5)
        # The page's next periodic refresh (no click, no reload) drops the empty table.
        expect(ghost).to_have_count(0, timeout=20_000)
        expect(harbour).to_contain_text("Harbour")
    finally:
        ctx.close()
