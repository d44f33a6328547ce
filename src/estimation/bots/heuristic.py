"""The `heuristic` bot: hand evaluation for declarations, target-aware card play.

It decides from the seat's knowledge alone and works for any ruleset by reading the verbs of the legal
actions: a Dash offer (``dashcall``/``dash`` or ``nodash``), an auction (``call``/``bid``, ``with``,
``pass``), a declaration (``declare``), an estimate (``est``) or a card (``play``). It is deterministic: the
same view always gets the same action, which also makes it a cheap, reproducible opponent and the
continuation policy inside the strong bot's simulations.
"""

from __future__ import annotations

from typing import Any

from ..actions import Action, Verb
from ..cards import SUIT_BITS, Card
from .handeval import expected_tricks, high_card_points
from .knowledge import Info, from_view
from .policy import choose_card
from .side import must_spare_partner, sparing

LEAD_BONUS = 0.3  # the Caller leads the first trick, which is worth a little
CALL_SLACK = 0.25  # how far above its evaluation a seat will still call


def sure_tricks(hand: int, trump: int) -> int:
    """Tricks nobody can take from this hand: top trumps in an unbroken run, and side aces (a lower
    bound, so an estimate is never below it)."""
    n = 0
    if trump != 4:
        bits = (hand >> (trump * 13)) & 0x1FFF
        r = 12
        while r >= 0 and bits >> r & 1:
            n += 1
            r -= 1
        others = [s for s in range(4) if s != trump]
        n += sum(1 for s in others if hand >> (s * 13 + 12) & 1 and n < 13)
        return n
    for s in range(4):
        bits = (hand >> (s * 13)) & 0x1FFF
        r = 12
        while r >= 0 and bits >> r & 1:
            n += 1
            r -= 1
    return n


def wants_dash(hand: int) -> bool:
    """A Dash Call promises no trick at all: only with no honours to speak of and no length anywhere."""
    if high_card_points(hand) > 4 or hand & (1 << 12 | 1 << 25 | 1 << 38 | 1 << 51):
        return False
    if max(((hand >> (s * 13)) & 0x1FFF).bit_count() for s in range(4)) > 4:
        return False
    return max(expected_tricks(hand, t) for t in range(5)) < 1.0


def estimate_for(hand: int, trump: int) -> float:
    return max(expected_tricks(hand, trump), float(sure_tricks(hand, trump)))


def heuristic_action(info: Info) -> Action:
    """The heuristic's choice among ``info.legal``."""
    legal = info.legal
    if not legal:
        raise ValueError("the view has no legal action: it is not this seat's turn")
    verbs = {a.verb for a in legal}
    if Verb.PLAY in verbs:
        return _play(info)
    hand = info.hand
    if verbs & {Verb.DASHCALL, Verb.DASH} and Verb.NODASH in verbs:
        take = wants_dash(hand)
        for a in legal:
            if (a.verb is not Verb.NODASH) == take:
                return a
    if verbs & {Verb.CALL, Verb.BID, Verb.WITH, Verb.PASS}:
        return _auction(info, legal)
    if Verb.DECLARE in verbs:
        return _declare(info, legal)
    if Verb.EST in verbs:
        return _estimate(info, legal)
    return legal[0]


def _auction(info: Info, legal: tuple[Action, ...]) -> Action:
    values = [expected_tricks(info.hand, t) + LEAD_BONUS for t in range(5)]
    best: Action | None = None
    best_key = (-99.0, 0)
    for a in legal:
        if a.verb in (Verb.CALL, Verb.BID) and a.number is not None and a.trump is not None:
            v = values[int(a.trump)]
            if a.number <= v + CALL_SLACK:
                key = (v, -a.number)
                if key > best_key:
                    best, best_key = a, key
    if best is not None:
        return best
    standing = info.standing
    for a in legal:
        if a.verb is Verb.WITH and standing is not None and standing[0] <= values[standing[1]] - LEAD_BONUS:
            return a
    for a in legal:
        if a.verb is Verb.PASS:
            return a
    return legal[0]


def _declare(info: Info, legal: tuple[Action, ...]) -> Action:
    values = [expected_tricks(info.hand, t) + LEAD_BONUS for t in range(5)]
    best = legal[0]
    best_key = (-99.0, 0)
    for a in legal:
        if a.number is None or a.trump is None:
            continue
        v = values[int(a.trump)]
        key = (min(0.0, v + CALL_SLACK - a.number) * 10 + v, -a.number)
        if key > best_key:
            best, best_key = a, key
    return best


def _estimate(info: Info, legal: tuple[Action, ...]) -> Action:
    trump = info.trump if info.trump is not None else 4
    target = estimate_for(info.hand, trump)
    best = legal[0]
    best_key = 99.0
    for a in legal:
        if a.verb is not Verb.EST or a.trump is not None or a.number is None:
            continue
        key = abs(a.number - target) + (0.01 if a.number > target else 0.0)
        if key < best_key:
            best, best_key = a, key
    return best


def later_possible(info: Info, seat: int) -> int:
    """The cards ``seat`` might hold, from the seat-to-move's knowledge: unknown cards minus its voids."""
    m = info.unknown
    v = info.voids[seat]
    for s in range(4):
        if v >> s & 1:
            m &= ~SUIT_BITS[s]
    return m


def _play(info: Info) -> Action:
    seat = info.seat
    n = len(info.trick)
    later = [later_possible(info, (seat + i) & 3) for i in range(1, 4 - n)]
    est = info.estimates[seat]
    need = (est if est is not None else 0) - info.won[seat]
    trump = info.trump if info.trump is not None else 4
    card = choose_card(info.hand, info.trick, trump, need, later, info.unknown)
    if must_spare_partner(info):
        # choose_card ducks when the seat needs nothing, which already spares the partner; kept as a guard.
        allowed = sparing(info, [int(a.card) for a in info.legal if a.card is not None])
        if card not in allowed:
            card = max(allowed, key=lambda c: c % 13)
    return Action.play(seat, Card(card))


class HeuristicBot:
    """Hand evaluation for declarations, target-aware play; deterministic (the seed is accepted, unused)."""

    name = "heuristic"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed

    def act(self, view: dict[str, Any]) -> str:
        return heuristic_action(from_view(view)).text
