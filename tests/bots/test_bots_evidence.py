"""The declaration evidence: it models the heuristic's own declarations, reads only the view, and the
sampler's weighting keeps enough effective deals and shares its random numbers with the ablation."""

from __future__ import annotations

import random

import pytest
from bots_helpers import RULESET_LENGTHS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import estimation
from estimation import Game
from estimation.bots import HeuristicBot
from estimation.bots.evidence import facts, log_likelihood
from estimation.bots.knowledge import from_game, from_view
from estimation.bots.sampler import consistent, effective_size, sample_deals, sample_hands, systematic, temper


def _heuristic_position(ruleset: str, length: str, seed: int, steps: int) -> Game:
    """A game ``steps`` actions into play by four heuristic bots (or its end, whichever is first)."""
    game = estimation.new_game(ruleset, length, seed=seed)
    bot = HeuristicBot()
    for _ in range(steps):
        seat = game.to_move
        if seat is None:
            break
        game.apply(bot.act(game.view(seat)))
    return game


@pytest.mark.parametrize(("ruleset", "length"), RULESET_LENGTHS)
def test_the_heuristics_true_hands_fit_its_declarations_exactly(ruleset: str, length: str) -> None:
    """The likelihood is the heuristic's declaration policy softened: at every position of games played
    by four heuristic bots, the true hands explain every declaration with no gap at all."""
    bot = HeuristicBot()
    weighed = 0
    for seed in range(2):
        game = estimation.new_game(ruleset, length, seed=seed)
        steps = 0
        while not game.is_over and steps < 600:
            seat = game.to_move
            assert seat is not None
            view = game.view(seat)
            info = from_view(view)
            found = facts(info)
            assert log_likelihood(found, list(game.hands), info.played_by) == 0.0, (seed, steps, found)
            weighed += len(found)
            game.apply(bot.act(view))
            steps += 1
    assert weighed > 0


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(RULESET_LENGTHS), st.integers(0, 10_000), st.integers(0, 60), st.integers(0, 1000))
def test_evidence_depends_only_on_the_view(rl: tuple[str, str], seed: int, steps: int, redeal: int) -> None:
    """Redealing the hidden cards behind the same view changes neither the facts nor any deal's weight."""
    ruleset, length = rl
    game = _heuristic_position(ruleset, length, seed, steps)
    seat = game.to_move
    if seat is None:
        return
    twin = game.clone()
    twin.hands = sample_hands(from_game(game, seat), random.Random(redeal))
    assert twin.view(seat) == game.view(seat)
    a = from_game(game, seat)
    b = from_game(twin, seat)
    assert facts(a) == facts(b) == facts(from_view(game.view(seat)))
    deal = sample_hands(a, random.Random(redeal + 1))
    assert log_likelihood(facts(a), deal, a.played_by) == log_likelihood(facts(b), deal, b.played_by)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(RULESET_LENGTHS), st.integers(0, 10_000), st.integers(0, 80), st.booleans())
def test_weighted_samples_never_contradict_the_view(rl: tuple[str, str], seed: int, steps: int,
                                                    evidence: bool) -> None:
    ruleset, length = rl
    game = _heuristic_position(ruleset, length, seed, steps)
    seat = game.to_move
    if seat is None:
        return
    info = from_view(game.view(seat))
    for hands in sample_deals(info, 8, random.Random(seed), evidence=evidence):
        assert consistent(info, hands)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-60.0, 0.0), min_size=4, max_size=60), st.floats(1.0, 4.0))
def test_tempering_keeps_the_effective_sample_size(logs: list[float], wanted: float) -> None:
    weights, beta = temper(logs, wanted)
    assert 0.0 <= beta <= 1.0
    assert effective_size(weights) >= min(wanted, len(logs)) * 0.999 or beta == 0.0
    if effective_size(temper(logs, 0.0)[0]) >= wanted:
        assert beta == 1.0


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 20), st.integers(1, 5), st.floats(0.0, 0.999))
def test_equal_weights_keep_one_deal_per_block(n: int, oversample: int, u: float) -> None:
    """Common random numbers: with flat weights systematic resampling keeps one deal of every block of
    ``oversample``, so the ablation without evidence and the strong bot share their deals where the
    evidence is flat."""
    pool = [[i] for i in range(n * oversample)]
    kept = systematic(pool, [1.0] * len(pool), n, u)
    assert [h[0] // oversample for h in kept] == list(range(n))


def test_without_evidence_the_deals_come_from_the_same_pool() -> None:
    game = _heuristic_position("koutchina", "full", 3, 40)
    seat = game.to_move
    assert seat is not None
    info = from_view(game.view(seat))
    assert facts(info)
    with_ev = sample_deals(info, 16, random.Random(9), evidence=True, oversample=3, moves=0)
    without = sample_deals(info, 16, random.Random(9), evidence=False, oversample=3)
    rng = random.Random(9)
    pool = [sample_hands(info, rng) for _ in range(48)]
    assert all(h in pool for h in with_ev)
    assert all(h in pool for h in without)
    assert len({pool.index(h) // 3 for h in without}) == 16  # one deal of each block of three
