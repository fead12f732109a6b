"""Settings of the service, from the command line and the environment (pydantic-settings).

Every field has a ``CARDTABLE_<NAME>`` environment variable (upper case), except the Redis
URL, which is ``REDIS_URL`` as most hosts set it. The service's former name still works for
one release: ``EINAUGE_<NAME>`` is read when ``CARDTABLE_<NAME>`` is not set (a second
settings source, after the ``CARDTABLE_`` one), and ``warn_legacy`` logs at start-up which
variable to rename. Command-line flags win over the environment; the environment wins over
the defaults. Tests and benchmarks raise the limits through the same variables. A new
setting is one annotated field with a default and a docstring (the docstring is its line in
docs/protocol.md §4, which a test keeps in step: ``python -m server.config`` prints the
table).

``from_env`` is the service's start-up: it refuses a ``CARDTABLE_`` or ``EINAUGE_``
variable that names no setting and any value its field does not accept, with a
``SettingsError`` that names the variable, the value and what is allowed.
"""

from __future__ import annotations

import difflib
import ipaddress
import os
import time
from collections.abc import Mapping
from typing import Annotated, Any, Literal, get_args, get_origin
from urllib.parse import urlsplit

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from engine import GAMES
from server.logging import get_logger

PREFIX = "CARDTABLE_"
LEGACY_PREFIX = "EINAUGE_"
"""The prefix of the service's former name: still read, below ``PREFIX``, for one release."""


class Settings(BaseSettings):
    """What one server process needs to know. Units: seconds, bytes, counts.

    ``Settings(port=9000)`` in code: keyword arguments win over the environment. Raises
    ``pydantic.ValidationError`` for a value a field does not accept."""

    model_config = SettingsConfigDict(env_prefix=PREFIX, env_ignore_empty=True, frozen=True,
                                      validate_by_name=True, use_attribute_docstrings=True)

    default_game: str = "einauge"
    """the game of a table created, or a bot list asked for, without naming one (a
    registered game: `GET /api/games` lists them and says which is the default)"""
    host: str = "127.0.0.1"
    """address to listen on"""
    port: int = Field(8000, ge=0, le=65535)
    """port to listen on"""
    redis_url: str | None = Field(None, validation_alias="REDIS_URL")
    """`redis://`, `rediss://` or `unix://` URL of an external Redis, or of any node of a
    Redis Cluster (detected); unset: start the embedded redis-server
    (`CARDTABLE_REDIS_DIR`)"""
    redis_dir: str = "var/redis"
    """data directory of the embedded Redis"""
    seed_keys: str = "var/seed-keys"
    """file of the keys that seal every table's server seed in Redis (made with one new
    key when absent; every process on one Redis reads the same file; keep it out of
    Redis's backups: docs/operations.md, "Seed keys")"""
    redis_wait: int = Field(0, ge=0)
    """replicas that must hold an action (Redis `WAIT`) before it is acknowledged; set it
    to the replicas per master of a Redis with replicas (a cluster: 1), so a failover
    loses no acknowledged action; `0`: acknowledge once the master has it"""
    redis_wait_ms: int = Field(1000, gt=0)
    """milliseconds `WAIT` waits for those replicas before the action gets `unavailable`
    (the client resends it; it is stored at most once)"""
    max_frame: int = Field(16 * 1024, gt=0)
    """largest inbound websocket frame and HTTP body (bytes)"""
    rate_per_s: float = Field(10.0, gt=0)
    """inbound websocket messages per second per connection (token bucket refill)"""
    rate_burst: int = Field(20, gt=0)
    """token bucket size: messages a connection may send at once"""
    flood_close: int = Field(50, gt=0)
    """messages refused for the rate limit in a row before the socket is closed (1008)"""
    conns_per_addr: int = Field(64, gt=0)
    """open websockets per client address per process"""
    tables_per_hour: int = Field(30, ge=0)
    """tables one client address may create per hour (shared by all processes)"""
    seeks_per_hour: int = Field(60, ge=0)
    """seeks ("Play now", docs/protocol.md §7) one client address may make per hour (shared
    by all processes)"""
    invites_per_hour: int = Field(30, ge=0)
    """invitations by name (`POST /api/tables/{id}/invitations`) one account may send per
    hour (shared by all processes)"""
    follows_max: int = Field(500, gt=0)
    """accounts one account may follow"""
    inbox_poll: float = Field(0.5, gt=0)
    """seconds between two looks of a process at the inboxes of the accounts whose
    `/ws/me` socket it holds (an invitation made on another process arrives within it)"""
    seek_idle: int = Field(60, gt=0)
    """seconds a waiting seek lives without a sign of its seeker (a `GET /api/seeks/{id}`
    or an open `/ws/seeks/{id}` socket); then it is `expired`"""
    seek_scan: float = Field(1.0, gt=0)
    """seconds between a process's pairing passes over every game's seek pool (a new seek
    starts a pass on its process at once)"""
    seek_poll: float = Field(0.25, gt=0)
    """seconds between the reads of a seek that a `/ws/seeks/{id}` socket waits on (a
    pairing by this process is told at once; one by another process within this)"""
    seek_grace: float = Field(10.0, gt=0)
    """seconds after which any process finishes a pairing whose table its claiming process
    did not start (that process died mid-pairing)"""
    seek_window: float = Field(100.0, ge=0)
    """rating points two rated seeks may differ by at once"""
    seek_window_growth: float = Field(10.0, ge=0)
    """rating points a rated seek's window widens by per second of waiting"""
    seek_window_max: float = Field(1000.0, ge=0)
    """the widest a rated seek's window gets (rating points)"""
    seek_finish_pause: float = Field(0.0, ge=0)
    """tests only: seconds a process waits between claiming a pairing and creating its
    table (so a test can kill it there); 0: none"""
    allowed_origins: Annotated[tuple[str, ...], NoDecode] = ()
    """comma-separated extra websocket `Origin` values allowed (`*`: any); the page's own
    host and a missing `Origin` (non-browser clients) are always allowed"""
    bot_delay: float = Field(0.6, ge=0)
    """seconds a bot thinks before it acts (so people can follow a bot's turn)"""
    bot_workers: int = Field(2, ge=0)
    """processes in which `greedy`/`mcts` bots search (started on the first search); `0`:
    a thread of the server process (holds the GIL while it searches)"""
    bot_search_timeout: float = Field(30.0, gt=0)
    """seconds the search workers may finish nothing while searches (or replays) wait
    (far beyond the slowest level's search on a busy machine) before they count as hung:
    they are killed and the searches made again on fresh ones (a hung worker would stall
    its tables for good, their bot leases renewed all the same); each pool in a row ended
    so gets twice as long (at most 32×), back to this once a search finishes"""
    idle_expiry: int = Field(3600, gt=0)
    """seconds an unstarted table lives without a lobby change; ended tables never expire
    (they are archived: `CARDTABLE_ARCHIVE_AFTER`)"""
    empty_table_expiry: int = Field(300, gt=0)
    """seconds an unstarted table that nobody sits at lives without a lobby change: then it
    leaves the lobby list and closes (once a seat is taken, `CARDTABLE_IDLE_EXPIRY`)"""
    archive_after: float = Field(60.0, ge=0)
    """seconds a finished game keeps its event list once no socket or bot of a process
    watches it, before that process stores it as its archive (compressed actions, rebuilt
    by replay on demand: docs/protocol.md §3)"""
    keep_finished_days: int = Field(0, ge=0)
    """days a finished game stays in Redis after its end before `cardtable prune` exports
    its record (`--export DIR`) and deletes it (docs/operations.md, "Retention"); `0`:
    forever (prune deletes nothing)"""
    hello_timeout: float = Field(10.0, gt=0)
    """seconds a new socket has to send `hello`"""
    outbox_limit: int = Field(4096, gt=0)
    """frames queued for one slow socket before it is closed (it reconnects with
    `last_seq`)"""
    recent_deltas: int = Field(32, ge=0)
    """encoded deltas (one per append: an action's events) kept per table for reconnects
    (older ones are rebuilt by replay)"""
    presence_interval: float = Field(1.0, gt=0)
    """seconds between two ticks of a process's presence timer: a changed spectator count
    is shown at the next tick, and each table's claims are renewed in one tick of every
    `CARDTABLE_PRESENCE_TTL` less two ticks (§5)"""
    presence_ttl: float = Field(5.0, gt=0)
    """seconds a process's presence claim lasts without a renewal (a dead process's
    sockets count as gone after at most this); renewed every this less two
    `CARDTABLE_PRESENCE_INTERVAL`s (3 s by default; at least one interval). Was `3.0`,
    renewed every second"""
    presence_grace: float = Field(2.0, ge=0)
    """seconds without a socket before a seat shows as away (a reload is no absence)"""
    bot_lease: float = Field(5.0, gt=0)
    """seconds a process's lease on driving one table's bots lasts (renewed every third
    of it): one process per table runs its bots; when it dies, another takes them over
    within about this long"""
    deadline_scan: float = Field(0.2, gt=0)
    """seconds between a process's scans of the deadline index"""
    tournament_scan: float = Field(0.5, gt=0)
    """seconds between a process's passes over the running tournaments (results, next
    rounds, live standings)"""
    tournaments_per_account: int = Field(3, ge=0)
    """scheduled or running tournaments one account may have created at once"""
    timeouts_to_bot: int = Field(3, gt=0)
    """timeouts of a seat in a row after which a bot plays it for the rest of the game"""
    replacement_bot: Literal["random", "greedy", "mcts"] = "greedy"
    """the bot that makes a timed-out move (decided at once: `mcts` decides it as
    `greedy`) and plays a seat taken over (timeout, claim, resignation)"""
    clock_file: str = ""
    """tests only: a file holding seconds added to the system clock, or `@<ms>` for a
    stopped clock (read on change), so that tests move every process's clock without
    sleeping; empty: the system clock"""
    redis_timeout: float = Field(2.0, gt=0)
    """seconds one Redis call may take in all (pool wait, retries, reply); then it fails:
    `unavailable` / 503"""
    trusted_proxies: Annotated[tuple[str, ...], NoDecode] = ()
    """comma-separated IP addresses or networks (`*`: any) of the reverse proxies in front:
    from a listed source, the client's address (which every per-address limit counts) is
    the right-most `X-Forwarded-For` entry that is not a listed proxy (`*`: the left-most)
    and the scheme is `X-Forwarded-Proto`'s; from any other source both headers are
    ignored and the connecting address counts; none: a process trusts no source.
    `cardtable balance` keeps these headers only from these sources (HAProxy removes them
    from any other, then appends the connecting address) and its processes also trust the
    balancer's own address, `127.0.0.1` (docs/protocol.md §6)"""
    metrics_from: Annotated[tuple[str, ...], NoDecode] = ("127.0.0.0/8", "::1")
    """comma-separated IP addresses or networks (`*`: any) whose requests `GET /metrics`
    answers; any other client address (the one the per-address limits count: behind a
    proxy, the forwarded one) gets 403 `forbidden`"""
    replay_rate_per_s: float = Field(2.0, gt=0)
    """replay requests (`POST /api/replay`, `GET …/deltas`) per second per address"""
    replay_burst: int = Field(10, gt=0)
    """replay requests one address may make at once (token bucket size)"""
    analyses_per_hour: int = Field(30, ge=0)
    """post-game analysis requests (`GET /api/tables/{id}/analysis`) per hour per client
    address, and as many per account (shared by all processes)"""
    branches_per_hour: int = Field(30, ge=0)
    """branch requests (`POST /api/tables/{id}/branch`: play on from a replay position)
    per hour per client address, and as many per account (shared by all processes)"""
    analysis_budget_ms: float = Field(50.0, gt=0)
    """search budget per decision of a post-game analysis, in ms of the engine's work
    estimate (docs/bots.md, "Post-game analysis")"""
    chat_history: int = Field(100, gt=0)
    """chat messages kept per table and chat channel (players, spectators)"""
    chat_burst: int = Field(5, gt=0)
    """chat messages one sender may send at once, then one per `CARDTABLE_CHAT_REFILL`"""
    chat_refill: float = Field(3.0, gt=0)
    """seconds a chat sender waits for each further message after its burst"""
    static_dir: str = "client-web/dist"
    """the built web client"""
    backlog: int = Field(4096, gt=0)
    """listen backlog"""
    log_level: Literal["critical", "error", "warning", "info", "debug", "trace"] = "info"
    """log level of the service and uvicorn"""
    log_json: bool = False
    """JSON log lines, the service's and uvicorn's alike (one object per line; every line
    names its process: `pid`, `process`; docs/operations.md, "Logs")"""
    session_ttl: int = Field(30 * 86400, gt=0)
    """seconds a login session lives (cookie and Redis)"""
    signups_per_hour: int = Field(10, ge=0)
    """accounts one client address may create per hour (shared by all processes)"""
    api_tokens_per_hour: int = Field(10, ge=0)
    """personal API tokens one account may create per hour (shared by all processes)"""
    api_tokens_max: int = Field(20, ge=0)
    """personal API tokens one account may hold at once (revoke one to make another)"""
    passkey_logins_per_hour: int = Field(60, ge=0)
    """passkey login ceremonies one client address may begin per hour (each stores a
    challenge in Redis for 5 minutes)"""
    login_window: int = Field(900, gt=0)
    """seconds over which failed logins are counted"""
    login_failures_per_account: int = Field(5, gt=0)
    """failed logins of one account in the window before its logins are refused (429)"""
    login_failures_per_address: int = Field(20, gt=0)
    """failed logins from one client address in the window before its logins are refused"""
    public_url: str = "http://localhost:8000"
    """the service's address as players reach it (links in e-mails); left on loopback
    while `CARDTABLE_HOST` is not, the service warns at start (`public_url_is_local`)"""
    smtp_host: str | None = None
    """SMTP server for notification e-mails; unset: no e-mail is ever sent"""
    smtp_port: int = Field(25, ge=1, le=65535)
    """port of the SMTP server"""
    smtp_security: Literal["none", "starttls", "tls"] = "none"
    """`starttls` (usually port 587), `tls` (implicit TLS, usually 465) or `none`"""
    smtp_username: str | None = None
    """SMTP login (unset: no authentication)"""
    smtp_password: str | None = None
    """SMTP password"""
    smtp_from: str = "Cardtable <noreply@localhost>"
    """the `From` of notification e-mails"""
    smtp_timeout: float = Field(10.0, gt=0)
    """seconds an SMTP exchange may take"""
    email_verify_ttl: int = Field(86400, gt=0)
    """seconds an e-mail confirmation link stays valid"""
    turn_mail_period: int = Field(3600, gt=0)
    """seconds: at most one "your turn" mail per table and seat in this time"""
    password_reset_ttl: int = Field(3600, gt=0)
    """seconds a password reset link stays valid (it works once)"""
    password_resets_per_hour: int = Field(5, ge=0)
    """password reset requests one client address may make per hour"""
    password_reset_period: int = Field(900, gt=0)
    """seconds: at most one password reset mail per account in this time"""

    @classmethod
    def settings_customise_sources(
            cls, settings_cls: type[BaseSettings], init_settings: PydanticBaseSettingsSource,
            env_settings: PydanticBaseSettingsSource, dotenv_settings: PydanticBaseSettingsSource,
            file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Keyword arguments, then ``CARDTABLE_*``, then the former ``EINAUGE_*`` names:
        an earlier source wins for a field both give."""
        legacy = EnvSettingsSource(settings_cls, env_prefix=LEGACY_PREFIX)
        return init_settings, env_settings, legacy, dotenv_settings, file_secret_settings

    @field_validator("default_game")
    @classmethod
    def _registered_game(cls, value: str) -> str:
        if value not in GAMES:
            raise ValueError(f"no game {value!r}; known: {', '.join(GAMES)}")
        return value

    @field_validator("allowed_origins", "trusted_proxies", "metrics_from", mode="before")
    @classmethod
    def _split_commas(cls, value: Any) -> Any:
        if isinstance(value, str):
            return tuple(s.strip() for s in value.split(",") if s.strip())
        return value

    @field_validator("metrics_from")
    @classmethod
    def _networks(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for entry in value:
            if entry != "*":
                try:
                    ipaddress.ip_network(entry, strict=False)
                except ValueError:
                    raise ValueError(f"{entry!r} is no IP address or network, nor *") from None
        return value

    def now_ms(self) -> int:
        """The service's clock: milliseconds since the epoch (plus ``clock_file``'s
        offset when set; ``@<ms>`` in the file stops the clock at that time)."""
        offset, frozen = _offset(self.clock_file)
        return frozen if frozen is not None else int((time.time() + offset) * 1000)

    def replace(self, **changes: object) -> Settings:
        """A validated copy with ``changes`` applied (``None`` values are ignored)."""
        given = {k: v for k, v in changes.items() if v is not None}
        return type(self)(**{**self.model_dump(), **given})


_OFFSETS: dict[str, tuple[int, tuple[float, int | None]]] = {}


def _offset(path: str) -> tuple[float, int | None]:
    """``(seconds to add, None)`` from ``path``, or ``(0, ms)`` for a stopped clock
    (``@<ms>``); ``(0, None)`` when unset, missing or not a number. Re-read when the
    file's mtime changes."""
    if not path:
        return 0.0, None
    try:
        mtime = os.stat(path).st_mtime_ns
    except OSError:
        return 0.0, None
    cached = _OFFSETS.get(path)
    if cached is not None and cached[0] == mtime:
        return cached[1]
    try:
        with open(path) as f:
            text = f.read().strip()
        value: tuple[float, int | None] = ((0.0, int(text[1:])) if text.startswith("@")
                                           else (float(text or 0), None))
    except (OSError, ValueError):
        value = 0.0, None
    _OFFSETS[path] = (mtime, value)
    return value



class SettingsError(ValueError):
    """A setting the service cannot start with; the message names it, its value and what
    is allowed."""


def env_name(field: str) -> str:
    """The environment variable of ``field`` (``REDIS_URL`` or ``CARDTABLE_<FIELD>``)."""
    alias = Settings.model_fields[field].validation_alias
    return alias if isinstance(alias, str) else PREFIX + field.upper()


def from_env(**overrides: object) -> Settings:
    """Settings from ``os.environ``, then ``overrides`` (CLI flags; ``None`` means not
    given). Raises ``SettingsError`` (see the module docstring)."""
    check_names(os.environ)
    given = {k: v for k, v in overrides.items() if v is not None}
    try:
        return Settings(**given)
    except ValidationError as e:
        raise SettingsError(_explain(e, given)) from None


def legacy_env_name(field: str) -> str | None:
    """The former variable of ``field`` (``EINAUGE_<FIELD>``; ``None`` for ``REDIS_URL``)."""
    alias = Settings.model_fields[field].validation_alias
    return None if isinstance(alias, str) else LEGACY_PREFIX + field.upper()


def check_names(env: Mapping[str, str]) -> None:
    """Raise ``SettingsError`` if ``env`` has a ``CARDTABLE_`` or ``EINAUGE_`` variable that
    is no setting (a typo would otherwise be ignored without a word)."""
    known = {env_name(f) for f in Settings.model_fields}
    legacy = {legacy_env_name(f) for f in Settings.model_fields} - {None}
    unknown = sorted(k for k in env
                     if (k.upper().startswith(PREFIX) and k.upper() not in known)
                     or (k.upper().startswith(LEGACY_PREFIX) and k.upper() not in legacy))
    if unknown:
        named = [k + "".join(f" (did you mean {m[0]}?)" for m in [_likely(k.upper(), known)] if m)
                 for k in unknown]
        raise SettingsError(
            f"unknown setting{'s' if len(unknown) > 1 else ''} {', '.join(named)}; "
            f"known: {', '.join(sorted(known))} (docs/protocol.md §4)")


def _likely(name: str, known: set[str]) -> list[str]:
    """The known variable ``name`` most likely meant: ``REDIS_URL`` for
    ``CARDTABLE_REDIS_URL`` (the one setting without the prefix), else the closest."""
    bare = name.removeprefix(PREFIX).removeprefix(LEGACY_PREFIX)
    return [bare] if bare in known else difflib.get_close_matches(name, known, n=1)


def legacy_notes(env: Mapping[str, str]) -> list[str]:
    """One line per former ``EINAUGE_*`` variable set in ``env``, naming the
    ``CARDTABLE_*`` one to use instead (and, when both are set, that the new one wins)."""
    upper = {k.upper() for k in env}
    notes = []
    for field in Settings.model_fields:
        old = legacy_env_name(field)
        if old is None or old not in upper:
            continue
        new = env_name(field)
        notes.append(f"{old} is {new} now (the old name works for one release)"
                     + (f"; both are set: {new} wins, {old} is ignored" if new in upper else ""))
    return notes


def warn_legacy(env: Mapping[str, str] | None = None) -> None:
    """Log a warning (structlog, ``component=config``) for each former ``EINAUGE_*``
    variable in ``env`` (default ``os.environ``): the service's start-up calls it once its
    logging is configured."""
    log = get_logger("config")
    for note in legacy_notes(os.environ if env is None else env):
        log.warning("renamed_setting", detail=note)


def loopback(host: str) -> bool:
    """True for a loopback address or ``localhost`` (a name or address of this machine
    alone)."""
    name = host.strip("[]").lower()
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def public_url_note(settings: Settings) -> str | None:
    """A warning when the service listens beyond loopback while its public URL (the links
    in its mails) names this machine's loopback: players elsewhere could not open them."""
    host = urlsplit(settings.public_url).hostname or ""
    if loopback(settings.host) or not loopback(host):
        return None
    return (f"CARDTABLE_PUBLIC_URL is {settings.public_url} while the service listens on "
            f"{settings.host}: links in mails will not reach players on other machines; "
            "set CARDTABLE_PUBLIC_URL to the address players use")


def warn_public_url(settings: Settings) -> None:
    """Log ``public_url_note`` as a warning (``component=config``), if there is one."""
    note = public_url_note(settings)
    if note is not None:
        get_logger("config").warning("public_url_is_local", detail=note)


_KINDS = {str: "text", int: "integer", float: "number", bool: "boolean"}


def _kind(annotation: Any) -> str:
    if get_origin(annotation) is tuple:
        return "comma-separated list"
    if get_origin(annotation) is Literal:
        return " or ".join(f"`{a}`" for a in get_args(annotation))
    optional = [a for a in get_args(annotation) if a is not type(None)]
    if optional:
        return _kind(optional[0])
    return _KINDS[annotation]


def _shown(default: Any) -> str:
    if default == ():
        return "(none)"
    if isinstance(default, tuple):
        return f"`{','.join(default)}`"
    return f"`{str(default).lower() if isinstance(default, bool) else default}`"


_ALLOWED_BOOLS = "true/false, 1/0, yes/no, on/off"


def _explain(error: ValidationError, overrides: Mapping[str, object]) -> str:
    lines = []
    for err in error.errors():
        field = str(err["loc"][0]) if err["loc"] else ""
        if field == "REDIS_URL":
            field = "redis_url"
        name = f"--{field.replace('_', '-')}" if field in overrides else env_name(field)
        if field not in overrides and name not in os.environ and field in Settings.model_fields:
            name = legacy_env_name(field) or name  # the value came from the former name
        msg = err["msg"]
        if err["type"] == "bool_parsing":
            msg = f"expected a boolean ({_ALLOWED_BOOLS})"
        lines.append(f"{name}={err['input']!r}: {msg}")
    return "; ".join(lines)


def markdown_table() -> str:
    """docs/protocol.md §4's settings table: variable, type, default, meaning."""
    rows = ["| variable | type | default | meaning |", "|---|---|---|---|"]
    for field, info in Settings.model_fields.items():
        kind = _kind(info.annotation)
        default = "(embedded)" if field == "redis_url" else _shown(info.default)
        meaning = " ".join((info.description or "").split())
        rows.append(f"| `{env_name(field)}` | {kind} | {default} | {meaning} |")
    return "\n".join(rows) + "\n"


__all__ = ["LEGACY_PREFIX", "PREFIX", "Settings", "SettingsError", "check_names", "env_name",
           "from_env", "legacy_env_name", "legacy_notes", "loopback", "markdown_table",
           "public_url_note", "warn_legacy", "warn_public_url"]

if __name__ == "__main__":
    print(markdown_table(), end="")
