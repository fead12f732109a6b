"""An account's statistics from its finished games (docs/protocol.md §1, "Statistics"):
per game the games played and won, the win rate, the average and best score and the
rating over time; head-to-head against every opponent; and the game history, searchable
and filterable. Pure: the rows come from the account's stored tables
(``server.http.statistics``).

A row is a finished table's public summary (``TableMeta.summary()``) with ``my_seat``, the
account's seat, and ``opponents``: per other seat ``{"seat", "name", "kind"}`` (``kind``
``"account"``, ``"bot"`` or ``"guest"``). A voided game counts for nothing. Places come
from the totals as the ratings read them (``server.accounts.ratings.ranks``: higher is
better, equal totals share a place), a resigned seat behind all the others.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from server.accounts.ratings import resigned_last

RESULTS = ("won", "lost")
"""The history's result filter: ``won`` (the account's seat among the winners) or
``lost`` (not)."""


def places(row: Mapping[str, Any]) -> list[int] | None:
    """Each seat's place (1 = best) in a finished row, resigned seats last; ``None``
    without totals."""
    scores = row.get("scores")
    if not isinstance(scores, list) or not all(isinstance(s, int | float) for s in scores):
        return None
    ranked = [1 + sum(1 for o in scores if o > s) for s in scores]
    resigned = {s["seat"] for s in row.get("seats", ()) if s.get("resigned")}
    return resigned_last(ranked, resigned)


def won(row: Mapping[str, Any]) -> bool:
    """The account's seat is among the table's winners and did not resign (a resigned
    seat loses, whatever the bot that played it on scored: ``ratings.resigned_last``)."""
    me = row.get("my_seat")
    resigned = any(s.get("resigned") for s in row.get("seats", ()) if s.get("seat") == me)
    return me in (row.get("winners") or ()) and not resigned


def counted(rows: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The rows that count: finished, not voided, with the account seated."""
    return [r for r in rows if r.get("status") == "ended" and not r.get("voided")
            and r.get("my_seat") is not None]


def per_game(rows: Sequence[Mapping[str, Any]], rated: Mapping[str, Mapping[str, Any]]
             ) -> dict[str, dict[str, Any]]:
    """Game → ``{"played", "won", "win_rate" (0..1, 3 decimals), "average_score" (1
    decimal; ``None`` without totals), "best_score", "rating": [{"at" (Unix seconds),
    "rating" (as shown after the game), "table"}] oldest first}``. ``rated``: table id →
    the rating note the table left the account (``AccountStore.rated_history``)."""
    out: dict[str, dict[str, Any]] = {}
    for row in counted(rows):
        g = out.setdefault(row["game"], {"played": 0, "won": 0, "scores": []})
        g["played"] += 1
        g["won"] += won(row)
        scores = row.get("scores")
        if isinstance(scores, list) and row["my_seat"] < len(scores):
            g["scores"].append(scores[row["my_seat"]])
    for g in out.values():
        scores = g.pop("scores")
        g["win_rate"] = round(g["won"] / g["played"], 3)
        g["average_score"] = round(sum(scores) / len(scores), 1) if scores else None
        g["best_score"] = max(scores) if scores else None
        g["rating"] = []
    for table, note in rated.items():
        game = note.get("game")
        if isinstance(game, str) and isinstance(note.get("at"), int | float):
            entry = out.setdefault(game, {"played": 0, "won": 0, "win_rate": 0.0,
                                          "average_score": None, "best_score": None,
                                          "rating": []})
            entry["rating"].append({"at": note["at"], "rating": note.get("after"),
                                    "table": table})
    for g in out.values():
        g["rating"].sort(key=lambda p: (p["at"], p["table"]))
    return out


def head_to_head(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Per opponent (by name and kind): ``{"name", "kind", "games", "ahead", "behind",
    "level"}``, where ``ahead``/``behind`` count the games the account finished before
    or after that opponent (``level``: equal places), most games first, then by name."""
    table: dict[tuple[str, str], dict[str, Any]] = {}
    for row in counted(rows):
        place = places(row)
        me = row["my_seat"]
        for opp in row.get("opponents", ()):
            key = (opp["name"], opp["kind"])
            h = table.setdefault(key, {"name": opp["name"], "kind": opp["kind"], "games": 0,
                                       "ahead": 0, "behind": 0, "level": 0})
            h["games"] += 1
            if place is None:
                continue
            mine, theirs = place[me], place[opp["seat"]]
            h["ahead" if mine < theirs else "behind" if mine > theirs else "level"] += 1
    return sorted(table.values(), key=lambda h: (-h["games"], h["name"].casefold(), h["kind"]))


def history(rows: Sequence[Mapping[str, Any]], game: str | None = None,
            result: str | None = None, opponent: str | None = None, text: str | None = None
            ) -> list[Mapping[str, Any]]:
    """The counted rows (newest first as given) that match every filter given:
    ``game``; ``result`` (one of ``RESULTS``); ``opponent``, a name at the table (case
    and width folded); ``text``, found in the table's name or any opponent's name."""
    def fold(s: str) -> str:
        return unicodedata.normalize("NFKC", s).casefold()

    out = []
    for row in counted(rows):
        names = [fold(o["name"]) for o in row.get("opponents", ())]
        if game is not None and row["game"] != game:
            continue
        if result is not None and won(row) != (result == "won"):
            continue
        if opponent is not None and fold(opponent) not in names:
            continue
        if text is not None and not any(fold(text) in n
                                        for n in (fold(str(row.get("name") or "")), *names)):
            continue
        out.append(row)
    return out
