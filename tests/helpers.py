"""Small tools the tests share: seeded random play and a full snapshot of a game's state."""

from __future__ import annotations

import copy
import random
from typing import Any

import estimation
from estimation import Action, Game


def random_step(game: Game, rng: random.Random) -> Action:
    action = rng.choice(game.legal_actions())
    game.apply(action)
    return action


def play_random(game: Game, rng: random.Random, max_actions: int = 100_000) -> None:
    for _ in range(max_actions):
        if game.is_over:
            return
        random_step(game, rng)
    raise AssertionError("game did not end")


def snapshot(game: Game) -> dict[str, Any]:
    """Every piece of state (not the legal-action cache), deep-copied for comparison."""
    return copy.deepcopy({k: v for k, v in vars(game).items() if k not in ("ruleset", "_legal")})


def all_candidate_actions() -> list[Action]:
    """Every well-formed action of every ruleset for every seat: the universe illegal moves come from."""
    texts: list[str] = []
    for seat in range(4):
        for verb in ("dashcall", "nodash", "pass", "dash", "with"):
            texts.append(f"{seat} {verb}")
        for n in range(4, 14):
            for t in ("C", "D", "H", "S", "NT"):
                for verb in ("call", "bid", "declare"):
                    texts.append(f"{seat} {verb} {n}{t}")
        for n in range(14):
            texts.append(f"{seat} est {n}")
            for t in ("C", "D", "H", "S", "NT"):
                texts.append(f"{seat} est {n} {t}")
        for card in range(52):
            texts.append(f"{seat} play {estimation.Card(card)}")
    return [Action.parse(t) for t in texts]


CANDIDATES = all_candidate_actions()
