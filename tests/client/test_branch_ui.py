"""Branch from here in the browser, for every game: the replay viewer of a finished
table, moved to a position, offers "Play on from here"; pressed, it opens a new table
against bots at that very position, in the chosen seat, where the person then moves."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from playwright.sync_api import Browser, expect

from engine import get_game
from tests.client.conftest import api, finished_table
from tests.conftest import ServerProcess, stored_entries
from tests.server.client import prompt_actions
from tests.waiting import until_sync

SEATS = {"einauge": 2, "keltis": 2, "loot-island": 3}


@pytest.fixture(scope="module")
def server(redis_url: str, client_dist: Path) -> Iterator[ServerProcess]:
    """A server of the built client whose bots move at once."""
    s = ServerProcess(redis_url, env={"CARDTABLE_STATIC_DIR": str(client_dist),
                                      "CARDTABLE_BOT_DELAY": "0",
                                      "CARDTABLE_BRANCHES_PER_HOUR": "1000"}).start()
    yield s
    s.stop()


def position(record: dict[str, Any]) -> tuple[int, int]:
    """``(index, seat)``: a position past the first third where one seat alone is to move
    (the bots then wait for it) and not that seat's first turn."""
    game = get_game(record["game"])
    n = len(record["actions"])
    for index in range(n // 3, n):
        state, _ = game.replay_record({**record, "actions": record["actions"][:index]})
        if len(game.to_move(state)) == 1:
            return index, game.to_move(state)[0]
    raise AssertionError("no position with one seat to move")


@pytest.mark.parametrize("game_name", sorted(SEATS))
def test_play_on_from_a_replay_position(browser: Browser, server: ServerProcess,
                                        redis_url: str, game_name: str) -> None:
    game = get_game(game_name)
    tid = finished_table(server, game_name, SEATS[game_name])
    record: Any = api(server, "GET", f"/api/tables/{tid}/record")
    index, seat = position(record)
    entries = stored_entries(redis.Redis.from_url(redis_url), tid)
    firsts = [k + 1 for k, e in enumerate(entries) if "a" in e]
    seq = firsts[index] - 1  # the last event before action `index`: `index` actions played
    ctx = browser.new_context(viewport={"width": 1366, "height": 900}, locale="en-US")
    page = ctx.new_page()
    try:
        page.goto(f"{server.url}/replay/{tid}")
        play = page.get_by_test_id("branch-play")
        expect(play).to_have_text("⑂ Play on from here", timeout=30_000)
        page.evaluate(f"() => window.__cardtable.seekSeq({seq})")
        expect(page.get_by_test_id("replay-step")).to_have_attribute("data-seq", str(seq))
        # The chooser follows the seat to move there.
        expect(page.get_by_test_id("branch-seat")).to_have_value(str(seat))
        play.click()

        page.wait_for_url(f"{server.url}/table/*")
        new_id = page.url.rsplit("/", 1)[1]
        assert new_id != tid
        summary: Any = httpx.get(f"{server.url}/api/tables/{new_id}",
                                 headers={"X-Table-Key": page.evaluate(
                                     f"() => JSON.parse(localStorage.getItem("
                                     f"'cardtable.key.{new_id}'))")}).json()
        assert summary["branch"] == {"table": tid, "index": index, "seat": seat}
        assert summary["status"] == "running" and summary["private"]
        expect(page.get_by_test_id("board")).to_be_visible()
        # The seat sees the position as it was: the public part and its own hand.
        names = [s["name"] for s in summary["seats"]]
        want, _ = game.replay_record({**record, "players": names,
                                      "actions": record["actions"][:index]})
        until_sync(lambda: page.evaluate("() => { const c = window.__cardtable.conn; "
                                         "return !!c.prompt && c.prompt.seq === c.seq; }"),
                   30, "the seat's prompt at the new table")
        assert page.evaluate("() => window.__cardtable.seat()") == seat
        view = page.evaluate("() => window.__cardtable.view()")
        assert view == json.loads(json.dumps(game.view(want, seat)))

        # The person moves at the new table: the move is in its stream and its log.
        prompt = page.evaluate("() => window.__cardtable.conn.prompt")
        action = prompt_actions(prompt, game_name)[0]
        before = page.evaluate("() => window.__cardtable.seq()")
        page.evaluate("(a) => window.__cardtable.conn.act(a)", action)

        def moved() -> bool:
            stored = stored_entries(redis.Redis.from_url(redis_url), new_id)
            return [e["a"] for e in stored if "a" in e][index:index + 1] == [action]
        until_sync(moved, 30, "the person's move stored at the new table")
        until_sync(lambda: page.evaluate("() => window.__cardtable.seq()") > before, 30,
                   "the move shown on the page")
    finally:
        ctx.close()
