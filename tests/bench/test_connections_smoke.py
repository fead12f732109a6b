"""A small run of the connection benchmark against the real server: idle spectators open,
are dropped all at once, reconnect with their last seq, and all get the next delta."""

from __future__ import annotations

import pytest

from bench.connections import run_connections

K = 20


@pytest.mark.timeout(120)
async def test_connections_smoke(server) -> None:
    r = await run_connections(server.url, K, warmup=2, concurrency=10, settle=0.2,
                              server_pid=server.proc.pid)
    assert r["errors"] == 0, r["error_samples"]
    assert r["opened"] == K
    assert r["reconnected"] == K
    delivery = r["delivery_after_reconnect_ms"]
    assert delivery["n"] == K and delivery["failed"] == 0
    assert r["server_fds_after"] >= r["server_fds_before"] + K
