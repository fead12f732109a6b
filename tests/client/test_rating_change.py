"""The end screen of a rated game shows each rated player's rating change (and the anchored
bot's unchanged rating), in Chromium on the real server: two accounts play a few moves
each over their sockets, resign, and the bots finish."""

from __future__ import annotations

import asyncio
import concurrent.futures
from typing import Any

from playwright.sync_api import Page, expect

from server.accounts import ratings
from tests.conftest import ServerProcess
from tests.server.client import Member, Seats, Socket, ended, unique
from tests.waiting import until


async def rated_game(web: ServerProcess) -> tuple[str, dict[str, Any]]:
    """A counted rated game (Anna, Ben, a random bot); returns its id and its ratings."""
    anna, ben = Member(web.url), Member(web.url)
    await anna.sign_up(unique("ea"))
    await ben.sign_up(unique("eb"))
    table = await anna.create(3, rated=True)
    tid = table["id"]
    tokens = [(await anna.join(tid, "x", token=table["owner_token"]))["token"],
              (await ben.join(tid, "x"))["token"]]
    await anna.bot(tid, 2, "random")
    await anna.start(tid)
    socks = [await Socket(web.ws_url, tid).connect(token=t) for t in tokens]
    try:
        seats = Seats(socks, seed=3)
        need = 3  # einauge's rated_min_decisions

        def over() -> bool:
            return any(ended(f) for s in socks for f in s.frames)

        while min(sum(f["t"] == "ack" for f in s.frames) for s in socks) < need and not over():
            await seats.step()
        for t in tokens:
            r = await anna.seat_call(tid, "resign", t)
            assert r.status_code in (200, 409), r.text  # 409: the game ended first

        async def settled() -> dict[str, Any] | None:
            body = (await anna.get(f"/api/tables/{tid}/ratings")).json()
            return body if body.get("verdict") else None

        return tid, await until(settled, timeout=180, what="the game settled")
    finally:
        for s in socks:
            await s.close()
        await anna.close()
        await ben.close()


def test_the_end_screen_shows_each_rated_players_change(page: Page,
                                                        web: ServerProcess) -> None:
    # The game is played over the wire in a thread of its own (its own event loop).
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        tid, body = pool.submit(asyncio.run, rated_game(web)).result(timeout=300)
    assert body["verdict"] == "counted"
    page.goto(f"{web.url}/table/{tid}")
    expect(page.get_by_test_id("result")).to_be_visible(timeout=30_000)
    for seat, row in enumerate(body["seats"]):
        before, after = row["change"]["before"], row["change"]["after"]
        sign = "+" if after >= before else "−"
        expect(page.get_by_test_id(f"result-rating-{seat}")).to_contain_text(
            f"rating {before} → {after} ({sign}{abs(after - before)})")
    # Both people resigned: each lost, by at most the cap; the bot's anchor held.
    for row in body["seats"][:2]:
        assert -ratings.MAX_CHANGE <= row["change"]["after"] - 1500 < 0
    assert body["seats"][2]["change"] == {"before": 124, "after": 124}
    expect(page.get_by_test_id("rating-verdict")).to_have_count(0)
