"""Bots in partnership games (RULES.md, Partnerships): they play for their side, from their own view.

- No bot takes a trick its partner is winning when the partner still needs tricks and the bot does not,
  whenever it holds a legal card that does not overtake (checked at every card of whole games).
- ``strong`` judges each candidate by its side's score; ``strong-seat`` (the measurement's reference) by
  its seat's alone.
- A bot's view of a partnership game holds no card of its partner's hand.
"""

from __future__ import annotations

import random

import pytest

import estimation
from estimation.bots import Budget, HeuristicBot, RandomBot, StrongBot
from estimation.bots.knowledge import from_view
from estimation.bots.search import evaluate, play_candidates
from estimation.bots.side import must_spare_partner, sparing, value
from estimation.cards import card_from_text


def _check_game(ruleset: str, length: str, seed: int, bots: list[object]) -> int:
    game = estimation.new_game(ruleset, length, seed=seed, partners=True)
    checked = 0
    while not game.is_over:
        seat = game.to_move
        assert seat is not None
        view = game.view(seat)
        partner_cards = set(estimation.Card(c).__str__() for c in game.hand((seat + 2) & 3))
        assert not partner_cards & set(view["hand"])  # the partner's hand is not in the view
        text = bots[seat].act(view)  # type: ignore[attr-defined]
        info = from_view(view)
        if view["phase"] == "play" and must_spare_partner(info):
            legal = [int(a.card) for a in info.legal if a.card is not None]
            allowed = sparing(info, legal)
            card = int(card_from_text(text.split()[2]))
            assert card in allowed, (text, view["trick"], view["estimates"])
            checked += 1
        game.apply(text)
    assert game.partners and game.record()["partners"] is True
    return checked


@pytest.mark.parametrize("ruleset", ["koutchina", "classic", "egyptian"])
def test_no_bot_takes_a_trick_its_partner_needs_when_it_does_not(ruleset: str) -> None:
    length = {"koutchina": "micro", "classic": "full", "egyptian": "committee"}[ruleset]
    checked = 0
    for seed in range(3):
        checked += _check_game(ruleset, length, seed, [RandomBot(seed * 4 + s) for s in range(4)])
        checked += _check_game(ruleset, length, seed, [HeuristicBot() for _ in range(4)])
    assert checked > 20


def test_the_strong_bot_spares_its_partner_too() -> None:
    budget = Budget(samples=4, play_samples=4)
    assert _check_game("koutchina", "micro", 5, [StrongBot(s, budget) for s in range(4)]) > 0


def test_side_value_and_candidates() -> None:
    assert value([10, -5, 7, 3], 0, True) == 17
    assert value([10, -5, 7, 3], 1, True) == -2
    assert value([10, -5, 7, 3], 2, False) == 7
    # At a position where the courtesy applies, every strong candidate spares the partner.
    rng = random.Random(1)
    found = 0
    for seed in range(40):
        game = estimation.new_game("koutchina", "micro", seed=seed, partners=True)
        while not game.is_over and found < 5:
            seat = game.to_move
            assert seat is not None
            info = from_view(game.view(seat))
            if info.phase == "play" and must_spare_partner(info):
                legal = [int(a.card) for a in info.legal if a.card is not None]
                allowed = set(sparing(info, legal))
                assert {int(a.card) for a in play_candidates(info) if a.card is not None} <= allowed
                evals = evaluate(info, play_candidates(info), Budget(samples=4, play_samples=4), rng)
                assert all(ev.n > 0 for ev in evals)
                found += 1
            game.apply(rng.choice(game.legal_actions()))
        if found >= 5:
            break
    assert found >= 5
