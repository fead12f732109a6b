"""``einauge balance``: N ``einauge serve`` processes behind HAProxy on one port.

HAProxy (Debian's ``haproxy`` package; scripts/setup.sh installs it) listens on ``--port``
and sends every request and websocket of one table (``/ws/tables/<id>``,
``/api/tables/<id>/…``) to one process, picked by a consistent hash of the table id, and
everything else to the least busy process (``leastconn``); it checks each process's
``/healthz`` twice a second, and sends a connection whose process is down to another one
(``retries`` + ``option redispatch``; the hash moves only that process's tables). The
processes share one Redis (``--redis-url`` / ``REDIS_URL``, a single node or any node of
a cluster; unset: one embedded redis-server started here for all of them). A process that
exits is started again after a second. Clients whose process died reconnect through the
same port with their ``last_seq`` and land on a live process (docs/protocol.md §6).

Each started process is announced on stderr as ``einauge balance: serve <port> pid <pid>``;
SIGTERM/SIGINT stop HAProxy first (no new connections), then every process (SIGTERM:
sockets get 1001 and reconnect elsewhere), then the embedded Redis.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HAPROXY_HINT = ("haproxy was not found. Install it (Debian/Ubuntu: `sudo apt-get install "
                "haproxy`; scripts/setup.sh does).")


def find_haproxy() -> str | None:
    """The haproxy binary (Debian puts it in /usr/sbin, often not on a user's PATH)."""
    return shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin:/usr/local/sbin")


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``balance``."""
    p = sub.add_parser("balance", help="run N server processes behind HAProxy on one port")
    p.add_argument("--processes", "-n", type=int, default=2, help="server processes (2)")
    p.add_argument("--host", default="127.0.0.1", help="address HAProxy listens on")
    p.add_argument("--port", type=int, default=8000, help="port HAProxy listens on (8000)")
    p.add_argument("--first-port", type=int,
                   help="port of the first process, the others follow (default port+1)")
    p.add_argument("--ports", help="comma-separated ports of the processes (instead of "
                                   "--first-port and the ones after it)")
    p.add_argument("--leastconn", action="store_true",
                   help="spread a table's sockets over the processes too (each process "
                        "then follows every table: more CPU per action; for comparison)")
    p.add_argument("--redis-url", help="shared Redis (default: REDIS_URL, else embedded)")
    p.add_argument("--redis-dir", default="var/redis",
                   help="data directory of the embedded Redis (var/redis)")
    p.set_defaults(func=run)


TABLE_PATH = r"^/(ws|api)/tables/[^/]+"
"""The paths that name a table: its websocket and its HTTP API (``/api/tables/<id>/…``)."""


def haproxy_config(host: str, port: int, backends: list[int], maxconn: int = 10_000,
                   leastconn: bool = False) -> str:
    """The HAProxy configuration: one HTTP frontend on ``host:port``, one server per
    process port on 127.0.0.1, websockets tunnelled for up to an hour of silence, at most
    ``maxconn`` client connections (each costs HAProxy two file descriptors).

    A request whose path names a table (``TABLE_PATH``) goes to the backend ``tables``,
    which picks the process by a consistent hash of the table id (the path's 4th
    ``/``-field, the same for ``/ws/tables/<id>`` and ``/api/tables/<id>/…``): all sockets
    and requests of a table share one process, so each delta crosses Redis to one process
    and is folded, diffed and encoded once (docs/benchmarks.md, "Cluster"). Its servers
    track the health checks of the backend ``serve`` (``leastconn``), which takes every
    other request. ``leastconn``: every request to ``serve``."""
    def servers(extra: str) -> str:  # ``{name}`` in ``extra``: the server's name
        return "\n".join(f"    server serve{i} 127.0.0.1:{p} " + extra.format(name=f"serve{i}")
                         for i, p in enumerate(backends))

    tables = "" if leastconn else f"""
backend tables
    balance hash path,field(4,/)
    hash-type consistent
{servers("track serve/{name} on-marked-down shutdown-sessions")}
"""
    route = "" if leastconn else f"""    acl table_path path_reg {TABLE_PATH}
    use_backend tables if table_path
"""
    return f"""global
    maxconn {maxconn}
    log stderr format short local0 warning

defaults
    mode http
    log global
    option dontlognull
    timeout connect 2s
    timeout client 60s
    timeout server 60s
    # a websocket is a tunnel once upgraded: idle players must not be cut off
    timeout tunnel 1h
    timeout client-fin 5s
    retries 3
    option redispatch 1

frontend einauge
    bind {host}:{port}
{route}    default_backend serve
{tables}
backend serve
    balance leastconn
    option httpchk GET /healthz
    http-check expect status 200
{servers("check inter 500 fall 2 rise 2 on-marked-down shutdown-sessions")}
"""


def run(args: argparse.Namespace) -> int:
    """Start Redis if needed, the processes and HAProxy; supervise until a signal."""
    from server.redis_embedded import EmbeddedRedis, RedisMissing

    haproxy = find_haproxy()
    if haproxy is None:
        print(f"einauge balance: {HAPROXY_HINT}", file=sys.stderr)
        return 1
    if args.processes < 1:
        print("einauge balance: --processes must be at least 1", file=sys.stderr)
        return 2
    first = args.first_port or args.port + 1
    ports = [first + i for i in range(args.processes)]
    if args.ports:
        ports = [int(p) for p in args.ports.split(",")]
    redis_url = args.redis_url or os.environ.get("REDIS_URL")
    embedded = None
    if not redis_url:
        embedded = EmbeddedRedis(args.redis_dir)
        try:
            redis_url = embedded.start()
        except (RedisMissing, RuntimeError) as e:
            print(f"einauge balance: {e}", file=sys.stderr)
            return 1
    stopping = False

    def stop(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    folder = Path(tempfile.mkdtemp(prefix="einauge-balance-"))
    config = folder / "haproxy.cfg"
    config.write_text(haproxy_config(args.host, args.port, ports, _maxconn(), args.leastconn))
    procs: dict[int, subprocess.Popen[bytes]] = {}
    proxy: subprocess.Popen[bytes] | None = None
    try:
        for port in ports:
            procs[port] = _serve(port, redis_url)
        proxy = subprocess.Popen([haproxy, "-db", "-f", str(config)])
        print(f"einauge balance: http://{args.host}:{args.port} -> {len(ports)} processes",
              file=sys.stderr, flush=True)
        while not stopping:
            time.sleep(0.2)
            if proxy.poll() is not None:
                print(f"einauge balance: haproxy exited with {proxy.returncode}",
                      file=sys.stderr)
                return 1
            for port, proc in list(procs.items()):
                if proc.poll() is not None and not stopping:
                    print(f"einauge balance: serve {port} exited with {proc.returncode}; "
                          f"starting it again", file=sys.stderr, flush=True)
                    time.sleep(1.0)
                    procs[port] = _serve(port, redis_url)
        return 0
    finally:
        if proxy is not None:
            _stop(proxy)
        for proc in procs.values():  # all at once, then wait for each
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in procs.values():
            _stop(proc, signalled=True)
        if embedded is not None:
            embedded.stop()
        shutil.rmtree(folder, ignore_errors=True)


def _maxconn() -> int:
    """Client connections HAProxy can hold within the open-file limit (raised to the hard
    limit first, as ``einauge serve`` does)."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        soft = hard
    limit = 1_048_576 if soft == resource.RLIM_INFINITY else soft
    return max(100, min(500_000, (limit - 200) // 2))


def _serve(port: int, redis_url: str) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen([sys.executable, "-m", "cli", "serve", "--host", "127.0.0.1",
                             "--port", str(port), "--redis-url", redis_url])
    print(f"einauge balance: serve {port} pid {proc.pid}", file=sys.stderr, flush=True)
    return proc


def _stop(proc: subprocess.Popen[bytes], signalled: bool = False) -> None:
    """SIGTERM (unless ``signalled`` already: a second one cuts a process's graceful
    shutdown short, or lands in its last steps, past uvicorn's handler, as a traceback),
    then wait; SIGKILL after 15 s."""
    if not signalled and proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
