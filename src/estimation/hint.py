"""`estimation hint` and its API: the numbers behind the strong bot's choice, for players who want to learn.

For a seat's view, every legal action gets the probability of the seat taking each number of tricks and
its expected Estimation score, estimated on deals sampled consistent with the view, exactly as the strong
bot evaluates its candidates (:mod:`estimation.bots.search`). Equivalent cards (no card anyone else holds
lies between them) are evaluated once and reported for each.
"""

from __future__ import annotations

import json
import random
from itertools import pairwise
from pathlib import Path
from typing import Any

from .actions import Verb
from .bots.knowledge import from_view
from .bots.search import Budget, Evaluation, best_of, candidates_for, evaluate


def hint(view: dict[str, Any], samples: int | None = None, seed: int = 0,
         max_seconds: float | None = None) -> dict[str, Any]:
    """The hint for the seat whose view this is (it must be that seat's turn).

    Returns ``{"seat", "phase", "samples", "best", "actions": [{"action", "expected_score",
    "expected_tricks", "tricks", "make_chance"}]}`` where ``tricks[k]`` is the probability of taking k
    tricks and ``make_chance`` (when the seat's target is known: in the play, and for an estimate) the
    chance of taking exactly the target, recalibrated against measured outcomes when the package ships
    a calibration (docs/bots.md, Hints' calibration).
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
        row: dict[str, Any] = {
            "action": action.text,
            "expected_score": round(ev.mean_score, 2),
            "expected_tricks": round(sum(k * p for k, p in enumerate(probs)), 2),
            "tricks": [round(p, 3) for p in probs],
        }
        target = action.number if action.verb is Verb.EST else (
            info.estimates[info.seat] if info.phase == "play" else None)
        if target is not None:
            # The chance of taking exactly the target, through the measured recalibration.
            row["make_chance"] = round(apply_calibration(_calibration(), probs[target]), 3)
        rows.append(row)
    return {
        "seat": info.seat,
        "phase": info.phase,
        "samples": evals[0].n,
        "best": best_of(evals).action.text,
        "actions": rows,
    }


# --- calibration of the chance of making the estimate ------------------------------------------------------
def fit_calibration(pairs: list[tuple[float, int]], bins: int = 20) -> list[list[float]]:
    """A monotone map from a predicted chance to an observed one, fitted on (predicted, made) pairs.

    The predictions are grouped into ``bins`` equal-width bins, then the bins' observed rates are made
    non-decreasing by pooling adjacent violators (isotonic regression, weighted by the bins' counts).
    Returns ``[[predicted mean, calibrated], ...]`` knots, interpolated linearly by
    :func:`apply_calibration`. Reproducible: bench/hint_calibration.py ``--fit``."""
    sums = [[0.0, 0.0, 0] for _ in range(bins)]
    for p, made in pairs:
        b = min(bins - 1, int(p * bins))
        sums[b][0] += p
        sums[b][1] += made
        sums[b][2] += 1
    blocks: list[list[float]] = []  # [sum p, sum made, n]
    for sp, sm, n in sums:
        if n == 0:
            continue
        blocks.append([sp, sm, float(n)])
        while len(blocks) > 1 and blocks[-2][1] / blocks[-2][2] > blocks[-1][1] / blocks[-1][2]:
            sp2, sm2, n2 = blocks.pop()
            blocks[-1][0] += sp2
            blocks[-1][1] += sm2
            blocks[-1][2] += n2
    return [[sp / n, sm / n] for sp, sm, n in blocks]


def apply_calibration(knots: list[list[float]], p: float) -> float:
    """``p`` through the map :func:`fit_calibration` fitted (linear between knots, flat beyond them)."""
    if not knots:
        return p
    if p <= knots[0][0]:
        return knots[0][1]
    for (x0, y0), (x1, y1) in pairwise(knots):
        if p <= x1:
            return y0 + (y1 - y0) * (p - x0) / (x1 - x0) if x1 > x0 else y1
    return knots[-1][1]


def load_calibration(path: Path) -> list[list[float]]:
    knots: list[list[float]] = json.loads(path.read_text(encoding="utf-8"))
    return knots


#: The map fitted by ``bench/hint_calibration.py --fit`` (shipped in the package; none: the raw chance).
CALIBRATION_FILE = Path(__file__).with_name("hint_calibration.json")
_KNOTS: list[list[float]] | None = None


def _calibration() -> list[list[float]]:
    global _KNOTS
    if _KNOTS is None:
        _KNOTS = load_calibration(CALIBRATION_FILE) if CALIBRATION_FILE.exists() else []
    return _KNOTS
