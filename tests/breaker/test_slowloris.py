"""Finding 5: an HTTP connection that never finishes its request headers is kept open
for ever (uvicorn has no header timeout; ``cardtable serve`` sets no
``limit_concurrency`` and there is no per-address cap on HTTP connections, only on
websockets). A single client trickling header lines holds file descriptors without
bound (the service raises its soft limit to the hard one, 20,000 here) until accept()
fails for everyone."""

from __future__ import annotations

import socket
import time

HEADER_DEADLINE = 10.0
"""Seconds a reasonable server gives a client to send its request headers (nginx's
``client_header_timeout`` defaults to 60 s; 10 s keeps the test short)."""


def _still_open(s: socket.socket) -> bool:
    s.settimeout(0.2)
    try:
        return s.recv(1) != b""  # data would be an answer: the request was not complete
    except TimeoutError:
        return True  # nothing to read and not closed
    except OSError:
        return False


def test_half_sent_requests_are_dropped(server):
    port = int(server.url.rsplit(":", 1)[1])
    conns = []
    try:
        for _ in range(20):
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")  # no blank line: unfinished
            conns.append(s)
        time.sleep(HEADER_DEADLINE + 2)
        for s in conns:  # one more header line each: a slowloris keeps trickling
            s.sendall(b"X-Still: here\r\n")
        time.sleep(0.5)
        alive = sum(_still_open(s) for s in conns)
    finally:
        for s in conns:
            s.close()
    assert alive == 0, f"{alive} of 20 unfinished requests still open after " \
                       f"{HEADER_DEADLINE + 2:.0f} s"
