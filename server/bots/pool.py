"""Where searching bots think: a small process pool, so a search never holds the event loop.

A greedy or mcts search is pure Python: in a thread of the server process it would hold
the GIL (released only at the interpreter's 5 ms switch interval), stalling every socket
of the process while it thinks. ``BotPool`` therefore runs each search in a worker
process of a ``concurrent.futures.ProcessPoolExecutor``, created on the first search and
shut down with the app. A worker gets only what the seat may know (the picklable
``Observation``) and the bot spec (kind, seed, level), and returns the action's wire dict;
the event loop only pickles the observation and awaits the future.

With ``workers == 0`` searches run in a thread instead (``asyncio.to_thread``): no extra
processes, at the price of the GIL stalls above (docs/bots.md "Server" measures both).
Workers are started with ``spawn`` (never ``fork`` a process that runs threads), import
only the engine, and run at a lower priority than the server (``WORKER_NICE``).
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from engine.bots import make_bot

Observation = Any
"""A game's observation (``Game.observation``): picklable, what the seat may know."""

T = TypeVar("T")


def think(game: str, kind: str, seed: str, level: int | None,
          obs: Observation) -> dict[str, Any]:
    """One move of a fresh ``make_bot(kind, seed, game=game, level=level)`` on ``obs``
    with its default budget, as the action's wire dict. Runs in a worker process (or
    thread). Raises ``ValueError`` for a bad spec or a seat with no legal action."""
    bot = make_bot(kind, seed, game=game, level=level)
    return bot.act(obs, bot.budget).to_dict()


MAX_STALLS = 32
"""The most ``stall``s a pool is given before it counts as hung (after many in a row)."""

WORKER_NICE = 10
"""Niceness added to a worker: a search yields the CPU to the event loop's process."""


def _warm(server_pid: int) -> None:
    """Worker initializer: lower the worker's priority (searches are background work; the
    server process must win a busy CPU) and exit when the server process is gone (the
    engine is imported with this module, before the first search)."""
    with contextlib.suppress(OSError, AttributeError):
        os.nice(WORKER_NICE)
    threading.Thread(target=_exit_with_parent, args=(server_pid,), daemon=True,
                     name="parent-watch").start()


def _exit_with_parent(parent: int) -> None:
    # uvicorn ends the server by re-raising SIGTERM (no atexit: the pool never says
    # goodbye), and a SIGKILL says nothing at all: a worker whose parent changed is an
    # orphan, so it leaves, even in the middle of a search.
    # (The server's pid comes from the server: one read here could already be init's.)
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(0)


class BotPool:
    """Runs ``think`` in up to ``workers`` processes (0: in a thread), see the module
    docstring. Safe to use from one event loop; ``await close()`` ends the workers.

    ``stall``: seconds the workers may finish nothing while work waits before they count
    as hung (a stopped or swapped-out process): the pool is ended, its workers killed,
    and the calls waiting raise ``BrokenProcessPool`` (a bot then searches again on a
    fresh pool). A dead worker raises that at once; a hung one would stall its tables for
    good, while this process kept renewing their bot leases (server/bots/leases.py).
    Progress, not each call's wait, is timed: a long queue of searches is no hang.

    Each pool in a row ended as hung gets twice the time of the one before (up to
    ``MAX_STALLS`` × ``stall``), back to ``stall`` once a call finishes: a fresh pool's
    workers start from nothing (a spawned interpreter, the engine's imports, at a lower
    priority), which on a busy machine can take longer than ``stall``; the same bound for
    every new pool ended each before its first search, and no bot moved again."""

    def __init__(self, workers: int, stall: float = 30.0) -> None:
        if workers < 0:
            raise ValueError(f"bot workers must be >= 0, not {workers!r}")
        self.workers = workers
        self.stall = stall
        self._pool: ProcessPoolExecutor | None = None
        self._pending = 0
        self._progress = time.monotonic()
        """When a worker last finished something (or work arrived at an idle pool)."""
        self._allowance = stall
        """Seconds the current pool may finish nothing while work waits (see above)."""

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=self.workers, mp_context=multiprocessing.get_context("spawn"),
                initializer=_warm, initargs=(os.getpid(),))
        return self._pool

    async def think(self, game: str, kind: str, seed: str, level: int | None,
                    obs: Observation) -> dict[str, Any]:
        """The wire dict of the bot's action on ``obs``; raises what ``think`` raises,
        and ``BrokenProcessPool`` when a worker died (the next call starts a new pool)."""
        return await self.run(think, game, kind, seed, level, obs)

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in a worker (a thread with 0 workers): other heavy pure work that
        must not hold the event loop, e.g. replays (``server.http.replays``). ``fn`` and the
        arguments must pickle; raises what ``fn`` raises, and ``BrokenProcessPool``."""
        if self.workers == 0:
            return await asyncio.to_thread(fn, *args)
        pool = self._executor()
        try:
            if not self._pending:
                self._progress = time.monotonic()
            self._pending += 1
            try:
                future = await asyncio.to_thread(pool.submit, fn, *args)
                future.add_done_callback(self._finished)
                waiting = asyncio.wrap_future(future)
                # A search given up as hung still ends, with the killed pool's error:
                # retrieved here, or asyncio logs it as never retrieved.
                waiting.add_done_callback(_retrieve)
                while not (await asyncio.wait({waiting}, timeout=self.stall))[0]:
                    if self._pool is not pool:
                        raise BrokenProcessPool("the pool was ended as hung")
                    if time.monotonic() - self._progress >= self._allowance:
                        allowed = self._allowance
                        self._allowance = min(2 * allowed, MAX_STALLS * self.stall)
                        self.abandon()
                        raise BrokenProcessPool(f"no worker finished anything in "
                                                f"{allowed} s: ended as hung")
                return waiting.result()
            finally:
                self._pending -= 1
        except BrokenProcessPool:
            if self._pool is pool:
                self._pool = None
                pool.shutdown(wait=False, cancel_futures=True)
            raise

    def _finished(self, future: Any) -> None:
        # From the executor's thread (or abandon's): float stores only.
        self._progress = time.monotonic()
        if not future.cancelled() and not isinstance(future.exception(), BrokenProcessPool):
            self._allowance = self.stall  # a worker answered: the next hang is timed anew

    def abandon(self) -> None:
        """End the pool at once, killing its workers, also one in the middle of a search
        (a hung one); the next call starts a new pool, and the searches under way raise
        ``BrokenProcessPool``. Nothing to do with 0 workers (a thread cannot be ended)."""
        pool, self._pool = self._pool, None
        if pool is None:
            return
        _kill_workers(pool)
        pool.shutdown(wait=False, cancel_futures=True)

    async def close(self) -> None:
        """End the workers at once (a search under way is dropped: nobody waits for it any
        more) and wait for the executor to wind down, in a thread; queued searches are
        cancelled. The pool is created again if ``think`` is called afterwards.

        Not a polite stop: a worker runs at a lower priority (``WORKER_NICE``) and, asked
        to exit, must first be scheduled to read its sentinel and then tear its
        interpreter down; on a busy machine that took 3-4 s per shutdown, and past 15 s
        once, which is longer than a service manager waits.

        Waiting for the executor still matters: its queues hold named semaphores (five),
        which are unlinked only when the stopped executor is freed. uvicorn ends the process
        by re-raising SIGTERM/SIGINT, so nothing runs at exit, and a pool left running has
        multiprocessing's resource tracker report them as leaked."""
        pool, self._pool = self._pool, None
        if pool is not None:
            _kill_workers(pool)
            await asyncio.to_thread(pool.shutdown, wait=True, cancel_futures=True)


def _kill_workers(pool: ProcessPoolExecutor) -> None:
    """SIGKILL every worker of ``pool``, busy or idle. The executor has no public way to
    end a busy worker: its processes, by pid (``_processes``, pinned by
    tests/server/test_bot_pool.py)."""
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        with contextlib.suppress(OSError, ValueError):
            process.kill()


def _retrieve(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()
