"""An independent reference scorer for the `classic` ruleset (seed 003, RULES.md `classic`).

It shares no code with the engine (it does not import `estimation`) nor with the other reference
scorers: it restates the additive category table of seed 003 as RULES.md reads it, so the hand-written
expectations under `tests/records/` can be checked against the rules, not the engine.

made = estimate + win value; missed = -|tricks - estimate| + loss value, where the values add up:
Regular 10/0, Declarer or With 20/-10 (Declarer on 8+: 40/-20), +10/-10 per Risk level (1 or 2),
only winner +10 / only loser -10, a plain Dash (estimate 0) in an Under round +10/-10.
A Dash Call is flat 33/-23 (no estimate, no diff, no Risk), plus only winner / only loser.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def risk_level(total: int) -> int:
    """0 (1 away), 1 Risk (2-3 away), 2 Double Risk (4 or more away); nothing beyond."""
    away = abs(total - 13)
    if away == 0:
        raise ValueError("the estimates may never total 13")
    if away == 1:
        return 0
    return 1 if away <= 3 else 2


def seat_score(
    estimate: int,
    tricks: int,
    *,
    declarer: bool = False,
    with_: bool = False,
    dash_call: bool = False,
    risk: int = 0,
    only_winner: bool = False,
    only_loser: bool = False,
    under: bool = False,
) -> int:
    """One seat's score before the multiplier."""
    made = tricks == estimate
    if dash_call:
        if estimate != 0:
            raise ValueError("a Dash Call is an estimate of 0")
        score = 33 if made else -23
    else:
        if declarer:
            win, loss = (40, -20) if estimate >= 8 else (20, -10)
        elif with_:
            win, loss = 20, -10
        else:
            win, loss = 10, 0
        win += 10 * risk
        loss -= 10 * risk
        if under and estimate == 0:
            win += 10
            loss -= 10
        score = estimate + win if made else -abs(tricks - estimate) + loss
    if made and only_winner:
        score += 10
    if not made and only_loser:
        score -= 10
    return score


def score_round(
    estimates: Sequence[int],
    tricks: Sequence[int],
    *,
    caller: int,
    last_estimator: int,
    dash_callers: Iterable[int] = (),
    multiplier: int = 1,
) -> list[int]:
    """The four scores after the multiplier; four zeros when all four miss (a Sa'aydeh).
    With: any seat but the Caller (and not a Dash Caller) on the Caller's estimate."""
    if len(estimates) != 4 or len(tricks) != 4:
        raise ValueError("four seats")
    if sum(tricks) != 13:
        raise ValueError("13 tricks")
    dash = set(dash_callers)
    total = sum(estimates)
    level = risk_level(total)
    made = [t == e for e, t in zip(estimates, tricks, strict=True)]
    if not any(made):
        return [0, 0, 0, 0]
    n_made = sum(made)
    return [
        multiplier
        * seat_score(
            estimates[s],
            tricks[s],
            declarer=s == caller,
            with_=s != caller and s not in dash and estimates[s] == estimates[caller],
            dash_call=s in dash,
            risk=level if (s == last_estimator and s not in dash) else 0,
            only_winner=n_made == 1,
            only_loser=n_made == 3,
            under=total < 13,
        )
        for s in range(4)
    ]


def next_multiplier(multiplier: int, saaydeh: bool) -> int:
    """x2 after a Sa'aydeh, x4 cap, x1 after a round with a make."""
    return min(multiplier * 2, 4) if saaydeh else 1


def places(totals: Sequence[int]) -> list[int]:
    """Competition ranking, highest total first."""
    return [1 + sum(1 for other in totals if other > mine) for mine in totals]
