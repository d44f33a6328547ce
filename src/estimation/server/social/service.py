"""Players together: quick play, rematch, profiles, and what the bus carries about tables (the live lobby's
changes, who is connected).

:class:`Social` is the process's share of it, one per :class:`~..hub.Hub`: the chat limiter, the quick-play
tables' bot timers, and the publishing of table changes on the :mod:`.bus`. Its REST routes are in
:mod:`~..routes.social`; the table socket uses :class:`~.chat.Link`, the lobby socket
:mod:`~..routes.lobby_socket`.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import weakref
from typing import TYPE_CHECKING, Any

from fastapi import HTTPException
from sqlalchemy import delete, select

from ..cluster.bus import LOBBY, table_topic, user_topic
from ..storage.database import sessionmaker
from ..storage.models import Account, RematchReply, utcnow
from ..table.reducer import LIVE, Events, PublicTable, TableSettings, admits
from ..table.runtime import TableError, no_such_table
from .chat import ChatLimiter
from .host import SocialHost
from .leaderboard import Boards, reader_engine

if TYPE_CHECKING:
    from ..table.connection import Connection
    from ..table.runtime import TableRuntime

log = logging.getLogger("estimation.server")

#: The events that change what the lobby shows of a table (an action changes nothing there).
LOBBY_KINDS = frozenset({"join", "start", "leave", "over", "abandoned", "away", "created", "quickplay",
                         "renamed"})


def lobby_entry(public: PublicTable, bots_at: dt.datetime | None) -> dict[str, Any]:
    """A table as the live lobby shows it: the public facts without the turn clock, and a quick-play
    table's wait for bots (``bots_at``: the table's, while it is open)."""
    entry: dict[str, Any] = {k: v for k, v in public.items() if k != "clock"}
    entry["quickplay"] = bots_at is not None
    entry["bots_in_ms"] = ms_until(bots_at) if bots_at is not None and public["status"] == "open" else None
    return entry


def ms_until(at: dt.datetime) -> int:
    return max(0, round((at - utcnow()).total_seconds() * 1000))


def iso(at: dt.datetime) -> str:
    return at.isoformat() + "Z"


def social_of(hub: SocialHost) -> Social:
    """The hub's social part as this module built it (``create_app`` hands :class:`Social` to the hub)."""
    social = hub.social
    assert isinstance(social, Social)
    return social


class Social:
    def __init__(self, hub: SocialHost) -> None:
        self.hub = hub
        settings = hub.settings
        self.chat_limiter = ChatLimiter(settings.chat_rate_per_second, settings.chat_burst)
        #: Rankings are read through an engine that never runs a statement on the event loop's thread.
        self.reader = reader_engine(hub.engine)
        self.boards = Boards(sessionmaker(self.reader), settings.leaderboard_cache_seconds)
        #: This process's timers of the quick-play tables still open: when their bots come, and the task
        #: that brings them (the time itself is the table's: ``TableRuntime.bots_at``).
        self._due: dict[int, dt.datetime] = {}
        self._timers: dict[int, asyncio.Task[None]] = {}
        #: One quick-play seating at a time per (ruleset, length): a handful of keys.
        self._quick: dict[tuple[str, str], asyncio.Lock] = {}
        #: One rematch making at a time per finished table. Weak, as the hub's seating locks: a lock lives
        #: while someone holds or waits for it, so the map does not keep one for every table ever asked.
        self._rematch: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()

    async def start(self) -> None:
        """Quick-play tables that were waiting when the process stopped get their timers back."""
        for table_id, at in await self.hub.store.waiting_bots():
            self.schedule_bots(table_id, at)

    async def stop(self) -> None:
        for task in self._timers.values():
            task.cancel()
        self._timers.clear()
        if self.reader is not self.hub.engine:
            await self.reader.dispose()

    async def leaderboard(self, ruleset: str, by: str, limit: int, offset: int) -> dict[str, Any]:
        return await self.boards.page(ruleset, by, limit, offset)  # type: ignore[arg-type]

    def chat_wait(self, account_id: int) -> float:
        return self.chat_limiter.allow(account_id)

    # --- the bus ------------------------------------------------------------------------------------
    def table_changed(self, runtime: TableRuntime, events: Events) -> None:
        """Called after every committed change of a table: the lobby hears of seat and status changes; a
        quick-play table's new wait for bots starts its timer here, on the table's owner, and is told to
        its sockets."""
        if not any(e["kind"] in LOBBY_KINDS for e in events):
            return
        if runtime.status != "open":
            self._cancel(runtime.id)
        elif runtime.bots_at is not None and any(e["kind"] == "quickplay" for e in events):
            self.schedule_bots(runtime.id, runtime.bots_at)
            self.hub.bus.publish(table_topic(runtime.id),
                                 self._quickplay_message(runtime.id, runtime.bots_at))
        if runtime.rules.private:
            return
        if runtime.status in LIVE:
            self.hub.bus.publish(LOBBY, {"type": "table", "table": lobby_entry(
                runtime.public(), runtime.bots_at if runtime.status == "open" else None)})
        else:
            self.hub.bus.publish(LOBBY, {"type": "table_removed", "id": runtime.id, "status": runtime.status})

    def presence_changed(self, table_id: int) -> None:
        """Who is connected to a table (this process's sockets), on its topic."""
        runtime = self.hub.runtimes.get(table_id)
        if runtime is None:
            return
        seats = [False] * 4
        spectators = 0
        for conn in runtime.conns:
            if conn.closed:
                continue
            if conn.seat is None:
                spectators += 1
            else:
                seats[conn.seat] = True
        self.hub.bus.publish(table_topic(table_id), {"type": "presence", "table_id": table_id,
                                                     "seats": seats, "spectators": spectators})

    def greet(self, conn: Connection, table_id: int) -> None:
        """What a socket that just said hello needs besides the game: a quick-play table's wait."""
        runtime = self.hub.runtimes.get(table_id)
        if runtime is not None and runtime.status == "open" and runtime.bots_at is not None:
            conn.send(self._quickplay_message(table_id, runtime.bots_at))

    @staticmethod
    def _quickplay_message(table_id: int, at: dt.datetime) -> dict[str, Any]:
        return {"type": "quickplay", "table_id": table_id, "bots_at": iso(at), "bots_in_ms": ms_until(at)}

    # --- quick play ---------------------------------------------------------------------------------
    def schedule_bots(self, table_id: int, at: dt.datetime) -> None:
        self._cancel(table_id)
        self._due[table_id] = at
        self._timers[table_id] = asyncio.create_task(self._bots_later(table_id, at))

    def _cancel(self, table_id: int) -> None:
        self._due.pop(table_id, None)
        task = self._timers.pop(table_id, None)
        if task is not None and task is not asyncio.current_task():
            task.cancel()

    async def _bots_later(self, table_id: int, at: dt.datetime) -> None:
        await asyncio.sleep(max(0.0, (at - utcnow()).total_seconds()))
        try:
            runtime = await self.hub.held(table_id)  # a cluster: the table's owner seats them
            if runtime is not None and runtime.status == "open" and self._due.get(table_id) == at:
                self._timers.pop(table_id, None)
                self._due.pop(table_id, None)
                with contextlib.suppress(TableError):  # started or abandoned meanwhile
                    await runtime.fill_with_bots(runtime.created_by)
        except Exception:
            log.exception("quick play: seating bots at table %s failed", table_id)
        finally:
            # This timer is over whatever came of it. Unless a newer one took its place, forget it: in a
            # cluster a table another worker holds (every waiting table gets a timer at start-up, a table
            # that moved keeps its old one) never changes here, so nothing else would.
            if self._timers.get(table_id) is asyncio.current_task():
                del self._timers[table_id]
                self._due.pop(table_id, None)

    async def quickplay(self, me: Account, ruleset: str, length: str) -> tuple[TableRuntime, int, bool]:
        """Seat ``me`` at the fullest open quick-play table of these rules, or at a new one; the runtime,
        the seat, and whether the table was made for this request."""
        lock = self._quick.setdefault((ruleset, length), asyncio.Lock())
        async with self.hub.seating(me.id), lock:
            live = await self.hub.live_table(me.id)
            if live is not None:
                runtime = await self.hub.get(live)
                if (runtime is not None and runtime.status == "open" and runtime.bots_at is not None
                        and runtime.rules.ruleset == ruleset and runtime.rules.length == length):
                    seat = next(i for i, s in enumerate(runtime.seats) if s.account_id == me.id)
                    return runtime, seat, False
                await self.hub.not_seated_elsewhere(me.id, None)
            for table_id in await self.hub.store.quick_tables(ruleset, length, 20):
                runtime = await self.hub.get(table_id)
                if runtime is None or runtime.status != "open":
                    continue
                try:
                    seat = await runtime.join(me.id, me.name, me.is_guest, None, False, None)
                except TableError:
                    continue
                await self._after_quick_join(runtime)
                return runtime, seat, False
            runtime = await self.hub.create_table(me.id, TableSettings(
                ruleset, length, bot_level=self.hub.settings.quickplay_bot_level, turn_seconds=60))
            seat = await runtime.join(me.id, me.name, me.is_guest, None, False, None)
            await self._after_quick_join(runtime)
            return runtime, seat, True

    async def _after_quick_join(self, runtime: TableRuntime) -> None:
        """A person came: the wait for bots starts again (unless that filled the table), a change of the
        table (:meth:`table_changed` starts the timer and tells the lobby and the table's sockets)."""
        if runtime.status != "open":
            return
        at = utcnow() + dt.timedelta(seconds=self.hub.settings.quickplay_wait_seconds)
        with contextlib.suppress(TableError):  # started meanwhile
            await runtime.schedule_bots(at)

    # --- rematch ------------------------------------------------------------------------------------
    async def rematch(self, me: Account, table_id: int, stake: bool) -> tuple[TableRuntime, int, bool]:
        """Make (or find) the rematch of a finished table and seat ``me`` in their old seat there. The link
        is a change of the finished table (:meth:`~.runtime.TableRuntime.link_rematch`), made where the table
        is held: two askers at once make one rematch."""
        old = await self.hub.get(table_id)
        if old is None:
            raise no_such_table()
        mine = next((i for i, s in enumerate(old.seats) if s.account_id == me.id), None)
        if mine is None:
            if not old.admits(me.id, None):
                raise no_such_table()  # to an outsider a private table is not there at all
            raise HTTPException(403, "only the table's players can ask for a rematch")
        if old.status != "finished":
            raise HTTPException(409, "the game is not finished")
        if old.rules.competition is not None:
            raise HTTPException(409, "a competition's table has no rematch: its next stage seats you")
        created = False
        lock = self._rematch.get(table_id)
        if lock is None:
            lock = self._rematch[table_id] = asyncio.Lock()
        async with lock:
            new_id = old.rematch_id
            gone = False
            if new_id is not None:
                made = await self.hub.store.row(new_id)
                gone = made is not None and made.state.status == "abandoned"
            if gone:  # nobody came to the last one (or it was closed unfilled): a new rematch, new answers
                async with self.hub.session() as db, db.begin():
                    await db.execute(delete(RematchReply).where(RematchReply.table_id == table_id))
            if new_id is None or gone:
                await self.hub.not_seated_elsewhere(me.id, None)
                rules = old.rules
                runtime = await self.hub.create_table(me.id, TableSettings(
                    rules.ruleset, rules.length, rules.stake, True,
                    tuple(i for i, s in enumerate(old.seats) if s.is_bot and s.account_id is None),
                    rules.bot_level, rules.turn_seconds, rules.partners, rules.name))
                try:
                    await old.link_rematch(runtime.id, new_id)
                    new_id, created = runtime.id, True
                except TableError:  # made meanwhile
                    await runtime.abandon("a rematch was made elsewhere")
                    new_id = old.rematch_id
        runtime_or_none = await self.hub.get(int(new_id or 0))
        if runtime_or_none is None:
            raise HTTPException(404, "the rematch table is gone")
        runtime = runtime_or_none
        seat = next((i for i, s in enumerate(runtime.seats) if s.account_id == me.id and not s.left), None)
        if seat is None:
            if runtime.status != "open":
                raise HTTPException(409, "the rematch has started without you" if runtime.status == "playing"
                                    else "the rematch is over")
            async with self.hub.seating(me.id):
                await self.hub.not_seated_elsewhere(me.id, runtime.id)
                seat = await runtime.join(me.id, me.name, me.is_guest, mine, stake and not me.is_guest,
                                          runtime.rules.invite_code)
        await self._reply(table_id, me.id, "accept", runtime.id)
        return runtime, seat, created

    async def kept_seats(self, table_id: int) -> dict[int, int]:
        """A rematch's seats kept for the old table's players who have not answered yet (seat -> player), for
        ``Settings.rematch_hold_seconds`` from the rematch's making; {} for any other table."""
        made_after = utcnow() - dt.timedelta(seconds=self.hub.settings.rematch_hold_seconds)
        rematched = await self.hub.store.rematch_of(table_id, made_after)
        if rematched is None:
            return {}
        old, seats = rematched
        async with self.hub.session() as db:
            answered = set((await db.scalars(select(RematchReply.account_id)
                                             .where(RematchReply.table_id == old))).all())
        return {s: a for s, a in seats.items() if a not in answered}

    async def decline(self, me: Account, table_id: int) -> None:
        row = await self.hub.store.row(table_id)
        player = row is not None and any(s.account_id == me.id for s in row.state.seats)
        new_id = None if row is None else row.state.rematch_id
        if not player:
            raise HTTPException(403, "only the table's players can answer a rematch")
        if new_id is not None:
            runtime = await self.hub.get(int(new_id))
            if runtime is not None and runtime.status == "open" and any(
                    s.account_id == me.id for s in runtime.seats):
                await runtime.leave(me.id)
        await self._reply(table_id, me.id, "decline", None if new_id is None else int(new_id))

    async def _reply(self, table_id: int, account_id: int, reply: str, new_id: int | None) -> None:
        async with self.hub.session() as db, db.begin():
            row = await db.get(RematchReply, (table_id, account_id))
            if row is None:
                db.add(RematchReply(table_id=table_id, account_id=account_id, reply=reply,
                                    created_at=utcnow()))
            else:
                row.reply, row.created_at = reply, utcnow()
        state = await self.rematch_state(table_id)
        message = {"type": "rematch", "from_table": table_id, "table_id": new_id, "by": account_id,
                   "reply": reply, "players": state["players"]}
        self.hub.bus.publish(table_topic(table_id), message)
        for p in state["players"]:
            self.hub.bus.publish(user_topic(p["account_id"]), message)

    async def rematch_state(self, table_id: int, viewer: int | None = None) -> dict[str, Any]:
        """A finished table's rematch; asked for by ``viewer``, a private table's only to its people."""
        row = await self.hub.store.row(table_id)
        if row is None or (viewer is not None and not admits(row.state, viewer, None)):
            raise no_such_table()
        players = [(i, s.account_id) for i, s in enumerate(row.state.seats) if s.account_id is not None]
        async with self.hub.session() as db:
            names = dict((await db.execute(select(Account.id, Account.name).where(
                Account.id.in_([a for _s, a in players])))).all()) if players else {}
            replies = dict((await db.execute(select(RematchReply.account_id, RematchReply.reply)
                                             .where(RematchReply.table_id == table_id))).all())
        return {"from_table": table_id, "table_id": row.state.rematch_id, "players": [
            {"seat": s, "account_id": a, "name": names.get(a), "reply": replies.get(a)} for s, a in players]}


# --- REST ----------------------------------------------------------------------------------------------
