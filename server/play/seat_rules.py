"""Who may change who plays a seat during a game: the pure rules, and the event each
allowed change stores (engine/seat_control.py).

- **claim**: a seated player whose own seat is theirs (not resigned, not played by a bot)
  hands another seat to a bot once that seat's player has been away for longer than the
  time control's ``claim_after`` (presence ``gone``), as Lichess lets you claim a game
  when the opponent left. Reason ``abandoned``.
- **handover**: the table's host (server/play/roles.py) hands a person's seat to a bot of its
  choosing, under the claim's rule: only a seat whose player is ``gone``, never the host's
  own seat (resign instead). The host is often just the stranger who created the table:
  handing a present rival's seat to a bot when that rival is to move let it take the
  rival's turn, and its own seat handed over and taken back restarted its clock
  (reason ``handover``).
- **resign**: a seated player gives up their seat: a bot plays it to the end, it cannot
  be taken back and it cannot win (reason ``resigned``).
- **return**: a player whose seat a bot plays (timeout, claim, handover) takes it back
  at any time, unless they resigned (reason ``returned``).

Each function returns the event or raises ``Refusal`` (HTTP status, code, message).
"""

from __future__ import annotations

from engine.seat_control import SeatControllerChanged
from server.play.presence import GONE, SeatPresence


class Refusal(Exception):
    """A seat change that is not allowed: ``status`` (HTTP), ``code``, ``message``."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.status = status
        self.code = code
        self.message = message


def _running(over: bool) -> None:
    if over:
        raise Refusal(409, "ended", "the game has ended")


def _gone(target: SeatPresence, claim_after: int, now: int) -> None:
    if target.state != GONE:
        away = 0 if target.since is None else max(0, now - target.since)
        raise Refusal(409, "not_away", f"seat {target.seat} has been away {away // 1000} s, "
                                       f"handing it to a bot needs {claim_after // 1000} s")


def claim(actor: int, actor_by: str | None, actor_resigned: bool, target: SeatPresence,
          target_by: str | None, claim_after: int, now: int, over: bool, bot: str,
          level: int | None) -> SeatControllerChanged:
    """Seat ``actor`` claims ``target.seat`` for a bot (``bot``/``level``: the service's
    replacement bot, server/http/takeover.py)."""
    _running(over)
    seat = target.seat
    if actor == seat:
        raise Refusal(409, "own_seat", "resign to give up your own seat")
    if actor_by != "player" or actor_resigned:
        raise Refusal(409, "not_playing", "only a player who plays their own seat may claim")
    if target_by != "player":
        raise Refusal(409, "not_a_player", f"seat {seat} is not played by a person now")
    _gone(target, claim_after, now)
    return SeatControllerChanged(seat, "bot", "abandoned", bot, level)


def handover(actor: int | None, target: SeatPresence, seat_by: str | None, claim_after: int,
             now: int, over: bool, bot: str, level: int | None) -> SeatControllerChanged:
    """The host (seated at ``actor``, ``None`` when it holds no seat) hands
    ``target.seat`` (a person's, ``gone``) to a bot."""
    _running(over)
    seat = target.seat
    if actor == seat:
        raise Refusal(409, "own_seat", "resign to give up your own seat")
    if seat_by != "player":
        raise Refusal(409, "seat_taken", f"seat {seat} already holds a bot")
    _gone(target, claim_after, now)
    return SeatControllerChanged(seat, "bot", "handover", bot, level)


def resign(actor: int, resigned: bool, over: bool, bot: str,
           level: int | None) -> SeatControllerChanged:
    """Seat ``actor`` resigns."""
    _running(over)
    if resigned:
        raise Refusal(409, "resigned", "you have already resigned")
    return SeatControllerChanged(actor, "bot", "resigned", bot, level)


def take_back(actor: int, by: str | None, resigned: bool, over: bool) -> SeatControllerChanged:
    """Seat ``actor``'s player takes the seat back from its bot."""
    _running(over)
    if resigned:
        raise Refusal(409, "resigned", "a resigned seat stays with its bot")
    if by != "bot":
        raise Refusal(409, "playing", "you play this seat already")
    return SeatControllerChanged(actor, "player", "returned")
