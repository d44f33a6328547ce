"""Sampling the hidden hands: deals consistent with everything a seat has seen.

A sampled deal gives the seat its own hand and every other seat exactly as many of the unknown cards as
it holds, never a card of a suit it is marked void in (Avoid), never a card already played. With no voids
the unknown cards are shuffled and cut into the hands (exactly uniform). With voids they are dealt suit by
suit, the suits with the most void seats first, each card to a seat chosen with probability proportional
to the room left in its hand (close to uniform), and a rare dead end is retried.

The declarations are evidence too (:mod:`.evidence`): a seat that passed at 5 rarely holds a hand worth
7. When any opponent has declared, twice as many deals are drawn as needed, each weighted by how likely
every opponent's declarations are with its sampled hand; the weights are tempered if they would leave too
few effective deals, the deals kept are drawn by systematic resampling, and each is then moved by a few
likelihood-respecting card swaps (:mod:`.moves`) so that repeated deals become distinct ones.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from ..cards import SUIT_BITS
from .evidence import by_seat, facts, log_likelihood
from .knowledge import Info
from .moves import rejuvenate

OVERSAMPLE = 3
#: The evidence's weights are flattened if needed to keep at least this share of the deals kept effective.
MIN_ESS = 0.25
TEMPER_STEPS = 8
#: Swap proposals per kept deal after resampling (see :mod:`.moves`).
MOVES = 6


class SamplingError(RuntimeError):
    """No deal fits the view: the view contradicts itself (or a bug)."""


def sample_hands(info: Info, rng: random.Random) -> list[int]:
    """The current hands of all four seats, ours as it is, the others drawn consistent with the view."""
    me = info.seat
    others = [s for s in range(4) if s != me]
    if not any(info.voids[s] for s in others):
        return _shuffle_deal(info, others, rng)
    need = [0 if s == me else info.hand_sizes[s] for s in range(4)]
    if sum(need) != info.unknown.bit_count():
        raise SamplingError("hand sizes do not match the unknown cards")
    hands = deal_by_suit(info.unknown, need, others, info.voids, rng)
    if hands is None:
        raise SamplingError("no deal consistent with the view was found")
    hands[me] = info.hand
    return hands


def deal_by_suit(cards: int, sizes: list[int], seats: list[int], voids: Sequence[int],
                 rng: random.Random) -> list[int] | None:
    """The ``cards`` (a mask) dealt to ``seats``, ``sizes[s]`` to seat s and never a card of a suit s is void
    in (``voids[s]``, a mask of suits): suit by suit, the suits the fewest seats may hold first, each card to
    a seat chosen with probability proportional to the room left in its hand (close to uniform), among the
    seats that leave the rest dealable (:func:`deal_slack`). So a deal never reaches a dead end, however
    tight the voids make it; None only if no deal fits at all (the view contradicts itself). The four
    hands, 0 for a seat not dealt to.

    The seats that would leave the rest undealable are the only difference from dealing blindly and
    starting again at a dead end, as this once did (500 tries at most): when three seats' voids leave few
    deals, nearly every try ended in a dead end, and a search asking for 128 deals failed often enough to
    stop a game (an egyptian committee game of a duplicate run). Where no choice is ever ruled out, the
    random draws, and so the deals, are those of the first blind try."""
    plan = []
    for suit in range(4):
        elig = [s for s in seats if not voids[s] >> suit & 1]
        in_suit = [suit * 13 + r for r in range(13) if cards >> (suit * 13 + r) & 1]
        if in_suit:
            plan.append((len(elig), suit, elig, in_suit))
    plan.sort()
    slack, uses = deal_slack(sizes, seats, [(elig, len(in_suit)) for _n, _suit, elig, in_suit in plan])
    if slack is None:
        return None
    cap = [sizes[s] if s in seats else 0 for s in range(4)]
    hands = [0, 0, 0, 0]
    for p, (_n, _suit, elig, in_suit) in enumerate(plan):
        order = list(in_suit)
        rng.shuffle(order)
        for c in order:
            weights = [cap[s] if all(slack[t] for t in uses[p][s]) else 0 for s in elig]
            r = rng.randrange(sum(weights)) - weights[0]
            pick = 0
            while r >= 0:
                pick += 1
                r -= weights[pick]
            s = elig[pick]
            hands[s] |= 1 << c
            cap[s] -= 1
            for t in uses[p][s]:
                slack[t] -= 1
    return hands


def deal_slack(sizes: Sequence[int], seats: Sequence[int], rows: Sequence[tuple[Sequence[int], int]]
               ) -> tuple[list[int] | None, list[dict[int, list[int]]]]:
    """What keeps :func:`deal_by_suit` out of dead ends. ``rows``: each suit's eligible seats and number of
    cards.

    Cards can all still be dealt exactly when, for every set T of seats, the cards only T's seats may take
    are no more than T's room (Hall's condition; the room is the hand sizes left, which add up to the
    cards). ``slack[T]`` (T a mask of seats) is that room minus those cards; a card of row p dealt to seat s
    takes one from the slack of every T holding s but not every seat of row p (``uses[p][s]``), and leaves
    the others as they were. So a seat may take the card when none of those is already 0. Returns None
    for the slack if some T has less room than cards (no deal fits)."""
    all_seats = 0
    for s in seats:
        all_seats |= 1 << s
    masks = []
    for elig, _count in rows:
        m = 0
        for s in elig:
            m |= 1 << s
        masks.append(m)
    slack = [0] * 16
    for t in range(1, 16):
        if t & ~all_seats:
            continue
        room = sum(sizes[s] for s in seats if t >> s & 1)
        need = sum(count for (_elig, count), m in zip(rows, masks, strict=True) if m & ~t == 0)
        if need > room:
            return None, []
        slack[t] = room - need
    uses = [{s: [t for t in range(1, 16) if not t & ~all_seats and t >> s & 1 and m & ~t]
             for s in elig} for (elig, _count), m in zip(rows, masks, strict=True)]
    return slack, uses


def _shuffle_deal(info: Info, others: list[int], rng: random.Random) -> list[int]:
    """No voids to respect: a uniform deal is a shuffle of the unknown cards cut into the hand sizes
    (several times faster than dealing card by card, which the search does hundreds of times a decision)."""
    unknown = info.unknown
    cards = [c for c in range(52) if unknown >> c & 1]
    if sum(info.hand_sizes[s] for s in others) != len(cards):
        raise SamplingError("hand sizes do not match the unknown cards")
    rng.shuffle(cards)
    hands = [0, 0, 0, 0]
    hands[info.seat] = info.hand
    at = 0
    for s in others:
        mask = 0
        for c in cards[at:at + info.hand_sizes[s]]:
            mask |= 1 << c
        hands[s] = mask
        at += info.hand_sizes[s]
    return hands


def effective_size(weights: list[float]) -> float:
    """Kish's effective sample size: how many equally weighted deals the weighted pool is worth."""
    total = sum(weights)
    squares = sum(w * w for w in weights)
    return total * total / squares if squares else 0.0


def temper(logs: list[float], min_ess: float) -> tuple[list[float], float]:
    """Weights ``exp(beta * log)`` with the largest ``beta`` in (0, 1] that keeps the effective sample
    size at least ``min_ess``, and that ``beta``.

    Sharp evidence can put nearly all the weight on a handful of deals, and a search on a few distinct
    deals is noisier than one on many slightly less plausible ones: flattening the likelihood just enough
    keeps the pool useful (beta = 1 whenever the evidence does not collapse it)."""
    top = max(logs)
    centred = [x - top for x in logs]

    def weights(beta: float) -> list[float]:
        return [math.exp(beta * x) for x in centred]

    full = weights(1.0)
    if effective_size(full) >= min_ess:
        return full, 1.0
    low, high = 0.0, 1.0
    for _ in range(TEMPER_STEPS):
        mid = (low + high) / 2
        if effective_size(weights(mid)) >= min_ess:
            low = mid
        else:
            high = mid
    return weights(low), low


def systematic(pool: list[list[int]], weights: list[float], n: int, u: float) -> list[list[int]]:
    """``n`` deals drawn from ``pool`` by systematic resampling with offset ``u`` in [0, 1).

    With equal weights it keeps one deal of every ``len(pool) / n``: the same ``u`` and pool then give
    the evidence-free and the evidence-weighted searches the same deals wherever the evidence is flat."""
    total = sum(weights)
    step = total / n
    start = u * step
    out: list[list[int]] = []
    acc = 0.0
    i = 0
    for h, w in zip(pool, weights, strict=True):
        acc += w
        while i < n and start + i * step < acc:
            out.append(h)
            i += 1
    while len(out) < n:  # rounding at the very end
        out.append(pool[-1])
    return out


def sample_deals(info: Info, n: int, rng: random.Random, evidence: bool = True, scale: float = 1.0,
                 oversample: int = OVERSAMPLE, min_ess: float = MIN_ESS,
                 moves: int = MOVES) -> list[list[int]]:
    """``n`` deals (current hands of all four seats) consistent with the view, weighted by the evidence.

    Whenever the deal has opponent declarations, ``n * oversample`` deals are drawn and ``n`` kept by
    systematic resampling, on the evidence's weights (tempered to keep ``min_ess * n`` effective deals)
    or, with ``evidence`` off, on equal weights. Both draw the same pool and offset from ``rng``: two
    searches seeded alike (the strong bot and its evidence-free ablation) differ only where the evidence
    moves the weights (common random numbers)."""
    facts_ = facts(info)
    if not facts_:
        return [sample_hands(info, rng) for _ in range(n)]
    pool = [sample_hands(info, rng) for _ in range(n * oversample)]
    u = rng.random()
    if not evidence:
        return systematic(pool, [1.0] * len(pool), n, u)
    played_by = info.played_by
    logs = [log_likelihood(facts_, h, played_by, scale) for h in pool]
    weights, _beta = temper(logs, min_ess * n)
    kept = systematic(pool, weights, n, u)
    return rejuvenate(info, kept, by_seat(facts_), moves, rng, scale)


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
