"""Seeded deals: a function of (seed, round, deal) alone, whoever deals and from whichever thread."""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor

from estimation.cards import FULL_DECK
from estimation.dealing import deal_hands

KEYS = [(seed, rnd, deal) for seed in (0, 7, "table-42", 2**62) for rnd in (1, 5, 18) for deal in (0, 1, 3)]


def _reference_deal(seed: int | str, rnd: int, deal: int) -> tuple[int, ...]:
    """The deal as first specified: a fresh generator per deal, keys drawn inside the sort."""
    draw = random.Random(f"estimation/{seed}/round/{rnd}/deal/{deal}").random
    deck = sorted((1 << c for c in range(52)), key=lambda _: draw())
    return tuple(sum(deck[i::4]) for i in range(4))


def test_deals_are_four_disjoint_thirteen_card_hands_and_match_the_reference() -> None:
    for key in KEYS:
        hands = deal_hands(*key)
        assert [h.bit_count() for h in hands] == [13] * 4
        assert hands[0] | hands[1] | hands[2] | hands[3] == FULL_DECK
        assert hands == _reference_deal(*key)


def test_deals_made_in_many_threads_at_once_are_the_same_deals() -> None:
    expected = [deal_hands(*key) for key in KEYS]
    with ThreadPoolExecutor(max_workers=8) as pool:
        for _ in range(20):
            assert list(pool.map(lambda key: deal_hands(*key), KEYS)) == expected
