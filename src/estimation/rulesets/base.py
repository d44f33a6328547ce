"""The seam between the shared round engine and a ruleset.

A ruleset says only what differs: the rounds of each length, the declaration phase (who may say what before
the first card), and scoring. Dealing, trick play, markers, the multiplier's bookkeeping, totals, records and
views live in :mod:`estimation.game` once, for every ruleset.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from ..actions import Verb
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


# Bound once: Python 3.11 looks enum members up through a slow attribute hook (see estimation.game).
_DASH = Phase.DASH
_ESTIMATE = Phase.ESTIMATE


class Ruleset:
    """Base class; subclasses fill the class attributes and the declaration/scoring hooks."""

    name: ClassVar[str]
    lengths: ClassVar[dict[str, tuple[RoundSpec, ...]]]
    default_length: ClassVar[str]
    #: Every verb a record of this ruleset may use (the others are refused by name).
    verbs: ClassVar[frozenset[Verb]]
    #: Whether all four missing doubles the next round (the Sa'aydeh).
    saaydeh: ClassVar[bool] = True
    #: Whether a player leaving ends the match (egyptian) rather than a bot taking the seat.
    leaver_ends_match: ClassVar[bool] = False

    # --- declarations -----------------------------------------------------------------------------
    def begin_deal(self, game: Game) -> None:
        """Set the phase and the first seat to act for a deal that was just dealt."""
        raise NotImplementedError

    def legal_declarations(self, game: Game) -> Sequence[Action]:
        raise NotImplementedError

    def apply_declaration(self, game: Game, action: Action) -> None:
        """Apply a declaration already known to be legal (the unchecked path)."""
        raise NotImplementedError

    def explain_illegal(self, game: Game, action: Action) -> str:
        """Why ``action`` is not legal now; called only after it was found illegal."""
        return "not a legal action now"

    # --- shared pieces: the zero offer and the estimates work alike in every ruleset ------------------
    #: The offer to sit the round out on zero, before the auction: (take, decline) verbs.
    offer_verbs: ClassVar[tuple[Verb, Verb]] = (Verb.DASHCALL, Verb.NODASH)
    max_zeros: ClassVar[int] = 2

    def begin_offer(self, game: Game) -> None:
        game.phase = _DASH
        game.asked = 0
        game.turn = (game.dealer + 1) & 3

    def offer_actions(self, seat: int) -> tuple[Action, ...]:
        key = (seat, self.offer_verbs)
        found = _OFFERS.get(key)
        if found is None:
            from ..actions import Action

            take, decline = self.offer_verbs
            found = _OFFERS[key] = (Action.bare(seat, take), Action.bare(seat, decline))
        return found

    def apply_offer(self, game: Game, action: Action) -> None:
        """Each seat is asked once, from the dealer's left; once two have taken it the rest are not."""
        if action.verb is self.offer_verbs[0]:
            game.dash_seats.append(action.seat)
        game.asked += 1
        if game.asked == 4 or len(game.dash_seats) == self.max_zeros:
            self.begin_auction(game)
        else:
            game.turn = (game.dealer + 1 + game.asked) & 3

    def begin_auction(self, game: Game) -> None:
        raise NotImplementedError

    def begin_estimates(self, game: Game, order: tuple[int, ...]) -> None:
        game.phase = _ESTIMATE
        game.est_order = order
        game.est_pos = 0
        game.turn = order[0]

    def max_estimate(self, game: Game) -> int:
        return 13

    def zeros(self, game: Game) -> int:
        """Seats on zero so far: the offer's takers and every estimate of 0 made."""
        estimates = game.estimates
        return len(game.dash_seats) + [estimates[s] for s in game.est_order[: game.est_pos]].count(0)

    def estimate_bounds(self, game: Game) -> tuple[int, int, int]:
        """(lowest, highest, forbidden) for the estimate due now; forbidden is -1 when nothing is."""
        low = 0 if self.zeros(game) < self.max_zeros else 1
        forbidden = -1
        if game.est_pos == len(game.est_order) - 1:
            forbidden = 13 - sum([e for e in game.estimates if e is not None])
        return low, self.max_estimate(game), forbidden

    def record_estimate(self, game: Game, seat: int, number: int) -> bool:
        """Store an estimate and pass the turn; True once the last estimate is in."""
        game.estimates[seat] = number
        game.est_pos += 1
        if game.est_pos < len(game.est_order):
            game.turn = game.est_order[game.est_pos]
            return False
        return True

    def explain_estimate(self, game: Game, number: int) -> str:
        low, top, _ = self.estimate_bounds(game)
        if number > top:
            return f"an estimate here is at most {top}"
        if number < low:
            return "at most two seats may be on zero (the Dash offer's takers and Dashes together)"
        return "the last estimate may not bring the total to exactly 13"

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


#: The offer's two actions per (seat, verbs): built once, as every legal-action tuple on the hot path is.
_OFFERS: dict[tuple[int, tuple[Verb, Verb]], tuple[Action, ...]] = {}
