"""Perft-style regression: legal-action counts along fixed seeded games are pinned.

A change to move generation, turn order or dealing shows up here as a changed count. The first counts are
checked by hand (e.g. a fixed round's first estimator has 14 estimates + 6 x 5 Super Calls = 44 actions;
the first auction turn has pass + 50 calls = 51).
"""

from __future__ import annotations

import hashlib
import random

import pytest

import estimation

PINNED = [
    # ruleset, length, seed, actions, sum of legal counts, first counts, sha256 of all counts[:16]
    ("koutchina", "micro", 1, 280, 1885, [44, 44, 44, 44, 13, 2, 2, 3, 12, 4, 2, 4], "6bbc0f150970a6ed"),
    ("koutchina", "mini", 2, 589, 3555, [2, 2, 51, 46, 23, 18, 9, 5, 1, 13, 13, 3], "a3249c0b99027327"),
    ("koutchina", "full", 3, 1074, 6030, [2, 2, 51, 28, 9, 2, 13, 13, 4, 4, 4, 12], "1c1419bef8e300fc"),
    ("classic", "full", 4, 1090, 6221, [2, 2, 2, 51, 5, 2, 1, 13, 13, 3, 4, 4], "d13924b78a523ad3"),
    # egyptian: four blind Dash offers, then pass + 50 bids; with a standing 13S: pass, with, 13NT.
    ("egyptian", "standard", 5, 1114, 5603, [2, 2, 2, 2, 51, 3, 3, 2, 5, 14, 14, 13], "3ea50ef1a985b3f4"),
    ("egyptian", "committee", 6, 807, 4269, [2, 2, 2, 2, 51, 51, 45, 13, 13, 6, 13, 2], "be4a24d17598cf98"),
    ("egyptian", "long", 7, 1486, 7812, [2, 2, 2, 2, 51, 48, 15, 15, 11, 13, 4, 3], "ea8d432b21c4c61d"),
]


@pytest.mark.parametrize(("ruleset", "length", "seed", "n", "total", "first", "digest"), PINNED)
def test_legal_action_counts_along_a_seeded_game(
    ruleset: str, length: str, seed: int, n: int, total: int, first: list[int], digest: str
) -> None:
    game = estimation.new_game(ruleset, length, seed=seed)
    rng = random.Random(seed)
    counts = []
    while not game.is_over:
        legal = game.legal_actions()
        counts.append(len(legal))
        game.apply(legal[rng.randrange(len(legal))])
    assert counts[:12] == first
    assert (len(counts), sum(counts)) == (n, total)
    assert hashlib.sha256(",".join(map(str, counts)).encode()).hexdigest()[:16] == digest
