"""The table runtime: the one authoritative copy of a table's game, and everything that changes it.

Every change to a table (a seat taken, an action, a timeout, a leaver) goes through a :class:`TableRuntime`
method that holds the table's ``asyncio.Lock``, so a table is a single-threaded state machine even with
many connections. Each change is written to the database in one transaction *before* anyone is told; only
then is the action acked and each connection sent its own ``Game.view``. If the write fails, the in-memory
state is put back as it was, so memory never runs ahead of the database: a process killed at any moment
restarts at the last commit.

Two kinds of commit: a *plain action* (one action, no seat or coin changes, the game goes on) is one
``events`` row with the action's text plus the table's version, written through the hub's
:class:`~.journal.Journal` (group commit with other tables); when the action completes a deal the same
journal row also carries the record with the seed (a snapshot). Every other change (a join, the start, a
leaver, an away seat, the action that ends the game, with its payout and history rows) is a transaction of
its own that also writes the snapshot. A restart loads the last snapshot and replays the actions
journalled after it.

Versions: every commit is one version, carrying a list of public events (never a hand). The last
``event_buffer`` versions stay in memory for reconnecting clients; older gaps get a full snapshot.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import hmac
import json
import logging
import secrets
import zlib
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from .. import new_game
from ..actions import Action
from ..bots import Bot, make_bot
from ..errors import EstimationError
from ..game import Game
from ..record import load_record
from ..stakes import split_pot, split_pot_by_side
from ..views import seat_part
from . import history, wallets
from .eager import eager_future
from .journal import JournalRow
from .models import Event, Seat, Table, utcnow
from .wire import PublicViewText, dumps, join_objects, update_frames

if TYPE_CHECKING:
    from .connection import Connection
    from .hub import Hub

log = logging.getLogger("estimation.server")


class TableError(Exception):
    """A refusal to pass back to the one client that asked: ``code`` is machine-readable, the text human."""

    def __init__(self, code: str, message: str, status: int = 409) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


def no_such_table() -> TableError:
    """The one answer for a table that is not there and for a private table to an outsider, on every
    route and on the socket: the two must not be told apart."""
    return TableError("no_such_table", "there is no such table", 404)


@dataclass(slots=True)
class SeatState:
    account_id: int | None = None
    name: str | None = None
    is_bot: bool = False
    staked: bool = False
    away: bool = False
    left: bool = False

    @property
    def taken(self) -> bool:
        return self.is_bot or self.account_id is not None

    def copy(self) -> SeatState:
        """For a table's save point, taken before every change: positional, about a fifth of the cost of
        ``dataclasses.replace`` (which binds every field by keyword), four times an action."""
        return SeatState(self.account_id, self.name, self.is_bot, self.staked, self.away, self.left)

    @property
    def bot_plays(self) -> bool:
        """A bot moves for this seat: a bot seat, a human who left, or a human marked away."""
        return self.is_bot or self.left or self.away


@dataclass(slots=True)
class Rules:
    ruleset: str
    length: str
    stake: int
    private: bool
    invite_code: str | None
    bot_level: str
    turn_seconds: int
    #: A partnership table (RULES.md, Partnerships): seats 0+2 against 1+3, standings, history and the pot
    #: by side.
    partners: bool = False


class TableRuntime:
    def __init__(self, hub: Hub, table_id: int, rules: Rules, status: str, version: int, pot: int,
                 seats: list[SeatState], game: Game | None, created_by: int) -> None:
        self.hub = hub
        self.id = table_id
        self.rules = rules
        self.status = status
        self.version = version
        self.pot = pot
        self.seats = seats
        self.game = game
        self.created_by = created_by
        self.lock = asyncio.Lock()
        self.conns: set[Connection] = set()
        self.buffer: deque[tuple[int, list[dict[str, Any]]]] = deque(maxlen=hub.settings.event_buffer)
        #: (seat, action id) -> (version, action text) of the last actions acked, for resends.
        self.action_ids: OrderedDict[tuple[int, str], tuple[int, str]] = OrderedDict()
        self.bots: dict[int, Bot] = {}
        self.timer: asyncio.Task[None] | None = None
        #: The human turn the clock runs for: (seat, the event loop's time when a bot takes it over).
        self.deadline: tuple[int, float] | None = None
        self.closed = False
        #: Completed deals in the last record snapshot: an action that completes another one snapshots.
        self.snapshot_deals = -1 if game is None else len(game.deal_log)
        #: Encodes the public facts of every update (the scored rounds once per round scored).
        self.public_text = PublicViewText()

    # --- what clients see ---------------------------------------------------------------------------
    def public(self) -> dict[str, Any]:
        """The table as the lobby and every client see it: rules, seats, status. Never a card."""
        return {
            "id": self.id, "ruleset": self.rules.ruleset, "length": self.rules.length,
            "partners": self.rules.partners,
            "stake": self.rules.stake, "private": self.rules.private, "bot_level": self.rules.bot_level,
            "turn_seconds": self.rules.turn_seconds, "status": self.status, "version": self.version,
            "pot": self.pot, "payout": self._payout_text() if self.status == "finished" else None,
            "seats": [{"seat": i, "name": s.name, "account_id": s.account_id, "bot": s.is_bot,
                       "staked": s.staked, "away": s.away, "left": s.left} for i, s in enumerate(self.seats)],
            "clock": self._clock(),
        }

    def _clock(self) -> dict[str, int] | None:
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
        """Whether someone may see this table at all: anyone for a public table; for a private one its
        creator, its players (past ones too), or whoever has the invite code."""
        if not self.rules.private:
            return True
        if account_id is not None and (account_id == self.created_by
                                       or any(s.account_id == account_id for s in self.seats)):
            return True
        code = self.rules.invite_code
        return invite is not None and code is not None and hmac.compare_digest(
            invite.encode("utf-8", "surrogatepass"), code.encode())

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

    def _broadcast(self, events: list[dict[str, Any]]) -> None:
        """Send every connection the ``update``: the shared part encoded once, the view's public facts
        (``public_view``, from the redaction module) built and encoded once by ``PublicViewText``, and each
        seat's own part (``seat_part``: its hand and legal actions) once per seat."""
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

    # --- persistence ------------------------------------------------------------------------------
    def _save_point(self) -> tuple[Any, ...]:
        return (self.game.clone() if self.game is not None else None, [s.copy() for s in self.seats],
                self.status, self.pot)

    def _restore(self, point: tuple[Any, ...]) -> None:
        self.game, self.seats, self.status, self.pot = point

    def _journal(self, game: Game, events: list[dict[str, Any]], seat: int | None, action_id: str | None,
                 action: str, published: Callable[[int], None]) -> asyncio.Future[None]:
        """A plain action's commit: its row goes to the journal's group commit, and once the batch is durable
        the journal calls back, in the same turn of the event loop, to move the version on and publish.

        Publishing from the journal's turn instead of from this table's task is what keeps an action's path
        short under load: the task would resume only in a later turn of a loop that is busy with hundreds of
        tables, and every turn it waits is latency every client sees. The action that completes a deal also
        writes the record snapshot, in the same group commit.
        """
        version = self.version + 1
        deals = len(game.deal_log)
        record = dumps(game.record(include_seed=True)) if deals != self.snapshot_deals else None

        def durable() -> None:
            if record is not None:
                self.snapshot_deals = deals
            self._committed(version, events, seat, action_id, action)
            published(version)

        return self.hub.journal.submit(
            JournalRow(self.id, version, seat, action_id, action, dumps(events), record), durable)

    async def _commit(self, events: list[dict[str, Any]], *, seat: int | None = None,
                      action_id: str | None = None, action: str | None = None, seats_changed: bool = False,
                      extra: Callable[[AsyncSession], Awaitable[None]] | None = None) -> int:
        """Write the new version, its events, the record snapshot, the seats if they changed and ``extra`` in
        one transaction of this table's own; the new version once it is durable."""
        version = self.version + 1
        data = dumps(events)
        game = self.game
        record = None if game is None else json.dumps(game.record(include_seed=True), separators=(",", ":"))
        pot = None
        # Nothing here may wait inside the writer's turn: the pool's checkout can (when every connection is
        # out), so it comes first; and the session is closed directly, not by ``async with`` (SQLAlchemy
        # closes in a task of its own, a turn of the loop). On SQLite, whose statements run inline, the
        # whole transaction then runs without waiting once, in the turn that made the change
        # (``eager_future`` in ``_change``). Waiting in the turn made every later transaction wait a turn
        # of the loop to take it over: 0.5 s (2.8 s at worst) for a game's last action when 500 games
        # ended in a minute.
        db = self.hub.session()
        try:
            await db.connection()
            async with self.hub.journal.writing():
                if extra is not None:
                    await extra(db)
                values: dict[str, Any] = {"version": version, "status": self.status}
                if record is not None:
                    values["record"] = record
                    values["record_version"] = version
                if self.status in ("finished", "abandoned"):
                    values["finished_at"] = utcnow()
                if self.status == "finished" and not self._pot_split():
                    values["paid_out"] = True  # an unstaked game: nothing to pay, done in this update
                moved = (update(Table).where(Table.id == self.id, Table.version == self.version)
                         .values(**values).execution_options(synchronize_session=False))
                result = await db.execute(moved)
                if result.rowcount != 1:  # type: ignore[attr-defined]
                    raise RuntimeError(f"table {self.id} moved on elsewhere (another process owns it)")
                if seats_changed:  # one executemany by primary key (on PostgreSQL one round trip, not four)
                    await db.execute(update(Seat), [
                        {"table_id": self.id, "seat": i, "account_id": s.account_id, "name": s.name,
                         "is_bot": s.is_bot, "staked": s.staked, "away": s.away, "left": s.left}
                        for i, s in enumerate(self.seats)])
                db.add(Event(table_id=self.id, version=version, seat=seat, action_id=action_id, action=action,
                             data=data))
                if extra is not None and self.rules.stake > 0:  # only wallet moves change the pot
                    pot = await db.scalar(select(Table.pot).where(Table.id == self.id))
                await db.commit()
        finally:
            await db.close()
        if pot is not None:
            self.pot = int(pot)
        if game is not None:
            self.snapshot_deals = len(game.deal_log)
        self._committed(version, events, seat, action_id, action)
        return version

    def _committed(self, version: int, events: list[dict[str, Any]], seat: int | None,
                   action_id: str | None, action: str | None) -> None:
        self.version = version
        self.buffer.append((version, events))
        if action_id is not None and seat is not None and action is not None:
            self._remember(seat, action_id, version, action)

    def _remember(self, seat: int, action_id: str, version: int, action: str) -> None:
        self.action_ids[(seat, action_id)] = (version, action)
        while len(self.action_ids) > 4 * self.hub.settings.event_buffer:
            self.action_ids.popitem(last=False)

    async def _change(self, mutate: Callable[[], list[dict[str, Any]]], *, seat: int | None = None,
                      action_id: str | None = None, seats_changed: bool = False,
                      extra: Callable[[AsyncSession], Awaitable[None]] | None = None,
                      ack: Connection | None = None) -> int:
        """Mutate in memory, commit, then ack and broadcast; on any failure put memory back as it was.

        Must be called with the lock held. ``mutate`` returns the public events of the change; when the game
        is over after it, the game's results and payout are written in the same transaction.
        """
        point = self._save_point()
        try:
            events = mutate()
            game = self.game
            finishing = game is not None and game.is_over and self.status == "playing"
            if finishing:
                self.status = "finished"
                events = [*events, *self._over_events()]
                extra = self._with_finish(extra, events)
            action = next((str(e["action"]) for e in events if e.get("kind") == "action"), None)

            def publish(version: int) -> None:
                if ack is not None and action_id is not None:
                    ack.send({"type": "ack", "id": action_id, "version": version})
                self._schedule()  # first: the update carries the new turn's clock
                self._broadcast(events)
                self.hub.social.table_changed(self, events)  # the live lobby, through the bus
                if self.status in ("finished", "abandoned"):
                    self.hub.retire(self)

            write: asyncio.Future[Any]
            plain = extra is None and not seats_changed and not finishing  # one action, nothing else moved
            if plain and action is not None and game is not None:
                write = self._journal(game, events, seat, action_id, action, publish)
            else:
                write = eager_future(self._commit(
                    events, seat=seat, action_id=action_id, action=action,
                    seats_changed=seats_changed or finishing, extra=extra))
            # The write goes on even if this task is cancelled meanwhile (a client gone, a shutdown): memory
            # must end up where the database is, so wait for the outcome before giving up (and keep the lock
            # until then, so that no other change starts from a version that is not yet durable).
            cancelled = False
            while not write.done():
                try:
                    await asyncio.shield(write)
                except asyncio.CancelledError:
                    cancelled = True
                except Exception:
                    pass  # the write's own failure: raised by result() below
            result = write.result()
        except BaseException:
            self._restore(point)
            raise
        if result is None:  # the journal's path: already published when the batch became durable
            version = self.version
        else:
            version = result
            publish(version)
        if cancelled:
            raise asyncio.CancelledError
        return version

    def _over_events(self) -> list[dict[str, Any]]:
        assert self.game is not None
        over: dict[str, Any] = {"kind": "over", "totals": list(self.game.totals), "places": self.game.places,
                                "ended": self.game.ended}
        if self.game.partners:
            over["sides"] = self.game.sides
        return [over]

    def _leavers(self) -> set[int]:
        gone = {i for i, s in enumerate(self.seats) if s.left}
        if self.game is not None and self.game.ended is not None:
            gone.add(int(self.game.ended["seat"]))
        return gone

    def _pot_split(self) -> dict[int, int]:
        """Coins per staking seat once the game is over (ruling 11). Derived, not stored: nobody can leave a
        finished table, so the leavers, the stakers and the totals no longer change."""
        game = self.game
        assert game is not None
        leavers = self._leavers()
        stakers = [i for i, s in enumerate(self.seats) if s.staked and s.account_id is not None]
        forfeit = [s for s in stakers if s in leavers]
        sides = game.sides
        if sides is not None:  # partners: the pot by side
            return split_pot_by_side(self.rules.stake, stakers, sides["places"], forfeit)
        return split_pot(self.rules.stake, stakers, game.totals, forfeit)

    def _payout_text(self) -> dict[str, int] | None:
        """The pot split as clients see it (seat as text -> coins), None at an unstaked table. It is in the
        ``over`` event and in the table's public facts, so a client that reconnects after the end (or opens
        the table on another device) shows the split too."""
        if self.game is None:
            return None
        return {str(k): v for k, v in self._pot_split().items()} or None

    def _with_finish(self, extra: Callable[[AsyncSession], Awaitable[None]] | None,
                     events: list[dict[str, Any]]) -> Callable[[AsyncSession], Awaitable[None]]:
        """The finishing transaction: whatever the change wrote, plus the payout and the history rows."""
        game = self.game
        assert game is not None
        leavers = self._leavers()
        coins = self._pot_split()
        stakers = list(coins)
        payouts = {seat: (self.seats[seat].account_id or 0, c) for seat, c in coins.items()}
        humans = {i: (s.account_id, i in leavers) for i, s in enumerate(self.seats)
                  if s.account_id is not None}
        if stakers:
            events[-1]["payout"] = {str(k): v for k, v in coins.items()}

        async def finish(db: AsyncSession) -> None:
            if extra is not None:
                await extra(db)
            if stakers:
                await wallets.pay_out(db, self.id, payouts)
            # else nothing to pay: ``_commit`` sets ``paid_out`` in the table's own update (one round trip
            # fewer on PostgreSQL, where each is a turn of a busy loop for a game's last action)
            for row in history.result_rows(self.id, game, {k: (a, left) for k, (a, left) in humans.items()
                                                           if a is not None}, coins):
                db.add(row)

        return finish

    # --- seats -----------------------------------------------------------------------------------
    async def join(self, account_id: int, name: str, is_guest: bool, seat: int | None, stake: bool,
                   invite: str | None) -> int:
        async with self.lock:
            if not self.admits(account_id, invite):
                raise no_such_table()
            if self.status != "open":
                raise TableError("not_open", "this table is not taking players")
            if any(s.account_id == account_id for s in self.seats):
                raise TableError("already_seated", "you already have a seat at this table")
            if seat is None:
                seat = self._free_seat()
                if seat is None:
                    raise TableError("full", "every seat is taken")
            elif self.seats[seat].taken:
                raise TableError("seat_taken", f"seat {seat} is taken")
            staking = stake and self.rules.stake > 0
            if staking and is_guest:
                raise TableError("guest_cannot_stake", "guests cannot stake: register an account", 403)
            chosen = seat

            def mutate() -> list[dict[str, Any]]:
                self.seats[chosen] = SeatState(account_id=account_id, name=name, staked=staking)
                events: list[dict[str, Any]] = [{"kind": "join", "seat": chosen, "name": name,
                                                 "staked": staking}]
                if all(s.taken for s in self.seats):
                    events.extend(self._start())
                return events

            async def pay(db: AsyncSession) -> None:
                if staking:
                    await wallets.stake_in(db, self.id, account_id, self.rules.stake)

            try:
                await self._change(mutate, seats_changed=True, extra=pay)
            except wallets.WalletError as exc:
                raise TableError("wallet", str(exc), 402) from None
            return chosen

    def _free_seat(self) -> int | None:
        """The seat a player who asks for none gets: the first free one; at a partnership table, first a
        free seat opposite a human who has no partner yet, so that people who join one after the other
        play together, and the bots make the other side."""
        free = [i for i, s in enumerate(self.seats) if not s.taken]
        if self.rules.partners:
            for i in free:
                across = self.seats[(i + 2) & 3]
                if across.account_id is not None:
                    return i
        return free[0] if free else None

    async def fill_with_bots(self, account_id: int) -> list[int]:
        """The creator seats a bot in every empty seat (a private table whose friends did not all come);
        the game starts once the four seats are taken. Returns the seats filled."""
        async with self.lock:
            if account_id != self.created_by:
                raise TableError("forbidden", "only the table's creator can seat bots", 403)
            if self.status != "open":
                raise TableError("not_open", "this table is not taking players")
            empty = [i for i, s in enumerate(self.seats) if not s.taken]
            if not empty:
                raise TableError("full", "every seat is taken")

            def mutate() -> list[dict[str, Any]]:
                events: list[dict[str, Any]] = []
                for i in empty:
                    self.seats[i] = SeatState(is_bot=True, name=f"Bot {i + 1}")
                    events.append({"kind": "join", "seat": i, "name": f"Bot {i + 1}", "staked": False,
                                   "bot": True})
                events.extend(self._start())
                return events

            await self._change(mutate, seats_changed=True)
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

    def _start(self) -> list[dict[str, Any]]:
        names = [s.name or f"Seat {i}" for i, s in enumerate(self.seats)]
        self.game = new_game(self.rules.ruleset, self.rules.length, secrets.randbits(63), names,
                             partners=self.rules.partners)
        self.status = "playing"
        if sum(not s.is_bot for s in self.seats) == 1:  # a practice table: hints will be asked for
            self.hub.hints.warm()
        return [{"kind": "start", "players": names, "dealer": self.game.dealer}]

    async def leave(self, account_id: int) -> None:
        async with self.lock:
            seat = next((i for i, s in enumerate(self.seats) if s.account_id == account_id and not s.left),
                        None)
            if seat is None:
                raise TableError("not_seated", "you have no seat at this table") if self.admits(
                    account_id, None) else no_such_table()
            if self.status == "open":
                await self._leave_open(seat, account_id)
            elif self.status == "playing":
                await self._leave_playing(seat)
            else:
                raise TableError("not_playing", "this table is over")

    async def _leave_open(self, seat: int, account_id: int) -> None:
        staked = self.seats[seat].staked

        def mutate() -> list[dict[str, Any]]:
            self.seats[seat] = SeatState()
            events: list[dict[str, Any]] = [{"kind": "leave", "seat": seat, "replaced_by": None}]
            if not any(s.account_id is not None for s in self.seats):
                self.status = "abandoned"
                events.append({"kind": "abandoned"})
            return events

        async def give_back(db: AsyncSession) -> None:
            if staked:
                await wallets.refund(db, self.id, account_id)

        await self._change(mutate, seats_changed=True, extra=give_back)

    async def _leave_playing(self, seat: int) -> None:
        game = self.game
        assert game is not None

        def mutate() -> list[dict[str, Any]]:
            self.seats[seat].left = True
            if game.ruleset.leaver_ends_match:
                game.end_match_left(seat)
                return [{"kind": "leave", "seat": seat, "replaced_by": None}]
            return [{"kind": "leave", "seat": seat, "replaced_by": "bot"}]

        await self._change(mutate, seats_changed=True)

    async def abandon(self, reason: str) -> bool:
        """Close a table that never started, refunding every stake; False if it has started meanwhile."""
        async with self.lock:
            if self.status != "open":
                return False
            humans = [s.account_id for s in self.seats if s.account_id is not None]

            def mutate() -> list[dict[str, Any]]:
                self.status = "abandoned"
                self.seats = [SeatState(is_bot=s.is_bot, name=s.name) if s.is_bot else SeatState()
                              for s in self.seats]
                return [{"kind": "abandoned", "reason": reason}]

            async def give_back(db: AsyncSession) -> None:
                for account_id in humans:
                    await wallets.refund(db, self.id, account_id)

            await self._change(mutate, seats_changed=True, extra=give_back)
            return True

    # --- play --------------------------------------------------------------------------------------
    async def act(self, conn: Connection, action_id: str, text: str, version: int | None) -> None:
        """A client's action, checked in the order: game over? whose turn? legal? stale version?"""
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
            game = self.game
            if game is None or self.status == "open":
                raise TableError("not_started", "the game has not started")
            if game.is_over or self.status != "playing":
                raise TableError("game_over", "the game is over")
            if game.to_move != seat:
                raise TableError("not_your_turn", f"it is seat {game.to_move}'s turn, not yours")
            try:
                action = Action.parse(text)
            except EstimationError as exc:
                raise TableError("invalid", str(exc)) from None
            if action.seat != seat:
                raise TableError("not_your_seat", f"you play seat {seat}, not seat {action.seat}")
            if action not in game.legal_actions():
                try:
                    game.clone().apply(action)
                    reason = "not a legal action now"
                except EstimationError as exc:
                    reason = str(exc)
                raise TableError("illegal", reason)
            if version is not None and version != self.version:
                raise TableError("stale", f"you acted on version {version}; the table is at {self.version}")
            back = self.seats[seat].away

            def mutate() -> list[dict[str, Any]]:
                events = []
                if back:
                    self.seats[seat].away = False
                    events.append({"kind": "away", "seat": seat, "away": False})
                events.append(self._apply(game, action, seat, by_bot=False))
                return events

            await self._change(mutate, seat=seat, action_id=action_id, seats_changed=back, ack=conn)

    def _apply(self, game: Game, action: Action, seat: int, by_bot: bool) -> dict[str, Any]:
        round_no, deal = game.round_no, game.deal_no + 1
        game.apply(action)
        return {"kind": "action", "seat": seat, "action": action.text, "round": round_no, "deal": deal,
                "bot": by_bot}

    async def come_back(self, conn: Connection) -> None:
        """A player's ``back``: the seat this connection still holds is no longer away."""
        async with self.lock:
            seat = self.seat_of(conn)
        if seat is None:
            raise TableError("not_seated", "spectators have no seat to come back to")
        await self.set_away(seat, False)

    async def set_away(self, seat: int, away: bool) -> None:
        async with self.lock:
            if self.status != "playing" or self.seats[seat].away == away or self.seats[seat].left:
                return

            def mutate() -> list[dict[str, Any]]:
                self.seats[seat].away = away
                return [{"kind": "away", "seat": seat, "away": away}]

            await self._change(mutate, seats_changed=True)

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
        seat = game.to_move
        if self.seats[seat].bot_plays:
            delay, timeout = self.hub.settings.bot_delay, False
        elif self.rules.turn_seconds > 0:
            delay, timeout = float(self.rules.turn_seconds), True
            self.deadline = (seat, asyncio.get_running_loop().time() + delay)
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
                view = game.view(seat)
                # The bots' own threads: never the loop's default pool, which password hashing once
                # filled (a login flood stalled every table's bots).
                text = await asyncio.get_running_loop().run_in_executor(
                    self.hub.bot_pool, self._bot_choice, seat, view)
                action = Action.parse(text)
                if action not in game.legal_actions():
                    log.error("table %s: bot %s chose %r, not legal; playing the first legal action",
                              self.id, self.rules.bot_level, text)
                    action = game.legal_actions()[0]
                mark_away = timeout and not self.seats[seat].away

                def mutate() -> list[dict[str, Any]]:
                    events = []
                    if mark_away:
                        self.seats[seat].away = True
                        events.append({"kind": "away", "seat": seat, "away": True, "reason": "timeout"})
                    events.append(self._apply(game, action, seat, by_bot=True))
                    return events

                await self._change(mutate, seat=seat, seats_changed=mark_away)
        except Exception:
            log.exception("table %s: bot turn failed; retrying", self.id)
            await asyncio.sleep(1.0)
            async with self.lock:
                if self.version == version:
                    self._schedule()

    def _bot_choice(self, seat: int, view: dict[str, Any]) -> str:
        """Runs in a thread: a bot sees exactly the view a human in the seat would (a private copy)."""
        bot = self.bots.get(seat)
        if bot is None:
            level = self.rules.bot_level
            bot = self.bots[seat] = make_bot(level, zlib.crc32(f"{self.id}/{seat}".encode()))
        try:
            return bot.act(copy.deepcopy(view))
        except Exception:
            log.exception("table %s: bot failed in seat %s", self.id, seat)
            return str(view["legal"][0])

    # --- lifecycle ---------------------------------------------------------------------------------
    def shutdown(self) -> None:
        self.closed = True
        if self.timer is not None:
            self.timer.cancel()
        for conn in list(self.conns):
            conn.close()


async def load_runtime(hub: Hub, db: AsyncSession, table_id: int) -> TableRuntime | None:
    """Rebuild a table from its rows: the record snapshot (with the seed), then the journalled actions after
    it, replay the game to its last commit."""
    row = await db.get(Table, table_id)
    if row is None:
        return None
    seat_rows = (await db.scalars(select(Seat).where(Seat.table_id == table_id).order_by(Seat.seat))).all()
    seats = [SeatState(account_id=s.account_id, name=s.name, is_bot=s.is_bot, staked=s.staked, away=s.away,
                       left=s.left) for s in seat_rows]
    game = None if row.record is None else load_record(json.loads(row.record))
    snapshot_deals = -1 if game is None else len(game.deal_log)
    if game is not None and row.record_version is not None and row.record_version < row.version:
        # The journal: the actions committed since the snapshot, in version order.
        journal = (await db.execute(select(Event.version, Event.action).where(
            Event.table_id == table_id, Event.version > row.record_version, Event.action.is_not(None))
            .order_by(Event.version))).all()
        for _version, text in journal:
            game.apply(Action.parse(str(text)))
    rules = Rules(ruleset=row.ruleset, length=row.length, stake=row.stake, private=row.private,
                  invite_code=row.invite_code, bot_level=row.bot_level, turn_seconds=row.turn_seconds,
                  partners=row.partners)
    runtime = TableRuntime(hub, table_id, rules, row.status, row.version, row.pot, seats, game,
                           row.created_by)
    runtime.snapshot_deals = snapshot_deals
    events = (await db.scalars(select(Event).where(Event.table_id == table_id)
                               .order_by(Event.version.desc()).limit(hub.settings.event_buffer))).all()
    for ev in reversed(events):
        runtime.buffer.append((ev.version, json.loads(ev.data)))
        if ev.action_id is not None and ev.seat is not None and ev.action is not None:
            runtime._remember(ev.seat, ev.action_id, ev.version, ev.action)
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
