"""Redis commands per accepted action: ``INFO commandstats`` before and after the window,
and (``--redis-monitor``) ``MONITOR``, which tells a client's command (a round trip) from
a command a script runs inside Redis.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import redis

from server.store.client import connect_sync

OWN_COMMANDS = frozenset({"info", "hello", "monitor", "client|setinfo", "client", "cluster",
                          "cluster|slots", "cluster|nodes", "cluster|shards", "command",
                          "command|docs", "command|info", "command|count", "readonly",
                          # a replica's acknowledgements and a master's pings to it
                          "replconf", "ping"})
"""Commands of the measuring connections themselves, left out of every count."""

SCRIPT_COMMANDS = ("evalsha", "eval", "evalsha_ro", "eval_ro", "fcall", "fcall_ro")
"""Commands that run a server-side script: one round trip each, whatever the script does."""


def redis_commandstats(url: str) -> dict[str, int]:
    """``{command: calls}`` from Redis ``INFO commandstats`` (``OWN_COMMANDS`` left out);
    on a Redis Cluster the sum over its masters."""
    client = connect_sync(url)
    try:
        if isinstance(client, redis.RedisCluster):
            infos = list(client.info("commandstats",
                                     target_nodes=redis.RedisCluster.PRIMARIES).values())
        else:
            infos = [client.info("commandstats")]
    finally:
        client.close()
    calls: dict[str, int] = {}
    for info in infos:
        for key, value in info.items():
            name = key.removeprefix("cmdstat_")
            if name not in OWN_COMMANDS:
                calls[name] = calls.get(name, 0) + int(value["calls"])
    return calls


def commandstats_delta(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    """Calls per command between two ``redis_commandstats`` snapshots (zeros left out)."""
    out = {}
    for name in set(before) | set(after):
        d = after.get(name, 0) - before.get(name, 0)
        if d:
            out[name] = d
    return dict(sorted(out.items()))


def redis_figures(delta: dict[str, int], accepted: int) -> dict[str, Any]:
    """Redis calls per accepted action from a ``commandstats_delta``.

    ``INFO commandstats`` counts the commands a script runs inside Redis as well, so
    ``commands_per_action`` over-counts round trips; ``script_calls_per_action`` counts
    ``EVALSHA``/``EVAL``/``FCALL`` (one round trip each). ``RedisMonitor`` tells the two
    kinds apart exactly.
    """
    scripts = sum(delta.get(c, 0) for c in SCRIPT_COMMANDS)
    total = sum(delta.values())
    per = (lambda n: round(n / accepted, 3)) if accepted else (lambda n: None)
    return {
        "commands": delta,
        "script_calls": scripts,
        "script_calls_per_action": per(scripts),
        "commands_per_action": per(total),
    }


def parse_monitor_line(line: str) -> tuple[str, str] | None:
    """``(source, command)`` of one ``MONITOR`` line; source is ``lua`` or ``client``.

    Format: ``1701290000.123456 [0 127.0.0.1:50000] "evalsha" "…" …`` (``[0 lua]`` for a
    command run by a script). ``None`` for anything else (``OK``, blank lines).
    """
    open_b = line.find("[")
    close_b = line.find("]", open_b + 1)
    if open_b < 0 or close_b < 0:
        return None
    where = line[open_b + 1:close_b].split(" ", 1)
    rest = line[close_b + 1:].lstrip()
    if not rest.startswith('"'):
        return None
    command = rest[1:rest.find('"', 1)].lower()
    return ("lua" if len(where) > 1 and where[1] == "lua" else "client"), command


class RedisMonitor:
    """Counts Redis commands by source (client round trip vs. inside a script) with
    ``redis-cli MONITOR`` writing to a file, parsed at ``stop()``.

    MONITOR slows Redis down; use it in a run of its own, not for latency figures.
    """

    def __init__(self, url: str) -> None:
        self.url = url
        fd, name = tempfile.mkstemp(prefix="einauge-monitor-", suffix=".txt")
        os.close(fd)
        self.path = Path(name)
        self.proc: subprocess.Popen | None = None
        self.began = 0.0

    def start(self) -> None:
        """Begin recording (returns once MONITOR answered)."""
        cli = shutil.which("redis-cli")
        if cli is None:
            raise RuntimeError("redis-cli not found (it comes with the redis-tools package)")
        with self.path.open("wb") as out:
            self.proc = subprocess.Popen([cli, "-u", self.url, "monitor"], stdout=out,
                                         stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 5
        while self.path.stat().st_size == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        self.began = time.monotonic()

    def stop(self, accepted: int) -> dict[str, Any]:
        """End recording; client commands (round trips) and script commands per action,
        and ``seconds`` recorded (to rate the periodic commands: the deadline scan and the
        presence refresh run on timers, not per action)."""
        assert self.proc is not None
        self.proc.terminate()
        self.proc.wait()
        seconds = time.monotonic() - self.began
        counts: dict[str, dict[str, int]] = {"client": {}, "lua": {}}
        with self.path.open(encoding="utf-8", errors="replace") as f:
            for line in f:
                parsed = parse_monitor_line(line)
                if parsed is None or parsed[1] in OWN_COMMANDS:
                    continue
                source, command = parsed
                counts[source][command] = counts[source].get(command, 0) + 1
        self.path.unlink(missing_ok=True)
        clients = sum(counts["client"].values())
        per = (lambda n: round(n / accepted, 3)) if accepted else (lambda n: None)
        return {
            "client_commands": dict(sorted(counts["client"].items())),
            "script_commands": dict(sorted(counts["lua"].items())),
            "client_commands_per_action": per(clients),
            "seconds": round(seconds, 3),
        }
