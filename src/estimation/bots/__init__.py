"""Bots: each gets exactly ``Game.view(seat)`` (never another hand) and returns a legal action's text.

``random`` is the floor, ``heuristic`` evaluates hands and plays for its target, ``strong-fast`` searches over
sampled deals by expected score (``strong``: the same search with more deals and a fresh pool of them
for every card, at about six times the CPU: docs/bots.md).
``OmniscientBot`` (tournament only) is the ceiling and reads every hand, so :func:`make_bot`, which serves
the server and ``estimation play``, never builds it.
"""

from __future__ import annotations

from .base import LEVELS, OFFERED, Bot, make_bot
from .heuristic import HeuristicBot
from .random_bot import RandomBot
from .search import Budget
from .strong import StrongBot
from .strong2 import RaceBudget, Strong2Bot

__all__ = ["LEVELS", "OFFERED", "Bot", "Budget", "HeuristicBot", "RaceBudget", "RandomBot", "Strong2Bot",
           "StrongBot", "make_bot"]
