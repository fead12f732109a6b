"""The coach of a Keltis tutorial never says "the bot is playing" during the learner's own
turn (client-web/src/tutorial.js, table.js ``updateCoach``): neither while a lay is sent
and not yet answered nor between the lay and the draw prompt of the same turn. The page
records every insertion of that line, however brief, with the step the coach showed."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.client.conftest import seed_storage
from tests.client.test_tutorial import follow_the_coach
from tests.conftest import ServerProcess

# Each insertion of the coach's "the bot is playing" line, with the step shown beside it.
WATCH_WAIT = """
window.__waits = [];
new MutationObserver((records) => {
  // A panel's redraw appends its parts one by one (a record each, in order, in one batch):
  // the step's text comes before the line.
  let step = null;
  for (const r of records) for (const n of r.addedNodes) {
    if (n.nodeType !== 1) continue;
    const text = n.matches('[data-testid="coach-text"]') ? n
      : n.querySelector('[data-testid="coach-text"]');
    if (text) step = text.dataset.step;
    if (n.matches('[data-testid="coach-wait"]') || n.querySelector('[data-testid="coach-wait"]'))
      window.__waits.push(step);
  }
}).observe(document, { childList: true, subtree: true });
"""


@pytest.fixture
def learner(browser: Browser) -> Iterator[tuple[BrowserContext, Page]]:
    ctx = browser.new_context(viewport={"width": 1366, "height": 900})
    seed_storage(ctx, {"cardtable.pace": json.dumps("off"), "cardtable.lang": json.dumps("en")})
    ctx.add_init_script(WATCH_WAIT)
    yield ctx, ctx.new_page()
    ctx.close()


def test_the_coach_keeps_to_the_learners_turn_between_its_prompts(
        learner: tuple[BrowserContext, Page], web: ServerProcess) -> None:
    _, page = learner
    page.goto(f"{web.url}/learn/keltis")
    expect(page.get_by_test_id("tutorial-badge")).to_be_visible()
    steps = follow_the_coach(page)
    assert steps == ["lay1", "draw1", "lay2", "draw2", "lay3", "draw3"]
    expect(page.get_by_test_id("coach-text")).to_have_attribute("data-step", "done")
    waits = page.evaluate("window.__waits")
    # The line may come only while the bot plays: after a draw, the learner's turn over
    # (the coach then still shows the draw step just made). At a lay step the learner
    # is mid-turn: the line there is the flash this test is about.
    assert all(step is not None and step.startswith("draw") for step in waits), waits
