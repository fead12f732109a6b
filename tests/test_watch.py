"""tests/watch.py: which log entries count as errors, that each check reads only the
log written since the last one, and that an exit nobody asked for is told once."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

from tests import watch
from tests.conftest import ServerProcess

LOG = """\
einauge serve: http://localhost:1234
2026-12-04T20:30:03.788606Z [warning  ] slow                           component=x seq=3
2026-12-04T20:30:03.788750Z [error    ] action failed                  component=x seat=1
Traceback (most recent call last):
  File "<stdin>", line 6, in <module>
ZeroDivisionError: division by zero
INFO:     Started server process [12]
ERROR:    Exception in ASGI application
{"event": "delivery failed", "level": "error", "component": "fanout"}
{"event": "fine", "level": "info"}
Task exception was never retrieved
future: <Task finished name='Task-9' coro=<f() done>>
Traceback (most recent call last):
ValueError: x
2026-12-04T20:30:04.000000Z [critical ] out of memory
"""


def test_the_entries_that_show_an_error() -> None:
    errors = watch.error_entries(LOG)
    assert [e.partition("\n")[0] for e in errors] == [
        "2026-12-04T20:30:03.788750Z [error    ] action failed                  component=x seat=1",
        "ERROR:    Exception in ASGI application",
        '{"event": "delivery failed", "level": "error", "component": "fanout"}',
        '{"event": "fine", "level": "info"}',  # with the stray lines and traceback under it
        "2026-12-04T20:30:04.000000Z [critical ] out of memory"]
    assert "ZeroDivisionError" in errors[0] and "[error    ] action failed" in errors[0]
    assert errors[3].endswith("Task exception was never retrieved\nfuture: <Task finished "
                              "name='Task-9' coro=<f() done>>\nTraceback (most recent call "
                              "last):\nValueError: x")
    assert not watch.error_entries("einauge serve: embedded Redis at redis://x\n"
                                   "2026-12-04T20:30:03Z [warning  ] slow\nINFO:     up\n")


def test_declared_patterns_expect_errors() -> None:
    errors = watch.error_entries(LOG)
    left = watch.unexpected(errors, [re.compile("ZeroDivisionError"), re.compile("ASGI")])
    assert len(left) == len(errors) - 2


def test_each_check_reads_what_came_since_the_last(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    log.write_text("2026-12-04T20:30:03Z [error    ] before this run\n")
    server = SimpleNamespace(proc=None, url="http://127.0.0.1:1")
    w = watch.ServerWatch(server)
    w.started(log)  # what the file held is an earlier run's
    assert w.check([], []) == []
    with log.open("a") as f:
        f.write("2026-12-04T20:30:04Z [error    ] during the test\n"
                "2026-12-04T20:30:05Z [error    ] half writ")  # no newline yet
    (problem,) = w.check([], [])
    assert "during the test" in problem and "before this run" not in problem.split("---")[0]
    assert "half writ" not in problem.split("---")[0]
    with log.open("a") as f:
        f.write("ten\n")
    (problem,) = w.check([], [])
    assert "half written" in problem.split("---")[0]
    assert w.check([], []) == [] and w.done()


def test_a_stop_that_went_wrong_is_told() -> None:
    w = watch.ServerWatch(SimpleNamespace(proc=None, url="http://127.0.0.1:1"))
    proc = object()
    w.stopped(proc, 0, killed_after_timeout=False)
    w.stopped(proc, -signal.SIGTERM, killed_after_timeout=False)
    assert w.check([], []) == []
    w.stopped(proc, 1, killed_after_timeout=False)
    w.stopped(proc, -signal.SIGKILL, killed_after_timeout=True)
    (problem,) = w.check([], [])
    assert "exited with code 1 when stopped" in problem and "did not exit in time" in problem
    assert w.check([], []) == []


def test_an_exit_nobody_asked_for_is_told_once(redis_url: str) -> None:
    s = ServerProcess(redis_url).start()
    assert s.proc is not None
    try:
        assert s.watcher.check([], []) == []
        os.kill(s.proc.pid, signal.SIGKILL)
        s.proc.wait(30)
        (problem,) = s.watcher.check([], [])
        assert f"server {s.url} exited with code -9 while nobody stopped it" in problem
        assert "--- tail of its log" in problem and "cardtable serve:" in problem
        assert s.watcher.check([], []) == []  # told once
    finally:
        s.kill()
    assert s.watcher.done()


def test_an_exit_before_the_test_stops_the_server_is_told(redis_url: str) -> None:
    s = ServerProcess(redis_url).start()
    assert s.proc is not None
    os.kill(s.proc.pid, signal.SIGKILL)
    s.proc.wait(30)
    assert s.stop() == -signal.SIGKILL
    (problem,) = s.watcher.check([], [])
    assert "exited with code -9 before the test stopped or killed it" in problem
    assert "when stopped" not in problem
    assert s.watcher.check([], []) == [] and s.watcher.done()


def test_a_kill_or_stop_by_the_test_is_no_problem(redis_url: str) -> None:
    s = ServerProcess(redis_url).start()
    s.kill()
    assert s.watcher.check([], []) == [] and s.watcher.done()
    s.start()
    assert s.stop() == 0
    assert s.watcher.check([], []) == [] and s.watcher.done()


def test_browser_errors_are_told_unless_expected() -> None:
    pages = watch.PageWatch(always_ok=[re.compile(r"/api/me:")])
    pages.errors += ["console.error: Failed to load resource (at http://h/api/me:0)",
                     "pageerror: boom", "console.error: expected (at http://h/x:1)"]
    (problem,) = pages.check([], [re.compile("^console.error: expected")])
    assert "1 error(s)" in problem and "pageerror: boom" in problem
    assert pages.check([], []) == []


def test_the_module_imports_nothing_of_the_server() -> None:
    code = "import sys, tests.watch; print(any(m.split('.')[0] == 'server' for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=Path(__file__).resolve().parent.parent)
    assert out.stdout.strip() == "False"
