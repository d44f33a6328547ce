"""The compiled kernels (``estimation.bots.kernel`` and ``kernel_sampler``, the ``fast`` extra) are the
Python code, exactly.

- On random positions (every trump, no-trump included; leads and mid-trick; several deals a batch) the
  kernel's final trick counts equal ``policy_rollout``'s after ``after_card``, card for card.
- With 4 tricks or fewer left, the kernel's endgame line equals ``solve()``'s, ties included (small random
  scores make many), playing for the seat and for the side.
- On positions of every ruleset and length, partnerships too, ``evaluate()`` gives the same numbers both
  ways (trick histograms, score sums) on the same deals.
- The compiled sampler draws the same deals as ``sampler.sample_deals`` from the same generator and
  leaves it in the same state (positions of every ruleset and length, partnerships, voids, with and
  without the evidence); the pool's log-likelihoods are the same floats; the compiled MT19937 draws what
  ``random.Random`` draws.
- The declarations' batch of rollouts (``kernel.play_out``) equals ``policy_rollout`` on every row.
- A seeded game of ``strong`` bots makes exactly the same decisions with the kernels and with
  ``ESTIMATION_KERNEL=python`` (every evaluation compared, not only the chosen action).

These tests import the kernel at the top: without numba they fail, they do not skip (CI installs it).
"""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from bots_helpers import RULESET_LENGTHS
from hypothesis import given
from hypothesis import strategies as st

import estimation
from estimation.bots import kernel, kernel_sampler
from estimation.bots.evidence import by_seat, facts, log_likelihood
from estimation.bots.heuristic import hand_facts
from estimation.bots.knowledge import from_view
from estimation.bots.moves import rejuvenate
from estimation.bots.policy import policy_rollout
from estimation.bots.sampler import TEMPER_STEPS, sample_deals, systematic, temper
from estimation.bots.search import (
    KERNEL_ENV,
    Budget,
    _compiled,
    after_card,
    candidates_for,
    deal_sampler,
    evaluate,
    play_kernel,
    rollout_kernel,
    solve,
)
from estimation.bots.side import value
from estimation.bots.strong import StrongBot
from estimation.cards import SUIT_BITS


@st.composite
def tables(draw: st.DrawFn, max_tricks: int = 13) -> dict[str, Any]:
    """A position with ``k`` tricks left for the seat to move (``me``), ``n`` cards already on the table,
    and up to six deals that share ``me``'s hand and the trick (the other seats' cards shuffled)."""
    deck = draw(st.permutations(range(52)))
    k = draw(st.integers(1, max_tricks))
    n = draw(st.integers(0, 3))
    leader = draw(st.integers(0, 3))
    hands = [0] * 4
    i = 0
    for j in range(4):
        seat = (leader + j) & 3
        for c in deck[i:i + (k - 1 if j < n else k)]:
            hands[seat] |= 1 << c
        i += k - 1 if j < n else k
    trick = list(deck[i:i + n])
    me = (leader + n) & 3
    rng = draw(st.randoms(use_true_random=False))
    deals = [hands]
    for _ in range(draw(st.integers(0, 5))):
        deals.append(_reshuffled(hands, me, rng))
    legal = hands[me]
    if trick and hands[me] & SUIT_BITS[trick[0] // 13]:
        legal = hands[me] & SUIT_BITS[trick[0] // 13]
    won = draw(st.lists(st.integers(0, 13 - k), min_size=4, max_size=4))
    # Tricks still needed around the tricks left, where the policy's branches change.
    need = draw(st.lists(st.integers(-1, k + 1), min_size=4, max_size=4))
    return {"deals": deals, "me": me, "leader": leader, "trick": trick, "k": k, "won": won,
            "cards": [c for c in range(52) if legal >> c & 1], "trump": draw(st.integers(0, 4)),
            "targets": [max(0, w + d) for w, d in zip(won, need, strict=True)]}


def _reshuffled(hands: list[int], me: int, rng: random.Random) -> list[int]:
    """The other seats' cards dealt again, each seat keeping its number of cards."""
    others = [s for s in range(4) if s != me]
    pool = [c for s in others for c in range(52) if hands[s] >> c & 1]
    rng.shuffle(pool)
    out = list(hands)
    for s in others:
        size = hands[s].bit_count()
        out[s] = sum(1 << c for c in pool[:size])
        pool = pool[size:]
    return out


def _after(p: dict[str, Any], hands: list[int], card: int) -> tuple[list[int], int, list[int], list[int]]:
    info = SimpleNamespace(trick=p["trick"], won=p["won"], leader=p["leader"])
    return after_card(info, hands, p["me"], card, p["trump"])  # type: ignore[arg-type]


@given(tables())
def test_rollouts_equal_policy_rollout(p: dict[str, Any]) -> None:
    got = kernel.play_tricks(p["deals"], p["cards"], p["me"], p["trump"], p["leader"], p["trick"], p["won"],
                             p["targets"])
    assert got.shape == (len(p["deals"]), len(p["cards"]), 4)
    positions = []
    for d, hands in enumerate(p["deals"]):
        for j, card in enumerate(p["cards"]):
            h, leader, trick, won = _after(p, hands, card)
            assert got[d, j].tolist() == policy_rollout(h, p["trump"], leader, trick, won, p["targets"])
            positions.append((h, p["trump"], leader, trick, won, p["targets"]))
    # The declarations' batch: one position a row, each with its own trick.
    assert kernel.play_out(positions) == [policy_rollout(*position) for position in positions]


class RandomScores:
    """A stand-in for the ruleset's scorer: small random scores per trick-count vector (many ties)."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)
        self._cache: dict[tuple[int, ...], tuple[int, ...]] = {}

    def __call__(self, tricks: tuple[int, ...] | list[int]) -> tuple[int, ...]:
        key = tuple(tricks)
        if key not in self._cache:
            self._cache[key] = tuple(self._rng.randint(-3, 3) for _ in range(4))
        return self._cache[key]


@given(tables(max_tricks=4), st.integers(0, 2**32), st.booleans())
def test_endgame_equals_solve(p: dict[str, Any], seed: int, side: bool) -> None:
    scorer = RandomScores(seed)
    table = kernel.leaf_table(p["won"], p["k"], lambda t: [value(scorer(t), s, side) for s in range(4)])
    got = kernel.play_tricks(p["deals"], p["cards"], p["me"], p["trump"], p["leader"], p["trick"], p["won"],
                             p["targets"], table)
    for d, hands in enumerate(p["deals"]):
        for j, card in enumerate(p["cards"]):
            h, leader, trick, won = _after(p, hands, card)
            _scores, tricks = solve(h, p["trump"], leader, trick, won, scorer, side)  # type: ignore[arg-type]
            assert tuple(got[d, j].tolist()) == tricks


def _positions(ruleset: str, length: str, seed: int, partners: bool) -> Iterator[estimation.Game]:
    """Play positions with a choice of cards in the first three rounds of a game of random actions."""
    rng = random.Random(seed)
    game = estimation.new_game(ruleset, length, seed=seed, partners=partners)
    i = 0
    while not game.is_over and len(game.round_results) < 3:
        legal = game.legal_actions()
        if game.phase == "play" and len(legal) > 1 and i % 3 == 0:
            yield game
        game.apply(rng.choice(legal))
        i += 1


def _evaluations(info: Any, budget: Budget, deals: list[list[int]]) -> list[tuple[Any, ...]]:
    evals = evaluate(info, candidates_for(info), budget, random.Random(0), deals=deals)
    return [(e.action.text, e.tricks, e.score_sum, e.n) for e in evals]


@pytest.mark.parametrize(("ruleset", "length"), RULESET_LENGTHS)
def test_evaluate_is_the_same_both_ways(ruleset: str, length: str, monkeypatch: pytest.MonkeyPatch) -> None:
    budget = Budget(play_samples=12)
    seen = {True: 0, False: 0}
    for seed, partners in ((1, False), (2, True)):
        for g in _positions(ruleset, length, seed, partners):
            seat = g.to_move
            assert seat is not None
            info = from_view(g.view(seat))
            deals = sample_deals(info, budget.play_samples, random.Random(seed), True, 1.0, 2)
            monkeypatch.setenv(KERNEL_ENV, "python")
            reference = _evaluations(info, budget, deals)
            monkeypatch.setenv(KERNEL_ENV, "numba")
            assert _evaluations(info, budget, deals) == reference
            seen[info.hand.bit_count() <= budget.exact_tricks] += 1
    assert seen[True] >= 3 and seen[False] >= 10, seen


@given(st.integers(0, 2**64))
def test_the_compiled_generator_draws_what_python_draws(seed: int) -> None:
    assert kernel_sampler.stream_matches_python(seed)


@given(st.lists(st.sets(st.integers(0, 51), max_size=13).map(lambda cards: sum(1 << c for c in cards)),
                min_size=1, max_size=30))
def test_the_compiled_hand_facts_are_the_heuristics(hands: list[int]) -> None:
    """What the declarations' simulations read of each hand, in one compiled batch, is what the heuristic
    works out hand by hand: the same floats, so the same choices."""
    assert kernel_sampler.hand_facts(set(hands)) == {h: hand_facts(h) for h in hands}


@given(logs=st.lists(st.floats(-400.0, 0.0), min_size=2, max_size=160), n=st.integers(1, 64),
       u=st.floats(0.0, 1.0, exclude_max=True), min_ess=st.floats(0.5, 64.0))
def test_the_compiled_resampling_keeps_the_same_deals(logs: list[float], n: int, u: float,
                                                      min_ess: float) -> None:
    """Tempering and systematic resampling, compiled, keep exactly the deals Python's keep, whether the
    evidence is flat or so sharp that the tempering searches its exponent."""
    pool = [[i] for i in range(len(logs))]
    weights, _beta = temper(logs, min_ess)
    kept = kernel_sampler._resampled(np.array(logs), min_ess, n, u, TEMPER_STEPS).tolist()
    assert [pool[i] for i in kept] == systematic(pool, weights, n, u)


@pytest.mark.parametrize(("ruleset", "length"), RULESET_LENGTHS)
def test_the_compiled_sampler_draws_the_same_deals(ruleset: str, length: str) -> None:
    seen = {"voids": 0, "facts": 0}
    for seed, partners in ((3, False), (4, True)):
        game = estimation.new_game(ruleset, length, seed=seed, partners=partners)
        rng = random.Random(seed)
        i = 0
        while not game.is_over and len(game.round_results) < 3:
            if i % 3 == 0:
                info = from_view(game.view(game.to_move))  # type: ignore[arg-type]
                _check_sampler(info, i)
                seen["voids"] += any(info.voids[s] for s in range(4) if s != info.seat)
                seen["facts"] += bool(facts(info))
            game.apply(rng.choice(game.legal_actions()))
            i += 1
    assert seen["voids"] >= 3 and seen["facts"] >= 10, seen


def _check_sampler(info: Any, seed: int) -> None:
    """The compiled sampler and its parts against the Python ones, on one view."""
    for evidence, scale in ((True, 1.0), (False, 1.0), (True, 0.6)):
        ours, theirs = random.Random(seed), random.Random(seed)
        assert (kernel_sampler.sample_deals(info, 12, ours, evidence, scale, 2)
                == sample_deals(info, 12, theirs, evidence, scale, 2))
        assert ours.getstate() == theirs.getstate()
    facts_ = facts(info)
    if facts_:
        pool = sample_deals(info, 8, random.Random(seed), False, 1.0, 1)
        logs = kernel_sampler.pool_log_likelihoods(facts_, pool, info.played_by, 0.8)
        assert logs == [log_likelihood(facts_, h, info.played_by, 0.8) for h in pool]
        ours, theirs = random.Random(seed), random.Random(seed)
        assert (kernel_sampler.rejuvenate(info, pool, facts_, 9, ours, 0.8)
                == rejuvenate(info, pool, by_seat(facts_), 9, theirs, 0.8))
        assert ours.getstate() == theirs.getstate()


def _trace(ruleset: str, length: str, rounds: int, partners: bool) -> list[tuple[Any, ...]]:
    """Every decision of a seeded game of four strong bots (their whole evaluations), ``rounds`` rounds."""
    game = estimation.new_game(ruleset, length, seed=7, partners=partners)
    bots = [StrongBot(100 + s, Budget(max_seconds=float("inf"))) for s in range(4)]
    trace: list[tuple[Any, ...]] = []
    while not game.is_over and len(game.round_results) < rounds:
        seat = game.to_move
        assert seat is not None
        text = bots[seat].act(game.view(seat))
        trace.append((text, [(e.action.text, e.tricks, e.score_sum, e.n) for e in bots[seat].last]))
        game.apply(text)
    return trace


@pytest.mark.parametrize(("ruleset", "length", "rounds", "partners"), [
    ("koutchina", "micro", 5, True), ("classic", "full", 2, False), ("egyptian", "committee", 2, False)])
def test_a_game_of_strong_bots_is_the_same_both_ways(ruleset: str, length: str, rounds: int, partners: bool,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KERNEL_ENV, "numba")
    compiled = _trace(ruleset, length, rounds, partners)
    monkeypatch.setenv(KERNEL_ENV, "python")
    assert _trace(ruleset, length, rounds, partners) == compiled
    assert sum(1 for _text, evals in compiled if evals and " play " in evals[0][0]) > 40
    assert sum(1 for _text, evals in compiled if evals and " play " not in evals[0][0]) > 5


def test_the_choice_of_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(KERNEL_ENV, raising=False)
    assert play_kernel(Budget()) is kernel.card_outcomes
    assert play_kernel(Budget(rollout="random")) is None
    assert deal_sampler() is kernel_sampler.sample_deals
    assert rollout_kernel(Budget()) is kernel.play_out
    assert rollout_kernel(Budget(rollout="random")) is None
    monkeypatch.setenv(KERNEL_ENV, "python")
    assert play_kernel(Budget()) is None
    assert rollout_kernel(Budget()) is None
    assert deal_sampler() is sample_deals


def test_without_numba_the_bots_run_in_python(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "numba", None)  # import numba now raises ImportError
    for name in ("kernel", "kernel_sampler"):  # and so does importing the kernels again
        monkeypatch.delitem(sys.modules, f"estimation.bots.{name}")
        monkeypatch.delattr(estimation.bots, name)
    _compiled.cache_clear()
    try:
        monkeypatch.delenv(KERNEL_ENV, raising=False)
        assert play_kernel(Budget()) is None
        assert deal_sampler() is sample_deals
        game = estimation.new_game("koutchina", "micro", seed=3)
        while game.phase != "play":
            game.apply(StrongBot(1, Budget(samples=4)).act(game.view(game.to_move)))  # type: ignore[arg-type]
        game.apply(StrongBot(1, Budget(play_samples=4)).act(game.view(game.to_move)))  # type: ignore[arg-type]
        monkeypatch.setenv(KERNEL_ENV, "numba")
        with pytest.raises(RuntimeError, match="numba"):
            play_kernel(Budget())
    finally:
        _compiled.cache_clear()
