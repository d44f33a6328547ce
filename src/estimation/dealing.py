"""Seeded deals.

The cards of round r, deal k depend on (seed, r, k) alone and the first dealer on the seed alone, so that a
duplicate tournament can replay the same deals under different players whatever they declare or play.
"""

from __future__ import annotations

import random
import secrets
import threading

from .cards import DECK_SIZE

_CARD_BITS = tuple(1 << c for c in range(DECK_SIZE))
#: One generator per thread, reseeded for every deal: deals never share state across threads.
_LOCAL = threading.local()


def fresh_seed() -> int:
    return secrets.randbits(63)


def first_dealer(seed: int | str) -> int:
    return random.Random(f"estimation/{seed}/first-dealer").randrange(4)


def deal_hands(seed: int | str, round_no: int, deal_no: int) -> tuple[int, int, int, int]:
    """Four 13-card hand masks for round ``round_no`` (1-based), deal ``deal_no`` (0-based redeal count)."""
    # Sorting by independent uniform keys is a uniform shuffle (ties have probability ~2**-47) and runs
    # in C, which keeps dealing out of the engine's profile.
    try:
        rng = _LOCAL.rng
    except AttributeError:
        rng = _LOCAL.rng = random.Random()
    # Reseeding this thread's generator gives the same stream as a new Random(string) (same seed path)
    # without allocating a 2.5 KB Mersenne Twister state every deal.
    rng.seed(f"estimation/{seed}/round/{round_no}/deal/{deal_no}")
    draw = rng.random
    deck = sorted(_CARD_BITS, key=lambda _: draw())
    return sum(deck[0::4]), sum(deck[1::4]), sum(deck[2::4]), sum(deck[3::4])
