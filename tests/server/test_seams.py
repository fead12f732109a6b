"""The private attributes and undocumented behaviour of uvicorn, websockets and Starlette
that the server relies on, checked on the installed versions.

pyproject.toml holds these three packages to the releases these tests passed with. When an
upgrade removes a seam, the test says which one and what it is for, here, instead of a game
failing (or silently getting slower) at run time.
"""

from __future__ import annotations

import asyncio
import inspect
import weakref
from typing import Any

import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket
from uvicorn.config import WS_PROTOCOLS

from server.fanout.frames import SCOPE_KEY, DirectSocket, RawSend, missing_seam, prepare
from tests.server.client import Socket, in_process


def test_uvicorn_has_the_websockets_sansio_protocol():
    assert "websockets-sansio" in WS_PROTOCOLS, (
        f"uvicorn {uvicorn.__version__} has no ws='websockets-sansio' (cli/serve.py runs "
        "the service on it, and server/fanout/frames.py writes through its protocol objects)")


async def test_direct_writes_find_their_seams_behind_uvicorns_send():
    """server/fanout/frames.py writes prepared frames on uvicorn's transport after repeating
    uvicorn's own checks, which read private attributes of its protocol object and of the
    websockets ``Protocol`` inside it. Without them every delivery would quietly take the
    slower ASGI path (docs/benchmarks.md "Service")."""
    found: dict[str, Any] = {}

    async def endpoint(ws: WebSocket) -> None:
        await ws.accept()
        send = ws.scope[SCOPE_KEY]
        method = send() if isinstance(send, weakref.WeakMethod) else send
        proto = getattr(method, "__self__", None)
        found["missing"] = missing_seam(proto) if proto is not None else ["send.__self__"]
        found["direct"] = direct = DirectSocket.of(send)
        if direct is not None:  # the handshake's objects go; the socket still works
            direct.release_handshake()
            found["released"] = (proto.request, proto.response)
            assert direct.write(prepare(b"after the handshake"))
        await ws.close()

    app = RawSend(Starlette(routes=[WebSocketRoute("/ws/tables/x", endpoint)]))
    async with in_process(app) as port:
        sock = await Socket(f"ws://127.0.0.1:{port}", "x").connect()
        await asyncio.wait_for(sock.wait_closed(), 10)
    assert sock.raw == [b"after the handshake"]
    assert found["released"] == (None, None)
    assert found["missing"] == [], (
        f"uvicorn {uvicorn.__version__}: server/fanout/frames.py reads {found['missing']} of the "
        "protocol behind the ASGI send (to write prepared frames); adapt "
        "server/fanout/frames.py or keep uvicorn/websockets at the tested versions")
    assert found["direct"] is not None


async def test_starlettes_websocket_keeps_the_raw_asgi_receive():
    """server/ws/endpoint.py drains a closing socket through ``WebSocket._receive`` (the raw ASGI
    receive), because Starlette's ``receive`` refuses once the close is sent and the
    websockets library completes the closing handshake only when its queue has room."""

    async def receive() -> dict[str, Any]:
        return {"type": "websocket.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        pass

    ws = WebSocket({"type": "websocket", "path": "/", "headers": []}, receive, send)
    assert getattr(ws, "_receive", None) is receive, (
        "starlette.websockets.WebSocket no longer keeps the ASGI receive as _receive: "
        "server/ws/endpoint.py _finish_close needs it to drain a closing socket")


def test_uvicorns_server_shutdown_can_be_extended():
    """cli/serve.py overrides ``uvicorn.Server.shutdown(sockets)`` to close every socket
    with 1001 first, and finds the app through ``config.loaded_app``."""
    params = list(inspect.signature(uvicorn.Server.shutdown).parameters)
    assert params == ["self", "sockets"], (
        f"uvicorn.Server.shutdown takes {params}: cli/serve.py GracefulServer overrides it")
    assert inspect.iscoroutinefunction(uvicorn.Server.shutdown)
    config = uvicorn.Config(Starlette())
    config.load()
    assert hasattr(config, "loaded_app"), (
        "uvicorn.Config has no loaded_app: cli/serve.py _find_svc reads it at shutdown")


def test_redis_cluster_client_has_what_the_store_and_subscriber_use():
    """server/store/streams.py sends the append script and ``WAIT`` in one cluster pipeline with
    ``target_nodes`` (both must go down one connection of the key's master), and
    server/fanout/subscriber.py reads each node's shard channels with
    ``get_sharded_message(target_node=…)``; both are redis-py API that is barely
    documented, so pyproject.toml holds redis to the minor release tested here."""
    import redis
    from redis.asyncio.cluster import ClusterNode, ClusterPubSub, PipelineStrategy, RedisCluster

    assert "target_node" in inspect.signature(ClusterPubSub.get_sharded_message).parameters
    for name in ("get_node_from_key", "get_node", "initialize", "pubsub", "pipeline"):
        assert callable(getattr(RedisCluster, name, None)), f"RedisCluster.{name} is gone"
    # A pipeline groups its commands per target node and sends each group down one
    # connection (``ClusterNode.execute_pipeline``), popping ``target_nodes`` per command.
    source = inspect.getsource(PipelineStrategy._execute)
    assert "target_nodes" in source and "execute_pipeline" in source, redis.__version__
    assert "acquire_connection" in inspect.getsource(ClusterNode.execute_pipeline)


@pytest.mark.parametrize("loop", ["uvloop", "asyncio"])
def test_a_command_written_to_a_closed_transport_is_a_lost_connection(redis_url, loop):
    """server/fanout/subscriber.py ``lost_connection`` takes the ``RuntimeError`` that uvloop
    raises for a command written to a transport closed under redis-py's connection for a
    lost connection, by where it was raised: redis-py's ``send_packed_command``, which
    disconnects the connection before re-raising, so that the next command connects
    afresh (the subscriber's retry relies on it). asyncio's own loop gives a
    ``ConnectionError`` there. The transport is reached through the connection's private
    ``_writer``, as tests/server/test_subscriber.py does."""
    import redis
    import redis.asyncio as aioredis
    from redis.exceptions import ConnectionError as RedisConnectionError

    from server.fanout.subscriber import lost_connection

    async def write_to_a_closed_transport() -> None:
        client = aioredis.Redis.from_url(redis_url, socket_timeout=5)
        conn = await client.connection_pool.get_connection()
        try:
            await conn.send_command("PING")
            assert await conn.read_response() in (b"PONG", "PONG")
            conn._writer.transport.close()
            with pytest.raises(RuntimeError if loop == "uvloop" else RedisConnectionError
                               ) as raised:
                await conn.send_command("PING", check_health=False)
            assert lost_connection(raised.value), (redis.__version__, raised.value)
            assert not conn.is_connected, redis.__version__
            await conn.send_command("PING")  # connects again
            assert await conn.read_response() in (b"PONG", "PONG")
        finally:
            await client.connection_pool.release(conn)
            await client.aclose()

    if loop == "uvloop":
        pytest.importorskip("uvloop").run(write_to_a_closed_transport())
    else:
        asyncio.run(write_to_a_closed_transport())
    assert not lost_connection(RuntimeError("the handler is closed")), "raised elsewhere"


def test_redis_py_error_parsing_and_url_parsing_that_the_lane_uses():
    """server/store/lane.py turns error replies into redis-py's exceptions with
    ``BaseParser.parse_error`` (what redis-py's own hiredis parser passes to
    ``hiredis.Reader``) and reads the URL with ``redis.asyncio.connection.parse_url``."""
    from redis._parsers.base import BaseParser
    from redis.asyncio.connection import parse_url
    from redis.exceptions import NoScriptError, ResponseError

    assert isinstance(BaseParser.parse_error("NOSCRIPT No matching script."), NoScriptError)
    assert type(BaseParser.parse_error("ERR unknown command")) is ResponseError
    assert parse_url("redis://:pw@h:7000/2") == {"host": "h", "port": 7000, "db": 2,
                                                  "password": "pw"}
    assert parse_url("unix:///tmp/r.sock?db=1")["path"] == "/tmp/r.sock"
