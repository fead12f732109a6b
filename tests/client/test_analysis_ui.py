"""The post-game analysis in the browser: the replay viewer of a finished table loads it on
request and shows, beside each move the bots judged a loss, its mark, its loss and the
best move found (in the log, and above the board at that move), and a line per player
with its decisions, marks and luck."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.client.conftest import api, finished_table, fixed1
from tests.conftest import ServerProcess


@pytest.fixture(scope="module")
def server(redis_url: str, client_dist: Path) -> Iterator[ServerProcess]:
    """A server of the built client whose analyses use the smallest budget."""
    s = ServerProcess(redis_url, env={"CARDTABLE_STATIC_DIR": str(client_dist),
                                      "CARDTABLE_BOT_DELAY": "0",
                                      "CARDTABLE_ANALYSIS_BUDGET_MS": "4"}).start()
    yield s
    s.stop()


def test_replay_viewer_shows_the_analysis(browser: Browser, server: ServerProcess) -> None:
    tid = finished_table(server, "einauge", 2)
    ctx = browser.new_context(viewport={"width": 1366, "height": 900}, locale="en-US")
    page = ctx.new_page()
    try:
        page.goto(f"{server.url}/replay/{tid}")
        load = page.get_by_test_id("analysis-load")
        expect(load).to_be_visible(timeout=30_000)
        load.click()
        summary = page.get_by_test_id("analysis-summary")
        expect(summary).to_be_visible(timeout=300_000)
        analysis = api(server, "GET", f"/api/tables/{tid}/analysis")  # kept: no new search
        for s in analysis["summary"]:
            line = page.get_by_test_id(f"analysis-summary-{s['seat']}")
            expect(line).to_contain_text(f"{s['decisions']} decision")
            expect(line).to_contain_text("draws")
            # Luck against skill, on one scale: the luck and the decisions' loss as bars.
            row = page.get_by_test_id(f"luck-row-{s['seat']}")
            expect(row.locator(".luck .pos, .luck .neg")).to_have_attribute(
                "data-value", fixed1(s["luck"]))
            expect(row.locator(".skill span")).to_have_attribute("data-value",
                                                                 fixed1(-s["loss"]))
            expect(row.locator(".luck")).to_have_attribute(
                "aria-label",
                re.compile("luck of the draws " + re.escape(fixed1(s["luck"])) + " points"))
        most = max(max(abs(s["luck"]), s["loss"]) for s in analysis["summary"])
        widths = page.locator("[data-testid=luck-chart] .luck-bar span").evaluate_all(
            "els => els.map((e) => e.getBoundingClientRect().width)")
        assert max(widths) == pytest.approx(120 if most >= 1 else 120 * most, abs=1)
        judged = [d for d in analysis["decisions"] if d["loss"] > 0]
        assert judged, "the random bots made no move the analysis judged a loss"
        expect(page.locator(".replay-log .analysis-note")).to_have_count(len(judged))
        for d in judged[:5]:
            note = page.get_by_test_id(f"analysis-{d['index']}")
            expect(note).to_contain_text(f"−{fixed1(d['loss'])} pts")
            expect(note).to_contain_text(f"best: {d['best']['type']}")
            if d["mark"]:
                expect(note).to_contain_text(d["mark"])
        # On the board: the banner of the move's position names the best move found.
        worst = max(judged, key=lambda d: d["loss"])
        page.evaluate(f"() => window.__cardtable.seekSeq({worst['seq']})")
        board = page.get_by_test_id("analysis-board")
        expect(board).to_contain_text(f"−{fixed1(worst['loss'])} pts")
        expect(board).to_contain_text(f"best: {worst['best']['type']}")
        expect(load).to_have_count(0)  # loaded once; the button is gone

    finally:
        ctx.close()
