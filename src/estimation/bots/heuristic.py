"""The `heuristic` bot: hand evaluation for declarations, target-aware card play.

It decides from the seat's knowledge alone and works for any ruleset by reading the verbs of the legal
actions: a Dash offer (``dashcall``/``dash`` or ``nodash``), an auction (``call``/``bid``, ``with``,
``pass``), a declaration (``declare``), an estimate (``est``) or a card (``play``). It is deterministic: the
same view always gets the same action, which also makes it a cheap, reproducible opponent and the
continuation policy inside the strong bot's simulations.
"""

from __future__ import annotations

from enum import Enum
from functools import lru_cache
from typing import Any, NamedTuple

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


@lru_cache(maxsize=4096)
def wants_dash(hand: int) -> bool:
    """A Dash Call promises no trick at all: only with no honours to speak of and no length anywhere.
    Cached (pure): a simulated Dash phase asks it of every sampled hand once per candidate, and it
    weighs the hand under all five trumps."""
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
    if any(a.verb is Verb.PLAY for a in legal):
        return _play(info)
    return heuristic_declaration(info.hand, legal, info.standing, info.trump)


class HandFacts(NamedTuple):
    """What the heuristic's declarations read of a hand, for a caller that has them for many hands at once
    (the strong bot's simulations, compiled in one batch: ``kernel_sampler.hand_facts``): the hand's value
    under each trump with the lead's bonus (:func:`_call_values`), its estimate target under each trump
    (:func:`estimate_for`) and whether it wants a Dash Call (:func:`wants_dash`). The same numbers as those
    functions, so the same choices."""

    values: tuple[float, ...]
    targets: tuple[float, ...]
    dash: bool


def hand_facts(hand: int) -> HandFacts:
    """:class:`HandFacts` in Python (the compiled batch's reference)."""
    return HandFacts(_call_values(hand), tuple(estimate_for(hand, t) for t in range(5)), wants_dash(hand))


def heuristic_declaration(hand: int, legal: tuple[Action, ...], standing: tuple[int, int, int] | None,
                          trump: int | None, facts: HandFacts | None = None) -> Action:
    """The heuristic's choice among ``legal`` declarations (an offer, the auction, a declaration, an
    estimate), from the four things it reads: the hand, the legal actions, the standing bid (number,
    trump, seat) and the trump in force. The strong bot's simulations call it with these read straight
    from the shadow game, without building the whole :class:`Info` a card would need, and with the
    hand's ``facts`` when they have them (else they are worked out here, cached)."""
    shape = _shape(legal)
    kind = shape.kind
    if kind is _Kind.OFFER:
        take = facts.dash if facts is not None else wants_dash(hand)
        for a in legal:
            if (a.verb is not Verb.NODASH) == take:
                return a
    if kind is _Kind.AUCTION:
        return _auction(facts.values if facts is not None else _call_values(hand), standing, legal, shape)
    if kind is _Kind.DECLARE:
        return _declare(facts.values if facts is not None else _call_values(hand), legal, shape)
    if kind is _Kind.ESTIMATE:
        t = trump if trump is not None else 4
        return _estimate(facts.targets[t] if facts is not None else _target(hand, t), legal, shape)
    return legal[0]


class _Kind(Enum):
    """Which of the heuristic's rules a legal list calls for (the first that applies, in this order)."""

    OFFER = "offer"  # a Dash (Call) offer: take it or not
    AUCTION = "auction"  # call, bid, With or Pass
    DECLARE = "declare"  # the auction winner's declaration
    ESTIMATE = "estimate"
    OTHER = "other"


_OFFERS = frozenset({Verb.DASHCALL, Verb.DASH})
_AUCTION = frozenset({Verb.CALL, Verb.BID, Verb.WITH, Verb.PASS})


def _kind(verbs: frozenset[Verb]) -> _Kind:
    if verbs & _OFFERS and Verb.NODASH in verbs:
        return _Kind.OFFER
    if verbs & _AUCTION:
        return _Kind.AUCTION
    if Verb.DECLARE in verbs:
        return _Kind.DECLARE
    return _Kind.ESTIMATE if Verb.EST in verbs else _Kind.OTHER


class _Shape(NamedTuple):
    """What the declaration choices need of a legal list (:func:`_shape`)."""

    kind: _Kind
    #: For each trump a call or bid names: (trump, its lowest number, that call), by position in the list.
    calls: tuple[tuple[int, int, Action], ...]
    #: The same over every action with a number and a trump, whatever its verb (the declarations').
    priced: tuple[tuple[int, int, Action], ...]
    first_with: Action | None
    first_pass: Action | None
    #: The plain estimates (no trump named): (number, action), in the order of the list.
    estimates: tuple[tuple[int, Action], ...]


@lru_cache(maxsize=2048)
def _shape(legal: tuple[Action, ...]) -> _Shape:
    """A legal list, as the declaration choices read it.

    Under one trump the lowest number always has the best key, in the auction (its value, minus the
    number) and in a declaration (the shortfall below the value, then minus the number), and is within
    reach whenever any is; so the choices compare one action a trump instead of every action in the list
    (an egyptian or classic auction lists dozens): the same choice, ties to the earlier action as before.
    Cached by the list (actions are flyweights, so the tuple hashes fast): a decision's simulations meet
    the same few lists thousands of times."""
    calls: dict[int, tuple[int, int, Action]] = {}
    priced: dict[int, tuple[int, int, Action]] = {}
    first_with = first_pass = None
    estimates: list[tuple[int, Action]] = []
    for i, a in enumerate(legal):
        if a.verb is Verb.EST and a.trump is None and a.number is not None:
            estimates.append((a.number, a))
        if a.number is not None and a.trump is not None:
            t = int(a.trump)
            if t not in priced or a.number < priced[t][1]:
                priced[t] = (i, a.number, a)
            if a.verb in (Verb.CALL, Verb.BID) and (t not in calls or a.number < calls[t][1]):
                calls[t] = (i, a.number, a)
        if a.verb is Verb.WITH and first_with is None:
            first_with = a
        if a.verb is Verb.PASS and first_pass is None:
            first_pass = a

    def by_position(found: dict[int, tuple[int, int, Action]]) -> tuple[tuple[int, int, Action], ...]:
        return tuple((t, n, a) for t, (_i, n, a) in sorted(found.items(), key=lambda item: item[1][0]))

    kind = _kind(frozenset(a.verb for a in legal))
    return _Shape(kind, by_position(calls), by_position(priced), first_with, first_pass, tuple(estimates))


@lru_cache(maxsize=4096)
def _call_values(hand: int) -> tuple[float, ...]:
    """What the hand is worth under each trump (0..3, 4 no-trump), with the lead's bonus: the auction's
    and the declaration's yardstick. Cached: a simulated deal asks for the same hands' values once per
    candidate action and declaration, and the function is pure."""
    return tuple(expected_tricks(hand, t) + LEAD_BONUS for t in range(5))


def _auction(values: tuple[float, ...], standing: tuple[int, int, int] | None, legal: tuple[Action, ...],
             shape: _Shape) -> Action:
    """The call worth most under its trump (the lowest number of it, within reach of the hand's
    ``values``), else With if the standing bid is within reach, else Pass."""
    best: Action | None = None
    best_key = (-99.0, 0)
    for t, number, a in shape.calls:
        v = values[t]
        if number <= v + CALL_SLACK:
            key = (v, -number)
            if key > best_key:
                best, best_key = a, key
    if best is not None:
        return best
    if (shape.first_with is not None and standing is not None
            and standing[0] <= values[standing[1]] - LEAD_BONUS):
        return shape.first_with
    if shape.first_pass is not None:
        return shape.first_pass
    return legal[0]


def _declare(values: tuple[float, ...], legal: tuple[Action, ...], shape: _Shape) -> Action:
    """The trump worth most, at its lowest number, a shortfall below the hand's value weighing ten times."""
    best = legal[0]
    best_key = (-99.0, 0)
    for t, number, a in shape.priced:
        v = values[t]
        key = (min(0.0, v + CALL_SLACK - number) * 10 + v, -number)
        if key > best_key:
            best, best_key = a, key
    return best


@lru_cache(maxsize=4096)
def _target(hand: int, trump: int) -> float:
    """:func:`estimate_for`, cached (pure; the simulations ask it of the same hands again and again)."""
    return estimate_for(hand, trump)


def _estimate(target: float, legal: tuple[Action, ...], shape: _Shape) -> Action:
    """The estimate nearest to ``target`` (what the hand is worth under the trump in force), the lower on
    a tie."""
    best = legal[0]
    best_key = 99.0
    for number, a in shape.estimates:
        key = abs(number - target) + (0.01 if number > target else 0.0)
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
