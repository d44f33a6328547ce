"""The competition's vocabulary: seats, boards, tables, standings and the `estimation-competition/1` export.

Plain typed values (named tuples, frozen dataclasses, TypedDicts for the JSON) so that the server, the
command line and the tests pass the same shapes to the same pure functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple, NotRequired, TypedDict

from ..errors import EstimationError

#: The two formats of RULES.md, Competitions.
Kind = Literal["swiss", "robot"]
KINDS: tuple[Kind, ...] = ("swiss", "robot")

#: Who sits in seats 0..3 of a table: an entrant id, or None for a bot (a short table's filler, or a
#: robot competition's three opponents).
Seats = tuple[int | None, int | None, int | None, int | None]

FORMAT = "estimation-competition/1"


def as_seats(seats: Sequence[int | None]) -> Seats:
    """Four seats as a :data:`Seats` tuple (from a JSON list); ValueError unless there are four."""
    a, b, c, d = seats
    return (a, b, c, d)


class BoardKey(NamedTuple):
    """A board: one round of one stage (and instance). Every table of the stage and instance deals the
    same hands and dealer on it, so their scores on it are comparable."""

    stage: int
    instance: int
    round: int

    def label(self, with_instance: bool = False) -> str:
        """``stage 1, round 3`` (``stage 1, instance 2, round 3`` when a competition has instances)."""
        inst = f", instance {self.instance}" if with_instance else ""
        return f"stage {self.stage}{inst}, round {self.round}"


@dataclass(frozen=True, slots=True)
class TablePlay:
    """What matchpoints need of one table, read from its record.

    ``scores[r - 1]`` is the four seats' score of round ``r`` as it counts in the totals (multiplier
    included), for every round the table finished. ``left`` maps a seat to the number of rounds its table
    had finished when that seat's entrant left (its boards from there on score 0 MP; a bot played on).
    ``ended_by`` is the seat whose leaving ended the match (an ``egyptian`` table): the other seats then
    have no result on the boards not finished.
    """

    table: int
    stage: int
    instance: int
    seats: Seats
    scores: tuple[tuple[int, ...], ...]
    left: dict[int, int] = field(default_factory=dict)
    ended_by: int | None = None


class TableOnBoard(NamedTuple):
    """One table's line in a board's traveller: its seats' scores and MP (None: it did not finish the
    round, so it is not in the comparison group)."""

    table: int
    seats: Seats
    scores: tuple[int, ...] | None
    mp: tuple[int, ...] | None


@dataclass(frozen=True, slots=True)
class BoardResult:
    """A matchpointed board: ``top`` is 2(n-1) for the n tables that finished it (0 when n <= 1: the
    board counts for nobody); ``tables`` lists every table of the stage and instance, in table order."""

    board: BoardKey
    top: int
    tables: tuple[TableOnBoard, ...]


#: How an entrant's seat on a board came to its MP: played it; left before finishing it (0 MP, the top
#: counts: a leaver, a robot entrant's withdrawal or closed window); no result (its table has not
#: finished the board, or an ``egyptian`` table was ended by another seat's leaver: MP 0, top 0); or a
#: director's MP adjustment.
Outcome = Literal["played", "left", "no result", "adjusted"]


class EntrantBoard(NamedTuple):
    """One entrant's result on one board (a row of its own summary). Named tuples, not dataclasses: a
    10,000-entry robot competition makes 130,000 of them per refresh."""

    board: BoardKey
    entrant: int
    table: int
    seat: int
    mp: int
    top: int
    outcome: Outcome


# --- the JSON export (RECORD.md, `estimation-competition/1`) --------------------------------------------

class EntrantEntry(TypedDict):
    id: int
    name: str


class LeftEntry(TypedDict):
    """Extension key of a table: the entrant in ``seat`` left when its table had finished ``rounds``
    rounds (docs/competitions.md)."""

    seat: int
    rounds: int


class TableEntry(TypedDict):
    table: int
    instance: int
    seats: list[int | None]
    record: dict[str, Any]
    left: NotRequired[list[LeftEntry]]


class StageEntry(TypedDict):
    stage: int
    tables: list[TableEntry]


class StandingRow(TypedDict):
    entrant: int
    mp: int
    top: int
    percent: float
    place: int


class BoardTableEntry(TypedDict):
    table: int
    scores: list[int] | None
    mp: list[int] | None


class BoardEntry(TypedDict):
    """Extension key ``boards``: each board's figures, so a checker can name the first board that
    disagrees with the records (docs/competitions.md)."""

    stage: int
    instance: int
    round: int
    top: int
    tables: list[BoardTableEntry]


class Adjustment(TypedDict):
    """A director's adjustment of one board (extension key ``adjustments``, applied in order).

    Either ``table`` + ``seat`` + ``score``: that seat's round score at that table is replaced before the
    board is matchpointed (everyone's MP on the board follow); or ``entrant`` + ``mp``: that entrant's MP on
    the board is set (0..top), nobody else's change. ``reason`` is shown with the standings (audit trail).
    """

    stage: int
    instance: int
    round: int
    reason: str
    table: NotRequired[int]
    seat: NotRequired[int]
    score: NotRequired[int]
    entrant: NotRequired[int]
    mp: NotRequired[int]


class CompetitionExport(TypedDict):
    format: str
    name: str
    kind: Kind
    ruleset: str
    length: str
    bot_level: str
    instances: int
    entrants: list[EntrantEntry]
    stages: list[StageEntry]
    standings: list[StandingRow]
    boards: NotRequired[list[BoardEntry]]
    adjustments: NotRequired[list[Adjustment]]


class CompetitionError(EstimationError):
    """A competition file or request that cannot be scored: not the format, a record that does not
    replay (the message carries the replay's ``deal D, action K`` line), an adjustment of no board. The
    message is one line, for a person."""
