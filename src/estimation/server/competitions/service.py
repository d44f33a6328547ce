"""A competition's life on the server: registration, stages, robot tables, leavers, pauses, adjustments.

Every competition table is an ordinary table made through the hub's one table path
(:meth:`~..hub.Hub.create_table`: private, unstaked, with the stage's board seed from the core; a robot
table has no clock, so it waits for its entrant) and its entrants seated through the table's own ``join``.
The tables tell us of their changes through the hub's commit path (:meth:`table_changed`): a leaver is
recorded (who, after how many rounds, when), a finished board refreshes the standings, which go out on the
bus (``competition`` messages, docs/protocol.md), and a stage whose every table has finished starts the
next one. Work for one competition runs one piece at a time under its lock.

Time: a ticker starts upcoming competitions at their start time, closes robot windows, finishes a stage's
seating that a crash cut short, and moves on a swiss whose stage ended while the process was down.

Exactly once: starting a competition is a conditional ``UPDATE`` from ``upcoming``; a swiss stage's move is
a conditional ``UPDATE`` from the stage before that writes the stage's whole seating plan (``stage_plan``) in
the same statement; the plan's tables are then opened one by one, each recorded under its slot (unique in the
stage), and the plan is cleared when every table is seated. Whoever finds a plan still there (the same
process after a restart, another worker after the owner died) opens the slots that have no table and seats
the entrants missing from the others: nobody is seated twice and every entrant once.

Cluster mode: a competition has one owner (:meth:`~..cluster.ownership.Ownership.claim_competition`, with a
lease and an epoch as a table's). Only the owner starts it at its time, moves its stages on and closes its
window, and its stage moves and table slots are fenced by that ownership: a worker that lost it (a stall
past its lease) has its writes refused. A worker that sees a board finish, or a director's start or resume,
for a competition it does not own tells the owner over the bus (``competition_poke``); the owner's ticker
finds the same work a second later if the bus is down. When a stage is over, every process is told
(``competition_watchable``) so the tables it holds may be watched.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import functools
import hmac
import json
import logging
import secrets
import time
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import TextClause, func, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession

from ...competition import (
    CompetitionError,
    Seats,
    board_seed,
    first_stage,
    next_stage,
    ranking,
    robot_instance,
    robot_seats,
)
from ...rulesets import RULESETS
from ..cluster.bus import COMPETITIONS, LOBBY, RESYNC, Message, Subscription, user_topic
from ..cluster.ownership import COMPETITION_FENCE
from ..ops.failpoints import reached
from ..storage.models import (
    Account,
    Competition,
    CompetitionAdjustment,
    CompetitionEntry,
    CompetitionLeave,
    CompetitionTable,
    Table,
    utcnow,
)
from ..table.reducer import OVER, Events, TableSettings
from ..table.runtime import TableError, TableRuntime
from ..table.store import Slot, SlotFenced, SlotTaken, TableMoved
from .field import Field, seats_of
from .host import CompetitionHost
from .reading import forget_all, forget_rows, read_field

log = logging.getLogger("estimation.server")

#: Seconds between the ticker's looks at the clock (start times, robot windows).
TICK_SECONDS = 1.0
#: With no competition upcoming, running or paused, the ticker looks again this often, not every second:
#: a worker's ticks were most of an idle worker's CPU (four queries a second), paid by every worker of a
#: cluster (docs/performance.md). A competition created in any process wakes every ticker at once.
IDLE_TICK_SECONDS = 10.0
#: The statuses in which a competition may have work for the ticker.
ACTIVE = ("upcoming", "running", "paused")
#: Standings rows a pushed ``competition`` message carries (the page reads the rest over REST).
PUSHED_ROWS = 50
#: Changes within this many seconds go out in one ``competition`` message.
ANNOUNCE_SECONDS = 0.25
#: A swiss needs two tables for any board to count (a board played by one table counts for nobody).
SWISS_MINIMUM = 5
#: Slots of a stage seated at once on PostgreSQL: a table's making and seating are a few transactions,
#: each mostly waiting for the server's round trips, and several tables' round trips overlap (the server
#: works on one table's while this process builds another's). SQLite has one writer, whose transactions
#: take turns anyway: one at a time there.
SEATING_AT_ONCE = 4


class CompetitionFenced(Exception):
    """A competition's write refused by its fence: this worker does not own the competition (any more)."""


def no_such_competition() -> TableError:
    """The one answer for a competition that is not there and for a private one to an outsider."""
    return TableError("no_such_competition", "there is no such competition", 404)


def iso(at: dt.datetime | None) -> str | None:
    return None if at is None else at.isoformat() + "Z"


@dataclass(frozen=True, slots=True)
class Spec:
    """What a director asks for (checked by :meth:`Competitions.create`)."""

    name: str
    kind: str
    ruleset: str
    length: str | None
    bot_level: str
    stages: int
    instances: int
    starts_at: dt.datetime
    window_end: dt.datetime | None
    entry_limit: int
    turn_seconds: int
    private: bool


class Competitions:
    """The hub's competitions: one per hub, started and stopped with it."""

    def __init__(self, hub: CompetitionHost) -> None:
        self.hub = hub
        #: One change at a time per competition. Weak: a lock lives while someone holds or waits for it, so
        #: the map does not keep one for every competition this process ever touched.
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()
        self._ticker: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        #: Competitions whose ``competition`` message is due in a moment.
        self._announcing: set[int] = set()
        #: Seconds the last ``competition`` message of each competition took to read and score.
        self._cost: dict[int, float] = {}
        #: Rounds each competition table in play had finished when last seen (a board finished when it
        #: grows); forgotten when the table is over, so it holds the tables in play, not every one played.
        self._rounds: dict[int, int] = {}
        self._news: Subscription | None = None
        #: Set when a competition may have become active (created here or elsewhere, news missed): the
        #: idle ticker looks at once.
        self._wake = asyncio.Event()

    def lock(self, competition_id: int) -> asyncio.Lock:
        lock = self._locks.get(competition_id)
        if lock is None:
            lock = self._locks[competition_id] = asyncio.Lock()
        return lock

    # --- start, stop, the clock ---------------------------------------------------------------------
    async def start(self) -> None:
        forget_all()  # what another hub of this process kept, by ids of another database
        self._news = self.hub.bus.subscribe(COMPETITIONS, self._heard)
        self._ticker = asyncio.create_task(self._tick_forever())

    async def stop(self) -> None:
        if self._news is not None:
            self._news.close()
            self._news = None
        for task in [self._ticker, *self._tasks]:
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        self._tasks.clear()

    async def _tick_forever(self) -> None:
        while True:
            self._wake.clear()  # before the tick: a wake during it is not lost
            try:
                active = await self.tick()
            except Exception:
                log.exception("competitions: the tick failed")
                active = True
            if active:
                await asyncio.sleep(TICK_SECONDS)
            else:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), IDLE_TICK_SECONDS)

    def wake(self) -> None:
        """Tick now: a competition may have become active."""
        self._wake.set()

    async def tick(self) -> bool:
        """Start what is due; close robot windows that have ended; finish a seating cut short; move on a
        stalled swiss. In cluster mode each only for a competition this worker owns (or claims now: its
        owner is gone). Whether any competition is active (upcoming, running or paused): one query, and
        nothing more, when none is."""
        now = utcnow()
        async with self.hub.session() as db:
            if not await db.scalar(select(select(Competition.id).where(
                    Competition.status.in_(ACTIVE)).exists())):
                return False
            due = (await db.scalars(select(Competition.id).where(
                Competition.status == "upcoming", Competition.starts_at <= now))).all()
            closing = (await db.scalars(select(Competition.id).where(
                Competition.kind == "robot", Competition.status.in_(("running", "paused")),
                Competition.window_end <= now))).all()
            # A swiss whose stage in play has no table left playing, yet is still on that stage: its last
            # table's end was committed but not acted on (the process stopped between the two).
            playing = (select(CompetitionTable.table_id)
                       .join(Table, Table.id == CompetitionTable.table_id)
                       .where(CompetitionTable.competition_id == Competition.id,
                              CompetitionTable.stage == Competition.stage, Table.status != "finished"))
            stalled = (await db.scalars(select(Competition.id).where(
                Competition.kind == "swiss", Competition.status == "running", Competition.stage >= 1,
                Competition.stage_plan.is_(None), ~playing.exists()))).all()
            # A stage being seated (its plan not cleared yet), or a swiss started and not seated at all:
            # the process that was doing it stopped (or another worker started it).
            seating = (await db.scalars(select(Competition.id).where(
                Competition.kind == "swiss",
                (Competition.stage_plan.is_not(None) & Competition.status.in_(("running", "paused")))
                | ((Competition.stage == 0) & (Competition.status == "running"))))).all()
        work: list[tuple[int, Callable[[], Awaitable[None]]]] = [
            *((c, lambda c=c: self.start_now(c, None)) for c in due),
            *((c, lambda c=c: self._close_window(c)) for c in closing),
            *((c, lambda c=c: self._seat(c)) for c in seating),
            *((c, lambda c=c: self._after_board(c)) for c in stalled)]
        for cid, job in work:
            if not await self.mine(cid):
                continue
            try:
                await job()
            except TableError:
                pass  # started meanwhile (a director's early start), and the like
            except (CompetitionFenced, TableMoved):
                log.info("competition %s: not this worker's now; left to its owner", cid)
        return True

    async def mine(self, competition_id: int) -> bool:
        """Whether this process moves the competition on: always in one process; in cluster mode only its
        owner (claimed here if no live worker owns it)."""
        ownership = self.hub.ownership
        return ownership is None or await ownership.claim_competition(competition_id) is not None

    def _poke(self, competition_id: int) -> None:
        """Ask the competition's owner (wherever it is) to look at it now."""
        self.hub.bus.publish(COMPETITIONS, {"type": "competition_poke", "competition": competition_id})

    async def rename_entrant(self, account_id: int, name: str) -> None:
        """An account's entries take ``name`` (an erasure), in the database and in every process's kept
        rows: an entry's name is otherwise written once, so a read keeps it (:mod:`.reading`)."""
        async with self.hub.session() as db, db.begin():
            competitions = set((await db.execute(select(CompetitionEntry.competition_id).where(
                CompetitionEntry.account_id == account_id))).scalars().all())
            await db.execute(update(CompetitionEntry).where(CompetitionEntry.account_id == account_id)
                             .values(name=name).execution_options(synchronize_session=False))
        for competition_id in sorted(competitions):
            self.hub.bus.publish(COMPETITIONS, {"type": "competition_rows", "competition": competition_id})

    def _heard(self, _topic: str, message: Message) -> None:
        kind, competition_id = message.get("type"), message.get("competition")
        if kind == RESYNC:
            # A lost poke is found by the owner's ticker, a lost stage end by the next load; a lost
            # renaming only by reading every competition's rows again; a lost creation by a tick now.
            forget_rows(None)
            self.wake()
            return
        if not isinstance(competition_id, int):
            return
        if kind == "competition_created":
            self.wake()
        elif kind == "competition_poke":
            self._later(lambda: self._poked(competition_id))
        elif kind == "competition_watchable":
            self._later(lambda: self._refresh_watchable(competition_id))
        elif kind == "competition_rows":
            forget_rows(competition_id)

    def _held(self, competition_id: int) -> bool:
        """Whether this process owns the competition now (always in one process), without a claim."""
        ownership = self.hub.ownership
        return ownership is None or competition_id in ownership.competition_epochs

    async def _poked(self, competition_id: int) -> None:
        if self._held(competition_id):
            with contextlib.suppress(CompetitionFenced, TableMoved):
                await self._seat(competition_id)
                await self._after_board(competition_id)

    async def _refresh_watchable(self, competition_id: int) -> None:
        """A stage is over (or the competition): the tables held here may be watched as it now allows."""
        held = [r for r in self.hub.runtimes.values() if r.rules.competition == competition_id]
        if not held:
            return
        found = await read_field(self.hub, competition_id, with_games=False)
        if found is None:
            return
        stage_of = {t.table_id: t.stage for t in found.tables}
        for runtime in held:
            if runtime.id in stage_of:
                runtime.watchable = found.watchable(stage_of[runtime.id])

    def _owned_at(self, competition_id: int) -> tuple[int, int] | None:
        """(owner, epoch) of this worker's ownership of the competition, which its writes are fenced by
        (None in one process); :class:`CompetitionFenced` if it does not own it."""
        ownership = self.hub.ownership
        if ownership is None:
            return None
        epoch = ownership.competition_epochs.get(competition_id)
        if epoch is None:
            raise CompetitionFenced(competition_id)
        return ownership.owner, epoch

    def _fence(self, competition_id: int) -> tuple[TextClause, ...]:
        """The fencing condition of this worker's writes of the competition, for a statement's ``where``
        (none in one process)."""
        owned = self._owned_at(competition_id)
        if owned is None:
            return ()
        return (text(COMPETITION_FENCE.format(competition=":fence_competition", owner=":fence_owner",
                                              epoch=":fence_epoch"))
                .bindparams(fence_competition=competition_id, fence_owner=owned[0], fence_epoch=owned[1]),)

    async def _check_fence(self, db: AsyncSession, competition_id: int) -> None:
        """Inside ``db``'s transaction: refuse (:class:`CompetitionFenced`) unless this worker still owns the
        competition; the ownership row stays share-locked until the transaction ends, so a claim waits."""
        fence = self._fence(competition_id)
        if fence and not await db.scalar(select(*fence)):
            assert self.hub.ownership is not None
            self.hub.ownership.competition_refused(competition_id)
            raise CompetitionFenced(competition_id)

    def _later(self, work: Callable[[], Awaitable[None]]) -> None:
        async def run() -> None:
            try:
                await work()
            except Exception:
                log.exception("competitions: background work failed")

        task = asyncio.create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # --- who may see and manage -----------------------------------------------------------------------
    async def visible(self, competition_id: int, account: Account | None, invite: str | None,
                      with_games: bool = True) -> Field:
        """The competition if the caller may see it (a private one: its director, a moderator, an entrant,
        or with the invite code); otherwise the same 404 as for none at all. ``with_games``: as
        :func:`~.field.read_field`."""
        found = await read_field(self.hub, competition_id, with_games)
        if found is None or not admits(found, account, invite):
            raise no_such_competition()
        return found

    async def managed(self, competition_id: int, me: Account) -> Field:
        """The competition if ``me`` directs it (or is a moderator); 403 for any other who may see it."""
        found = await self.visible(competition_id, me, None)
        if not (me.id == found.comp.director_id or me.moderator):
            raise TableError("forbidden", "only the competition's director (or a moderator) can do that", 403)
        return found

    # --- creating and entering ------------------------------------------------------------------------
    async def create(self, me: Account, spec: Spec) -> Competition:
        if spec.kind not in ("swiss", "robot"):
            raise TableError("bad_competition", "kind is swiss or robot", 422)
        if spec.ruleset not in RULESETS:
            raise TableError("bad_rules", f"unknown ruleset {spec.ruleset!r} (known: {', '.join(RULESETS)})",
                             422)
        cls = RULESETS[spec.ruleset]
        length = spec.length or cls.default_length
        if length not in cls.lengths:
            raise TableError("bad_rules", f"unknown length {length!r} for {spec.ruleset} "
                                          f"(known: {', '.join(cls.lengths)})", 422)
        now = utcnow()
        starts_at = max(spec.starts_at, now)
        if spec.kind == "robot":
            if spec.window_end is None or spec.window_end <= starts_at:
                raise TableError("bad_competition", "a robot competition needs a window_end after its start",
                                 422)
            stages, instances, turn_seconds = 1, spec.instances, 0
        else:
            if spec.instances != 1 or spec.window_end is not None:
                raise TableError("bad_competition", "a swiss has one instance and no window", 422)
            stages, instances, turn_seconds = spec.stages, 1, spec.turn_seconds
        row = Competition(name=spec.name, kind=spec.kind, ruleset=spec.ruleset, length=length,
                          bot_level=spec.bot_level, stages=stages, instances=instances, starts_at=starts_at,
                          window_end=spec.window_end, entry_limit=spec.entry_limit, turn_seconds=turn_seconds,
                          private=spec.private,
                          invite_code=secrets.token_urlsafe(9) if spec.private else None,
                          director_id=me.id, status="upcoming", stage=0, seed=secrets.randbits(62),
                          created_at=now)
        async with self.hub.session() as db, db.begin():
            db.add(row)
        self.wake()  # here at once, the bus up or down (its news reaches this process too, when up)
        self.hub.bus.publish(COMPETITIONS, {"type": "competition_created", "competition": row.id})
        await self._announce(row.id)
        return row

    async def register(self, competition_id: int, me: Account, invite: str | None) -> CompetitionEntry:
        async with self.lock(competition_id):
            found = await self.visible(competition_id, me, invite)
            comp = found.comp
            if comp.private and not (invite_ok(comp, invite) or me.id == comp.director_id
                                     or found.entry_of(me.id) is not None):
                raise no_such_competition()
            if not entering(comp):
                raise TableError("closed", "registration is closed: the competition has started", 409)
            mine = found.entry_of(me.id)
            if mine is not None and not mine.withdrawn:
                raise TableError("already_registered", "you are registered already", 409)
            entered = sum(not e.withdrawn for e in found.entries.values())
            if comp.entry_limit and entered >= comp.entry_limit:
                raise TableError("full", f"the competition is full ({comp.entry_limit} entrants)", 409)
            async with self.hub.session() as db, db.begin():
                if mine is not None:
                    entry = await db.get(CompetitionEntry, mine.id)
                    assert entry is not None
                    entry.withdrawn = False
                else:
                    number = 1 + int(await db.scalar(select(func.count()).select_from(CompetitionEntry).where(
                        CompetitionEntry.competition_id == competition_id)) or 0)
                    instance = robot_instance(number, comp.instances) if comp.kind == "robot" else 1
                    entry = CompetitionEntry(competition_id=competition_id, account_id=me.id, name=me.name,
                                             entry_no=number, instance=instance, withdrawn=False,
                                             removed=False, created_at=utcnow())
                    db.add(entry)
        await self._announce(competition_id)
        return entry

    async def withdraw(self, competition_id: int, me: Account) -> None:
        """Before the start: out of the field. In a robot competition's window, after starting to play:
        the explicit withdrawal that ends the entrant's table (its boards not finished score 0 MP)."""
        async with self.lock(competition_id):
            found = await self.visible(competition_id, me, None)
            mine = found.entry_of(me.id)
            if mine is None or mine.withdrawn:
                raise TableError("not_registered", "you are not registered", 409)
            table = found.table_of(mine.id, 1) if found.comp.kind == "robot" else None
            if table is None and found.comp.status != "upcoming" and found.comp.kind != "robot":
                raise TableError("started", "the competition has started: leave your table instead", 409)
            if found.comp.status == "finished":
                raise TableError("finished", "the competition is over", 409)
            if table is None:
                async with self.hub.session() as db, db.begin():
                    entry = await db.get(CompetitionEntry, mine.id)
                    assert entry is not None
                    entry.withdrawn = True
            elif not table.finished:
                await self._leave_table(found, mine, table, "withdrew")
        await self._announce(competition_id)

    # --- starting, stages -----------------------------------------------------------------------------
    async def start_now(self, competition_id: int, me: Account | None) -> None:
        """Start (the director early, or the ticker at the start time): a swiss seats stage 1, a robot
        competition opens its window. Exactly once: the status moves from upcoming in one UPDATE."""
        async with self.lock(competition_id):
            found = await (self.managed(competition_id, me) if me is not None
                           else self._read(competition_id))
            comp = found.comp
            if comp.status != "upcoming":
                raise TableError("started", "the competition has started already", 409)
            if comp.kind == "swiss" and len(found.field_ids) < SWISS_MINIMUM:
                if me is not None:
                    raise TableError("too_few", f"a swiss needs at least {SWISS_MINIMUM} entrants (two "
                                                "tables) for a board to count", 409)
                await self._set(competition_id, "upcoming", status="finished", finished_at=utcnow())
                log.info("competition %s: too few entrants at its start time; closed", competition_id)
                await self._announce(competition_id)
                return
            values: dict[str, Any] = {"status": "running"}
            if me is not None and comp.kind == "robot":
                values["starts_at"] = utcnow()  # an early start opens the window now
            if not await self._set(competition_id, "upcoming", **values):
                raise TableError("started", "the competition has started already", 409)
            if comp.kind == "swiss":
                if await self.mine(competition_id):
                    await self._seat_stage(competition_id, 1)
                else:
                    self._poke(competition_id)  # its owner seats it (or this worker's ticker, once it's gone)
        await self._announce(competition_id)

    async def _seat(self, competition_id: int) -> None:
        """The owner's look at a swiss's seating: a started swiss not seated yet gets stage 1; a stage whose
        plan is still there gets the rest of its tables."""
        async with self.lock(competition_id):
            found = await self._read(competition_id)
            comp = found.comp
            if comp.kind != "swiss":
                return
            if comp.stage == 0 and comp.status == "running":
                await self._seat_stage(competition_id, 1)
            elif comp.stage_plan is not None:
                await self._seat_plan(competition_id)

    async def _seat_stage(self, competition_id: int, stage: int) -> None:
        """Move on to ``stage`` and seat every entrant of the field (not removed): stage 1 by the core's
        seeded draw, later stages by the standings (the core's grouping); bots fill short tables. The plan
        is written with the move, in one fenced conditional ``UPDATE``: only one caller ever makes it."""
        found = await self._read(competition_id)
        comp = found.comp
        gone = {x.entry_id for x in found.leaves}  # a leaver has left the competition, not just a table
        playing = [e for e in found.field_ids if not found.entries[e].removed and e not in gone]
        if stage == 1:
            tables = first_stage(playing, comp.seed)
        else:
            ranked = [e for e in ranking(found.scored().standings) if e in set(playing)]
            previous = [[seats_of(t) for t in found.stage_tables(s)] for s in range(1, stage)]
            tables = next_stage(ranked, previous)
        fence = self._fence(competition_id)
        async with self.hub.session() as db, db.begin():
            moved = await db.execute(update(Competition).where(
                Competition.id == competition_id, Competition.stage == stage - 1, *fence)
                .values(stage=stage, stage_plan=json.dumps([list(t) for t in tables]))
                .execution_options(synchronize_session=False))
        if moved.rowcount != 1:  # type: ignore[attr-defined]
            if fence and not await self._still_mine(competition_id):
                raise CompetitionFenced(competition_id)
            return  # moved on by someone else already
        await self._seat_plan(competition_id)

    async def _still_mine(self, competition_id: int) -> bool:
        async with self.hub.session() as db, db.begin():
            try:
                await self._check_fence(db, competition_id)
            except CompetitionFenced:
                return False
        return True

    async def _seat_plan(self, competition_id: int) -> None:
        """Open the plan's tables that have none yet and seat the entrants missing at the others (a seating
        cut short by a crash goes on where it stopped); then clear the plan: the stage is seated. The first
        slot alone, then the rest :data:`SEATING_AT_ONCE` at a time, their tables made in slot order."""
        found = await self._read(competition_id)
        comp = found.comp
        if comp.stage_plan is None:
            return
        plan: list[Seats] = [tuple(seats) for seats in json.loads(comp.stage_plan)]
        placed = {t.slot: t for t in found.stage_tables(comp.stage)}
        guests = await self._guests(found, [e for seats in plan for e in seats if e is not None])
        turns = InTurn([slot for slot in range(len(plan)) if slot not in placed])

        async def seat(slot: int) -> None:
            table = placed.get(slot)
            if table is None:
                await self._open_table(found, comp.stage, 1, plan[slot], slot, guests, turns.turn(slot))
                return
            runtime = await self.hub.get(table.table_id)
            if runtime is not None:
                await self._seat_entrants(found, runtime, comp.stage, plan[slot], guests)

        if plan:
            await seat(0)
            reached(self.hub.settings.failpoints, "competition_seating")
            await at_once(self._seating_at_once(), [functools.partial(seat, s) for s in range(1, len(plan))])
        fence = self._fence(competition_id)
        async with self.hub.session() as db, db.begin():
            await db.execute(update(Competition).where(
                Competition.id == competition_id, Competition.stage == comp.stage, *fence)
                .values(stage_plan=None).execution_options(synchronize_session=False))
        await self._announce(competition_id)

    def _seating_at_once(self) -> int:
        """:data:`SEATING_AT_ONCE` on PostgreSQL; one at a time on SQLite (one writer: its transactions
        take turns anyway)."""
        return 1 if self.hub.engine.dialect.name == "sqlite" else SEATING_AT_ONCE

    async def _guests(self, found: Field, entrants: list[int]) -> dict[int, bool]:
        """Whether each of these entrants' accounts is a guest's (a seat says so), read in one query for a
        whole stage rather than one a table."""
        accounts = [found.entries[e].account_id for e in entrants]
        if not accounts:
            return {}
        async with self.hub.session() as db:
            return dict((await db.execute(select(Account.id, Account.is_guest).where(
                Account.id.in_(accounts)))).all())

    async def _open_table(self, found: Field, stage: int, instance: int, seats: Seats, slot: int,
                          guests: dict[int, bool],
                          turn: AbstractAsyncContextManager[Callable[[], None]] | None = None) -> int:
        """One competition table through the hub's table path, made in one transaction with its ``slot``'s
        row and its entrants seated (in ``turn``, if given, until its id is drawn: a stage's tables get their
        ids in slot order, the rest of their transactions overlap); the
        last one seated starts its game, dealt from the stage's board seed. A slot taken meanwhile
        (:class:`SlotTaken`) or a refused fence (:class:`CompetitionFenced`): no table was made."""
        async with turn or contextlib.nullcontext(lambda: None) as drawn:
            runtime = await self._new_table(found, stage, instance, seats, slot, guests, drawn)
        self._rounds[runtime.id] = 0
        await self._seat_entrants(found, runtime, stage, seats, guests)  # tells them where it is
        return runtime.id

    async def _new_table(self, found: Field, stage: int, instance: int, seats: Seats, slot: int,
                         guests: dict[int, bool], drawn: Callable[[], None]) -> TableRuntime:
        """The table of ``slot`` with its entrants seated (one transaction): private, unstaked, bots in the
        seats of nobody, the stage's board seed (a robot table has no clock, so it waits for its entrant);
        a swiss's fenced by this worker's ownership. ``drawn``: called once its id is drawn."""
        comp = found.comp
        robot = comp.kind == "robot"
        where = Slot(comp.id, stage, instance, slot, json.dumps(list(seats)),
                     None if robot else self._owned_at(comp.id), drawn)
        seated = [(found.entries[e].account_id, found.entries[e].name,
                   bool(guests.get(found.entries[e].account_id)), seat)
                  for seat, e in enumerate(seats) if e is not None]
        try:
            return await self.hub.create_table(comp.director_id, TableSettings(
                comp.ruleset, comp.length, 0, True, tuple(i for i, e in enumerate(seats) if e is None),
                comp.bot_level, 0 if robot else comp.turn_seconds, competition=comp.id,
                seed=board_seed(comp.seed, stage, instance)), where, seated)
        except SlotFenced:
            assert self.hub.ownership is not None
            self.hub.ownership.competition_refused(comp.id)
            raise CompetitionFenced(comp.id) from None

    async def _seat_entrants(self, found: Field, runtime: TableRuntime, stage: int, seats: Seats,
                             guests: dict[int, bool]) -> None:
        """Seat each of ``seats``' entrants not seated there yet (in one change of the table's), and tell
        them where their table is. ``guests``: :meth:`_guests` of (at least) these entrants."""
        missing = [(seat, found.entries[e]) for seat, e in enumerate(seats)
                   if e is not None and runtime.seats[seat].account_id != found.entries[e].account_id]
        if missing:
            await runtime.join_all([(entry.account_id, entry.name, bool(guests.get(entry.account_id)), seat)
                                    for seat, entry in missing])
        for entrant in seats:
            if entrant is not None:
                self.hub.bus.publish(user_topic(found.entries[entrant].account_id), {
                    "type": "competition_table", "competition": found.comp.id, "stage": stage,
                    "table_id": runtime.id})

    async def play_robot(self, competition_id: int, me: Account) -> int:
        """A robot entrant's table: made at its first call inside the window (seat 0, three bots, its
        instance's boards, no clock), the same table at every later call (come back and go on)."""
        async with self.lock(competition_id):
            found = await self.visible(competition_id, me, None)
            comp = found.comp
            mine = found.entry_of(me.id)
            if comp.kind != "robot":
                raise TableError("not_robot", "only robot competitions are played at your own table", 409)
            if mine is None or mine.withdrawn:
                raise TableError("not_registered", "register first", 409)
            table = found.table_of(mine.id, 1)
            if table is not None:
                return table.table_id
            if comp.status != "running":
                raise TableError("not_running", "the competition is not running (not started, paused or "
                                                "over)", 409)
            if mine.removed:
                raise TableError("removed", "the director removed you from this competition", 409)
            try:
                seats = robot_seats(mine.id)
                return await self._open_table(found, 1, mine.instance, seats, mine.id,
                                              await self._guests(found, [mine.id]))
            except SlotTaken:  # another worker opened this entrant's table a moment ago: that one
                table = (await self._read(competition_id)).table_of(mine.id, 1)
                if table is None:
                    raise
                return table.table_id

    async def pause(self, competition_id: int, me: Account, paused: bool) -> None:
        """Pause: no stage starts and no robot table opens until the director resumes (the tables in
        play go on to the end of their stage). Resume: what waited starts."""
        async with self.lock(competition_id):
            found = await self.managed(competition_id, me)
            before, after = ("running", "paused") if paused else ("paused", "running")
            if found.comp.status != before:
                raise TableError("not_" + before, f"the competition is not {before}", 409)
            await self._set(competition_id, before, status=after)
        if not paused:
            if await self.mine(competition_id):
                await self._after_board(competition_id)
            else:
                self._poke(competition_id)
        await self._announce(competition_id)

    async def remove(self, competition_id: int, me: Account, entry_id: int) -> None:
        """The director removes an entrant: out of the field before the start; afterwards a bot takes its
        seat (it scores 0 MP on the boards its table had not finished) and it is seated no more."""
        async with self.lock(competition_id):
            found = await self.managed(competition_id, me)
            entry = found.entries.get(entry_id)
            if entry is None or entry.withdrawn or entry.removed:
                raise TableError("no_such_entrant", "there is no such entrant in the field", 404)
            async with self.hub.session() as db, db.begin():
                row = await db.get(CompetitionEntry, entry_id)
                assert row is not None
                if found.comp.status == "upcoming":
                    row.withdrawn = True
                else:
                    row.removed = True
            table = found.table_of(entry_id, found.comp.stage or 1)
            if table is not None and not table.finished and found.comp.status != "upcoming":
                await self._leave_table(found, entry, table, "removed")
        await self._announce(competition_id)

    async def adjust(self, competition_id: int, me: Account, adjustment: dict[str, Any]) -> None:
        """A director's adjustment of a board, kept with its reason, who and when; checked by scoring the
        competition with it (the core refuses one that names no board or entrant)."""
        async with self.lock(competition_id):
            found = await self.managed(competition_id, me)
            row = CompetitionAdjustment(competition_id=competition_id, by_account=me.id, at=utcnow(),
                                        **adjustment)
            try:
                found.scored(extra=row)
            except CompetitionError as exc:
                raise TableError("bad_adjustment", str(exc), 422) from None
            async with self.hub.session() as db, db.begin():
                db.add(row)
        await self._announce(competition_id)

    # --- what the tables tell us ----------------------------------------------------------------------
    def table_changed(self, runtime: TableRuntime, events: Events) -> None:
        """Called in a competition table's commit path (it must not wait): leavers, finished boards."""
        competition_id = runtime.rules.competition
        if competition_id is None:
            return
        game = runtime.game
        done = 0 if game is None else len(game.round_results)
        for event in events:
            if event["kind"] != "leave":
                continue
            account = runtime.seats[event["seat"]].account_id
            if account is not None:
                self._later(lambda a=account: self._record_leave(  # type: ignore[misc]
                    competition_id, runtime.id, a, done, "left"))
        over = runtime.status == "finished"
        if done != self._rounds.get(runtime.id, 0) or over:
            self._rounds[runtime.id] = done
            table_id = runtime.id
            self._later(lambda: self._board_done(competition_id, table_id, over))
        if runtime.status in OVER:
            self._rounds.pop(runtime.id, None)  # nothing more to compare: every change now says it is over

    async def loaded(self, runtime: TableRuntime) -> None:
        """A competition table loaded into memory: whether spectators may see it yet."""
        competition_id = runtime.rules.competition
        if competition_id is None:
            return
        found = await read_field(self.hub, competition_id)
        table = None if found is None else next(
            (t for t in found.tables if t.table_id == runtime.id), None)
        if found is not None and table is not None:
            runtime.watchable = found.watchable(table.stage)
            if runtime.status not in OVER:
                self._rounds[runtime.id] = found.rounds_done(runtime.id)

    async def _record_leave(self, competition_id: int, table_id: int, account_id: int, rounds_done: int,
                            reason: str) -> None:
        # A leave the service made itself (a removal, a withdrawal, a window closing) is recorded already.
        async with self.lock(competition_id), self.hub.session() as db, db.begin():
            table = await db.get(CompetitionTable, table_id)
            entry = await db.scalar(select(CompetitionEntry).where(
                CompetitionEntry.competition_id == competition_id,
                CompetitionEntry.account_id == account_id))
            if table is None or entry is None or entry.id not in seats_of(table):
                return
            if await db.get(CompetitionLeave, (competition_id, entry.id, table.stage)) is None:
                db.add(CompetitionLeave(competition_id=competition_id, entry_id=entry.id, stage=table.stage,
                                        table_id=table_id, rounds_done=rounds_done, reason=reason,
                                        at=utcnow()))
        await self._announce(competition_id)

    async def _leave_table(self, found: Field, entry: CompetitionEntry, table: CompetitionTable,
                           reason: str) -> None:
        """Take an entrant out of its table, recorded with ``reason``. A bot plays the seat on; a director's
        removal keeps the table going even where a leaver ends the match (egyptian): the other three did
        nothing to lose their boards. A robot entrant's withdrawal or closed window ends an egyptian table
        as any leaver does (its later boards count for nobody anyway)."""
        runtime = await self.hub.get(table.table_id)
        if runtime is None:
            return
        async with runtime.lock:  # the rounds as committed when it leaves
            game = runtime.game
            done = 0 if game is None else len(game.round_results)
        async with self.hub.session() as db, db.begin():
            if await db.get(CompetitionLeave, (found.comp.id, entry.id, table.stage)) is None:
                db.add(CompetitionLeave(competition_id=found.comp.id, entry_id=entry.id, stage=table.stage,
                                        table_id=table.table_id, rounds_done=done, reason=reason,
                                        at=utcnow()))
        with contextlib.suppress(TableError):
            await runtime.leave(entry.account_id, replaced=reason == "removed")

    async def _board_done(self, competition_id: int, table_id: int, over: bool) -> None:
        if over:
            async with self.lock(competition_id), self.hub.session() as db, db.begin():
                await db.execute(update(CompetitionTable).where(CompetitionTable.table_id == table_id)
                                 .values(finished=True).execution_options(synchronize_session=False))
        if self._held(competition_id):
            await self._after_board(competition_id)
        elif over:
            self._poke(competition_id)  # the owner moves the stage on
        await self._announce(competition_id)

    async def _after_board(self, competition_id: int) -> None:
        """A stage whose every table has finished: open its tables to spectators, then the next stage (or
        the end). A robot competition whose entries are closed and all played ends."""
        async with self.lock(competition_id):
            found = await self._read(competition_id)
            comp = found.comp
            if comp.kind == "swiss" and comp.stage >= 1 and found.stage_over(comp.stage):
                self._watchable(competition_id)
                if comp.status != "running":
                    return
                if comp.stage < comp.stages:
                    await self._seat_stage(competition_id, comp.stage + 1)
                else:
                    await self._set(competition_id, "running", status="finished", finished_at=utcnow())
            elif comp.kind == "robot" and comp.status == "running" and comp.entry_limit:
                entries = [found.entries[e] for e in found.field_ids]
                gone = {x.entry_id for x in found.leaves}

                def played(e: CompetitionEntry) -> bool:
                    table = found.table_of(e.id, 1)
                    return e.removed or e.id in gone or (table is not None and table.finished)

                if len(entries) >= comp.entry_limit and all(played(e) for e in entries):
                    await self._finish_robot(found)  # full, and every entry played: nobody else can come

    async def _close_window(self, competition_id: int) -> None:
        async with self.lock(competition_id):
            found = await self._read(competition_id)
            if found.comp.status in ("running", "paused"):
                await self._finish_robot(found)
        await self._announce(competition_id)

    async def _finish_robot(self, found: Field) -> None:
        """The window closed (or every entry is played): a table not finished scores 0 MP on the boards
        left (its entrant recorded as leaving when the window closed; a bot finishes the table, and its
        later rounds count for nobody: the field reads the table only as far as it had played)."""
        for t in found.tables:
            if t.finished:
                continue
            entry = found.entries.get(seats_of(t)[0] or 0)
            if entry is not None and not any(x.entry_id == entry.id for x in found.leaves):
                await self._leave_table(found, entry, t, "window")
        await self._set(found.comp.id, found.comp.status, status="finished", finished_at=utcnow())
        self._watchable(found.comp.id)

    def _watchable(self, competition_id: int) -> None:
        """A stage (or the competition) is over: every process looks again at whether the tables it holds
        may be watched (this one too: the bus delivers to its publisher)."""
        self.hub.bus.publish(COMPETITIONS, {"type": "competition_watchable", "competition": competition_id})

    # --- helpers ---------------------------------------------------------------------------------------
    async def _read(self, competition_id: int) -> Field:
        found = await read_field(self.hub, competition_id)
        if found is None:
            raise no_such_competition()
        return found

    async def _set(self, competition_id: int, was: str, **values: Any) -> bool:
        """Move a competition on from status ``was``; False if it was not there any more."""
        async with self.hub.session() as db, db.begin():
            moved = await db.execute(update(Competition).where(
                Competition.id == competition_id, Competition.status == was).values(**values)
                .execution_options(synchronize_session=False))
        return bool(moved.rowcount == 1)  # type: ignore[attr-defined]

    async def _announce(self, competition_id: int) -> None:
        """The ``competition`` message (soon: the changes of the next moment go in one message)."""
        if competition_id in self._announcing:
            return
        self._announcing.add(competition_id)

        async def later() -> None:
            # At most one message per moment, and never more often than twice its own cost: reading and
            # scoring a big field takes a while, and the tables in play need the loop too.
            await asyncio.sleep(max(ANNOUNCE_SECONDS, 2 * self._cost.get(competition_id, 0.0)))
            self._announcing.discard(competition_id)
            began = time.perf_counter()
            await self._announce_now(competition_id)
            self._cost[competition_id] = time.perf_counter() - began

        self._later(later)

    async def _announce_now(self, competition_id: int) -> None:
        """The ``competition`` message: to the lobby for a public competition, else to its director and
        entrants' own topics."""
        found = await read_field(self.hub, competition_id)
        if found is None:
            return
        message = {"type": "competition", "competition": summary(found),
                   "standings": standing_rows(found, PUSHED_ROWS)}
        if not found.comp.private:
            self.hub.bus.publish(LOBBY, message)
            return
        for account in {found.comp.director_id, *(e.account_id for e in found.entries.values())}:
            self.hub.bus.publish(user_topic(account), message)


# --- shapes shared by the routes and the pushed messages ------------------------------------------------
class InTurn:
    """Turns taken in the order of ``keys``: a key's turn begins once the one before it has ended (or
    failed), whichever task takes it. A stage's tables are made so, in slot order (their ids follow the
    plan), while the seating around them runs several at once."""

    def __init__(self, keys: list[int]) -> None:
        self._ended = {key: asyncio.Event() for key in keys}
        self._before = dict(zip(keys[1:], keys, strict=False))

    @contextlib.asynccontextmanager
    async def turn(self, key: int) -> AsyncIterator[Callable[[], None]]:
        """Wait for the turn before; the turn ends on leaving, or earlier by calling what is given."""
        before = self._before.get(key)
        if before is not None:
            await self._ended[before].wait()
        try:
            yield self._ended[key].set
        finally:
            self._ended[key].set()


async def at_once(workers: int, jobs: list[Callable[[], Awaitable[None]]]) -> None:
    """Run ``jobs`` in their order, ``workers`` at a time; the first failure cancels the rest and is raised
    as itself (not in a group: the callers tell a fence's refusal from the rest)."""
    pending = iter(jobs)

    async def worker() -> None:
        for job in pending:
            await job()

    try:
        async with asyncio.TaskGroup() as group:
            for _ in range(max(1, min(workers, len(jobs)))):
                group.create_task(worker())
    except ExceptionGroup as failed:
        raise failed.exceptions[0] from None


def invite_ok(comp: Competition, invite: str | None) -> bool:
    code = comp.invite_code
    return invite is not None and code is not None and hmac.compare_digest(
        invite.encode("utf-8", "surrogatepass"), code.encode())


def admits(found: Field, account: Account | None, invite: str | None) -> bool:
    comp = found.comp
    if not comp.private:
        return True
    if account is not None and (account.id == comp.director_id or account.moderator
                                or found.entry_of(account.id) is not None):
        return True
    return invite_ok(comp, invite)


def entering(comp: Competition) -> bool:
    """Whether entries are open: a swiss until its start; a robot competition until its window closes."""
    if comp.kind == "robot":
        return comp.status in ("upcoming", "running") and (comp.window_end is None
                                                           or utcnow() < comp.window_end)
    return comp.status == "upcoming"


def summary(found: Field) -> dict[str, Any]:
    """A competition as the lobby lists it (no invite code, no hands, nothing private)."""
    comp = found.comp
    stage_tables = found.stage_tables(comp.stage) if comp.kind == "swiss" else found.tables
    return {"id": comp.id, "name": comp.name, "kind": comp.kind, "ruleset": comp.ruleset,
            "length": comp.length, "bot_level": comp.bot_level, "stages": comp.stages,
            "instances": comp.instances, "starts_at": iso(comp.starts_at), "window_end": iso(comp.window_end),
            "entry_limit": comp.entry_limit,
            "turn_seconds": comp.turn_seconds, "private": comp.private, "status": comp.status,
            "stage": comp.stage, "entrants": len(found.field_ids), "rounds": found.rounds,
            "director_id": comp.director_id,
            "tables": len(stage_tables), "tables_finished": sum(t.finished for t in stage_tables)}


def standing_rows(found: Field, limit: int | None = None) -> list[dict[str, Any]]:
    """The core's standings (the first ``limit`` rows: a push shows the top) with each entrant's name and
    state (removed, left)."""
    rows = []
    left = {x.entry_id for x in found.leaves}
    for row in found.scored().standings[:limit]:
        entry = found.entries[row["entrant"]]
        rows.append({**row, "name": entry.name, "account_id": entry.account_id, "removed": entry.removed,
                     "left": entry.id in left})
    return rows
