"""Loot Island in the browser, only by clicking: a person creates a Loot Island table in
the lobby, a second person takes a seat through the link, a greedy bot fills the third
seat, both people play the whole game with the cards, landings, islets, joker values,
loot picks and healers their prompts offer, a spectator watches without ever seeing a hand
(on the page and in every frame its websocket received), and the replay viewer shows the
finished game. A phone (390 px) shows the island, the hand and the players without
anything sticking out sideways, in English and German."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import msgpack
import pytest
from playwright.sync_api import Browser, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from engine.loot_island import LOOT_ISLAND
from engine.loot_island.actions import ACTIONS
from tests.client.conftest import (
    TABLE_ID,
    api,
    assert_header_one_line,
    autoplay,
    failed_load,
    fold,
    page_seed,
    seed_storage,
    shot,
)
from tests.conftest import ServerProcess

ON = ":not([disabled])"
HAND = f"[data-testid^=hand-map-]{ON}"
HAND_PATH = re.compile(r"^/players/\d+/hand$")
# Every element of the page whose right edge is past the screen's, with its testid. The
# screen's width is the layout viewport's (documentElement.clientWidth), not innerWidth: a
# phone zooms a page wider than its screen out, and innerWidth is then the page's width.
STICKING_OUT = """() => [...document.querySelectorAll('body *')]
    .filter((e) => e.offsetParent !== null
                   && e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
    .map((e) => (e.dataset.testid || e.className || e.tagName) + ' '
                + Math.round(e.getBoundingClientRect().right))"""


def ended(page: Page) -> bool:
    return page.get_by_test_id("turn-banner").get_attribute("data-phase") == "ended"


def my_turn(page: Page) -> bool:
    return page.get_by_test_id("turn-banner").get_attribute("data-my-turn") == "1"


def hand_size(page: Page, seat: int) -> int:
    """The size of ``seat``'s hand in the page's view: 7, or 8 when round 1's event
    draws one more at the start of phase 2 (the view's count, never assumed)."""
    page.wait_for_function("(s) => { const v = window.__cardtable?.view();"
                           " return v && v.players && v.players[s] && v.players[s].hand; }",
                           arg=seat)
    n = page.evaluate("(s) => window.__cardtable.view().players[s].hand.length", seat)
    assert n in (7, 8)
    return n


def recorder(page: Page) -> list[dict[str, Any]]:
    """Every message the page's websockets receive, decoded (msgpack, or JSON text)."""
    frames: list[dict[str, Any]] = []

    def on_ws(ws: Any) -> None:
        ws.on("framereceived", lambda payload: frames.append(
            json.loads(payload) if isinstance(payload, str) else msgpack.unpackb(payload)))
    page.on("websocket", on_ws)
    return frames


def first(page: Page, selector: str) -> bool:
    """Click the first enabled element matching ``selector``; False when there is none."""
    loc = page.locator(selector)
    if not loc.count():
        return False
    loc.first.click()
    return True


# From the prompt itself (not the board): the selected cards, the joker row shown, the
# "play here" buttons, and the prompt's compact form, which the engine expands
# (``prompt_options``) to the landings where a legal play holds exactly the selected cards,
# and the values a legal play there names for the first joker row.
PROMPT_STATE = """() => {
  const chooser = document.querySelector('[data-testid=chooser]');
  const landing = chooser && chooser.closest('[data-testid^=landing-]');
  const row = chooser && chooser.querySelector('.joker-row');
  return {form: window.__cardtable.conn.prompt.legal_form,
          chosen: [...document.querySelectorAll('[data-testid=my-hand] button.selected')]
            .map((b) => b.dataset.card).sort(),
          landing: landing ? landing.dataset.testid.slice('landing-'.length) : null,
          joker: row ? row.dataset.testid.slice('joker-'.length) : null,
          shown: row ? [...row.querySelectorAll('button')].map((b) => Number(b.textContent)) : null,
          buttons: [...document.querySelectorAll('[data-testid^=play-]')]
            .map((b) => b.dataset.testid.slice('play-'.length)).sort()};
}"""


def prompt_options(page: Page) -> dict[str, Any]:
    """The board's offer next to what the engine's expansion of the prompt's form holds."""
    st = page.evaluate(PROMPT_STATE)
    plays = [a for a in LOOT_ISLAND.expand_form(st["form"])
             if a.type == "play" and sorted(a.cards) == st["chosen"]]
    values = None
    if st["landing"] and st["joker"]:
        values = sorted({a.values[st["joker"]] for a in plays if a.landing == st["landing"]})
    return {"landings": sorted({a.landing for a in plays}), "values": values,
            "shown": st["shown"], "buttons": st["buttons"]}


# The action type each kind of sending click sends (CONTRACT §1).
SENDS = {"take": "take_loot", "drop": "discard_loot", "healer": "choose_healer",
         "discard": "discard", "pass": "pass", "play": "play", "islet": "islet"}


def sent(seen: dict[str, int], kind: str) -> None:
    """Count a click that sent one action of ``kind`` (under ``sent:<action type>``)."""
    seen[kind] += kind not in ("play", "islet")  # those count their first click
    seen[f"sent:{SENDS[kind]}"] += 1


def open_joker_plays(record: dict[str, Any], seats: set[int]) -> int:
    """The plays of ``seats`` in ``record`` whose legal plays with the same cards at the
    same landing differ in some joker's value: exactly the plays whose chooser leaves a
    joker's value to pick (its rows take the values of those plays, one joker after the
    other; a row with one value comes preset)."""
    state = LOOT_ISLAND.replay(LOOT_ISLAND.start(record["players"], record["options"],
                                                 record["seed"], record["orders"]))
    count = 0
    for a in record["actions"]:
        action = ACTIONS.decode(a)
        if a["seat"] in seats and a["type"] == "play":
            cands = [x for x in LOOT_ISLAND.legal_actions(state, a["seat"])
                     if x.type == "play" and x.landing == action.landing
                     and sorted(x.cards) == sorted(action.cards)]
            jokers = {j for x in cands for j in (x.values or {})}
            count += any(len({(x.values or {}).get(j) for x in cands}) > 1 for j in jokers)
        LOOT_ISLAND.play(state, action)
    return count


def click_turn(page: Page, rng: random.Random, seen: dict[str, int]) -> bool:
    """Take one decision of ``page``'s seat by clicking what its board offers; returns
    False when nothing is offered (not this seat's turn, or the prompt not shown yet)."""
    if ended(page) or not my_turn(page):
        return False
    chooser = page.get_by_test_id("chooser")
    if chooser.count():
        opts = prompt_options(page)
        if opts["values"] is not None:  # the first joker's values are the prompt's
            assert opts["shown"] == opts["values"], opts
            seen["values_checked"] += 1
        # Joker values and copies from left to right, then play (or an islet option).
        # (each click redraws the chooser: the rows are looked up afresh every time).
        picked = 0
        for group in (".joker-row", ".copy-row"):
            for i in range(page.locator(f"[data-testid=chooser] {group}").count()):
                row = page.locator(f"[data-testid=chooser] {group}").nth(i)
                if not row.locator("button.on").count():
                    rng.choice(row.locator("button").all()).click()
                    seen["joker" if "joker" in group else "copy"] += 1
                    picked += "joker" in group
        if first(page, f"[data-testid=chooser-play]{ON}"):
            sent(seen, "play")
            seen["joker_picked_plays"] += picked > 0
            return True
        if first(page, f"[data-testid^=islet-opt-]{ON}"):
            sent(seen, "islet")
            return True
        return first(page, "[data-testid=chooser-cancel]")
    drops = "[data-testid^=drop-loot-]" + ON
    for kind, selector in (("take", "[data-testid^=take-loot-]"), ("drop", drops[:-len(ON)]),
                           ("healer", "[data-testid^=choose-healer-]")):
        loc = page.locator(selector + ON)
        if loc.count():
            if kind == "take" and rng.random() < 0.35 and page.locator(drops).count():
                continue
            rng.choice(loc.all()).click()
            sent(seen, kind)
            return True
    step = page.get_by_test_id("turn-banner").get_attribute("data-step")
    if step == "discard":
        cards = page.locator(HAND)
        if cards.count() and rng.random() < 0.5:
            cards.first.click()
        if first(page, f"[data-testid=discard]{ON}"):
            sent(seen, "discard")
            return True
        return False
    if step != "act":
        return False
    if page.locator("[data-testid=pass]" + ON).count() == 0:
        return False
    if rng.random() < 0.12:
        page.get_by_test_id("pass").click()
        sent(seen, "pass")
        return True
    # Jokers first (their value picker), then up to two more cards that stay selectable.
    jokers = page.locator(f"[data-testid^=hand-map-][data-testid*=-star-]{ON}")
    picked = 0
    if jokers.count():
        jokers.first.click()
        picked += 1
        seen["joker_held"] += 1
    while picked < rng.choice((1, 2, 3)) and page.locator(HAND + ":not(.selected)").count():
        rng.choice(page.locator(HAND + ":not(.selected)").all()).click()
        picked += 1
    if picked >= 2:
        seen["multi_selected"] += 1
    # "Play here" appears exactly at the landings where the prompt has that card set.
    opts = prompt_options(page)
    assert opts["buttons"] == opts["landings"], opts
    # Plays go mostly to the coast the ship explores this round, so that loot is found.
    ship = page.get_by_test_id("ship-at").get_attribute("data-ship")
    for kind, selector in (("play", f"[data-testid^=play-{ship}-]"),
                           ("play", "[data-testid^=play-]"), ("islet", "[data-testid^=use-]")):
        loc = page.locator(selector + ON)
        if kind == "play" and ship in selector and rng.random() < 0.2:
            continue
        if loc.count():
            rng.choice(loc.all()).click()
            seen[kind] += 1
            # One legal action for the chosen cards there is sent at once (the click's
            # handler draws no chooser); several open the chooser, whose click sends one.
            if not page.get_by_test_id("chooser").count():
                sent(seen, kind)
            return True
    page.get_by_test_id("clear-selection").click()
    page.get_by_test_id("pass").click()
    sent(seen, "pass")
    return True


def check_spectator_frames(frames: list[dict[str, Any]]) -> int:
    """No frame a spectator received before the end carries a hand or a drawn card, and it
    gets no prompt; returns how many draws it was told of (without the card)."""
    draws = 0
    for m in frames:
        assert m.get("t") != "prompt", m
        view = m.get("view") if m.get("t") == "welcome" else None
        if view and view.get("players") and view["phase"] != "ended":
            assert all(p["hand"] is None for p in view["players"])
        if m.get("t") != "deltas":
            continue
        kinds = [x["event"]["type"] for x in m["events"]]
        for e in (x["event"] for x in m["events"]):
            if e["type"] == "game_started":
                assert e["hand"] is None
            if e["type"] == "map_card_drawn":
                assert "card" not in e, e
                draws += 1
        if "game_ended" in kinds:
            break
        for op in m["patch"]:
            if HAND_PATH.match(op["path"]) or op["path"] == "/players":
                value = op.get("value")
                hands = [p["hand"] for p in value] if op["path"] == "/players" else [value]
                assert all(x is None for x in hands), op
    return draws


def test_loot_island_game_by_clicking(browser: Browser, web: ServerProcess) -> None:
    contexts = [browser.new_context(viewport={"width": 1366, "height": 900}, locale="en-US")
                for _ in range(3)]
    anna, ben, spec = (c.new_page() for c in contexts)
    anna_frames = recorder(anna)
    ben_frames = recorder(ben)
    anna.goto(web.url + "/")
    anna.get_by_test_id("game-select").select_option("loot-island")
    # The seat choice is Loot Island's range (2-5) and its options are offered.
    expect(anna.get_by_test_id("seats-select").locator("option")).to_have_count(4)
    expect(anna.get_by_test_id("events")).to_be_checked()
    anna.get_by_test_id("seats-select").select_option("3")
    anna.get_by_test_id("table-name").fill("Loot Island in the browser")
    anna.get_by_test_id("create-table").click()
    anna.wait_for_url("**/table/*")
    table_id = anna.url.rstrip("/").rsplit("/", 1)[1]
    anna.get_by_test_id("name-input").fill("Anna")
    anna.get_by_test_id("take-seat-0").click()
    expect(anna.get_by_test_id("leave-seat")).to_be_visible()
    anna.get_by_test_id("bot-kind-2").select_option("greedy")
    anna.get_by_test_id("add-bot-2").click()
    expect(anna.get_by_test_id("remove-bot-2")).to_be_visible()

    ben.goto(f"{web.url}/table/{table_id}")
    ben.get_by_test_id("name-input").fill("Ben")
    ben.get_by_test_id("take-seat-1").click()
    expect(ben.get_by_test_id("leave-seat")).to_be_visible()

    spec_frames = recorder(spec)
    spec.goto(f"{web.url}/table/{table_id}")
    expect(spec.get_by_test_id("seating")).to_be_visible()
    expect(anna.get_by_test_id("start")).to_be_enabled()
    anna.get_by_test_id("start").click()
    for seat, p in enumerate((anna, ben)):
        expect(p.get_by_test_id("board")).to_have_attribute("data-game", "loot-island")
        expect(p.get_by_test_id("my-hand").locator(".lcard")).to_have_count(hand_size(p, seat))
    expect(spec.get_by_test_id("spectator-badge")).to_be_visible()
    expect(spec.get_by_test_id("island")).to_be_visible()
    expect(spec.locator("[data-testid^=landing-]")).to_have_count(8)
    expect(spec.locator("[data-testid^=islet-islet-]")).to_have_count(7)
    expect(spec.get_by_test_id("ship")).to_have_count(1)
    expect(spec.get_by_test_id("coast-north")).to_have_class(re.compile(r"\bexplored\b"))
    # Round 1's event is face up from the start, with what it changes.
    expect(spec.get_by_test_id("event")).not_to_have_attribute("data-event", "")
    assert spec.get_by_test_id("event-effect").inner_text().strip()

    rng = random.Random(20)
    seen: dict[str, int] = dict.fromkeys(
        ("take", "drop", "healer", "discard", "pass", "play", "islet", "joker", "copy",
         "multi_selected", "joker_held", "values_checked", "joker_picked_plays",
         *(f"sent:{t}" for t in SENDS.values())), 0)
    clicks = checks = 0
    shot_taken = False
    while not (ended(anna) and ended(ben)):
        acted = False
        for p in (anna, ben):
            if click_turn(p, rng, seen):
                clicks += 1
                acted = True
        if not acted:
            anna.wait_for_timeout(30)  # polling: nothing to click until the next frame
        if (not shot_taken and seen["play"] >= 6 and my_turn(anna)
                and anna.get_by_test_id("turn-banner").get_attribute("data-step") == "act"
                and anna.locator(HAND).count()):
            # Mid-game with a card chosen: the landings that take it offer "Play here".
            # (Only a picture: when the turn moved on before the click chose the card, the
            # next turn of Anna's takes it.)
            anna.locator(HAND).first.click()
            clear = anna.get_by_test_id("clear-selection")
            try:
                clear.wait_for(timeout=3000)
            except PlaywrightTimeout:
                pass
            else:
                anna.evaluate("() => window.scrollTo(0, 0)")
                shot(anna, "loot-island-table")
                clear.click()
                shot_taken = True
        if clicks % 15 == 0:
            v = spec.evaluate("() => window.__cardtable.view()")
            if v and v.get("players") and v["phase"] != "ended":
                assert all(p["hand"] is None for p in v["players"])
                assert spec.get_by_test_id("my-hand").count() == 0
                assert spec.locator("[data-testid^=hand-map-]").count() == 0
                checks += 1
        assert clicks < 3000
    assert checks > 0, (clicks, checks)
    # Plays, discards and plays of several cards come in every deal (a loot pick or a
    # joker whose value is open does not: those are checked against the record below).
    assert seen["play"] > 5 and seen["discard"] > 0, seen
    assert seen["multi_selected"] > 0, seen
    print("decisions clicked:", seen)

    expect(spec.get_by_test_id("turn-banner")).to_have_attribute("data-phase", "ended")
    expect(spec.get_by_test_id("score-table")).to_be_visible()
    expect(spec.locator("[data-testid^=score-row-]")).to_have_count(3)
    expect(spec.locator("[data-testid^=final-hand-]")).to_have_count(3)  # revealed at the end
    server_view = api(web, "GET", f"/api/tables/{table_id}/view")
    assert spec.evaluate("() => window.__cardtable.view()") == server_view
    result = server_view["result"]
    for s in result["scores"]:
        total = spec.get_by_test_id(f"score-total-{s['seat']}").inner_text()
        assert total == ("–" if s["total"] is None else str(s["total"]))
    deltas = api(web, "GET", f"/api/tables/{table_id}/deltas")["deltas"]
    assert fold(deltas, deltas[-1]["seq"]) == server_view
    shot(anna, "loot-island-ended")

    # The spectator's frames: no hand, no drawn card, no prompt, before the end; Anna's
    # own frames name the cards she drew (the check above could fail).
    assert check_spectator_frames(spec_frames) > 0
    assert any(e["event"]["type"] == "map_card_drawn" and e["event"]["seat"] == 0
               and "card" in e["event"]
               for m in anna_frames if m.get("t") == "deltas" for e in m["events"])
    assert any(m.get("t") == "prompt" for m in anna_frames)
    # Every click sent a listed action the server took: no error came back to either.
    assert [m for m in anna_frames + ben_frames if m.get("t") == "error"] == []
    acks = [m for m in anna_frames + ben_frames if m.get("t") == "ack"]
    assert len(acks) >= seen["play"] + seen["discard"], (len(acks), seen)
    # Every decision of Anna's and Ben's in the record is one the server acknowledged
    # to a click (nothing played for them), and the game had some of each.
    record = api(web, "GET", f"/api/tables/{table_id}/record")
    mine = [a for a in record["actions"] if a["seat"] in (0, 1)]
    assert len(acks) == len(mine) <= clicks, (len(acks), len(mine), clicks)
    assert {a["seat"] for a in mine} == {0, 1}
    # Kind by kind, the record's decisions of Anna's and Ben's are the clicks that sent
    # them: loot kept or discarded, healers, discards, passes, plays and islets.
    assert not record.get("seat_changes"), record.get("seat_changes")
    by_type = {t: sum(a["type"] == t for a in mine) for t in SENDS.values()}
    assert by_type == {t: seen[f"sent:{t}"] for t in SENDS.values()}, (by_type, seen)
    assert sum(by_type.values()) == len(mine)
    # A joker's value that the legal plays left open was picked in the value picker: every
    # such play of theirs in the record came from a chooser in which a joker was clicked.
    assert open_joker_plays(record, {0, 1}) == seen["joker_picked_plays"], seen
    assert shot_taken

    spec.get_by_test_id("open-replay").click()
    spec.wait_for_url(f"**/replay/{table_id}")
    expect(spec.get_by_test_id("board")).to_have_attribute("data-game", "loot-island")
    spec.get_by_test_id("replay-last").click()
    expect(spec.get_by_test_id("replay-winners")).to_be_visible()
    expect(spec.get_by_test_id("score-table")).to_be_visible()
    assert spec.evaluate("() => window.__cardtable.view()") == server_view
    # An earlier moment: the board as it was then (a folded view, drawn the same way).
    spec.evaluate("() => window.__cardtable.seek(3)")
    v = spec.evaluate("() => window.__cardtable.view()")
    assert v["phase"] != "ended"
    expect(spec.locator("[data-testid^=landing-]")).to_have_count(8)
    expect(spec.get_by_test_id("my-hand")).to_have_count(0)
    for c in contexts:
        c.close()


def test_loot_island_on_a_phone(browser: Browser, web: ServerProcess) -> None:
    table = api(web, "POST", "/api/tables", json={"seats": 4, "name": "Phone island",
                                                  "game": "loot-island"})
    tid = table["id"]
    anna = api(web, "POST", f"/api/tables/{tid}/join", json={"name": "Anna"})
    owner = {"Authorization": f"Bearer {table['owner_token']}"}
    for seat in (1, 2, 3):
        api(web, "POST", f"/api/tables/{tid}/seats/{seat}/bot", json={"kind": "greedy"},
            headers=owner)
    api(web, "POST", f"/api/tables/{tid}/start", headers=owner)
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US",
                              is_mobile=True, has_touch=True)
    seat = json.dumps({**anna, "name": "Anna"})
    seed_storage(ctx, {f"cardtable.seat.{tid}": seat})
    page = ctx.new_page()
    page.goto(f"{web.url}/table/{tid}")
    expect(page.get_by_test_id("island")).to_be_visible()
    expect(page.get_by_test_id("my-hand").locator(".lcard")).to_have_count(hand_size(page, 0))
    # The coasts are stacked, the corners' ship spaces give way to the coast's badge.
    # Measured in one turn of the page (the bots' moves re-render the island in between
    # two separate measurements, when an element has no box for a moment).
    north, east = page.evaluate(
        "() => ['north', 'east'].map((c) => document.querySelector("
        "`[data-testid=coast-${c}]`).getBoundingClientRect().toJSON())")
    assert north["height"] > 0 and east["height"] > 0
    assert east["y"] >= north["y"] + north["height"] - 1
    expect(page.get_by_test_id("ship")).to_be_visible()
    for lang in ("en", "de"):
        page.get_by_test_id(f"lang-{lang}").click()
        expect(page.get_by_test_id("island")).to_be_visible()
        assert page.evaluate(STICKING_OUT) == [], lang
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 390, lang
        assert_header_one_line(page)
        # The cards of the hand (7, or 8 under event A02; at the screen's bottom) fit one row.
        rows = page.evaluate("() => new Set([...document.querySelectorAll("
                             "'[data-testid=my-hand] .lcard')].map((e) => e.offsetTop)).size")
        assert rows == 1, lang
    # A card chosen on the phone opens a landing's play button that fits the screen.
    expect(page.get_by_test_id("turn-banner")).to_have_attribute("data-my-turn", "1")
    for card in page.locator(HAND).all():
        card.click()
        if page.locator(f"[data-testid^=play-]{ON}").count():
            break
        page.get_by_test_id("clear-selection").click()
    play = page.locator(f"[data-testid^=play-]{ON}").first
    expect(play).to_be_visible()
    box = play.bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390
    assert page.evaluate(STICKING_OUT) == []
    page.get_by_test_id("lang-de").click()
    expect(page.get_by_test_id("coast-north")).to_contain_text("Nord")
    shot(page, "loot-island-phone-de")
    page.get_by_test_id("lang-en").click()
    page.evaluate("() => window.scrollTo(0, 0)")
    shot(page, "loot-island-phone", full_page=False)
    # A smaller phone (360×740): nothing sticks out, the header one line, in both languages.
    page.set_viewport_size({"width": 360, "height": 740})
    for lang in ("de", "en"):
        page.get_by_test_id(f"lang-{lang}").click()
        expect(page.get_by_test_id("island")).to_be_visible()
        assert page.evaluate(STICKING_OUT) == [], lang
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 360, lang
        assert_header_one_line(page)
    ctx.close()


# Every label of a hand card whose text is cut (wider than its box), with its text.
CUT_LABELS = """() => [...document.querySelectorAll(
        '[data-testid=my-hand] .lcard .lcname, [data-testid=my-hand] .lcard .lact')]
    .filter((e) => e.offsetParent !== null && e.scrollWidth > e.clientWidth + 1
                   || e.getBoundingClientRect().right
                      > e.closest('.lcard').getBoundingClientRect().right + 1)
    .map((e) => e.textContent)"""
# The total column of the score table: whether each total cell (and its heading) lies inside
# the scroll box as shown now (no sideways scrolling) and inside the window.
TOTALS_SHOWN = """() => {
    const box = document.querySelector('[data-testid=score] .table-scroll').getBoundingClientRect();
    const cells = [...document.querySelectorAll(
        '[data-testid=score-head-total], [data-testid^=score-total-]')];
    return cells.length > 1 && cells.every((c) => { const r = c.getBoundingClientRect();
        return r.width > 0 && r.left >= box.left - 1 && r.right <= box.right + 1
               && r.right <= window.innerWidth; });
}"""
FITS = """() => { const s = document.querySelector('[data-testid=score] .table-scroll');
    return s.scrollWidth <= s.clientWidth + 1; }"""


# Plays the page's seat at random to the end: from a listed prompt any action; from the
# compact form (docs/protocol.md, "Loot Island's `legal_form`") a random subset of its
# discard cards, or a lone card of a run without jokers, an under, or a pass.
AUTOPLAY = """() => { window.__auto = setInterval(() => {
    const c = window.__cardtable.conn, p = c.prompt;
    if (!p || p.seq !== c.seq || c.pending || !c.view || c.view.phase === "ended") return;
    const pick = (xs) => xs[Math.floor(window.__random() * xs.length)];
    const f = p.legal_form;
    if (!f) { c.act(pick(p.legal_actions)); return; }
    if (f.discard) {
        const cards = f.discard.cards.filter(() => window.__random() < 0.3);
        c.act({type: "discard", seat: f.seat, cards});
        return;
    }
    const lone = [{type: "pass", seat: f.seat}];
    for (const e of f.plays) {
        if (e.under) lone.push({type: "play", seat: f.seat, landing: e.landing, cards: [e.under]});
        else for (const x of [...e.first, ...e.cards.map(([card]) => card)])
            lone.push({type: "play", seat: f.seat, landing: e.landing, cards: [x]});
    }
    c.act(pick(lone));
}, 30); }"""


# A value out of the options' range is refused by the server (400 bad_message) on purpose.
@pytest.mark.page_errors(failed_load(400, rf"/api/tables/{TABLE_ID}/options"))
def test_loot_island_options_labels_and_the_score_table_in_both_languages(
        browser: Browser, web: ServerProcess, request: pytest.FixtureRequest) -> None:
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = ctx.new_page()
    page.goto(web.url + "/")
    page.get_by_test_id("lang-de").click()
    page.get_by_test_id("game-select").select_option("loot-island")
    form = page.get_by_test_id("create-form")
    # The form's labels in German, the game's options from its schema (integer included).
    expect(form.locator("label[for=t-game]")).to_have_text("Spiel")
    expect(form.locator("label[for=t-opt-events]")).to_have_text("Ereigniskarten")
    expect(form.locator("label[for=t-opt-min-cards]")).to_have_text("Mindestzahl Karten")
    count = page.get_by_test_id("min-cards-input")
    expect(count).to_have_attribute("type", "number")
    expect(count).to_have_attribute("min", "1")
    expect(count).to_have_attribute("max", "12")
    count.fill("5")
    page.get_by_test_id("seats-select").select_option("3")
    page.get_by_test_id("table-name").fill("Options island")
    page.get_by_test_id("create-table").click()
    page.wait_for_url("**/table/*")
    tid = page.url.rstrip("/").rsplit("/", 1)[1]
    # The server took the integer; the heading names the game and the table.
    assert api(web, "GET", f"/api/tables/{tid}")["options"] == {"events": True, "min_cards": 5}
    expect(page.get_by_test_id("table-game")).to_have_text("Loot Island")
    expect(page.get_by_test_id("table-title")).to_have_text("Options island")
    # The host's form shows the chosen count; a value out of the schema's range is refused
    # by the server (the engine's check) and the form shows the options as they are.
    expect(page.get_by_test_id("opt-min-cards")).to_have_value("5")

    def change(value: str) -> None:  # typed and left in one go (the form may redraw)
        page.get_by_test_id("opt-min-cards").evaluate(
            "(e, v) => { e.value = v; e.dispatchEvent(new Event('change')); }", value)

    change("40")
    expect(page.get_by_test_id("toast")).to_contain_text("nicht verstanden")
    expect(page.get_by_test_id("opt-min-cards")).to_have_value("5")
    assert api(web, "GET", f"/api/tables/{tid}")["options"]["min_cards"] == 5
    change("")
    page.wait_for_function(f"async () => (await (await fetch('/api/tables/{tid}')).json())"
                           ".options.min_cards === null")
    expect(page.get_by_test_id("opt-min-cards")).to_have_attribute("placeholder", "Standard")
    change("6")
    page.wait_for_function(f"async () => (await (await fetch('/api/tables/{tid}')).json())"
                           ".options.min_cards === 6")
    page.get_by_test_id("name-input").fill("Anna")
    page.get_by_test_id("take-seat-0").click()
    for seat in (1, 2):
        page.get_by_test_id(f"bot-kind-{seat}").select_option("random")
        page.get_by_test_id(f"add-bot-{seat}").click()
        expect(page.get_by_test_id(f"remove-bot-{seat}")).to_be_visible()
    # The lobby's line of the table: the options in German.
    lobby = ctx.new_page()
    lobby.goto(web.url + "/")
    expect(lobby.get_by_test_id(f"table-row-{tid}")).to_contain_text(
        "Ereigniskarten: ✓ · Mindestzahl Karten: 6")
    lobby.get_by_test_id("lang-en").click()
    expect(lobby.get_by_test_id(f"table-row-{tid}")).to_contain_text(
        "Event cards: ✓ · Minimum cards: 6")
    lobby.close()
    page.get_by_test_id("lang-de").click()
    page.get_by_test_id("start").click()
    expect(page.get_by_test_id("island")).to_be_visible()
    # One space in "Nord wird erkundet" (the ship's icon between has no text).
    coast = page.get_by_test_id("ship").locator("xpath=..")
    assert "  " not in coast.inner_text() and "wird erkundet" in coast.inner_text()
    # On a phone the hand's colour names and actions are whole, in both languages.
    page.set_viewport_size({"width": 390, "height": 844})
    for lang in ("de", "en"):
        page.get_by_test_id(f"lang-{lang}").click()
        expect(page.get_by_test_id("my-hand").locator(".lcard").first).to_be_visible()
        assert page.evaluate(CUT_LABELS) == [], lang
    shot(page, "loot-island-phone-hand-labels", full_page=False)
    # English says "color" like the rest of the English page.
    titles = page.locator("[data-testid=my-hand] .lcard").evaluate_all(
        "els => els.map((e) => e.title).join(' ')")
    assert "colour" not in titles and "colour" not in page.inner_text("body")
    page.set_viewport_size({"width": 1280, "height": 900})
    autoplay(page, AUTOPLAY, page_seed(request))
    page.wait_for_function("() => { const v = window.__cardtable?.view(); "
                           "return v && v.phase === 'ended'; }", timeout=180_000)
    page.evaluate("() => clearInterval(window.__auto)")
    expect(page.get_by_test_id("score-table")).to_be_visible()
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        for lang in ("en", "de"):
            page.get_by_test_id(f"lang-{lang}").click()
            page.get_by_test_id("score-table").scroll_into_view_if_needed()
            expect(page.get_by_test_id("score-head-total")).to_have_text(
                "total" if lang == "en" else "Summe")
            assert page.evaluate(TOTALS_SHOWN), (width, lang)
            if width == 1280:
                assert page.evaluate(FITS), lang  # the whole table, no scrolling at all
            shot(page, f"loot-island-score-{width}-{lang}", full_page=False)
    ctx.close()
