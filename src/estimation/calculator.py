"""The score calculator for a round played with real cards: the facts typed by hand, checked, scored.

It refuses what cannot happen at a table (tricks not totalling 13, estimates totalling 13, three seats on
zero, an estimate above the Call) with a message saying which rule, so a mistyped round is never scored.
"""

from __future__ import annotations

from collections.abc import Sequence

from .errors import EstimationError
from .results import score_round, side_totals
from .rulesets import DEFAULT_RULESET, get_ruleset
from .scoring import RoundFacts, SeatScore


def is_saaydeh(ruleset: str, scores: Sequence[SeatScore]) -> bool:
    """Whether a scored round is a Sa'aydeh: all four seats missed, in a ruleset that has it."""
    return get_ruleset(ruleset).saaydeh and not any(s.made for s in scores)


def next_multiplier(ruleset: str, multiplier: int, scores: Sequence[SeatScore]) -> int:
    """The multiplier the round after this one carries (docs/rules.md, The Sa'aydeh multiplier).

    A Sa'aydeh doubles it up to the x4 cap; any other round brings it back to x1. The engine applies
    the same rule when a round ends (``Game._finish_round``); a test holds the two together.
    """
    return min(multiplier * 2, 4) if is_saaydeh(ruleset, scores) else 1


class CalculatorError(EstimationError):
    """The round as typed could not have happened."""


def kinds_of(ruleset: str) -> tuple[str, ...]:
    """The round kinds a typed round of ``ruleset`` may be (the ruleset's own list)."""
    return get_ruleset(ruleset).round_kinds


def score_typed_round(
    *,
    ruleset: str = DEFAULT_RULESET,
    kind: str,
    estimates: Sequence[tuple[int, int]],
    tricks: Sequence[int],
    caller: tuple[int, int] | None = None,
    dash_calls: Sequence[int] = (),
    with_seats: Sequence[int] = (),
    multiplier: int = 1,
) -> tuple[SeatScore, ...]:
    """Score one round.

    ``estimates``: (seat, estimate) in the order they were made (the last is the Risk bearer), without
    the Caller and the Dash Callers. ``caller``: (seat, number) of the Call (egyptian: the declared
    number) in a round of one of the ruleset's ``called_kinds``; in any other round the Caller is worked
    out (the highest estimate, ties to the earliest). ``dash_calls``: seats that took the offer to sit
    out on zero (a Dash Call; egyptian: the Dash). ``with_seats``: seats that bid With on the winning bid,
    in a ruleset that has that bid.

    What differs by ruleset (its kinds, the order the seats estimate in, who counts as With) is asked of
    the ruleset; nothing here tests a ruleset's name.
    """
    rules = get_ruleset(ruleset)
    kinds = rules.round_kinds
    if kind not in kinds:
        raise CalculatorError(f"a {ruleset} round is {' or '.join(kinds)}, not {kind!r}")
    if len(tricks) != 4 or any(not 0 <= t <= 13 for t in tricks):
        raise CalculatorError("tricks are four numbers 0-13, one per seat")
    if sum(tricks) != 13:
        raise CalculatorError(f"the tricks total {sum(tricks)}, not 13")
    allowed = (1, 2, 4) if rules.saaydeh else (1,)
    if multiplier not in allowed:
        raise CalculatorError(f"the multiplier is {', '.join(map(str, allowed))}")
    dash = frozenset(dash_calls)
    joined = frozenset(with_seats)
    if len(dash) != len(dash_calls) or len(dash) > rules.max_zeros:
        raise CalculatorError("at most two seats take the Dash offer, each once")
    if dash and not rules.verb_roles.get("offer"):
        raise CalculatorError(f"a {ruleset} round has no Dash offer")
    if dash and not rules.has_offer(kind):
        raise CalculatorError(f"a {kind} round has no Dash offer: it goes straight to the estimates")
    if joined and not rules.has_with_bids:
        raise CalculatorError(f"a {ruleset} round has no With bids (only rulesets with a `with` bid do)")
    if joined & dash:
        raise CalculatorError("a Dash seat takes no part in the auction")
    order = tuple(seat for seat, _ in estimates)
    if len(set(order)) != len(order) or any(not 0 <= s <= 3 for s in order):
        raise CalculatorError("each seat 0-3 estimates once")
    by_seat: dict[int, int] = {s: 0 for s in dash}
    top = 13
    caller_seat: int | None = None
    if kind in rules.called_kinds:
        if caller is None:
            raise CalculatorError("this round needs the Caller and the Call's number (--call SEAT:NUMBER)")
        caller_seat, top = caller
        if not 4 <= top <= 13:
            raise CalculatorError(f"a Call is 4-13 tricks, not {top}")
        if caller_seat in dash or caller_seat in joined:
            raise CalculatorError("the Caller neither takes the Dash nor bids With")
        by_seat[caller_seat] = top
    else:
        if caller is not None or joined:
            raise CalculatorError(f"a {kind} round has no Call")
        if sorted(order + tuple(dash)) != [0, 1, 2, 3]:
            raise CalculatorError("every seat but the Dash seats estimates, once each")
    try:
        rules.check_typed_round(kind, caller_seat, dash, joined, order)
    except ValueError as exc:
        raise CalculatorError(str(exc)) from None
    for seat, est in estimates:
        if not 0 <= est <= top:
            raise CalculatorError(f"seat {seat}'s estimate {est} is outside 0-{top}")
        by_seat[seat] = est
    if sorted(by_seat) != [0, 1, 2, 3]:
        raise CalculatorError("every seat needs exactly one estimate, Call or Dash")
    values = tuple(by_seat[s] for s in range(4))
    if sum(values) == 13:
        raise CalculatorError("the estimates total 13, which the last estimator may never allow")
    if sum(1 for v in values if v == 0) > rules.max_zeros:
        raise CalculatorError("three seats on zero: at most two (Dash Calls and Dashes together)")
    if caller_seat is None:
        caller_seat = rules.typed_caller(kind, values, order)
    withs = rules.typed_with_seats(values, caller_seat, order, joined)
    facts = RoundFacts(kind=kind, estimates=values, tricks=tuple(tricks), order=order, caller=caller_seat,
                       dash_calls=dash, multiplier=multiplier, with_seats=withs)
    return score_round(rules, facts)[0]


def side_scores(scores: Sequence[SeatScore]) -> list[int]:
    """A round's score for each side of a partnership game (seats 0+2, 1+3): the sum of its seats'."""
    by_seat = [s.score for s in sorted(scores, key=lambda s: s.seat)]
    return list(side_totals(by_seat))
