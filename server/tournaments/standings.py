"""Points and standings with tie-breaks, from the finished boards of a tournament.

A board is ``(players, places)``: the account ids in seat order and each one's place
(1 = best, equal places share one); a bye is a board of one player. Pure: the same
boards give the same table.

Points of one game (``game_points``), by place against each opponent at the table:
- Swiss: 1 for each opponent placed behind, ½ for each placed level, divided by the
  number of opponents (two seats: win 1, draw ½, loss 0; a bye: 1).
- Arena: 2 for each opponent behind, 1 for each level (two seats: win 2, draw 1, loss
  0); no byes.

Tie-breaks, in this order (``Row.key``): Swiss: points, Buchholz (the sum of the
opponents' points, each game's opponents averaged: a bye counts nothing), Sonneborn-
Berger (each game's points times its opponents' average points), wins (games placed
first alone or shared), then the order of joining. Arena: points, wins, fewer games
played, the order of joining.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

BYE_POINTS = 1.0
"""What a Swiss bye scores: a win."""


@dataclass(frozen=True)
class Board:
    """One finished game (or a bye: one player) of the tournament."""

    players: tuple[str, ...]
    places: tuple[int, ...]


def game_points(places: Sequence[int], seat: int, kind: str) -> float:
    """The points ``seat`` scores at a table that finished in ``places`` (module
    docstring). Raises ``ValueError`` for an unknown ``kind``."""
    if kind not in ("swiss", "arena"):
        raise ValueError(f"unknown tournament kind {kind!r}")
    others = [p for i, p in enumerate(places) if i != seat]
    if not others:
        return BYE_POINTS if kind == "swiss" else 0.0
    mine = places[seat]
    beaten = sum(1 for p in others if p > mine)
    level = sum(1 for p in others if p == mine)
    if kind == "arena":
        return float(2 * beaten + level)
    return (beaten + level / 2) / len(others)


@dataclass
class Row:
    """One player's line of the standings."""

    player: str
    joined: int
    points: float = 0.0
    buchholz: float = 0.0
    sonneborn: float = 0.0
    wins: int = 0
    games: int = 0
    byes: int = 0
    rank: int = 0
    results: list[float | None] = field(default_factory=list)
    """Points per board in order (``None``: a bye's)."""

    def key(self, kind: str) -> tuple[Any, ...]:
        """Sort key: best first (module docstring)."""
        if kind == "arena":
            return (-self.points, -self.wins, self.games, self.joined)
        return (-self.points, -self.buchholz, -self.sonneborn, -self.wins, self.joined)

    def to_dict(self) -> dict[str, Any]:
        return {"player": self.player, "rank": self.rank, "points": self.points,
                "buchholz": self.buchholz, "sonneborn_berger": self.sonneborn,
                "wins": self.wins, "games": self.games, "byes": self.byes}


def standings(players: Sequence[str], boards: Sequence[Board], kind: str) -> list[Row]:
    """Every player of ``players`` (in joining order) with its points and tie-breaks
    from ``boards`` (in playing order), best first, ranked 1…n. A player on a board but
    not in ``players`` is ignored (it cannot happen in a stored tournament)."""
    rows = {p: Row(p, i) for i, p in enumerate(players)}
    for b in boards:
        for seat, p in enumerate(b.players):
            row = rows.get(p)
            if row is None:
                continue
            pts = game_points(b.places, seat, kind)
            row.points += pts
            if len(b.players) == 1:
                row.byes += 1
                row.results.append(None)
                continue
            row.games += 1
            row.results.append(pts)
            if b.places[seat] == 1:
                row.wins += 1
    if kind == "swiss":
        for b in boards:
            if len(b.players) < 2:
                continue
            for seat, p in enumerate(b.players):
                if p not in rows:
                    continue
                others = [rows[o].points for o in b.players if o != p and o in rows]
                mean = sum(others) / len(others) if others else 0.0
                rows[p].buchholz += mean
                rows[p].sonneborn += game_points(b.places, seat, kind) * mean
    out = sorted(rows.values(), key=lambda r: r.key(kind))
    for i, r in enumerate(out):
        r.rank = i + 1
    return out


def met(boards: Sequence[Board]) -> dict[str, set[str]]:
    """Each player's opponents so far (a bye meets nobody)."""
    out: dict[str, set[str]] = {}
    for b in boards:
        for p in b.players:
            out.setdefault(p, set()).update(q for q in b.players if q != p)
    return out
