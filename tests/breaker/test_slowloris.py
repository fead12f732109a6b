"""Finding 5: an HTTP connection that never finishes its request headers is kept open
for ever (uvicorn has no header timeout; ``cardtable serve`` sets no
``limit_concurrency`` and there is no per-address cap on HTTP connections, only on
websockets). A single client trickling header lines holds file descriptors without
bound (the service raises its soft limit to the hard one, 20,000 here) until accept()
fails for everyone."""

from __future__ import annotations

import select
import socket
import time

HEADER_DEADLINE = 10.0
"""Seconds the server gives a client to send its request headers
(server/http/header_deadline.py; nginx's ``client_header_timeout`` defaults to 60 s)."""
CONNS = 20


def test_half_sent_requests_are_dropped(server):
    port = int(server.url.rsplit(":", 1)[1])
    conns: dict[socket.socket, float] = {}  # each connection and when it was opened
    closed: dict[socket.socket, float] = {}  # each connection the server closed, and when
    answered = []
    try:
        for _ in range(CONNS):
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")  # no blank line: unfinished
            conns[s] = time.monotonic()
        give_up = time.monotonic() + HEADER_DEADLINE + 5
        while len(closed) < CONNS and time.monotonic() < give_up:
            open_ = [s for s in conns if s not in closed]
            # Woken by a close (readable), else once a second to trickle one more header
            # line into each: a slowloris keeps its requests alive that way.
            readable, _, _ = select.select(open_, [], [], 1.0)
            for s in readable:
                try:
                    data = s.recv(1)
                except OSError:
                    data = b""
                if data:
                    answered.append(data)  # an answer: the request was taken as complete
                closed[s] = time.monotonic()
            for s in open_:
                if s not in closed:
                    try:
                        s.sendall(b"X-Still: here\r\n")
                    except OSError:
                        closed[s] = time.monotonic()
    finally:
        for s in conns:
            s.close()
    # Every unfinished request is dropped without an answer at its deadline: not before
    # it (the trickled lines do not count as progress, nor do they end it early).
    assert (len(closed), answered) == (CONNS, []), (
        f"{CONNS - len(closed)} of {CONNS} unfinished requests still open after "
        f"{HEADER_DEADLINE + 5:.0f} s; answers: {answered}")
    after = sorted(closed[s] - conns[s] for s in conns)
    assert after[0] >= HEADER_DEADLINE - 0.5 and after[-1] <= HEADER_DEADLINE + 5, after
