"""The multiplayer game server: lobby (REST), tables (WebSocket), persistence, bots in empty seats, stakes.

Layers, each using only those before it: ``config`` -> ``models`` / ``db`` (+ ``migrations``) -> ``auth``,
``wallets``, ``history`` -> ``tables`` (the authoritative table runtime) -> ``hub`` (the process's tables)
-> ``ws`` (the table socket) and ``lobby`` (REST) -> ``app``. The engine is used only through its public
API: ``new_game``, ``Game.apply``, ``Game.view`` (the one redaction point), records and ``split_pot``.
"""

from __future__ import annotations

from .app import create_app
from .config import Settings

__all__ = ["Settings", "create_app"]
