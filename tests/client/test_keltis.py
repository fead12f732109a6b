"""Keltis in the browser, only by clicking: a person creates a Keltis table in the lobby
(the form generated from the game's seat range and options schema), a second person takes
a seat through the link, a bot fills the third seat, both people play the whole game with
the action buttons of their prompts, a spectator watches without ever seeing a hand, and
the replay viewer shows the finished game."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from engine.keltis import KELTIS
from engine.keltis.rules import FINAL_LAYS, has_lay
from tests.client.conftest import (
    api,
    assert_header_one_line,
    autoplay,
    bot_table,
    fold,
    page_seed,
    seated_page,
    shot,
)
from tests.conftest import ServerProcess


def ended(page: Page) -> bool:
    return page.get_by_test_id("turn-banner").get_attribute("data-phase") == "ended"


def test_keltis_game_by_clicking(browser: Browser, web: ServerProcess) -> None:
    contexts = [browser.new_context(viewport={"width": 1366, "height": 900}, locale="en-US")
                for _ in range(3)]
    anna, ben, spec = (c.new_page() for c in contexts)
    anna.goto(web.url + "/")
    anna.get_by_test_id("game-select").select_option("keltis")
    # The seat choice is Keltis's range (2-4), and Keltis has no options to offer.
    expect(anna.get_by_test_id("seats-select").locator("option")).to_have_count(3)
    expect(anna.get_by_test_id("end-rule-select")).to_have_count(0)
    anna.get_by_test_id("seats-select").select_option("3")
    anna.get_by_test_id("table-name").fill("Keltis in the browser")
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
    expect(anna.get_by_test_id("start")).to_be_enabled()
    anna.get_by_test_id("start").click()
    for p in (anna, ben):
        expect(p.get_by_test_id("board")).to_have_attribute("data-game", "keltis")
        expect(p.get_by_test_id("my-hand").locator(".kcard")).to_have_count(8)

    spec.goto(f"{web.url}/table/{table_id}")
    expect(spec.get_by_test_id("spectator-badge")).to_be_visible()
    expect(spec.get_by_test_id("board")).to_be_visible()

    clicks = 0
    # At the start the spectator can be checked: Anna's hand has never been public.
    checks = assert_no_hand(spec, anna, web, table_id)
    assert checks == 1
    pictured = False
    while not (ended(anna) and ended(ben)):
        acted = False
        for p in (anna, ben):
            if not ended(p) and click_move(p, clicks):
                clicks += 1
                acted = True
        if not acted:
            anna.wait_for_timeout(30)  # polling: nothing to click until the next frame
        if clicks >= 60 and not pictured and anna.evaluate(MY_PLAY):
            # Mid-game, a card selected: its places lit (the screenshot of the table). Only
            # on Anna's own play step: waiting for it here would wait for Ben, who is not
            # clicking meanwhile.
            pictured = True
            anna.locator("[data-testid=hand-cards] [data-hand].can").first.click()
            expect(anna.locator(LIT).first).to_be_visible()
            shot(anna, "keltis-table")
            anna.locator("[data-testid=hand-cards] .kcard.sel").click()
        if clicks % 20 == 0:
            checks += assert_no_hand(spec, anna, web, table_id)
        assert clicks < 2000
    # Each person's final turn showed the final turns' notice (click_move checks it), and
    # every seat that had a final turn to play had it by clicks. A seat with no card it may
    # lay passes its final turn by itself, so this is read from the record, not assumed.
    shown = {seat for seat, p in enumerate((anna, ben)) if FINALS_SHOWN.get(id(p))}
    assert shown == final_deciders(web, table_id) & {0, 1}
    assert pictured
    assert STONES_CLICKED.get(id(anna), 0) + STONES_CLICKED.get(id(ben), 0) > 0
    # Every decision of Anna's and Ben's in the record is one of the clicks (each click
    # path ends in one action the server took), and both decided.
    record = api(web, "GET", f"/api/tables/{table_id}/record")
    mine = [a for a in record["actions"] if a["seat"] in (0, 1)]
    assert len(mine) == clicks, (len(mine), clicks)
    assert {a["seat"] for a in mine} == {0, 1}
    expect(spec.get_by_test_id("turn-banner")).to_have_attribute("data-phase", "ended")
    expect(spec.get_by_test_id("score-table")).to_be_visible()
    # The breakdown is the view's result, row by row, beside each row's cards.
    result = spec.evaluate("() => window.__cardtable.view().result")
    for s in result["scores"]:
        seat = s["seat"]
        expect(spec.get_by_test_id(f"score-total-{seat}")).to_have_text(str(s["total"]))
        for color, points in s["rows"].items():
            expect(spec.get_by_test_id(f"score-{seat}-{color}")).to_have_attribute(
                "data-points", str(points))
        expect(spec.get_by_test_id(f"score-{seat}-point")).to_contain_text(str(s["point_row"]))
        expect(spec.get_by_test_id(f"score-{seat}-stones")).to_contain_text(str(s["stones"]))
    expect(spec.locator("[data-testid^=final-hand-]")).to_have_count(3)  # revealed at the end
    # What each page shows is the server's view for it.
    server_view = api(web, "GET", f"/api/tables/{table_id}/view")
    assert spec.evaluate("() => window.__cardtable.view()") == server_view
    deltas = api(web, "GET", f"/api/tables/{table_id}/deltas")["deltas"]
    assert fold(deltas, deltas[-1]["seq"]) == server_view
    shot(anna, "keltis-ended")

    spec.get_by_test_id("open-replay").click()
    spec.wait_for_url(f"**/replay/{table_id}")
    expect(spec.get_by_test_id("board")).to_have_attribute("data-game", "keltis")
    spec.get_by_test_id("replay-last").click()
    expect(spec.get_by_test_id("replay-winners")).to_be_visible()
    assert spec.evaluate("() => window.__cardtable.view()") == server_view
    for c in contexts:
        c.close()


# --- the board: click, drag, pile viewer, German, phone ------------------------------------

LIT = "[data-testid=board] [data-drop].lit"
# Every element wider than the page or reaching past its right edge (a phone must scroll
# only down, never sideways); scroll containers' insides are theirs to scroll.
OVERFLOW = """() => {
  const w = document.documentElement.clientWidth;
  const out = [];
  const sw = document.documentElement.scrollWidth;
  if (sw > w) out.push('page ' + sw + '/' + w);
  for (const el of document.querySelectorAll('[data-testid=board] *, .turn-banner, .topbar')) {
    if (el.closest('.table-scroll') || el.offsetParent === null) continue;
    const r = el.getBoundingClientRect();
    const name = el.dataset.testid || el.className || el.tagName;
    if (r.right > w + 0.5) out.push(name + ' ' + Math.round(r.right));
  }
  return out.slice(0, 10);
}"""


# Every discard pile's name that is cut (wider than its box, or than its pile), with its
# widths: a phone's narrow piles once showed "◇ Punkt…".
CUT_PILE_NAMES = """() => [...document.querySelectorAll('[data-testid=piles] .kpile-name')]
    .filter((e) => e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1
                   || e.getBoundingClientRect().right
                      > e.closest('.kpile').getBoundingClientRect().right + 0.5)
    .map((e) => e.textContent + ' ' + e.scrollWidth + '/' + e.clientWidth)"""


# The pile viewer lists exactly the pile of the view the page shows, bottom first.
VIEWER_LISTS_PILE = """(pile) => { const e = window.__cardtable;
  if (e.shown() !== e.seq()) return false;
  const listed = [...document.querySelectorAll('[data-testid=pile-viewer] .kcard')]
    .map((x) => x.dataset.card);
  return JSON.stringify(listed) === JSON.stringify(e.view().discards[pile]); }"""




def my_turn(page: Page) -> str | None:
    """The step of this page's seat when its prompt is shown (play/draw/final), else None."""
    return page.evaluate("""() => { const c = window.__cardtable.conn, v = c.view;
      return c.prompt && c.prompt.seq === c.seq && !c.pending && v && v.phase !== 'ended'
        && v.current_seat === c.seat && window.__cardtable.shown() === c.seq
        && document.querySelector('[data-testid=board]').dataset.seq === String(c.seq)
        && document.querySelector('[data-testid=board]').dataset.prompt === '1'
        ? v.step : null; }""")


def acted(page: Page, seq: int) -> bool:
    """Wait until the page's move (sent after ``seq``) has come back as a delta: until
    then the old prompt still looks current (the ack may come before the delta)."""
    page.wait_for_function(f"() => window.__cardtable?.seq() > {seq}")
    return True


STONES_CLICKED: dict[int, int] = {}
"""Stones each page has taken by clicks (the first two it is offered)."""
FINALS_SHOWN: dict[int, int] = {}
"""Final-turn decisions each page took with the final turns' notice on its board."""


@pytest.fixture(autouse=True)
def _fresh_counts() -> Iterator[None]:
    """The counts above are keyed by ``id(page)``, and a page of an earlier test that is
    gone may have had the id of a page of this one: each test starts from none."""
    STONES_CLICKED.clear()
    FINALS_SHOWN.clear()
    yield
    STONES_CLICKED.clear()
    FINALS_SHOWN.clear()


def final_deciders(web: ServerProcess, tid: str) -> set[int]:
    """The seats that had a choice in the final turns of the ended table ``tid``, from its
    record replayed by the engine (RULES "Final plays": a final turn with no card to lay
    passes by itself, so a deal can leave a seat, or every seat, without one)."""
    _, events = KELTIS.replay_record(api(web, "GET", f"/api/tables/{tid}/record"))
    s = KELTIS.initial_state()
    seats = set()
    for e in events:
        KELTIS.evolve(s, e)
        if (s.phase == "final_turns" and s.step == "final" and s.final_lays < FINAL_LAYS
                and has_lay(s.players[s.current_seat])):
            seats.add(s.current_seat)
    return seats


def click_stone(page: Page, stone: dict, seq: int) -> bool:
    """Take the stone of a legal ``stone`` action by clicks: its first card, then the lit
    stone of that value in the middle, then (when the first card has more than one
    partner) the second card; the stone is then the player's."""
    first, second = stone["cards"]
    seat = page.evaluate("() => window.__cardtable.seat()")
    before = page.evaluate(f"() => window.__cardtable.view().players[{seat}].stones")
    card = page.get_by_test_id(f"hand-{first}")
    if "sel" not in (card.get_attribute("class") or ""):
        card.click()
    lit = page.locator("[data-testid=board] .kstone-slot.lit")
    expect(lit).to_have_count(1)
    stone_id = lit.get_attribute("data-drop").split(":")[1]
    lit.click()
    if page.locator("[data-testid=hand-cards] .partner").count():
        expect(page.get_by_test_id("hand-hint")).to_be_visible()  # "pick the second card"
        page.get_by_test_id(f"hand-{second}").click()
    acted(page, seq)
    after = page.evaluate(f"() => window.__cardtable.view().players[{seat}].stones")
    assert stone_id not in before and stone_id in after
    STONES_CLICKED[id(page)] = STONES_CLICKED.get(id(page), 0) + 1
    return True


def click_move(page: Page, n: int) -> bool:
    """One move by the click-select-target path: a hand card, then a lit place (a row
    every other time when one is lit, else its pile or its stone); in the draw step the
    deck or a lit pile; a final turn with no card left to lay ends by its button. True
    when something was clicked."""
    step = my_turn(page)
    if step is None:
        return False
    board = page.get_by_test_id("board")
    seq = page.evaluate("() => window.__cardtable.seq()")
    if step == "final":
        # The board shows this final turn (my_turn: its seq, its prompt): it says so, and
        # what is left to lay.
        expect(page.get_by_test_id("final-turns")).to_be_visible()
        expect(page.get_by_test_id("final-lays-left")).to_be_visible()
        FINALS_SHOWN[id(page)] = FINALS_SHOWN.get(id(page), 0) + 1
    if step == "draw":
        keys = page.locator(LIT).evaluate_all("els => els.map((e) => e.dataset.drop)")
        assert keys, "a draw step with nothing to draw from lit"
        board.locator(f"[data-drop='{keys[n % len(keys)]}']").click()
        return acted(page, seq)
    stones = page.evaluate("() => window.__cardtable.conn.prompt.legal_actions"
                           ".filter((a) => a.type === 'stone')")
    if stones and STONES_CLICKED.get(id(page), 0) < 2:
        return click_stone(page, stones[0], seq)
    cards = page.locator("[data-testid=hand-cards] [data-hand].can").evaluate_all(
        "els => els.map((e) => e.dataset.hand)")
    if not cards:
        assert step == "final", "a play step with no card to play"
        page.get_by_test_id("act-finish").click()
        return acted(page, seq)
    card = page.get_by_test_id(f"hand-{cards[n % len(cards)]}")
    if "sel" not in (card.get_attribute("class") or ""):
        card.click()
    expect(page.locator("[data-testid=hand-cards] .kcard.sel")).to_have_count(1)
    keys = page.locator(LIT).evaluate_all("els => els.map((e) => e.dataset.drop)")
    rows = [k for k in keys if k.startswith("row:")]
    others = [k for k in keys if k.startswith(("pile:", "stone:"))]
    assert keys, "a selected card with nowhere to go"
    key = rows[0] if rows and (n % 2 == 0 or not others) else others[n % len(others)]
    board.locator(f"[data-drop='{key}']").click()
    partner = page.locator("[data-testid=hand-cards] .partner")
    if key.startswith("stone:") and partner.count():  # the second card of the pair
        partner.first.click()
    return acted(page, seq)


def test_keltis_drag_pile_viewer_and_spectator(browser: Browser, web: ServerProcess) -> None:
    """Anna plays against two bots on a desktop page: a card dragged onto a lit place is
    played, the pile viewer lists a pile exactly, the spectator sees no hand at any time."""
    tid, seat = bot_table(web, "keltis", title="Keltis board")
    ctx, page = seated_page(browser, web, tid, seat, "keltis")
    sctx = browser.new_context(viewport={"width": 1366, "height": 900}, locale="en-US")
    spec = sctx.new_page()
    spec.goto(f"{web.url}/table/{tid}")
    expect(spec.get_by_test_id("spectator-badge")).to_be_visible()
    expect(spec.get_by_test_id("board")).to_be_visible()
    expect(page.get_by_test_id("hand-cards").locator(".kcard")).to_have_count(8)
    # The hand is shown sorted by color, then value (presentation; the view's order is
    # canonical anyway), and by value on request.
    cat = api(web, "GET", "/api/games/keltis/cards")
    colors = [*cat["colors"], None]

    def shown_hand() -> list[str]:
        return page.locator("[data-testid=hand-cards] .kcard").evaluate_all(
            "els => els.map((e) => e.dataset.card)")

    def by_color(c: str) -> tuple:
        k = cat["cards"][c]
        return (colors.index(k["color"]), 99 if k["value"] is None else k["value"])

    hand = shown_hand()
    assert hand == sorted(hand, key=by_color)
    page.get_by_test_id("sort-value").click()
    hand = shown_hand()
    assert [99 if cat["cards"][c]["value"] is None else cat["cards"][c]["value"]
            for c in hand] == sorted(99 if cat["cards"][c]["value"] is None
                                     else cat["cards"][c]["value"] for c in hand)
    page.get_by_test_id("sort-color").click()

    # Drag: the first card onto the first lit place it may go (a row, its pile or a stone).
    wait_turn(page)
    card = page.locator("[data-testid=hand-cards] [data-hand].can").first
    cid = card.get_attribute("data-card")
    card.click()  # select it to see where it may go, then put it back
    targets = page.locator(LIT).evaluate_all("els => els.map((e) => e.dataset.drop)")
    assert targets and all(t.startswith(("row:", "pile:", "stone:")) for t in targets)
    card.click()
    expect(page.locator(LIT)).to_have_count(0)
    drop = next(t for t in targets if t.startswith(("row:", "pile:")))
    seq = page.evaluate("() => window.__cardtable.seq()")
    card.drag_to(page.locator(f"[data-testid=board] [data-drop='{drop}']"))
    page.wait_for_function(f"() => window.__cardtable?.seq() > {seq}")
    kind, where = drop.split(":")
    v = page.evaluate("() => window.__cardtable.view()")
    assert cid not in v["players"][0]["hand"]
    if kind == "row":
        assert cid in (v["players"][0]["point_row"] if where == "point"
                       else v["players"][0]["rows"][where]["cards"])
    else:
        assert v["discards"][where][-1] == cid
    shot(page, "keltis-after-drag")

    # Play on by clicks until a pile holds two cards on Anna's turn; the viewer lists it
    # bottom first. (On her turn the piles hold still: the bots wait for her. A pile seen
    # full on a bot's turn may be drawn empty by the bots before the page shows it.)
    n = 0
    spec_checks = 0
    while True:
        mine = my_turn(page)
        v = page.evaluate("() => window.__cardtable.view()")  # read after: still her turn
        full = [p for p, cards in v["discards"].items() if len(cards) >= 2]
        if (full and mine) or v["phase"] == "ended":
            break
        n += 1 if click_move(page, n) else 0
        if not my_turn(page):
            page.wait_for_timeout(40)  # polling: nothing to click until the next frame
        spec_checks += assert_no_hand(spec, page, web, tid)
        assert n < 300
    assert full and mine, "no pile held two cards on Anna's turn"
    pile = full[0]
    page.get_by_test_id(f"pile-view-{pile}").click()
    viewer = page.get_by_test_id("pile-viewer")
    expect(viewer).to_be_visible()
    # (Once the page shows the latest view: moves of others are shown at a pace.)
    page.wait_for_function(VIEWER_LISTS_PILE, arg=pile)
    assert viewer.locator(".kcard").count() == len(v["discards"][pile]) >= 2
    shot(page, "keltis-pile-viewer")
    page.get_by_test_id("pile-viewer-close").click()
    expect(viewer).to_have_count(0)
    # The spectator too may look through a pile, and sees no hand.
    spec.get_by_test_id(f"pile-view-{pile}").click()
    expect(spec.get_by_test_id("pile-viewer")).to_be_visible()
    assert assert_no_hand(spec, page, web, tid) == 1
    sctx.close()
    ctx.close()


MY_PLAY = """() => { const c = window.__cardtable.conn, v = c.view;
  return !!(c.prompt && c.prompt.seq === c.seq && v && v.current_seat === c.seat
    && window.__cardtable.shown() === c.seq && v.step === 'play'); }"""


def wait_turn(page: Page) -> None:
    page.wait_for_function(MY_PLAY, timeout=30_000)


def assert_no_hand(spec: Page, player: Page, web: ServerProcess, tid: str) -> int:
    """The spectator's view holds no hand before the end, its page shows none, and no card
    of the player's hand that was never public (in no event a spectator may read) appears
    in the spectator's page or view. 1 when checked (before the end, the hand holding a
    card that was never public), else 0."""
    v = spec.evaluate("() => window.__cardtable.view()")
    held = player.evaluate("() => { const e = window.__cardtable, v = e.view(); return v "
                           "&& v.phase !== 'ended' ? v.players[e.seat()].hand : null; }")
    if not v or not v.get("players") or v["phase"] == "ended" or not held:
        return 0
    assert all(p["hand"] is None for p in v["players"])
    assert spec.get_by_test_id("my-hand").count() == 0
    assert spec.locator("[data-testid=hand-cards], [data-hand]").count() == 0
    text = json.dumps(v) + spec.content()  # every attribute (data-card) and text
    events = api(web, "GET", f"/api/tables/{tid}/events")["events"]  # read after: a superset
    if any(e and e.get("type") == "game_ended" for e in events):
        return 0  # the game ended between the reads, and its end shows every hand
    public = json.dumps(events)
    secret = [c for c in held if f'"{c}"' not in public]
    if not secret:
        # Every card in the hand was public once (drawn back from discard piles): in
        # random self-play 5 % of the states of 300 games, so nothing to check this time.
        return 0
    assert not [c for c in secret if f'"{c}"' in text]
    return 1


# The page's seat played by its own connection (any legal action), as a person would: only
# once the board shows the prompt. On each final-turn decision it notes whether the board
# shows the final turns' notice (the board is then the view of that decision).
AUTOPLAY_SHOWN = """() => { window.__finals = []; window.__auto = setInterval(() => {
    const c = window.__cardtable.conn, b = document.querySelector('[data-testid=board]');
    if (!c.prompt || c.prompt.seq !== c.seq || c.pending || !c.view || c.view.phase === "ended"
        || !b || b.dataset.seq !== String(c.seq) || b.dataset.prompt !== "1") return;
    if (c.view.step === "final")
        window.__finals.push(!!document.querySelector('[data-testid=final-turns]'));
    const legal = c.prompt.legal_actions;
    c.act(legal[Math.floor(window.__random() * legal.length)]);
}, 30); }"""


def test_keltis_in_german_on_a_phone(
        browser: Browser, web: ServerProcess, request: pytest.FixtureRequest) -> None:
    """A German page at 390 px: the board, hand, piles, stones and log read in German, in
    the game's German terms, and nothing reaches past the right edge, during the game and
    at its end (the score breakdown scrolls inside its own box)."""
    tid, seat = bot_table(web, "keltis", name="Jonas", title="Keltis board")
    ctx, page = seated_page(browser, web, tid, seat, "keltis",
                            viewport={"width": 390, "height": 844}, locale="de-DE",
                            is_mobile=True, has_touch=True)
    expect(page.get_by_test_id("my-hand")).to_contain_text("Deine Handkarten")
    expect(page.get_by_test_id("deck-count")).to_contain_text("Nachziehstapel")
    expect(page.get_by_test_id("stones")).to_contain_text("Wunschsteine")
    expect(page.get_by_test_id("pile-green")).to_contain_text("Grün")
    expect(page.get_by_test_id("pile-pink")).to_contain_text("Rosa")
    expect(page.get_by_test_id("row-0-point")).to_contain_text("Punkte")
    assert page.evaluate(OVERFLOW) == []
    # The six piles' names are whole, the header one line, at 390 and 360 px, in German and
    # in English.
    assert page.locator("[data-testid=piles] .kpile-name").count() == 6
    for width, height in ((390, 844), (360, 740)):
        page.set_viewport_size({"width": width, "height": height})
        for lang in ("de", "en"):
            page.get_by_test_id(f"lang-{lang}").click()
            assert page.evaluate(CUT_PILE_NAMES) == [], (width, lang)
            assert page.evaluate(OVERFLOW) == [], (width, lang)
            assert_header_one_line(page)
    page.get_by_test_id("lang-de").click()
    page.set_viewport_size({"width": 390, "height": 844})
    n = 0
    while n < 12:
        ok = click_move(page, n)
        if ok:
            n += 1
        else:
            page.wait_for_timeout(40)  # polling: nothing to click until the next frame
    v = page.evaluate("() => window.__cardtable.view()")
    log = page.get_by_test_id("log").inner_text()
    assert "Jonas legte" in log or "Jonas warf" in log
    assert "Jonas zog" in log and "Nachziehstapel" in log
    assert "kev_" not in log and "k_" not in page.get_by_test_id("board").inner_text()
    expect(page.get_by_test_id("turn-banner")).not_to_contain_text("turn")
    assert page.evaluate(OVERFLOW) == []
    page.evaluate("() => window.scrollTo(0, 0)")
    shot(page, "keltis-phone")
    # The rest of the game by the page's own connection (any legal action, once the board
    # shows the prompt; moves at once), then the end.
    page.evaluate("() => localStorage.setItem('cardtable.pace', JSON.stringify('off'))")
    autoplay(page, AUTOPLAY_SHOWN, page_seed(request))
    page.wait_for_function("() => { const v = window.__cardtable?.view(); "
                           "return v && v.phase === 'ended'; }", timeout=120_000)
    page.evaluate("() => clearInterval(window.__auto)")
    # Jonas's final turn, when the deal left him one, showed the final turns' notice.
    finals = page.evaluate("() => window.__finals")
    assert all(finals) and bool(finals) == (0 in final_deciders(web, tid)), finals
    expect(page.get_by_test_id("score")).to_contain_text("Wertung")
    assert page.evaluate(OVERFLOW) == [], v["phase"]
    ctx.close()


# Anna's page plays her seat: a draw from a discard pile whenever one is offered (so the log
# has one), never a stone (so the stones go to the bots, whose names are long).
PILE_PLAY = """() => { window.__auto = setInterval(() => {
    const c = window.__cardtable.conn;
    if (!c.prompt || c.prompt.seq !== c.seq || c.pending || !c.view
        || c.view.phase === "ended") return;
    const legal = c.prompt.legal_actions.filter((a) => a.type !== "stone");
    const piles = legal.filter((a) => a.type === "draw" && a.from !== "deck");
    const pick = piles.length ? piles : legal;
    if (pick.length) c.act(pick[Math.floor(window.__random() * pick.length)]);
}, 30); }"""
# Done when a bot holds a stone and the log has a draw from a pile, or the game ended.
BOT_STONE_AND_PILE_DRAW = """() => { const v = window.__cardtable.view();
    if (!v || !v.players) return false;
    const drawn = [...document.querySelectorAll('[data-testid=log] li')]
        .some((li) => / zog .*Ablagestapel/.test(li.textContent));
    return v.phase === 'ended'
        || drawn && v.players.some((p) => p.seat !== 0 && p.stones.length); }"""


def test_keltis_german_log_and_stone_holders_on_a_phone(
        browser: Browser, web: ServerProcess, request: pytest.FixtureRequest) -> None:
    tid, seat = bot_table(web, "keltis", kind="greedy")
    ctx, page = seated_page(browser, web, tid, seat, "keltis",
                            viewport={"width": 390, "height": 844}, is_mobile=True,
                            has_touch=True)
    page.get_by_test_id("lang-de").click()
    autoplay(page, PILE_PLAY, page_seed(request))
    page.wait_for_function(BOT_STONE_AND_PILE_DRAW, timeout=180_000)
    page.evaluate("() => clearInterval(window.__auto)")
    log = page.get_by_test_id("log").locator("li").all_inner_texts()
    draws = [x for x in log if " zog " in x and "Ablagestapel" in x]
    assert draws and all("vom Ablagestapel" in x for x in draws), draws
    assert not [x for x in log if "von den Ablagestapel" in x]
    # Each taken stone names its holder in full under it (wrapped, never cut with "…").
    view = page.evaluate("() => window.__cardtable.view()")
    held = {s: p["seat"] for p in view["players"] for s in p["stones"]}
    assert any(seat != 0 for seat in held.values())
    for stone, holder in held.items():
        label = page.get_by_test_id(f"stone-{stone}").locator("small")
        name = page.get_by_test_id(f"player-{holder}").locator(".kname, .pname").first
        expect(label).to_be_visible()
        cut = label.evaluate("(e) => e.scrollWidth > e.clientWidth + 1 "
                             "|| e.scrollHeight > e.clientHeight + 1")
        assert not cut, stone
        assert label.inner_text().replace("\n", " ") == name.inner_text().split(" (")[0]
    shot(page, "keltis-phone-stones-de", full_page=False)
    ctx.close()
