"""Fixtures of the browser tests: the built web client, a server process that serves it
(on the session's real Redis), and a headless Chromium driven by Playwright.

The browser is the Debian ``chromium`` (never ``playwright install``). Screenshots go to
``test-artifacts/screenshots/``; the current ones are copied by hand into
``docs/screenshots/`` (see README, "Web client").
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import zlib
from collections.abc import Iterator
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import httpx
import jsonpatch
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect, sync_playwright
from playwright.sync_api import Error as PlaywrightError

from tests import watch
from tests.conftest import ROOT, ServerProcess
from tests.waiting import until_sync

CLIENT = ROOT / "client-web"
DIST = CLIENT / "dist"
SHOTS = ROOT / "test-artifacts" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
# CI machines may be busy (2 cores, other suites): waits are generous, never timed checks.
expect.set_options(timeout=15_000)


def failed_load(status: int, path: str) -> str:
    """The pattern (for ``@pytest.mark.page_errors``) of Chromium's console error for an
    answer of ``status`` to a request of ``path`` (a regular expression: the path and its
    query, on the test's server, by address or, for the passkeys' relying party, as
    localhost)."""
    return (r"^console\.error: Failed to load resource: the server responded with a status "
            rf"of {status} \([^)]*\) \(at https?://(?:127\.0\.0\.1|localhost):\d+{path}:\d+\)$")


TABLE_ID = r"[\w-]+"
# Browser errors every page may show, whatever the test: none. (``GET /api/me``, asked on
# each page load, answers a guest 200 with ``account: null``: docs/protocol.md, "Accounts".)
EXPECTED_PAGE_ERRORS: list[re.Pattern[str]] = []
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


def _stale() -> bool:
    index = DIST / "index.html"
    if not index.is_file():
        return True
    built = min(p.stat().st_mtime for p in DIST.iterdir() if p.is_file())
    sources = [*CLIENT.joinpath("src").rglob("*"), CLIENT / "package.json", CLIENT / "build.mjs"]
    return any(p.is_file() and p.stat().st_mtime > built for p in sources)


@pytest.fixture(scope="session")
def client_dist() -> Path:
    """``client-web/dist``, built now when missing or older than its sources."""
    if _stale():
        npm = shutil.which("npm")
        if npm is None:
            pytest.fail("client-web/dist is missing or stale and npm is not installed")
        if not (CLIENT / "node_modules").is_dir():
            subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
                           cwd=CLIENT, check=True)
        subprocess.run([npm, "run", "--silent", "build"], cwd=CLIENT, check=True)
    return DIST


@pytest.fixture(scope="session")
def web(redis_url: str, client_dist: Path) -> Iterator[ServerProcess]:
    """A server process serving the built client; bots think 0.2 s, so that a connection
    dropped right after the player's turn misses the bots' next deltas."""
    s = ServerProcess(redis_url, env={"CARDTABLE_STATIC_DIR": str(client_dist),
                                      "CARDTABLE_BOT_DELAY": "0.2"}).start()
    yield s
    s.stop()


@pytest.fixture(scope="package")
def browser() -> Iterator[Browser]:
    """One headless Chromium for the browser tests.

    Package scope, not session: Playwright's sync API keeps an event loop running in the
    main thread until it stops, and the asyncio tests that run after this package need
    that thread free.

    Every page of every context made on it is watched (tests/watch.py): an uncaught
    exception or a console error fails the test during which it came, unless the test
    declares it (``@pytest.mark.page_errors``).
    """
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        pages = watch.PageWatch(always_ok=EXPECTED_PAGE_ERRORS)
        pages.attach_browser(b)
        watch.watch(pages)
        yield b
        b.close()


@pytest.fixture(autouse=True)
def _deliver_page_events(request: pytest.FixtureRequest) -> Iterator[None]:
    """Before the test's pages are checked, a round trip to the browser: Playwright hands
    events over only while a call waits, and an error just before the test's end would
    otherwise count for the next test (or for none)."""
    yield
    if "browser" in request.fixturenames:
        b: Browser = request.getfixturevalue("browser")
        for ctx in b.contexts:
            with contextlib.suppress(PlaywrightError):  # closed meanwhile: its events came
                ctx.cookies()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A fresh desktop-sized page in its own context (own localStorage)."""
    ctx = browser.new_context(viewport={"width": 1366, "height": 900}, locale="en-US")
    p = ctx.new_page()
    yield p
    ctx.close()


# The site header's height and the most one row of it may take: its tallest shown child's
# height plus the header's vertical padding (a second row of links adds a line's height).
HEADER_HEIGHT = """() => {
  const e = document.querySelector('.site-header'), s = getComputedStyle(e);
  const row = Math.max(...[...e.children].filter((c) => c.offsetParent !== null)
    .map((c) => c.getBoundingClientRect().height));
  const pad = parseFloat(s.paddingTop) + parseFloat(s.paddingBottom);
  return [e.getBoundingClientRect().height, row + pad]; }"""


def assert_header_one_line(page: Page) -> None:
    """The site header takes one line: on a phone its links are behind the menu button
    (``menu-toggle``), which shows them in a row of their own and hides them again."""
    height, row = page.evaluate(HEADER_HEIGHT)
    assert height <= row + 1, (height, row)
    toggle = page.get_by_test_id("menu-toggle")
    if toggle.is_visible():
        expect(page.get_by_test_id("nav-leaderboard")).to_be_hidden()
        toggle.click()
        expect(toggle).to_have_attribute("aria-expanded", "true")
        expect(page.get_by_test_id("nav-leaderboard")).to_be_visible()
        assert page.evaluate(HEADER_HEIGHT)[0] > row + 1  # the links' row, under it
        toggle.click()
        expect(page.get_by_test_id("nav-leaderboard")).to_be_hidden()
    else:
        expect(page.get_by_test_id("nav-leaderboard")).to_be_visible()


def shot(page: Page, name: str, full_page: bool = True) -> Path:
    """Save a screenshot as ``test-artifacts/screenshots/<name>.png``."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path


def api(web: ServerProcess, method: str, path: str, **kw: object) -> object:
    """One HTTP call to the server; raises for a non-2xx answer. A generous deadline: a
    whole Loot Island game's ``/deltas`` took 14.4 s at load 20 on 2 cores."""
    r = httpx.request(method, web.url + path, timeout=60, **kw)  # type: ignore[arg-type]
    r.raise_for_status()
    return r.json()


def bot_table(web: ServerProcess, game: str, bots: int = 2, kind: str = "random",
              name: str = "Anna", title: str | None = None,
              options: dict | None = None) -> tuple[str, dict]:
    """A started table of ``game`` over the API: ``name`` in seat 0, ``bots`` bots of
    ``kind`` in the others. Returns the table id and the seat as the page stores it
    (the join's answer and ``name``)."""
    body: dict = {"game": game, "seats": bots + 1, "options": options or {}}
    if title is not None:
        body["name"] = title
    table = api(web, "POST", "/api/tables", json=body)
    tid = table["id"]
    seat = api(web, "POST", f"/api/tables/{tid}/join", json={"name": name})
    owner = {"Authorization": f"Bearer {table['owner_token']}"}
    for s in range(1, bots + 1):
        api(web, "POST", f"/api/tables/{tid}/seats/{s}/bot", json={"kind": kind},
            headers=owner)
    api(web, "POST", f"/api/tables/{tid}/start", headers=owner)
    return tid, {**seat, "name": name}


def finished_table(web: ServerProcess, game: str, seats: int) -> str:
    """A table of ``game`` with ``seats`` random bots, played to its end (waited for over
    ``GET /api/tables/{id}``). Returns its id."""
    table: Any = api(web, "POST", "/api/tables", json={"game": game, "seats": seats})
    tid = table["id"]
    owner = {"Authorization": f"Bearer {table['owner_token']}"}
    for seat in range(seats):
        api(web, "POST", f"/api/tables/{tid}/seats/{seat}/bot", json={"kind": "random"},
            headers=owner)
    api(web, "POST", f"/api/tables/{tid}/start", headers=owner)
    until_sync(lambda: httpx.get(f"{web.url}/api/tables/{tid}").json()["status"] == "ended",
               120, "the bots' game to end")
    return tid


def seated_page(browser: Browser, web: ServerProcess, tid: str, seat: dict,
                game: str | None = None, **ctx_kw: object) -> tuple[BrowserContext, Page]:
    """A page of a new browser context (1366×900, en-US unless ``ctx_kw`` says other)
    that holds ``seat`` of table ``tid``; with ``game``, once its board is that game's."""
    ctx = browser.new_context(**{"viewport": {"width": 1366, "height": 900},
                                 "locale": "en-US", **ctx_kw})  # type: ignore[arg-type]
    seed_storage(ctx, {f"cardtable.seat.{tid}": json.dumps(seat)})
    page = ctx.new_page()
    page.goto(f"{web.url}/table/{tid}")
    if game is not None:
        expect(page.get_by_test_id("board")).to_have_attribute("data-game", game)
    return ctx, page


def seed_storage(ctx: BrowserContext, items: dict[str, str], keep: bool = False) -> None:
    """Put ``items`` into the localStorage of every page of ``ctx`` before its scripts run
    (with ``keep``, only keys the page does not hold yet). Only on http(s) documents: a new
    page's first document, ``about:blank``, has no storage, and touching it there throws."""
    test = "localStorage.getItem(k) === null" if keep else "true"
    ctx.add_init_script(
        "if (location.protocol.startsWith('http')) "
        f"for (const [k, v] of Object.entries({json.dumps(items)})) "
        f"if ({test}) localStorage.setItem(k, v);")


def fold(deltas: list[dict], upto: int) -> dict:
    """The view after seq ``upto``: the RFC 6902 patches of the ``deltas`` frames of
    ``GET …/deltas`` (one event each) of seq 1…upto applied in turn."""
    view: dict = {}
    for d in deltas:
        if d["seq"] > upto:
            break
        view = jsonpatch.apply_patch(view, d["patch"])
    return view


def as_host(page: Page, web: ServerProcess, made: dict) -> None:
    """Make ``page``'s browser the creator of ``made`` (a table created over the API): it
    keeps the owner token where the client keeps the tables it created."""
    page.goto(web.url + "/")
    page.evaluate("([id, token]) => localStorage.setItem(`cardtable.owner.${id}`, "
                  "JSON.stringify(token))", [made["id"], made["owner_token"]])


# --- chance in the page, from a seed -------------------------------------------------------

SEED_ENV = "AUTOPLAY_SEED"
"""A seed to replay: every page autoplay of the run draws from it instead of its own (not a
CARDTABLE_ variable: the test servers inherit the environment and refuse unknown ones)."""
SEEDS: dict[str, int] = {}
"""The seed each autoplay drew from, by the node id (a test's, or a module's for a module
fixture) that asked for it: a failing test's report names those of its own."""

# mulberry32 as ``window.__random``: the page's autoplays pick with it, never Math.random,
# so a failing game replays from the seed its report prints.
SEEDED_RANDOM = """(seed) => { let a = seed >>> 0;
  window.__random = () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t = (t + Math.imul(t ^ (t >>> 7), t | 61)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }; }"""


def page_seed(request: pytest.FixtureRequest) -> int:
    """The seed of the node asking (``AUTOPLAY_SEED`` when set, else one derived
    from its node id: the same on every run and machine), noted for its failure report."""
    node = request.node
    seed = int(os.environ[SEED_ENV]) if os.environ.get(SEED_ENV) else \
        zlib.crc32(node.nodeid.encode())
    SEEDS[node.nodeid] = seed
    return seed



def autoplay(page: Page, script: str, seed: int) -> None:
    """Run the page-evaluated ``script`` (it picks with ``window.__random()``) after
    seeding the page's generator with ``seed``."""
    assert "Math.random" not in script, "an autoplay picks with window.__random()"
    page.evaluate(SEEDED_RANDOM, seed)
    page.evaluate(script)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    report = yield
    if report.failed:
        used = {n: s for n, s in SEEDS.items()
                if item.nodeid == n or item.nodeid.startswith(n + "::")}
        if used:
            report.sections.append((
                "page autoplay seeds",
                "\n".join(f"{n}: {s} (replay: {SEED_ENV}={s})" for n, s in used.items())))
    return report


def fixed1(x: float) -> str:
    """``x`` with one decimal as JavaScript's ``toFixed(1)`` writes it: a tie (2.25: the
    binary value is exact) rounds away from zero, where Python's format rounds to even."""
    q = Decimal(abs(x)).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)
    return f"{'-' if x < 0 else ''}{q}"
