"""Round results and standings: what a finished round and a finished match come to."""

from __future__ import annotations

from typing import Any, Literal, NamedTuple, Protocol, TypedDict

from .scoring import RoundFacts, SeatScore


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


class Scorer(Protocol):
    """What scoring a round needs of a ruleset (:class:`~estimation.rulesets.base.Ruleset` is one)."""

    @property
    def saaydeh(self) -> bool:
        """Whether all four missing doubles the next round (and scores this one times 0)."""
        ...

    def score(self, facts: RoundFacts) -> tuple[SeatScore, ...]: ...


def score_round(ruleset: Scorer, facts: RoundFacts,
                made: tuple[bool, ...] | None = None) -> tuple[tuple[SeatScore, ...], bool]:
    """The ruleset's breakdown with the Sa'aydeh applied; also whether the round is a Sa'aydeh.

    ``made``: ``facts.made_flags()`` when the caller has it already (the engine's scored round does).
    """
    if made is None:
        made = facts.made_flags()
    saaydeh = ruleset.saaydeh and True not in made
    # In a Sa'aydeh nobody scores: the breakdown keeps what each line would have been, times 0.
    breakdown = ruleset.score(facts.with_multiplier(0) if saaydeh else facts)
    return breakdown, saaydeh


#: How a match went for a seat (its side's, with partners): what history and level points count.
Outcome = Literal["win", "draw", "loss"]


class Ended(TypedDict):
    """RECORD.md's ``ended``: a match a player's leaving ended (egyptian), and that player's seat."""

    reason: Literal["left"]
    seat: int


class Sides(TypedDict):
    """RECORD.md's ``sides`` of a partnership game: the two sides' seats, totals and places."""

    seats: list[list[int]]
    totals: list[int]
    places: list[int]


#: The two sides of a partnership game (RULES.md, Partnerships): partners sit opposite.
SIDES: tuple[tuple[int, int], tuple[int, int]] = ((0, 2), (1, 3))


def side_totals(totals: list[int] | tuple[int, ...]) -> tuple[int, int]:
    """Each side's total: the sum of its two seats' totals."""
    return totals[0] + totals[2], totals[1] + totals[3]


def side_places(totals: list[int] | tuple[int, ...], leaver: int | None = None) -> list[int]:
    """The two sides' places: the higher total 1st, level totals both 1st; a leaver's side is 2nd (egyptian)
    whatever the totals."""
    if leaver is not None:
        return [2, 1] if leaver in SIDES[0] else [1, 2]
    a, b = side_totals(totals)
    return [1, 1] if a == b else [1, 2] if a > b else [2, 1]


def standings(totals: list[int] | tuple[int, ...], partners: bool, leaver: int | None = None) -> list[int]:
    """Each seat's place: by competition ranking, or with partners its side's place."""
    if partners:
        by_side = side_places(totals, leaver)
        return [by_side[0], by_side[1], by_side[0], by_side[1]]
    return placements(totals, leaver)


def outcomes(places: list[int], partners: bool,
             leavers: set[int] | frozenset[int] = frozenset()) -> list[Outcome]:
    """``win``, ``draw`` or ``loss`` per seat from its place: a lone first place (a side's, with partners)
    wins, a shared first place draws, anything else loses, and a leaver always loses."""
    shared = places.count(1) == 4 if partners else places.count(1) > 1
    return ["loss" if s in leavers or places[s] != 1 else "draw" if shared else "win" for s in range(4)]


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
