"""server/http/replays.py through a real server: a replay answer is computed once and then
served from the cache, off the event loop, and each address is held to its replay rate."""

from __future__ import annotations

import json
import re
import time

import pytest

from server.http.replays import replay_record
from tests.conftest import ServerProcess
from tests.server.client import Lobby, Socket, ended, unheaded

RATE, BURST = 0.1, 10


def replays(metrics_text: str, result: str) -> float:
    found = re.search(rf'^cardtable_replays_total{{result="{result}"}} (\S+)$', metrics_text,
                      re.M)
    return float(found.group(1)) if found else 0.0


def busy_over(metrics_text: str) -> dict[float, float]:
    """Per bucket edge of ``cardtable_event_loop_busy_seconds``: the samples above it."""
    total = float(re.search(r"^cardtable_event_loop_busy_seconds_count (\S+)$", metrics_text,
                            re.M).group(1))
    return {float(edge): total - float(n) for edge, n in re.findall(
        r'^cardtable_event_loop_busy_seconds_bucket{le="([0-9.]+)"} (\S+)$', metrics_text, re.M)}


@pytest.fixture
async def finished(own_redis):
    """A server (replays: ``RATE`` per second, bursts of ``BURST``) with a finished
    5-seat bot game of Loot Island, whose replay costs the most (its views are built and
    diffed per event: Einauge's are kept in step, a few ms a game, too close to the loop's
    own samples while a request's body is parsed); yields the server, a lobby client and
    the table id."""
    srv = ServerProcess(own_redis.url, env={"CARDTABLE_REPLAY_RATE_PER_S": str(RATE),
                                            "CARDTABLE_REPLAY_BURST": str(BURST)}).start()
    lobby = Lobby(srv.url)
    table = await lobby.create(5, "loot-island")
    for seat in range(5):
        await lobby.bot(table["id"], seat)
    watcher = await Socket(srv.ws_url, table["id"]).connect()
    await watcher.wait(lambda f: f["t"] == "welcome")
    await lobby.start(table["id"], table["owner_token"])
    await watcher.wait(ended, timeout=60)
    await watcher.close()
    yield srv, lobby, table["id"]
    await lobby.close()
    srv.stop()


async def test_replays_are_computed_once_off_the_loop_and_rate_limited(finished):
    _, lobby, tid = finished
    record = (await lobby.get(f"/api/tables/{tid}/record")).json()
    stored = [await lobby.get(f"/api/tables/{tid}/deltas") for _ in range(4)]
    assert all(r.status_code == 200 for r in stored)
    assert len({r.content for r in stored}) == 1  # the same bytes each time
    deltas = stored[0].json()
    assert deltas["seq"] == len(deltas["deltas"]) > 50
    tail = await lobby.get(f"/api/tables/{tid}/deltas?from=40")
    assert tail.json()["deltas"] == deltas["deltas"][40:]
    metrics = (await lobby.get("/metrics")).text
    assert (replays(metrics, "computed"), replays(metrics, "cached")) == (2, 3)

    # A record file: computed once per distinct body, in a worker, not on the loop.
    raw = json.dumps(record).encode()
    replay_record(raw)  # imports what it needs
    started = time.thread_time()
    _, body = replay_record(raw)
    cost = time.thread_time() - started  # what one replay costs a thread here
    before = busy_over((await lobby.get("/metrics")).text)
    files = [await lobby.http.post("/api/replay", content=raw) for _ in range(2)]
    assert [r.status_code for r in files] == [200, 200] and files[0].content == body
    assert files[1].content == body
    assert json.loads(body)["deltas"] == [unheaded(d) for d in deltas["deltas"]]
    for indent in (1, 2, 3):  # the same record spelled otherwise: replayed again
        other = await lobby.http.post("/api/replay",
                                      content=json.dumps(record, indent=indent).encode())
        assert other.status_code == 200 and other.content == body
    metrics = (await lobby.get("/metrics")).text
    assert (replays(metrics, "computed"), replays(metrics, "cached")) == (6, 4)
    # Four replays of ``cost`` each ran meanwhile, and no sample of the event loop's own
    # CPU time came near it (on the loop, each would have made one sample at least that
    # long).
    after = busy_over(metrics)
    edge = max(e for e in after if e <= cost * 0.7)
    assert after[edge] - before[edge] == 0, (edge, cost, before, after)
    print(f"\none replay: {cost * 1000:.1f} ms of CPU; no event loop sample over "
          f"{edge * 1000:g} ms while four ran")

    # The burst is spent (10 requests): the next ones are refused until the bucket refills.
    refused = await lobby.get(f"/api/tables/{tid}/deltas")
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "rate_limited"
    refused = await lobby.http.post("/api/replay", content=raw)
    assert refused.status_code == 429
    assert (await lobby.get(f"/api/tables/{tid}")).status_code == 200  # other routes: not
    metrics = (await lobby.get("/metrics")).text
    assert replays(metrics, "rate_limited") == 2
