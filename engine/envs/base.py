"""What the two adapters share: a game's fixed action and observation encodings
(``Encoding``) and one game in progress (``Match``).

**Actions as tokens.** Every adapter action is an index into a fixed, finite space of
``Encoding.num_tokens`` *tokens* per game (the same at every player count). An engine
action is a short sequence of tokens (``Encoding.tokens``): one token for Einauge and
Keltis, whose every possible action is enumerated once; several for Loot Island, whose
plays, discards and islet uses are combinations (up to 31,368 legal ones at a time, and
far more possible ones) and are chosen one part at a time (docs/games.md, "Machine
learning"). ``Match`` keeps the tokens chosen so far (``prefix``); the mask is the set of
next tokens that some legal action continues with, so the completed sequences are exactly
the engine's legal actions, each once. A sequence is never a prefix of another one.

**Chance.** A ``Match`` either starts from a seed (the engine's own shuffle, CONTRACT §2:
PettingZoo) or deals card by card through chance outcomes (OpenSpiel): ``Encoding.deals``
names the lists the shuffle fills, each card drawn uniformly from the cards still left
for that list, and a Loot Island map reshuffle is dealt the same way when a draw needs it.

Pure: no I/O; numpy only for the observation arrays.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from engine.game import Game, IllegalAction, Message

Deal = tuple[str, tuple[str, ...], int]
"""One list a shuffle fills: ``(name, pool, count)``: ``count`` cards drawn one at a time
from ``pool`` (canonical order), each uniformly among those not drawn yet."""


class Encoding:
    """A game's encodings for one player count. Subclasses set ``game``,
    ``chance_items`` (every id a chance outcome can deal, its outcome number = its index)
    and ``num_tokens``, and write ``tokens``, ``token_name``, ``encode``, ``deals`` and
    ``setup``."""

    game: Game
    chance_items: tuple[str, ...]
    num_tokens: int
    max_tokens_per_action: int = 1
    """The longest token sequence of one engine action."""
    max_chance_nodes: int
    """An upper bound on the chance outcomes of one game (setup and reshuffles)."""

    def __init__(self, players: int) -> None:
        if not self.game.min_players <= players <= self.game.max_players:
            raise ValueError(f"{self.game.name} takes {self.game.min_players}-"
                             f"{self.game.max_players} players, not {players}")
        self.players = players
        self.names = [f"player_{i}" for i in range(players)]
        self.chance_index = {c: i for i, c in enumerate(self.chance_items)}
        self.obs_size = int(self.encode_shape())

    # -- actions -------------------------------------------------------------------------

    def tokens(self, action: Message) -> tuple[int, ...]:
        """The token sequence of a legal ``action``; ``KeyError`` for one outside the
        encoding (an encoding bug: every legal action has a sequence)."""
        raise NotImplementedError

    def token_name(self, token: int) -> str:
        """A short readable name of ``token`` (0 ≤ token < num_tokens)."""
        raise NotImplementedError

    # -- observations --------------------------------------------------------------------

    def encode_shape(self) -> int:
        """The length of ``encode``'s vector at this player count."""
        raise NotImplementedError

    def encode(self, obs: Any, prefix: Sequence[int]) -> np.ndarray:
        """``obs`` (the engine's ``Game.observation`` of a seat) and the tokens the seat
        has chosen of its current action, as a float32 vector of ``obs_size`` values,
        each in ``[0, OBS_HIGH]``. Seats appear relative to the observer (itself first)."""
        raise NotImplementedError

    def info_string(self, obs: Any, prefix: Sequence[int]) -> str:
        """The engine observation as canonical JSON, and the chosen tokens: what the seat
        knows, nothing more (OpenSpiel's information state and observation strings)."""
        text = canonical_json(obs)
        if prefix:
            text += " | chosen: " + " ".join(self.token_name(t) for t in prefix)
        return text

    # -- chance --------------------------------------------------------------------------

    def deals(self, chosen: Mapping[str, list[str]]) -> Deal | None:
        """The next list to deal given the lists dealt so far (``chosen``, complete ones),
        or ``None`` once the setup is dealt."""
        raise NotImplementedError

    def setup(self, chosen: Mapping[str, list[str]]) -> list[Message]:
        """The game's start events from the dealt lists (``Game.start`` with that deck)."""
        raise NotImplementedError

    def reshuffle_pool(self, state: Any, action: Message) -> tuple[str, ...] | None:
        """When applying ``action`` needs a reshuffle the deal did not fix: the cards to
        reshuffle (canonical order); else ``None``. Only Loot Island reshuffles."""
        return None

    def add_reshuffle(self, state: Any, order: list[str]) -> None:
        """Record ``order`` as the next reshuffle of ``state`` (Loot Island)."""
        raise NotImplementedError


OBS_HIGH = 1000.0
"""The upper bound of every observation value (counts, never negative; ``Match.encode``
caps a larger one, which no game reaches)."""


def _plain(obj: Any) -> Any:
    """One level of an engine observation as JSON-able data (``json.dumps``'s
    ``default``: it calls this only for what it cannot write itself); ``legal`` is left
    out (it follows from the rest)."""
    if isinstance(obj, Message):
        return obj.to_dict()
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)
                if f.name != "legal"}
    raise TypeError(f"cannot encode {type(obj).__name__}")


def canonical_json(obs: Any) -> str:
    """``obs`` (an engine observation: dataclasses, tuples, dicts, messages) as JSON with
    sorted keys and no spaces: equal observations give equal text."""
    return json.dumps(obs, default=_plain, sort_keys=True, separators=(",", ":"))


class Match:
    """One game for an adapter: the engine state, the tokens chosen of the current
    action, and (dealt by chance) the lists still being dealt.

    Start it with ``start_seeded`` (the engine's shuffle) or ``start_dealing`` (chance
    outcomes, ``apply_chance`` until ``dealing`` is ``None``).
    """

    def __init__(self, enc: Encoding) -> None:
        self.enc = enc
        self.game = enc.game
        self.state: Any = None
        self.prefix: tuple[int, ...] = ()
        self._candidates: list[tuple[tuple[int, ...], Message]] | None = None
        self.chosen: dict[str, list[str]] = {}
        self.dealing: Deal | None = None
        self._drawn: list[str] = []
        self._pending: Message | None = None
        self.by_chance = False

    def copy(self) -> Match:
        """An independent copy (the engine state copied, the caches shared)."""
        m = Match.__new__(Match)
        m.__dict__.update(self.__dict__)
        m.state = None if self.state is None else self.state.copy()
        m.chosen = {k: list(v) for k, v in self.chosen.items()}
        m._drawn = list(self._drawn)
        return m

    def __deepcopy__(self, memo: dict[int, Any]) -> Match:
        # OpenSpiel clones a Python state by deep-copying its attributes: ``copy``
        # shares the immutable caches and copies the engine state once.
        return self.copy()

    # -- start ---------------------------------------------------------------------------

    def start_seeded(self, seed: str) -> None:
        """Set the game up with the engine's shuffle of ``seed`` (CONTRACT §2)."""
        self._begin(self.game.start(self.enc.names, None, seed))

    def start_dealing(self) -> None:
        """Begin dealing the setup by chance outcomes (``apply_chance``)."""
        self.by_chance = True
        self.dealing = self.enc.deals(self.chosen)

    def _begin(self, events: list[Message]) -> None:
        state = self.game.initial_state()
        for e in events:
            state = self.game.evolve(state, e)
        self.state = state
        self.prefix, self._candidates = (), None

    # -- chance --------------------------------------------------------------------------

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``(outcome, probability)`` of the next card dealt: uniform over the cards of
        the list being dealt not drawn yet, ascending. ``ValueError`` when not dealing."""
        if self.dealing is None:
            raise ValueError("no card is being dealt")
        drawn = set(self._drawn)
        left = [self.enc.chance_index[c] for c in self.dealing[1] if c not in drawn]
        p = 1.0 / len(left)
        return [(o, p) for o in sorted(left)]

    def apply_chance(self, outcome: int) -> None:
        """Deal the card numbered ``outcome``; ``ValueError`` if it is not left to deal."""
        if self.dealing is None:
            raise ValueError("no card is being dealt")
        name, pool, count = self.dealing
        card = self.enc.chance_items[outcome]
        if card not in pool or card in self._drawn:
            raise ValueError(f"{card} cannot be dealt now")
        self._drawn.append(card)
        if len(self._drawn) < count:
            return
        drawn, self._drawn = self._drawn, []
        if self.state is None:  # the setup
            self.chosen[name] = drawn
            self.dealing = self.enc.deals(self.chosen)
            if self.dealing is None:
                self._begin(self.enc.setup(self.chosen))
            return
        self.enc.add_reshuffle(self.state, drawn)  # a reshuffle: the waiting action goes on
        self.dealing = None
        pending, self._pending = self._pending, None
        assert pending is not None
        self._play(pending)

    # -- decisions -----------------------------------------------------------------------

    def seat(self) -> int | None:
        """The seat to decide now (``None`` while dealing or once the game has ended)."""
        if self.state is None or self.dealing is not None:
            return None
        seats = self.game.to_move(self.state)
        if len(seats) > 1:  # none of the games has simultaneous decisions yet
            raise ValueError(f"{self.game.name}: several seats to move at once")
        return seats[0] if seats else None

    def candidates(self) -> list[tuple[tuple[int, ...], Message]]:
        """The legal actions of the seat to move that continue ``prefix``, with their
        tokens (empty when nobody is to move)."""
        if self._candidates is None:
            seat = self.seat()
            if seat is None:
                return []
            enc = self.enc
            self._candidates = [(enc.tokens(a), a)
                                for a in self.game.legal_actions(self.state, seat)]
        return self._candidates

    def legal_tokens(self) -> list[int]:
        """The tokens the seat to move may choose next, ascending."""
        n = len(self.prefix)
        return sorted({t[n] for t, _ in self.candidates()})

    def mask(self) -> np.ndarray:
        """``legal_tokens`` as an int8 vector of ``num_tokens`` (1: legal)."""
        out = np.zeros(self.enc.num_tokens, dtype=np.int8)
        out[self.legal_tokens()] = 1
        return out

    def choose(self, token: int) -> Message | None:
        """Add ``token`` to the current action; when that completes a legal action, apply
        it (its events and the automatic ones after it) and return it. Raises
        ``IllegalAction`` (``bad_action``) for a token no legal action continues with."""
        n = len(self.prefix)
        rest = [(t, a) for t, a in self.candidates() if t[n] == token]
        if not rest:
            raise IllegalAction("bad_action", f"token {token} is not legal now")
        prefix = (*self.prefix, token)
        done = [a for t, a in rest if len(t) == n + 1]
        if done:
            self._play(done[0])
            return done[0]
        self.prefix, self._candidates = prefix, rest
        return None

    def _play(self, action: Message) -> None:
        pool = self.enc.reshuffle_pool(self.state, action) if self.by_chance else None
        if pool is not None:  # dealt by chance: the reshuffle is chance outcomes too
            self._pending = action
            self.dealing = ("reshuffle", pool, len(pool))
            self.prefix, self._candidates = (), None
            return
        self.game.play(self.state, action)
        self.prefix, self._candidates = (), None

    def observation(self, seat: int) -> Any:
        """The engine's observation of ``seat`` (``Game.observation``)."""
        return self.game.observation(self.state, seat)

    def encode(self, seat: int) -> np.ndarray:
        """``Encoding.encode`` of ``seat``'s observation, with the chosen tokens when it
        is the seat to move; values capped at ``OBS_HIGH``."""
        prefix = self.prefix if self.seat() == seat else ()
        vec = self.enc.encode(self.observation(seat), prefix)
        # The observation space's bound: a count past it (no game comes near) is capped.
        np.minimum(vec, OBS_HIGH, out=vec)
        return vec

    def info_string(self, seat: int) -> str:
        """``Encoding.info_string`` of ``seat`` (what it knows, as text)."""
        prefix = self.prefix if self.seat() == seat else ()
        return self.enc.info_string(self.observation(seat), prefix)

    def is_over(self) -> bool:
        """True once the engine's result is known."""
        return self.state is not None and self.game.is_over(self.state)

    def returns(self) -> list[float]:
        """Per seat: its share of the win (1/k for each of k winners, 0 for the others;
        all 0 when nobody won), once the game has ended; zeros before."""
        result = self.game.result(self.state) if self.state is not None else None
        out = [0.0] * self.enc.players
        if result is not None and result["winners"]:
            share = 1.0 / len(result["winners"])
            for w in result["winners"]:
                out[w] = share
        return out

    def scores(self) -> list[int | None]:
        """Per seat: the final ``total`` of the engine's result (``None`` before the end,
        or for a seat out of the ranking)."""
        result = self.game.result(self.state) if self.state is not None else None
        if result is None:
            return [None] * self.enc.players
        return [s["total"] for s in result["scores"]]


def multi_hot(index: Mapping[Any, int], items: Sequence[Any] | set[Any] | frozenset[Any],
              size: int) -> np.ndarray:
    """A float32 vector of ``size`` with 1 at ``index[item]`` for each item."""
    out = np.zeros(size, dtype=np.float32)
    for c in items:
        out[index[c]] = 1.0
    return out


def one_hot(i: int | None, size: int) -> np.ndarray:
    """A float32 vector of ``size`` with 1 at ``i`` (all zeros for ``None``)."""
    out = np.zeros(size, dtype=np.float32)
    if i is not None:
        out[i] = 1.0
    return out
