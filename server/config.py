"""Settings of the service, from the command line and the environment.

Every field has an ``EINAUGE_<NAME>`` environment variable (upper case), except the Redis
URL, which is ``REDIS_URL`` as most hosts set it. Command-line flags win over the
environment; the environment wins over the defaults. Tests and benchmarks raise the limits
through the same variables.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Settings:
    """What one server process needs to know. Units: seconds, bytes, counts."""

    host: str = "127.0.0.1"
    port: int = 8000
    redis_url: str | None = None
    """``None``: start the embedded redis-server (``redis_dir``)."""
    redis_dir: str = "var/redis"
    max_frame: int = 16 * 1024
    """Largest inbound websocket frame and HTTP body (bytes)."""
    rate_per_s: float = 10.0
    """Inbound websocket messages per second per connection (token bucket refill)."""
    rate_burst: int = 20
    """Token bucket size: messages a connection may send at once."""
    flood_close: int = 50
    """Messages refused for the rate limit in a row before the socket is closed (1008)."""
    conns_per_addr: int = 64
    """Open websockets per client address per process."""
    tables_per_hour: int = 30
    """Tables one client address may create per hour (shared by all processes)."""
    allowed_origins: tuple[str, ...] = ()
    """Extra websocket ``Origin`` values allowed (``*``: any). The page's own host and a
    missing ``Origin`` (non-browser clients) are always allowed."""
    bot_delay: float = 0.6
    """Seconds a bot thinks before it acts (so people can follow a bot's turn)."""
    bot_workers: int = 2
    """Processes in which greedy/mcts bots search (started on the first search); 0: search
    in a thread of the server process instead (holds the GIL while it searches)."""
    idle_expiry: int = 3600
    """Seconds an unstarted table lives without a lobby change; ended tables never expire."""
    hello_timeout: float = 10.0
    """Seconds a new socket has to send ``hello``."""
    outbox_limit: int = 4096
    """Frames queued for one slow socket before it is closed (it reconnects with last_seq)."""
    recent_deltas: int = 32
    """Encoded deltas kept per table for reconnects (older ones are rebuilt by replay)."""
    static_dir: str = "client-web/dist"
    backlog: int = 4096
    log_level: str = "info"
    log_json: bool = False

    def replace(self, **changes: object) -> Settings:
        """A copy with ``changes`` applied (``None`` values are ignored)."""
        return dataclasses.replace(self, **{k: v for k, v in changes.items() if v is not None})


_ENV_NAMES = {f.name: f"EINAUGE_{f.name.upper()}" for f in dataclasses.fields(Settings)}
_ENV_NAMES["redis_url"] = "REDIS_URL"


def from_env(env: Mapping[str, str] | None = None, **overrides: object) -> Settings:
    """Settings from ``env`` (default ``os.environ``) and then ``overrides`` (CLI flags;
    ``None`` means not given). Raises ``ValueError`` naming the variable for a bad value."""
    env = os.environ if env is None else env
    values: dict[str, object] = {}
    for f in dataclasses.fields(Settings):
        raw = env.get(_ENV_NAMES[f.name])
        if raw is None or raw == "":
            continue
        values[f.name] = _parse(f, raw)
    return Settings(**values).replace(**overrides)


def _parse(f: dataclasses.Field, raw: str) -> object:
    kind = str(f.type)
    try:
        if "tuple" in kind:
            return tuple(s.strip() for s in raw.split(",") if s.strip())
        if kind == "bool":
            return raw.strip().lower() in {"1", "true", "yes", "on"}
        if kind == "int":
            return int(raw)
        if kind == "float":
            return float(raw)
    except ValueError:
        raise ValueError(f"{_ENV_NAMES[f.name]}={raw!r}: expected {kind}") from None
    return raw


__all__ = ["Settings", "from_env"]
