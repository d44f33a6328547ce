"""`estimation hint` and its API: the numbers behind the strong bot's choice, for players who want to learn.

For a seat's view, every legal action gets the probability of the seat taking each number of tricks and
its expected Estimation score, estimated on deals sampled consistent with the view, exactly as the strong
bot evaluates its candidates (:mod:`estimation.bots.search`). Equivalent cards (no card anyone else holds
lies between them) are evaluated once and reported for each.
"""

from __future__ import annotations

import random
from typing import Any

from .bots.knowledge import from_view
from .bots.search import Budget, Evaluation, best_of, candidates_for, evaluate


def hint(view: dict[str, Any], samples: int | None = None, seed: int = 0,
         max_seconds: float | None = None) -> dict[str, Any]:
    """The hint for the seat whose view this is (it must be that seat's turn).

    Returns ``{"seat", "phase", "samples", "best", "actions": [{"action", "expected_score",
    "expected_tricks", "tricks"}]}`` where ``tricks[k]`` is the probability of taking k tricks.
    """
    info = from_view(view)
    if not info.legal:
        raise ValueError("it is not this seat's turn: there is nothing to hint")
    budget = Budget()
    if samples is not None:
        budget.samples = budget.play_samples = samples
    if max_seconds is not None:  # a server answering a person keeps to its own time
        budget.max_seconds = max_seconds
    candidates = candidates_for(info, everything=True)
    evals = evaluate(info, candidates, budget, random.Random(seed))
    by_card: dict[int, Evaluation] = {}
    for ev in evals:
        if ev.action.card is not None:
            by_card[int(ev.action.card)] = ev
    rows = []
    for action in info.legal:
        if action.card is not None:
            card = int(action.card)
            # The evaluated card of the same run: the nearest evaluated card at or below it in its suit.
            ev = by_card.get(card) or by_card[max(c for c in by_card if c <= card and c // 13 == card // 13)]
        else:
            ev = next(e for e in evals if e.action is action)
        probs = ev.probabilities()
        rows.append({
            "action": action.text,
            "expected_score": round(ev.mean_score, 2),
            "expected_tricks": round(sum(k * p for k, p in enumerate(probs)), 2),
            "tricks": [round(p, 3) for p in probs],
        })
    return {
        "seat": info.seat,
        "phase": info.phase,
        "samples": evals[0].n,
        "best": best_of(evals).action.text,
        "actions": rows,
    }
