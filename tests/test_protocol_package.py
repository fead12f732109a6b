"""The wire's client (``protocol/``) without a server: its frames, addresses, refusals and
the bytes of a library frame."""

from __future__ import annotations

import httpx
import msgpack
import pytest

from protocol import Refused, pack, unpack, unpack_light, ws_url
from protocol.connection import server_frame
from protocol.lobby import auth, expect


def test_frames_round_trip_in_both_forms() -> None:
    msg = {"t": "action", "id": "a1", "action": {"type": "pass", "cards": ["x"]}, "n": 2**40}
    assert unpack(pack(msg)) == msg
    assert unpack('{"t": "sync"}') == {"t": "sync"}
    assert pack({"b": b"\x00"}) == msgpack.packb({"b": b"\x00"}, use_bin_type=True)


def test_the_light_decoder_skips_only_the_bulky_keys() -> None:
    frame = {"t": "deltas", "seq": 7, "prev": 6, "patch": [{"op": "add"}], "view": {"a": 1},
             "events": [{"seq": 7}]}
    assert unpack_light(pack(frame)) == {"t": "deltas", "seq": 7, "prev": 6}
    assert unpack_light('{"t": "ack", "view": 1}') == {"t": "ack", "view": 1}
    with pytest.raises(msgpack.UnpackValueError):
        unpack_light(pack([1, 2]))


def test_addresses_and_headers() -> None:
    assert ws_url("http://127.0.0.1:8000/", "t1") == "ws://127.0.0.1:8000/ws/tables/t1"
    assert ws_url("https://example.org", "t1") == "wss://example.org/ws/tables/t1"
    assert ws_url("ws://127.0.0.1:8000", "t1") == "ws://127.0.0.1:8000/ws/tables/t1"
    assert auth("tok", "key") == {"Authorization": "Bearer tok", "X-Table-Key": "key"}
    assert auth() == {}


def test_an_unexpected_status_is_refused_with_the_body() -> None:
    body = {"error": {"code": "no_table", "message": "no such table"}}
    with pytest.raises(Refused) as refused:
        expect(httpx.Response(404, json=body), 200)
    assert refused.value.status == 404 and "no_table" in str(refused.value)
    assert isinstance(refused.value, AssertionError)
    assert expect(httpx.Response(201, json={"id": "t"}), 201) == {"id": "t"}


@pytest.mark.parametrize("data", [b"", b"\x01" * 126, "text ü", b"\x02" * 70_000])
def test_a_server_frame_is_unmasked_and_unfragmented(data: bytes | str) -> None:
    raw = server_frame(data)
    payload = data.encode() if isinstance(data, str) else data
    assert raw[0] == (0x81 if isinstance(data, str) else 0x82)  # FIN, text or binary
    assert raw[1] & 0x80 == 0 and raw.endswith(payload)  # unmasked
