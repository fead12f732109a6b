"""Issue 15, "the table explains itself": a newcomer's game in the browser (a person and a
random bot, the page's default pace), then the rules page, card details, the ship dialog's
payouts, the paced and highlighted bot moves, German refusals, the replay by turn, the
lobby's finished game, and a phone's sticky banner. Real server, Redis and Chromium."""

from __future__ import annotations

import asyncio
import itertools
import json
import random
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from engine.einauge.cards import CARDS
from engine.einauge.game import EINAUGE
from tests.client.conftest import api, failed_load, shot
from tests.conftest import ServerProcess
from tests.trust.wire import start_with_deck

ACT = "[data-testid^=act-]:not([disabled])"
VIEW = "() => window.__cardtable.view()"
OPTIONS = {"end_rule": "one_more_turn", "color_bonus": True}  # what the fixture's page sets
MOVES = {"card_bought", "fight_won", "fight_declined", "card_placed", "card_sold", "jewel_sold"}
# The newcomer's deck (5 colors, top first; the ships go under it). On a shuffled deck the
# newcomer was never offered a ship with a row choice in about 1 game of 100 (one such
# game looked at: under 5 ducats at her buys once the ships came, under 3 sabres in the
# final round). On this deck ``offered_a_ship`` missed in 1 of 400,000 games (seeds
# 0-399,999; seed 144,444 missed): far rarer, but a check of many games, not a proof.
NEWCOMER_DECK = [
    "yellow-6", "brown-6", "orange-8", "green-8", "brown-3", "green-7", "brown-4",
    "blue-5", "orange-2", "yellow-8", "blue-8", "blue-6", "blue-2", "blue-3", "brown-5",
    "brown-7", "green-5", "yellow-2", "orange-7", "orange-3", "orange-4", "yellow-4",
    "green-3", "orange-5", "brown-2", "blue-4", "green-4", "green-6", "blue-7", "yellow-7",
    "orange-6", "green-2", "brown-8", "yellow-3", "yellow-5"]


def offered_a_ship(deck: list[str], seed: int) -> bool:
    """Whether the fixture's newcomer (seat 0) is offered a ship with a row choice in a
    game on ``deck`` against the random bot, replayed with the pure engine; what her
    choices depend on the page for (ties, fights, passes, places, sells) and the bot's
    moves are drawn from ``random.Random(seed)``."""
    rng = random.Random(seed)
    state = EINAUGE.replay(EINAUGE.start(["Anna", "bot"], OPTIONS, "", deck))
    while not EINAUGE.is_over(state):
        legal = EINAUGE.legal_actions(state, state.current_seat)
        action = legal[rng.randrange(len(legal))]
        if state.current_seat == 0:
            ships = [a for a in legal if a.type in ("buy", "fight") and a.card.startswith("ship-")]
            buys = [a for a in legal if a.type == "buy"]
            plain = [a for a in legal if not a.type.startswith("sell")]
            if ships:
                rows = [a for a in ships if (a.type, a.card) == (ships[0].type, ships[0].card)]
                if len(rows) > 1:
                    return True
                action = ships[0]
            elif buys:
                rng.shuffle(buys)
                action = min(buys, key=lambda a: CARDS[a.card].price)
            elif plain:
                action = plain[rng.randrange(len(plain))]
        EINAUGE.play(state, action)
    return False


def test_the_newcomer_deck_offers_a_ship_with_a_row_choice_whatever_the_bot_does():
    missed = [seed for seed in range(2_000) if not offered_a_ship(NEWCOMER_DECK, seed)]
    assert missed == []


@dataclass
class Played:
    table_id: str
    page: Page
    ctx: BrowserContext
    ship_dialogs: list[dict] = field(default_factory=list)
    last_moves: list[tuple[dict, str | None, str]] = field(default_factory=list)
    german_refusal: str = ""
    badge_before_seat: int = -1
    owner_rows_mid_game: int = -1
    detail_pirate: dict | None = None
    detail_display: dict | None = None
    hint_hrefs: set[str] = field(default_factory=set)
    dialog_closed_by: list[str] = field(default_factory=list)
    early_log_height: float = -1


def wait_turn_or_end(page: Page) -> bool:
    page.wait_for_function(
        """() => {
            const b = document.querySelector("[data-testid=turn-banner]");
            if (b && b.dataset.phase === "ended") return true;
            return !!document.querySelector("[data-testid^='act-']:not([disabled])");
        }""", timeout=90_000)
    return page.get_by_test_id("turn-banner").get_attribute("data-phase") != "ended"


def look_at_cards(page: Page, g: Played) -> None:
    """Tap a pirate table card, hover a display card: the details say what the server's
    data says (fight cost from the view, price and yields from the card data)."""
    view = page.evaluate(VIEW)
    cards = api_cards = page.evaluate("() => fetch('/api/games/einauge/cards').then(r => r.json())")
    pirate = view["pirate_table"][0]
    page.locator(f"[data-testid=pirate-table] [data-card='{pirate}']").click(
        position={"x": 10, "y": 10})
    box = page.get_by_test_id("card-detail")
    expect(box).to_be_visible()
    expect(box).to_have_attribute("data-card", pirate)
    g.detail_pirate = {"card": pirate, "text": box.inner_text(),
                       "cost": view["fight_costs"][pirate], "info": api_cards["cards"][pirate],
                       "rules": page.get_by_test_id("card-detail-rules").get_attribute("href")}
    page.keyboard.press("Escape")
    expect(box).to_be_hidden()
    shown = view["display"][0]
    card = page.locator(f"[data-testid=display] [data-card='{shown}']")
    card.hover(position={"x": 10, "y": 10})
    expect(box).to_have_attribute("data-card", shown)
    expect(box).to_be_visible()
    g.detail_display = {"card": shown, "text": box.inner_text(), "info": cards["cards"][shown],
                        "rules": page.get_by_test_id("card-detail-rules").get_attribute("href")}
    shot(page, "table-card-detail", full_page=False)
    # A click on the card whose detail the hover opened keeps it open; a second closes it.
    # (The click used to toggle what the hover had opened: the pirate table card above,
    # under the mouse since the start button's click, closed when the hover came first.)
    card.click(position={"x": 10, "y": 10})
    expect(box).to_have_attribute("data-card", shown)
    expect(box).to_be_visible()
    card.click(position={"x": 10, "y": 10})
    expect(box).to_be_hidden()
    page.mouse.move(2, 2)
    page.keyboard.press("Escape")


def closes_without_a_move(page: Page, choice: str) -> list[str]:
    """Escape, a click beside the open row choice and its cancel button each close it and
    send nothing (the ship's button opens it again, its first row focused). Returns the
    ways that closed it."""
    dialog = page.get_by_test_id("row-choice")
    seq = page.evaluate("() => window.__cardtable.seq()")
    closed = []
    for how in ("escape", "beside", "cancel"):
        expect(dialog.locator("[data-testid^='row-opt-']").first).to_be_focused()
        if how == "escape":
            page.keyboard.press("Escape")
        elif how == "beside":
            page.locator(".backdrop").click(position={"x": 5, "y": 5})
        else:
            dialog.get_by_test_id("row-cancel").click()
        expect(dialog).to_be_hidden()
        closed.append(how)
        page.get_by_test_id(choice).click()  # still offered: no action was sent
        expect(dialog).to_be_visible()
    assert page.evaluate("() => window.__cardtable.seq()") == seq
    return closed


@pytest.fixture(scope="module")
def played(browser: Browser, web: ServerProcess) -> Iterator[Played]:
    ctx = browser.new_context(viewport={"width": 1366, "height": 900}, locale="en-US")
    page = ctx.new_page()
    page.goto(web.url + "/")
    page.get_by_test_id("table-name").fill("Newcomer table")
    page.get_by_test_id("seats-select").select_option("2")
    page.get_by_test_id("color-bonus").check()
    # The first edition's end: everyone gets one more turn after the first ship shows, so
    # the person meets ships in the display (and the ship dialog).
    page.get_by_test_id("end-rule-select").select_option("one_more_turn")
    page.get_by_test_id("create-table").click()
    page.wait_for_url("**/table/*")
    table_id = page.url.rstrip("/").rsplit("/", 1)[1]
    g = Played(table_id, page, ctx)
    expect(page.get_by_test_id("seating")).to_be_visible()
    g.badge_before_seat = page.get_by_test_id("spectator-badge").count()
    page.get_by_test_id("name-input").fill("Anna")
    page.get_by_test_id("take-seat-0").click()
    expect(page.get_by_test_id("leave-seat")).to_be_visible()
    page.get_by_test_id("bot-kind-1").select_option("random")
    page.get_by_test_id("add-bot-1").click()
    expect(page.get_by_test_id("remove-bot-1")).to_be_visible()
    expect(page.get_by_test_id("start")).to_be_enabled()
    # Started on NEWCOMER_DECK, not the seed's shuffle, so that the ship dialog comes for
    # certain; in a thread of its own, since Playwright's loop holds this one.
    with ThreadPoolExecutor(1) as pool:
        host = json.loads(page.evaluate(f"localStorage.getItem('cardtable.owner.{table_id}')"))
        pool.submit(asyncio.run, start_with_deck(web, table_id, NEWCOMER_DECK, host)
                    ).result()
    expect(page.get_by_test_id("board")).to_be_visible()
    rng = random.Random(15)
    turns = 0
    while wait_turn_or_end(page):
        state = page.evaluate("""() => ({prompt: window.__cardtable.conn.prompt,
            seq: window.__cardtable.seq(),
            step: document.querySelector('[data-testid=turn-banner]').dataset.step,
            ids: [...document.querySelectorAll("[data-testid^=act-]:not([disabled])")]
                .map(b => b.dataset.testid)})""")
        prompt, ids = state["prompt"], state["ids"]
        g.hint_hrefs.add(page.get_by_test_id("hint-rules").get_attribute("href"))
        if turns == 0:
            g.early_log_height = page.get_by_test_id("log").bounding_box()["height"]
            g.owner_rows_mid_game = page.locator("[data-testid^=owner-seat-]").count()
            if g.detail_pirate is None:
                look_at_cards(page, g)
        if state["step"] == "buy" and not g.german_refusal:
            # A refused action in German: the page's words for the server's code.
            page.get_by_test_id("lang-de").click()
            page.evaluate("() => window.__cardtable.conn.act({type: 'buy', card: 'ship-8'})")
            expect(page.get_by_test_id("toast")).not_to_have_text("")
            g.german_refusal = page.get_by_test_id("toast").inner_text()
            page.get_by_test_id("lang-en").click()
            page.wait_for_function(f"() => document.querySelectorAll('{ACT}').length > 0")
            continue
        last = page.evaluate("""() => {
            const c = document.querySelector('.card.last-move');
            const t = document.querySelector('[data-testid=last-move]');
            return [c ? c.dataset.card : null, t ? t.innerText : ''];
        }""")
        if state["seq"] > 1 and turns > 0 and state["step"] == "buy":
            deltas = api(web, "GET", f"/api/tables/{table_id}/deltas")["deltas"]
            events = [d["events"][0]["event"] for d in deltas[:state["seq"]]]  # one each
            moves = [e for e in events if e["type"] in MOVES]
            g.last_moves.append((moves[-1], last[0], last[1]))
        ships = [i for i in ids if "-ship-" in i and not i.startswith("act-place")]
        plain = [i for i in ids if not i.startswith("act-sell")]
        buys = sorted((i for i in plain if i.startswith("act-buy-")),
                      key=lambda i: prompt["details"][[f"act-buy-{a.get('card')}" for a in
                                                       prompt["legal_actions"]].index(i)]["cost"]["ducats"])
        # A thrifty newcomer: the cheapest card, so ducats are left when the ships come.
        choice = ships[0] if ships else buys[0] if buys else rng.choice(plain or ids)
        kind, _, card = choice.removeprefix("act-").partition("-")
        options = [(a, d) for a, d in zip(prompt["legal_actions"], prompt["details"], strict=True)
                   if a["type"] == kind and a.get("card") == card]
        page.get_by_test_id(choice).click()
        turns += 1
        if len(options) > 1:
            dialog = page.get_by_test_id("row-choice")
            expect(dialog).to_be_visible()
            shown = {o.get_attribute("data-testid").removeprefix("row-pay-"):
                     json.loads(o.get_attribute("data-payout"))
                     for o in dialog.locator("[data-testid^=row-pay-]").all()}
            g.ship_dialogs.append({"shown": shown, "text": dialog.inner_text(),
                                   "server": {a["row"]: d["payout"] for a, d in options},
                                   "rules": dialog.get_by_test_id("row-rules")
                                   .get_attribute("href")})
            if len(g.ship_dialogs) == 1:
                shot(page, "ship-dialog", full_page=False)
                g.dialog_closed_by = closes_without_a_move(page, choice)
            dialog.locator("[data-testid^='row-opt-']").first.click()
    page.wait_for_function("() => window.__cardtable.shown() === window.__cardtable.seq()")
    yield g
    ctx.close()


def test_the_creator_is_no_spectator_before_sitting_and_is_not_offered_their_own_seat(played):
    assert played.badge_before_seat == 0
    assert played.owner_rows_mid_game == 0


def test_ship_dialog_lists_each_rows_payout_as_the_server_computed(played):
    assert played.ship_dialogs, "no ship was offered with a row choice"
    for d in played.ship_dialogs:
        assert d["shown"] == d["server"]
        assert set(d["shown"]) >= {"alone"} and len(d["shown"]) >= 2
        assert "pays" in d["text"]
        # Einauge's own rules page, whichever game /rules shows by default.
        assert d["rules"] == "/rules/einauge#ships"
    assert played.dialog_closed_by == ["escape", "beside", "cancel"]


def test_card_details_say_what_a_card_yields_and_costs_where_it_lies(played):
    p, d = played.detail_pirate, played.detail_display
    assert p and d
    assert f"win it for {p['cost']} sabre" in p["text"] and "cannot be bought" in p["text"]
    assert "price" not in p["text"].lower() and "buy it" not in p["text"]
    assert f"buy it for {d['info']['price']} ducats" in d["text"]
    for box in (p, d):
        info = box["info"]
        if info["color"]:
            if info["sabres"]:
                assert f"{info['sabres']} sabre" in box["text"]
            if info["ducats"]:
                assert f"{info['ducats']} ducat" in box["text"]
            assert ("No treasure chest" in box["text"]) == (info["chests"] == 0)
    # A pirate table card's tooltip names no price either.
    title = played.page.locator("[data-testid=pirate-table] .card").first.get_attribute("title")
    assert "price" not in title and "to win" in title
    # Each detail links the section of Einauge's rules page about where the card lies.
    assert p["rules"] == "/rules/einauge#fight"
    assert d["rules"] == f"/rules/einauge#{'buy' if d['info']['color'] else 'ships'}"


def test_bot_moves_are_paced_and_the_last_move_is_highlighted(played, web: ServerProcess):
    deltas = api(web, "GET", f"/api/tables/{played.table_id}/deltas")["deltas"]
    log = played.page.evaluate("() => window.__cardtable.shownLog()")
    at = {seq: ms for seq, ms in log}
    events = [e for d in deltas for e in d["events"]]  # one per frame there
    bot_moves = [e["seq"] for e in events
                 if e["event"]["type"] in MOVES and e["event"].get("seat") == 1]
    gaps = [at[b] - at[a] for a, b in itertools.pairwise(bot_moves)
            if a in at and b in at and b - a <= 3]
    assert len(gaps) >= 5
    # The server lets the bot think 0.2 s; the page shows its moves at least 0.8 s apart.
    assert min(gaps) >= 750, gaps
    # Paced, yet nothing is skipped: the log tells every event once.
    log_seqs = played.page.locator("[data-testid=log] li").evaluate_all(
        "els => els.map(e => Number(e.dataset.seq))")
    assert log_seqs == list(range(1, len(deltas) + 1))
    assert played.last_moves
    for move, card, text in played.last_moves:
        assert text.startswith("Last move:")
        if "card" in move and move["type"] != "card_sold":  # a sold card leaves the game
            assert card == move["card"]
        if "card" in move:  # the card by its readable name ("brown 7"), never its id
            assert move["card"] not in text and move["card"].replace("-", " ") in text, text


def test_german_page_shows_a_german_refusal(played):
    assert played.german_refusal == "Diese Karte liegt nicht mehr da."


def test_every_hint_links_its_rules_section(played, web: ServerProcess):
    assert {"/rules/einauge#buy", "/rules/einauge#place"} <= played.hint_hrefs
    page = played.page
    with page.context.expect_page() as info:
        page.get_by_test_id("table-rules").click()
    rules = info.value
    expect(rules.get_by_test_id("rules-page")).to_be_visible()
    expect(rules.get_by_test_id("rules-chests")).to_contain_text("7")
    rules.close()


def test_the_log_is_no_big_empty_box_early(played):
    assert 0 < played.early_log_height < 200


def test_lobby_shows_the_finished_game_with_winner_and_totals(played, web: ServerProcess):
    view = played.page.evaluate(VIEW)
    page = played.ctx.new_page()
    page.goto(web.url + "/")
    line = page.get_by_test_id(f"lobby-result-{played.table_id}")
    expect(line).to_be_visible()
    # The winners by name and every seat's total (the lobby's result line, issue 16's form).
    for w in view["result"]["winners"]:
        assert view["players"][w]["name"].split(" ")[0] in line.inner_text()
    totals = " : ".join(str(s["total"]) for s in view["result"]["scores"])
    expect(line).to_contain_text(totals)
    page.close()


def test_the_breakdown_is_one_click_from_the_end_banner(played):
    page = played.page
    page.evaluate("window.scrollTo(0, 0)")
    page.get_by_test_id("jump-scores").click()
    expect(page.get_by_test_id("score")).to_be_in_viewport()
    for s in page.evaluate(VIEW)["result"]["scores"]:
        expect(page.get_by_test_id(f"score-total-{s['seat']}")).to_be_in_viewport()
    # "How is this scored?" opens the scoring section of Einauge's own rules page.
    link = page.get_by_test_id("score-rules")
    expect(link).to_have_attribute("href", "/rules/einauge#scoring")
    with page.context.expect_page() as info:
        link.click()
    rules = info.value
    expect(rules.get_by_test_id("rules-page")).to_have_attribute("data-game", "einauge")
    expect(rules.get_by_test_id("rules-sec-scoring")).to_be_in_viewport()
    rules.close()


def test_every_chest_award_shows_the_chests_it_was_ranked_on(played):
    view = played.page.evaluate(VIEW)
    for s in view["result"]["scores"]:
        for c in view["colors"]:
            cell = played.page.get_by_test_id(f"chest-award-{s['seat']}-{c}")
            held = view["players"][s["seat"]]["chests"].get(c, 0)
            assert cell.get_attribute("data-chests") == str(held)
            assert cell.get_attribute("data-award") == str(s["chest_awards"].get(c, 0))
            if held:
                assert f"{held} treasure chest" in cell.get_attribute("title")
        # The table plays the color bonus: its cell names the rows it counts.
        rows = len(view["players"][s["seat"]]["rows"])
        expect(played.page.get_by_test_id(f"color-bonus-{s['seat']}")).to_have_text(
            f"{s['color_bonus']} · {rows} row{'s' if rows != 1 else ''}")


def test_fairness_panel_names_seeds_and_says_bots_add_none(played):
    page = played.page
    expect(page.get_by_test_id("contribution-1")).to_contain_text("a bot adds no seed")
    expect(page.get_by_test_id("contribution-0")).to_contain_text("Anna")
    expect(page.get_by_test_id("game-seed")).to_be_hidden()  # behind "show", explained


def count_turns(events: list[dict]) -> int:
    """Turns told by the events alone: one buy (or skipped buy) per normal turn, one
    fight outcome per final-round turn."""
    normal = sum(e["type"] in ("card_bought", "buy_skipped") for e in events)
    final, started = 0, False
    for e in events:
        started = started or e["type"] == "final_round_started"
        if started and e["type"] in ("fight_won", "fight_declined", "fight_skipped"):
            final += 1
    return normal + final


# The broken record file is refused by the server (400), which the page tells.
@pytest.mark.page_errors(failed_load(400, "/api/replay"))
def test_replay_steps_by_turn_with_the_events_inside(played, web: ServerProcess,
                                                     tmp_path: Path, page: Page):
    events = api(web, "GET", f"/api/tables/{played.table_id}/events")["events"]
    record = api(web, "GET", f"/api/tables/{played.table_id}/record")
    good = tmp_path / "known.json"
    good.write_text(json.dumps(record))
    page.goto(f"{web.url}/replay")
    page.get_by_test_id("replay-file").set_input_files(str(good))
    expect(page.get_by_test_id("replay-head")).to_contain_text("known.json")
    turns = count_turns(events)
    assert page.evaluate("() => window.__cardtable.total()") == turns
    assert page.evaluate("() => window.__cardtable.events()") == len(events)
    groups = page.locator("[data-testid^=replay-turn-head-]")
    assert groups.count() == turns
    # Each turn holds one player's events; together they are every event, in order.
    spans = page.evaluate("() => window.__cardtable.turns()")
    assert spans[0][0] == 1 and spans[-1][1] == len(events)
    assert all(b[0] == a[1] + 1 for a, b in itertools.pairwise(spans))
    for first, last in spans:
        seats = {e["seat"] for e in events[first - 1:last]
                 if "seat" in e and e["type"] not in ("ship_revealed", "final_round_started")}
        assert len(seats) <= 1
    # It opens at the start (the setup as dealt, in turn 1); forward ends turn 1, then 2.
    expect(page.get_by_test_id("replay-step")).to_have_attribute("data-seq", "1")
    page.get_by_test_id("replay-next").click()
    expect(page.get_by_test_id("replay-step")).to_have_attribute("data-seq", str(spans[0][1]))
    page.get_by_test_id("replay-next").click()
    expect(page.get_by_test_id("replay-step")).to_have_attribute("data-step", "2")
    assert page.evaluate("() => window.__cardtable.seq()") == spans[1][1]
    # An event inside a turn is one click away.
    inner = spans[2][0]
    page.get_by_test_id(f"replay-log-{inner}").click()
    expect(page.get_by_test_id("replay-step")).to_have_attribute("data-seq", str(inner))
    expect(page.get_by_test_id("replay-step")).to_have_attribute("data-step", "3")
    shot(page, "replay-by-turn", full_page=False)
    # A broken file after a good one: its error, and the old game gone.
    bad = tmp_path / "broken.json"
    bad.write_text(json.dumps({**record, "players": record["players"][:1]}))
    page.get_by_test_id("replay-file").set_input_files(str(bad))
    expect(page.get_by_test_id("replay-error")).to_contain_text("could not be replayed")
    expect(page.get_by_test_id("replay-head")).not_to_contain_text("known.json")
    expect(page.get_by_test_id("replay-empty")).to_be_visible()
    expect(page.get_by_test_id("board")).to_have_count(0)


def test_rules_page_in_german_with_tables_and_every_card(page: Page, web: ServerProcess):
    page.goto(web.url + "/")
    page.get_by_test_id("lang-de").click()
    page.get_by_test_id("lobby-rules").click()
    expect(page.get_by_test_id("rules-page")).to_contain_text("Schatztruhen")
    expect(page.get_by_test_id("rules-chests")).to_contain_text("1. (meiste Truhen)")
    expect(page.get_by_test_id("rules-bonus")).to_contain_text("28")
    expect(page.get_by_test_id("rules-sec-example")).to_contain_text("21 Juwelen")
    cards = api(web, "GET", "/api/games/einauge/cards")["cards"]
    islands = [c for c in cards.values() if c["color"]]
    rows = page.get_by_test_id("rules-card-table").locator("tbody tr")
    expect(rows).to_have_count(len(islands))
    shot(page, "rules-de", full_page=False)
    page.get_by_test_id("lang-en").click()
    expect(page.get_by_test_id("rules-page")).to_contain_text("Treasure chests")
    page.goto(web.url + "/rules#fight")
    expect(page.get_by_test_id("rules-sec-fight")).to_be_in_viewport()
    shot(page, "rules", full_page=False)


def test_phone_keeps_the_turn_banner_in_view(played, web: ServerProcess):
    page = played.ctx.new_page()
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{web.url}/table/{played.table_id}")
    expect(page.get_by_test_id("board")).to_be_visible()
    # Scrolled again on every check: the page may still grow (the score table, the log)
    # after the board shows, and a single scroll would then stop short of the bottom.
    page.wait_for_function("""() => {
        const el = document.documentElement;
        window.scrollTo(0, el.scrollHeight);
        return window.scrollY > 0 && window.scrollY + window.innerHeight >= el.scrollHeight - 1;
    }""")  # at the bottom
    box = page.get_by_test_id("turn-banner").bounding_box()
    assert box is not None and 0 <= box["y"] < 120, box
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    # The score table's name column and its header stay pinned when it scrolls sideways.
    page.get_by_test_id("score-table").scroll_into_view_if_needed()
    pinned = page.evaluate("""() => {
        const t = document.querySelector('[data-testid=score-table]');
        t.parentElement.scrollLeft = 200;
        const head = t.querySelector('thead th').getBoundingClientRect().left;
        const body = t.querySelector('tbody th').getBoundingClientRect().left;
        return [head, body, t.parentElement.getBoundingClientRect().left];
    }""")
    assert abs(pinned[0] - pinned[1]) < 1 and abs(pinned[0] - pinned[2]) < 2, pinned
    shot(page, "phone-table-banner", full_page=False)
    page.close()
