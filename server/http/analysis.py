"""``GET /api/tables/{id}/analysis``: the post-game analysis of an ended table
(``engine.analysis``; docs/protocol.md, "Post-game analysis").

Refused (409 ``not_ended``) while the game runs: the analysis judges each seat from its
own observation, but the search's candidates and the luck would still tell one seat's
hidden cards to everyone. For an ended table it is computed once, from the table's record
(``Ending.record``, what ``…/record`` publishes), in the bot process pool
(``BotPool.run``: a whole game's search takes seconds to minutes, never on the event loop;
``PART`` actions per job, one job at a time), by a task of its own: the request that
starts it, and every one while it runs, gets 202 ``{"status": "computing"}`` (asked again
after ``Retry-After``). The answer is kept in Redis (``analysis_key``, ``KEEP_S``), and
every request after that is served from there. Requests that start an analysis or get one
are counted per client address and per account (``Store.hit``, the ``analyses_per_hour``
setting; 429 ``rate_limited`` past it); polls of one being computed are not.
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from engine.analysis import MARK_NAMES, Analysis, analyse, mark, marks, merge, spans, summary
from server import metrics
from server.errors import LobbyError, confirmed
from server.http import rate
from server.http.accounts import from_store
from server.http.common import guarded, svc_of, table_or_404
from server.logging import get_logger

if TYPE_CHECKING:  # the service type only: server.app imports this module
    from server.app import Service

log = get_logger("analysis")

RETRY_S = 2
"""The ``Retry-After`` of a 202 answer (seconds)."""
KEEP_S = 30 * 24 * 3600
"""How long an analysis is kept in Redis (seconds); a later request computes it again."""


PART = 2
"""Actions analysed by one job of the pool: a whole game takes far longer than the pool's
hang timeout (``CARDTABLE_BOT_SEARCH_TIMEOUT``), so it runs as consecutive parts, each
about a bot move's work (on a machine at load 40, six actions of one part once took
more than the 30 s of that timeout)."""


def part(record: dict[str, Any], budget_ms: float, span: tuple[int, int]) -> Analysis:
    """``engine.analysis.analyse`` of the actions in ``span``. Pure; runs in a worker."""
    return analyse(record, budget_ms, span=span)


def answer(result: Analysis, budget_ms: float, seqs: list[int]) -> bytes:
    """The answer's JSON: ``game``, ``budget_ms``, ``marks`` (the game's thresholds by
    name), ``decisions`` (``engine.analysis.Decision`` with its ``mark``:
    ``inaccuracy``/``mistake``/``blunder`` or ``null``, and ``seq``: the stream seq of the
    action's first event, ``seqs[index]``, where the replay viewer shows it), ``luck`` per
    seat and ``summary`` per seat (``engine.analysis.summary``)."""
    game = result.game
    decisions = [{"index": d.index, "seq": seqs[d.index], "seat": d.seat, "action": d.action,
                  "best": d.best, "loss": d.loss, "forced": d.forced,
                  "mark": None if d.forced else mark(game, d.loss)}
                 for d in result.decisions]
    answer = {"game": game, "budget_ms": budget_ms,
              "marks": dict(zip(MARK_NAMES, marks(game), strict=True)),
              "decisions": decisions, "luck": result.luck,
              "summary": summary(game, result)}
    return json.dumps(answer, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


_running: dict[str, asyncio.Task[None]] = {}
"""Analyses being computed in this process, by table id (``_compute``)."""


async def _limit(request: Request) -> None:
    svc = svc_of(request)
    await rate.per_hour(svc, request, "analysis", svc.settings.analyses_per_hour,
                        "analysis requests", per_account=True)


async def _compute(svc: Service, table: Any) -> None:
    """Analyse ``table``'s record in the pool, part by part, and keep the answer."""
    record = await svc.tables.ending.record(table)
    entries = await confirmed(svc.tables.entries(table.id, table.meta))
    seqs = [k + 1 for k, e in enumerate(entries) if "a" in e]  # an action's first event
    budget = svc.settings.analysis_budget_ms
    # One part at a time: the pool's other worker stays free for the tables' bots.
    parts = [await svc.bots.pool.run(part, record, budget, span)
             for span in spans(len(record["actions"]), PART)]
    await from_store(svc.store.save_analysis(table.id, answer(merge(parts), budget, seqs),
                                             KEEP_S))
    metrics.ANALYSES.labels("computed").inc()


def _done(table_id: str, task: asyncio.Task[None]) -> None:
    _running.pop(table_id, None)
    if not task.cancelled() and task.exception() is not None:
        # A later request starts it again; a stopping server's pool ends it this way too.
        log.warning("analysis failed", table=table_id, error=repr(task.exception()))


async def stop() -> None:
    """Cancel the analyses this process is computing (the server stops: a later request
    starts them again)."""
    tasks = list(_running.values())
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def _computing() -> Response:
    return JSONResponse({"status": "computing"}, status_code=202,
                        headers={"Retry-After": str(RETRY_S)})


@guarded
async def analysis(request: Request) -> Response:
    """The analysis of an ended table (module docstring): 200 JSON (``answer``), 202
    ``{"status": "computing"}`` (asked again after ``Retry-After`` seconds), 404
    ``no_table``, 409 ``not_ended``, 429 ``rate_limited``, 503 ``unavailable``."""
    svc = svc_of(request)
    table = await table_or_404(request)
    if not table.game_over():
        raise LobbyError(409, "not_ended",
                         "the analysis is published when the game has ended")
    if table.id in _running:
        return _computing()  # a poll while it is computed: not counted
    await _limit(request)
    kept = await from_store(svc.store.load_analysis(table.id))
    if kept is not None:
        metrics.ANALYSES.labels("cached").inc()
        return Response(kept, media_type="application/json")
    task = asyncio.create_task(_compute(svc, table), name=f"analysis:{table.id}")
    _running[table.id] = task
    task.add_done_callback(lambda t: _done(table.id, t))
    return _computing()


ROUTES = [Route("/api/tables/{id}/analysis", analysis, methods=["GET"])]
