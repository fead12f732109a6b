"""The one client of Cardtable's wire (docs/protocol.md), for the tests and benchmarks.

- ``protocol.frames``: ``pack``/``unpack`` (msgpack binary frames, JSON text frames),
  ``unpack_light`` (the load generator's decoder), ``ws_url``;
- ``protocol.lobby``: the HTTP API over ``httpx`` (``Lobby``, ``Member``, ``Refused``);
- ``protocol.connection``: the websocket clients over the ``websockets`` library
  (``Connection``, ``LightConnection``; ``watch_seek``, a seek's socket) and its low-level
  door (``dial``, ``dial_sync``);
- ``protocol.reads``: ``reads``, a client that keeps each read's frames together (for
  tests of how the server batches its writes).

It imports nothing of the project (engine, server, CLI, tests, benchmarks), and no module
of the tests or the benchmarks opens a websocket or defines a codec of its own
(tests/test_layout.py). Test conveniences built on it (a player loop, an in-process
server, a table started on a chosen deck) stay in tests/.
"""

from protocol.connection import (
    Connection,
    ConnectionClosed,
    InvalidHandshake,
    InvalidStatus,
    LightConnection,
    close_code,
    dial,
    dial_sync,
    watch_seek,
)
from protocol.frames import pack, unpack, unpack_light, ws_url
from protocol.lobby import Lobby, Member, Refused, auth

__all__ = [
    "Connection", "ConnectionClosed", "InvalidHandshake", "InvalidStatus", "LightConnection",
    "Lobby", "Member", "Refused", "auth", "close_code", "dial", "dial_sync", "pack", "unpack",
    "unpack_light", "watch_seek", "ws_url",
]
