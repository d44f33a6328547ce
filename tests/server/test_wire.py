"""The update frame's view is assembled from encoded parts: it must be exactly the JSON of Game.view(seat)."""

from __future__ import annotations

import random

import estimation
from estimation.server.jsontext import dumps, loads
from estimation.server.table.wire import PublicViewText, join_objects
from estimation.views import seat_part


def test_assembled_views_equal_game_view_at_every_state_of_random_games() -> None:
    checked = 0
    for ruleset, length, seed in (("koutchina", "micro", 3), ("classic", "full", 4), ("egyptian", None, 5)):
        game = estimation.new_game(ruleset=ruleset, length=length, seed=seed)
        encoder = PublicViewText()
        rng = random.Random(seed)
        while True:
            public = encoder.encode(game)
            for seat in (None, 0, 1, 2, 3):
                assert loads(join_objects(public, dumps(seat_part(game, seat)))) == game.view(seat)
                checked += 1
            if game.is_over:
                break
            game.apply(rng.choice(game.legal_actions()))
    assert checked > 1000


def _public_only(game: estimation.Game) -> dict[str, object]:
    return {k: v for k, v in game.view(None).items() if k not in ("seat", "hand", "legal")}


def _play_until_scored(game: estimation.Game, rounds: int, rng: random.Random) -> None:
    while len(game.round_results) < rounds:
        game.apply(rng.choice(game.legal_actions()))


def test_kept_results_follow_a_game_put_back_to_a_save_point() -> None:
    """A table whose commit fails goes back to its save point (a clone made before the action): the encoder
    keeps the scored rounds encoded, so it must notice the round that action scored is gone."""
    game = estimation.new_game(ruleset="koutchina", length="micro", seed=7)
    rng = random.Random(7)
    encoder = PublicViewText()
    _play_until_scored(game, 1, rng)
    while True:
        point = game.clone()
        game.apply(rng.choice(game.legal_actions()))
        if len(game.round_results) == 2:
            break
    assert loads(encoder.encode(game)) == _public_only(game)
    assert len(loads(encoder.encode(point))["results"]) == 1
    assert loads(encoder.encode(point)) == _public_only(point)


def test_kept_results_are_not_taken_for_another_games_at_the_same_count() -> None:
    """Same number of scored rounds, different rounds: the last result's identity tells them apart."""
    encoder = PublicViewText()
    games = [estimation.new_game(ruleset="koutchina", length="micro", seed=seed) for seed in (1, 2)]
    for seed, game in enumerate(games):
        _play_until_scored(game, 2, random.Random(seed))
    assert games[0].view(None)["results"] != games[1].view(None)["results"]
    for game in (*games, games[0]):
        assert loads(encoder.encode(game)) == _public_only(game)


def test_join_objects_keeps_every_member_of_both_sides() -> None:
    assert loads(join_objects('{"a":1}', '{"b":[2]}')) == {"a": 1, "b": [2]}
    assert join_objects("{}", '{"b":2}') == '{"b":2}'
    assert join_objects('{"a":1}', "{}") == '{"a":1}'
