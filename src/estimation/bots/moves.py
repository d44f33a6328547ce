"""Resample-move: diversifying the weighted deals with card swaps that respect the view and the evidence.

Resampling on sharp evidence keeps the plausible deals but repeats them: a search on 64 deals of which
only 30 differ learns less than one on 64 different ones. Each kept deal is therefore moved by a few
Metropolis steps whose stationary distribution is the posterior itself (uniform over the deals the view
allows, times the declarations' likelihood): swap a random card between two other seats, refused if a
seat would get a suit it is marked void in, accepted with probability min(1, likelihood ratio). The
proposal is symmetric (hand sizes never change), so the moves never leave the posterior; they only make
the copies differ. Only the two seats whose hands changed are re-weighed.
"""

from __future__ import annotations

import math
import random

from ..cards import indexes_of
from .evidence import Fact, seat_log_likelihood
from .knowledge import Info


def rejuvenate(info: Info, deals: list[list[int]], facts_by_seat: dict[int, tuple[Fact, ...]],
               steps: int, rng: random.Random, scale: float = 1.0) -> list[list[int]]:
    """Each deal after ``steps`` swap proposals (new lists; the input is not changed)."""
    me = info.seat
    seats = [s for s in range(4) if s != me and info.hand_sizes[s] > 0]
    if len(seats) < 2 or steps <= 0 or not facts_by_seat:
        return [list(h) for h in deals]
    played_by = info.played_by
    voids = info.voids
    inv = 1.0 / (scale * scale)
    k = len(seats)
    out: list[list[int]] = []
    for hands in deals:
        h = list(hands)
        ll = {s: seat_log_likelihood(facts_by_seat.get(s, ()), h[s] | played_by[s]) * inv for s in seats}
        for _ in range(steps):
            i = rng.randrange(k)
            j = rng.randrange(k - 1)
            a = seats[i]
            b = seats[j + 1 if j >= i else j]
            ca = indexes_of(h[a])
            cb = indexes_of(h[b])
            x = ca[rng.randrange(len(ca))]
            y = cb[rng.randrange(len(cb))]
            if voids[a] >> (y // 13) & 1 or voids[b] >> (x // 13) & 1:
                continue
            na = h[a] ^ (1 << x) | (1 << y)
            nb = h[b] ^ (1 << y) | (1 << x)
            la = seat_log_likelihood(facts_by_seat.get(a, ()), na | played_by[a]) * inv
            lb = seat_log_likelihood(facts_by_seat.get(b, ()), nb | played_by[b]) * inv
            delta = la + lb - ll[a] - ll[b]
            if delta >= 0.0 or rng.random() < math.exp(delta):
                h[a], h[b] = na, nb
                ll[a], ll[b] = la, lb
        out.append(h)
    return out
