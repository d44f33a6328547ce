"""Estimation, the four-player trick-taking card game: rules engine, records and replay.

>>> import estimation
>>> game = estimation.new_game(seed=7)
>>> game.round_no, game.length, len(game.hand(game.to_move))
(1, 'micro', 13)
"""

from __future__ import annotations

from .actions import Action, Verb
from .calculator import CalculatorError, score_typed_round
from .cards import Card, Trump
from .errors import (
    EstimationError,
    GameOverError,
    IllegalActionError,
    InvalidActionError,
    RecordError,
)
from .game import Game
from .record import load_record, replay_summary
from .results import RoundResult, placements
from .rulesets import DEFAULT_RULESET, RULESETS, Phase, get_ruleset
from .scoring import RoundFacts, SeatScore
from .stakes import split_pot

__version__ = "0.1.0"


def new_game(
    ruleset: str = DEFAULT_RULESET,
    length: str | None = None,
    seed: int | str | None = None,
    players: list[str] | tuple[str, ...] | None = None,
    partners: bool = False,
) -> Game:
    """A new match; ``length`` None is the ruleset's default, ``seed`` None a fresh random seed;
    ``partners``: seats 0+2 play against 1+3, standings by side (RULES.md, Partnerships)."""
    return Game(get_ruleset(ruleset), length, seed=seed, players=players, partners=partners)


__all__ = [
    "RULESETS",
    "Action",
    "CalculatorError",
    "Card",
    "EstimationError",
    "Game",
    "GameOverError",
    "IllegalActionError",
    "InvalidActionError",
    "Phase",
    "RecordError",
    "RoundFacts",
    "RoundResult",
    "SeatScore",
    "Trump",
    "Verb",
    "load_record",
    "new_game",
    "placements",
    "replay_summary",
    "score_typed_round",
    "split_pot",
]
