"""What a finished round hands to a ruleset's scorer, and the per-seat breakdown it gets back.

The breakdown exists so that a UI (or `estimation score`) can explain every point: each field is one line
of the score sheet, and ``subtotal * multiplier == score``.
"""

from __future__ import annotations

from operator import eq
from typing import Any, NamedTuple


class RoundFacts(NamedTuple):
    """Everything scoring depends on; nothing about the cards themselves.

    ``estimates`` are by seat (a Dash Call or an egyptian Dash counts 0). ``order`` is the seats that
    estimated by an action, in the order they did, so its last entry is the Risk bearer. Immutable;
    a named tuple because one is built for every scored round, simulations included.
    """

    kind: str
    estimates: tuple[int, ...]
    tricks: tuple[int, ...]
    order: tuple[int, ...]
    caller: int | None = None
    dash_calls: frozenset[int] = frozenset()
    multiplier: int = 1
    with_seats: frozenset[int] = frozenset()

    @property
    def total(self) -> int:
        return sum(self.estimates)

    @property
    def over(self) -> bool:
        return self.total > 13

    @property
    def last_estimator(self) -> int | None:
        return self.order[-1] if self.order else None

    def made(self, seat: int) -> bool:
        return self.tricks[seat] == self.estimates[seat]

    def made_flags(self) -> tuple[bool, ...]:
        """Whether each seat made its estimate, in one C-level pass (scoring asks for all four at once)."""
        return tuple(map(eq, self.tricks, self.estimates))

    def with_tricks(self, tricks: tuple[int, ...]) -> RoundFacts:
        """The same round with other final trick counts: the bots' simulations score one round's
        declarations against many endings."""
        return tuple.__new__(RoundFacts, (self.kind, self.estimates, tricks, self.order, self.caller,
                                          self.dash_calls, self.multiplier, self.with_seats))

    def with_multiplier(self, multiplier: int) -> RoundFacts:
        # Positional through tuple.__new__ (the engine's, on every Sa'aydeh): ``_replace`` binds keywords.
        return tuple.__new__(RoundFacts, (self.kind, self.estimates, self.tricks, self.order, self.caller,
                                          self.dash_calls, multiplier, self.with_seats))


class SeatScore(NamedTuple):
    """One seat's score sheet line. ``role`` is caller, with, dashcall, dash or regular.

    A named tuple rather than a frozen dataclass: four are built per scored round on every engine path
    (simulations included), and a frozen dataclass's field-by-field ``__init__`` cost three times as much.
    """

    seat: int
    role: str
    estimate: int
    tricks: int
    made: bool
    base: int = 0
    caller_with: int = 0
    only: int = 0
    risk: int = 0
    dash_call: int = 0
    dash: int = 0
    multiplier: int = 1

    @property
    def subtotal(self) -> int:
        return self.base + self.caller_with + self.only + self.risk + self.dash_call + self.dash

    @property
    def score(self) -> int:
        # The sum written out again: read for every seat of every scored round, one property call less.
        return (self.base + self.caller_with + self.only + self.risk + self.dash_call + self.dash) \
            * self.multiplier

    def to_dict(self) -> dict[str, Any]:
        # Written out rather than dataclasses.asdict, which deep-copies and dominated view building.
        return {
            "seat": self.seat, "role": self.role, "estimate": self.estimate, "tricks": self.tricks,
            "made": self.made, "base": self.base, "caller_with": self.caller_with, "only": self.only,
            "risk": self.risk, "dash_call": self.dash_call, "dash": self.dash,
            "multiplier": self.multiplier, "subtotal": self.subtotal, "score": self.score,
        }


#: What every ruleset's scorer starts from for one seat, as a plain tuple that scorers unpack in their
#: ``for`` statement (built and read for every seat of every scored round, simulations included):
#: ``(seat, estimate, tricks, made, only, last, sign, diff)`` where ``only`` is the only-winner/loser
#: ten (+10, -10 or 0), ``last`` whether the seat bears the Risk, ``sign`` +1 made / -1 missed (every
#: bonus line is paid or charged with it) and ``diff`` how far the tricks were from the estimate.
SeatLine = tuple[int, int, int, bool, int, bool, int, int]


def seat_lines(facts: RoundFacts, with_census: bool = True) -> list[SeatLine]:
    """One :class:`SeatLine` per seat; ``with_census=False`` where no only-winner/loser ten is paid."""
    made = facts.made_flags()
    only_maker, only_misser = census(made) if with_census else (None, None)
    order = facts.order
    last = order[-1] if order else None
    return [
        (seat, est, won, ok, 10 if seat == only_maker else -10 if seat == only_misser else 0, seat == last,
         1 if ok else -1, abs(won - est))
        for seat, est, won, ok in zip(_SEATS, facts.estimates, facts.tricks, made, strict=True)
    ]


_SEATS = (0, 1, 2, 3)


def census(made: tuple[bool, ...]) -> tuple[int | None, int | None]:
    """The only maker and the only misser, if there is one (a Dash Call counts like anyone)."""
    makers = made.count(True)
    return (made.index(True) if makers == 1 else None,
            made.index(False) if makers == len(made) - 1 else None)
