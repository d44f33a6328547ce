"""The database: one async engine, sessions, and migrations on start.

SQLite is the default (a file, created and migrated on first start); ``postgresql+asyncpg://`` URLs run the
same code on PostgreSQL. SQLite gets WAL, and its statements run inline on the event loop's thread
(:mod:`.sqlite_inline`: a transaction's writes then take one turn of the loop, so the tables and the lobby
never wait for each other's write lock across turns).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import event
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine

from .sqlite_inline import BUSY_SECONDS, inline_url

MIGRATIONS = Path(__file__).with_name("migrations")
#: SQLite: the size (bytes) every connection cuts the WAL file back to when a writer starts it again
#: (``journal_size_limit``), and above which the tables' journal pauses to let a checkpoint settle it
#: (``table/journal.py``): the file stays near this size however long the server writes.
WAL_LIMIT_BYTES = 64 * 1024 * 1024
log = logging.getLogger("estimation.server")


def make_engine(url: str) -> AsyncEngine:
    if url.startswith("sqlite"):
        inline = inline_url(url)
        if inline is not None:  # a file: every statement inline on the loop's thread
            engine = create_async_engine(inline, connect_args={"timeout": BUSY_SECONDS})
        else:
            engine = create_async_engine(url, connect_args={"timeout": 30})

        @event.listens_for(engine.sync_engine, "connect")
        def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute(f"PRAGMA journal_size_limit={WAL_LIMIT_BYTES}")
            if inline is not None:
                # A checkpoint (with its fsyncs) must not run on the loop's thread at some commit: the
                # journal runs them in the background and counts these connections' commits too.
                cursor.execute("PRAGMA wal_autocheckpoint=0")
            cursor.close()

        return engine
    return create_async_engine(url, pool_size=10, max_overflow=20, pool_pre_ping=True)


def sessionmaker(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(engine, expire_on_commit=False)


def _upgrade(connection: Connection, location: Path) -> None:
    config = Config()
    config.set_main_option("script_location", str(location))
    config.attributes["connection"] = connection
    known = {script.revision for script in ScriptDirectory.from_config(config).walk_revisions()}
    current = set(MigrationContext.configure(connection).get_current_heads())
    if current - known:
        # A newer release migrated this database (an upgrade in progress: new workers beside old ones).
        # Its migrations only add (expand, then contract a release later: docs/deploy.md), so this
        # server runs on the schema as it is; migrating "down" to its own head would be the wrong way.
        log.warning("the schema is at %s, newer than this server's migrations: running on it as it is",
                    ", ".join(sorted(current)))
        return
    command.upgrade(config, "head")


async def migrate(engine: AsyncEngine, location: Path = MIGRATIONS) -> None:
    """Bring the schema to the newest migration in ``location`` (a no-op when it is already there, and when
    a newer release's migrations are already applied)."""
    async with engine.begin() as connection:
        await connection.run_sync(_upgrade, location)
