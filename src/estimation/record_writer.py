"""Writing the `estimation-record/1` game record (RECORD.md); :mod:`estimation.record` reads it back."""

from __future__ import annotations

from typing import Any

from .cards import hand_text
from .rulesets.base import GameState

FORMAT = "estimation-record/1"


def write_record(game: GameState, include_seed: bool = False) -> dict[str, Any]:
    """The record of everything so far; the deal in progress (if any) is the last entry."""
    deals = [
        {"round": r, "dealer": d, "hands": [hand_text(h) for h in hands],
         "actions": [a.text for a in actions]}
        for r, d, hands, actions in game.deal_log
    ]
    if not game.is_over or game.ended is not None:
        deals.append({"round": game.round_no, "dealer": game.dealer,
                      "hands": [hand_text(h) for h in game.dealt],
                      "actions": [a.text for a in game.actions]})
    record: dict[str, Any] = {
        "format": FORMAT,
        "ruleset": game.ruleset.name,
        "length": game.length,
        "players": list(game.players),
        "deals": deals,
    }
    if game.partners:
        record["partners"] = True
    if game.ended is not None:
        record["ended"] = dict(game.ended)
    if include_seed:
        record["seed"] = game.seed
    return record
