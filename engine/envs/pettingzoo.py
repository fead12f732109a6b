"""A game as a PettingZoo AEC environment (``engine.envs.pettingzoo_env``).

Agents ``player_0`` … ``player_<n-1>`` are the seats. Each agent's observation is a dict
``{"observation": float32 vector, "action_mask": int8 vector}``: the vector is the game's
encoding of the engine's observation of that seat (``Encoding.encode``: what the seat may
know, nothing more), the mask marks the tokens the agent may choose now (all zeros for an
agent not to move). An action is a token (``Discrete(num_tokens)``); Loot Island's
combined actions take several steps of the same agent (``engine.envs.base``).

**Rewards** come once, at the end: each winner gets 1/k of a win shared by k seats, the
others 0 (all 0 when nobody won). ``infos[agent]["score"]`` then holds the seat's final
``total``.

**Seeds**: ``reset(seed=s)`` deals the game the engine's shuffle (CONTRACT §2) deals for
the seed string ``str(s)``, the same deal as a service table with that seed; a reset
without a seed draws the next seed from a generator seeded by the environment's ``seed``,
so the same environment seed gives the same sequence of games.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from engine.envs.base import OBS_HIGH, Encoding, Match


class CardtableEnv(AECEnv):  # type: ignore[misc]
    """One game of the service as an AEC environment (module docstring)."""

    metadata = {"render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, enc: Encoding, seed: int | None = None,
                 render_mode: str | None = None) -> None:
        super().__init__()
        self.enc = enc
        self.metadata = {**CardtableEnv.metadata,
                         "name": f"cardtable_{enc.game.name.replace('-', '_')}_v0"}
        self.render_mode = render_mode
        self.possible_agents = list(enc.names)
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict({
            "observation": spaces.Box(0.0, OBS_HIGH, (enc.obs_size,), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (enc.num_tokens,), dtype=np.int8)})
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(enc.num_tokens) for a in self.possible_agents}
        self._seeds = np.random.default_rng(seed)
        self.match = Match(enc)

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The dict space of ``agent``'s observations."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """``Discrete(num_tokens)``."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game: dealt by the engine's shuffle of ``str(seed)``, or of the next seed
        of the environment's generator when ``seed`` is ``None`` (module docstring)."""
        if seed is not None:
            self._seeds = np.random.default_rng(seed)
            game_seed = str(seed)
        else:
            game_seed = str(int(self._seeds.integers(2**63)))
        self.match = Match(self.enc)
        self.match.start_seeded(game_seed)
        self.game_seed = game_seed
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self._selected()

    def _selected(self) -> str:
        seat = self.match.seat()
        if seat is None:  # the game has ended: any agent still to be stepped out
            return self.agents[0] if self.agents else self.possible_agents[0]
        return self.possible_agents[seat]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s observation vector and action mask."""
        seat = self.agent_name_mapping[agent]
        mask = (self.match.mask() if self.match.seat() == seat
                else np.zeros(self.enc.num_tokens, dtype=np.int8))
        return {"observation": self.match.encode(seat), "action_mask": mask}

    def step(self, action: int | None) -> None:
        """The selected agent chooses token ``action``. Raises ``ValueError`` for a token
        its mask does not allow."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None or not self.match.mask()[int(action)]:
            raise ValueError(f"{agent}: action {action!r} is not legal now")
        self._cumulative_rewards[agent] = 0.0
        self.match.choose(int(action))
        if self.match.is_over():
            returns = self.match.returns()
            scores = self.match.scores()
            for a in self.agents:
                i = self.agent_name_mapping[a]
                self.rewards[a] = returns[i]
                self.terminations[a] = True
                self.infos[a] = {"score": scores[i]}
        else:
            for a in self.agents:
                self.rewards[a] = 0.0
        self.agent_selection = self._selected()
        self._accumulate_rewards()
        if self.render_mode == "ansi":
            self.render()

    def render(self) -> str | None:
        """``ansi``: the spectators' view of the game as text; nothing otherwise."""
        if self.render_mode != "ansi":
            return None
        if self.match.state is None:
            return ""
        return repr(self.enc.game.public_view(self.match.state, None))

    def close(self) -> None:
        """Nothing to release."""
