"""Playing for a side (RULES.md, Partnerships): what every bot does for its partner.

In a partnership game a bot plays for its side's total, not its seat's alone, and it never sees its
partner's hand (its view is a seat's view like any other). Every declaration and limit is as without
partners, so the only card-play courtesy all levels share is this one: **a bot never takes a trick its
partner is winning when the partner still needs tricks and the bot does not**, whenever it holds a legal
card that does not overtake. The `strong` bot goes further: it judges each candidate by its side's score
(:func:`value`), and its exact endgame has every seat play for its side.
"""

from __future__ import annotations

from collections.abc import Sequence

from .knowledge import Info
from .policy import trick_best


def value(scores: Sequence[int], seat: int, for_side: bool) -> int:
    """What ``seat`` plays for: its side's score (itself and the seat opposite), or its own."""
    return scores[seat] + scores[(seat + 2) & 3] if for_side else scores[seat]


def _need(info: Info, seat: int) -> int:
    estimate = info.estimates[seat]
    return (estimate if estimate is not None else 0) - info.won[seat]


def partner_is_winning(info: Info) -> bool:
    """Whether the card winning the trick so far is the partner's (a partnership game, a trick begun)."""
    trick = info.trick
    if not info.partners or not trick:
        return False
    trump = info.trump if info.trump is not None else 4
    best = trick_best(trick, trump)
    return (info.leader + trick.index(best)) & 3 == info.partner


def must_spare_partner(info: Info) -> bool:
    """The courtesy applies: the partner is winning this trick and needs tricks, and this seat does not."""
    return partner_is_winning(info) and _need(info, info.partner) > 0 >= _need(info, info.seat)


def sparing(info: Info, cards: Sequence[int]) -> list[int]:
    """The cards of ``cards`` that leave the partner winning the trick when the courtesy applies (all of
    ``cards`` when it does not, or when every one of them overtakes)."""
    if not must_spare_partner(info):
        return list(cards)
    trump = info.trump if info.trump is not None else 4
    best = trick_best(info.trick, trump)
    under = [c for c in cards if trick_best((*info.trick, c), trump) == best]
    return under or list(cards)
