"""Round results and standings: what a finished round and a finished match come to."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from .scoring import RoundFacts, SeatScore

if TYPE_CHECKING:
    from .game import Game
    from .rulesets.base import Ruleset


class RoundResult(NamedTuple):
    """A scored round: the replay contract's fields plus the per-seat breakdown.

    A named tuple (immutable, cheap to build) rather than a frozen dataclass, whose field-by-field
    ``__init__`` was a visible share of every scored round, simulations included.
    """

    round: int
    deals: int
    kind: str
    trump: str
    caller: int | None
    multiplier: int
    estimates: tuple[int, ...]
    tricks: tuple[int, ...]
    made: tuple[bool, ...]
    scores: tuple[int, ...]
    risk: int
    saaydeh: bool
    dealer: int
    order: tuple[int, ...]
    dash_calls: tuple[int, ...]
    breakdown: tuple[SeatScore, ...]

    def to_dict(self, breakdown: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {
            "round": self.round,
            "deals": self.deals,
            "kind": self.kind,
            "trump": self.trump,
            "caller": self.caller,
            "multiplier": self.multiplier,
            "estimates": list(self.estimates),
            "tricks": list(self.tricks),
            "made": list(self.made),
            "scores": list(self.scores),
            "risk": self.risk,
            "saaydeh": self.saaydeh,
            "dealer": self.dealer,
            "order": list(self.order),
            "dash_calls": list(self.dash_calls),
        }
        if breakdown:
            out["breakdown"] = [s.to_dict() for s in self.breakdown]
        return out


def score_round(ruleset: Ruleset, facts: RoundFacts) -> tuple[tuple[SeatScore, ...], bool]:
    """The ruleset's breakdown with the Sa'aydeh applied; also whether the round is a Sa'aydeh."""
    saaydeh = ruleset.saaydeh and not any(facts.made_flags())
    # In a Sa'aydeh nobody scores: the breakdown keeps what each line would have been, times 0.
    breakdown = ruleset.score(facts.with_multiplier(0) if saaydeh else facts)
    return breakdown, saaydeh


def build_result(game: Game, facts: RoundFacts) -> RoundResult:
    ruleset = game.ruleset
    breakdown, saaydeh = score_round(ruleset, facts)
    scores = tuple([s.score for s in breakdown])
    return RoundResult(
        round=game.round_no,
        deals=game.deal_no + 1,
        kind=ruleset.round_kind(game),
        trump=str(game.trump),
        caller=facts.caller,
        multiplier=facts.multiplier,
        estimates=facts.estimates,
        tricks=facts.tricks,
        made=facts.made_flags(),
        scores=scores,
        risk=ruleset.risk_level(facts),
        saaydeh=saaydeh,
        dealer=game.dealer,
        order=facts.order,
        dash_calls=tuple(sorted(facts.dash_calls)) if facts.dash_calls else (),
        breakdown=breakdown,
    )


def placements(totals: list[int] | tuple[int, ...], leaver: int | None = None) -> list[int]:
    """Competition ranking (40, 40, 12, -3 -> 1, 1, 3, 4).

    A leaver (egyptian) is 4th whatever its total; the rest are ranked among themselves.
    """
    seats = [s for s in range(len(totals)) if s != leaver]
    places = [0] * len(totals)
    for s in seats:
        places[s] = 1 + sum(1 for o in seats if totals[o] > totals[s])
    if leaver is not None:
        places[leaver] = len(totals)
    return places
