"""The bot interface.

A bot sees what a human in its seat sees, the view, and nothing else; its randomness comes from its own
seed, so a seeded bot given the same view makes the same choice.
"""

from __future__ import annotations

from typing import Any, Protocol

#: The levels a server or ``estimation play`` may seat: every one of them decides from the view alone.
#: The tournament-only ``omniscient`` reference (it reads every hand) is deliberately not here.
#: ``strong`` is the search at a tenth of the CPU (issue 24, :mod:`.strong2`); ``strong-v1`` is the strong
#: bot before it (:mod:`.strong`), kept by name until the new one has been shown no weaker (docs/bots.md).
#: ``strong-plus`` is the new machinery at the old budget (64 deals a decision, no race): more CPU, for
#: those who want the strongest bot.
LEVELS = ("random", "heuristic", "strong", "strong-plus", "strong-v1")


class Bot(Protocol):
    name: str

    def act(self, view: dict[str, Any]) -> str:
        """The record text of a legal action for ``view["seat"]`` (which must be ``view["to_move"]``)."""
        ...


def make_bot(level: str, seed: int | None = None) -> Bot:
    """A view-only bot of ``level`` (one of :data:`LEVELS`)."""
    from .heuristic import HeuristicBot
    from .random_bot import RandomBot
    from .strong import StrongBot
    from .strong2 import Strong2Bot

    if level == "strong-v1":
        return StrongBot(seed, name="strong-v1")
    if level == "strong-plus":
        from .strong2 import RaceBudget

        return Strong2Bot(seed, RaceBudget.plus(), name="strong-plus")
    levels: dict[str, type[RandomBot] | type[HeuristicBot] | type[Strong2Bot]] = {
        "random": RandomBot, "heuristic": HeuristicBot, "strong": Strong2Bot}
    try:
        return levels[level](seed)
    except KeyError:
        raise ValueError(f"unknown bot level {level!r} (known: {', '.join(LEVELS)})") from None
