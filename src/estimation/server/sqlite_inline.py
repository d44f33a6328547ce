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
can meet the lock. :class:`InlineConnection` is a small asyncio driver of our own over the standard
``sqlite3`` module: coroutines that never wait, with the interface SQLAlchemy's ``sqlite+aiosqlite``
dialect drives (its ``async_creator`` hook hands it our connection instead of aiosqlite's). Nothing of
aiosqlite's is used or reached into; the attribute names SQLAlchemy's adapter reads on a driver connection
(``_connection``, and for an isolation-level change ``_conn`` and ``_tx``) are defined here, as plain parts
of this class.

The busy timeout is then a wait on the loop's thread, so it is kept short: within the process nothing
holds the lock across turns of the loop, and another process (a second server on the same file, an admin
command) that holds it longer gets this one's writes refused with SQLite's "database is locked".
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Awaitable, Callable, Generator, Iterable, Sequence
from typing import Any

#: Seconds a statement may wait (on the loop's thread) for another process's write lock.
BUSY_SECONDS = 2.0


class InlineCursor:
    """A ``sqlite3`` cursor behind coroutines that finish without waiting."""

    def __init__(self, cursor: sqlite3.Cursor) -> None:
        self.cursor = cursor

    async def __aenter__(self) -> InlineCursor:
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

    async def execute(self, sql: str, parameters: Sequence[Any] | None = None) -> InlineCursor:
        self.cursor.execute(sql, () if parameters is None else parameters)
        return self

    async def executemany(self, sql: str, parameters: Iterable[Sequence[Any]]) -> InlineCursor:
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


class _CursorOpening:
    """What ``connection.cursor()`` returns: awaitable, and usable with ``async with``, as SQLAlchemy's
    adapter uses it."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self.connection = connection
        self.opened: InlineCursor | None = None

    def __await__(self) -> Generator[Any, None, InlineCursor]:
        return self.__aenter__().__await__()

    async def __aenter__(self) -> InlineCursor:
        self.opened = InlineCursor(self.connection.cursor())
        return self.opened

    async def __aexit__(self, *_exc: object) -> None:
        if self.opened is not None:
            self.opened.cursor.close()


class _RunNow:
    """Runs a call as it is queued and settles its future at once (SQLAlchemy's adapter queues an
    isolation-level change this way)."""

    def put_nowait(self, item: tuple[asyncio.Future[Any] | None, Callable[[], Any]]) -> None:
        future, function = item
        try:
            result = function()
        except BaseException as exc:
            if future is not None and not future.done():
                future.set_exception(exc)
        else:
            if future is not None and not future.done():
                future.set_result(result)


class InlineConnection:
    """A ``sqlite3`` connection behind coroutines that finish without waiting (see the module docstring)."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self._connection: sqlite3.Connection | None = connection  # read by SQLAlchemy's adapter
        self._conn = connection  # for the adapter's isolation-level change, with _tx
        self._tx = _RunNow()

    @property
    def raw(self) -> sqlite3.Connection:
        if self._connection is None:
            raise ValueError("no active connection")
        return self._connection

    @property
    def isolation_level(self) -> str | None:
        return self.raw.isolation_level

    def cursor(self) -> _CursorOpening:
        return _CursorOpening(self.raw)

    async def execute(self, sql: str, parameters: Sequence[Any] | None = None) -> InlineCursor:
        return await InlineCursor(self.raw.cursor()).execute(sql, parameters)

    async def create_function(self, *args: Any, **kw: Any) -> None:
        self.raw.create_function(*args, **kw)

    async def commit(self) -> None:
        self.raw.commit()

    async def rollback(self) -> None:
        self.raw.rollback()

    async def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def stop(self) -> None:
        """Close at once (SQLAlchemy's terminate)."""
        if self._connection is not None:
            self._connection.close()
            self._connection = None


def inline_creator(path: str) -> Callable[[], Awaitable[InlineConnection]]:
    """The ``async_creator`` for ``create_async_engine``: a new inline connection to ``path``."""

    async def create() -> InlineConnection:
        return InlineConnection(sqlite3.connect(path, timeout=BUSY_SECONDS, check_same_thread=False))

    return create
