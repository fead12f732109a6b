"""Legality of each action (RULES phase 1-3, end of the game), as ``IllegalAction`` codes.

Each ``check_*`` reads the state, never changes it, and either raises ``IllegalAction``
with a stable code or returns what the rules need to emit the action's events. Codes:
``game_over``, ``wrong_step``, ``not_your_turn``, ``bad_action`` (a wrong type or value
out of range), ``not_in_hand``, ``unknown_landing``, ``mixed_colours``, ``wrong_colour``,
``colour_taken``, ``no_free_disc``, ``jokers_blocked``, ``joker_value_missing``,
``values_decrease``, ``value_too_low``, ``one_misplaced``, ``copy_not_allowed``,
``copy_unavailable``, ``unknown_islet``, ``islet_used``, ``islets_blocked``,
``bad_parameter``, ``no_disc_there``, ``disc_already_there``, ``not_on_offer``,
``unknown_healer``, ``healer_taken``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from engine.game import IllegalAction, Message
from engine.loot_island import actions as ac
from engine.loot_island.data import (
    ACTION,
    COLOUR,
    EVENTS,
    ISLET_COST,
    ISLETS,
    LANDING_INDEX,
    MAP,
    VALUE,
)
from engine.loot_island.state import State

_STEP = {ac.Discard: ("preparation", "discard"), ac.Play: ("actions", "act"),
         ac.Islet: ("actions", "act"), ac.Pass: ("actions", "act"),
         ac.ChooseHealer: ("healers", "choose")}


def modifier(s: State, key: str, default: Any = 0) -> Any:
    """The in-force event's modifier ``key`` (data file ``[events]``), else ``default``."""
    return EVENTS[s.event].get(key, default) if s.event is not None else default


def check_turn(s: State, a: Message) -> int:
    """The acting seat, once the action's type fits the pending step and it is that seat's
    decision; raises ``game_over``, ``wrong_step``, ``not_your_turn`` or ``bad_action``."""
    if s.phase == "ended":
        raise IllegalAction("game_over", "the game has ended")
    seat = getattr(a, "seat", None)
    if type(seat) is not int:
        raise IllegalAction("bad_action", "seat must be an integer")
    if type(a) in (ac.TakeLoot, ac.DiscardLoot):
        ok = s.phase in ("loot", "final_exploration") and s.offer is not None
    else:
        ok = (s.phase, s.step) == _STEP.get(type(a))
    if not ok:
        raise IllegalAction("wrong_step", f"{a.type} is not possible now "
                                          f"(phase {s.phase}, step {s.step})")
    if seat != s.current_seat:
        # Players count seats from 1, as Einauge and Keltis word it: seat 0 is player #1.
        raise IllegalAction("not_your_turn", f"it is player #{s.current_seat + 1}'s turn")
    return seat


def _card_list(s: State, seat: int, cards: Any) -> list[str]:
    if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
        raise IllegalAction("bad_action", "cards must be a list of card ids")
    if len(set(cards)) != len(cards):
        raise IllegalAction("bad_action", "cards: a card appears twice")
    hand = s.players[seat].hand
    for c in cards:
        if c not in hand:
            raise IllegalAction("not_in_hand", f"{c} is not in your hand")
    return cards


def _landing(value: Any, field: str = "landing") -> int:
    if not isinstance(value, str) or value not in LANDING_INDEX:
        raise IllegalAction("unknown_landing", f"{field}: {value!r} is not a landing")
    return LANDING_INDEX[value]


def check_discard(s: State, a: ac.Discard) -> tuple[int, list[str]]:
    """Phase 1: distinct cards from the hand (possibly none)."""
    seat = check_turn(s, a)
    return seat, _card_list(s, seat, a.cards)


class PlayPlan(NamedTuple):
    """A checked ``play``: landing index, cards, joker values, disc placed, under, copy."""

    seat: int
    landing: int
    cards: list[str]
    values: dict[str, int]
    disc_placed: bool
    under: bool
    copy: str | None


def check_play(s: State, a: ac.Play) -> PlayPlan:
    """RULES "Playing map cards" 1-4 and "The value-1 card"."""
    seat = check_turn(s, a)
    li = _landing(a.landing)
    cards = _card_list(s, seat, a.cards)
    if not cards:
        raise IllegalAction("bad_action", "cards: at least one card")
    values = {} if a.values is None else a.values
    if not isinstance(values, dict):
        raise IllegalAction("bad_action", "values must be an object")
    jokers = [c for c in cards if VALUE[c] == 0]
    if set(values) != set(jokers):
        extra = sorted(set(values) - set(jokers))
        if extra:
            raise IllegalAction("bad_action", f"values: {extra} are not jokers of the play")
        raise IllegalAction("joker_value_missing",
                            f"name a value for {sorted(set(jokers) - set(values))}")
    for c, v in values.items():
        if type(v) is not int or not 1 <= v <= 10:
            raise IllegalAction("bad_action", f"values: {c} must be named 1 to 10")
    if a.copy not in (None, "shed", "draw"):
        raise IllegalAction("bad_action", "copy must be \"shed\" or \"draw\"")
    colour = COLOUR[cards[0]]
    if any(COLOUR[c] != colour for c in cards):
        raise IllegalAction("mixed_colours", "all cards of a play have one colour")
    x = s.landings[li]
    other = s.landings[li ^ 1]
    if x.cards:
        if COLOUR[x.cards[0]] != colour:
            raise IllegalAction("wrong_colour", f"{a.landing} holds {COLOUR[x.cards[0]]} cards")
    elif other.cards and COLOUR[other.cards[0]] == colour:
        raise IllegalAction("colour_taken",
                            f"the other landing of the coast is already {colour}")
    has_disc = seat in x.discs
    if not has_disc and s.discs_free(seat) == 0:
        raise IllegalAction("no_free_disc", "you have no disc there and no free disc")
    if jokers and modifier(s, "no_jokers", False):
        raise IllegalAction("jokers_blocked", "no joker may be played at a landing now")
    ones = [i for i, c in enumerate(cards) if VALUE[c] == 1]
    under = bool(x.cards) and len(cards) == 1 and bool(ones)
    if a.copy is not None:
        if not under:
            raise IllegalAction("copy_not_allowed",
                                "copy only goes with a lone printed 1 pushed under a row")
        if not any(ACTION[c] == a.copy for c in x.cards):
            raise IllegalAction("copy_unavailable", f"no card of the row carries {a.copy}")
    if not under:
        if ones and (x.cards or ones != [0]):
            raise IllegalAction("one_misplaced", "a printed 1 is laid only first at an empty "
                                "landing, or alone under a row of its colour")
        seq = [values[c] if c in values else VALUE[c] for c in cards]
        if any(seq[i] > seq[i + 1] for i in range(len(seq) - 1)):
            raise IllegalAction("values_decrease", "values never decrease in the order laid")
        if x.cards and seq[0] < x.values[-1]:
            raise IllegalAction("value_too_low",
                                f"the first card must be at least {x.values[-1]}")
    return PlayPlan(seat, li, cards, values, not has_disc, under, a.copy)


class IsletPlan(NamedTuple):
    """A checked ``islet``: seat, islet, cards, skip, and the landings it names."""

    seat: int
    islet: str
    cards: list[str]
    skip: bool
    landing: str | None
    from_: str | None
    to: str | None


def islet_cost(event: str | None) -> dict[str, Any] | None:
    """What using an islet costs while ``event`` is in force (``None``: no event):
    ``{"cards": n, "one_colour": bool}``, or ``None`` when no islet may be used. The one
    statement of the cost, for ``check_islet``, ``can_use_islet`` and the catalogue a
    client shows it from (RULES "Using an islet", events A06 and B07)."""
    mods = EVENTS[event] if event is not None else {}
    if mods.get("no_islets", False):
        return None
    return {"cards": ISLET_COST, "one_colour": not mods.get("islet_any_cards", False)}


def check_islet(s: State, a: ac.Islet) -> IsletPlan:
    """RULES "Using an islet" and the islet table's parameters."""
    seat = check_turn(s, a)
    if not isinstance(a.islet, str) or a.islet not in ISLETS:
        raise IllegalAction("unknown_islet", f"{a.islet!r} is not an islet")
    if not s.islets_open[ISLETS.index(a.islet)]:
        raise IllegalAction("islet_used", f"{a.islet} was already used this round")
    cost = islet_cost(s.event)
    if cost is None:
        raise IllegalAction("islets_blocked", "no islet may be used now")
    cards = _card_list(s, seat, a.cards)
    if len(cards) != cost["cards"]:
        raise IllegalAction("bad_action", f"an islet costs {cost['cards']} map cards")
    if cost["one_colour"] and len({COLOUR[c] for c in cards}) != 1:
        raise IllegalAction("mixed_colours", "an islet costs cards of one colour")
    if a.skip is not None and type(a.skip) is not bool:
        raise IllegalAction("bad_action", "skip must be true or false")
    params = {"landing": a.landing, "from": a.from_, "to": a.to}
    if a.skip:
        wanted: tuple[str, ...] = ()
    else:
        wanted = {"islet-shortcut": ("landing",), "islet-camp": ("landing",),
                  "islet-portage": ("from", "to")}.get(a.islet, ())
    for k, v in params.items():
        if (v is None) == (k in wanted):
            what = "needs" if v is None else "takes no"
            raise IllegalAction("bad_parameter", f"{a.islet}{' with skip' if a.skip else ''} "
                                                 f"{what} {k!r}")
    if not a.skip:
        if a.islet == "islet-shortcut":
            if seat not in s.landings[_landing(a.landing)].discs:
                raise IllegalAction("no_disc_there", f"you have no disc at {a.landing}")
        elif a.islet == "islet-camp":
            if seat in s.landings[_landing(a.landing)].discs:
                raise IllegalAction("disc_already_there", f"you have a disc at {a.landing}")
            if s.discs_free(seat) == 0:
                raise IllegalAction("no_free_disc", "you have no free disc")
        elif a.islet == "islet-portage":
            src, dst = _landing(a.from_, "from"), _landing(a.to, "to")
            if seat not in s.landings[src].discs:
                raise IllegalAction("no_disc_there", f"you have no disc at {a.from_}")
            if src == dst or seat in s.landings[dst].discs:
                raise IllegalAction("disc_already_there",
                                    f"{a.to} must be another landing without your disc")
    return IsletPlan(seat, a.islet, cards, bool(a.skip), a.landing, a.from_, a.to)


def check_pick(s: State, a: ac.TakeLoot | ac.DiscardLoot) -> tuple[int, str]:
    """A pick of phase 3 or the final exploration: a card of the offer."""
    seat = check_turn(s, a)
    if not isinstance(a.card, str) or a.card not in (s.offer or ()):
        raise IllegalAction("not_on_offer", f"{a.card!r} is not on offer")
    return seat, a.card


def check_healer(s: State, a: ac.ChooseHealer) -> tuple[int, str]:
    """The healer step: a set-aside healer not yet taken."""
    seat = check_turn(s, a)
    if not isinstance(a.healer, str) or a.healer not in s.aside:
        raise IllegalAction("unknown_healer", f"{a.healer!r} is not a set-aside healer")
    if a.healer not in s.healers_left():
        raise IllegalAction("healer_taken", f"{a.healer} was already taken")
    return seat, a.healer


def can_play_alone(s: State, seat: int, card: str, li: int, free: bool | None = None) -> bool:
    """Whether ``card`` alone is a legal play at landing ``li`` (RULES phase 2, (a));
    ``free``: whether ``seat`` has a free disc, when the caller knows it already."""
    x = s.landings[li]
    if free is None:
        free = s.discs_free(seat) > 0
    if seat not in x.discs and not free:
        return False
    colour = MAP[card].colour
    if x.cards:
        if COLOUR[x.cards[0]] != colour:
            return False
    else:
        other = s.landings[li ^ 1].cards
        if other and COLOUR[other[0]] == colour:
            return False
    v = VALUE[card]
    if v == 0:
        return not modifier(s, "no_jokers", False)
    return v == 1 or not x.cards or v >= x.values[-1]


def can_use_islet(s: State, seat: int) -> bool:
    """Some islet is face up, none is blocked and the hand can pay (RULES phase 2, (b))."""
    cost = islet_cost(s.event)
    if not any(s.islets_open) or cost is None:
        return False
    hand = s.players[seat].hand
    if not cost["one_colour"]:
        return len(hand) >= cost["cards"]
    colours = [COLOUR[c] for c in hand]
    return any(colours.count(k) >= cost["cards"] for k in set(colours))


def can_act(s: State, seat: int) -> bool:
    """Whether ``seat`` has a legal action other than ``pass`` (else it passes by force)."""
    if can_use_islet(s, seat):
        return True
    free = s.discs_free(seat) > 0
    return any(can_play_alone(s, seat, c, li, free)
               for c in s.players[seat].hand for li in range(8))
