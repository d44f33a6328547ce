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


KINDS = {"koutchina": ("call", "fixed"), "classic": ("call", "fixed"),
         "egyptian": ("auction", "speed", "nobid")}


def score_typed_round(
    *,
    ruleset: str = "koutchina",
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
    number); in a fixed round the Caller is worked out (the highest estimate, ties to the earliest).
    ``dash_calls``: seats that Dash Called (egyptian: took the Dash). ``with_seats``: egyptian seats
    that bid With on the winning bid.
    """
    rules = get_ruleset(ruleset)
    kinds = KINDS.get(ruleset, ("call", "fixed"))
    if kind not in kinds:
        raise CalculatorError(f"a {ruleset} round is {' or '.join(kinds)}, not {kind!r}")
    if len(tricks) != 4 or any(not 0 <= t <= 13 for t in tricks):
        raise CalculatorError("tricks are four numbers 0-13, one per seat")
    if sum(tricks) != 13:
        raise CalculatorError(f"the tricks total {sum(tricks)}, not 13")
    allowed = (1, 2, 4) if rules.saaydeh else (1,)
    if multiplier not in allowed:
        raise CalculatorError(f"the multiplier is {', '.join(map(str, allowed))}")
    egyptian = ruleset == "egyptian"
    dash = frozenset(dash_calls)
    joined = frozenset(with_seats)
    if len(dash) != len(dash_calls) or len(dash) > 2:
        raise CalculatorError("at most two seats take the Dash offer, each once")
    if joined and not egyptian:
        raise CalculatorError("only an egyptian round has With bids")
    if joined & dash:
        raise CalculatorError("a Dash seat takes no part in the auction")
    order = tuple(seat for seat, _ in estimates)
    if len(set(order)) != len(order) or any(not 0 <= s <= 3 for s in order):
        raise CalculatorError("each seat 0-3 estimates once")
    by_seat: dict[int, int] = {s: 0 for s in dash}
    top = 13
    caller_seat: int | None = None
    if kind in ("call", "auction", "speed"):
        if caller is None:
            raise CalculatorError("this round needs the Caller and the Call's number (--call SEAT:NUMBER)")
        caller_seat, top = caller
        if not 4 <= top <= 13:
            raise CalculatorError(f"a Call is 4-13 tricks, not {top}")
        if caller_seat in dash or caller_seat in joined:
            raise CalculatorError("the Caller neither takes the Dash nor bids With")
        by_seat[caller_seat] = top
        after = [(caller_seat + i) % 4 for i in range(1, 4)]
        expected = tuple(s for s in after if s in joined) + tuple(
            s for s in after if s not in joined and s not in dash)
        if order != expected:
            who = "With seats first, then the others" if egyptian else "from the seat after the Caller"
            raise CalculatorError(f"the others estimate {who}, skipping Dash seats: seats "
                                  f"{', '.join(map(str, expected))} in that order")
    else:
        if caller is not None or joined:
            raise CalculatorError(f"a {kind} round has no Call")
        if kind == "fixed" and dash:
            raise CalculatorError("a fixed round has no Dash Call")
        if sorted(order + tuple(dash)) != [0, 1, 2, 3]:
            raise CalculatorError("every seat but the Dash seats estimates, once each")
        if kind == "nobid":
            # From the dealer in seat order, Dash seats skipped.
            ring = [s for s in range(4) if s not in dash]
            start = ring.index(order[0])
            if list(order) != ring[start:] + ring[:start]:
                raise CalculatorError("in a round nobody bid on, estimates go in seat order from the dealer")
    for seat, est in estimates:
        if not 0 <= est <= top:
            raise CalculatorError(f"seat {seat}'s estimate {est} is outside 0-{top}")
        by_seat[seat] = est
    if sorted(by_seat) != [0, 1, 2, 3]:
        raise CalculatorError("every seat needs exactly one estimate, Call or Dash")
    values = tuple(by_seat[s] for s in range(4))
    if sum(values) == 13:
        raise CalculatorError("the estimates total 13, which the last estimator may never allow")
    if sum(1 for v in values if v == 0) > 2:
        raise CalculatorError("three seats on zero: at most two (Dash Calls and Dashes together)")
    if kind == "fixed":
        best = max(values)
        caller_seat = next(s for s in order if by_seat[s] == best)
    if egyptian:
        withs = frozenset(s for s in joined if by_seat[s] == top)
    else:
        assert caller_seat is not None
        withs = frozenset(s for s in order if s != caller_seat and by_seat[s] == values[caller_seat])
    facts = RoundFacts(kind=kind, estimates=values, tricks=tuple(tricks), order=order,
                       caller=caller_seat, dash_calls=dash, multiplier=multiplier, with_seats=withs)
    return score_round(rules, facts)[0]
