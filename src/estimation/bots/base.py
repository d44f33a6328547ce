"""The bot interface.

A bot sees what a human in its seat sees, the view, and nothing else; its randomness comes from its own
seed, so a seeded bot given the same view makes the same choice.
"""

from __future__ import annotations

from typing import Any, Protocol

#: The levels a server or ``estimation play`` may seat: every one of them decides from the view alone.
#: The tournament-only ``omniscient`` reference (it reads every hand) is deliberately not here.
#: ``strong`` is the search over freshly sampled deals (:mod:`.strong`), the strongest. ``strong-fast``
#: (:mod:`.strong2`) carries its sampled deals through a deal and races its candidates: measured weaker
#: (docs/bots.md), so a level of its own and not ``strong``; it was a sixth of the CPU a decision while
#: both were pure Python, and with the ``fast`` extra it now costs more than ``strong``.
#: ``strong-fast-plus``: the same machinery at 64 deals a decision, between the two in strength.
#: No level above ``strong``: twice its deals (``strong@128`` in the tournament), at twice its CPU, measured
#: no stronger (docs/bots.md, "Bot levels by feel").
LEVELS = ("random", "heuristic", "strong-fast", "strong-fast-plus", "strong")
#: The levels a person is offered (the lobby's picker, a table's or a competition's ``bot_level``): from
#: weakest to strongest, each one a reason to pick it. ``strong-fast`` and ``strong-fast-plus`` are for
#: measurement (``estimation play``, the tournament): both weaker than ``strong`` and, since ``strong``'s
#: search is compiled, no cheaper, so a player choosing "fast" would only get a weaker table. A table that
#: already seats one plays on: :func:`make_bot` builds every level of :data:`LEVELS`.
OFFERED = ("random", "heuristic", "strong")


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

    if level == "strong":
        return StrongBot(seed, name="strong")
    if level == "strong-fast-plus":
        from .strong2 import RaceBudget

        return Strong2Bot(seed, RaceBudget.plus(), name="strong-fast-plus")
    levels: dict[str, type[RandomBot] | type[HeuristicBot] | type[Strong2Bot]] = {
        "random": RandomBot, "heuristic": HeuristicBot, "strong-fast": Strong2Bot}
    try:
        return levels[level](seed)
    except KeyError:
        raise ValueError(f"unknown bot level {level!r} (known: {', '.join(LEVELS)})") from None
