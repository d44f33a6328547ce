"""Sampling the hidden hands: deals consistent with everything a seat has seen.

A sampled deal gives the seat its own hand and every other seat exactly as many of the unknown cards as
it holds, never a card of a suit it is marked void in (Avoid), never a card already played. Cards are dealt
suit by suit, the suits with the most void seats first, each card to a seat chosen with probability
proportional to the room left in its hand: with no voids that is exactly a uniform deal, with voids it is
close to uniform, and a rare dead end is retried.

The declarations are evidence too: a seat that estimated 6 rarely holds a hand worth 2. With evidence on,
several times more deals are drawn than needed, each weighted by how likely every opponent's declarations
are with its sampled hand (a Gaussian on the gap between what it declared and what the hand evaluator
says the hand is worth), and the deals kept are drawn by systematic resampling on those weights.
"""

from __future__ import annotations

import math
import random

from ..actions import Verb
from ..cards import SUIT_BITS
from .handeval import expected_tricks
from .knowledge import Info

ESTIMATE_SIGMA = 1.5  # the spread of a declared number around the evaluator's value
CALL_SIGMA = 1.8
DASH_SIGMA = 0.6
OVERSAMPLE = 3
MAX_TRIES = 500


class SamplingError(RuntimeError):
    """No deal fits the view: the view contradicts itself (or a bug)."""


def sample_hands(info: Info, rng: random.Random) -> list[int]:
    """The current hands of all four seats, ours as it is, the others drawn consistent with the view."""
    me = info.seat
    unknown = info.unknown
    others = [s for s in range(4) if s != me]
    plan = []
    for suit in range(4):
        elig = [s for s in others if not info.voids[s] >> suit & 1]
        cards = [suit * 13 + r for r in range(13) if unknown >> (suit * 13 + r) & 1]
        if cards:
            plan.append((len(elig), suit, elig, cards))
    plan.sort()
    need = [0 if s == me else info.hand_sizes[s] for s in range(4)]
    if sum(need) != unknown.bit_count():
        raise SamplingError("hand sizes do not match the unknown cards")
    for _ in range(MAX_TRIES):
        cap = list(need)
        hands = [0, 0, 0, 0]
        hands[me] = info.hand
        ok = True
        for _n, _suit, elig, cards in plan:
            order = list(cards)
            rng.shuffle(order)
            for c in order:
                total = 0
                for s in elig:
                    total += cap[s]
                if total == 0:
                    ok = False
                    break
                r = rng.randrange(total)
                for s in elig:
                    r -= cap[s]
                    if r < 0:
                        break
                hands[s] |= 1 << c
                cap[s] -= 1
            if not ok:
                break
        if ok:
            return hands
    raise SamplingError("no deal consistent with the view was found")


def _evidence(info: Info) -> list[tuple[int, str, int, int]]:
    """(seat, kind, number, trump) for every opponent declaration worth weighing."""
    me = info.seat
    out: list[tuple[int, str, int, int]] = []
    trump = info.trump if info.trump is not None else 4
    last_contract: dict[int, tuple[int, int]] = {}
    for a in info.actions:
        if a.verb in (Verb.CALL, Verb.BID, Verb.DECLARE) and a.number is not None and a.trump is not None:
            last_contract[a.seat] = (a.number, int(a.trump))
    for s in range(4):
        if s == me:
            continue
        if s in info.dash_seats:
            out.append((s, "dash", 0, trump))
        elif info.estimates[s] is not None:
            est = info.estimates[s]
            assert est is not None
            out.append((s, "est", est, trump))
        elif s in last_contract:
            n, t = last_contract[s]
            out.append((s, "call", n, t))
    return out


def log_likelihood(info: Info, hands: list[int], evidence: list[tuple[int, str, int, int]],
                   scale: float = 1.0) -> float:
    """How plausible the opponents' declarations are with these hands (up to a constant); ``scale``
    multiplies every sigma."""
    total = 0.0
    for seat, kind, number, trump in evidence:
        dealt = hands[seat] | info.played_by[seat]
        if kind == "dash":
            worst = min(expected_tricks(dealt, t) for t in range(5))
            gap = max(0.0, worst - 0.3)
            total -= gap * gap / (2 * DASH_SIGMA * DASH_SIGMA)
        elif kind == "est":
            gap = number - expected_tricks(dealt, trump)
            total -= gap * gap / (2 * ESTIMATE_SIGMA * ESTIMATE_SIGMA)
        else:
            gap = number - expected_tricks(dealt, trump) - 0.3
            total -= gap * gap / (2 * CALL_SIGMA * CALL_SIGMA)
    return total / (scale * scale)


def sample_deals(info: Info, n: int, rng: random.Random, evidence: bool = True, scale: float = 1.0,
                 oversample: int = OVERSAMPLE) -> list[list[int]]:
    """``n`` deals (current hands of all four seats) consistent with the view, weighted by the evidence."""
    facts = _evidence(info) if evidence else []
    if not facts:
        return [sample_hands(info, rng) for _ in range(n)]
    pool = [sample_hands(info, rng) for _ in range(n * oversample)]
    logs = [log_likelihood(info, h, facts, scale) for h in pool]
    top = max(logs)
    weights = [math.exp(x - top) for x in logs]
    total = sum(weights)
    step = total / n
    u = rng.random() * step
    out: list[list[int]] = []
    acc = 0.0
    i = 0
    for h, w in zip(pool, weights, strict=True):
        acc += w
        while i < n and u + i * step < acc:
            out.append(h)
            i += 1
    while len(out) < n:  # rounding at the very end
        out.append(pool[-1])
    return out


def consistent(info: Info, hands: list[int]) -> bool:
    """Whether a deal (current hands) contradicts nothing the seat knows; the tests' oracle."""
    if hands[info.seat] != info.hand:
        return False
    seen = info.hand
    for s in range(4):
        if hands[s].bit_count() != info.hand_sizes[s]:
            return False
        if hands[s] & info.played:
            return False
        if s != info.seat:
            if hands[s] & seen:
                return False
            seen |= hands[s]
            for suit in range(4):
                if info.voids[s] >> suit & 1 and hands[s] & SUIT_BITS[suit]:
                    return False
    return (seen | info.played) == (1 << 52) - 1
