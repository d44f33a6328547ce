"""The floor for measurement: a uniformly random legal action."""

from __future__ import annotations

import random
from typing import Any


class RandomBot:
    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def act(self, view: dict[str, Any]) -> str:
        legal = view["legal"]
        if not legal:
            raise ValueError("the view has no legal action: it is not this seat's turn")
        return str(self._rng.choice(legal))
