"""What the server process does during the measured window, read from outside.

- ``ServerProbe``: its CPU time, bytes written and RSS (psutil on its pid);
- ``server_histogram`` and ``histogram_figures``: a histogram of its ``/metrics`` read
  before and after the window (``FANOUT_METRIC``, the server's own part of a delivery);
- ``find_server_pid``: the process listening on a port.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

import httpx
import psutil
from prometheus_client.parser import text_string_to_metric_families

FANOUT_METRIC = "cardtable_fanout_seconds"


def server_histogram(url: str, name: str) -> dict[float, float]:
    """``{upper bound (s): cumulative count}`` of histogram ``name`` from the service's
    ``/metrics`` (empty when it cannot be read)."""
    try:
        text = httpx.get(f"{url}/metrics", timeout=10).text
    except httpx.HTTPError:
        return {}
    for family in text_string_to_metric_families(text):
        if family.name == name:
            return {float(sample.labels["le"]): sample.value for sample in family.samples
                    if sample.name == f"{name}_bucket"}
    return {}


def histogram_figures(before: dict[float, float], after: dict[float, float]
                      ) -> dict[str, Any] | None:
    """Count and p50/p99 of the observations between two ``server_histogram`` readings;
    a quantile is given as the upper bound of its bucket, in ms (``None``: above the
    largest finite bound)."""
    bounds = sorted(after)
    counts = [after[b] - before.get(b, 0.0) for b in bounds]
    total = counts[-1] if counts else 0
    if not total:
        return None

    def quantile(q: float) -> float | None:
        for bound, cumulative in zip(bounds, counts, strict=True):
            if cumulative >= q * total:
                return None if bound == float("inf") else round(bound * 1000, 3)
        return None

    return {"n": int(total), "p50_at_most_ms": quantile(0.5), "p99_at_most_ms": quantile(0.99)}


def find_server_pid(port: int) -> int | None:
    """The pid of the process listening on TCP ``port`` (needs to see its sockets)."""
    for conn in psutil.net_connections(kind="tcp"):
        if conn.status == psutil.CONN_LISTEN and conn.laddr and conn.laddr.port == port:
            return conn.pid
    return None


class ServerProbe:
    """CPU time, bytes written and RSS of the server process between ``start()`` and
    ``stop()`` (psutil reads ``/proc/PID/stat``, ``/proc/PID/io`` and ``/proc/PID/status``).
    Bytes written are ``wchar``: every byte the process handed to ``write``-like calls,
    its sockets' frames to clients and to Redis as well as its log lines."""

    def __init__(self, pid: int | None) -> None:
        self.proc = psutil.Process(pid) if pid else None
        self.cpu0 = 0.0
        self.t0 = 0.0
        self.rss_start = 0
        self.rss_peak = 0
        self.wchar0 = 0
        self.task: asyncio.Task | None = None

    def _cpu(self) -> float:
        assert self.proc is not None
        t = self.proc.cpu_times()
        return t.user + t.system

    def _wchar(self) -> int:
        assert self.proc is not None
        with contextlib.suppress(psutil.Error, AttributeError):
            return self.proc.io_counters().write_chars
        return 0

    async def _sample(self) -> None:
        assert self.proc is not None
        while True:
            with contextlib.suppress(psutil.Error):
                self.rss_peak = max(self.rss_peak, self.proc.memory_info().rss)
            await asyncio.sleep(0.5)

    def start(self) -> None:
        """Begin the window."""
        if self.proc is None:
            return
        self.cpu0 = self._cpu()
        self.wchar0 = self._wchar()
        self.t0 = time.perf_counter()
        self.rss_start = self.rss_peak = self.proc.memory_info().rss
        self.task = asyncio.create_task(self._sample())

    def stop(self, accepted: int, deliveries: int = 0) -> dict[str, Any] | None:
        """End the window: CPU seconds (per 1,000 accepted actions, per delivered delta),
        core share, RSS."""
        if self.proc is None:
            return None
        if self.task:
            self.task.cancel()
        cpu = self._cpu() - self.cpu0
        wrote = self._wchar() - self.wchar0
        wall = time.perf_counter() - self.t0
        rss = self.proc.memory_info().rss
        return {
            "pid": self.proc.pid,
            "cpu_s": round(cpu, 3),
            "cpu_s_per_1000_actions": round(1000 * cpu / accepted, 3) if accepted else None,
            # all the server's work (actions included) per delta frame a socket received
            "cpu_us_per_delivery": round(1e6 * cpu / deliveries, 2) if deliveries else None,
            "core_share": round(cpu / wall, 3) if wall else None,
            "bytes_written": wrote,
            "bytes_per_delivery": round(wrote / deliveries, 1) if deliveries else None,
            "rss_mib_start": round(self.rss_start / 2**20, 1),
            "rss_mib_end": round(rss / 2**20, 1),
            "rss_mib_peak": round(max(self.rss_peak, rss) / 2**20, 1),
        }
