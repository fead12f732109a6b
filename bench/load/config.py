"""The parameters of one load run (``LoadConfig``), as ``python -m bench.load`` sets them
and as other benchmarks (``bench.coldstart``, ``bench.scale``, ``bench/peers/run.py``) give
them to ``bench.load.run.run_load``."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class LoadConfig:
    """Parameters of one load run (see ``--help`` for each)."""

    url: str = "http://127.0.0.1:8000"
    game: str = "einauge"
    tables: int = 10
    players: int = 4
    spectators: int = 4
    rate: float = 1.0
    jitter: float = 0.5
    duration: float = 30.0
    warmup: float = 2.0
    until_end: bool = False
    setup_concurrency: int = 50
    ack_timeout: float = 10.0
    redis_url: str | None = None
    server_pid: int | None = None
    server_pids: tuple[int, ...] = ()
    """Several server processes (behind a balancer): each one's CPU is measured
    (``servers`` in the result); ``server_pid`` is ignored then."""
    seed: int = 1
    sources: int = 1
    redis_monitor: bool = False
    client: str = "sansio"
    clocked: bool = False
    """Public tables, which always have a clock (the default "normal"), instead of private
    ones, the only kind without a clock, joined with their invite key. The peers'
    tables have no clock: a comparison with them plays private tables."""

    def source_for(self, i: int) -> str | None:
        """The loopback source address for socket ``i`` (spreads many sockets over
        127.0.0.1 … 127.0.0.N so per-address limits and port ranges are not hit)."""
        if self.sources <= 1:
            return None
        return f"127.0.0.{1 + i % self.sources}"
