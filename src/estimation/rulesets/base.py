"""The seam between the shared round engine and a ruleset.

A ruleset says only what differs: the rounds of each length, the declaration phase (who may say what before
the first card), and scoring. Dealing, trick play, markers, the multiplier's bookkeeping, totals, records and
views live in :mod:`estimation.game` once, for every ruleset.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from ..cards import Trump
from ..scoring import RoundFacts, SeatScore

if TYPE_CHECKING:
    from ..actions import Action
    from ..game import Game


class Phase(enum.StrEnum):
    DASH = "dash"
    AUCTION = "auction"
    DECLARE = "declare"
    ESTIMATE = "estimate"
    PLAY = "play"
    OVER = "over"


@dataclass(frozen=True, slots=True)
class RoundSpec:
    """One round of a length: ``kind`` as the record's replay output names it, and a fixed trump if any."""

    kind: str
    trump: Trump | None = None


class Ruleset:
    """Base class; subclasses fill the class attributes and the declaration/scoring hooks."""

    name: ClassVar[str]
    lengths: ClassVar[dict[str, tuple[RoundSpec, ...]]]
    default_length: ClassVar[str]
    #: Whether all four missing doubles the next round (the Sa'aydeh).
    saaydeh: ClassVar[bool] = True
    #: Whether a player leaving ends the match (egyptian) rather than a bot taking the seat.
    leaver_ends_match: ClassVar[bool] = False

    # --- declarations -----------------------------------------------------------------------------
    def begin_deal(self, game: Game) -> None:
        """Set the phase and the first seat to act for a deal that was just dealt."""
        raise NotImplementedError

    def legal_declarations(self, game: Game) -> list[Action]:
        raise NotImplementedError

    def is_legal(self, game: Game, action: Action) -> bool:
        """Whether a declaration by the seat to move is legal; must agree with :meth:`legal_declarations`
        (a property test checks every candidate action against the list)."""
        return action in self.legal_declarations(game)

    def apply_declaration(self, game: Game, action: Action) -> None:
        """Apply a declaration already known to be legal (the unchecked path)."""
        raise NotImplementedError

    def explain_illegal(self, game: Game, action: Action) -> str:
        """Why ``action`` is not legal now; called only after it was found illegal."""
        return "not a legal action now"

    # --- scoring ------------------------------------------------------------------------------------
    def facts(self, game: Game) -> RoundFacts:
        """What the scorer needs from a deal whose 13 tricks are played."""
        raise NotImplementedError

    def score(self, facts: RoundFacts) -> tuple[SeatScore, ...]:
        raise NotImplementedError

    def risk_level(self, facts: RoundFacts) -> int:
        raise NotImplementedError

    def round_kind(self, game: Game) -> str:
        """The replay output's ``kind`` for the round in progress."""
        return game.kind
