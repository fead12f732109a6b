"""Bad input (issue 7): hypothesis fuzzing of the websocket endpoint and every HTTP endpoint.

Inputs: random bytes and text, truncated msgpack of valid messages, deeply nested msgpack,
wrong types, huge numbers, long strings (past the 16 KiB frame limit), unknown fields,
actions for another seat, and replayed action ids. Expected for each: one clear error
frame (``t: error`` with a code and a message), a ``welcome`` for a valid ``sync``, the
original ``ack`` for a replayed id, or a close with a protocol code (1003, 1008, 1009);
for HTTP a 4xx with a clear body, never a 5xx. Never a state change (the tables' summary,
view and events are the same before and after), never an unhandled exception in the
server's log, and the other clients of the table see nothing until the next real action.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from protocol.connection import ConnectionClosed, SyncClientConnection, close_code, dial_sync
from protocol.frames import pack, unpack
from tests.trust.wire import crashes

WS_EXAMPLES = 800
HTTP_EXAMPLES = 400
CLOSE_CODES = {1003, 1008, 1009}
CARDS = ["blue-2", "red-5", "ship-1", "gray-8", "nope", ""]
COUNTS: Counter[str] = Counter()

# Hypothesis flags the websockets/httpx clients' own use of `random` while it generates
# inputs; the inputs themselves come only from the strategies.
pytestmark = pytest.mark.filterwarnings(
    "ignore::hypothesis.errors.HypothesisDeprecationWarning")


PUSHED = ("presence", "clock")
"""Messages the server sends of its own accord (docs/protocol.md §5: whenever a seat's
presence or the clock changes), so they may arrive between a fuzzed frame and its answer."""


class Sock:
    """A synchronous websocket client that reconnects after a close."""

    def __init__(self, url: str, token: str | None, binary: bool = True) -> None:
        self.url, self.token, self.binary = url, token, binary
        self.ws: SyncClientConnection | None = None
        self.frames: list[dict[str, Any]] = []
        self.early: list[dict[str, Any]] = []
        self.pushed: list[dict[str, Any]] = []

    def open(self) -> Sock:
        # max_queue=None: the connection's thread reads on while the test does not (a
        # socket left idle while others are fuzzed): with the default high-water mark of
        # 16 frames, the server's presence frames filled it, reading stopped, the pong of
        # the keepalive ping was never read, and the socket closed itself (1011, 1006).
        self.ws = dial_sync(self.url, max_size=2**22, open_timeout=5, max_queue=None)
        self.early = []  # frames of an earlier connection are gone with it
        self.send({"t": "hello", "token": self.token, "last_seq": None})
        first = self.recv()
        assert first["t"] == "welcome", first
        # The chat history follows every hello's welcome (after the prompt, if any): take
        # it here; what came before it is handed out by the next recv calls.
        early = []
        while (frame := self.recv())["t"] != "chat_history":
            early.append(frame)
        self.early = early
        return self

    def send(self, msg: Any) -> None:
        assert self.ws is not None
        self.ws.send(pack(msg) if self.binary else json.dumps(msg))

    def recv(self, timeout: float = 10) -> dict[str, Any]:
        assert self.ws is not None
        if self.early:
            return self.early.pop(0)
        frame = unpack(self.ws.recv(timeout=timeout))
        self.frames.append(frame)
        return frame

    def drain(self, timeout: float = 0.05) -> list[dict[str, Any]]:
        """Frames that arrive within ``timeout`` (prompts after a welcome, …)."""
        out = []
        while True:
            try:
                out.append(self.recv(timeout))
            except TimeoutError:
                return out

    def answer(self, data: bytes | str) -> tuple[str, Any]:
        """Send raw ``data``; returns ("frame", frame) or ("close", code)."""
        assert self.ws is not None
        try:
            self.ws.send(data)
            while True:
                frame = self.recv()
                if frame.get("t") not in PUSHED:
                    return "frame", frame
                self.pushed.append(frame)  # the server's own news, not an answer to data
        except ConnectionClosed as e:
            self.open()
            return "close", close_code(e)


@pytest.fixture(scope="module")
def fuzz_table(logged_server) -> dict[str, Any]:
    """A running 2-seat table where seat 0 has played one action (id ``real-1``) and it is
    seat 0's turn or later; plus an open table whose 2 seats are taken."""
    http = httpx.Client(base_url=logged_server.url, timeout=10)
    summary = http.post("/api/tables", json={"seats": 2, "options": {}}).json()
    tid = summary["id"]
    tokens = [http.post(f"/api/tables/{tid}/join", json={"name": n}).json()["token"]
              for n in ("Anna", "Ben")]
    assert http.post(f"/api/tables/{tid}/start",
                     headers={"Authorization": f"Bearer {summary['owner_token']}"}
                     ).status_code == 200
    url = f"{logged_server.ws_url}/ws/tables/{tid}"
    seat0 = Sock(url, tokens[0]).open()
    prompt = seat0.recv()
    assert prompt["t"] == "prompt"
    seat0.send({"t": "action", "id": "real-1", "action": prompt["legal_actions"][0]})
    ack = next(f for f in iter(seat0.recv, None) if f["t"] == "ack")
    seat0.drain(0.3)
    open_table = http.post("/api/tables", json={"seats": 2, "options": {}}).json()
    for n in ("Cem", "Dora"):
        http.post(f"/api/tables/{open_table['id']}/join", json={"name": n})
    return {"id": tid, "tokens": tokens, "url": url, "seat0": seat0, "ack": ack,
            "first_action": prompt["legal_actions"][0],
            "open": open_table["id"], "http": http}


def state_of(http: httpx.Client, *table_ids: str) -> list[bytes]:
    out = []
    for tid in table_ids:
        for path in ("", "/view", "/events"):
            r = http.get(f"/api/tables/{tid}{path}")
            assert r.status_code == 200, r.text
            out.append(r.content)
    return out


# ---- inputs ---------------------------------------------------------------------------

huge = st.one_of(st.integers(min_value=-(2**63), max_value=2**64 - 1),
                 st.integers(min_value=10**20, max_value=10**40).map(str),
                 st.floats(allow_nan=True, allow_infinity=True))
scalars = st.one_of(st.none(), st.booleans(), huge, st.text(max_size=40),
                    st.sampled_from([*CARDS, "buy", "fight", "pass", "place", "sell_jewel",
                                     "alone", "blue"]))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=10), inner, max_size=5)),
    max_leaves=20)
action_bodies = st.one_of(
    st.fixed_dictionaries({"type": st.sampled_from(["buy", "fight", "place", "sell_card",
                                                    "sell_jewel", "pass", "bogus"])},
                          optional={"seat": st.one_of(st.sampled_from([0, 1, 2, -1]), huge),
                                    "card": st.one_of(st.sampled_from(CARDS), values),
                                    "row": st.one_of(st.sampled_from(["alone", "blue"]),
                                                     values),
                                    "extra": values}),
    st.dictionaries(st.text(max_size=8), values, max_size=6))
messages = st.one_of(
    st.fixed_dictionaries({"t": st.just("action"), "id": st.text(min_size=1, max_size=70),
                           "action": action_bodies}),
    st.fixed_dictionaries({"t": st.sampled_from(["action", "hello", "sync", "nope"])},
                          optional={"id": values, "action": values, "token": values,
                                    "last_seq": values, "unknown": values}),
    st.dictionaries(st.text(max_size=10), values, max_size=6),
    values)


plausible = st.fixed_dictionaries(
    {"t": st.just("action"), "id": st.text(min_size=1, max_size=64),
     "action": st.fixed_dictionaries(
         {"type": st.sampled_from(["buy", "fight", "place", "sell_card", "sell_jewel",
                                   "pass"])},
         optional={"seat": st.sampled_from([0, 1]), "card": st.sampled_from(CARDS[:4]),
                   "row": st.sampled_from(["alone", "blue", "red"])})})


def encode(msg: Any, binary: bool) -> bytes | str | None:
    try:
        return pack(msg) if binary else json.dumps(msg)
    except (ValueError, TypeError, OverflowError):
        return None


frames = st.one_of(
    st.tuples(plausible, st.booleans()).map(lambda mb: ("plausible", encode(*mb))),
    st.binary(max_size=200).map(lambda b: ("bytes", b)),
    st.text(max_size=200).map(lambda t: ("text", t)),
    st.tuples(messages, st.booleans()).map(lambda mb: ("message", encode(*mb))),
    st.tuples(messages, st.integers(0, 50)).map(
        lambda mc: ("truncated", (pack(mc[0]) if encode(mc[0], True) else b"\x81")[:mc[1]])),
    st.integers(1, 3000).map(lambda d: ("nested", b"\x91" * d + b"\xc0")),
    st.integers(1, 3000).map(lambda d: ("nested", "[" * d + "]" * d)),
    st.integers(10_000, 40_000).map(
        lambda n: ("long", pack({"t": "action", "id": "x" * n, "action": {"type": "pass"}}))),
    st.integers(10_000, 40_000).map(lambda n: ("long", json.dumps({"t": "sync", "pad": "y" * n}))),
)


def check_answer(kind: str, answer: tuple[str, Any]) -> None:
    how, value = answer
    if how == "close":
        assert value in CLOSE_CODES, (kind, value)
        COUNTS[f"close {value}"] += 1
        return
    assert value["t"] in ("error", "welcome"), (kind, value)
    if value["t"] == "error":
        assert isinstance(value["code"], str) and value["code"]
        assert isinstance(value["message"], str) and value["message"]
        COUNTS[f"error {value['code']}"] += 1
    else:
        COUNTS["welcome (sync)"] += 1


def test_websocket_fuzz(logged_server, fuzz_table) -> None:
    http = fuzz_table["http"]
    before = state_of(http, fuzz_table["id"], fuzz_table["open"])
    seat0: Sock = fuzz_table["seat0"]
    bystander = Sock(fuzz_table["url"], None, binary=False).open()
    senders = {"seat1": Sock(fuzz_table["url"], fuzz_table["tokens"][1]).open(),
               "spectator": Sock(fuzz_table["url"], None).open(),
               "json-spectator": Sock(fuzz_table["url"], None, binary=False).open()}
    for s in senders.values():
        s.drain()
    tried = Counter()

    @settings(max_examples=WS_EXAMPLES, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(frame=frames, who=st.sampled_from(sorted(senders)))
    def one(frame: tuple[str, Any], who: str) -> None:
        kind, data = frame
        if data is None:
            return
        sender = senders[who]  # text frames to a msgpack socket and back are fair game
        answer = sender.answer(data)
        check_answer(kind, answer)
        if answer[0] == "frame" and answer[1]["t"] == "welcome":
            sender.drain()
        tried[kind] += 1

    one()
    # Replayed action ids from the seat that used one: the original ack, nothing applied,
    # whatever the action says now (legal, illegal or another seat's).
    for body in [{"type": "pass"}, {"type": "sell_jewel"}, {"type": "buy", "card": "blue-2"},
                 {"type": "place", "card": "red-5"}, {"type": "pass", "seat": 0},
                 fuzz_table["first_action"]] * 5:
        answer = seat0.answer(pack({"t": "action", "id": "real-1", "action": body}))
        assert answer == ("frame", fuzz_table["ack"]), answer
        tried["replayed id"] += 1
    after = state_of(http, fuzz_table["id"], fuzz_table["open"])
    assert after == before
    # The bystander saw nothing of the fuzz but the senders' sockets coming and going
    # (presence: the spectator count; both players online throughout).
    seen = bystander.drain(0.2)
    assert [f for f in seen if f["t"] not in PUSHED] == []
    assert {s["state"] for f in seen if f["t"] == "presence" for s in f["seats"]} <= {"online"}
    assert not crashes(logged_server.log_text())
    total = sum(tried.values())
    assert total >= WS_EXAMPLES * 0.9 + 30
    print(f"\nwebsocket fuzz: {total} inputs {dict(tried)}; answers {dict(COUNTS)}")
    # Others unaffected: a real action still goes through and everyone sees it.
    view = json.loads(before[1])
    if view["current_seat"] == 0:
        seat0.send({"t": "sync"})
        prompt = next(f for f in iter(seat0.recv, None) if f["t"] == "prompt")
        seat0.send({"t": "action", "id": "real-2", "action": prompt["legal_actions"][0]})
        assert next(f for f in iter(seat0.recv, None) if f["t"] in ("ack", "error"))["t"] == "ack"
        delta = next(f for f in iter(bystander.recv, None) if f["t"] == "deltas")
        assert delta["prev"] == view["seq"] and delta["events"][0]["seq"] == view["seq"] + 1


ENDPOINTS = [
    ("POST", "/api/tables"), ("GET", "/api/tables"), ("GET", "/api/tables/{id}"),
    ("POST", "/api/tables/{id}/join"), ("POST", "/api/tables/{id}/leave"),
    ("POST", "/api/tables/{id}/seats/{seat}/bot"), ("DELETE", "/api/tables/{id}/seats/{seat}/bot"),
    ("POST", "/api/tables/{id}/seed"), ("POST", "/api/tables/{id}/start"),
    ("POST", "/api/tables/{id}/seats/{seat}/kick"), ("PATCH", "/api/tables/{id}/options"),
    ("GET", "/api/tables/{id}/view"), ("GET", "/api/tables/{id}/events"),
    ("GET", "/api/tables/{id}/deltas"), ("POST", "/api/replay"),
    ("GET", "/api/tables/{id}/record"), ("GET", "/api/games/einauge/cards"),
    ("GET", "/api/bots"), ("GET", "/healthz"), ("GET", "/metrics"),
]

bodies = st.one_of(
    st.binary(max_size=100),
    values.map(lambda v: json.dumps(v).encode()),
    st.dictionaries(st.sampled_from(["name", "seat", "kind", "level", "player_seed", "game",
                                     "seats", "options", "players", "actions", "deck",
                                     "unknown"]), values, max_size=5).map(
        lambda d: json.dumps(d).encode()),
    st.integers(17_000, 40_000).map(lambda n: b'{"name": "' + b"z" * n + b'"}'),
    st.integers(1, 3000).map(lambda d: b"[" * d + b"]" * d),
)
path_params = st.one_of(st.just("{table}"), st.just("{open}"),
                        st.text(alphabet=st.characters(codec="ascii", categories=["L", "N"]),
                                min_size=1, max_size=30))


def test_http_fuzz(logged_server, fuzz_table) -> None:
    http = fuzz_table["http"]
    before = state_of(http, fuzz_table["id"], fuzz_table["open"])
    statuses: Counter[int] = Counter()

    # Inputs the fuzzer once found (a 40-digit ``from`` gave 503, 968-deep JSON gave 500)
    # are replayed every run.
    @example(endpoint=("GET", "/api/tables/{id}/events"), table="{table}", seat=0, body=b"",
             token=None, query={"from": "1" + "0" * 40})
    @example(endpoint=("POST", "/api/tables/{id}/join"), table="{table}", seat=0,
             body=b"[" * 968 + b"]" * 968, token=None, query={})
    @example(endpoint=("POST", "/api/replay"), table="{table}", seat=0,
             body=b'{"players": ' + b"[" * 2000 + b"]" * 2000 + b"}", token=None, query={})
    @settings(max_examples=HTTP_EXAMPLES, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(endpoint=st.sampled_from(ENDPOINTS), table=path_params,
           seat=st.one_of(st.integers(-3, 8), st.text(max_size=5).filter(bool)),
           body=bodies, token=st.one_of(st.none(), st.text(max_size=80)),
           query=st.dictionaries(st.sampled_from(["from", "status", "x"]),
                                 st.one_of(st.text(max_size=20), huge.map(str)), max_size=2))
    def one(endpoint: tuple[str, str], table: str, seat: Any, body: bytes,
            token: str | None, query: dict[str, str]) -> None:
        method, path = endpoint
        tid = {"{table}": fuzz_table["id"], "{open}": fuzz_table["open"]}.get(table, table)
        url = path.replace("{id}", quote(tid, safe="")).replace("{seat}",
                                                                 quote(str(seat), safe=""))
        headers = {"content-type": "application/json"}
        if token is not None and token.isprintable() and token.isascii():
            headers["authorization"] = f"Bearer {token}".strip()  # h11 refuses edge spaces
        r = http.request(method, url, content=body if method != "GET" else None,
                         headers=headers, params=query)
        statuses[r.status_code] += 1
        assert r.status_code < 500, (method, url, r.status_code, r.text[:200])
        if r.status_code == 201:  # a valid create: a new table, not a change of ours
            assert r.json()["status"] == "open"
        if r.status_code >= 400 and r.headers.get("content-type", "").startswith(
                "application/json"):
            err = r.json()["error"]
            assert err["code"] and err["message"]

    one()
    assert state_of(http, fuzz_table["id"], fuzz_table["open"]) == before
    assert not crashes(logged_server.log_text())
    total = sum(statuses.values())
    assert total >= HTTP_EXAMPLES * 0.8
    print(f"\nHTTP fuzz: {total} requests, statuses {dict(sorted(statuses.items()))}")
