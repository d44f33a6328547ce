"""What the competitions need of the process that holds them (the :class:`~..hub.Hub`, which imports this
package: a competition never imports the hub)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from ..cluster.bus import Bus
from ..cluster.ownership import Ownership
from ..config import Settings
from ..table.reducer import TableSettings
from ..table.runtime import TableRuntime
from ..table.store import Slot


class CompetitionHost(Protocol):
    #: The database (its dialect says which: SQLite has one writer).
    engine: AsyncEngine
    session: async_sessionmaker[AsyncSession]
    #: The tables in this process's memory, by id (their committed games are the freshest).
    runtimes: dict[int, TableRuntime]
    bus: Bus
    settings: Settings
    #: Cluster mode's claims (None in one process, which owns every competition).
    ownership: Ownership | None

    async def get(self, table_id: int) -> TableRuntime | None:
        """A table's runtime, loaded on first use."""
        ...

    async def create_table(self, account_id: int, settings: TableSettings, slot: Slot | None = None,
                           seated: Sequence[tuple[int, str, bool, int]] = ()) -> TableRuntime:
        """A new table through the one table path (a competition's with its slot and its entrants seated,
        (account, name, is_guest, seat) each, in one transaction)."""
        ...
