"""Nothing grows forever: what the database no longer needs, deleted on a schedule.

* The journal of a finished table. Its record is final (written with the finishing change, so
  ``record_version == version``), so the journalled actions and events add nothing a replay, a resume or a
  profile needs; they are kept ``journal_keep_seconds`` after the finish for clients that reconnect and
  then go. A table whose record is behind its version (abandoned mid-deal) keeps its journal: the record
  alone would lose its last actions.
* Dead workers' rows (cluster mode): a lapsed lease never comes back (a worker joins again under a new id),
  and a table whose owner's row is gone counts as an orphan like one whose owner's lease lapsed.
* Old chat: lines older than ``chat_keep_days``, except a reported line whose report is not handled yet
  (a moderator must still be able to read it); handled reports of pruned lines go with them.

Expired sessions are deleted by the hub's session sweep, which also closes their sockets. Every statement
is idempotent, so workers of a cluster may prune at the same time.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import CursorResult, Delete, delete, exists, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from ..config import Settings
from .models import ChatMessage, ChatReport, Event, Table, Worker, utcnow

log = logging.getLogger("estimation.pruning")

#: Finished tables whose journals one statement deletes: a bounded transaction, however far behind it is.
#: Small, because on SQLite the statement runs on the event loop's thread and holds the one writer: 20
#: micro games are some 5,600 journal rows, about 60 ms (bench/pruning.py measures the slowest batch).
BATCH = 20
#: Seconds between two batches: the tables in play get the loop and the writer in between.
PAUSE = 0.01


async def _deleted(db: AsyncSession, statement: Delete) -> int:
    """Rows a DELETE removed (a DML statement's result is a cursor result: it has a row count)."""
    return cast(CursorResult[Any], await db.execute(statement)).rowcount or 0


@dataclass(frozen=True)
class Pruned:
    """Rows deleted by one pass, for the log and the tests."""

    events: int = 0
    workers: int = 0
    chat_messages: int = 0
    chat_reports: int = 0
    #: The longest journal batch's transaction, in seconds (what a table's commit may have waited).
    slowest_batch: float = 0.0


#: What runs between two journal batches: the journal's :meth:`~..table.journal.Journal.settle_wal`, which on
#: SQLite checkpoints the batch's deletions and waits, so that the next batch's writes start the WAL file
#: again from its beginning (without it a backlog's batches grew the file to some ten times the database).
BetweenBatches = Callable[[], Awaitable[None]]


async def prune(session: async_sessionmaker[AsyncSession], settings: Settings,
                now: dt.datetime | None = None, between: BetweenBatches | None = None) -> Pruned:
    """One pass over everything that may go; ``now`` is for tests (naive UTC, as the models store it)."""
    now = now or utcnow()
    events = 0
    slowest = 0.0
    journal_before = now - dt.timedelta(seconds=settings.journal_keep_seconds)
    after = 0  # the batches walk the tables by id: each looks only past the last one's
    while True:
        began = time.perf_counter()
        async with session() as db, db.begin():
            tables = (await db.scalars(
                select(Table.id).where(
                    Table.id > after,
                    Table.status.in_(("finished", "abandoned")), Table.finished_at < journal_before,
                    Table.record_version == Table.version,
                    exists().where(Event.table_id == Table.id))
                .order_by(Table.id).limit(BATCH))).all()
            if tables:
                events += await _deleted(db, delete(Event).where(Event.table_id.in_(tables)))
        slowest = max(slowest, time.perf_counter() - began)
        if not tables:
            break
        after = tables[-1]
        if between is not None:
            await between()
        await asyncio.sleep(PAUSE)
    async with session() as db, db.begin():
        # Worker rows carry timezone-aware times (the cluster's SQL uses now()).
        worker_before = dt.datetime.now(dt.UTC) - dt.timedelta(seconds=settings.worker_rows_keep_seconds)
        workers = await _deleted(db, delete(Worker).where(Worker.expires_at < worker_before))
        chat_before = now - dt.timedelta(days=settings.chat_keep_days)
        old = select(ChatMessage.id).where(ChatMessage.created_at < chat_before)
        open_report = exists().where(ChatReport.message_id == ChatMessage.id, ChatReport.resolved.is_(False))
        reports = await _deleted(db, delete(ChatReport).where(
            ChatReport.resolved.is_(True), ChatReport.message_id.in_(old)))
        messages = await _deleted(db, delete(ChatMessage).where(
            ChatMessage.created_at < chat_before, ~open_report))
    return Pruned(events=events, workers=workers, chat_messages=messages, chat_reports=reports,
                  slowest_batch=slowest)


class Pruner:
    """:func:`prune` every ``prune_seconds`` (0: never), from the server's start to its stop."""

    def __init__(self, session: async_sessionmaker[AsyncSession], settings: Settings,
                 between: BetweenBatches | None = None) -> None:
        self.session = session
        self.settings = settings
        self.between = between
        self.task: asyncio.Task[None] | None = None
        self.last: Pruned | None = None

    def start(self) -> None:
        if self.settings.prune_seconds > 0:
            self.task = asyncio.create_task(self._forever())

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task

    async def _forever(self) -> None:
        while True:
            try:
                self.last = await prune(self.session, self.settings, between=self.between)
                if self.last.events or self.last.workers or self.last.chat_messages:
                    log.info("pruned %s", self.last)
            except Exception:
                log.exception("pruning failed")
            await asyncio.sleep(self.settings.prune_seconds)
