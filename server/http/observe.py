"""What every HTTP request leaves behind: one access log line and the HTTP metrics, and
who may read ``/metrics``.

``Observe`` is an ASGI middleware (inside Starlette, around its router): once a request is
answered it logs ``component=access`` ``request`` with ``method``, ``route`` (the matched
route's path template, ``/api/tables/{id}``: never the raw path, which carries ids; the
static files are ``/{path}``; no route: ``unmatched``), ``status``, ``duration_ms`` and
``client`` (the client's address as every per-address limit counts it: behind a listed
proxy, the forwarded one), and counts it in ``cardtable_http_requests_total`` and
``cardtable_http_request_seconds``. A ``/healthz`` answered 200 (a balancer checks each
process twice a second) is logged at level debug, every other request at info. Websockets
are not requests here (their own metrics: ``cardtable_sockets``). The query string is
never logged (it may carry a link's token).
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Sequence
from typing import Any

from starlette.routing import Match, Mount, Route

from server import metrics
from server.logging import get_logger

log = get_logger("access")

METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
"""Methods counted by name; any other is ``other`` (a label must not take any word)."""

UNMATCHED = "unmatched"


def _templates(app: Any) -> dict[int, list[Any]]:
    """The app's routes by the id of the endpoint the router puts in the scope."""
    out: dict[int, list[Any]] = {}
    for route in getattr(app, "routes", ()):
        endpoint = route.endpoint if isinstance(route, Route) else getattr(route, "app", None)
        out.setdefault(id(endpoint), []).append(route)
    return out


def _template(route: Any) -> str:
    if isinstance(route, Mount):
        return (route.path or "") + "/{path}"
    return str(route.path)


class Observe:
    """See the module docstring."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.routes: dict[int, list[Any]] | None = None
        # The two metrics' children per (method, route, status): ``labels`` looks a child
        # up under a lock each call (about 3 us a request); the children never change.
        self.children: dict[tuple[str, str, int], tuple[Any, Any]] = {}

    def route_of(self, scope: dict[str, Any]) -> str:
        """The path template of the route the router chose for ``scope``."""
        endpoint = scope.get("endpoint")
        if endpoint is None:
            return UNMATCHED
        if self.routes is None:
            self.routes = _templates(scope.get("app"))
        candidates = self.routes.get(id(endpoint), ())
        if len(candidates) == 1:
            return _template(candidates[0])
        for route in candidates:  # one endpoint behind several paths (the page routes)
            if route.matches(scope)[0] is not Match.NONE:
                return _template(route)
        return UNMATCHED

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 500  # unless the app answers: what the error middleware outside sends

        async def sending(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            seconds = time.perf_counter() - start
            route = self.route_of(scope)
            method = scope["method"] if scope["method"] in METHODS else "other"
            children = self.children.get((method, route, status))
            if children is None:
                children = self.children[method, route, status] = (
                    metrics.HTTP_REQUESTS.labels(method, route, str(status)),
                    metrics.HTTP_SECONDS.labels(route))
            children[0].inc()
            children[1].observe(seconds)
            client = scope.get("client")
            # A passed health check (a balancer's, twice a second) at debug: no noise.
            emit = log.debug if route == "/healthz" and status == 200 else log.info
            emit("request", method=method, route=route, status=status,
                 duration_ms=round(seconds * 1000, 2), client=client[0] if client else "?")


def allowed(address: str | None, networks: Sequence[str]) -> bool:
    """True when ``address`` lies in one of ``networks`` (``*``: any address)."""
    if "*" in networks:
        return True
    try:
        ip = ipaddress.ip_address(address or "")
    except ValueError:
        return False
    if ip.version == 6 and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return any(ip in ipaddress.ip_network(n, strict=False) for n in networks)
