"""The declarations as evidence: how likely each opponent's public declarations are with a sampled hand.

Every declaration a seat made this deal says something about its hand, not only its estimate or call: a
`pass` says it could afford no call the auction still allowed, a `nodash` that it is no Dash Call hand, the
trump of a call that this suit is the hand's best, a With that the hand is worth the standing call.

The model of "a reasonable player" is the heuristic bot's own declaration policy (:mod:`.heuristic`)
applied to the sampled hand, softened: for each declaration we compute how far the hand's values lie from
the region where the heuristic would have made exactly that declaration, given the legal actions at that
moment, and score the gap with a Gaussian. A hand the heuristic would have declared the same way has gap 0;
a human who declares a little differently costs a little, never a contradiction, so the weights stay
finite for any player.

Only the seat's view is used: the public actions of the deal, replayed on a throwaway game to know what
was legal at each declaration (the legal declarations never depend on the cards), and the cards each seat
has played. The replay is cached per public position, so it costs once per deal phase, not per decision.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from ..actions import Action, Verb
from ..dealing import deal_hands
from ..game import Game
from ..rulesets import get_ruleset
from ..rulesets.base import Phase
from .handeval import expected_tricks, expected_tricks_all, high_card_points
from .heuristic import CALL_SLACK, LEAD_BONUS, sure_tricks, wants_dash
from .knowledge import Info

#: Spread (in tricks) of each kind of gap; smaller trusts the declarations more.
EST_SIGMA: Final = 0.35
CALL_SIGMA: Final = 0.42
PASS_SIGMA: Final = 0.42
DASH_SIGMA: Final = 0.35
#: Log-likelihood cost of a `nodash` from a hand the heuristic would have Dash Called with.
NODASH_COST: Final = 2.0
#: A call is affordable when its number is at most the hand's value plus this (the heuristic's rule).
AFFORD: Final = LEAD_BONUS + CALL_SLACK
_INF: Final = float("inf")


@dataclass(frozen=True, slots=True)
class Fact:
    """One opponent declaration with what was legal then, reduced to what the likelihood needs.

    ``kind``: ``est``, ``call``, ``pass``, ``with``, ``dash`` or ``nodash``. ``cheapest[t]``: the lowest
    legal call number in trump t at that moment (inf when none). ``low``/``high``: for an estimate, the
    interval of hand values the nearest-legal-number rule maps to the number declared. ``standing``: the
    standing call (number, trump) when With was legal."""

    seat: int
    kind: str
    number: int
    trump: int
    cheapest: tuple[float, ...] = (_INF,) * 5
    low: float = -_INF
    high: float = _INF
    standing: tuple[int, int] | None = None


def deal_start(ruleset: str, length: str, rnd: int, deal: int, dealer: int, multiplier: int) -> Game:
    """A game at the start of a deal (round ``rnd``, 1-based ``deal``); its cards are placeholders."""
    return Game.at_deal(get_ruleset(ruleset), length, round_no=rnd, deal_no=deal - 1, dealer=dealer,
                        multiplier=multiplier, hands=deal_hands(0, rnd, deal - 1))


def _fact(action: Action, legal: tuple[Action, ...], g: Game) -> Fact | None:
    verb = action.verb
    seat = action.seat
    trump = int(g.trump)
    if verb in (Verb.DASHCALL, Verb.DASH):
        return Fact(seat, "dash", 0, trump)
    if verb is Verb.NODASH:
        return Fact(seat, "nodash", 0, trump)
    if verb is Verb.EST:
        if action.number is None:
            return None
        numbers = sorted({a.number for a in legal if a.verb is Verb.EST and a.number is not None})
        lower = [n for n in numbers if n < action.number]
        higher = [n for n in numbers if n > action.number]
        low = (lower[-1] + action.number) / 2 if lower else -_INF
        high = (higher[0] + action.number) / 2 if higher else _INF
        return Fact(seat, "est", action.number, trump, low=low, high=high)
    if verb in (Verb.CALL, Verb.BID, Verb.PASS, Verb.WITH):
        cheapest = [_INF] * 5
        for a in legal:
            if a.verb in (Verb.CALL, Verb.BID) and a.number is not None and a.trump is not None:
                t = int(a.trump)
                cheapest[t] = min(cheapest[t], a.number)
        standing = None
        standing_now = g.ruleset.public_declarations(g).standing
        if standing_now is not None and any(a.verb is Verb.WITH for a in legal):
            standing = (standing_now[0], int(standing_now[1]))
        if verb in (Verb.CALL, Verb.BID):
            if action.number is None or action.trump is None:
                return None
            return Fact(seat, "call", action.number, int(action.trump), tuple(cheapest), standing=standing)
        return Fact(seat, "pass" if verb is Verb.PASS else "with", 0, trump, tuple(cheapest),
                    standing=standing)
    return None  # `declare` (egyptian) and plays carry no evidence here


#: How many seats' deals :func:`_facts` keeps: one bot process plays three seats at each of hundreds of
#: tables, and a seat asks for its deal's facts at each of its card decisions (512 thrashed at 400 tables:
#: about 4% of the bots' CPU rebuilt them, py-spy on `bench/server.py --practice 400`).
FACTS_KEPT = 8192


@lru_cache(maxsize=FACTS_KEPT)
def _facts(ruleset: str, length: str, rnd: int, deal: int, dealer: int, multiplier: int, me: int,
           declarations: tuple[Action, ...]) -> tuple[Fact, ...]:
    if not declarations:
        return ()
    g = deal_start(ruleset, length, rnd, deal, dealer, multiplier)
    out: list[Fact] = []
    for a in declarations:
        if g.phase is Phase.PLAY:
            break
        if a.seat != me:
            fact = _fact(a, g.legal_actions(), g)
            if fact is not None:
                out.append(fact)
        g.apply_unchecked(a)
    out.sort(key=lambda f: f.seat)  # stable: each seat's declarations stay in order
    return tuple(out)


def facts(info: Info) -> tuple[Fact, ...]:
    """Every opponent declaration of the current deal worth weighing, from the seat's view alone."""
    actions = info.actions
    declarations = actions
    for i, a in enumerate(actions):
        if a.verb is Verb.PLAY:
            declarations = actions[:i]
            break
    return _facts(info.ruleset, info.length, info.round, info.deal, info.dealer, info.multiplier,
                  info.seat, declarations)


def _afford_gap(values: list[float], cheapest: tuple[float, ...]) -> float:
    """How far the hand is from affording no call at all (0 when it could afford none)."""
    gap = 0.0
    for t in range(5):
        if cheapest[t] < _INF:
            gap = max(gap, values[t] + AFFORD - cheapest[t])
    return gap


_ACES: Final = 1 << 12 | 1 << 25 | 1 << 38 | 1 << 51


def fact_log_likelihood(fact: Fact, dealt: int, values: list[float] | None = None) -> float:
    """Log-likelihood (up to a constant) of one declaration by a seat dealt ``dealt``; ``values``: the
    hand's expected tricks under each trump, when the caller has them already."""
    kind = fact.kind
    if kind == "est":
        t = fact.trump
        v = values[t] if values is not None else expected_tricks(dealt, t)
        if v < fact.low or v > fact.high:
            v = max(v, float(sure_tricks(dealt, t)))
        gap = max(fact.low - v, v - fact.high, 0.0)
        return -gap * gap / (2 * EST_SIGMA * EST_SIGMA)
    if kind == "nodash":
        # Most hands hold an ace, and no Dash Call hand does: skip the full test for them.
        return -NODASH_COST if not dealt & _ACES and wants_dash(dealt) else 0.0
    if values is None:
        values = [expected_tricks(dealt, t) for t in range(5)]
    if kind == "dash":
        # The heuristic Dash Calls only with at most 4 points, no ace, no suit over 4 cards and a value
        # under 1 trick in every trump: each excess counts towards the gap.
        longest = max(((dealt >> (s * 13)) & 0x1FFF).bit_count() for s in range(4))
        gap = (max(0, high_card_points(dealt) - 4) / 2 + (dealt & _ACES).bit_count()
               + max(0, longest - 4) / 2 + max(0.0, max(values) - 1.0))
        return -gap * gap / (2 * DASH_SIGMA * DASH_SIGMA)
    if kind == "call":
        t = fact.trump
        g1 = max(0.0, fact.number - values[t] - AFFORD)
        g2 = 0.0
        for u in range(5):
            if u != t and fact.cheapest[u] <= values[u] + AFFORD:
                g2 = max(g2, values[u] - values[t])
        return -(g1 * g1 + g2 * g2) / (2 * CALL_SIGMA * CALL_SIGMA)
    gap = _afford_gap(values, fact.cheapest)
    total = -gap * gap / (2 * PASS_SIGMA * PASS_SIGMA)
    if fact.standing is not None:
        n, t = fact.standing
        # The heuristic joins With exactly when the standing call is within the hand's value.
        w = max(0.0, values[t] - n) if kind == "pass" else max(0.0, n - values[t])
        total -= w * w / (2 * PASS_SIGMA * PASS_SIGMA)
    return total


#: Facts that need the hand's value under every trump (the auction's), computed once per seat and deal.
_AUCTION_KINDS: Final = frozenset({"call", "pass", "with", "dash"})


def seat_log_likelihood(seat_facts: tuple[Fact, ...], dealt: int) -> float:
    """The log-likelihood of one seat's declarations (all of ``seat_facts`` are that seat's) with the
    hand it was dealt; unscaled."""
    total = 0.0
    values: list[float] | None = None
    for f in seat_facts:
        if values is None and f.kind in _AUCTION_KINDS:
            values = expected_tricks_all(dealt)
        total += fact_log_likelihood(f, dealt, values)
    return total


def by_seat(facts_: tuple[Fact, ...]) -> dict[int, tuple[Fact, ...]]:
    """The facts of each seat that declared something."""
    out: dict[int, list[Fact]] = {}
    for f in facts_:
        out.setdefault(f.seat, []).append(f)
    return {s: tuple(fs) for s, fs in out.items()}


def log_likelihood(facts_: tuple[Fact, ...], hands: list[int], played_by: tuple[int, ...],
                   scale: float = 1.0) -> float:
    """How plausible the opponents' declarations are with these hands (as dealt: current hand plus the
    cards each seat has played); ``scale`` multiplies every sigma."""
    total = 0.0
    seat = -1
    dealt = 0
    values: list[float] | None = None
    for f in facts_:  # grouped by seat (see :func:`facts`)
        if f.seat != seat:
            seat = f.seat
            dealt = hands[seat] | played_by[seat]
            values = None
        if values is None and f.kind in _AUCTION_KINDS:
            values = expected_tricks_all(dealt)
        total += fact_log_likelihood(f, dealt, values)
    return total / (scale * scale)
