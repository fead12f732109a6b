"""Statistics (server/accounts/statistics.py, server/http/statistics.py): per game the games,
wins, win rate, scores and rating over time; head-to-head; the history's filters; private
tables only in an account's own view; bad input refused."""

from __future__ import annotations

from typing import Any

from server.accounts import statistics
from tests.server.client import Member, Seats, Socket, ended, unique
from tests.waiting import until


def row(game: str, me: int, scores: list[int], names: list[str], tid: str,
        name: str = "t", resigned: tuple[int, ...] = (), voided: str = "") -> dict[str, Any]:
    best = max(scores)
    return {"id": tid, "game": game, "status": "ended", "name": name, "scores": scores,
            "winners": [i for i, s in enumerate(scores) if s == best], "voided": voided,
            "seats": [{"seat": i, "name": n, **({"resigned": True} if i in resigned else {})}
                      for i, n in enumerate(names)],
            "my_seat": me,
            "opponents": [{"seat": i, "name": n, "kind": "bot" if n == "Greedy" else "account"}
                          for i, n in enumerate(names) if i != me]}


ROWS = [
    row("keltis", 0, [30, 12], ["me", "Bea"], "t4", name="Sunday"),
    row("einauge", 1, [5, 9, 9], ["Bea", "me", "Greedy"], "t3"),
    row("einauge", 0, [20, 3, 8], ["me", "Bea", "Greedy"], "t2", resigned=(0,)),
    row("einauge", 0, [7, 11, 2], ["me", "Cem", "Greedy"], "t1"),
    row("einauge", 0, [99, 1], ["me", "Cem"], "t0", voided="restored"),
]


def test_per_game_counts_wins_scores_and_the_rating_in_time_order() -> None:
    rated = {"t1": {"game": "einauge", "at": 100.0, "after": 1480},
             "t3": {"game": "einauge", "at": 300.0, "after": 1530},
             "t2": {"game": "einauge", "at": 200.0, "after": 1510}}
    out = statistics.per_game(ROWS, rated)
    # The voided t0 counts for nothing; t3 shared the win (9 = 9); t2's best total is no
    # win: the seat resigned (a bot played it on).
    assert out["einauge"] == {"played": 3, "won": 1, "win_rate": 0.333, "average_score": 12.0,
                              "best_score": 20,
                              "rating": [{"at": 100.0, "rating": 1480, "table": "t1"},
                                         {"at": 200.0, "rating": 1510, "table": "t2"},
                                         {"at": 300.0, "rating": 1530, "table": "t3"}]}
    assert out["keltis"]["played"] == 1 and out["keltis"]["win_rate"] == 1.0
    assert out["keltis"]["rating"] == []


def test_head_to_head_counts_places_with_a_resigned_seat_last() -> None:
    h2h = {(h["name"], h["kind"]): h for h in statistics.head_to_head(ROWS)}
    # Bea: ahead at t4 and t3; behind at t2, where "me" resigned with the best total.
    assert h2h[("Bea", "account")] == {"name": "Bea", "kind": "account", "games": 3,
                                       "ahead": 2, "behind": 1, "level": 0}
    # Greedy: level at t3 (9 = 9), behind at t2, ahead at t1.
    assert h2h[("Greedy", "bot")]["ahead"] == 1 and h2h[("Greedy", "bot")]["behind"] == 1
    assert h2h[("Greedy", "bot")]["level"] == 1
    assert h2h[("Cem", "account")]["games"] == 1  # t0 was voided
    assert [h["name"] for h in statistics.head_to_head(ROWS)][:2] == ["Bea", "Greedy"]


def test_history_filters_combine() -> None:
    ids = lambda rows: [r["id"] for r in rows]  # noqa: E731
    assert ids(statistics.history(ROWS)) == ["t4", "t3", "t2", "t1"]
    assert ids(statistics.history(ROWS, game="einauge", result="won")) == ["t3"]
    assert ids(statistics.history(ROWS, result="lost")) == ["t2", "t1"]
    assert ids(statistics.history(ROWS, opponent="CEM")) == ["t1"]
    assert ids(statistics.history(ROWS, opponent="Ｂｅａ")) == ["t4", "t3", "t2"]  # width
    assert ids(statistics.history(ROWS, text="sun")) == ["t4"]
    assert ids(statistics.history(ROWS, text="gree", game="keltis")) == []


async def _game(ws_url: str, first: Member, second: Member, private: bool, seed: int) -> str:
    """A table of the two accounts and a random bot, played to the end."""
    table = await first.create(3, private=private, rated=not private)
    tid, key = table["id"], table.get("invite_key")
    tokens = [(await first.join(tid, "x", token=table["owner_token"]))["token"],
              (await second.join(tid, "x", key=key))["token"]]
    await first.bot(tid, 2, "random")
    await first.start(tid)
    sockets = [await Socket(ws_url, tid).connect(token=t) for t in tokens]
    seats = Seats(sockets, seed=seed)
    while not any(ended(f) for s in sockets for f in s.frames):
        await seats.step(20)
    for s in sockets:
        await s.close()
    # The barrier: the end is settled in the background after its last frame (ratings and
    # the players' histories first, then the summary marked ``ended``).
    headers = {"X-Table-Key": key} if key else {}

    async def settled() -> bool:
        r = await first.http.get(f"/api/tables/{tid}", headers=headers)
        return r.json()["status"] == "ended"

    await until(settled, timeout=30, what=f"the end of {tid} settled")
    return tid


async def test_statistics_and_history_over_http(server) -> None:
    names = [unique("st"), unique("su")]
    first, second, guest = Member(server.url), Member(server.url), Member(server.url)
    await first.sign_up(names[0])
    await second.sign_up(names[1])
    public = await _game(server.ws_url, first, second, private=False, seed=3)
    private = await _game(server.ws_url, first, second, private=True, seed=4)

    async def stats(who: Member, name: str) -> dict[str, Any]:
        r = await who.get(f"/api/players/{name}/statistics")
        assert r.status_code == 200, r.text
        return r.json()

    summaries = {t: (await guest.get(f"/api/tables/{t}")).json() for t in (public,)}
    own = await stats(first, names[0])
    seen = await stats(guest, names[0])
    assert own["games"]["einauge"]["played"] == 2  # the private game in its own view
    assert seen["games"]["einauge"]["played"] == 1  # not in anyone else's
    won = 0 in summaries[public]["winners"]
    assert seen["games"]["einauge"]["won"] == int(won)
    assert seen["games"]["einauge"]["best_score"] == summaries[public]["scores"][0]
    # The rated public game is on the rating curve, as the profile shows the rating.
    profile = (await guest.get(f"/api/players/{names[0]}")).json()
    curve = seen["games"]["einauge"]["rating"]
    assert [p["table"] for p in curve] == [public]
    assert curve[-1]["rating"] == profile["ratings"]["einauge"]["rating"]
    # Head-to-head agrees with the places of the public game, seen from both sides.
    scores = summaries[public]["scores"]
    mine = {h["name"]: h for h in seen["head_to_head"]}[names[1]]
    theirs = {h["name"]: h for h in (await stats(guest, names[1]))["head_to_head"]}[names[0]]
    assert mine["games"] == theirs["games"] == 1
    assert (mine["ahead"], mine["behind"]) == (theirs["behind"], theirs["ahead"])
    assert mine["ahead"] == int(scores[0] > scores[1])

    r = await guest.http.get(f"/api/players/{names[0]}/history",
                        params={"opponent": names[1].upper(), "game": "einauge"})
    assert r.status_code == 200 and [g["id"] for g in r.json()["games"]] == [public]
    assert r.json()["games"][0]["won"] is won and "rating_change" in r.json()["games"][0]
    r = await first.http.get(f"/api/players/{names[0]}/history", params={"limit": "1"})
    assert r.json()["total"] == 2 and [g["id"] for g in r.json()["games"]] == [private]
    r = await guest.http.get(f"/api/players/{names[0]}/history",
                        params={"result": "won" if won else "lost"})
    assert [g["id"] for g in r.json()["games"]] == [public]

    for params, code in (({"result": "draw"}, "bad_message"), ({"game": "chess"}, "no_game"),
                         ({"limit": "999"}, "bad_message"), ({"offset": "-1"}, "bad_message"),
                         ({"q": "x" * 65}, "bad_message")):
        r = await guest.http.get(f"/api/players/{names[0]}/history", params=params)
        assert r.status_code == 400 and r.json()["error"]["code"] == code, (params, r.text)
    r = await guest.get(f"/api/players/{unique('nobody')}/statistics")
    assert r.status_code == 404 and r.json()["error"]["code"] == "no_player"
    for m in (first, second, guest):
        await m.close()


async def test_a_private_table_is_not_rated(server) -> None:
    # A rated result shows on the ladder and the profile: a private game must not.
    member = Member(server.url)
    await member.sign_up(unique("pr"))
    r = await member.http.post("/api/tables", json={"seats": 2, "private": True, "rated": True})
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_message", r.text
    assert "private" in r.json()["error"]["message"]
    await member.close()
