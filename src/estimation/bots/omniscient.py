"""The `omniscient` reference bot: the strong bot's search run on the true deal. Tournament only.

It is the one bot allowed to see every hand, so it takes the :class:`Game` itself, never a view, and it is
deliberately absent from :func:`estimation.bots.make_bot` (the levels a server may seat). It gives the
ceiling the other bots are measured against: what the same machinery achieves with no uncertainty about
the cards. Its opponents' future declarations and play are still unknown to it (it models them with the
heuristic, like the strong bot does).
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from .knowledge import from_game
from .search import Budget, best_of, candidates_for, evaluate

if TYPE_CHECKING:
    from ..game import Game


class OmniscientBot:
    """Reads the hidden hands from ``game``; ``act`` accepts the view only to keep the bot interface."""

    name = "omniscient"
    sees_all_hands = True

    def __init__(self, game: Game, seed: int | None = None, budget: Budget | None = None) -> None:
        self.game = game
        self._rng = random.Random(seed)
        self.budget = budget or Budget(samples=1, play_samples=1, exact_tricks=3)

    def act(self, view: dict[str, Any]) -> str:
        seat = view["seat"]
        game = self.game
        if seat != game.to_move:
            raise ValueError("the view has no legal action: it is not this seat's turn")
        info = from_game(game, seat)
        candidates = candidates_for(info)
        if len(candidates) == 1:
            return candidates[0].text
        rng = random.Random(self._rng.getrandbits(64))
        n = self.budget.play_samples if info.phase == "play" else self.budget.samples
        truth = [list(game.hands) for _ in range(n)]
        return best_of(evaluate(info, candidates, self.budget, rng, deals=truth)).action.text
