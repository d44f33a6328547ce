"""Group commit of plain actions: the hot path of persistence.

Most commits are one action at one table: one ``events`` row (the public events, the action id, the action
text) and the table's new version, nothing else. Tables hand these to the process's :class:`Journal`, which
writes everything that is waiting in one transaction (one multi-row ``INSERT`` and one ``executemany``
``UPDATE``) and then resolves each table's future; a table acks and broadcasts only after that. While a
transaction is in flight the next batch gathers, so under load many tables share a commit and at low load
a batch is one action with no added wait.

On SQLite the batch is written by one thread of the journal's own with the standard library's ``sqlite3``:
one hand-over to that thread per batch, where SQLAlchemy over aiosqlite would hand each statement (begin,
insert, update, commit) to a connection thread and back. On PostgreSQL it goes through SQLAlchemy (asyncpg
is natively async).

If a batch fails, each of its rows is retried in a transaction of its own, so one bad row (a table that
another process also thinks it owns: the ``events`` primary key refuses its version) fails only its own
table. The game's record is not written here: tables write it, with the seed, as a snapshot on their other
commits (start, deal boundaries, the end), see ``TableRuntime._commit``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import time
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, cast

import sqlalchemy as sa
from sqlalchemy import bindparam, insert, update
from sqlalchemy.ext.asyncio import AsyncEngine

from .models import Event, Table

log = logging.getLogger("estimation.server")

_EVENTS = cast(sa.Table, Event.__table__)
_TABLES = cast(sa.Table, Table.__table__)
_INSERT_EVENTS = insert(_EVENTS)
_BUMP_VERSIONS = (update(_TABLES).where(_TABLES.c.id == bindparam("tid"))
                  .values(version=bindparam("new_version")))


@dataclass(slots=True)
class JournalRow:
    table_id: int
    version: int
    seat: int | None
    action_id: str | None
    action: str | None
    data: str


class _SqliteWriter:
    """The journal's SQLite connection, used only from its one thread."""

    INSERT = ("INSERT INTO events (table_id, version, seat, action_id, action, data) "
              "VALUES (?, ?, ?, ?, ?, ?)")
    BUMP = "UPDATE tables SET version = ? WHERE id = ?"

    def __init__(self, path: str) -> None:
        self.path = path
        self.conn: sqlite3.Connection | None = None
        self.thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="journal")

    def write(self, rows: list[JournalRow]) -> None:
        if self.conn is None:
            conn = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA foreign_keys=ON")
            self.conn = conn
        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.executemany(self.INSERT, [(r.table_id, r.version, r.seat, r.action_id, r.action, r.data)
                                           for r in rows])
            conn.executemany(self.BUMP, [(r.version, r.table_id) for r in rows])
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def close(self) -> None:
        def shut() -> None:
            if self.conn is not None:
                self.conn.close()
                self.conn = None

        self.thread.submit(shut).result()
        self.thread.shutdown()


class Journal:
    def __init__(self, engine: AsyncEngine, write_lock: asyncio.Lock | None) -> None:
        self.engine = engine
        self.write_lock = write_lock
        path = engine.url.database if engine.dialect.name == "sqlite" else None
        self._sqlite = _SqliteWriter(path) if path and path != ":memory:" else None
        self._waiting: list[tuple[JournalRow, asyncio.Future[None]]] = []
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._closing = False
        self.batches = 0
        self.rows = 0
        self.write_seconds = 0.0

    def start(self) -> None:
        self._closing = False
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        """Write what is waiting (and what is in flight), then stop."""
        if self._task is None:
            return
        self._closing = True
        self._wake.set()
        await self._task
        self._task = None
        if self._sqlite is not None:
            self._sqlite.close()

    async def append(self, row: JournalRow) -> None:
        """Return once ``row`` is committed; raise if it could not be."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.append((row, future))
        self._wake.set()
        await future

    @contextlib.asynccontextmanager
    async def writing(self) -> AsyncIterator[None]:
        """SQLite has one writer at a time: this process's writers take turns here instead of meeting in
        SQLite's busy handler, which sleeps. PostgreSQL needs no such turn (``write_lock`` is None)."""
        if self.write_lock is None:
            yield
        else:
            async with self.write_lock:
                yield

    async def _write(self, rows: list[JournalRow]) -> None:
        if self._sqlite is not None:
            async with self.writing():
                loop = asyncio.get_running_loop()
                await loop.run_in_executor(self._sqlite.thread, self._sqlite.write, rows)
            return
        async with self.writing(), self.engine.begin() as conn:
            await conn.execute(_INSERT_EVENTS, [
                {"table_id": r.table_id, "version": r.version, "seat": r.seat, "action_id": r.action_id,
                 "action": r.action, "data": r.data} for r in rows])
            await conn.execute(_BUMP_VERSIONS, [{"tid": r.table_id, "new_version": r.version} for r in rows])

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            batch, self._waiting = self._waiting, []
            if not batch:
                if self._closing:
                    return
                continue
            started = time.perf_counter()
            try:
                await self._write([row for row, _ in batch])
            except Exception as exc:
                if len(batch) == 1:
                    log.exception("journal write failed (table %s)", batch[0][0].table_id)
                    _settle(batch[0][1], exc)
                    continue
                for row, future in batch:  # one bad row must not fail its neighbours: each on its own
                    try:
                        await self._write([row])
                    except Exception as one:
                        log.exception("journal write failed (table %s)", row.table_id)
                        _settle(future, one)
                    else:
                        _settle(future, None)
                continue
            self.batches += 1
            self.rows += len(batch)
            self.write_seconds += time.perf_counter() - started
            for _, future in batch:
                _settle(future, None)
            self._wake.set()  # look again: rows may have arrived while this batch was written

    def stats(self) -> dict[str, Any]:
        return {"journal_batches": self.batches, "journal_rows": self.rows,
                "journal_write_seconds": round(self.write_seconds, 6)}


def _settle(future: asyncio.Future[None], exc: BaseException | None) -> None:
    if future.done():
        return
    if exc is None:
        future.set_result(None)
    else:
        future.set_exception(exc)
