"""Tables among strangers in the browser: presence, clocks, timeouts, taking a seat back,
claiming a gone player's seat and resigning (real server, Redis and Chromium; the servers'
clock is moved through ``CARDTABLE_CLOCK_FILE``, never slept)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.client.conftest import api, autoplay, page_seed, seed_storage, shot
from tests.conftest import ROOT, ServerProcess
from tests.server.client import ClockFile


@pytest.fixture(scope="module")
def clock(tmp_path_factory: pytest.TempPathFactory) -> ClockFile:
    return ClockFile(tmp_path_factory.mktemp("clock") / "offset")


@pytest.fixture(scope="module")
def clocked(redis_url: str, client_dist: Path, clock: ClockFile) -> Iterator[ServerProcess]:
    """A server serving the client with the test clock; one timeout hands a seat to a
    bot (``CARDTABLE_TIMEOUTS_TO_BOT=1``), a reload grace of 1 s."""
    s = ServerProcess(redis_url, env={**clock.env, "CARDTABLE_STATIC_DIR": str(client_dist),
                                      "CARDTABLE_BOT_DELAY": "0.2",
                                      "CARDTABLE_TIMEOUTS_TO_BOT": "1",
                                      "CARDTABLE_PRESENCE_GRACE": "1"}).start()
    yield s
    s.stop()


def sit(ctx: BrowserContext, url: str, name: str, seat: int) -> Page:
    page = ctx.new_page()
    page.goto(url)
    page.get_by_test_id("name-input").fill(name)
    page.get_by_test_id(f"take-seat-{seat}").click()
    expect(page.get_by_test_id("leave-seat")).to_be_visible()
    return page


def live_table(browser: Browser, server: ServerProcess) -> tuple[str, list[BrowserContext],
                                                                 list[Page]]:
    """Anna creates a 2-seat live (fast) table in the lobby; Anna and Ben sit and start."""
    ctxs = [browser.new_context(viewport={"width": 1366, "height": 900}, locale="en-US")
            for _ in range(2)]
    lobby = ctxs[0].new_page()
    lobby.goto(server.url + "/")
    lobby.get_by_test_id("table-name").fill("Strangers")
    lobby.get_by_test_id("seats-select").select_option("2")
    lobby.get_by_test_id("time-control-select").select_option("fast")
    lobby.get_by_test_id("create-table").click()
    lobby.wait_for_url("**/table/*")
    url = lobby.url
    table_id = url.rsplit("/", 1)[1]
    lobby.close()
    pages = [sit(ctxs[0], url, "Anna", 0), sit(ctxs[1], url, "Ben", 1)]
    expect(pages[0].get_by_test_id("seating")).to_contain_text("Live · fast")
    pages[0].get_by_test_id("start").click()
    for p in pages:
        expect(p.get_by_test_id("board")).to_be_visible()
        p.on("dialog", lambda d: d.accept())
    return table_id, ctxs, pages


def clock_of(page: Page) -> dict:
    return page.evaluate("() => window.__cardtable.conn.clock")


def finish_and_verify(server: ServerProcess, table_id: str, pages: list[Page],
                      tmp_path: Path) -> dict:
    for p in pages:
        expect(p.get_by_test_id("turn-banner")).to_have_attribute("data-phase", "ended",
                                                                  timeout=120_000)
    record = api(server, "GET", f"/api/tables/{table_id}/record")
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    out = subprocess.run([sys.executable, "-m", "cli", "verify", str(path)], cwd=ROOT,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    return record


def test_a_player_who_closes_the_page_is_away_times_out_and_comes_back(
        browser: Browser, clocked: ServerProcess, clock: ClockFile, tmp_path: Path) -> None:
    table_id, ctxs, (anna, ben) = live_table(browser, clocked)
    lobby = ctxs[1].new_page()  # the lobby shows the table's time control
    lobby.goto(clocked.url + "/")
    expect(lobby.get_by_test_id(f"tc-{table_id}")).to_contain_text(
        "Live · fast (0:15 per move + 1:00 reserve)")
    lobby.close()
    view = api(clocked, "GET", f"/api/tables/{table_id}/view")
    assert view["current_seat"] == 0, "Anna (seat 0) moves first"
    for p in (anna, ben):
        expect(p.get_by_test_id("presence-text-0")).to_have_text("online")
        expect(p.get_by_test_id("presence-text-1")).to_have_text("online")
        expect(p.get_by_test_id("clock-0")).to_contain_text("+ 1:00")  # 0:15 + 1:00, ticking
        expect(p.get_by_test_id("clock-1")).to_have_text("reserve 1:00")
    first = anna.get_by_test_id("clock-0").text_content()
    # The clock ticks (a wait for the next tick, not a fixed 1.5 s: a busy page's timers
    # can be late).
    expect(anna.get_by_test_id("clock-0")).not_to_have_text(first or "")
    anna.close()  # Anna closes the page on her turn
    expect(ben.get_by_test_id("presence-text-0")).to_contain_text("away for")
    expect(ben.get_by_test_id("spectator-count")).to_have_text("0 spectators watching")
    ben.wait_for_timeout(1200)  # the picture only: the clocks and "away for" a second on
    shot(ben, "presence-and-clocks")
    # Her move's time runs out: a bot makes it; with one timeout allowed, a bot plays on.
    clock.reach(clock_of(ben)["deadline"])
    log = ben.get_by_test_id("log")
    expect(log).to_contain_text("Anna's time ran out: a bot makes this move")
    expect(log).to_contain_text("Anna ran out of time too often: a bot plays the seat")
    expect(ben.get_by_test_id("by-bot-0")).to_have_text("a bot plays")
    # Anna comes back in the same browser: she takes her seat back.
    anna = ctxs[0].new_page()
    anna.on("dialog", lambda d: d.accept())
    anna.goto(f"{clocked.url}/table/{table_id}")
    expect(anna.get_by_test_id("toast")).to_have_text(
        "A bot plays your seat now; you can take it back.")
    anna.get_by_test_id("take-back").click()
    expect(anna.get_by_test_id("by-bot-0")).to_have_count(0)
    expect(ben.get_by_test_id("by-bot-0")).to_have_count(0)
    expect(log).to_contain_text("Anna is back and plays the seat again.")
    expect(ben.get_by_test_id("presence-text-0")).to_have_text("online")
    # Both give up: bots play to the end; the record verifies with `cardtable verify`.
    for p in (anna, ben):
        p.get_by_test_id("resign").click()
        p.get_by_test_id("confirm-yes").click()  # the page's own dialog
        expect(p.get_by_test_id("toast")).to_have_text(
            "You resigned: a bot plays your seat to the end.")
    record = finish_and_verify(clocked, table_id, [anna, ben], tmp_path)
    changes = [(c["type"], c["seat"], c.get("reason")) for c in record["seat_changes"]]
    assert changes[:3] == [("seat_timed_out", 0, None),
                           ("seat_controller_changed", 0, "timeout"),
                           ("seat_controller_changed", 0, "returned")]
    assert sorted(changes[3:]) == [("seat_controller_changed", 0, "resigned"),
                                   ("seat_controller_changed", 1, "resigned")]
    for c in ctxs:
        c.close()


def test_a_gone_player_s_seat_is_handed_to_a_bot_and_a_player_resigns(
        browser: Browser, clocked: ServerProcess, clock: ClockFile, tmp_path: Path) -> None:
    table_id, ctxs, (anna, ben) = live_table(browser, clocked)
    watcher = ctxs[1].new_page()  # a spectator's tab in a third context
    spectator_ctx = browser.new_context(locale="en-US")
    spectator = spectator_ctx.new_page()
    spectator.goto(f"{clocked.url}/table/{table_id}")
    expect(ben.get_by_test_id("spectator-count")).to_have_text("1 spectator watching")
    watcher.close()
    anna.close()
    expect(ben.get_by_test_id("presence-text-0")).to_contain_text("away for")
    expect(ben.get_by_test_id("claim-0")).to_have_count(0)  # not gone long enough yet
    # 21 s later (fast: a claim after 20 s away), before her move's time runs out (75 s).
    clock.set(clock.offset + 21)
    expect(ben.get_by_test_id("presence-text-0")).to_contain_text("gone for")
    shot(ben, "presence-gone-claim")
    ben.get_by_test_id("claim-0").click()
    ben.get_by_test_id("confirm-yes").click()  # the page's own dialog
    log = ben.get_by_test_id("log")
    expect(log).to_contain_text("Anna was gone too long: a bot plays the seat from now on.")
    expect(spectator.get_by_test_id("log")).to_contain_text("Anna was gone too long")
    expect(ben.get_by_test_id("by-bot-0")).to_have_text("a bot plays")
    # Ben resigns: the bots play both seats to the end; his seat is marked resigned.
    ben.get_by_test_id("resign").click()
    ben.get_by_test_id("confirm-yes").click()
    expect(ben.get_by_test_id("by-bot-1")).to_have_text("resigned · a bot plays")
    expect(ben.get_by_test_id("take-back")).to_have_count(0)
    record = finish_and_verify(clocked, table_id, [ben, spectator], tmp_path)
    assert [c.get("reason") for c in record["seat_changes"]] == ["abandoned", "resigned"]
    assert record["resigned"] == [1]
    summary = api(clocked, "GET", f"/api/tables/{table_id}")
    assert 1 not in summary.get("winners", [])
    # The replay shows the changes in its log too.
    replay = ben.context.new_page()
    replay.goto(f"{clocked.url}/replay/{table_id}")
    expect(replay.get_by_test_id("replay-log")).to_contain_text("Anna was gone too long")
    for c in (*ctxs, spectator_ctx):
        c.close()


def test_a_player_back_after_a_claim_is_still_the_seat_s_person(
        browser: Browser, clocked: ServerProcess, clock: ClockFile) -> None:
    table_id, ctxs, (anna, ben) = live_table(browser, clocked)
    anna.close()
    expect(ben.get_by_test_id("presence-text-0")).to_contain_text("away for")
    clock.set(clock.offset + 21)  # fast: a claim after 20 s away
    ben.get_by_test_id("claim-0").click()
    ben.get_by_test_id("confirm-yes").click()  # the page's own dialog
    expect(ben.get_by_test_id("by-bot-0")).to_have_text("a bot plays")
    # Anna comes back: her seat, played by a bot, is still hers.
    anna = ctxs[0].new_page()
    anna.on("dialog", lambda d: d.accept())
    anna.goto(f"{clocked.url}/table/{table_id}")
    expect(anna.get_by_test_id("take-back")).to_be_visible()
    expect(anna.get_by_test_id("spectator-badge")).to_have_count(0)
    expect(anna.get_by_test_id("me-bot-badge")).to_have_text("you — a bot plays your seat")
    name = anna.get_by_test_id("player-0").locator(".pname")
    expect(name).to_contain_text("(you)")
    # An unrated guest table shows no ratings, before and after taking the seat back.
    expect(anna.get_by_test_id("seat-rating-0")).to_have_count(0)
    expect(name).not_to_contain_text("?)")
    anna.get_by_test_id("take-back").click()
    expect(anna.get_by_test_id("by-bot-0")).to_have_count(0)
    expect(anna.get_by_test_id("me-bot-badge")).to_have_count(0)
    expect(name).to_have_text("Anna (you)")
    expect(anna.get_by_test_id("seat-rating-0")).to_have_count(0)
    for c in ctxs:
        c.close()


# Ticks (every 10 ms) at which the true view had ended while the page still offered
# "Resign", and ticks at which it offered it at all.
WATCH_RESIGN = """() => { window.__resign = { after: 0, seen: 0 };
    window.__watch = setInterval(() => {
        const v = window.__cardtable.view(), b = document.querySelector('[data-testid=resign]');
        if (b) window.__resign.seen += 1;
        if (b && v && v.phase === 'ended') window.__resign.after += 1;
    }, 10); }"""


def test_resign_goes_as_soon_as_the_game_has_ended(
        browser: Browser, web: ServerProcess, request: pytest.FixtureRequest) -> None:
    from tests.client.test_result_ui import AUTOPLAY
    table = api(web, "POST", "/api/tables", json={"seats": 3})
    tid = table["id"]
    anna = api(web, "POST", f"/api/tables/{tid}/join", json={"name": "Anna"})
    owner = {"Authorization": f"Bearer {table['owner_token']}"}
    for seat in (1, 2):
        api(web, "POST", f"/api/tables/{tid}/seats/{seat}/bot", json={"kind": "random"},
            headers=owner)
    api(web, "POST", f"/api/tables/{tid}/start", headers=owner)
    ctx = browser.new_context(viewport={"width": 1366, "height": 900}, locale="en-US")
    seat = json.dumps({**anna, "name": "Anna"})
    seed_storage(ctx, {f"cardtable.seat.{tid}": seat})
    page = ctx.new_page()
    page.goto(f"{web.url}/table/{tid}")
    expect(page.get_by_test_id("resign")).to_be_visible()
    page.evaluate(WATCH_RESIGN)
    autoplay(page, AUTOPLAY, page_seed(request))
    page.wait_for_function("() => { const v = window.__cardtable?.view(); "
                           "return v && v.phase === 'ended'; }", timeout=120_000)
    page.evaluate("() => clearInterval(window.__auto)")
    expect(page.get_by_test_id("result")).to_be_visible()
    # The paced moves catch up (the board shows the last seq): still no button.
    page.wait_for_function("() => window.__cardtable.behind() === 0"
                           " && window.__cardtable.shown() === window.__cardtable.seq()")
    counts = page.evaluate("() => { clearInterval(window.__watch); return window.__resign; }")
    assert counts["seen"] > 0 and counts["after"] == 0, counts
    expect(page.get_by_test_id("resign")).to_have_count(0)
    ctx.close()
