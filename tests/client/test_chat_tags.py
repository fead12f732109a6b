"""Two spectators' chat tags tell them apart (client-web/src/chat.js): a spectator is shown
with its whole public id (8 hex digits, server/play/chat.py ``spectator_id``), not a part
that two spectators may share (the first 4 digits once were the whole tag)."""

from __future__ import annotations

import hashlib
import json
from itertools import count

from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.client.conftest import api, seed_storage
from tests.conftest import ServerProcess


def public_id(viewer: str) -> str:
    """The server's public id of a viewer secret (``server.play.chat.spectator_id``)."""
    return hashlib.sha256(b"einauge-viewer:" + viewer.encode()).hexdigest()[:8]


def two_viewers_alike_in_4() -> tuple[str, str]:
    """Two viewer secrets whose public ids share their first 4 digits (the first such
    pair of 48-digit counters: the same on every run)."""
    seen: dict[str, str] = {}
    for i in count():
        viewer = f"{i:048x}"
        prefix = public_id(viewer)[:4]
        if prefix in seen:
            return seen[prefix], viewer
        seen[prefix] = viewer
    raise AssertionError("unreachable")


def spectator(browser: Browser, web: ServerProcess, tid: str, viewer: str
              ) -> tuple[BrowserContext, Page]:
    ctx = browser.new_context(viewport={"width": 1366, "height": 900})
    seed_storage(ctx, {"cardtable.name": json.dumps("Zoe"),
                       "cardtable.viewer": json.dumps(viewer)})
    page = ctx.new_page()
    page.goto(f"{web.url}/table/{tid}")
    expect(page.get_by_test_id("chat-input")).to_be_visible()
    page.get_by_test_id("chat-tab-spectators").click()
    return ctx, page


def test_two_spectators_of_one_name_get_different_tags(browser: Browser,
                                                       web: ServerProcess) -> None:
    table = api(web, "POST", "/api/tables", json={"seats": 2, "name": "Tag table"})
    tid = table["id"]
    for name in ("Anna", "Ben"):
        api(web, "POST", f"/api/tables/{tid}/join", json={"name": name})
    api(web, "POST", f"/api/tables/{tid}/start",
        headers={"Authorization": f"Bearer {table['owner_token']}"})
    viewers = two_viewers_alike_in_4()
    ids = [public_id(v) for v in viewers]
    assert ids[0][:4] == ids[1][:4] and ids[0] != ids[1]
    opened = [spectator(browser, web, tid, v) for v in viewers]
    try:
        for n, (_, page) in enumerate(opened):
            page.get_by_test_id("chat-input").fill(f"line {n}")
            page.get_by_test_id("chat-input").press("Enter")
            # Each line in before the next is sent: the log's order is the sending order.
            expect(opened[0][1].get_by_test_id("chat-msg")).to_have_count(n + 1)
        for _, page in opened:  # both readers, each seeing itself and the other
            senders = page.get_by_test_id("chat-msg").locator(".chat-from")
            expect(senders).to_have_text([f"Zoe #{ids[0]}", f"Zoe #{ids[1]}"])
    finally:
        for ctx, _ in opened:
            ctx.close()
