"""This machine and this process: what a report says about the machine (``machine``), and
how a benchmark takes its share of it (open-file limit, core pinning, niceness of the
session's scheduler autogroup, SIGTERM as a clean exit).
"""

from __future__ import annotations

import contextlib
import os
import platform
import resource
import signal
import sys
from pathlib import Path
from typing import Any

import psutil


def raise_nofile(wanted: int) -> int:
    """Raise this process's open-file limit to ``wanted`` (hard too, if allowed: it needs
    CAP_SYS_RESOURCE; without it the soft limit goes up to the hard one).

    Returns the soft limit in force afterwards.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft >= wanted:
        return soft
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, max(hard, wanted)))
    except (ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard), hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def machine() -> dict[str, Any]:
    """CPU model, core count, memory, kernel and Python of this machine."""
    model = platform.processor()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return {
        "cpu": model,
        "cores": os.cpu_count(),
        "memory_gib": round(psutil.virtual_memory().total / 2**30, 1),
        "load_average_1m": round(os.getloadavg()[0], 2),
        "kernel": platform.release(),
        "python": platform.python_version(),
    }


@contextlib.contextmanager
def prioritized(nice: int):
    """Run the block with this session's scheduler autogroup at ``nice`` (Linux with
    ``sched_autogroup_enabled``: niceness between processes of different sessions only
    counts through their autogroups), restoring the old value afterwards. Processes
    started inside (the server, Redis) share the autogroup. No-op for ``nice == 0`` or
    where the file is missing or not writable."""
    path = Path("/proc/self/autogroup")
    old = None
    if nice:
        with contextlib.suppress(OSError, ValueError, IndexError):
            old = int(path.read_text().split("nice")[1])
            path.write_text(str(nice))
    try:
        yield
    finally:
        if old is not None:
            with contextlib.suppress(OSError):
                path.write_text(str(old))


def pin_self(core: int, nice: int = 0) -> None:
    """Pin this process to one core (no-op where affinity is not supported) and apply
    ``nice`` (negative: higher priority; needs root)."""
    with contextlib.suppress(AttributeError, OSError):
        if core < (os.cpu_count() or 1):
            os.sched_setaffinity(0, {core})
    if nice:
        os.nice(nice)


def exit_on_sigterm() -> None:
    """Turn SIGTERM into ``SystemExit`` so that spawned servers are stopped on the way out."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
