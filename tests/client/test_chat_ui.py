"""The table chat in the browser: two players (one reading German) and a spectator on a
real server; markup stays text, quick messages in each reader's language, the channels
apart, mute in one's own view (kept over a reload, which brings the history back), the
rate limit's message, and a line a moderator removes leaving every page at once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.client.conftest import api, seed_storage, shot
from tests.conftest import ROOT, TEST_ENV, ServerProcess

XSS = "<img src=x onerror=alert(1)>"


@dataclass
class Chat:
    table_id: str
    anna: Page
    ben: Page
    spectator: Page
    contexts: list[BrowserContext]
    dialogs: list[str]


def open_as(browser: Browser, web: ServerProcess, table_id: str, locale: str,
            seat: dict | None, name: str, dialogs: list[str]) -> tuple[BrowserContext, Page]:
    ctx = browser.new_context(viewport={"width": 1366, "height": 900}, locale=locale)
    stored = {"cardtable.name": json.dumps(name)}
    if seat is not None:
        stored[f"cardtable.seat.{table_id}"] = json.dumps(seat)
    seed_storage(ctx, stored, keep=True)
    page = ctx.new_page()
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(f"{web.url}/table/{table_id}")
    expect(page.get_by_test_id("board")).to_be_visible()
    expect(page.get_by_test_id("chat-input")).to_be_visible()
    return ctx, page


@pytest.fixture(scope="module")
def chat(browser: Browser, web: ServerProcess) -> Iterator[Chat]:
    table = api(web, "POST", "/api/tables", json={"seats": 2, "name": "Chat table"})
    tid = table["id"]
    seats = [api(web, "POST", f"/api/tables/{tid}/join", json={"name": n}) for n in ("Anna", "Ben")]
    api(web, "POST", f"/api/tables/{tid}/start",
        headers={"Authorization": f"Bearer {table['owner_token']}"})
    dialogs: list[str] = []
    pages, contexts = [], []
    for locale, seat, name in (("en-US", seats[0], "Anna"), ("de-DE", seats[1], "Ben"),
                               ("en-US", None, "Zoe")):
        info = {**seat, "name": name} if seat else None
        ctx, page = open_as(browser, web, tid, locale, info, name, dialogs)
        pages.append(page)
        contexts.append(ctx)
    yield Chat(tid, *pages, contexts, dialogs)
    for c in contexts:
        c.close()


def say(page: Page, text: str) -> None:
    page.get_by_test_id("chat-input").fill(text)
    page.get_by_test_id("chat-input").press("Enter")


def texts(page: Page) -> list[str]:
    return page.get_by_test_id("chat-log").get_by_test_id("chat-text").all_inner_texts()


def test_markup_is_shown_as_text_and_never_run(chat: Chat) -> None:
    say(chat.anna, XSS)
    for page in (chat.anna, chat.ben, chat.spectator):
        if page is chat.spectator:
            page.get_by_test_id("chat-tab-players").click()
        expect(page.get_by_test_id("chat-log").get_by_test_id("chat-text").last).to_have_text(XSS)
        assert page.locator("[data-testid=chat] img").count() == 0
        assert page.locator("img[src=x]").count() == 0
    assert chat.dialogs == []
    expect(chat.ben.get_by_test_id("chat-log").locator(".chat-from").last).to_have_text("Anna")


def test_quick_messages_in_each_readers_language(chat: Chat) -> None:
    chat.anna.get_by_test_id("quick-gg").click()
    expect(chat.anna.get_by_test_id("chat-log")).to_contain_text("Good game")
    expect(chat.ben.get_by_test_id("chat-log")).to_contain_text("Gutes Spiel")
    expect(chat.spectator.get_by_test_id("chat-log")).to_contain_text("Good game")
    chat.ben.get_by_test_id("quick-thanks").click()
    expect(chat.ben.get_by_test_id("chat-log").get_by_test_id("chat-text").last).to_have_text("Danke")
    expect(chat.anna.get_by_test_id("chat-log").get_by_test_id("chat-text").last).to_have_text("Thanks")
    # Switching the language switches the quick messages already shown.
    chat.spectator.get_by_test_id("lang-de").click()
    expect(chat.spectator.get_by_test_id("chat-log")).to_contain_text("Gutes Spiel")
    chat.spectator.get_by_test_id("lang-en").click()
    expect(chat.spectator.get_by_test_id("chat-log")).to_contain_text("Good game")


def test_spectators_talk_apart_from_the_players(chat: Chat) -> None:
    spec = chat.spectator
    spec.get_by_test_id("chat-tab-spectators").click()
    say(spec, "go Anna!")
    last = spec.get_by_test_id("chat-log").get_by_test_id("chat-text").last
    expect(last).to_have_text("go Anna!")
    expect(spec.get_by_test_id("chat-log").locator(".chat-from").last).to_contain_text("Zoe #")
    # In the players' channel the spectator only reads.
    spec.get_by_test_id("chat-tab-players").click()
    expect(spec.get_by_test_id("chat-readonly")).to_be_visible()
    expect(spec.get_by_test_id("chat-input")).to_be_hidden()
    say(chat.anna, "after the spectator")
    expect(chat.ben.get_by_test_id("chat-log")).to_contain_text("after the spectator")
    for player in (chat.anna, chat.ben):
        assert "go Anna!" not in player.get_by_test_id("chat").inner_text()
        expect(player.get_by_test_id("chat-tab-spectators")).to_have_count(0)
    spec.get_by_test_id("chat-tab-spectators").click()
    shot(spec, "table-chat", full_page=False)


def test_mute_hides_a_participant_in_ones_own_view_only(chat: Chat) -> None:
    ben, spec = chat.ben, chat.spectator
    say(ben, "hallo Anna")
    expect(ben.get_by_test_id("chat-log")).to_contain_text("hallo Anna")
    ben.get_by_test_id("chat-log").get_by_test_id("mute-p0").first.click()
    expect(ben.get_by_test_id("chat-muted")).to_contain_text("Anna")
    assert not any("after the spectator" in t for t in texts(ben))
    say(chat.anna, "are you there?")
    spec.get_by_test_id("chat-tab-players").click()
    expect(spec.get_by_test_id("chat-log")).to_contain_text("are you there?")
    expect(chat.anna.get_by_test_id("chat-log")).to_contain_text("are you there?")
    shot(spec, "table-chat-players", full_page=False)
    # A reload: the history comes back, and Ben's mute holds.
    ben.reload()
    expect(ben.get_by_test_id("chat-log")).to_contain_text("hallo Anna")
    assert not any(t in ("are you there?", XSS) for t in texts(ben))
    ben.get_by_test_id("unmute-p0").click()
    expect(ben.get_by_test_id("chat-log")).to_contain_text("are you there?")
    assert XSS in texts(ben)


def test_too_many_messages_get_a_clear_message(chat: Chat) -> None:
    spec = chat.spectator
    spec.get_by_test_id("chat-tab-spectators").click()
    # A burst of 5 per sender, then one per 3 s: the six go in one task of the page, each
    # by the form's own submit. Sent one by one from here, a busy machine could space them
    # past a refill, and the sixth would pass.
    spec.get_by_test_id("chat-input").evaluate("""(input) => {
        for (let i = 0; i < 6; i++) { input.value = `spam ${i}`; input.form.requestSubmit(); }
    }""")
    expect(spec.get_by_test_id("chat-error")).to_have_text(
        "Slow down: wait a moment before the next message.")
    expect(spec.get_by_test_id("chat-log")).to_contain_text("spam 3")
    assert "spam 5" not in texts(spec)


def test_a_line_removed_by_a_moderator_leaves_every_page_at_once(
        chat: Chat, redis_url: str) -> None:
    say(chat.anna, "a rude line")
    line = chat.anna.get_by_test_id("chat-log").get_by_test_id("chat-msg").last
    expect(line).to_contain_text("a rude line")
    message_id = line.get_attribute("data-id")
    chat.spectator.get_by_test_id("chat-tab-players").click()
    for page in (chat.ben, chat.spectator):
        expect(page.get_by_test_id("chat-log")).to_contain_text("a rude line")
    done = subprocess.run([sys.executable, "-m", "cli", "admin", "--redis-url", redis_url,
                           "remove-chat", "--", chat.table_id, str(message_id)],
                          cwd=ROOT, env={**os.environ, **TEST_ENV}, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    # No reload: each page drops the text where it stood, in its reader's language.
    for page, shown in ((chat.anna, "(removed by a moderator)"),
                        (chat.ben, "(von der Moderation entfernt)"),
                        (chat.spectator, "(removed by a moderator)")):
        removed = page.locator(f"[data-testid=chat-msg][data-id='{message_id}']")
        expect(removed.get_by_test_id("chat-text")).to_have_text(shown)
        expect(page.get_by_test_id("chat-log")).not_to_contain_text("a rude line")
