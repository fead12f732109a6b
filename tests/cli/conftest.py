"""Fixtures of the command-line tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cli.balance import find_haproxy
from tests.cli.test_balance import Balanced


@pytest.fixture
def two(redis_url: str, tmp_path: Path) -> Iterator[Balanced]:
    """``cardtable balance`` with two processes on the session's Redis, ready."""
    if find_haproxy() is None:
        pytest.fail("haproxy is not installed: run scripts/setup.sh", pytrace=False)
    b = Balanced(redis_url, tmp_path / "balance.log", processes=2)
    try:
        b.wait_ready()
        yield b
    finally:
        b.stop()
