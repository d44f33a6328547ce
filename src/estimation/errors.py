"""Typed errors: each says what was wrong, so a server can pass the message straight to the player."""

from __future__ import annotations


class EstimationError(ValueError):
    """Base of every error the engine raises on bad input."""


class InvalidActionError(EstimationError):
    """The text is not an action at all (unknown verb, not a card, malformed)."""


class IllegalActionError(EstimationError):
    """A well-formed action the rules do not allow now; the game is left exactly as it was."""


class GameOverError(IllegalActionError):
    """An action after the last round was scored."""


class RecordError(EstimationError):
    """A record breaks a rule or is malformed; ``deal``/``action`` are 1-based (0 for the deal or record)."""

    def __init__(self, deal: int, action: int, text: str, reason: str) -> None:
        self.deal = deal
        self.action = action
        self.text = text
        self.reason = reason
        super().__init__(self.line)

    @property
    def line(self) -> str:
        """The contract's error line: ``deal D, action K ("TEXT"): REASON``."""
        quoted = self.text.replace("\\", "\\\\").replace('"', '\\"')
        return f'deal {self.deal}, action {self.action} ("{quoted}"): {self.reason}'
