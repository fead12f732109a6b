"""The analysis of a finished game of each game on its end screen (a line per player:
decisions, and the luck in words, and the luck-against-skill chart) and in the replay
viewer, and its "Try the best move here": beside a move the analysis judged a loss, the
button opens a new table against bots at the position just before that move, the judged
seat (the learner's) to move there, with the best move found among the moves it is
offered."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, expect

from engine import get_game
from tests.client.conftest import api, finished_table, fixed1
from tests.conftest import ServerProcess
from tests.server.client import prompt_actions
from tests.waiting import until_sync

SEATS = {"einauge": 2, "keltis": 2, "loot-island": 3}


@pytest.fixture(scope="module")
def server(redis_url: str, client_dist: Path) -> Iterator[ServerProcess]:
    """A server of the built client whose bots move at once and whose analyses use the
    smallest budget."""
    s = ServerProcess(redis_url, env={"CARDTABLE_STATIC_DIR": str(client_dist),
                                      "CARDTABLE_BOT_DELAY": "0",
                                      "CARDTABLE_ANALYSIS_BUDGET_MS": "4",
                                      "CARDTABLE_ANALYSES_PER_HOUR": "1000",
                                      "CARDTABLE_BRANCHES_PER_HOUR": "1000"}).start()
    yield s
    s.stop()



def lone_mover(record: dict[str, Any], decisions: list[dict[str, Any]]) -> dict[str, Any]:
    """The first decision judged a loss where its seat alone was to move (the bots at the
    new table then wait for it: the position stays as it was until the learner moves)."""
    game = get_game(record["game"])
    for d in decisions:
        if d["loss"] <= 0:
            continue
        state, _ = game.replay_record({**record, "actions": record["actions"][:d["index"]]})
        if tuple(game.to_move(state)) == (d["seat"],):
            return d
    raise AssertionError("no judged decision with its seat alone to move")


@pytest.mark.parametrize("game_name", sorted(SEATS))
def test_the_analysis_in_the_replay_and_try_the_best_move_here(
        browser: Browser, server: ServerProcess, game_name: str) -> None:
    game = get_game(game_name)
    tid = finished_table(server, game_name, SEATS[game_name])
    record: Any = api(server, "GET", f"/api/tables/{tid}/record")
    ctx = browser.new_context(viewport={"width": 1366, "height": 900}, locale="en-US")
    page = ctx.new_page()
    try:
        # The end screen, to a spectator: the analysis on request.
        page.goto(f"{server.url}/table/{tid}")
        result = page.get_by_test_id("result")
        expect(result).to_be_visible(timeout=30_000)
        result.get_by_test_id("analysis-load").click()
        expect(result.get_by_test_id("analysis-summary")).to_be_visible(timeout=300_000)
        analysis: Any = api(server, "GET", f"/api/tables/{tid}/analysis")  # cached: no search
        names = record["players"]
        for s in analysis["summary"]:
            line = result.get_by_test_id(f"analysis-summary-{s['seat']}")
            expect(line).to_contain_text(f"{s['decisions']} decision")
            n, name = fixed1(abs(s["luck"])), names[s["seat"]]
            expect(line).to_contain_text(
                f"The cards favoured {name}: about {n} points" if s["luck"] >= 1 else
                f"The cards went against {name}: the draws cost about {n} points"
                if s["luck"] <= -1 else f"For {name} the draws evened out.")
            row = result.get_by_test_id(f"luck-row-{s['seat']}")
            expect(row.locator(".luck .pos, .luck .neg")).to_have_attribute(
                "data-value", fixed1(s["luck"]))

        page.goto(f"{server.url}/replay/{tid}")
        load = page.get_by_test_id("analysis-load")
        expect(load).to_be_visible(timeout=30_000)
        load.click()
        expect(page.get_by_test_id("analysis-summary")).to_be_visible(timeout=30_000)
        # Every action judged once, in the record's order.
        assert [d["index"] for d in analysis["decisions"]] == list(range(len(record["actions"])))
        judged = [d for d in analysis["decisions"] if d["loss"] > 0]
        expect(page.locator(".replay-log .analysis-note")).to_have_count(len(judged))
        for s in analysis["summary"]:
            expect(page.get_by_test_id(f"analysis-summary-{s['seat']}")).to_contain_text(
                f"{s['decisions']} decision")

        d = lone_mover(record, analysis["decisions"])
        page.evaluate(f"() => window.__cardtable.seekSeq({d['seq']})")
        board = page.get_by_test_id("analysis-board")
        expect(board).to_contain_text(f"−{fixed1(d['loss'])} pts")
        expect(board).to_contain_text(f"best: {d['best']['type']}")
        try_best = page.get_by_test_id("branch-best")
        expect(try_best).to_have_text("Try the best move here")
        try_best.click()

        page.wait_for_url(f"{server.url}/table/*")
        new_id = page.url.rsplit("/", 1)[1]
        assert new_id != tid
        key = page.evaluate(f"() => JSON.parse(localStorage.getItem('cardtable.key.{new_id}'))")
        summary: Any = httpx.get(f"{server.url}/api/tables/{new_id}",
                                 headers={"X-Table-Key": key}).json()
        assert summary["branch"] == {"table": tid, "index": d["index"], "seat": d["seat"]}
        assert summary["status"] == "running" and summary["private"]
        # The learner's seat, to move, at the position just before the judged move: the
        # public part and its own hand as they were.
        until_sync(lambda: page.evaluate("() => { const c = window.__cardtable.conn; "
                                         "return !!c.prompt && c.prompt.seq === c.seq; }"),
                   30, "the learner's prompt at the new table")
        assert page.evaluate("() => window.__cardtable.seat()") == d["seat"]
        names = [s["name"] for s in summary["seats"]]
        want, _ = game.replay_record({**record, "players": names,
                                      "actions": record["actions"][:d["index"]]})
        view = page.evaluate("() => window.__cardtable.view()")
        assert view == json.loads(json.dumps(game.view(want, d["seat"])))
        # The best move found is one the learner may play there (the move played too).
        offered = prompt_actions(page.evaluate("() => window.__cardtable.conn.prompt"),
                                 game_name)
        assert d["best"] in offered and d["action"] in offered
        assert d["best"] != d["action"]
    finally:
        ctx.close()
