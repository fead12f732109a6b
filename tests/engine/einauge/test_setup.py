"""Setup (RULES "Setup", CONTRACT sections 1 and 2): players, options, given decks."""

from __future__ import annotations

import pytest

from engine.einauge import EINAUGE
from engine.einauge import events as ev
from engine.einauge.cards import CARDS, COLORS, ISLAND_CARDS, SHIPS
from engine.einauge.view import client_view
from tests.engine.einauge.helpers import Table, filler


def test_card_set() -> None:
    assert len(ISLAND_CARDS) == 56 and len(SHIPS) == 8
    assert ISLAND_CARDS[:2] == ("blue-2", "blue-3") and ISLAND_CARDS[-1] == "gray-8"
    assert CARDS["blue-4"][3:] == (1, 1, 0, 2)  # the printed blue cards (RULES ★)
    assert CARDS["blue-5"][3:] == (1, 2, 0, 0)
    assert CARDS["blue-8"][3:] == (0, 0, 2, 1)
    assert all(CARDS[s].price == 5 and CARDS[s].color is None for s in SHIPS)


@pytest.mark.parametrize(("n", "colors"), [(2, 5), (3, 6), (4, 7), (5, 8)])
def test_colors_in_play_by_player_count(n: int, colors: int) -> None:
    t = Table(None, players=[f"p{i}" for i in range(n)], seed=f"s{n}")
    assert len(t.state.colors) == colors
    assert t.state.deck_count == 7 * colors - 7 + 8
    assert t.state.deck[-8:] == list(SHIPS)  # ships under the deck, in order
    assert client_view(t.state, None)["islands_in_deck"] == 7 * colors - 7


def test_given_deck_decides_colors_and_order() -> None:
    deck = ["red-8", "gray-2", "red-2", "gray-3", "red-3", "gray-4", "red-4"]
    t = Table(deck, players=["a", "b", "c", "d", "e"], seed="ignored")
    assert t.state.colors == ("red", "gray")
    assert t.state.display == deck[:6] and t.state.pirate_table == ["red-4"]
    assert t.state.deck_count == 8
    assert t.events[0] == ev.GameStarted(["a", "b", "c", "d", "e"],
                                         {"end_rule": "round", "color_bonus": False}, deck)


def test_given_deck_without_seed() -> None:
    t = Table(filler(7), seed=None)  # type: ignore[arg-type]
    assert t.state.display == filler(7)[:6]


@pytest.mark.parametrize("deck", [
    filler(6),                          # fewer than 7
    [*filler(6), "ship-1"],             # a ship
    [*filler(6), filler(1)[0]],         # a duplicate
    [*filler(6), "blue-9"],             # not a card
    "blue-2",                           # not a list
])
def test_bad_decks_refused(deck: object) -> None:
    with pytest.raises(ValueError):
        EINAUGE.start(["a", "b"], {}, "s", deck)  # type: ignore[arg-type]


@pytest.mark.parametrize(("players", "options"), [
    (["a"], {}),
    (["a"] * 6, {}),
    (["a", ""], {}),
    (["a", "x" * 65], {}),
    ("ab", {}),
    (["a", "b"], {"end_rule": "sudden"}),
    (["a", "b"], {"color_bonus": "yes"}),
    (["a", "b"], {"colour_bonus": True}),                    # unknown option
    (["a", "b"], {"removed_colors": ["red", "blue"]}),       # 2 players leave out 3
    (["a", "b"], {"removed_colors": ["red", "red", "blue"]}),
    (["a", "b"], {"removed_colors": ["red", "blue", "pink"]}),
    (["a", "b", "c", "d", "e"], {"removed_colors": ["red"]}),
    (["a", "b", "c", "d"], {"removed_colors": "red"}),
])
def test_bad_players_and_options_refused(players: object, options: dict) -> None:
    with pytest.raises(ValueError):
        EINAUGE.start(players, options, "seed")  # type: ignore[arg-type]


def test_removed_colors_only_without_deck_and_seed_required() -> None:
    with pytest.raises(ValueError):
        EINAUGE.start(["a", "b", "c", "d"], {"removed_colors": ["red"]}, "s", filler(7))
    with pytest.raises(ValueError):
        EINAUGE.start(["a", "b"], {}, None)  # type: ignore[arg-type]


def test_removed_colors_given() -> None:
    t = Table(None, players=["a", "b", "c", "d"], removed_colors=["gray"])
    assert t.state.colors == COLORS[:7]
    assert "removed_colors" not in t.state.options


def test_defaults_filled_in() -> None:
    t = Table(filler(7))
    assert t.state.options == {"end_rule": "round", "color_bonus": False}
