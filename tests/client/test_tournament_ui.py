"""A tournament in the browser: four accounts, each in its own Chromium context, join a
rated two-round Swiss tournament of Einauge on its page and play both rounds (each page
offers its account its board; the seat is played with random legal moves over the
websocket, with the token the account gets for it), while a spectator without an
account watches the page update live and opens a board. At the end the standings are
those the tables' totals give, and each account is rated for its two games
(server/tournaments/, client-web/src/tournaments.js)."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from server.accounts import ratings
from server.tournaments.standings import game_points
from tests.client.conftest import api, page_seed
from tests.conftest import ServerProcess
from tests.server.client import Player, unique

ENDED = "() => { const v = window.__cardtable?.view?.(); return !!v && v.phase === 'ended'; }"


def account_context(browser: Browser, web: ServerProcess) -> tuple[str, BrowserContext, Page, str]:
    """A new context logged in as a new account (signed up through the context's own
    request client, so the page has the session cookie); returns its name, the context,
    a page and the session's CSRF token."""
    ctx = browser.new_context(viewport={"width": 1366, "height": 900}, locale="en-US")
    name = unique("tu")
    r = ctx.request.post(f"{web.url}/api/account/signup",
                         data={"username": name, "password": "correct horse 1"})
    assert r.status == 201, r.text()
    return name, ctx, ctx.new_page(), r.json()["csrf"]


def my_board(page: Page, ctx: BrowserContext, web: ServerProcess, tid: str) -> tuple[str, str]:
    """The board the tournament page offers its account ("Play your game", pushed to the
    page when the round starts), and that seat's token (``GET /api/me/tables/{id}`` in
    the page's session, as the table page asks it)."""
    play = page.get_by_test_id("t-play")
    expect(play).to_be_visible(timeout=30_000)
    table = (play.get_attribute("href") or "").rsplit("/", 1)[-1]
    held = ctx.request.get(f"{web.url}/api/me/tables/{table}")
    assert held.status == 200, held.text()
    return table, held.json()["token"]


def play_out(web: ServerProcess, seats: list[tuple[str, str]], seed: int) -> None:
    """Every seat plays random legal moves to its game's end over the websocket, in a
    thread of its own (the sync browser API holds this thread's event loop)."""
    def run() -> None:
        async def all_seats() -> None:
            players = [Player(lambda: web.ws_url, table, token, seed + i)
                       for i, (table, token) in enumerate(seats)]
            await asyncio.gather(*(p.run(180) for p in players))
        asyncio.run(all_seats())
    errors: list[BaseException] = []
    worker = threading.Thread(target=lambda: _catch(run, errors))
    worker.start()
    worker.join()
    assert not errors, errors


def _catch(fn: Any, errors: list[BaseException]) -> None:
    try:
        fn()
    except BaseException as e:  # handed to the test's thread
        errors.append(e)


def expected_points(t: dict[str, Any]) -> dict[str, float]:
    out = {row["player"]: 0.0 for row in t["standings"]}
    for b in t["boards"]:
        scores = httpx.get(f"{t['_base']}/api/tables/{b['table']}").json()["scores"]
        places = ratings.ranks({"scores": [{"total": s} for s in scores]})
        assert places is not None
        for seat, name in enumerate(b["players"]):
            out[name] += game_points(places, seat, "swiss")
    return out


@pytest.mark.timeout(600)
def test_four_accounts_play_a_swiss_tournament_watched_by_a_spectator(
        browser: Browser, web: ServerProcess, request: pytest.FixtureRequest) -> None:
    players = [account_context(browser, web) for _ in range(4)]
    _, creator_ctx, creator_page, csrf = players[0]
    made = creator_ctx.request.post(f"{web.url}/api/tournaments", headers={"X-CSRF-Token": csrf},
                                    data={"name": "Browser cup", "game": "einauge",
                                          "kind": "swiss", "seats": 2, "rounds": 2,
                                          "time_control": {"kind": "live", "preset": "fast"},
                                          "rated": True, "starts_at": time.time() + 3600})
    assert made.status == 201, made.text()
    tid = made.json()["id"]
    watcher = browser.new_context(viewport={"width": 1366, "height": 900}, locale="en-US")
    spectator = watcher.new_page()
    spectator.goto(f"{web.url}/tournament/{tid}")
    expect(spectator.get_by_test_id("tournament-status")).to_have_text("scheduled")
    expect(spectator.get_by_test_id("t-join")).to_have_count(0)  # no account: no join
    for name, _, page, _ in players:
        page.goto(f"{web.url}/tournament/{tid}")
        page.get_by_test_id("t-join").click()
        expect(page.get_by_test_id("t-withdraw")).to_be_visible()
        # The spectator's page gets each join pushed (no reload).
        expect(spectator.get_by_test_id(f"standing-{name}")).to_be_visible()
    expect(spectator.get_by_test_id("standings").locator("tbody tr")).to_have_count(4)
    creator_page.get_by_test_id("t-start").click()
    expect(spectator.get_by_test_id("tournament-status")).to_have_text("running")

    tables: dict[int, set[str]] = {}
    for round_no in (1, 2):
        # The spectator sees the round's boards and watches one.
        expect(spectator.get_by_test_id("tournament")).to_have_attribute(
            "data-round", str(round_no), timeout=30_000)
        current = spectator.get_by_test_id("boards-current").locator("a")
        expect(current).to_have_count(2, timeout=30_000)
        board_href = current.first.get_attribute("href") or ""
        watch = watcher.new_page()
        watch.goto(f"{web.url}{board_href}")
        expect(watch.get_by_test_id("board")).to_be_visible()
        assert watch.evaluate("() => window.__cardtable.conn.seat") is None  # a spectator
        # Each page offers its account its board; the seats are played out at once.
        seats = [my_board(page, ctx, web, tid) for _, ctx, page, _ in players]
        tables[round_no] = {table for table, _ in seats}
        assert len(tables[round_no]) == 2
        play_out(web, seats, page_seed(request) + 10 * round_no)
        watch.wait_for_function(ENDED, timeout=60_000)  # the watched game to its end
        watch.close()
    assert not tables[1] & tables[2]

    expect(spectator.get_by_test_id("tournament-status")).to_have_text("finished",
                                                                        timeout=30_000)
    got = api(web, "GET", f"/api/tournaments/{tid}")
    assert isinstance(got, dict)
    assert {b["table"] for b in got["boards"]} == tables[1] | tables[2]
    points = expected_points({**got, "_base": web.url})
    for row in got["standings"]:
        assert row["points"] == points[row["player"]], row
        expect(spectator.get_by_test_id(f"points-{row['player']}")).to_have_text(
            f"{round(row['points'] * 100) / 100:g}")
    ranks = [spectator.get_by_test_id("standings").locator("tbody tr").nth(i)
             .get_attribute("data-points") for i in range(4)]
    assert [float(x or 0) for x in ranks] == sorted((float(x or 0) for x in ranks),
                                                    reverse=True)
    expect(spectator.get_by_test_id("boards-done").locator("li")).to_have_count(4)
    # Ratings: each account rated once per game, shown on its profile with the tournament.
    for name, _, _, _ in players:
        profile = api(web, "GET", f"/api/players/{name}")
        assert isinstance(profile, dict)
        assert profile["ratings"]["einauge"]["games"] == 2, name
    spectator.goto(f"{web.url}/players/{players[1][0]}")
    expect(spectator.get_by_test_id("rating-einauge")).to_be_visible()
    expect(spectator.get_by_test_id("profile-tournaments")
           .get_by_test_id(f"tournament-{tid}")).to_be_visible()
    spectator.goto(f"{web.url}/tournaments")
    expect(spectator.get_by_test_id("tournaments-finished")
           .get_by_test_id(f"tournament-{tid}")).to_be_visible()
    for _, ctx, _, _ in players:
        ctx.close()
    watcher.close()
