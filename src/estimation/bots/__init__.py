"""Bots: each gets exactly ``Game.view(seat)`` (never another hand) and returns a legal action's text."""

from __future__ import annotations

from .base import Bot, make_bot
from .random_bot import RandomBot

__all__ = ["Bot", "RandomBot", "make_bot"]
