#!/usr/bin/env python3
"""A complete bot for Cardtable: it plays one whole game by a personal API token and
prints the result (docs/bot-api.md walks through every step).

    python examples/bot.py https://cardtable.example TOKEN                 # new table
    python examples/bot.py https://cardtable.example TOKEN --table=ID      # join one
    python examples/bot.py URL TOKEN --game keltis --opponent greedy --rated

TOKEN is a ``play`` token of your account (``POST /api/account/tokens`` or the account
page); rated tables need a bot account (``POST /api/account/bot``). Without ``--table``
the bot creates a table, sits down, puts the service's bot ``--opponent`` on the other
seats and starts; with ``--table`` it joins that open table (``--key``: a private
table's invite secret) and waits for its host to start, or plays the seat its account
already holds there. Write ``--table=ID`` and ``--key=SECRET`` with ``=``: an id or a
secret may begin with ``-``, which would otherwise be read as an option. It then plays
over the table's websocket, exactly as the browser does, choosing a random action among
the legal ones of each ``prompt``: listed (``legal_actions``: Einauge, Keltis, Loot
Island's picks) or in Loot Island's compact ``legal_form``, from which it builds one.
At the end it prints one JSON line: the table, its seat, the winners and scores, and
whether it won.

Only httpx, websockets and msgpack: it imports nothing of Cardtable, so it runs anywhere.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
from typing import Any

import httpx
import msgpack
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed


class Refused(Exception):
    """The service said no: ``code`` and ``message`` of its error body."""

    def __init__(self, status: int, body: Any) -> None:
        err = body.get("error", {}) if isinstance(body, dict) else {}
        self.code = err.get("code", str(status))
        super().__init__(f"{status} {self.code}: {err.get('message', body)}")


def call(http: httpx.Client, method: str, path: str, token: str | None = None,
         body: Any = None, headers: dict[str, str] | None = None) -> Any:
    """One HTTP request; the JSON answer, or ``Refused``."""
    h = dict(headers or {})
    if token:
        h["Authorization"] = f"Bearer {token}"
    r = http.request(method, path, json=body, headers=h)
    data = r.json() if r.content else None
    if r.status_code >= 400:
        raise Refused(r.status_code, data)
    return data


def set_up_table(http: httpx.Client, token: str, args: argparse.Namespace) -> str:
    """Create (or join) the table, fill it and start it; returns the table id."""
    key = {"X-Table-Key": args.key} if args.key else {}
    if args.table:
        try:  # an account's seat takes its username: the name is a formality
            call(http, "POST", f"/api/tables/{args.table}/join", token, {"name": "bot"}, key)
        except Refused as e:
            if e.code not in ("seated", "started"):
                raise
            # Our account sat down earlier (e.g. in the browser): play that seat.
        return str(args.table)
    table = call(http, "POST", "/api/tables", token,
                 {"game": args.game, "seats": args.seats, "rated": args.rated})
    table_id, owner = table["id"], table["owner_token"]
    joined = call(http, "POST", f"/api/tables/{table_id}/join", token, {"name": "bot"})
    for seat in range(args.seats):
        if seat != joined["seat"]:
            # Host calls are made with the table's owner token, which the create gave us.
            call(http, "POST", f"/api/tables/{table_id}/seats/{seat}/bot", owner,
                 {"kind": args.opponent})
    call(http, "POST", f"/api/tables/{table_id}/start", owner)
    return str(table_id)


def subset(rng: random.Random, items: list[Any]) -> list[Any]:
    """A random subset of ``items``, in their order."""
    return [x for x in items if rng.random() < 0.5]


def from_run(rng: random.Random, seat: int, run: dict[str, Any]) -> dict[str, Any] | None:
    """A random ``play`` of a run entry of Loot Island's form (docs/protocol.md, "Loot
    Island's legal_form"): at most one ``first`` card, laid first; then some of ``cards``
    and some of ``jokers`` (each named a value in ``values``), laid by value, ties in the
    form's order. ``None`` when it drew no card at all (draw again)."""
    first = [rng.choice(run["first"])] if run["first"] and rng.random() < 0.5 else []
    cards = subset(rng, run["cards"])  # [card, value] pairs
    jokers = subset(rng, run["jokers"])
    if not (first or cards or jokers):
        return None
    lo, hi = run["values"]
    values = {j: rng.randint(lo, hi) for j in jokers}
    order = {c: i for i, (c, _) in enumerate(run["cards"])}
    order.update({j: len(order) + i for i, j in enumerate(run["jokers"])})
    value = {c: v for c, v in run["cards"]} | values
    rest = sorted([c for c, _ in cards] + jokers, key=lambda c: (value[c], order[c]))
    action = {"type": "play", "seat": seat, "landing": run["landing"], "cards": first + rest}
    if values:
        action["values"] = values
    return action


def from_form(rng: random.Random, form: dict[str, Any]) -> dict[str, Any]:
    """A random legal action of a prompt's ``legal_form`` (Loot Island's compact form of
    its legal actions: docs/protocol.md, "Loot Island's legal_form"), as the browser
    builds one from the same form."""
    seat = form["seat"]
    if "discard" in form:  # the preparation: any subset of the hand
        return {"type": "discard", "seat": seat, "cards": subset(rng, form["discard"]["cards"])}
    islets = form["islets"]
    pay = [group for group in (islets or {}).get("pay", []) if len(group) >= 2]
    choices = ["play"] * 8 * bool(form["plays"]) + ["islet"] * bool(pay and islets["uses"])
    choices += ["pass"] * bool(form["pass"])
    kind = rng.choice(choices)
    if kind == "pass":
        return {"type": "pass", "seat": seat}
    if kind == "islet":  # two distinct cards of one group, in the group's order
        group = rng.choice(pay)
        two = sorted(rng.sample(range(len(group)), 2))
        return {"type": "islet", "seat": seat, "cards": [group[i] for i in two],
                **rng.choice(islets["uses"])}
    while True:
        entry = rng.choice(form["plays"])
        if "under" in entry:  # the lone 1 pushed under a row, perhaps copying its action
            action = {"type": "play", "seat": seat, "landing": entry["landing"],
                      "cards": [entry["under"]]}
            copy = rng.choice([None, *entry["copy"]])
            return action if copy is None else {**action, "copy": copy}
        played = from_run(rng, seat, entry)
        if played is not None:
            return played


def choose(rng: random.Random, prompt: dict[str, Any]) -> dict[str, Any]:
    """A random legal action of a ``prompt``: from its list (``legal_actions``) or its
    compact form (``legal_form``)."""
    legal = prompt.get("legal_actions")
    return rng.choice(legal) if legal is not None else from_form(rng, prompt["legal_form"])


def ws_url(base: str, table_id: str) -> str:
    """``http(s)://host`` → ``ws(s)://host/ws/tables/<id>``."""
    scheme, rest = base.split("://", 1)
    return f"{'wss' if scheme == 'https' else 'ws'}://{rest.rstrip('/')}/ws/tables/{table_id}"


async def play(base: str, token: str, table_id: str, rng: random.Random,
               key: str | None = None) -> tuple[dict[str, Any], int | None]:
    """Play our seat to the end; returns the ended table's summary and our seat (the
    welcome says which). Reconnects (a full view each time) when the socket drops."""
    moves, refused, seat = 0, 0, None
    prompt: dict[str, Any] | None = None
    for _attempt in range(20):
        try:
            async with connect(ws_url(base, table_id), max_size=2**24) as ws:
                hello = {"t": "hello", "token": token, "last_seq": None}
                if key:
                    hello["key"] = key
                await ws.send(msgpack.packb(hello))
                async for raw in ws:
                    msg = msgpack.unpackb(raw) if isinstance(raw, bytes) else json.loads(raw)
                    kind = msg.get("t")
                    if kind == "welcome":
                        seat = msg["seat"]
                    if kind in ("welcome", "table") and msg["table"]["status"] == "ended":
                        return dict(msg["table"]), seat
                    if kind == "prompt":
                        prompt = msg
                    elif kind == "error" and msg.get("code") not in ("stale", "not_your_turn"):
                        # stale: the table moved on; the next prompt comes by itself.
                        print(f"refused: {msg.get('code')}: {msg.get('message')}",
                              file=sys.stderr)
                        if msg.get("id") is None:  # the hello itself was refused
                            raise SystemExit(2)
                        refused += 1
                        if refused > 20:
                            raise SystemExit("too many actions refused")
                        # The action was not legal after all: choose again, same prompt.
                    else:
                        continue
                    if prompt is not None:
                        moves += 1
                        await ws.send(msgpack.packb({
                            "t": "action", "id": f"m{prompt['seq']}-{moves}",
                            "action": choose(rng, prompt), "seq": prompt["seq"]}))
        except ConnectionClosed as e:
            if e.rcvd is not None and e.rcvd.code in (1008, 4004):
                raise SystemExit(f"the service closed the socket: {e.rcvd.reason}") from None
        except OSError:
            pass
        await asyncio.sleep(1)  # dropped: reconnect for a full view
    raise SystemExit("the connection kept dropping")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("url", help="the service, e.g. https://cardtable.example")
    parser.add_argument("token", help="a personal API token of scope play")
    parser.add_argument("--table", help="join this open table instead of creating one")
    parser.add_argument("--key", help="a private table's invite secret")
    parser.add_argument("--game", default="einauge", help="einauge, keltis or loot-island")
    parser.add_argument("--seats", type=int, default=2)
    parser.add_argument("--opponent", default="random", help="random, greedy or mcts")
    parser.add_argument("--rated", action="store_true", help="a rated table (bot accounts)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the random choices")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    with httpx.Client(base_url=args.url, timeout=30) as http:
        me = call(http, "GET", "/api/me", args.token)["account"]
        print(f"playing as {me['username']} (bot account: {me['bot']})", file=sys.stderr)
        table_id = set_up_table(http, args.token, args)
        print(f"table {table_id}", file=sys.stderr)
        summary, seat = asyncio.run(play(args.url, args.token, table_id, rng, args.key))
    winners = summary.get("winners") or []
    print(json.dumps({"table": table_id, "seat": seat, "winners": winners,
                      "scores": summary.get("scores"), "won": seat in winners,
                      "voided": summary.get("voided")}))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Refused as e:
        print(f"refused: {e}", file=sys.stderr)
        sys.exit(1)
