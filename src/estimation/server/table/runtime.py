"""The table runtime: the one authoritative copy of a table's game, and everything that changes it.

Every change to a table (a seat taken, an action, a timeout, a leaver, a quick-play wait, a rematch link, a
deleted player's name) goes through a :class:`TableRuntime` method that holds the table's ``asyncio.Lock``,
so a table is a single-threaded state machine even with many connections (a new table is the reducer's
``create``, written by the store's ``create``). Each change takes one path (:meth:`TableRuntime._change`):
check and reduce the command with the pure :func:`~.reducer.reduce`, await the :class:`~.store.TableStore`'s
commit at the version the change started from, then adopt the new table and publish (the ack, the next turn,
every connection's own ``Game.view``, the lobby). Memory changes only once the commit is durable, so it
never runs ahead of the database: a process killed at any moment restarts at the last commit.

How a change is written is the store's business (a plain action through the journal's group commit,
anything else in a transaction of the table's own, see :mod:`.store`); a restart loads the last snapshot
and replays the actions journalled after it.

Versions: every commit is one version, carrying a list of public events (never a hand). The last
``event_buffer`` versions stay in memory for reconnecting clients; older gaps get a full snapshot.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import secrets
from collections import OrderedDict, deque
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from ...actions import Action
from ...errors import EstimationError
from ...game import Game
from ...views import seat_part
from ..config import Settings
from ..jsontext import dumps
from .bot_pool import BotPool, bot_seed
from .eager import eager_future
from .hints import HintPool
from .reducer import (
    Abandon,
    Act,
    BotAct,
    Clock,
    Command,
    Events,
    Join,
    Joins,
    Leave,
    LinkRematch,
    PublicTable,
    Rename,
    Rules,
    ScheduleBots,
    SeatBots,
    SeatState,
    SetAway,
    Status,
    TableError,
    TableState,
    Unchanged,
    admits,
    no_such_table,
    pot_split,
    public_table,
    reduce,
)
from .store import Change, Fenced, StoredTable, TableMoved, TableStore
from .wire import PublicViewText, join_objects, update_frames

if TYPE_CHECKING:
    from .connection import Connection

log = logging.getLogger("estimation.server")

#: The seats, rules and refusals are the reducer's; other modules know them from here too.
__all__ = ["Rules", "SeatState", "TableError", "TableHost", "TableRuntime", "cancel_quietly", "joins_of",
           "no_such_table", "runtime_of"]


class TableHost(Protocol):
    """What a table needs of the process that holds it (the :class:`~.hub.Hub`, which imports this module:
    a table never imports the hub)."""

    settings: Settings
    store: TableStore
    hints: HintPool
    bots: BotPool

    def table_changed(self, runtime: TableRuntime, events: Events) -> None:
        """After every committed change: the lobby and the table's topic hear of it."""

    def retire(self, runtime: TableRuntime) -> None:
        """The table is over (finished or abandoned)."""

    def lost(self, runtime: TableRuntime) -> None:
        """Cluster mode: a write was refused by the fence (another worker owns the table now): drop it and
        send its sockets away."""


class TableRuntime:
    def __init__(self, hub: TableHost, table_id: int, rules: Rules, status: Status, version: int, pot: int,
                 seats: list[SeatState], game: Game | None, created_by: int,
                 bots_at: dt.datetime | None = None, rematch_id: int | None = None) -> None:
        self.hub = hub
        self.id = table_id
        self.rules = rules
        self.status = status
        self.version = version
        self.pot = pot
        self.seats = seats
        self.game = game
        self.created_by = created_by
        #: A quick-play table: when its bots come (None: not a quick-play table).
        self.bots_at = bots_at
        #: A finished table's rematch, once somebody asked for one.
        self.rematch_id = rematch_id
        self.lock = asyncio.Lock()
        self.conns: set[Connection] = set()
        self.buffer: deque[tuple[int, Events]] = deque(maxlen=hub.settings.event_buffer)
        #: (seat, action id) -> (version, action text) of the last actions acked, for resends.
        self.action_ids: OrderedDict[tuple[int, str], tuple[int, str]] = OrderedDict()
        self.timer: asyncio.Task[None] | None = None
        #: The human turn the clock runs for: (seat, the event loop's time when a bot takes it over).
        self.deadline: tuple[int, float] | None = None
        #: Rounds scored when the clock was last set, and until when (the event loop's time) the last
        #: round's scores are on show: a person's clock starts after that.
        self.rounds_scored = 0 if game is None else len(game.round_results)
        self.reading_until = 0.0
        self.closed = False
        #: Completed deals in the last record snapshot: an action that completes another one snapshots.
        self.snapshot_deals = -1 if game is None else len(game.deal_log)
        #: Encodes the public facts of every update (the scored rounds once per round scored).
        self.public_text = PublicViewText()
        #: A competition's table: whether spectators may see it (once its stage is over at every table; set
        #: by the competition service). Any other table ignores it.
        self.watchable = False

    # --- what clients see ---------------------------------------------------------------------------
    def public(self) -> PublicTable:
        """The table as the lobby and every client see it (:func:`~.reducer.public_table`). Never a card."""
        return public_table(self.id, self.state(), self._payout_text() if self.status == "finished" else None,
                            self._clock())

    def _clock(self) -> Clock | None:
        """The running turn clock as clients show it: whose turn and the milliseconds left when this was
        built. A duration, not a time of day, so a client's own clock being wrong does not matter."""
        if self.deadline is None:
            return None
        seat, at = self.deadline
        left = max(0, round((at - asyncio.get_running_loop().time()) * 1000))
        return {"seat": seat, "ms_left": left, "seconds": self.rules.turn_seconds}

    def seat_of(self, conn: Connection) -> int | None:
        """The seat ``conn`` plays, checked against the seats as they are now.

        A seat is its player's only while they sit in it: once they leave (over the socket or REST), are
        replaced by a bot or by another player, every connection that held it is a spectator's, here, at
        the first use (the update that announces the change, an action, a catch-up), whichever socket or
        route made the change."""
        seat = conn.seat
        if seat is not None:
            held = self.seats[seat]
            if held.account_id is None or held.account_id != conn.account_id or held.left:
                conn.seat = seat = None
        return seat

    def admits(self, account_id: int | None, invite: str | None) -> bool:
        """Whether someone may see this table at all (:func:`~.reducer.admits`); a competition's table also
        to anyone once :attr:`watchable` (its stage over at every table: fair play)."""
        if self.rules.competition is not None and self.watchable:
            return True
        return admits(self.state(), account_id, invite)

    def view_for(self, seat: int | None) -> dict[str, Any] | None:
        """The one redaction point: ``Game.view``. Nothing else puts game state in a message."""
        return None if self.game is None else self.game.view(seat)

    def snapshot(self, seat: int | None) -> dict[str, Any]:
        return {"type": "snapshot", "version": self.version, "table": self.public(),
                "view": self.view_for(seat)}

    def catch_up(self, seat: int | None, last_version: int | None) -> dict[str, Any]:
        """What a (re)connecting client missed since ``last_version``: the events, or a full snapshot."""
        if last_version is None or last_version > self.version or last_version < 0:
            return self.snapshot(seat)
        if last_version == self.version:
            return {"type": "resume", "from": last_version, "version": self.version, "events": [],
                    "table": self.public(), "view": self.view_for(seat)}
        first = self.buffer[0][0] if self.buffer else self.version + 1
        if last_version + 1 < first:
            return self.snapshot(seat)
        missed = [{"version": v, "events": ev} for v, ev in self.buffer if v > last_version]
        return {"type": "resume", "from": last_version, "version": self.version, "events": missed,
                "table": self.public(), "view": self.view_for(seat)}

    def _broadcast(self, events: Events) -> None:
        """Send every connection the ``update``: the shared part encoded once, the view's public facts
        (``public_view``, from the redaction module) built and encoded once by ``PublicViewText``, and each
        seat's own part (``seat_part``: its hand and legal actions) once per seat. Nothing is built for a
        table nobody watches (a competition's table just made: a stage of 250 built 500 frames for nobody)."""
        if not self.conns:
            return
        head, tail = update_frames(self.version, events, self.public())
        game = self.game
        public = "" if game is None else self.public_text.encode(game)
        frames: dict[int | None, str] = {}
        for conn in list(self.conns):
            if conn.closed:
                self.conns.discard(conn)
                continue
            seat = self.seat_of(conn)
            frame = frames.get(seat)
            if frame is None:
                view = "null" if game is None else join_objects(public, dumps(seat_part(game, seat)))
                frame = frames[seat] = head + view + tail
            conn.send_text(frame)

    # --- the table as the rules see it --------------------------------------------------------------
    def state(self) -> TableState:
        """The table's committed state, for :func:`~.reducer.reduce` (which copies what it changes)."""
        return TableState(self.rules, self.created_by, self.status, self.version, self.pot,
                          tuple(self.seats), self.game, self.bots_at, self.rematch_id)

    def _adopt(self, table: TableState) -> None:
        """Take a committed state as this table's own."""
        self.status, self.pot, self.seats, self.game = table.status, table.pot, list(table.seats), table.game
        self.bots_at, self.rematch_id = table.bots_at, table.rematch_id

    # --- one path for every change: check and reduce, commit, publish ---------------------------------
    async def _change(self, command: Command, *, action_id: str | None = None,
                      ack: Connection | None = None) -> int:
        """Check and reduce ``command``, await its commit, then adopt the new state and publish it.

        Must be called with the lock held. A refusal (:class:`TableError`) raises before anything is
        written; memory changes only once the commit is durable, so it never runs ahead of the database.

        The commit and what follows it (:meth:`_commit`) run at once, as far as they go without waiting
        (:func:`~.eager.eager_future`: on SQLite a table's own transaction runs inline and is published in
        this very turn of the loop), and then in a task of their own: a plain action is published the turn
        after the journal's batch is durable, and the write goes on even if this task is cancelled meanwhile
        (a client gone, a shutdown). The lock is kept until its outcome is known, so no other change starts
        from a version that is not yet durable.
        """
        before = self.state()
        after, events = reduce(before, command)
        seat = command.seat if isinstance(command, (Act, BotAct)) else None
        record = None
        game = after.game
        if game is not None and len(game.deal_log) != self.snapshot_deals:
            record = dumps(game.record(include_seed=True))  # a plain action snapshots when it ends a deal
        done = eager_future(self._commit(Change(self.id, before, after, events, seat, action_id, record),
                                         ack))
        cancelled = False
        while not done.done():
            try:
                await asyncio.shield(done)
            except asyncio.CancelledError:
                cancelled = True
            except Exception:
                pass  # the commit's own failure: raised by result() below
        try:
            version = done.result()
        except Fenced:
            # Cluster mode: another worker owns the table now (the write was refused): this copy is stale.
            self.hub.lost(self)
            raise TableMoved(self.id, 0) from None
        if cancelled:
            raise asyncio.CancelledError
        return version

    async def _commit(self, change: Change, ack: Connection | None) -> int:
        """Await the store's commit of ``change``, then adopt the new table and publish it."""
        await self.hub.store.commit(change)
        after = change.after
        if after.game is not None and change.snapshot:
            self.snapshot_deals = len(after.game.deal_log)  # the store wrote the record with this change
        self._adopt(after)
        self._committed(after.version, change.events, change.seat, change.action_id, change.action)
        self._publish(change.events, change.action_id, ack)
        return after.version

    def _publish(self, events: Events, action_id: str | None, ack: Connection | None) -> None:
        """The one publish path, after every commit: the ack, the next turn, every connection's update, the
        lobby."""
        if ack is not None and action_id is not None:
            ack.send({"type": "ack", "id": action_id, "version": self.version})
        self._schedule()  # first: the update carries the new turn's clock
        self._broadcast(events)
        self.hub.table_changed(self, events)  # the live lobby, through the bus
        if any(e["kind"] == "start" for e in events) and sum(not s.is_bot for s in self.seats) == 1:
            self.hub.hints.warm()  # a practice table: hints will be asked for
        if self.status in ("finished", "abandoned"):
            self.hub.retire(self)

    def _committed(self, version: int, events: Events, seat: int | None, action_id: str | None,
                   action: str | None) -> None:
        self.version = version
        self.buffer.append((version, events))
        if action_id is not None and seat is not None and action is not None:
            self._remember(seat, action_id, version, action)

    def _remember(self, seat: int, action_id: str, version: int, action: str) -> None:
        self.action_ids[(seat, action_id)] = (version, action)
        while len(self.action_ids) > 4 * self.hub.settings.event_buffer:
            self.action_ids.popitem(last=False)

    def _payout_text(self) -> dict[str, int] | None:
        """The pot split as clients see it (seat as text -> coins), None at an unstaked table. It is in the
        ``over`` event and in the table's public facts, so a client that reconnects after the end (or opens
        the table on another device) shows the split too."""
        if self.game is None:
            return None
        return {str(k): v for k, v in pot_split(self.rules.stake, self.seats, self.game).items()} or None

    # --- seats -----------------------------------------------------------------------------------
    async def join(self, account_id: int, name: str, is_guest: bool, seat: int | None, stake: bool,
                   invite: str | None) -> int:
        async with self.lock:
            if not self.admits(account_id, invite):
                raise no_such_table()
            command = Join(account_id, name, is_guest, seat, stake, invite, secrets.randbits(63))
            await self._change(command)
            return next(i for i, s in enumerate(self.seats) if s.account_id == account_id)

    async def join_all(self, players: Sequence[tuple[int, str, bool, int]]) -> None:
        """Seat each (account, name, is_guest, seat) of ``players`` in one change (:class:`Joins`), with
        this table's invite: a competition's entrants at their table."""
        async with self.lock:
            invite = self.rules.invite_code
            if not all(self.admits(account_id, invite) for account_id, _, _, _ in players):
                raise no_such_table()
            await self._change(joins_of(players, invite))

    async def fill_with_bots(self, account_id: int) -> list[int]:
        """The creator seats a bot in every empty seat (a private table whose friends did not all come);
        the game starts once the four seats are taken. Returns the seats filled."""
        async with self.lock:
            empty = [i for i, s in enumerate(self.seats) if not s.taken]
            await self._change(SeatBots(account_id, secrets.randbits(63)))
            return empty

    async def hint_view(self, account_id: int) -> dict[str, Any]:
        """The view a hint is computed from: the player's own seat, at a practice table, on their turn.

        Practice only: every other seat a bot from the start, so a hint can never help against a person.
        """
        async with self.lock:
            seat = next((i for i, s in enumerate(self.seats) if s.account_id == account_id and not s.left),
                        None)
            if seat is None:
                raise TableError("not_seated", "you have no seat at this table")
            if not all(s.is_bot for i, s in enumerate(self.seats) if i != seat):
                raise TableError("not_practice", "hints are for practice tables (every other seat a bot)",
                                 403)
            game = self.game
            if self.status != "playing" or game is None or game.to_move != seat:
                raise TableError("not_your_turn", "a hint is for your own turn")
            return game.view(seat)

    async def leave(self, account_id: int, replaced: bool = False) -> None:
        """``account_id`` leaves its seat; ``replaced``: a bot plays it on even where a leaver ends the
        match (:class:`~.reducer.Leave`)."""
        async with self.lock:
            if not any(s.account_id == account_id and not s.left for s in self.seats) and not self.admits(
                    account_id, None):
                raise no_such_table()
            await self._change(Leave(account_id, replaced))

    async def abandon(self, reason: str) -> bool:
        """Close a table that never started, refunding every stake; False if it has started meanwhile."""
        async with self.lock:
            if self.status != "open":
                return False
            await self._change(Abandon(reason))
            return True

    async def schedule_bots(self, at: dt.datetime) -> None:
        """A quick-play table's bots come at ``at`` unless people fill it first (published: the lobby and
        the table's sockets hear of it, and the social part starts its timer)."""
        async with self.lock:
            await self._change(ScheduleBots(at))

    async def link_rematch(self, rematch_id: int, expected: int | None) -> None:
        """This finished table's rematch is ``rematch_id``, if its link is still ``expected``; else
        :class:`TableError` ``rematch_made``."""
        async with self.lock:
            await self._change(LinkRematch(rematch_id, expected))

    async def rename(self, account_id: int, name: str) -> bool:
        """Show every seat this player holds or held here as ``name``, in the seats and the game's players;
        False if there was nothing to change. The events before it carried the old name: a client that
        missed them gets a snapshot instead."""
        async with self.lock:
            try:
                await self._change(Rename(account_id, name))
            except Unchanged:
                return False
            last = self.buffer.pop()
            self.buffer.clear()
            self.buffer.append(last)
            return True

    # --- play --------------------------------------------------------------------------------------
    async def act(self, conn: Connection, action_id: str, text: str, version: int | None) -> None:
        """A client's action: a resend is acked again; anything else is checked by the reducer (game over?
        whose turn? legal? stale version?), committed and published."""
        async with self.lock:
            seat = self.seat_of(conn)
            if seat is None:
                raise TableError("not_seated", "spectators cannot act")
            done = self.action_ids.get((seat, action_id))
            if done is not None:
                version_done, applied = done
                if not _same_action(text, applied):
                    raise TableError("id_reused", f"action id {action_id!r} was used for {applied!r}: a new "
                                                  "action needs a new id")
                # a resend of an action already committed: ack it again, apply nothing
                conn.send({"type": "ack", "id": action_id, "version": version_done, "duplicate": True})
                return
            await self._change(Act(seat, text, version), action_id=action_id, ack=conn)

    async def come_back(self, conn: Connection) -> None:
        """A player's ``back``: the seat this connection still holds is no longer away."""
        async with self.lock:
            seat = self.seat_of(conn)
        if seat is None:
            raise TableError("not_seated", "spectators have no seat to come back to")
        await self.set_away(seat, False)

    async def set_away(self, seat: int, away: bool) -> None:
        async with self.lock:
            with contextlib.suppress(Unchanged):
                await self._change(SetAway(seat, away))

    # --- bots and the clock -------------------------------------------------------------------------
    def _schedule(self) -> None:
        """After every commit: a bot's turn gets a short delay, a human's turn the table's clock."""
        if self.timer is not None and self.timer is not asyncio.current_task():
            self.timer.cancel()
        self.timer = None
        self.deadline = None
        game = self.game
        if self.closed or self.status != "playing" or game is None or game.to_move is None:
            return
        if len(game.round_results) > self.rounds_scored:  # a round was scored: its breakdown is on show
            self.rounds_scored = len(game.round_results)
            self.reading_until = asyncio.get_running_loop().time() + self.hub.settings.round_end_seconds
        seat = game.to_move
        if self.seats[seat].bot_plays:
            delay, timeout = self.hub.settings.bot_delay, False
            self.hub.bots.warm()  # the pool's processes start while the bot waits its delay
        elif self.rules.turn_seconds > 0:
            # A clock that runs out ends in a bot's move for the person (the takeover): the pool starts now,
            # not then (its start loads the bots and their compiled kernels: 0.6 s from numba's cache,
            # seconds on a first compile).
            self.hub.bots.warm()
            # The clock waits while the round's scores are on show (the pages open them when it is scored).
            now = asyncio.get_running_loop().time()
            delay, timeout = float(self.rules.turn_seconds) + max(0.0, self.reading_until - now), True
            self.deadline = (seat, now + delay)
        else:
            return
        self.timer = asyncio.create_task(self._turn_after(delay, self.version, seat, timeout))

    async def _turn_after(self, delay: float, version: int, seat: int, timeout: bool) -> None:
        await asyncio.sleep(delay)
        # Once the wait is over the move must not be cut in half by a cancel: shield the commit.
        await asyncio.shield(self._bot_turn(version, seat, timeout))

    async def _bot_turn(self, version: int, seat: int, timeout: bool) -> None:
        try:
            async with self.lock:
                game = self.game
                if (self.closed or self.version != version or game is None or game.to_move != seat
                        or self.status != "playing"):
                    return
                legal = game.legal_actions()
                if len(legal) == 1:
                    # The only legal action (a fifth of a bot's moves: the last cards, a forced follow):
                    # every level plays it, so no bot process is asked and no view is built.
                    await self._change(BotAct(seat, legal[0].text, timeout))
                    return
                text = await self.hub.bots.choose(self.id, self.rules.bot_level,
                                                  bot_seed(self.id, seat, version), game.view(seat))
                if text not in {a.text for a in legal}:
                    log.error("table %s: bot %s chose %r, not legal; playing the first legal action",
                              self.id, self.rules.bot_level, text)
                    text = legal[0].text
                await self._change(BotAct(seat, text, timeout))
        except TableMoved:
            return  # another worker owns the table now: its bots play there
        except Exception:
            log.exception("table %s: bot turn failed; retrying", self.id)
            await asyncio.sleep(1.0)
            async with self.lock:
                if self.version == version:
                    self._schedule()

    # --- lifecycle ---------------------------------------------------------------------------------
    def shutdown(self) -> None:
        self.closed = True
        if self.timer is not None:
            self.timer.cancel()
        for conn in list(self.conns):
            conn.close()


def joins_of(players: Sequence[tuple[int, str, bool, int]], invite: str | None) -> Joins:
    """Each (account, name, is_guest, seat) of ``players`` seated unstaked with ``invite``, in one change."""
    return Joins(tuple(Join(account_id, name, is_guest, seat, False, invite, secrets.randbits(63))
                       for account_id, name, is_guest, seat in players))


def runtime_of(hub: TableHost, stored: StoredTable) -> TableRuntime:
    """A table's runtime from its store: the table as last committed, its last events and the action ids
    they acknowledged."""
    state = stored.state
    runtime = TableRuntime(hub, stored.table_id, state.rules, state.status, state.version, state.pot,
                           list(state.seats), state.game, state.created_by, state.bots_at, state.rematch_id)
    runtime.snapshot_deals = stored.snapshot_deals
    for version, events, seat, action_id, action in stored.recent:
        runtime.buffer.append((version, events))
        if action_id is not None and seat is not None and action is not None:
            runtime._remember(seat, action_id, version, action)
    return runtime


def _same_action(text: str, applied: str) -> bool:
    """Whether a resent action's text is the action already applied under its id (spacing aside)."""
    try:
        return Action.parse(text).text == applied
    except EstimationError:
        return False


def cancel_quietly(task: asyncio.Task[Any] | None) -> None:
    if task is not None:
        with contextlib.suppress(Exception):
            task.cancel()
