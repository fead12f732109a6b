"""The HTTP API (docs/protocol.md §1) over ``httpx``: ``Lobby`` for guests, ``Member`` for a
browser with an account (its session cookie and CSRF token).

Every call that expects one answer (``create`` 201, ``join`` 200, …) raises ``Refused``
for any other status, with the status and the body; the calls that return the
``httpx.Response`` (``get``, ``seat_call``, ``rematch``, ``try_log_in``) raise nothing
for a status, and leave it to the caller. Transport failures raise ``httpx``'s errors
(``httpx.ConnectError``, ``httpx.TimeoutException``: a request is given ``timeout``
seconds, 60 by default: a whole game's ``/deltas`` or ``/record`` took over 10 s on a
loaded 2-core machine).
"""

from __future__ import annotations

from typing import Any

import httpx


class Refused(AssertionError):
    """The server answered with another status than the call expects. ``status``: the
    HTTP status; ``body``: the response text (the JSON error ``{"error": {"code",
    "message"}}`` for the API's refusals). An ``AssertionError``, so that a test shows it
    as a failed expectation with the server's answer."""

    def __init__(self, response: httpx.Response) -> None:
        super().__init__(response.text)
        self.status = response.status_code
        self.body = response.text


def expect(response: httpx.Response, status: int) -> dict[str, Any]:
    """The JSON body of ``response``, when it has ``status``; else raises ``Refused``."""
    if response.status_code != status:
        raise Refused(response)
    body: dict[str, Any] = response.json()
    return body


def auth(token: str | None = None, key: str | None = None) -> dict[str, str]:
    """Request headers: ``token`` as bearer (``Authorization: Bearer``), ``key`` (a private
    table's invite secret) as ``X-Table-Key``."""
    out = {}
    if token:
        out["Authorization"] = f"Bearer {token}"
    if key:
        out["X-Table-Key"] = key
    return out


KEEPALIVE = 2.0
"""Seconds a kept-alive connection may idle before it is dropped rather than reused. The
server (uvicorn) closes one idle for 5 s (``timeout_keep_alive``); reusing one idle about
as long races that close, and a POST sent into it fails with ``httpx.ReadError`` and is
not retried (seen on a loaded machine)."""


class Lobby:
    """The HTTP API of one server at ``base`` (``http://host:port``). Remembers the
    ``owner_token`` (the host's) of every table it created (``owners``: table id to
    token), and sends it where the host is needed unless told otherwise.

    ``local_address``: the client's own address (another 127.0.0.x on Linux, to be a
    second client on one machine). ``http`` is the ``httpx.AsyncClient`` for any other
    call. Close it with ``close``."""

    def __init__(self, base: str, local_address: str | None = None,
                 timeout: float = 60) -> None:
        transport = httpx.AsyncHTTPTransport(
            local_address=local_address, limits=httpx.Limits(keepalive_expiry=KEEPALIVE))
        self.http = httpx.AsyncClient(base_url=base, timeout=timeout, transport=transport)
        self.owners: dict[str, str] = {}

    async def close(self) -> None:
        await self.http.aclose()

    async def create(self, seats: int = 4, game: str | None = None, private: bool = False,
                     time_control: dict[str, Any] | None = None, rated: bool = False,
                     **options: Any) -> dict[str, Any]:
        """``POST /api/tables``: a table of ``game`` (default: the server's default game)
        with ``options``; returns the summary with ``owner_token`` (and ``invite_key``
        for a private table). Raises ``Refused`` unless 201."""
        body: dict[str, Any] = {"seats": seats, "options": options}
        if game is not None:
            body["game"] = game
        if private:
            body["private"] = True
        if time_control is not None:
            body["time_control"] = time_control
        if rated:
            body["rated"] = True
        table = expect(await self.http.post("/api/tables", json=body), 201)
        self.owners[table["id"]] = table["owner_token"]
        return table

    async def create_game(self, game: str, seats: int, **options: Any) -> dict[str, Any]:
        """A table of ``game``: ``create(seats, game, **options)``."""
        return await self.create(seats, game, **options)

    async def seat_call(self, table_id: str, path: str, token: str | None,
                        body: dict[str, Any] | None = None) -> httpx.Response:
        """``POST /api/tables/{id}/<path>`` with a seat token (claim, resign, return); the
        response, whatever its status."""
        return await self.http.post(f"/api/tables/{table_id}/{path}", json=body or {},
                                    headers=auth(token))

    async def join(self, table_id: str, name: str, seat: int | None = None,
                   token: str | None = None, key: str | None = None) -> dict[str, Any]:
        """Take a seat (``token``: the creator's, to sit with it; ``key``: a private
        table's invite secret); returns ``{"seat", "token", "table"}``. Raises
        ``Refused`` unless 200."""
        body: dict[str, Any] = {"name": name}
        if seat is not None:
            body["seat"] = seat
        r = await self.http.post(f"/api/tables/{table_id}/join", json=body,
                                 headers=auth(token, key))
        return expect(r, 200)

    async def bot(self, table_id: str, seat: int, kind: str = "random",
                  token: str | None = None) -> dict[str, Any]:
        """A bot of ``kind`` on ``seat``, asked for with ``token`` (default: the owner's);
        returns the summary. Raises ``Refused`` unless 200."""
        r = await self.http.post(f"/api/tables/{table_id}/seats/{seat}/bot", json={"kind": kind},
                                 headers=auth(token or self.owners.get(table_id)))
        return expect(r, 200)

    async def start(self, table_id: str, token: str | None = None) -> dict[str, Any]:
        """Start with ``token`` (default: the owner's); returns the summary. Raises
        ``Refused`` unless 200."""
        r = await self.http.post(f"/api/tables/{table_id}/start",
                                 headers=auth(token or self.owners.get(table_id)))
        return expect(r, 200)

    async def get(self, path: str) -> httpx.Response:
        """``GET path``; the response, whatever its status."""
        return await self.http.get(path)

    async def rematch(self, table_id: str, token: str | None,
                      player_seed: str = "") -> httpx.Response:
        """``POST /api/tables/{id}/rematch`` with ``token`` (none: no header); the
        response, whatever its status."""
        return await self.http.post(f"/api/tables/{table_id}/rematch", headers=auth(token),
                                    json={"player_seed": player_seed} if player_seed else {})

    async def branch(self, table_id: str, body: dict[str, Any],
                     key: str | None = None) -> httpx.Response:
        """``POST /api/tables/{id}/branch`` (play on from a position: ``index`` or
        ``seq``, ``seat``, optionally ``name``); ``key``: a private source's invite
        secret. The response, whatever its status."""
        return await self.http.post(f"/api/tables/{table_id}/branch", json=body,
                                    headers=auth(None, key))

    async def seek(self, game: str, seats: int, time_control: dict[str, Any] | None = None,
                   rated: bool = False, **extra: Any) -> dict[str, Any]:
        """``POST /api/seeks`` (quick pairing); ``extra``: ``bots_after``, ``name``. Returns
        the seek with its ``seek_token``. Raises ``Refused`` unless 201."""
        body: dict[str, Any] = {"game": game, "seats": seats, "rated": rated, **extra}
        if time_control is not None:
            body["time_control"] = time_control
        return expect(await self.http.post("/api/seeks", json=body), 201)

    async def seek_call(self, method: str, seek_id: str, token: str | None) -> httpx.Response:
        """``GET`` or ``DELETE /api/seeks/{id}`` with the seek token; the response,
        whatever its status."""
        return await self.http.request(method, f"/api/seeks/{seek_id}", headers=auth(token))


class Member(Lobby):
    """The lobby as a browser with an account sees it: a cookie jar holding the session,
    and the session's CSRF token sent on every request once logged in (``csrf``;
    ``account``: the account's summary)."""

    def __init__(self, base: str, local_address: str | None = None,
                 timeout: float = 60) -> None:
        super().__init__(base, local_address, timeout)
        self.csrf: str | None = None
        self.account: dict[str, Any] | None = None

    def _logged_in(self, r: httpx.Response) -> dict[str, Any]:
        """Take the session of a sign-up or login answer ``r`` (its cookie is in the jar
        already): its CSRF token, sent from now on, and the account."""
        data: dict[str, Any] = r.json()
        self.csrf = data["csrf"]
        self.account = data["account"]
        self.http.headers["X-CSRF-Token"] = data["csrf"]
        return data

    async def sign_up(self, username: str, password: str = "correct horse 1",
                      **extra: Any) -> dict[str, Any]:
        """``POST /api/account/signup``, then logged in. Raises ``Refused`` unless 201."""
        r = await self.http.post("/api/account/signup",
                                 json={"username": username, "password": password, **extra})
        expect(r, 201)
        return self._logged_in(r)

    async def log_in(self, username: str, password: str = "correct horse 1",
                     **extra: Any) -> dict[str, Any]:
        """``POST /api/account/login``, then logged in. Raises ``Refused`` unless 200."""
        r = await self.http.post("/api/account/login",
                                 json={"username": username, "password": password, **extra})
        expect(r, 200)
        return self._logged_in(r)

    async def try_log_in(self, username: str, password: str) -> httpx.Response:
        """``POST /api/account/login``; the response, whatever its status."""
        return await self.http.post("/api/account/login",
                                    json={"username": username, "password": password})

    # ---- tournaments (docs/protocol.md, "Tournaments") -------------------------------------

    async def create_tournament(self, **body: Any) -> dict[str, Any]:
        """``POST /api/tournaments``; raises ``Refused`` unless 201."""
        return expect(await self.http.post("/api/tournaments", json=body), 201)

    async def tournament(self, tournament_id: str) -> dict[str, Any]:
        """``GET /api/tournaments/{id}`` (with ``me`` when logged in); raises ``Refused``
        unless 200."""
        return expect(await self.http.get(f"/api/tournaments/{tournament_id}"), 200)

    async def tournament_call(self, tournament_id: str, what: str) -> httpx.Response:
        """``POST /api/tournaments/{id}/{what}`` (``join``, ``withdraw``, ``start``); the
        response, whatever its status."""
        return await self.http.post(f"/api/tournaments/{tournament_id}/{what}")

    async def seat_token(self, table_id: str) -> dict[str, Any]:
        """``GET /api/me/tables/{id}``: the account's seat there with a fresh token;
        raises ``Refused`` unless 200."""
        return expect(await self.http.get(f"/api/me/tables/{table_id}"), 200)
