"""A websocket client that keeps each read's frames together: for tests of how a server
batches its writes (``reads``).

TCP is a stream, but on one host a single write of a few kilobytes arrives whole, so the
frames found in one read of the socket (made as soon as bytes are there) are the frames
the server wrote together, or more (writes that came while the reader was busy): a read
that holds two frames shows they may have been one write; frames always read apart show
they were not.
"""

from __future__ import annotations

import asyncio

from websockets.client import ClientProtocol
from websockets.frames import Frame
from websockets.uri import parse_uri


async def reads(url: str, count: int, timeout: float = 10.0) -> list[list[bytes]]:
    """The payloads of the frames of each of the first ``count`` reads (that held a whole
    frame) of a client of the websocket ``url`` (``ws://`` only), in order; raises
    ``ConnectionError`` when the server closes first, ``TimeoutError`` after ``timeout``
    seconds without a byte."""
    uri = parse_uri(url)
    client = ClientProtocol(uri)
    reader, writer = await asyncio.open_connection(uri.host, uri.port)
    try:
        client.send_request(client.connect())
        for data in client.data_to_send():
            writer.write(data)
        got: list[list[bytes]] = []
        while len(got) < count:
            data = await asyncio.wait_for(reader.read(65536), timeout)
            if not data:
                raise ConnectionError(f"the server closed after {len(got)} reads")
            client.receive_data(data)
            frames = [bytes(e.data) for e in client.events_received() if isinstance(e, Frame)]
            if frames:
                got.append(frames)
        return got
    finally:
        writer.close()
