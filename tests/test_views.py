"""Hidden information: a view holds the seat's own hand and public facts, never another hand."""

from __future__ import annotations

import json
import random

from hypothesis import given
from hypothesis import strategies as st

import estimation
from estimation.cards import cards_of
from tests.helpers import random_step


def _text_cards(mask: int) -> set[str]:
    return {str(c) for c in cards_of(mask)}


@given(st.sampled_from(["micro", "mini", "full"]), st.integers(0, 2**32), st.integers(0, 700))
def test_a_view_never_holds_another_hand(length: str, seed: int, steps: int) -> None:
    game = estimation.new_game("koutchina", length, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if game.is_over:
            break
        random_step(game, rng)
    for seat in (0, 1, 2, 3, None):
        view = game.view(seat)
        text = json.dumps(view)
        assert "seed" not in view
        for other in range(4):
            if other == seat:
                assert set(view["hand"]) == _text_cards(game.hands[other])
                continue
            for card in _text_cards(game.hands[other]):
                # a card appears either as a quoted string or in a "play" action
                assert f'"{card}"' not in text and f"play {card}" not in text, (seat, other, card)
        if seat is None:
            assert view["hand"] is None
        assert view["legal"] == ([a.text for a in game.legal_actions()] if seat == game.to_move else [])


def test_views_show_public_facts() -> None:
    game = estimation.new_game("koutchina", "mini", seed=11)
    rng = random.Random(1)
    while game.phase != "play" or len(game.trick_log) < 2:
        random_step(game, rng)
    view = game.view(None)
    assert view["actions"] == [a.text for a in game.actions]
    assert len(view["tricks"]) == 2 and view["tricks"][0]["winner"] == game.trick_log[0][2]
    assert view["estimates"] == game.estimates
    assert view["caller"] == game.caller and view["trump"] == str(game.trump)
    assert [m["tricks"] for m in view["markers"]] == game.tricks_won


def test_avoid_and_bust_markers() -> None:
    """Avoid is set the first time a seat fails to follow a suit; bust once tricks exceed the estimate."""
    for seed in range(200):
        game = estimation.new_game("koutchina", "micro", seed=seed)
        rng = random.Random(seed)
        while game.round_no == 1:
            if game.phase == "play" and game.trick:
                seat = game.to_move
                led = game.trick[0] // 13
                action = rng.choice(game.legal_actions())
                failed = action.card // 13 != led  # type: ignore[operator]
                game.apply(action)
                if game.round_no == 1 and failed:
                    suit = "CDHS"[led]
                    assert suit in game.view(None)["markers"][seat]["avoid"]
                if game.round_no == 1:
                    for s, m in enumerate(game.view(None)["markers"]):
                        assert m["bust"] == (game.tricks_won[s] > game.estimates[s])  # type: ignore[operator]
            else:
                random_step(game, rng)
