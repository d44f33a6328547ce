"""Samplers never produce a deal contradicting the view: own hand, cards played, Avoid voids, hand sizes.

The oracle here reads the real game (the true hands, the engine's Avoid markers and trick log), not the
bot's parsed knowledge, so a parsing mistake in the bot would show up as well.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from bots_helpers import RULESET_LENGTHS, positions
from hypothesis import given, settings
from hypothesis import strategies as st

from estimation import Game
from estimation.bots import StrongBot
from estimation.bots.knowledge import from_view
from estimation.bots.sampler import consistent, deal_by_suit, sample_deals, sample_hands
from estimation.bots.search import KERNEL_ENV, deal_sampler
from estimation.cards import SUIT_BITS
from estimation.tournament.lineup import game_seed


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


# --- a deal whenever one exists ---------------------------------------------------------------------------
@st.composite
def void_constraints(draw: st.DrawFn) -> tuple[int, list[int], list[int], list[int]]:
    """A true deal of some unknown cards to three seats, and voids each seat truly has (a random subset of
    the suits it holds none of): the constraints of a real view, often tight."""
    rng = random.Random(draw(st.integers(0, 2**32)))
    sizes = [0] + [draw(st.integers(0, 13)) for _ in range(3)]
    cards = rng.sample(range(52), sum(sizes))
    hands, at = [0, 0, 0, 0], 0
    for s in (1, 2, 3):
        for c in cards[at:at + sizes[s]]:
            hands[s] |= 1 << c
        at += sizes[s]
    voids = [0, 0, 0, 0]
    for s in (1, 2, 3):
        for suit in range(4):
            if not hands[s] & SUIT_BITS[suit] and draw(st.booleans()):
                voids[s] |= 1 << suit
    pool = hands[1] | hands[2] | hands[3]
    return pool, sizes, voids, hands


@settings(max_examples=300, deadline=None)
@given(void_constraints(), st.integers(0, 2**32))
def test_a_deal_is_found_whenever_one_exists(constraints: tuple[int, list[int], list[int], list[int]],
                                             seed: int) -> None:
    """Blind dealing started again at each dead end, 500 times at most, found none in positions like
    the one below; the dealer now keeps the rest dealable card by card."""
    pool, sizes, voids, _truth = constraints
    dealt = deal_by_suit(pool, sizes, [1, 2, 3], voids, random.Random(seed))
    assert dealt is not None
    assert dealt[1] | dealt[2] | dealt[3] == pool and dealt[0] == 0
    for s in (1, 2, 3):
        assert dealt[s].bit_count() == sizes[s]
        assert not any(dealt[s] & SUIT_BITS[suit] for suit in range(4) if voids[s] >> suit & 1)


def test_no_deal_when_none_exists() -> None:
    # Seat 1 may hold only spades, and two cards, but only one spade is left.
    pool = (1 << 40) | (1 << 0) | (1 << 1)  # one spade (a card of suit 3) and two clubs
    assert deal_by_suit(pool, [0, 2, 1, 0], [1, 2, 3], [0, 0b0111, 0, 0b1111], random.Random(1)) is None


@pytest.mark.parametrize("kernel", ["python", "numba"])
def test_the_position_that_stopped_a_duplicate_game_is_sampled(kernel: str,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """An egyptian committee game of a duplicate run (seed 2611, game 11): seat 3 void in spades and
    hearts must hold five of the six clubs and diamonds left; about one blind deal in eighty fit, and the
    strong bot asking for 128 of them raised SamplingError, which would stop a server's table."""
    monkeypatch.setenv(KERNEL_ENV, kernel)
    view = json.loads((Path(__file__).parent / "egyptian_tight_voids_view.json").read_text())
    info = from_view(view)
    deals = deal_sampler()(info, 512, random.Random(3), True, 1.0, 2)  # 1,024 drawn
    assert len(deals) == 512
    for hands in deals:
        assert consistent(info, hands)
    # The seat's bot in that run (tournament seed 2611, game 11, seat 0): it raised SamplingError here.
    assert StrongBot(seed=game_seed(2611, 11) * 4).act(view) in view["legal"]
