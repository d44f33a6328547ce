"""An independent reference scorer for the `egyptian` ruleset (seed 002, RULES.md `egyptian` 4, 6-9).

It shares no code with the engine (it does not import `estimation`) nor with the `koutchina` reference
scorer: it restates the rulings in the plainest possible way, so the hand-written expectations under
`tests/records/` and the seed's worked examples can be checked against the rules, not the engine.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

WIN, DRAW, LOSS = 30, 10, 4  # level points for a match (ruling 9)


def at_risk(total: int, last_estimate: int) -> bool:
    """Ruling 7: the last estimator is at Risk when the total is 11 or less (any estimate), or 15 or
    more with its own estimate 2 or more. Never in a round nobody bid on (the caller decides that)."""
    if total == 13:
        raise ValueError("the estimates may never total 13")
    return total <= 11 or (total >= 15 and last_estimate >= 2)


def seat_score(
    estimate: int,
    tricks: int,
    *,
    role: str = "plain",
    under: bool | None = None,
    only_maker: bool = False,
    only_misser: bool = False,
    risk: bool = False,
) -> int:
    """One seat's score (ruling 8; 4 for `role="nobid"`).

    role: `plain` (an ordinary estimate), `caller`, `with` (a seat that bid With and estimated the
    declared number), `dash` (took the Dash: needs `under`), or `nobid` (any seat of a round nobody bid
    on: only 13 + n made / -diff missed). A Caller on 8 or more is a Super Call (±20 instead of ±10).
    """
    made = tricks == estimate
    if role == "nobid":
        return 13 + estimate if made else -abs(tricks - estimate)
    if role == "dash":
        if under is None:
            raise ValueError("a Dash's value depends on Over / Under")
        if estimate != 0:
            raise ValueError("a Dash is an estimate of 0")
        if made:
            return 23 if under else 13
        return -tricks - (10 if under else 0)
    sign = 1 if made else -1
    score = 13 + estimate if made else -abs(tricks - estimate)
    if role == "caller":
        score += sign * (20 if estimate >= 8 else 10)
    elif role == "with":
        score += sign * 10
    elif role != "plain":
        raise ValueError(role)
    if made and only_maker:
        score += 10
    if not made and only_misser:
        score -= 10
    if risk:
        score += sign * 10
    return score


def score_round(
    estimates: Sequence[int],
    tricks: Sequence[int],
    *,
    caller: int | None,
    last_estimator: int,
    with_seats: Iterable[int] = (),
    dash_seats: Iterable[int] = (),
) -> list[int]:
    """The four scores of a round. `caller` None: nobody bid (ruling 4). `with_seats`: the seats whose
    With stood at the end of the auction; only those on the declared number score as With."""
    if len(estimates) != 4 or len(tricks) != 4:
        raise ValueError("four seats")
    if sum(tricks) != 13:
        raise ValueError("13 tricks")
    total = sum(estimates)
    if total == 13:
        raise ValueError("the estimates may never total 13")
    if sum(1 for e in estimates if e == 0) > 2:
        raise ValueError("at most two on zero")
    if caller is None:
        return [seat_score(estimates[s], tricks[s], role="nobid") for s in range(4)]
    dash = set(dash_seats)
    joined = set(with_seats)
    made = [t == e for e, t in zip(estimates, tricks, strict=True)]
    n_made = sum(made)
    scores = []
    for seat in range(4):
        if seat in dash:
            scores.append(seat_score(0, tricks[seat], role="dash", under=total < 13))
            continue
        if seat == caller:
            role = "caller"
        elif seat in joined and estimates[seat] == estimates[caller]:
            role = "with"
        else:
            role = "plain"
        scores.append(
            seat_score(
                estimates[seat],
                tricks[seat],
                role=role,
                only_maker=n_made == 1,
                only_misser=n_made == 3,
                risk=seat == last_estimator and at_risk(total, estimates[seat]),
            )
        )
    return scores


def places(totals: Sequence[int], leaver: int | None = None) -> list[int]:
    """Competition ranking; a leaver (ruling 9) is 4th whatever its total, the others ranked among
    themselves."""
    out = []
    for seat, mine in enumerate(totals):
        if seat == leaver:
            out.append(4)
        else:
            out.append(1 + sum(1 for o, t in enumerate(totals) if o != leaver and t > mine))
    return out


def level_points(place: int, tied: bool) -> int:
    """Ruling 9: a win 30, a draw (shared 1st place) 10, anything else 4."""
    if place == 1:
        return DRAW if tied else WIN
    return LOSS
