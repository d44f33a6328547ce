"""The `strong-fast` bot: the `strong` bot's search (:mod:`.strong`) on fewer, carried deals, measured
weaker (docs/bots.md), which is why it is a level of its own. It was about a sixth of `strong`'s CPU
while both were pure Python; with `strong` compiled (the ``fast`` extra) it costs more a decision than
`strong` (docs/bots.md, the levels' table), its carried deals being repaired in Python.

It decides as `strong` does, from the same candidates, the same rollouts (every seat aiming at
its own estimate), the same exact endgame and the same declaration evidence; what differs is how much
work a decision gets, and where:

1. **The play's deals are drawn once a deal** (:mod:`.particles`): weighted by the declarations at the
   first lead, then repaired card by card, instead of a fresh weighted pool (128 deals, their likelihood,
   384 swap moves) for every card.
2. **A race instead of a fixed number of deals per candidate** (:func:`race`): every candidate is played
   out on the same deals in batches; after each batch, a candidate whose mean score is below the leader's
   by more than ``z`` standard errors of their paired difference (same deals) is dropped, and the race
   stops when one candidate is left or the deals run out. Obvious decisions stop after the first batch;
   close ones get every deal. The numbers are counted in deals, so the bot stays deterministic.
3. **Fewer deals**: at most 24 for a card and 20 for a declaration (from a pool of 40 weighted by the
   evidence) instead of 64 (from 128), and the race over them.
4. **The play's scorer is built once a round** (:func:`.shadow.round_scorer`, as `strong`'s: the shadow
   game replay cost more than a decision's rollouts late in a deal), and in the declarations'
   simulations the engine's legal declarations are computed once a decision per sequence of public
   actions (they never depend on the cards).
5. **The rollout kernel is inlined** (:func:`.policy.policy_rollout`, the same cards as its reference, 1.7
   times as fast; `strong` runs it too, with unchanged decisions).

Forced decisions (one candidate) cost nothing, as in `strong`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..actions import Action
from ..rulesets.base import Phase
from .knowledge import Info, from_view
from .particles import play_deals
from .policy import policy_rollout
from .sampler import sample_deals
from .search import REDEAL_VALUE, Evaluation, after_card, candidates_for, solve, still_racing
from .shadow import ShadowAuction, round_scorer, shadow_game
from .side import value
from .strong import decision_seed


@dataclass(slots=True)
class RaceBudget:
    """Work a decision: at most ``play_deals`` / ``declaration_deals`` deals, in batches of ``batch``;
    ``z``: how many standard errors behind the leader drop a candidate; exact endgame at or below
    ``exact_tricks`` tricks left."""

    play_deals: int = 24
    declaration_deals: int = 20
    batch: int = 8
    z: float = 3.0
    exact_tricks: int = 3
    oversample: int = 2
    for_side: bool = True

    @classmethod
    def plus(cls) -> RaceBudget:
        """The `strong-plus` level: 64 deals for every decision and no race (every candidate gets every
        deal), `strong`'s budget on the carried deals and the inlined kernel."""
        return cls(play_deals=64, declaration_deals=64, batch=64)


Sim = Callable[[Action, list[int]], tuple[float, int]]


def race(candidates: Sequence[Action], deals: Sequence[list[int]], sim: Sim, batch: int,
         z: float) -> list[Evaluation]:
    """Evaluate ``candidates`` on ``deals`` batch by batch, dropping the clearly worse (module docstring).

    Returns the evaluations of the candidates still in the race when it ended (all evaluated on the same
    deals), in the candidates' order."""
    evals = [Evaluation(a) for a in candidates]
    scores: list[list[float]] = [[] for _ in candidates]
    alive = list(range(len(candidates)))
    for start in range(0, len(deals), batch):
        for hands in deals[start:start + batch]:
            for i in alive:
                score, tricks = sim(evals[i].action, hands)
                ev = evals[i]
                ev.tricks[tricks] += 1
                ev.score_sum += score
                ev.n += 1
                scores[i].append(score)
        if len(alive) == 1:
            break
        alive = still_racing(evals, scores, alive, z)
    return [evals[i] for i in alive]


class Strong2Bot:
    """The `strong-fast` level (module docstring); ``seed`` as for every bot."""

    name = "strong-fast"

    def __init__(self, seed: int | None = None, budget: RaceBudget | None = None,
                 name: str | None = None) -> None:
        self._seed = seed if seed is not None else random.getrandbits(64)
        self.budget = budget or RaceBudget()
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
        b = self.budget
        if info.phase == str(Phase.PLAY):
            deals = play_deals(info, b.play_deals, b.oversample)
            sim = self._play_sim(info, deals[0])
        else:
            rng = random.Random(decision_seed(self._seed, info))
            deals = sample_deals(info, b.declaration_deals, rng, True, 1.0, b.oversample)
            sim = self._declaration_sim(info, deals[0])
        self.last = race(candidates, deals, sim, b.batch, b.z)
        best = self.last[0]
        for ev in self.last[1:]:
            if ev.score_sum > best.score_sum + 1e-9:
                best = ev
        return best.action.text

    def _play_sim(self, info: Info, hands0: list[int]) -> Sim:
        scorer = round_scorer(info, hands0)  # one a round, shared with `strong` and every seat
        trump = info.trump if info.trump is not None else 4
        targets = [e if e is not None else 0 for e in info.estimates]
        me = info.seat
        side = info.partners and self.budget.for_side
        exact = info.hand.bit_count() <= self.budget.exact_tricks

        def sim(action: Action, hands: list[int]) -> tuple[float, int]:
            card = action.card
            assert card is not None
            h, leader, trick, won = after_card(info, hands, me, card, trump)
            tricks: Sequence[int]
            if exact:
                scores, tricks = solve(h, trump, leader, trick, won, scorer, side)
            else:
                tricks = policy_rollout(h, trump, leader, trick, won, targets)
                scores = scorer(tricks)
            return value(scores, me, side), tricks[me]
        return sim

    def _declaration_sim(self, info: Info, hands0: list[int]) -> Sim:
        base = shadow_game(info, hands0)
        me = info.seat
        side = info.partners and self.budget.for_side

        # The rest of the auction is a tree shared by the decision's deals (ShadowAuction): the engine is
        # asked only for sequences no deal has reached before, and an end's scorer is shared.
        auction = ShadowAuction(base)

        def sim(action: Action, hands: list[int]) -> tuple[float, int]:
            end = auction.after(hands, action)
            if end is None:
                return REDEAL_VALUE * info.multiplier, 0
            tricks = policy_rollout(*end.position(hands))
            return value(end.scorer(tricks), me, side), tricks[me]
        return sim
