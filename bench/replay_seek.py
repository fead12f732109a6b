"""How long the replay viewer takes to show a step (issue 4: any step in under 100 ms).

Plays one 4-bot game on a private service (Redis + ``cardtable serve`` serving the built
client), opens its replay viewer in headless Chromium, then jumps to random steps through
the page's own ``seek`` and times each one until the browser has painted it (two
animation frames). Prints median, p90, p99 and max in ms, with the machine.

    .venv/bin/python bench/replay_seek.py [--seeks 300] [--seed 1]

Needs client-web/dist (``make serve`` or ``scripts/setup.sh`` builds it) and Debian's
Chromium at /usr/bin/chromium.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

import httpx

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from playwright.sync_api import sync_playwright

from bench.load.host import machine
from bench.load.spawn import REPO, SpawnedService

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]

TIMED_SEEK = """async (k) => {
  const t0 = performance.now();
  window.__cardtable.seek(k);
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  return performance.now() - t0;
}"""


def finished_table(url: str) -> str:
    """Create, fill with 4 random bots, start, and wait for the end; returns the table id."""
    with httpx.Client(base_url=url, timeout=10) as http:
        table = http.post("/api/tables", json={"seats": 4}).json()
        for seat in range(4):
            http.post(f"/api/tables/{table['id']}/seats/{seat}/bot", json={"kind": "random"},
                      headers={"Authorization": f"Bearer {table['owner_token']}"})
        http.post(f"/api/tables/{table['id']}/start",
                  headers={"Authorization": f"Bearer {table['owner_token']}"})
        deadline = time.monotonic() + 120
        while http.get(f"/api/tables/{table['id']}").json()["status"] != "ended":
            if time.monotonic() > deadline:
                raise RuntimeError("the bot game did not end in 120 s")
            time.sleep(0.2)
        return table["id"]


def main() -> int:
    """Run the measurement; returns 0."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeks", type=int, default=300, help="random jumps to time (300)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the random steps")
    args = ap.parse_args()
    dist = REPO / "client-web" / "dist"
    if not (dist / "index.html").is_file():
        raise SystemExit("bench/replay_seek.py: build the client first (scripts/setup.sh)")
    svc = SpawnedService(server_core=None, redis_core=None,
                         env={"CARDTABLE_STATIC_DIR": str(dist),
                              "CARDTABLE_BOT_DELAY": "0"}).start()
    try:
        tid = finished_table(svc.url)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium",
                                        args=CHROMIUM_ARGS, headless=True)
            page = browser.new_page(viewport={"width": 1366, "height": 900})
            page.goto(f"{svc.url}/replay/{tid}")
            page.wait_for_function("window.__cardtable && window.__cardtable.total() > 0")
            total = page.evaluate("window.__cardtable.total()")
            rng = random.Random(args.seed)
            times = [page.evaluate(TIMED_SEEK, rng.randint(1, total)) for _ in range(args.seeks)]
            browser.close()
    finally:
        svc.stop()
    times.sort()
    q = statistics.quantiles(times, n=100)
    print(f"replay seek, {args.seeks} random jumps over {total} steps; {machine()}")
    print(f"ms to painted: median {statistics.median(times):.1f}, p90 {q[89]:.1f}, "
          f"p99 {q[98]:.1f}, max {times[-1]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
