"""The end of a game in the browser: the result with every player's total at the top of
the page (no scrolling, at 1366×900 and 390×844), and the rematch in one click with
bots coming along in their rotated seats."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.client.conftest import api, autoplay, page_seed, seed_storage, shot
from tests.conftest import ServerProcess

VIEW = "() => window.__cardtable.view()"
# The page plays its own seat through its connection (any legal action of the prompt),
# so that a game with two bots ends in seconds.
AUTOPLAY = """() => { window.__auto = setInterval(() => {
    const c = window.__cardtable.conn;
    if (c.prompt && c.prompt.seq === c.seq && !c.pending && c.view && c.view.phase !== "ended") {
        const legal = c.prompt.legal_actions;
        c.act(legal[Math.floor(window.__random() * legal.length)]);
    }
}, 30); }"""


@dataclass
class Ended:
    table_id: str
    ctx: BrowserContext
    page: Page


@pytest.fixture(scope="module")
def ended(browser: Browser, web: ServerProcess, request: pytest.FixtureRequest) -> Iterator[Ended]:
    """A 3-seat table, Anna and two random bots, played to the end by Anna's page."""
    table = api(web, "POST", "/api/tables", json={"seats": 3, "name": "Result table"})
    tid = table["id"]
    anna = api(web, "POST", f"/api/tables/{tid}/join", json={"name": "Anna"})
    for seat in (1, 2):
        api(web, "POST", f"/api/tables/{tid}/seats/{seat}/bot", json={"kind": "random"},
            headers={"Authorization": f"Bearer {table['owner_token']}"})
    api(web, "POST", f"/api/tables/{tid}/start",
        headers={"Authorization": f"Bearer {table['owner_token']}"})
    ctx = browser.new_context(viewport={"width": 1366, "height": 900}, locale="en-US")
    seat = json.dumps({**anna, "name": "Anna"})
    seed_storage(ctx, {f"cardtable.seat.{tid}": seat})
    page = ctx.new_page()
    page.goto(f"{web.url}/table/{tid}")
    expect(page.get_by_test_id("board")).to_be_visible()
    autoplay(page, AUTOPLAY, page_seed(request))
    page.wait_for_function(
        "() => { const v = window.__cardtable?.view(); return v && v.phase === 'ended'; }",
        timeout=120_000)
    page.evaluate("() => clearInterval(window.__auto)")
    yield Ended(tid, ctx, page)
    ctx.close()


def assert_result_on_top(page: Page, height: int) -> None:
    page.evaluate("() => window.scrollTo(0, 0)")
    # (The autoplay may have raced a prompt: its "choose again" toast is not the point.)
    page.evaluate("() => document.querySelector('[data-testid=toast]').classList.remove('show')")
    view = page.evaluate(VIEW)
    panel = page.get_by_test_id("result")
    expect(panel).to_be_visible()
    assert page.evaluate("() => window.scrollY") == 0
    box = panel.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height, box
    board = page.get_by_test_id("board").bounding_box()
    assert board is not None and board["y"] >= box["y"] + box["height"]  # above the board
    for s in view["result"]["scores"]:
        total = page.get_by_test_id(f"result-total-{s['seat']}")
        expect(total).to_have_text(str(s["total"]))
        tb = total.bounding_box()
        assert tb is not None and tb["y"] + tb["height"] <= height
    winners = [view["players"][i]["name"] for i in view["result"]["winners"]]
    expect(page.get_by_test_id("result-winners")).to_contain_text(winners[0])
    expect(page.get_by_test_id("rematch")).to_be_visible()
    rb = page.get_by_test_id("rematch").bounding_box()
    assert rb is not None and rb["y"] + rb["height"] <= height


def test_every_total_at_the_top_on_a_desktop(ended: Ended) -> None:
    assert_result_on_top(ended.page, 900)
    # Ranked by total, highest first.
    totals = [int(x) for x in ended.page.locator(".result-total").all_inner_texts()]
    assert totals == sorted(totals, reverse=True) and len(totals) == 3
    shot(ended.page, "end-screen", full_page=False)


def test_every_total_at_the_top_on_a_phone(ended: Ended) -> None:
    ended.page.set_viewport_size({"width": 390, "height": 844})
    try:
        assert_result_on_top(ended.page, 844)
        assert ended.page.evaluate("document.documentElement.scrollWidth") <= 390
        shot(ended.page, "phone-end-screen", full_page=False)
    finally:
        ended.page.set_viewport_size({"width": 1366, "height": 900})


def test_the_fairness_seeds_and_the_replay_s_way_back(ended: Ended, web: ServerProcess) -> None:
    page = ended.page
    summary = api(web, "GET", f"/api/tables/{ended.table_id}")
    seeds = page.get_by_test_id("fairness").locator("ol.seeds > li")
    # The list numbers the seats; each item names its seat and its contribution, once.
    none = {"bot": "none (a bot adds no seed)", "human": "none given"}
    expect(seeds).to_have_text([f"{x['name']}: {c or none[x['kind']]}" for x, c in
                                zip(summary["seats"], summary["contributions"], strict=True)])
    replay = ended.ctx.new_page()
    replay.goto(f"{web.url}/replay/{ended.table_id}")
    back = replay.locator(f"a[href='/table/{ended.table_id}']")
    expect(back).to_have_text("↩ Result table")
    # The replay names its game, in the page and in the window's title; so does the table.
    expect(replay.get_by_test_id("replay-game")).to_have_text(" · Einauge sei wachsam!")
    expect(replay).to_have_title("Replay · Einauge sei wachsam!")
    replay.close()
    expect(page.get_by_test_id("table-game")).to_have_text("Einauge sei wachsam!")
    expect(page.get_by_test_id("table-title")).to_have_text("Result table")


def test_rematch_in_one_click_with_the_bots(ended: Ended, web: ServerProcess) -> None:
    page = ended.page
    page.get_by_test_id("rematch").click()
    page.wait_for_url(lambda url: ended.table_id not in url)
    new_id = page.url.rstrip("/").rsplit("/", 1)[1]
    # Anna is the only person: her click starts the game, in her rotated seat.
    expect(page.get_by_test_id("board")).to_be_visible()
    page.wait_for_function("() => window.__cardtable?.seat() === 1")
    summary = api(web, "GET", f"/api/tables/{new_id}")
    assert summary["rematch_of"] == ended.table_id and summary["status"] == "running"
    assert [(s["name"], s["kind"]) for s in summary["seats"]] == [
        ("Random bot 1", "bot"), ("Anna", "human"), ("Random bot 3", "bot")]
    assert api(web, "GET", f"/api/tables/{ended.table_id}")["rematch"] == new_id
    view = page.evaluate(VIEW)
    assert view["players"][1]["name"] == "Anna"
    # The browser contributed its seed to the new table, and holds its owner token.
    assert summary["seats"][1]["seeded"]
    assert page.evaluate(f"() => !!localStorage.getItem('cardtable.owner.{new_id}')")
    # Back at the old table the button now accepts the same rematch (no second table).
    page.go_back()
    expect(page.get_by_test_id("rematch")).to_have_text("Accept the rematch")
    page.get_by_test_id("rematch").click()
    page.wait_for_url(f"**/table/{new_id}")


def test_the_other_player_sees_the_offer_and_accepting_starts(
        browser: Browser, web: ServerProcess, request: pytest.FixtureRequest) -> None:
    table = api(web, "POST", "/api/tables", json={"seats": 2, "name": "Two people"})
    tid = table["id"]
    seats = [api(web, "POST", f"/api/tables/{tid}/join", json={"name": n}) for n in ("Anna", "Ben")]
    api(web, "POST", f"/api/tables/{tid}/start",
        headers={"Authorization": f"Bearer {table['owner_token']}"})
    contexts, pages = [], []
    for seat, name in zip(seats, ("Anna", "Ben"), strict=True):
        ctx = browser.new_context(viewport={"width": 1366, "height": 900}, locale="en-US")
        saved = json.dumps({**seat, "name": name})
        seed_storage(ctx, {f"cardtable.seat.{tid}": saved})
        page = ctx.new_page()
        page.goto(f"{web.url}/table/{tid}")
        expect(page.get_by_test_id("board")).to_be_visible()
        autoplay(page, AUTOPLAY, page_seed(request))
        contexts.append(ctx)
        pages.append(page)
    anna, ben = pages
    for page in pages:
        page.wait_for_function(
            "() => { const v = window.__cardtable?.view(); return v && v.phase === 'ended'; }",
            timeout=120_000)
        page.evaluate("() => clearInterval(window.__auto)")
    expect(ben.get_by_test_id("rematch")).to_have_text("Rematch")
    anna.get_by_test_id("rematch").click()
    anna.wait_for_url(lambda url: tid not in url)
    new_id = anna.url.rstrip("/").rsplit("/", 1)[1]
    # Anna waits at the new table for Ben, whose seat is kept for him.
    expect(anna.get_by_test_id("waiting-0")).to_be_visible()
    expect(anna.get_by_test_id("waiting-text")).to_have_text(
        "The rematch starts by itself once every invited player has accepted.")
    expect(anna.get_by_test_id("start")).to_be_disabled()
    # Ben is offered it at the old table, live, and accepts in one click.
    expect(ben.get_by_test_id("rematch-offer")).to_be_visible()
    expect(ben.get_by_test_id("rematch")).to_have_text("Accept the rematch")
    ben.get_by_test_id("rematch").click()
    ben.wait_for_url(f"**/table/{new_id}")
    for page, seat in ((anna, 1), (ben, 0)):
        expect(page.get_by_test_id("board")).to_be_visible()
        page.wait_for_function(f"() => window.__cardtable?.seat() === {seat}")
    assert api(web, "GET", f"/api/tables/{new_id}")["status"] == "running"
    for c in contexts:
        c.close()


def test_a_game_that_ends_between_the_lobby_s_two_reads_is_listed_once(
        ended: Ended, web: ServerProcess) -> None:
    """The lobby reads the live tables and the finished ones in two requests; a game that
    ends between them comes back in both (here the live answer is the one the server
    gave while the game ran). It is listed once, as finished."""
    summary = api(web, "GET", f"/api/tables/{ended.table_id}")
    assert summary["status"] == "ended"
    stale = {"tables": [{**summary, "status": "running"}]}
    page = ended.ctx.new_page()
    page.route(f"{web.url}/api/tables",
               lambda route: route.fulfill(json=stale) if route.request.method == "GET"
               else route.continue_())
    page.goto(f"{web.url}/")
    rows = page.get_by_test_id(f"table-row-{ended.table_id}")
    expect(page.get_by_test_id(f"replay-{ended.table_id}")).to_be_visible()
    expect(rows).to_have_count(1)
    expect(page.get_by_test_id(f"watch-{ended.table_id}")).to_have_count(0)
    page.close()


def test_a_game_every_person_resigned_shows_no_winner(page: Page, web: ServerProcess) -> None:
    """docs/rules.md, "Resigning": a resigned seat cannot win, and if every winner
    resigned the table lists no winner. The table page said "Bert wins" (the engine's
    winner, whom a bot replaced) while the lists said "Winner: ·" with no name."""
    table = api(web, "POST", "/api/tables", json={"seats": 2, "name": "All resigned"})
    tid = table["id"]
    owner = {"Authorization": f"Bearer {table['owner_token']}"}
    seats = [api(web, "POST", f"/api/tables/{tid}/join", json={"name": n})
             for n in ("Anna", "Bert")]
    api(web, "POST", f"/api/tables/{tid}/start", headers=owner)
    for s in seats:
        api(web, "POST", f"/api/tables/{tid}/resign",
            headers={"Authorization": f"Bearer {s['token']}"})
    page.goto(f"{web.url}/table/{tid}")
    # The bots' moves are shown at once (a spectator's page paces them otherwise).
    page.get_by_test_id("pace").select_option("off")
    page.wait_for_function(
        "() => { const v = window.__cardtable?.view(); return v && v.phase === 'ended'; }",
        timeout=120_000)
    view = page.evaluate(VIEW)
    assert view["result"]["winners"], "the engine names a winner: the page must not show it"
    expect(page.get_by_test_id("turn-banner")).not_to_contain_text("voided")
    expect(page.get_by_test_id("result-winners")).to_have_text("No winner")
    assert page.locator("[data-testid=result] li.winner").count() == 0
    page.goto(f"{web.url}/")
    row = page.get_by_test_id(f"lobby-result-{tid}")
    totals = " : ".join(str(s["total"]) for s in sorted(view["result"]["scores"],
                                                         key=lambda s: s["seat"]))
    expect(row).to_have_text(f"No winner · {totals}")
