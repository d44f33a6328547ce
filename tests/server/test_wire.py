"""The update frame's view is assembled from encoded parts: it must be exactly the JSON of Game.view(seat)."""

from __future__ import annotations

import random

import estimation
from estimation.server.wire import dumps, join_objects, loads
from estimation.views import public_view, seat_part


def test_assembled_views_equal_game_view_at_every_state_of_random_games() -> None:
    checked = 0
    for ruleset, length, seed in (("koutchina", "micro", 3), ("classic", "full", 4), ("egyptian", None, 5)):
        game = estimation.new_game(ruleset=ruleset, length=length, seed=seed)
        rng = random.Random(seed)
        while True:
            public = dumps(public_view(game))
            for seat in (None, 0, 1, 2, 3):
                assert loads(join_objects(public, dumps(seat_part(game, seat)))) == game.view(seat)
                checked += 1
            if game.is_over:
                break
            game.apply(rng.choice(game.legal_actions()))
    assert checked > 1000


def test_join_objects_keeps_every_member_of_both_sides() -> None:
    assert loads(join_objects('{"a":1}', '{"b":[2]}')) == {"a": 1, "b": [2]}
    assert join_objects("{}", '{"b":2}') == '{"b":2}'
    assert join_objects('{"a":1}', "{}") == '{"a":1}'
