"""Property-based tests: random seeded games of every ruleset and length, checked at every state."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

import estimation
from estimation import Game, IllegalActionError, Phase
from tests import reference_scorer
from tests.helpers import CANDIDATES, play_random, random_step, snapshot

LENGTHS = [(name, length) for name, rules in estimation.RULESETS.items() for length in rules.lengths]
FULL_DECK = (1 << 52) - 1


def check_state(game: Game) -> None:
    """Invariants that hold in every state of every game."""
    legal = game.legal_actions()
    if game.is_over:
        assert game.to_move is None and legal == ()
        return
    assert legal, "a game in progress always has a legal action"
    assert all(a.seat == game.to_move for a in legal)
    assert len(set(legal)) == len(legal)
    # 52 cards: what is in hand plus what was played this deal is exactly the deck, nothing twice.
    played = [c for _, cards, _ in game.trick_log for c in cards] + list(game.trick)
    played_mask = 0
    for c in played:
        assert not played_mask >> c & 1
        played_mask |= 1 << c
    union = 0
    for h in game.hands:
        assert not union & h
        union |= h
    assert not union & played_mask
    assert union | played_mask == FULL_DECK
    assert sum(h.bit_count() for h in game.dealt) == 52
    # 13 tricks at most, counted right.
    assert len(game.trick_log) <= 13
    assert sum(game.tricks_won) == len(game.trick_log)
    # Estimates: at most two seats on zero (Dash Calls count), never a total of 13.
    zeros = len(game.decl.dash_seats) + sum(
        1 for s in game.est_order[: game.est_pos] if game.estimates[s] == 0
    )
    assert zeros <= 2
    if game.phase is Phase.PLAY:
        assert None not in game.estimates
        assert sum(e for e in game.estimates if e is not None) != 13
    assert game.multiplier in (1, 2, 4)


def check_results(game: Game) -> None:
    """Every scored round matches the independent reference scorer; totals and places add up."""
    multiplier = 1
    totals = [0, 0, 0, 0]
    for r in game.round_results:
        assert sum(r.tricks) == 13
        assert sum(r.estimates) != 13
        assert r.multiplier == multiplier
        if game.ruleset.name == "koutchina":
            expected = reference_scorer.score_round(
                r.estimates, r.tricks, caller=r.caller, last_estimator=r.order[-1],
                dash_callers=r.dash_calls, multiplier=r.multiplier)
            assert list(r.scores) == expected, r
        for b in r.breakdown:
            assert b.score == r.scores[b.seat]
        multiplier = reference_scorer.next_multiplier(multiplier, r.saaydeh)
        totals = [t + s for t, s in zip(totals, r.scores, strict=True)]
    assert list(game.totals) == totals
    assert game.places == reference_scorer.places(totals)


@pytest.mark.parametrize(("ruleset", "length", "games"), [
    ("koutchina", "micro", 1000), ("koutchina", "mini", 400), ("koutchina", "full", 200),
    ("classic", "full", 150), ("egyptian", "standard", 150), ("egyptian", "committee", 150),
    ("egyptian", "long", 100),
])
def test_thousands_of_random_games_play_to_the_end(ruleset: str, length: str, games: int) -> None:
    rounds = len(estimation.get_ruleset(ruleset).lengths[length])
    for seed in range(games):
        game = estimation.new_game(ruleset, length, seed=seed)
        play_random(game, random.Random(seed))
        assert game.is_over
        assert len(game.round_results) == rounds
        check_results(game)


@given(st.sampled_from(LENGTHS), st.integers(0, 2**32), st.integers(0, 2**32))
def test_invariants_hold_in_every_state(case: tuple[str, str], seed: int, policy: int) -> None:
    ruleset, length = case
    game = estimation.new_game(ruleset, length, seed=seed)
    rng = random.Random(policy)
    while not game.is_over:
        check_state(game)
        random_step(game, rng)
    check_state(game)
    check_results(game)


@given(st.sampled_from(LENGTHS), st.integers(0, 2**32), st.integers(0, 400), st.randoms())
def test_illegal_actions_are_rejected_and_change_nothing(
    case: tuple[str, str], seed: int, steps: int, rnd: random.Random
) -> None:
    ruleset, length = case
    game = estimation.new_game(ruleset, length, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if game.is_over:
            break
        random_step(game, rng)
    legal = set(game.legal_actions())
    before = snapshot(game)
    for action in rnd.sample(CANDIDATES, 60) + list(legal):
        if action in legal:
            trial = game.clone()
            trial.apply(action)  # must not raise
            trial2 = game.clone()
            trial2.apply(str(action))  # the text form is the same action
            assert snapshot(trial) == snapshot(trial2)
        else:
            with pytest.raises(IllegalActionError) as err:
                game.apply(action)
            assert str(err.value), "an illegal action says why"
            with pytest.raises(IllegalActionError):
                game.apply(str(action))
            assert snapshot(game) == before
    assert snapshot(game) == before


@given(st.sampled_from(LENGTHS), st.integers(0, 2**32), st.integers(0, 1200))
def test_record_round_trips(case: tuple[str, str], seed: int, steps: int) -> None:
    ruleset, length = case
    game = estimation.new_game(ruleset, length, seed=seed, players=["Ann", "Ben", "Cy", "Di"])
    rng = random.Random(seed)
    for _ in range(steps):
        if game.is_over:
            break
        random_step(game, rng)
    record = game.record()
    assert json.loads(json.dumps(record)) == record
    assert estimation.load_record(record).record() == record
    # With the seed the loaded game is the same game, state for state, and plays on identically.
    loaded = estimation.load_record(game.record(include_seed=True))
    assert snapshot(loaded) == snapshot(game)
    for _ in range(50):
        if game.is_over:
            break
        action = rng.choice(game.legal_actions())
        game.apply(action)
        loaded.apply(action)
    assert snapshot(loaded) == snapshot(game)


@given(st.sampled_from(LENGTHS), st.integers(0, 2**32), st.integers(0, 2**32))
def test_same_seed_same_game(case: tuple[str, str], seed: int, policy: int) -> None:
    ruleset, length = case
    a = estimation.new_game(ruleset, length, seed=seed)
    b = estimation.new_game(ruleset, length, seed=seed)
    play_random(a, random.Random(policy))
    play_random(b, random.Random(policy))
    assert a.record() == b.record()


@given(st.integers(0, 2**32), st.integers(0, 2**32), st.integers(0, 2**32))
def test_deals_depend_on_seed_round_and_deal_only(seed: int, policy_a: int, policy_b: int) -> None:
    """Duplicate tournaments rely on this: how a game is played never changes a later deal."""
    a = estimation.new_game("koutchina", "full", seed=seed)
    b = estimation.new_game("koutchina", "full", seed=seed)
    play_random(a, random.Random(policy_a))
    play_random(b, random.Random(policy_b))
    by_round_a: dict[int, list[list[str]]] = {}
    for d in a.record()["deals"]:
        by_round_a.setdefault(d["round"], []).append(d["hands"])
    by_round_b: dict[int, list[list[str]]] = {}
    for d in b.record()["deals"]:
        by_round_b.setdefault(d["round"], []).append(d["hands"])
    assert by_round_a
    for r, hands_a in by_round_a.items():
        hands_b = by_round_b[r]
        for ha, hb in zip(hands_a, hands_b, strict=False):  # the k-th deal of round r: same cards
            assert ha == hb
    assert a.record()["deals"][0]["dealer"] == b.record()["deals"][0]["dealer"]
