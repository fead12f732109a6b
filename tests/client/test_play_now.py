""""Play now" in the browser (client-web/src/playnow.js, docs/protocol.md §7): two
strangers in two browsers press it for the same game and play at one running table; a
lone seeker who chose bots after a wait is seated with bots once the wait is over (the
server's clock is moved, not waited for)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.client.conftest import api, shot
from tests.conftest import ServerProcess
from tests.server.client import ClockFile
from tests.waiting import until_sync

SEATED = ("() => window.__cardtable && window.__cardtable.page === 'table' && "
          "window.__cardtable.view() && window.__cardtable.seat() !== null")


@pytest.fixture(scope="module")
def clock(tmp_path_factory: pytest.TempPathFactory) -> ClockFile:
    return ClockFile(tmp_path_factory.mktemp("clock") / "clock")


@pytest.fixture(scope="module")
def seek_web(redis_url: str, client_dist: Path, clock: ClockFile) -> Iterator[ServerProcess]:
    """A server of the client whose clock the tests move."""
    s = ServerProcess(redis_url, env={"CARDTABLE_STATIC_DIR": str(client_dist),
                                      "CARDTABLE_BOT_DELAY": "0.2",
                                      "CARDTABLE_SEEK_SCAN": "0.2", **clock.env}).start()
    yield s
    s.stop()


def new_page(browser: Browser) -> Page:
    ctx = browser.new_context(viewport={"width": 1366, "height": 900}, locale="en-US")
    return ctx.new_page()


def test_two_strangers_press_play_now_and_sit_at_one_running_table(browser: Browser,
                                                                     seek_web: ServerProcess):
    pages = [new_page(browser) for _ in range(2)]
    try:
        for p in pages:
            p.goto(seek_web.url + "/")
            expect(p.get_by_test_id("play-now-einauge")).to_be_visible()
        pages[0].get_by_test_id("play-now-einauge").click()
        expect(pages[0].get_by_test_id("seek-status")).to_contain_text("Looking for players")
        pages[1].reload()  # the pool's size, as another visitor sees it
        expect(pages[1].get_by_test_id("pool-einauge")).to_have_text("1 waiting")
        shot(pages[1], "play-now", full_page=False)
        pages[1].get_by_test_id("play-now-einauge").click()
        for p in pages:
            p.wait_for_url("**/table/*")
            p.wait_for_function(SEATED)
        ids = {p.url.rsplit("/", 1)[1] for p in pages}
        assert len(ids) == 1
        table_id = ids.pop()
        seats = sorted(p.evaluate("() => window.__cardtable.seat()") for p in pages)
        assert seats == [0, 1]
        summary = api(seek_web, "GET", f"/api/tables/{table_id}")
        assert summary["status"] == "running"
        assert [s["kind"] for s in summary["seats"]] == ["human", "human"]
        for p in pages:
            expect(p.get_by_test_id("table-status")).to_have_text("running")
            expect(p.get_by_test_id("spectator-badge")).to_have_count(0)
        shot(pages[0], "play-now-seated", full_page=False)
    finally:
        for p in pages:
            p.context.close()


def test_a_lone_seeker_gets_bots_after_the_chosen_wait(browser: Browser,
                                                        seek_web: ServerProcess,
                                                        clock: ClockFile):
    page = new_page(browser)
    try:
        page.goto(seek_web.url + "/")
        page.get_by_test_id("seek-seats-keltis").select_option("3")
        page.get_by_test_id("bots-after-select").select_option("30")
        page.get_by_test_id("play-now-keltis").click()
        expect(page.get_by_test_id("seek-status")).to_contain_text("Looking for players")
        until_sync(lambda: api(seek_web, "GET", "/api/seeks")["pools"]["keltis"] == 1,
                   timeout=30, what="the seek in the pool")
        clock.set(31.0)  # the seeker's 30 s are over
        page.wait_for_url("**/table/*", timeout=60_000)  # a scan, a table, a page load
        page.wait_for_function(SEATED)
        assert page.evaluate("() => window.__cardtable.seat()") == 0
        summary = api(seek_web, "GET", f"/api/tables/{page.url.rsplit('/', 1)[1]}")
        assert summary["status"] == "running"
        assert [s["kind"] for s in summary["seats"]] == ["human", "bot", "bot"]
        expect(page.get_by_test_id("table-status")).to_have_text("running")
    finally:
        page.context.close()
        clock.set(0.0)
