"""A game as an OpenSpiel game, through OpenSpiel's Python game API
(``engine.envs.openspiel_game``).

Each game is registered once as ``python_cardtable_<game>`` (``-`` as ``_``) with the
parameter ``players``; ``load`` registers it on first use and loads it at a player count.

- **Chance**: the setup is dealt card by card: each chance node deals the next card of
  the list being dealt (``Encoding.deals``: Keltis's deck; Einauge's colors left out,
  then its deck; Loot Island's eight setup lists), uniformly among the cards not dealt
  yet, so every order has the shuffle's probability. A chance outcome is the card's
  index in ``Encoding.chance_items``. A Loot Island map reshuffle is dealt the same way at
  the moment a draw needs it; the waiting action then goes on.
- **Actions** are the encoding's tokens (``engine.envs.base``): one per action for
  Einauge and Keltis, a sequence for Loot Island's combined actions.
- **Information state and observation strings** of a seat are the engine's observation
  of it (``Game.observation``: what the seat may know, nothing more) as canonical JSON,
  plus the tokens it has chosen of its current action; the observation tensor is the
  encoding's vector (the PettingZoo observation). While the setup is being dealt every
  seat sees only how many cards have been dealt.
- **Returns**: each winner gets 1/k of a win shared by k seats, the others 0 (all 0 when
  nobody won): general-sum, in [0, 1].
- ``resample_from_infostate`` deals the hidden part anew with the engine's ``sample``
  (uniform over what the seat cannot see), for information-set search.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pyspiel

from engine.envs.base import Encoding, Match

_REGISTERED: set[str] = set()


def short_name(game: str) -> str:
    """The OpenSpiel name of an engine game (``python_cardtable_loot_island``, …)."""
    return "python_cardtable_" + game.replace("-", "_")


def _game_type(enc_cls: type[Encoding]) -> Any:
    game = enc_cls.game
    return pyspiel.GameType(
        short_name=short_name(game.name),
        long_name=f"Cardtable {game.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=game.max_players,
        min_num_players=game.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"players": game.min_players})


class CardtableGame(pyspiel.Game):  # type: ignore[misc]
    """An engine game at the player count of its ``players`` parameter."""

    encoding_class: type[Encoding]

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        players = int(params.get("players", self.encoding_class.game.min_players))
        self.enc = self.encoding_class(players)
        enc = self.enc
        info = pyspiel.GameInfo(
            num_distinct_actions=enc.num_tokens,
            max_chance_outcomes=len(enc.chance_items),
            num_players=players,
            min_utility=0.0,
            max_utility=1.0,
            max_game_length=(enc.max_chance_nodes
                             + enc.game.max_game_length * enc.max_tokens_per_action))
        super().__init__(_game_type(self.encoding_class), info, {"players": players})

    def new_initial_state(self) -> CardtableState:
        """A game before its first chance outcome."""
        return CardtableState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer:
        """The observer of ``iig_obs_type`` (perfect recall: the information state)."""
        return Observer(self.enc, iig_obs_type, params)


class CardtableState(pyspiel.State):  # type: ignore[misc]
    """One game in progress: a ``Match`` dealt by chance outcomes."""

    def __init__(self, game: CardtableGame) -> None:
        super().__init__(game)
        self.match = Match(game.enc)
        self.match.start_dealing()
        self.dealt = 0

    def current_player(self) -> int:
        """The seat to decide, ``CHANCE`` while dealing, ``TERMINAL`` at the end."""
        m = self.match
        if m.dealing is not None:
            return int(pyspiel.PlayerId.CHANCE)
        if m.is_over():
            return int(pyspiel.PlayerId.TERMINAL)
        seat = m.seat()
        assert seat is not None
        return seat

    def _legal_actions(self, player: int) -> list[int]:
        return self.match.legal_tokens()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The cards that may be dealt next, each with the same probability."""
        return self.match.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        if self.match.dealing is not None:
            self.match.apply_chance(int(action))
            self.dealt += 1
        else:
            self.match.choose(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        enc = self.match.enc
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {enc.chance_items[action]}"
        return enc.token_name(action)

    def is_terminal(self) -> bool:
        """True once the engine's result is known."""
        return self.match.is_over()

    def returns(self) -> list[float]:
        """Each seat's share of the win (0 before the end)."""
        return self.match.returns()

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> Any:
        """A state the seat ``player_id`` cannot tell from this one, its hidden part
        (other hands, deck order) dealt anew by the engine's ``sample`` with a
        ``random.Random`` seeded from ``probability_sampler``. Not while dealing."""
        m = self.match
        if m.state is None or m.dealing is not None:
            raise ValueError("resample a state after the setup")
        rng = random.Random(int(probability_sampler() * 2**53))
        out = self.get_game().new_initial_state()
        sampled = m.copy()
        sampled.state = m.game.sample(m.observation(player_id), rng)
        sampled.dealing = None
        sampled.by_chance = False  # the sample deals its reshuffles from its own seed
        out.match = sampled
        out.dealt = self.dealt
        return out

    def __str__(self) -> str:
        m = self.match
        if m.state is None:
            return f"dealing: {self.dealt} cards dealt"
        return repr(m.game.public_view(m.state, None))


class Observer:
    """OpenSpiel's Python observer: the encoding's vector as ``tensor`` (none for the
    perfect-recall information state, whose tensor the game does not provide) and the
    seat's string (module docstring)."""

    def __init__(self, enc: Encoding, iig_obs_type: Any, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        self.enc = enc
        recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        self.tensor: np.ndarray | None = (
            None if recall else np.zeros(enc.obs_size, dtype=np.float32))
        self.dict = {} if self.tensor is None else {"observation": self.tensor}

    def set_from(self, state: CardtableState, player: int) -> None:
        """Write ``player``'s vector of ``state`` into ``tensor``."""
        if self.tensor is None:
            return
        m = state.match
        if m.state is None:  # the setup is being dealt: nothing to see yet
            self.tensor.fill(0.0)
        else:
            self.tensor[:] = m.encode(player)

    def string_from(self, state: CardtableState, player: int) -> str:
        """``player``'s information state string of ``state``."""
        m = state.match
        if m.state is None:
            return f"dealing: {state.dealt} cards dealt"
        text = m.info_string(player)
        if m.dealing is not None:  # a reshuffle is being dealt: how far, nothing else
            text += f" | reshuffling: {len(m._drawn)} cards dealt"
        return text


def load(enc: Encoding) -> Any:
    """``pyspiel.load_game`` of ``enc``'s game at its player count, registering the game
    first if this process has not yet."""
    enc_cls = type(enc)
    name = short_name(enc.game.name)
    if name not in _REGISTERED:
        cls = type(f"CardtableGame_{name}", (CardtableGame,), {"encoding_class": enc_cls})
        pyspiel.register_game(_game_type(enc_cls), cls)
        _REGISTERED.add(name)
    return pyspiel.load_game(name, {"players": enc.players})

