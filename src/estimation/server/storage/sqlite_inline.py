"""SQLite for SQLAlchemy's asyncio engine, with every statement run at once on the event loop's own thread.

aiosqlite runs each call on a connection thread and hands the result back through the event loop. That is
the right trade for slow statements; ours are sub-millisecond (small, indexed tables; WAL with
``synchronous=NORMAL``, so a commit is a write to the WAL, not an ``fsync``), and the hand-back is what
costs: every statement waits for a turn of the loop, which is 10 to 40 ms when 500 tables are playing. A
transaction of ten statements (a game's end: its events, the payout, the history rows) then held SQLite's
write lock for hundreds of milliseconds, and every table's actions waited behind it in the journal (see
docs/performance.md, "game ends").

Run inline, a transaction's writes, from its first ``INSERT``/``UPDATE`` (where Python's ``sqlite3`` begins
the transaction) to its ``COMMIT``, happen within one turn of the loop, so no other writer of this process
can meet the lock.

How: :class:`InlineSQLiteDialect` is SQLAlchemy's own ``pysqlite`` dialect for the asyncio engine,
registered as ``sqlite+inline`` through SQLAlchemy's public dialect registry. Its DBAPI is built the way
SQLAlchemy's own asyncio dialects are built (aiosqlite's, asyncpg's), from the adapter classes of
``sqlalchemy.connectors.asyncio``, over a small asyncio face of the standard ``sqlite3`` module
(:class:`AsyncSQLiteConnection`, :class:`AsyncSQLiteCursor`) whose coroutines never wait. aiosqlite is not
used at all for a file, and nothing private of aiosqlite's or SQLAlchemy's is read, written or imitated.
(``sqlite+aiosqlite`` URLs, the configured form, are mapped to it by :func:`inline_url`; an in-memory
database stays on aiosqlite, where each connection would be its own database.)

The busy timeout is then a wait on the loop's thread, so it is kept short: within the process nothing
holds the lock across turns of the loop, and another process (a second server on the same file, an admin
command) that holds it longer gets this one's writes refused with SQLite's "database is locked".
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any, cast

from sqlalchemy import URL, make_url, pool
from sqlalchemy.connectors.asyncio import AsyncAdapt_dbapi_connection, AsyncAdapt_dbapi_module
from sqlalchemy.dialects import registry
from sqlalchemy.dialects.sqlite.pysqlite import SQLiteDialect_pysqlite

#: Seconds a statement may wait (on the loop's thread) for another process's write lock.
BUSY_SECONDS = 2.0

#: The driver name this module registers with SQLAlchemy (``sqlite+inline:///path``).
DRIVER = "inline"


class AsyncSQLiteCursor:
    """A ``sqlite3`` cursor as an asyncio driver's cursor (what SQLAlchemy's adapter drives); no coroutine
    here ever waits."""

    __slots__ = ("cursor",)

    def __init__(self, cursor: sqlite3.Cursor) -> None:
        self.cursor = cursor

    async def __aenter__(self) -> AsyncSQLiteCursor:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        self.cursor.close()

    @property
    def description(self) -> Any:
        return self.cursor.description

    @property
    def rowcount(self) -> int:
        return self.cursor.rowcount

    @property
    def lastrowid(self) -> int | None:
        return self.cursor.lastrowid

    @property
    def arraysize(self) -> int:
        return self.cursor.arraysize

    @arraysize.setter
    def arraysize(self, value: int) -> None:
        self.cursor.arraysize = value

    async def execute(self, sql: str, parameters: Sequence[Any] | None = None) -> AsyncSQLiteCursor:
        self.cursor.execute(sql, () if parameters is None else parameters)
        return self

    async def executemany(self, sql: str, parameters: Iterable[Sequence[Any]]) -> AsyncSQLiteCursor:
        self.cursor.executemany(sql, parameters)
        return self

    async def fetchone(self) -> Any:
        return self.cursor.fetchone()

    async def fetchmany(self, size: int | None = None) -> list[Any]:
        return self.cursor.fetchmany(self.cursor.arraysize if size is None else size)

    async def fetchall(self) -> list[Any]:
        return self.cursor.fetchall()

    async def close(self) -> None:
        self.cursor.close()


class AsyncSQLiteConnection:
    """A ``sqlite3`` connection as an asyncio driver's connection; no coroutine here ever waits."""

    __slots__ = ("raw",)

    def __init__(self, raw: sqlite3.Connection) -> None:
        self.raw = raw

    def cursor(self) -> AsyncSQLiteCursor:
        return AsyncSQLiteCursor(self.raw.cursor())

    async def commit(self) -> None:
        self.raw.commit()

    async def rollback(self) -> None:
        self.raw.rollback()

    async def close(self) -> None:
        self.raw.close()


class InlineAdaptedConnection(AsyncAdapt_dbapi_connection):
    """SQLAlchemy's adapter over :class:`AsyncSQLiteConnection`, with what the ``pysqlite`` dialect sets on
    a connection (the isolation level, SQL functions) done on the ``sqlite3`` connection directly."""

    __slots__ = ()

    @property
    def raw(self) -> sqlite3.Connection:
        driver: AsyncSQLiteConnection = self.driver_connection
        return driver.raw

    @property
    def isolation_level(self) -> str | None:
        return self.raw.isolation_level

    @isolation_level.setter
    def isolation_level(self, value: str | None) -> None:
        self.raw.isolation_level = cast(Any, value)  # sqlite3's own values; typeshed lists its literals

    def create_function(self, *args: Any, **kw: Any) -> None:
        self.raw.create_function(*args, **kw)


class InlineDBAPI(AsyncAdapt_dbapi_module):
    """The DBAPI module of the dialect: ``sqlite3``'s names, and connections through the adapter."""

    def __init__(self) -> None:
        super().__init__(sqlite3, dbapi_module=sqlite3)
        self.paramstyle = "qmark"
        for name in ("DatabaseError", "Error", "IntegrityError", "InterfaceError", "NotSupportedError",
                     "OperationalError", "ProgrammingError", "sqlite_version", "sqlite_version_info",
                     "PARSE_COLNAMES", "PARSE_DECLTYPES", "Binary"):
            setattr(self, name, getattr(sqlite3, name))

    def connect(self, *args: Any, **kw: Any) -> InlineAdaptedConnection:
        # The adapter's type for a driver connection is a protocol with ``__getattr__`` (for the drivers it
        # was written for); this one has exactly the methods the adapter calls.
        driver = cast(Any, AsyncSQLiteConnection(sqlite3.connect(*args, **kw)))
        return InlineAdaptedConnection(self, driver)


class InlineSQLiteDialect(SQLiteDialect_pysqlite):
    """The ``pysqlite`` dialect for the asyncio engine: its statements never wait, so they run inline."""

    driver = DRIVER
    is_async = True
    supports_statement_cache = True

    @classmethod
    def import_dbapi(cls) -> Any:
        return InlineDBAPI()

    @classmethod
    def get_pool_class(cls, url: URL) -> type[pool.Pool]:
        return pool.AsyncAdaptedQueuePool

    def get_driver_connection(self, connection: Any) -> Any:
        return connection.driver_connection


registry.register(f"sqlite.{DRIVER}", __name__, InlineSQLiteDialect.__name__)


def inline_url(url: str) -> URL | None:
    """The inline form of a SQLite file's URL (any driver named), or None for an in-memory database."""
    parsed = make_url(url)
    database = parsed.database
    if not database or database == ":memory:" or parsed.query.get("mode") == "memory":
        return None
    return parsed.set(drivername=f"sqlite+{DRIVER}")
