"""``Game.at_deal``: a position rebuilt from what a seat can see plays on exactly as the real game did."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import estimation
from estimation import Game
from estimation.rulesets import get_ruleset

LENGTHS = [("koutchina", "mini"), ("classic", "full"), ("egyptian", "standard")]


def _play_to_deal_start(game: Game, rng: random.Random, rounds: int) -> None:
    while not game.is_over and len(game.round_results) < rounds:
        game.apply(rng.choice(game.legal_actions()))


@settings(max_examples=25, deadline=None)
@given(ruleset_length=st.sampled_from(LENGTHS), seed=st.integers(0, 10**6), rounds=st.integers(0, 4))
def test_a_rebuilt_deal_plays_on_like_the_original(ruleset_length: tuple[str, str], seed: int,
                                                    rounds: int) -> None:
    ruleset, length = ruleset_length
    game = estimation.new_game(ruleset=ruleset, length=length, seed=seed)
    rng = random.Random(seed)
    _play_to_deal_start(game, rng, rounds)
    if game.is_over:
        return
    rebuilt = Game.at_deal(get_ruleset(ruleset), length, round_no=game.round_no, deal_no=game.deal_no,
                           dealer=game.dealer, hands=game.dealt, multiplier=game.multiplier)
    assert rebuilt.dealer == game.dealer
    assert rebuilt.to_move == game.to_move
    done = len(game.round_results)
    deal = (game.round_no, game.deal_no)
    while len(game.round_results) == done and not game.is_over:
        legal = game.legal_actions()
        assert rebuilt.legal_actions() == legal
        action = rng.choice(legal)
        game.apply(action)
        rebuilt.apply(action)
        if (game.round_no, game.deal_no) != deal:
            break  # a redeal or the next round: the rebuilt game deals from its own seed from here on
    if len(game.round_results) > done:
        original, copy = game.round_results[done], rebuilt.round_results[0]
        assert copy.scores == original.scores
        assert copy.breakdown == original.breakdown
        assert copy.multiplier == original.multiplier


def test_at_deal_refuses_impossible_positions() -> None:
    rules = get_ruleset("koutchina")
    hands = estimation.new_game(ruleset="koutchina", seed=1).dealt
    with pytest.raises(ValueError, match="round 6"):
        Game.at_deal(rules, "micro", round_no=6, deal_no=0, dealer=0, hands=hands)
    with pytest.raises(ValueError, match="deal_no"):
        Game.at_deal(rules, "micro", round_no=1, deal_no=-1, dealer=0, hands=hands)
    with pytest.raises(ValueError, match="52 cards"):
        Game.at_deal(rules, "micro", round_no=1, deal_no=0, dealer=0, hands=(hands[0],) * 4)
    with pytest.raises(ValueError, match="52 cards"):
        Game.at_deal(rules, "micro", round_no=1, deal_no=0, dealer=0, hands=hands[:3])


def test_at_deal_after_three_failed_auctions_is_the_fixed_nt_round() -> None:
    hands = estimation.new_game(ruleset="koutchina", length="mini", seed=3).dealt
    game = Game.at_deal(get_ruleset("koutchina"), "mini", round_no=2, deal_no=3, dealer=1, hands=hands)
    assert game.kind == "fixed"
    assert str(game.trump) == "NT"
    assert game.to_move == 2  # estimates start left of the dealer
