"""Inbound messages (docs/protocol.md §1-2): decoding and pydantic validation.

Websocket frames: binary = msgpack, text = JSON. ``decode_frame`` raises ``Undecodable``
(close 1003) for bytes that are not a msgpack/JSON object; ``parse_message`` raises
``BadMessage`` (error ``bad_message``, the socket stays open) for an object that is not a
valid message. Outbound frames are encoded without pydantic (``encode``).
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

import msgpack
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    TypeAdapter,
    ValidationError,
)

from engine import GAMES
from server.accounts import names

MAX_FRAME = 16 * 1024


class Undecodable(ValueError):
    """A frame that is not msgpack (binary) or JSON (text) holding an object."""


class BadMessage(ValueError):
    """A decoded message that does not validate; ``str()`` says what is wrong."""


class _Model(BaseModel):
    # Strict: "5" or true is not a number, 1 is not a bool (no silent coercion of input).
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


Scalar = StrictStr | StrictInt | StrictBool | None
ActionValue = (Scalar | Annotated[list[Annotated[Scalar, Field()]], Field(max_length=100)]
               | Annotated[dict[Annotated[str, Field(max_length=32)], Scalar],
                           Field(max_length=8)])
"""A field of an action: a scalar, a list of them (Keltis's ``stone`` names two cards; a
Loot Island ``discard`` names any cards of a hand, which has no limit but the 88 map
cards), or a small flat object of them (a Loot Island ``play`` names each joker's value:
``{"map-red-star-a": 9}``); what the fields mean is the game's to check."""


def _scalar_type(action: dict[str, Any]) -> dict[str, Any]:
    if isinstance(action.get("type"), list | dict):
        raise ValueError("type must be a string")
    return action


ActionBody = Annotated[dict[Annotated[str, Field(max_length=32)],
                            Annotated[ActionValue, Field()]], Field(max_length=8),
                       AfterValidator(_scalar_type)]


class Hello(_Model):
    """First frame: a seat token (``None``: spectator), the last seq the client has, and
    a private table's invite secret (``key``; not needed with a seat token)."""

    t: Literal["hello"]
    token: Annotated[str, Field(min_length=1, max_length=64)] | None = None
    last_seq: Annotated[int, Field(ge=0, le=1_000_000)] | None = None
    key: Annotated[str, Field(min_length=1, max_length=64)] | None = None
    viewer: Annotated[str, Field(min_length=16, max_length=64)] | None = None
    """A spectator's private random key: its public chat id is derived from it."""
    name: Annotated[str, Field(max_length=64)] | None = None
    """A spectator's chat name."""


class ActionMsg(_Model):
    """An action of the game, with a client-chosen id for the ack and idempotency."""

    t: Literal["action"]
    id: Annotated[str, Field(min_length=1, max_length=64)]
    action: ActionBody
    seq: Annotated[int, Field(ge=0, le=1_000_000)] | None = None
    """The seq the client decided at (its prompt's): if the table has moved on, the
    action is refused with ``stale`` instead of being decided against a newer state."""


class Sync(_Model):
    """Ask for a fresh ``welcome`` with the full view."""

    t: Literal["sync"]


class ChatMsg(_Model):
    """A chat message: free ``text`` or a ``quick`` code (server/play/chat.py checks which and
    the length, to answer with a precise error)."""

    t: Literal["chat"]
    text: Annotated[str, Field(max_length=4096)] | None = None
    quick: Annotated[str, Field(max_length=32)] | None = None


class ChatHistory(_Model):
    """Ask for the chat history again (a player, once the game has ended, may read the
    spectators' channel too)."""

    t: Literal["chat_history"]


Message = Hello | ActionMsg | Sync | ChatMsg | ChatHistory
Inbound = Annotated[Message, Field(discriminator="t")]
_INBOUND: TypeAdapter[Message] = TypeAdapter(Inbound)


def decode_frame(data: bytes | str, limit: int = MAX_FRAME) -> dict[str, Any]:
    """A frame's object: msgpack for ``bytes``, JSON for ``str``. Raises ``Undecodable``."""
    if len(data) > limit:
        raise Undecodable(f"frame of {len(data)} bytes exceeds {limit}")
    try:
        if isinstance(data, bytes):
            obj = msgpack.unpackb(data, raw=False, strict_map_key=True,
                                  max_array_len=256, max_map_len=64, max_str_len=limit,
                                  max_bin_len=0, max_ext_len=0)
        else:
            obj = json.loads(data)
    except Exception as e:  # msgpack and json raise many types for bad input
        raise Undecodable(f"cannot decode frame: {type(e).__name__}") from None
    if not isinstance(obj, dict):
        raise Undecodable("a frame must hold an object")
    return obj


def parse_message(obj: dict[str, Any]) -> Message:
    """Validate a decoded frame; raises ``BadMessage`` with a short reason."""
    try:
        return _INBOUND.validate_python(obj)
    except ValidationError as e:
        raise BadMessage(_reason(e.errors())) from None


FIELD_KINDS = ("a string, a whole number, true/false, null, a list of at most 100 of them "
               "or an object of at most 8 of them")


def _reason(errors: list[Any]) -> str:
    """The clearest sentence for a refused frame. A field of an action is a union
    (``ActionValue``): pydantic reports one error per member, the first being "Input
    should be a valid string" even for a list too long; name the field and what it may
    hold instead (for a list or an object, its own error)."""
    first = errors[0]
    loc = first["loc"]
    if (len(loc) >= 4 and loc[:2] == ("action", "action")
            and (loc[3] in ("str", "int", "bool") or str(loc[3]).startswith(("list", "dict")))):
        field = f"action.{loc[2]}"
        value = first.get("input")
        member = "list" if isinstance(value, list) else "dict" if isinstance(value, dict) else ""
        for err in errors if member else ():
            if str(err["loc"][3]).startswith(member):
                if len(err["loc"]) > 4:
                    return (f"{field}[{err['loc'][4]!r}]: an entry holds a string, a whole "
                            f"number, true/false or null")
                return f"{field}: {err['msg']}"
        return f"{field}: must be {FIELD_KINDS}"
    where = ".".join(str(p) for p in loc) or "message"
    return f"{where}: {first['msg']}"


def action_id(data: bytes | str, limit: int = MAX_FRAME) -> str | None:
    """The ``id`` of an action frame, if ``data`` decodes to an object with ``t`` "action"
    and a valid id (1-64 characters), else ``None``: what a refused frame's error names."""
    try:
        obj = decode_frame(data, limit)
    except Undecodable:
        return None
    aid = obj.get("id")
    if obj.get("t") == "action" and isinstance(aid, str) and 1 <= len(aid) <= 64:
        return aid
    return None


_PACKER = msgpack.Packer(use_bin_type=True, autoreset=True)
"""One packer for every frame (``msgpack.packb`` makes one, with its buffer, per call)."""


def encode(message: dict[str, Any], binary: bool) -> bytes | str:
    """An outbound frame: msgpack bytes, or compact JSON text."""
    if binary:
        return _PACKER.pack(message)
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False)


# ---- HTTP bodies ------------------------------------------------------------------------

class TimeControlBody(_Model):
    """A table's time control (server/play/clock.py): ``none``, ``live`` with a ``preset``,
    or ``async`` with ``days`` per move."""

    kind: Literal["none", "live", "async"] = "none"
    preset: Literal["fast", "normal", "slow"] | None = None
    days: Literal[1, 2, 3] | None = None


BIDI_CONTROLS = names.BIDI_CONTROLS
BOT_NAME = names.BOT_NAME
"""The service's names for bots (``Random bot 2``): no person or table may take one."""


def _clean_name(value: str, required: bool) -> str:
    """``value`` normalised (``server.accounts.names.normalise``: NFKC, stripped, one space
    between words); raises ``ValueError`` for an invisible, control or bidi character, a
    bot's name, or (``required``) nothing left; a person's name (``required``) also for
    a name the service keeps (admin, moderator...)."""
    value = names.normalise(value)
    if required and not value:
        raise ValueError("a name needs a visible character")
    if BOT_NAME.fullmatch(value):
        raise ValueError(f"{value!r} is a name the service gives its bots")
    if required and names.reserved_seat_name(value):
        raise ValueError(f"{value!r} is a name the service keeps for itself")
    return value


PlayerName = Annotated[str, Field(min_length=1, max_length=32),
                       AfterValidator(lambda v: _clean_name(v, True))]
"""A seated person's name: 1-32 characters, normalised (NFKC, stripped), visible, no
invisible, control or bidi character, not a bot's name nor a reserved one."""
TableName = Annotated[str, Field(max_length=64), AfterValidator(lambda v: _clean_name(v, False))]
"""A table's name, as ``PlayerName`` but it may be empty (an unnamed table)."""


class CreateTable(_Model):
    """``POST /api/tables``. The seat count and the options are the game's to check
    (``Game.check_options``, ``min_players``/``max_players``): the server holds no model
    of any game's options."""

    game: Annotated[str, Field(min_length=1, max_length=32)] | None = None
    """A registered game's name; absent: the service's ``default_game`` setting."""
    seats: Annotated[int, Field(ge=min(g.min_players for g in GAMES.values()),
                                le=max(g.max_players for g in GAMES.values()))]
    options: dict[str, Any] = Field(default_factory=dict)
    name: TableName = ""
    private: StrictBool = False
    """Unlisted, and reached only through the invite link (``server.play.roles``)."""
    time_control: TimeControlBody | None = None
    rated: StrictBool = False
    """Results change ratings; only accounts and bots may sit (``server.accounts.ratings``)."""


class CreateSeek(_Model):
    """``POST /api/seeks`` (docs/protocol.md §7): a game wanted now. ``time_control`` as
    for ``POST /api/tables``, but never ``none`` (absent: live ``normal``)."""

    game: Annotated[str, Field(min_length=1, max_length=32)]
    seats: Annotated[int, Field(ge=min(g.min_players for g in GAMES.values()),
                                le=max(g.max_players for g in GAMES.values()))]
    time_control: TimeControlBody | None = None
    rated: StrictBool = False
    bots_after: Annotated[int, Field(ge=0, le=3600)] | None = None
    """Seconds after which bots may take the seats no seeker filled (absent: never)."""
    name: PlayerName | None = None
    """A guest's shown name (an account plays under its username)."""


MAX_UNIX_SECONDS = 4_102_444_800.0
"""2100-01-01 in Unix seconds: no time a request names lies beyond it (a larger float,
1e306 or infinity, would overflow the milliseconds it becomes)."""


class CreateTournament(_Model):
    """``POST /api/tournaments`` (server/http/tournaments.py; what the game's options and
    seat count allow is the game's to check, as for a table)."""

    name: Annotated[str, Field(min_length=1, max_length=64),
                    AfterValidator(lambda v: _clean_name(v, False))]
    game: Annotated[str, Field(min_length=1, max_length=32)]
    kind: Literal["swiss", "arena"]
    seats: Annotated[int, Field(ge=2, le=5)]
    options: dict[str, Any] = Field(default_factory=dict)
    time_control: TimeControlBody
    """Always a clock: ``live`` or ``async`` (``none`` is refused)."""
    rated: StrictBool = False
    starts_at: Annotated[float, Field(gt=0, le=MAX_UNIX_SECONDS,
                                      allow_inf_nan=False)] | None = None
    """Unix seconds (finite, at most ``MAX_UNIX_SECONDS``; the handler narrows it to the
    next 30 days); absent: five minutes from now."""
    rounds: Annotated[int, Field(ge=1, le=15)] | None = None
    """Swiss only (and required there)."""
    minutes: Annotated[int, Field(ge=1, le=240)] | None = None
    """Arena only (and required there): how long new games are paired."""


class Join(_Model):
    """``POST /api/tables/{id}/join``."""

    name: PlayerName
    seat: Annotated[int, Field(ge=0, le=15)] | None = None
    invited: bool = False
    """Sit by the session account's invitation to this table (docs/protocol.md §1,
    "Invitations by name"): admits it to a private table."""


class AddBot(_Model):
    """``POST /api/tables/{id}/seats/{seat}/bot``."""

    kind: Annotated[str, Field(min_length=1, max_length=32)] = "random"
    level: Annotated[int, Field(ge=0, le=100)] | None = None


class Rematch(_Model):
    """``POST /api/tables/{id}/rematch``: optionally the caller's seed contribution to
    the new table (as ``/seed``)."""

    player_seed: Annotated[str, Field(max_length=64)] = ""


class Branch(_Model):
    """``POST /api/tables/{id}/branch`` (server/http/branch.py): where to play on from,
    ``index`` (actions played; 0: as dealt) or ``seq`` (a replay position: the actions
    begun by that stream entry), exactly one; the ``seat`` to play; a guest's ``name``;
    optionally the caller's seed contribution (as ``/seed``)."""

    index: Annotated[int, Field(ge=0)] | None = None
    seq: Annotated[int, Field(ge=0)] | None = None
    seat: Annotated[int, Field(ge=0, le=15)]
    name: PlayerName | None = None
    player_seed: Annotated[str, Field(max_length=64)] = ""


class PlayerSeed(_Model):
    """``POST /api/tables/{id}/seed``."""

    player_seed: Annotated[str, Field(max_length=64)]


def parse_body(model: type[_Model], obj: Any) -> Any:
    """Validate an HTTP body; raises ``BadMessage``."""
    try:
        return model.model_validate(obj)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "body"
        raise BadMessage(f"{where}: {first['msg']}") from None
