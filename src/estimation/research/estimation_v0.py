"""Estimation as a PettingZoo AEC environment: ``estimation_v0.env(ruleset=..., length=...)``.

Agents ``player_0`` .. ``player_3`` are seats 0-3. Each observation is ``{"observation", "action_mask"}``:
the seat's view encoded by :mod:`estimation.research.encoding` and a mask over the 251 actions of
:mod:`estimation.research.action_space` (all zeros for a seat not to move). Rewards are score deltas: when
a round is scored every seat receives its score for that round; with ``partners=True`` (RULES.md,
Partnerships: seats 0+2 against 1+3) its side's score for that round, so that each agent's return is its
side's total. ``reset(seed=...)`` fixes the deals.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..dealing import fresh_seed
from ..game import Game
from ..rulesets import DEFAULT_RULESET, RULESETS, get_ruleset
from .action_space import NUM_ACTIONS, action_index, index_action
from .encoding import SIZE, encode_view

TOTAL_BOUND = 100.0  # encoded totals are points / 100
RENDER_MODES = ("human", "ansi")


def env(**kwargs: Any) -> AECEnv:
    """The environment wrapped as PettingZoo recommends (illegal moves end the game with a penalty)."""
    environment: AECEnv = raw_env(**kwargs)
    environment = wrappers.TerminateIllegalWrapper(environment, illegal_reward=-100)
    environment = wrappers.AssertOutOfBoundsWrapper(environment)
    return wrappers.OrderEnforcingWrapper(environment)


class raw_env(AECEnv):  # type: ignore[misc]
    """The unwrapped environment (PettingZoo's naming convention); :func:`env` wraps it."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": list(RENDER_MODES), "name": "estimation_v0", "is_parallelizable": False,
    }

    def __init__(self, ruleset: str = DEFAULT_RULESET, length: str | None = None,
                 render_mode: str | None = None, partners: bool = False) -> None:
        super().__init__()
        if ruleset not in RULESETS:
            raise ValueError(f"unknown ruleset {ruleset!r}")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {RENDER_MODES}")
        self.ruleset = ruleset
        self.length = length
        self.partners = partners
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(4)]
        self.agents = self.possible_agents[:]
        obs_space = spaces.Dict({
            "observation": spaces.Box(-TOTAL_BOUND, TOTAL_BOUND, shape=(SIZE,), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, shape=(NUM_ACTIONS,), dtype=np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self.game: Game | None = None

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    @staticmethod
    def _seat(agent: str) -> int:
        return int(agent.rsplit("_", 1)[1])

    def _agent(self, seat: int) -> str:
        return self.possible_agents[seat]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.game = Game(get_ruleset(self.ruleset), self.length, seed=fresh_seed() if seed is None else seed,
                         partners=self.partners)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        to_move = self.game.to_move
        assert to_move is not None
        self.agent_selection = self._agent(to_move)

    def _mask(self, seat: int) -> npt.NDArray[np.int8]:
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        assert self.game is not None
        if self.game.to_move == seat:
            for action in self.game.legal_actions():
                mask[action_index(action)] = 1
        return mask

    def observe(self, agent: str) -> dict[str, Any]:
        assert self.game is not None
        seat = self._seat(agent)
        return {"observation": encode_view(self.game.view(seat), seat), "action_mask": self._mask(seat)}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.game
        assert game is not None and action is not None
        scored = len(game.round_results)
        game.apply(index_action(self._seat(agent), int(action)))
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        for result in game.round_results[scored:]:
            scores = result.scores
            for seat in range(4):
                earned = scores[seat] + scores[(seat + 2) % 4] if self.partners else scores[seat]
                self.rewards[self._agent(seat)] += float(earned)
        if game.is_over:
            self.terminations = {a: True for a in self.agents}
        else:
            to_move = game.to_move
            assert to_move is not None
            self.agent_selection = self._agent(to_move)
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        text = self._text()
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def _text(self) -> str:
        game = self.game
        if game is None:
            return "(not reset)"
        view = game.view(None)
        lines = [f"{game.ruleset.name} {game.length}: round {view['round']}/{view['rounds']} "
                 f"({view['kind']}), phase {view['phase']}, trump {view['trump'] or '?'}, "
                 f"x{view['multiplier']}"]
        for seat in range(4):
            marker = view["markers"][seat]
            est = "-" if marker["estimate"] is None else marker["estimate"]
            lines.append(f"  {self._agent(seat)}: estimate {est}, tricks {marker['tricks']}, "
                         f"total {view['totals'][seat]}, cards {view['hand_sizes'][seat]}")
        if view["trick"]:
            lines.append("  trick: " + " ".join(f"{t['seat']}:{t['card']}" for t in view["trick"]))
        if view["sides"] is not None:
            lines.append("  sides: " + ", ".join(
                f"{self._agent(a)}+{self._agent(b)} {total}"
                for (a, b), total in zip(view["sides"]["seats"], view["sides"]["totals"], strict=True)))
        if view["to_move"] is not None:
            lines.append(f"  to move: {self._agent(view['to_move'])}")
        return "\n".join(lines)

    def close(self) -> None:
        pass
