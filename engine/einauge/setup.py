"""Game setup: options, the colors in play and the deck (RULES "Setup", CONTRACT §2)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.einauge import events as ev
from engine.einauge.cards import CARDS, COLORS, COLORS_IN_PLAY, ISLAND_CARDS
from engine.shuffle import RandomStream

END_RULES = ("round", "one_more_turn")
MAX_NAME = 64


def check_players(players: Sequence[str]) -> list[str]:
    """2–5 non-empty names of at most 64 characters; raises ``ValueError`` otherwise."""
    if not isinstance(players, Sequence) or isinstance(players, str):
        raise ValueError("players must be a list of names")
    names = list(players)
    if not 2 <= len(names) <= 5:
        raise ValueError(f"Einauge needs 2 to 5 players, not {len(names)}")
    for name in names:
        if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME:
            raise ValueError(f"a player name must be 1 to {MAX_NAME} characters: {name!r}")
    return names


def check_options(options: Mapping[str, Any] | None, n_players: int) -> dict[str, Any]:
    """Options with defaults filled in: ``end_rule`` (``"round"`` or ``"one_more_turn"``),
    ``color_bonus`` (bool) and, when given, ``removed_colors`` (exactly the number of
    colors the player count leaves out). Raises ``ValueError`` naming the bad option."""
    options = dict(options or {})
    unknown = set(options) - {"end_rule", "color_bonus", "removed_colors"}
    if unknown:
        raise ValueError(f"unknown option(s): {sorted(unknown)}")
    out: dict[str, Any] = {"end_rule": options.get("end_rule", "round"),
                           "color_bonus": options.get("color_bonus", False)}
    if out["end_rule"] not in END_RULES:
        raise ValueError(f"end_rule must be one of {list(END_RULES)}, not {out['end_rule']!r}")
    if not isinstance(out["color_bonus"], bool):
        raise ValueError("color_bonus must be true or false")
    removed = options.get("removed_colors")
    if removed is not None:
        want = 8 - COLORS_IN_PLAY[n_players]
        if (not isinstance(removed, list) or len(set(removed)) != len(removed)
                or not set(removed) <= set(COLORS) or len(removed) != want):
            raise ValueError(f"removed_colors must list {want} distinct colors of "
                             f"{list(COLORS)} for {n_players} players")
        out["removed_colors"] = list(removed)
    return out


def shuffled_deck(n_players: int, seed: str, removed_colors: list[str] | None = None) -> list[str]:
    """The island cards in play, top first, by the shuffle of CONTRACT section 2.

    One stream: first the colors (skipped when ``removed_colors`` is given or all 8
    play), then the deck of the colors in play listed in canonical order.
    """
    stream = RandomStream(seed)
    keep = COLORS_IN_PLAY[n_players]
    if removed_colors is not None:
        out = set(removed_colors)
    elif keep < len(COLORS):
        out = set(stream.shuffle(list(COLORS))[: len(COLORS) - keep])
    else:
        out = set()
    return stream.shuffle([c for c in ISLAND_CARDS if CARDS[c].color not in out])


def check_deck(deck: Sequence[str]) -> list[str]:
    """A given deck: distinct island card ids, at least 7 (display and pirate table).

    Raises ``ValueError``. Colors absent from it are out of play (CONTRACT section 1).
    """
    if not isinstance(deck, Sequence) or isinstance(deck, str):
        raise ValueError("deck must be a list of island card ids")
    cards = list(deck)
    for c in cards:
        if not isinstance(c, str) or c not in CARDS or CARDS[c].color is None:
            raise ValueError(f"deck: {c!r} is not an island card")
    if len(set(cards)) != len(cards):
        raise ValueError("deck: a card appears twice")
    if len(cards) < 7:
        raise ValueError("deck: at least 7 island cards are needed for the setup")
    return cards


def game_started(players: Sequence[str], options: Mapping[str, Any] | None,
                 seed: str | None = None, deck: Sequence[str] | None = None) -> ev.GameStarted:
    """The ``game_started`` event; ``deck`` wins over ``seed`` when both are given."""
    names = check_players(players)
    opts = check_options(options, len(names))
    removed = opts.pop("removed_colors", None)
    if deck is not None:
        if removed is not None:
            raise ValueError("removed_colors goes only with a shuffled deck, not a given one")
        cards = check_deck(deck)
    elif isinstance(seed, str):
        cards = shuffled_deck(len(names), seed, removed)
    else:
        raise ValueError("a seed (a string) or a deck is needed")
    return ev.GameStarted(names, opts, cards)
