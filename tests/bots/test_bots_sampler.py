"""Samplers never produce a deal contradicting the view: own hand, cards played, Avoid voids, hand sizes.

The oracle here reads the real game (the true hands, the engine's Avoid markers and trick log), not the
bot's parsed knowledge, so a parsing mistake in the bot would show up as well.
"""

from __future__ import annotations

import random

import pytest
from bots_helpers import RULESET_LENGTHS, positions

from estimation import Game
from estimation.bots.knowledge import from_view
from estimation.bots.sampler import consistent, sample_deals, sample_hands
from estimation.cards import SUIT_BITS


def _check(game: Game, seat: int, hands: list[int]) -> None:
    assert hands[seat] == game.hands[seat]
    played = 0
    for _lead, cards, _w in game.trick_log:
        for c in cards:
            played |= 1 << c
    for c in game.trick:
        played |= 1 << c
    union = 0
    for s in range(4):
        assert hands[s].bit_count() == game.hands[s].bit_count()
        assert not hands[s] & played
        assert not hands[s] & union
        union |= hands[s]
        for suit in range(4):
            if game.avoid[s] >> suit & 1:
                assert not hands[s] & SUIT_BITS[suit], f"seat {s} got a card of a suit it is void in"
    assert union | played == (1 << 52) - 1


@pytest.mark.parametrize(("ruleset", "length"), RULESET_LENGTHS)
def test_samples_are_consistent_with_the_view(ruleset: str, length: str) -> None:
    rng = random.Random(3)
    n = 0
    for game in positions(ruleset, length, seed=7, every=3):
        seat = game.to_move
        assert seat is not None
        info = from_view(game.view(seat))
        assert consistent(info, list(game.hands))  # the truth is a consistent deal
        for hands in sample_deals(info, 6, rng, evidence=True):
            _check(game, seat, hands)
            assert consistent(info, hands)
        n += 1
    assert n > 10


def test_voids_are_respected_when_they_bind() -> None:
    """A position with many Avoid markers: the dealer must route whole suits to the few seats left."""
    from bots_helpers import play_out  # noqa: F401  (keeps the helper import path the same)

    from estimation import new_game

    found = 0
    for seed in range(40):
        game = new_game("koutchina", "micro", seed=seed)
        rng = random.Random(seed)
        while not game.is_over:
            seat = game.to_move
            assert seat is not None
            if game.phase == "play" and sum(bin(v).count("1") for v in game.avoid) >= 3:
                info = from_view(game.view(seat))
                for _ in range(20):
                    _check(game, seat, sample_hands(info, rng))
                found += 1
                break
            game.apply(rng.choice(game.legal_actions()))
    assert found >= 5
