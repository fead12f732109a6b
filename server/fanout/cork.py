"""Frames for a player's socket held to the end of the event loop's turn, one write each.

An accepted action sends its actor the delta and then the ack, and the next seat the delta
and then its prompt: four frames to two sockets in the same turn of the loop. Written as
they come, each is a system call of its own, and on loopback one write of a frame cost
about 8 µs of the server's CPU, the receiver's wake-up included (docs/benchmarks.md, "CPU
per action, part 6"). A ``Cork`` takes the frames a ``Connection`` would write directly and
writes each socket's frames of the turn joined, in one call, once the callbacks that were
ready in that turn have run (``loop.call_soon``): the same bytes in the same order, one
write per socket per turn.

Only seated sockets are held (``Connection.push_many``): a spectator gets one delta per
action, so holding it would add work and save no write.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from server.fanout.room import Connection


class Cork:
    """The sockets holding frames in the current turn of the loop (see the module
    docstring); one per process, shared by its ``Connection``s."""

    __slots__ = ("_held",)

    def __init__(self) -> None:
        self._held: list[Connection] = []

    def hold(self, conn: Connection) -> None:
        """Write ``conn``'s held frames (``Connection.held``) at the end of this turn;
        ``conn`` calls this when it starts holding."""
        if not self._held:
            asyncio.get_running_loop().call_soon(self.flush)
        self._held.append(conn)

    def flush(self) -> None:
        """Write what every socket holds now (``Connection.release``)."""
        held, self._held = self._held, []
        for conn in held:
            conn.release()
