"""Where tables are kept: the :class:`TableStore` interface and its implementations.

Every write of a table or its seats is the store's, and nothing else in the server queries them: create a
table (:meth:`TableStore.create`, the reducer's :func:`~.reducer.create` given its id), commit a change at
the version it started from (:meth:`TableStore.commit`, refused with :class:`StaleVersion` if the table has
moved on since, which is what keeps a second owner from forking a table), load a table as it was last
committed (:meth:`TableStore.load`), and the reads the lobby, the routes and the social layer make (a
table's row, the public listings, a player's seats, the quick-play tables, the table a rematch was made
from), and a deleted account's name taken out of the tables that are over. How a change is written is the
store's business:

* :class:`MemoryTableStore` keeps everything in dictionaries (tests, and a try-out without a database);
* :class:`SqlTableStore` writes to the database the hub's engine points at, SQLite or PostgreSQL: a *plain
  action* (one action, no seat, status or coin change) is a row for the :class:`~.journal.Journal`'s group
  commit (whose writer is SQLite's or PostgreSQL's own); anything else is a transaction of the table's own,
  with the coins its events move and, at a game's end, the history rows.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import json
import sqlite3
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import sqlalchemy.exc
from sqlalchemy import bindparam, case, delete, func, insert, or_, select, text, update
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from ...actions import Action
from ...record import load_record
from ..cluster.ownership import COMPETITION_FENCE, FENCE
from ..jsontext import dumps
from ..storage import history
from ..storage.models import CompetitionTable, Event, LiveSeat, Seat, Table, TableOwner, utcnow
from . import wallets
from .journal import Journal, JournalRow, Refused
from .reducer import (
    LIVE,
    OVER,
    STATUSES,
    Events,
    Rules,
    SeatState,
    Status,
    TableError,
    TableState,
    coin_list,
    coin_moves,
    leavers,
    pot_split,
)


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


class SlotTaken(Exception):
    """A competition table's slot has a table already (another worker's, a moment ago): nothing written."""


class SlotFenced(Exception):
    """Cluster mode: a competition table's write refused by the competition's fence (this worker does not own
    the competition at the epoch the slot names any more): nothing written."""


@dataclass(frozen=True, slots=True)
class Slot:
    """Where a new table goes in a competition: its stage and instance, its slot there (unique: a swiss's
    place in the stage plan, a robot table's entry), and which entrant sits in each seat (``seats``: JSON,
    entrant ids, null for a bot). Written with the table, in its transaction, so a slot already taken leaves
    no table behind (:class:`SlotTaken`). ``fence``: cluster mode's (owner, epoch) of the competition, checked
    in that transaction first (:class:`SlotFenced`); None: not fenced. ``drawn``: called once the table's id
    is drawn (before the rest of its transaction), so that tables made at once get their ids in the order
    their makers ask for."""

    competition_id: int
    stage: int
    instance: int
    slot: int
    seats: str
    fence: tuple[int, int] | None = None
    drawn: Callable[[], None] | None = field(default=None, compare=False)


class Fence(Protocol):
    """Who this worker is and at which epoch it owns each table (:class:`~.ownership.Ownership`)."""

    owner: int

    def epoch(self, table_id: int) -> int | None: ...

    def refused(self, table_id: int) -> None: ...

    def adopt_created(self, table_id: int, epoch: int) -> None: ...


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

    @property
    def snapshot(self) -> bool:
        """Whether this change writes the record snapshot: a plain action that completes a deal (it carries
        the record), any other change of the game; a change that leaves the game as it was (a seat away, a
        rematch link) does not."""
        return self.after.game is not None and (
            self.record is not None or (not self.plain and self.after.game is not self.before.game))


@dataclass(frozen=True, slots=True)
class TableRow:
    """A table as last committed, without its game (not rebuilt: ``state.game`` is None): what the lobby,
    the listings and the admission checks read. ``record``: the last record snapshot (with its seed)."""

    table_id: int
    state: TableState
    record: str | None = None


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


#: (The store's own method ``list`` hides the builtin in its class: its answers' types are named here.)
Ids = list[int]
Rows = list[TableRow]
SeatsOf = list[tuple[int, int, Status]]
Waiting = list[tuple[int, dt.datetime]]
#: A rematch's first table and that table's players' seats (seat -> account).
Rematched = tuple[int, dict[int, int]]
SeatList = list[SeatState]


class TableStore(Protocol):
    async def start(self) -> None:
        """Start what writes behind the store (the journal's group commit)."""

    async def stop(self) -> None:
        """Write what is waiting, then stop."""

    def stats(self) -> dict[str, Any]:
        """The store's figures for the hub's stats and the metrics."""

    def writing(self) -> AbstractAsyncContextManager[None]:
        """The turn every write to the store's database takes (SQLite's one writer; others: none), for the
        writes beside the tables' (chat) to take too."""

    async def create(self, table: TableState, events: Events, open_cap: int = 0,
                     slot: Slot | None = None, then: Change | None = None) -> int:
        """Write a new table (the reducer's :func:`~.reducer.create`) at its version with its events; its
        id. ``open_cap`` > 0: refused (429, ``too_many_tables``) when its creator has that many open tables,
        in the same transaction. ``slot``: a competition's table, recorded under its slot in the same
        transaction (:class:`SlotTaken`, :class:`SlotFenced`: nothing written). ``then``: the table's first
        change (from ``table``; its ``table_id`` is not known yet and ignored), written in the same
        transaction as :meth:`commit` would (or nothing at all): a competition's entrants seated at their
        new table. In cluster mode the table is born owned by this worker."""

    async def commit(self, change: Change) -> None:
        """Make ``change`` durable, or raise (:class:`StaleVersion`, :class:`~.reducer.TableError` for a
        wallet that cannot pay, or the database's own error) having written nothing."""

    async def load(self, table_id: int, recent: int) -> StoredTable | None:
        """The table as last committed, with its last ``recent`` versions' events; None if there is none."""

    async def list(self, status: Status, created_before: dt.datetime | None = None) -> Ids:
        """The ids of the tables in ``status`` (created before ``created_before``, if given)."""

    async def row(self, table_id: int) -> TableRow | None:
        """The table as last committed, without its game; None if there is none."""

    async def listing(self, status: Status, limit: int, offset: int = 0) -> Rows:
        """Public tables in ``status``, newest first."""

    async def paid_splits(self, table_ids: Ids) -> dict[int, dict[str, int]]:
        """The pot splits paid at these tables (seat as text -> coins), as a finished table shows them."""

    async def live_table(self, account_id: int) -> int | None:
        """The open or playing table where this player holds a seat (not left), if any."""

    async def seats_of(self, account_id: int) -> SeatsOf:
        """(table, seat, the table's status) of every seat this player holds or held."""

    async def quick_tables(self, ruleset: str, length: str, limit: int) -> Ids:
        """Open public unstaked quick-play tables of these rules, the fullest first."""

    async def waiting_bots(self) -> Waiting:
        """The open quick-play tables and when their bots come."""

    async def rematch_of(self, table_id: int, made_after: dt.datetime) -> Rematched | None:
        """If this table is open, was made after ``made_after`` and is a finished table's rematch: that
        finished table and the seats its players held there (seat -> account, no bot); else None. What a
        rematch keeps its players' old seats by, while they have not answered."""

    async def anonymise(self, account_id: int, name: str) -> Ids:
        """``name`` for this player in every seat and record of the tables that are over (a live table is
        renamed by its runtime: :class:`~.reducer.Rename`), and in the join and start events of every table
        (journalled events are never written again); the tables whose records were rewritten."""


class MemoryTableStore:
    """Every table in dictionaries: what the reducer's tests and an in-memory hub use."""

    def __init__(self) -> None:
        self.tables: dict[int, TableState] = {}
        self.events: dict[int, list[tuple[int, Events, int | None, str | None, str | None]]] = {}
        self.wallets: dict[int, int] = {}
        self.created: dict[int, dt.datetime] = {}
        #: Per table, the pot split paid (seat as text -> coins).
        self.paid: dict[int, dict[str, int]] = {}
        #: The competition slots taken: (competition, stage, instance, slot) -> (table, its seats' entrants).
        self.slots: dict[tuple[int, int, int, int], tuple[int, str]] = {}

    async def start(self) -> None:
        pass

    async def stop(self) -> None:
        pass

    def stats(self) -> dict[str, Any]:
        return {}

    def writing(self) -> AbstractAsyncContextManager[None]:
        return _no_turn()

    async def create(self, table: TableState, events: Events, open_cap: int = 0,
                     slot: Slot | None = None, then: Change | None = None) -> int:
        """(No fence: one process.)"""
        table_id = await self._create(table, events, open_cap, slot)
        if then is not None:
            try:
                await self.commit(replace(then, table_id=table_id))
            except BaseException:  # nothing written, as a transaction rolled back
                del self.tables[table_id], self.events[table_id], self.created[table_id]
                if slot is not None:
                    del self.slots[(slot.competition_id, slot.stage, slot.instance, slot.slot)]
                raise
        return table_id

    async def _create(self, table: TableState, events: Events, open_cap: int, slot: Slot | None) -> int:
        if open_cap > 0 and sum(t.created_by == table.created_by and t.status == "open"
                                for t in self.tables.values()) >= open_cap:
            raise too_many_tables(open_cap)
        table_id = max(self.tables, default=0) + 1
        if slot is not None:
            key = (slot.competition_id, slot.stage, slot.instance, slot.slot)
            if key in self.slots:
                raise SlotTaken(f"competition {slot.competition_id}: slot {key[1:]} is taken")
            self.slots[key] = (table_id, slot.seats)
            if slot.drawn is not None:
                slot.drawn()
        self.tables[table_id] = table
        self.events[table_id] = [(table.version, events, None, None, None)]
        self.created[table_id] = utcnow()
        return table_id

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
        for move in coin_list(change.before, change.after, change.events):
            if move.kind == "payout":
                self.paid.setdefault(change.table_id, {})[str(move.seat)] = move.coins
        self.tables[change.table_id] = change.after
        self.events[change.table_id].append((change.version, change.events, change.seat, change.action_id,
                                             change.action))

    async def load(self, table_id: int, recent: int) -> StoredTable | None:
        state = self.tables.get(table_id)
        if state is None:
            return None
        deals = -1 if state.game is None else len(state.game.deal_log)
        return StoredTable(table_id, state, deals, list(self.events[table_id][-recent:]))

    async def list(self, status: Status, created_before: dt.datetime | None = None) -> Ids:
        return [t for t, s in self.tables.items() if s.status == status
                and (created_before is None or self.created[t] < created_before)]

    async def row(self, table_id: int) -> TableRow | None:
        state = self.tables.get(table_id)
        if state is None:
            return None
        game = state.game
        record = None if game is None else dumps(game.record(include_seed=True))
        return TableRow(table_id, replace(state, game=None), record)

    async def listing(self, status: Status, limit: int, offset: int = 0) -> Rows:
        ids = sorted((t for t, s in self.tables.items() if s.status == status and not s.rules.private),
                     reverse=True)[offset:offset + limit]
        return [TableRow(t, replace(self.tables[t], game=None)) for t in ids]

    async def paid_splits(self, table_ids: Ids) -> dict[int, dict[str, int]]:
        return {t: dict(self.paid[t]) for t in table_ids if t in self.paid}

    async def live_table(self, account_id: int) -> int | None:
        return next((t for t, s in sorted(self.tables.items()) if s.status in LIVE
                     and any(x.account_id == account_id and not x.left for x in s.seats)), None)

    async def seats_of(self, account_id: int) -> SeatsOf:
        return [(t, i, s.status) for t, s in sorted(self.tables.items())
                for i, x in enumerate(s.seats) if x.account_id == account_id]

    async def quick_tables(self, ruleset: str, length: str, limit: int) -> Ids:
        found = [(-sum(x.taken for x in s.seats), t) for t, s in self.tables.items()
                 if s.status == "open" and not s.rules.private and s.rules.stake == 0
                 and s.bots_at is not None
                 and s.rules.ruleset == ruleset and s.rules.length == length]
        return [t for _taken, t in sorted(found)[:limit]]

    async def waiting_bots(self) -> Waiting:
        return [(t, s.bots_at) for t, s in sorted(self.tables.items())
                if s.status == "open" and s.bots_at is not None]

    async def rematch_of(self, table_id: int, made_after: dt.datetime) -> Rematched | None:
        new = self.tables.get(table_id)
        if new is None or new.status != "open" or self.created[table_id] <= made_after:
            return None
        old = next((t for t, s in sorted(self.tables.items()) if s.rematch_id == table_id), None)
        if old is None:
            return None
        return old, {i: s.account_id for i, s in enumerate(self.tables[old].seats)
                     if s.account_id is not None and not s.is_bot}

    async def anonymise(self, account_id: int, name: str) -> Ids:
        done = []
        for t, s in sorted(self.tables.items()):
            mine = [i for i, x in enumerate(s.seats) if x.account_id == account_id]
            if not mine:
                continue
            self.events[t] = [(v, _anonymised_events(events, set(mine), name), seat, action_id, action)
                              for v, events, seat, action_id, action in self.events[t]]
            if s.status not in OVER:
                continue
            seats = tuple(replace(x, name=name) if i in mine else x for i, x in enumerate(s.seats))
            game = s.game
            if game is not None:
                game = game.clone()
                game.players = tuple(name if i in mine else p for i, p in enumerate(game.players))
                done.append(t)
            self.tables[t] = replace(s, seats=seats, game=game)
        return done


@contextlib.asynccontextmanager
async def _no_turn() -> AsyncIterator[None]:
    yield


def too_many_tables(cap: int) -> TableError:
    return TableError("too_many_tables", f"you have {cap} open tables already: start or leave one of them "
                                         "first", 429)


def _anonymised_events(events: Any, seats: set[int], name: str) -> Any:
    """A version's events with ``name`` at these seats in its join and start events (a copy if changed,
    else the events given)."""
    out = []
    changed = False
    for ev in events:
        if ev.get("kind") == "join" and ev.get("seat") in seats and "name" in ev:
            ev, changed = {**ev, "name": name}, True
        elif ev.get("kind") == "start" and isinstance(ev.get("players"), list):
            ev, changed = {**ev, "players": [name if i in seats else p
                                             for i, p in enumerate(ev["players"])]}, True
        out.append(ev)
    return out if changed else events


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

    async def start(self) -> None:
        self.journal.start()

    async def stop(self) -> None:
        await self.journal.stop()

    def stats(self) -> dict[str, Any]:
        return self.journal.stats()

    def writing(self) -> AbstractAsyncContextManager[None]:
        return self.journal.writing()

    async def create(self, table: TableState, events: Events, open_cap: int = 0,
                     slot: Slot | None = None, then: Change | None = None) -> int:
        """The table's row, its seats and its first events row in one transaction of its own (in the
        writer's turn, as every table's own transaction), with, in cluster mode, its ownership at epoch 1;
        a competition's table with its slot's row (after the competition's fence, if any). With ``then``,
        the row and seats are written as they are after it, with its events row, coins and live seats: a
        competition table made and seated is one transaction, not two (half the round trips of a seating).
        """
        if then is not None and (then.before is not table or then.after.status in OVER):
            raise ValueError("a new table's first change starts from it and does not end it")
        written = table if then is None else then.after
        record = None
        if then is not None and then.after.game is not None:
            record = then.record or dumps(then.after.game.record(include_seed=True))
        rules = table.rules
        db = self.session()
        try:
            await db.connection()
            async with self.journal.writing():
                if slot is not None and slot.fence is not None:
                    await _check_competition_fence(db, slot)
                if open_cap > 0:
                    mine = await db.scalar(select(func.count()).select_from(Table).where(
                        Table.created_by == table.created_by, Table.status == "open"))
                    if int(mine or 0) >= open_cap:
                        raise too_many_tables(open_cap)
                row = Table(ruleset=rules.ruleset, length=rules.length, stake=rules.stake,
                            private=rules.private,
                            invite_code=rules.invite_code, bot_level=rules.bot_level,
                            turn_seconds=rules.turn_seconds, partners=rules.partners, name=rules.name,
                            competition_id=rules.competition,
                            game_seed=None if rules.seed is None else str(rules.seed),
                            status=written.status, version=written.version, pot=written.pot, paid_out=False,
                            record=record, record_version=None if record is None else written.version,
                            created_by=table.created_by, created_at=utcnow(), bots_at=written.bots_at,
                            rematch_id=written.rematch_id)
                db.add(row)
                await db.flush()
                table_id = row.id
                if slot is not None and slot.drawn is not None:
                    slot.drawn()
                if self.fence is not None:  # born owned by this worker, at epoch 1
                    db.add(TableOwner(table_id=table_id, owner=self.fence.owner, epoch=1, since=func.now()))
                db.add_all([Seat(table_id=table_id, seat=i, account_id=s.account_id, name=s.name,
                                 is_bot=s.is_bot, staked=s.staked, away=s.away, left=s.left)
                            for i, s in enumerate(written.seats)])
                if slot is not None:  # before the live seats: a slot taken is told as such, not as them
                    await _write_slot(db, table_id, slot)
                if then is not None:  # (its live seats first: their statements flush what is added before)
                    await self._first_change(db, replace(then, table_id=table_id))
                db.add(Event(table_id=table_id, version=table.version, seat=None, action_id=None, action=None,
                             data=dumps(events)))
                if then is not None:  # both events rows in one INSERT
                    db.add(Event(table_id=table_id, version=then.version, seat=then.seat,
                                 action_id=then.action_id, action=then.action, data=dumps(then.events)))
                await db.commit()
        finally:
            await db.close()
        if self.fence is not None:
            self.fence.adopt_created(table_id, 1)
        return table_id

    @staticmethod
    async def _first_change(db: AsyncSession, change: Change) -> None:
        """Inside :meth:`create`'s transaction, its row and seats written as after ``change``: the rest of
        what :meth:`_transaction` writes for it but its events row (its coins, its live seats)."""
        try:
            await _move_coins(db, change.table_id, change)
        except wallets.WalletError as exc:
            raise TableError("wallet", str(exc), 402) from None
        await _write_live_seats(db, change.table_id, change.before, change.after)

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
        closes in a task of its own, a turn of the loop). Waiting in the turn makes every later transaction
        wait a turn of the loop to take it over: 0.5 s (2.8 s at worst) for a game's last action when 500
        games end in a minute.

        In cluster mode the table's ``UPDATE`` carries the fence (``ownership.FENCE``): refused, the whole
        transaction (coins, history rows, seats, the event) rolls back and :class:`Fenced` is raised."""
        before, after, table_id = change.before, change.after, change.table_id
        game = after.game
        record = None
        if game is not None and change.snapshot:
            record = change.record or json.dumps(game.record(include_seed=True), separators=(",", ":"))
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
                if after.bots_at != before.bots_at:
                    values["bots_at"] = after.bots_at
                if after.rematch_id != before.rematch_id:
                    values["rematch_id"] = after.rematch_id
                if record is not None:
                    values["record"] = record
                    values["record_version"] = change.version
                if after.status in OVER and before.status not in OVER:  # not again at a rename or a link
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
                    await db.execute(_WRITE_SEATS, [
                        {"table_id": table_id, "seat": i, "account_id": s.account_id, "name": s.name,
                         "is_bot": s.is_bot, "staked": s.staked, "away": s.away, "left": s.left}
                        for i, s in enumerate(after.seats)])
                await _write_live_seats(db, table_id, before, after)
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
            seats = (await self._seats(db, [table_id]))[table_id]
            game = None if row.record is None else load_record(json.loads(row.record))
            snapshot_deals = -1 if game is None else len(game.deal_log)
            if game is not None and row.record_version is not None and row.record_version < row.version:
                journal = (await db.execute(select(Event.version, Event.action).where(
                    Event.table_id == table_id, Event.version > row.record_version,
                    Event.action.is_not(None)).order_by(Event.version))).all()
                for _version, text in journal:
                    game.apply(Action.parse(str(text)))
            state = replace(_state_of(row, seats), game=game)
            events = (await db.scalars(select(Event).where(Event.table_id == table_id)
                                       .order_by(Event.version.desc()).limit(recent))).all()
        return StoredTable(table_id, state, snapshot_deals,
                           [(e.version, json.loads(e.data), e.seat, e.action_id, e.action)
                            for e in reversed(events)])

    async def list(self, status: Status, created_before: dt.datetime | None = None) -> Ids:
        query = select(Table.id).where(Table.status == status)
        if created_before is not None:
            query = query.where(Table.created_at < created_before)
        async with self.session() as db:
            return list((await db.scalars(query)).all())

    @staticmethod
    async def _seats(db: AsyncSession, table_ids: Ids) -> dict[int, tuple[SeatState, ...]]:
        rows = (await db.scalars(select(Seat).where(Seat.table_id.in_(table_ids))
                                 .order_by(Seat.table_id, Seat.seat))).all() if table_ids else []
        seats: dict[int, SeatList] = {t: [] for t in table_ids}
        for s in rows:
            seats[s.table_id].append(SeatState(account_id=s.account_id, name=s.name, is_bot=s.is_bot,
                                               staked=s.staked, away=s.away, left=s.left))
        return {t: tuple(v) for t, v in seats.items()}

    async def row(self, table_id: int) -> TableRow | None:
        async with self.session() as db:
            row = await db.get(Table, table_id)
            if row is None:
                return None
            seats = (await self._seats(db, [table_id]))[table_id]
        return TableRow(table_id, _state_of(row, seats), row.record)

    async def listing(self, status: Status, limit: int, offset: int = 0) -> Rows:
        async with self.session() as db:
            rows = (await db.scalars(select(Table).where(Table.status == status, Table.private.is_(False))
                                     .order_by(Table.id.desc()).limit(limit).offset(offset))).all()
            seats = await self._seats(db, [r.id for r in rows])
        return [TableRow(r.id, _state_of(r, seats[r.id])) for r in rows]

    async def paid_splits(self, table_ids: Ids) -> dict[int, dict[str, int]]:
        async with self.session() as db:
            return await wallets.paid_splits(db, table_ids)

    async def live_table(self, account_id: int) -> int | None:
        async with self.session() as db:
            return await db.scalar(
                select(Seat.table_id).join(Table, Table.id == Seat.table_id)
                .where(Seat.account_id == account_id, Seat.left.is_(False), Table.status.in_(LIVE)).limit(1))

    async def seats_of(self, account_id: int) -> SeatsOf:
        async with self.session() as db:
            rows = (await db.execute(select(Seat.table_id, Seat.seat, Table.status)
                                     .join(Table, Table.id == Seat.table_id)
                                     .where(Seat.account_id == account_id)
                                     .order_by(Seat.table_id, Seat.seat))).all()
        return [(int(t), int(s), _status(status)) for t, s, status in rows]

    async def quick_tables(self, ruleset: str, length: str, limit: int) -> Ids:
        taken = func.sum(case((or_(Seat.account_id.is_not(None), Seat.is_bot), 1), else_=0))
        async with self.session() as db:
            return list((await db.execute(
                select(Table.id).join(Seat, Seat.table_id == Table.id)
                .where(Table.status == "open", Table.private.is_(False), Table.stake == 0,
                       Table.bots_at.is_not(None), Table.ruleset == ruleset, Table.length == length)
                .group_by(Table.id).order_by(taken.desc(), Table.id).limit(limit))).scalars().all())

    async def waiting_bots(self) -> Waiting:
        async with self.session() as db:
            rows = (await db.execute(select(Table.id, Table.bots_at).where(
                Table.status == "open", Table.bots_at.is_not(None)))).all()
        return [(int(t), at) for t, at in rows if at is not None]

    async def rematch_of(self, table_id: int, made_after: dt.datetime) -> Rematched | None:
        async with self.session() as db:
            new = await db.get(Table, table_id)
            if new is None or new.status != "open" or new.created_at <= made_after:
                return None
            old = await db.scalar(select(Table.id).where(Table.rematch_id == table_id))
            if old is None:
                return None
            seats = (await db.execute(select(Seat.seat, Seat.account_id).where(
                Seat.table_id == old, Seat.account_id.is_not(None), Seat.is_bot.is_(False)))).all()
        return int(old), {int(s): int(a) for s, a in seats if a is not None}

    async def anonymise(self, account_id: int, name: str) -> Ids:
        """One transaction of its own. A record is rewritten only at the version it was read at, so a table
        that moved on meanwhile keeps its newer record."""
        db = self.session()
        try:
            await db.connection()
            async with self.journal.writing():
                seats = (await db.execute(
                    select(Seat.table_id, Seat.seat, Table.status, Table.version, Table.record)
                    .join(Table, Table.id == Seat.table_id).where(Seat.account_id == account_id))).all()
                by_table: dict[int, tuple[set[int], bool, int, str | None]] = {}
                for t, s, status, version, record in seats:
                    by_table.setdefault(int(t), (set(), status in OVER, int(version), record))[0].add(int(s))
                over = [t for t, (_mine, is_over, _v, _r) in by_table.items() if is_over]
                if over:
                    await db.execute(update(Seat).where(Seat.account_id == account_id,
                                                        Seat.table_id.in_(over)).values(name=name)
                                     .execution_options(synchronize_session=False))
                done = []
                for table_id, (mine, is_over, version, record) in sorted(by_table.items()):
                    if is_over and record is not None:
                        data = json.loads(record)
                        players = data.get("players")
                        if isinstance(players, list):
                            data["players"] = [name if i in mine else p for i, p in enumerate(players)]
                            await db.execute(update(Table)
                                             .where(Table.id == table_id, Table.version == version)
                                             .values(record=json.dumps(data, separators=(",", ":")))
                                             .execution_options(synchronize_session=False))
                            done.append(table_id)
                    rows = (await db.execute(select(Event.version, Event.data).where(
                        Event.table_id == table_id, Event.action.is_(None)))).all()
                    for event_version, raw in rows:
                        items = json.loads(raw)
                        renamed = _anonymised_events(items, mine, name)
                        if renamed is not items:
                            await db.execute(update(Event).where(Event.table_id == table_id,
                                                                 Event.version == event_version)
                                             .values(data=json.dumps(renamed, separators=(",", ":")))
                                             .execution_options(synchronize_session=False))
                await db.commit()
                return done
        finally:
            await db.close()


async def _check_competition_fence(db: AsyncSession, slot: Slot) -> None:
    """Inside ``db``'s transaction: :class:`SlotFenced` unless the slot's (owner, epoch) still own its
    competition; the ownership row stays share-locked until the transaction ends, so a claim waits."""
    assert slot.fence is not None
    owner, epoch = slot.fence
    fence = text(COMPETITION_FENCE.format(competition=":fence_competition", owner=":fence_owner",
                                          epoch=":fence_epoch"))
    if not await db.scalar(select(fence.bindparams(fence_competition=slot.competition_id, fence_owner=owner,
                                                   fence_epoch=epoch))):
        raise SlotFenced(f"competition {slot.competition_id}: write refused, epoch {epoch} is not ours")


async def _write_slot(db: AsyncSession, table_id: int, slot: Slot) -> None:
    """The competition's row of a new table, flushed alone so that its unique slot (the one constraint it
    can break: its table is new) is told apart as :class:`SlotTaken`."""
    db.add(CompetitionTable(table_id=table_id, competition_id=slot.competition_id, stage=slot.stage,
                            instance=slot.instance, seats=slot.seats, finished=False, slot=slot.slot))
    try:
        await db.flush()
    except sqlalchemy.exc.IntegrityError:
        raise SlotTaken(f"competition {slot.competition_id}: slot {slot.slot} of stage {slot.stage} "
                        f"(instance {slot.instance}) is taken") from None


def _status(text: str) -> Status:
    """A status column's text as the reducer's :data:`~.reducer.Status`."""
    if text not in STATUSES:
        raise ValueError(f"a table's status cannot be {text!r}")
    return text


def _state_of(row: Table, seats: tuple[SeatState, ...]) -> TableState:
    """A table's row and seats as the reducer's state, its game not rebuilt."""
    rules = Rules(ruleset=row.ruleset, length=row.length, stake=row.stake, private=row.private,
                  invite_code=row.invite_code, bot_level=row.bot_level, turn_seconds=row.turn_seconds,
                  partners=row.partners, name=row.name, competition=row.competition_id, seed=row.game_seed)
    return TableState(rules, row.created_by, _status(row.status), row.version, row.pot, seats, None,
                      row.bots_at, row.rematch_id)


def _live(state: TableState) -> set[int]:
    """The players seated (not left) at this table while it is open or playing."""
    if state.status not in ("open", "playing"):
        return set()
    return {s.account_id for s in state.seats if s.account_id is not None and not s.left}


#: The statements of :func:`_write_live_seats` and a change's seats, built once: building a statement
#: (and finding its compiled form in the cache) is Python work at every seat change, a seating's share.
_WRITE_SEATS = update(Seat)
_DROP_GONE = (delete(LiveSeat).where(LiveSeat.table_id == bindparam("table"),
                                     LiveSeat.account_id.in_(bindparam("gone", expanding=True)))
              .execution_options(synchronize_session=False))
_STILL_LIVE = (select(Seat.table_id).join(Table, Table.id == Seat.table_id)
               .where(Seat.table_id == LiveSeat.table_id, Seat.account_id == LiveSeat.account_id,
                      Seat.left.is_(False), Table.status.in_(("open", "playing")))
               .correlate(LiveSeat).exists())
_DROP_STALE = (delete(LiveSeat)
               .where(LiveSeat.account_id.in_(bindparam("came", expanding=True)), ~_STILL_LIVE)
               .execution_options(synchronize_session=False))
_ADD_LIVE = insert(LiveSeat)


async def _write_live_seats(db: AsyncSession, table_id: int, before: TableState, after: TableState) -> None:
    """Keep ``live_seats`` with the table's seats (one live table a player, kept by the database itself).
    A player who comes here while a live seat of theirs is somewhere else fails on its primary key, whichever
    worker wrote that one (PostgreSQL makes the second writer wait for the first's commit): the whole change
    rolls back, stake and all, as ``seated_elsewhere``. A row whose seat is no longer live (left by a server
    that did not keep this table) is deleted first."""
    was, now = _live(before), _live(after)
    gone, came = was - now, now - was
    if gone:
        await db.execute(_DROP_GONE, {"table": table_id, "gone": sorted(gone)})
    if not came:
        return
    await db.execute(_DROP_STALE, {"came": sorted(came)})
    try:
        await db.execute(_ADD_LIVE, [{"account_id": a, "table_id": table_id} for a in sorted(came)])
    except sqlalchemy.exc.IntegrityError:
        raise TableError("seated_elsewhere", "you are seated at another table: leave it, or finish its "
                                             "game, first", 409) from None


def _version_taken(exc: BaseException) -> bool:
    """Whether a journal write failed on the ``events`` primary key, (table, version): SQLite's integrity
    error, SQLAlchemy's, or PostgreSQL's unique violation (SQLSTATE 23505, as asyncpg reports it)."""
    return (isinstance(exc, (sqlite3.IntegrityError, sqlalchemy.exc.IntegrityError))
            or getattr(exc, "sqlstate", None) == "23505")


async def _move_coins(db: AsyncSession, table_id: int, change: Change) -> None:
    """The wallet side of a change: :func:`~.reducer.coin_list`'s movements as ledger rows and balances."""
    payouts: dict[int, tuple[int, int]] = {}
    for move in coin_list(change.before, change.after, change.events):
        if move.kind == "stake":
            await wallets.stake_in(db, table_id, move.account_id, -move.coins)
        elif move.kind == "refund":
            await wallets.refund(db, table_id, move.account_id)
        else:
            payouts[move.seat] = (move.account_id, move.coins)
    if payouts:
        await wallets.pay_out(db, table_id, payouts)
