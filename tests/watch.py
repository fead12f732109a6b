"""Watching what a test starts: the log and the exit of every server process, and the
errors of every browser page. ``tests/conftest.py`` runs ``check`` after each test's
teardown (its higher-scoped fixtures' too): what a watcher saw since the last check fails
that test, with the log's tail.

A test that expects errors says which, by regular expressions searched in each error:

- ``@pytest.mark.server_errors("regex", ...)``: a server's log entries (a log line and the
  traceback under it) that show an error and match one of them are expected;
- ``@pytest.mark.page_errors("regex", ...)``: browser errors (``pageerror: <message>`` or
  ``console.error: <text> (at <url>)``) that match one of them are expected.

Declare only what the behaviour really produces, and say why in a comment.
"""

from __future__ import annotations

import json
import re
import signal
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

SERVER_MARKER = "server_errors"
PAGE_MARKER = "page_errors"

MARKERS = (
    f"{SERVER_MARKER}(*patterns): errors (regular expressions searched in a log entry: its "
    "line and any traceback under it) the servers of this test are expected to log",
    f"{PAGE_MARKER}(*patterns): browser errors ('pageerror: <message>' or "
    "'console.error: <text> (at <url>)') this test's pages are expected to show",
)

# Where a new log entry begins: a structlog line (ISO timestamp first, or a JSON object),
# a uvicorn line ("ERROR:    …"), or a line of ``einauge serve`` itself. Any other line
# (a traceback's, a stray print) belongs to the entry above it.
_ENTRY_START = re.compile(
    r"^(\d{4}-\d\d-\d\dT\S* \[|\{|(TRACE|DEBUG|INFO|WARNING|ERROR|CRITICAL):|einauge serve:)")
# An entry at error level: structlog's console renderer (``[error    ]``) or uvicorn's.
_ERROR_ENTRY = re.compile(r"^(\S+ \[(error|critical|exception)\s*\]|(ERROR|CRITICAL):)")
_TRACEBACK = "Traceback (most recent call last)"
TAIL_CHARS = 4000
SHOWN_ERRORS = 5


def log_entries(text: str) -> list[str]:
    """``text`` (a log) cut into entries: a line that starts one and the lines under it
    (``einauge serve``'s own lines are one line each)."""
    entries: list[str] = []
    open_ = False  # the last entry takes the lines that follow it
    for line in text.splitlines():
        if open_ and not _ENTRY_START.match(line):
            entries[-1] += "\n" + line
        else:
            entries.append(line)
            open_ = not line.startswith("einauge serve:")
    return entries


def _json_level(line: str) -> str | None:
    if not line.startswith("{"):
        return None
    try:
        record = json.loads(line)
    except ValueError:
        return None
    return str(record.get("level", "")) if isinstance(record, dict) else None


def error_entries(text: str) -> list[str]:
    """The entries of the log ``text`` that show an error: a traceback anywhere in it, or
    a line at level error or critical."""
    return [e for e in log_entries(text)
            if _TRACEBACK in e or _ERROR_ENTRY.match(e)
            or _json_level(e.partition("\n")[0]) in ("error", "critical", "exception")]


def unexpected(errors: list[str], patterns: list[re.Pattern[str]]) -> list[str]:
    """The ``errors`` no pattern matches (``re.search``)."""
    return [e for e in errors if not any(p.search(e) for p in patterns)]


def _shown(errors: list[str]) -> str:
    shown = [e if len(e) <= 1500 else e[:700] + "\n[…]\n" + e[-700:]
             for e in errors[:SHOWN_ERRORS]]
    more = len(errors) - len(shown)
    return "\n".join(f"  > {e}".replace("\n", "\n    ") for e in shown) + (
        f"\n  (and {more} more)" if more > 0 else "")


class Watcher(Protocol):
    def check(self, server_ok: list[re.Pattern[str]], page_ok: list[re.Pattern[str]]
              ) -> list[str]:
        """Problems seen since the last check that the patterns do not expect."""

    def done(self) -> bool:
        """Nothing more to watch: it may be dropped from the registry."""


_lock = threading.Lock()
_watchers: list[Watcher] = []


def watch(watcher: Watcher) -> None:
    """Check ``watcher`` after every test from now on (until it is done)."""
    with _lock:
        if not any(w is watcher for w in _watchers):
            _watchers.append(watcher)


def check(server_ok: list[re.Pattern[str]], page_ok: list[re.Pattern[str]]) -> list[str]:
    """Every watcher's problems since the last check; drops the watchers that are done."""
    with _lock:
        watchers = list(_watchers)
    problems = [p for w in watchers for p in w.check(server_ok, page_ok)]
    with _lock:
        _watchers[:] = [w for w in _watchers if not w.done()]
    return problems


# ---------------------------------------------------------------- server processes


@dataclass
class ServerWatch:
    """What is known of one ``ServerProcess``: the log files its runs wrote (with how much
    of each was checked), and how its runs ended. ``server`` is duck-typed (``proc``,
    ``url``) so that this module imports nothing of the server's."""

    server: Any
    offsets: dict[Path, int] = field(default_factory=dict)
    ends: list[str] = field(default_factory=list)  # how a stop went wrong, not yet told
    exit_told: Any = None  # the exited Popen already reported

    def started(self, log_path: Path) -> None:
        """A run writes to ``log_path`` (from its current end: what is there is older)."""
        if log_path not in self.offsets:
            self.offsets[log_path] = log_path.stat().st_size if log_path.exists() else 0

    def ending(self, proc: Any) -> None:
        """The test is about to stop or kill ``proc``: had it exited already, that was an
        exit nobody asked for."""
        if proc is not self.exit_told and proc.poll() is not None:
            self.exit_told = proc
            self.ends.append(f"exited with code {proc.returncode} before the test stopped "
                             "or killed it")

    def stopped(self, proc: Any, code: int | None, killed_after_timeout: bool) -> None:
        """The test stopped ``proc`` with SIGTERM: it should end on its own, with code 0
        (unless it had exited before, which ``ending`` told)."""
        if proc is self.exit_told:
            return
        if killed_after_timeout:
            self.ends.append("did not exit in time after SIGTERM (killed)")
        elif code not in (0, -signal.SIGTERM, None):
            self.ends.append(f"exited with code {code} when stopped by SIGTERM")

    def _new_text(self) -> tuple[str, str]:
        """The log written since the last check, and the tail of the whole current log."""
        new, tail = [], ""
        for path, offset in list(self.offsets.items()):
            if not path.exists():
                continue
            with open(path, "rb") as f:
                f.seek(offset)
                data = f.read()
                self.offsets[path] = offset + len(data)
                f.seek(max(0, self.offsets[path] - TAIL_CHARS))
                tail = f.read().decode(errors="replace")
            # An entry cut in the middle of its writing: leave its end for the next check.
            if data and not data.endswith(b"\n"):
                cut = data.rfind(b"\n") + 1
                self.offsets[path] -= len(data) - cut
                data = data[:cut]
            new.append(data.decode(errors="replace"))
        return "\n".join(new), tail

    def check(self, server_ok: list[re.Pattern[str]], page_ok: list[re.Pattern[str]]
              ) -> list[str]:
        text, tail = self._new_text()
        found: list[str] = []
        errors = unexpected(error_entries(text), server_ok)
        if errors:
            found.append(f"logged {len(errors)} error(s) no test declared "
                         f"(@pytest.mark.{SERVER_MARKER}):\n{_shown(errors)}")
        proc = self.server.proc
        if proc is not None and proc is not self.exit_told and proc.poll() is not None:
            self.exit_told = proc
            found.append(f"exited with code {proc.returncode} while nobody stopped it")
        found += self.ends
        self.ends = []
        if not found:
            return []
        where = ", ".join(str(p) for p in self.offsets)
        return [f"server {self.server.url} " + "\n".join(found)
                + f"\n  --- tail of its log ({where}) ---\n{tail}"]

    def done(self) -> bool:
        return self.server.proc is None and not self.ends


# ---------------------------------------------------------------- browser pages


@dataclass
class PageWatch:
    """Errors of every page of a browser (its uncaught exceptions and console errors)."""

    always_ok: list[re.Pattern[str]] = field(default_factory=list)  # for every test
    errors: list[str] = field(default_factory=list)
    closed: bool = False

    def attach_browser(self, browser: Any) -> None:
        """Watch every context made on ``browser`` from now on, and every page in it."""
        browser.on("context", self.attach_context)
        browser.on("disconnected", lambda _b: setattr(self, "closed", True))

    def attach_context(self, ctx: Any) -> None:
        ctx.on("page", self.attach_page)
        for page in ctx.pages:
            self.attach_page(page)

    def attach_page(self, page: Any) -> None:
        if getattr(page, "_watched", False):
            return
        page._watched = True
        page.on("pageerror", lambda e: self.errors.append(
            f"pageerror: {e.message}\n{e.stack or ''}".rstrip()))
        page.on("console", lambda m: self._console(m, page))

    def _console(self, msg: Any, page: Any) -> None:
        if msg.type != "error":
            return
        loc = msg.location or {}
        at = f"{loc.get('url')}:{loc.get('lineNumber')}" if loc.get("url") else page.url
        self.errors.append(f"console.error: {msg.text} (at {at})")

    def check(self, server_ok: list[re.Pattern[str]], page_ok: list[re.Pattern[str]]
              ) -> list[str]:
        errors, self.errors = self.errors, []
        bad = unexpected(errors, [*self.always_ok, *page_ok])
        if not bad:
            return []
        return [f"the browser showed {len(bad)} error(s) no test declared "
                f"(@pytest.mark.{PAGE_MARKER}):\n{_shown(bad)}"]

    def done(self) -> bool:
        return self.closed and not self.errors
