"""Loot Island's events are named by name and effect wherever the page shows them, never
by their catalogue code ("Event A03"): the event in force on the board, the revealed
events, the game log and the rules page's table, in English and in German."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import Page, expect

from tests.client.conftest import api, finished_table
from tests.conftest import ServerProcess
from tests.waiting import until_sync

CODE = re.compile(r"Event [AB]\d\d|Ereignis [AB]\d\d|event-[ab]\d\d")


def test_events_are_named_by_name_and_effect(page: Page, web: ServerProcess) -> None:
    tid = finished_table(web, "loot-island", 3)
    page.goto(f"{web.url}/replay/{tid}")
    # The page's test hooks exist once its script ran: under load, after the navigation.
    until_sync(lambda: page.evaluate("() => (window.__cardtable?.events?.() ?? 0) > 0"), 60,
               "the replay loaded")
    # The last turn's end where an event is in force and three have been revealed.
    seq = page.evaluate("""() => { const c = window.__cardtable;
        for (const [, last] of c.turns().reverse()) { c.seekSeq(last); const v = c.view();
            if (v.event && v.events_seen.length >= 3) return last; }
        return 0; }""")
    assert seq > 0, "no position with an event in force after three reveals"
    page.evaluate(f"() => window.__cardtable.seekSeq({seq})")
    view = page.evaluate("() => window.__cardtable.view()")
    event = page.get_by_test_id("event")
    expect(event).to_have_attribute("data-event", view["event"])
    name = page.get_by_test_id("event-name").inner_text().strip()
    effect = page.get_by_test_id("event-effect").inner_text().strip()
    assert name and effect and not CODE.search(event.inner_text()), event.inner_text()
    # The revealed events: each by its name, its effect on hover; none by its code.
    seen = page.get_by_test_id("events-seen")
    expect(seen.locator("span[data-event]")).to_have_count(len(view["events_seen"]))
    expect(seen.locator(f"span[data-event='{view['event']}']")).to_have_text(name)
    expect(seen.locator(f"span[data-event='{view['event']}']")).to_have_attribute(
        "title", effect)
    names = seen.locator("span[data-event]").all_inner_texts()
    assert len(set(names)) == len(names) and not CODE.search(seen.inner_text())
    # The log tells each reveal by name and effect.
    log = page.get_by_test_id("replay-log")
    expect(log).to_contain_text(f"Event revealed: {name} ({effect})")
    assert not CODE.search(log.inner_text())

    page.get_by_test_id("lang-de").click()
    expect(page.get_by_test_id("event-name")).not_to_have_text(name)
    de_name = page.get_by_test_id("event-name").inner_text().strip()
    assert de_name and not CODE.search(page.get_by_test_id("event").inner_text())
    expect(page.get_by_test_id("replay-log")).to_contain_text(f"Ereignis aufgedeckt: {de_name}")

    # The rules page: every event with its name, its id beside it, and its effect.
    cat: Any = api(web, "GET", "/api/games/loot-island/cards")
    page.get_by_test_id("lang-en").click()
    page.goto(f"{web.url}/rules/loot-island")
    rows = page.get_by_test_id("rules-events").locator("tbody tr")
    expect(rows).to_have_count(len(cat["events"]))
    row = rows.filter(has_text=view["event"])
    expect(row).to_contain_text(f"{name} ({view['event']})")
    expect(row).to_contain_text(effect)
    texts = [t.split(" (")[0] for t in rows.evaluate_all(
        "rows => rows.map((r) => r.cells[0].innerText)")]
    assert len(set(texts)) == len(cat["events"])  # a name of its own for each
    assert not any(t.startswith("event-") for t in texts)
