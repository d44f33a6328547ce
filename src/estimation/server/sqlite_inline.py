"""SQLAlchemy's asyncio SQLite driver, with every statement run at once on the event loop's own thread.

aiosqlite runs each call on a connection thread and hands the result back through the event loop. That is
the right trade for slow statements; ours are sub-millisecond (small, indexed tables; WAL with
``synchronous=NORMAL``, so a commit is a write to the WAL, not an ``fsync``), and the hand-back is what
costs: every statement waits for a turn of the loop, which is 10 to 40 ms when 500 tables are playing. A
transaction of ten statements (a game's end: its events, the payout, the history rows) then held SQLite's
write lock for hundreds of milliseconds, and every table's actions waited behind it in the journal (see
docs/performance.md, "game ends").

Run inline, a transaction's writes, from its first ``INSERT``/``UPDATE`` (where Python's ``sqlite3`` begins
the transaction) to its ``COMMIT``, happen within one turn of the loop, so no other writer of this process
can meet the lock. The connection keeps aiosqlite's interface (SQLAlchemy's ``sqlite+aiosqlite`` dialect
drives it unchanged, through the ``async_creator`` hook); only its queue is replaced by one that runs the
call as it is queued, and its thread is never started.

The busy timeout is then a wait on the loop's thread, so it is kept short: within the process nothing
holds the lock across turns of the loop, and another process (a second server on the same file, an admin
command) that holds it longer gets this one's writes refused with SQLite's "database is locked".
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Awaitable, Callable, Generator
from typing import Any

import aiosqlite

#: Seconds a statement may wait (on the loop's thread) for another process's write lock.
BUSY_SECONDS = 2.0


class _RunNow:
    """Stands in for aiosqlite's queue to its thread: runs each call when it is queued and settles its
    future at once, so that awaiting the future does not wait for a turn of the loop."""

    def put_nowait(self, item: tuple[asyncio.Future[Any] | None, Callable[[], Any]]) -> None:
        future, function = item
        try:
            result = function()
        except BaseException as exc:  # handed to the awaiting caller, as aiosqlite's thread does
            if future is not None and not future.done():
                future.set_exception(exc)
        else:
            if future is not None and not future.done():
                future.set_result(result)


class InlineConnection(aiosqlite.Connection):
    """aiosqlite's connection, run on the calling thread (see the module docstring)."""

    def __init__(self, connector: Callable[[], sqlite3.Connection]) -> None:
        super().__init__(connector, iter_chunk_size=64)
        self._tx = _RunNow()  # type: ignore[assignment]

    def __await__(self) -> Generator[Any, None, aiosqlite.Connection]:
        return self._connect().__await__()  # opened here; no thread to start


def inline_creator(path: str) -> Callable[[], Awaitable[aiosqlite.Connection]]:
    """The ``async_creator`` for ``create_async_engine``: a new inline connection to ``path``."""

    async def create() -> aiosqlite.Connection:
        return await InlineConnection(
            lambda: sqlite3.connect(path, timeout=BUSY_SECONDS, check_same_thread=False))

    return create
