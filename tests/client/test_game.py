"""A whole game in the browser: a human seat plays only by clicking against three random
bots, a spectator and a second tab of the same seat follow it, the connection is cut and
restored mid-game, and the replay viewer shows the server's views.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.client.conftest import api, failed_load, fold, seed_storage, shot
from tests.conftest import ServerProcess
from tests.waiting import until_sync

ACT = "[data-testid^=act-]:not([disabled])"
VIEW = "() => window.__cardtable.view()"
NO_PACE = {"cardtable.pace": json.dumps("off")}


def expected_buttons(legal: list[dict]) -> set[str]:
    """The action buttons a prompt must produce: one per (kind, card)."""
    out = set()
    for a in legal:
        kind = a["type"]
        if kind == "sell_jewel":
            out.add("act-sell-jewel")
        elif kind == "pass":
            out.add("act-pass")
        else:
            out.add(f"act-{kind.replace('_card', '')}-{a['card']}")
    return out


@dataclass
class Game:
    """What the played game left for the tests to check."""

    table_id: str
    player: Page
    second_tab: Page
    spectator: Page
    contexts: list[BrowserContext]
    clicks: int = 0
    prompts_checked: int = 0
    row_choices: int = 0
    offline_states: list[str] = field(default_factory=list)
    missed_while_offline: int = 0
    gap_made: bool = False
    resumed_seq: int | None = None
    server_seq_after_resume: int | None = None


def wait_my_turn_or_end(page: Page) -> bool:
    """Wait until this seat may act (True) or the game has ended (False)."""
    page.wait_for_function(
        """() => {
            const b = document.querySelector("[data-testid=turn-banner]");
            if (b && b.dataset.phase === "ended") return true;
            return !!document.querySelector("[data-testid^='act-']:not([disabled])");
        }""", timeout=60_000)
    return page.get_by_test_id("turn-banner").get_attribute("data-phase") != "ended"


def cut_and_restore(game: Game, web: ServerProcess) -> bool:
    """At the player's turn, drop its socket; the seat's second tab plays the turn
    meanwhile, so the server moves on (the bots too). The page shows the drop, retries
    with backoff (started at its fourth step here: about 8 s) and must catch up from its
    last seq. Returns False (nothing done) when the second tab has no plain action."""
    page, tab2 = game.player, game.second_tab
    tab2.wait_for_function(
        f"() => document.querySelectorAll('{ACT}').length > 0 && window.__cardtable?.conn.prompt")
    plain = [i for i in tab2.locator(ACT).evaluate_all("els => els.map(e => e.dataset.testid)")
             if "-ship-" not in i]
    if not plain:
        return False
    # The page's retry is held until the other tab's move is stored: on a busy machine the
    # click and its storing may take longer than the backoff (6.4 s at the least), and the
    # page would then have come back before the move and missed nothing. A retry that came
    # due meanwhile runs at the release; else the backoff's own timer makes it.
    seq_before = page.evaluate("""() => {
        const c = window.__cardtable.conn;
        c.attempt = 4;
        window.__retry = c.connect;
        window.__retryDue = false;
        c.connect = () => { window.__retryDue = true; };
        c.ws.close();
        return c.seq;
    }""")
    expect(page.get_by_test_id("conn-status")).to_have_attribute("data-state", "closed")
    game.offline_states.append(page.get_by_test_id("conn-status").get_attribute("data-state"))
    tab2.get_by_test_id(plain[0]).click()
    server_seq = until_sync(
        lambda: (s := api(web, "GET", f"/api/tables/{game.table_id}")["seq"]) > seq_before
        and s, timeout=30, what="the other tab's move stored")
    game.missed_while_offline = server_seq - page.evaluate("""() => {
        const c = window.__cardtable.conn;
        delete c.connect;  // the prototype's again
        if (window.__retryDue) c.connect();
        return c.seq;
    }""")
    expect(page.get_by_test_id("conn-status")).to_have_attribute("data-state", "open",
                                                                 timeout=30_000)
    page.wait_for_function(f"() => window.__cardtable?.seq() >= {server_seq}")
    game.resumed_seq = page.evaluate("() => window.__cardtable.seq()")
    game.server_seq_after_resume = server_seq
    return True


@pytest.fixture(scope="module")
def game(browser: Browser, web: ServerProcess) -> Iterator[Game]:
    """Create, seat, start and play one 4-seat game through the UI."""
    ctx = browser.new_context(viewport={"width": 1366, "height": 900}, locale="en-US")
    # This game is about the protocol, not about following bots: moves show at once
    # (test_explains.py plays at the page's default pace).
    seed_storage(ctx, NO_PACE)
    page = ctx.new_page()
    page.goto(web.url + "/")
    page.get_by_test_id("table-name").fill("Browser test table")
    page.get_by_test_id("create-table").click()
    page.wait_for_url("**/table/*")
    table_id = page.url.rstrip("/").rsplit("/", 1)[1]

    page.get_by_test_id("name-input").fill("Anna")
    page.get_by_test_id("take-seat-0").click()
    expect(page.get_by_test_id("leave-seat")).to_be_visible()
    for seat in (1, 2, 3):
        page.get_by_test_id(f"bot-kind-{seat}").select_option("random")
        page.get_by_test_id(f"add-bot-{seat}").click()
        expect(page.get_by_test_id(f"remove-bot-{seat}")).to_be_visible()
    expect(page.get_by_test_id("start")).to_be_enabled()
    expect(page.get_by_test_id("waiting-text")).to_have_text(
        "All seats are filled: you can start the game now.")

    # A second tab of the same browser keeps the seat (token in localStorage).
    tab2 = ctx.new_page()
    tab2.goto(f"{web.url}/table/{table_id}")
    expect(tab2.get_by_test_id("leave-seat")).to_be_visible()

    page.get_by_test_id("start").click()
    expect(page.get_by_test_id("board")).to_be_visible()

    # A spectator finds the running table in the lobby and watches it.
    sctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    seed_storage(sctx, NO_PACE)
    spec = sctx.new_page()
    spec.goto(web.url + "/")
    spec.get_by_test_id("refresh").click()
    spec.get_by_test_id(f"watch-{table_id}").click()
    expect(spec.get_by_test_id("spectator-badge")).to_be_visible()
    expect(spec.get_by_test_id("board")).to_be_visible()

    g = Game(table_id, page, tab2, spec, [ctx, sctx])
    rng = random.Random(4)
    cut_done = False
    while wait_my_turn_or_end(page):
        state = page.evaluate(f"""() => ({{
            prompt: window.__cardtable.conn.prompt, seq: window.__cardtable.seq(),
            ids: [...document.querySelectorAll("{ACT}")].map(b => b.dataset.testid)}})""")
        prompt, ids = state["prompt"], state["ids"]
        if prompt and prompt["seq"] == state["seq"]:
            assert set(ids) == expected_buttons(prompt["legal_actions"])
            g.prompts_checked += 1
        if g.clicks == 6:
            shot(page, "table-mid-game", full_page=False)
        if not cut_done and g.clicks >= 5:
            cut_done = cut_and_restore(g, web)
            if cut_done:
                continue
        sells = [i for i in ids if i.startswith("act-sell")]
        others = [i for i in ids if not i.startswith("act-sell")]
        choice = rng.choice(others if others and (not sells or rng.random() < 0.85) else sells)
        ships = [i for i in others if "-ship-" in i]
        if ships:  # a ship asks for its row: take it whenever one is offered
            choice = ships[0]
        kind, _, card = choice.removeprefix("act-").partition("-")
        options = [a for a in (prompt or {}).get("legal_actions", [])
                   if a["type"] == kind and a.get("card") == card]
        if g.clicks >= 3 and not g.gap_made:
            # Pretend a delta got lost: the deltas of this action show a gap, and the page
            # must ask for a fresh view. The click and the step back happen in one task of
            # the page: a redraw between them (a presence frame, a clock tick) would find
            # the prompt no longer current and take the button away.
            page.evaluate("""(id) => {
                document.querySelector(`[data-testid="${id}"]`).click();
                window.__cardtable.conn.seq -= 1;
            }""", choice)
            g.gap_made = True
        else:
            page.get_by_test_id(choice).click()
        g.clicks += 1
        if len(options) > 1:  # the row choice: one button per row the server lists
            dialog = page.get_by_test_id("row-choice")
            expect(dialog).to_be_visible()
            opts = dialog.locator("[data-testid^='row-opt-']")
            assert sorted(o.get_attribute("data-testid") for o in opts.all()) == sorted(
                f"row-opt-{a['row']}" for a in options)
            opts.nth(rng.randrange(opts.count())).click()
            g.row_choices += 1
    print(f"\n[game] clicks={g.clicks} prompts={g.prompts_checked} row_choices={g.row_choices}")
    assert cut_done, "the game ended before the connection test could run"
    for p in (tab2, spec):
        p.wait_for_function(
            "() => { const v = window.__cardtable?.view(); return v && v.phase === 'ended'; }")
    expect(page.get_by_test_id("revealed-seed")).to_be_visible()
    shot(page, "final-scoring")
    yield g
    for c in g.contexts:
        c.close()


def test_the_human_seat_plays_to_the_end_by_clicking(game: Game, web: ServerProcess) -> None:
    view = game.player.evaluate(VIEW)
    assert view["phase"] == "ended" and view["result"]["winners"]
    assert game.clicks > 5 and game.prompts_checked > 5
    server = api(web, "GET", f"/api/tables/{game.table_id}/view")
    assert view == server
    rows = game.player.locator("[data-testid^='score-row-']")
    assert rows.count() == 4
    for s in view["result"]["scores"]:
        total = game.player.get_by_test_id(f"score-total-{s['seat']}").inner_text()
        assert int(total) == s["total"]
    names = [view["players"][i]["name"] for i in view["result"]["winners"]]
    expect(game.player.get_by_test_id("winners")).to_contain_text(names[0])


def test_the_log_tells_the_game_in_plain_language(game: Game) -> None:
    log = game.player.get_by_test_id("log")
    expect(log).to_contain_text("The game started with Anna")
    assert log.locator("li", has_text="Anna bought").count() >= 1
    expect(log).to_contain_text("The game ended.")
    view = game.player.evaluate(VIEW)
    assert log.locator("li").count() == view["seq"]


def test_spectator_and_second_tab_end_with_the_same_view(game: Game) -> None:
    final = game.player.evaluate(VIEW)
    assert game.spectator.evaluate(VIEW) == final
    assert game.second_tab.evaluate(VIEW) == final
    assert game.spectator.evaluate("() => window.__cardtable.seat()") is None
    assert game.second_tab.evaluate("() => window.__cardtable.seat()") == 0
    assert (game.spectator.get_by_test_id("score-table").inner_text()
            == game.player.get_by_test_id("score-table").inner_text())
    assert game.spectator.locator(ACT).count() == 0


def test_the_final_view_fits_a_phone_screen(game: Game) -> None:
    page = game.spectator
    page.set_viewport_size({"width": 390, "height": 844})
    expect(page.get_by_test_id("score-table")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.get_by_test_id("score").scroll_into_view_if_needed()
    shot(page, "phone-final-scoring", full_page=False)


def test_no_end_warning_once_the_game_is_over(game: Game) -> None:
    for p in (game.player, game.spectator):
        expect(p.get_by_test_id("end-triggered")).to_have_count(0)
    expect(game.player.get_by_test_id("turn-banner")).to_contain_text("win")


def test_the_table_and_its_log_switch_to_german(game: Game) -> None:
    page = game.spectator
    page.get_by_test_id("lang-de").click()
    expect(page.get_by_test_id("log")).to_contain_text("Das Spiel begann mit Anna")
    expect(page.get_by_test_id("log-panel").locator("h2")).to_have_text("Spielverlauf")
    expect(page.get_by_test_id("score-table")).to_contain_text("Summe")
    expect(page.get_by_test_id("turn-text")).to_have_text("Spielende")
    # The server names bot seats in English; the page names them in German.
    expect(page.get_by_test_id("player-1")).to_contain_text("Zufalls-Bot 2")
    expect(page.get_by_test_id("score-table")).to_contain_text("Zufalls-Bot 2")
    expect(page.get_by_test_id("log")).to_contain_text("Zufalls-Bot 2")
    assert "Random bot" not in page.get_by_test_id("players").inner_text()
    page.get_by_test_id("lang-en").click()
    expect(page.get_by_test_id("turn-text")).to_have_text("Game over")
    expect(page.get_by_test_id("log-panel").locator("h2")).to_have_text("Game log")


def test_a_dropped_connection_reconnects_and_resumes(game: Game) -> None:
    assert game.offline_states == ["closed"]
    assert game.missed_while_offline > 0
    assert game.resumed_seq is not None and game.resumed_seq >= game.server_seq_after_resume
    expect(game.player.get_by_test_id("conn-status")).to_have_attribute("data-state", "open")


def test_a_gap_in_the_deltas_is_repaired_by_a_sync(game: Game, web: ServerProcess) -> None:
    assert game.gap_made
    assert game.player.evaluate("() => window.__cardtable.conn.syncs") == 1
    server = api(web, "GET", f"/api/tables/{game.table_id}/view")
    assert game.player.evaluate(VIEW) == server
    assert game.player.evaluate("() => window.__cardtable.seq()") == server["seq"]


def test_fairness_seed_is_revealed_and_matches_the_commitment(game: Game,
                                                              web: ServerProcess) -> None:
    record = api(web, "GET", f"/api/tables/{game.table_id}/record")
    page = game.player
    expect(page.get_by_test_id("revealed-seed")).to_have_text(record["server_seed"])
    expect(page.get_by_test_id("commitment")).to_have_text(record["commitment"])
    assert hashlib.sha256(record["server_seed"].encode()).hexdigest() == record["commitment"]
    expect(page.get_by_test_id("commitment-check")).to_have_class("check ok")
    # The seat's browser contributed a seed drawn with crypto.getRandomValues.
    assert len(record["contributions"][0]) == 64


def test_replay_viewer_seeks_to_a_middle_step(game: Game, web: ServerProcess) -> None:
    page = game.player
    page.get_by_test_id("open-replay").click()
    page.wait_for_url(f"**/replay/{game.table_id}")
    data = api(web, "GET", f"/api/tables/{game.table_id}/deltas")
    total = data["seq"]
    expect(page.get_by_test_id("replay-step")).to_have_attribute("data-step", "1")
    expect(page.get_by_test_id("replay-first")).to_be_disabled()
    mid = total // 2
    page.get_by_test_id(f"replay-log-{mid}").click()
    expect(page.get_by_test_id("replay-step")).to_have_attribute("data-seq", str(mid))
    expected = fold(data["deltas"], mid)
    assert page.evaluate(VIEW) == expected
    # What the page shows is that view.
    shown = page.locator("[data-testid=display] .card").evaluate_all(
        "els => els.map(e => e.dataset.card)")
    assert shown == expected["display"]
    pirates = page.locator("[data-testid=pirate-table] .card").evaluate_all(
        "els => els.map(e => e.dataset.card)")
    assert pirates == expected["pirate_table"]
    expect(page.get_by_test_id("deck-count")).to_have_attribute(
        "data-value", str(expected["deck_count"]))
    for p in expected["players"]:
        for kind in ("sabres", "ducats", "jewels"):
            expect(page.get_by_test_id(f"{kind}-{p['seat']}")).to_have_attribute(
                "data-value", str(p[kind]))
    shot(page, "replay-viewer", full_page=False)
    # Keyboard steps go by turn: forward ends the turn of that event, back twice shows the
    # end of the turn before the one before.
    spans = page.evaluate("() => window.__cardtable.turns()")
    turn = next(i for i, (a, b) in enumerate(spans) if a <= mid <= b)
    page.get_by_test_id("replay-next").focus()
    page.keyboard.press("Enter")
    end = spans[turn][1] if mid < spans[turn][1] else spans[turn + 1][1]
    expect(page.get_by_test_id("replay-step")).to_have_attribute("data-seq", str(end))
    assert page.evaluate(VIEW) == fold(data["deltas"], end)
    now = next(i for i, (a, b) in enumerate(spans) if a <= end <= b)
    page.get_by_test_id("replay-prev").click()
    page.get_by_test_id("replay-prev").click()
    expect(page.get_by_test_id("replay-step")).to_have_attribute("data-seq", str(spans[now - 2][1]))
    assert page.evaluate(VIEW) == fold(data["deltas"], spans[now - 2][1])
    # The deck panel warns once a ship has appeared, says "Final round" in the final round.
    views = {k: fold(data["deltas"], k) for k in range(1, total + 1)}
    warned = next(k for k, v in views.items() if v.get("end_triggered") and v["phase"] == "turns")
    last_round = next(k for k, v in views.items() if v["phase"] == "final_round")
    page.evaluate(f"window.__cardtable.seekSeq({warned})")
    expect(page.get_by_test_id("end-triggered")).to_have_text(
        "A ship has appeared: the end is near!")
    page.evaluate(f"window.__cardtable.seekSeq({last_round})")
    expect(page.get_by_test_id("end-triggered")).to_have_text("Final round")
    page.get_by_test_id("replay-last").click()
    expect(page.get_by_test_id("end-triggered")).to_have_count(0)
    final = api(web, "GET", f"/api/tables/{game.table_id}/view")
    assert page.evaluate(VIEW) == final
    # The end names the winners, as the live table does.
    winner = final["players"][final["result"]["winners"][0]]["name"]
    expect(page.get_by_test_id("replay-winners")).to_contain_text(winner)
    log = page.get_by_test_id("replay-log")
    assert log.evaluate("el => el.scrollTop") > 0
    # Home goes back to where the replay opened (the start), the log to its top.
    page.keyboard.press("Home")
    expect(page.get_by_test_id("replay-step")).to_have_attribute("data-step", "1")
    assert log.evaluate("el => el.scrollTop") == 0
    page.get_by_test_id("lang-de").click()
    expect(page.get_by_test_id("replay-log-panel").locator("h2")).to_have_text("Spielverlauf")
    page.get_by_test_id("lang-en").click()


# The broken record file is refused by the server (400), which the page tells.
@pytest.mark.page_errors(failed_load(400, "/api/replay"))
def test_replay_viewer_opens_a_record_file(game: Game, web: ServerProcess,
                                           tmp_path: Path, page: Page) -> None:
    record = api(web, "GET", f"/api/tables/{game.table_id}/record")
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    page.goto(f"{web.url}/replay")
    # Without a table: an empty state that asks for a file, no endless "Loading…".
    expect(page.get_by_test_id("replay-empty")).to_contain_text("Choose a game record file (JSON)")
    expect(page.get_by_test_id("replay-slider")).to_be_hidden()
    expect(page.locator("body")).not_to_contain_text("Loading")
    shot(page, "replay-empty", full_page=False)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**record, "players": record["players"][:1]}))
    page.get_by_test_id("replay-file").set_input_files(str(bad))
    expect(page.get_by_test_id("replay-error")).to_contain_text("could not be replayed")
    expect(page.get_by_test_id("replay-empty")).to_be_visible()
    expect(page.locator("body")).not_to_contain_text("Loading")
    page.get_by_test_id("replay-file").set_input_files(str(path))
    expect(page.get_by_test_id("replay-head")).to_contain_text("game.json")
    expect(page.get_by_test_id("replay-slider")).to_be_visible()
    final = api(web, "GET", f"/api/tables/{game.table_id}/view")
    page.get_by_test_id("replay-last").click()
    view = page.evaluate(VIEW)
    # A record replays to the same game; only the table's seq bookkeeping may differ.
    assert view["result"] == final["result"]
    assert view["players"] == final["players"]
