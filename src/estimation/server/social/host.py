"""What the social layer and the process that holds it need of each other, as narrow protocols.

The process is the :class:`~..hub.Hub`, which imports this module and builds the social part (the social
routes import the hub, so the hub never imports them); the social layer never imports the hub. So each side
names here only what it uses of the other: :class:`SocialHost` is the hub as the chat, accounts, quick play
and rematches see it, :class:`SocialPart` the social part as the hub, the tables and the sockets see it.
"""

from __future__ import annotations

import datetime as dt
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from ..access.limits import Limit
from ..cluster.bus import Bus
from ..config import Settings
from ..table.connection import Connection
from ..table.reducer import Events, TableSettings
from ..table.runtime import TableRuntime
from ..table.store import TableStore


class SocialPart(Protocol):
    """What the hub, the tables and the sockets need of the social layer (:class:`~.service.Social`)."""

    async def start(self) -> None: ...

    async def stop(self) -> None: ...

    def table_changed(self, runtime: TableRuntime, events: Events) -> None: ...

    def presence_changed(self, table_id: int) -> None: ...

    def schedule_bots(self, table_id: int, at: dt.datetime) -> None:
        """A quick-play table's bots come at ``at`` (cluster mode: its new owner takes the timer over)."""

    def greet(self, conn: Connection, table_id: int) -> None: ...

    async def leaderboard(self, ruleset: str, by: str, limit: int, offset: int) -> dict[str, Any]:
        """A page of a ruleset's leaderboard (cached by the social part)."""
        ...

    def chat_wait(self, account_id: int) -> float:
        """Seconds this player must wait before another chat message (0: now)."""
        ...


class EntrantNames(Protocol):
    """The one thing an erasure asks of the competitions."""

    async def rename_entrant(self, account_id: int, name: str) -> None:
        """The account's competition entries take ``name``, in every process."""
        ...


class SocialHost(Protocol):
    """The process as the social layer sees it: its database, its tables (through the store and the one
    table path), its bus, its limits, and the seat-taking rule (one live table a player)."""

    settings: Settings
    engine: AsyncEngine
    session: async_sessionmaker[AsyncSession]
    #: Every table and seat is written and read through it.
    store: TableStore
    #: The tables in this process's memory, by id.
    runtimes: dict[int, TableRuntime]
    bus: Bus
    @property
    def social(self) -> SocialPart:
        """The social part this process built (:class:`~.service.Social`)."""
        ...

    @property
    def competitions(self) -> EntrantNames: ...
    #: Chat per address, and per table in its spectators' channel.
    chat_from: Limit
    spectator_chat: Limit

    async def get(self, table_id: int) -> TableRuntime | None:
        """A table's runtime, loaded on first use (claimed first in cluster mode)."""
        ...

    async def held(self, table_id: int) -> TableRuntime | None:
        """The table if this process holds it (in cluster mode only one it owns now, never a claim)."""
        ...

    async def create_table(self, account_id: int, settings: TableSettings) -> TableRuntime:
        """A new open table through the one table path."""
        ...

    def seating(self, account_id: int) -> AbstractAsyncContextManager[Any]:
        """One seat-taking at a time per player."""
        ...

    async def live_table(self, account_id: int) -> int | None:
        """The open or playing table where this player holds a seat, if any."""
        ...

    async def not_seated_elsewhere(self, account_id: int, table_id: int | None) -> None:
        """Refuse (409) while the player holds a seat at another live table."""
        ...

    def end_sessions_of(self, account_id: int, keep: str | None = None) -> None:
        """Every session of a player but ``keep`` is over, here and in every other process."""
        ...
