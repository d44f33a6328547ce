"""Bots only ever see the view: hiding different cards behind the same view changes no decision."""

from __future__ import annotations

import random

import pytest
from bots_helpers import RULESET_LENGTHS, positions

from estimation import Game
from estimation.bots import Budget, RaceBudget, Strong2Bot, StrongBot, make_bot, particles
from estimation.bots.knowledge import from_game
from estimation.bots.sampler import sample_hands


def _twin(game: Game, seed: int) -> Game:
    """The same game with the cards of the three other seats redealt consistently with what the seat to
    move has seen: a different hidden deal behind an identical view."""
    seat = game.to_move
    assert seat is not None
    twin = game.clone()
    hands = sample_hands(from_game(game, seat), random.Random(seed))
    twin.hands = hands
    return twin


def _bot(level: str, seed: int) -> object:
    # The play's carried deals live in a per-process cache keyed by the view: emptied, so that each
    # decision below is made from its own view alone.
    particles._CACHE.clear()
    if level == "strong-fast":
        return Strong2Bot(seed, RaceBudget(play_deals=4, declaration_deals=4, batch=2))
    if level == "strong":
        return StrongBot(seed, Budget(samples=3, play_samples=3))
    return make_bot(level, seed)


@pytest.mark.parametrize("level", ["random", "heuristic", "strong-fast", "strong"])
@pytest.mark.parametrize(("ruleset", "length"), RULESET_LENGTHS)
def test_same_view_same_decision(level: str, ruleset: str, length: str) -> None:
    checked = 0
    for i, game in enumerate(positions(ruleset, length, seed=100, every=9)):
        seat = game.to_move
        assert seat is not None
        twin = _twin(game, i)
        if twin.hands == game.hands:
            continue
        view = game.view(seat)
        assert twin.view(seat) == view
        a = _bot(level, 5).act(view)  # type: ignore[attr-defined]
        b = _bot(level, 5).act(twin.view(seat))  # type: ignore[attr-defined]
        assert a == b
        checked += 1
        if checked >= (12 if level.startswith("strong-fast") else 40):
            break
    assert checked > 0
