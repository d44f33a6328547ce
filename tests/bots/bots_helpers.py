"""Shared by the bot tests: games driven by bots through views, positions reached that way."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator

import estimation
from estimation import RULESETS, Game, get_ruleset
from estimation.bots import Bot

#: Every (ruleset, length) the registry has at the time the tests run.
RULESET_LENGTHS = [(name, length) for name in RULESETS for length in get_ruleset(name).lengths]

#: Games per (ruleset, length) and level in the legality tests. The suite keeps it small enough for CI
#: (a few seconds per ruleset); BOTS_GAMES=2000 runs the thousands the issue asks for.
GAMES = int(os.environ.get("BOTS_GAMES", "0"))


def play_out(game: Game, bots: list[Bot]) -> int:
    """Drive the game to its end with the checked ``apply``; returns the number of actions."""
    n = 0
    while not game.is_over:
        seat = game.to_move
        assert seat is not None
        game.apply(bots[seat].act(game.view(seat)))
        n += 1
    return n


def positions(ruleset: str, length: str, seed: int, every: int = 7) -> Iterator[Game]:
    """Clones of a game played by random legal actions, every ``every`` actions until it ends."""
    rng = random.Random(seed)
    game = estimation.new_game(ruleset, length, seed=seed)
    i = 0
    while not game.is_over:
        if i % every == 0:
            yield game.clone()
        game.apply(rng.choice(game.legal_actions()))
        i += 1
