"""The `strong` bot: determinized search over sampled deals, judged by expected Estimation score.

Every decision, the Dash Call, the call, the estimate and every card, goes through the same machinery
(:mod:`.search`): sample deals consistent with the view and the declarations, play each candidate out with
every seat aiming at its own target, and keep the candidate with the best mean score. The numbers behind
a card are exactly what :func:`estimation.hint.hint` reports; a declaration's candidates race
(:data:`RACE_Z`): one clearly behind after a batch of deals is dropped, so the bot's numbers cover fewer
deals than the hint's, which plays every candidate out on every deal.
"""

from __future__ import annotations

import random
from typing import Any

from .knowledge import Info, from_view
from .search import Budget, Evaluation, best_of, candidates_for, evaluate


def decision_seed(seed: int, info: Info) -> str:
    """The seed of one decision: the bot's seed and the public position (round, deal, actions so far).

    Keyed by position rather than drawn from a stream, two bots with the same seed (the strong bot and an
    ablation of it, in the same seat of the same duplicate game) sample the same deals at the same
    position even after their games have diverged, which is what makes their paired difference measure
    the ablated part and not sampling noise. The same view always gets the same samples."""
    return f"{seed}:{info.round}:{info.deal}:{len(info.actions)}"


#: The declarations' race (:attr:`.search.Budget.race_z`): a candidate three standard errors of its paired
#: difference behind the leader is dropped after a batch of deals. Measured as strong as every candidate on
#: every deal (the level ``strong-full``) at a fraction of the auction's CPU (docs/bots.md).
RACE_Z = 3.0


def default_budget() -> Budget:
    """The `strong` level's work a decision: the search's defaults, the declarations racing."""
    return Budget(race_z=RACE_Z)


class StrongBot:
    """Search bot. ``budget`` counts work (deals per decision), so a seeded bot is deterministic; by
    default the declarations race (:data:`RACE_Z`), the play does not."""

    name = "strong"

    def __init__(self, seed: int | None = None, budget: Budget | None = None,
                 name: str | None = None) -> None:
        self._seed = seed if seed is not None else random.getrandbits(64)
        self.budget = budget or default_budget()
        if name is not None:
            self.name = name
        self.last: list[Evaluation] = []

    def act(self, view: dict[str, Any]) -> str:
        return self.decide(from_view(view))

    def decide(self, info: Info) -> str:
        if not info.legal:
            raise ValueError("the view has no legal action: it is not this seat's turn")
        candidates = candidates_for(info)
        if len(candidates) == 1:
            self.last = []
            return candidates[0].text
        rng = random.Random(decision_seed(self._seed, info))
        self.last = evaluate(info, candidates, self.budget, rng)
        return best_of(self.last).action.text
