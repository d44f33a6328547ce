"""The unchecked fast path plays exactly the rules of the checked engine."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

import estimation
from estimation import Phase
from estimation.fast import PlayState
from tests.helpers import random_step


def to_play_phase(seed: int, length: str = "full") -> estimation.Game:
    game = estimation.new_game("koutchina", length, seed=seed)
    rng = random.Random(seed)
    while game.phase is not Phase.PLAY:
        random_step(game, rng)
    return game


@given(st.integers(0, 2**32), st.integers(0, 2**32), st.integers(0, 51))
def test_playstate_follows_the_engine_card_for_card(seed: int, policy: int, skip: int) -> None:
    game = to_play_phase(seed)
    rng = random.Random(policy)
    for _ in range(skip):
        random_step(game, rng)
    state = game.play_state()
    round_no = game.round_no
    while game.round_no == round_no and not game.is_over:
        legal_cards = sorted(int(a.card) for a in game.legal_actions())  # type: ignore[arg-type]
        mask = state.legal_mask()
        assert legal_cards == [c for c in range(52) if mask >> c & 1]
        assert state.to_move == game.to_move
        action = rng.choice(game.legal_actions())
        tricks_before = len(game.trick_log)
        winner = state.play(int(action.card))  # type: ignore[arg-type]
        game.apply(action)
        if game.round_no != round_no:
            assert winner is not None
            assert game.round_results[-1].tricks == tuple(state.won)
        elif len(game.trick_log) > tricks_before:
            assert winner == game.trick_log[-1][2]
            assert state.won == game.tricks_won
        else:
            assert winner is None
    assert state.is_done


@given(st.integers(0, 2**32), st.integers(0, 2**32), st.integers(0, 51))
def test_rollouts_finish_the_deal_and_leave_the_state_alone(seed: int, policy: int, skip: int) -> None:
    game = to_play_phase(seed)
    rng = random.Random(policy)
    for _ in range(skip):
        random_step(game, rng)
    state = game.play_state()
    before = (list(state.hands), list(state.trick), list(state.won), state.leader)
    result = state.rollout_random(random.Random(policy))
    assert sum(result) == 13
    assert all(r >= w for r, w in zip(result, state.won, strict=True))
    assert (state.hands, state.trick, state.won, state.leader) == before
    assert result == state.rollout_random(random.Random(policy))


def test_rollout_matches_the_engine_replaying_its_cards() -> None:
    """Replay a rollout's choices through the checked engine: same tricks."""
    for seed in range(30):
        game = to_play_phase(seed)
        state = game.play_state()
        rng = random.Random(seed)
        copy = state.copy()
        while not copy.is_done:
            mask = copy.legal_mask()
            cards = [c for c in range(52) if mask >> c & 1]
            card = rng.choice(cards)
            copy.play(card)
            game.apply(f"{game.to_move} play {estimation.Card(card)}")
        assert tuple(copy.won) == game.round_results[-1].tricks


def test_playstate_from_a_fresh_play_phase_holds_52_cards() -> None:
    state = to_play_phase(3).play_state()
    assert isinstance(state, PlayState)
    assert sum(h.bit_count() for h in state.hands) == 52
    assert state.won == [0, 0, 0, 0]
