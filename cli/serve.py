"""``cardtable serve``: run the game service (uvicorn, websockets library, Redis).

Without ``--redis-url`` / ``REDIS_URL`` it starts a private ``redis-server`` with its data
under ``./var/redis``, restarts it when it dies and stops it on exit; a second service on
the same data folder is refused (server/store/supervise.py). SIGTERM/SIGINT close every socket
with 1001 ("going away") first, so clients reconnect to another process.
"""

from __future__ import annotations

import argparse
import signal
import socket
import sys
from typing import Any


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``serve``."""
    p = sub.add_parser("serve", help="run the live game service (HTTP + websockets)")
    p.add_argument("--host", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, help="port (default 8000)")
    p.add_argument("--redis-url", help="external Redis (default: REDIS_URL, else embedded)")
    p.add_argument("--redis-dir", help="data directory of the embedded Redis (var/redis)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Start Redis if needed, then the server; returns the exit code."""
    import warnings

    from server import config

    # The websockets library runs under uvicorn's "websockets-sansio" protocol (its sans-I/O
    # core on the event loop: cheaper per frame and per connection than uvicorn's legacy
    # "websockets" one, docs/benchmarks.md "Service"); a deprecation notice about the
    # legacy API, should any import touch it, is noise here.
    warnings.filterwarnings("ignore", message=".*websockets.*deprecated", category=Warning)
    from server.logging import configure
    from server.store.embedded import EmbeddedRedis, RedisMissing
    from server.store.supervise import DataDirInUse, DataDirLock, Supervisor

    try:
        settings = config.from_env(host=args.host, port=args.port, redis_url=args.redis_url,
                                   redis_dir=args.redis_dir)
    except ValueError as e:
        print(f"cardtable serve: {e}", file=sys.stderr)
        return 2
    configure(settings.log_level, settings.log_json, process=f"serve:{settings.port}")
    config.warn_legacy()  # each former EINAUGE_* variable, with its CARDTABLE_* name
    config.warn_public_url(settings)  # mail links to localhost from a public address
    supervisor = lock = None
    if not settings.redis_url:
        lock = DataDirLock(settings.redis_dir)
        try:
            lock.acquire()
        except DataDirInUse as e:
            print(f"cardtable serve: {e}", file=sys.stderr)
            return 1
        embedded = EmbeddedRedis(settings.redis_dir)
        try:
            url = embedded.start()
        except RedisMissing as e:
            print(f"cardtable serve: {e}", file=sys.stderr)
            return 1
        except RuntimeError as e:
            print(f"cardtable serve: embedded Redis failed: {e}", file=sys.stderr)
            return 1
        supervisor = Supervisor(embedded)
        supervisor.start()
        settings = settings.replace(redis_url=url)
        print(f"cardtable serve: embedded Redis at {url} (data in {settings.redis_dir})",
              file=sys.stderr)
    try:
        from server.app import create_app

        app = create_app(settings, supervisor)
        _raise_open_files()
        _tune_gc()
        cfg = uvicorn_config(app, settings)
        server = GracefulServer(cfg)
        print(f"cardtable serve: http://{_shown_host(settings.host)}:{settings.port}",
              file=sys.stderr)
        # uvicorn's own runner: it builds the loop from ``loop="auto"`` (uvloop when installed,
        # which the service depends on: about a fifth less CPU per action and per delivery,
        # docs/benchmarks.md "Service").
        # uvicorn re-raises the signal that stopped it once it has shut down; SIGTERM's
        # default action would end the process there and then, skipping the ``finally``
        # below (the embedded Redis was then left to die of its parent-death signal, after
        # the service had exited, and the data folder's lock to the kernel).
        previous = signal.signal(signal.SIGTERM, _raise_terminated)
        try:
            server.run()
        except KeyboardInterrupt:  # uvicorn re-raises SIGINT once it has shut down
            return 130
        except _Terminated:
            return 0  # a requested stop that completed
        finally:
            signal.signal(signal.SIGTERM, previous)
        return 0
    finally:
        if supervisor is not None:
            supervisor.stop()
        if lock is not None:
            lock.release()


def uvicorn_config(app: Any, settings: Any) -> Any:
    """The uvicorn configuration the service runs ``app`` with (also bench/action_cost.py's,
    so that it measures the same server)."""
    import uvicorn

    from server.http.header_deadline import HeaderDeadline
    from server.ws.lean_protocol import LeanWebSocketProtocol

    # uvicorn's "websockets-sansio" protocol, with less memory per socket
    return uvicorn.Config(app, host=settings.host, port=settings.port, ws=LeanWebSocketProtocol,
                          ws_max_size=settings.max_frame, ws_per_message_deflate=False,
                          backlog=settings.backlog, log_level=settings.log_level, loop="auto",
                          lifespan="on", timeout_graceful_shutdown=5,
                          # the service's access log (server/http/observe.py), and uvicorn's
                          # own lines through the service's log configuration
                          # (server/logging.py): one format, JSON with CARDTABLE_LOG_JSON
                          access_log=False, log_config=None,
                          # uvicorn's httptools protocol with a deadline for request headers
                          http=HeaderDeadline,
                          # Forwarded headers name the client only when a listed proxy sent
                          # them: otherwise anyone could pick the address the per-address
                          # limits count (uvicorn trusts loopback by default).
                          proxy_headers=bool(settings.trusted_proxies),
                          forwarded_allow_ips=list(settings.trusted_proxies))


def _tune_gc() -> None:
    """Fewer, cheaper cyclic garbage collections. With thousands of tables and sockets the
    heap holds millions of containers, and a full collection stops every table for
    hundreds of milliseconds (at 250 tables x 8 sockets the action latency p99 went from
    about 500 ms to about 55 ms with this: docs/benchmarks.md, "Service"). What the service
    allocates per action, per game and per socket is freed by reference counting
    (tests/server/test_garbage.py fails if a game leaves a server object in a cycle, which
    would otherwise stay in memory for a long time); the cyclic collector still runs, only
    less often, and ``freeze`` moves what exists at start-up out of its way."""
    import gc

    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 50, 1000)


def _raise_open_files() -> None:
    """Lift the soft open-file limit to the hard one: every websocket is a file
    descriptor, and the usual soft limit (1,024) is far below the connections one process
    should hold."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        target = hard if hard != resource.RLIM_INFINITY else 1_048_576
        if soft < target:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    except (ImportError, ValueError, OSError):  # not on this platform, or not allowed
        pass


def _shown_host(host: str) -> str:
    return "localhost" if host in ("127.0.0.1", "0.0.0.0", "::") else host


def _server_class() -> Any:
    import uvicorn

    class Graceful(uvicorn.Server):
        """uvicorn would close sockets with 1012; the service says 1001 (going away)."""

        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            svc = _find_svc(self.config.loaded_app)
            if svc is not None:
                await svc.close_sockets(1001, "server going away")
            await super().shutdown(sockets)

    return Graceful


def _find_svc(app: Any) -> Any:
    # uvicorn wraps the app in middleware; walk down to the Starlette app.
    for _ in range(8):
        state = getattr(app, "state", None)
        if state is not None and hasattr(state, "svc"):
            return state.svc
        app = getattr(app, "app", None)
        if app is None:
            return None
    return None


class _Terminated(Exception):
    """SIGTERM arrived (re-raised by uvicorn after its graceful shutdown)."""


def _raise_terminated(signum: int, frame: Any) -> None:
    raise _Terminated


def GracefulServer(cfg: Any) -> Any:
    """A uvicorn server whose shutdown closes the service's sockets with 1001 first."""
    return _server_class()(cfg)
