"""Group commit of plain actions: the hot path of persistence.

Most commits are one action at one table: one ``events`` row (the public events, the action id, the action
text) and the table's new version, nothing else. The :class:`~.store.SqlTableStore` hands these to the
process's :class:`Journal` (:meth:`Journal.submit`), which writes everything that is waiting in one
transaction and then resolves each row's future; the table's commit, which awaits it, goes on to publish.
While a transaction is in flight the next batch gathers, so under load many tables share a commit and at
low load a batch is one action with no added wait.

On SQLite the batch is written on the event loop's own thread with the standard library's ``sqlite3``
(:class:`_SqliteWriter`); on PostgreSQL it is one statement on the journal's own asyncpg connection
(:class:`_PostgresWriter`); any other database goes through SQLAlchemy.

If a batch fails, each of its rows is retried in a transaction of its own, so one bad row (a table that
another process also thinks it owns: the ``events`` primary key refuses its version) fails only its own
table. The action that completes a deal carries the game's record (with the seed) as a snapshot in its row;
every other commit (start, joins, the end) is a transaction of the table's own (``SqlTableStore``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sqlite3
import time
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, cast

import sqlalchemy as sa
from sqlalchemy import bindparam, insert, update
from sqlalchemy.ext.asyncio import AsyncEngine

from ..storage.database import WAL_LIMIT_BYTES
from ..storage.models import Event, Table

log = logging.getLogger("estimation.server")

#: How long the journal keeps trying when another SQLite writer holds the lock (SQLite's own busy timeout
#: for the other connections is the same).
SQLITE_BUSY_SECONDS = 30.0

_EVENTS = cast(sa.Table, Event.__table__)
_TABLES = cast(sa.Table, Table.__table__)
_INSERT_EVENTS = insert(_EVENTS)
_BUMP_VERSIONS = (update(_TABLES).where(_TABLES.c.id == bindparam("tid"))
                  .values(version=bindparam("new_version")))
_SNAPSHOTS = (update(_TABLES).where(_TABLES.c.id == bindparam("tid"))
              .values(version=bindparam("new_version"), record=bindparam("record"),
                      record_version=bindparam("new_version")))


@dataclass(slots=True)
class JournalRow:
    """One version of one table: its ``events`` row and the table's new version; with ``record``, also the
    record snapshot (the action that completes a deal), so that it too takes the group commit."""

    table_id: int
    version: int
    seat: int | None
    action_id: str | None
    action: str | None
    data: str
    record: str | None = None
    #: Cluster mode: the worker that writes and the epoch it owns the table at; the PostgreSQL batch writes
    #: the row only while they are the table's owner and epoch (``ownership.FENCE``), else the row's future
    #: fails with :class:`Refused`.
    owner: int | None = None
    epoch: int | None = None


class Refused(RuntimeError):
    """The fence refused this row: its worker no longer owns the table at the row's epoch."""


class _SqliteWriter:
    """The journal's SQLite connection, written on the event loop's thread, and a checkpoint thread.

    A batch is a few rows (BEGIN, two ``executemany``, COMMIT: well under a millisecond, and with
    ``synchronous=NORMAL`` in WAL mode a commit is a write to the WAL, not an ``fsync``), so it is written
    right on the loop's thread: handing it to a thread costs more than the work, because the thread must
    take the GIL back from a busy loop at every statement (CPython hands it over every 5 ms), which made a
    batch take 5 to 50 ms at 200 to 500 tables. Two things could make the loop wait, and neither is allowed
    to:

    * Another connection holding SQLite's write lock. The process's other connections run their statements
      inline too (:mod:`.sqlite_inline`), so a transaction of theirs holds the lock only within a turn of
      the loop and the journal cannot meet it; another process can. The loop's connection has no busy
      timeout: ``BEGIN IMMEDIATE`` fails at once, and the journal tries again a moment later
      (:meth:`Journal._write`), leaving the loop free meanwhile. (Not a thread that waits for the lock:
      under load it takes seconds a batch, and every table waits behind it.)
    * Checkpoints (copying the WAL into the database file, with an ``fsync``). Every connection of the
      process has ``wal_autocheckpoint`` off; every ``CHECKPOINT_ROWS`` commits (journal rows and the other
      connections' transactions) a ``PASSIVE`` checkpoint runs on the ``checkpointer`` thread's
      connection, which never blocks a writer.
    """

    INSERT = ("INSERT INTO events (table_id, version, seat, action_id, action, data) "
              "VALUES (?, ?, ?, ?, ?, ?)")
    BUMP = "UPDATE tables SET version = ? WHERE id = ?"
    SNAPSHOT = "UPDATE tables SET version = ?, record = ?, record_version = ? WHERE id = ?"
    #: Rows between background checkpoints (SQLite's own default is every 1000 pages of WAL).
    CHECKPOINT_ROWS = 2000
    #: The WAL's size (bytes) above which the journal settles it (:meth:`Journal._run`); every connection
    #: has it as ``journal_size_limit``, the size SQLite cuts the file back to when it starts it again.
    WAL_LIMIT = WAL_LIMIT_BYTES
    #: Seconds between two settlings at most: a reader that keeps old frames in use can defeat one, and a
    #: settling pauses the journal's writes for a checkpoint's length.
    SETTLE_EVERY = 5.0

    def __init__(self, path: str) -> None:
        self.path = path
        self.loop_conn: sqlite3.Connection | None = None
        self.checkpointer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="journal-checkpoint")
        self.checkpoint: asyncio.Future[None] | None = None
        self.since_checkpoint = 0
        #: Times ``BEGIN IMMEDIATE`` found another writer holding the lock (the batch was tried again).
        self.busy = 0
        self.checkpoints = 0
        #: Times the WAL was over ``WAL_LIMIT`` and the journal paused for a checkpoint to settle it.
        self.settlings = 0
        self.looked_at = float("-inf")

    def _connect(self, timeout: float) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=timeout, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute(f"PRAGMA journal_size_limit={self.WAL_LIMIT}")
        return conn

    def wal_bytes(self) -> int:
        """The WAL file's size now (0 when there is none)."""
        try:
            return os.stat(f"{self.path}-wal").st_size
        except OSError:
            return 0

    def needs_settling(self) -> bool:
        """Whether the WAL has outgrown ``WAL_LIMIT`` (looked at once per ``SETTLE_EVERY`` at most).

        SQLite starts the WAL again from its beginning only when a writer begins while every frame in it has
        been copied to the database. Background checkpoints never get there while the journal keeps
        writing: each copies what was there when it began, and more has come by its end. Without a pause
        the file grew for as long as the server wrote (7.4 GB in 11 minutes of bench/churn.py)."""
        now = time.monotonic()
        if now - self.looked_at < self.SETTLE_EVERY:
            return False
        self.looked_at = now
        return self.wal_bytes() > self.WAL_LIMIT

    def _statements(self, conn: sqlite3.Connection, rows: list[JournalRow]) -> None:
        conn.executemany(self.INSERT, [(r.table_id, r.version, r.seat, r.action_id, r.action, r.data)
                                       for r in rows])
        conn.executemany(self.BUMP, [(r.version, r.table_id) for r in rows if r.record is None])
        snapshots = [(r.version, r.record, r.version, r.table_id) for r in rows if r.record is not None]
        if snapshots:
            conn.executemany(self.SNAPSHOT, snapshots)

    def write_on_loop(self, rows: list[JournalRow]) -> bool:
        """Write ``rows`` now, on this thread; False (nothing written) if another writer holds the lock."""
        if self.loop_conn is None:
            self.loop_conn = self._connect(timeout=0.0)
            self.loop_conn.execute("PRAGMA wal_autocheckpoint=0")
        try:
            self.loop_conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                return False
            raise
        try:
            self._statements(self.loop_conn, rows)
            self.loop_conn.execute("COMMIT")
        except BaseException:
            self.loop_conn.execute("ROLLBACK")
            raise
        return True

    def written(self, count: int) -> None:
        """Count committed rows; start a background checkpoint when enough have gathered."""
        self.since_checkpoint += count
        if self.since_checkpoint < self.CHECKPOINT_ROWS or self.checkpoint is not None:
            return
        self.since_checkpoint = 0
        self.checkpoint = asyncio.get_running_loop().run_in_executor(self.checkpointer, self._checkpoint)
        self.checkpoint.add_done_callback(self._checkpointed)

    async def checkpoint_now(self) -> None:
        """A ``PASSIVE`` checkpoint of everything committed so far, waited for (after the one running).

        For a writer of many pages in a row (a pruning pass): its next transaction then finds the WAL fully
        copied and SQLite starts the file again from its beginning, instead of appending past frames that a
        checkpoint still running had not reached yet (the file never shrinks: its high-water mark stays)."""
        if self.checkpoint is not None:
            with contextlib.suppress(Exception):
                await self.checkpoint
        self.since_checkpoint = 0
        self.checkpoint = asyncio.get_running_loop().run_in_executor(self.checkpointer, self._checkpoint)
        self.checkpoint.add_done_callback(self._checkpointed)
        with contextlib.suppress(Exception):  # a failure is logged by _checkpointed
            await self.checkpoint

    def _checkpoint(self) -> None:
        conn = self._connect(timeout=0.0)
        try:
            conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        finally:
            conn.close()

    def _checkpointed(self, future: asyncio.Future[None]) -> None:
        self.checkpoint = None
        self.checkpoints += 1
        if not future.cancelled() and future.exception() is not None:
            log.warning("journal checkpoint failed: %s", future.exception())

    async def close(self) -> None:
        if self.checkpoint is not None:
            with contextlib.suppress(Exception):
                await self.checkpoint

        self.checkpointer.shutdown()
        if self.loop_conn is not None:
            self.loop_conn.close()
            self.loop_conn = None


class _PostgresWriter:
    """The journal's own asyncpg connection: a batch is ONE statement, so one round trip.

    Through SQLAlchemy a batch was a pool checkout (with its pre-ping), BEGIN, the INSERT, the UPDATE and
    COMMIT: five round trips, each a turn of an event loop that is busy with thousands of sockets, which made
    a batch take 50 ms at 500 tables. Here the rows go as arrays, ``unnest`` turns them back into rows, and
    a data-modifying CTE inserts the events while the outer ``UPDATE`` moves the versions (and, for a row
    with a record, the snapshot). One statement outside a transaction block is its own transaction, so it
    is committed (and, with PostgreSQL's default ``synchronous_commit``, flushed) when ``execute`` returns.
    """

    BATCH = """
        WITH new_events AS (
            INSERT INTO events (table_id, version, seat, action_id, action, data)
            SELECT * FROM unnest($1::integer[], $2::integer[], $3::integer[], $4::varchar[], $5::varchar[],
                                 $6::text[])
        )
        UPDATE tables AS t
           SET version = v.version,
               record = COALESCE(v.record, t.record),
               record_version = CASE WHEN v.record IS NULL THEN t.record_version ELSE v.version END
          FROM unnest($1::integer[], $2::integer[], $7::text[]) AS v(id, version, record)
         WHERE t.id = v.id
    """

    #: Cluster mode: the same statement, but a row is written only while its worker owns the table at the
    #: row's epoch with a live lease (``ownership.FENCE``, the ownership row locked FOR SHARE so that a claim
    #: waits for this statement); the tables written come back, the others were refused.
    FENCED_BATCH = """
        WITH v AS (
            SELECT * FROM unnest($1::integer[], $2::integer[], $3::integer[], $4::varchar[], $5::varchar[],
                                 $6::text[], $7::text[], $8::bigint[], $9::bigint[])
                   AS v(table_id, version, seat, action_id, action, data, record, owner, epoch)
        ), ok AS (
            SELECT v.* FROM v
              JOIN table_owners o ON o.table_id = v.table_id AND o.owner = v.owner AND o.epoch = v.epoch
              JOIN workers w ON w.id = v.owner AND w.expires_at > now()
               FOR SHARE OF o
        ), new_events AS (
            INSERT INTO events (table_id, version, seat, action_id, action, data)
            SELECT table_id, version, seat, action_id, action, data FROM ok
        )
        UPDATE tables AS t
           SET version = ok.version,
               record = COALESCE(ok.record, t.record),
               record_version = CASE WHEN ok.record IS NULL THEN t.record_version ELSE ok.version END
          FROM ok
         WHERE t.id = ok.table_id
        RETURNING t.id
    """

    def __init__(self, url: sa.URL) -> None:
        self.dsn = url.set(drivername="postgresql").render_as_string(hide_password=False)
        self.conn: Any = None

    async def write(self, rows: list[JournalRow]) -> set[int]:
        """Write ``rows`` in one statement; the indexes of the rows the fence refused (cluster mode)."""
        import asyncpg  # type: ignore[import-untyped]  # the PostgreSQL driver of the server extra; only needed on PostgreSQL

        if self.conn is None or self.conn.is_closed():
            self.conn = await asyncpg.connect(self.dsn)
        columns = ([r.table_id for r in rows], [r.version for r in rows], [r.seat for r in rows],
                   [r.action_id for r in rows], [r.action for r in rows], [r.data for r in rows],
                   [r.record for r in rows])
        try:
            if all(r.owner is None for r in rows):
                await self.conn.execute(self.BATCH, *columns)
                return set()
            written = {int(r["id"]) for r in await self.conn.fetch(
                self.FENCED_BATCH, *columns, [r.owner for r in rows], [r.epoch for r in rows])}
            return {i for i, r in enumerate(rows) if r.table_id not in written}
        except (OSError, asyncpg.exceptions.ConnectionDoesNotExistError,
                asyncpg.exceptions.InterfaceError):
            # A broken connection: drop it, so that the retry (the journal retries each row) reconnects.
            await self.close()
            raise

    async def close(self) -> None:
        if self.conn is not None:
            with contextlib.suppress(Exception):
                await self.conn.close()
            self.conn = None


@dataclass(slots=True)
class TurnStats:
    """How the tables' own transactions fared in the writer's turn (SQLite): a turn held across turns of
    the loop makes every later join, start and game end wait, so the health endpoint shows it."""

    count: int = 0
    wait_seconds: float = 0.0
    wait_max: float = 0.0
    hold_max: float = 0.0
    #: Turns held longer than ``SLOW_TURN`` (a transaction that waited inside its turn), and waits for a
    #: turn longer than ``SLOW_WAIT``.
    slow: int = 0
    slow_waits: int = 0

    def taken(self, waited: float, held: float) -> None:
        self.count += 1
        self.wait_seconds += waited
        self.wait_max = max(self.wait_max, waited)
        self.hold_max = max(self.hold_max, held)
        if held > SLOW_TURN:
            self.slow += 1
        if waited > SLOW_WAIT:
            self.slow_waits += 1

    def stats(self) -> dict[str, Any]:
        return {"writer_turns": self.count, "writer_wait_seconds": round(self.wait_seconds, 6),
                "writer_wait_max_ms": round(1000 * self.wait_max, 3),
                "writer_hold_max_ms": round(1000 * self.hold_max, 3), "writer_slow_turns": self.slow,
                "writer_slow_waits": self.slow_waits}


#: A writer's turn held longer than this, or waited for longer than that (seconds), is counted in the
#: health figures.
SLOW_TURN = 0.05
SLOW_WAIT = 0.1
#: A journal batch that took longer than this (seconds) is counted in the health figures.
SLOW_BATCH = 0.02


class Journal:
    def __init__(self, engine: AsyncEngine, write_lock: asyncio.Lock | None) -> None:
        self.engine = engine
        self.write_lock = write_lock
        path = engine.url.database if engine.dialect.name == "sqlite" else None
        self._sqlite = _SqliteWriter(path) if path and path != ":memory:" else None
        if self._sqlite is not None:
            # The lobby's and the tables' own commits grow the WAL as well (their connections have
            # automatic checkpoints off, see ``db.make_engine``): count them towards the next checkpoint.
            sa.event.listen(engine.sync_engine, "commit", self._counted_commit)
        self._postgres = (_PostgresWriter(engine.url) if engine.dialect.name == "postgresql"
                          and engine.url.drivername == "postgresql+asyncpg" else None)
        self._waiting: list[tuple[JournalRow, asyncio.Future[None]]] = []
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._closing = False
        self.batches = 0
        self.rows = 0
        self.write_seconds = 0.0
        #: The longest batch, and the batches over ``SLOW_BATCH``: every plain action of every table that
        #: arrives while a batch is written waits for it, so a slow one is everyone's latency.
        self.write_max = 0.0
        self.slow_batches = 0
        self._slow_logged = -1.0
        self.turns = TurnStats()

    async def settle_wal(self) -> None:
        """SQLite: checkpoint what is committed and wait for it (see :meth:`_SqliteWriter.checkpoint_now`);
        PostgreSQL manages its own WAL: nothing to do."""
        if self._sqlite is not None:
            await self._sqlite.checkpoint_now()

    def _counted_commit(self, _connection: Any) -> None:
        assert self._sqlite is not None
        self._sqlite.written(1)

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
            await self._sqlite.close()
        if self._postgres is not None:
            await self._postgres.close()

    def submit(self, row: JournalRow) -> asyncio.Future[None]:
        """Queue ``row`` for the next batch: a future resolved once the batch is committed, or holding the
        error if the row could not be committed."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.append((row, future))
        self._wake.set()
        return future

    @contextlib.asynccontextmanager
    async def writing(self) -> AsyncIterator[None]:
        """SQLite has one writer at a time: the tables' own transactions take turns here instead of meeting
        each other in SQLite's busy handler, which would sleep on the loop's thread. (Their statements run
        inline, so a transaction with no other await between its writes finishes within one turn anyway;
        the turn keeps that true for one that does. The SQLite journal does not take it; see
        :meth:`_write`.) PostgreSQL needs no such turn (``write_lock`` is None).

        Nothing may wait while holding it: an ``asyncio.Lock`` is handed to the next waiter in a later turn
        of the loop, so once a queue forms it moves one transaction per turn (30-50 ms at 500 tables) and
        stays formed while more arrive than that. ``TurnStats`` (in ``/api/health``) shows the waits."""
        if self.write_lock is None:
            yield
            return
        asked = time.perf_counter()
        async with self.write_lock:
            taken = time.perf_counter()
            try:
                yield
            finally:
                self.turns.taken(taken - asked, time.perf_counter() - taken)

    async def _write(self, rows: list[JournalRow]) -> set[int]:
        """Write ``rows``; the indexes of those the fence refused (cluster mode: PostgreSQL only)."""
        if self._sqlite is not None:
            # Not in the ``writing`` turn: that orders the tables' own transactions, which may wait in it
            # across turns of the loop, while SQLite's lock is theirs only from their first write to their
            # commit, within one turn. Trying the lock directly never waits for them.
            waited, pause = 0.0, 0.001
            while not self._sqlite.write_on_loop(rows):
                self._sqlite.busy += 1
                if waited >= SQLITE_BUSY_SECONDS:
                    raise sqlite3.OperationalError(f"database is locked (waited {waited:.0f} s)")
                await asyncio.sleep(pause)
                waited += pause
                pause = min(pause * 2, 0.02)
            self._sqlite.written(len(rows))
            return set()
        if self._postgres is not None:
            return await self._postgres.write(rows)
        async with self.writing(), self.engine.begin() as conn:  # any other database: through SQLAlchemy
            await conn.execute(_INSERT_EVENTS, [
                {"table_id": r.table_id, "version": r.version, "seat": r.seat, "action_id": r.action_id,
                 "action": r.action, "data": r.data} for r in rows])
            bumps = [{"tid": r.table_id, "new_version": r.version} for r in rows if r.record is None]
            snapshots = [{"tid": r.table_id, "new_version": r.version, "record": r.record}
                         for r in rows if r.record is not None]
            if bumps:
                await conn.execute(_BUMP_VERSIONS, bumps)
            if snapshots:
                await conn.execute(_SNAPSHOTS, snapshots)
        return set()

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
                refused = await self._write([row for row, _ in batch]) or set()
            except Exception as exc:
                if len(batch) == 1:
                    log.exception("journal write failed (table %s)", batch[0][0].table_id)
                    _settle(batch[0][1], exc)
                    continue
                for row, future in batch:  # one bad row must not fail its neighbours: each alone
                    try:
                        alone = await self._write([row])
                    except Exception as one:
                        log.exception("journal write failed (table %s)", row.table_id)
                        _settle(future, one)
                    else:
                        _settle(future, _refused(row) if alone else None)
                continue
            took = time.perf_counter() - started
            self.batches += 1
            self.rows += len(batch)
            self.write_seconds += took
            self.write_max = max(self.write_max, took)
            if took > SLOW_BATCH:
                self.slow_batches += 1
                if started - self._slow_logged > 1.0:  # a line a second at most: a slow disk is not a flood
                    self._slow_logged = started
                    log.warning("journal batch of %d rows took %.0f ms", len(batch), 1000 * took)
            for i, (row, future) in enumerate(batch):
                _settle(future, _refused(row) if i in refused else None)
            if self._sqlite is not None and self._sqlite.needs_settling():
                # Pause the journal (the loop goes on; rows wait in the next batch) until a checkpoint has
                # copied the whole WAL, so that the next batch starts the file again from its beginning.
                self._sqlite.settlings += 1
                await self._sqlite.checkpoint_now()
            self._wake.set()  # look again: rows may have arrived while this batch was written

    def stats(self) -> dict[str, Any]:
        out: dict[str, Any] = {"journal_batches": self.batches, "journal_rows": self.rows,
                               "journal_write_seconds": round(self.write_seconds, 6),
                               "journal_write_max_ms": round(1000 * self.write_max, 3),
                               "journal_slow_batches": self.slow_batches}
        if self._sqlite is not None:
            out["journal_busy"] = self._sqlite.busy
            out["journal_checkpoints"] = self._sqlite.checkpoints
            out["journal_wal_settlings"] = self._sqlite.settlings
            out.update(self.turns.stats())
        return out


def _refused(row: JournalRow) -> Refused:
    log.warning("table %s: write of version %s refused: worker %s no longer owns it at epoch %s",
                row.table_id, row.version, row.owner, row.epoch)
    return Refused(f"table {row.table_id}: epoch {row.epoch} of worker {row.owner} is no longer the owner's")


def _settle(future: asyncio.Future[None], exc: BaseException | None) -> None:
    if future.done():
        return
    if exc is None:
        future.set_result(None)
    else:
        future.set_exception(exc)
