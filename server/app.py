"""The Starlette application: routes, lifespan (Redis, subscription, bots), shutdown.

``create_app(settings)`` needs a reachable Redis at ``settings.redis_url`` (``cardtable
serve`` starts the embedded one first). Static files of ``client-web/dist`` are served at
``/`` when that folder exists, with ``index.html`` for the single-page routes
``/table/<id>``, ``/replay/<id>``, ``/rules`` and ``/rules/<game>``.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable
from pathlib import Path
from typing import Any

from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from engine import GAMES
from server import metrics
from server.accounts import fairplay, ratings
from server.accounts.accounts import Accounts
from server.accounts.inbox import Inbox
from server.accounts.leaving import Leaving
from server.accounts.mail import Mailer
from server.accounts.notify import Notifier
from server.accounts.passkeys import Passkeys
from server.accounts.tokens import Tokens
from server.admin.moderation import SUSPENDED_CLOSE, Moderation
from server.admin.ops import Admin
from server.bots.driver import BotDriver
from server.config import Settings
from server.errors import Unavailable
from server.fanout.cork import Cork
from server.fanout.frames import RawSend
from server.fanout.room import Connection
from server.http import accounts as account_api
from server.http import admin as admin_api
from server.http import analysis as analysis_api
from server.http import api_tokens as api_token_routes
from server.http import branch as branch_api
from server.http import invitations as invitation_api
from server.http import lobby, observe, passwords, profiles, rematch, seeks, social, takeover
from server.http import moderation as moderation_api
from server.http import statistics as statistics_api
from server.http import tournaments as tournament_api
from server.http import tutorials as tutorial_api
from server.http.csrf import SessionAuth
from server.http.replays import Replays
from server.logging import get_logger
from server.pairing.pool import SeekPool
from server.play import chat
from server.play.attendance import Attendance
from server.play.chat import ChatService
from server.play.deadlines import Deadlines
from server.store import lobby_migration
from server.store.accounts import AccountStore
from server.store.aof import AofScrub
from server.store.api_tokens import TokenStore
from server.store.fairplay import FairPlayStore
from server.store.invitations import InvitationStore
from server.store.sealing import SeedSeal
from server.store.seeks import SeekStore
from server.store.social import SocialStore
from server.store.streams import Store, acts_key
from server.table.listener import TableListener
from server.table.live import LiveTable
from server.table.tables import Tables
from server.tournaments.entries import Entries
from server.tournaments.runner import Runner
from server.tournaments.store import TournamentStore
from server.ws import endpoint as ws

log = get_logger("app")


class Service(TableListener):
    """Everything one process shares between requests, and what it does about its
    tables (the ``TableListener`` its ``Tables`` is given)."""

    drives_bots = True

    def __init__(self, settings: Settings, embedded: Any = None) -> None:
        if not settings.redis_url:
            raise ValueError("create_app needs settings.redis_url (cardtable serve starts one)")
        self.settings = settings
        self.embedded = embedded
        """The watchdog of the embedded Redis (``server.store.supervise.Supervisor``), if any."""
        self.store = Store.from_url(settings.redis_url, settings.redis_timeout,
                                    settings.redis_wait, settings.redis_wait_ms,
                                    seal=SeedSeal.at(settings.seed_keys))
        self.tables = Tables(settings, self.store, listener=self)
        self.chat = ChatService(self.store, settings.chat_history, settings.chat_burst,
                                settings.chat_refill)
        self.bots = BotDriver(self.tables, settings.bot_delay, settings.bot_workers,
                              settings.bot_search_timeout)
        self.attendance = Attendance(self.tables)
        self.deadlines = Deadlines(self.tables, settings.deadline_scan)
        self.replays = Replays(self.bots.pool, settings.replay_rate_per_s, settings.replay_burst)
        self.connections: set[Connection] = set()
        self.cork = Cork()
        """Holds the players' frames of a turn of the loop for one write per socket."""
        self.addr_count: dict[str, int] = {}
        self.account_store = AccountStore(self.store.redis)
        self.fair = FairPlayStore(self.store.redis)
        self.social = SocialStore(self.store.redis)
        self.invitations = InvitationStore(self.store.redis)
        self.accounts = Accounts(self.account_store, settings.login_window,
                                 settings.login_failures_per_account,
                                 settings.login_failures_per_address,
                                 reserved=ratings.bot_names())
        self.inbox = Inbox(self.invitations, self.accounts, settings.inbox_poll,
                           settings.session_ttl, settings.now_ms)
        self.notifier = Notifier(self.accounts, self.account_store, Mailer(settings),
                                 settings.public_url, settings.turn_mail_period,
                                 self.attendance.online)
        self.passkeys = Passkeys(self.account_store, settings.public_url)
        self.api_tokens = Tokens(TokenStore(self.store.redis), settings.api_tokens_per_hour,
                                 settings.api_tokens_max)
        self.admin = Admin(self)
        self.moderation = Moderation(self, self.admin)
        self.aof = AofScrub(self.store.redis)
        """Rewrites the append-only files after an account's deletion (erase.py)."""
        self.seeks = SeekPool(settings, SeekStore(self.store.redis, settings.redis_timeout),
                              self.tables, self.account_store, self.social)
        self.tournaments = Runner(self, TournamentStore(self.store.redis),
                                  settings.tournament_scan)
        # A ban, deletion or rename reaches the account's tournaments and seeks.
        self.leaving = Leaving(Entries(self.tournaments.store), self.seeks)
        # Turn changes matter only for turn mails.
        self.wants_turns = self.notifier.mailer.enabled

    async def hold(self, uid: str, table_id: str, held: dict[str, object]) -> None:
        """The account ``uid`` holds ``held`` (seat, token, owner) at ``table_id``."""
        try:
            await self.account_store.hold(uid, table_id, held, time.time())
        except RedisError as e:
            metrics.REDIS_ERRORS.inc()
            raise Unavailable(str(e)) from None

    async def game_ended(self, table: LiveTable) -> None:
        """A table's game is over: its ratings (a rated table), then the mails. Raises
        ``RedisError`` while the ratings are not all applied (the table is retried)."""
        meta = table.meta
        acts = await self.store.redis.hkeys(acts_key(table.id)) if meta.rated else []
        if table.control.voided:
            log.info("game voided: not rated", table=table.id)
            return
        # Fair play (server/accounts/fairplay.py): who left, whether a rated game counts,
        # then the ratings.
        verdict = await fairplay.rate_finished(
            self.account_store, self.fair, self.moderation.flag, table.id, meta.game,
            table.game.rated_min_decisions, meta, table.control,
            table.game.view(table.state, None).get("result") if meta.rated else None,
            [k.decode() for k in acts], self.settings.now_ms())
        if verdict and verdict != "counted":
            log.info("rated game not counted", table=table.id, verdict=verdict)
        table_id = table.id
        self.tournaments.nudge()  # a tournament's board may have ended
        self.tables.spawn(self.notifier.game_ended(table))
        log.info("game settled", table=table_id, rated=meta.rated)

    def chat_published(self, table: LiveTable, msg: dict[str, Any]) -> None:
        """A chat message arrived on the table's channel: to each local reader."""
        chat.deliver(table.room.connections(), msg, table.game_over())

    def blocks_changed(self, uid: str, other: str, on: bool) -> None:
        """``uid`` blocked (``on``) or unblocked ``other``: its table sockets on this
        process stop (or start again) getting ``other``'s chat."""
        for conn in self.connections:
            if conn.account == uid:
                conn.hidden = conn.hidden | {other} if on else conn.hidden - {other}

    def chat_removed(self, table: LiveTable, note: dict[str, Any]) -> None:
        """A chat message was removed: each local reader of its channel is told."""
        chat.deliver_removed(table.room.connections(), note, table.game_over())

    def seats_suspended(self, table: LiveTable, seats: list[int]) -> None:
        """The account holding ``seats`` was suspended: their local sockets are closed
        (server/admin/moderation.py)."""
        for seat in seats:
            for conn in tuple(table.room.players.get(seat, ())):
                conn.shut(SUSPENDED_CLOSE, "account suspended")

    def start_bot(self, table: LiveTable, seat: int) -> asyncio.Task[None]:
        """The task that plays ``seat`` of ``table`` (server/bots/driver.py)."""
        return self.bots.start(table, seat)

    def resynced(self, table: LiveTable) -> None:
        """Every local socket of the rebuilt table gets a fresh welcome."""
        ws.resync(table)

    async def turn_changed(self, table: LiveTable, seats: tuple[int, ...]) -> None:
        """Turn mails (only with ``wants_turns``: mail configured)."""
        await self.notifier.turn_changed(table, seats)

    def clock_changed(self, table: LiveTable) -> None:
        """The deadline index follows the table's clock."""
        self.deadlines.touch(table)

    def presence_announced(self, table: LiveTable) -> None:
        """Another process's presence change: this process's sockets are told."""
        self.attendance.notice(table)

    async def close_sockets(self, code: int = 1001, reason: str = "server going away") -> None:
        """Close every socket with ``code`` (1001: clients reconnect elsewhere)."""
        for conn in list(self.connections):
            conn.shut(code, reason)
        for _ in range(50):
            if not self.connections:
                break
            await asyncio.sleep(0.02)


SHUTDOWN_STEP = 4.0
"""Seconds each step of the shutdown may take: a step that hangs (seen once under heavy
load: a process that did not exit within 30 s of SIGTERM) is named in the log and left,
so the process still exits. Nothing acknowledged depends on it: every ack follows its
store."""


async def _bounded(step: str, stopping: Awaitable[Any], seconds: float = SHUTDOWN_STEP
                   ) -> None:
    try:
        async with asyncio.timeout(seconds):
            await stopping
    except TimeoutError:
        log.warning("shutdown step did not end in time; the process exits without it",
                    step=step, seconds=seconds)


async def healthz(request: Request) -> Response:
    """``200 {"ok": true, "redis": "ok"}`` when Redis answers within the call bound, else
    ``503`` with ``redis``: ``unresponsive`` (no answer in time: frozen or overloaded),
    ``unavailable`` (refused or closed) or ``restarting`` (the embedded one died and is
    being restarted). With the embedded Redis, ``embedded_redis`` says how it fares."""
    svc = request.app.state.svc
    out: dict[str, Any] = {"ok": True, "redis": "ok"}
    if svc.embedded is not None:
        out["embedded_redis"] = svc.embedded.status()
    try:
        await svc.store.ping()
    except (RedisError, OSError) as e:
        metrics.REDIS_ERRORS.inc()
        out["ok"] = False
        out["redis"] = "unresponsive" if isinstance(e, RedisTimeoutError) else "unavailable"
        if svc.embedded is not None and out["embedded_redis"]["state"] != "running":
            out["redis"] = "restarting"
        return JSONResponse(out, status_code=503)
    return JSONResponse(out)


_HTTP_CODES = {404: "not_found", 405: "method_not_allowed"}


async def http_error(request: Request, exc: Exception) -> Response:
    """Unmatched routes and methods: the API's JSON error under ``/api`` (and for the
    health and metrics routes), plain text elsewhere (page routes, static files)."""
    assert isinstance(exc, HTTPException)
    path = request.url.path
    if path.startswith("/api") or path in ("/healthz", "/metrics"):
        code = _HTTP_CODES.get(exc.status_code, "bad_message")
        return JSONResponse({"error": {"code": code, "message": f"{exc.detail}: "
                                       f"{request.method} {path}"}},
                            status_code=exc.status_code, headers=exc.headers)
    return PlainTextResponse(exc.detail, status_code=exc.status_code, headers=exc.headers)


async def metrics_endpoint(request: Request) -> Response:
    """The process's metrics, to the addresses of ``metrics_from`` only (403 ``forbidden``
    to any other: behind a proxy the forwarded client address counts)."""
    networks = request.app.state.svc.settings.metrics_from
    if not observe.allowed(request.client.host if request.client else None, networks):
        return JSONResponse({"error": {"code": "forbidden", "message":
                                       "the metrics are not served to this address "
                                       "(CARDTABLE_METRICS_FROM)"}}, status_code=403)
    body, content_type = metrics.render()
    return Response(body, media_type=content_type)


def _spa(index: Path, param: str | None = None):  # type: ignore[no-untyped-def]
    """The client's page for a route; with ``param``, a path parameter naming a game,
    the same page with 404 when the engine's registry has no such game (the client shows
    its not-found view): an unknown ``/rules/<name>`` is no page for monitors, caches or
    crawlers."""
    async def page(request: Request) -> Response:
        known = param is None or request.path_params[param] in GAMES
        return FileResponse(index, status_code=200 if known else 404)

    return page


def create_app(settings: Settings, embedded: Any = None) -> Starlette:
    """The app; the service object is ``app.state.svc``. ``embedded``: the watchdog of
    the embedded Redis (its state appears in ``/healthz``)."""
    svc = Service(settings, embedded)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        policies = await svc.store.eviction_policies()
        if policies != {"noeviction"}:
            # Any other policy deletes keys under memory pressure: running games, accounts.
            raise RuntimeError(
                f"Redis's maxmemory-policy is {', '.join(sorted(policies))}: under memory "
                "pressure it would delete games and accounts; set maxmemory-policy "
                "noeviction (docs/operations.md, \"Redis\")")
        await svc.tables.start()
        svc.attendance.start()
        svc.deadlines.start()
        # Running games with bots play on although nobody watches them (in the background:
        # the service answers meanwhile), each driven by one process (server/bots/leases.py).
        svc.tables.bots.start()
        svc.seeks.start()  # quick pairing's passes (server/pairing/pool.py)
        # Every process advances the tournaments (server/tournaments/runner.py).
        svc.tournaments.start()
        svc.inbox.start()  # invitations made on other processes (server/accounts/inbox.py)
        # Tables an older version listed in its lobby lists join the read model.
        svc.tables.spawn(lobby_migration.migrate(svc.store, settings.idle_expiry))
        # Accounts made before the look-alike index get their keys (once per store).
        svc.tables.spawn(svc.accounts.index_lookalikes())
        lag_monitor = asyncio.get_running_loop().create_task(metrics.watch_event_loop())
        kind = ("cluster" if svc.store.cluster else
                "embedded" if "redis.sock" in (settings.redis_url or "") else "external")
        log.info("service ready", redis=kind, wait_replicas=settings.redis_wait)
        try:
            yield
        finally:
            await _bounded("seeks", svc.seeks.stop())
            await _bounded("inbox", svc.inbox.stop())
            await _bounded("sockets", svc.close_sockets())
            # A deletion's rewrite, if one is still waiting (bounded on its own).
            await _bounded("aof", svc.aof.drain(5.0), 6.0)
            await _bounded("tournaments", svc.tournaments.stop())
            await _bounded("deadlines", svc.deadlines.stop())
            await _bounded("attendance", svc.attendance.stop())
            await _bounded("tables", svc.tables.stop())
            await _bounded("analysis", analysis_api.stop())
            await svc.bots.close()
            lag_monitor.cancel()
            await svc.store.close()

    routes: list = [
        Route("/healthz", healthz),
        Route("/metrics", metrics_endpoint),
        *account_api.ROUTES,
        *api_token_routes.ROUTES,
        *passwords.ROUTES,
        *profiles.ROUTES,
        *statistics_api.ROUTES,
        *social.ROUTES,
        *lobby.ROUTES,
        *takeover.ROUTES,
        *rematch.ROUTES,
        *admin_api.ROUTES,
        *moderation_api.ROUTES,
        *seeks.ROUTES,
        *analysis_api.ROUTES,
        *branch_api.ROUTES,
        *tournament_api.ROUTES,
        *invitation_api.ROUTES,
        *tutorial_api.ROUTES,
    ]  # /ws/tables/{id}: ws.TableSockets, before the middlewares (no layers per socket)
    dist = Path(settings.static_dir)
    if not dist.is_absolute() and not dist.is_dir():
        dist = Path(__file__).resolve().parent.parent / dist  # run from another directory
    if (dist / "index.html").is_file():
        page = _spa(dist / "index.html")
        routes += [Route("/table/{id}", page), Route("/replay/{id}", page),
                   Route("/replay", page), Route("/rules", page),
                   Route("/rules/{game}", _spa(dist / "index.html", "game")),
                   Route("/account", page), Route("/admin", page),
                   Route("/moderation", page),
                   Route("/my-games", page),
                   Route("/leaderboard", page), Route("/players/{name}", page),
                   Route("/tournaments", page), Route("/tournament/{id}", page),
                   Route("/learn/{game}", page),
                   Mount("/", StaticFiles(directory=dist, html=True))]
    app = ws.TableSockets(routes=routes, lifespan=lifespan,
                          middleware=[Middleware(RawSend), Middleware(observe.Observe),
                                      Middleware(SessionAuth)],
                          exception_handlers={404: http_error, 405: http_error})
    app.state.svc = svc
    return app
