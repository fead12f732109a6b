"""A tournament in the browser: four accounts, each in its own Chromium context, join a
rated two-round Swiss tournament of Einauge on its page and play both rounds through
their pages (each tournament page offers its account its board; the page goes there,
takes the account's seat by itself and plays seeded random legal actions), while a
spectator without an account watches the tournament page update live and opens a
board from it. At the end the standings are
those the tables' totals give, and each account is rated for its two games
(server/tournaments/, client-web/src/tournaments.js)."""

from __future__ import annotations

import re
import time
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from server.accounts import ratings
from server.tournaments.standings import game_points
from tests.client.conftest import api, autoplay, page_seed
from tests.conftest import ServerProcess
from tests.server.client import unique

ENDED = "() => { const v = window.__cardtable?.view?.(); return !!v && v.phase === 'ended'; }"
# A player's page plays its own seat through its connection: a seeded random legal action
# of each prompt (as tests/client/test_result_ui.py does).
AUTOPLAY = """() => { window.__auto = setInterval(() => {
    const c = window.__cardtable.conn;
    if (c.prompt && c.prompt.seq === c.seq && !c.pending && c.view && c.view.phase !== "ended") {
        const legal = c.prompt.legal_actions;
        c.act(legal[Math.floor(window.__random() * legal.length)]);
    }
}, 30); }"""


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


def play_from_tournament_page(page: Page, boards: list[str], seed: int) -> str:
    """From the tournament page, the account's "Play your game" (offered live when its
    round starts: one of ``boards``, the round's tables) to its board, where the page
    takes the account's seat by itself and plays it with seeded random legal actions;
    returns the table id."""
    play = page.get_by_test_id("t-play")
    # Its link names this round's board (not the last round's, still "playing" for the
    # moment between a game's end and the tournament's record of it).
    expect(play).to_have_attribute(
        "href", re.compile("^/table/(" + "|".join(map(re.escape, boards)) + ")$"),
        timeout=30_000)
    table = (play.get_attribute("href") or "").rsplit("/", 1)[-1]
    play.click()
    page.wait_for_url(f"**/table/{table}")
    expect(page.get_by_test_id("board")).to_be_visible()
    page.wait_for_function("() => Number.isInteger(window.__cardtable?.seat?.())",
                           timeout=30_000)
    autoplay(page, AUTOPLAY, seed)
    return table


def wait_ended(page: Page) -> None:
    """The page's game has ended (a busy machine plays the two games of a round on six
    pages at once: minutes); else fail with what the page's connection holds."""
    try:
        page.wait_for_function(ENDED, timeout=300_000)
    except PlaywrightTimeout:
        state = page.evaluate("""() => { const c = window.__cardtable.conn;
            return {url: location.pathname, seat: c.seat, seq: c.seq, pending: !!c.pending,
                    prompt: c.prompt ? c.prompt.seq : null, phase: c.view && c.view.phase}; }""")
        raise AssertionError(f"the game did not end on the page: {state}") from None


def expected_points(t: dict[str, Any]) -> dict[str, float]:
    out = {row["player"]: 0.0 for row in t["standings"]}
    for b in t["boards"]:
        scores = httpx.get(f"{t['_base']}/api/tables/{b['table']}").json()["scores"]
        places = ratings.ranks({"scores": [{"total": s} for s in scores]})
        assert places is not None
        for seat, name in enumerate(b["players"]):
            out[name] += game_points(places, seat, "swiss")
    return out


@pytest.mark.timeout(1200)
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
    expect(spectator.get_by_test_id("tournament-schedule")).to_contain_text("starts ")
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
    expect(spectator.get_by_test_id("tournament-schedule")).to_contain_text("started ")

    tables: dict[int, set[str]] = {}
    for round_no in (1, 2):
        # The spectator sees the round's boards and watches one.
        expect(spectator.get_by_test_id("tournament")).to_have_attribute(
            "data-round", str(round_no), timeout=30_000)
        current = spectator.get_by_test_id("boards-current").locator("a")
        expect(current).to_have_count(2, timeout=30_000)
        boards = [(current.nth(i).get_attribute("href") or "").rsplit("/", 1)[-1]
                  for i in range(2)]
        # The spectator opens one from the tournament page, in a page of its own.
        watch = watcher.new_page()
        watch.goto(f"{web.url}/tournament/{tid}")
        link = watch.get_by_test_id("boards-current").locator("a").first
        board = (link.get_attribute("href") or "").rsplit("/", 1)[-1]
        link.click()
        watch.wait_for_url(f"**/table/{board}")
        expect(watch.get_by_test_id("board")).to_be_visible()
        assert watch.evaluate("() => window.__cardtable.conn.seat") is None  # a spectator
        # The board is named by its tournament and round, in the page's language.
        expect(watch.get_by_test_id("table-title")).to_have_text(f"Browser cup · round {round_no}")
        watch.get_by_test_id("lang-de").click()
        expect(watch.get_by_test_id("table-title")).to_have_text(f"Browser cup · Runde {round_no}")
        watch.get_by_test_id("lang-en").click()
        # Each player's page goes from the tournament page to its board and plays there.
        seed = page_seed(request) + 10 * round_no
        tables[round_no] = {play_from_tournament_page(page, boards, seed + i)
                            for i, (_, _, page, _) in enumerate(players)}
        assert tables[round_no] == set(boards)
        for _, _, page, _ in players:
            wait_ended(page)
            page.evaluate("() => clearInterval(window.__auto)")
        wait_ended(watch)  # the watched game to its end
        watch.close()
        for _, _, page, _ in players:  # back to the tournament for the next round
            page.go_back()
            expect(page.get_by_test_id("tournament")).to_be_visible()
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
    # Profiles list the tournament with the player's result: "won" for the first.
    for row in (got["standings"][0], got["standings"][-1]):
        spectator.goto(f"{web.url}/players/{row['player']}")
        expect(spectator.get_by_test_id("rating-einauge")).to_be_visible()
        listed = spectator.get_by_test_id("profile-tournaments").get_by_test_id(
            f"tournament-{tid}")
        expect(listed).to_be_visible()
        if row["rank"] == 1:
            expect(listed.get_by_test_id(f"t-won-{tid}")).to_have_text("won")
        else:
            expect(listed.get_by_test_id(f"t-place-{tid}")).to_have_text(
                f"place {row['rank']}")
    spectator.goto(f"{web.url}/tournaments")
    expect(spectator.get_by_test_id("tournaments-finished")
           .get_by_test_id(f"tournament-{tid}")).to_be_visible()
    for _, ctx, _, _ in players:
        ctx.close()
    watcher.close()
