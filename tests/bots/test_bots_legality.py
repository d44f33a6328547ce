"""Every bot plays whole games of every ruleset and length through the checked ``apply``.

An illegal action raises ``IllegalActionError`` and fails the test. The suite plays a bounded number of
games so that it stays fast on two cores (see ``bots_helpers.GAMES``): by default, per ruleset and level,
30 games of a 5-round length, 8 of a 10-round one and 3 of each longer one (a few hundred games in all),
and a couple of dozen games with four ``strong-fast`` bots at a tiny budget. ``BOTS_GAMES=2000`` plays
thousands of each (docs/bots.md has the last such run).
"""

from __future__ import annotations

import pytest
from bots_helpers import GAMES, RULESET_LENGTHS, play_out

import estimation
from estimation.bots import LEVELS, Bot, Budget, RaceBudget, Strong2Bot, StrongBot, make_bot

SHORT = ("micro", "mini")


def _games(rounds: int) -> int:
    if GAMES:
        return GAMES
    return 30 if rounds <= 5 else 8 if rounds <= 10 else 3


@pytest.mark.parametrize(("ruleset", "length"), RULESET_LENGTHS)
@pytest.mark.parametrize("level", ["random", "heuristic"])
def test_bots_play_whole_games_legally(level: str, ruleset: str, length: str) -> None:
    rounds = len(estimation.get_ruleset(ruleset).lengths[length])
    for g in range(_games(rounds)):
        game = estimation.new_game(ruleset, length, seed=1000 + g)
        bots = [make_bot(level, g * 4 + s) for s in range(4)]
        play_out(game, bots)
        assert game.is_over
        assert len(game.round_results) == game.rounds


def _small(level: str, seed: int) -> Bot:
    if level == "strong-fast":
        return Strong2Bot(seed, RaceBudget(play_deals=3, declaration_deals=2, batch=2))
    return StrongBot(seed, Budget(samples=2, play_samples=2), name=level)


@pytest.mark.parametrize(("ruleset", "length"), RULESET_LENGTHS)
@pytest.mark.parametrize("level", ["strong-fast", "strong"])
def test_strong_plays_legally_at_a_small_budget(level: str, ruleset: str, length: str) -> None:
    n = GAMES // 20 if GAMES else 24 // len(RULESET_LENGTHS) + 1
    for g in range(n):
        game = estimation.new_game(ruleset, length, seed=2000 + g)
        # Full games are long: play their first three rounds, then a heuristic finishes the game.
        bots = [_small(level, g * 4 + s) for s in range(4)]
        while not game.is_over and (game.round_no <= 3 or length in SHORT):
            seat = game.to_move
            assert seat is not None
            game.apply(bots[seat].act(game.view(seat)))
        play_out(game, [make_bot("heuristic") for _ in range(4)])
        assert game.is_over


def test_make_bot_levels() -> None:
    assert LEVELS == ("random", "heuristic", "strong-fast", "strong-fast-plus", "strong")
    for level in LEVELS:
        assert make_bot(level, 1).name == level
    with pytest.raises(ValueError, match="unknown bot level"):
        make_bot("omniscient", 1)  # tournament only: it reads every hand
