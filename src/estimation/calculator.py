"""The score calculator for a round played with real cards: the facts typed by hand, checked, scored.

It refuses what cannot happen at a table (tricks not totalling 13, estimates totalling 13, three seats on
zero, an estimate above the Call) with a message saying which rule, so a mistyped round is never scored.
"""

from __future__ import annotations

from collections.abc import Sequence

from .errors import EstimationError
from .results import score_round
from .rulesets import get_ruleset
from .scoring import RoundFacts, SeatScore


class CalculatorError(EstimationError):
    """The round as typed could not have happened."""


def score_typed_round(
    *,
    ruleset: str = "koutchina",
    kind: str,
    estimates: Sequence[tuple[int, int]],
    tricks: Sequence[int],
    caller: tuple[int, int] | None = None,
    dash_calls: Sequence[int] = (),
    multiplier: int = 1,
) -> tuple[SeatScore, ...]:
    """Score one round.

    ``estimates``: (seat, estimate) in the order they were made (the last is the Risk bearer); in a call
    round without the Caller and the Dash Callers. ``caller``: (seat, number) of the Call in a call round;
    in a fixed round the Caller is worked out (the highest estimate, ties to the earliest).
    """
    rules = get_ruleset(ruleset)
    if kind not in ("call", "fixed"):
        raise CalculatorError(f"a round is 'call' or 'fixed', not {kind!r}")
    if len(tricks) != 4 or any(not 0 <= t <= 13 for t in tricks):
        raise CalculatorError("tricks are four numbers 0-13, one per seat")
    if sum(tricks) != 13:
        raise CalculatorError(f"the tricks total {sum(tricks)}, not 13")
    if multiplier not in (1, 2, 4):
        raise CalculatorError("the multiplier is 1, 2 or 4")
    by_seat: dict[int, int] = {}
    order = tuple(seat for seat, _ in estimates)
    dash = frozenset(dash_calls)
    if len(dash) != len(dash_calls):
        raise CalculatorError("a seat Dash Calls once")
    if kind == "call":
        if caller is None:
            raise CalculatorError("a call round needs the Caller and the Call's number")
        seat, number = caller
        if not 4 <= number <= 13:
            raise CalculatorError(f"a Call is 4-13 tricks, not {number}")
        if seat in dash:
            raise CalculatorError("a Dash Caller cannot be the Caller")
        if len(dash) > 2:
            raise CalculatorError("at most two seats may Dash Call")
        by_seat[seat] = number
        for s in dash:
            by_seat[s] = 0
        expected = tuple(s for s in ((seat + i) % 4 for i in range(1, 4)) if s not in dash)
        if order != expected:
            raise CalculatorError(
                "in a call round the others estimate from the seat after the Caller, skipping "
                f"Dash Callers: seats {', '.join(map(str, expected))} in that order")
        top = number
    else:
        if caller is not None or dash:
            raise CalculatorError("a fixed round has no Call and no Dash Call")
        if sorted(order) != [0, 1, 2, 3]:
            raise CalculatorError("in a fixed round all four seats estimate, once each")
        top = 13
    for seat, est in estimates:
        if not 0 <= est <= top:
            raise CalculatorError(f"seat {seat}'s estimate {est} is outside 0-{top}")
        by_seat[seat] = est
    if sorted(by_seat) != [0, 1, 2, 3]:
        raise CalculatorError("every seat needs exactly one estimate, Call or Dash Call")
    values = tuple(by_seat[s] for s in range(4))
    if sum(values) == 13:
        raise CalculatorError("the estimates total 13, which the last estimator may never allow")
    if sum(1 for v in values if v == 0) > 2:
        raise CalculatorError("three seats on zero: at most two (Dash Calls and Dashes together)")
    if kind == "fixed":
        best = max(values)
        caller_seat = next(s for s in order if by_seat[s] == best)
    else:
        assert caller is not None
        caller_seat = caller[0]
    withs = frozenset(s for s in order if s != caller_seat and by_seat[s] == values[caller_seat])
    facts = RoundFacts(kind=kind, estimates=values, tricks=tuple(tricks), order=order,
                       caller=caller_seat, dash_calls=dash, multiplier=multiplier, with_seats=withs)
    return score_round(rules, facts)[0]
