"""Cluster mode: one owner per table, claimed in PostgreSQL with a lease and an epoch, and fenced writes.

Several `estimation serve --cluster` workers share one PostgreSQL database; a table lives in the memory of
exactly one of them, its *owner*. Two tables hold who owns what (migration 0007_ownership):

* ``workers(id, name, started_at, expires_at)``: one row per worker *life*. The worker's heartbeat moves
  ``expires_at`` forward every ``lease / 3`` seconds, but only while it is still in the future
  (``WHERE expires_at > now()``): a worker that stalled past its lease (a GC pause, SIGSTOP, a partition)
  finds its row lapsed, drops every table it held, and joins again under a *new* id. An id whose lease lapsed
  is never alive again.
* ``table_owners(table_id, owner, epoch, wanted_by, since)``: the owner's worker id (NULL once released) and
  the epoch, one more at every claim.

**Claim** (:meth:`Ownership.claim`): one ``INSERT ... ON CONFLICT DO UPDATE ... WHERE`` that takes the row if
nobody owns it, or its owner's lease has lapsed (or it is this worker's own), bumping the epoch; it returns
the new epoch, or nothing. A worker claims on demand, when a request for a table it does not hold arrives
(HAProxy sends a table's requests to one worker by a consistent hash of its id), and the hub's orphan sweep
claims playing tables whose owner died and that nobody asked for (so bots and clocks go on).

**Fencing**: every write of a table (the journal's batch statement and the store's own transaction, see
:mod:`.store` and :mod:`.journal`) carries the owner id and epoch it was made under, and the statement
itself joins ``table_owners`` on ``owner = me AND epoch = my epoch`` and ``workers`` on the owner's lease
being alive, locking the ownership row ``FOR SHARE``: a claim (which updates that row) waits for a write in
flight and a write waits for a claim in flight, so a write either happens before the table changes hands
(and the new owner loads it) or is refused. :data:`FENCE` is that condition. A refused write raises
:class:`~.store.Fenced`; the runtime then drops the table and tells its sockets it moved.

**Hand-over**: a request that reaches a worker for a table another *live* worker owns (a new table, made by
the worker a round-robin request reached; a worker joined and the hash ring moved; the old owner came back)
marks the row ``wanted_by``, notifies the owner (``pg_notify`` on its channel, ``estimation_worker_{id}``)
and is answered "moved, retry in a moment"; the owner releases the table between two changes (under the
table's lock; at its next heartbeat at the latest, if the notification was lost) and tells its sockets it
moved; they reconnect through the balancer and the asking worker claims it. Tables therefore move only when
they are claimed again.

Times are the database's (``now()``), never a worker's clock.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

log = logging.getLogger("estimation.server")

#: The fencing condition of a table's write, in SQL: true only while this worker owns ``table`` at ``epoch``
#: and its lease is alive. ``FOR SHARE`` makes a concurrent claim wait for the write (and the write for the
#: claim). The three placeholders are filled by the caller's own parameter style.
FENCE = ("EXISTS (SELECT 1 FROM table_owners o JOIN workers w ON w.id = o.owner "
         "WHERE o.table_id = {table} AND o.owner = {owner} AND o.epoch = {epoch} AND w.expires_at > now() "
         "FOR SHARE OF o)")

_REGISTER = """
    INSERT INTO workers (name, started_at, expires_at)
    VALUES ($1, now(), now() + make_interval(secs => $2)) RETURNING id
"""
# Alive or lapsed, and the tables other workers asked this one for. A lapsed lease is never moved on (the
# row is locked and left as it is either way).
_HEARTBEAT = """
    WITH beat AS (
        UPDATE workers
           SET expires_at = CASE WHEN expires_at > now() THEN now() + make_interval(secs => $2)
                                 ELSE expires_at END
         WHERE id = $1 RETURNING expires_at > now() AS alive)
    SELECT COALESCE((SELECT alive FROM beat), false) AS alive,
           ARRAY(SELECT table_id FROM table_owners WHERE owner = $1 AND wanted_by IS NOT NULL) AS wanted
"""
_CLAIM = """
    INSERT INTO table_owners AS o (table_id, owner, epoch, since)
    SELECT $1, $2, 1, now()
     WHERE EXISTS (SELECT 1 FROM tables WHERE id = $1)
       AND EXISTS (SELECT 1 FROM workers WHERE id = $2 AND expires_at > now())
    ON CONFLICT (table_id) DO UPDATE
       SET owner = EXCLUDED.owner, epoch = o.epoch + 1, wanted_by = NULL, since = now()
     WHERE o.owner IS NULL OR o.owner = EXCLUDED.owner
        OR NOT EXISTS (SELECT 1 FROM workers w WHERE w.id = o.owner AND w.expires_at > now())
    RETURNING epoch
"""
# Why a claim got nothing: no such table, or a live owner. Then ask it for the table: the row's mark (seen
# at its next heartbeat) and a notification on its own channel (at once); and say how long its lease has
# left.
_WANT = """
    WITH asked AS (
        UPDATE table_owners SET wanted_by = $2
         WHERE table_id = $1 AND owner IS DISTINCT FROM $2 RETURNING owner)
    SELECT EXISTS (SELECT 1 FROM tables WHERE id = $1) AS exists,
           (SELECT EXTRACT(EPOCH FROM w.expires_at - now())::float8
              FROM asked JOIN workers w ON w.id = asked.owner) AS lease_left,
           (SELECT count(pg_notify('estimation_worker_' || asked.owner, $1::text)) FROM asked
             WHERE asked.owner IS NOT NULL) AS told
"""
_RELEASE = """
    UPDATE table_owners SET owner = NULL, wanted_by = NULL, since = now()
     WHERE table_id = $1 AND owner = $2 AND epoch = $3
"""
# Playing tables whose owner is gone (or that nobody ever claimed), past a grace period that leaves them to
# a client's on-demand claim first.
_ORPHANS = """
    SELECT t.id FROM tables t
      LEFT JOIN table_owners o ON o.table_id = t.id
      LEFT JOIN workers w ON w.id = o.owner
     WHERE t.status = 'playing'
       AND (o.table_id IS NULL
            OR (o.owner IS NULL AND o.since < now() - make_interval(secs => $1))
            OR (o.owner IS NOT NULL
                AND COALESCE(w.expires_at, '-infinity') < now() - make_interval(secs => $1)))
     ORDER BY random() LIMIT $2
"""
_RETIRE = "UPDATE workers SET expires_at = now() WHERE id = $1 AND expires_at > now()"

# A competition's owner (its ticker, its stages' seating): claimed as a table is, but never asked for by a
# client, so never handed over while its owner lives. A claim that finds a live owner gets nothing.
_CLAIM_COMPETITION = """
    INSERT INTO competition_owners AS o (competition_id, owner, epoch, since)
    SELECT $1, $2, 1, now()
     WHERE EXISTS (SELECT 1 FROM competitions WHERE id = $1)
       AND EXISTS (SELECT 1 FROM workers WHERE id = $2 AND expires_at > now())
    ON CONFLICT (competition_id) DO UPDATE
       SET owner = EXCLUDED.owner, epoch = o.epoch + 1, since = now()
     WHERE o.owner IS NULL OR o.owner = EXCLUDED.owner
        OR NOT EXISTS (SELECT 1 FROM workers w WHERE w.id = o.owner AND w.expires_at > now())
    RETURNING epoch
"""
_RELEASE_COMPETITION = """
    UPDATE competition_owners SET owner = NULL, since = now()
     WHERE competition_id = $1 AND owner = $2 AND epoch = $3
"""
#: The fencing condition of a competition's write (a stage's move, a table's place in it), in SQL, as
#: :data:`FENCE` for a table's: true only while this worker owns ``competition`` at ``epoch`` with its
#: lease alive; a claim waits for the write in flight.
COMPETITION_FENCE = (
    "EXISTS (SELECT 1 FROM competition_owners o JOIN workers w ON w.id = o.owner "
    "WHERE o.competition_id = {competition} AND o.owner = {owner} AND o.epoch = {epoch} "
    "AND w.expires_at > now() FOR SHARE OF o)")


@dataclass(frozen=True, slots=True)
class Busy:
    """A claim refused: another live worker owns the table (it has been asked to hand it over)."""

    retry_seconds: float


def postgres_dsn(database_url: str) -> str:
    """asyncpg's DSN for a ``postgresql+asyncpg://`` URL."""
    return sa.make_url(database_url).set(drivername="postgresql").render_as_string(hide_password=False)


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


class Ownership:
    """This worker's lease, the tables it owns (id -> epoch), and the claims, releases and heartbeats.

    The hub gives two callbacks: ``on_lapse()`` when this worker's lease lapsed (every table must be dropped
    at once: others may have claimed them), and ``on_wanted(ids)`` with the owned tables other workers were
    asked for. Its figures go to the metrics (:mod:`.metrics`) through two more: ``changed(change, n)``
    with ``claimed``, ``released``, ``lost`` or ``refused`` (a claim of a live worker's table), and
    ``fenced()`` for each write the fence refused."""

    def __init__(self, database_url: str, lease: float, name: str | None = None, *,
                 changed: Callable[[str, int], None] | None = None,
                 fenced: Callable[[], None] | None = None) -> None:
        if not database_url.startswith("postgresql+asyncpg://"):
            raise ValueError("cluster mode needs PostgreSQL (a postgresql+asyncpg:// DATABASE_URL); "
                             "SQLite is one process's database")
        self.dsn = postgres_dsn(database_url)
        self.lease = float(lease)
        self.name = name or worker_name()
        #: This worker life's id in ``workers`` (a new one after a lapse).
        self.owner = 0
        #: The tables this worker owns now, with the epoch of its claim.
        self.epochs: dict[int, int] = {}
        #: The competitions this worker owns now, with the epoch of its claim.
        self.competition_epochs: dict[int, int] = {}
        self.on_lapse: Callable[[], Awaitable[None]] | None = None
        self.on_wanted: Callable[[list[int]], Coroutine[Any, Any, None]] | None = None
        self._pool: Any = None
        self._beat_conn: Any = None
        self._task: asyncio.Task[None] | None = None
        self._handing: set[asyncio.Task[None]] = set()
        self._channel: str | None = None
        self._last_beat = 0.0
        self._changed = changed
        self._fenced = fenced

    # --- the store's side -------------------------------------------------------------------------------
    def epoch(self, table_id: int) -> int | None:
        """The epoch this worker owns ``table_id`` at; None if it does not own it."""
        return self.epochs.get(table_id)

    def refused(self, table_id: int) -> None:
        """A write of ``table_id`` was refused by the fence: it is not ours any more."""
        if self._fenced is not None:
            self._fenced()
        if self.epochs.pop(table_id, None) is not None:
            self._count("lost")

    def _count(self, change: str, count: int = 1) -> None:
        if self._changed is not None:
            self._changed(change, count)

    # --- life -------------------------------------------------------------------------------------------
    async def start(self) -> None:
        import asyncpg  # type: ignore[import-untyped]  # the server extra's PostgreSQL driver

        self._pool = await asyncpg.create_pool(self.dsn, min_size=1, max_size=4)
        await self._connect_beat()
        await self._register()
        self._task = asyncio.create_task(self._beat_forever())

    async def stop(self) -> None:
        """Release every table and end this worker's lease at once, so others claim without waiting."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        for task in list(self._handing):
            task.cancel()
        with contextlib.suppress(Exception):
            for table_id, epoch in list(self.epochs.items()):
                await self._pool.execute(_RELEASE, table_id, self.owner, epoch)
            for competition_id, epoch in list(self.competition_epochs.items()):
                await self._pool.execute(_RELEASE_COMPETITION, competition_id, self.owner, epoch)
            await self._pool.execute(_RETIRE, self.owner)
        self.epochs.clear()
        self.competition_epochs.clear()
        for closing in (self._beat_conn, self._pool):
            if closing is not None:
                with contextlib.suppress(Exception):
                    await closing.close()
        self._beat_conn = self._pool = None

    async def _connect_beat(self) -> None:
        """The heartbeat's own connection, which also listens on this worker's channel."""
        import asyncpg

        if self._beat_conn is not None:
            with contextlib.suppress(Exception):
                await self._beat_conn.close()
        self._beat_conn = await asyncpg.connect(self.dsn)
        self._channel = None
        if self.owner:
            await self._listen()

    async def _listen(self) -> None:
        """Hear at once when another worker asks for one of this worker's tables (``_WANT`` notifies)."""
        if self._channel is not None:
            with contextlib.suppress(Exception):
                await self._beat_conn.remove_listener(self._channel, self._notified)
        self._channel = f"estimation_worker_{self.owner}"
        await self._beat_conn.add_listener(self._channel, self._notified)

    def _notified(self, _conn: Any, _pid: int, _channel: str, payload: str) -> None:
        with contextlib.suppress(ValueError):
            table_id = int(payload)
            if table_id in self.epochs:
                self._hand_over([table_id])

    def _hand_over(self, table_ids: list[int]) -> None:
        """The hub hands these tables over in a task of its own: never inside the heartbeat, which must not
        wait for a table's lock (a heartbeat held up past the lease loses every table)."""
        if self.on_wanted is not None:
            task = asyncio.get_running_loop().create_task(self.on_wanted(table_ids))
            self._handing.add(task)
            task.add_done_callback(self._handing.discard)

    async def _register(self) -> None:
        self.owner = int(await self._beat_conn.fetchval(_REGISTER, self.name, self.lease))
        self._last_beat = time.monotonic()
        await self._listen()
        log.info("cluster: worker %s joined as id %d (lease %.1f s)", self.name, self.owner, self.lease)

    @property
    def interval(self) -> float:
        return max(0.05, self.lease / 3)

    async def _beat_forever(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            try:
                await self.beat()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("cluster: heartbeat failed")
                if time.monotonic() - self._last_beat > self.lease:
                    # Whatever the database says now, our lease may have lapsed: stop being an owner.
                    await self._lapse()

    async def beat(self) -> None:
        """One heartbeat: move the lease on, or learn that it lapsed; hand over the tables asked for."""
        import asyncpg

        try:
            row = await self._beat_conn.fetchrow(_HEARTBEAT, self.owner, self.lease)
        except (OSError, asyncpg.exceptions.InterfaceError, asyncpg.exceptions.ConnectionDoesNotExistError):
            await self._connect_beat()
            row = await self._beat_conn.fetchrow(_HEARTBEAT, self.owner, self.lease)
        if not row["alive"]:
            await self._lapse()
            return
        self._last_beat = time.monotonic()
        wanted = [int(t) for t in row["wanted"] if int(t) in self.epochs]
        if wanted:
            self._hand_over(wanted)

    async def _lapse(self) -> None:
        self._count("lost", len(self.epochs))
        log.warning("cluster: worker %d's lease lapsed; dropping its %d tables and joining again",
                    self.owner, len(self.epochs))
        self.epochs.clear()
        self.competition_epochs.clear()
        if self.on_lapse is not None:
            await self.on_lapse()
        await self._register()

    # --- claims -------------------------------------------------------------------------------------
    async def claim(self, table_id: int) -> int | Busy | None:
        """Own ``table_id``: its new epoch; :class:`Busy` if a live worker owns it (now asked for it); None
        if there is no such table."""
        epoch = await self._pool.fetchval(_CLAIM, table_id, self.owner)
        if epoch is not None:
            self._count("claimed")
            self.epochs[table_id] = int(epoch)
            return int(epoch)
        row = await self._pool.fetchrow(_WANT, table_id, self.owner)
        if not row["exists"]:
            return None
        self._count("refused")
        left = row["lease_left"]
        if left is None:  # released meanwhile: claim again at once
            return Busy(0.05)
        # An owner that beat lately hands over at once (it was notified): retry soon. One that has not (it
        # may be dead) gives the table up when its lease runs out: retry about then.
        if float(left) > self.lease - 2 * self.interval:
            return Busy(0.15)
        return Busy(max(0.1, min(float(left) + 0.05, self.interval)))

    async def release(self, table_id: int) -> None:
        """Give ``table_id`` up (handed over, or evicted): anyone may claim it at once."""
        epoch = self.epochs.pop(table_id, None)
        if epoch is not None:
            self._count("released")
            await self._pool.execute(_RELEASE, table_id, self.owner, epoch)

    def forget(self, table_id: int) -> None:
        """No longer ours (refused, or dropped): forget the epoch without writing."""
        self.epochs.pop(table_id, None)

    async def orphans(self, limit: int) -> list[int]:
        """Playing tables nobody owns (their owner died more than a lease ago), at most ``limit``."""
        rows = await self._pool.fetch(_ORPHANS, self.lease, limit)
        return [int(r["id"]) for r in rows]

    async def claim_competition(self, competition_id: int) -> int | None:
        """Own ``competition_id`` (it has no live owner, or it is ours): its epoch; None if a live worker
        owns it (or there is no such competition)."""
        held = self.competition_epochs.get(competition_id)
        if held is not None:
            return held
        epoch = await self._pool.fetchval(_CLAIM_COMPETITION, competition_id, self.owner)
        if epoch is None:
            return None
        self.competition_epochs[competition_id] = int(epoch)  # not in the tables' counts (the metrics)
        return int(epoch)

    def competition_refused(self, competition_id: int) -> None:
        """A write of ``competition_id`` was refused by the fence: it is not ours any more."""
        if self._fenced is not None:
            self._fenced()
        self.competition_epochs.pop(competition_id, None)

    def adopt_created(self, table_id: int, epoch: int) -> None:
        """A table this worker created, with its ownership row written in the same transaction."""
        self.epochs[table_id] = epoch

    def stats(self) -> dict[str, Any]:
        """Gauges for the metrics (the counts of changes go to ``changed`` and ``fenced`` as they happen)."""
        return {"cluster_worker": self.owner, "cluster_tables_owned": len(self.epochs),
                "cluster_competitions_owned": len(self.competition_epochs)}
