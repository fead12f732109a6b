"""Run the ``cardtable`` command with cProfile switched on and off by signals, for the
benchmarks that count a server's Python calls in a window (bench/presence_cost.py).

::

    python -m bench.profiled STATS_FILE serve --port …

``SIGUSR1`` starts counting; ``SIGUSR2`` stops and writes the counts so far to
``STATS_FILE`` (``pstats`` format), replacing it. Counted calls, unlike CPU seconds, do
not depend on what else the machine runs.
"""

from __future__ import annotations

import cProfile
import os
import signal
import sys
from types import FrameType

if __name__ == "__main__":  # run as a file, in the checkout to measure: its `cli`
    sys.path.insert(0, os.getcwd())

from cli.main import main as cardtable


def run(argv: list[str]) -> int:
    """``cardtable argv[1:]`` with the signals above writing to ``argv[0]``."""
    stats_file, rest = argv[0], argv[1:]
    profile = cProfile.Profile()

    def start(signum: int, frame: FrameType | None) -> None:
        profile.enable()

    def stop(signum: int, frame: FrameType | None) -> None:
        profile.disable()
        profile.dump_stats(stats_file)

    signal.signal(signal.SIGUSR1, start)
    signal.signal(signal.SIGUSR2, stop)
    sys.argv = ["cardtable", *rest]
    return cardtable(rest)


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
