"""Seeded deals.

The cards of round r, deal k depend on (seed, r, k) alone and the first dealer on the seed alone, so that a
duplicate tournament can replay the same deals under different players whatever they declare or play.
"""

from __future__ import annotations

import random
import secrets

from .cards import DECK_SIZE


def fresh_seed() -> int:
    return secrets.randbits(63)


def first_dealer(seed: int | str) -> int:
    return random.Random(f"estimation/{seed}/first-dealer").randrange(4)


def deal_hands(seed: int | str, round_no: int, deal_no: int) -> tuple[int, int, int, int]:
    """Four 13-card hand masks for round ``round_no`` (1-based), deal ``deal_no`` (0-based redeal count)."""
    deck = list(range(DECK_SIZE))
    random.Random(f"estimation/{seed}/round/{round_no}/deal/{deal_no}").shuffle(deck)
    masks = [0, 0, 0, 0]
    for i, card in enumerate(deck):
        masks[i & 3] |= 1 << card
    return masks[0], masks[1], masks[2], masks[3]
