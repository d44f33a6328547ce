"""An independent reference scorer for the `koutchina` ruleset.

It shares no code with the engine (it does not import `estimation`): it restates RULES.md ruling 8
(and 7, 9, 10) in the plainest possible way, so the hand-written expectations under
`tests/records/` can be cross-checked against the rules rather than against the engine.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def risk_level(total: int) -> int:
    """Risk level of the last estimator from the total of the four estimates (ruling 7)."""
    away = abs(total - 13)
    if away == 0:
        raise ValueError("the estimates may never total 13")
    if away == 1:
        return 0
    if away <= 3:
        return 1
    if away <= 5:
        return 2
    return 3


def seat_score(
    estimate: int,
    tricks: int,
    *,
    caller_or_with: bool = False,
    only_winner: bool = False,
    only_loser: bool = False,
    risk: int = 0,
    dash_call: bool = False,
    over: bool | None = None,
) -> int:
    """One seat's score before the multiplier (ruling 8).

    `risk` is the Risk level (0-3) if this seat is the last estimator, else 0.
    A Dash Call needs `over` (True: Over round, False: Under round).
    """
    made = tricks == estimate
    if dash_call:
        if estimate != 0:
            raise ValueError("a Dash Call is an estimate of 0")
        if over is None:
            raise ValueError("a Dash Call's value depends on Over / Under")
        value = 25 if over else 33
        score = value if made else -value
    else:
        score = 10 + tricks if made else -abs(tricks - estimate)
        if caller_or_with:
            score += 10 if made else -10
        score += (10 if made else -10) * risk
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
    """The four scores of a round after the multiplier; four zeros for a Sa'aydeh (ruling 9).

    With = any seat other than the Caller (and not a Dash Caller) whose estimate equals the
    Caller's number.
    """
    if len(estimates) != 4 or len(tricks) != 4:
        raise ValueError("four seats")
    if sum(tricks) != 13:
        raise ValueError("13 tricks")
    dash = set(dash_callers)
    total = sum(estimates)
    over = total > 13
    level = risk_level(total)
    made = [t == e for e, t in zip(estimates, tricks, strict=True)]
    if not any(made):
        return [0, 0, 0, 0]
    n_made = sum(made)
    scores = []
    for seat in range(4):
        is_dash = seat in dash
        scores.append(
            seat_score(
                estimates[seat],
                tricks[seat],
                caller_or_with=(not is_dash) and estimates[seat] == estimates[caller],
                only_winner=n_made == 1,
                only_loser=n_made == 3,
                risk=level if (seat == last_estimator and not is_dash) else 0,
                dash_call=is_dash,
                over=over,
            )
            * multiplier
        )
    return scores


def next_multiplier(multiplier: int, saaydeh: bool) -> int:
    """The multiplier of the next round (ruling 9): x2 after a Sa'aydeh, x4 cap, x1 after a make."""
    if not saaydeh:
        return 1
    return min(multiplier * 2, 4)


def places(totals: Sequence[int]) -> list[int]:
    """Competition ranking, highest total first; ties share the best place (ruling 10)."""
    return [1 + sum(1 for other in totals if other > mine) for mine in totals]
