"""Playing one competition table with bots: what `estimation competition simulate` does at every table,
and what a server does for the seats of a short table.

A table is a plain engine game on its board seed (:func:`~estimation.competition.boards.board_seed`), so
its record is an ordinary `estimation-record/1`; each bot's randomness comes from its own seed, derived
from the competition seed, the table and the seat, so the same competition plays out the same way twice.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from ..bots import make_bot
from ..game import Game
from ..rulesets import get_ruleset


def bot_seed(competition_seed: int | str, table: int, seat: int) -> int:
    """The seed of the bot in ``seat`` at ``table``: independent of every other seat's."""
    rng = random.Random(f"estimation/competition/{competition_seed}/table/{table}/seat/{seat}")
    return rng.getrandbits(62)


def play_bot_table(ruleset: str, length: str, game_seed: str, players: Sequence[str], levels: Sequence[str],
                   bot_seeds: Sequence[int]) -> dict[str, Any]:
    """Play a whole game with a bot of ``levels[s]`` in each seat; its record (hands included).

    Every action goes through the checked :meth:`Game.apply`, as in the tournament runner: the check is
    an identity test on the legal list the bot just chose from, and a record that replays is guaranteed.
    """
    game = Game(get_ruleset(ruleset), length, seed=game_seed, players=list(players))
    bots = [make_bot(levels[s], bot_seeds[s]) for s in range(4)]
    while not game.is_over:
        seat = game.to_move
        assert seat is not None
        game.apply(bots[seat].act(game.view(seat)))
    return game.record()
