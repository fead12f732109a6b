"""``cardtable balance``: N ``cardtable serve`` processes behind HAProxy on one port.

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

Client addresses: HAProxy removes any ``X-Forwarded-For`` / ``X-Forwarded-Proto`` a client
sent (unless the client is one of the front proxies in ``CARDTABLE_TRUSTED_PROXIES``), then
appends the connecting address (``option forwardfor``), and it connects to the processes
from ``BALANCER_SOURCE``. Each process trusts ``X-Forwarded-For`` only from that address
and from the configured front proxies, so uvicorn's ``request.client`` (what every
per-address limit counts) is the header's right-most entry that is none of those: the
address that connected to HAProxy (or that a front proxy forwards), which a client cannot
forge. A bad entry there (no IP address or network) stops ``balance`` with status 2.

Each started process is announced on stderr as ``cardtable balance: serve <port> pid <pid>``;
SIGTERM/SIGINT soft-stop HAProxy first (SIGUSR1: no new connections, the open ones kept),
then stop every process (SIGTERM: their sockets get 1001 through HAProxy), then HAProxy
once its connections ended (at most ``PROXY_DRAIN`` s), then the embedded Redis. SIGHUP
restarts the processes one at a time (a rolling restart, e.g. onto upgraded code: each new
process runs the code now installed): stop one (its sockets reconnect to the others),
start it again, wait until its ``/healthz`` answers 200, then the next; ``cardtable
balance: rolling restart done`` on stderr when all are (docs/operations.md, "Rolling
deploys and upgrades").
"""

from __future__ import annotations

import argparse
import contextlib
import ipaddress
import os
import shutil
import signal
import string
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path

HAPROXY_HINT = ("haproxy was not found. Install it (Debian/Ubuntu: `sudo apt-get install "
                "haproxy`; scripts/setup.sh does).")


PROXY_DRAIN = 5.0
"""Seconds HAProxy may pass the last bytes of its connections (the processes' close
frames) after they stopped, before it is stopped too."""


def find_haproxy() -> str | None:
    """The haproxy binary (Debian puts it in /usr/sbin, often not on a user's PATH)."""
    return shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin:/usr/local/sbin")


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``balance``."""
    p = sub.add_parser("balance", help="run N server processes behind HAProxy on one port")
    p.add_argument("--processes", "-n", type=int, default=2, help="server processes (2)")
    p.add_argument("--host", help="address HAProxy listens on (default: CARDTABLE_HOST, "
                                  "127.0.0.1)")
    p.add_argument("--port", type=int,
                   help="port HAProxy listens on (default: CARDTABLE_PORT, 8000)")
    p.add_argument("--first-port", type=int,
                   help="port of the first process, the others follow (default port+1)")
    p.add_argument("--ports", help="comma-separated ports of the processes (instead of "
                                   "--first-port and the ones after it)")
    p.add_argument("--leastconn", action="store_true",
                   help="spread a table's sockets over the processes too (each process "
                        "then follows every table: more CPU per action; for comparison)")
    p.add_argument("--config", metavar="TEMPLATE",
                   help="your own HAProxy configuration template (e.g. TLS in HAProxy) with "
                        "the placeholders of cli/balance.py DEFAULT_TEMPLATE; checked with "
                        "haproxy -c before anything starts")
    p.add_argument("--redis-url", help="shared Redis (default: REDIS_URL, else embedded)")
    p.add_argument("--redis-dir", default="var/redis",
                   help="data directory of the embedded Redis (var/redis)")
    p.set_defaults(func=run)


TABLE_PATH = r"^/(ws|api)/tables/[^/]+"
"""The paths that name a table: its websocket and its HTTP API (``/api/tables/<id>/…``)."""

PROCESS_PATH = r"^/process/[0-9]+/(metrics|healthz)$"
"""``/process/<n>/metrics`` and ``/process/<n>/healthz``: the ``/metrics`` and ``/healthz``
of the ``n``-th process (from 0, in port order), whichever process the others' requests
go to. ``/metrics`` answers only the addresses of ``CARDTABLE_METRICS_FROM``."""

BALANCER_SOURCE = "127.0.0.1"
"""The address HAProxy connects to the processes from (its ``source``, on loopback where
they listen): besides the configured front proxies, the only address whose
``X-Forwarded-For`` the processes trust."""


def front_proxies(trusted: Sequence[str]) -> tuple[str, ...]:
    """``trusted`` (``CARDTABLE_TRUSTED_PROXIES``) checked for HAProxy's ``src`` match: each
    an IP address or a network (no host bits set), or ``*`` (any source). Raises
    ``ValueError`` naming an entry that is neither (uvicorn would silently trust no
    address for it, HAProxy might resolve it: the two would disagree)."""
    for entry in trusted:
        if entry == "*":
            continue
        try:
            if "/" in entry:
                ipaddress.ip_network(entry)
            else:
                ipaddress.ip_address(entry)
        except ValueError:
            raise ValueError(f"CARDTABLE_TRUSTED_PROXIES: {entry!r} is no IP address or "
                             "network (with no host bits set), nor *") from None
    return tuple(trusted)


def process_trust(trusted: Sequence[str]) -> str:
    """``CARDTABLE_TRUSTED_PROXIES`` of each process behind the balancer: the balancer's own
    address and the front proxies (``*`` stays ``*``)."""
    if "*" in trusted:
        return "*"
    return ",".join(dict.fromkeys([BALANCER_SOURCE, *trusted]))


def _forwarding(trusted: Sequence[str]) -> str:
    """The frontend's rules for the client's address (see the module docstring)."""
    if "*" in trusted:
        return """    # every source is a trusted front proxy (CARDTABLE_TRUSTED_PROXIES=*): what it
    # forwards is kept, and its own address appended
    option forwardfor
"""
    keep = ""
    if trusted:
        keep = " unless front_proxy"
        rules = f"    acl front_proxy src {' '.join(trusted)}\n"
    else:
        rules = ""
    return f"""    # the client's address, unforgeable: forwarded headers only from the configured
    # front proxies (CARDTABLE_TRUSTED_PROXIES), then the connecting address appended
{rules}    http-request del-header X-Forwarded-For{keep}
    http-request del-header X-Forwarded-Proto{keep}
    option forwardfor
"""


DEFAULT_TEMPLATE = """global
    maxconn ${maxconn}
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
    # the processes trust X-Forwarded-For from this address only (and the front proxies)
    source ${source}

frontend cardtable
    bind ${host}:${port}
${forwarding}${routing}${backends}"""
"""The configuration ``balance`` writes, as a template of ``string.Template``: an
operator's own (``--config``, e.g. with ``bind :443 ssl crt …``) uses the same
placeholders: ``${forwarding}`` (the forwarded-header rules) and ``${routing}`` (the
backend choice), both inside the frontend in this order, ``${backends}`` (every backend:
after it), and ``${host}``, ``${port}``, ``${maxconn}``, ``${source}`` (what the defaults
keep: ``source ${source}`` must stay, the processes trust only that address and the front
proxies)."""


def render(template: str, host: str, port: int, backends: list[int], maxconn: int = 10_000,
           leastconn: bool = False, trusted: Sequence[str] = ()) -> str:
    """``template`` with its placeholders (``DEFAULT_TEMPLATE``) filled in; raises
    ``ValueError`` naming a placeholder it does not know or a ``$`` it cannot read."""
    routing, parts = _parts(backends, leastconn)
    try:
        return string.Template(template).substitute(
            forwarding=_forwarding(trusted), routing=routing, backends=parts, host=host,
            port=port, maxconn=maxconn, source=BALANCER_SOURCE)
    except KeyError as e:
        raise ValueError(f"unknown placeholder ${{{e.args[0]}}} in the template") from None


def haproxy_config(host: str, port: int, backends: list[int], maxconn: int = 10_000,
                   leastconn: bool = False, trusted: Sequence[str] = ()) -> str:
    """The HAProxy configuration: one HTTP frontend on ``host:port``, one server per
    process port on 127.0.0.1 (connected from ``BALANCER_SOURCE``), websockets tunnelled
    for up to an hour of silence, at most ``maxconn`` client connections (each costs
    HAProxy two file descriptors). ``trusted``: the front proxies (``front_proxies``)
    whose ``X-Forwarded-For``/``X-Forwarded-Proto`` are passed on; from any other source
    they are removed; the source's address is appended to ``X-Forwarded-For`` either way.

    A request whose path names a table (``TABLE_PATH``) goes to the backend ``tables``,
    which picks the process by a consistent hash of the table id (the path's 4th
    ``/``-field, the same for ``/ws/tables/<id>`` and ``/api/tables/<id>/…``): all sockets
    and requests of a table share one process, so each delta crosses Redis to one process
    and is folded, diffed and encoded once (docs/benchmarks.md, "Cluster"). Its servers
    track the health checks of the backend ``serve`` (``leastconn``), which takes every
    other request. ``leastconn``: every request to ``serve``. ``PROCESS_PATH`` goes to
    the backend of that one process (``process<n>``), as its own ``/metrics`` or
    ``/healthz``."""
    return render(DEFAULT_TEMPLATE, host, port, backends, maxconn, leastconn, trusted)


def _parts(backends: list[int], leastconn: bool) -> tuple[str, str]:
    """The frontend's routing lines and every backend (``haproxy_config``)."""
    def servers(extra: str) -> str:  # ``{name}`` in ``extra``: the server's name
        return "\n".join(f"    server serve{i} 127.0.0.1:{p} " + extra.format(name=f"serve{i}")
                         for i, p in enumerate(backends))

    processes = "".join(f"""
backend process{i}
    http-request set-path /%[path,field(4,/)]
    server serve{i} 127.0.0.1:{p}
""" for i, p in enumerate(backends))
    tables = "" if leastconn else f"""
backend tables
    balance hash path,field(4,/)
    hash-type consistent
{servers("track serve/{name} on-marked-down shutdown-sessions")}
"""
    route = "" if leastconn else f"""    acl table_path path_reg {TABLE_PATH}
    use_backend tables if table_path
"""
    routing = f"""\
    # each process's own /metrics and /healthz: /process/<n>/metrics
    acl process_path path_reg {PROCESS_PATH}
    use_backend process%[path,field(3,/)] if process_path
{route}    default_backend serve
"""
    parts = f"""{tables}{processes}
backend serve
    balance leastconn
    option httpchk GET /healthz
    http-check expect status 200
{servers("check inter 500 fall 2 rise 2 on-marked-down shutdown-sessions")}
"""
    return routing, parts


def run(args: argparse.Namespace) -> int:
    """Start Redis if needed, the processes and HAProxy; supervise until a signal."""
    from server.store.embedded import EmbeddedRedis, RedisMissing

    haproxy = find_haproxy()
    if haproxy is None:
        print(f"cardtable balance: {HAPROXY_HINT}", file=sys.stderr)
        return 1
    if args.processes < 1:
        print("cardtable balance: --processes must be at least 1", file=sys.stderr)
        return 2
    from server import config

    try:
        settings = config.from_env()
        trusted = front_proxies(settings.trusted_proxies)
    except ValueError as e:
        print(f"cardtable balance: {e}", file=sys.stderr)
        return 2
    host = args.host or settings.host
    listen = args.port or settings.port
    note = config.public_url_note(settings.replace(host=host))
    if note is not None:  # the processes listen on loopback: they cannot tell
        print(f"cardtable balance: warning: {note}", file=sys.stderr, flush=True)
    first = args.first_port or listen + 1
    ports = [first + i for i in range(args.processes)]
    if args.ports:
        ports = [int(p) for p in args.ports.split(",")]
    try:
        template = Path(args.config).read_text() if args.config else DEFAULT_TEMPLATE
        text = render(template, host, listen, ports, _maxconn(), args.leastconn, trusted)
    except (OSError, ValueError) as e:
        print(f"cardtable balance: --config {args.config}: {e}", file=sys.stderr)
        return 2
    folder = Path(tempfile.mkdtemp(prefix="cardtable-balance-"))
    config_file = folder / "haproxy.cfg"
    config_file.write_text(text)
    if args.config:
        checked = subprocess.run([haproxy, "-c", "-q", "-f", str(config_file)],
                                 capture_output=True, text=True, check=False)
        if checked.returncode != 0:
            print(f"cardtable balance: --config {args.config}: haproxy refuses it: "
                  f"{(checked.stdout + checked.stderr).strip()}", file=sys.stderr)
            shutil.rmtree(folder, ignore_errors=True)
            return 2
    redis_url = args.redis_url or os.environ.get("REDIS_URL")
    embedded = None
    if not redis_url:
        embedded = EmbeddedRedis(args.redis_dir)
        try:
            redis_url = embedded.start()
        except (RedisMissing, RuntimeError) as e:
            print(f"cardtable balance: {e}", file=sys.stderr)
            shutil.rmtree(folder, ignore_errors=True)
            return 1
    stopping = rolling = False

    def stop(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True

    def roll(signum: int, frame: object) -> None:
        nonlocal rolling
        rolling = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGHUP, roll)
    trust = process_trust(trusted)
    procs: dict[int, subprocess.Popen[bytes]] = {}
    proxy: subprocess.Popen[bytes] | None = None
    try:
        for port in ports:
            procs[port] = _serve(port, redis_url, trust)
        proxy = subprocess.Popen([haproxy, "-db", "-f", str(config_file)])
        print(f"cardtable balance: http://{host}:{listen} -> {len(ports)} processes",
              file=sys.stderr, flush=True)
        while not stopping:
            time.sleep(0.2)
            if rolling:
                rolling = False
                for port in ports:
                    if stopping:
                        break
                    _stop(procs[port])
                    procs[port] = _serve(port, redis_url, trust)
                    if not _healthy(port, procs[port], lambda: stopping):
                        print(f"cardtable balance: serve {port} did not answer /healthz; "
                              "rolling restart stopped", file=sys.stderr, flush=True)
                        break
                else:
                    print("cardtable balance: rolling restart done", file=sys.stderr,
                          flush=True)
            if proxy.poll() is not None:
                print(f"cardtable balance: haproxy exited with {proxy.returncode}",
                      file=sys.stderr)
                return 1
            for port, proc in list(procs.items()):
                if proc.poll() is not None and not stopping:
                    print(f"cardtable balance: serve {port} exited with {proc.returncode}; "
                          f"starting it again", file=sys.stderr, flush=True)
                    time.sleep(1.0)
                    procs[port] = _serve(port, redis_url, trust)
        return 0
    finally:
        if proxy is not None and proxy.poll() is None:
            # Soft stop: HAProxy takes no new connection but keeps the open ones, so the
            # processes' close frames (1001) still reach their clients; a hard stop first
            # cut every socket without one (the clients saw 1006).
            proxy.send_signal(signal.SIGUSR1)
        for proc in procs.values():  # all at once, then wait for each
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in procs.values():
            _stop(proc, signalled=True)
        if proxy is not None:
            # It exits once its last connection ended; one a client holds open is cut.
            try:
                proxy.wait(PROXY_DRAIN)
            except subprocess.TimeoutExpired:
                _stop(proxy)
        if embedded is not None:
            embedded.stop()
        shutil.rmtree(folder, ignore_errors=True)


def _healthy(port: int, proc: subprocess.Popen[bytes], stopping: Callable[[], bool],
             timeout: float = 120.0) -> bool:
    """Wait until the process on ``port`` answers ``/healthz`` with 200 (False: it exited,
    the balancer is stopping, or ``timeout`` seconds passed)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None and not stopping():
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as r:
                if r.status == 200:
                    return True
        except OSError:
            pass
        time.sleep(0.1)  # polling a process that is starting
    return False


def _maxconn() -> int:
    """Client connections HAProxy can hold within the open-file limit (raised to the hard
    limit first, as ``cardtable serve`` does)."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        soft = hard
    limit = 1_048_576 if soft == resource.RLIM_INFINITY else soft
    return max(100, min(500_000, (limit - 200) // 2))


def _serve(port: int, redis_url: str, trust: str) -> subprocess.Popen[bytes]:
    """One ``cardtable serve`` on loopback, trusting ``X-Forwarded-For`` from ``trust``
    (``process_trust``) only. The Redis URL goes in its environment, not on its command
    line, where ``ps`` would show a password in it to every user of the machine."""
    proc = subprocess.Popen([sys.executable, "-m", "cli", "serve", "--host", "127.0.0.1",
                             "--port", str(port)],
                            env={**os.environ, "REDIS_URL": redis_url,
                                 "CARDTABLE_TRUSTED_PROXIES": trust})
    print(f"cardtable balance: serve {port} pid {proc.pid}", file=sys.stderr, flush=True)
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
