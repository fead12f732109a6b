"""Game setup: players, options and the deck (RULES-keltis "Setup", CONTRACT-keltis §1–2)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.keltis import events as ev
from engine.keltis.cards import CANONICAL, RANK
from engine.shuffle import RandomStream

MIN_PLAYERS, MAX_PLAYERS = 2, 4
MAX_NAME = 64


def check_players(players: Sequence[str]) -> list[str]:
    """2–4 non-empty names of at most 64 characters; raises ``ValueError`` otherwise."""
    if not isinstance(players, Sequence) or isinstance(players, str):
        raise ValueError("players must be a list of names")
    names = list(players)
    if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
        raise ValueError(f"Keltis needs {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(names)}")
    for name in names:
        if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME:
            raise ValueError(f"a player name must be 1 to {MAX_NAME} characters: {name!r}")
    return names


def check_options(options: Mapping[str, Any] | None) -> dict[str, Any]:
    """No options are defined yet (CONTRACT §1): ``{}`` or ``None``; any key is unknown
    and refused (typo safety). Raises ``ValueError``."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise ValueError("options must be an object")
    if options:
        raise ValueError(f"unknown option(s): {sorted(map(str, options))} (Keltis has none)")
    return {}


def shuffled_deck(seed: str) -> list[str]:
    """The 101 cards, top first: Fisher–Yates over ``CANONICAL`` on the SHA-256 stream of
    ``seed`` (CONTRACT-keltis §2: one shuffle, no color draw)."""
    return RandomStream(seed).shuffle(list(CANONICAL))


def check_deck(deck: Sequence[str]) -> list[str]:
    """A given deck: exactly the 101 card ids, each once (CONTRACT §1). Raises ``ValueError``."""
    if not isinstance(deck, Sequence) or isinstance(deck, str):
        raise ValueError("deck must be a list of the 101 card ids")
    cards = list(deck)
    for c in cards:
        if not isinstance(c, str) or c not in RANK:
            raise ValueError(f"deck: {c!r} is not a Keltis deck card")
    if len(set(cards)) != len(cards):
        raise ValueError("deck: a card appears twice")
    if len(cards) != len(CANONICAL):
        raise ValueError(f"deck: all {len(CANONICAL)} cards are needed, not {len(cards)}")
    return cards


def game_started(players: Sequence[str], options: Mapping[str, Any] | None,
                 seed: str | None = None, deck: Sequence[str] | None = None) -> ev.GameStarted:
    """The ``game_started`` event; ``deck`` wins over ``seed`` when both are given (the
    seed is then only recorded). Raises ``ValueError`` for bad players, options, deck or
    a missing seed."""
    names = check_players(players)
    opts = check_options(options)
    if deck is not None:
        cards = check_deck(deck)
    elif isinstance(seed, str):
        cards = shuffled_deck(seed)
    else:
        raise ValueError("a seed (a string) or a deck is needed")
    return ev.GameStarted(names, opts, cards)
