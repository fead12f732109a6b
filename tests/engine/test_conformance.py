"""The conformance suite: every game of the registry (``engine.GAMES``) against the
``Game`` protocol, as OpenSpiel's games_sim_test runs over ``registered_games()``.

It names no game. Seat counts come from each game's ``min_players`` … ``max_players`` and
the length bound from its ``max_game_length``, so registering a game is all it takes for
it to be checked. Per game and seat count, seeded random games are played to their end,
the seat to act drawn from all of ``to_move`` (simultaneous decisions included), and
checked at every decision and event:

- every viewer has a view of the empty state (before ``game_started``), nobody to move;
- ``to_move`` lists seats at the table, ascending; every one of them has legal actions
  and no other seat has any; the game ends within ``max_game_length`` events;
- every legal action and event round-trips its codec, each ``project``ion is JSON;
  ``legal_form`` expands to exactly ``legal_actions``, ``action_details`` (when given)
  has one entry per action; ``decide`` changes no state; a uniform game's views and
  projections are the same for every viewer;
- what a seat cannot see cannot show: a state ``sample``d from a seat's ``observation``
  gives that seat the same observation, and it and the spectators the same view;
- at the end: ``is_over``, the ``GameResult`` shape the server reads (also in the
  spectators' view), ``replay`` of the events equals the fold, and the record
  (``make_record`` → JSON → ``replay_record`` / ``record_view``) rebuilds the game, its
  dealt cards those of ``shuffled_deck``.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from engine import GAMES, RecordError, record_game
from engine.bots import SEARCH_KINDS
from engine.game import Game, Message

CASES = [pytest.param((name, seats), id=f"{name}-{seats}")
         for name, game in GAMES.items()
         for seats in range(game.min_players, game.max_players + 1)]

SEEDS = ("c1", "c2")
SAMPLED = 12
"""Decisions per game at which the hidden-information checks run (spread over the game)."""


def views(game: Game, state: Any, seats: int) -> list[Any]:
    """Every viewer's view: the spectators', then each seat's."""
    return [game.view(state, v) for v in (None, *range(seats))]


def json_roundtrip(value: Any) -> Any:
    return json.loads(json.dumps(value))


class Played:
    """One seeded random game of ``game`` at ``seats`` seats, checked as it is played."""

    def __init__(self, game: Game, seats: int, seed: str) -> None:
        self.game, self.seats, self.seed = game, seats, seed
        self.players = [f"p{i}" for i in range(seats)]
        self.options = game.check_options({}, seats)
        rng = random.Random(seed)
        self.events: list[Message] = list(game.start(self.players, self.options, seed))
        self.actions: list[Message] = []
        state = game.replay(self.events)
        self.check_events(self.events)
        decisions = 0
        sample_every = 1 + game.max_game_length // (4 * SAMPLED)
        while not game.is_over(state):
            assert len(self.events) <= game.max_game_length, "the game outlasts its bound"
            movers = game.to_move(state)
            assert movers, "a game that is not over has a seat to move"
            assert list(movers) == sorted(set(movers)) and set(movers) <= set(range(seats))
            for other in set(range(seats)) - set(movers):
                assert game.legal_actions(state, other) == []
            seat = rng.choice(movers)
            legal = self.check_decision(state, seat)
            if decisions % sample_every == 0:
                self.check_hidden(state, rng)
            action = rng.choice(legal)
            before = views(game, state, seats)
            events = game.decide(state, action)
            assert views(game, state, seats) == before, "decide changed the state"
            assert events, "an accepted action causes events"
            for e in events:
                state = game.evolve(state, e)
            self.check_events(events)
            self.actions.append(action)
            self.events.extend(events)
            decisions += 1
        assert len(self.events) <= game.max_game_length
        assert game.to_move(state) == ()
        self.state = state

    def check_decision(self, state: Any, seat: int) -> list[Message]:
        game = self.game
        legal = game.legal_actions(state, seat)
        assert legal, f"seat {seat} is to move without a legal action"
        for a in legal:
            wire = json_roundtrip(a.to_dict())
            assert wire["seat"] == seat  # the server fills in and checks the sender's seat
            assert game.actions.decode(wire) == a
        form = game.legal_form(state, seat)
        if form is not None:
            assert game.expand_form(json_roundtrip(form)) == legal
        details = game.action_details(state, seat)
        if details is not None:
            assert len(details) == len(legal)
            json.dumps(details)
        return legal

    def check_events(self, events: list[Message]) -> None:
        game = self.game
        for e in events:
            assert game.events.decode(json_roundtrip(e.to_dict())) == e
            projections = [game.project(e, v) for v in (None, *range(self.seats))]
            json.dumps(projections)
            if game.uniform_view:
                assert all(p == projections[0] for p in projections)

    def check_hidden(self, state: Any, rng: random.Random) -> None:
        """A state drawn from what a seat knows looks the same to it and to spectators."""
        game = self.game
        seen = views(game, state, self.seats)
        json.dumps(seen)
        if game.uniform_view:
            assert all(v == seen[0] for v in seen)
        for seat in range(self.seats):
            obs = game.observation(state, seat)
            assert obs.seat == seat
            if SEARCH_KINDS & set(game.bots()):  # its search bots read the legal actions
                assert list(obs.legal) == game.legal_actions(state, seat)
            sampled = game.sample(obs, rng)
            assert game.observation(sampled, seat) == obs
            assert game.view(sampled, seat) == seen[1 + seat]
            assert game.view(sampled, None) == seen[0], "spectators see a hidden card"


@pytest.fixture(scope="module", params=CASES)
def played(request: pytest.FixtureRequest) -> list[Played]:
    name, seats = request.param
    return [Played(GAMES[name], seats, seed) for seed in SEEDS]


def test_declarations() -> None:
    for name, game in GAMES.items():
        assert game.name == name and game.title
        assert 1 <= game.min_players <= game.max_players
        assert isinstance(game.max_game_length, int) and game.max_game_length > 0
        assert game.options_schema["type"] == "object"
        json.dumps(game.options_schema)
        assert next(iter(game.bots())) == "random"
        json.dumps(game.catalogue())
        for seats in range(game.min_players, game.max_players + 1):
            game.check_options({}, seats)
        for seats in (game.min_players - 1, game.max_players + 1):
            with pytest.raises(ValueError):
                game.check_options({}, seats)
        # A table's views exist before its game_started (the server builds them first).
        empty = game.initial_state()
        json.dumps([game.view(empty, v) for v in (None, *range(game.max_players))])
        assert not game.is_over(empty) and game.to_move(empty) == ()


def test_random_games_end_within_the_declared_length(played: list[Played]) -> None:
    for p in played:
        assert p.game.is_over(p.state)
        assert len(p.events) <= p.game.max_game_length


def test_result_has_the_shape_the_server_reads(played: list[Played]) -> None:
    for p in played:
        result = p.game.result(p.state)
        assert result is not None
        json.dumps(result)
        assert [s["seat"] for s in result["scores"]] == list(range(p.seats))
        for s in result["scores"]:
            assert s["total"] is None or isinstance(s["total"], int)
        assert result["winners"] == sorted(set(result["winners"]))
        assert set(result["winners"]) <= set(range(p.seats))
        assert p.game.view(p.state, None).get("result") == result  # the ratings read it


def test_replay_equals_the_fold(played: list[Played]) -> None:
    for p in played:
        replayed = p.game.replay(p.events)
        assert views(p.game, replayed, p.seats) == views(p.game, p.state, p.seats)
        assert p.game.result(replayed) == p.game.result(p.state)
        assert p.game.is_over(replayed)


def test_record_round_trip(played: list[Played]) -> None:
    for p in played:
        game = p.game
        deck = game.setup_deck(p.events)
        want = game.shuffled_deck(p.seats, p.options, p.seed)
        if isinstance(want, dict):  # named setup lists; those drawn in play are extra
            assert want == {k: deck[k] for k in want}
        else:
            assert deck == want
            assert set(deck) <= set(game.catalogue()["cards"])
        record = json_roundtrip(game.make_record(p.players, p.options, p.seed, deck,
                                                 p.actions))
        assert record["game"] == game.name and record_game(record) is game
        assert record[game.deck_field] is not None
        state, events = game.replay_record(record)
        # A game dealing named lists may list more in the replayed first event than in the
        # live one (the lists the record says were drawn in play: Loot Island's orders).
        first = 1 if isinstance(want, dict) else 0
        assert [e.to_dict() for e in events[first:]] == [e.to_dict() for e in p.events[first:]]
        assert views(game, state, p.seats) == views(game, p.state, p.seats)
        assert game.result(state) == game.result(p.state)
        for viewer in (None, *range(p.seats)):
            assert game.record_view(record, viewer) == game.public_view(p.state, viewer)
        with pytest.raises(RecordError):
            game.record_view(record, p.seats)
        with pytest.raises(RecordError):
            game.replay_record({**record, "game": "no-such-game"})
        if p.actions:
            bad = {**record, "actions": [{"type": "no_such_action", "seat": 0}]}
            with pytest.raises(RecordError) as e:
                game.replay_record(bad)
            assert e.value.index == 0
