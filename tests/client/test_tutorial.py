"""The tutorials in the browser (client-web/src/tutorial.js, games/<game>/lesson.js) on a
real server and Debian's Chromium: each game's tutorial is reached from the lobby and
walked to its end by following the coach, in English and in German, with a move the
lesson does not want and one the server refuses, both explained in the coach; the rules
page links the tutorial, and a game's first table page offers it once per browser."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.client.conftest import bot_table, seated_page, seed_storage
from tests.client.test_axe import violations
from tests.conftest import ServerProcess

NO_PACE = {"cardtable.pace": json.dumps("off")}
# The first words of each lesson's first step, per language (games/<game>/lesson.js).
FIRST = {
    ("einauge", "en"): "Welcome aboard!", ("einauge", "de"): "Willkommen an Bord!",
    ("keltis", "en"): "Welcome to Keltis!", ("keltis", "de"): "Willkommen bei Keltis!",
    ("loot-island", "en"): "Ahoy!", ("loot-island", "de"): "Ahoi!",
}
# The clicks of a move of the first step that the lesson does not want (a legal one: the
# coach stops it before it is sent).
OTHER_MOVE = {"einauge": ["act-buy-gray-8"], "keltis": ["hand-red-6a", "act-lay-red-6a-red"],
              "loot-island": ["hand-map-green-5a", "hand-map-green-7a", "play-north-2"]}
# A move the server refuses at the first step (as a stale page might send it), and the
# refusal's text in the coach.
REFUSED = {
    "einauge": ({"type": "buy", "card": "purple-8"},
                {"en": "That card is no longer there.", "de": "Diese Karte liegt nicht mehr da."}),
    "keltis": ({"type": "lay", "card": "green-10", "row": "red"},
               {"en": "That card goes only on the row of its own color.",
                "de": "Diese Karte kommt nur an die Reihe ihrer Farbe."}),
    "loot-island": ({"type": "play", "landing": "north-1",
                     "cards": ["map-blue-9b", "map-green-5a"]},
                    {"en": "These map cards must all be of one color.",
                     "de": "Diese Schatzkarten müssen alle dieselbe Farbe haben."}),
}
GAMES = ["einauge", "keltis", "loot-island"]
WALKED = GAMES
"""The games whose lesson is walked to its end here: all of them."""
# A color adjective of a German lesson text used as a noun before a card's value ("die
# Gelb 2"): it is declined ("die gelbe 2"), or, for "lila", written small ("die lila 3").
GERMAN_SLIP = re.compile(r"\b(?:die|der|den|dem|Die|Der) "
                         r"(?:Lila|Gelb|Grau|Blau|Rot|Grün|Pink|Weiß|Orange)\b")
DONE = {"en": "What to remember", "de": "Das solltest du dir merken"}
WRONG = {"en": "this lesson", "de": "dieser Lektion"}
SERVER_REFUSED = {"en": "The server refused that move", "de": "Der Server hat diesen Zug abgelehnt"}


@pytest.fixture
def learner(browser: Browser, request: pytest.FixtureRequest
            ) -> Iterator[tuple[BrowserContext, Page, str]]:
    lang = request.param
    ctx = browser.new_context(viewport={"width": 1366, "height": 900},
                              locale="de-DE" if lang == "de" else "en-US")
    seed_storage(ctx, {**NO_PACE, "cardtable.lang": json.dumps(lang)})
    yield ctx, ctx.new_page(), lang
    ctx.close()


def step_of(page: Page) -> str:
    return page.get_by_test_id("coach-text").get_attribute("data-step") or ""


# Records each step the coach shows as it first shows it, with whether the banner told the
# learner's turn at that moment (the coach's redraw and the banner's come in one task).
RECORD_STEPS = """() => {
    window.__coachSteps = [];
    const coach = document.querySelector("[data-testid=coach]");
    const seen = () => {
        const c = coach.querySelector("[data-testid=coach-text]");
        const step = c ? c.dataset.step : null;
        const all = window.__coachSteps;
        if (!step || (all.length && all[all.length - 1].step === step)) return;
        const b = document.querySelector("[data-testid=turn-banner]");
        all.push({step, myTurn: b ? b.dataset.myTurn : null, text: c.textContent});
    };
    seen();
    new MutationObserver(seen).observe(coach, {childList: true, subtree: true, attributes: true});
}"""


def follow_the_coach(page: Page, until: str | None = None) -> list[str]:
    """Make the move the coach points at (a card to select first, then its button) until
    the lesson ends (or, with ``until``, until the coach shows that step at the learner's
    turn); the steps seen, in order."""
    steps: list[str] = []
    while True:
        expect(page.get_by_test_id("coach-text")).to_have_attribute("data-step", re.compile("."))
        step = step_of(page)
        if step == "done":
            return steps
        if not steps or steps[-1] != step:
            steps.append(step)
        expect(page.get_by_test_id("turn-banner")).to_have_attribute("data-my-turn", "1")
        if step == until:
            return steps
        target = page.locator(".coach-target")
        expect(target).to_have_count(1)
        expect(target).to_have_attribute("aria-describedby", "coach-text")
        pointed = target.get_attribute("data-testid")
        # What it points at takes a click once the page has drawn this seat's prompt (a
        # card of the hand is a button then): itself, or in a zone its first move.
        kind = page.wait_for_function("""() => {
            const t = document.querySelector(".coach-target");
            if (!t) return null;
            if (t.matches("button:not([disabled]), [role=button]")) return "self";
            return t.querySelector("button[data-testid^=act-]:not([disabled])") ? "zone" : null;
            }""").json_value()
        if kind == "self":
            target.click()
        else:  # a step that lets any move of a zone through: its first one
            target.locator("button[data-testid^=act-]:not([disabled])").first.click()
        # The next step, or (a card selected) the coach pointing at what comes next.
        page.wait_for_function("""([step, pointed]) => {
            const c = document.querySelector("[data-testid=coach-text]");
            const t = document.querySelector(".coach-target");
            return c && (c.dataset.step !== step || (t && t.dataset.testid !== pointed)); }""",
                               arg=[step, pointed])


@pytest.mark.parametrize("learner", ["en", "de"], indirect=True)
@pytest.mark.parametrize("game", WALKED)
def test_the_tutorial_is_walked_to_its_end(learner: tuple[BrowserContext, Page, str],
                                           web: ServerProcess, game: str) -> None:
    _, page, lang = learner
    page.goto(web.url + "/")
    page.get_by_test_id(f"learn-{game}").click()
    expect(page).to_have_url(re.compile(r"/table/[\w-]+$"))
    expect(page.get_by_test_id("tutorial-badge")).to_be_visible()
    coach = page.get_by_test_id("coach")
    expect(coach.get_by_test_id("coach-text")).to_contain_text(FIRST[(game, lang)])
    expect(page.get_by_test_id("turn-banner")).to_have_attribute("data-my-turn", "1")
    first = step_of(page)
    seq = page.evaluate("() => window.__cardtable.seq()")

    # A legal move the lesson does not want: the coach says so and nothing is sent.
    for testid in OTHER_MOVE[game]:
        page.get_by_test_id(testid).click()
    expect(coach.get_by_test_id("coach-refusal")).to_contain_text(WRONG[lang])
    assert page.evaluate("() => window.__cardtable.conn.pending") is None
    # A move the server refuses (as a page a step behind would send it): its reason in the coach.
    action, text = REFUSED[game]
    page.evaluate("(a) => window.__cardtable.conn.act(a)", {**action, "seat": 0})
    expect(coach.get_by_test_id("coach-refusal")).to_contain_text(SERVER_REFUSED[lang])
    expect(coach.get_by_test_id("coach-refusal")).to_contain_text(text[lang])
    assert page.evaluate("() => window.__cardtable.seq()") == seq
    assert step_of(page) == first

    page.evaluate(RECORD_STEPS)
    steps = follow_the_coach(page)
    assert steps[0] == first and len(steps) == len(set(steps)) >= 3
    # Each step came on the learner's turn, never while the bot still played its own: a
    # "your turn again" is not read early.
    shown = page.evaluate("() => window.__coachSteps")
    assert [x["step"] for x in shown] == [*steps, "done"], json.dumps(
        [(x["step"], x["myTurn"]) for x in shown])
    assert [x["step"] for x in shown if x["myTurn"] != "1" and x["step"] != "done"] == []
    if lang == "de":
        assert [x["text"] for x in shown if GERMAN_SLIP.search(x["text"])] == []
    expect(coach.get_by_text(DONE[lang])).to_be_visible()
    remember = coach.get_by_test_id("coach-remember").locator("li")
    assert 3 <= remember.count() <= 5
    expect(coach.get_by_test_id("coach-rules")).to_have_attribute("href", f"/rules/{game}")
    expect(coach.get_by_test_id("coach-play-real")).to_have_attribute("href", "/")
    # Play on: the coach steps aside, the game goes on against the bot.
    coach.get_by_test_id("coach-play-on").click()
    expect(page.get_by_test_id("coach")).to_be_hidden()
    expect(page.get_by_test_id("board")).to_be_visible()


@pytest.mark.parametrize("learner", ["en", "de"], indirect=True)
def test_resigning_at_a_tutorial_table_ends_the_lesson(
        learner: tuple[BrowserContext, Page, str], web: ServerProcess) -> None:
    """The learner resigns mid-lesson: the coach leaves its step for the lesson's end (why,
    and the links of its last step) and points at nothing; the bot plays the seat on (the
    game goes on with bots alone: early in this file, it has the rest of the file's time
    to end before the session's server is stopped)."""
    _, page, lang = learner
    page.goto(f"{web.url}/learn/keltis")
    expect(page.get_by_test_id("coach-text")).to_contain_text(FIRST[("keltis", lang)])
    expect(page.locator(".coach-target")).to_have_count(1)
    page.get_by_test_id("resign").click()
    page.get_by_test_id("confirm-yes").click()
    coach = page.get_by_test_id("coach")
    expect(coach.get_by_test_id("coach-text")).to_have_attribute("data-step", "left")
    expect(coach.get_by_test_id("coach-text")).to_contain_text(
        {"en": "You resigned", "de": "Du hast aufgegeben"}[lang])
    expect(coach.get_by_test_id("coach-rules")).to_have_attribute("href", "/rules/keltis")
    expect(coach.get_by_test_id("coach-play-real")).to_have_attribute("href", "/")
    expect(page.locator(".coach-target")).to_have_count(0)
    coach.get_by_test_id("coach-close").click()
    expect(coach).to_be_hidden()

@pytest.mark.parametrize("game", GAMES)
def test_the_tutorial_table_passes_axe(browser: Browser, web: ServerProcess, game: str) -> None:
    ctx = browser.new_context(viewport={"width": 1366, "height": 900}, locale="en-US")
    page = ctx.new_page()
    page.goto(f"{web.url}/learn/{game}")
    expect(page.locator(".coach-target")).to_have_count(1)
    found = violations(page)
    assert found == [], json.dumps(found, indent=1)
    ctx.close()


@pytest.mark.parametrize("game", GAMES)
def test_the_rules_page_leads_to_the_tutorial(page: Page, web: ServerProcess, game: str) -> None:
    page.goto(f"{web.url}/rules/{game}")
    page.get_by_test_id("rules-learn").click()
    expect(page).to_have_url(re.compile(r"/table/[\w-]+$"))
    expect(page.get_by_test_id("coach-text")).to_be_visible()


def test_a_games_first_table_offers_its_tutorial_once(browser: Browser, web: ServerProcess) -> None:
    tid, seat = bot_table(web, "einauge", bots=1)
    ctx, page = seated_page(browser, web, tid, seat)
    offer = page.get_by_test_id("tutorial-offer")
    expect(offer).to_be_visible()
    expect(offer.get_by_test_id("tutorial-offer-start")).to_have_attribute("href", "/learn/einauge")
    offer.get_by_test_id("tutorial-offer-dismiss").click()
    expect(offer).to_be_hidden()
    # Once per browser: the next visit, to this table or another of the game, offers none.
    tid2, seat2 = bot_table(web, "einauge", bots=1)
    page.evaluate("([id, s]) => localStorage.setItem(`cardtable.seat.${id}`, JSON.stringify(s))",
                  [tid2, seat2])
    page.goto(f"{web.url}/table/{tid2}")
    expect(page.get_by_test_id("board")).to_be_visible()
    expect(page.get_by_test_id("turn-banner")).to_have_attribute("data-phase", re.compile("."))
    expect(page.get_by_test_id("tutorial-offer")).to_have_count(0)
    ctx.close()


@pytest.mark.parametrize("learner", ["en", "de"], indirect=True)
def test_loot_islands_coach_counts_as_the_landings_counter(
        learner: tuple[BrowserContext, Page, str], web: ServerProcess) -> None:
    """The second play's text quotes North 1's count from the view, as its counter shows
    it (a plus-one card counts twice), beside the round's minimum."""
    _, page, lang = learner
    page.goto(f"{web.url}/learn/loot-island")
    expect(page.get_by_test_id("coach-text")).to_contain_text(FIRST[("loot-island", lang)])
    assert follow_the_coach(page, until="play2")[-1] == "play2"
    landing = page.get_by_test_id("landing-north-1")
    count = landing.get_attribute("data-count")
    minimum = page.get_by_test_id("minimum").get_attribute("data-value")
    # The deal's green 7 is a plus-one card: two cards that count 3, the minimum.
    assert (count, minimum) == ("3", "3")
    text = page.get_by_test_id("coach-text")
    counted = {"en": f"North 1 counts {count}", "de": f"Der Zähler von Nord 1 steht auf {count}"}
    expect(text).to_contain_text(counted[lang])
    minimum_is = {"en": f"the minimum is {minimum}", "de": f"das Minimum ist {minimum}"}
    expect(text).to_contain_text(minimum_is[lang])
    expect(text).not_to_contain_text({"en": "short of loot", "de": "zu wenig"}[lang])


@pytest.mark.parametrize("learner", ["en", "de"], indirect=True)
def test_a_tutorial_table_shows_no_invite_and_names_the_guest_in_the_pages_language(
        learner: tuple[BrowserContext, Page, str], web: ServerProcess) -> None:
    """No invite link, "private" badge or players-only chat note at a tutorial table (the
    learner plays a bot there); a guest seated without a name is "Guest" in English and
    "Gast" in German."""
    _, page, lang = learner
    page.goto(f"{web.url}/learn/einauge")
    expect(page.get_by_test_id("tutorial-badge")).to_be_visible()
    expect(page.locator(".coach-target")).to_have_count(1)
    seats = page.get_by_test_id("seats-panel")
    expect(seats).to_contain_text({"en": "Guest", "de": "Gast"}[lang])
    if lang == "de":
        expect(seats).not_to_contain_text("Guest")
    expect(page.get_by_test_id("chat")).to_be_visible()
    expect(page.get_by_test_id("chat-note")).to_be_hidden()
    expect(page.get_by_test_id("share-link")).to_have_count(0)
    expect(page.get_by_test_id("private-badge")).to_have_count(0)


def test_an_ordinary_bot_table_keeps_its_invite_and_chat_note(browser: Browser,
                                                              web: ServerProcess) -> None:
    """The other side of the test above: a table against a bot that is no tutorial shows
    its invite link and the chat's note."""
    tid, seat = bot_table(web, "einauge", bots=1)
    ctx, page = seated_page(browser, web, tid, seat)
    expect(page.get_by_test_id("board")).to_be_visible()
    expect(page.get_by_test_id("share-link")).to_be_visible()
    expect(page.get_by_test_id("chat-note")).to_be_visible()
    ctx.close()

