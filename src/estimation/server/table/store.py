"""Where tables are kept: the :class:`TableStore` interface and its implementations.

A table's runtime asks three things of its store: commit a change at the version it started from
(:meth:`TableStore.commit`, refused with :class:`StaleVersion` if the table has moved on since, which is what
keeps a second owner from forking a table), load a table as it was last committed (:meth:`TableStore.load`),
and list tables by status (:meth:`TableStore.list`). How a change is written is the store's business:

* :class:`MemoryTableStore` keeps everything in dictionaries (tests, and a try-out without a database);
* :class:`SqlTableStore` writes to the database the hub's engine points at, SQLite or PostgreSQL: a *plain
  action* (one action, no seat, status or coin change) is a row for the :class:`~.journal.Journal`'s group
  commit (whose writer is SQLite's or PostgreSQL's own); anything else is a transaction of the table's own,
  with the coins its events move and, at a game's end, the history rows.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from dataclasses import dataclass, field
from typing import Any, Protocol

import sqlalchemy.exc
from sqlalchemy import select, text, update
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from ...actions import Action
from ...record import load_record
from ..cluster.ownership import FENCE
from ..jsontext import dumps
from ..storage import history
from ..storage.models import Event, Seat, Table, utcnow
from . import wallets
from .journal import Journal, JournalRow, Refused
from .reducer import Events, Rules, SeatState, TableError, TableState, coin_moves, leavers, pot_split


class StaleVersion(RuntimeError):
    """The table is no longer at the version a change started from: another process wrote it."""


class Fenced(StaleVersion):
    """Cluster mode: the write was refused because this worker no longer owns the table at the epoch it
    claimed it at (another worker claimed it, or this worker's lease lapsed); see :mod:`.ownership`."""


class TableMoved(TableError):
    """The table is (now) another worker's: the client reconnects through the balancer, which sends it to
    the owner (a socket gets a ``moved`` message, a REST request 503 with Retry-After)."""

    def __init__(self, table_id: int, retry_ms: int) -> None:
        super().__init__("table_moved", "this table is served by another worker now: reconnect", 503)
        self.table_id = table_id
        self.retry_ms = retry_ms

    def message_for_client(self) -> dict[str, Any]:
        return {"type": "moved", "table_id": self.table_id, "retry_ms": self.retry_ms,
                "message": self.message}


class Fence(Protocol):
    """Who this worker is and at which epoch it owns each table (:class:`~.ownership.Ownership`)."""

    owner: int

    def epoch(self, table_id: int) -> int | None: ...

    def refused(self, table_id: int) -> None: ...


@dataclass(frozen=True, slots=True)
class Change:
    """One committed step of a table: the table before and after, and the public events between."""

    table_id: int
    before: TableState
    after: TableState
    events: Events
    seat: int | None = None
    action_id: str | None = None
    #: The record with its seed, when this change writes a snapshot (always, for a change that is not a
    #: plain action).
    record: str | None = None

    @property
    def version(self) -> int:
        return self.before.version + 1

    @property
    def action(self) -> str | None:
        return next((str(e["action"]) for e in self.events if e["kind"] == "action"), None)

    @property
    def plain(self) -> bool:
        """One action and nothing else moved: no seat, no status, no coin."""
        return (self.action is not None and self.after.status == self.before.status
                and list(self.after.seats) == list(self.before.seats)
                and not coin_moves(self.before, self.after, self.events))


@dataclass(slots=True)
class StoredTable:
    """A table as last committed, with what a runtime keeps besides: the last events (for reconnecting
    clients) and the action ids they acknowledged."""

    table_id: int
    state: TableState
    #: The completed deals in the last record snapshot (-1: no game yet).
    snapshot_deals: int
    #: (version, events, seat, action id, action text) of the last versions, oldest first.
    recent: list[tuple[int, Events, int | None, str | None, str | None]] = field(default_factory=list)


class TableStore(Protocol):
    async def commit(self, change: Change) -> None:
        """Make ``change`` durable, or raise (:class:`StaleVersion`, :class:`~.reducer.TableError` for a
        wallet that cannot pay, or the database's own error) having written nothing."""

    async def load(self, table_id: int, recent: int) -> StoredTable | None:
        """The table as last committed, with its last ``recent`` versions' events; None if there is none."""

    async def list(self, status: str) -> list[int]:
        """The ids of the tables in ``status``."""


class MemoryTableStore:
    """Every table in dictionaries: what the reducer's tests and an in-memory hub use."""

    def __init__(self) -> None:
        self.tables: dict[int, TableState] = {}
        self.events: dict[int, list[tuple[int, Events, int | None, str | None, str | None]]] = {}
        self.wallets: dict[int, int] = {}

    def create(self, table_id: int, state: TableState) -> None:
        self.tables[table_id] = state
        self.events[table_id] = []

    async def commit(self, change: Change) -> None:
        current = self.tables.get(change.table_id)
        if current is None or current.version != change.before.version:
            raise StaleVersion(f"table {change.table_id} moved on elsewhere")
        moves = coin_moves(change.before, change.after, change.events)
        for account, coins in moves.items():
            if self.wallets.get(account, 0) + coins < 0:
                raise TableError("wallet", "not enough coins for this stake", 402)
        for account, coins in moves.items():
            self.wallets[account] = self.wallets.get(account, 0) + coins
        self.tables[change.table_id] = change.after
        self.events[change.table_id].append((change.version, change.events, change.seat, change.action_id,
                                             change.action))

    async def load(self, table_id: int, recent: int) -> StoredTable | None:
        state = self.tables.get(table_id)
        if state is None:
            return None
        deals = -1 if state.game is None else len(state.game.deal_log)
        return StoredTable(table_id, state, deals, list(self.events[table_id][-recent:]))

    async def list(self, status: str) -> list[int]:
        return [t for t, s in self.tables.items() if s.status == status]


class SqlTableStore:
    """Tables in SQLite or PostgreSQL, through the hub's sessions and a journal (:meth:`open` makes the
    journal the database needs)."""

    def __init__(self, session: async_sessionmaker[AsyncSession], journal: Journal,
                 fence: Fence | None = None) -> None:
        self.session = session
        self.journal = journal
        #: Cluster mode (PostgreSQL): every write carries this worker's id and the table's epoch, and the
        #: statement that writes the table checks them (``ownership.FENCE``); None: one process, no fence.
        self.fence = fence

    @classmethod
    def open(cls, engine: AsyncEngine, session: async_sessionmaker[AsyncSession],
             fence: Fence | None = None) -> SqlTableStore:
        """The store of the database ``engine`` points at. SQLite has one writer at a time: its journal
        writes on the event loop's thread and the tables' own transactions (and the chat's writes) take
        turns on one ``asyncio.Lock`` (:meth:`~.journal.Journal.writing`); PostgreSQL's journal writes on
        an asyncpg connection of its own and needs no turn. ``fence``: cluster mode's ownership (every
        write fenced by it, PostgreSQL only)."""
        sqlite = engine.dialect.name == "sqlite"
        return cls(session, Journal(engine, asyncio.Lock() if sqlite else None), fence)

    async def commit(self, change: Change) -> None:
        owner = epoch = None
        if self.fence is not None:
            owner, epoch = self.fence.owner, self.fence.epoch(change.table_id)
            if epoch is None:  # not ours (any more): refused here, before the database's fence
                raise Fenced(f"table {change.table_id} is not this worker's")
        try:
            if change.plain:
                await self._submit(change, owner, epoch)
            else:
                await self._transaction(change, owner, epoch)
        except Refused as exc:
            if self.fence is not None:
                self.fence.refused(change.table_id)
            raise Fenced(str(exc)) from None
        except StaleVersion as exc:
            if self.fence is None:
                raise
            # A fenced store's table written by someone else: another worker owns it, whatever refused it.
            self.fence.refused(change.table_id)
            raise exc if isinstance(exc, Fenced) else Fenced(str(exc)) from None

    async def _submit(self, change: Change, owner: int | None, epoch: int | None) -> None:
        """A plain action through the journal; a version already taken is refused as :class:`StaleVersion`,
        as the store's own transactions and the memory store refuse it."""
        try:
            await self.journal.submit(JournalRow(
                change.table_id, change.version, change.seat, change.action_id, change.action or "",
                dumps(change.events), change.record, owner, epoch))
        except Exception as exc:
            if _version_taken(exc):  # the events row of this version is someone else's already
                raise StaleVersion(f"table {change.table_id} moved on elsewhere (version "
                                   f"{change.version} is taken)") from exc
            raise

    async def _transaction(self, change: Change, owner: int | None = None, epoch: int | None = None) -> None:
        """The version, its events, the record snapshot, the seats if they changed and the coins the change
        moves, in one transaction of the table's own.

        Nothing here may wait inside the writer's turn: the pool's checkout can (when every connection is
        out), so it comes first; and the session is closed directly, not by ``async with`` (SQLAlchemy
        closes in a task of its own, a turn of the loop). Waiting in the turn made every later transaction
        wait a turn of the loop to take it over: 0.5 s (2.8 s at worst) for a game's last action when 500
        games ended in a minute.

        In cluster mode the table's ``UPDATE`` carries the fence (``ownership.FENCE``): refused, the whole
        transaction (coins, history rows, seats, the event) rolls back and :class:`Fenced` is raised."""
        before, after, table_id = change.before, change.after, change.table_id
        game = after.game
        record = None if game is None else json.dumps(game.record(include_seed=True), separators=(",", ":"))
        finishing = after.status == "finished" and before.status != "finished"
        db = self.session()
        try:
            await db.connection()
            async with self.journal.writing():
                try:
                    await _move_coins(db, table_id, change)
                except wallets.WalletError as exc:
                    raise TableError("wallet", str(exc), 402) from None
                if finishing and game is not None:
                    gone = leavers(after.seats, game)
                    humans = {i: (s.account_id, i in gone) for i, s in enumerate(after.seats)
                              if s.account_id is not None}
                    for row in history.result_rows(table_id, game, humans,
                                                   pot_split(after.rules.stake, after.seats, game)):
                        db.add(row)
                values: dict[str, Any] = {"version": change.version, "status": after.status}
                if record is not None:
                    values["record"] = record
                    values["record_version"] = change.version
                if after.status in ("finished", "abandoned"):
                    values["finished_at"] = utcnow()
                if finishing and game is not None and not pot_split(after.rules.stake, after.seats, game):
                    values["paid_out"] = True  # an unstaked game: nothing to pay, done in this update
                moved = update(Table).where(Table.id == table_id, Table.version == before.version)
                if owner is not None:
                    moved = moved.where(text(FENCE.format(table=":fence_table", owner=":fence_owner",
                                                          epoch=":fence_epoch")).bindparams(
                        fence_table=table_id, fence_owner=owner, fence_epoch=epoch))
                result = await db.execute(moved.values(**values).execution_options(synchronize_session=False))
                if result.rowcount != 1:  # type: ignore[attr-defined]
                    if owner is not None and await db.scalar(select(Table.version).where(
                            Table.id == table_id)) == before.version:
                        raise Fenced(f"table {table_id}: write refused, epoch {epoch} is no longer ours")
                    raise StaleVersion(f"table {table_id} moved on elsewhere (another process owns it)")
                if list(after.seats) != list(before.seats):  # one executemany by primary key
                    await db.execute(update(Seat), [
                        {"table_id": table_id, "seat": i, "account_id": s.account_id, "name": s.name,
                         "is_bot": s.is_bot, "staked": s.staked, "away": s.away, "left": s.left}
                        for i, s in enumerate(after.seats)])
                db.add(Event(table_id=table_id, version=change.version, seat=change.seat,
                             action_id=change.action_id, action=change.action, data=dumps(change.events)))
                await db.commit()
        finally:
            await db.close()

    async def load(self, table_id: int, recent: int) -> StoredTable | None:
        """The record snapshot (with the seed), then the journalled actions after it, replayed."""
        async with self.session() as db:
            row = await db.get(Table, table_id)
            if row is None:
                return None
            seat_rows = (await db.scalars(select(Seat).where(Seat.table_id == table_id)
                                          .order_by(Seat.seat))).all()
            seats = tuple(SeatState(account_id=s.account_id, name=s.name, is_bot=s.is_bot, staked=s.staked,
                                    away=s.away, left=s.left) for s in seat_rows)
            game = None if row.record is None else load_record(json.loads(row.record))
            snapshot_deals = -1 if game is None else len(game.deal_log)
            if game is not None and row.record_version is not None and row.record_version < row.version:
                journal = (await db.execute(select(Event.version, Event.action).where(
                    Event.table_id == table_id, Event.version > row.record_version,
                    Event.action.is_not(None)).order_by(Event.version))).all()
                for _version, text in journal:
                    game.apply(Action.parse(str(text)))
            rules = Rules(ruleset=row.ruleset, length=row.length, stake=row.stake, private=row.private,
                          invite_code=row.invite_code, bot_level=row.bot_level, turn_seconds=row.turn_seconds,
                          partners=row.partners, competition=row.competition_id, seed=row.game_seed)
            state = TableState(rules, row.created_by, row.status, row.version, row.pot, seats, game)
            events = (await db.scalars(select(Event).where(Event.table_id == table_id)
                                       .order_by(Event.version.desc()).limit(recent))).all()
        return StoredTable(table_id, state, snapshot_deals,
                           [(e.version, json.loads(e.data), e.seat, e.action_id, e.action)
                            for e in reversed(events)])

    async def list(self, status: str) -> list[int]:
        async with self.session() as db:
            return list((await db.scalars(select(Table.id).where(Table.status == status))).all())


def _version_taken(exc: BaseException) -> bool:
    """Whether a journal write failed on the ``events`` primary key, (table, version): SQLite's integrity
    error, SQLAlchemy's, or PostgreSQL's unique violation (SQLSTATE 23505, as asyncpg reports it)."""
    return (isinstance(exc, (sqlite3.IntegrityError, sqlalchemy.exc.IntegrityError))
            or getattr(exc, "sqlstate", None) == "23505")


async def _move_coins(db: AsyncSession, table_id: int, change: Change) -> None:
    """The wallet side of a change's events (:func:`~.reducer.coin_moves` reads the same events)."""
    before, after = change.before, change.after
    stake = before.rules.stake
    if stake <= 0:
        return
    refunded: set[int] = set()
    for event in change.events:
        kind = event["kind"]
        if kind == "join" and event.get("staked"):
            account = after.seats[event["seat"]].account_id
            assert account is not None
            await wallets.stake_in(db, table_id, account, stake)
        elif kind == "leave" and before.status == "open" and before.seats[event["seat"]].staked:
            refunded.add(event["seat"])
            account = before.seats[event["seat"]].account_id
            assert account is not None
            await wallets.refund(db, table_id, account)
        elif kind == "abandoned":
            for i, s in enumerate(before.seats):
                if s.staked and s.account_id is not None and i not in refunded:
                    await wallets.refund(db, table_id, s.account_id)
        elif kind == "over" and event.get("payout"):
            payout = event["payout"]
            await wallets.pay_out(db, table_id, {
                int(k): (before.seats[int(k)].account_id or 0, int(v)) for k, v in payout.items()})

