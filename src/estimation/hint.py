"""`estimation hint` and its API: the numbers behind the strong bot's choice, for players who want to learn.

For a seat's view, every legal action gets the probability of the seat taking each number of tricks and
its expected Estimation score, estimated on deals sampled consistent with the view, exactly as the strong
bot evaluates its candidates (:mod:`estimation.bots.search`). Equivalent cards (no card anyone else holds
lies between them) are evaluated once and reported for each.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from .actions import Action, Verb
from .bots.knowledge import from_view
from .bots.search import Budget, best_of, candidates_for, evaluate


def hint(view: dict[str, Any], samples: int | None = None, seed: int = 0,
         max_seconds: float | None = None, only: str | None = None) -> dict[str, Any]:
    """The hint for the seat whose view this is (it must be that seat's turn).

    Returns ``{"seat", "phase", "samples", "best", "actions": [{"action", "expected_score",
    "expected_tricks", "tricks", "make_chance"}]}`` where ``tricks[k]`` is the probability of taking k
    tricks and ``make_chance`` (when the seat's target is known: in the play, and for an estimate) the
    chance of taking exactly the target: ``tricks[target]`` through the shipped map of the decision's
    group (:func:`recalibrate`), because the raw chance is overconfident (docs/bots.md, Hints'
    calibration).

    ``only`` (an action's text): evaluate and report that action alone. Its row is the one the full hint
    gives (the deals are drawn before any candidate is played out, and the play-outs are deterministic;
    unless ``max_seconds`` cut the full hint short), at a fraction of the work: what
    bench/hint_calibration.py needs for thousands of decisions.
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
    actions = list(info.legal)
    if only is not None:
        actions = [next(a for a in info.legal if a.text == only)]
        candidates = [_representative(actions[0], candidates)]
    evals = evaluate(info, candidates, budget, random.Random(seed))
    by_action = {id(ev.action): ev for ev in evals}
    rows = []
    for action in actions:
        ev = by_action[id(_representative(action, candidates))]
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
            chance = recalibrate(_calibration(), probs[target], info.phase, info.hand.bit_count())
            row["make_chance"] = round(chance, 3)
        rows.append(row)
    return {
        "seat": info.seat,
        "phase": info.phase,
        "samples": evals[0].n,
        "best": best_of(evals).action.text,
        "actions": rows,
    }


def _representative(action: Action, candidates: list[Action]) -> Action:
    """The evaluated candidate whose numbers ``action`` gets: itself, or for a card not evaluated (one of
    a run of equivalent cards) the nearest evaluated card at or below it in its suit."""
    if action.card is None:
        return next(c for c in candidates if c is action)
    card = int(action.card)
    by_card = {int(c.card): c for c in candidates if c.card is not None}
    return by_card.get(card) or by_card[max(c for c in by_card if c <= card and c // 13 == card // 13)]


# --- calibration of the chance of making the estimate ------------------------------------------------------
#: A play decision with this many cards or fewer left in the seat's hand is in the ``play-late`` group. The
#: raw chance errs differently by phase: at the estimate the whole deal is played out by the heuristic
#: policy; late in the play few unknown cards remain (and the last three tricks are solved exactly), so a
#: raw 0.9 or more is made about 96% of the time late in the play but 75% early, and a single map for all
#: decisions pulls the one down with the other (docs/bots.md, Hints' calibration).
LATE_PLAY_CARDS = 4
GROUPS = ("estimate", "play-early", "play-late")
#: The shipped file's format: 3, a step map per group (2 had lines between the blocks' means).
SCHEMA = 3


def calibration_group(phase: str, cards_left: int) -> str:
    """The group whose map recalibrates a decision: ``estimate`` before the play, then ``play-early`` or
    ``play-late`` by the cards left in the seat's hand."""
    if phase != "play":
        return "estimate"
    return "play-late" if cards_left <= LATE_PLAY_CARDS else "play-early"


def fit_calibration(pairs: list[tuple[float, int]], bins: int = 20) -> list[list[float]]:
    """A monotone map from a predicted chance to an observed one, fitted on (predicted, made) pairs.

    The predictions are grouped into ``bins`` equal-width bins, then the bins' observed rates are made
    non-decreasing by pooling adjacent violators (isotonic regression, weighted by the bins' counts).
    Returns ``[[lower edge, calibrated], ...]``, a block of pooled bins each, applied as a step function by
    :func:`apply_calibration`. A step, not a line between the blocks' means: the raw chances crowd at 0
    and 1, so neighbouring blocks' means can be far apart and a line between them gave the predictions in
    the gap a chance well off their own block's (measured: docs/bots.md, Hints' calibration)."""
    sums = [[0.0, 0] for _ in range(bins)]
    for p, made in pairs:
        b = min(bins - 1, int(p * bins))
        sums[b][0] += made
        sums[b][1] += 1
    blocks: list[list[float]] = []  # [lower edge, sum made, n]
    for b, (made_sum, n) in enumerate(sums):
        if n == 0:
            continue
        blocks.append([b / bins, made_sum, float(n)])
        while len(blocks) > 1 and blocks[-2][1] / blocks[-2][2] >= blocks[-1][1] / blocks[-1][2]:
            _, sm2, n2 = blocks.pop()
            blocks[-1][1] += sm2
            blocks[-1][2] += n2
    return [[edge, made_sum / n] for edge, made_sum, n in blocks]


def fit_calibrations(decisions: list[tuple[float, int, str, int]], bins: int = 20) -> dict[str, Any]:
    """The maps of every group (:func:`calibration_group`), each by :func:`fit_calibration` on that
    group's ``(predicted, made, phase, cards left)`` decisions: the shipped file's contents.
    Reproducible: bench/hint_calibration.py ``--fit``."""
    by_group: dict[str, list[tuple[float, int]]] = {g: [] for g in GROUPS}
    for p, made, phase, cards_left in decisions:
        by_group[calibration_group(phase, cards_left)].append((p, made))
    return {"schema": SCHEMA, "late_play_cards": LATE_PLAY_CARDS,
            "groups": {g: fit_calibration(xs, bins) for g, xs in by_group.items() if xs}}


def apply_calibration(knots: list[list[float]], p: float) -> float:
    """``p`` through the map :func:`fit_calibration` fitted: the rate of the block ``p`` falls in (the
    last whose lower edge is at or below it; the first block for a ``p`` below every edge)."""
    if not knots:
        return p
    rate = knots[0][1]
    for edge, calibrated in knots:
        if edge > p:
            break
        rate = calibrated
    return rate


def recalibrate(calibration: dict[str, Any], p: float, phase: str, cards_left: int) -> float:
    """``p`` through its group's map in ``calibration`` (:func:`fit_calibrations`); a group without a
    map, or no calibration at all, leaves ``p`` raw."""
    if not calibration:
        return p
    if calibration.get("schema") != SCHEMA or calibration.get("late_play_cards") != LATE_PLAY_CARDS:
        raise ValueError("the calibration was fitted for other groups or maps: refit it "
                         "(bench/hint_calibration.py)")
    knots: list[list[float]] = calibration.get("groups", {}).get(calibration_group(phase, cards_left), [])
    return apply_calibration(knots, p)


def load_calibration(path: Path) -> dict[str, Any]:
    calibration: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return calibration


#: The maps fitted by ``bench/hint_calibration.py --fit`` (shipped in the package; none: the raw chance).
CALIBRATION_FILE = Path(__file__).with_name("hint_calibration.json")
_CALIBRATION: dict[str, Any] | None = None


def _calibration() -> dict[str, Any]:
    global _CALIBRATION
    if _CALIBRATION is None:
        _CALIBRATION = load_calibration(CALIBRATION_FILE) if CALIBRATION_FILE.exists() else {}
    return _CALIBRATION
