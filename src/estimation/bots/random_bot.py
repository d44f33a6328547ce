"""The floor for measurement: a uniformly random legal action (in a partnership game, never a card that
takes a trick its partner is winning and needs when it need not: see :mod:`.side`)."""

from __future__ import annotations

import random
from typing import Any

from ..actions import Action
from ..cards import Card
from .knowledge import from_view
from .side import must_spare_partner, sparing


class RandomBot:
    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def act(self, view: dict[str, Any]) -> str:
        legal = view["legal"]
        if not legal:
            raise ValueError("the view has no legal action: it is not this seat's turn")
        if view.get("partners") and view["phase"] == "play" and view["trick"]:
            info = from_view(view)
            if must_spare_partner(info):
                cards = sparing(info, [int(a.card) for a in info.legal if a.card is not None])
                return Action.play(info.seat, Card(self._rng.choice(cards))).text
        return str(self._rng.choice(legal))
