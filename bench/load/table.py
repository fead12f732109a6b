"""One table of a load run: lobby setup, its sockets, and the driver that acts at the rate.

``TableRun`` creates the table through the HTTP lobby API, takes every seat, opens the
seat and spectator sockets (``bench.load.sockets``), starts the game and then acts for the
prompted seat at ``LoadConfig.rate`` until the game ends or the window closes; ``finish``
counts what a socket is missing and closes them all.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
import time
from typing import Any

import httpx

from bench.load.config import LoadConfig
from bench.load.sockets import LightSocket, TableSocket
from bench.load.tracking import DeliveryClock, Stats
from engine import get_game


class TableRun:
    """One table of the load: lobby setup, sockets, and the driver that acts at the rate."""

    def __init__(self, cfg: LoadConfig, stats: Stats, http: httpx.AsyncClient,
                 rng: random.Random) -> None:
        self.cfg = cfg
        self.stats = stats
        self.http = http
        self.rng = rng
        self.base_url = cfg.url
        self.id = ""
        self.players: list[TableSocket | LightSocket] = []
        self.spectators: list[TableSocket | LightSocket] = []
        self.clock = DeliveryClock(stats, cfg.spectators)
        self.prompt: tuple[TableSocket | LightSocket, dict[str, Any]] | None = None
        self.wake = asyncio.Event()
        self.ended = False
        self.final_seq: int | None = None
        self.waiting: dict[str, tuple[asyncio.Future, int]] = {}
        self.counter = itertools.count(1)
        self.accepted = 0
        self.key: str | None = None
        """The private table's invite key (``LoadConfig.clocked`` off)."""

    # ---- lobby
    async def _post(self, path: str, body: dict[str, Any] | None = None,
                    token: str | None = None) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        if self.key:
            headers["X-Table-Key"] = self.key
        for attempt in range(20):
            r = await self.http.post(path, json=body or {}, headers=headers)
            if r.status_code == 429 and attempt < 19:
                self.stats.error("http:429(retried)")
                await asyncio.sleep(0.05 * (attempt + 1))
                continue
            if r.status_code >= 400:
                self.stats.error(f"http:{r.status_code}")
                raise RuntimeError(f"POST {path}: {r.status_code} {r.text[:200]}")
            return r.json()
        raise AssertionError("unreachable")

    async def setup(self) -> None:
        """Create the table, take every seat, connect all sockets, then start the game."""
        cfg = self.cfg
        summary = await self._post("/api/tables", {
            "game": cfg.game, "seats": cfg.players, "options": {}, "name": "load",
            "private": not cfg.clocked})
        self.id = summary["id"]
        self.key = summary.get("invite_key")
        tokens = []
        for i in range(cfg.players):
            joined = await self._post(f"/api/tables/{self.id}/join", {"name": f"p{i}"})
            tokens.append((joined["seat"], joined["token"]))
        kind = LightSocket if cfg.client == "sansio" else TableSocket
        self.players = [kind(self, token, seat) for seat, token in tokens]
        self.spectators = [kind(self, None, None) for _ in range(cfg.spectators)]
        await asyncio.gather(*(s.open(cfg.source_for(i))
                               for i, s in enumerate(self.players + self.spectators)))
        await self._post(f"/api/tables/{self.id}/start", {}, token=summary["owner_token"])
        self.stats.tables_started += 1

    # ---- events from the sockets
    def prompted(self, sock: TableSocket | LightSocket, msg: dict[str, Any]) -> None:
        """The server prompted ``sock``'s seat with its legal actions (listed, or the game's
        compact ``legal_form``)."""
        if msg.get("legal_actions") or msg.get("legal_form"):
            self.prompt = (sock, msg)
            self.wake.set()

    def acked(self, msg: dict[str, Any], now: int) -> None:
        """An ack for one of our actions: resolve its waiter, stamp its seq."""
        entry = self.waiting.pop(msg.get("id"), None)
        if entry is None:
            self.stats.error("unexpected_ack")
            return
        fut, t_send = entry
        seq = msg["seq"]
        self.clock.sent(seq, t_send)
        if self.stats.recording:
            self.accepted += 1
            self.stats.accepted += 1
            self.stats.action_latency.append(now - t_send)
        if not fut.done():
            fut.set_result(seq)

    def failed(self, msg: dict[str, Any]) -> None:
        """An error frame: count it and fail its action's waiter, if any."""
        self.stats.error(str(msg.get("code")))
        entry = self.waiting.pop(msg.get("id"), None) if msg.get("id") else None
        if entry is not None and not entry[0].done():
            entry[0].set_exception(RuntimeError(msg.get("code")))

    def game_over(self, seq: int | None) -> None:
        """The game ended (``game_ended`` delta or an ``ended`` table summary)."""
        if not self.ended:
            self.ended = True
            if seq is not None:
                self.final_seq = seq
            self.wake.set()

    # ---- the driver
    async def drive(self, stop_at: float, stop_seq: int | None = None) -> None:
        """Act at the configured rate until the game ends, ``stop_at`` (perf_counter s) or
        (with ``stop_seq``) an ack at or beyond that seq."""
        cfg = self.cfg
        interval = 1.0 / cfg.rate if cfg.rate > 0 else 0.0
        next_at = time.perf_counter() + self.rng.uniform(0, interval)
        failures = 0
        while not self.ended:
            now = time.perf_counter()
            if now >= stop_at or (stop_seq is not None and self.clock.acked >= stop_seq):
                return
            if interval:
                if next_at > now:
                    await asyncio.sleep(min(next_at - now, stop_at - now))
                    continue
                if now - next_at > interval:  # far behind (a slow ack): no catch-up burst
                    next_at = now
            if self.prompt is None:
                self.wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.wake.wait(), max(0.01, stop_at - now))
                continue
            sock, prompt = self.prompt
            self.prompt = None
            listed = prompt.get("legal_actions") or [
                a.to_dict() for a in get_game(cfg.game).expand_form(prompt["legal_form"])]
            action = dict(self.rng.choice(listed))
            code = await self._act(sock, str(next(self.counter)), action)
            if code is None:
                failures = 0
            else:
                failures += 1
                if failures > 20:
                    self.stats.error("table_abandoned")
                    return
                # an error sends no new prompt: retry from the same one after a pause
                await asyncio.sleep(0.05 * failures)
                if self.prompt is None:
                    self.prompt = (sock, prompt)
            if interval:
                jitter = cfg.jitter
                next_at += interval * self.rng.uniform(1 - jitter, 1 + jitter)

    async def _act(self, sock: TableSocket | LightSocket, action_id: str,
                   action: dict[str, Any]) -> str | None:
        """Send one action and wait for its ack; returns ``None`` once acked, else the error
        code. After ``unavailable`` (the store did not confirm) the same id is sent again,
        as the protocol allows: the server applies an id at most once. The latency runs
        from the first send."""
        t_send = time.perf_counter_ns()
        for attempt in range(10):
            fut = asyncio.get_running_loop().create_future()
            self.waiting[action_id] = (fut, t_send)
            await sock.send({"t": "action", "id": action_id, "action": action})
            try:
                await asyncio.wait_for(fut, self.cfg.ack_timeout)
                return None
            except TimeoutError:
                self.waiting.pop(action_id, None)
                self.stats.error("ack_timeout")
                return "ack_timeout"
            except RuntimeError as e:
                if str(e) != "unavailable":
                    return str(e)
                await asyncio.sleep(0.05 * (attempt + 1))
        return "unavailable"

    async def finish(self, timeout: float = 5.0) -> None:
        """Wait until every socket has every acked delta, count the missing, close all."""
        target = self.final_seq if self.final_seq is not None else self.clock.acked
        sockets = self.players + self.spectators
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            if all(s.tracker.last >= target or not s.alive for s in sockets):
                break
            await asyncio.sleep(0.02)
        for s in sockets:
            if s.tracker.last < target:
                self.stats.missing += target - s.tracker.last
        await asyncio.gather(*(s.close() for s in sockets))
        if self.ended:
            self.stats.tables_ended += 1
        self.stats.accepted_by_table[self.id] = self.accepted
