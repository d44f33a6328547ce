"""OpenSpiel's ISMCTS bot in a seat of our own tournament: a search bot nobody on this team wrote.

It decides through the OpenSpiel game: from the seat's position it builds a state that ends when the
round in play is scored (so its random rollouts estimate the seat's score for the round), whose hidden
hands are first redealt from the seat's information (it never starts from the true deal), and lets
``ISMCTSBot`` (random-rollout evaluator) search ``simulations`` times, resampling a world each time.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from ..game import Game
from .action_space import index_action
from .openspiel_game import GAME_NAME, EstimationState
from .sampling import redeal_hidden

DEFAULT_SIMULATIONS = 100
UCT_C = 2.0


class ISMCTSSeat:
    """Bot-interface adapter; ``game`` is the table (only its public facts and this seat's hand are used)."""

    def __init__(self, game: Game, seed: int, simulations: int = DEFAULT_SIMULATIONS) -> None:
        self.game = game
        self.name = f"ismcts@{simulations}"
        self._rng = random.Random(seed)
        self._spiel = pyspiel.load_game(GAME_NAME, {"ruleset": game.ruleset.name, "length": game.length,
                                                    "partners": game.partners})
        evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed % 2**31))
        self._bot = ismcts.ISMCTSBot(self._spiel, evaluator, UCT_C, simulations,
                                     random_state=np.random.RandomState((seed + 1) % 2**31))
        # Worlds drawn from this seat's own random source: the same seed gives the same search.
        self._bot.set_resampler(lambda state, player: state.resample_with(player, self._rng))

    def act(self, view: dict[str, Any]) -> str:
        seat = view["seat"]
        if seat != self.game.to_move:
            raise ValueError("the view has no legal action: it is not this seat's turn")
        legal = view["legal"]
        if len(legal) == 1:
            return str(legal[0])
        state = EstimationState.at_position(self._spiel, self.game)
        assert state.game is not None
        # Forget the true deal before the search sees anything: redeal what this seat cannot see.
        redeal_hidden(state.game, seat, self._rng)
        action = index_action(seat, int(self._bot.step(state)))
        if action.text not in legal:  # the search only ever proposes legal actions
            raise AssertionError(f"ISMCTS chose an illegal action {action}")
        return action.text
