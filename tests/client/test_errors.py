"""The refusal texts of the web client (client-web/src/errors.js and the games' own
``games/<package>/errors.js``): every code a game's engine raises has words in English and
German, read from the engine's sources and from the client's tables as the page reads them
(errorText in Node); and on a live table a refused Keltis and Loot Island move shows the
game module's words in both languages, never the server's English message."""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from engine import GAMES
from tests.client.conftest import bot_table, seated_page
from tests.conftest import ROOT, ServerProcess

SRC = ROOT / "client-web" / "src"
TEXTS_JS = Path(__file__).with_name("error_texts.mjs")
SENTINEL = "SERVER-WORDS-7f3a"  # the server's message: shown only when no text exists

PACKAGES = {name: type(game).__module__.split(".")[1] for name, game in GAMES.items()}
"""Each registered game's engine package (engine/<package>/) and client table
(client-web/src/games/<package>/errors.js)."""


def _codes_of(call: ast.Call, where: str) -> set[str]:
    arg = call.args[0] if call.args else next(k.value for k in call.keywords if k.arg == "code")
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return {arg.value}
    if isinstance(arg, ast.IfExp):
        return _codes_of(ast.Call(call.func, [arg.body], []), where) | _codes_of(
            ast.Call(call.func, [arg.orelse], []), where)
    # A code computed at run time could be any string: this check could not see it.
    raise AssertionError(f"{where}: IllegalAction with a non-literal code {ast.dump(arg)}")


def raised_codes(package: str) -> dict[str, str]:
    """Every code ``IllegalAction(...)`` is built with in engine/<package>/ and in the
    shared engine modules (engine/*.py, which every game's actions pass through), each
    with one place it is raised (``path:line``)."""
    files = [*(ROOT / "engine" / package).rglob("*.py"), *(ROOT / "engine").glob("*.py")]
    found: dict[str, str] = {}
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.Call):
                continue
            called = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            if called == "IllegalAction":
                where = f"{path.relative_to(ROOT)}:{node.lineno}"
                for code in _codes_of(node, where):
                    found.setdefault(code, where)
    return found


def client_texts(package: str, codes: list[str]) -> dict:
    """What the page shows for ``codes`` in each language (errorText with the game's own
    table), and the codes of the game's table and of errors.js (error_texts.mjs)."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is needed to read the client's text tables")
    out = subprocess.run([node, str(TEXTS_JS), str(SRC), f"{package}/errors.js", SENTINEL,
                          *codes], capture_output=True, text=True, check=True, timeout=60)
    return json.loads(out.stdout)


def test_every_game_names_its_package() -> None:
    for name, package in PACKAGES.items():
        assert (ROOT / "engine" / package).is_dir(), name
        assert (SRC / "games" / package / "errors.js").is_file(), name


@pytest.mark.parametrize("game", sorted(PACKAGES))
def test_every_refusal_of_a_game_has_words_in_english_and_german(game: str) -> None:
    package = PACKAGES[game]
    raised = raised_codes(package)
    # The parser found the engine's checks: the codec's, and the game's own.
    assert "bad_message" in raised, raised
    assert any(w.startswith(f"engine/{package}/") for w in raised.values()), raised
    silent = GAMES[game].replay_only_codes
    assert set(silent) <= set(raised), "a listed code is no longer raised"
    codes = sorted(set(raised) - set(silent))
    got = client_texts(package, codes)
    own = got["own"]
    assert got["langs"] == ["en", "de"]
    assert own["en"] == own["de"], "the game's table lists other codes in German"
    # The game words only what its own rules raise; the codes every game shares stay in
    # errors.js (a game table must not reword them for one game).
    assert set(own["en"]) <= set(raised), sorted(set(own["en"]) - set(raised))
    assert not set(own["en"]) & set(got["shared"]), sorted(set(own["en"]) & set(got["shared"]))
    missing = {lang: sorted(c for c in codes if SENTINEL in got["texts"][lang][c])
               for lang in ("en", "de")}
    assert missing == {"en": [], "de": []}, {c: raised[c] for c in missing["en"] + missing["de"]}
    for code in own["en"]:
        en, de = got["texts"]["en"][code], got["texts"]["de"][code]
        assert en and de and en != de, (code, en, de)


# --- a real refusal on a live table ----------------------------------------------------

WATCH_ERRORS = """() => { const e = window.__cardtable;
    if (!e.errors) {
      e.errors = [];
      e.conn.addEventListener('error', (m) => e.errors.push(m.detail));
    } }"""


def refused(page: Page, action: dict, lang: str, text: str) -> dict:
    """Send ``action`` through the page's connection with the page in ``lang``; the
    server's error frame, once the toast shows ``text`` (the page's words for its code)."""
    page.get_by_test_id(f"lang-{lang}").click()
    page.evaluate(WATCH_ERRORS)
    n = page.evaluate("() => window.__cardtable.errors.length")
    page.evaluate("(a) => window.__cardtable.conn.act(a)", action)
    page.wait_for_function(f"() => window.__cardtable?.errors.length > {n}")
    err = page.evaluate("() => window.__cardtable.errors.at(-1)")
    expect(page.get_by_test_id("toast")).to_have_text(text)
    assert err["message"] and err["message"] not in text and SENTINEL not in text
    return err


MY_PLAY = """() => { const c = window.__cardtable.conn, v = c.view;
    return !!(c.prompt && c.prompt.seq === c.seq && !c.pending && v
              && v.current_seat === c.seat && v.step === 'play'
              && window.__cardtable.shown() === c.seq); }"""


def test_a_refused_keltis_move_in_german_and_english(browser: Browser, web: ServerProcess) -> None:
    tid, seat = bot_table(web, "keltis", title="Keltis board")
    ctx, page = seated_page(browser, web, tid, seat, "keltis")
    page.wait_for_function(MY_PLAY)
    hand = page.evaluate("() => window.__cardtable.view().players[window.__cardtable.seat()].hand")
    number = next(c for c in hand if not c.startswith("point-"))  # 8 point cards: 1 in 10^6
    seq = page.evaluate("() => window.__cardtable.seq()")
    texts = {"de": "An die Punktekartenreihe kommen nur Punktekarten.",
             "en": "Only point cards go on the point row."}
    for lang, text in texts.items():
        err = refused(page, {"type": "lay", "card": number, "row": "point"}, lang, text)
        assert err["code"] == "not_a_point_card"
    # Nothing changed: the same seq, still this seat's play step.
    assert page.evaluate("() => window.__cardtable.seq()") == seq
    assert page.evaluate(MY_PLAY)
    ctx.close()


def test_a_refused_loot_island_move_in_german_and_english(browser: Browser,
                                                           web: ServerProcess) -> None:
    # No events: none may let an islet be paid with any colors (islet_any_cards).
    tid, seat = bot_table(web, "loot-island", kind="greedy", title="Refusals",
                          options={"events": False})
    ctx, page = seated_page(browser, web, tid, seat, "loot-island")
    # This seat's turn in phase 2 (round 1 has no discard: the hands are dealt empty).
    page.wait_for_function("""() => { const t = window.__cardtable; if (!t) return false;
        const c = t.conn, v = c.view;
        return !!(c.prompt && c.prompt.seq === c.seq && !c.pending && v
                  && v.current_seat === c.seat && v.step === 'act'
                  && t.shown() === c.seq); }""")
    view = page.evaluate("() => window.__cardtable.view()")
    hand = view["players"][seat["seat"]]["hand"]
    colour = {c: c.split("-")[1] for c in hand}  # map-<colour>-<value><copy>
    first = hand[0]
    other = next((c for c in hand if colour[c] != colour[first]), None)
    assert other is not None, f"a hand of one color: {hand}"
    # An open islet: a bot before this seat may have used one this round (islet_used).
    islet = next(i for i, state in view["islets"].items() if state == "open")
    seq = page.evaluate("() => window.__cardtable.seq()")
    texts = {"de": "Diese Schatzkarten müssen alle dieselbe Farbe haben.",
             "en": "These map cards must all be of one color."}
    for lang, text in texts.items():
        err = refused(page, {"type": "islet", "islet": islet, "cards": [first, other]},
                      lang, text)
        assert err["code"] == "mixed_colours"
    assert page.evaluate("() => window.__cardtable.seq()") == seq
    ctx.close()
